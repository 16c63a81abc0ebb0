"""The verdict engine: judge every reading of every claim with every method it has.

Each :class:`~attnbounds.claims.base.Reading` carries up to five methods (see
:mod:`attnbounds.claims.base`). :func:`judge_reading` runs each one that is set, and
:func:`combine` turns their outcomes into the strongest verdict the evidence supports:

``proved``
    ``reading.symbolic()`` returned ``Proof(status=True)``;
``certified``
    ``reading.certify()`` returned ``Proof(status=True)``;
``holds``
    no counterexample in ``K`` Hypothesis examples *and* none in a batched numpy sweep of at
    least the budget's instance count (both methods must be set and must finish). A reading
    with a Monte Carlo estimate additionally needs the confidence interval of ``lhs`` wholly
    on the correct side of the interval of ``rhs``; a reading with only ``montecarlo``
    holds on that alone;
``falsified``
    a counterexample from any method: an exact refutation, the shrunk (minimal) failing
    instance found by Hypothesis, the worst violating instance of the sweep, or a Monte Carlo
    estimate whose intervals lie wholly on the wrong side. The row gives the instance and both
    sides' values;
``undecided``
    anything else: no method, an exact method that cannot decide, intervals that straddle,
    a search cut short by its time limit, an error in a method. Never rounded up.

**Conflicts are bugs, reported loudly.** When an exact method proves the reading but another
method finds a counterexample (or a symbolic counterexample does not violate the numeric
sides), the verdict is ``undecided`` and the row's ``conflict`` field says which methods
disagree. Errors inside a method likewise give ``undecided`` with the error text in
``error``; they never stop the run.

For each claim hypothesis that has a ``drop`` demonstration, :func:`check` adds a row with id
``"<claim>:without-<hypothesis>"``: ``falsified`` (the expected outcome) when ``drop()``
exhibits a counterexample to the conclusion once that hypothesis fails.

Row schema (a JSON-ready ``dict``)::

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

Numbers in rows are plain Python floats/ints; non-finite floats are written as the strings
``"inf"``, ``"-inf"``, ``"nan"`` so that the JSON is strict.

Determinism: every reading gets its own random streams, derived from ``seed`` and the
reading id, so the same seed gives the same rows (apart from the timings ``seconds`` and
``method_seconds``) whether a reading runs alone or with all the others, unless a time
limit cuts a method short (the row then says so).

>>> from attnbounds.claims.base import Proof, Reading
>>> r = Reading("t", "t", "t", symbolic=lambda: Proof(True, "expand(...) == 0"))
>>> outcome = run_exact(r, "symbolic", Budget())
>>> combine(r, [outcome], Budget()).verdict
'proved'
"""

from __future__ import annotations

import copy
import math
import signal
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from attnbounds.claims.base import (
    VERDICTS,
    Claim,
    Estimate,
    Proof,
    Reading,
    Sides,
    holds_relation,
)

__all__ = [
    "Budget",
    "DEFAULT_BUDGET",
    "QUICK_BUDGET",
    "MethodOutcome",
    "Judgement",
    "CheckInterrupted",
    "MethodTimeout",
    "budget_for",
    "resolve_ids",
    "check",
    "judge_reading",
    "judge_hypothesis_drop",
    "run_exact",
    "run_strategy",
    "run_sweep",
    "run_montecarlo",
    "montecarlo_outcome",
    "combine",
    "jsonable",
    "ROW_FIELDS",
]

#: Keys of every row, in order.
ROW_FIELDS: tuple[str, ...] = (
    "id",
    "claim",
    "reading",
    "kind",
    "verdict",
    "methods",
    "examples",
    "sweep",
    "mc",
    "seconds",
    "method_seconds",
    "counterexample",
    "evidence",
    "detail",
    "conflict",
    "error",
)

#: Exact methods, most authoritative first; a counterexample is reported from the first
#: method in ``_CEX_ORDER`` that found one (Hypothesis before the sweep: its instance is shrunk).
_EXACT = ("symbolic", "certify")
_CEX_ORDER = ("symbolic", "certify", "strategy", "sweep", "montecarlo")
_METHOD_LABEL = {
    "symbolic": "symbolic",
    "certify": "certify",
    "strategy": "hypothesis",
    "sweep": "sweep",
    "montecarlo": "montecarlo",
}

# Sweep chunks start at _CHUNK_START instances and double (up to _CHUNK_MAX) while a batch
# stays under _CHUNK_BYTES; the schedule depends only on array sizes, so it is deterministic.
_CHUNK_START = 256
_CHUNK_MAX = 65536
_CHUNK_BYTES = 64 * 2**20


# --------------------------------------------------------------------------- budgets


@dataclass(frozen=True)
class Budget:
    """How much work each method gets.

    Parameters
    ----------
    examples : int
        Hypothesis ``max_examples`` per reading (>= 1).
    sweep : int
        Random instances the numpy sweep must evaluate before a reading can hold (>= 1).
    mc_samples : int
        Samples passed to ``reading.montecarlo(rng, samples)`` (>= 1).
    method_seconds : float
        Time limit per method (> 0). Hypothesis and the sweep stop drawing new instances
        when it is reached (the row then says the search was cut short and the reading
        cannot hold); exact methods and Monte Carlo are interrupted at ``method_seconds``
        (on the main thread of a POSIX process; elsewhere the limit is not enforced).
    """

    examples: int = 200
    sweep: int = 100_000
    mc_samples: int = 20_000
    method_seconds: float = 120.0

    def __post_init__(self):
        for name in ("examples", "sweep", "mc_samples"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name}: must be an integer >= 1, got {value!r}")
        s = self.method_seconds
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not (s > 0 and math.isfinite(s)):
            raise ValueError(f"method_seconds: must be a finite number > 0, got {s!r}")


