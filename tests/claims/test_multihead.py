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


def test_the_independence_proofs_are_tied_on_a_finite_space_of_head_patterns():
    """H1's chains are evaluated on the setting built as a finite probability space (every
    pattern of which head separates which token): the mean is the sides' enumeration, and
    P(missed(i)) = Π(1 − p_h) holds there. Identical heads (every head separates the same
    tokens, one pattern per head-0 pattern) break the independence the chain assumes."""
    import dataclasses

    from attnbounds import claims
    from attnbounds.claims import multihead as mh
    from attnbounds.claims.base import SPACE
    from attnbounds.engine.tie import tie

    for name, chain in (("H1:reconstructed", "independent"), ("H1:transcribed", "independent_equal_p")):
        _, r = claims.reading(name)
        proof = r.symbolic()
        got = tie(r, proof)
        assert got["status"] == "tied" and got["hypotheses"] == ["independence"], got
        higher = dataclasses.replace(r, sides=lambda i, r=r: (lambda s: type(s)(s.lhs, s.rhs * 1.001))(r.sides(i)))
        assert tie(higher, proof)["status"] == "untied"

        def identical(instance, chain=chain):
            b = mh._bind_independent(chain)(instance)
            H, n = len(np.atleast_1d(instance["p"])), int(instance["n"])
            pats = np.array(list(__import__("itertools").product((0, 1), repeat=H * n)), dtype=bool).reshape(-1, H, n)
            same = np.all(pats == pats[:, :1], axis=1).all(axis=1)  # the heads agree on every token
            prob = np.where(same, b[SPACE], 0.0)
            return {**b, SPACE: prob / prob.sum()}

        assert tie(dataclasses.replace(r, bind=identical), proof)["status"] == "untied"


@pytest.mark.parametrize("name", ["union-bound", "worst-case"])
def test_the_any_heads_proofs_are_tied_on_the_uniform_token_of_the_top_set(name):
    """The union and worst-case chains read fractions as probabilities of a uniform token U:
    on that space (S(h) the head's mask) their goals are the sides' counts. A right side off by
    0.1%, or (worst case) a head g other than the largest's, does not tie."""
    import dataclasses

    from attnbounds import claims
    from attnbounds.engine.tie import tie

    _, r = claims.reading(f"H1:{name}")
    proof = r.symbolic()
    got = tie(r, proof)
    assert got["status"] == "tied", got
    assert got["hypotheses"] == (["g<=H"] if name == "worst-case" else []), got
    off = dataclasses.replace(r, sides=lambda i, r=r: (lambda s: type(s)(s.lhs, s.rhs * 1.001))(r.sides(i)))
    assert tie(off, proof)["status"] == "untied"
    if name == "worst-case":
        def smallest(instance, bind=r.bind):
            b = bind(instance)
            g = next(k for k in b if str(k) == "g")
            return {**b, g: int(np.argmin(np.asarray(instance["masks"]).sum(axis=-1))) + 1}

        assert tie(dataclasses.replace(r, bind=smallest), proof)["status"] == "untied"
