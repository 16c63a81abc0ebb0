"""Tests for attnbounds.claims.theorem1_fixed: sides vs a naive evaluator, witnesses, verdicts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings

from attnbounds.claims import get
from attnbounds.claims import theorem1_fixed as t1
from attnbounds.claims.base import holds_relation
from attnbounds.engine import Budget, judge_reading, judge_hypothesis_drop

CLAIM = get("T1i")
SMALL = Budget(examples=25, sweep=3000, mc_samples=200, method_seconds=20.0)


def naive_sides(w, x, n, trailing):
    top = sorted(range(len(w)), key=lambda i: (-w[i], i))[:n]
    rest = [i for i in range(len(w)) if i not in top]
    s = sum(w[j] * x[j] for j in top)
    d = sum(np.linalg.norm(w[i] * x[i] - s) for i in rest)
    abar = sum(w[j] for j in top)
    d1 = max(np.linalg.norm(x[i]) for i in rest)
    R = max(np.linalg.norm(x[j]) for j in top)
    return d, (1 - abar) * d1 + (len(w) - n) * abar * R - (1 - abar) * trailing


def test_claim_structure():
    assert CLAIM is t1.CLAIM and CLAIM.id == "T1i"
    assert {"transcribed", "reconstructed", "sharp"} <= {r.name for r in CLAIM.readings}
    assert CLAIM.derivations == ("T1i",) and "Sharpness" in CLAIM.proof
    assert set(CLAIM.symbolic_form()) >= {"reconstructed", "transcribed"}


def test_batched_sides_match_the_naive_evaluator():
    batch = t1.sweep_instances(np.random.default_rng(3), 40)
    for reading, trailing in (("reconstructed", 0), ("transcribed", 1)):
        sides = CLAIM.reading(reading).sides(batch)
        for k in range(40):
            d, rhs = naive_sides(batch["weights"][k], batch["x"][k], batch["n"], trailing)
            assert sides.lhs[k] == pytest.approx(d, rel=1e-12)
            assert sides.rhs[k] == pytest.approx(rhs, rel=1e-12, abs=1e-12)


@settings(max_examples=60)
@given(t1._configs())
@example({"weights": np.array([0.5, 0.5]), "x": np.array([[0.0], [0.0]]), "n": 1})  # ties, zero embeddings
@example({"weights": np.array([1.0, 0.0, 0.0]), "x": np.eye(3), "n": 2})  # one-hot
def test_reconstructed_bound_holds(inst):
    s = t1.sides_reconstructed(inst)
    assert holds_relation(s, "<=")


def test_witnesses_attain_the_bound_to_1e_9():
    batch = CLAIM.reading("sharp").sweep(np.random.default_rng(11), 500)
    s = t1.sides_reconstructed(batch)
    np.testing.assert_allclose(s.lhs, s.rhs, rtol=1e-9, atol=1e-9)


def test_symbolic_counterexample_is_real():
    proof = CLAIM.reading("transcribed").symbolic()
    assert proof.status is False
    inst = proof.counterexample
    d, rhs = naive_sides(inst["weights"], inst["x"], inst["n"], trailing=1)
    assert d == proof.lhs == 1.0 and rhs == proof.rhs == 0.5


def test_verdicts():
    rows = {r.name: judge_reading(CLAIM, r, budget=SMALL) for r in CLAIM.readings}
    assert rows["transcribed"]["verdict"] == "falsified"
    for name in ("reconstructed", "sharp"):
        # proved once the proof is a fully checked chain; an argued proof holds
        want = "proved" if rows[name]["proof"]["status"] == "checked" else "holds"
        assert rows[name]["verdict"] == want, rows[name]
    for row in rows.values():
        assert row["conflict"] is None and row["error"] is None, row
    # every numeric method disagrees with the transcription, and none with the reconstruction
    assert "violate" in rows["transcribed"]["detail"]["sweep"]
    assert "no counterexample" in rows["reconstructed"]["detail"]["sweep"]
    assert "no counterexample" in rows["sharp"]["detail"]["strategy"]


def test_normalization_is_needed():
    row = judge_hypothesis_drop(CLAIM, CLAIM.hypotheses[0])
    assert row["verdict"] == "falsified"
    inst = row["counterexample"]["instance"]
    w, x = np.array(inst["weights"]), np.array(inst["x"])
    assert np.linalg.norm(w[1] * x[1] - w[0] * x[0]) == 2.0 > row["counterexample"]["rhs"]


def test_bound_terms_validates():
    with pytest.raises(KeyError, match="x"):
        t1.bound_terms({"weights": np.ones(2) / 2, "n": 1})
    with pytest.raises(ValueError, match="size"):
        t1.sweep_instances(np.random.default_rng(0), 0)
