"""Argument checks shared by every public kernel.

Each check raises :class:`ValueError` (or :class:`TypeError`) whose message starts with the
argument's name, so that a user sees at once which input was wrong.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_rng",
    "check_count",
    "check_seed",
    "as_float_array",
    "check_temperature",
    "check_top_n",
    "check_distribution",
    "check_embeddings",
    "exact_number",
]


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """``rng`` if it is a numpy Generator, else a one-line ``TypeError``.

    >>> check_rng(0)
    Traceback (most recent call last):
    ...
    TypeError: rng: expected a numpy Generator, got int
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name}: expected a numpy Generator, got {type(rng).__name__}")
    return rng


def check_count(value, name: str, minimum: int = 1) -> int:
    """``value`` as an ``int`` if it is an integer (not a bool) >= ``minimum``: a
    ``TypeError`` for a non-integer, a ``ValueError`` for one that is too small.

    >>> check_count(3, "n")
    3
    >>> check_count(0, "n")
    Traceback (most recent call last):
    ...
    ValueError: n: must be an integer >= 1, got 0
    >>> check_count(2.0, "L")
    Traceback (most recent call last):
    ...
    TypeError: L: must be an integer >= 1, got 2.0 (float)
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: must be an integer >= {minimum}, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_seed(seed, name: str = "seed") -> int:
    """``seed`` as an ``int`` if it is a non-negative integer.

    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed: must be a non-negative integer, got -1
    """
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)) or seed < 0:
        raise ValueError(f"{name}: must be a non-negative integer, got {seed!r}")
    return int(seed)


def as_float_array(value, name: str, *, min_ndim: int = 1, dtype=np.float64) -> np.ndarray:
    """Convert ``value`` to a finite float array with at least ``min_ndim`` dimensions.

    >>> as_float_array([1, 2], "logits")
    array([1., 2.])
    >>> as_float_array([1, float("nan")], "logits")
    Traceback (most recent call last):
    ...
    ValueError: logits: must be finite (found NaN or inf)
    """
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected an array of numbers, got {type(value).__name__}") from exc
    if arr.ndim < min_ndim:
        raise ValueError(f"{name}: expected at least {min_ndim} dimension(s), got shape {arr.shape}")
    if arr.size == 0 or (arr.ndim >= 1 and arr.shape[-1] == 0):
        raise ValueError(f"{name}: must not be empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must be finite (found NaN or inf)")
    return arr


def check_temperature(T, name: str = "T") -> float | np.ndarray:
    """Check a temperature: a finite number (or array) strictly greater than 0.

    >>> check_temperature(0.5)
    0.5
    >>> check_temperature(0)
    Traceback (most recent call last):
    ...
    ValueError: T: must be > 0, got 0
    """
    if isinstance(T, numbers.Real) and not isinstance(T, bool):
        if not np.isfinite(T) or T <= 0:
            raise ValueError(f"{name}: must be > 0, got {T!r}")
        return float(T)
    arr = np.asarray(T, dtype=np.float64)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name}: must be finite and > 0 everywhere")
    return arr


def check_top_n(n, L: int, name: str = "n") -> int:
    """Check a selection size ``1 <= n < L``.

    >>> check_top_n(2, 5)
    2
    >>> check_top_n(5, 5)
    Traceback (most recent call last):
    ...
    ValueError: n: must satisfy 1 <= n < L = 5, got 5
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name}: must be an integer, got {type(n).__name__}")
    n = int(n)
    if not 1 <= n < L:
        raise ValueError(f"{name}: must satisfy 1 <= n < L = {L}, got {n}")
    return n


def check_distribution(weights, name: str = "weights", *, atol: float = 1e-8) -> np.ndarray:
    """Check that the last axis of ``weights`` is a probability vector.

    >>> check_distribution([0.25, 0.75])
    array([0.25, 0.75])
    >>> check_distribution([0.5, 0.6])
    Traceback (most recent call last):
    ...
    ValueError: weights: each row must sum to 1 (worst row sums to 1.1)
    """
    w = as_float_array(weights, name)
    if np.any(w < -atol):
        raise ValueError(f"{name}: must be non-negative (min {w.min():.3g})")
    sums = w.sum(axis=-1)
    bad = np.abs(sums - 1.0)
    if np.any(bad > atol * max(1, w.shape[-1])):
        worst = np.ravel(sums)[np.argmax(np.ravel(bad))]
        raise ValueError(f"{name}: each row must sum to 1 (worst row sums to {worst:.6g})")
    return w


def check_embeddings(x, weights: np.ndarray, name: str = "x") -> np.ndarray:
    """Check embeddings ``x`` of shape ``(..., L, d)`` against weights of shape ``(..., L)``.

    >>> check_embeddings(np.zeros((3, 2)), np.ones(3) / 3).shape
    (3, 2)
    >>> check_embeddings(np.zeros((4, 2)), np.ones(3) / 3)
    Traceback (most recent call last):
    ...
    ValueError: x: shape (4, 2) does not match weights shape (3,); expected (..., 3, d)
    """
    arr = as_float_array(x, name, min_ndim=2)
    if arr.shape[-2] != weights.shape[-1]:
        raise ValueError(
            f"{name}: shape {arr.shape} does not match weights shape {weights.shape}; "
            f"expected (..., {weights.shape[-1]}, d)"
        )
    try:
        np.broadcast_shapes(arr.shape[:-2], weights.shape[:-1])
    except ValueError as exc:
        raise ValueError(
            f"{name}: batch shape {arr.shape[:-2]} does not broadcast with weights batch shape "
            f"{weights.shape[:-1]}"
        ) from exc
    return arr


def exact_number(value, name: str = "value"):
    """``value`` as an exact SymPy number, never a guess: an int (numpy's too) as an Integer, a
    ``Fraction`` or SymPy rational as itself, a float (numpy's, SymPy's ``Float``) as the decimal
    it prints as, its shortest round-trip form (``0.1`` → 1/10, ``1e-100`` → 10^-100, which the
    float is the nearest double to), and any other exact SymPy number as itself. Unlike
    ``sympy.nsimplify``, which guesses a closed form (0.3333333333 → 1/3, 1.4142135623730951 →
    √2, 1e-100 → 0), the value is the one written.

    >>> exact_number(0.1), exact_number(0.3333333333), exact_number(2), exact_number(1.4142135623730951)
    (1/10, 3333333333/10000000000, 2, 14142135623730951/10000000000000000)
    >>> exact_number(float("nan"), "T")
    Traceback (most recent call last):
    ...
    ValueError: T: must be a finite number, got nan
    """
    from fractions import Fraction

    import sympy as sp

    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a number, got bool")
    if isinstance(value, sp.Basic):
        if value.is_Float:
            value = float(value)
        elif value.is_number and value.is_finite and value.is_extended_real:
            return value
        else:
            raise ValueError(f"{name}: must be a finite real number, got {value}")
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Real):
        v = float(value)
        if not np.isfinite(v):
            raise ValueError(f"{name}: must be a finite number, got {value!r}")
        return sp.Rational(repr(v))
    raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
