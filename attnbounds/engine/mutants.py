"""Mutation testing of the checker: every proved or certified reading is mutated so that the
statement becomes false or unjustified, and each mutant is judged again.

Mutants of a reading ``lhs <relation> rhs`` (the numeric sides, and the goal of its checked
proof chain when it has one):

``scaled``
    the right side scaled by 1 ∓ 10⁻³ in the wrong direction (tighter: ``rhs − 10⁻³|rhs|``
    for ``<=``, ``rhs + 10⁻³|rhs|`` for ``>=`` and ``==``; a right side 0 is shifted by
    ∓ 10⁻³ instead, since scaling it would not change the statement);
``flipped``
    the relation reversed (``<=`` ↔ ``>=``; not for ``==``);
``dropped-term:<k>``
    one term of the right side of the proof's goal removed (only where that side is a sum);
``dropped-hypothesis:<name>``
    one hypothesis removed: from the proof's context (the kernel re-checks the chain without
    it), and, where the claim has a drop demonstration of that name (or of a claim hypothesis
    whose ``names`` list it), judged by it. A chain that still checks is a defect only when
    something shows the hypothesis is needed; otherwise the hypothesis is superfluous and the
    row says so (``undecided``).

A mutant is judged by the proof kernel (its mutated chain must not check), by the numeric
methods of the reading (Hypothesis, sweep, Monte Carlo) on the mutated sides, and by a
search for values of the proof's own symbols that meet the hypotheses the mutant keeps and
break its mutated goal (:mod:`attnbounds.engine.refute`; for ``scaled`` and ``flipped`` only
the first part, which carries the reading's statement). The interval certificate is not
re-run (its bounds are fixed in code). Verdicts:

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
from attnbounds.claims.normalized import _draws, draws_weights
from attnbounds.engine.budget import Budget
from attnbounds.engine.methods import _stream_seed
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
    step = np.where(rhs == 0, DELTA, DELTA * np.abs(rhs))  # a zero side is shifted, not scaled
    return rhs - step if relation == "<=" else rhs + step


def _scaled_goal(goal):
    """The goal's right side made tighter: scaled by 1 ∓ 10⁻³, or shifted by ∓ 10⁻³ where it is 0
    (scaling 0 would leave the statement unchanged)."""
    lhs, rel, rhs = goal
    if sp.sympify(rhs) == 0:
        return lhs, rel, -sp.Rational(1, 1000) if rel == "<=" else sp.Rational(1, 1000)
    return lhs, rel, rhs * _SCALE[rel]


def _scaled_reading(reading: Reading) -> Reading:
    rel = reading.relation
    sides = reading.sides

    def scaled_sides(instance):
        s = sides(instance)
        return Sides(s.lhs, _tighter(s.rhs, s.lhs, rel))

    if sides is not None and _draws(reading):  # the mutant's sides draw their weights as the reading's do (a
        # reading named with a normalizer then keeps judging with its weights, and --normalizer still applies)
        draws_weights(scaled_sides)

    mc = reading.montecarlo

    def scaled_mc(rng, n):
        e = mc(rng, n)
        lo, hi = _tighter(e.rhs_ci[0], None, rel), _tighter(e.rhs_ci[1], None, rel)
        return Estimate(e.lhs, e.lhs_ci, float(_tighter(e.rhs, None, rel)), (float(min(lo, hi)), float(max(lo, hi))),
                        e.samples, e.confidence, e.instance, e.detail)

    return replace(reading, sides=scaled_sides if sides else None, montecarlo=scaled_mc if mc else None,
                   symbolic=None, certify=None, bind=None, locate=None, domain=None)


def _flipped_reading(reading: Reading) -> Reading:
    return replace(reading, relation=_FLIP[reading.relation], symbolic=None, certify=None, bind=None, locate=None, domain=None)


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


# ----------------------------------------------------------------------------- refuting a part


def _refute_parts(parts, mutate: Callable, label: str, seed: int, drop: str | None = None,
                  mutant_id: str = "") -> tuple[str, str] | None:
    """Search a counterexample to the mutated statement of each part (:mod:`.refute`): its
    goal, mutated by ``mutate(goal) -> (lhs, relation, rhs)``, under its context (less
    ``drop``). Each search draws from its own stream, derived from the run ``seed``, a stable
    hash (CRC-32) of ``mutant_id`` (``"<reading id> <mutant>"``) and the part, so a mutant's
    verdict does not depend on which other readings or mutants run. ("falsified", text) on the first part refuted; ("conflict", text) when the
    counterexample satisfies the dropped hypothesis too (then the original part is false);
    ("undecided", text) when no part is refuted; None when no part has a numeric form."""
    from attnbounds.engine.refute import NoNumericForm, refute

    notes, any_form = [], False
    for k, part in parts:
        lhs, rel, rhs = mutate(part.goal)
        exact = _closed(lhs, rel, rhs)
        if exact is not None:  # a statement about numbers only: decided exactly
            any_form = True
            text = f"{sp.sstr(lhs)} {rel} {sp.sstr(rhs)}"
            if exact is False:
                return "falsified", f"the {label} statement of part {k + 1} is false exactly: not {text}"
            notes.append(f"statement still true: part {k + 1} is {text}, true exactly")
            continue
        try:
            found = refute(lhs, rel, rhs, part.chain.ctx, drop=drop, seed=_stream_seed(seed, mutant_id, f"refute:{k}"))
            if found.assignment is None:  # a rare counterexample: ten times the search, another stream
                found = refute(lhs, rel, rhs, part.chain.ctx, drop=drop, batches=240,
                               seed=_stream_seed(seed, mutant_id, f"refute:{k}:again"))
        except NoNumericForm as exc:
            notes.append(f"part {k + 1} has no numeric form ({exc})")
            continue
        any_form = True
        if found.assignment is not None:
            if drop is not None and found.dropped_violated is False:
                return "conflict", f"part {k + 1} fails with every hypothesis met: {found.text()}"
            where = ("" if drop is None else f" without {drop!r} (which fails there)" if found.dropped_violated
                     else f" without {drop!r} (which reads a value the search did not draw there: neither met nor failed)")
            return "falsified", _short(f"counterexample to the {label} statement of part {k + 1}{where}: {found.text()}", 400)
        notes.append(f"part {k + 1}: {found.text()}")
    if not any_form:
        return None
    return "undecided", "; ".join(notes)


def _weaker_without(part, term) -> str | None:
    """Why dropping ``term`` from the goal's right side only weakens the statement (the term is
    <= 0 in an upper bound, >= 0 in a lower bound, proved exactly from the part's hypotheses),
    or None."""
    from attnbounds.theory.proof import prove_nonnegative

    rel = part.goal[1]
    if rel not in ("<=", ">="):
        return None
    sign = -term if rel == "<=" else term
    rels = part.chain.ctx.relations()
    coeff, rest = sp.sympify(sign).as_coeff_Mul()
    # c log u >= 0 where u >= 1 (c > 0) or u <= 1 (c < 0), u > 0 proved: the log's own sign from its argument's
    logged = (isinstance(rest, sp.log) and coeff != 0 and prove_nonnegative(rest.args[0], rels)
              and prove_nonnegative(rest.args[0] - 1 if coeff > 0 else 1 - rest.args[0], rels))
    if logged or prove_nonnegative(sign, rels):
        return (f"{sp.sstr(term)} {'<=' if rel == '<=' else '>='} 0 under the hypotheses (proved exactly), "
                f"so the mutated bound is {'larger' if rel == '<=' else 'smaller'}: a weaker statement")
    return None


def _closed(lhs, rel, rhs) -> bool | None:
    """The exact truth of a goal without free symbols (None when it has some, or SymPy
    cannot decide)."""
    d = sp.sympify(lhs) - sp.sympify(rhs)
    if d.free_symbols or d.atoms(sp.Function):
        return None
    d = sp.Rational(d) if d.is_Float else sp.simplify(d)  # a Float's exact value (nsimplify took 1e-100 for 0)
    sign = {"<=": d.is_nonpositive, ">=": d.is_nonnegative, "==": d.is_zero, "=": d.is_zero}[rel]
    return None if sign is None else bool(sign)


def _implied(ctx, name: str) -> str | None:
    """How hypothesis ``name`` follows from the others of ``ctx`` (their equations used as
    substitutions, their inequalities by the kernel's exact sign prover), or None."""
    from attnbounds.engine.refute import _solve_equations
    from attnbounds.theory.proof import FACTS, Lemma, _nonneg_form, prove_nonnegative

    h = ctx.hypotheses.get(name)
    if h is None or isinstance(h, FACTS + (Lemma,)):
        return None
    kept = ctx.without(name)
    rels = [r for k in kept.hypotheses for r in kept.relation(k)]
    derived, _ = _solve_equations([r for r in rels if isinstance(r, sp.Eq)], set())
    sub = lambda e: e.subs(dict(derived))  # noqa: E731
    others = [sub(r) for r in rels if not isinstance(r, sp.Eq)]
    for r in (h if isinstance(h, tuple) else (h,)):
        if isinstance(r, sp.Eq):
            if not is_identity_safe(sub(r.lhs), sub(r.rhs)):
                return None
            continue
        form = _nonneg_form(r)
        if form is None or not prove_nonnegative(sub(form[0]), others, strict=form[1]):
            return None
    return "it follows from the other hypotheses (" + ", ".join(kept.hypotheses) + "), proved exactly"


def is_identity_safe(a, b) -> bool:
    from attnbounds.theory.proof import is_identity

    return is_identity(a, b, deep=True)


# ----------------------------------------------------------------------------- judging


def _numeric(claim, mutated: Reading, budget, seed, label, mutant_id: str) -> tuple[str, str]:
    """The mutated reading judged by its numeric methods, on streams derived from ``seed`` and
    ``mutant_id``."""
    row = judge_reading(claim, mutated, budget=budget, seed=seed, stream_id=mutant_id)
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


def _drop_for_reading(claim, reading, demo, budget) -> tuple[str, str]:
    """The claim's drop demonstration of ``demo`` judged for *this* reading: its instance must
    be a counterexample to this reading's statement, evaluated by the reading's own sides (a
    demonstration made for another reading of the claim proves nothing about this one)."""
    from attnbounds.claims.base import holds_relation

    drow = judge_hypothesis_drop(claim, demo, budget=budget)
    if drow.conflict:
        return "conflict", drow.conflict
    if drow.verdict != "falsified":
        return "undecided", f"the drop demonstration of {demo.name!r} does not refute: {drow.evidence}"
    try:
        instance = demo.drop().counterexample
    except Exception as exc:  # noqa: BLE001 -- judged above; a second run failing is reported
        return "undecided", f"the drop demonstration of {demo.name!r} failed on a second run: {exc}"
    if reading.sides is None or not isinstance(instance, dict):
        return "undecided", (f"the drop demonstration of {demo.name!r} ({drow.evidence}) cannot be evaluated by this "
                             "reading (no numeric sides, or not an instance)")
    try:
        sides = reading.sides(instance)
        ok = bool(np.all(holds_relation(sides, reading.relation, reading.rtol, reading.atol)))
    except Exception as exc:  # noqa: BLE001 -- an instance outside this reading's domain
        return "undecided", f"the drop demonstration's instance is outside this reading ({type(exc).__name__}: {exc})"
    lhs, rhs = (float(np.asarray(v, dtype=float).ravel()[0]) for v in (sides.lhs, sides.rhs))
    if ok:
        return "undecided", (f"the drop demonstration of {demo.name!r} is not a counterexample to this reading: "
                             f"lhs={lhs:.6g}, rhs={rhs:.6g} satisfy it")
    return "falsified", f"the drop demonstration's instance breaks this reading: {drow.evidence}; this reading: lhs={lhs:.6g}, rhs={rhs:.6g}"


def _first(*judgements):
    """The first falsifying (or conflicting) judgement, else the undecided texts joined;
    None entries are skipped; None when all are None."""
    seen = [j for j in judgements if j is not None]
    for j in seen:
        if j[0] in ("falsified", "conflict", "proved", "certified"):
            return j
    if not seen:
        return None
    return "undecided", "; ".join(t for _, t in seen if t)


def mutate_reading(claim: Claim, reading: Reading, rid: str, budget: Budget, seed: int = 0) -> list[MutantRow]:
    """Every mutant of one (proved or certified) reading, judged.

    Each mutant is judged by the kernel (the mutated chain must not check), by the reading's
    numeric methods on the mutated sides where it has them, and by a search for values of the
    proof's symbols that meet the (kept) hypotheses and break the mutated goal
    (:func:`attnbounds.engine.refute.refute`); the rates stay honest: a mutant without a
    counterexample stays ``undecided`` with the reason.
    """
    from attnbounds.theory.proof import Lemma

    proof = reading.symbolic() if reading.symbolic is not None else None
    parts = _parts(proof)
    indexed = list(enumerate(parts))
    main = indexed[:1]  # the first part carries the reading's statement (the others prove its facts)
    rel = reading.relation
    out: list[MutantRow] = []
    numeric_ok = reading.sides is not None or reading.montecarlo is not None

    # scaled
    row = MutantRow(rid, "scaled", f"rhs scaled by 1 {'-' if rel == '<=' else '+'} {DELTA:g} (tighter)")
    kernel = _kernel(parts, lambda p: p.chain.prove(*_scaled_goal(p.goal)))
    mid = f"{rid} scaled"
    numeric = _numeric(claim, _scaled_reading(reading), budget, seed, "tightened", mid) if numeric_ok else None
    if numeric is None or numeric[0] == "undecided":
        numeric = _first(numeric, _refute_parts(main, _scaled_goal, "tightened", seed, mutant_id=mid))
    out.append(_judge(row, kernel, numeric, "the reading has no numeric sides"))

    # flipped
    if rel in _FLIP:
        row = MutantRow(rid, "flipped", f"relation {rel} replaced by {_FLIP[rel]}")
        kernel = _kernel(parts, lambda p: p.chain.prove(p.goal[0], _FLIP.get(p.goal[1], p.goal[1]), p.goal[2]))
        mid = f"{rid} flipped"
        numeric = _numeric(claim, _flipped_reading(reading), budget, seed, "flipped", mid) if numeric_ok else None
        if numeric is None or numeric[0] == "undecided":
            numeric = _first(numeric, _refute_parts(main, lambda g: (g[0], _FLIP.get(g[1], g[1]), g[2]), "flipped", seed,
                                                    mutant_id=mid))
        out.append(_judge(row, kernel, numeric, "the reading has no numeric sides"))

    # dropped terms of the goal's right side
    for k, part in indexed:
        rhs = part.goal[2]
        if not isinstance(rhs, sp.Add):
            continue
        for j, term in enumerate(rhs.args):
            row = MutantRow(rid, f"dropped-term:{k + 1}.{j + 1}", f"term {sp.sstr(term)} dropped from the rhs of part {k + 1}")
            kernel = _kernel((part,), lambda p, t=term: p.chain.prove(p.goal[0], p.goal[1], p.goal[2] - t))
            numeric = _refute_parts([(k, part)], lambda g, t=term: (g[0], g[1], g[2] - t), "mutated", seed,
                                    mutant_id=f"{rid} {row.mutant}")
            weaker = _weaker_without(part, term)
            if not kernel[0] and weaker and (numeric is None or numeric[0] != "falsified"):
                row.verdict = "undecided"
                row.reason = _short(f"statement still true without the term: {weaker} ({kernel[1]})", 300)
                out.append(row)
                continue
            out.append(_judge(row, kernel, numeric, "the part has no numeric form"))

    # dropped hypotheses: those of the proof's context, and the claim's own that are hypotheses of this reading
    mine = [h for h in claim.hypotheses if h.drop is not None and h.applies_to(reading.name)]
    drops = {h.name: h for h in mine}
    aliases = {n: h for h in mine for n in getattr(h, "names", ())}
    names = []
    for part in parts:
        names += [n for n, h in part.chain.ctx.hypotheses.items() if not isinstance(h, Lemma) and not n.startswith("definition")]
    # a claim hypothesis the proof names otherwise (H1's independent-heads is the chains' "independence")
    # is dropped once, under the proof's name, where both its demonstration and the search judge it
    named = {h.name for h in mine if any(n in names for n in getattr(h, "names", ()))}
    names = list(dict.fromkeys(names + [n for n in drops if n not in named]))
    for name in names:
        row = MutantRow(rid, f"dropped-hypothesis:{name}", f"hypothesis {name!r} removed")
        in_ctx = [(k, p) for k, p in indexed if name in p.chain.ctx.hypotheses]
        kernel = _kernel(parts, lambda p, n=name: p.chain.prove(*p.goal, ctx=p.chain.ctx.without(n))
                         if n in p.chain.ctx.hypotheses else p, every=True)
        if not in_ctx and parts:
            kernel = (False, "the proof does not name it (it is built into the proof's setting)")
        numeric = None
        demo = drops.get(name) or aliases.get(name)
        if demo is not None:
            alias = "" if demo.name == name else f"{name!r} is the proof's form of the claim's hypothesis {demo.name!r}: "
            verdict, text = _drop_for_reading(claim, reading, demo, budget)
            numeric = (verdict, alias + text)
        if numeric is None or numeric[0] != "falsified":
            numeric = _first(numeric, _refute_parts(in_ctx, lambda g: g, "mutated", seed, drop=name,
                                                    mutant_id=f"{rid} {row.mutant}"))
        if kernel[0] and (numeric is None or numeric[0] != "falsified"):
            # the chain checks without it and nothing shows it is needed: the statement holds
            # without this hypothesis (a superfluous hypothesis), not a checker defect
            row.verdict = "undecided"
            row.reason = _short(f"statement still true without {name!r}: the kernel checks the whole proof without it "
                                "(a superfluous hypothesis)" + (f"; {numeric[1]}" if numeric else ""), 300)
            out.append(row)
            continue
        if (numeric is None or numeric[0] != "falsified") and in_ctx:
            # the kernel rejects the chain, but the statement may still be true: say so where
            # each part either checks without the hypothesis or implies it from the others
            whys = []
            for k, p in in_ctx:
                if p.chain.prove(*p.goal, ctx=p.chain.ctx.without(name)).complete:
                    whys.append(f"part {k + 1} checks without it")
                    continue
                how = _implied(p.chain.ctx, name)
                if how is None:
                    whys = []
                    break
                whys.append(f"in part {k + 1} {how}")
            if whys:
                row.verdict = "undecided"
                row.reason = _short(f"statement still true without {name!r}: " + "; ".join(whys) + f" ({kernel[1]})", 400)
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
            verdict = judge_reading(sel.claim, reading, budget=budget, seed=seed, claim_id=sel.claim_id).verdict
            if verdict not in ("proved", "certified"):
                report.skipped[rid] = verdict
                continue
            report.readings.append(rid)
            report.rows.extend(mutate_reading(sel.claim, reading, rid, budget, seed))
    return report
