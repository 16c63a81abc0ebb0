"""Tests for attnbounds.theory.separability: exact d = 3 formulas vs Monte Carlo and quadrature,
the bounded-difference constant, and the derivation."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from attnbounds.numerics.montecarlo import mean_ci, proportion_ci
from attnbounds.numerics.selection import exact_sphere3
from attnbounds.theory import derivation
from attnbounds.theory import separability as ts

RNG = np.random.default_rng(7)


def unit_sphere(size, d=3):
    z = RNG.normal(size=size + (d,))
    return z / np.linalg.norm(z, axis=-1, keepdims=True)


@pytest.mark.parametrize("a,b,r", [(0.5, 0.5, 0.5), (0.4, 0.1, 0.35), (0.3, 0.2, 0.45), (0.25, 0.0, 0.3)])
def test_exact_sphere3_against_monte_carlo(a, b, r):
    u = unit_sphere((40_000, 2))
    D = np.linalg.norm(a * u[:, 0] + b * u[:, 1], axis=-1)
    xi, p = exact_sphere3(a, b, 1.0, r)
    _, lo, hi = mean_ci(D, confidence=0.999)
    assert lo <= float(xi) <= hi
    _, plo, phi = proportion_ci(int((D <= r).sum()), D.size, confidence=0.999)
    assert plo <= float(p) <= phi


def test_exact_mean_against_quadrature_and_scaling():
    for a, b in [(0.7, 0.2), (0.3, 0.3), (1.0, 1e-3)]:
        quad, _ = integrate.quad(lambda t: np.sqrt(a * a + b * b + 2 * a * b * t) / 2, -1, 1)
        assert float(exact_sphere3(a, b, 1.0, 0.0)[0]) == pytest.approx(quad, rel=1e-10)
        assert float(exact_sphere3(a, b, 2.5, 0.0)[0]) == pytest.approx(2.5 * quad, rel=1e-10)


def test_exact_mean_has_no_cancellation_for_tiny_weights():
    xi, p = exact_sphere3(1.0, 1e-21, 1.0, 0.5)
    assert float(xi) == pytest.approx(1.0, rel=1e-12) and float(p) == 0.0
    xi, p = exact_sphere3(0.0, 0.0, 1.0, 0.0)
    assert float(xi) == 0.0 and float(p) == 1.0


def test_bounded_difference_constant_holds_on_random_swaps():
    # Changing x_j moves D_i = ‖Σ_{j≠i} α_j x_j‖ by at most α_j‖x_j − x_j'‖ ≤ 2Mα_j.
    M = 1.7
    alpha = np.array([0.3, 0.2, 0.1, 0.05])
    x = M * unit_sphere((5000, 4), d=5)
    x2 = x.copy()
    x2[:, 2] = M * unit_sphere((5000,), d=5)
    D1 = np.linalg.norm((alpha[:, None] * x).sum(axis=1), axis=-1)
    D2 = np.linalg.norm((alpha[:, None] * x2).sum(axis=1), axis=-1)
    assert np.all(np.abs(D1 - D2) <= 2 * M * alpha[2] + 1e-12)
    assert np.max(np.abs(D1 - D2)) > 0.5 * 2 * M * alpha[2]  # the constant is not vacuous


def test_derivation_t2():
    res = derivation.get("T2").compute()
    assert res["denominator_ratio"].expr == 8 / ts.sigma2
    # the paper's count at weights (3/4, 1/4), r = 1/4: e^{-1/256} < 1 = E[N_s]/N (exact evaluator)
    assert sp.simplify(res["counterexample_rhs"].expr - sp.exp(sp.Rational(-1, 256))) == 0
    from attnbounds.claims.theorem2 import CEX_UPPER, exact_paper_terms

    assert float(exact_paper_terms(CEX_UPPER)["frac"]) == 1.0 > float(res["counterexample_rhs"].expr)
    assert res["counterexample_rhs"].maximizer["r"] == "1/4" and float(CEX_UPPER["r"]) == 0.25
    # the selected-only count at weights (1/2, 1/2), r = 1: e^{-1/16}
    assert sp.simplify(res["counterexample_rhs_selected"].expr - sp.exp(sp.Rational(-1, 16))) == 0
    # sigma_i^2 prints as such in LaTeX (it printed as sigma with subscript 2)
    assert r"\sigma^{2}_{i}" in sp.latex(res["mcdiarmid_exponent"].expr)
    a, b = sp.symbols("a b", positive=True)
    val = res["exact_xi_sphere3"].expr.subs({a: sp.Rational(7, 10), b: sp.Rational(1, 5), ts.M: 1})
    assert float(val) == pytest.approx(float(exact_sphere3(0.7, 0.2, 1.0, 0.0)[0]), rel=1e-12)
    assert "results" in derivation.to_json("T2")


def test_markov_lower_forms_and_validation():
    assert sp.expand(ts.markov_lower(2) - (1 - (sp.Symbol("xi_1", nonnegative=True) + sp.Symbol("xi_2", nonnegative=True)) / (2 * ts.r))) == 0
    with pytest.raises(ValueError, match="n_selected"):
        ts.markov_lower(0)
    with pytest.raises(ValueError, match="radius"):
        exact_sphere3(0.1, 0.1, 0.0, 0.1)
    with pytest.raises(ValueError, match="a: must be"):
        exact_sphere3(-0.1, 0.1, 1.0, 0.1)


def test_exact_sphere3_a_huge_radius_is_probability_one_without_a_warning():
    """Trial 50: check under an ELU + 1 plug-in printed numpy's overflow warning from (r/M)²."""
    import warnings

    import numpy as np

    from attnbounds.numerics.selection import exact_sphere3

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, p = exact_sphere3(np.array([0.3, 0.2]), np.array([0.1, 0.2]), 1.0, np.array([1e200, 0.05]))
    assert p[0] == 1.0 and 0.0 <= p[1] < 1.0
