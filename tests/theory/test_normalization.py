"""Lemma 1 / Corollary 1 closed forms, checked exactly and against numbers."""

import math

import numpy as np
import pytest
import sympy as sp

from attnbounds.theory import derivation
from attnbounds.theory import normalization as N

GRID = np.linspace(-1.0, 1.0, 200_001)  # scaled by a below


@pytest.fixture(scope="module")
def lemma1():
    return derivation.get("L1-constants").compute()


@pytest.fixture(scope="module")
def corollary1():
    return derivation.get("C1").compute()


def _numeric(expr, **values):
    subs = {getattr(N, k) if hasattr(N, k) else sp.Symbol(k, positive=True): v for k, v in values.items()}
    return float(sp.N(expr.subs(subs), 30))


@pytest.mark.parametrize("name", ["L1-constants", "C1"])
def test_results_round_trip_through_sympify(name):
    for key, res in derivation.get(name).compute().items():
        again = sp.sympify(res.to_json()["expr"], locals={"L": N.L, "T": N.T, "a": N.a, "m": N.m, "M": N.M,
                                                         "Delta": N.Delta, "c": N.c, "p": N.p})
        assert sp.simplify(again - res.expr) == 0, key


def test_exact_certificates():
    assert N.prove_tight_bounds()
    assert N.prove_tight_within_loose()
    assert N.upper_constant_is_best()
    assert N.prove_softmax_tight_within_loose()


def test_nonnegative_polynomial_rejects_what_it_cannot_show():
    x, y = sp.symbols("x y", nonnegative=True)
    assert N.nonnegative_polynomial(x**2 + 3 * x * y, [x, y])
    assert not N.nonnegative_polynomial(x**2 - x * y, [x, y])
    assert not N.nonnegative_polynomial(sp.sqrt(x), [x])


@pytest.mark.parametrize(
    "family, params, a",
    [
        ("softmax", {"T": 0.5}, 1.5),
        ("softplus", {"T": 2.0}, 3.0),
        ("sigmoid_ratio", {"T": 1.0}, 2.0),
        ("shifted_power", {"c": 0.5, "p": 1.5}, 1.0),
        ("taylor2", {"T": 1.0}, 2.5),  # critical point -T inside
        ("taylor2", {"T": 1.0}, 0.5),  # monotone on [-a, a]
        ("even_power", {"p": 0.5}, 2.0),
    ],
)
def test_extremes_match_a_dense_grid(family, params, a):
    fam = N.FAMILIES[family]
    subs = {N.T: sp.nsimplify(params.get("T", 1)), N.c: sp.nsimplify(params.get("c", 1)),
            N.p: sp.nsimplify(params.get("p", 1)), N.a: sp.nsimplify(a)}
    F = fam.F.subs(subs)
    k = N.normalizer_constants(F, N.l, sp.nsimplify(a))
    assert k is not None
    f = sp.lambdify(N.l, F, "numpy")(a * GRID)
    assert float(k.m) == pytest.approx(f.min(), rel=1e-9)
    assert float(k.M) == pytest.approx(f.max(), rel=1e-9)
    assert float(F.subs(N.l, k.argmin)) == pytest.approx(f.min(), rel=1e-12)
    assert float(F.subs(N.l, k.argmax)) == pytest.approx(f.max(), rel=1e-12)


