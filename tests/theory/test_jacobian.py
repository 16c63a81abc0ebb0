"""Lemma 2 closed forms: the Jacobian against SymPy and torch autograd, the sharp suprema
against optimization and dense random search."""

import math

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import minimize
from scipy.special import expit

from attnbounds.numerics.attention import softmax_jacobian
from attnbounds.numerics.jacobian import softmax_jacobian_norms
from attnbounds.theory import derivation
from attnbounds.theory import jacobian as J
from attnbounds.theory.normalization import FAMILIES, T, c, l, p

try:
    import torch
except ImportError:  # torch is the optional "empirical" extra
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch (the empirical extra) is not installed")



@pytest.fixture(scope="module")
def softmax_results():
    return derivation.get("L2-softmax").compute()


@pytest.fixture(scope="module")
def generic_results():
    return derivation.get("L2-generic").compute()


# ----------------------------------------------------------------- numeric references


def direct_jacobian(z, T_):
    # J = (diag α − ααᵀ)/T from a naive softmax
    e = np.exp((z - z.max(axis=-1, keepdims=True)) / T_)
    a = e / e.sum(axis=-1, keepdims=True)
    return (np.einsum("...i,ij->...ij", a, np.eye(z.shape[-1])) - a[..., :, None] * a[..., None, :]) / T_


def norms(Jm):
    return {
        "entry": np.abs(Jm).max(axis=(-2, -1)),
        "row": np.linalg.norm(Jm, axis=-1).max(axis=-1),
        "spectral": np.linalg.norm(Jm, ord=2, axis=(-2, -1)),
        "frobenius": np.linalg.norm(Jm, ord="fro", axis=(-2, -1)),
    }


# ----------------------------------------------------------------- exact checks


@pytest.mark.parametrize("L", [2, 3, 4])
def test_generic_jacobian_matches_sympy_diff(L):
    assert J.check_generic_jacobian(L)
    assert J.check_softmax_jacobian(L)


def test_the_check_rejects_a_wrong_closed_form():
    Ff = sp.Function("F")
    ls, al = J.normalized_weights(Ff, 3)
    gs = [sp.diff(Ff(x), x) / Ff(x) for x in ls]
    wrong = sp.Matrix(3, 3, lambda i, j: al[i] * (sp.KroneckerDelta(i, j) - al[i]) * gs[j])  # α_i instead of α_j
    diffs = [sp.cancel(sp.together(sp.diff(al[i], ls[j]) - wrong[i, j])) for i in range(3) for j in range(3)]
    assert any(d != 0 for d in diffs)


def test_exact_certificates():
    assert J.prove_entry_bound() and J.prove_row_bound() and J.prove_spectral_bound() and J.prove_frobenius_bound()
    for L in (2, 3, 4, 5):
        assert J.check_power_sum_identities(L)


def test_validation():
    with pytest.raises(ValueError, match="L:"):
        J.normalized_weights(sp.exp, 0)
    with pytest.raises(TypeError, match="F:"):
        J.normalized_weights("exp", 2)
    with pytest.raises(ValueError, match="gs:"):
        J.jacobian_closed_form([1, 2], [1])


def test_softmax_results_shape_and_symbols(softmax_results):
    assert set(softmax_results) == {"entry", "row", "spectral", "frobenius"}
    for key, res in softmax_results.items():
        (sym,) = res.expr.free_symbols
        assert sym.name == "T" and sym.is_positive
        assert sp.sympify(res.to_json()["expr"], locals={"T": T}) == res.expr
        assert res.maximizer["L"] == 2 and res.maximizer["alpha"] == "(1/2, 1/2)"
    assert J.maximizer_values(sp.Rational(3, 7)) == {k: v.subs(T, sp.Rational(3, 7)) for k, v in J.SOFTMAX_SUPREMA.items()}


def test_generic_results(generic_results):
    G = J.G
    assert generic_results["entry"].expr == G / 4
    assert generic_results["row"].expr == sp.sqrt(2) * G / 4
    assert generic_results["spectral"].expr == G / 2 == generic_results["frobenius"].expr
    for res in generic_results.values():
        assert sp.sympify(res.to_json()["expr"]) is not None


# ----------------------------------------------------------------- numbers


