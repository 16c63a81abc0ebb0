"""Mutation testing of the checker: every proved or certified reading is mutated so that the
statement becomes false or unjustified, and each mutant is judged again.

Mutants of a reading ``lhs <relation> rhs`` (the numeric sides, and the goal of its checked
proof chain when it has one):

``scaled``
    the right side scaled by 1 ∓ 10⁻³ in the wrong direction (tighter: ``rhs − 10⁻³|rhs|``
    for ``<=``, ``rhs + 10⁻³|rhs|`` for ``>=`` and ``==``);
``flipped``
    the relation reversed (``<=`` ↔ ``>=``; not for ``==``);
``dropped-term:<k>``
    one term of the right side of the proof's goal removed (only where that side is a sum);
``dropped-hypothesis:<name>``
    one hypothesis removed: from the proof's context (the kernel re-checks the chain without
    it), and, where the claim has a drop demonstration of that name, judged by it. A chain
    that still checks is a defect only when the drop demonstration shows the hypothesis is
    needed; otherwise the hypothesis is superfluous and the row says so (``undecided``).

A mutant is judged by the proof kernel (its mutated chain must not check) and by the
numeric methods of the reading (Hypothesis, sweep, Monte Carlo) on the mutated sides; the
interval certificate is not re-run (its bounds are fixed in code). Verdicts:

``falsified``
    a counterexample to the mutated statement: the mutant is killed;
``undecided``
    neither a check nor a counterexample, with the reason (e.g. the bound is not attained,
    so a 10⁻³ tightening survives the search; or the mutated statement has no numeric form);
``proved``
    the kernel checked the mutated chain: a defect of the checker (so is a conflict).

>>> MUTANT_KINDS
('scaled', 'flipped', 'dropped-term', 'dropped-hypothesis')
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import numpy as np
import sympy as sp

from attnbounds.claims.base import Claim, Estimate, Reading, Sides
from attnbounds.engine.budget import Budget
from attnbounds.engine.rows import _short
from attnbounds.engine.run import judge_hypothesis_drop, judge_reading, resolve_ids, resolve_budget

__all__ = ["MUTANT_KINDS", "DELTA", "MutantRow", "MutationReport", "run_mutants"]

MUTANT_KINDS = ("scaled", "flipped", "dropped-term", "dropped-hypothesis")
#: The relative size of the ``scaled`` mutation.
DELTA = 1e-3
_FLIP = {"<=": ">=", ">=": "<="}
_SCALE = {"<=": sp.Rational(999, 1000), ">=": sp.Rational(1001, 1000), "==": sp.Rational(1001, 1000)}


@dataclass
class MutantRow:
    """One mutant of one reading and its verdict (``reason`` says why; ``defect`` marks a
    checker defect)."""

    reading: str
    mutant: str
    description: str
    verdict: str = "undecided"
    reason: str = ""
    defect: bool = False

    def to_dict(self) -> dict:
        return {"reading": self.reading, "mutant": self.mutant, "description": self.description,
                "verdict": self.verdict, "reason": self.reason}


@dataclass
class MutationReport:
    """The mutants' rows, the proved/certified readings mutated, and the readings skipped
    (reading id -> its weaker verdict)."""

    rows: list = field(default_factory=list)
    readings: list = field(default_factory=list)
    skipped: dict = field(default_factory=dict)

    @property
    def defects(self) -> list[MutantRow]:
        return [r for r in self.rows if r.defect or r.verdict in ("proved", "certified")]

    def summary(self) -> dict:
        n = len(self.rows)
        counts = {v: sum(1 for r in self.rows if r.verdict == v) for v in ("falsified", "undecided", "proved", "certified", "holds")}
        return {
            "readings": len(self.readings),
            "mutants": n,
            **counts,
            "kill_rate": (counts["falsified"] / n) if n else None,
            "defects": [f"{r.reading} {r.mutant}" for r in self.defects],
            "skipped": dict(self.skipped),
        }

    def to_dict(self) -> dict:
        return {"rows": [r.to_dict() for r in self.rows], "summary": self.summary()}


# ----------------------------------------------------------------------------- mutated sides


def _tighter(rhs, lhs, relation):
    rhs = np.asarray(rhs, dtype=float)
    step = DELTA * np.abs(rhs)
    return rhs - step if relation == "<=" else rhs + step


def _scaled_reading(reading: Reading) -> Reading:
    rel = reading.relation
    sides = reading.sides

    def scaled_sides(instance):
        s = sides(instance)
        return Sides(s.lhs, _tighter(s.rhs, s.lhs, rel))

    mc = reading.montecarlo

    def scaled_mc(rng, n):
        e = mc(rng, n)
        lo, hi = _tighter(e.rhs_ci[0], None, rel), _tighter(e.rhs_ci[1], None, rel)
        return Estimate(e.lhs, e.lhs_ci, float(_tighter(e.rhs, None, rel)), (float(min(lo, hi)), float(max(lo, hi))),
                        e.samples, e.confidence, e.instance, e.detail)

    return replace(reading, sides=scaled_sides if sides else None, montecarlo=scaled_mc if mc else None,
                   symbolic=None, certify=None)


def _flipped_reading(reading: Reading) -> Reading:
    return replace(reading, relation=_FLIP[reading.relation], symbolic=None, certify=None)


# ----------------------------------------------------------------------------- the kernel side


def _parts(proof):
    from attnbounds.theory.proof import AllOf

    if proof is None or proof.chain is None or not proof.chain.complete:
        return ()
    return proof.chain.parts if isinstance(proof.chain, AllOf) else (proof.chain,)


def _kernel(parts, mutate: Callable, every: bool = False) -> tuple[bool, str]:
    """(accepted, text): accepted when the kernel checks any mutated part (a mutated goal), or
    with ``every`` when it checks every part (the whole statement without a hypothesis)."""
    reasons, done = [], []
    for k, part in enumerate(parts):
        res = mutate(part)
        if res is None:
            continue
        if res.complete and not every:
            return True, f"the kernel checked the mutated goal of part {k + 1}"
        done.append(res.complete)
        if not res.complete:
            reasons.append(res.first_failure)
    if every and done and all(done):
        return True, "the kernel checked every part without it"
    return False, ("the kernel rejects it: " + reasons[0]) if reasons else ""


# ----------------------------------------------------------------------------- judging


def _numeric(claim, mutated: Reading, budget, seed, label) -> tuple[str, str]:
    row = judge_reading(claim, mutated, budget=budget, seed=seed)
    if row.conflict:
        return "conflict", row.conflict
    if row.verdict == "falsified":
        return "falsified", row.evidence
    if row.verdict == "holds":
        return "undecided", f"no counterexample to the {label} statement ({row.evidence})"
    return row.verdict, row.evidence


def _judge(row: MutantRow, kernel: tuple[bool, str], numeric: tuple[str, str] | None, no_numeric: str = ""):
    accepted, ktext = kernel
    if accepted:
        row.verdict, row.defect = "proved", True
        row.reason = _short(f"DEFECT: {ktext}", 300)
        return row
    if numeric is None:
        row.verdict = "undecided"
        row.reason = _short("; ".join(t for t in (ktext, no_numeric) if t), 300)
        return row
    verdict, text = numeric
    if verdict == "conflict":
        row.verdict, row.defect, row.reason = "undecided", True, _short(f"DEFECT (conflict): {text}", 300)
    elif verdict in ("proved", "certified"):
        row.verdict, row.defect, row.reason = verdict, True, _short(f"DEFECT: {text}", 300)
    else:
        row.verdict = verdict
        row.reason = _short("; ".join(t for t in (text, ktext) if t), 300)
    return row


def mutate_reading(claim: Claim, reading: Reading, rid: str, budget: Budget, seed: int = 0) -> list[MutantRow]:
    """Every mutant of one (proved or certified) reading, judged."""
    proof = reading.symbolic() if reading.symbolic is not None else None
    parts = _parts(proof)
    rel = reading.relation
    out: list[MutantRow] = []
    numeric_ok = reading.sides is not None or reading.montecarlo is not None

    # scaled
    row = MutantRow(rid, "scaled", f"rhs scaled by 1 {'-' if rel == '<=' else '+'} {DELTA:g} (tighter)")
    kernel = _kernel(parts, lambda p: p.chain.prove(p.goal[0], p.goal[1], p.goal[2] * _SCALE[p.goal[1]]))
    out.append(_judge(row, kernel, _numeric(claim, _scaled_reading(reading), budget, seed, "tightened") if numeric_ok else None,
                      "the reading has no numeric sides"))

    # flipped
    if rel in _FLIP:
        row = MutantRow(rid, "flipped", f"relation {rel} replaced by {_FLIP[rel]}")
        kernel = _kernel(parts, lambda p: p.chain.prove(p.goal[0], _FLIP.get(p.goal[1], p.goal[1]), p.goal[2]))
        out.append(_judge(row, kernel, _numeric(claim, _flipped_reading(reading), budget, seed, "flipped") if numeric_ok else None,
                          "the reading has no numeric sides"))

    # dropped terms of the goal's right side
    for k, part in enumerate(parts):
        rhs = part.goal[2]
        if not isinstance(rhs, sp.Add):
            continue
        for j, term in enumerate(rhs.args):
            row = MutantRow(rid, f"dropped-term:{k + 1}.{j + 1}", f"term {sp.sstr(term)} dropped from the rhs of part {k + 1}")
            kernel = _kernel((part,), lambda p, t=term: p.chain.prove(p.goal[0], p.goal[1], p.goal[2] - t))
            out.append(_judge(row, kernel, None, "the numeric sides have no form without this term"))

    # dropped hypotheses: those of the proof's context, and the claim's own
    drops = {h.name: h for h in claim.hypotheses if h.drop is not None}
    names = []
    for part in parts:
        from attnbounds.theory.proof import Lemma

        names += [n for n, h in part.chain.ctx.hypotheses.items() if not isinstance(h, Lemma) and not n.startswith("definition")]
    names = list(dict.fromkeys(names + list(drops)))
    for name in names:
        row = MutantRow(rid, f"dropped-hypothesis:{name}", f"hypothesis {name!r} removed")
        in_ctx = [p for p in parts if name in p.chain.ctx.hypotheses]
        kernel = _kernel(parts, lambda p, n=name: p.chain.prove(*p.goal, ctx=p.chain.ctx.without(n))
                         if n in p.chain.ctx.hypotheses else p, every=True)
        if not in_ctx and parts:
            kernel = (False, "the proof does not name it (it is built into the proof's setting)")
        numeric = None
        if name in drops:
            drow = judge_hypothesis_drop(claim, drops[name], budget=budget)
            numeric = ("falsified", drow.evidence) if drow.verdict == "falsified" else (drow.verdict, drow.evidence)
        if kernel[0] and (numeric is None or numeric[0] != "falsified"):
            # the chain checks without it and nothing shows it is needed: the statement holds
            # without this hypothesis (a superfluous hypothesis), not a checker defect
            row.verdict = "undecided"
            row.reason = "the proof checks without it and no drop demonstration needs it: the hypothesis is superfluous"
            out.append(row)
            continue
        if kernel[0]:
            row.verdict, row.defect = "undecided", True
            row.reason = _short(f"DEFECT (conflict): the kernel checks the proof without {name!r}, but {numeric[1]}", 300)
            out.append(row)
            continue
        out.append(_judge(row, kernel, numeric, "the claim has no drop demonstration for it"))
    return out


def run_mutants(
    ids: Iterable[str] | None = None,
    *,
    quick: bool = True,
    seed: int = 0,
    budget: Budget | None = None,
    claims: Iterable[Claim] | None = None,
    progress: Callable[[str], None] | None = None,
) -> MutationReport:
    """Judge the selected readings; mutate every proved or certified one and judge its mutants."""
    budget = resolve_budget(budget, quick, None)
    report = MutationReport()
    for sel in resolve_ids(ids, claims=claims):
        if sel.claim is None:
            continue
        chosen = [r for r in sel.claim.readings if sel.readings is None or r.name in sel.readings]
        for reading in chosen:
            rid = f"{sel.claim_id}:{reading.name}"
            if progress is not None:
                progress(rid)
            verdict = judge_reading(sel.claim, reading, budget=budget, seed=seed).verdict
            if verdict not in ("proved", "certified"):
                report.skipped[rid] = verdict
                continue
            report.readings.append(rid)
            report.rows.extend(mutate_reading(sel.claim, reading, rid, budget, seed))
    return report
