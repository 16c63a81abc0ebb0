"""The engine's output: one typed :class:`Row` per judged reading, and its JSON form.

A row is a :func:`dataclasses.dataclass`; :meth:`Row.to_dict` gives the JSON-ready ``dict``
whose keys are :data:`ROW_FIELDS`, in order::

    id              "<claim>:<reading>" or "<claim>:without-<hypothesis>"
    claim           claim id
    reading         reading name (or "without-<hypothesis>")
    kind            "reading" | "hypothesis" | "load-error"
    verdict         proved | certified | holds | falsified | undecided
    methods         methods that were run, in order
    examples        Hypothesis examples evaluated up to the first counterexample (shrinking
                    not counted; null if not run)
    sweep           sweep instances evaluated (null if not run)
    mc              {"samples", "confidence", "lhs", "lhs_ci", "rhs", "rhs_ci"} or null
    seconds         wall time of the whole row
    method_seconds  {method: wall time}
    counterexample  null or {"instance": {...}, "lhs": float, "rhs": float, "method": str}
    evidence        one short line: the counterexample or the counts behind the verdict
    detail          {method: text} -- what each method reported
    conflict        null or text naming the disagreeing methods
    error           null or the text of the errors raised by methods
    proof           null, or for a reading with a symbolic method {"steps": int, "checked": int,
                    "substeps": int, "rules": [rule names],
                    "status": "checked" | "argued" | "refused" | "refuted" | "undecided",
                    "proves": [the statements the chain proves, "lhs rel rhs", main first],
                    "tie": for a reading with ``bind`` only, {"status": "tied" | "untied" |
                    "not evaluable" | "error", "instances", "detail", and when tied "hypotheses",
                    the names of the chain's hypotheses checked at the instances}
                    (:mod:`attnbounds.engine.tie`; untied or error is also the row's conflict)}
                    (argued: a step or premise in prose; refused: a step its rule did not
                    accept, or steps that miss the goal; neither is a proof); steps and
                    checked count the chain's top-level steps, substeps the steps of the
                    sub-chains the checked steps carry (checked inside their step; absent in
                    rows written before it existed; proves: a chain's only, absent in older rows,
                    and absent for a proof with no chain); a checked chain also has "audit":
                    {"steps", "searched", "no_numeric_form", "no_draw_met",
                    "counterexamples", "draws_per_step"}, the step audit's counts (every
                    distinct step the kernel accepted, searched for a numeric counterexample
                    under its context; no_draw_met: searched steps where no draw met the
                    hypotheses; :mod:`attnbounds.engine.audit`)
    timed_out       null, or the methods that the budget's wall-clock safety net
                    (``--time-limit``) interrupted: the verdict is then not that of the full
                    budget of work, and the evidence line starts with "TIME LIMIT"
    discarded       null, or {method: count} of the instances a search drew outside the
                    reading's own hypotheses (``Reading.assume``, e.g. R >= 1) and did not
                    judge: never counterexamples, never errors

A row judged under a normalizer (``attnbounds check --normalizer NAME``) also has::

    normalizer         the normalizer's spec, which :func:`attnbounds.numerics.normalizers.get`
                       resolves (a plug-in by its "module:object"), so a counterexample replays
    hypotheses_broken  the claim's hypotheses the normalizer breaks (by its metadata, or
                       failed by the counterexample instance)

(so does the row of a reading that names its own normalizer, ``Reading(normalizer=...)``,
with ``hypotheses_broken`` null).

Numbers in rows are plain Python floats/ints; non-finite floats are written as the strings
``"inf"``, ``"-inf"``, ``"nan"`` so that the JSON is strict.

A row also reads as a mapping of those fields (``row["verdict"]``, ``row.get("error")``,
``dict(row)``), so code written against the JSON form works on rows unchanged. It is not a
``dict``, so ``json.dumps`` refuses it: write ``json.dumps(jsonable(rows))`` (or
``[row.to_dict() for row in rows]``).

>>> row = Row("L1:transcribed", "L1", "transcribed")
>>> row.verdict, row["verdict"], tuple(row.to_dict()) == ROW_FIELDS
('undecided', 'undecided', True)
"""

