"""sampling.py: shapes, support and first moments of the batched generators."""

import math

import numpy as np
import pytest

from attnbounds.numerics.sampling import (
    SIMPLEX_KINDS,
    gaussian_points,
    random_logits,
    random_simplex,
    sphere_points,
)


@pytest.mark.parametrize("kind", SIMPLEX_KINDS)
@pytest.mark.parametrize("L", [1, 2, 7])
def test_random_simplex_rows_are_distributions(kind, L):
    w = random_simplex(np.random.default_rng(0), 500, L, kind)
    assert w.shape == (500, L)
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    if kind == "one_hot":
        assert np.all(np.count_nonzero(w, axis=-1) == 1)
    if kind == "two_point":
        assert np.all(np.count_nonzero(w, axis=-1) <= 2)


def test_dirichlet_mean_is_uniform():
    w = random_simplex(1, 20000, 4, "dirichlet")
    # Flat Dirichlet: each coordinate is Beta(1, 3), variance 3/80; 5-sigma band.
    assert np.all(np.abs(w.mean(axis=0) - 0.25) < 5 * math.sqrt(3 / 80 / 20000))


def test_sphere_points_norm_and_isotropy():
    x = sphere_points(2, 4000, 3, 5, radius=2.5)
    assert x.shape == (4000, 3, 5)
    np.testing.assert_allclose(np.linalg.norm(x, axis=-1), 2.5)
    # E[x] = 0 and each coordinate has variance radius²/d.
    flat = x.reshape(-1, 5)
    sd = 2.5 / math.sqrt(5)
    assert np.all(np.abs(flat.mean(axis=0)) < 5 * sd / math.sqrt(flat.shape[0]))


def test_logits_and_gaussians_scale():
    z = random_logits(3, 10000, 2, scale=4.0)
    assert abs(z.std() - 4.0) < 0.1
    g = gaussian_points(3, 100, 4, 3, scale=0.5)
    assert g.shape == (100, 4, 3) and abs(g.std() - 0.5) < 0.05


def test_seed_and_generator_agree():
    a = random_logits(7, 3, 4)
    b = random_logits(np.random.default_rng(7), 3, 4)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: random_logits("s", 2, 2), TypeError, "rng:"),
        (lambda: random_logits(-1, 2, 2), TypeError, "rng:"),
        (lambda: random_logits(0, 0, 2), ValueError, "batch:"),
        (lambda: random_logits(0, 2, 2.0), TypeError, "L:"),
        (lambda: random_logits(0, 2, 2, scale=0), ValueError, "scale:"),
        (lambda: random_simplex(0, 2, 2, "cube"), ValueError, "kind:"),
        (lambda: random_simplex(0, 2, 2, concentration=-1.0), ValueError, "concentration:"),
        (lambda: sphere_points(0, 2, 2, 0), ValueError, "d:"),
        (lambda: sphere_points(0, 2, 2, 2, radius=float("inf")), ValueError, "radius:"),
        (lambda: gaussian_points(0, 2, 2, 2, scale=True), TypeError, "scale:"),
    ],
)
def test_error_paths_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
