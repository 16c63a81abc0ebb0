"""The five methods that judge a reading, each returning a :class:`MethodOutcome`.

- :func:`run_exact` runs ``reading.symbolic()`` or ``reading.certify()``;
- :func:`run_strategy` searches with Hypothesis for a (shrunk) counterexample;
- :func:`run_sweep` evaluates ``reading.sides`` on batched random instances;
- :func:`run_montecarlo` judges ``reading.montecarlo`` confidence intervals
  (:func:`montecarlo_outcome`).

Every method does the work the budget counts (examples, sweep instances, Monte Carlo
samples; an exact method runs to completion), turns errors into an ``"error"`` outcome
(never an exception), and draws its randomness from a stream derived from the run seed and
the reading id, so the same seed gives the same outcome whether a reading runs alone or with
others, and on a quiet machine or a loaded one. No method reads the clock to decide how much
to do: the budget's ``time_limit`` is a safety net only, and a method it interrupts says so
(``timed_out``, and a detail starting with ``TIME LIMIT``).

>>> from attnbounds.claims.base import Proof, Reading
>>> from attnbounds.engine.budget import Budget
>>> r = Reading("t", "t", "t", symbolic=lambda: Proof(True, "expand(...) == 0"))
>>> run_exact(r, "symbolic", Budget()).outcome  # no checked chain: argued, not a pass
'unknown'
"""

from __future__ import annotations

import copy
import math
import signal
import threading
import time
import weakref
from time import monotonic as _monotonic  # the safety net's own clock: not the timings' (tests slow those)
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from attnbounds.claims.base import Estimate, Proof, Reading, Sides, holds_relation, subset_instances
from attnbounds.engine.budget import Budget
from attnbounds.engine.rows import _FLIP, _counterexample, _error_text, _fmt, _instance_text, _sides_text, jsonable

__all__ = [
    "METHODS",
    "EXACT_METHODS",
    "MethodOutcome",
    "MethodTimeout",
    "wall_clock_limit",
    "run_exact",
    "run_strategy",
    "run_sweep",
    "run_montecarlo",
    "montecarlo_outcome",
    "seeded_draws",
]

#: Exact methods, most authoritative first; a counterexample is reported from the first
#: method in ``_CEX_ORDER`` that found one (Hypothesis before the sweep: its instance is shrunk).
_EXACT = ("symbolic", "certify")
_CEX_ORDER = ("symbolic", "certify", "strategy", "sweep", "montecarlo")
EXACT_METHODS = _EXACT
#: Every method a reading can carry, in the order a counterexample is reported from.
METHODS = _CEX_ORDER
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


@dataclass
class MethodOutcome:
    """What one method said about one reading.

    ``outcome`` is ``"pass"`` (proved/certified/no counterexample/CI on the right side),
    ``"fail"`` (a counterexample in ``counterexample``), ``"unknown"`` (an exact method that
    cannot decide, or straddling intervals), ``"incomplete"`` (a search cut short before its
    budget of work was done) or ``"error"`` (the method raised; text in ``detail``).
    ``timed_out`` is True when the budget's wall-clock safety net (``time_limit``)
    interrupted the method: its outcome then reflects time, not the evidence.
    """

    method: str
    outcome: str
    detail: str
    seconds: float = 0.0
    count: int | None = None
    counterexample: dict | None = None
    mc: dict | None = None
    conflict: str | None = None
    proof: dict | None = None  # symbolic only: {"steps", "checked", "substeps", "rules", "status", ...} (proof_summary)
    tie: dict | None = None  # certify only, with the reading's locate: the certificate's tie (tie.certificate_tie)
    timed_out: bool = False
    discarded: int = 0  # instances outside the reading's own hypotheses (``reading.assume``), not judged
    slack: dict | None = None  # searches: {"count", "largest"} of the instances that hold only within the rounding slack

    def __post_init__(self):
        if self.method not in _CEX_ORDER:
            raise ValueError(f"method: must be one of {_CEX_ORDER}, got {self.method!r}")
        if self.outcome not in ("pass", "fail", "unknown", "incomplete", "error"):
            raise ValueError(f"outcome: unknown outcome {self.outcome!r}")


class MethodTimeout(BaseException):
    """Raised inside a method that ran past the budget's wall-clock safety net (``time_limit``).

    A ``BaseException`` so that neither SymPy's nor Hypothesis's ``except Exception`` can
    swallow it.
    """


class _Violation(AssertionError):
    """Raised inside the Hypothesis test body when an instance violates the relation."""


class _NonFinite(ValueError):
    """Raised when ``sides`` returns NaN: an evaluator bug, not a counterexample."""


class _Overflowed(ValueError):
    """Raised when no element of an instance violates the relation in finite values and some
    element has an infinite side: the instance is not judged (counted, as one outside the
    reading's hypotheses is)."""