from __future__ import annotations

import os
import sys

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Iterator

import numpy as np

__all__ = ["Row", "ROW_FIELDS", "NORMALIZER_FIELDS", "jsonable"]

_KINDS = ("reading", "hypothesis", "load-error")


@dataclass(eq=True)
class Row(Mapping):
    """The verdict on one reading (or one hypothesis drop) and the evidence behind it."""

    id: str
    claim: str
    reading: str | None
    kind: str = "reading"
    verdict: str = "undecided"
    methods: list[str] = field(default_factory=list)
    examples: int | None = None
    sweep: int | None = None
    mc: dict | None = None
    seconds: float = 0.0
    method_seconds: dict[str, float] = field(default_factory=dict)
    counterexample: dict | None = None
    evidence: str = ""
    detail: dict[str, str] = field(default_factory=dict)
    conflict: str | None = None
    error: str | None = None
    proof: dict | None = None
    timed_out: list[str] | None = None
    discarded: dict[str, int] | None = None
    normalizer: str | None = None
    hypotheses_broken: list[str] | None = None

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"kind: must be one of {_KINDS}, got {self.kind!r}")

    @property
    def keys_in_order(self) -> tuple[str, ...]:
        """:data:`ROW_FIELDS`, plus :data:`NORMALIZER_FIELDS` for a row judged under a normalizer."""
        return ROW_FIELDS + NORMALIZER_FIELDS if self.normalizer is not None else ROW_FIELDS

    def to_dict(self) -> dict:
        """The JSON-ready ``dict`` of the row, keys in :attr:`keys_in_order` (a deep copy)."""
        return {name: copy.deepcopy(getattr(self, name)) for name in self.keys_in_order}

    @classmethod
    def from_dict(cls, data: Mapping) -> "Row":
        """The row of a ``dict`` with the keys of :data:`ROW_FIELDS` (e.g. read back from JSON).

        ``timed_out`` and ``discarded`` may be absent (rows written before they existed).
        """
        missing = [k for k in ROW_FIELDS if k not in data and k not in _OPTIONAL]
        if missing:
            raise ValueError(f"data: row is missing {', '.join(missing)}")
        return cls(**{k: copy.deepcopy(data[k]) for k in ROW_FIELDS + NORMALIZER_FIELDS if k in data})

    # Read-only mapping view of the JSON fields.
    def __getitem__(self, key: str) -> Any:
        if key not in self.keys_in_order:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_in_order)

    def __len__(self) -> int:
        return len(self.keys_in_order)

    __hash__ = None  # mutable


#: Extra keys of a row judged under a normalizer (``check --normalizer``): the normalizer's
#: name and the claim's hypotheses it breaks.
NORMALIZER_FIELDS: tuple[str, ...] = ("normalizer", "hypotheses_broken")
#: Keys that rows written by older versions lack (read back as None).
_OPTIONAL: tuple[str, ...] = ("timed_out", "discarded")
#: Keys of every row, in order.
ROW_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Row) if f.name not in NORMALIZER_FIELDS)