@needs_torch
@pytest.mark.parametrize("Tv", [0.05, 1.0, 7.0])
def test_softmax_jacobian_against_torch_autograd(Tv):
    rng = np.random.default_rng(0)
    for L in (1, 2, 5, 9):
        z = 3 * rng.standard_normal(L)
        zt = torch.tensor(z, dtype=torch.float64)
        ref = torch.autograd.functional.jacobian(lambda t: torch.softmax(t / Tv, dim=-1), zt)
        closed = direct_jacobian(z, Tv)
        # rounding is relative to the scale of J, 1/T (1 − α cancels near one-hot weights)
        np.testing.assert_allclose(closed, ref.numpy(), rtol=1e-12, atol=1e-13 / Tv)
        np.testing.assert_allclose(softmax_jacobian(z, Tv), ref.numpy(), rtol=1e-12, atol=1e-13 / Tv)


TORCH_F = {
    "softplus": (lambda t, Tv: torch.nn.functional.softplus(t / Tv), {T: 0.7}),
    "sigmoid_ratio": (lambda t, Tv: torch.sigmoid(t / Tv), {T: 0.7}),
    "taylor2": (lambda t, Tv: 1 + t / Tv + (t / Tv) ** 2 / 2, {T: 0.7}),
    "even_power": (lambda t, Tv: (1 + t**2) ** 1.5, {p: sp.Rational(3, 2)}),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(TORCH_F))
def test_generic_jacobian_against_torch_autograd(name):
    tf, subs = TORCH_F[name]
    F = FAMILIES[name].F.subs(subs)
    f = sp.lambdify(l, F, "numpy")
    g = sp.lambdify(l, sp.diff(F, l) / F, "numpy")
    rng = np.random.default_rng(1)
    for L in (2, 4, 7):
        z = 2 * rng.standard_normal(L)
        alpha = f(z) / f(z).sum()
        closed = (np.diag(alpha) - np.outer(alpha, alpha)) * g(z)[None, :]  # Σ D_g
        zt = torch.tensor(z, dtype=torch.float64)
        ref = torch.autograd.functional.jacobian(lambda t: tf(t, 0.7) / tf(t, 0.7).sum(), zt)
        np.testing.assert_allclose(closed, ref.numpy(), rtol=1e-10, atol=1e-14)


def test_numerics_norms_agree_with_the_direct_jacobian():
    rng = np.random.default_rng(2)
    for L in (1, 2, 3, 8):
        z = 4 * rng.standard_normal((500, L))
        Tv = 10 ** rng.uniform(-2, 2, size=500)
        ref = norms(direct_jacobian(z / Tv[:, None], 1.0) / Tv[:, None, None])  # J(z, T) = Σ(softmax(z/T))/T
        got = softmax_jacobian_norms(z, Tv)
        for kind, field in (("entry", "max_entry"), ("row", "max_row"), ("spectral", "spectral"), ("frobenius", "frobenius")):
            # absolute rounding on the scale of J (1/T): the naive 1 − α cancels near one-hot weights
            err = np.abs(getattr(got, field) - ref[kind])
            assert np.all(err <= 1e-9 * ref[kind] + 1e-13 / Tv), (kind, L, err.max())


@pytest.mark.parametrize("kind", ["entry", "row", "spectral", "frobenius"])
def test_maximizer_attains_the_supremum(kind):
    for Tv in (0.01, 1.0, 3.0):
        value = norms(direct_jacobian(np.array([0.0, 0.0]), Tv))[kind]
        assert value == pytest.approx(float(J.SOFTMAX_SUPREMA[kind].subs(T, Tv)), rel=1e-14)


@pytest.mark.parametrize("kind", ["entry", "row", "spectral", "frobenius"])
def test_no_sample_exceeds_the_supremum(kind):
    rng = np.random.default_rng(3)
    sup = float(J.SOFTMAX_SUPREMA[kind].subs(T, 1))
    best = 0.0
    for L in (2, 3, 4, 6, 8):
        z = rng.standard_normal((5000, L)) * rng.choice([0.1, 1.0, 5.0, 20.0], size=(5000, 1))
        z[:500, :2] = 0.0  # near the maximizer
        z[:500, 2:] = -rng.uniform(0, 40, size=(500, 1))
        v = np.array([ONE_NORM[kind](m) for m in direct_jacobian(z, 1.0)]) if kind == "spectral" else norms(
            direct_jacobian(z, 1.0))[kind]
        assert v.max() <= sup * (1 + 1e-12)
        best = max(best, v.max())
    assert best == pytest.approx(sup, abs=1e-6)


# Tight tolerances: for L >= 3 the sup is only approached (a logit -> -inf, gradient -> 0).
OPT = {"gtol": 1e-15, "ftol": 1e-16, "maxiter": 3000}

ONE_NORM = {
    "entry": lambda m: np.abs(m).max(),
    "row": lambda m: np.sqrt((m * m).sum(axis=-1)).max(),
    "spectral": lambda m: np.linalg.eigvalsh(m)[-1],  # J is symmetric PSD
    "frobenius": lambda m: np.sqrt((m * m).sum()),
}


