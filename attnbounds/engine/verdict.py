"""Verdict combination: from the methods' outcomes to one verdict and its line of evidence.

:func:`combine` turns a reading's :class:`~attnbounds.engine.methods.MethodOutcome` list into
the strongest verdict the evidence supports:

``proved``
    ``reading.symbolic()`` returned ``Proof(status=True)`` whose chain of steps the proof
    kernel (:mod:`attnbounds.theory.proof`) checked completely, **tied** to the reading by its
    ``bind`` (the goal and the chain's hypotheses evaluated at the reading's instances,
    :mod:`attnbounds.engine.tie`, status ``tied``). The chain's goal is the one its author
    passed to ``Chain.prove``, which the kernel cannot compare with the reading's sides (Python
    functions): without the tie nothing a machine checked links the proof to the reading (a
    proof of p(1 − p) ≤ 1/4 made a reading about a Jacobian norm ``proved``: trial 48). An
    untied proof is named in the evidence of a ``holds`` (when the numeric evidence below
    suffices), never ``proved``; with less evidence the verdict is ``undecided`` ("not
    cross-checked"). A proof with an unchecked (argued) step, or with no chain, gets the
    verdict its other evidence supports;
``certified``
    ``reading.certify()`` returned ``Proof(status=True)`` with an interval certificate of
    ``f(x) <= bound`` on a box, issued by :func:`attnbounds.numerics.intervals.certify_upper_bound`,
    **tied** to the reading by its ``locate`` (an instance's point of the box) and ``domain``
    (the reading's stated domain in those coordinates): the box contains the domain, compared
    exactly, and at the reading's instances, which must spread over the domain, every point
    lies in the domain and f(x) − bound is the reading's lhs − rhs
    (:func:`attnbounds.engine.tie.certificate_tie`, status ``tied``), cross-checked by the
    numeric evidence ``holds`` needs. A box that does not contain the domain (``uncovered``:
    the certificate speaks of part of the reading's domain only), instances that do not
    spread over it (``undersampled``), a grid certificate (no one function to evaluate) or no ``locate`` leave the certificate named
    in the evidence of a ``holds``, as an untied proof is; a certificate of another function is a
    conflict. (The certificates of L1 and C1 cover one box, T = 1, Δ = 1, L = 3, of readings about
    every T, Δ and L; their readings are ``proved``.)
``holds``
    no counterexample in ``K`` Hypothesis examples *and* none in a batched numpy sweep of at
    least the budget's instance count (both methods must be set and must finish). A reading
    with a Monte Carlo estimate additionally needs the confidence interval of ``lhs`` wholly
    on the correct side of the interval of ``rhs``; a reading with only ``montecarlo``
    holds on that alone;
``falsified``
    a counterexample from any method: an exact refutation, the shrunk (minimal) failing
    instance found by Hypothesis, the smallest violating instance of the sweep, or a Monte Carlo
    estimate whose intervals lie wholly on the wrong side;
``undecided``
    anything else: no method, an exact method that cannot decide, intervals that straddle,
    a search cut short, an error in a method. Never rounded up.

**The verdict is a function of the budget of work and the seed, not of the machine's
load.** No method reads the clock to decide how much to do. The budget's wall-clock safety
net (``time_limit``, ``--time-limit``) can still interrupt a method that runs far too long;
the verdict is then what the finished methods support (never stronger), the row's
``timed_out`` lists the interrupted methods, and its evidence line starts with
``TIME LIMIT`` so that no reader takes it for the verdict of the full budget.

**Conflicts are bugs, reported loudly.** When an exact method proves the reading but another
method finds a counterexample (or a symbolic counterexample does not violate the numeric
sides), the verdict is ``undecided`` and the judgement's ``conflict`` says which methods
disagree.

:func:`judge_drop` does the same for a hypothesis-drop demonstration.

>>> from dataclasses import replace
>>> from attnbounds.claims.base import Reading
>>> from attnbounds.engine.budget import Budget
>>> from attnbounds.engine.methods import MethodOutcome
>>> from attnbounds.claims.base import Sides
>>> r = Reading("t", "t", "t", symbolic=lambda: None, sides=lambda i: Sides(0, 1), sweep=lambda rng, n: {},
...             strategy=lambda: None)
>>> found = [MethodOutcome("strategy", "pass", "no counterexample", count=100),
...          MethodOutcome("sweep", "pass", "no counterexample", count=Budget().sweep)]
>>> untied = MethodOutcome("symbolic", "pass", "expand(...) == 0", proof={"proves": ["p*(1 - p) <= 1/4"]})
>>> combine(r, [untied, *found], Budget()).verdict  # no bind: nothing ties the proof to the reading
'holds'
>>> tied = replace(untied, proof={"proves": ["p*(1 - p) <= 1/4"], "tie": {"status": "tied", "instances": 32}})
>>> combine(r, [tied, *found], Budget()).verdict
'proved'
>>> combine(r, [MethodOutcome("symbolic", "pass", "expand(...) == 0"), found[1]], Budget()).evidence[:50]
'symbolic passes, but not cross-checked: nothing ti'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from attnbounds.claims.base import Proof, Reading
from attnbounds.engine.budget import Budget
from attnbounds.engine.methods import _CEX_ORDER, _EXACT, _METHOD_LABEL, MethodOutcome, _snapshot, slack_note
from attnbounds.engine.rows import _FLIP, UNPROVED, _counterexample, _error_text, _fmt, _instance_text, _sides_text, _short

__all__ = ["Judgement", "combine", "judge_drop"]

#: The methods that evaluate a reading's own sides on instances.
_NUMERIC = ("strategy", "sweep", "montecarlo")


@dataclass(frozen=True)
class Judgement:
    """The combined verdict of a reading and the line of evidence behind it."""

    verdict: str
    evidence: str
    counterexample: dict | None = None
    conflict: str | None = None
    error: str | None = None
    timed_out: tuple[str, ...] = ()


def _conflict_kind(conflicts) -> str:
    """What a row's conflicts are: the proof tied to other sides than the reading's (its bind or its
    chain, the author's to mend: :mod:`attnbounds.engine.tie`), a bind that raised (the tie's
    status "error", the author's to mend too), or methods that disagree (a bug in a claim's
    methods or in the kernel).

    >>> _conflict_kind(["symbolic: the proof does not prove the reading: at n=2, ..."])
    'the proof does not prove the reading'
    >>> _conflict_kind(["symbolic: tie of the goal to the sides: ValueError: oops"])
    'the bind raised'
    >>> _conflict_kind(["certify: the certificate is not of the reading's sides: at x=1, ..."])
    "the certificate is not of the reading's sides"
    >>> _conflict_kind(["sweep refutes the reading, but ..."])
    'a bug'
    """
    untied = ("symbolic: the proof does not prove the reading", "certify: the certificate is not of the reading's sides")
    raised = ("symbolic: tie of the goal to the sides", "certify: tie of the certificate to the sides")
    if all(c.startswith(raised[0]) for c in conflicts):  # the tie's status "error": bind (or a value it gave) raised
        return "the bind raised"
    if all(c.startswith(raised[1]) for c in conflicts):  # a certificate's tie: its locate or the sides raised
        return "the certificate's tie raised"
    if all(c.startswith(untied[1]) for c in conflicts):  # a certificate of another function
        return "the certificate is not of the reading's sides"
    return "the proof does not prove the reading" if all(c.startswith(untied + raised) for c in conflicts) else "a bug"


def combine(reading: Reading, outcomes: Sequence[MethodOutcome], budget: Budget) -> Judgement:
    """The strongest verdict that the methods' outcomes support (see the module docstring).

    Order of precedence: conflicts and errors (``undecided``), then counterexamples
    (``falsified``), exact proofs (``proved``, ``certified``), numeric evidence (``holds``),
    and ``undecided`` for everything else. Methods interrupted by the wall-clock safety net
    are named in ``timed_out`` and at the head of the evidence.

    >>> from attnbounds.claims.base import Reading
    >>> r = Reading("t", "t", "t", symbolic=lambda: None)
    >>> combine(r, [MethodOutcome("symbolic", "unknown", "cannot decide")], Budget()).verdict
    'undecided'
    >>> j = combine(r, [MethodOutcome("symbolic", "unknown", "TIME LIMIT: ...", timed_out=True)], Budget())
    >>> j.verdict, j.timed_out, j.evidence.startswith("TIME LIMIT (symbolic)")
    ('undecided', ('symbolic',), True)
    """
    j = _combine(reading, outcomes, budget)
    discarded = [f"{_METHOD_LABEL[o.method]} {o.discarded}" for o in outcomes if o.discarded]
    if discarded:  # instances outside the reading's own hypotheses: counted, never judged
        j = replace(j, evidence=f"{j.evidence} [outside the reading's hypotheses, discarded: {', '.join(discarded)}]")
    timed_out = tuple(o.method for o in outcomes if o.timed_out)
    if not timed_out:
        return j
    limit = f"{budget.time_limit:g} s" if budget.time_limit is not None else "a time limit"
    head = (
        f"TIME LIMIT ({', '.join(_METHOD_LABEL[m] for m in timed_out)}) interrupted after {limit} of wall "
        "time: this verdict is not that of the full budget"
    )
    return replace(j, evidence=_short(f"{head}; {j.evidence}", 300), timed_out=timed_out)


def _combine(reading: Reading, outcomes: Sequence[MethodOutcome], budget: Budget) -> Judgement:
    by = {o.method: o for o in outcomes}
    fails = [by[m] for m in _CEX_ORDER if m in by and by[m].outcome == "fail"]
    exact_pass = [by[m] for m in _EXACT if m in by and by[m].outcome == "pass"]
    errors = [o for o in outcomes if o.outcome == "error"]
    cex = fails[0].counterexample if fails else None

    conflicts = [o.conflict for o in outcomes if o.conflict]
    refutes = [o.tie["refutes"] for o in outcomes if o.method == "certify" and o.tie and o.tie.get("refutes")]
    if refutes and not fails:  # a certificate's refutation tied to the reading, and no counterexample (trial 49)
        conflicts.append(refutes[0])
    if fails and exact_pass:
        conflicts.append(
            f"{', '.join(_METHOD_LABEL[o.method] for o in exact_pass)} proves the reading but "
            f"{', '.join(_METHOD_LABEL[o.method] for o in fails)} found a counterexample"
        )
    if conflicts:
        text = "; ".join(conflicts)
        return Judgement("undecided", _short(f"CONFLICT ({_conflict_kind(conflicts)}): {text}"), cex, conflict=text)
    if errors:
        text = "; ".join(f"{_METHOD_LABEL[o.method]}: {o.detail}" for o in errors)
        extra = f" (also: counterexample from {_METHOD_LABEL[fails[0].method]})" if fails else ""
        return Judgement("undecided", _short(f"error in {text}{extra}"), cex, error=text)
    if fails:
        f = fails[0]
        c = f.counterexample or {}
        rel = _FLIP[reading.relation]
        if c.get("rhs") is None:  # no numeric right side (an order in L, an unboundedness): say what fails
            ev = f"{_METHOD_LABEL[f.method]}: {f.detail} (lhs={_fmt(c.get('lhs'))} at {_instance_text(c.get('instance'))})"
        else:
            ev = (
                f"{_METHOD_LABEL[f.method]}: {_sides_text(c.get('lhs'), c.get('rhs'), ' ' + rel + ' ')} "
                f"at {_instance_text(c.get('instance'))}"
            )
        if f.method == "sweep":
            ev += f" ({c.get('violations')} of {c.get('of')} violate)"
        return Judgement("falsified", _short(ev, 200), cex)
    searching = reading.strategy is not None or reading.sweep is not None
    sampling = reading.montecarlo is not None
    reasons = _holds_reasons(by, searching, sampling, budget)
    exact = [m for m in _EXACT if m in by and by[m].outcome == "pass"]
    tied = "symbolic" in exact and ((by["symbolic"].proof or {}).get("tie") or {}).get("status") == "tied"
    if tied:
        info = by["symbolic"].proof or {}
        goals = info.get("proves") or []
        what = f" {_short(goals[0], 70)}" + (f" (+{len(goals) - 1} lemma(s))" if len(goals) > 1 else "") if goals else ""
        t = info["tie"]
        held = t.get("hypotheses")
        where = f", where its hypotheses {', '.join(held)} held" if held else ""
        return Judgement("proved", _short(
            f"symbolic proves{what}; tied to the sides at {t['instances']} instance(s){where}: {by['symbolic'].detail}", 240))
    if "certify" in exact and (by["certify"].tie or {}).get("status") == "tied" and not reasons and (searching or sampling):
        # the tie checks the box and the function at the reading's instances; the numeric
        # evidence holds needs is asked as well (as before the tie existed), a second view of the sides
        sym = by.get("symbolic")
        argued = ""
        if sym is not None and sym.proof is not None and sym.proof.get("status") in UNPROVED:
            argued = f" (proof {sym.proof['status']}: {sym.proof['checked']}/{sym.proof['steps']} steps checked)"
        return Judgement("certified", _short(f"certify: {by['certify'].detail}{argued}", 300))
    # An exact method not tied to the reading proves (or certifies) the statement its author gave
    # Chain.prove (a certificate: its function on its box), which no machine step links to the
    # reading's sides: a proof of p(1 - p) <= 1/4 made a reading about a Jacobian norm `proved`
    # (trial 48). Only the numeric evidence then speaks for the reading: `holds` at most, with
    # the untied proof named; without that evidence, `undecided` ("not cross-checked").
    untied = [_untied_text(m, by[m]) for m in exact]
    if exact and (reasons or not (searching or sampling)):
        why = "; ".join(reasons) if reasons else "no numeric method (Hypothesis, sweep, Monte Carlo)"
        first = by[exact[0]]
        t = (first.proof or {}).get("tie") if exact[0] == "symbolic" else first.tie
        how = (f"no {'bind' if exact[0] == 'symbolic' else 'locate'}" if t is None else
               f"its tie is {t['status']}")
        return Judgement("undecided", _short(
            f"{_METHOD_LABEL[exact[0]]} passes, but not cross-checked: nothing ties the "
            f"{'proof' if exact[0] == 'symbolic' else 'certificate'} to the reading ({how}, and the numeric evidence "
            f"is short of what holds needs: {why}) [{first.detail}]", 300))

    if (searching or sampling) and not reasons:
        parts = []
        if searching:
            parts.append(f"no counterexample in {by['strategy'].count} examples + {by['sweep'].count} sweep instances"
                         + _slack_text(by["strategy"], by["sweep"], reading))
        if sampling:
            parts.append(by["montecarlo"].detail)
        sym = by.get("symbolic")
        if sym is not None and sym.proof is not None and sym.proof.get("status") in UNPROVED:
            parts.append(f"proof {sym.proof['status']}: {sym.proof['checked']}/{sym.proof['steps']} steps checked")
        cert = by.get("certify")
        if cert is not None and cert.outcome in ("unknown", "error"):  # trial 49: a failed certificate left no trace
            untied.append(f"certify did not certify: {_short(cert.detail, 160)}")
        return Judgement("holds", _short("; ".join(parts + untied), 300 if untied else 200))
    if not outcomes:
        return Judgement("undecided", "no method to judge this reading")
    unknown = [o.detail for o in outcomes if o.outcome == "unknown"]
    return Judgement("undecided", _short("; ".join(reasons + unknown) or "no method decided", 200))


def _untied_text(method: str, outcome) -> str:
    """What an exact method that passed, but is tied to no reading, showed (``holds`` names it)."""
    if method == "symbolic":
        info = outcome.proof or {}
        goals = info.get("proves") or []
        t = info.get("tie")
        why = "no bind" if t is None else f"tie {t['status']}: {_short(str(t.get('detail', '')), 80)}"
        return (f"a checked proof of {_short(goals[0], 70) if goals else 'its own goal'}, not tied to the reading "
                f"({why}), so not proved")
    t = outcome.tie
    why = "no locate" if t is None else f"tie {t['status']}: {_short(str(t.get('detail', '')), 120)}"
    return (f"an interval certificate ({_short(outcome.detail, 60)}), not tied to the reading's domain and sides "
            f"({why}), so not certified")


def _holds_reasons(by: dict, searching: bool, sampling: bool, budget: Budget) -> list[str]:
    """Why the numeric outcomes ``by`` fall short of ``holds`` (empty: they suffice): Hypothesis and
    a full sweep where the reading searches, a passing Monte Carlo of the budget's samples where
    it samples."""
    reasons = []
    if searching:
        st, sw = by.get("strategy"), by.get("sweep")
        if st is None or sw is None:
            missing = "sweep" if sw is None else "Hypothesis strategy"
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
    return reasons


def _slack_text(st, sw, reading) -> str:
    """The searches' instances that hold only within the rounding slack, merged (empty if none)."""
    got = [o.slack for o in (st, sw) if o.slack]
    if not got:
        return ""
    return slack_note({"count": sum(g["count"] for g in got), "largest": max(g["largest"] for g in got)},
                      reading.rtol, reading.atol)


