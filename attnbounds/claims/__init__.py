"""The registry of claims, in a stable order.

Each claim of arXiv 2508.17821 lives in its own module; the module docstring is its proof.

>>> ids()
('L1', 'C1', 'T1i', 'T1ii', 'C2', 'T2', 'L2', 'C3', 'H1')
"""

from __future__ import annotations

import importlib

from attnbounds.claims.base import Claim, Reading

__all__ = ["ids", "get", "all_claims", "reading", "reading_ids", "register", "Claim"]

#: Claim id -> module that defines ``CLAIM`` (the paper's claims, in the paper's order).
_MODULES: dict[str, str] = {
    "L1": "attnbounds.claims.lemma1",
    "C1": "attnbounds.claims.corollary1",
    "T1i": "attnbounds.claims.theorem1_fixed",
    "T1ii": "attnbounds.claims.theorem1_random",
    "C2": "attnbounds.claims.corollary2",
    "T2": "attnbounds.claims.theorem2",
    "L2": "attnbounds.claims.lemma2",
    "C3": "attnbounds.claims.corollary3",
    "H1": "attnbounds.claims.multihead",
}
_EXTRA: dict[str, Claim] = {}


def ids() -> tuple[str, ...]:
    """Claim ids in a stable order: the paper's claims, then user-registered ones."""
    return tuple(_MODULES) + tuple(_EXTRA)


def register(claim: Claim) -> Claim:
    """Add a user claim to the registry (after the paper's claims)."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim: expected a Claim, got {type(claim).__name__}")
    if claim.id in _MODULES or claim.id in _EXTRA:
        raise ValueError(f"claim: id {claim.id!r} is already registered")
    _EXTRA[claim.id] = claim
    return claim


def get(claim_id: str) -> Claim:
    """The claim with this id; ``KeyError`` listing the valid ids otherwise."""
    if claim_id in _EXTRA:
        return _EXTRA[claim_id]
    if claim_id not in _MODULES:
        raise KeyError(f"unknown claim {claim_id!r}; valid: {', '.join(ids())}")
    return importlib.import_module(_MODULES[claim_id]).CLAIM


def all_claims() -> list[Claim]:
    return [get(i) for i in ids()]


def reading_ids() -> tuple[str, ...]:
    return tuple(rid for c in all_claims() for rid in c.reading_ids)


def reading(reading_id: str) -> tuple[Claim, Reading]:
    """Resolve ``"<claim>:<reading>"`` to its claim and reading."""
    claim_id, sep, name = reading_id.partition(":")
    if not sep:
        raise KeyError(f"reading id must look like '<claim>:<reading>', got {reading_id!r}")
    claim = get(claim_id)
    return claim, claim.reading(name)
