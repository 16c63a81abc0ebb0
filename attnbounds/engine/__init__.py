"""The verdict engine: judge every reading of every claim with every method it has.

Each :class:`~attnbounds.claims.base.Reading` carries up to five methods (see
:mod:`attnbounds.claims.base`). The engine is split by concern, one module each:

:mod:`~attnbounds.engine.budget`
    how much work each method gets, counted in work, not seconds
    (:class:`~attnbounds.engine.budget.Budget`, :data:`~attnbounds.engine.budget.QUICK_BUDGET`),
    and the wall-clock safety net whose firing every row reports (``timed_out``);
:mod:`~attnbounds.engine.methods`
    the methods themselves (:func:`~attnbounds.engine.methods.run_exact`,
    :func:`~attnbounds.engine.methods.run_strategy`, :func:`~attnbounds.engine.methods.run_sweep`,
    :func:`~attnbounds.engine.methods.run_montecarlo`), each returning a
    :class:`~attnbounds.engine.methods.MethodOutcome`;
:mod:`~attnbounds.engine.audit`
    the step audit of a checked proof (:func:`~attnbounds.engine.audit.audit_proof`): every
    step the kernel accepted, searched for a numeric counterexample under its context; one
    found makes the symbolic method a conflict;
:mod:`~attnbounds.engine.tie`
    :func:`~attnbounds.engine.tie.tie`: a checked proof's goal evaluated at the reading's
    instances through ``Reading.bind``; a goal that is not the reading's sides is a conflict;
:mod:`~attnbounds.engine.verdict`
    :func:`~attnbounds.engine.verdict.combine`: the strongest verdict the outcomes support
    (the verdict rules are documented there), and :func:`~attnbounds.engine.verdict.judge_drop`
    for hypothesis drops;
:mod:`~attnbounds.engine.rows`
    the typed :class:`~attnbounds.engine.rows.Row` and its JSON form
    (:meth:`~attnbounds.engine.rows.Row.to_dict`, :data:`~attnbounds.engine.rows.ROW_FIELDS`);
:mod:`~attnbounds.engine.meta`
    what a run was (version, git commit, seed, budget, ...): the ``meta`` of ``check --json``,
    and :func:`~attnbounds.engine.meta.read_rows`, which reads its rows (old files too);
:mod:`~attnbounds.engine.run`
    the run loop: :func:`~attnbounds.engine.run.resolve_ids`,
    :func:`~attnbounds.engine.run.judge_reading`,
    :func:`~attnbounds.engine.run.judge_hypothesis_drop` and :func:`~attnbounds.engine.run.check`.

Every public name of the submodules is importable from :mod:`attnbounds.engine`.

A symbolic proof is ``proved`` only when the proof kernel checked every step of its chain
and the chain's goal is tied to the reading by ``Reading.bind`` (the goal evaluated at the
reading's instances): the chain's goal is its author's, and without the tie nothing a machine
checked links it to the reading, so the verdict is the numeric evidence's, ``holds`` at most
(here Hypothesis and a full sweep of the reading's sides without a counterexample), with the
untied proof named; a bare ``Proof(True, ...)`` is an argued proof, and the verdict falls back
to the other evidence (here none, so ``undecided``):

>>> import sympy as sp
>>> from attnbounds.claims.base import Proof, Reading, Sides
>>> from attnbounds.theory.proof import Chain, by
>>> p = sp.Symbol("p")
>>> chain = Chain(sp.Rational(1, 4) - p * (1 - p)).eq((p - sp.Rational(1, 2)) ** 2, by.identity())
>>> goal = (sp.Rational(1, 4) - p * (1 - p), "==", (p - sp.Rational(1, 2)) ** 2)
>>> sides = lambda i: Sides(0.25 - i["p"] * (1 - i["p"]), (i["p"] - 0.5) ** 2)
>>> sweep = lambda rng, n: {"p": rng.uniform(-2, 2, n)}
>>> r = Reading("t", "t", "t", symbolic=lambda: Proof.from_chain(chain.prove(*goal), "expand"),
...             sides=sides, sweep=sweep, strategy=lambda: None)
>>> numeric = [MethodOutcome("strategy", "pass", "no counterexample", count=200),
...            MethodOutcome("sweep", "pass", "no counterexample", count=Budget().sweep)]
>>> combine(r, [run_exact(r, "symbolic", Budget()), *numeric], Budget()).verdict  # no bind: untied
'holds'
>>> combine(r, [run_exact(r, "symbolic", Budget()), numeric[1]], Budget()).verdict  # a sweep alone ties nothing
'undecided'
>>> tied = Reading("t", "t", "t", symbolic=r.symbolic, sides=sides, sweep=sweep, bind=lambda i: {p: i["p"]})
>>> combine(tied, [run_exact(tied, "symbolic", Budget()), *numeric], Budget()).verdict
'proved'
>>> bare = Reading("t", "t", "t", symbolic=lambda: Proof(True, "expand(...) == 0"))
>>> outcome = run_exact(bare, "symbolic", Budget())
>>> outcome.proof, combine(bare, [outcome], Budget()).verdict
({'steps': 1, 'checked': 0, 'substeps': 0, 'rules': ['argued'], 'status': 'argued'}, 'undecided')
"""

from __future__ import annotations

from attnbounds.engine.audit import Audit, StepAudit, audit_chain, audit_proof
from attnbounds.engine.budget import DEFAULT_BUDGET, HANG_GUARD_SECONDS, QUICK_BUDGET, Budget, budget_for
from attnbounds.engine.methods import (
    MethodOutcome,
    MethodTimeout,
    wall_clock_limit,
    montecarlo_outcome,
    run_exact,
    run_montecarlo,
    run_strategy,
    run_sweep,
)
from attnbounds.engine.meta import CHECK_FORMAT, read_rows, run_meta
from attnbounds.engine.rows import NORMALIZER_FIELDS, ROW_FIELDS, Row, jsonable
from attnbounds.engine.tie import tie
from attnbounds.engine.run import (
    CheckInterrupted,
    check,
    judge_hypothesis_drop,
    judge_reading,
    judge_under,
    resolve_ids,
    valid_ids,
)
from attnbounds.engine.verdict import Judgement, combine, judge_drop

__all__ = [
    "Audit",
    "StepAudit",
    "audit_chain",
    "audit_proof",
    "tie",
    "Budget",
    "DEFAULT_BUDGET",
    "QUICK_BUDGET",
    "HANG_GUARD_SECONDS",
    "MethodOutcome",
    "Judgement",
    "CheckInterrupted",
    "MethodTimeout",
    "wall_clock_limit",
    "Row",
    "budget_for",
    "resolve_ids",
    "valid_ids",
    "check",
    "judge_reading",
    "judge_under",
    "judge_hypothesis_drop",
    "judge_drop",
    "run_exact",
    "run_strategy",
    "run_sweep",
    "run_montecarlo",
    "montecarlo_outcome",
    "combine",
    "jsonable",
    "ROW_FIELDS",
    "NORMALIZER_FIELDS",
    "CHECK_FORMAT",
    "read_rows",
    "run_meta",
]
