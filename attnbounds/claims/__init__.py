"""The claims, one module each, and their registry (:mod:`attnbounds.claims.registry`).

Each claim of arXiv 2508.17821 lives in its own module that defines ``CLAIM``; the module
docstring is its proof. Claims are found by discovery, so adding one touches only its module
(and its test). Ids are qualified by paper (``"2508.17821:L1"``); the short id is accepted
while it is unique.

>>> ids()
('L1', 'C1', 'T1i', 'T1ii', 'C2', 'T2', 'L2', 'C3', 'H1')
>>> get("2508.17821:L1") is get("L1")
True
"""

from __future__ import annotations

from attnbounds.claims.base import Claim
from attnbounds.claims.registry import (
    PAPER,
    USER,
    ClaimRegistry,
    all_claims,
    claims_from,
    get,
    ids,
    load_claims,
    load_errors,
    module_of,
    qualified_ids,
    reading,
    reading_ids,
    register,
    split_id,
    unregister,
)

__all__ = [
    "PAPER",
    "USER",
    "ClaimRegistry",
    "ids",
    "qualified_ids",
    "get",
    "all_claims",
    "reading",
    "reading_ids",
    "register",
    "unregister",
    "module_of",
    "load_errors",
    "split_id",
    "claims_from",
    "load_claims",
    "Claim",
]
