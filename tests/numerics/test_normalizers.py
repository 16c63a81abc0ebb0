"""Tests for attnbounds.numerics.normalizers.

* the zoo: kernels against the `entmax` package and torch autograd (float64), metadata,
  the registry, and the plug-in paths (callable, SymPy, import path, file, entry point);
* the ratio-form families: numpy F and F' against the SymPy expression, positivity, errors.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnbounds.numerics import normalizers as nz
from attnbounds.numerics.normalizers import LOGIT

torch = pytest.importorskip("torch")
entmax = pytest.importorskip("entmax")

RNG = np.random.default_rng(20240817)


def _logit_batches():
    """Random, tied, one-hot-like and wide-range logits, float64, shape (B, L)."""
    out = [RNG.normal(size=(64, 7)), 10.0 * RNG.normal(size=(32, 33)), RNG.normal(size=(8, 1))]
    ties = np.zeros((4, 6))
    ties[1, :3] = 1.0
    ties[2] = [5.0, 5.0, -5.0, -5.0, 0.0, 0.0]
    ties[3, 0] = 50.0
    out.append(ties)
    out.append(RNG.uniform(-1, 1, size=(4, 257)))
    return out


def _torch(x):
    return torch.as_tensor(np.asarray(x), dtype=torch.float64)


# --------------------------------------------------------------------------- references


@pytest.mark.parametrize("T", [1.0, 0.3, 4.0])
def test_sparsemax_matches_entmax_package(T):
    for z in _logit_batches():
        ours = nz.get("sparsemax").weights(z, T=T)
        ref = entmax.sparsemax(_torch(z) / T, dim=-1).numpy()
        np.testing.assert_allclose(ours, ref, atol=1e-7, rtol=0)


@pytest.mark.parametrize("T", [1.0, 0.3, 4.0])
def test_entmax15_matches_entmax_package(T):
    for z in _logit_batches():
        ours = nz.get("entmax15").weights(z, T=T)
        ref = entmax.entmax15(_torch(z) / T, dim=-1).numpy()
        np.testing.assert_allclose(ours, ref, atol=1e-7, rtol=0)


@pytest.mark.parametrize("alpha", [1.1, 1.5, 2.0, 3.0])
def test_entmax_bisect_matches_entmax_package(alpha):
    for z in _logit_batches():
        ours = nz.get("entmax").weights(z, alpha=alpha)
        ref = entmax.entmax_bisect(_torch(z), alpha=alpha, dim=-1, n_iter=80).numpy()
        np.testing.assert_allclose(ours, ref, atol=1e-7, rtol=0)


def test_entmax_bisect_agrees_with_exact_solvers():
    for z in _logit_batches():
        np.testing.assert_allclose(nz.get("entmax", alpha=1.5).weights(z), nz.get("entmax15").weights(z), atol=1e-7)
        np.testing.assert_allclose(nz.get("entmax", alpha=2.0).weights(z), nz.get("sparsemax").weights(z), atol=1e-7)
    # the candidate reduction (top-K per row) and the row blocks do not change the result
    z = RNG.normal(size=(3, 5000))
    full = nz._entmax_bisect_rows(z, 1.5, 80)  # one block, K < L
    np.testing.assert_allclose(nz._entmax_bisect(z, 1.5), full, atol=1e-15)
    np.testing.assert_allclose(full, nz.get("entmax15").weights(z), atol=1e-12)


def _adaptive_reference(z):
    """The published listing (Veličković et al. 2024), row by row in plain numpy."""
    out = np.empty_like(z)
    for idx in np.ndindex(z.shape[:-1]):
        row = z[idx]
        p = np.exp(row - row.max())
        p /= p.sum()
        H = float(-(p * np.log(p + 1e-9)).sum())
        beta = max(np.polyval([-0.037, 0.481, -2.3, 4.917, -1.791], H), 1.0) if H > 0.5 else 1.0
        q = np.exp(beta * row - (beta * row).max())
        out[idx] = q / q.sum()
    return out


def test_adaptive_temperature_matches_published_rule():
    # The entropy uses 0·log 0 = 0 instead of log(p + 1e-9): differences are O(1e-8).
    for z in _logit_batches():
        np.testing.assert_allclose(nz.get("adaptive_temperature").weights(z), _adaptive_reference(z), atol=1e-6)
    # The rule really sharpens some rows (β > 1) and leaves others (β = 1) alone.
    z = RNG.normal(size=(200, 8)) * np.where(np.arange(200) < 100, 1.0, 20.0)[:, None]
    sharp = np.abs(nz.get("adaptive_temperature").weights(z) - nz.get("softmax").weights(z)).max(axis=-1)
    assert (sharp > 1e-3).any() and (sharp == 0).any()


def test_length_aware_normalizers_closed_forms():
    z = RNG.normal(size=(5, 40))
    L = z.shape[-1]
    sm = nz.get("softmax")
    np.testing.assert_allclose(nz.get("ssmax", s=0.7).weights(z), sm.weights(0.7 * np.log(L) * z), atol=1e-15)
    np.testing.assert_allclose(nz.get("logn").weights(z), sm.weights(z), atol=1e-15)  # L ≤ 512: c = 1
    zl = RNG.normal(size=(2, 2048))
    np.testing.assert_allclose(nz.get("logn").weights(zl), sm.weights(zl * np.log(2048) / np.log(512)), atol=1e-15)
    expected = 1.0 / (1.0 + np.exp(-(z / 2.0 - np.log(L))))
    np.testing.assert_allclose(nz.get("sigmoid").weights(z, T=2.0), expected, atol=1e-15)
    # explicit n (visible keys) per row overrides the last axis
    n = np.array([3, 10, 40, 7, 1])
    np.testing.assert_allclose(nz.get("ssmax").weights(z, n=n), sm.weights(np.log(n)[:, None] * z), atol=1e-15)


def test_sympy_F_reproduces_the_weights():
    z = RNG.normal(size=(3, 9))
    values = {"T": 0.7, "s": 1.3, "n": 9, "n_0": 4}
    for name, params in [("softmax", {}), ("ssmax", {"s": 1.3}), ("logn", {"base_length": 4.0})]:
        N = nz.get(name)
        F = N.sympy_F.subs({sym: values[sym.name] for sym in N.sympy_F.free_symbols if sym.name != "l"})
        Fn = sp.lambdify(nz.LOGIT, F, "numpy")
        ref = Fn(z) / Fn(z).sum(axis=-1, keepdims=True)
        np.testing.assert_allclose(N.weights(z, T=0.7, **params), ref, rtol=1e-12)
    for name in ("sparsemax", "entmax15", "entmax", "sigmoid", "adaptive_temperature"):
        assert nz.get(name).sympy_F is None


# ---------------------------------------------------------------------------- Jacobians


def _torch_map(name, **params):
    T = params.get("T", 1.0)
    if name == "softmax":
        return lambda x: torch.softmax(x / T, -1)
    if name == "ssmax":
        return lambda x: torch.softmax(params.get("s", 1.0) * np.log(x.shape[-1]) * x / T, -1)
    if name == "logn":
        return lambda x: torch.softmax(max(1.0, np.log(x.shape[-1]) / np.log(params["base_length"])) * x / T, -1)
    if name == "sparsemax":
        return lambda x: entmax.sparsemax(x / T, dim=-1)
    if name == "entmax15":
        return lambda x: entmax.entmax15(x / T, dim=-1)
    if name == "entmax":
        return lambda x: entmax.entmax_bisect(x / T, alpha=params["alpha"], dim=-1, n_iter=80)
    if name == "sigmoid":
        return lambda x: torch.sigmoid(x / T - np.log(x.shape[-1]))
    if name == "adaptive_temperature":

        def f(x):
            z = x / T
            p = torch.softmax(z, -1)
            H = -(torch.where(p > 0, p * torch.log(p), torch.zeros_like(p))).sum()
            poly = sum(c * H ** (4 - k) for k, c in enumerate(nz.ADAPTIVE_POLYNOMIAL))
            beta = torch.where((H > 0.5) & (poly > 1.0), poly, torch.ones_like(poly))
            return torch.softmax(beta * z, -1)

        return f
    raise AssertionError(name)


JACOBIAN_CASES = [
    ("softmax", {"T": 0.5}),
    ("ssmax", {"s": 0.8, "T": 2.0}),
    ("logn", {"base_length": 3.0}),
    ("sparsemax", {"T": 0.7}),
    ("entmax15", {}),
    ("entmax", {"alpha": 1.3}),
    ("entmax", {"alpha": 2.5}),
    ("sigmoid", {"T": 1.5}),
    ("adaptive_temperature", {}),
    ("adaptive_temperature", {"T": 0.4}),
]


@pytest.mark.parametrize("name,params", JACOBIAN_CASES)
def test_jacobian_matches_torch_autograd(name, params):
    N = nz.get(name)
    f = _torch_map(name, **params)
    rows = [RNG.normal(size=6) * s for s in (0.5, 1.0, 2.0, 4.0)] + [RNG.normal(size=11)]
    for row in rows:
        ours = N.jacobian(row, **params)
        ref = torch.autograd.functional.jacobian(f, _torch(row)).numpy()
        np.testing.assert_allclose(ours, ref, atol=1e-7, rtol=1e-6)
    batch = np.stack(rows[:4])
    np.testing.assert_allclose(N.jacobian(batch, **params)[2], N.jacobian(rows[2], **params), atol=1e-15)


@pytest.mark.parametrize("name", nz.names())
def test_jacobian_matches_finite_differences(name):
    N = nz.get(name)
    z = RNG.normal(size=(3, 7))
    fd = nz.finite_difference_jacobian(lambda y: N.weights(y, T=0.9), z)
    np.testing.assert_allclose(N.jacobian(z, T=0.9), fd, atol=1e-6)


def test_adaptive_jacobian_is_not_a_plain_softmax_jacobian():
    # Where β is active, ∂β/∂l contributes: the Jacobian differs from β·J_softmax(βl).
    z = np.array([1.2, 0.3, -0.4, 0.1, 0.9, -1.0])
    _, H, beta, dbeta = nz._adaptive_beta(z)
    assert H > 0.5 and beta > 1 and dbeta != 0
    a = nz.get("adaptive_temperature").weights(z)
    frozen = beta * (np.diag(a) - np.outer(a, a))
    assert np.abs(nz.get("adaptive_temperature").jacobian(z) - frozen).max() > 1e-3


def test_finite_difference_kernel_validates():
    with pytest.raises(ValueError, match="^eps:"):
        nz.finite_difference_jacobian(lambda z: z, [1.0], eps=0)
    with pytest.raises(ValueError, match="^logits:"):
        nz.finite_difference_jacobian(lambda z: z, [np.nan])


# ------------------------------------------------------------------ properties, metadata


@given(
    arrays(np.float64, st.integers(1, 9), elements=st.floats(-30, 30, allow_nan=False)),
    st.sampled_from([n for n in nz.names() if n != "sigmoid"]),
    st.floats(0.05, 20),
)
@example(np.zeros(5), "sparsemax", 1.0)
@example(np.array([30.0, -30.0, -30.0]), "entmax15", 0.05)
@example(np.array([1.0, 1.0, 0.0]), "entmax", 1.0)
def test_weights_are_distributions_and_permutation_equivariant(z, name, T):
    N = nz.get(name)
    w = N.weights(z, T=T)
    assert w.shape == z.shape
    assert np.all(w >= 0)
    assert abs(w.sum() - 1.0) < 1e-9
    perm = np.random.default_rng(0).permutation(z.size)
    np.testing.assert_allclose(N.weights(z[perm], T=T), w[perm], atol=1e-9)


def test_metadata():
    expected = {
        # name: (depends_on_length, sparse, sums_to_one)
        "softmax": (False, False, True),
        "ssmax": (True, False, True),
        "logn": (True, False, True),
        "sparsemax": (False, True, True),
        "entmax15": (False, True, True),
        "entmax": (False, True, True),
        "sigmoid": (True, False, False),
        "adaptive_temperature": (False, False, True),
    }
    assert set(expected) <= set(nz.names())
    for name, (length, sparse, one) in expected.items():
        N = nz.get(name)
        assert (N.depends_on_length, N.sparse, N.sums_to_one) == (length, sparse, one), name
        assert N.name == name and N.params["T"] == 1.0
        assert N.describe()["name"] == name
    # sparse ones really produce zeros; dense ones never do on moderate logits
    z = np.array([3.0, 0.0, -3.0, -3.0])
    for name in expected:
        zeros = bool((nz.get(name).weights(z) == 0).any())
        assert zeros == expected[name][1], name


def test_batched_weights_match_rows_and_are_fast():
    import time

    z = RNG.normal(size=(12, 12, 16, 128))  # (layers, heads, Q, L)
    for name in nz.names():
        N = nz.get(name)
        t0 = time.perf_counter()
        w = N.weights(z)
        elapsed = time.perf_counter() - t0
        assert w.shape == z.shape
        np.testing.assert_allclose(w[3, 5, 7], N.weights(z[3, 5, 7]), atol=1e-14)
        assert elapsed < 2.0, f"{name} took {elapsed:.2f}s on {z.shape}"


def test_argument_errors_name_the_argument():
    sm = nz.get("softmax")
    with pytest.raises(ValueError, match="^logits:"):
        sm.weights([1.0, np.inf])
    with pytest.raises(ValueError, match="^logits:"):
        sm.weights([])
    with pytest.raises(ValueError, match="^T:"):
        sm.weights([1.0], T=-1)
    with pytest.raises(TypeError, match="^alpha: unknown parameter"):
        sm.weights([1.0], alpha=2.0)
    with pytest.raises(ValueError, match="^alpha:"):
        nz.get("entmax").weights([1.0, 2.0], alpha=1.0)
    with pytest.raises(ValueError, match="^s:"):
        nz.get("ssmax", s=0)
    with pytest.raises(ValueError, match="^n:"):
        nz.get("ssmax").weights([1.0, 2.0], n=0)
    with pytest.raises(ValueError, match="^name_or_spec: cannot parse parameter"):
        nz.get("entmax(alpha)")


# --------------------------------------------------------------------------- plug-ins


def _square(z):
    return z**2 / (z**2).sum(axis=-1, keepdims=True)


def _square_jacobian(z):
    # ∂/∂z_j (z_i²/S) = 2 z_i δ_ij / S − 2 z_i² z_j / S²,  S = Σ z²
    S = (z**2).sum()
    return 2 * np.diag(z) / S - 2 * np.outer(z**2, z) / S**2


def test_from_callable_finite_difference_jacobian():
    N = nz.from_callable(_square, name="square")
    z = np.array([[1.0, 2.0, -0.5]])
    np.testing.assert_allclose(N.jacobian(z)[0], _square_jacobian(z[0]), atol=1e-8)
    # J(l; T) = J_z(l/T) / T
    np.testing.assert_allclose(N.jacobian(z, T=2.0)[0], _square_jacobian(z[0] / 2) / 2, atol=1e-8)
    assert N.sympy_F is None and N.validate_output


@pytest.mark.parametrize(
    "func,match",
    [
        (lambda z: z - z.mean(-1, keepdims=True), "non-negative"),
        (lambda z: np.full_like(z, np.nan), "NaN"),
        (lambda z: np.ones(z.shape[:-1] + (z.shape[-1] + 1,)) / (z.shape[-1] + 1), "shape"),
        (lambda z: np.ones_like(z), "sum to 1"),
        (lambda z: "no", "not an array"),
    ],
)
def test_bad_plugins_get_clear_errors(func, match):
    N = nz.from_callable(func, name="bad")
    with pytest.raises(nz.PluginError, match=f"^normalizer 'bad': .*{match}"):
        N.weights(np.array([[1.0, 2.0, 3.0]]))


def test_bad_plugin_jacobian_and_declared_unnormalized():
    N = nz.from_callable(_square, jacobian=lambda z: np.zeros((2, 2)), name="badjac")
    with pytest.raises(nz.PluginError, match="Jacobian has shape"):
        N.jacobian([1.0, 2.0, 3.0])
    ok = nz.from_callable(lambda z: np.ones_like(z), name="ones", sums_to_one=False)
    assert ok.weights([1.0, 2.0]).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="^func:"):
        nz.from_callable(3)
    with pytest.raises(ValueError, match="^params: 'T' is reserved"):
        nz.from_callable(_square, params={"T": 1.0})


def test_from_sympy_weights_and_jacobian():
    l, p = sp.symbols("l p", real=True)
    N = nz.from_sympy((1 + l**2) ** p, l, name="power", p=1.5)
    z = RNG.normal(size=(4, 6))
    F = (1 + z**2) ** 1.5
    np.testing.assert_allclose(N.weights(z), F / F.sum(-1, keepdims=True), rtol=1e-12)
    fd = nz.finite_difference_jacobian(lambda y: N.weights(y), z)
    np.testing.assert_allclose(N.jacobian(z), fd, atol=1e-7)
    # sympy_F is in the raw logit (the kernels act on l/T); the ratio form at the defaults is F itself
    assert N.sympy_F == (1 + (l / nz._T) ** 2) ** p and not N.depends_on_length
    assert N.expr == (1 + l**2) ** sp.Rational(3, 2)
    # a length-aware F: exp(l·log n) is ssmax with s = 1
    n = sp.Symbol("n", positive=True)
    S = nz.from_sympy(sp.exp(l * sp.log(n)), l, name="ssmax_sympy")
    assert S.depends_on_length
    np.testing.assert_allclose(S.weights(z), nz.get("ssmax").weights(z), rtol=1e-12)
    np.testing.assert_allclose(S.jacobian(z), nz.get("ssmax").jacobian(z), atol=1e-12)


def test_from_sympy_errors():
    l, c = sp.symbols("l c", real=True)
    with pytest.raises(nz.PluginError, match="F must be positive"):
        nz.from_sympy(1 + l, l, name="affine").weights([0.0, -3.0])
    with pytest.raises(ValueError, match="^F_expr: the symbol 'T' is reserved"):
        nz.from_sympy(sp.exp(l / sp.Symbol("T")), l)
    with pytest.raises(ValueError, match="^l_symbol:"):
        nz.from_sympy(sp.exp(c), l, c=1.0)
    with pytest.raises(TypeError, match="^l_symbol:"):
        nz.from_sympy(sp.exp(l), "l")
    with pytest.raises(TypeError, match="^d: not a free symbol"):
        nz.from_sympy(sp.exp(l), l, d=1.0)


def test_registry_register_and_unregister():
    N = nz.register("test_taylor2", nz.get("taylor2"))
    try:
        assert "test_taylor2" in nz.names() and N.name == "test_taylor2"
        z = np.array([-1.0, 0.0, 2.0])
        F = 1 + z + z**2 / 2
        np.testing.assert_allclose(nz.get("test_taylor2").weights(z), F / F.sum(), rtol=1e-12)
        with pytest.raises(ValueError, match="already registered"):
            nz.register("test_taylor2", _square)
    finally:
        nz.unregister("test_taylor2")
    assert "test_taylor2" not in nz.names()
    with pytest.raises(ValueError, match="^name:"):
        nz.register("bad name", _square)
    with pytest.raises(nz.NormalizerNotFound, match="unknown normalizer 'nope'"):
        nz.get("nope")


def test_load_module_object(monkeypatch):
    mod = types.ModuleType("fake_plugin_mod")
    mod.square = _square
    l = sp.Symbol("l", real=True)
    mod.F = sp.exp(2 * l)
    mod.ready = nz.from_callable(_square, name="ready")
    monkeypatch.setitem(sys.modules, "fake_plugin_mod", mod)
    assert nz.load("fake_plugin_mod:square").name == "fake_plugin_mod:square"
    np.testing.assert_allclose(nz.load("fake_plugin_mod:F").weights([0.0, 1.0]), nz.get("softmax").weights([0.0, 2.0]))
    assert nz.load("fake_plugin_mod:ready").name == "ready"
    with pytest.raises(nz.NormalizerNotFound, match="has no attribute"):
        nz.load("fake_plugin_mod:missing")
    with pytest.raises(nz.NormalizerNotFound, match="cannot import module"):
        nz.load("no_such_module_xyz:f")


def test_load_from_a_file_path_and_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "plug.py").write_text("import numpy as np\ndef f(z):\n    e = np.exp(2 * z)\n    return e / e.sum(-1, keepdims=True)\n")
    N = nz.load(str(tmp_path / "plug.py") + ":f")
    np.testing.assert_allclose(N.weights([0.0, 1.0]), nz.get("softmax").weights([0.0, 2.0]), rtol=1e-12)
    (tmp_path / "broken.py").write_text("raise RuntimeError('bad plug-in')\n")
    with pytest.raises(nz.PluginError, match="RuntimeError: bad plug-in"):
        nz.load(str(tmp_path / "broken.py") + ":f")
    with pytest.raises(nz.NormalizerNotFound, match="no such file"):
        nz.load(str(tmp_path / "absent.py") + ":f")
    # a dotted path resolves from the current directory even when it is not on sys.path
    pkg = tmp_path / "cwdpkg_for_test"
    pkg.mkdir()
    (pkg / "mod.py").write_text("import numpy as np\ndef g(z):\n    return np.full(z.shape, 1.0 / z.shape[-1])\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert nz.load("cwdpkg_for_test.mod:g").weights([3.0, 1.0]).tolist() == [0.5, 0.5]
    assert str(tmp_path) not in sys.path


class _FakeEntryPoint:
    def __init__(self, name, obj=None, error=None):
        self.name, self.value, self._obj, self._error = name, f"pkg.mod:{name}", obj, error

    def load(self):
        if self._error:
            raise self._error
        return self._obj


def test_load_entry_point(monkeypatch):
    eps = [_FakeEntryPoint("epsquare", _square), _FakeEntryPoint("broken", error=ImportError("boom"))]
    seen = {}

    def fake_entry_points(group=None, **kw):
        seen["group"] = group
        return list(eps) if group == nz.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(nz.importlib.metadata, "entry_points", fake_entry_points)
    N = nz.load("epsquare(T=2)")
    assert seen["group"] == "attnbounds.normalizers"
    assert N.name == "epsquare" and N.params["T"] == 2.0
    np.testing.assert_allclose(N.weights([1.0, 3.0]), [0.1, 0.9])
    with pytest.raises(nz.PluginError, match="entry point 'broken'.*failed to load: boom"):
        nz.load("broken")
    with pytest.raises(nz.NormalizerNotFound):
        nz.load("absent")


# ------------------------------------------------------------- the ratio-form families

GRID = np.linspace(-8.0, 8.0, 41)
FAMILY_NAMES = nz.names(role="family")


def _family(name, param):
    N = nz.get(name)
    return N.with_params(**{N.search_param: param}) if N.search_param else N


@pytest.mark.parametrize("name", FAMILY_NAMES)
@pytest.mark.parametrize("param", [0.5, 2.0])
def test_numpy_matches_sympy_and_derivative(name, param):
    fam = _family(name, param)
    F = sp.lambdify(LOGIT, fam.expr, "numpy")
    dF = sp.lambdify(LOGIT, fam.ratio_derivative(), "numpy")
    np.testing.assert_allclose(fam.F(GRID), F(GRID), rtol=1e-12)
    np.testing.assert_allclose(fam.dF(GRID), dF(GRID), rtol=1e-10, atol=1e-300)
    assert np.all(fam.F(GRID) > 0)
    # weights = F(l_i)/sum_j F(l_j), Jacobian = (diag a - a a^T) diag((log F)')
    z = GRID[::7]
    a = fam.weights(z)
    np.testing.assert_allclose(a, F(z) / F(z).sum(), rtol=1e-12)
    g = sp.lambdify(LOGIT, fam.log_derivative(), "numpy")(z) + 0 * z
    np.testing.assert_allclose(fam.jacobian(z), (np.diag(a) - np.outer(a, a)) * g[None, :], rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_family_is_built_from_the_theory_family(name):
    # the registry's family of a name and the theory's SymPy family of that name are one F
    from attnbounds.theory import normalization as thn

    fam = thn.FAMILIES[name]
    N = nz.get(name)
    assert sp.simplify(N.expr - fam.F.subs({s: 1 for s in fam.params})) == 0
    assert fam.real_line and "family" in N.roles and N.positive and not N.depends_on_length


def test_every_real_line_theory_family_is_registered_and_no_name_means_two_things():
    from attnbounds.theory import normalization as thn

    real = {k for k, f in thn.FAMILIES.items() if f.real_line}
    assert real == set(nz.names(role="family"))
    assert "shifted_power" not in nz.names()  # positive on [-a, a] only
    for old in nz.RENAMED:
        assert old not in nz.names() and old not in thn.FAMILIES
        with pytest.raises(nz.NormalizerNotFound, match="renamed"):
            nz.get(old)
    # "sigmoid" is sigmoid attention (elementwise), "sigmoid_ratio" the ratio form of the same function
    z = np.array([0.0, 1.0, -2.0])
    assert not nz.get("sigmoid").sums_to_one and nz.get("sigmoid").sympy_F is None
    assert nz.get("sigmoid_ratio").weights(z).sum() == pytest.approx(1.0)


def test_taylor2_is_positive_exactly():
    # 1 + l + l²/2 − ((l + 1)² + 1)/2 expands to 0, and ((l + 1)² + 1)/2 ≥ 1/2.
    fam = nz.get("taylor2")
    assert sp.expand(fam.expr - ((LOGIT + 1) ** 2 + 1) / 2) == 0


def test_softplus_does_not_overflow():
    fam = nz.get("softplus")
    np.testing.assert_allclose(fam.F(np.array([800.0])), [800.0])
    assert fam.F(np.array([-800.0]))[0] >= 0


@pytest.mark.parametrize(
    "name, kwargs, match",
    [
        ("softmax", dict(T=0), "T:"),
        ("softmax", dict(T=float("nan")), "T:"),
        ("even_power", dict(p=-1), "p:"),
        ("even_power", dict(p="x"), "p:"),
    ],
)
def test_family_errors_name_the_argument(name, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        nz.get(name, **kwargs)


def test_from_sympy_evaluates_past_float_overflow_in_mpmath():
    # log((1 + l^2)^2 + e^l) is inf in float64 for l > 709; the plug-in re-evaluates those entries
    l = sp.Symbol("l", real=True)
    N = nz.from_sympy((1 + l**2) ** 2 + sp.exp(l), l, name="poly_exp")
    z = np.array([712.0, 0.0, 705.0])
    w = N.weights(z)
    assert np.all(np.isfinite(w)) and w.sum() == pytest.approx(1.0)
    assert w[0] / w[2] == pytest.approx(np.exp(7.0), rel=1e-9)  # e^l dominates both
    J = N.jacobian(z)
    assert np.all(np.isfinite(J))
    # a non-positive F is still an error naming the plug-in
    with pytest.raises(nz.PluginError, match="'relu'.*positive"):
        nz.from_sympy(sp.Max(l, 0), l, name="relu").weights([1.0, -1.0])


def test_softplus_log_derivative_in_the_far_left_tail_is_one_without_warnings():
    """(log F)' = σ(x)/log(1 + e^x) → 1 as x → −∞. It was computed as exp(log expit(x) − …): expit
    underflows to 0 below x ≈ −745, so it warned 'divide by zero in log' (12 warnings under
    ``check --normalizer softplus``) and gave 0 there instead of 1."""
    import warnings

    from attnbounds.numerics.normalizers import _RATIO_NUMPY

    dlog = _RATIO_NUMPY["softplus"][3]
    x = np.array([-1000.0, -800.0, -50.0, -1.0, 0.0, 1.0, 50.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dlog(x)
    assert np.allclose(got[:3], 1.0, rtol=1e-12)
    ref = 1 / (1 + np.exp(-x[3:])) / np.log1p(np.exp(x[3:]))
    assert np.allclose(got[3:], ref, rtol=1e-12)
