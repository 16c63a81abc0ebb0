"""Least-squares fits of scaling laws, shared by the claims and the experiments.

:func:`growth_exponent` (slope of log d̃ against log L), :func:`limit_intercept` (the
fitted limit a of d̃/L = a + b/L) and :func:`loglog_slope` (slope of log g against log T
over small T, skipping underflowed entries).
"""

from __future__ import annotations

import numpy as np

__all__ = ["growth_exponent", "limit_intercept", "loglog_slope"]


def _check_curve(L_values, d_values):
    Ls = np.asarray(L_values, dtype=np.float64)
    ds = np.asarray(d_values, dtype=np.float64)
    if Ls.ndim != 1 or Ls.size < 2 or np.any(Ls <= 0):
        raise ValueError("L_values: need a 1-D array of at least 2 positive lengths")
    if ds.shape[-1] != Ls.size:
        raise ValueError(f"d_values: last axis {ds.shape[-1]} does not match {Ls.size} lengths")
    return Ls, ds


def growth_exponent(L_values, d_values) -> np.ndarray:
    """Least-squares slope p of log d̃ against log L (one per row of ``d_values``).

    >>> float(growth_exponent([1, 2, 4], [3.0, 6.0, 12.0]))
    1.0
    """
    Ls, ds = _check_curve(L_values, d_values)
    if np.any(ds <= 0):
        raise ValueError("d_values: must be > 0 for a log-log fit")
    u = np.log(Ls) - np.log(Ls).mean()
    v = np.log(ds)
    return (v - v.mean(axis=-1, keepdims=True)) @ u / (u @ u)


def limit_intercept(L_values, d_values) -> np.ndarray:
    """Intercept a of the least-squares fit d̃/L = a + b/L (the fitted limit of d̃/L).

    >>> float(limit_intercept([2, 4, 8], [1.0, 3.0, 7.0]))
    1.0
    """
    Ls, ds = _check_curve(L_values, d_values)
    u = 1.0 / Ls
    v = ds / Ls
    uc = u - u.mean()
    b = (v - v.mean(axis=-1, keepdims=True)) @ uc / (uc @ uc)
    return v.mean(axis=-1) - b * u.mean()


def loglog_slope(T, g, *, below: float = 0.1) -> np.ndarray:
    """Least-squares slope of log g against log T over T <= ``below`` (batched on (..., n_T)).

    Entries with g <= 0 (underflow) are left out of their fit; NaN where fewer than two
    points remain.

    >>> T = np.array([1e-3, 1e-2, 1e-1, 1.0])
    >>> float(loglog_slope(T, 2.0 / T).round(6))
    -1.0
    """
    Ts = np.asarray(T, dtype=np.float64).reshape(-1)
    gv = np.asarray(g, dtype=np.float64)
    if gv.shape[-1] != Ts.size:
        raise ValueError(f"g: last axis must have {Ts.size} entries (one per T)")
    use = (Ts <= below)[None, :] & (gv.reshape(-1, Ts.size) > 0)
    lx = np.log(Ts)[None, :]
    ly = np.log(np.where(use, gv.reshape(-1, Ts.size), 1.0))
    cnt = use.sum(-1)
    mx = np.where(use, lx, 0).sum(-1) / np.maximum(cnt, 1)
    my = np.where(use, ly, 0).sum(-1) / np.maximum(cnt, 1)
    sxx = np.where(use, (lx - mx[:, None]) ** 2, 0).sum(-1)
    sxy = np.where(use, (lx - mx[:, None]) * (ly - my[:, None]), 0).sum(-1)
    slope = np.where((cnt >= 2) & (sxx > 0), sxy / np.where(sxx > 0, sxx, 1), np.nan)
    return slope.reshape(gv.shape[:-1])
