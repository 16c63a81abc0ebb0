"""Multi-head coverage of a top set: how much of it the heads separate together.

The paper's Discussion: if H heads were independent and each separated a fraction p of the
top set, together they would cover 1 − (1 − p)^H of it. These kernels compute, from per-head
*distinguishable masks* (``masks[..., h, i]`` is True when head h separates token i), the
observed coverage and the three reference values:

* independence: 1 − Π_h (1 − p_h);
* union bound: min(1, Σ_h p_h) (no overlap at all; an upper bound for any heads);
* worst case: max_h p_h (all heads separate nested sets; a lower bound for any heads).

:func:`head_overlap` is the empirical probe: pure numpy, so the experiments layer can call it
on masks computed from captured attention without importing anything above numerics.

>>> m = np.array([[1, 1, 0, 0], [0, 1, 1, 0]], dtype=bool)
>>> float(coverage(m)), head_fractions(m).tolist()
(0.75, [0.5, 0.5])
>>> {k: float(v) for k, v in coverage_references(head_fractions(m)).items()}
{'independent': 0.75, 'union_bound': 1.0, 'worst_case': 0.5}
"""

from __future__ import annotations

import itertools

import numpy as np

from attnbounds.numerics.validation import check_count

__all__ = [
    "coverage",
    "head_fractions",
    "coverage_references",
    "expected_coverage_independent",
    "head_overlap",
]


def _masks(masks, universe=None) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(masks)
    if m.dtype != bool:
        if not np.all((m == 0) | (m == 1)):
            raise ValueError("masks: must be boolean (or 0/1)")
        m = m.astype(bool)
    if m.ndim < 2 or m.shape[-2] < 1 or m.shape[-1] < 1:
        raise ValueError(f"masks: expected shape (..., H, N) with H, N >= 1, got {m.shape}")
    if universe is None:
        u = np.ones(m.shape[:-2] + (m.shape[-1],), dtype=bool)
    else:
        u = np.asarray(universe)
        if u.dtype != bool:
            if not np.all((u == 0) | (u == 1)):
                raise ValueError("universe: must be boolean (or 0/1)")
            u = u.astype(bool)
        try:
            u = np.broadcast_to(u, m.shape[:-2] + (m.shape[-1],))
        except ValueError:
            raise ValueError(f"universe: shape {u.shape} does not match masks {m.shape} (expected (..., N))") from None
    if np.any(u.sum(axis=-1) == 0):
        raise ValueError("universe: must contain at least one token in every row")
    return m & u[..., None, :], u


def head_fractions(masks, universe=None) -> np.ndarray:
    """p_h: the fraction of the universe (default: all N tokens) that head h separates, shape (..., H).

    >>> head_fractions([[1, 0, 0, 1]], universe=[1, 1, 0, 0]).tolist()
    [0.5]
    """
    m, u = _masks(masks, universe)
    return m.sum(axis=-1) / u.sum(axis=-1)[..., None]


def coverage(masks, universe=None) -> np.ndarray:
    """The fraction of the universe that at least one head separates, shape (...).

    >>> float(coverage([[1, 0], [1, 0]]))  # identical heads cover no more than one
    0.5
    """
    m, u = _masks(masks, universe)
    return m.any(axis=-2).sum(axis=-1) / u.sum(axis=-1)


def coverage_references(p) -> dict[str, np.ndarray]:
    """Independence, union bound and worst case from per-head fractions ``p`` of shape (..., H).

    >>> round(float(coverage_references([0.8, 0.8, 0.8])["independent"]), 12)
    0.992
    """
    p = np.asarray(p, dtype=np.float64)
    if p.ndim < 1 or p.shape[-1] < 1:
        raise ValueError(f"p: expected shape (..., H) with H >= 1, got {p.shape}")
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p: every fraction must lie in [0, 1]")
    return {
        "independent": 1.0 - np.prod(1.0 - p, axis=-1),
        "union_bound": np.minimum(1.0, p.sum(axis=-1)),
        "worst_case": p.max(axis=-1),
    }


