"""The run loop: resolve ids, judge each reading and each hypothesis drop, collect rows.

:func:`check` judges the selected claims and returns one :class:`~attnbounds.engine.rows.Row`
per reading and per hypothesis drop. For each claim hypothesis that has a ``drop``
demonstration it adds a row with id ``"<claim>:without-<hypothesis>"``: ``falsified`` (the
expected outcome) when ``drop()`` exhibits a counterexample to the conclusion once that
hypothesis fails. Errors inside a method give ``undecided`` with the error text in
``error``; they never stop the run.

Determinism: every reading gets its own random streams, derived from ``seed`` and the
reading id, so the same seed gives the same rows (apart from the timings ``seconds`` and
``method_seconds``) whether a reading runs alone or with all the others. The budget is
counted in work (examples, sweep instances, samples; exact methods run to completion), so
the rows do not depend on how busy the machine is either, unless the budget's wall-clock
safety net interrupts a method (the row's ``timed_out`` then names it).
"""

from __future__ import annotations

import os
import time

import numpy as np
from dataclasses import dataclass, field
from typing import Callable, Iterable

from attnbounds.claims import registry as claim_registry
from attnbounds.claims.base import VERDICTS, Claim, Proof, Reading
from attnbounds.claims.registry import ClaimRegistry
from attnbounds.engine.budget import DEFAULT_BUDGET, Budget, check_seed, resolve_budget
from attnbounds.engine.methods import (
    _EXACT,
    MethodOutcome,
    MethodTimeout,
    wall_clock_limit,
    run_exact,
    run_montecarlo,
    run_strategy,
    run_sweep,
)
from attnbounds.engine.rows import Row, _error_text, _short
from attnbounds.engine.verdict import combine, judge_drop

__all__ = [
    "CheckInterrupted",
    "judge_reading",
    "judge_under",
    "judge_hypothesis_drop",
    "resolve_ids",
    "valid_ids",
    "check",
]


class CheckInterrupted(KeyboardInterrupt):
    """A ``KeyboardInterrupt`` carrying the rows finished so far (``rows``).

    The reading that was running when the interrupt came is included as an ``undecided`` row
    whose ``error`` says ``interrupted``, with whatever its finished methods found.
    """

    def __init__(self, rows: list[Row]):
        super().__init__("interrupted")
        self.rows = rows


