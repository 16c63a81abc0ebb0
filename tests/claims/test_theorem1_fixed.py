"""Tests for attnbounds.claims.theorem1_fixed: sides vs a naive evaluator, witnesses, verdicts."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import example, given, settings

from attnbounds.claims import get
from attnbounds.claims import theorem1_fixed as t1
from attnbounds.claims.base import Sides, holds_relation
from attnbounds.engine import Budget, judge_reading, judge_hypothesis_drop
from attnbounds.engine.tie import tie

CLAIM = get("T1i")
SMALL = Budget(examples=25, sweep=3000, mc_samples=200, audit=200)


def naive_terms(w, x, n):
    top = sorted(range(len(w)), key=lambda i: (-w[i], i))[:n]
    rest = [i for i in range(len(w)) if i not in top]
    s = sum(w[j] * x[j] for j in top)
    d = sum(np.linalg.norm(w[i] * x[i] - s) for i in rest)
    abar = sum(w[j] for j in top)
    d1 = max(np.linalg.norm(x[i] - x[j]) for i in rest for j in top)  # the paper's d_1
    d1_norm = max(np.linalg.norm(x[i]) for i in rest)  # the old reading
    R = max(np.linalg.norm(x[j]) for j in top)
    return d, abar, d1, d1_norm, R, len(w) - n


def naive_rhs(reading, w, x, n):
    d, a, d1, d1n, R, k = naive_terms(w, x, n)
    return {
        "transcribed": (1 - a) * d1 + R * a * k - (1 - a),
        "reconstructed": (1 - a) * d1 + R * (k * a - (1 - a)),
        "transcribed-d1-norm": (1 - a) * d1n + R * a * k - (1 - a),
        "reconstructed-d1-norm": (1 - a) * d1n + R * a * k,
    }[reading]


EXPECTED = {
    "transcribed": "falsified",
    "transcribed-sphere": "proved",
    "transcribed-if-R-ge-1": "proved",
    "reconstructed": "proved",
    "sharp": "proved",
    "transcribed-d1-norm": "falsified",
    "reconstructed-d1-norm": "proved",
}


def test_claim_structure():
    assert CLAIM is t1.CLAIM and CLAIM.id == "T1i"
    assert {r.name for r in CLAIM.readings} == set(EXPECTED)
    assert CLAIM.derivations == ("T1i",) and "Sharpness" in CLAIM.proof
    assert "What the full text changed" in CLAIM.proof
    assert set(CLAIM.symbolic_form()) >= {"reconstructed", "transcribed", "d1_norm"}


@pytest.mark.parametrize("reading", ["transcribed", "reconstructed", "transcribed-d1-norm", "reconstructed-d1-norm"])
def test_batched_sides_match_the_naive_evaluator(reading):
    batch = t1.sweep_instances(np.random.default_rng(3), 40)
    sides = CLAIM.reading(reading).sides(batch)
    for k in range(40):
        w, x = batch["weights"][k], batch["x"][k]
        assert sides.lhs[k] == pytest.approx(naive_terms(w, x, batch["n"])[0], rel=1e-12)
        assert sides.rhs[k] == pytest.approx(naive_rhs(reading, w, x, batch["n"]), rel=1e-12, abs=1e-12)


@settings(max_examples=60)
@given(t1._configs())
@example({"weights": np.array([0.5, 0.5]), "x": np.array([[0.0], [0.0]]), "n": 1})  # ties, zero embeddings
@example({"weights": np.array([1.0, 0.0, 0.0]), "x": np.eye(3), "n": 2})  # one-hot
def test_reconstructed_bound_holds(inst):
    assert holds_relation(t1.sides_reconstructed(inst), "<=")
    assert holds_relation(t1.sides_reconstructed_d1_norm(inst), "<=")


def test_new_bound_is_never_weaker_than_the_old_one_rewritten_in_the_paper_d1():
    # ‖x_i‖ ≤ d_1 + R, so the old bound with d_1_norm ≤ d_1 + R is at least B + (2 − ...) ; check B is below it.
    batch = t1.sweep_instances(np.random.default_rng(5), 2000)
    t = t1.bound_terms(batch)
    a, k = t["alpha_N"], t["L"] - t["n"]
    old_in_paper_terms = (1 - a) * (t["d_1"] + t["R"]) + k * a * t["R"]
    assert np.all(t1.sides_reconstructed(batch).rhs <= old_in_paper_terms + 1e-12)


def test_witnesses_attain_the_bound_to_1e_9():
    batch = CLAIM.reading("sharp").sweep(np.random.default_rng(11), 500)
    s = t1.sides_reconstructed(batch)
    np.testing.assert_allclose(s.lhs, s.rhs, rtol=1e-9, atol=1e-9)
    t = t1.bound_terms(batch)
    assert np.all(t["d_tilde"] >= 0)


def test_transcription_is_the_sharp_bound_on_the_sphere():
    batch = CLAIM.reading("transcribed-sphere").sweep(np.random.default_rng(2), 300)
    np.testing.assert_allclose(np.linalg.norm(batch["x"], axis=-1), 1.0, rtol=1e-12)
    s1, s2 = t1.sides_transcribed_sphere(batch), t1.sides_reconstructed(batch)
    np.testing.assert_allclose(s1.rhs, s2.rhs, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="norm 1"):
        t1.sides_transcribed_sphere(t1.transcription_counterexample_t1i())
    w = t1.sharpness_witness([0.4, 0.35, 0.25], 2)  # antipodal, on the sphere: equality
    s = t1.sides_transcribed_sphere(w)
    assert float(s.lhs) == pytest.approx(float(s.rhs), rel=1e-12)


def test_R_ge_1_reading_rejects_small_R_and_sweep_respects_it():
    with pytest.raises(ValueError, match="R must be >= 1"):
        t1.sides_transcribed_if_R_ge_1(t1.transcription_counterexample_t1i())
    batch = CLAIM.reading("transcribed-if-R-ge-1").sweep(np.random.default_rng(4), 500)
    assert np.all(t1.bound_terms(batch)["R"] >= 1 - 1e-9)


@pytest.mark.parametrize("reading", ["transcribed", "transcribed-d1-norm"])
def test_symbolic_counterexample_is_real(reading):
    proof = CLAIM.reading(reading).symbolic()
    assert proof.status is False
    inst = proof.counterexample
    d = naive_terms(inst["weights"], inst["x"], inst["n"])[0]
    rhs = naive_rhs(reading, inst["weights"], inst["x"], inst["n"])
    assert d == pytest.approx(proof.lhs) and rhs == pytest.approx(proof.rhs) and d > rhs


def test_old_counterexample_is_an_equality_under_the_paper_d1():
    inst = t1.transcription_counterexample_d1_norm()
    s = t1.sides_transcribed(inst)
    assert float(s.lhs) == float(s.rhs) == 1.0


def test_verdicts():
    rows = {r.name: judge_reading(CLAIM, r, budget=SMALL) for r in CLAIM.readings}
    assert {k: v["verdict"] for k, v in rows.items()} == EXPECTED
    for name, row in rows.items():
        if EXPECTED[name] == "proved":  # every T1i proof is a fully checked chain
            assert row["proof"]["status"] == "checked", row
        assert row["conflict"] is None and row["error"] is None, row
        if EXPECTED[name] == "proved":  # every proved reading still passes the numeric search
            assert "no counterexample" in row["detail"]["sweep"], row
            assert "no counterexample" in row["detail"]["strategy"], row
    assert "violate" in rows["transcribed"]["detail"]["sweep"]


def test_hypotheses_are_needed():
    rows = {h.name: judge_hypothesis_drop(CLAIM, h) for h in CLAIM.hypotheses if h.drop}
    assert {k: v["verdict"] for k, v in rows.items()} == {"normalized": "falsified", "top_n": "falsified"}
    inst = rows["normalized"]["counterexample"]["instance"]
    w, x = np.array(inst["weights"]), np.array(inst["x"])
    assert np.linalg.norm(w[1] * x[1] - w[0] * x[0]) == 2.0 > rows["normalized"]["counterexample"]["rhs"]
    inst = rows["top_n"]["counterexample"]["instance"]
    w, x = np.array(inst["weights"]), np.array(inst["x"])
    assert w[0] < w[1] and inst["selected"] == [0]  # the selected token is not the top one
    assert np.linalg.norm(w[1] * x[1] - w[0] * x[0]) == 0.5 > rows["top_n"]["counterexample"]["rhs"]


def test_bound_terms_validates():
    with pytest.raises(KeyError, match="x"):
        t1.bound_terms({"weights": np.ones(2) / 2, "n": 1})
    with pytest.raises(ValueError, match="size"):
        t1.sweep_instances(np.random.default_rng(0), 0)


@pytest.mark.parametrize("name", [k for k, v in EXPECTED.items() if v == "proved"])
def test_proved_readings_carry_complete_checked_chains(name):
    proof = CLAIM.reading(name).symbolic()
    assert proof.status is True and proof.chain is not None and proof.chain.complete
    assert proof.checked == proof.steps > 0


def test_dropping_a_hypothesis_breaks_the_per_token_chain():
    from attnbounds.theory.distance import t1i_chains

    chain = t1i_chains()["per_token"]
    for name in ("centroid-distance", "centroid-norm"):
        broken = chain.chain.prove(chain.goal[0], "<=", chain.goal[2], ctx=chain.chain.ctx.without(name))
        assert not broken.complete


def test_centroid_lemma_chains_check_and_need_their_hypotheses():

    from attnbounds.theory.distance import _centroid_chains
    from attnbounds.theory.proof import Chain, Context

    for chain_check in _centroid_chains():
        assert chain_check.complete, chain_check.first_failure
        chain = chain_check.chain
        # drop one hypothesis ‖·‖ ≤ bound: the termwise step can no longer be checked
        kept = dict(list(chain.ctx.hypotheses.items())[1:])
        weakened = Chain(chain.start, Context(kept), chain.steps)
        lhs, rel, rhs = chain_check.goal
        assert not weakened.prove(lhs, rel, rhs).complete


# --- the tie of the sharpness proof to its reading (Reading.bind) ---------------------------------


def _sharp_variant(**kw):
    return dataclasses.replace(CLAIM.reading("sharp"), **kw)


def test_sharp_bind_ties_the_witness_proof_to_the_sides():
    reading = CLAIM.reading("sharp")
    got = tie(reading, reading.symbolic())
    assert got["status"] == "tied" and got["instances"] == 32, got
    assert {"witness", "top-N", "normalized", "normalized-selected", "unit"} <= set(got["hypotheses"])


def test_sharp_tie_fails_for_a_right_side_off_by_a_small_factor():
    reading = _sharp_variant(sides=lambda i: Sides(t1.sides_reconstructed(i).lhs, 1.0001 * t1.sides_reconstructed(i).rhs))
    got = tie(reading, reading.symbolic())
    assert got["status"] == "untied" and "the goal" in got["detail"], got


def test_sharp_tie_fails_for_a_bind_with_the_old_d1():
    def old_d1(instance):
        values = t1._bind_sharp(instance)
        return {**values, t1._chain_symbols("witness_sum")["d_1"]: float(t1.bound_terms(instance)["d_1_norm"])}

    reading = _sharp_variant(bind=old_d1)
    assert tie(reading, reading.symbolic())["status"] == "untied"


def test_sharp_tie_fails_off_the_witness():
    """Arbitrary embeddings: the goal still has the sides' values, but no D_i equals its bound."""
    reading = _sharp_variant(sweep=t1.sweep_instances, strategy=None)
    got = tie(reading, reading.symbolic())
    assert got["status"] == "untied" and "hypothesis 'witness'" in got["detail"], got