def expected_coverage_independent(p, n: int) -> np.ndarray:
    """E[coverage] by exhaustive enumeration when token i is in head h's set independently with
    probability p_h (``p`` of shape (..., H)), for a top set of ``n`` tokens; H·n ≤ 14.

    Every one of the 2^{Hn} membership patterns is weighted by its probability; nothing uses
    the closed form 1 − Π(1 − p_h), so this is an independent check of it.

    >>> round(float(expected_coverage_independent([0.5, 0.5], 2)), 12)
    0.75
    """
    p = np.asarray(p, dtype=np.float64)
    n = check_count(n, "n")
    if p.ndim < 1 or not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p: expected shape (..., H) with entries in [0, 1]")
    H = p.shape[-1]
    if H * n > 14:
        raise ValueError(f"n: enumeration needs H*n <= 14, got H={H}, n={n}")
    patterns = np.array(list(itertools.product((0, 1), repeat=H * n)), dtype=bool).reshape(-1, H, n)  # (P, H, n)
    cov = patterns.any(axis=1).mean(axis=-1)  # (P,)
    k = patterns.sum(axis=-1)  # (P, H): members of each head's set
    # probability of a pattern: Π_h p_h^{k_h} (1 − p_h)^{n − k_h}
    logp = np.where(k > 0, k * np.log(np.where(p[..., None, :] > 0, p[..., None, :], 1.0)), 0.0)
    logq = np.where(n - k > 0, (n - k) * np.log(np.where(p[..., None, :] < 1, 1.0 - p[..., None, :], 1.0)), 0.0)
    impossible = ((k > 0) & (p[..., None, :] == 0)) | ((n - k > 0) & (p[..., None, :] == 1))
    prob = np.where(impossible.any(axis=-1), 0.0, np.exp((logp + logq).sum(axis=-1)))  # (..., P)
    return prob @ cov


def head_overlap(masks, universe=None) -> dict:
    """The empirical probe: how real heads' distinguishable sets overlap.

    Parameters
    ----------
    masks : array_like of bool, shape (..., H, N)
        ``masks[..., h, i]`` is True when head h separates token i (for example, N_s's
        distinguishable tokens of head h at one query position). Leading axes (query
        positions, windows) are averaged in the summary.
    universe : array_like of bool, shape (..., N), optional
        The top set the fractions refer to (default: all N tokens).

    Returns
    -------
    dict
        Per row: ``p`` (..., H), ``coverage``, ``independent``, ``union_bound``,
        ``worst_case`` and ``jaccard`` (mean pairwise Jaccard overlap of the heads' sets; NaN
        when H = 1 or both sets are empty); and ``summary``: the means over rows plus
        ``excess_over_independent`` = mean(coverage − independent) (negative: the heads
        overlap more than independent heads would) and ``rows``.

    >>> out = head_overlap(np.array([[[1, 1, 0, 0], [1, 1, 0, 0]]], dtype=bool))
    >>> out["summary"]["coverage"], out["summary"]["independent"], out["summary"]["jaccard"]
    (0.5, 0.75, 1.0)
    """
    m, u = _masks(masks, universe)
    p = head_fractions(m, u)
    cov = coverage(m, u)
    refs = coverage_references(p)
    H = m.shape[-2]
    if H >= 2:
        inter = (m[..., :, None, :] & m[..., None, :, :]).sum(axis=-1)  # (..., H, H)
        union = (m[..., :, None, :] | m[..., None, :, :]).sum(axis=-1)
        iu = np.triu_indices(H, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            jac = inter[..., iu[0], iu[1]] / union[..., iu[0], iu[1]]  # NaN where both sets are empty
        all_nan = np.all(np.isnan(jac), axis=-1)
        jaccard = np.where(all_nan, np.nan, np.nanmean(np.where(all_nan[..., None], 0.0, jac), axis=-1))
    else:
        jaccard = np.full(cov.shape, np.nan)

    def mean(a):
        a = np.asarray(a, dtype=np.float64)
        return float(np.nanmean(a)) if np.any(~np.isnan(a)) else float("nan")

    summary = {
        "heads": int(H),
        "rows": int(np.prod(cov.shape)) if cov.shape else 1,
        "p_mean": mean(p),
        "coverage": mean(cov),
        "independent": mean(refs["independent"]),
        "union_bound": mean(refs["union_bound"]),
        "worst_case": mean(refs["worst_case"]),
        "jaccard": mean(jaccard),
        "excess_over_independent": mean(cov - refs["independent"]),
    }
    return {"p": p, "coverage": cov, **refs, "jaccard": jaccard, "summary": summary}
