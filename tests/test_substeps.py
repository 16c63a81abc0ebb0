"""A proof's ``substeps``: the steps of the sub-chains its checked steps carry.

``steps`` counts the chain's top-level steps only; a step whose rule carries a sub-chain
(``termwise`` with a term chain, a cited lemma, ...) checks it inside. The row's proof object
now counts those sub-steps too, and the table shows them.
"""

from __future__ import annotations

import io

import sympy as sp
from rich.console import Console
from click.testing import CliRunner

from attnbounds.claims.base import Proof
from attnbounds.cli import main
from attnbounds.cli.check import proof_cell, render_table
from attnbounds.engine.meta import read_rows
from attnbounds.engine.methods import proof_summary
from attnbounds.theory.proof import AllOf, Chain, Context, by

x, M = sp.symbols("x M", positive=True)
i, n = sp.symbols("i n", integer=True, positive=True)
ai = sp.Indexed(sp.IndexedBase("alpha", positive=True), i)
SUM_X, SUM_M = sp.Sum(ai * x, (i, 1, n)), sp.Sum(ai * M, (i, 1, n))
CTX = Context({"x<=M": x <= M})


def _term(k: int) -> Chain:
    """A term chain a_i x <= a_i M of ``k`` steps (k - 1 identities, then the bound)."""
    c = Chain(ai * x, CTX)
    for _ in range(k - 1):
        c = c.eq(ai * x, by.identity())
    return c.le(ai * M, by.algebra())


def test_substeps_count_the_term_chains_of_checked_steps():
    flat = Chain(SUM_X, CTX).le(SUM_M, by.termwise(i, 1, n)).prove(SUM_X, "<=", SUM_M)
    assert flat.complete and (flat.steps, flat.substeps) == (1, 0)
    nested = Chain(SUM_X, CTX).le(SUM_M, by.termwise(i, 1, n, term=_term(3))).prove(SUM_X, "<=", SUM_M)
    assert nested.complete and (nested.steps, nested.substeps) == (1, 3)
    both = AllOf((nested, Chain(SUM_X, CTX).le(SUM_M, by.termwise(i, 1, n, term=_term(2))).prove(SUM_X, "<=", SUM_M)))
    assert (both.steps, both.substeps) == (2, 5)
    summary = proof_summary(Proof.from_chain(both, "toy"))
    assert summary["substeps"] == 5 and summary["steps"] == summary["checked"] == 2


def test_an_unchecked_step_contributes_no_checked_substeps():
    # without x <= M in the context the termwise step fails: its term chain is not counted
    bad = Chain(SUM_X, Context()).le(SUM_M, by.termwise(i, 1, n, term=_term(3))).prove(SUM_X, "<=", SUM_M)
    assert not bad.complete and bad.checked == 0 and bad.substeps == 0


def test_the_table_and_the_json_show_substeps(tmp_path):
    assert proof_cell({"steps": 4, "checked": 4, "substeps": 5, "rules": ["termwise"], "status": "checked"}) == (
        "4/4 steps (+5 sub-steps) checked: termwise")
    assert proof_cell({"steps": 4, "checked": 4, "rules": [], "status": "checked"}) == "4/4 steps checked"  # old rows
    out = tmp_path / "rows.json"
    result = CliRunner().invoke(main, ["check", "C2:bounded", "--quick", "--json", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    row = read_rows(out)[0]
    assert row["verdict"] == "proved" and row["proof"]["substeps"] >= 1, row["proof"]
    k = row["proof"]["substeps"]
    for width, shown in ((250, f"4/4 steps (+{k} sub-steps) checked"), (80, f"4/4 +{k}")):
        console = Console(file=io.StringIO(), width=width)
        render_table([row], console)
        assert shown in console.file.getvalue(), console.file.getvalue()


def test_a_step_its_rule_refused_is_not_called_argued():
    """A new user's false step p(1 - p) <= 1/5 by ``algebra`` was shown as "0/1 argued", the word
    the docs give to prose. A step the rule it names did not accept is "refused"; prose (a step
    ``by.argued``, an assumed premise) stays "argued". Neither is a proof."""
    from attnbounds.cli.check import short_proof
    from attnbounds.theory.proof import Assumed

    p = sp.Symbol("p", real=True)
    bad = Chain(p * (1 - p), Context()).le(sp.Rational(1, 5), by.algebra()).prove(p * (1 - p), "<=", sp.Rational(1, 5))
    summary = proof_summary(Proof.from_chain(bad, "toy"))
    assert summary["status"] == "refused" and short_proof(summary) == "0/1 refused"
    assert proof_cell({**summary, "rules": ["algebra"]}) == "0/1 steps checked (refused): algebra"
    missed = Chain(p, Context()).le(p, by.algebra()).prove(p, "<=", p + 1)  # every step checked, the goal not reached
    assert proof_summary(Proof.from_chain(missed, "toy"))["status"] == "refused"
    prose = Chain(p * (1 - p), Context()).le(sp.Rational(1, 4), by.argued("AM-GM")).prove(p * (1 - p), "<=", sp.Rational(1, 4))
    assert proof_summary(Proof.from_chain(prose, "toy"))["status"] == "argued"
    assumed = Chain(x, Context({"x<=1": Assumed(sp.Le(x, 1), "on the page")})).le(1, by.hypothesis("x<=1")).prove(x, "<=", 1)
    assert proof_summary(Proof.from_chain(assumed, "toy"))["status"] == "argued"
