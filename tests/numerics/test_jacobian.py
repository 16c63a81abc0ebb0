"""jacobian.py: closed forms against torch.autograd (float64), finite differences and numpy.linalg."""

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings

from attnbounds.numerics.attention import softmax, softmax_jacobian
from attnbounds.numerics.jacobian import (
    finite_difference_jacobian,
    largest_eigenvalue_diag_minus_outer,
    normalizer_jacobian,
    normalizer_weights,
    softmax_jacobian_norms,
)
from attnbounds.numerics import normalizers as nz
from attnbounds.numerics.sampling import random_logits
from attnbounds.strategies import logits, normalizer_families, seeds, temperatures


def stable_reference_jacobian(a, T):
    """(diag α − α αᵀ)/T with the diagonal α_i·Σ_{j≠i} α_j (no cancellation in 1 − α_i)."""
    L = a.shape[-1]
    eye = np.eye(L, dtype=bool)
    others = np.where(eye, 0.0, a[..., None, :]).sum(axis=-1)
    J = -a[..., :, None] * a[..., None, :]
    J[..., np.arange(L), np.arange(L)] = a * others
    return J / np.asarray(T)[..., None, None]


# ----------------------------------------------------------------------------- generic normalizers


@settings(max_examples=25)
@given(normalizer_families(), logits(max_size=6, min_value=-5.0, max_value=5.0))
def test_normalizer_jacobian_matches_torch_autograd(family, z):
    import torch

    torch_F = {
        "softmax": lambda t: torch.exp(t / float(family.params.get("T", 1))),
        "softplus": torch.nn.functional.softplus,
        "taylor2": lambda t: 1 + t + t**2 / 2,
        "even_power": lambda t: (1 + t**2) ** float(family.params.get("p", 1)),
        "sigmoid_ratio": torch.sigmoid,
    }[family.name]

    def weights(t):
        f = torch_F(t)
        return f / f.sum()

    want = torch.autograd.functional.jacobian(weights, torch.tensor(z, dtype=torch.float64)).numpy()
    got = normalizer_jacobian(family.F, family.dF, z)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(normalizer_weights(family.F, z), weights(torch.tensor(z)).numpy(), rtol=1e-12)
    # Each row of ∂α/∂l sums to 0 over i because Σ_i α_i = 1.
    np.testing.assert_allclose(got.sum(axis=0), 0.0, atol=1e-12)


@settings(max_examples=30)
@given(logits(max_size=6), temperatures(1e-1, 1e1))
def test_softmax_family_jacobian_equals_softmax_jacobian(z, T):
    fam = nz.get("softmax", T=T)
    np.testing.assert_allclose(
        normalizer_jacobian(fam.F, fam.dF, z / 10), softmax_jacobian(z / 10, float(fam.params["T"])), atol=1e-14, rtol=1e-9
    )


def test_normalizer_jacobian_batched():
    z = random_logits(0, 5, 4)
    fam = nz.get("softplus")
    J = normalizer_jacobian(fam.F, fam.dF, z)
    assert J.shape == (5, 4, 4)
    for b in range(5):
        np.testing.assert_allclose(J[b], normalizer_jacobian(fam.F, fam.dF, z[b]), rtol=1e-14)


# ----------------------------------------------------------------------------- finite differences


@given(normalizer_families(), logits(max_size=5, min_value=-3.0, max_value=3.0))
def test_finite_differences_agree_with_closed_form(family, z):
    J = normalizer_jacobian(family.F, family.dF, z)

    def weights(t):
        return normalizer_weights(family.F, t)

    central = finite_difference_jacobian(weights, z, eps=1e-5)
    np.testing.assert_allclose(central, J, atol=1e-8)
    forward = finite_difference_jacobian(weights, z, eps=1e-7, scheme="forward")
    backward = finite_difference_jacobian(weights, z, eps=1e-7, scheme="backward")
    np.testing.assert_allclose(forward, J, atol=1e-5)
    np.testing.assert_allclose(backward, J, atol=1e-5)