def test_family_constants_in_the_derivation_match_numbers(lemma1):
    T, a, c, p = 0.7, 1.9, 0.3, 2.0
    vals = dict(T=T, a=a, c=c, p=p)
    checks = {
        "softmax": lambda x: np.exp(x / T),
        "softplus": lambda x: np.logaddexp(0, x / T),
        "sigmoid_ratio": lambda x: 1 / (1 + np.exp(-x / T)),
        "shifted_power": lambda x: (x + a + c) ** p,
        "taylor2": lambda x: 1 + x / T + (x / T) ** 2 / 2,
        "even_power": lambda x: (1 + x**2) ** p,
    }
    for name, f in checks.items():
        y = f(a * GRID)
        assert _numeric(lemma1[f"{name}_m"].expr, **vals) == pytest.approx(y.min(), rel=1e-9), name
        assert _numeric(lemma1[f"{name}_M"].expr, **vals) == pytest.approx(y.max(), rel=1e-9), name
        assert _numeric(lemma1[f"{name}_C2"].expr, **vals) == pytest.approx(y.max() / y.min(), rel=1e-9), name
    assert _numeric(lemma1["softmax_C2"].expr, T=T, a=a) == pytest.approx(math.exp(2 * a / T))
    # taylor2 in the other regime a < T: minimum at -a
    assert _numeric(lemma1["taylor2_m"].expr, T=2.0, a=0.5) == pytest.approx(1 - 0.25 + 0.25**2 / 2)


def test_symbolic_softmax_constants():
    k = N.normalizer_constants(sp.exp(N.l / N.T))
    assert (k.C1, k.C2) == (sp.exp(-2 * N.a / N.T), sp.exp(2 * N.a / N.T))
    assert k.method == "monotone increasing"
    dec = N.normalizer_constants(sp.exp(-N.l))
    assert dec.method == "monotone decreasing" and dec.m == sp.exp(-N.a)


def test_undecided_and_invalid_normalizers():
    assert N.normalizer_constants(1 + N.l + N.l**2 / 2) is None  # symbolic range, not monotone
    with pytest.raises(ValueError, match="F: must be positive"):
        N.normalizer_constants(N.l, N.l, 1)
    with pytest.raises(ValueError, match="F: must be positive"):
        N.normalizer_constants(N.l**2, N.l, 1)  # minimum 0
    with pytest.raises(ValueError, match="F: must be continuous"):
        N.normalizer_constants(3 + 1 / N.l, N.l, 1)
    assert N.normalizer_constants(2 + sp.sign(N.l), N.l, 1) is None  # continuity not decidable
    with pytest.raises(ValueError, match="half_width"):
        N.normalizer_constants(sp.exp(N.l), N.l, -1)
    with pytest.raises(TypeError, match="variable"):
        N.normalizer_constants(sp.exp(N.l), "l", 1)


def test_tight_bounds_attained_and_inside_loose(lemma1):
    rng = np.random.default_rng(0)
    lo_e, hi_e = (lemma1[k].expr for k in ("tight_lower", "tight_upper"))
    f_lo = sp.lambdify((N.m, N.M, N.L), lo_e)
    f_hi = sp.lambdify((N.m, N.M, N.L), hi_e)
    gap_hi = sp.lambdify((N.m, N.M, N.L), lemma1["gap_upper"].expr)
    for _ in range(200):
        m = rng.uniform(0.01, 2.0)
        M = m * rng.uniform(1.0, 50.0)
        L = int(rng.integers(1, 500))
        F = np.full(L, m)
        F[0] = M  # one weight at the max, the rest at the min
        assert F[0] / F.sum() == pytest.approx(f_hi(m, M, L), rel=1e-12)
        F = np.full(L, M)
        F[0] = m
        assert F[0] / F.sum() == pytest.approx(f_lo(m, M, L), rel=1e-12)
        assert f_hi(m, M, L) <= M / (m * L) * (1 + 1e-12)
        assert f_lo(m, M, L) >= m / (M * L) * (1 - 1e-12)
        assert M / (m * L) - f_hi(m, M, L) == pytest.approx(gap_hi(m, M, L), rel=1e-8, abs=1e-15)
        # random F values in [m, M] never leave the tight interval
        vals = rng.uniform(m, M, size=L)
        alpha = vals / vals.sum()
        assert alpha.max() <= f_hi(m, M, L) * (1 + 1e-12)
        assert alpha.min() >= f_lo(m, M, L) * (1 - 1e-12)


