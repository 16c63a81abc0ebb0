r"""The step audit: a numeric search for a counterexample to every step the kernel accepted.

A ``proved`` verdict rests on the proof kernel (:mod:`attnbounds.theory.proof`): every step of
the chain, of its sub-chains (term chains, cases, cited theorems) and of its lemmas was
accepted by a named rule. The kernel's reviews found their holes where a rule's rewrite met a
binder or a derivative, one kind of node at a time. The audit checks the *outcome* instead:
each accepted step ``lhs <relation> rhs`` is handed, with the context it was checked under
(its chain's hypotheses and the step's local ones: a term's index range, a case's condition),
to the refuter (:func:`attnbounds.engine.refute.refute`), which draws values that meet the
hypotheses and looks for one that breaks the step.

The audit can only take a verdict down, never up. A counterexample to an accepted step is a
kernel bug: the symbolic method then reports a conflict, and the reading's verdict is
``undecided`` (``CONFLICT (a bug)``), not ``proved``. A search that finds nothing adds no
strength to the proof; a step with a part the refuter cannot evaluate (``Inner``, a limit, an
integral) is counted as having no numeric form, and a step searched where no draw met its
hypotheses (the refuter draws values and keeps those that meet them) as ``no_draw_met``.

>>> import sympy as sp
>>> from attnbounds.theory.proof import Chain, Context, by
>>> x = sp.Symbol("x", positive=True)
>>> res = Chain(x**2 + 1, Context({})).ge(2 * x, by.algebra()).prove(x**2 + 1, ">=", 2 * x)
>>> got = audit_chain(res)
>>> (got.steps, got.searched, got.counterexamples)  # the step is also the goal: searched once
(1, 1, 0)
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import sympy as sp

__all__ = ["StepAudit", "Audit", "audit_chain", "audit_proof", "AUDIT_BATCH"]

#: Draws per batch of the refuter's search (the budget's ``audit`` draws are split into such batches).
AUDIT_BATCH = 200


@dataclass(frozen=True)
class StepAudit:
    """One accepted step and what the search found: ``outcome`` is ``"no counterexample"``,
    ``"no numeric form"`` or ``"counterexample"`` (``detail``: both sides and the values);
    ``met``: how many draws met the step's hypotheses (0 without a numeric form). A search
    in which no draw met them found nothing because it judged nothing."""

    rule: str
    lhs: str
    relation: str
    rhs: str
    outcome: str
    detail: str
    met: int = 0

    def text(self) -> str:
        return f"{self.rule}: {self.lhs} {self.relation} {self.rhs}: {self.detail}"


@dataclass(frozen=True)
class Audit:
    """The audit of one proof: every distinct accepted step (with its context), and each
    part's goal, once (``steps`` counts them all)."""

    results: tuple[StepAudit, ...]
    draws: int

    @property
    def steps(self) -> int:
        return len(self.results)

    @property
    def searched(self) -> int:
        return sum(r.outcome != "no numeric form" for r in self.results)

    @property
    def no_numeric_form(self) -> int:
        return sum(r.outcome == "no numeric form" for r in self.results)

    @property
    def no_draw_met(self) -> int:
        """Steps searched in which no draw met the hypotheses (the search judged nothing)."""
        return sum(r.outcome == "no counterexample" and r.met == 0 for r in self.results)

    @property
    def counterexamples(self) -> int:
        return sum(r.outcome == "counterexample" for r in self.results)

    @property
    def refuted(self) -> tuple[StepAudit, ...]:
        return tuple(r for r in self.results if r.outcome == "counterexample")

    def to_dict(self) -> dict:
        return {"steps": self.steps, "searched": self.searched, "no_numeric_form": self.no_numeric_form,
                "no_draw_met": self.no_draw_met, "counterexamples": self.counterexamples, "draws_per_step": self.draws}


def _accepted_steps(check) -> list:
    """(rule, lhs, relation, rhs, Context) of every step the kernel accepted in ``check`` (a
    ChainCheck, or an AllOf of them), then each part's goal (rule ``"goal"``: the statement
    the chain proves, under its context), each distinct one once. The steps are those
    :meth:`~attnbounds.theory.proof.Chain.prove` recorded while it checked the part; a part it
    did not issue (a copy) is checked again, recording."""
    from attnbounds.theory.proof import AllOf, accepted_steps, record_steps

    parts = check.parts if isinstance(check, AllOf) else (check,)
    got: list = []
    for part in parts:
        steps = accepted_steps(part)
        if steps is None:
            with record_steps() as rec:
                part.chain.prove(*part.goal)  # the checked chain, under the context it was checked in
            steps = tuple(rec)
        got.extend(steps)
    items = [(sc.rule, sc.lhs, sc.relation, sc.rhs, ctx) for sc, ctx in got]
    items += [("goal", lhs, "=" if rel == "==" else rel, rhs, part.chain.ctx) for part in parts
              for lhs, rel, rhs in [part.goal]]
    seen, out = set(), []
    for item in items:
        if item[1:] not in seen:
            seen.add(item[1:])
            out.append(item)
    return out


def audit_chain(check, *, seed: int = 0, draws: int = 1200) -> Audit:
    """Search every step the kernel accepts in ``check`` (a complete ChainCheck or AllOf) for a
    numeric counterexample under the context it was checked in: ``draws`` random assignments
    per step (in batches of :data:`AUDIT_BATCH`), from a stream fixed by ``seed`` and the step."""
    from attnbounds.engine.refute import NoNumericForm, refute

    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise ValueError(f"draws: must be an integer >= 1, got {draws!r}")
    batches = max(1, -(-draws // AUDIT_BATCH))
    out = []
    for rule, a, rel, b, ctx in _accepted_steps(check):
        lhs, rhs = sp.sstr(a), sp.sstr(b)
        stream = [int(seed), zlib.crc32(f"{lhs} {rel} {rhs}".encode())]
        try:
            found = refute(a, rel, b, ctx, seed=stream, batches=batches, batch=min(draws, AUDIT_BATCH))
        except NoNumericForm as exc:
            out.append(StepAudit(rule, lhs, rel, rhs, "no numeric form", str(exc)))
            continue
        outcome = "no counterexample" if found.assignment is None else "counterexample"
        out.append(StepAudit(rule, lhs, rel, rhs, outcome, found.text(), found.tried))
    return Audit(tuple(out), draws)


def audit_proof(proof, *, seed: int = 0, draws: int = 1200) -> Audit | None:
    """:func:`audit_chain` of a :class:`~attnbounds.claims.base.Proof`'s chain when it is
    complete (a proof the kernel accepted); None otherwise."""
    chain = getattr(proof, "chain", None)
    if chain is None or not chain.complete:
        return None
    return audit_chain(chain, seed=seed, draws=draws)
