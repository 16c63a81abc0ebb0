"""The claim registry: every claim, qualified by the paper it comes from.

Claims register themselves. A module of :mod:`attnbounds.claims` that defines a module-level
``CLAIM`` (a :class:`~attnbounds.claims.base.Claim`, or ``CLAIMS``, a sequence of them) is
found by discovery, so adding a claim to the package touches that one module (and its test).
Code outside the package calls :func:`register` (also usable as a decorator on a function
that returns the claim).

Ids are qualified by paper: ``"2508.17821:L1"``. A claim that names no ``paper`` gets the
package's paper (:data:`PAPER`) when it lives in :mod:`attnbounds.claims`, and the namespace
:data:`USER` otherwise. The short id (``"L1"``) is accepted wherever it is unique, and rows
and listings show the short id unless two registered claims share it (a user's claim file,
checked in a registry of its own, is shown qualified where a package claim has its short id).

Claims are listed paper by paper, then by ``Claim.order`` (their place in the paper; claims
without one follow, by id), and user claims after the package's in registration order.

>>> reg = ClaimRegistry(modules=())
>>> from attnbounds.claims.base import Claim, Proof, Reading
>>> def toy(cid, paper=None):
...     r = [Reading(n, "-", "-", symbolic=lambda: Proof(True, "ok")) for n in ("transcribed", "reconstructed")]
...     return Claim(cid, "t", "s", "s", "t", "t", (), tuple(r), "proof", paper=paper)
>>> _ = reg.register(toy("X")); _ = reg.register(toy("Y", paper="2601.00001"))
>>> reg.ids(), reg.qualified_ids()
(('X', 'Y'), ('user:X', '2601.00001:Y'))
>>> reg.get("2601.00001:Y").id, reg.get("Y").id
('Y', 'Y')
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass
from typing import Callable, Iterable

from attnbounds.claims.base import Claim, Reading

__all__ = [
    "PAPER",
    "USER",
    "ClaimRegistry",
    "REGISTRY",
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
]

#: The paper of the claims in :mod:`attnbounds.claims` ("Limitations of Normalization in
#: Attention Mechanism").
PAPER = "2508.17821"
#: The namespace of claims defined outside the package that name no paper.
USER = "user"

_PACKAGE = "attnbounds.claims"
#: Submodules of the package that are not claims.
_NOT_CLAIMS = frozenset({"base", "registry"})


@dataclass(frozen=True)
class _Entry:
    claim: Claim
    paper: str
    module: str | None
    builtin: bool
    serial: int

    @property
    def qid(self) -> str:
        return f"{self.paper}:{self.claim.id}"


class ClaimRegistry:
    """A set of claims keyed by ``"<paper>:<id>"``, filled by discovery and :meth:`register`.

    Parameters
    ----------
    package : str, optional
        Package whose submodules are imported on first use and searched for ``CLAIM`` /
        ``CLAIMS`` (default :mod:`attnbounds.claims`).
    modules : iterable of str, optional
        Import exactly these modules instead of scanning ``package`` (``()``: discover nothing).
    beside : ClaimRegistry, optional
        A registry whose claims this one's rows appear beside (a user's claim file is checked
        beside the package's): a short id that one of its other claims has is shown qualified
        here too, so that a user's ``my-notes:L2`` never reads as the paper's ``L2``.
    """

    def __init__(self, package: str = _PACKAGE, modules: Iterable[str] | None = None,
                 beside: "ClaimRegistry | None" = None):
        self._package = package
        self._modules = None if modules is None else tuple(modules)
        if beside is not None and not isinstance(beside, ClaimRegistry):
            raise TypeError(f"beside: expected a ClaimRegistry, got {type(beside).__name__}")
        self._beside = beside
        self._entries: dict[str, _Entry] = {}
        self._errors: dict[str, str] = {}
        self._discovered = False
        self._serial = 0

    # ------------------------------------------------------------------ filling

    def _module_names(self) -> list[str]:
        if self._modules is not None:
            return list(self._modules)
        pkg = importlib.import_module(self._package)
        return [
            f"{self._package}.{m.name}"
            for m in pkgutil.iter_modules(pkg.__path__)
            if not m.name.startswith("_") and m.name not in _NOT_CLAIMS and not m.ispkg
        ]

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        for name in self._module_names():
            try:
                module = importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 -- a broken claim module is reported, not fatal
                self._errors[name] = f"{type(exc).__name__}: {exc}"
                continue
            for claim in claims_from(module):
                self._add(claim, name, builtin=True)

    def _add(self, claim: Claim, module: str | None, builtin: bool) -> Claim:
        if not isinstance(claim, Claim):
            raise TypeError(f"claim: expected a Claim, got {type(claim).__name__}")
        in_package = module is not None and (module == _PACKAGE or module.startswith(_PACKAGE + "."))
        paper = claim.paper or (PAPER if in_package else USER)
        entry = _Entry(claim, paper, module, builtin, self._serial)
        old = self._entries.get(entry.qid)
        if old is not None:
            if old.claim is claim:  # the same object again (e.g. a claim module that also calls register)
                if builtin and not old.builtin:
                    self._entries[entry.qid] = _Entry(claim, paper, module, True, old.serial)
                return claim
            raise ValueError(f"claim: id {entry.qid!r} is already registered")
        self._serial += 1
        self._entries[entry.qid] = entry
        return claim

    def register(self, claim: Claim | Callable[[], Claim] | None = None, *, module: str | None = None):
        """Add ``claim``; returns it. Used on a function, registers what the function returns.

        Raises ``ValueError`` if its qualified id is taken by another claim.
        """
        self._discover()
        if callable(claim) and not isinstance(claim, Claim):
            made = claim()
            self._add(made, module or getattr(claim, "__module__", None), builtin=False)
            return made
        return self._add(claim, module, builtin=False)

    def unregister(self, claim_id: str) -> Claim:
        """Remove a claim added with :meth:`register` (qualified or unique short id)."""
        entry = self._entry(claim_id)
        if entry.builtin:
            raise ValueError(f"claim_id: {entry.qid!r} is a package claim and cannot be unregistered")
        del self._entries[entry.qid]
        return entry.claim

    # ------------------------------------------------------------------ lookup

    def _ordered(self) -> list[_Entry]:
        self._discover()
        def key(e: _Entry):
            if not e.builtin:
                return (1, "", 0.0, "", e.serial)
            order = float("inf") if e.claim.order is None else float(e.claim.order)
            return (0, e.paper, order, e.claim.id, e.serial)

        return sorted(self._entries.values(), key=key)

    def papers(self) -> tuple[str, ...]:
        """The paper namespaces in use."""
        return tuple(dict.fromkeys(e.paper for e in self._ordered()))

    def qualified_ids(self) -> tuple[str, ...]:
        return tuple(e.qid for e in self._ordered())

    def display_id(self, claim: Claim) -> str:
        """The id rows show: the short id when it is unique, else the qualified one."""
        entries = self._ordered()
        same = [e for e in entries if e.claim.id == claim.id]
        elsewhere = self._beside is not None and any(
            e.claim.id == claim.id and e.claim is not claim for e in self._beside._ordered())
        if len(same) <= 1 and not elsewhere:
            return claim.id
        for e in same:
            if e.claim is claim:
                return e.qid
        return claim.id

    def ids(self) -> tuple[str, ...]:
        """Claim ids in registry order, short where unique."""
        return tuple(self.display_id(e.claim) for e in self._ordered())

    def _entry(self, claim_id: str) -> _Entry:
        if not isinstance(claim_id, str):
            raise TypeError(f"claim_id: expected a string, got {type(claim_id).__name__}")
        entries = self._ordered()
        if claim_id in self._entries:
            return self._entries[claim_id]
        same = [e for e in entries if e.claim.id == claim_id]
        if len(same) == 1:
            return same[0]
        if same:
            raise KeyError(f"ambiguous claim id {claim_id!r}: {', '.join(e.qid for e in same)}")
        broken = f" (claim modules that failed to load: {', '.join(self._errors)})" if self._errors else ""
        raise KeyError(f"unknown claim {claim_id!r}; valid: {', '.join(self.ids())}{broken}")

    def get(self, claim_id: str) -> Claim:
        """The claim with this qualified id, or this short id when it is unique (``KeyError`` otherwise)."""
        return self._entry(claim_id).claim

    def module_of(self, claim_id: str) -> str | None:
        """The module that defines the claim (None when unknown)."""
        return self._entry(claim_id).module

    def paper_of(self, claim_id: str) -> str:
        return self._entry(claim_id).paper

    def all_claims(self) -> list[Claim]:
        return [e.claim for e in self._ordered()]

    def load_errors(self) -> dict[str, str]:
        """``{module: error}`` for claim modules that failed to import."""
        self._discover()
        return dict(self._errors)

    def split_id(self, text: str) -> tuple[Claim, str]:
        """Split ``"[paper:]claim[:reading]"`` into the claim and the reading part ("" if none)."""
        self._discover()
        head, sep, rest = text.partition(":")
        if sep and head in self.papers():
            claim_part, sep2, reading_part = rest.partition(":")
            return self.get(f"{head}:{claim_part}"), reading_part
        return self.get(head), rest

    def reading(self, reading_id: str) -> tuple[Claim, Reading]:
        """Resolve ``"[paper:]<claim>:<reading>"`` to its claim and reading."""
        claim, name = self.split_id(reading_id)
        if not name:
            raise KeyError(f"reading id must look like '<claim>:<reading>', got {reading_id!r}")
        return claim, claim.reading(name)

    def reading_ids(self) -> tuple[str, ...]:
        return tuple(f"{self.display_id(c)}:{r.name}" for c in self.all_claims() for r in c.readings)


def claims_from(obj) -> list[Claim]:
    """The claims an object offers: a Claim, a sequence of Claims, or a module's ``CLAIM``/``CLAIMS``."""
    if isinstance(obj, Claim):
        return [obj]
    if isinstance(obj, (str, bytes, os.PathLike)):  # a trial's engine.check(claims="my_claim.py") listed "str" per letter
        raise TypeError(f"claims: expected Claim objects, got the path or spec {obj!r}; load it first with "
                        "attnbounds.claims.load_claims(spec)")
    if isinstance(obj, (list, tuple)):
        bad = [type(c).__name__ for c in obj if not isinstance(c, Claim)]
        if bad:
            raise TypeError(f"claims: expected Claim objects, got {', '.join(bad)}")
        return list(obj)
    found: list[Claim] = []
    if isinstance(getattr(obj, "CLAIM", None), Claim):
        found.append(obj.CLAIM)
    extra = getattr(obj, "CLAIMS", None)
    if extra is not None:
        found.extend(c for c in claims_from(tuple(extra)) if c not in found)
    return found