def test_sharp_tie_checks_top_n_at_every_selected_weight():
    """A witness for the selected set {0, 1} of weights (0.5, 0.2, 0.3), which is not the top-2
    set: a_1 = 0.3 exceeds the selected 0.2 (but not 0.5, so a check at the largest selected
    weight only would miss it). x_j = e on S, x_i = -e: R = 1, d_1 = 2, D = 1 = its bound."""
    inst = {"weights": np.array([[0.5, 0.2, 0.3]]), "x": np.array([[[1.0], [1.0], [-1.0]]]), "selected": [0, 1]}
    reading = _sharp_variant(sweep=lambda rng, n: inst, strategy=None)
    got = tie(reading, reading.symbolic())
    assert got["status"] == "untied" and "hypothesis 'top-N'" in got["detail"] and "t = 2" in got["detail"], got


# --- the tie of the bound's proofs to their readings ----------------------------------------------

BOUND_READINGS = ["reconstructed", "transcribed-sphere", "transcribed-if-R-ge-1", "reconstructed-d1-norm"]


def _scaled_rhs(reading, factor):
    """``reading`` with its right side multiplied by ``factor`` (the same bind and proof)."""

    def sides(instance):
        s = reading.sides(instance)
        return Sides(s.lhs, factor * np.asarray(s.rhs))

    return dataclasses.replace(reading, sides=sides)