def _undecided(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Where the sides cannot be compared: NaN (an error) or an infinity on either side. An
    infinite side is an overflow as often as a true infinity: e^x·1e-300 is inf at x = 710.5
    though its value is 3.6e8 (review 46: a false 1e9 <= e^x·1e-300 held, one infinite side
    being taken as beyond every float), so its order is unknown. Such an element decides
    nothing: an instance violates where a finite element does, and holds only where every
    element is finite and holds."""
    return ~np.isfinite(lhs) | ~np.isfinite(rhs)


_NAN_TEXT = "sides returned NaN"


_OVERFLOW_NOTE = "a side infinite: an overflow or a true infinity, their order unknown"


_DRAWS_LOCK = threading.Lock()
_DRAWS_DEPTH = 0  # seeded_draws blocks open (nested, or in other threads)
_DRAWS_GETTER = None  # Hypothesis' own getter of the local constants, while they are open


@contextmanager
def seeded_draws():
    """Hypothesis draws that depend on the seed and the strategy only, not on which modules
    this process has imported.

    Hypothesis (6.1xx) mixes into its draws, now and then, constants it reads from every
    *local* module loaded so far (a claim file, a test module, this package): the same seed
    then draws other examples once another module is imported (measured: a reading's strategy
    run discarded 10 instances alone and 9 inside ``engine.check``, with the same seed). Inside
    this context that pool is empty, and the cache Hypothesis keeps of it is cleared on the way
    in and out, so a seed reproduces a row in any process. Its global constants (0, ±1, the
    floats' edges, …) are still drawn. Where a Hypothesis without that pool is installed, this
    changes nothing (the determinism tests then show whether its draws are reproducible).

    Nested and concurrent blocks share one patch, undone when the last one leaves. While any is
    open, Hypothesis runs in other threads draw without the pool too."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another Hypothesis layout
        providers = None
    getter = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if getter is None or cache is None or not hasattr(providers, "Constants"):  # pragma: no cover
        yield
        return
    global _DRAWS_DEPTH, _DRAWS_GETTER
    with _DRAWS_LOCK:  # one patch for nested and concurrent uses, undone by the last to leave
        if _DRAWS_DEPTH == 0:
            empty = copy.deepcopy(providers._local_constants)
            for pool in (empty.integers, empty.floats, empty.bytes, empty.strings):
                pool.clear()
            _DRAWS_GETTER = getter
            providers._get_local_constants = lambda: empty
        _DRAWS_DEPTH += 1
    cache.clear()  # this thread's cache (Hypothesis keeps one per thread)
    try:
        yield
    finally:
        cache.clear()
        with _DRAWS_LOCK:
            _DRAWS_DEPTH -= 1
            if _DRAWS_DEPTH == 0:
                providers._get_local_constants = _DRAWS_GETTER


@contextmanager
def wall_clock_limit(seconds: float | None):
    """Raise :class:`MethodTimeout` in the body after ``seconds`` of wall time (POSIX main
    thread only, elsewhere no limit; ``None``: no limit): the safety net of a method, and of
    each exact routine of ``derive --normalizer``. An interval timer already running (an
    outer limit, or the caller's own alarm) is not lost: the body's limit is cut to it, and on
    leaving it runs again with the time it had left (an ``except MethodTimeout`` between the two
    can absorb the outer firing: nothing in the package nests them).

    >>> import time
    >>> try:
    ...     with wall_clock_limit(0.05):
    ...         time.sleep(5)
    ... except MethodTimeout as exc:
    ...     print(exc)
    TIME LIMIT: stopped by the wall-clock safety net of 0.05 s (--time-limit), not by the evidence
    >>> with wall_clock_limit(-1):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: seconds: must be a finite number > 0, or None for no limit, got -1
    """
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not (seconds > 0 and math.isfinite(seconds))):
        raise ValueError(f"seconds: must be a finite number > 0, or None for no limit, got {seconds!r}")
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if seconds is None or not usable:
        yield
        return

    def _on_alarm(signum, frame):
        raise MethodTimeout(_timeout_text(seconds))

    outer, interval = signal.getitimer(signal.ITIMER_REAL)
    started = _monotonic()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer > 0 else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:  # due now or later; 1 µs: setitimer(0) would cancel it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (_monotonic() - started), 1e-6), interval)


def _timeout_text(seconds: float) -> str:
    return f"TIME LIMIT: stopped by the wall-clock safety net of {seconds:g} s (--time-limit), not by the evidence"


def _stream_seed(seed: int, reading_id: str, method: str) -> list[int]:
    """Entropy for one method's random stream: the run seed, the reading id, the method."""
    return [int(seed), zlib.crc32(reading_id.encode()), zlib.crc32(method.encode())]


def _hypothesis_seed(seed: int, reading_id: str) -> int:
    return int(seed) * 2**32 + zlib.crc32(reading_id.encode())


#: A sweep draws at most this many times its budget of instances while looking for
#: instances inside the reading's hypotheses (``reading.assume``).
_DRAW_FACTOR = 10


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


class _Slack:
    """The instances that hold only thanks to :func:`holds_relation`'s rounding slack (their
    sides violate the inequality by a positive amount within it), for the evidence text: a
    bound that fails by less than ``atol`` (``min α ≥ 1e-300`` at α = 0) is said to."""

    def __init__(self, reading: Reading):
        self.relation, self.rtol, self.atol = reading.relation, reading.rtol, reading.atol
        self.count = 0
        self.largest = 0.0

    def add(self, excess) -> None:
        """``excess``: per judged (holding) instance, how far its sides violate (≤ 0: not at all)."""
        if self.relation == "==":  # an equation of floats is always off by rounding: nothing to say
            return
        e = np.asarray(excess, dtype=float).ravel()
        e = e[e > 0]
        if e.size:
            self.count += int(e.size)
            self.largest = max(self.largest, float(e.max()))

    def note(self) -> str:
        return slack_note(self.info(), self.rtol, self.atol)

    def info(self) -> dict | None:
        return {"count": self.count, "largest": self.largest} if self.count else None


def slack_note(info: dict | None, rtol: float, atol: float) -> str:
    """``"; K hold only within …"`` for a search's ``slack`` (empty without one)."""
    if not info:
        return ""
    return (f"; {info['count']} instance(s) violate it by at most {_fmt(info['largest'])}, within the rounding slack "
            f"atol={_fmt(atol)} + rtol={_fmt(rtol)}·max|side|")


def _violation(lhs: np.ndarray, rhs: np.ndarray, relation: str) -> np.ndarray:
    """How far ``lhs <relation> rhs`` is from holding (> 0 means violated; NaN where both sides are
    the same infinity, which callers mask)."""
    with np.errstate(invalid="ignore"):
        if relation == "<=":
            return lhs - rhs
        if relation == ">=":
            return rhs - lhs
        return np.abs(lhs - rhs)


def _rows_equal(batch: dict, size: int, first: dict) -> bool:
    """Whether every instance of ``batch`` (``size`` of them) equals the instance ``first``."""
    try:
        for k, v in batch.items():
            a, b = np.asarray(v), np.asarray(first.get(k))
            rows = a if a.ndim >= 1 and a.shape[0] == size else a[None]
            if not np.array_equal(rows[0], b) or not np.all(rows == rows[0]):
                return False
        return True
    except Exception:  # noqa: BLE001 -- values that do not compare (ragged, objects): taken as varied
        return False


def _worst_element(sides: Sides, reading: Reading) -> tuple[float, float, bool]:
    """Both sides at the finite element that violates most (or holds least) and whether all
    hold. NaN raises :class:`_NonFinite`; an infinite side decides nothing (:func:`_undecided`):
    with no finite violation and some infinite element, :class:`_Overflowed`."""
    lhs, rhs = _as_float_arrays(sides)
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    if np.any(np.isnan(lhs)) or np.any(np.isnan(rhs)):
        raise _NonFinite(_NAN_TEXT)
    unknown = _undecided(lhs, rhs)
    ok = holds_relation(Sides(lhs, rhs), reading.relation, reading.rtol, reading.atol) | unknown
    if np.all(ok) and np.any(unknown):
        raise _Overflowed(_OVERFLOW_NOTE)
    margin = np.where(unknown, -np.inf, _violation(lhs, rhs, reading.relation))
    k = int(np.argmax(margin.ravel())) if margin.size else 0
    return float(lhs.ravel()[k]), float(rhs.ravel()[k]), bool(np.all(ok))


def _snapshot(instance: Any) -> Any:
    """A copy of an instance that later mutation cannot change: arrays copied, others shared."""
    if isinstance(instance, dict):
        return {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v) for k, v in instance.items()}
    return copy.copy(instance)

