"""H1 claim object: the paper's formula under independence, union bound, worst case, and why independence is needed."""

import numpy as np
import pytest

from attnbounds.claims import get
from attnbounds.claims.base import holds_relation
from attnbounds.claims.multihead import CLAIM, IDENTICAL_HEADS, mask_sides
from attnbounds.engine import Budget, judge_reading
from attnbounds.theory import derivation

SMALL = Budget(examples=25, sweep=3000, mc_samples=200, audit=200)
EXPECTED = {"transcribed": "proved", "reconstructed": "proved", "union-bound": "proved",
            "worst-case": "proved", "paper-numbers": "proved"}


def test_registry_structure_and_probe():
    assert get("H1") is CLAIM and "H1" in derivation.names()
    assert {r.name for r in CLAIM.readings} == set(EXPECTED)
    assert "head_overlap" in CLAIM.proof  # the empirical probe lives in numerics.coverage
    assert "What the full text changed" in CLAIM.proof


def test_identical_heads_break_the_formula_without_independence_and_attain_the_worst_case():
    s = mask_sides("any-heads")(IDENTICAL_HEADS)
    assert (float(s.lhs), float(s.rhs)) == (0.5, 0.75)
    hyp = next(h for h in CLAIM.hypotheses if h.name == "independent-heads")
    drop = hyp.drop()
    assert drop.status is False and (drop.lhs, drop.rhs) == (0.5, 0.75)
    got = mask_sides("any-heads")({"masks": np.asarray(drop.counterexample["masks"], dtype=bool)})
    assert not holds_relation(got, ">=")
    w = CLAIM.reading("worst-case").sides(IDENTICAL_HEADS)
    assert float(w.lhs) == float(w.rhs) == 0.5


def test_independent_sides_agree_with_simulated_heads():
    rng = np.random.default_rng(0)
    p, n = np.array([0.8, 0.8, 0.8]), 3
    s = CLAIM.reading("reconstructed").sides({"p": p, "n": n})
    draws = rng.uniform(size=(100_000, 3, n)) < 0.8
    assert float(s.lhs) == pytest.approx(draws.any(axis=1).mean(), abs=3e-3)
    assert float(s.rhs) == pytest.approx(0.992, abs=1e-12)


def test_chained_readings_are_proved():
    for name in ("paper-numbers", "union-bound", "worst-case"):
        proof = CLAIM.reading(name).symbolic()
        assert proof.status is True and proof.chain is not None and proof.chain.complete


@pytest.mark.parametrize("name", ["transcribed", "reconstructed"])
def test_the_independent_readings_are_proved_from_the_coverage_definition(name):
    import sympy as sp

    from attnbounds.theory.proof import Expect, Indicator

    proof = CLAIM.reading(name).symbolic()
    assert proof.status is True and not proof.argued and not proof.chain.assumed
    assert proof.rules == ("expect-sum", "indicator-mean", "indicator-algebra", "hypothesis", "identity")
    if name == "transcribed":  # the Discussion's p_h = p: the chain ends at 1 - (1 - p)^H itself
        p, H = sp.Symbol("p", nonnegative=True), sp.Symbol("H", integer=True, positive=True)  # p = 0 too
        assert proof.chain.goal[2] == 1 - (1 - p) ** H
    start, rel, end = proof.chain.goal  # E[(1/N) Σ_i 1[i not missed]]: c by its definition
    assert isinstance(start, Expect) and isinstance(start.args[0], sp.Sum) and start.atoms(Indicator)
    # without independence the chain breaks at the step that uses it
    dropped = proof.chain.chain.prove(start, rel, end, ctx=proof.chain.chain.ctx.without("independence"))
    assert not dropped.complete and dropped.first_failure.startswith("step 4 (hypothesis)")


def test_the_paper_reading_is_its_statement_with_equal_p():
    # the claim's transcription conditions on independence; the reading must too (it used to
    # judge the formula for any heads and so showed the paper's statement as falsified)
    assert "independent" in CLAIM.transcription and "independently" in CLAIM.reading("transcribed").statement
    rng = np.random.default_rng(0)
    inst = CLAIM.reading("transcribed").sweep(rng, 50)
    assert np.all(inst["p"] == inst["p"][:, :1])
    s = CLAIM.reading("transcribed").sides({"p": np.array([0.8, 0.8, 0.8]), "n": 3})
    assert float(s.lhs) == pytest.approx(0.992, abs=1e-12) and float(s.rhs) == pytest.approx(0.992, abs=1e-12)


def test_verdicts_and_numeric_search():
    rows = {r.name: judge_reading(CLAIM, r, budget=SMALL) for r in CLAIM.readings}
    for name, row in rows.items():
        assert row["verdict"] == EXPECTED[name], row
    for name, row in rows.items():
        assert row["conflict"] is None and row["error"] is None, row
        if EXPECTED[name] in ("proved", "holds") and CLAIM.reading(name).sweep is not None:
            assert "no counterexample" in row["detail"]["sweep"], row
    # the formula on any heads (the empirical H1 table's reference) fails for identical heads of any size:
    # two heads separating 2 of 3 tokens cover 2/3 < 1 - (1/3)^2
    same = mask_sides("any-heads")({"masks": np.array([[True, True, False], [True, True, False]])})
    assert not holds_relation(same, ">=")