#: The default run: 200 Hypothesis examples, 1e5 sweep instances, 2e4 Monte Carlo samples.
DEFAULT_BUDGET = Budget()
#: ``--quick``: enough to find the paper's counterexamples, bounded to stay fast.
QUICK_BUDGET = Budget(examples=30, sweep=10_000, mc_samples=2_000, method_seconds=8.0)


def budget_for(quick: bool = False, examples: int | None = None) -> Budget:
    """The default or quick budget, with ``examples`` overriding the Hypothesis count.

    >>> budget_for(quick=True, examples=5).examples
    5
    >>> budget_for(examples=0)
    Traceback (most recent call last):
    ...
    ValueError: examples: must be an integer >= 1, got 0
    """
    base = QUICK_BUDGET if quick else DEFAULT_BUDGET
    if examples is None:
        return base
    return replace(base, examples=examples)


# --------------------------------------------------------------------------- outcomes


@dataclass
class MethodOutcome:
    """What one method said about one reading.

    ``outcome`` is ``"pass"`` (proved/certified/no counterexample/CI on the right side),
    ``"fail"`` (a counterexample in ``counterexample``), ``"unknown"`` (an exact method that
    cannot decide, or straddling intervals), ``"incomplete"`` (a search cut short by its time
    limit) or ``"error"`` (the method raised; text in ``detail``).
    """

    method: str
    outcome: str
    detail: str
    seconds: float = 0.0
    count: int | None = None
    counterexample: dict | None = None
    mc: dict | None = None
    conflict: str | None = None

    def __post_init__(self):
        if self.method not in _CEX_ORDER:
            raise ValueError(f"method: must be one of {_CEX_ORDER}, got {self.method!r}")
        if self.outcome not in ("pass", "fail", "unknown", "incomplete", "error"):
            raise ValueError(f"outcome: unknown outcome {self.outcome!r}")


@dataclass(frozen=True)
class Judgement:
    """The combined verdict of a reading and the line of evidence behind it."""

    verdict: str
    evidence: str
    counterexample: dict | None = None
    conflict: str | None = None
    error: str | None = None


class MethodTimeout(BaseException):
    """Raised inside a method that ran past its time limit.

    A ``BaseException`` so that neither SymPy's nor Hypothesis's ``except Exception`` can
    swallow it.
    """


class CheckInterrupted(KeyboardInterrupt):
    """A ``KeyboardInterrupt`` carrying the rows finished so far (``rows``).

    The reading that was running when the interrupt came is included as an ``undecided`` row
    whose ``error`` says ``interrupted``, with whatever its finished methods found.
    """

    def __init__(self, rows: list[dict]):
        super().__init__("interrupted")
        self.rows = rows


class _Violation(AssertionError):
    """Raised inside the Hypothesis test body when an instance violates the relation."""


class _NonFinite(ValueError):
    """Raised when ``sides`` returns NaN: an evaluator bug, not a counterexample."""


# --------------------------------------------------------------------------- helpers


def jsonable(value: Any) -> Any:
    """Convert numbers, numpy arrays and nested containers into strict-JSON values.

    >>> jsonable({"x": np.array([1.0, np.inf]), "n": np.int64(3), "t": (1, 2)})
    {'x': [1.0, 'inf'], 'n': 3, 't': [1, 2]}
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
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
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
    return f"{v:.6g}"


def _instance_text(instance: dict | None, width: int = 90) -> str:
    if not instance:
        return "{}"
    parts = []
    for k, v in jsonable(instance).items():
        if isinstance(v, float):
            parts.append(f"{k}={v:.6g}")
        else:
            parts.append(f"{k}={v}")
    return _short(", ".join(parts), width)


_FLIP = {"<=": ">", ">=": "<", "==": "!="}


def _error_text(exc: BaseException) -> str:
    return _short(f"{type(exc).__name__}: {exc}", 300)


@contextmanager
def _time_limit(seconds: float):
    """Raise :class:`MethodTimeout` in the body after ``seconds`` (POSIX main thread only)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _on_alarm(signum, frame):
        raise MethodTimeout(f"time limit of {seconds:g} s reached")

    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _stream_seed(seed: int, reading_id: str, method: str) -> list[int]:
    """Entropy for one method's random stream: the run seed, the reading id, the method."""
    return [int(seed), zlib.crc32(reading_id.encode()), zlib.crc32(method.encode())]


def _hypothesis_seed(seed: int, reading_id: str) -> int:
    return int(seed) * 2**32 + zlib.crc32(reading_id.encode())


def _as_float_arrays(sides: Sides) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(sides, Sides):
        raise TypeError(f"sides: expected a Sides object, got {type(sides).__name__}")
    lhs = np.asarray(sides.lhs, dtype=float)
    rhs = np.asarray(sides.rhs, dtype=float)
    try:
        return np.broadcast_arrays(lhs, rhs)
    except ValueError:
        # A batch of per-element bounds: lhs (B, L) against rhs (B,) aligns on the batch axis.
        if lhs.ndim == rhs.ndim or min(lhs.ndim, rhs.ndim) == 0:
            raise
        nd = max(lhs.ndim, rhs.ndim)
        lhs = lhs.reshape(lhs.shape + (1,) * (nd - lhs.ndim))
        rhs = rhs.reshape(rhs.shape + (1,) * (nd - rhs.ndim))
        return np.broadcast_arrays(lhs, rhs)


def _violation(lhs: np.ndarray, rhs: np.ndarray, relation: str) -> np.ndarray:
    """How far ``lhs <relation> rhs`` is from holding (> 0 means violated)."""
    if relation == "<=":
        return lhs - rhs
    if relation == ">=":
        return rhs - lhs
    return np.abs(lhs - rhs)


def _worst_element(sides: Sides, reading: Reading) -> tuple[float, float, bool]:
    """Both sides at the element that violates most (or holds least) and whether all hold."""
    lhs, rhs = _as_float_arrays(sides)
    if np.any(np.isnan(lhs)) or np.any(np.isnan(rhs)):
        raise _NonFinite("sides returned NaN")
    ok = holds_relation(Sides(lhs, rhs), reading.relation, reading.rtol, reading.atol)
    margin = _violation(lhs, rhs, reading.relation)
    k = int(np.argmax(np.where(np.isnan(margin), -np.inf, margin).ravel())) if margin.size else 0
    return float(lhs.ravel()[k]), float(rhs.ravel()[k]), bool(np.all(ok))


