"""Tests for attnbounds.theory.distance: closed forms against naive numbers, witnesses, counterexamples."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st

from attnbounds.theory import derivation
from attnbounds.theory import distance as td

RNG = np.random.default_rng(20251202)


def naive_d_tilde(w, x, selected):
    """Σ_{i∉S} ‖α_i x_i − Σ_{j∈S} α_j x_j‖ with explicit loops (reference)."""
    s = sum(w[j] * x[j] for j in selected)
    return sum(np.linalg.norm(w[i] * x[i] - s) for i in range(len(w)) if i not in selected)


def naive_top(w, n):
    return sorted(range(len(w)), key=lambda i: (-w[i], i))[:n]


def bound_value(expr, **values):
    return float(expr.subs({getattr(td, k): v for k, v in values.items()}))


def test_reconstructed_bound_matches_naive_per_token_sum():
    b = td.t1_fixed_bounds()
    for _ in range(50):
        L = int(RNG.integers(2, 9))
        n = int(RNG.integers(1, L))
        w = RNG.dirichlet(np.ones(L))
        x = RNG.normal(size=(L, 3))
        top = naive_top(w, n)
        rest = [i for i in range(L) if i not in top]
        abar = sum(w[j] for j in top)
        d1 = max(np.linalg.norm(x[i] - x[j]) for i in rest for j in top)
        R = max(np.linalg.norm(x[j]) for j in top)
        s = sum(w[j] * x[j] for j in top)
        for i in rest:  # the per-token bound D_i <= α_i d_1 + (ᾱ_N − α_i) R
            assert np.linalg.norm(w[i] * x[i] - s) <= w[i] * d1 + (abar - w[i]) * R + 1e-12
        per_token = sum(w[i] * d1 + (abar - w[i]) * R for i in rest)
        B = bound_value(b["reconstructed"], L=L, N=n, alpha_N=abar, d_1=d1, R=R)
        assert B == pytest.approx(per_token, rel=1e-12, abs=1e-12)
        assert naive_d_tilde(w, x, top) <= B + 1e-12
        T = bound_value(b["transcribed"], L=L, N=n, alpha_N=abar, d_1=d1, R=R)
        assert T - B == pytest.approx((R - 1) * (1 - abar), abs=1e-12)


@given(
    w=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=7).filter(lambda v: sum(v) > 1e-3),
    data=st.data(),
    d1=st.floats(0.0, 5.0),
    R=st.floats(0.0, 5.0),
    dim=st.integers(1, 3),
)
@example(w=[1.0, 1.0], data=None, d1=1.0, R=0.5, dim=1)  # uniform, the minimal counterexample
@example(w=[1.0, 0.0, 0.0], data=None, d1=2.0, R=0.5, dim=2)  # one-hot
def test_sharpness_witness_attains_the_bound(w, data, d1, R, dim):
    w = np.array(w) / sum(w)
    n = 1 if data is None else data.draw(st.integers(1, len(w) - 1))
    inst = td.sharpness_witness(w, n, d1, R, dim)
    top = naive_top(inst["weights"], n)
    rest = [i for i in range(len(w)) if i not in top]
    x = inst["x"]
    assert max(np.linalg.norm(x[i] - x[j]) for i in rest for j in top) == pytest.approx(d1, abs=1e-12)
    assert max(np.linalg.norm(x[j]) for j in top) == pytest.approx(R, abs=1e-12)
    abar = sum(inst["weights"][j] for j in top)
    B = bound_value(td.t1_fixed_bounds()["reconstructed"], L=len(w), N=n, alpha_N=abar, d_1=d1, R=R)
    assert naive_d_tilde(inst["weights"], x, top) == pytest.approx(B, rel=1e-9, abs=1e-9)
    old = td.sharpness_witness_d1_norm(w, n, d1, R, dim)
    B_old = bound_value(td.t1_fixed_bounds()["d1_norm"], L=len(w), N=n, alpha_N=abar, d_1=d1, R=R)
    assert naive_d_tilde(old["weights"], old["x"], top) == pytest.approx(B_old, rel=1e-9, abs=1e-9)


def test_transcription_counterexamples_violate_when_recomputed():
    inst = td.transcription_counterexample_t1i()
    w, x = inst["weights"], inst["x"]
    d = naive_d_tilde(w, x, [0])
    rhs = (1 - 0.5) * 1.0 + 0.5 * 0.5 * (2 - 1) - (1 - 0.5)  # d_1 = |1/2 + 1/2| = 1, R = 1/2
    assert d == 0.5 and rhs == 0.25 and d > rhs
    old = td.transcription_counterexample_d1_norm()
    assert naive_d_tilde(old["weights"], old["x"], [0]) == 1.0 > (1 - 0.5) * 1 + 0.5 * 1 - 0.5
    T = bound_value(td.t1_fixed_bounds()["transcribed"], L=3, N=1, alpha_N=0.5, d_1=0.0, R=0.0)
    assert T == -0.5  # zero embeddings: d~ = 0 > −(1 − ᾱ_N)


def test_any_subset_counterexample():
    inst = td.any_subset_counterexample_t1i()
    w, x, S = inst["weights"], inst["x"], inst["selected"]
    assert w[S[0]] < max(w)
    assert naive_d_tilde(w, x, S) == 0.5
    assert bound_value(td.t1_fixed_bounds()["reconstructed"], L=2, N=1, alpha_N=0.25, d_1=0.0, R=1.0) == -0.5


def test_derivation_t1i_results():
    res = derivation.get("T1i").compute()
    assert sp.expand(res["transcription_gap"].expr - (td.R - 1) * (1 - td.alpha_N)) == 0
    assert res["counterexample_transcribed_rhs"].expr == sp.Rational(1, 4)
    assert res["counterexample_d1_norm_rhs"].expr == sp.Rational(1, 2)
    assert set(derivation.to_json("T1i")["results"]) == set(res)


@pytest.mark.parametrize("L,N", [(2, 1), (5, 2), (7, 3), (9, 8)])
def test_inclusion_probabilities_by_counting(L, N):
    subsets = list(itertools.combinations(range(L), N))
    excluded = Fraction(sum(0 not in S for S in subsets), len(subsets))
    cond = [S for S in subsets if 0 not in S]
    in_given = Fraction(sum(1 in S for S in cond), len(cond))
    p = td.inclusion_probabilities()
    assert sp.Rational(excluded.numerator, excluded.denominator) == p["p_excluded"].subs({td.L: L, td.N: N})
    assert excluded == Fraction(L - N, L)
    assert in_given == Fraction(N, L - 1)
    assert sp.Rational(in_given.numerator, in_given.denominator) == p["p_in_given_excluded"].subs({td.L: L, td.N: N})


def test_main_term_is_the_jensen_lower_bound_by_enumeration():
    c = td.main_term_coefficients()
    for _ in range(20):
        L = int(RNG.integers(2, 7))
        n = int(RNG.integers(1, L))
        w = RNG.dirichlet(np.ones(L))
        x = RNG.normal(size=(L, 2)) + RNG.normal(size=2)
        k = float(c["k"].subs({td.L: L, td.N: n}))
        total = (w[:, None] * x).sum(axis=0)
        M = float(c["prefactor"].subs({td.L: L, td.N: n})) * sum(
            np.linalg.norm((1 + k) * w[i] * x[i] - k * total) for i in range(L)
        )
        # conditional means by enumeration: E[s_S | i ∉ S] vector, then the norm
        subsets = list(itertools.combinations(range(L), n))
        E = np.mean([naive_d_tilde(w, x, S) for S in subsets])
        M_enum = 0.0
        for i in range(L):
            cond = [S for S in subsets if i not in S]
            mean_s = np.mean([sum(w[j] * x[j] for j in S) for S in cond], axis=0)
            M_enum += len(cond) / len(subsets) * np.linalg.norm(w[i] * x[i] - mean_s)
        assert M == pytest.approx(M_enum, rel=1e-10, abs=1e-12)
        assert E >= M - 1e-12


def test_sampling_variance_factor_against_enumeration():
    for m, n in [(3, 1), (4, 2), (6, 3), (5, 5)]:
        y = RNG.normal(size=(m, 2))
        sums = np.array([y[list(S)].sum(axis=0) for S in itertools.combinations(range(m), n)])
        var = ((sums - sums.mean(axis=0)) ** 2).sum(axis=1).mean()
        f = float(td.sampling_variance_factor(m, n))
        assert var == pytest.approx(f * ((y - y.mean(axis=0)) ** 2).sum(), rel=1e-10, abs=1e-12)
    assert comb(4, 2) == 6


def test_sampling_variance_factor_validates():
    with pytest.raises(ValueError, match="n: must satisfy"):
        td.sampling_variance_factor(3, 4)
    with pytest.raises(TypeError, match="m: must be an integer"):
        td.sampling_variance_factor(3.0, 1)


def test_corollary2_forms_match_numbers():
    f = td.corollary2_forms()
    for L, n in [(4, 1), (10, 3), (50, 7)]:
        w = np.full(L, 1.0 / L)
        d_equal = naive_d_tilde(w, np.ones((L, 1)), list(range(n)))
        assert d_equal == pytest.approx(float(f["family_equal"].subs({td.L: L, td.N: n})), abs=1e-12)
        # antiparallel family: relative spread max_i |D_i/‖s‖ − 1| = 1/N
        x = np.where(np.arange(L) < n, 1.0, -1.0)[:, None]
        s = w[:n] @ x[:n]
        D = np.abs(w[:, None] * x - s).ravel()
        spread = np.max(np.abs(D / np.linalg.norm(s) - 1))
        assert spread == pytest.approx(float(f["spread_fixed"].subs(td.N, n)), rel=1e-12)
    res = derivation.get("C2").compute()
    assert res["limit_bound_L1_over_L"].expr == 0
    assert sp.expand(res["limit_bound_L1"].expr - td.R * (1 + td.N * td.C_2)) == 0
    assert sp.expand(res["limit_family_proportional_over_L"].expr - td.rho * (1 - td.rho)) == 0
    assert res["limit_spread_proportional"].expr == 0


def test_sharpness_witness_validates():
    with pytest.raises(ValueError, match="weights"):
        td.sharpness_witness([0.5, 0.6], 1)
    with pytest.raises(ValueError, match="n: must satisfy"):
        td.sharpness_witness([0.5, 0.5], 2)
    with pytest.raises(ValueError, match="d1"):
        td.sharpness_witness([0.5, 0.5], 1, d1=-1.0)
    with pytest.raises(ValueError, match="dim"):
        td.sharpness_witness([0.5, 0.5], 1, dim=0)


def test_derivations_are_registered():
    assert {"T1i", "T1ii", "C2"} <= set(derivation.names())
    for name in ("T1ii", "C2"):
        out = derivation.to_json(name)
        assert out["results"] and all("expr" in r for r in out["results"].values())
