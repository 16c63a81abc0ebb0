"""Tests for attnbounds.claims.theorem2: exact d = 3 sides vs Monte Carlo, the counterexample,
the conditioned bound, and verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds.claims import get
from attnbounds.claims import theorem2 as t2
from attnbounds.engine import Budget, judge_hypothesis_drop, judge_reading
from attnbounds.numerics.montecarlo import mean_ci
from attnbounds.numerics.selection import separability

CLAIM = get("T2")
SMALL = Budget(examples=20, sweep=2000, mc_samples=3000, method_seconds=20.0)


def test_exact_terms_against_monte_carlo_d3():
    w = np.array([0.4, 0.3, 0.2, 0.1])
    rng = np.random.default_rng(2)
    D, x = t2.sample_distances(rng, w, 3, 30_000, 3, 1.5)
    for r in (0.3, 0.6, 0.9):
        exact = t2.exact_terms({"weights": w, "n": 3, "M": 1.5, "r": r, "d": 3})
        _, lo, hi = mean_ci(separability(w, x, 3, r), confidence=0.999)
        assert lo <= float(exact["p"].mean()) <= hi
    _, xlo, xhi = mean_ci(D, confidence=0.999, axis=0)
    assert np.all((xlo <= exact["xi"]) & (exact["xi"] <= xhi))


def test_counterexample_recomputed_by_sampling():
    # N = 1: D_1 = ‖α_1 x_1 − α_1 x_1‖ = 0 for every draw, so E[N_s]/N = 1 > exp(−1/16).
    rng = np.random.default_rng(0)
    D, x = t2.sample_distances(rng, [0.5, 0.5], 1, 100, 1, 1.0)
    assert np.all(D == 0) and np.all(separability([0.5, 0.5], x, 1, 1.0) == 1.0)
    proof = CLAIM.reading("transcribed").symbolic()
    assert proof.status is False and proof.lhs == 1.0 > proof.rhs == pytest.approx(np.exp(-1 / 16))


def test_non_degenerate_violation_when_r_exceeds_xi():
    # N = 3, d = 3, r = ᾱ_N M: every D_i ≤ M Σ_{j≠i} α_j < r, so E[N_s]/N = 1 > transcribed side.
    inst = {"weights": np.array([0.4, 0.3, 0.2, 0.1]), "n": 3, "M": 1.0, "r": 0.9, "d": 3}
    s = CLAIM.reading("transcribed").sides(inst)
    assert float(s.lhs) == 1.0 and float(s.rhs) < 0.99
    assert float(CLAIM.reading("reconstructed").sides(inst).rhs) == 1.0


def test_conditioned_and_reconstructed_hold_on_exact_sweeps():
    rng = np.random.default_rng(6)
    for _ in range(5):
        for name in ("upper_if_r_le_xi", "reconstructed", "transcribed_lower"):
            reading = CLAIM.reading(name)
            s = reading.sides(reading.sweep(rng, 500))
            assert np.all(s.lhs <= s.rhs + 1e-12), name


def test_interval_of_the_exponential_terms():
    lo, hi = t2._interval_exp(np.array([0.1]), np.array([0.3]), 0.2, np.array([1.0]), plus=False)
    assert float(hi[0]) == 1.0 and float(lo[0]) == pytest.approx(np.exp(-0.01))
    lo, hi = t2._interval_exp(np.array([0.1]), np.array([0.3]), 0.2, np.array([1.0]), plus=True)
    assert float(hi[0]) == 1.0 and float(lo[0]) == pytest.approx(np.exp(-0.01))


def test_exact_terms_validates():
    with pytest.raises(ValueError, match="n: exact evaluation"):
        t2.exact_terms({"weights": np.ones(6) / 6, "n": 4, "M": 1.0, "r": 0.1, "d": 3})
    with pytest.raises(ValueError, match="d: exact evaluation"):
        t2.exact_terms({"weights": np.ones(6) / 6, "n": 3, "M": 1.0, "r": 0.1, "d": 4})
    with pytest.raises(ValueError, match="r: must be"):
        t2.exact_terms({"weights": np.ones(6) / 6, "n": 2, "M": 1.0, "r": -0.1, "d": 3})


def test_verdicts():
    rows = {r.name: judge_reading(CLAIM, r, budget=SMALL) for r in CLAIM.readings}
    assert rows["transcribed"]["verdict"] == "falsified"
    for name in ("transcribed_lower", "upper_if_r_le_xi", "reconstructed"):
        # proved once the proof is a fully checked chain; an argued proof holds
        want = "proved" if rows[name]["proof"]["status"] == "checked" else "holds"
        assert rows[name]["verdict"] == want, rows[name]
    for row in rows.values():
        assert row["conflict"] is None and row["error"] is None, row
    mc = rows["transcribed"]["mc"]
    assert mc["lhs_ci"][0] > mc["rhs_ci"][1]  # violated with confidence at L=16, N=5, d=8
    for name in ("transcribed_lower", "upper_if_r_le_xi", "reconstructed"):
        mc = rows[name]["mc"]
        assert mc["lhs_ci"][1] < mc["rhs_ci"][0], name  # holds with confidence
    assert judge_hypothesis_drop(CLAIM, CLAIM.hypotheses[2])["verdict"] == "falsified"
