"""Test your own attention variant with the attnbounds strategies.

The variant here is *scalable softmax* (SSMax), a length-aware normalizer:
α = softmax(s · log(L) · l), i.e. F(l) = exp(s · log L · l). Replace ``scalable_softmax`` and
``scalable_softmax_jacobian`` by your own normalizer and its Jacobian ∂α/∂l; the properties
below then test it:

1. its outputs are probability distributions (non-negative, summing to 1), for bounded
   logits of every length, with ties and extreme values (``attnbounds.strategies.logits``);
2. its analytic Jacobian matches central finite differences;
3. it agrees with a reference: SSMax is softmax at temperature T = 1/(s · log L);
4. a conclusion of the paper survives the swap: Theorem 1 (i)'s reconstructed distance bound
   holds for SSMax weights on whole attention configurations
   (``attnbounds.strategies.attention_configs``).

Run the properties with ``pytest docs/examples/test_your_variant.py``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnbounds import strategies
from attnbounds.numerics import cumulative_distance, selected_mass, softmax, top_n_mask

# ----------------------------------------------------------------------------- the variant


def scalable_softmax(logits, s: float = 0.4) -> np.ndarray:
    """α_i = exp(s·log(L)·l_i) / Σ_j exp(s·log(L)·l_j) over the last axis."""
    z = np.asarray(logits, dtype=float)  # (..., L)
    if s <= 0:
        raise ValueError(f"s: must be > 0, got {s!r}")
    scale = s * np.log(z.shape[-1])  # s · log L (0 for L = 1: the single weight is 1)
    a = scale * z
    a = a - a.max(axis=-1, keepdims=True)  # shift for exp overflow; α is shift invariant
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def scalable_softmax_jacobian(logits, s: float = 0.4) -> np.ndarray:
    """∂α_i/∂l_j = c · (δ_ij α_i − α_i α_j) with c = s · log L; shape (..., L, L)."""
    alpha = scalable_softmax(logits, s)  # (..., L)
    c = s * np.log(alpha.shape[-1])
    return c * (np.einsum("...i,ij->...ij", alpha, np.eye(alpha.shape[-1])) - alpha[..., :, None] * alpha[..., None, :])


# ----------------------------------------------------------------------------- the checks


def assert_is_distribution(alpha: np.ndarray, atol: float = 1e-12) -> None:
    """Every row of ``alpha`` is non-negative and sums to 1 (up to rounding)."""
    assert np.all(np.isfinite(alpha)), f"non-finite weights {alpha}"
    assert np.all(alpha >= 0), f"negative weight in {alpha}"
    np.testing.assert_allclose(alpha.sum(axis=-1), 1.0, rtol=0, atol=atol * alpha.shape[-1])


def finite_difference_jacobian(normalizer, logits, h: float = 1e-6) -> np.ndarray:
    """Central differences: column j = (α(l + h e_j) − α(l − h e_j)) / (2h)."""
    z = np.asarray(logits, dtype=float)
    L = z.size
    columns = [(normalizer(z + h * e) - normalizer(z - h * e)) / (2 * h) for e in np.eye(L)]
    return np.stack(columns, axis=-1)  # (L, L): row i = α_i, column j = l_j


def assert_jacobian_matches(normalizer, jacobian, logits, h: float = 1e-6) -> None:
    """The analytic Jacobian agrees with central differences (error O(h²) + rounding/h)."""
    analytic = jacobian(logits)
    numeric = finite_difference_jacobian(normalizer, logits, h)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7)


# ----------------------------------------------------------------------------- the properties

scales = st.sampled_from([0.1, 0.4, 1.0, 2.0])


@settings(max_examples=60, deadline=None)
@given(z=strategies.logits(min_size=1, max_size=12, min_value=-20.0, max_value=20.0), s=scales)
@example(z=np.zeros(8), s=0.4)  # uniform logits: uniform weights
@example(z=np.array([20.0, -20.0, -20.0]), s=2.0)  # nearly one-hot
@example(z=np.array([1.0, 1.0, 0.0, 1.0]), s=1.0)  # ties
def test_outputs_are_distributions(z, s):
    assert_is_distribution(scalable_softmax(z, s))


@settings(max_examples=40, deadline=None)
@given(z=strategies.logits(min_size=1, max_size=8, min_value=-3.0, max_value=3.0), s=scales)
@example(z=np.zeros(5), s=0.4)
@example(z=np.array([3.0, -3.0]), s=1.0)
def test_jacobian_matches_finite_differences(z, s):
    assert_jacobian_matches(lambda l: scalable_softmax(l, s), lambda l: scalable_softmax_jacobian(l, s), z)


@settings(max_examples=40, deadline=None)
@given(z=strategies.logits(min_size=2, max_size=12), s=scales)
def test_agrees_with_softmax_at_temperature(z, s):
    # SSMax(l) = softmax(l, T) with T = 1 / (s · log L)   (L >= 2, so log L > 0)
    T = 1.0 / (s * np.log(z.size))
    np.testing.assert_allclose(scalable_softmax(z, s), softmax(z, T=T), rtol=1e-12, atol=1e-15)


def assert_distance_bound(alpha: np.ndarray, x: np.ndarray, n: int) -> None:
    """Theorem 1 (i), reconstructed: d̃ <= (1 − ᾱ_N) d_1 + R((L − N) ᾱ_N − (1 − ᾱ_N)) (any probability vector α)."""
    selected = top_n_mask(alpha, n)
    pair = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=-1)  # ‖x_i − x_j‖
    d_1 = pair[~selected][:, selected].max()  # max over i ∉ I_N, j ∈ I_N (the paper's d_1)
    R = np.linalg.norm(x[selected], axis=-1).max()  # max over I_N of ‖x_j‖
    mass = selected_mass(alpha, n)  # ᾱ_N (raises if α is not a probability vector)
    bound = (1 - mass) * d_1 + R * ((x.shape[0] - n) * mass - (1 - mass))
    assert cumulative_distance(alpha, x, n) <= bound + 1e-12 * (1 + abs(bound) + d_1 + R)


@settings(max_examples=40, deadline=None)
@given(config=strategies.attention_configs(max_size=8, max_dim=3), s=scales)
def test_distance_bound_holds_for_the_variant(config, s):
    alpha = scalable_softmax(config["logits"] / config["T"], s)  # the variant's weights
    assert_distance_bound(alpha, config["x"], config["n"])


@settings(max_examples=30, deadline=None)
@given(seed=strategies.seeds())
def test_large_batches_built_from_a_seed(seed):
    # Volume: Hypothesis draws a seed, numpy builds a (64, 256) batch of logits from it.
    z = np.random.default_rng(seed).normal(scale=5.0, size=(64, 256))
    assert_is_distribution(scalable_softmax(z, 0.4))