@pytest.mark.parametrize("name", BOUND_READINGS)
def test_the_bound_binds_tie_the_chains_goals_to_the_sides_and_a_changed_side_is_untied(name):
    reading = CLAIM.reading(name)
    proof = reading.symbolic()
    got = tie(reading, proof)
    assert got["status"] == "tied" and got["instances"] == 32, got
    # the index-reading hypotheses are checked (at every pair (i, t))
    assert {"distance", "mean", "normalized", "normalized-selected", "R"} <= set(got["hypotheses"]), got
    for factor in (1.001, 0.999):  # the goal's right side is the reading's, not one near it
        wrong = tie(_scaled_rhs(reading, factor), proof)
        assert wrong["status"] == "untied" and "the reading's sides" in wrong["detail"], (factor, wrong)


def test_the_bound_binds_read_each_readings_own_d1():
    """The paper's d_1 (a distance) in the old reading's bind, or the old d_1 (a norm) in the
    paper's, is another right side."""
    for name, other in (("reconstructed", "d_1_norm"), ("reconstructed-d1-norm", "d_1")):
        reading = CLAIM.reading(name)
        chain = {"reconstructed": "sum", "reconstructed-d1-norm": "d1_norm_sum"}[name]
        wrong = dataclasses.replace(reading, bind=lambda i, c=chain, k=other: t1._bind_bound(i, c, k))
        got = tie(wrong, reading.symbolic())
        assert got["status"] == "untied" and "the reading's sides" in got["detail"], (name, got)