def test_finite_differences_batched_shape_and_nonsquare():
    z = random_logits(1, 3, 4)
    J = finite_difference_jacobian(lambda t: np.stack([t.sum(-1), (t**2).sum(-1)], axis=-1), z, eps=1e-4)
    assert J.shape == (3, 2, 4)
    np.testing.assert_allclose(J[:, 0], 1.0, atol=1e-9)
    np.testing.assert_allclose(J[:, 1], 2 * z, atol=1e-7)


# ----------------------------------------------------------------------------- fast norms


@settings(max_examples=60)
@given(logits(max_size=12, min_value=-30.0, max_value=30.0), temperatures(1e-2, 1e2))
@example(np.zeros(5), 1.0)
@example(np.array([3.0, 3.0, 0.0]), 0.5)
@example(np.array([1e3, 0.0]), 1.0)
@example(np.array([7.0]), 1.0)
def test_norms_match_numpy_linalg(z, T):
    nrm = softmax_jacobian_norms(z, T)
    J = stable_reference_jacobian(softmax(z, T), T)
    # numpy's norms square the entries, which underflow near a vertex: scale J to max |entry| 1.
    s = np.abs(J).max()
    Js = J / s if s > 0 else J
    np.testing.assert_allclose(nrm.max_entry, s, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(nrm.max_row, s * np.linalg.norm(Js, axis=1).max(), rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(nrm.frobenius, s * np.linalg.norm(Js), rtol=1e-9, atol=1e-300)
    # eigvalsh and the 2-norm are accurate to ~eps·‖J‖ in absolute terms
    np.testing.assert_allclose(nrm.spectral, s * np.linalg.eigvalsh(Js)[-1], rtol=1e-9, atol=1e-14 * s)
    np.testing.assert_allclose(nrm.spectral, s * np.linalg.norm(Js, 2), rtol=1e-8, atol=1e-14 * s)


@settings(max_examples=30)
@given(seeds())
def test_spectral_norm_batched_against_eigvalsh(seed):
    rng = np.random.default_rng(seed)
    L = int(rng.integers(3, 40))
    z = rng.standard_normal((64, L)) * rng.choice([0.1, 1.0, 5.0])
    z[:8, 1] = z[:8, 0]  # ties at the maximum
    z[8:16, 2] = z[8:16, 1]  # repeated second weight
    a = softmax(z)
    got = largest_eigenvalue_diag_minus_outer(a)
    want = np.linalg.eigvalsh(stable_reference_jacobian(a, 1.0))[:, -1]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)


def test_norms_near_a_vertex_match_high_precision():
    # α = softmax(l) with a dominant logit: entries near 1e-160 underflow in naive formulas.
    z = np.array([0.0, -370.0, -368.0, -400.0])
    nrm = softmax_jacobian_norms(z)
    with mpmath.workdps(60):
        e = [mpmath.exp(mpmath.mpf(v)) for v in z]
        a = [v / sum(e) for v in e]
        J = mpmath.matrix(4, 4)
        for i in range(4):
            for j in range(4):
                J[i, j] = a[i] * ((i == j) - a[j])
        eig = max(mpmath.eigsy(J)[0])
        fro = mpmath.sqrt(sum(J[i, j] ** 2 for i in range(4) for j in range(4)))
        row = max(mpmath.sqrt(sum(J[i, j] ** 2 for j in range(4))) for i in range(4))
        ent = max(abs(J[i, j]) for i in range(4) for j in range(4))
    assert float(nrm.spectral) == pytest.approx(float(eig), rel=1e-12)
    assert float(nrm.frobenius) == pytest.approx(float(fro), rel=1e-12)
    assert float(nrm.max_row) == pytest.approx(float(row), rel=1e-12)
    assert float(nrm.max_entry) == pytest.approx(float(ent), rel=1e-12)
    assert 0 < float(nrm.spectral) < 1e-150


def test_norms_batched_temperature_array():
    z = random_logits(2, 6, 5, scale=3.0)
    T = np.array([0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
    nrm = softmax_jacobian_norms(z, T)
    for b in range(6):
        one = softmax_jacobian_norms(z[b], float(T[b]))
        for k, v in one.as_dict().items():
            assert getattr(nrm, k)[b] == pytest.approx(float(v), rel=1e-13)
    keep = softmax_jacobian_norms(z, T[:, None])  # keepdims form (..., 1)
    np.testing.assert_array_equal(keep.spectral, nrm.spectral)
    with pytest.raises(ValueError, match="T: shape"):
        softmax_jacobian_norms(z, np.ones(5))
    with pytest.raises(ValueError, match="T: shape"):
        softmax_jacobian_norms(z[0], np.ones(3))  # would broadcast to a larger batch


def test_known_suprema_at_uniform_two_tokens():
    # L = 2, l1 = l2: α = (1/2, 1/2); entries 1/(4T), rows √2/(4T), spectral 1/(2T), Frobenius 1/(2T).
    nrm = softmax_jacobian_norms([0.0, 0.0], T=0.5)
    assert float(nrm.max_entry) == pytest.approx(0.5)
    assert float(nrm.max_row) == pytest.approx(np.sqrt(2) / 2)
    assert float(nrm.spectral) == pytest.approx(1.0)
    assert float(nrm.frobenius) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: normalizer_weights(np.exp, [np.nan]), ValueError, "logits: must be finite"),
        (lambda: normalizer_weights(lambda z: -np.exp(z), [0.0]), ValueError, "F: must be > 0"),
        (lambda: normalizer_weights(lambda z: np.full_like(z, np.inf), [1.0]), ValueError, "F: returned NaN or inf"),
        (lambda: normalizer_weights(lambda z: z.sum(), [1.0, 2.0]), ValueError, "F: must act elementwise"),
        (lambda: normalizer_weights(3, [1.0]), TypeError, "F: must be callable"),
        (lambda: normalizer_jacobian(np.exp, "x", [1.0]), TypeError, "dF: must be callable"),
        (lambda: finite_difference_jacobian(softmax, [0.0, 1.0], eps=0), ValueError, "eps:"),
        (lambda: finite_difference_jacobian(softmax, [0.0, 1.0], scheme="five"), ValueError, "scheme:"),
        (lambda: finite_difference_jacobian(None, [0.0, 1.0]), TypeError, "func:"),
        (lambda: finite_difference_jacobian(lambda t: t.sum(), [0.0, 1.0]), ValueError, "func: must map"),
        (lambda: softmax_jacobian_norms([0.0], T=0), ValueError, "T: must be > 0"),
        (lambda: softmax_jacobian_norms([]), ValueError, "logits: must not be empty"),
        (lambda: largest_eigenvalue_diag_minus_outer([np.inf, 0.0]), ValueError, "weights: must be finite"),
        (lambda: largest_eigenvalue_diag_minus_outer([0.5, 0.6]), ValueError, "weights: each row must sum to 1"),
    ],
)
def test_error_paths_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("scheme", ["central", "forward", "backward"])
def test_finite_differences_divide_by_the_stored_step(scheme):
    # at |l| = 1e4 a step of 1e-6 is stored to about 1.8e-12: dividing by ε itself gave a
    # relative error of 3.4e-7 (a user's callable plug-in was "falsified" on L2's sharp bound)
    from attnbounds.numerics.attention import softmax
    from attnbounds.numerics.jacobian import finite_difference_jacobian

    for z in ([-1e4, -1e4], [1e4, 1e4 - 0.3, 1e4 + 0.2]):
        z = np.asarray(z)
        a = softmax(z)
        exact = np.diag(a) - np.outer(a, a)
        got = finite_difference_jacobian(softmax, z, scheme=scheme)
        tol = 1e-9 if scheme == "central" else 1e-5  # one-sided: O(ε) truncation
        assert np.allclose(got, exact, rtol=0, atol=tol * np.abs(exact).max()), (z, got, exact)