def load_claims(spec: str) -> list[Claim]:
    """The claims a spec names: ``"path/to/file.py"``, ``"file.py:object"``, ``"module"`` or
    ``"module:object"``. A module offers its ``CLAIM``/``CLAIMS``, else every module-level
    :class:`~attnbounds.claims.base.Claim`; an object may be a Claim or a sequence of them.

    Raises ``ValueError`` (one line, naming ``claims``) when the spec offers no claim.
    """
    from types import ModuleType

    from attnbounds.plugins import load_object

    obj = load_object(spec, what="claims")
    found = claims_from(obj)
    if not found and isinstance(obj, ModuleType):
        found = [v for v in vars(obj).values() if isinstance(v, Claim)]
    if not found and not isinstance(obj, ModuleType):  # file.py:object naming something else
        raise ValueError(f"claims: {spec!r} is a {type(obj).__name__}, not a Claim or a sequence of Claims")
    if not found:
        raise ValueError(f"claims: {spec!r} defines no claim (define CLAIM = Claim(...) or CLAIMS = [...])")
    from attnbounds.theory import derivation

    for c in found:  # a derivation is registered when its module is imported: by now, or never
        unknown = [n for n in c.derivations if n not in derivation.names()]
        if unknown:
            raise ValueError(f"claims: claim {c.id!r} of {spec!r}: derivations: no derivation named "
                             f"{', '.join(map(repr, unknown))} (register one with attnbounds.theory.derivation.register; "
                             f"registered: {', '.join(derivation.names())})")
    return found