def judge_reading(
    claim: Claim,
    reading: Reading,
    *,
    quick: bool = False,
    examples: int | None = None,
    seed: int = 0,
    budget: Budget | None = None,
    progress: Callable[[str], None] | None = None,
    claim_id: str | None = None,
    stream_id: str | None = None,
) -> Row:
    """Run every method of ``reading`` and return its row.

    Parameters
    ----------
    claim, reading : Claim, Reading
        The reading to judge and the claim it belongs to (for the id).
    quick : bool
        Use :data:`~attnbounds.engine.budget.QUICK_BUDGET` instead of
        :data:`~attnbounds.engine.budget.DEFAULT_BUDGET`.
    examples : int, optional
        Hypothesis examples (overrides the budget's).
    seed : int
        Seed of the numpy streams and of Hypothesis (same seed, same row).
    budget : Budget, optional
        A full budget (overrides ``quick``).
    progress : callable, optional
        Called with the name of each method as it starts.
    claim_id : str, optional
        The claim id the row shows (default ``claim.id``; :func:`check` passes the qualified
        id when the short one is ambiguous).
    stream_id : str, optional
        The id the random streams are derived from, with ``seed`` (default: the row's id,
        ``"<claim>:<reading>"``; a mutant passes its own id).

    Raises
    ------
    CheckInterrupted
        On ``KeyboardInterrupt``; its ``rows`` holds this reading's partial row.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim: expected a Claim, got {type(claim).__name__}")
    if not isinstance(reading, Reading):
        raise TypeError(f"reading: expected a Reading, got {type(reading).__name__}")
    budget = resolve_budget(budget, quick, examples)
    seed = check_seed(seed)
    cid = claim.id if claim_id is None else claim_id
    rid = f"{cid}:{reading.name}"
    row = Row(rid, cid, reading.name, "reading", normalizer=reading.normalizer)  # the normalizer it is about, if named
    sid = rid if stream_id is None else stream_id
    start = time.perf_counter()
    outcomes: list[MethodOutcome] = []

    def record(o: MethodOutcome):
        outcomes.append(o)
        row.methods.append(o.method)
        row.detail[o.method] = o.detail
        row.method_seconds[o.method] = round(o.seconds, 3)
        if o.method == "strategy":
            row.examples = o.count
        elif o.method == "sweep":
            row.sweep = o.count
        elif o.method == "montecarlo":
            row.mc = o.mc
        if o.proof is not None:
            row.proof = dict(o.proof)
        if o.discarded:
            row.discarded = {**(row.discarded or {}), o.method: int(o.discarded)}

    try:
        for method in reading.methods:
            if progress is not None:
                progress(method)
            if method in _EXACT:
                record(run_exact(reading, method, budget))
            elif method == "strategy":
                record(run_strategy(reading, budget, seed=seed, reading_id=sid))
            elif method == "sweep":
                record(run_sweep(reading, budget, seed=seed, reading_id=sid))
            elif method == "montecarlo":
                record(run_montecarlo(reading, budget, seed=seed, reading_id=sid))
    except KeyboardInterrupt:
        j = combine(reading, outcomes, budget)
        row.verdict = "undecided"
        row.evidence = "interrupted before all methods finished"
        row.counterexample, row.conflict, row.error = j.counterexample, j.conflict, "interrupted"
        row.timed_out = list(j.timed_out) or None
        row.seconds = round(time.perf_counter() - start, 3)
        raise CheckInterrupted([row]) from None
    j = combine(reading, outcomes, budget)
    if j.verdict not in VERDICTS:  # pragma: no cover -- combine only returns known verdicts
        raise AssertionError(f"unknown verdict {j.verdict!r}")
    row.verdict, row.evidence, row.counterexample = j.verdict, j.evidence, j.counterexample
    row.conflict, row.error = j.conflict, j.error
    row.timed_out = list(j.timed_out) or None
    row.seconds = round(time.perf_counter() - start, 3)
    return row


def judge_under(
    claim: Claim,
    reading: Reading,
    normalizer,
    *,
    budget: Budget | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    claim_id: str | None = None,
) -> Row:
    """The row of ``reading`` judged under ``normalizer`` (:meth:`Reading.under`).

    The row keeps the reading's own id and adds ``normalizer`` and ``hypotheses_broken``.
    A reading that cannot be posed under the normalizer is ``undecided`` with the reason
    (``not applicable under N: ...``).
    """
    from attnbounds.claims.normalized import NotApplicable, probe, resolve

    N = resolve(normalizer)
    cid = claim.id if claim_id is None else claim_id
    instances = []
    try:
        sample = probe(reading, N)
        instances = [sample] if sample is not None else []
        posed = reading.under(N)
    except NotApplicable as exc:
        instances = [exc.instance] if exc.instance is not None else []
        row = Row(f"{cid}:{reading.name}", cid, reading.name, "reading",
                  evidence=_short(f"not applicable under {N.spec}: {exc}"), detail={"under": str(exc)})
    else:
        row = judge_reading(claim, posed, budget=budget, seed=seed, progress=progress, claim_id=cid)
    row.normalizer = N.spec
    instance = (row.counterexample or {}).get("instance")
    row.hypotheses_broken = _hypotheses_broken(claim, N, instances + ([instance] if instance else []), reading.name)
    return row


def _hypotheses_broken(claim: Claim, N, instances: list, reading: str | None = None) -> list[str]:
    """The claim's hypotheses ``N`` breaks (those of ``reading`` only, when given): by its
    metadata, or at one of ``instances`` (a sample drawn through ``N`` and the counterexample)."""
    hyps = [h for h in claim.hypotheses if reading is None or h.applies_to(reading)]
    out = [h.name for h in hyps if h.holds_for(N) is False]
    for instance in instances:
        for h in hyps:
            if h.check is None or h.name in out:
                continue
            try:
                ok = bool(np.all(np.asarray(h.check(instance), dtype=bool)))
            except Exception:  # noqa: BLE001 -- a check that cannot read the instance decides nothing
                continue
            if not ok:
                out.append(h.name)
    return out


def judge_hypothesis_drop(
    claim: Claim, hypothesis, *, budget: Budget | None = None, claim_id: str | None = None
) -> Row:
    """Row ``"<claim>:without-<hypothesis>"``: the claim's conclusion with one hypothesis dropped.

    Runs ``hypothesis.drop()`` to completion (only the budget's safety net ``time_limit``
    can interrupt it: ``timed_out``) and judges it with
    :func:`~attnbounds.engine.verdict.judge_drop`.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim: expected a Claim, got {type(claim).__name__}")
    if hypothesis.drop is None:
        raise ValueError(f"hypothesis: {hypothesis.name!r} has no drop demonstration")
    budget = budget or DEFAULT_BUDGET
    name = f"without-{hypothesis.name}"
    cid = claim.id if claim_id is None else claim_id
    row = Row(f"{cid}:{name}", cid, name, "hypothesis", methods=["drop"])
    start = time.perf_counter()
    try:
        with wall_clock_limit(budget.time_limit):
            proof = hypothesis.drop()
        if not isinstance(proof, Proof):
            raise TypeError(f"drop() returned {type(proof).__name__}, expected Proof")
    except MethodTimeout as exc:
        row.evidence, row.detail, row.timed_out = _short(f"{exc}: the drop demonstration did not finish"), {"drop": str(exc)}, ["drop"]
    except Exception as exc:  # noqa: BLE001
        text = _error_text(exc)
        row.evidence, row.detail, row.error = _short(f"error in drop: {text}"), {"drop": text}, text
    else:
        j, row.detail = judge_drop(hypothesis, proof)
        row.verdict, row.evidence, row.counterexample, row.conflict = j.verdict, j.evidence, j.counterexample, j.conflict
    row.seconds = round(time.perf_counter() - start, 3)
    row.method_seconds = {"drop": row.seconds}
    return row


