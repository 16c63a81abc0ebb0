"""Confidence intervals for Monte Carlo estimates.

* :func:`mean_ci` -- the mean of i.i.d. samples with a Student-t interval,
  x̄ ± t_{(1+c)/2, m−1} · s/√m (s the sample standard deviation, m the sample count);
* :func:`proportion_ci` -- a binomial proportion k/m with a Wilson score or an exact
  Clopper–Pearson interval.

Both return ``(estimate, low, high)``, elementwise for batched input.

>>> mean, lo, hi = mean_ci([1.0, 2.0, 3.0], confidence=0.95)
>>> float(mean), round(float(lo), 4), round(float(hi), 4)
(2.0, -0.4841, 4.4841)
>>> p, lo, hi = proportion_ci(0, 10, method="clopper-pearson", confidence=0.95)
>>> float(p), float(lo), round(float(hi), 4)
(0.0, 0.0, 0.3085)
"""

from __future__ import annotations

import numbers

import numpy as np
# scipy.special, not scipy.stats: the same quantiles without a second of import time.
from scipy import special

from attnbounds.numerics.validation import as_float_array

__all__ = ["PROPORTION_METHODS", "check_confidence", "mean_ci", "proportion_ci"]

#: Methods accepted by :func:`proportion_ci`.
PROPORTION_METHODS: tuple[str, ...] = ("wilson", "clopper-pearson")


def check_confidence(confidence, name: str = "confidence") -> float:
    """Check a confidence level strictly between 0 and 1.

    >>> check_confidence(0.99)
    0.99
    >>> check_confidence(1.0)
    Traceback (most recent call last):
    ...
    ValueError: confidence: must satisfy 0 < confidence < 1, got 1.0
    """
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"{name}: must be a real number, got {type(confidence).__name__}")
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"{name}: must satisfy 0 < confidence < 1, got {confidence!r}")
    return float(confidence)


def mean_ci(samples, confidence: float = 0.99, axis: int | None = None):
    """Sample mean and Student-t confidence interval along ``axis`` (all samples if None).

    Returns ``(mean, low, high)`` as floats (``axis=None``) or arrays (the other axes).
    Needs at least two samples along ``axis``; constant samples give a zero-width interval.

    >>> mean_ci([[1.0, 3.0], [2.0, 2.0]], axis=1)[0]
    array([2., 2.])
    >>> mean_ci([1.0])
    Traceback (most recent call last):
    ...
    ValueError: samples: need at least 2 samples along the axis, got 1
    """
    x = as_float_array(samples, "samples")
    c = check_confidence(confidence)
    if axis is None:
        x = x.ravel()
        axis = 0
    elif isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis: must be an integer or None, got {type(axis).__name__}")
    elif not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis: {axis} is out of range for samples with {x.ndim} dimension(s)")
    m = x.shape[axis]
    if m < 2:
        raise ValueError(f"samples: need at least 2 samples along the axis, got {m}")
    mean = x.mean(axis=axis)
    sem = x.std(axis=axis, ddof=1) / np.sqrt(m)  # s/√m
    half = special.stdtrit(m - 1, 0.5 + c / 2) * sem  # t_{(1+c)/2, m−1}·s/√m
    lo, hi = mean - half, mean + half
    if np.ndim(mean) == 0:
        return float(mean), float(lo), float(hi)
    return mean, lo, hi


def proportion_ci(successes, trials, confidence: float = 0.99, method: str = "wilson"):
    """Proportion k/m with a Wilson score (default) or Clopper–Pearson interval, elementwise.

    Wilson: (p̂ + z²/2m ± z·√(p̂(1−p̂)/m + z²/4m²)) / (1 + z²/m), z = Φ⁻¹((1+c)/2).
    Clopper–Pearson: [B⁻¹(a/2; k, m−k+1), B⁻¹(1−a/2; k+1, m−k)] with a = 1 − c and the
    conventions low = 0 at k = 0 and high = 1 at k = m.

    >>> p, lo, hi = proportion_ci(5, 10, confidence=0.95)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.2366, 0.7634)
    >>> proportion_ci(11, 10)
    Traceback (most recent call last):
    ...
    ValueError: successes: must satisfy 0 <= successes <= trials
    """
    k = np.asarray(successes)
    m = np.asarray(trials)
    for arr, name in ((k, "successes"), (m, "trials")):
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"{name}: must be integer counts, got dtype {arr.dtype}")
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name}: must be whole numbers")
    if np.any(m < 1):
        raise ValueError("trials: must be >= 1")
    if np.any(k < 0) or np.any(k > m):
        raise ValueError("successes: must satisfy 0 <= successes <= trials")
    c = check_confidence(confidence)
    if method not in PROPORTION_METHODS:
        raise ValueError(f"method: must be one of {PROPORTION_METHODS}, got {method!r}")
    k = k.astype(np.float64)
    m = m.astype(np.float64)
    p = k / m
    if method == "wilson":
        z = special.ndtri(0.5 + c / 2)
        centre = (p + z**2 / (2 * m)) / (1 + z**2 / m)
        half = z * np.sqrt(p * (1 - p) / m + z**2 / (4 * m**2)) / (1 + z**2 / m)
        lo, hi = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    else:
        a = 1 - c
        with np.errstate(invalid="ignore", divide="ignore"):
            lo = np.where(k > 0, special.betaincinv(np.maximum(k, 1), m - k + 1, a / 2), 0.0)
            hi = np.where(k < m, special.betaincinv(k + 1, np.maximum(m - k, 1), 1 - a / 2), 1.0)
    if np.ndim(p) == 0:
        return float(p), float(lo), float(hi)
    return p, lo, hi