def test_C2_is_the_limit_of_L_times_the_tight_upper_bound():
    m, M = 0.3, 2.1
    Ls = np.array([1, 2, 10, 100, 10**4, 10**8], dtype=float)
    vals = Ls * M / (M + (Ls - 1) * m)
    assert np.all(np.diff(vals) > 0)
    assert vals[-1] == pytest.approx(M / m, rel=1e-6)
    assert np.all(vals <= M / m)


def test_corollary1_tight_form_against_softmax(corollary1):
    rng = np.random.default_rng(1)
    sym = (N.Delta, N.T, N.L)
    lo = sp.lambdify(sym, corollary1["tight_lower"].expr)
    hi = sp.lambdify(sym, corollary1["tight_upper"].expr)
    llo = sp.lambdify(sym, corollary1["loose_lower"].expr)
    lhi = sp.lambdify(sym, corollary1["loose_upper"].expr)
    for _ in range(200):
        L, d = int(rng.integers(1, 20)), int(rng.integers(1, 6))
        T = 10 ** rng.uniform(-1, 1)
        q = rng.standard_normal(d)
        keys = rng.standard_normal((L, d))
        delta = np.linalg.norm(q) * np.linalg.norm(keys, axis=1).max()
        z = keys @ q / T
        alpha = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        assert np.all(np.abs(keys @ q) <= delta * (1 + 1e-12))
        assert alpha.max() <= hi(delta, T, L) * (1 + 1e-12) <= lhi(delta, T, L) * (1 + 1e-11)
        assert alpha.min() >= lo(delta, T, L) * (1 - 1e-12) >= llo(delta, T, L) * (1 - 1e-11)
        # aligned / anti-aligned keys attain the sharp upper bound
        u = q / np.linalg.norm(q)
        K = np.linalg.norm(keys, axis=1).max()
        ext = -K * np.tile(u, (L, 1))
        ext[0] = K * u
        z = ext @ q / T
        a0 = 1 / np.exp(z - z[0]).sum()
        assert a0 == pytest.approx(hi(delta, T, L), rel=1e-10)
    assert corollary1["C2"].expr == sp.exp(2 * N.Delta / N.T)
    assert corollary1["loose_upper"].expr == sp.exp(2 * N.Delta / N.T) / N.L


_l = N.l


@pytest.mark.parametrize(
    "F, a",
    [
        (sp.exp(sp.Min(_l, 3)), 4),  # clipped softmax: flat above 3
        (sp.exp(sp.Min(_l, sp.Rational(1, 2))), 1),
        (sp.Max(_l, -_l / 2) + 2, 1),  # a kink at 0, the minimum
        (sp.Min(_l + 3, 3 - 2 * _l), 1),  # a kink at 0, the maximum
        (sp.Abs(_l - sp.Rational(1, 3)) + 1, 1),
        ((_l**2) ** sp.Rational(1, 3) + 1, 1),  # a cusp at 0: the derivative is not continuous there
        ((_l**2) ** sp.Rational(1, 3) * (_l - 2) ** 2 + 1, 1),
    ],
)
def test_extremes_of_piecewise_and_kinked_normalizers_match_a_dense_grid(F, a):
    k = N.normalizer_constants(F, _l, a)
    assert k is not None and (k.method == "critical points" or k.method.startswith("monotone"))
    xs = np.concatenate([a * GRID, [0.0, 1 / 3, 0.5, 3.0]])
    xs = xs[np.abs(xs) <= a]
    f = sp.lambdify(_l, F, "numpy")(xs)
    assert float(k.m) == pytest.approx(f.min(), rel=1e-12)
    assert float(k.M) == pytest.approx(f.max(), rel=1e-12)


def test_lemma1_is_decided_under_a_clipped_exponential_normalizer():
    from attnbounds import engine
    from attnbounds.numerics import normalizers as nz

    clip = nz.from_sympy(sp.exp(sp.Min(sp.Symbol("l", real=True), 3)), sp.Symbol("l", real=True), name="clipexp")
    rows = engine.check(["L1"], quick=True, normalizer=clip)
    assert {r.id: r.verdict for r in rows} == {"L1:transcribed": "holds", "L1:reconstructed": "holds"}
