"""Batched random generators for numeric sweeps (numpy only, float64).

Each function takes a :class:`numpy.random.Generator` (or an integer seed) first and returns
a batch with a leading axis of size ``batch``:

* :func:`random_logits` -- ``(batch, L)`` logits, i.i.d. N(0, scale²);
* :func:`random_simplex` -- ``(batch, L)`` probability vectors of a chosen kind;
* :func:`sphere_points` -- ``(batch, L, d)`` points i.i.d. uniform on the sphere of radius ``radius``;
* :func:`gaussian_points` -- ``(batch, L, d)`` i.i.d. N(0, scale²) entries.

The Hypothesis strategies in :mod:`attnbounds.strategies` draw a seed and call these for
volume.

>>> random_logits(0, 2, 3).shape
(2, 3)
>>> np.allclose(random_simplex(0, 4, 5, "dirichlet").sum(axis=-1), 1.0)
True
>>> np.allclose(np.linalg.norm(sphere_points(0, 2, 3, 4, radius=2.0), axis=-1), 2.0)
True
"""

from __future__ import annotations

import numbers

import numpy as np

from attnbounds.numerics.validation import check_count

__all__ = [
    "SIMPLEX_KINDS",
    "as_generator",
    "random_logits",
    "random_simplex",
    "sphere_points",
    "gaussian_points",
]

#: Kinds accepted by :func:`random_simplex`.
SIMPLEX_KINDS: tuple[str, ...] = ("dirichlet", "uniform", "one_hot", "two_point", "peaked")


def as_generator(rng, name: str = "rng") -> np.random.Generator:
    """Return ``rng`` if it is a Generator, or ``numpy.random.default_rng(rng)`` for an int seed.

    >>> isinstance(as_generator(3), np.random.Generator)
    True
    >>> as_generator("x")
    Traceback (most recent call last):
    ...
    TypeError: rng: expected a numpy Generator or a non-negative integer seed, got str
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name}: expected a numpy Generator or a non-negative integer seed, got {type(rng).__name__}")


def _check_positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: must be a real number, got {type(value).__name__}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name}: must be finite and > 0, got {value!r}")
    return float(value)


def random_logits(rng, batch: int, L: int, scale: float = 1.0) -> np.ndarray:
    """Logits of shape ``(batch, L)`` with i.i.d. N(0, scale²) entries."""
    g = as_generator(rng)
    batch = check_count(batch, "batch")
    L = check_count(L, "L")
    scale = _check_positive(scale, "scale")
    return scale * g.standard_normal((batch, L))


def random_simplex(rng, batch: int, L: int, kind: str = "dirichlet", *, concentration: float = 1.0) -> np.ndarray:
    """Probability vectors of shape ``(batch, L)``; every row is non-negative and sums to 1.

    ``kind``:

    * ``"dirichlet"`` -- Dirichlet(concentration, …, concentration) (flat for 1.0);
    * ``"uniform"`` -- every row is 1/L;
    * ``"one_hot"`` -- a random vertex of the simplex;
    * ``"two_point"`` -- mass p ~ U(0, 1) on one random index and 1 − p on another (one-hot if L = 1);
    * ``"peaked"`` -- softmax of N(0, 1) logits divided by a temperature drawn log-uniformly in
      [1e-3, 1e1], which covers near one-hot to near uniform.

    >>> random_simplex(0, 1, 3, "uniform")
    array([[0.33333333, 0.33333333, 0.33333333]])
    >>> random_simplex(0, 1, 3, "cube")
    Traceback (most recent call last):
    ...
    ValueError: kind: must be one of ('dirichlet', 'uniform', 'one_hot', 'two_point', 'peaked'), got 'cube'
    """
    g = as_generator(rng)
    batch = check_count(batch, "batch")
    L = check_count(L, "L")
    if kind not in SIMPLEX_KINDS:
        raise ValueError(f"kind: must be one of {SIMPLEX_KINDS}, got {kind!r}")
    concentration = _check_positive(concentration, "concentration")
    rows = np.arange(batch)
    if kind == "dirichlet":
        # Normalized Gamma(c) variables are Dirichlet(c); the row max guards against all-zero rows.
        gam = g.standard_gamma(concentration, size=(batch, L))
        zero = gam.sum(axis=-1) == 0
        gam[zero, 0] = 1.0
        return gam / gam.sum(axis=-1, keepdims=True)
    if kind == "uniform":
        return np.full((batch, L), 1.0 / L)
    if kind == "one_hot":
        w = np.zeros((batch, L))
        w[rows, g.integers(0, L, size=batch)] = 1.0
        return w
    if kind == "two_point":
        w = np.zeros((batch, L))
        i = g.integers(0, L, size=batch)
        # j ≠ i: shift by 1..L−1 (mod L); for L = 1 both are index 0.
        j = (i + g.integers(1, max(L, 2), size=batch)) % L
        p = g.random(batch)
        np.add.at(w, (rows, i), p)
        np.add.at(w, (rows, j), 1.0 - p)
        return w
    # peaked
    T = 10.0 ** g.uniform(-3.0, 1.0, size=(batch, 1))
    z = g.standard_normal((batch, L)) / T
    z -= z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def gaussian_points(rng, batch: int, L: int, d: int, scale: float = 1.0) -> np.ndarray:
    """Points of shape ``(batch, L, d)`` with i.i.d. N(0, scale²) coordinates."""
    g = as_generator(rng)
    batch = check_count(batch, "batch")
    L = check_count(L, "L")
    d = check_count(d, "d")
    scale = _check_positive(scale, "scale")
    return scale * g.standard_normal((batch, L, d))


def sphere_points(rng, batch: int, L: int, d: int, radius: float = 1.0) -> np.ndarray:
    """Points of shape ``(batch, L, d)``, i.i.d. uniform on the sphere {‖x‖₂ = radius} in R^d.

    A standard Gaussian vector divided by its norm is uniform on the unit sphere. For d = 1
    the "sphere" is {−radius, +radius}.
    """
    g = as_generator(rng)
    batch = check_count(batch, "batch")
    L = check_count(L, "L")
    d = check_count(d, "d")
    radius = _check_positive(radius, "radius")
    z = g.standard_normal((batch, L, d))
    norm = np.linalg.norm(z, axis=-1, keepdims=True)
    # A zero Gaussian vector has probability 0; redraw-free fallback to e_1 keeps this total.
    z = np.where(norm > 0, z, np.eye(d)[0])
    norm = np.where(norm > 0, norm, 1.0)
    return radius * z / norm