# --------------------------------------------------------------------------- selection and run


@dataclass
class _Selection:
    claim_id: str  # the id rows show (short where unique), or the module for a load error
    readings: list[str] | None = None  # None: all readings
    drops: list[str] | None = None  # None: all hypothesis drops (only with all readings)
    load_error: str | None = None
    claim: Claim | None = field(default=None, repr=False)


def _registry(claims) -> ClaimRegistry:
    """The process registry, or a private one holding exactly ``claims``."""
    if claims is None:
        return claim_registry.REGISTRY
    reg = ClaimRegistry(modules=(), beside=claim_registry.REGISTRY)
    for c in claim_registry.claims_from(claims if isinstance(claims, (Claim, str, bytes, os.PathLike)) else tuple(claims)):
        reg.register(c)
    return reg


def resolve_ids(ids: Iterable[str] | None = None, *, claims: Iterable[Claim] | None = None) -> list[_Selection]:
    """Resolve claim ids and reading ids to what :func:`check` will run, in registry order.

    ``ids`` may mix claim ids (``"L1"`` or ``"2508.17821:L1"``: all readings and hypothesis
    drops), reading ids (``"L1:transcribed"``) and hypothesis-drop ids
    (``"L1:without-bounded"``); a short claim id must be unique. ``None`` or empty means
    every claim. ``claims``, when given, replaces the registry (e.g. a user's claim file).

    Raises
    ------
    ValueError
        ``ids: unknown id 'X'; valid: ...`` listing every valid id.
    """
    reg = _registry(claims)
    if ids is None:
        wanted: list[str] = []
    elif isinstance(ids, str):
        wanted = [ids]
    else:
        wanted = list(ids)
    for w in wanted:
        if not isinstance(w, str):
            raise TypeError(f"ids: expected strings, got {type(w).__name__}")
    order = [reg.display_id(c) for c in reg.all_claims()]
    if not wanted:
        out = [_Selection(module, load_error=err) for module, err in reg.load_errors().items()]
        return out + [_Selection(reg.display_id(c), claim=c) for c in reg.all_claims()]

    chosen: dict[str, _Selection] = {}
    unknown, notes = [], []
    of_claim: dict[str, tuple[str, str, list[str]]] = {}  # an unknown reading of a known claim: the claim's own
    for w in wanted:
        if w.endswith(":"):  # "L2:" names no reading: not the whole claim
            unknown.append(w)
            continue
        try:
            claim, name = reg.split_id(w)
        except KeyError as exc:
            if str(exc.args[0]).startswith("ambiguous"):
                notes.append(exc.args[0])
            else:
                unknown.append(w)
                head, _, name = w.partition(":")
                same = [c for c in reg.all_claims() if reg.display_id(c).lower() == head.lower()]
                if len(same) == 1:  # the claim in other letter case (l1:bogus): its own readings, as below
                    of_claim[w] = (reg.display_id(same[0]), name, sum(_reading_names(same[0]), []))
            continue
        cid = reg.display_id(claim)
        sel = chosen.setdefault(cid, _Selection(cid, readings=[], drops=[], claim=claim))
        if not name:
            sel.readings, sel.drops = None, None
            continue
        readings, drops = _reading_names(claim)
        if name in readings:
            if sel.readings is not None and name not in sel.readings:
                sel.readings.append(name)
        elif name in drops:
            if sel.drops is not None and name not in sel.drops:
                sel.drops.append(name)
        else:
            unknown.append(w)
            of_claim[w] = (cid, name, readings + drops)
    if notes and not unknown:  # known, but in more than one paper: the qualified ids are the choice
        raise ValueError(f"ids: {'; '.join(notes)} (qualify it with its paper, as paper:ID)")
    if unknown:
        broken = reg.load_errors()
        extra = "".join(f"; {n}" for n in notes)
        if broken:
            extra += f"; claim modules that failed to load: {', '.join(broken)}"
        from attnbounds.suggest import close_matches, did_you_mean

        valid = valid_ids(claims=claims)
        hint = did_you_mean(unknown[0], valid) if len(unknown) == 1 else ""
        if len(unknown) == 1 and unknown[0] in of_claim:  # a known claim: its own readings (trial 51: L1:bogus
            cid, name, own = of_claim[unknown[0]]         # was offered L2:frobenius), matched by the reading alone
            close = [f"'{cid}:{r}'" for r in ([name] if name in own else close_matches(name, own))]
            if not name:  # the claim alone, in other letter case (l1)
                close = [f"'{cid}'"]
            hint = (f" (did you mean {close[0] if len(close) == 1 else ', '.join(close[:-1]) + ' or ' + close[-1]}?)"
                    if close else f" ({cid}'s readings: {', '.join(own)})")
        raise ValueError(f"ids: unknown id {', '.join(repr(u) for u in unknown)}{hint}{extra}; valid: {', '.join(valid)}")
    return [chosen[c] for c in order if c in chosen]