@pytest.mark.parametrize("kind", ["entry", "row", "spectral", "frobenius"])
@pytest.mark.parametrize("L", [2, 3])
def test_optimizer_reaches_the_supremum(kind, L):
    sup = float(J.SOFTMAX_SUPREMA[kind].subs(T, 1))
    rng = np.random.default_rng(4)
    norm = ONE_NORM[kind]

    def neg(z):
        return -float(norm(direct_jacobian(z, 1.0)))

    best = max(
        -minimize(neg, rng.uniform(-3, 3, size=L), method="L-BFGS-B", bounds=[(-30, 30)] * L, options=OPT).fun
        for _ in range(2)
    )
    assert best <= sup * (1 + 1e-12)
    assert best == pytest.approx(sup, abs=1e-6)


def _sigma(x):
    return expit(x)  # accurate in both tails


# Hand-written log-derivatives g = (log F)' that stay accurate in the far tails.
G_NUMERIC = {
    "softmax": lambda x, Tv, cv, pv, av: np.full_like(x, 1 / Tv),
    "softplus": lambda x, Tv, cv, pv, av: _sigma(x / Tv) / (Tv * np.logaddexp(0, x / Tv)),
    "sigmoid_ratio": lambda x, Tv, cv, pv, av: _sigma(-x / Tv) / Tv,
    "taylor2": lambda x, Tv, cv, pv, av: (1 + x / Tv) / (Tv * (1 + x / Tv + (x / Tv) ** 2 / 2)),
    "shifted_power": lambda x, Tv, cv, pv, av: pv / (x + av + cv),
    "even_power": lambda x, Tv, cv, pv, av: 2 * pv * x / (1 + x**2),
}


def test_generic_bounds_hold_and_G_values_are_sups():
    table = J.family_log_derivative_sup()
    assert set(table) == set(G_NUMERIC)
    Tv, cv, pv, av = 0.8, 0.4, 1.5, 2.0
    a_sym = sp.Symbol("a", positive=True)
    subs = {T: Tv, c: cv, p: pv, a_sym: av}
    rng = np.random.default_rng(5)
    for name, (Gexpr, _) in table.items():
        F = FAMILIES[name].F.subs(subs)
        f = sp.lambdify(l, F, "numpy")
        g = lambda x: G_NUMERIC[name](x, Tv, cv, pv, av)  # noqa: E731
        # the hand-written g agrees with SymPy's (log F)' where both are accurate
        mid = np.linspace(-av, av, 101)
        np.testing.assert_allclose(g(mid), sp.lambdify(l, sp.diff(F, l) / F, "numpy")(mid) + 0 * mid, rtol=1e-10)
        G = float(Gexpr.subs(subs))
        xs = np.linspace(-av, av, 100_001) if name == "shifted_power" else np.linspace(-60, 60, 400_001)
        gv = np.abs(g(xs))
        assert gv.max() <= G * (1 + 1e-12), name
        assert gv.max() == pytest.approx(G, rel=1e-6), name  # attained, or approached in the tail
        lo, hi = (-av, av) if name == "shifted_power" else (-8, 8)
        z = rng.uniform(lo, hi, size=(2000, 5))
        fz = f(z)
        alpha = fz / fz.sum(axis=-1, keepdims=True)
        Jm = (np.einsum("ni,ij->nij", alpha, np.eye(5)) - alpha[:, :, None] * alpha[:, None, :]) * g(z)[:, None, :]
        nv = norms(Jm)
        assert np.all(nv["entry"] <= G / 4 * (1 + 1e-12))
        assert np.all(nv["row"] <= math.sqrt(2) * G / 4 * (1 + 1e-12))
        assert np.all(nv["spectral"] <= G / 2 * (1 + 1e-12))
        assert np.all(nv["frobenius"] <= G / 2 * (1 + 1e-12))


def test_secondary_form_judgement_against_numbers():
    judged = J.secondary_form_judgement()
    assert judged["entry"]["violated_for"] == "T < sqrt(2)/8"
    thr = float(J.SECONDARY_THRESHOLD)
    for Tv in (1e-3, 0.05, 0.1, thr * 0.999, thr * 1.001, 0.5, 1.0, 100.0):
        bound = min(1 / (4 * Tv), math.sqrt(2))
        vals = norms(direct_jacobian(np.array([0.0, 0.0]), Tv))
        assert (vals["entry"] > bound * (1 + 1e-12)) == (Tv < thr)
        for kind in ("row", "spectral", "frobenius"):
            assert judged[kind]["violated_for"] == "all T > 0"
            assert vals[kind] > bound * (1 + 1e-9)