def judge_drop(hypothesis, proof: Proof) -> tuple[Judgement, dict[str, str]]:
    """The verdict of a hypothesis-drop demonstration ``proof = hypothesis.drop()``.

    ``falsified`` (the demonstration that the hypothesis is needed) when ``proof`` refutes the
    conclusion; ``proved`` when it shows the conclusion survives without the hypothesis;
    ``undecided`` otherwise. When the hypothesis has a ``check`` predicate it is evaluated on
    the refuting instance: the instance must break the hypothesis, otherwise the
    demonstration shows nothing and the judgement is a ``conflict``. A ``check`` that cannot
    read the instance is noted in the returned detail and does not change the verdict.

    Returns the judgement and the row's ``detail`` (``{"drop": ..., "check": ...}``).
    """
    detail = {"drop": proof.detail}
    broken = _hypothesis_broken(hypothesis, proof) if proof.status is False else None
    if broken is not None:
        detail["check"] = broken[1]
    if broken is not None and broken[0] is False:
        cex = _counterexample(proof.counterexample, proof.lhs, proof.rhs, "drop")
        return Judgement("undecided", _short(f"CONFLICT (a bug): {broken[1]}"), cex, conflict=broken[1]), detail
    if proof.status is False:
        cex = _counterexample(proof.counterexample, proof.lhs, proof.rhs, "drop")
        if proof.rhs is None:  # no numeric right side: the drop's own account of what fails
            what = f"{proof.detail} (lhs={_fmt(proof.lhs)} at {_instance_text(proof.counterexample)})"
        else:
            what = f"{_sides_text(proof.lhs, proof.rhs, ', ')} at {_instance_text(proof.counterexample)}"
        evidence = _short(f"without '{hypothesis.name}' the conclusion fails: {what}", 200)
        return Judgement("falsified", evidence, cex), detail
    if proof.status is True:
        return Judgement("proved", _short(f"holds without '{hypothesis.name}': {proof.detail}")), detail
    return Judgement("undecided", _short(f"cannot decide: {proof.detail}")), detail


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