def _reading_names(claim: Claim) -> tuple[list[str], list[str]]:
    """The names after ``CLAIM:`` that select a reading of ``claim``, and those that drop a hypothesis."""
    return [r.name for r in claim.readings], [f"without-{h.name}" for h in claim.hypotheses if h.drop is not None]


def valid_ids(*, claims: Iterable[Claim] | None = None) -> list[str]:
    """Every id :func:`check` accepts: claim ids, reading ids and hypothesis-drop ids (short form)."""
    reg = _registry(claims)
    out = []
    for claim in reg.all_claims():
        cid = reg.display_id(claim)
        out.append(cid)
        readings, drops = _reading_names(claim)
        out.extend(f"{cid}:{n}" for n in readings + drops)
    return out


def _plan(selections: list[_Selection]) -> list[tuple]:
    """The units of work: ("reading", sel, reading) / ("drop", sel, hyp) / ("load", sel, None)."""
    units = []
    for sel in selections:
        if sel.claim is None:
            units.append(("load", sel, None))
            continue
        for r in sel.claim.readings:
            if sel.readings is None or r.name in sel.readings:
                units.append(("reading", sel, r))
        for h in sel.claim.hypotheses:
            if h.drop is None:
                continue
            if sel.drops is None and sel.readings is None or (sel.drops and f"without-{h.name}" in sel.drops):
                units.append(("drop", sel, h))
    return units


def check(
    ids: Iterable[str] | None = None,
    *,
    quick: bool = False,
    examples: int | None = None,
    seed: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
    budget: Budget | None = None,
    on_row: Callable[[Row], None] | None = None,
    claims: Iterable[Claim] | None = None,
    normalizer=None,
) -> list[Row]:
    """Judge the selected claims and return one :class:`~attnbounds.engine.rows.Row` per reading and per hypothesis drop.

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
    claims : iterable of Claim, optional
        Judge these claims instead of the registry's (``attnbounds check --claims``).
    normalizer : str or object, optional
        Judge every selected reading under this normalizer (:func:`judge_under`); the
        hypothesis drops, which are about the claim's own setting, are left out.

    Raises
    ------
    ValueError
        For unknown ids or bad option values, naming the argument.
    CheckInterrupted
        On ``KeyboardInterrupt``, carrying every finished row and the interrupted one.
    """
    budget = resolve_budget(budget, quick, examples)
    seed = check_seed(seed)
    for name, fn in (("progress", progress), ("on_row", on_row)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name}: expected a callable, got {type(fn).__name__}")
    if normalizer is not None:
        from attnbounds.claims.normalized import resolve
        from attnbounds.numerics.normalizers import for_argument

        with for_argument("normalizer"):  # the errors of normalizers.get name the argument passed here
            normalizer = resolve(normalizer)
    units = _plan(resolve_ids(ids, claims=claims))
    if normalizer is not None:
        units = [u for u in units if u[0] != "drop"]
    total = len(units)
    rows: list[Row] = []
    for done, (kind, owner, item) in enumerate(units):
        if kind == "load":
            label = owner.claim_id
        elif kind == "reading":
            label = f"{owner.claim_id}:{item.name}"
        else:
            label = f"{owner.claim_id}:without-{item.name}"
        try:
            if progress is not None:
                progress(label, done, total)
            if kind == "load":
                row = Row(owner.claim_id, owner.claim_id, None, "load-error", error=owner.load_error,
                          evidence=_short(f"claim module failed to load: {owner.load_error}"))
            elif kind == "reading":
                method_progress = None
                if progress is not None:
                    method_progress = lambda m, _l=label, _d=done: progress(f"{_l} {m}", _d, total)  # noqa: E731
                if normalizer is None:
                    row = judge_reading(owner.claim, item, seed=seed, budget=budget, progress=method_progress,
                                        claim_id=owner.claim_id)
                else:
                    row = judge_under(owner.claim, item, normalizer, seed=seed, budget=budget,
                                      progress=method_progress, claim_id=owner.claim_id)
            else:
                row = judge_hypothesis_drop(owner.claim, item, budget=budget, claim_id=owner.claim_id)
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