def _snapshot(instance: Any) -> Any:
    """A copy of an instance that later mutation cannot change: arrays copied, others shared."""
    if isinstance(instance, dict):
        return {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v) for k, v in instance.items()}
    return copy.copy(instance)


def _counterexample(instance, lhs, rhs, method, **extra) -> dict:
    out = {"instance": jsonable(instance or {}), "lhs": jsonable(lhs), "rhs": jsonable(rhs), "method": method}
    out.update({k: jsonable(v) for k, v in extra.items()})
    return out


# --------------------------------------------------------------------------- methods


def run_exact(reading: Reading, method: str, budget: Budget) -> MethodOutcome:
    """Run ``reading.symbolic()`` or ``reading.certify()`` under the time limit.

    A refutation's counterexample is re-evaluated with ``reading.sides`` when the reading
    has one; if the numeric sides do not violate the relation there, the outcome carries a
    ``conflict``.
    """
    if method not in _EXACT:
        raise ValueError(f"method: must be one of {_EXACT}, got {method!r}")
    fn = getattr(reading, method)
    if fn is None:
        raise ValueError(f"method: reading {reading.name!r} has no {method!r} method")
    start = time.perf_counter()
    try:
        with _time_limit(budget.method_seconds):
            proof = fn()
    except MethodTimeout as exc:
        return MethodOutcome(method, "unknown", f"timed out: {exc}", time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 -- an error in a method is a row, not a crash
        return MethodOutcome(method, "error", _error_text(exc), time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if not isinstance(proof, Proof):
        return MethodOutcome(method, "error", f"{method}() returned {type(proof).__name__}, expected Proof", seconds)
    if proof.status is True:
        return MethodOutcome(method, "pass", proof.detail, seconds)
    if proof.status is None:
        return MethodOutcome(method, "unknown", proof.detail, seconds)
    # A refutation: report the instance, and confirm it numerically where we can.
    lhs, rhs, conflict, note = proof.lhs, proof.rhs, None, ""
    if reading.sides is not None and proof.counterexample is not None:
        try:
            nl, nr, ok = _worst_element(reading.sides(_snapshot(proof.counterexample)), reading)
        except Exception as exc:  # noqa: BLE001
            note = f" (numeric re-evaluation failed: {_error_text(exc)})"
        else:
            lhs = nl if lhs is None else lhs
            rhs = nr if rhs is None else rhs
            if ok:
                conflict = (
                    f"{method} refutes the reading, but the numeric sides hold at its "
                    f"counterexample (lhs={_fmt(nl)}, rhs={_fmt(nr)})"
                )
    cex = _counterexample(proof.counterexample, lhs, rhs, method)
    return MethodOutcome(method, "fail", proof.detail + note, seconds, counterexample=cex, conflict=conflict)


def run_strategy(reading: Reading, budget: Budget, *, seed: int = 0, reading_id: str | None = None) -> MethodOutcome:
    """Search with Hypothesis for an instance violating ``lhs <relation> rhs``.

    Runs ``budget.examples`` examples with the seed derived from ``seed`` and the reading
    id, no example database and no deadline. A failure is shrunk by Hypothesis; the last
    failing call is its final replay of the minimal example, which is what is reported.
    NaN sides are an evaluator error, not a counterexample.
    """
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    if reading.strategy is None or reading.sides is None:
        raise ValueError(f"reading: {reading.name!r} has no strategy/sides to search with")
    rid = reading_id or reading.name
    start = time.perf_counter()
    state: dict[str, Any] = {"evaluated": 0, "failing": None, "stopped": False, "found": False, "raised_on": None}

    def body(instance):
        # Once anything failed, every call is evaluated so that shrinking and the final
        # replay see the same behaviour (otherwise Hypothesis reports a flaky test).
        if not state["found"] and time.perf_counter() - start > budget.method_seconds:
            state["stopped"] = True  # time is up: let Hypothesis finish without evaluating
            return
        try:
            lhs, rhs, ok = _worst_element(reading.sides(instance), reading)
        except Exception:
            state["found"] = True
            state["raised_on"] = _snapshot(instance)  # the last one is the shrunk one
            raise
        if not state["found"]:
            state["evaluated"] += 1
        if not ok:
            state["found"] = True
            state["failing"] = (_snapshot(instance), lhs, rhs)
            raise _Violation(f"lhs={lhs!r} rhs={rhs!r}")

    try:
        strategy = reading.strategy()
        test = settings(
            max_examples=budget.examples,
            database=None,
            deadline=None,
            derandomize=False,
            verbosity=Verbosity.quiet,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            print_blob=False,
            phases=(Phase.generate, Phase.target, Phase.shrink),
        )(given(strategy)(body))
        test = hypothesis_seed(_hypothesis_seed(seed, rid))(test)
        # Hard backstop well past the soft limit, for a single example that never returns.
        with _time_limit(3 * budget.method_seconds + 10):
            test()
    except _Violation:
        instance, lhs, rhs = state["failing"]
        cex = _counterexample(instance, lhs, rhs, "strategy")
        text = (
            f"Hypothesis: shrunk counterexample after {state['evaluated']} example(s): "
            f"lhs={_fmt(lhs)} {_FLIP[reading.relation]} rhs={_fmt(rhs)}"
        )
        return MethodOutcome(
            "strategy", "fail", text, time.perf_counter() - start, count=state["evaluated"], counterexample=cex
        )
    except MethodTimeout as exc:
        return MethodOutcome(
            "strategy", "incomplete", f"Hypothesis {exc}", time.perf_counter() - start, count=state["evaluated"]
        )
    except Exception as exc:  # noqa: BLE001
        at = f" at {_instance_text(state['raised_on'])}" if state["raised_on"] is not None else ""
        return MethodOutcome(
            "strategy", "error", f"Hypothesis: {_error_text(exc)}{at}", time.perf_counter() - start,
            count=state["evaluated"],
        )
    seconds = time.perf_counter() - start
    n = state["evaluated"]
    if state["stopped"]:
        return MethodOutcome(
            "strategy", "incomplete",
            f"Hypothesis stopped by the {budget.method_seconds:g} s limit after {n} example(s), no counterexample",
            seconds, count=n,
        )
    return MethodOutcome("strategy", "pass", f"no counterexample in {n} Hypothesis example(s)", seconds, count=n)


def _batch_size(batch: dict, requested: int) -> int:
    for v in batch.values():
        if isinstance(v, np.ndarray) and v.ndim >= 1:
            return int(v.shape[0])
    return requested


def _batch_bytes(batch: dict) -> int:
    return sum(v.nbytes for v in batch.values() if isinstance(v, np.ndarray))


def _slice_instance(batch: dict, i: int) -> dict:
    """Instance ``i`` of a batch: arrays are sliced along axis 0, scalars are shared."""
    return {k: (v[i] if isinstance(v, np.ndarray) and v.ndim >= 1 else v) for k, v in batch.items()}


def run_sweep(
    reading: Reading, budget: Budget, *, seed: int = 0, reading_id: str | None = None
) -> MethodOutcome:
    """Evaluate ``reading.sides`` on at least ``budget.sweep`` random instances, in chunks.

    Calls ``reading.sweep(rng, chunk)`` repeatedly (``rng`` is a numpy Generator seeded from
    ``seed`` and the reading id) until ``budget.sweep`` instances are done or the time limit
    is reached. Counts every violating instance and keeps the worst (largest ``lhs - rhs``
    for ``<=``), which is re-evaluated alone to report its sides.
    """
    if reading.sweep is None or reading.sides is None:
        raise ValueError(f"reading: {reading.name!r} has no sweep/sides")
    rid = reading_id or reading.name
    rng = np.random.default_rng(_stream_seed(seed, rid, "sweep"))
    start = time.perf_counter()
    done = violations = 0
    worst: tuple[float, dict] | None = None
    chunk = min(_CHUNK_START, budget.sweep)
    stopped = False
    try:
        with _time_limit(3 * budget.method_seconds + 10):
            while done < budget.sweep:
                if time.perf_counter() - start > budget.method_seconds:
                    stopped = True
                    break
                batch = reading.sweep(rng, chunk)
                if not isinstance(batch, dict):
                    raise TypeError(f"sweep() returned {type(batch).__name__}, expected a dict instance batch")
                size = _batch_size(batch, chunk)
                lhs, rhs = _as_float_arrays(reading.sides(batch))
                if lhs.ndim == 0:
                    lhs, rhs = np.broadcast_to(lhs, (size,)), np.broadcast_to(rhs, (size,))
                if lhs.shape[0] != size:
                    raise ValueError(f"sides() returned shape {lhs.shape} for a batch of {size} instance(s)")
                nan = np.isnan(lhs) | np.isnan(rhs)
                if np.any(nan):
                    i = int(np.argwhere(nan.reshape(size, -1).any(axis=1))[0, 0])
                    raise _NonFinite(f"sides returned NaN at instance {_instance_text(_slice_instance(batch, i))}")
                ok = holds_relation(Sides(lhs, rhs), reading.relation, reading.rtol, reading.atol)
                bad = ~ok.reshape(size, -1).all(axis=1)
                if np.any(bad):
                    violations += int(bad.sum())
                    margin = _violation(lhs, rhs, reading.relation).reshape(size, -1).max(axis=1)
                    margin = np.where(bad, margin, -np.inf)
                    i = int(np.argmax(margin))
                    if worst is None or margin[i] > worst[0]:
                        worst = (float(margin[i]), _snapshot(_slice_instance(batch, i)))
                done += size
                if _batch_bytes(batch) * 2 <= _CHUNK_BYTES and chunk < _CHUNK_MAX:
                    chunk *= 2
                chunk = max(1, min(chunk, budget.sweep - done)) if done < budget.sweep else chunk
    except MethodTimeout as exc:
        stopped = True
        timeout_note = str(exc)
    except Exception as exc:  # noqa: BLE001
        return MethodOutcome("sweep", "error", f"sweep: {_error_text(exc)}", time.perf_counter() - start, count=done)
    else:
        timeout_note = ""
    seconds = time.perf_counter() - start
    if worst is not None:
        instance = worst[1]
        try:
            lhs1, rhs1, ok1 = _worst_element(reading.sides(_snapshot(instance)), reading)
        except Exception as exc:  # noqa: BLE001
            return MethodOutcome(
                "sweep", "error",
                f"sweep: the worst violating instance fails when evaluated alone: {_error_text(exc)}",
                seconds, count=done,
            )
        if ok1:
            return MethodOutcome(
                "sweep", "error",
                "sweep: sides() disagree between the batch and the single worst instance "
                f"({_instance_text(instance)}): batch says violated, single says holds",
                seconds, count=done,
            )
        cex = _counterexample(instance, lhs1, rhs1, "sweep", violations=violations, of=done)
        text = (
            f"sweep: {violations} of {done} instance(s) violate; worst: "
            f"lhs={_fmt(lhs1)} {_FLIP[reading.relation]} rhs={_fmt(rhs1)}"
        )
        return MethodOutcome("sweep", "fail", text, seconds, count=done, counterexample=cex)
    if stopped or done < budget.sweep:
        why = timeout_note or f"the {budget.method_seconds:g} s limit"
        return MethodOutcome(
            "sweep", "incomplete",
            f"sweep stopped by {why} after {done} of {budget.sweep} instance(s), no counterexample",
            seconds, count=done,
        )
    return MethodOutcome("sweep", "pass", f"no counterexample in {done} sweep instance(s)", seconds, count=done)


def montecarlo_outcome(estimate: Estimate, relation: str, rtol: float = 1e-9, atol: float = 1e-12) -> str:
    """``"pass"``, ``"fail"`` or ``"unknown"`` for a Monte Carlo estimate of ``lhs <relation> rhs``.

    ``pass`` needs the whole interval of ``lhs`` on the correct side of the whole interval
    of ``rhs``; ``fail`` needs it wholly on the wrong side; overlapping intervals are
    ``unknown``. An equality can be refuted (disjoint intervals) but never established by
    sampling, so ``==`` is at best ``unknown``. The slack of :func:`holds_relation` absorbs
    rounding only.

    >>> e = Estimate(0.2, (0.1, 0.3), 0.5, (0.5, 0.5), 1000, 0.99)
    >>> montecarlo_outcome(e, "<="), montecarlo_outcome(e, ">="), montecarlo_outcome(e, "==")
    ('pass', 'fail', 'fail')
    >>> montecarlo_outcome(Estimate(0.45, (0.4, 0.6), 0.5, (0.5, 0.5), 1000, 0.99), "<=")
    'unknown'
    """
    if not isinstance(estimate, Estimate):
        raise TypeError(f"estimate: expected an Estimate, got {type(estimate).__name__}")
    (l_lo, l_hi), (r_lo, r_hi) = estimate.lhs_ci, estimate.rhs_ci
    vals = [float(v) for v in (l_lo, l_hi, r_lo, r_hi)]
    if any(math.isnan(v) for v in vals) or l_lo > l_hi or r_lo > r_hi:
        raise ValueError(f"estimate: malformed confidence intervals lhs_ci={estimate.lhs_ci}, rhs_ci={estimate.rhs_ci}")
    below = bool(holds_relation(Sides(l_hi, r_lo), "<=", rtol, atol))  # lhs interval below rhs interval
    above = bool(holds_relation(Sides(l_lo, r_hi), ">=", rtol, atol))  # lhs interval above rhs interval
    strictly_below = not bool(holds_relation(Sides(l_hi, r_lo), ">=", rtol, atol))
    strictly_above = not bool(holds_relation(Sides(l_lo, r_hi), "<=", rtol, atol))
    if relation == "<=":
        return "pass" if below else ("fail" if strictly_above else "unknown")
    if relation == ">=":
        return "pass" if above else ("fail" if strictly_below else "unknown")
    if relation == "==":
        return "fail" if (strictly_above or strictly_below) else "unknown"
    raise ValueError(f"relation: must be one of ('<=', '>=', '=='), got {relation!r}")


def run_montecarlo(
    reading: Reading, budget: Budget, *, seed: int = 0, reading_id: str | None = None
) -> MethodOutcome:
    """Run ``reading.montecarlo(rng, budget.mc_samples)`` and judge its intervals."""
    if reading.montecarlo is None:
        raise ValueError(f"reading: {reading.name!r} has no montecarlo method")
    rid = reading_id or reading.name
    rng = np.random.default_rng(_stream_seed(seed, rid, "montecarlo"))
    start = time.perf_counter()
    try:
        with _time_limit(budget.method_seconds):
            est = reading.montecarlo(rng, budget.mc_samples)
        outcome = montecarlo_outcome(est, reading.relation, reading.rtol, reading.atol)
    except MethodTimeout as exc:
        return MethodOutcome("montecarlo", "unknown", f"Monte Carlo {exc}", time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001
        return MethodOutcome("montecarlo", "error", f"Monte Carlo: {_error_text(exc)}", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    mc = {
        "samples": int(est.samples),
        "confidence": float(est.confidence),
        "lhs": jsonable(est.lhs),
        "lhs_ci": jsonable(list(est.lhs_ci)),
        "rhs": jsonable(est.rhs),
        "rhs_ci": jsonable(list(est.rhs_ci)),
    }
    lhs_txt = f"{_fmt(est.lhs)} [{_fmt(est.lhs_ci[0])}, {_fmt(est.lhs_ci[1])}]"
    rhs_txt = f"{_fmt(est.rhs)} [{_fmt(est.rhs_ci[0])}, {_fmt(est.rhs_ci[1])}]"
    level = f"{100 * est.confidence:g}%"
    if outcome == "pass":
        text = f"MC ({est.samples} samples, {level} CI): lhs {lhs_txt} {reading.relation} rhs {rhs_txt}"
        return MethodOutcome("montecarlo", "pass", _join(text, est.detail), seconds, count=est.samples, mc=mc)
    if outcome == "fail":
        text = f"MC ({est.samples} samples, {level} CI): lhs {lhs_txt} {_FLIP[reading.relation]} rhs {rhs_txt}"
        cex = _counterexample(
            est.instance, est.lhs, est.rhs, "montecarlo",
            lhs_ci=list(est.lhs_ci), rhs_ci=list(est.rhs_ci), samples=est.samples, confidence=est.confidence,
        )
        return MethodOutcome("montecarlo", "fail", _join(text, est.detail), seconds, count=est.samples, mc=mc,
                             counterexample=cex)
    why = "an equality cannot be established by sampling" if reading.relation == "==" else "intervals overlap"
    text = f"MC ({est.samples} samples, {level} CI): lhs {lhs_txt} vs rhs {rhs_txt}: {why}"
    return MethodOutcome("montecarlo", "unknown", _join(text, est.detail), seconds, count=est.samples, mc=mc)


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if b else a


# --------------------------------------------------------------------------- combination


def combine(reading: Reading, outcomes: Sequence[MethodOutcome], budget: Budget) -> Judgement:
    """The strongest verdict that the methods' outcomes support (see the module docstring).

    Order of precedence: conflicts and errors (``undecided``), then counterexamples
    (``falsified``), exact proofs (``proved``, ``certified``), numeric evidence (``holds``),
    and ``undecided`` for everything else.

    >>> from attnbounds.claims.base import Reading
    >>> r = Reading("t", "t", "t", symbolic=lambda: None)
    >>> combine(r, [MethodOutcome("symbolic", "unknown", "cannot decide")], Budget()).verdict
    'undecided'
    """
    by = {o.method: o for o in outcomes}
    fails = [by[m] for m in _CEX_ORDER if m in by and by[m].outcome == "fail"]
    exact_pass = [by[m] for m in _EXACT if m in by and by[m].outcome == "pass"]
    errors = [o for o in outcomes if o.outcome == "error"]
    cex = fails[0].counterexample if fails else None

    conflicts = [o.conflict for o in outcomes if o.conflict]
    if fails and exact_pass:
        conflicts.append(
            f"{', '.join(_METHOD_LABEL[o.method] for o in exact_pass)} proves the reading but "
            f"{', '.join(_METHOD_LABEL[o.method] for o in fails)} found a counterexample"
        )
    if conflicts:
        text = "; ".join(conflicts)
        return Judgement("undecided", _short(f"CONFLICT (a bug): {text}"), cex, conflict=text)
    if errors:
        text = "; ".join(f"{_METHOD_LABEL[o.method]}: {o.detail}" for o in errors)
        extra = f" (also: counterexample from {_METHOD_LABEL[fails[0].method]})" if fails else ""
        return Judgement("undecided", _short(f"error in {text}{extra}"), cex, error=text)
    if fails:
        f = fails[0]
        c = f.counterexample or {}
        rel = _FLIP[reading.relation]
        ev = (
            f"{_METHOD_LABEL[f.method]}: lhs={_fmt(c.get('lhs'))} {rel} rhs={_fmt(c.get('rhs'))} "
            f"at {_instance_text(c.get('instance'))}"
        )
        if f.method == "sweep":
            ev += f" ({c.get('violations')} of {c.get('of')} violate)"
        return Judgement("falsified", _short(ev, 200), cex)
    if "symbolic" in by and by["symbolic"].outcome == "pass":
        return Judgement("proved", _short(f"symbolic: {by['symbolic'].detail}"))
    if "certify" in by and by["certify"].outcome == "pass":
        return Judgement("certified", _short(f"certify: {by['certify'].detail}"))

    searching = reading.strategy is not None or reading.sweep is not None
    sampling = reading.montecarlo is not None
    reasons = []
    if searching:
        st, sw = by.get("strategy"), by.get("sweep")
        if st is None or sw is None:
            missing = "a sweep" if sw is None else "a Hypothesis strategy"
            reasons.append(f"holds needs both Hypothesis and a sweep; the reading has no {missing}")
        for o in (st, sw):
            if o is not None and o.outcome != "pass":
                reasons.append(o.detail)
        if sw is not None and sw.outcome == "pass" and (sw.count or 0) < budget.sweep:
            reasons.append(f"sweep ran {sw.count} < {budget.sweep} instances")
    if sampling:
        mc = by.get("montecarlo")
        if mc is None or mc.outcome != "pass":
            reasons.append(mc.detail if mc else "Monte Carlo did not run")
    if (searching or sampling) and not reasons:
        parts = []
        if searching:
            parts.append(f"no counterexample in {by['strategy'].count} examples + {by['sweep'].count} sweep instances")
        if sampling:
            parts.append(by["montecarlo"].detail)
        return Judgement("holds", _short("; ".join(parts), 200))
    if not outcomes:
        return Judgement("undecided", "no method to judge this reading")
    unknown = [o.detail for o in outcomes if o.outcome == "unknown"]
    return Judgement("undecided", _short("; ".join(reasons + unknown) or "no method decided", 200))


# --------------------------------------------------------------------------- rows


def _row(claim_id, reading_name, kind, reading_id=None) -> dict:
    return {
        "id": reading_id or f"{claim_id}:{reading_name}",
        "claim": claim_id,
        "reading": reading_name,
        "kind": kind,
        "verdict": "undecided",
        "methods": [],
        "examples": None,
        "sweep": None,
        "mc": None,
        "seconds": 0.0,
        "method_seconds": {},
        "counterexample": None,
        "evidence": "",
        "detail": {},
        "conflict": None,
        "error": None,
    }


def _resolve_budget(budget, quick, examples) -> Budget:
    if budget is not None:
        if not isinstance(budget, Budget):
            raise TypeError(f"budget: expected a Budget, got {type(budget).__name__}")
        if examples is not None:
            budget = replace(budget, examples=examples)
        return budget
    return budget_for(quick=quick, examples=examples)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: must be a non-negative integer, got {seed!r}")
    return int(seed)


def judge_reading(
    claim: Claim,
    reading: Reading,
    *,
    quick: bool = False,
    examples: int | None = None,
    seed: int = 0,
    budget: Budget | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Run every method of ``reading`` and return its row (schema in the module docstring).

    Parameters
    ----------
    claim, reading : Claim, Reading
        The reading to judge and the claim it belongs to (for the id).
    quick : bool
        Use :data:`QUICK_BUDGET` instead of :data:`DEFAULT_BUDGET`.
    examples : int, optional
        Hypothesis examples (overrides the budget's).
    seed : int
        Seed of the numpy streams and of Hypothesis (same seed, same row).
    budget : Budget, optional
        A full budget (overrides ``quick``).
    progress : callable, optional
        Called with the name of each method as it starts.

    Raises
    ------
    CheckInterrupted
        On ``KeyboardInterrupt``; its ``rows`` holds this reading's partial row.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim: expected a Claim, got {type(claim).__name__}")
    if not isinstance(reading, Reading):
        raise TypeError(f"reading: expected a Reading, got {type(reading).__name__}")
    budget = _resolve_budget(budget, quick, examples)
    seed = _check_seed(seed)
    rid = f"{claim.id}:{reading.name}"
    row = _row(claim.id, reading.name, "reading")
    start = time.perf_counter()
    outcomes: list[MethodOutcome] = []

    def record(o: MethodOutcome):
        outcomes.append(o)
        row["methods"].append(o.method)
        row["detail"][o.method] = o.detail
        row["method_seconds"][o.method] = round(o.seconds, 3)
        if o.method == "strategy":
            row["examples"] = o.count
        elif o.method == "sweep":
            row["sweep"] = o.count
        elif o.method == "montecarlo":
            row["mc"] = o.mc

    try:
        for method in reading.methods:
            if progress is not None:
                progress(method)
            if method in _EXACT:
                record(run_exact(reading, method, budget))
            elif method == "strategy":
                record(run_strategy(reading, budget, seed=seed, reading_id=rid))
            elif method == "sweep":
                record(run_sweep(reading, budget, seed=seed, reading_id=rid))
            elif method == "montecarlo":
                record(run_montecarlo(reading, budget, seed=seed, reading_id=rid))
    except KeyboardInterrupt:
        j = combine(reading, outcomes, budget)
        row.update(
            verdict="undecided",
            evidence="interrupted before all methods finished",
            counterexample=j.counterexample,
            conflict=j.conflict,
            error="interrupted",
            seconds=round(time.perf_counter() - start, 3),
        )
        raise CheckInterrupted([row]) from None
    j = combine(reading, outcomes, budget)
    if j.verdict not in VERDICTS:  # pragma: no cover -- combine only returns known verdicts
        raise AssertionError(f"unknown verdict {j.verdict!r}")
    row.update(
        verdict=j.verdict,
        evidence=j.evidence,
        counterexample=j.counterexample,
        conflict=j.conflict,
        error=j.error,
        seconds=round(time.perf_counter() - start, 3),
    )
    return row


def judge_hypothesis_drop(claim: Claim, hypothesis, *, budget: Budget | None = None) -> dict:
    """Row ``"<claim>:without-<hypothesis>"``: the claim's conclusion with one hypothesis dropped.

    ``falsified`` (the demonstration that the hypothesis is needed) when ``drop()`` returns a
    refutation; ``proved`` when it shows the conclusion survives without the hypothesis;
    ``undecided`` otherwise.

    When the hypothesis has a ``check`` predicate it is evaluated on the refuting instance:
    the instance must break the hypothesis, otherwise the demonstration shows nothing and the
    row is a ``conflict``. A ``check`` that cannot read the instance is noted in
    ``detail["check"]`` and does not change the verdict.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim: expected a Claim, got {type(claim).__name__}")
    if hypothesis.drop is None:
        raise ValueError(f"hypothesis: {hypothesis.name!r} has no drop demonstration")
    budget = budget or DEFAULT_BUDGET
    name = f"without-{hypothesis.name}"
    row = _row(claim.id, name, "hypothesis")
    row["methods"] = ["drop"]
    start = time.perf_counter()
    try:
        with _time_limit(budget.method_seconds):
            proof = hypothesis.drop()
        if not isinstance(proof, Proof):
            raise TypeError(f"drop() returned {type(proof).__name__}, expected Proof")
    except MethodTimeout as exc:
        row.update(evidence=f"drop demonstration {exc}", detail={"drop": str(exc)})
    except Exception as exc:  # noqa: BLE001
        text = _error_text(exc)
        row.update(evidence=_short(f"error in drop: {text}"), detail={"drop": text}, error=text)
    else:
        row["detail"] = {"drop": proof.detail}
        broken = _hypothesis_broken(hypothesis, proof) if proof.status is False else None
        if broken is not None:
            row["detail"]["check"] = broken[1]
        if broken is not None and broken[0] is False:
            row.update(
                counterexample=_counterexample(proof.counterexample, proof.lhs, proof.rhs, "drop"),
                conflict=broken[1],
                evidence=_short(f"CONFLICT (a bug): {broken[1]}"),
            )
        elif proof.status is False:
            cex = _counterexample(proof.counterexample, proof.lhs, proof.rhs, "drop")
            row.update(
                verdict="falsified",
                counterexample=cex,
                evidence=_short(
                    f"without '{hypothesis.name}' the conclusion fails: lhs={_fmt(proof.lhs)}, "
                    f"rhs={_fmt(proof.rhs)} at {_instance_text(proof.counterexample)}",
                    200,
                ),
            )
        elif proof.status is True:
            row.update(verdict="proved", evidence=_short(f"holds without '{hypothesis.name}': {proof.detail}"))
        else:
            row.update(evidence=_short(f"cannot decide: {proof.detail}"))
    row["seconds"] = round(time.perf_counter() - start, 3)
    row["method_seconds"] = {"drop": row["seconds"]}
    return row


def _hypothesis_broken(hypothesis, proof: Proof) -> tuple[bool | None, str] | None:
    """Whether ``hypothesis.check`` confirms that the drop instance breaks the hypothesis."""
    if hypothesis.check is None or proof.counterexample is None:
        return None
    try:
        holds = np.asarray(hypothesis.check(_snapshot(proof.counterexample)), dtype=bool)
    except Exception as exc:  # noqa: BLE001 -- best effort: the drop may use another instance format
        return None, f"check() could not evaluate the drop instance: {_error_text(exc)}"
    if bool(np.all(holds)):
        return False, (
            f"the drop instance satisfies '{hypothesis.name}' (its check() is True there), "
            "so it does not show that the hypothesis is needed"
        )
    return True, f"check() confirms that '{hypothesis.name}' fails at the instance"


# --------------------------------------------------------------------------- selection and run


@dataclass
class _Selection:
    claim_id: str
    readings: list[str] | None = None  # None: all readings
    drops: list[str] | None = None  # None: all hypothesis drops (only with all readings)
    load_error: str | None = None
    claim: Claim | None = field(default=None, repr=False)


def _load(claim_id: str) -> tuple[Claim | None, str | None]:
    from attnbounds import claims as registry

    try:
        return registry.get(claim_id), None
    except KeyError:
        raise
    except Exception as exc:  # noqa: BLE001 -- a broken claim module is a row, not a crash
        return None, _error_text(exc)


def resolve_ids(ids: Iterable[str] | None = None) -> list[_Selection]:
    """Resolve claim ids and reading ids to what :func:`check` will run, in registry order.

    ``ids`` may mix claim ids (``"L1"``: all readings and hypothesis drops), reading ids
    (``"L1:transcribed"``) and hypothesis-drop ids (``"L1:without-bounded"``). ``None`` or
    empty means every claim.

    Raises
    ------
    ValueError
        ``ids: unknown id 'X'; valid: ...`` listing every valid id.
    """
    from attnbounds import claims as registry

    all_ids = registry.ids()
    if ids is None:
        wanted: list[str] = []
    elif isinstance(ids, str):
        wanted = [ids]
    else:
        wanted = list(ids)
    for w in wanted:
        if not isinstance(w, str):
            raise TypeError(f"ids: expected strings, got {type(w).__name__}")
    if not wanted:
        out = []
        for cid in all_ids:
            claim, err = _load(cid)
            out.append(_Selection(cid, load_error=err, claim=claim))
        return out

    chosen: dict[str, _Selection] = {}
    unknown = []
    for w in wanted:
        cid, sep, name = w.partition(":")
        if cid not in all_ids:
            unknown.append(w)
            continue
        sel = chosen.setdefault(cid, _Selection(cid, readings=[], drops=[]))
        if sel.claim is None and sel.load_error is None:
            sel.claim, sel.load_error = _load(cid)
        if not sep:
            sel.readings, sel.drops = None, None
            continue
        if sel.claim is None:
            unknown.append(w)
            continue
        readings = [r.name for r in sel.claim.readings]
        drops = [f"without-{h.name}" for h in sel.claim.hypotheses if h.drop is not None]
        if name in readings:
            if sel.readings is not None and name not in sel.readings:
                sel.readings.append(name)
        elif name in drops:
            if sel.drops is not None and name not in sel.drops:
                sel.drops.append(name)
        else:
            unknown.append(w)
    if unknown:
        raise ValueError(f"ids: unknown id {', '.join(repr(u) for u in unknown)}; valid: {', '.join(valid_ids())}")
    return [chosen[c] for c in all_ids if c in chosen]


def valid_ids() -> list[str]:
    """Every id :func:`check` accepts: claim ids, reading ids and hypothesis-drop ids."""
    from attnbounds import claims as registry

    out = []
    for cid in registry.ids():
        out.append(cid)
        claim, err = _load(cid)
        if claim is None:
            continue
        out.extend(claim.reading_ids)
        out.extend(f"{cid}:without-{h.name}" for h in claim.hypotheses if h.drop is not None)
    return out


def _plan(selections: list[_Selection]) -> list[tuple]:
    """The units of work: ("reading", claim, reading) / ("drop", claim, hyp) / ("load", sel)."""
    units = []
    for sel in selections:
        if sel.claim is None:
            units.append(("load", sel, None))
            continue
        for r in sel.claim.readings:
            if sel.readings is None or r.name in sel.readings:
                units.append(("reading", sel.claim, r))
        for h in sel.claim.hypotheses:
            if h.drop is None:
                continue
            if sel.drops is None and sel.readings is None or (sel.drops and f"without-{h.name}" in sel.drops):
                units.append(("drop", sel.claim, h))
    return units


def check(
    ids: Iterable[str] | None = None,
    *,
    quick: bool = False,
    examples: int | None = None,
    seed: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
    budget: Budget | None = None,
    on_row: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Judge the selected claims and return one row per reading and per hypothesis drop.

    Parameters
    ----------
    ids : iterable of str, optional
        Claim ids, reading ids (``"T1i:transcribed"``) or hypothesis-drop ids; default: all.
    quick : bool
        Use :data:`QUICK_BUDGET`.
    examples : int, optional
        Hypothesis examples per reading (>= 1), overriding the budget.
    seed : int
        Non-negative seed; the same seed gives the same rows (apart from ``seconds``).
    progress : callable, optional
        ``progress(label, done, total)``: called as each unit of work starts (``done`` units
        finished so far), as each method of a reading starts (label ``"<id> <method>"``), and
        once at the end with ``done == total``.
    budget : Budget, optional
        A full budget (overrides ``quick``).
    on_row : callable, optional
        Called with each finished row (e.g. to save results as they come).

    Raises
    ------
    ValueError
        For unknown ids or bad option values, naming the argument.
    CheckInterrupted
        On ``KeyboardInterrupt``, carrying every finished row and the interrupted one.
    """
    budget = _resolve_budget(budget, quick, examples)
    seed = _check_seed(seed)
    for name, fn in (("progress", progress), ("on_row", on_row)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name}: expected a callable, got {type(fn).__name__}")
    units = _plan(resolve_ids(ids))
    total = len(units)
    rows: list[dict] = []
    for done, (kind, owner, item) in enumerate(units):
        if kind == "load":
            label = owner.claim_id
        elif kind == "reading":
            label = f"{owner.id}:{item.name}"
        else:
            label = f"{owner.id}:without-{item.name}"
        try:
            if progress is not None:
                progress(label, done, total)
            if kind == "load":
                row = _row(owner.claim_id, None, "load-error", reading_id=owner.claim_id)
                row.update(evidence=_short(f"claim module failed to load: {owner.load_error}"), error=owner.load_error)
            elif kind == "reading":
                method_progress = None
                if progress is not None:
                    method_progress = lambda m, _l=label, _d=done: progress(f"{_l} {m}", _d, total)  # noqa: E731
                row = judge_reading(owner, item, seed=seed, budget=budget, progress=method_progress)
            else:
                row = judge_hypothesis_drop(owner, item, budget=budget)
        except CheckInterrupted as exc:
            raise CheckInterrupted(rows + exc.rows) from None
        except KeyboardInterrupt:
            raise CheckInterrupted(rows) from None
        rows.append(row)
        if on_row is not None:
            on_row(row)
    if progress is not None:
        progress("done", total, total)
    return rows