#: The process-wide registry behind the module-level functions.
REGISTRY = ClaimRegistry()


def _reg() -> ClaimRegistry:
    # Looked up at call time so that tests can swap the registry (monkeypatch REGISTRY).
    return REGISTRY


def ids() -> tuple[str, ...]:
    """Claim ids in a stable order (short where unique): the paper's claims, then user ones."""
    return _reg().ids()


def qualified_ids() -> tuple[str, ...]:
    """``"<paper>:<id>"`` of every claim, in the same order as :func:`ids`."""
    return _reg().qualified_ids()


def register(claim: Claim | Callable[[], Claim] | None = None, *, module: str | None = None):
    """Add a claim to the registry (a Claim, or, as a decorator, a function returning one)."""
    return _reg().register(claim, module=module)


def unregister(claim_id: str) -> Claim:
    return _reg().unregister(claim_id)


def get(claim_id: str) -> Claim:
    """The claim with this id (qualified, or short when unique); ``KeyError`` listing the valid ids."""
    return _reg().get(claim_id)


def module_of(claim_id: str) -> str | None:
    return _reg().module_of(claim_id)


def all_claims() -> list[Claim]:
    return _reg().all_claims()


def reading_ids() -> tuple[str, ...]:
    return _reg().reading_ids()


def reading(reading_id: str) -> tuple[Claim, Reading]:
    """Resolve ``"[paper:]<claim>:<reading>"`` to its claim and reading."""
    return _reg().reading(reading_id)


def load_errors() -> dict[str, str]:
    return _reg().load_errors()


def split_id(text: str) -> tuple[Claim, str]:
    return _reg().split_id(text)