# --------------------------------------------------------------------------- methods


def run_exact(reading: Reading, method: str, budget: Budget) -> MethodOutcome:
    """Run ``reading.symbolic()`` or ``reading.certify()`` to completion.

    Only the budget's safety net ``time_limit`` can stop it; the outcome is then
    ``"unknown"`` with ``timed_out`` set and a ``TIME LIMIT`` detail.

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
        with wall_clock_limit(budget.time_limit):
            proof = fn()
    except MethodTimeout as exc:
        return MethodOutcome(method, "unknown", str(exc), time.perf_counter() - start, timed_out=True)
    except Exception as exc:  # noqa: BLE001 -- an error in a method is a row, not a crash
        return MethodOutcome(method, "error", _error_text(exc), time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if not isinstance(proof, Proof):
        return MethodOutcome(method, "error", f"{method}() returned {type(proof).__name__}, expected Proof", seconds)
    try:
        proof.validate()  # again: a Proof altered after it was built is no proof
    except (TypeError, ValueError) as exc:
        return MethodOutcome(method, "error", f"{method}() returned an altered Proof: {exc}", seconds)
    info = proof_summary(proof) if method == "symbolic" else None
    if proof.status is True and info is not None and info["status"] != "checked":
        # "proved" means every step machine-checked: an argued proof is not a proof
        return MethodOutcome(method, "unknown", f"argued (no checked chain): {proof.detail}", seconds, proof=info)
    if proof.status is True and info is not None:
        out = _audited(proof, info, budget, seconds)
        return _tied(out, reading, proof) if reading.bind is not None and out.outcome == "pass" else out
    if proof.status is True and method == "certify":
        from attnbounds.numerics.intervals import issued_certificate

        status = getattr(proof.certificate, "status", True)
        if not issued_certificate(proof.certificate) or status is not True:  # interval arithmetic ran (review 46)
            what = (f"with a certificate that certifies nothing (its status is {status}: "
                    f"{getattr(proof.certificate, 'detail', '')})" if status is not True else
                    "without an interval certificate (Proof.certificate, issued by attnbounds.numerics.intervals)")
            return MethodOutcome(method, "unknown", f"certify() returned Proof(True) {what}: not counted "
                                 f"[{proof.detail}]", seconds)
        box = proof.certificate.text() if hasattr(proof.certificate, "text") else proof.certificate.detail
        out = MethodOutcome(method, "pass", f"{proof.detail} [certificate: {box}]", seconds, proof=info)
        return _certificate_tied(out, reading, proof.certificate) if reading.locate is not None else out
    if proof.status is True:
        return MethodOutcome(method, "pass", proof.detail, seconds, proof=info)
    if proof.status is None:
        cert = getattr(proof.certificate, "detail", None) if method == "certify" else None
        detail = f"{proof.detail} [certificate: {cert}]" if cert and cert not in proof.detail else proof.detail
        return MethodOutcome(method, "unknown", detail, seconds, proof=info)
    if not proof.counterexample:
        # trial 49: a certificate that refutes its own f (the author's bug: 2s(1 - s) for s(1 - s)) made a true
        # reading `falsified`; a point of the certificate's box is not an instance of the reading
        cert = proof.certificate
        point = getattr(cert, "counterexample", None)
        try:
            shown = ", ".join(str(v) for v in point) if point else ""
        except TypeError:  # not a sequence (review 49: a crash, not a row)
            point, shown = None, ""
        where = (f" (the certificate refutes its f <= bound at the point ({shown}): "
                 f"{getattr(cert, 'detail', '')})") if point else ""
        out = MethodOutcome(method, "unknown", f"{method} refutes the reading but gives no instance of it to check the "
                            f"refutation at, so it falsifies nothing{where} [{proof.detail}]", seconds, proof=info)
        if method == "certify" and point and reading.locate is not None and getattr(cert, "f", None) is not None:
            return _refutation_tied(out, reading, cert)
        return out
    # A refutation: report the instance, and confirm it numerically where we can.
    lhs, rhs, conflict, note = proof.lhs, proof.rhs, None, ""
    if reading.assume is not None and proof.counterexample is not None:
        try:
            inside = reading.inside(_snapshot(proof.counterexample))
        except Exception as exc:  # noqa: BLE001
            inside, note = True, f" (the reading's hypotheses could not be read at it: {_error_text(exc)})"
        if not inside:  # review 46: a counterexample outside the reading's own hypotheses refutes nothing
            return MethodOutcome(method, "error", f"{method} refutes the reading at an instance outside its own "
                                 f"hypotheses (assume): {_instance_text(proof.counterexample)}", seconds, proof=info)
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
                    f"counterexample ({_sides_text(nl, nr, ', ')})"
                )
    cex = _counterexample(proof.counterexample, lhs, rhs, method)
    return MethodOutcome(method, "fail", proof.detail + note, seconds, counterexample=cex, conflict=conflict, proof=info)


_AUDITS: dict = {}  # (id of a checked chain, draws) -> (weak reference to it, its Audit)


def _audit_of(proof: Proof, draws: int):
    """The step audit of ``proof`` at ``draws`` draws per step, once per checked chain object in
    a process (a claim module caches its proof, and a run or a test suite judges it again; the
    audit's stream is fixed by the step, so a second audit would repeat the first)."""
    from attnbounds.engine.audit import audit_proof

    key = (id(proof.chain), draws)
    got = _AUDITS.get(key)
    if got is not None and got[0]() is proof.chain:
        return got[1]
    audit = audit_proof(proof, draws=draws)
    _AUDITS[key] = (weakref.ref(proof.chain, lambda _, key=key, audits=_AUDITS: audits.pop(key, None)), audit)
    return audit


def _audited(proof: Proof, info: dict, budget: Budget, seconds: float) -> MethodOutcome:
    """A checked symbolic proof after the step audit (:mod:`attnbounds.engine.audit`): a
    numeric counterexample to a step the kernel accepted is a kernel bug, reported as a
    conflict (the verdict is then ``undecided``, never ``proved``). The audit's counts go to
    the row's ``proof`` object."""
    start = time.perf_counter()
    try:
        with wall_clock_limit(budget.time_limit):
            audit = _audit_of(proof, budget.audit)
    except MethodTimeout as exc:
        return MethodOutcome("symbolic", "unknown", f"{exc} (in the step audit of a checked chain)",
                             seconds + time.perf_counter() - start, proof=info, timed_out=True)
    seconds += time.perf_counter() - start
    if audit is None:  # validate() passed, so the chain is complete: not reached
        return MethodOutcome("symbolic", "error", "the step audit found no complete chain", seconds, proof=info)
    info = {**info, "audit": audit.to_dict()}
    if audit.counterexamples:
        bad = audit.refuted[0]
        conflict = (f"symbolic: the kernel accepted {audit.counterexamples} step(s) that the step audit refutes "
                    f"numerically, first {bad.text()}")
        return MethodOutcome("symbolic", "pass", proof.detail, seconds, conflict=conflict, proof=info)
    return MethodOutcome("symbolic", "pass", proof.detail, seconds, proof=info)


def _run_tie(run, method: str, what: str) -> tuple[dict, str | None, float]:
    """``run()``, a tie (:mod:`attnbounds.engine.tie`), with what the two exact methods do with
    it: an exception is the status ``"error"`` ("tie of ``what`` to the sides: ...", the
    reading's error, shown on the row), and ``untied`` or ``error`` is a conflict
    (``"method: detail"``). Returns (the tie, the conflict or None, the seconds it took)."""
    start = time.perf_counter()
    try:
        got = run()
    except Exception as exc:  # noqa: BLE001 -- a bind or locate that fails is the reading's error
        got = {"status": "error", "instances": 0, "detail": f"tie of {what} to the sides: {_error_text(exc)}"}
    conflict = f"{method}: {got['detail']}" if got["status"] in ("untied", "error") else None
    return got, conflict, time.perf_counter() - start


def _tied(out: MethodOutcome, reading: Reading, proof: Proof) -> MethodOutcome:
    """A passing symbolic outcome with the tie of its goal to the reading's sides
    (:func:`attnbounds.engine.tie.tie`) in its ``proof`` object; a goal that is not the
    reading's sides, or whose hypotheses fail at its instances, is a conflict."""
    from attnbounds.engine.tie import tie

    got, conflict, spent = _run_tie(lambda: tie(reading, proof), "symbolic", "the goal")
    return replace(out, proof={**out.proof, "tie": got}, conflict=out.conflict or conflict, seconds=out.seconds + spent)


def _certificate_tied(out: MethodOutcome, reading: Reading, cert, what: str = "the certificate") -> MethodOutcome:
    """A passing certify outcome with its certificate's tie to the reading's sides
    (:func:`attnbounds.engine.tie.certificate_tie`) in ``tie`` and in its detail; a certificate
    of another function, a ``locate`` or sides that raise, an instance outside the reading's
    stated ``domain``, or a certificate whose function was altered after it was issued, is a
    conflict. A box that does not contain the reading's domain (``uncovered``) is none: the
    certificate speaks of part of the domain only."""
    from attnbounds.engine.tie import certificate_tie

    got, conflict, spent = _run_tie(lambda: certificate_tie(reading, cert), "certify", what)
    return replace(out, tie=got, conflict=out.conflict or conflict, detail=f"{out.detail}; tie {got['status']}: "
                   f"{got['detail']}", seconds=out.seconds + spent)


def _refutation_tied(out: MethodOutcome, reading: Reading, cert) -> MethodOutcome:
    """A certificate's refutation (f(p) > bound at a point p of its box, no instance of the
    reading) tied to the reading as a passing certificate is
    (:func:`attnbounds.engine.tie.certificate_tie`, which re-checks f(p) − bound > 0 from f
    itself). Where p lies in the reading's domain and f(x) − bound is the reading's margin at
    its drawn instances (``tied``, or ``undersampled``: they do not spread over the domain),
    the tie carries ``refutes``, a conflict only where no numeric method found a
    counterexample (:mod:`attnbounds.engine.verdict`): where one did, the reading is falsified
    by it, and the refutation agrees. The point may be no instance of the reading (its
    hypotheses, or instances that fill part of the domain), so the conflict says so: never a
    ``holds``, never a ``falsified`` without an instance. A refutation of another function is
    a conflict too (the certificate is not of the reading's sides: the author's bug, as for a
    passing certificate); one outside the domain, one that violates a strict bound only
    (f(p) = bound), or one untied for another reason, falsifies nothing."""
    tied = _certificate_tied(out, reading, cert, "the refutation")
    got = tied.tie
    if got["status"] not in ("tied", "undersampled"):
        return tied
    # the verdict's combination decides (verdict._combine)
    return replace(tied, tie={**got, "refutes": (
        f"certify: the certificate refutes f <= bound at the point ({', '.join(str(v) for v in cert.counterexample)}) "
        f"of the reading's domain, where f(x) - bound > 0 is re-checked, and {got['detail']}: if an instance within "
        "the reading's hypotheses is that point, the reading is false there, and no numeric method drew one (draw "
        "it, or give certify's Proof that instance as its counterexample)")})


def proves(chain) -> list[str]:
    """The statements a checked chain proves, as its author gave them to ``Chain.prove`` (one per
    part of an ``AllOf``, the main statement first): ``["1/L <= MaxOver(...)"]``. The kernel
    cannot see the reading's sides; these are what a reader compares with the reading."""
    import sympy as sp

    parts = getattr(chain, "parts", None) or (chain,)
    return [f"{sp.sstr(lhs)} {'=' if rel in ('=', '==') else rel} {sp.sstr(rhs)}" for lhs, rel, rhs in
            (p.goal for p in parts)]


def proof_summary(proof: Proof) -> dict:
    """The ``proof`` object of a row: ``{"steps", "checked", "substeps", "rules", "status"}``, and
    for a chain ``"proves"`` (:func:`proves`).

    ``steps`` and ``checked`` count the chain's top-level steps; ``substeps`` counts the
    steps of the sub-chains the checked steps carry (term, row and fact chains, a cited
    theorem's chain), each checked inside its step.

    ``status`` is ``"checked"`` (a chain whose every step the kernel checked, reaching the
    goal), ``"argued"`` (a chain with a step argued in prose or a premise assumed in prose,
    or a claimed proof with no chain: counted as one argued step), ``"refused"`` (a chain
    with neither whose step a rule did not accept, or whose steps do not reach the goal),
    ``"refuted"`` (an exact counterexample, checked by evaluation) or ``"undecided"``.

    >>> proof_summary(Proof(True, "trust me"))
    {'steps': 1, 'checked': 0, 'substeps': 0, 'rules': ['argued'], 'status': 'argued'}
    >>> proof_summary(Proof(None, "argued: by the triangle inequality"))["status"]
    'argued'
    >>> proof_summary(Proof(None, "sympy gave up"))["status"]
    'undecided'
    """
    if proof.chain is not None:
        from attnbounds.theory.proof import issued

        checked = proof.chain.complete and issued(proof.chain)
        status = "checked" if checked else ("refuted" if proof.status is False else _unchecked(proof.chain))
        return {"steps": proof.steps, "checked": proof.checked, "substeps": proof.substeps, "rules": list(proof.rules),
                "status": status, "proves": proves(proof.chain)}
    if proof.status is True or (proof.status is None and proof.detail.startswith("argued")):
        # a claimed proof without a chain, or one its module marks argued: one argued step
        return {"steps": 1, "checked": 0, "substeps": 0, "rules": ["argued"], "status": "argued"}
    if proof.status is False:
        return {"steps": 1, "checked": 1, "substeps": 0, "rules": ["counterexample"], "status": "refuted"}
    return {"steps": 0, "checked": 0, "substeps": 0, "rules": [], "status": "undecided"}


def _unchecked(chain) -> str:
    """``"argued"`` for a chain that is not complete because of prose (a step ``by.argued``, a
    premise :class:`~attnbounds.theory.proof.Assumed`), else ``"refused"``: a step the rule it
    names did not accept (``p(1 - p) <= 1/5`` by ``algebra``), or steps that do not reach the goal.
    The verdict is the same (neither is a proof); the name says which."""
    if chain.assumed or any(s.rule == "argued" for s in chain.step_checks):
        return "argued"
    return "refused"


def run_strategy(reading: Reading, budget: Budget, *, seed: int = 0, reading_id: str | None = None) -> MethodOutcome:
    """Search with Hypothesis for an instance violating ``lhs <relation> rhs``.

    Runs ``budget.examples`` examples with the seed derived from ``seed`` and the reading
    id, no example database and no deadline. A failure is shrunk by Hypothesis; the last
    failing call is its final replay of the minimal example, which is what is reported.
    NaN sides, or the same infinity on both, are an evaluator error, not a counterexample. Only the budget's safety net
    ``time_limit`` stops the search early (``timed_out``): with no counterexample yet the
    outcome is ``"incomplete"``; with one, it is reported, marked as not fully shrunk.
    Instances outside the reading's own hypotheses (``reading.assume``) are rejected
    (Hypothesis draws others) and counted (``discarded``); when none is inside, the
    outcome is ``"incomplete"``.
    """
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    if reading.strategy is None or reading.sides is None:
        raise ValueError(f"reading: {reading.name!r} has no strategy/sides to search with")
    from hypothesis import reject
    from hypothesis.errors import Unsatisfiable

    rid = reading_id or reading.name
    start = time.perf_counter()
    state: dict[str, Any] = {"evaluated": 0, "failing": None, "found": False, "raised_on": None, "discarded": 0,
                             "overflowed": 0, "slack": _Slack(reading)}

    def body(instance):
        if not isinstance(instance, dict):  # the contract (claims.base): an instance is a dict of named values
            raise TypeError(f"strategy() drew a {type(instance).__name__}, expected a dict instance "
                            "(name -> number or array, as sides() reads it)")
        try:
            inside = reading.inside(instance)
        except Exception:
            state["found"] = True
            state["raised_on"] = _snapshot(instance)
            raise
        if not inside:  # outside the reading's own hypotheses: not an example at all
            if not state["found"]:
                state["discarded"] += 1
            reject()
        try:
            lhs, rhs, ok = _worst_element(reading.sides(instance), reading)
        except _Overflowed:  # not judged: Hypothesis draws another
            if not state["found"]:
                state["overflowed"] += 1
            reject()
        except Exception:
            state["found"] = True
            state["raised_on"] = _snapshot(instance)  # the last one is the shrunk one
            raise
        if not state["found"]:
            state["evaluated"] += 1
            if ok:
                state["slack"].add(_violation(np.asarray(lhs), np.asarray(rhs), reading.relation))
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
        with wall_clock_limit(budget.time_limit), seeded_draws():
            test()
    except _Violation:
        instance, lhs, rhs = state["failing"]
        cex = _counterexample(instance, lhs, rhs, "strategy")
        text = (
            f"Hypothesis: shrunk counterexample after {state['evaluated']} example(s): "
            f"{_sides_text(lhs, rhs, ' ' + _FLIP[reading.relation] + ' ')}"
        )
        return MethodOutcome(
            "strategy", "fail", text, time.perf_counter() - start, count=state["evaluated"], counterexample=cex,
            discarded=state["discarded"],
        )
    except Unsatisfiable:
        return MethodOutcome(
            "strategy", "incomplete", f"Hypothesis: {state['evaluated']} of {budget.examples} example(s) met the "
            f"reading's hypotheses ({state['discarded']} discarded) with finite sides ({state['overflowed']} with "
            f"{_OVERFLOW_NOTE}), no counterexample", time.perf_counter() - start,
            count=state["evaluated"], discarded=state["discarded"],
        )
    except MethodTimeout as exc:
        seconds, n = time.perf_counter() - start, state["evaluated"]
        if state["failing"] is not None:  # a counterexample is one, shrunk or not
            instance, lhs, rhs = state["failing"]
            cex = _counterexample(instance, lhs, rhs, "strategy")
            text = (
                f"Hypothesis: counterexample after {n} example(s), not fully shrunk ({exc}): "
                f"{_sides_text(lhs, rhs, ' ' + _FLIP[reading.relation] + ' ')}"
            )
            return MethodOutcome("strategy", "fail", text, seconds, count=n, counterexample=cex, timed_out=True,
                                 discarded=state["discarded"])
        return MethodOutcome(
            "strategy", "incomplete", f"Hypothesis: {exc}, after {n} of {budget.examples} example(s), "
            "no counterexample", seconds, count=n, timed_out=True, discarded=state["discarded"],
        )
    except Exception as exc:  # noqa: BLE001
        at = f" at {_instance_text(state['raised_on'])}" if state["raised_on"] is not None else ""
        return MethodOutcome(
            "strategy", "error", f"Hypothesis: {_error_text(exc)}{at}", time.perf_counter() - start,
            count=state["evaluated"], discarded=state["discarded"],
        )
    seconds = time.perf_counter() - start
    n = state["evaluated"]
    over = f" ({state['overflowed']} more not judged: {_OVERFLOW_NOTE})" if state["overflowed"] else ""
    return MethodOutcome("strategy", "pass", f"no counterexample in {n} Hypothesis example(s){over}"
                         f"{state['slack'].note()}", seconds, count=n, discarded=state["discarded"],
                         slack=state["slack"].info())


def _batch_size(batch: dict) -> int | None:
    """The length of the batch axis (the first array's axis 0), or None when no value has one."""
    for v in batch.values():
        if isinstance(v, np.ndarray) and v.ndim >= 1:
            return int(v.shape[0])
    return None


def _batch_bytes(batch: dict) -> int:
    return sum(v.nbytes for v in batch.values() if isinstance(v, np.ndarray))


def _slice_instance(batch: dict, i: int) -> dict:
    """Instance ``i`` of a batch: arrays are sliced along axis 0, scalars are shared."""
    return {k: (v[i] if isinstance(v, np.ndarray) and v.ndim >= 1 else v) for k, v in batch.items()}


def _instance_entries(instance: dict) -> int:
    """The number of array entries of one instance (its size, for picking the smallest)."""
    return int(sum(np.size(v) for v in instance.values() if isinstance(v, (np.ndarray, list, tuple))))


def run_sweep(
    reading: Reading, budget: Budget, *, seed: int = 0, reading_id: str | None = None
) -> MethodOutcome:
    """Evaluate ``reading.sides`` on at least ``budget.sweep`` random instances, in chunks.

    Calls ``reading.sweep(rng, chunk)`` repeatedly (``rng`` is a numpy Generator seeded from
    ``seed`` and the reading id) until ``budget.sweep`` instances are done (or the budget's
    safety net ``time_limit`` interrupts it: ``timed_out``). Counts every violating instance and keeps the smallest (fewest array entries,
    so fewest tokens; a sweep cannot shrink like Hypothesis, but this reports the least
    instance it saw), and of those the worst (largest ``lhs - rhs`` for ``<=``); it is
    re-evaluated alone to report its sides.

    A batch whose values all lack a batch axis is one fixed instance: it is judged once and
    the sweep stops there (a pass says so). ``sides`` must return one value per instance.

    Instances outside the reading's own hypotheses (``reading.assume``) are masked out and
    counted (``discarded``); ``budget.sweep`` counts the judged ones. At most
    ``10 * budget.sweep`` instances are drawn: a sweep that finds too few inside is
    ``"incomplete"`` and says so.
    """
    if reading.sweep is None or reading.sides is None:
        raise ValueError(f"reading: {reading.name!r} has no sweep/sides")
    rid = reading_id or reading.name
    rng = np.random.default_rng(_stream_seed(seed, rid, "sweep"))
    start = time.perf_counter()
    done = violations = drawn = discarded = overflowed = 0
    fixed = False
    varied = False  # some instance differs from the first (one instance repeated is one fixed instance)
    first = None
    worst: tuple[float, dict] | None = None
    slack = _Slack(reading)
    chunk = min(_CHUNK_START, budget.sweep)
    timeout_note = ""
    try:
        with wall_clock_limit(budget.time_limit):
            while done < budget.sweep and drawn < _DRAW_FACTOR * budget.sweep:
                if reading.assume is not None:  # never draw past the cap
                    chunk = max(1, min(chunk, _DRAW_FACTOR * budget.sweep - drawn))
                batch = reading.sweep(rng, chunk)
                if not isinstance(batch, dict):
                    raise TypeError(f"sweep() returned {type(batch).__name__}, expected a dict instance batch")
                # a batch with no batch axis (every value a scalar) is one fixed instance, whatever
                # was asked: it is judged once, not counted as many (H1's paper numbers)
                size = _batch_size(batch)
                fixed = size is None
                size = 1 if fixed else size
                drawn += size
                if not fixed and not varied:
                    first = first if first is not None else _snapshot(_slice_instance(batch, 0))
                    varied = not _rows_equal(batch, size, first)
                if reading.assume is not None:  # instances outside the reading's hypotheses are not judged
                    keep = reading.inside(batch, size)
                    if not keep.all():
                        discarded += int(size - keep.sum())
                        if not keep.any():
                            if fixed:  # the one fixed instance is outside: drawing it again changes nothing
                                break
                            continue
                        batch, size = subset_instances(batch, keep), int(keep.sum())
                lhs, rhs = _as_float_arrays(reading.sides(batch))
                if lhs.ndim == 0 and size > 1:  # one value for the batch: the instances were not each judged
                    raise ValueError(f"sides() returned one value for a batch of {size} instances; it must return one "
                                     "per instance (an array with the batch axis first)")
                if lhs.ndim == 0:
                    lhs, rhs = np.broadcast_to(lhs, (size,)), np.broadcast_to(rhs, (size,))
                if lhs.shape[0] != size:
                    raise ValueError(f"sides() returned shape {lhs.shape} for a batch of {size} instance(s)")
                lhs, rhs = np.broadcast_arrays(lhs, rhs)
                nan = np.isnan(lhs) | np.isnan(rhs)
                if np.any(nan):
                    i = int(np.argwhere(nan.reshape(size, -1).any(axis=1))[0, 0])
                    raise _NonFinite(f"{_NAN_TEXT} at instance {_instance_text(_slice_instance(batch, i))}")
                unknown = _undecided(lhs, rhs)  # an infinite side decides nothing
                ok = holds_relation(Sides(lhs, rhs), reading.relation, reading.rtol, reading.atol) | unknown
                bad = ~ok.reshape(size, -1).all(axis=1)
                unjudged = unknown.reshape(size, -1).any(axis=1) & ~bad
                overflowed += int(unjudged.sum())
                size_judged = size - int(unjudged.sum())
                slack.add(np.where(ok & ~unknown, _violation(lhs, rhs, reading.relation), -np.inf)
                          .reshape(size, -1).max(axis=1)[~unjudged])
                if np.any(bad):
                    violations += int(bad.sum())
                    margin = np.where(unknown, -np.inf, _violation(lhs, rhs, reading.relation)).reshape(size, -1).max(axis=1)
                    margin = np.where(bad, margin, -np.inf)
                    i = int(np.argmax(margin))
                    candidate = _snapshot(_slice_instance(batch, i))
                    # keep the smallest violating instance (fewest entries: fewest tokens), and
                    # among those of one size the largest violation
                    key = (-_instance_entries(candidate), float(margin[i]))
                    if worst is None or key > worst[0]:
                        worst = (key, candidate)
                done += size_judged
                if fixed:
                    break
                if _batch_bytes(batch) * 2 <= _CHUNK_BYTES and chunk < _CHUNK_MAX:
                    chunk *= 2
                chunk = max(1, min(chunk, budget.sweep - done)) if done < budget.sweep else chunk
    except MethodTimeout as exc:
        timeout_note = str(exc)
    except Exception as exc:  # noqa: BLE001
        return MethodOutcome("sweep", "error", f"sweep: {_error_text(exc)}", time.perf_counter() - start, count=done,
                             discarded=discarded)
    timed_out = bool(timeout_note)
    seconds = time.perf_counter() - start
    if worst is not None:
        instance = worst[1]
        try:
            lhs1, rhs1, ok1 = _worst_element(reading.sides(_snapshot(instance)), reading)
        except Exception as exc:  # noqa: BLE001
            return MethodOutcome(
                "sweep", "error",
                f"sweep: the smallest violating instance fails when evaluated alone: {_error_text(exc)}",
                seconds, count=done,
            )
        if ok1:
            return MethodOutcome(
                "sweep", "error",
                "sweep: sides() disagree between the batch and the single chosen instance "
                f"({_instance_text(instance)}): batch says violated, single says holds",
                seconds, count=done,
            )
        cex = _counterexample(instance, lhs1, rhs1, "sweep", violations=violations, of=done)
        text = (
            f"sweep: {violations} of {done} instance(s) violate; the one with the fewest entries: "
            f"{_sides_text(lhs1, rhs1, ' ' + _FLIP[reading.relation] + ' ')}"
        )
        if timed_out:
            text += f" ({timeout_note}, after {done} of {budget.sweep} instance(s))"
        return MethodOutcome("sweep", "fail", text, seconds, count=done, counterexample=cex, timed_out=timed_out,
                             discarded=discarded)
    if fixed and done and not timed_out:
        return MethodOutcome("sweep", "pass", "no counterexample at the sweep's one fixed instance (its values have "
                             "no batch axis: judged once)", seconds, count=done, discarded=discarded)
    if done > 1 and not varied:  # review 46: np.full(n, 0.25) counted as the budget's instances
        return MethodOutcome("sweep", "pass", f"no counterexample at the sweep's one instance, drawn {done} times "
                             "(every instance equal: counted once)", seconds, count=1, discarded=discarded)
    over = f" ({overflowed} more not judged: {_OVERFLOW_NOTE})" if overflowed else ""
    if timed_out or done < budget.sweep:
        why = timeout_note or (
            f"only {done} of {drawn} drawn instance(s) met the reading's hypotheses{over}" if discarded
            else f"only {done} of {drawn} drawn instance(s) had finite sides{over}" if overflowed
            else "the sweep ended early"
        )
        return MethodOutcome(
            "sweep", "incomplete",
            f"sweep: {why}, after {done} of {budget.sweep} instance(s), no counterexample",
            seconds, count=done, timed_out=timed_out, discarded=discarded,
        )
    return MethodOutcome("sweep", "pass", f"no counterexample in {done} sweep instance(s){over}{slack.note()}", seconds,
                         count=done, discarded=discarded, slack=slack.info())


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
    """Run ``reading.montecarlo(rng, budget.mc_samples)`` to completion and judge its intervals.

    Only the budget's safety net ``time_limit`` can stop it (``"unknown"``, ``timed_out``).
    """
    if reading.montecarlo is None:
        raise ValueError(f"reading: {reading.name!r} has no montecarlo method")
    rid = reading_id or reading.name
    rng = np.random.default_rng(_stream_seed(seed, rid, "montecarlo"))
    start = time.perf_counter()
    try:
        with wall_clock_limit(budget.time_limit):
            est = reading.montecarlo(rng, budget.mc_samples)
        outcome = montecarlo_outcome(est, reading.relation, reading.rtol, reading.atol)
    except MethodTimeout as exc:
        return MethodOutcome("montecarlo", "unknown", f"Monte Carlo: {exc}", time.perf_counter() - start,
                             timed_out=True)
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
    if outcome == "pass" and est.samples < budget.mc_samples:  # held to its budget, as the sweep is (review 46)
        text = (f"Monte Carlo: {est.samples} of the budget's {budget.mc_samples} samples, no counterexample: "
                f"lhs {lhs_txt} {reading.relation} rhs {rhs_txt}")
        return MethodOutcome("montecarlo", "incomplete", _join(text, est.detail), seconds, count=est.samples, mc=mc)
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