def test_the_R_ge_1_proof_does_not_tie_to_the_transcription_for_every_R():
    """The falsified ``transcribed`` has the goal of the R >= 1 proof, the same formula, at every
    instance: only the proof's hypothesis R >= 1 tells them apart, and it fails where R < 1."""
    transcribed = CLAIM.reading("transcribed")
    r_ge_1 = CLAIM.reading("transcribed-if-R-ge-1")
    reading = dataclasses.replace(transcribed, bind=r_ge_1.bind, symbolic=r_ge_1.symbolic)
    got = tie(reading, reading.symbolic())
    assert got["status"] == "untied" and "hypothesis 'R>=1'" in got["detail"], got


def test_a_bound_bind_that_breaks_a_hypothesis_is_untied():
    """Values the goal does not read, only the hypotheses: m taken as the selected mass (not
    1 - alpha_N), c as s itself (not s/alpha_N)."""
    reading = CLAIM.reading("transcribed-if-R-ge-1")
    names = t1._chain_symbols("R_ge_1")

    def mass_selected(instance):
        values = reading.bind(instance)
        return {**values, names["m"]: values[names["alpha_N"]]}

    def context_as_mean(instance):
        values = reading.bind(instance)
        return {**values, names["c"]: values[names["alpha_N"]] * values[names["c"]]}

    for bind, hypothesis in ((mass_selected, "mass"), (context_as_mean, "distance")):
        got = tie(dataclasses.replace(reading, bind=bind), reading.symbolic())
        assert got["status"] == "untied" and f"hypothesis {hypothesis!r}" in got["detail"], (hypothesis, got)


def test_the_bound_tie_checks_top_n_for_a_selected_set_that_is_not_it():
    """The top_n drop instance (weights (1/4, 3/4), the smaller one selected, x = (1, 1)): the goal
    has the reading's sides (d~ = 1/2, B = -1/2), and the hypothesis top-N fails."""
    inst = t1.any_subset_counterexample_t1i()
    batch = {"weights": inst["weights"][None], "x": inst["x"][None], "selected": inst["selected"]}
    reading = dataclasses.replace(CLAIM.reading("reconstructed"), sweep=lambda rng, n: batch, strategy=None)
    got = tie(reading, reading.symbolic())
    assert got["status"] == "untied" and "hypothesis 'top-N'" in got["detail"], got
