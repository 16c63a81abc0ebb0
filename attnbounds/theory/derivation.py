"""Derivations: named sets of closed forms, and exact proof helpers.

A derivation is a function returning ``{key: Result}``; it is registered under a stable name
(``attnbounds derive NAME``). Proof helpers are deliberately exact: an identity is proved by
``expand(...) == 0``, never by ``simplify`` or a numeric guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import sympy as sp

__all__ = [
    "Result",
    "Derivation",
    "DERIVATIONS",
    "register",
    "get",
    "names",
    "to_json",
    "is_identity",
    "latex",
]


@dataclass(frozen=True)
class Result:
    """A closed form with an optional maximizer (for suprema) and a one-line note."""

    expr: sp.Expr
    maximizer: Any = None
    note: str = ""

    def to_json(self) -> dict:
        out = {"expr": sp.sstr(self.expr), "latex": latex(self.expr)}
        if self.maximizer is not None:
            out["maximizer"] = _jsonable(self.maximizer)
        if self.note:
            out["note"] = self.note
        return out


def latex(expr) -> str:
    r"""``sympy.latex`` of ``expr``; where SymPy's printer fails on a Min or a Max (it tests
    whether a factor is constant by substituting values, and Min(3, nan) raises: e^{−a/T}
    e^{−min(3, a/T)}), the same expression with each Min and Max as an opaque function (printed \min, \max).

    >>> a, T = sp.symbols("a T", positive=True)
    >>> print(latex(sp.exp(-a / T) * sp.exp(-sp.Min(3, a / T))))
    e^{- \frac{a}{T}} e^{- \min{\left(3,\frac{a}{T} \right)}}
    """
    try:
        return sp.latex(expr)
    except (ValueError, TypeError):
        if not expr.has(sp.Min, sp.Max):
            raise
    opaque = {sp.Min: sp.Function("min"), sp.Max: sp.Function("max")}
    out = sp.latex(expr.replace(lambda e: e.func in opaque, lambda e: opaque[e.func](*e.args)))
    return out.replace(r"\operatorname{min}", r"\min").replace(r"\operatorname{max}", r"\max")  # as SymPy prints them


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, sp.Basic):
        return sp.sstr(value)
    return value


@dataclass(frozen=True)
class Derivation:
    name: str
    title: str
    compute: Callable[[], dict[str, Result]]
    module: str = ""
    doc: str = field(default="", repr=False)


#: name -> Derivation, in registration order.
DERIVATIONS: dict[str, Derivation] = {}


def register(name: str, title: str):
    """Decorator registering a derivation function under ``name``."""

    def deco(func: Callable[[], dict[str, Result]]):
        if name in DERIVATIONS:
            raise ValueError(f"derivation {name!r} registered twice")
        DERIVATIONS[name] = Derivation(name, title, func, func.__module__, func.__doc__ or "")
        return func

    return deco


def _load() -> None:
    # Importing the theory package imports every module, which registers its derivations.
    import attnbounds.theory  # noqa: F401


def names() -> tuple[str, ...]:
    _load()
    return tuple(DERIVATIONS)


def get(name: str) -> Derivation:
    _load()
    if name not in DERIVATIONS:
        raise KeyError(f"unknown derivation {name!r}; valid: {', '.join(DERIVATIONS)}")
    return DERIVATIONS[name]


def to_json(name: str) -> dict:
    """``{"name": ..., "results": {key: {"expr", "latex", "maximizer"?}}}``."""
    d = get(name)
    return {"name": d.name, "title": d.title, "results": {k: r.to_json() for k, r in d.compute().items()}}


def is_identity(lhs, rhs=0) -> bool:
    """Exact check that ``lhs - rhs`` expands to zero.

    >>> p = sp.Symbol("p")
    >>> is_identity(sp.Rational(1, 4) - p * (1 - p) - (p - sp.Rational(1, 2)) ** 2)
    True
    """
    return sp.expand(sp.sympify(lhs) - sp.sympify(rhs)) == 0