def jsonable(value: Any) -> Any:
    """Convert numbers, numpy arrays and nested containers into strict-JSON values.

    Any mapping (a :class:`Row` among them) becomes a ``dict``, an object with a ``to_dict()``
    its dict, a set a sorted list; only a scalar that is none of these (a SymPy expression)
    becomes its ``str``.

    >>> jsonable({"x": np.array([1.0, np.inf]), "n": np.int64(3), "t": (1, 2)})
    {'x': [1.0, 'inf'], 'n': 3, 't': [1, 2]}
    >>> jsonable([Row("L1:transcribed", "L1", "transcribed")])[0]["verdict"]
    'undecided'
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return v
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, Row):
        return jsonable(value.to_dict())
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        return jsonable(to_dict())
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(value, complex):
        return str(value)
    try:  # sympy numbers and other scalars that know how to become floats
        return jsonable(float(value))
    except (TypeError, ValueError):
        return str(value)


def _short(text: str, width: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _fmt(x: Any) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return f"{v + 0.0:.6g}"  # + 0.0: a negative zero prints as 0


def _sides_text(lhs: Any, rhs: Any, between: str = ", ") -> str:
    """``lhs=… rhs=…``, both as :func:`_fmt`, with more significant digits (up to 17) where six
    print two different numbers alike: a violation by 1e-7 shows as ``1 != 1.0000001``.

    >>> _sides_text(1.0, 1.0000001, " != "), _sides_text(0.5, 2)
    ('lhs=1 != rhs=1.0000001', 'lhs=0.5, rhs=2')
    """
    x, y = _fmt_pair(lhs, rhs)
    return f"lhs={x}{between}rhs={y}"


def _fmt_pair(lhs: Any, rhs: Any) -> tuple[str, str]:
    """Both sides as :func:`_fmt`, with as many more digits as tell two different values apart."""
    try:
        a, b = float(lhs), float(rhs)
    except (TypeError, ValueError):
        return _fmt(lhs), _fmt(rhs)
    for digits in range(6, 18):
        x, y = f"{a + 0.0:.{digits}g}", f"{b + 0.0:.{digits}g}"
        if x != y or a == b:
            return x, y
    return x, y


def _positive_zeros(v):
    """``v`` (JSON-able) with every negative zero made 0.0, in nested lists too."""
    if isinstance(v, float):
        return v + 0.0
    if isinstance(v, list):
        return [_positive_zeros(t) for t in v]
    return v


def _instance_text(instance: dict | None, width: int = 90) -> str:
    if not instance:
        return "{}"
    parts = []
    for k, v in jsonable(instance).items():
        if isinstance(v, float):
            parts.append(f"{k}={v + 0.0:.6g}")  # + 0.0: a negative zero prints as 0
        else:
            parts.append(f"{k}={_positive_zeros(v)}")
    return _short(", ".join(parts), width)


_FLIP = {"<=": ">", ">=": "<", "==": "!="}


#: The proof statuses of a chain that is no proof: a step or premise in prose, or a step the
#: kernel refused (the tables show them after the step count).
UNPROVED = ("argued", "refused")


def _error_text(exc: BaseException) -> str:
    """``"Kind: message"``, the kind being the first public class of the error (a private
    ``_NonFinite`` reads as the ValueError it is).

    >>> class _Private(ValueError): pass
    >>> _error_text(_Private("sides returned NaN"))
    'ValueError: sides returned NaN'
    """
    kind = next(c.__name__ for c in type(exc).__mro__ if not c.__name__.startswith("_"))
    if debug_tracebacks() and not getattr(exc, "_attnbounds_shown", False):
        import traceback

        try:
            exc._attnbounds_shown = True  # one traceback per error, however often its text is asked
        except AttributeError:
            pass
        print("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), file=sys.stderr, end="")
    return _short(f"{kind}: {exc}", 300)


def debug_tracebacks() -> bool:
    """Whether an error a row records (a method that raised) also prints its traceback to
    stderr: ``attnbounds --debug`` sets ATTNBOUNDS_DEBUG=1, which turns it on."""
    return os.environ.get("ATTNBOUNDS_DEBUG", "") not in ("", "0")


def _counterexample(instance, lhs, rhs, method, **extra) -> dict:
    out = {"instance": jsonable(instance or {}), "lhs": jsonable(lhs), "rhs": jsonable(rhs), "method": method}
    out.update({k: jsonable(v) for k, v in extra.items()})
    return out
