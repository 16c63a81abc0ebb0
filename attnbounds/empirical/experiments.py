"""Metrics of experiments E1–E5 on captured attention, vectorized over heads and layers.

Everything here is numpy only (no torch): the inputs are slices of an
:class:`~attnbounds.empirical.capture.AttentionCapture`. Every kernel takes weights of
shape ``(..., L)`` and embeddings of shape ``(..., L, d)``; the leading dimensions are
typically ``(layers, heads)`` and are processed in one batched call, never in a Python
loop over heads.

Notation follows ``CLAIMS.md``: α the weights of one query row over its L visible keys,
I_N the top-N set (ties to the lower index), ᾱ_N the selected mass, s = Σ_{j∈I_N} α_j x_j,
D_i = ‖α_i x_i − s‖₂, d̃ = Σ_{i∉I_N} D_i.

Choices the paper leaves open, and the defaults taken here (all are options of
:class:`ExperimentSettings` and of ``attnbounds reproduce``):

* **x_i**: per-head value vectors, projected to the unit sphere (``x / ‖x‖``).
* **E1/E2** random-selection expectation: the T1(ii) main term
  (L−N)/L · Σ_i ‖(1 + N/(L−1)) α_i x_i − N/(L−1) · Σ_j α_j x_j‖₂, and a Monte Carlo
  estimate of E_S[d̃] over uniformly random N-subsets S with a Student-t interval.
  The same subsets are used for every head (common random numbers).
* **T1(i) bound**, two readings, with d_1 = max_{i∉I_N}‖x_i‖ and R = max_{j∈I_N}‖x_j‖:
  reconstructed (1 − ᾱ_N) d_1 + R ᾱ_N (L − N) (a theorem: never violated) and
  transcribed, the same minus (1 − ᾱ_N).
* **E3** N_crit: the smallest N on a grid at which a two-sample Kolmogorov–Smirnov test
  at level α = 0.01 does not reject that {D_i : i ∉ I_N} (top-N) and {D_i^S : i ∉ S}
  (one uniformly random N-subset S) come from the same distribution. The grid is
  ``round(geomspace(1, L−1, ks_grid))`` (unique), or every N in 1..L−1 when
  ``ks_grid = 0``. The p-value is the exact two-sided one for equal sample sizes
  (Gnedenko–Korolyuk), which is what ``scipy.stats.ks_2samp`` computes by default.
* **E4** N_s/N with N_s = #{i ∈ I_N : D_i ≤ r}, r = c·δ where δ is the empirical minimum
  pairwise distance among the x_i of the window prefix (pairs closer than
  ``duplicate_tol``, i.e. repeated vectors, are excluded); default c = 1/2 (the largest
  radius at which balls around distinct points are disjoint), plus a grid of c.
* **E5** g(T, ε): the spectral norm of the forward-difference Jacobian of
  α = softmax(l/T) with respect to the logits l, column j = (α(l + ε e_j) − α(l))/ε.
  In closed form it is (diag(q) − α qᵀ)/ε with q_j = α_j(e^{ε/T} − 1)/(1 + α_j(e^{ε/T} − 1)),
  so its norm is computed exactly (bisection on an eigenvalue count, O(L) per step),
  batched over heads.
  The analytic reference is the exact Jacobian (diag(α) − α αᵀ)/T, whose spectral norm
  never exceeds 1/(2T).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special  # not scipy.stats: its import alone takes about a second

from attnbounds.numerics.fits import loglog_slope
from attnbounds.numerics.jacobian import largest_eigenvalue_diag_minus_outer
from attnbounds.numerics.validation import check_count, check_rng, check_seed

__all__ = [
    "ExperimentSettings",
    "to_sphere",
    "seeded_rng",
    "random_subsets",
    "distance_table",
    "random_expectation_main",
    "random_distance_mc",
    "ks_two_sample",
    "ks_pvalue_equal",
    "critical_n_grid",
    "critical_n",
    "min_pairwise_distance",
    "separability_fraction",
    "fd_jacobian_norm",
    "softmax_jacobian_norm",
    "loglog_slope",
]


@dataclass(frozen=True)
class ExperimentSettings:
    """Parameters of the metrics (defaults are the documented choices)."""

    mc_samples: int = 16  # random N-subsets per (L, N) for the Monte Carlo expectation
    confidence: float = 0.95  # level of the Student-t interval on E_S[d̃]
    ks_alpha: float = 0.01  # level of the KS test in E3
    ks_grid: int = 24  # points of the geometric N grid of E3 (0: every N in 1..L−1)
    radius_multiplier: float = 0.5  # r = c·δ for the headline N_s/N
    radius_multipliers: tuple = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)  # the r-sweep of E4
    duplicate_tol: float = 1e-4  # pairs of x closer than this are duplicates (not δ)
    temperatures: tuple = tuple(float(t) for t in np.logspace(-3, 1, 13))
    epsilons: tuple = (1e-3, 1e-1, 10.0)
    slope_below: float = 0.1  # fit the log-log slope of g(T) on T <= this
    bisection_steps: int = 40  # halvings of the bracket of each spectral norm (E5)

    def __post_init__(self):
        check_count(self.mc_samples, "mc_samples", 2)
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence: must lie in (0, 1), got {self.confidence!r}")
        if not 0 < self.ks_alpha < 1:
            raise ValueError(f"ks_alpha: must lie in (0, 1), got {self.ks_alpha!r}")
        if not isinstance(self.ks_grid, int) or self.ks_grid < 0 or self.ks_grid == 1:
            raise ValueError(f"ks_grid: must be 0 (full scan) or an integer >= 2, got {self.ks_grid!r}")
        # `not x > 0` also rejects NaN; inf is rejected explicitly (r = c·δ must be a number)
        if not (isinstance(self.radius_multiplier, numbers.Real) and 0 < self.radius_multiplier < math.inf):
            raise ValueError(f"radius_multiplier: must be a finite number > 0, got {self.radius_multiplier!r}")
        if not self.radius_multipliers or any(not 0 < c < math.inf for c in self.radius_multipliers):
            raise ValueError("radius_multipliers: every multiplier must be a finite number > 0")
        if not self.temperatures or any(not 0 < t < math.inf for t in self.temperatures):
            raise ValueError("temperatures: must be a non-empty list of finite values > 0")
        if not self.epsilons or any(not 0 < e < math.inf for e in self.epsilons):
            raise ValueError("epsilons: must be a non-empty list of finite values > 0")

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def to_sphere(x) -> np.ndarray:
    """Project each vector (last axis) to the unit sphere; zero vectors stay zero.

    >>> to_sphere(np.array([[3.0, 4.0], [0.0, 0.0]]))
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    x = np.array(x, dtype=np.float64)  # a copy, divided in place (one allocation)
    if x.ndim < 1:
        raise ValueError(f"x: expected at least one dimension, got shape {x.shape}")
    norm = np.sqrt(np.einsum("...i,...i->...", x, x))[..., None]  # ‖x‖ (no temporary x²)
    np.divide(x, norm, out=x, where=norm > 0)  # x / ‖x‖
    zero = norm[..., 0] == 0
    if zero.any():  # ‖x‖ = 0 (or underflows to 0): the zero vector
        x[zero] = 0.0
    return x


def seeded_rng(seed: int, *keys) -> np.random.Generator:
    """A generator determined by ``seed`` and integer ``keys`` (window, L, N, experiment).

    Results therefore do not depend on the order in which windows are processed, which is
    what lets an interrupted run resume with identical numbers.

    >>> float(seeded_rng(0, 1, 2).random()) == float(seeded_rng(0, 1, 2).random())
    True
    """
    return np.random.default_rng(np.random.SeedSequence([check_seed(seed), *[int(k) for k in keys]]))


def random_subsets(rng: np.random.Generator, L: int, n: int, samples: int) -> np.ndarray:
    """Boolean masks ``(samples, L)`` of uniformly random n-subsets of {0..L−1}.

    >>> m = random_subsets(np.random.default_rng(0), 10, 3, 4)
    >>> m.shape, m.sum(axis=1).tolist()
    ((4, 10), [3, 3, 3, 3])
    """
    if not 1 <= n < L:
        raise ValueError(f"n: must satisfy 1 <= n < L = {L}, got {n}")
    check_rng(rng)
    check_count(samples, "samples")
    # the n smallest of L i.i.d. uniforms are a uniformly random n-subset
    keys = rng.random((samples, L))
    idx = np.argpartition(keys, n - 1, axis=-1)[:, :n]
    mask = np.zeros((samples, L), dtype=bool)
    np.put_along_axis(mask, idx, True, axis=-1)
    return mask


def _check_pair(weights, x):
    w = np.asarray(weights, dtype=np.float64)
    xs = np.asarray(x, dtype=np.float64)
    if w.ndim < 1 or w.shape[-1] < 2:
        raise ValueError(f"weights: expected shape (..., L) with L >= 2, got {w.shape}")
    try:
        ok = xs.ndim >= 2 and xs.shape[-2] == w.shape[-1] and np.broadcast_shapes(xs.shape[:-2], w.shape[:-1]) == w.shape[:-1]
    except ValueError:
        ok = False
    if not ok:  # x may broadcast over leading axes (e.g. hidden states shared by a layer's heads)
        raise ValueError(f"x: shape {xs.shape} does not match weights {w.shape}; expected (..., L, d)")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(xs))):
        raise ValueError("weights: weights and x must be finite")
    sums = w.sum(axis=-1)
    if np.any(w < -1e-6) or np.any(np.abs(sums - 1) > 1e-3):
        raise ValueError("weights: each row must be a probability vector (non-negative, sums to 1)")
    return w, xs


def _check_top_n(top_n, L: int):
    ns = np.asarray(top_n, dtype=np.int64).reshape(-1)
    if ns.size == 0 or np.any(ns < 1) or np.any(ns >= L):
        raise ValueError(f"top_n: every N must satisfy 1 <= N < L = {L}, got {ns.tolist()}")
    return ns


def _ranks(w: np.ndarray) -> np.ndarray:
    # rank_i = position of token i when sorted by weight, largest first, ties to lower index
    order = np.argsort(-w, axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(w.shape[-1]), axis=-1)
    return ranks


def _subset_distances(w, x, xsq, masks):
    """D for a batch of selected sets: masks ``(..., K, L)`` (or broadcastable ``(K, L)``).

    Returns (D of shape (..., K, L), s of shape (..., K, d)). Uses
    ‖α_i x_i − s‖² = α_i²‖x_i‖² − 2 α_i x_i·s + ‖s‖² so that the cost is one matmul.
    """
    ws = np.where(masks, w[..., None, :], w.dtype.type(0))  # (..., K, L)
    s = np.matmul(ws, x)  # (..., K, d): s = Σ_{j∈S} α_j x_j
    D = np.matmul(s, np.swapaxes(x, -1, -2))  # (..., K, L): x_i·s
    D *= -2.0 * w[..., None, :]
    D += (w * w * xsq)[..., None, :]
    D += (s * s).sum(-1)[..., None]
    np.maximum(D, 0.0, out=D)
    return np.sqrt(D, out=D), s


def distance_table(weights, x, top_n) -> dict:
    """E1/E2 quantities of the top-N selection for every N in ``top_n`` at once.

    Parameters
    ----------
    weights : array (..., L)
        Attention weights of one query row per batch entry.
    x : array (..., L, d)
        Token vectors.
    top_n : sequence of int
        Selection sizes, each 1 <= N < L.

    Returns
    -------
    dict of arrays with a trailing axis over ``top_n``: ``d_tilde``, ``selected_mass``,
    ``d1``, ``R``, ``bound_reconstructed``, ``bound_transcribed``; plus
    ``per_token`` (..., n_N, L) with D_i for every token and ``selected`` (..., n_N, L),
    the I_N masks.

    Examples
    --------
    >>> t = distance_table([0.5, 0.25, 0.25], np.eye(3), [1])
    >>> float(t["d_tilde"][0].round(4)), float(t["selected_mass"][0])
    (1.118, 0.5)
    """
    w, xs = _check_pair(weights, x)
    L = w.shape[-1]
    ns = _check_top_n(top_n, L)
    ranks = _ranks(w)
    selected = ranks[..., None, :] < ns[:, None]  # (..., n_N, L)  the masks of I_N
    norms = np.sqrt(np.einsum("...ld,...ld->...l", xs, xs))  # (..., L) ‖x_i‖
    D, _ = _subset_distances(w, xs, norms * norms, selected)
    d_tilde = np.where(selected, 0.0, D).sum(-1)  # d̃ = Σ_{i∉I_N} D_i
    mass = np.where(selected, w[..., None, :], 0.0).sum(-1)  # ᾱ_N
    R = np.where(selected, norms[..., None, :], -np.inf).max(-1)  # max_{j∈I_N} ‖x_j‖
    d1 = np.where(selected, -np.inf, norms[..., None, :]).max(-1)  # max_{i∉I_N} ‖x_i‖
    # reconstructed T1(i): d̃ ≤ (1 − ᾱ_N) d_1 + R ᾱ_N (L − N)
    recon = (1.0 - mass) * d1 + R * mass * (L - ns)
    return {
        "d_tilde": d_tilde,
        "selected_mass": mass,
        "d1": d1,
        "R": R,
        "bound_reconstructed": recon,
        "bound_transcribed": recon - (1.0 - mass),  # the summary's trailing − (1 − ᾱ_N)
        "per_token": D,
        "selected": selected,
    }


def random_expectation_main(weights, x, top_n) -> np.ndarray:
    """T1(ii) main term for every N: (L−N)/L Σ_i ‖(1 + N/(L−1)) α_i x_i − N/(L−1) Σ_j α_j x_j‖₂.

    Returns an array (..., n_N).

    >>> float(random_expectation_main([0.5, 0.5], np.eye(2), [1])[0].round(4))
    0.7071
    """
    w, xs = _check_pair(weights, x)
    L = w.shape[-1]
    ns = _check_top_n(top_n, L).astype(np.float64)
    c = ns / (L - 1)  # (n_N,)
    m = np.matmul(w[..., None, :], xs)[..., 0, :]  # Σ_j α_j x_j
    xsq = w * w * np.einsum("...ld,...ld->...l", xs, xs)  # ‖α_i x_i‖²
    cross = w * np.matmul(xs, m[..., None])[..., 0]  # α_i x_i · m
    msq = (m * m).sum(-1)
    a = (1.0 + c)[:, None]  # (n_N, 1)
    b = c[:, None]
    sq = a * a * xsq[..., None, :] - 2 * a * b * cross[..., None, :] + b * b * msq[..., None, None]
    return (L - ns) / L * np.sqrt(np.maximum(sq, 0.0)).sum(-1)


def random_distance_mc(weights, x, top_n, rng: np.random.Generator, *, samples: int = 32,
                       confidence: float = 0.95, chunk: int = 32) -> dict:
    """Monte Carlo estimate of E_S[d̃] over uniformly random N-subsets S, every N.

    The same ``samples`` subsets (drawn from ``rng``, one draw per N in order) serve every
    batch entry. Returns ``mean``, ``ci_low``, ``ci_high`` (Student-t interval at
    ``confidence``), each of shape (..., n_N). Computed in float32 matmuls, ``chunk``
    subsets (of all N together) at a time; the sums over tokens are float64.

    >>> w = np.full(4, 0.25); x = np.eye(4)
    >>> r = random_distance_mc(w, x, [2], np.random.default_rng(0), samples=8)
    >>> float(r["mean"][0].round(4)), float(r["ci_high"][0] - r["ci_low"][0]) < 1e-9
    (0.866, True)
    """
    w, xs = _check_pair(weights, x)
    L = w.shape[-1]
    ns = _check_top_n(top_n, L)
    check_rng(rng)
    check_count(samples, "samples", 2)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: must lie in (0, 1), got {confidence}")
    check_count(chunk, "chunk")
    # every subset of every N, drawn in order (N by N): masks (K, L), K = n_N · samples
    masks = np.concatenate([random_subsets(rng, L, int(n), samples) for n in ns])
    outside = ~masks  # i ∉ S
    w32 = w.astype(np.float32)
    x32 = xs.astype(np.float32)
    batch = w.shape[:-1]
    wx = w32[..., None] * x32  # (..., L, d): α_j x_j
    a2 = w32 * w32 * np.einsum("...ld,...ld->...l", x32, x32)  # (..., L): α_i²‖x_i‖²
    xT = np.swapaxes(x32, -1, -2)  # (..., d, L)
    totals = np.empty(batch + (masks.shape[0],))  # Σ_{i∉S} D_i for every subset
    for lo in range(0, masks.shape[0], int(chunk)):
        m = masks[lo:lo + chunk]  # (k, L)
        s = np.matmul(m.astype(np.float32), wx)  # (..., k, d): s = Σ_{j∈S} α_j x_j
        D = np.matmul(s, xT)  # (..., k, L)  x_i·s
        D *= -2.0 * w32[..., None, :]
        D += a2[..., None, :]
        D += (s * s).sum(-1)[..., None]  # ‖α_i x_i − s‖² = α_i²‖x_i‖² − 2α_i x_i·s + ‖s‖²
        np.maximum(D, 0.0, out=D)
        np.sqrt(D, out=D)
        D *= outside[lo:lo + chunk]  # keep i ∉ S
        totals[..., lo:lo + chunk] = D.sum(-1, dtype=np.float64)
    v = totals.reshape(batch + (ns.size, samples))  # (..., n_N, samples)
    mean = v.mean(-1)
    tq = special.stdtrit(samples - 1, 0.5 + confidence / 2)  # Student-t quantile (= stats.t.ppf)
    half = tq * v.std(-1, ddof=1) / math.sqrt(samples)
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half}


def ks_pvalue_equal(n, k) -> np.ndarray:
    """Exact two-sided p-value P(D_{n,n} ≥ k/n) of the two-sample KS test, equal sizes n.

    Gnedenko–Korolyuk: P = 2 Σ_{j≥1} (−1)^{j+1} C(2n, n − jk) / C(2n, n); this is what
    ``scipy.stats.ks_2samp(method="exact")`` returns. Vectorized over ``n`` and ``k``.

    >>> float(ks_pvalue_equal(1, 1))
    1.0
    >>> round(float(ks_pvalue_equal(10, 5)), 6)
    0.167821
    """
    n = np.asarray(n, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    if np.any(n < 1) or np.any(k < 0) or np.any(k > n):
        raise ValueError("n, k: need n >= 1 and 0 <= k <= n")
    n, k = np.broadcast_arrays(n, k)
    kk = np.maximum(k, 1)
    jmax = int((n // kk).max()) if n.size else 0
    j = np.arange(1, max(jmax, 1) + 1)  # (J,)
    nb, kb = n[..., None], kk[..., None]
    idx = nb - j * kb  # n − jk
    valid = idx >= 0
    safe = np.where(valid, idx, 0)
    log_term = (special.gammaln(2 * nb + 1) - special.gammaln(safe + 1) - special.gammaln(2 * nb - safe + 1)
                - (special.gammaln(2 * nb + 1) - 2 * special.gammaln(nb + 1)))
    term = np.where(valid, np.exp(log_term), 0.0) * np.where(j % 2 == 1, 1.0, -1.0)
    p = np.clip(2.0 * term.sum(-1), 0.0, 1.0)
    return np.where(k == 0, 1.0, p)


def ks_two_sample(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided two-sample KS statistic and exact p-value for equal-size samples, batched.

    ``a`` and ``b`` have shape (..., n); +inf entries are padding and must be equally many
    in ``a`` and ``b`` of each row (rows may differ in their number of finite values).
    Returns (statistic, pvalue), each of shape (...).

    >>> from scipy.stats import ks_2samp
    >>> rng = np.random.default_rng(0); a, b = rng.normal(size=50), rng.normal(0.5, size=50)
    >>> s, p = ks_two_sample(a, b); r = ks_2samp(a, b)
    >>> bool(np.isclose(s, r.statistic) and np.isclose(p, r.pvalue))
    True
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"b: shape {b.shape} must equal shape of a {a.shape}")
    n_pad = a.shape[-1]
    n_true = np.isfinite(a).sum(-1)
    if np.any(n_true != np.isfinite(b).sum(-1)) or np.any(n_true == 0):
        raise ValueError("a, b: each row needs the same, non-zero number of finite values")
    both = np.concatenate([a, b], axis=-1)
    order = np.argsort(both, axis=-1, kind="stable")
    vals = np.take_along_axis(both, order, axis=-1)
    # F_a − F_b on the padded samples, evaluated at the end of each group of tied values
    diff = np.cumsum(np.where(order < n_pad, 1.0, -1.0), axis=-1)
    last = np.ones(vals.shape, dtype=bool)
    last[..., :-1] = vals[..., 1:] != vals[..., :-1]
    counts = np.where(last, np.abs(diff), 0.0).max(-1)  # = n·D as an integer count
    k = np.rint(counts).astype(np.int64)
    return k / n_true, ks_pvalue_equal(n_true, k)


def critical_n_grid(L: int, points: int) -> np.ndarray:
    """The N grid of E3: every N in 1..L−1 (``points = 0``) or a geometric grid.

    >>> critical_n_grid(8, 0).tolist()
    [1, 2, 3, 4, 5, 6, 7]
    >>> critical_n_grid(1024, 8).tolist()
    [1, 3, 7, 19, 52, 141, 380, 1023]
    """
    if L < 2:
        raise ValueError(f"L: must be >= 2, got {L}")
    if points == 0 or points >= L - 1:
        return np.arange(1, L)
    return np.unique(np.rint(np.geomspace(1, L - 1, points)).astype(np.int64))


def critical_n(weights, x, grid, rng: np.random.Generator, *, alpha: float = 0.01, chunk: int = 8) -> dict:
    """E3: smallest N in ``grid`` at which KS (level ``alpha``) cannot separate top-N from random-N.

    For each N the samples are {D_i : i ∉ I_N} (top-N) and {D_i^S : i ∉ S} for one
    uniformly random N-subset S (drawn from ``rng``, shared by every batch entry).
    Returns ``n_crit`` (...) (NaN when every grid N rejects), and ``pvalue``,
    ``statistic`` (..., n_grid).
    """
    w, xs = _check_pair(weights, x)
    L = w.shape[-1]
    grid = _check_top_n(grid, L)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: must lie in (0, 1), got {alpha}")
    ranks = _ranks(w)
    xsq = (xs * xs).sum(-1)
    rand_all = np.stack([random_subsets(rng, L, int(n), 1)[0] for n in grid])  # (G, L)
    width = L - int(grid.min())
    stats_, ps = [], []
    for lo in range(0, grid.size, chunk):  # chunks of the grid bound the memory
        g = grid[lo:lo + chunk]
        top = ranks[..., None, :] < g[:, None]  # (..., g, L)
        rand = rand_all[lo:lo + chunk]
        D_top, _ = _subset_distances(w, xs, xsq, top)
        D_rand, _ = _subset_distances(w, xs, xsq, rand)
        # keep the L − N unselected tokens; pad with +inf (equal counts in both samples)
        a = np.sort(np.where(top, np.inf, D_top), axis=-1)[..., :width]
        b = np.sort(np.where(rand, np.inf, D_rand), axis=-1)[..., :width]
        st, pv = ks_two_sample(a, b)
        stats_.append(st)
        ps.append(pv)
    stat = np.concatenate(stats_, axis=-1)
    p = np.concatenate(ps, axis=-1)
    accept = p >= alpha  # (..., G)
    first = np.argmax(accept, axis=-1)
    n_crit = np.where(accept.any(-1), grid[first], np.nan)
    return {"n_crit": n_crit.astype(np.float64), "pvalue": p, "statistic": stat, "grid": grid}


def min_pairwise_distance(x, lengths, *, duplicate_tol: float = 1e-4, prefix: bool = True) -> np.ndarray:
    """δ: the minimum distance between distinct x_i, for each prefix length in ``lengths``.

    ``x`` is (..., L, d). With ``prefix=True`` the value for length ℓ uses x_0..x_{ℓ−1}
    only (one Gram matrix serves every ℓ through a running minimum). Pairs closer than
    ``duplicate_tol`` count as duplicates and are skipped. Returns (..., n_lengths); inf
    when a prefix has no distinct pair.

    >>> x = np.array([[0.0, 0], [3, 4], [3, 4], [0, 1]])
    >>> min_pairwise_distance(x, [2, 4]).tolist()
    [5.0, 1.0]
    """
    xs = np.asarray(x, dtype=np.float64)
    if xs.ndim < 2:
        raise ValueError(f"x: expected shape (..., L, d), got {xs.shape}")
    L = xs.shape[-2]
    ls = np.asarray(lengths, dtype=np.int64).reshape(-1)
    if np.any(ls < 2) or np.any(ls > L):
        raise ValueError(f"lengths: each must satisfy 2 <= length <= {L}, got {ls.tolist()}")
    if not prefix and np.any(ls != L):
        raise ValueError("lengths: without prefix, only the full length can be asked")
    sq = (xs * xs).sum(-1)
    out_shape = xs.shape[:-2]
    flat = xs.reshape((-1, L, xs.shape[-1]))
    sqf = sq.reshape((-1, L))
    row_min = np.empty((flat.shape[0], L))
    upper = np.triu(np.ones((L, L), dtype=bool))  # pairs j >= i are not counted
    step = max(1, int(2**22 // (L * L)))  # a few heads at a time bounds the memory
    for lo in range(0, flat.shape[0], step):
        f = flat[lo:lo + step]
        d2 = np.einsum("bid,bjd->bij", f, f, optimize=True)
        d2 *= -2.0
        d2 += sqf[lo:lo + step, :, None]
        d2 += sqf[lo:lo + step, None, :]  # ‖x_i − x_j‖² = ‖x_i‖² + ‖x_j‖² − 2 x_i·x_j
        d2[(d2 <= duplicate_tol**2) | upper] = np.inf
        row_min[lo:lo + step] = np.sqrt(d2.min(-1))
    prefix_min = np.minimum.accumulate(row_min, axis=-1)  # δ(ℓ) = min_{i<ℓ} min_{j<i}
    return prefix_min[:, ls - 1].reshape(out_shape + (ls.size,))


def separability_fraction(per_token, selected, top_n, radius) -> np.ndarray:
    """E4: N_s/N = #{i ∈ I_N : D_i ≤ r}/N.

    ``per_token`` and ``selected`` are (..., n_N, L) as from :func:`distance_table`;
    ``radius`` is (...) or (..., n_r). Returns (..., n_N, n_r).

    >>> D = np.array([[0.0, 0.3, 0.9]]); sel = np.array([[True, True, False]])
    >>> separability_fraction(D, sel, [2], np.array([0.2, 0.5])).tolist()
    [[0.5, 1.0]]
    """
    D = np.asarray(per_token, dtype=np.float64)
    sel = np.asarray(selected, dtype=bool)
    ns = np.asarray(top_n, dtype=np.float64).reshape(-1)
    if D.shape != sel.shape or D.shape[-2] != ns.size:
        raise ValueError("per_token: shape must equal selected's and have n_N rows")
    r = np.asarray(radius, dtype=np.float64)
    if r.ndim == D.ndim - 2:
        r = r[..., None]
    if np.any(r < 0):
        raise ValueError("radius: must be >= 0")
    inside = sel[..., None] & (D[..., None] <= r[..., None, None, :])  # (..., n_N, L, n_r)
    return inside.sum(-2) / ns[:, None]


def _spectral_norm(q, a, scale, iterations: int = 40) -> np.ndarray:
    """‖diag(q) − a qᵀ‖₂ / scale for probability vectors a, exactly (batched over rows).

    σ² is the largest eigenvalue of M = J Jᵀ = D + U C Uᵀ with D = diag(q²),
    U = [a, q⊙q], C = [[‖q‖², −1], [−1, 0]]. By Haynsworth's inertia additivity on
    [[D − λ, U], [Uᵀ, −C⁻¹]], the number of eigenvalues of M above λ is
    #{q_i² > λ} + n₊(S) − 1 with the 2×2 matrix S = −C⁻¹ − Uᵀ(D − λ)⁻¹U. Using Σ a_i = 1,
    its entries are written without cancellation:
    S₁₁ = −Σ a_i²/(q_i² − λ), S₁₂ = −λ Σ a_i/(q_i² − λ), S₂₂ = −λ Σ q_i²/(q_i² − λ).
    λ_max lies in [‖J‖_F²/L, ‖J‖_F²]; ``iterations`` halvings of that range in log scale
    give a relative accuracy of about log(L)·2^−iterations.
    """
    shape = q.shape[:-1]
    L = q.shape[-1]
    q = q.reshape(-1, L)
    a = a.reshape(-1, L)
    d = q * q  # D = diag(q²)
    # ‖J‖_F² = Σ_j q_j² ((1 − a_j)² + Σ_{i≠j} a_i²), with 1 − a_m and Σ_{i≠m} a_i² summed
    # directly at the largest weight m (no cancellation for near one-hot a)
    m = np.argmax(a, axis=-1)[:, None]
    at_m = np.arange(L)[None, :] == m
    rest = np.where(at_m, 0.0, a).sum(-1, keepdims=True)
    rest_sq = np.where(at_m, 0.0, a * a).sum(-1, keepdims=True)
    one_minus = np.where(at_m, rest, 1.0 - a)
    others_sq = np.where(at_m, rest_sq, rest_sq + np.take_along_axis(a, m, -1) ** 2 - a * a)
    fro2 = (d * (one_minus**2 + others_sq)).sum(-1)
    pos = fro2 > 0
    hi = np.log(np.where(pos, fro2, 1.0)) + 1e-6  # log scale: no underflow of ‖J‖_F²/L
    lo = hi - math.log(L) - 2e-6
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        lam = np.exp(mid)[:, None]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            inv = 1.0 / (d - lam)  # (D − λ)⁻¹
        inv = np.where(np.isfinite(inv), inv, 0.0)
        s11 = -(a * a * inv).sum(-1)
        s12 = -lam[:, 0] * (a * inv).sum(-1)
        s22 = -lam[:, 0] * (d * inv).sum(-1)
        det = s11 * s22 - s12 * s12
        tr = s11 + s22
        n_pos_s = np.where(det < 0, 1, np.where(tr > 0, 2, 0))
        above = (d > lam).sum(-1) + n_pos_s - 1  # eigenvalues of M above λ
        lo = np.where(above >= 1, mid, lo)
        hi = np.where(above >= 1, hi, mid)
    sigma = np.where(pos, np.exp(0.25 * (lo + hi)), 0.0)  # σ = √λ
    return (sigma / np.reshape(scale, -1)).reshape(shape)


def _softmax_rows(logits, T):
    z = logits / T
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def fd_jacobian_norm(logits, temperatures, epsilons, *, iterations: int = 40) -> np.ndarray:
    """E5: g(T, ε) = ‖J_ε‖₂ with J_ε[:, j] = (softmax((l + ε e_j)/T) − softmax(l/T)) / ε.

    Closed form: J_ε = (diag(q) − α qᵀ)/ε with q_j = α_j(e^{ε/T} − 1)/(1 + α_j(e^{ε/T} − 1)),
    evaluated in log space (no overflow for ε/T up to 1e4). ``logits`` (..., L) must be
    finite (visible keys only). Returns (..., n_T, n_ε).

    >>> g = fd_jacobian_norm([0.0, 0.0], [1.0], [1e-6])
    >>> float(g[0, 0].round(5))
    0.5
    """
    l = np.asarray(logits, dtype=np.float64)
    if l.ndim < 1 or l.shape[-1] < 2 or not np.all(np.isfinite(l)):
        raise ValueError("logits: need finite values of shape (..., L) with L >= 2")
    Ts = np.asarray(temperatures, dtype=np.float64).reshape(-1)
    eps = np.asarray(epsilons, dtype=np.float64).reshape(-1)
    if np.any(Ts <= 0) or np.any(eps <= 0):
        raise ValueError("temperatures, epsilons: must be > 0")
    qs, As, scales = [], [], []
    for T in Ts:
        a = _softmax_rows(l, T)  # (..., L)
        loga = np.log(np.maximum(a, 1e-300))
        for e in eps:
            # q_j = sigmoid(t_j), t_j = log(α_j (e^{ε/T} − 1))
            qs.append(special.expit(loga + e / T + np.log(-np.expm1(-e / T))))
            As.append(a)
            scales.append(np.full(l.shape[:-1], e))
    q = np.stack(qs, axis=-2)  # (..., n_T·n_ε, L)
    g = _spectral_norm(q, np.stack(As, axis=-2), np.stack(scales, axis=-1), iterations)
    return g.reshape(l.shape[:-1] + (Ts.size, eps.size))


def softmax_jacobian_norm(logits, temperatures) -> np.ndarray:
    """Spectral norm of the exact softmax Jacobian (diag(α) − α αᵀ)/T, shape (..., n_T).

    The norm is :func:`attnbounds.numerics.jacobian.largest_eigenvalue_diag_minus_outer`
    (the one routine for ‖diag α − α αᵀ‖₂) of α = softmax(l/T), divided by T. Never exceeds
    1/(2T) (two tokens at α = 1/2 attain it).

    >>> float(softmax_jacobian_norm([0.0, 0.0], [0.5])[0].round(6))
    1.0
    """
    l = np.asarray(logits, dtype=np.float64)
    if l.ndim < 1 or l.shape[-1] < 2 or not np.all(np.isfinite(l)):
        raise ValueError("logits: need finite values of shape (..., L) with L >= 2")
    Ts = np.asarray(temperatures, dtype=np.float64).reshape(-1)
    if Ts.size == 0 or np.any(Ts <= 0):
        raise ValueError("temperatures: must be > 0")
    return np.stack([largest_eigenvalue_diag_minus_outer(_softmax_rows(l, T)) / T for T in Ts], axis=-1)


# --- the paper's protocol (Appendix B): every query position t ---------------------------
#
# These kernels take whole attention maps: ``weights`` (B, R, K) holds R query rows over K
# keys for B heads (zeros at hidden keys), ``x`` (B, K, d) the token vectors, ``visible``
# (R, K) the keys that take part in each row (None: all). They return per-row values
# (B, n_N, R), NaN where a row is skipped (a row with t keys is skipped for N >= t), so a
# per-head mean over query positions is one ``nanmean`` over the last axis. The work is
# done in float64 torch (batched matmuls and in-place elementwise passes, multi-threaded).


@contextlib.contextmanager
def torch_single_thread():
    """Run torch's intra-op work on one thread inside the block (the previous count after).

    The per-row metrics are many short tensor operations on blocks of a few MB; torch's
    OpenMP threads spin between them. Measured on one gpt2-random layer at L = 1024
    (E1/E2/E4 rows, 2-core machine at load 3-4): 4.7 s of CPU with 2 threads, 1.7 s with
    one. The compiled kernels keep their own (numba) threads."""
    import torch

    global _TORCH_THREADS
    before, outer = torch.get_num_threads(), _TORCH_THREADS
    if before != 1:
        _TORCH_THREADS = before
        torch.set_num_threads(1)
    try:
        yield
    finally:
        _TORCH_THREADS = outer
        if before != 1:
            torch.set_num_threads(before)


_TORCH_THREADS = None  # inside torch_single_thread: torch's thread count outside it (else None)


@contextlib.contextmanager
def torch_all_threads():
    """Inside :func:`torch_single_thread`, one large tensor operation (a layer's Gram matrix, a
    block of recomputed logits) on all of torch's threads again: between the short operations
    the threads would spin, but a product of 10⁸–10⁹ multiply-adds runs twice as fast on two
    (``OMP_WAIT_POLICY=PASSIVE``: the threads sleep afterwards)."""
    import torch

    before = torch.get_num_threads()
    want = _TORCH_THREADS or before  # outside torch_single_thread: unchanged
    if want != before:
        torch.set_num_threads(want)
    try:
        yield
    finally:
        if want != before:
            torch.set_num_threads(before)


def _tensor(a):
    import torch

    if isinstance(a, torch.Tensor):
        return a.to(torch.float64)
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def top_order(weights, k: int):
    """Indices (B, R, k) of the k largest weights of every row, largest first, ties to the lower index.

    The same indices as the first k of a stable descending sort (``torch.topk`` alone does
    not fix the order of ties; rows with a tie across the k-th place are re-sorted stably).

    >>> top_order(np.array([[[0.2, 0.5, 0.2, 0.1]]]), 2).tolist()
    [[[1, 0]]]
    """
    import torch

    w = _tensor(weights)
    K = w.shape[-1]
    if not 1 <= k <= K:
        raise ValueError(f"k: must satisfy 1 <= k <= {K}, got {k}")
    fz = _fused_kernels()
    if fz is not None and w.ndim == 3:  # compiled: a heap of the k best per row (a stable sort when 2k >= K)
        out = np.empty(tuple(w.shape[:2]) + (k,), dtype=np.int64)
        fz.top_k_rows(np.ascontiguousarray(w.numpy()), k, out)
        return torch.from_numpy(out)
    if k > 256 or 2 * k >= K:
        return torch.sort(w, dim=-1, descending=True, stable=True).indices[..., :k]
    vals, idx = torch.topk(w, k, dim=-1, sorted=True)
    p = torch.argsort(idx, dim=-1)  # by index, then stably by value: (value desc, index asc)
    idx, vals = torch.gather(idx, -1, p), torch.gather(vals, -1, p)
    p = torch.sort(vals, dim=-1, descending=True, stable=True).indices
    idx, vals = torch.gather(idx, -1, p), torch.gather(vals, -1, p)
    kth = vals[..., -1:]
    tie = (w == kth).sum(-1) > (vals == kth).sum(-1)  # an unselected key ties the k-th value
    if bool(tie.any()):
        idx[tie] = torch.sort(w[tie], dim=-1, descending=True, stable=True).indices[..., :k]
    return idx


def top_mask(weights, n: int):
    """The top-N sets I_N as a mask (B, R, K): the same keys as the first n of :func:`top_order`
    (ties to the lower index), found by selection (``kthvalue``, O(K) per row) instead of a sort.

    >>> top_mask(np.array([[[0.2, 0.5, 0.2, 0.1]]]), 2).tolist()
    [[[True, True, False, False]]]
    """
    import torch

    w = _tensor(weights)
    K = w.shape[-1]
    if not 1 <= n <= K:
        raise ValueError(f"n: must satisfy 1 <= n <= {K}, got {n}")
    thr = torch.kthvalue(w, K - n + 1, dim=-1, keepdim=True).values  # the n-th largest weight
    mask = w > thr
    ties = w == thr
    short = n - mask.sum(-1, keepdim=True)  # how many of the keys at the threshold belong to I_N
    over = (ties.sum(-1, keepdim=True) > short)[..., 0]  # rows where some tied keys stay out
    mask |= ties
    if bool(over.any()):  # the lowest-index ties only
        mask[over] = (w[over] > thr[over]) | (ties[over] & (ties[over].cumsum(-1) <= short[over]))
    return mask


def _hidden_tail(visible, R: int, K: int):
    """Where the hidden keys lie: (c0, hidden) with every row seeing the keys < c0 and
    ``hidden`` (R, K − c0) the hidden keys of the columns ≥ c0 (None when every key is seen).

    A causal block of rows r0 ≤ r < r1 over keys < r1 has c0 = r0 + 1: only a triangle at
    its right end is hidden, so masking costs a fraction of a pass over the block.
    """
    import torch

    if visible is None:
        return K, None
    vis = np.asarray(visible, dtype=bool)
    if vis.shape != (R, K):
        raise ValueError(f"visible: shape {vis.shape} must be (R, K) = {(R, K)}")
    partial = np.flatnonzero(~vis.all(0))
    c0 = int(partial[0]) if partial.size else K
    return c0, (torch.from_numpy(np.ascontiguousarray(~vis[:, c0:])) if c0 < K else None)


def _prefix_ends(visible, R: int, K: int):
    """The last visible key of every row (R,) if each row sees exactly the keys 0..end; else None."""
    got = _visible_ranges(visible, R, K)
    if got is None or np.any(got[0] > 0):
        return None
    return got[1]


def _visible_ranges(visible, R: int, K: int):
    """(starts, ends), each (R,), if every row sees exactly the keys start..end (a causal
    prefix, or a sliding window); else None."""
    if visible is None:
        return np.zeros(R, dtype=np.int64), np.full(R, K - 1, dtype=np.int64)
    vis = np.asarray(visible, dtype=bool)
    count = vis.sum(-1)
    if np.any(count == 0):
        return None
    starts = vis.argmax(-1).astype(np.int64)
    ends = starts + count - 1
    keys = np.arange(K)[None, :]
    if not np.array_equal(vis, (keys >= starts[:, None]) & (keys <= ends[:, None])):
        return None
    return starts, ends


def _row_metric_names(every) -> list[str]:
    """The per-row tables a metric pass fills, in order, for the requested groups ``every``."""
    names = ["d_tilde"]
    names += ["mass", "R"] if "mass" in every else []
    names += ["d1_norm"] if "terms" in every else []
    names += ["main"] if "main" in every else []
    names += ["ns_over_n", "radius", "t2_lower", "t2_upper"] if "separability" in every else []
    return names


def position_metrics(weights, x, top_n, *, visible=None, order=None, what=("d_tilde",), fused=None) -> dict:
    """E1–E4 quantities at every query row, for every N in ``top_n``.

    Parameters
    ----------
    weights : array (B, R, K)
        Attention weights of R query rows over K keys (each row sums to 1 over its keys,
        exactly 0 at hidden keys).
    x : array (B, K, d)
        Token vectors x_i.
    top_n : sequence of int
        Selection sizes, each 1 <= N < K.
    visible : bool array (R, K), optional
        The keys that take part in each row (the prefix of a causal row); None: every key.
    order : optional
        :func:`top_order` of ``weights``, (B, R, k) with k >= max N, for the torch path (pass it to
        share it between calls); the compiled engine sorts each row itself and does not read it.
    what : iterable of str or dict
        ``d_tilde`` (always); ``mass``: ᾱ_N (``mass``) and R = max_{j∈I_N}‖x_j‖ (``R``);
        ``terms``: ``mass``, ``R`` and d_1 = max_{i∉I_N}‖x_i‖ (``d1_norm``); ``main``: the
        T1(ii) main term over the row's t keys; ``separability``: E4's r = min_{i∉I_N} D_i,
        N_s/N with N_s = #{j ∈ I_N : D_j < r}, and Theorem 2's two sides with ξ_j read as
        σ_j = (Σ_{k∈I_N∖j} α_k²)^{1/2} (``t2_lower`` Markov, ``t2_upper`` McDiarmid, M = 1).
        N_s is Theorem 2's distinguishable count (α_j x_j in the closed ball of radius ρ
        around s, every non-selected α_i x_i outside it;
        :func:`attnbounds.numerics.selection.distinguishable_mask`) at every ρ just below r,
        i.e. its limit as ρ rises to r; at ρ = r the nearest non-selected token lies on the
        sphere, so the closed-ball count itself would be 0.
        A dict (N to an iterable of str) asks for different quantities at different N (a quantity not asked at
        some N is NaN there).
    fused : bool, optional
        Use the compiled per-row kernels of :mod:`attnbounds.empirical.fused` (one pass over a
        row's keys per N instead of a dozen tensor passes; the same numbers to rounding).
        None (default): when numba is installed and every row's visible keys are one range
        (a causal prefix, a sliding window, all keys); False: the torch path.

    Returns
    -------
    dict of float64 numpy arrays (B, n_N, R).

    The work per N is one batched matmul and a few in-place passes over (B, R, K) in float64
    torch; the hidden keys are handled on the columns where some row hides a key only
    (:func:`_hidden_tail`): a hidden key has α_i = 0, so its D_i is ‖s‖ and it is zeroed
    before the sums and set to +inf before the minimum.

    Examples
    --------
    >>> w = np.array([[[0.5, 0.25, 0.25]]]); x = np.eye(3)[None]
    >>> float(position_metrics(w, x, [1])["d_tilde"][0, 0, 0].round(4))
    1.118
    """
    import torch

    w = _tensor(weights)
    xs = _tensor(x)
    if w.ndim != 3 or xs.ndim != 3 or tuple(xs.shape[:2]) != (w.shape[0], w.shape[2]):
        raise ValueError(f"x: shape {tuple(xs.shape)} does not match weights {tuple(w.shape)}; expected (B, K, d)")
    B, R, K = w.shape
    ns = [int(n) for n in np.asarray(top_n).reshape(-1)]
    if not ns or min(ns) < 1 or max(ns) >= K:
        raise ValueError(f"top_n: every N must satisfy 1 <= N < K = {K}, got {ns}")
    known = {"d_tilde", "mass", "terms", "main", "separability"}
    if isinstance(what, dict):
        asked = {int(n): set(v) for n, v in what.items()}
        if set(ns) - set(asked):
            raise ValueError(f"what: no entry for N = {sorted(set(ns) - set(asked))}")
    else:
        asked = {n: set(what) for n in ns}
    unknown = set().union(*asked.values()) - known
    if unknown:
        raise ValueError(f"what: unknown {sorted(unknown)}")
    for n in asked:
        if "terms" in asked[n]:
            asked[n] |= {"mass"}
    every = set().union(*(asked[n] for n in ns))
    if fused is None or fused:
        ranges = _visible_ranges(visible, R, K)
        if ranges is not None and _fused_kernels() is not None:
            return _position_metrics_fused(w, xs, ns, asked, every, ranges, order)
        if fused:
            raise ValueError("fused: needs numba and rows whose visible keys are one range")
    # N beyond the given order (or > 256 without one) take the mask path (top_mask), which
    # serves d̃, the main term and ᾱ_N/R; separability and d_1 need the indices
    by_index = [n for n in ns if asked[n] & {"separability", "terms"} or n <= 256]
    if order is None:
        order = top_order(w, max(by_index)) if by_index else None
    elif by_index and order.shape[-1] < max(by_index):
        order = top_order(w, max(by_index))
    k_order = 0 if order is None else order.shape[-1]
    c0, hid = _hidden_tail(visible, R, K)
    t = torch.full((R,), K, dtype=torch.int64) if visible is None else torch.as_tensor(np.asarray(visible).sum(-1))
    xsq = (xs * xs).sum(-1)  # (B, K) ‖x_i‖²
    norms = xsq.sqrt()
    xT = xs.transpose(1, 2)
    w2x = w * w * xsq[:, None, :]  # α_i² ‖x_i‖²
    D = torch.empty_like(w)
    bidx = torch.arange(B)[:, None, None]
    out = {k: np.full((B, len(ns), R), np.nan) for k in _row_metric_names(every)}
    if "main" in every:
        c = torch.bmm(w, xs)  # (B, R, d): the row's context Σ_j α_j x_j
        wcx = torch.bmm(c, xT).mul_(w)  # (B, R, K): α_i x_i · c
        csq = (c * c).sum(-1, keepdim=True)  # (B, R, 1)

    def put(name, a, value):
        out[name][:, a] = np.where(valid.numpy()[None, :], value.numpy(), np.nan)

    def keysum():  # Σ over the keys that take part (zeroes D's hidden entries)
        if hid is not None:
            D[..., c0:].masked_fill_(hid, 0.0)
        return D.sum(-1)

    for a, n in enumerate(ns):
        want = asked[n]
        valid = t > n  # (R,) rows with at least one non-selected key
        if n <= k_order:
            idx = order[..., :n]  # (B, R, n) I_N, largest first
            ws = torch.gather(w, -1, idx)  # α_j, j ∈ I_N
            if n <= 64:
                s = torch.einsum("brn,brnd->brd", ws, xs[bidx, idx])  # s = Σ_{j∈I_N} α_j x_j
            else:
                s = torch.bmm(torch.zeros_like(w).scatter_(-1, idx, ws), xs)
        else:  # I_N as a mask
            sel = top_mask(w, n)
            w_sel = torch.where(sel, w, 0.0)
            s = torch.bmm(w_sel, xs)
        torch.bmm(s, xT, out=D)  # x_i · s
        torch.addcmul(w2x, w, D, value=-2.0, out=D).add_((s * s).sum(-1, keepdim=True))  # ‖α_i x_i − s‖²
        D.clamp_(min=0.0).sqrt_()
        if n <= k_order:
            d_sel = torch.gather(D, -1, idx)  # D_j, j ∈ I_N
            sel_sum = d_sel.sum(-1)
        else:
            sel_sum = torch.where(sel, D, 0.0).sum(-1)
        put("d_tilde", a, keysum() - sel_sum)  # d̃ = Σ_{i∉I_N} D_i
        if "mass" in want and n <= k_order:
            put("mass", a, ws.sum(-1))
            put("R", a, norms[bidx, idx].max(-1).values)
        elif "mass" in want:
            put("mass", a, w_sel.sum(-1))
            put("R", a, torch.where(sel, norms[:, None, :], -np.inf).amax(-1))
        if "terms" in want:
            other = norms[:, None, :].expand(B, R, K).clone()
            if hid is not None:
                other[..., c0:].masked_fill_(hid, -np.inf)
            put("d1_norm", a, other.scatter_(-1, idx, -np.inf).max(-1).values)
        if "separability" in want:
            if hid is not None:
                D[..., c0:].masked_fill_(hid, np.inf)
            D.scatter_(-1, idx, np.inf)  # only visible i ∉ I_N compete for the radius
            r = D.amin(-1)  # r = min_{i∉I_N} D_i: every non-selected token is outside
            put("radius", a, r)
            put("ns_over_n", a, (d_sel < r[..., None]).sum(-1).to(torch.float64) / n)  # strictly inside
            sq = ws * ws
            xi = (sq.sum(-1, keepdim=True) - sq).clamp_(min=0.0).sqrt_()  # ξ_j read as σ_j
            rr = r[..., None]
            put("t2_lower", a, 1.0 - xi.mean(-1) / r)  # Markov: 1 − (1/N) Σ_j ξ_j / r
            gap = (xi - rr).clamp_(min=0.0)
            term = torch.where(gap > 0, torch.exp(-gap * gap / (2.0 * torch.where(xi > 0, xi * xi, 1.0))), 1.0)
            put("t2_upper", a, term.mean(-1))  # (1/N) Σ_j exp(−((ξ_j − r)₊)²/(2σ_j²))
        if "main" in want:
            k = n / (t - 1).clamp(min=1).to(torch.float64)  # (R,) N/(t − 1)
            torch.mul(w2x, ((1.0 + k) ** 2)[None, :, None], out=D)
            D.addcmul_(wcx, (-2.0 * k * (1.0 + k))[None, :, None]).add_((k * k)[None, :, None] * csq)
            D.clamp_(min=0.0).sqrt_()  # ‖(1 + k) α_i x_i − k c‖
            put("main", a, (t - n).to(torch.float64) / t * keysum())
    return out


_SCRATCH: dict = {}


def scratch(name: str, shape, dtype=np.float64) -> np.ndarray:
    """A work array of ``shape``, the same memory from call to call for one ``name``: the row
    engine's large temporaries (a layer's Gram matrix, a block's weights) are allocated once
    per run instead of once per layer or block; each fresh allocation above glibc's mmap
    threshold is new pages, and their faults cost about 3 µs each (4 million in a full
    paper-scale run). Two live arrays must not share a name. :func:`release_scratch` frees them."""
    size = int(np.prod(shape))
    key = (name, np.dtype(dtype).str)
    buf = _SCRATCH.get(key)
    if buf is None or buf.size < size:
        buf = _SCRATCH[key] = np.empty(max(size, 1), dtype=dtype)
    return buf[:size].reshape(shape)


def release_scratch() -> None:
    """Free the work arrays of :func:`scratch`."""
    _SCRATCH.clear()


_FUSED = None


def _fused_kernels():
    """The module :mod:`attnbounds.empirical.fused`, or None when numba is not installed."""
    global _FUSED
    if _FUSED is None:
        try:
            from attnbounds.empirical import fused as mod
        except ImportError:
            mod = False
        _FUSED = mod
    return _FUSED or None


GRAM_GAP = 16  # N below this go through the Gram matrix (a key costs about 0.3 ns per visible key there, a
# direct N about 2 ns: its share of the running sums and of the BLAS product; gpt2-random rows, L = 1024).
# The rule is per N, not per set of N, so that every value is computed the same way whatever else is asked.
_GRAM_BYTES = 1 << 28  # no Gram pass when G (B, K, K) would take more memory than this (256 MB)

_GROUPS = {"d_tilde": "d_tilde", "mass": "mass", "R": "mass", "d1_norm": "terms", "main": "main",
           "ns_over_n": "separability", "radius": "separability", "t2_lower": "separability",
           "t2_upper": "separability"}


def _flags(want) -> int:
    fz = _fused_kernels()
    f = 0
    if "mass" in want:
        f |= fz.FLAG_MASS
    if "terms" in want:
        f |= fz.FLAG_TERMS | fz.FLAG_MASS
    if "main" in want:
        f |= fz.FLAG_MAIN
    if "separability" in want:
        f |= fz.FLAG_SEP
    return f


_BLAS = None
_BLAS_HELD = 0  # depth of nested blas_single_thread blocks


@contextlib.contextmanager
def blas_single_thread():
    """BLAS (numpy's and scipy's OpenBLAS; torch's MKL is its own) on one thread inside the
    block: the row engine calls it from each of its own threads. A nested block changes
    nothing. Hold it around a whole run (:func:`attnbounds.empirical.protocol.paper_window_tables`
    does): each time the limit is lifted, OpenBLAS's idle threads spin for a while, and beside
    the engine's own threads they took 3 s of a 10 s pass (gpt2-random, L = 1024, 2 cores).
    One threadpoolctl controller for the process (a fresh ``threadpool_limits`` scans the
    loaded libraries: 0.4 ms a call)."""
    global _BLAS, _BLAS_HELD
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency of the empirical extra
            _BLAS = False
        else:
            _BLAS = ThreadpoolController()
    limit = _BLAS.limit(limits=1, user_api="blas") if _BLAS and not _BLAS_HELD else contextlib.nullcontext()
    with limit:
        _BLAS_HELD += 1
        try:
            yield
        finally:
            _BLAS_HELD -= 1


def _position_metrics_fused(w, xs, ns, asked, every, ranges, order=None) -> dict:
    """:func:`position_metrics` by the compiled row engine (rows with visible keys [start, end]);
    ``order`` is not needed (the engine sorts each row itself)."""
    keys = RowKeys(xs)
    plan = EnginePlan(ns, asked)
    out = plan.outputs(w.shape[0], w.shape[1])
    row_engine(w, keys, plan, ranges, out)
    return plan.results(out, every, ns)


class RowKeys:
    """A layer's key vectors for the row engine, prepared once and shared by its row blocks:
    x (B, L, d) float64, ‖x_i‖², ‖x_i‖, and the Gram matrix x xᵀ (B, L, L) unless ``gram`` is
    False or it would take more than ``_GRAM_BYTES``; with ``reuse`` the Gram matrix is the
    :func:`scratch` array ``gram`` (one layer's at a time: the caller keeps no two)."""

    def __init__(self, x, gram: bool = True, reuse: bool = False):
        import torch

        self.x = np.ascontiguousarray(x.numpy() if isinstance(x, torch.Tensor) else x, dtype=np.float64)
        if self.x.ndim != 3:
            raise ValueError(f"x: expected shape (B, L, d), got {self.x.shape}")
        B, L, _ = self.x.shape
        self.xsq = (self.x * self.x).sum(-1)
        self.norms = np.sqrt(self.xsq)
        xt = torch.from_numpy(self.x)
        self.gram = None
        if gram and B * L * L * 8 <= _GRAM_BYTES:
            self.gram = scratch("gram", (B, L, L)) if reuse else np.empty((B, L, L))
            with torch_all_threads():
                torch.bmm(xt, xt.transpose(1, 2), out=torch.from_numpy(self.gram))

    def xT(self, K: int) -> np.ndarray:
        """The first K vectors transposed, (B, d, K), contiguous, for the engine's matrix product:
        the :func:`scratch` array ``xT``, valid until the next call (no copy of every vector is kept)."""
        B, _, d = self.x.shape
        out = scratch("xT", (B, d, K))
        out[...] = self.x[:, :K].transpose(0, 2, 1)
        return out


class EnginePlan:
    """The checkpoints of the row engine: N ascending, what each asks for and on which rows
    (``limits`` {N: rows}: N only on the rows r < rows; default every row)."""

    def __init__(self, ns, asked, limits=None):
        ns = [int(n) for n in np.asarray(ns).reshape(-1)]
        if not ns or min(ns) < 1 or len(set(ns)) != len(ns):
            raise ValueError(f"ns: must be distinct N >= 1, got {ns}")
        if set(ns) - set(asked):
            raise ValueError(f"asked: no entry for N = {sorted(set(ns) - set(asked))}")
        unknown = set().union(*(set(asked[n]) for n in ns)) - {"d_tilde", "mass", "terms", "main", "separability"}
        if unknown:
            raise ValueError(f"asked: unknown {sorted(unknown)}")
        self.perm = np.argsort(ns, kind="stable")
        self.ns = np.asarray(ns, dtype=np.int64)[self.perm]
        self.asked = {int(n): set(asked[int(n)]) for n in self.ns}
        self.flags = np.array([_flags(self.asked[int(n)]) for n in self.ns], dtype=np.int64)
        big = np.iinfo(np.int64).max
        self.limit = np.array([big if limits is None else int(limits.get(int(n), big)) for n in self.ns], dtype=np.int64)

    def outputs(self, B: int, R: int, reuse: bool = False) -> dict:
        """NaN-filled outputs (B, nN, R) of every quantity the engine writes (with ``reuse``, the
        :func:`scratch` arrays ``engine-*``: valid until the next call with reuse)."""
        if not reuse:
            return {k: np.full((B, self.ns.size, R), np.nan) for k in _GROUPS}
        out = {k: scratch(f"engine-{k}", (B, self.ns.size, R)) for k in _GROUPS}
        for v in out.values():
            v.fill(np.nan)
        return out

    def results(self, out: dict, every, ns) -> dict:
        """The engine's outputs as :func:`position_metrics` returns them: the quantities of
        ``every``, in the caller's order of ``ns``; a quantity not asked at some N is NaN there.
        When ``ns`` is already ascending these are ``out``'s own arrays (the engine writes a
        quantity only where it is asked; they are valid as long as ``out`` is)."""
        if np.array_equal(self.perm, np.arange(self.perm.size)):
            return {k: out[k] for k in _row_metric_names(every)}
        res = {k: np.full(out["d_tilde"].shape, np.nan) for k in _row_metric_names(every)}
        for a, n in enumerate(self.ns.tolist()):
            col = int(self.perm[a])
            want = self.asked[n] | ({"mass"} if "terms" in self.asked[n] else set())
            for k in res:
                if _GROUPS[k] == "d_tilde" or _GROUPS[k] in want:
                    res[k][:, col] = out[k][:, a]
        return res


def row_engine(w, keys: RowKeys, plan: EnginePlan, ranges, out: dict, *, r0: int = 0, order_out=None,
               gram_gap: int | None = None, from_logits: bool = False) -> None:
    """The compiled row engine (:func:`attnbounds.empirical.fused.row_metrics`) on a block of
    rows whose visible keys are one range each, [starts[r], ends[r]].

    ``w`` (B, R, K) the block's weights, or with ``from_logits`` its float32 logits (the engine
    then takes each row's softmax over its visible keys itself: no (B, R, K) float64 weights
    are written); ``keys`` the layer's vectors (K ≤ their L); the block's row r is row r0 + r
    of ``out`` (:meth:`EnginePlan.outputs` of the layer) and of ``order_out`` (B, R', k): the
    first k keys of each row's order (:func:`top_order`'s)."""
    import torch

    fz = _fused_kernels()
    if from_logits:
        src = np.ascontiguousarray(w.numpy() if isinstance(w, torch.Tensor) else w, dtype=np.float32)
        if src.ndim != 3:
            raise ValueError(f"w: expected logits of shape (B, R, K), got {src.shape}")
        wt, lg = np.zeros((1, 1, 1)), src
    else:
        wt = w if isinstance(w, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(w, dtype=np.float64))
        wt = wt.to(torch.float64).contiguous().numpy()
        src, lg = wt, np.zeros((1, 1, 1), dtype=np.float32)
    B, R, K = src.shape
    x = keys.x
    if x.shape[0] != B or x.shape[1] < K:
        raise ValueError(f"keys: shape {x.shape} does not match weights {(B, R, K)}; expected (B, L >= K, d)")
    starts, ends = (np.ascontiguousarray(a, dtype=np.int64) for a in ranges)
    if starts.shape != (R,) or ends.shape != (R,) or np.any(starts < 0) or np.any(ends >= K) or np.any(ends < starts):
        raise ValueError(f"ranges: (starts, ends) must be two (R,) = ({R},) arrays with 0 <= start <= end < K = {K}")
    need = (B, plan.ns.size, r0 + R)
    bad = [k for k in _GROUPS if k not in out or out[k].shape[:2] != need[:2] or out[k].shape[2] < need[2]]
    if bad:
        raise ValueError(f"out: {bad} must be arrays (B, nN, >= r0 + R) = {need} (EnginePlan.outputs)")
    if order_out is not None and (order_out.shape[:2] != (B, out["d_tilde"].shape[2]) or order_out.dtype != np.int64):
        raise ValueError(f"order_out: must be an int64 array (B, R', k) with (B, R') = {(B, out['d_tilde'].shape[2])}")
    gap = GRAM_GAP if gram_gap is None else int(gram_gap)
    gram = keys.gram if keys.gram is not None else np.zeros((B, 1, 1))
    if keys.gram is None:
        gap = 0
    k_order = 0 if order_out is None else order_out.shape[-1]
    order_out = np.zeros((1, 1, 1), dtype=np.int64) if order_out is None else order_out
    with blas_single_thread():
        fz.row_metrics(wt, lg, bool(from_logits), gram, x, keys.xT(K), keys.xsq, keys.norms, starts, ends, plan.ns,
                       plan.flags, plan.limit, gap, k_order, int(r0), order_out, out["d_tilde"], out["mass"], out["R"],
                       out["d1_norm"], out["radius"], out["ns_over_n"], out["t2_lower"], out["t2_upper"], out["main"])


class PairTable:
    """Running maxima of the pairwise distances of one batch of token sets, for d_1.

    ``x`` (B, K, d); ``gram`` (B, K', K'), K' ≥ K, the Gram matrix x xᵀ when the caller has it
    (the distances are then read from it); with ``reuse`` the arrays :meth:`rows` returns are
    :func:`scratch` arrays, valid until the next ``rows`` of any table that reuses.
    :meth:`rows` gives, for the query rows r0 ≤ r < r1 of a causal prefix
    (row r sees the keys ≤ r) and every key j, the largest ‖x_i − x_j‖² over the keys the
    row sees and its maximizer; blocks must come in order (0 first), and the running
    maximum over the earlier keys is carried from block to block, so the memory is one
    block's (B, K, r1 − r0). :meth:`every` gives the same over all K keys (rows that see
    every key). With them, d_1 of any row and selection is a lookup (:func:`pair_distance_max`).
    :meth:`distance_max` gives that d_1 of a block of causal prefix rows directly, bit for
    bit, and passes the block as :meth:`rows` does; compiled and with the Gram matrix it
    builds no (B, K, r1 − r0) maxima: each key's running maximum along its whole row is kept
    where it changes (a few times a row), once per table, and looked up for each row.
    """

    _STEP_ROOM = 32  # changes of a row's running maximum kept per key at first (gpt2-random: 7.5 a key, 18 at most)

    def __init__(self, x, gram=None, reuse: bool = False):
        import torch

        self.x = _tensor(x)
        self.reuse = bool(reuse)  # rows() returns scratch arrays, valid until the next rows() of any table
        products = torch.from_numpy(self._work("pair-sq", self.x.shape))
        self.xsq = torch.mul(self.x, self.x, out=products).sum(-1)  # (B, K)
        # the Gram matrix x xᵀ (B, K', K'), K' ≥ K, when the caller has it: the distances are then read from it
        B, K = self.xsq.shape
        if gram is not None and (np.ndim(gram) != 3 or np.shape(gram)[0] != B or min(np.shape(gram)[1:]) < K):
            raise ValueError(f"gram: shape {np.shape(gram)} must be (B, K', K') with B = {B} and K' >= K = {K}")
        self.gram_array = None if gram is None else np.asarray(gram)
        self.gram = None if gram is None else torch.from_numpy(self.gram_array)
        self._best = torch.full((B, K), -np.inf, dtype=torch.float64)  # max over the keys < cursor
        self._arg = torch.zeros((B, K), dtype=torch.int64)
        self._cursor = 0
        # ‖x‖² of the distances distance_max recomputes: numpy's sum, as pair_distance_max takes it
        # (torch's, xsq above, can differ in the last bit), computed on first use
        self._lookup_sq = None
        self._steps = None  # each key's running maximum along its row as steps (_row_steps), on first use
        self._carried_at = 0  # _best/_arg hold the maxima over the keys < this (distance_max may pass blocks by steps)

    def _work(self, name: str, shape, dtype=np.float64) -> np.ndarray:
        """A work array: with reuse the :func:`scratch` array ``name`` (fresh pages for the
        large ones cost about as much as the work on them), else a new one."""
        return scratch(name, tuple(shape), dtype) if self.reuse else np.empty(shape, dtype=dtype)

    def _dots(self, i0: int, i1: int):
        """(dots, col0): x_j · x_i for every key j and the keys i0 ≤ i < i1 at dots[b, j, col0 + i − i0],
        the compiled running maxima's input: the Gram matrix when the table has it, else the
        block's products (B, K, i1 − i0), the ones :meth:`_d2` subtracts."""
        import torch

        if self.gram is not None:
            return self.gram_array, i0
        return torch.bmm(self.x, self.x[:, i0:i1].transpose(1, 2)).numpy(), 0

    def _check_block(self, r0: int, r1: int) -> None:
        if r0 != self._cursor:
            raise ValueError(f"r0: blocks must come in order; expected {self._cursor}, got {r0}")
        if not r0 <= r1 <= self.xsq.shape[1]:
            raise ValueError(f"r1: must be in [r0, K] = [{r0}, {self.xsq.shape[1]}], got {r1}")

    def _d2(self, i0: int, i1: int):
        import torch

        if self.gram is not None:  # ‖x_j‖² + ‖x_i‖² − 2 x_j·x_i (with reuse, in a scratch array read before the next block)
            K = self.xsq.shape[1]
            shape = (self.xsq.shape[0], K, i1 - i0)
            d2 = torch.from_numpy(scratch("pair-d2", shape) if self.reuse else np.empty(shape))
            torch.add(self.xsq[:, :, None], self.xsq[:, None, i0:i1], out=d2)
            return d2.sub_(self.gram[:, :K, i0:i1], alpha=2.0)
        d2 = self.xsq[:, :, None] + self.xsq[:, None, i0:i1]  # [b, j, i] ‖x_j‖² + ‖x_i‖²
        keys = self.x[:, i0:i1]  # (B, k, d)
        return d2.sub_(torch.bmm(self.x, keys.transpose(1, 2)), alpha=2.0)

    def rows(self, r0: int, r1: int, starts=None):
        """(best, arg, starts), best and arg (B, K, r1 − r0): best[b, j, r − r0] = max ‖x_i − x_j‖²
        over the keys the row sees, i ≤ r and i ≥ ``starts[r − r0]`` (a sliding window; None: 0).

        For a window, the keys before r0 are taken from suffix maxima (a reversed running
        maximum) over the keys [min start, r0), so a block costs one (B, K, r1 − min start) pass."""
        import torch

        self._check_block(r0, r1)
        self._sync_carried()
        lo = None if starts is None else np.asarray(starts, dtype=np.int64)
        if lo is not None and lo.shape != (r1 - r0,):
            raise ValueError(f"starts: shape {lo.shape} must be (r1 − r0,) = ({r1 - r0},)")
        fz = _fused_kernels()
        if fz is not None and (lo is None or not np.any(lo > 0)):  # prefix rows: one compiled pass
            B, K = self.xsq.shape
            C = r1 - r0
            # with reuse, scratch arrays: the caller reads a block's maxima before it asks for the next block's
            best, arg = self._work("pair-best", (B, K, C)), self._work("pair-arg", (B, K, C), np.int64)
            if C:  # the carried maxima advance in place
                dots, col0 = self._dots(r0, r1)
                fz.running_pair_maxima(dots, col0, self.xsq.numpy(), r0, self._best.numpy(), self._arg.numpy(),
                                       best, arg)
            self._cursor = self._carried_at = r1
            return torch.from_numpy(best), torch.from_numpy(arg), None
        best, arg = torch.cummax(self._d2(r0, r1), dim=-1)  # over the block's keys r0..r
        arg += r0
        block_best, block_arg = best[..., -1].clone(), arg[..., -1].clone()
        if lo is not None and np.any(lo > 0):
            a = int(lo.min())
            if a < r0:  # some rows see keys before the block: max over [start, r0) from suffix maxima
                sm, sa = torch.cummax(self._d2(a, r0).flip(-1), dim=-1)
                sm, sa = sm.flip(-1), (r0 - 1) - sa.flip(-1)  # sm[..., c] = max over keys [a + c, r0)
                col = torch.as_tensor(np.clip(lo - a, 0, r0 - a - 1))
                before, before_arg = sm[..., col], sa[..., col]  # (B, K, r1 − r0)
                inside = torch.as_tensor(lo >= r0)  # rows whose window starts inside the block
                before.masked_fill_(inside, -np.inf)
                older = before > best
                best, arg = torch.where(older, before, best), torch.where(older, before_arg, arg)
            if np.any(lo > np.arange(r0, r1)):
                raise ValueError("starts: a row must see its own key (start <= row)")
            if np.any(lo[lo >= r0] > r0):  # a window that starts inside the block: keys before it are not seen
                d2 = self._d2(r0, r1)
                keys = torch.arange(r0, r1)
                for c in np.flatnonzero(lo > r0):  # rare: windows shorter than the block
                    m = d2[..., int(lo[c]) - r0:c + 1]
                    v, i = m.max(-1)
                    best[..., c], arg[..., c] = v, keys[int(lo[c]) - r0:c + 1][i]
        else:
            older = self._best[:, :, None] > best  # an earlier key is farther
            best = torch.where(older, self._best[:, :, None], best)
            arg = torch.where(older, self._arg[:, :, None], arg)
        prev = self._best > block_best  # the carried maximum over every key < r1
        self._best = torch.where(prev, self._best, block_best)
        self._arg = torch.where(prev, self._arg, block_arg)
        self._cursor = self._carried_at = r1
        return best, arg, (None if lo is None or not np.any(lo > 0) else lo)

    def every(self):
        """(best, arg, None), best and arg (B, K, 1): the largest ‖x_i − x_j‖² over all keys i, for every j."""
        d2 = self._d2(0, self.x.shape[1])
        best, arg = d2.max(-1, keepdim=True)
        return best, arg, None

    def distance_max(self, r0: int, r1: int, order, ns) -> np.ndarray:
        """d_1 = max_{i∉I_N, j∈I_N} ‖x_i − x_j‖ of the causal prefix rows r0 ≤ r < r1 (row r sees
        the keys ≤ r), (B, len(ns), r1 − r0), one N of ``ns`` after another; −inf where no key is
        left out. ``order`` (B, r1 − r0, k ≥ max N): each row's top order (:func:`top_order`),
        unused when ``ns`` is empty. The table passes the block as :meth:`rows` does.

        Bit for bit :func:`pair_distance_max` of x[:, :r1] from this block's :meth:`rows`. Compiled
        and with the Gram matrix, each key's running maximum along its whole row is kept as
        steps (where it changes, :func:`~attnbounds.empirical.fused.pair_row_steps`, once per
        table) and each row's maxima are looked up there: no (B, K, r1 − r0) maxima are
        written and read back at random, and the Gram matrix is read once, by rows (on a
        gpt2-random layer the blocks' maxima took most of d_1's time)."""
        import torch

        ns = [int(n) for n in ns]
        B, K = self.xsq.shape
        R = r1 - r0
        fz = _fused_kernels()
        steps = None if fz is None else self._row_steps()
        if steps is None:  # block by block: the block's maxima, then their lookup
            maxima = self.rows(r0, r1)
            if not ns or not R:
                return np.empty((B, len(ns), R))
            visible = np.arange(r1)[None, :] <= np.arange(r0, r1)[:, None]
            return pair_distance_max(self.x[:, :r1], order, ns, visible, maxima=maxima, gram=self.gram_array)
        self._check_block(r0, r1)
        if not ns or not R:
            self._cursor = r1
            return np.empty((B, len(ns), R))
        n = max(ns)
        o = order.numpy() if isinstance(order, torch.Tensor) else np.asarray(order)
        if o.ndim != 3 or o.shape[:2] != (B, R) or o.shape[2] < n:
            raise ValueError(f"order: shape {o.shape} must be (B, r1 − r0, k >= max N) = ({B}, {R}, >= {n})")
        o = np.ascontiguousarray(o[..., :n], dtype=np.int64)
        val, far = self._work("pair-val", (B, R, n)), self._work("pair-far", (B, R, n), np.int64)
        fz.pair_step_lookup(o, r0, *steps, val, far)
        xs = self.x.numpy()
        if self._lookup_sq is None:
            self._lookup_sq = np.multiply(xs, xs, out=self._work("pair-sq", xs.shape)).sum(-1)
        out = np.empty((B, len(ns), R))
        fz.pair_maxima(xs, self._lookup_sq, o, np.asarray(ns, dtype=np.int64), val, far,
                       np.zeros(R, dtype=np.int64), np.arange(r0, r1, dtype=np.int64), out, self.gram_array)
        self._cursor = r1
        return np.where(np.isinf(out), out, np.sqrt(np.maximum(out, 0.0)))

    def _row_steps(self):
        """(first, count, at, top) of :func:`~attnbounds.empirical.fused.pair_row_steps` for every key,
        computed on the first call; None without the Gram matrix (the products of a block are
        then the blocks' own, which need not equal other products bit for bit) or where a
        distance is NaN (the running maxima then depend on where the blocks start)."""
        if self._steps is None:
            self._steps = False
            B, K = self.xsq.shape
            if self.gram_array is not None and K:
                fz = _fused_kernels()
                room = min(self._STEP_ROOM, K)
                keys = np.arange(B)[:, None] * K + np.arange(K + 1)[None, :]  # (b, j) -> b * K + j
                first = keys * room
                count = np.empty((B, K), dtype=np.int64)  # the table's own arrays (they live as long as it)
                at = np.empty(B * K * room, dtype=np.int64)
                top = np.empty(B * K * room)
                xsq = self.xsq.numpy()
                fz.pair_row_steps(self.gram_array, xsq, first, count, at, top)
                if count.min() > 0 and count.max() > room:  # again, each key with the room it needs
                    ends = np.concatenate([[0], np.cumsum(count.ravel())])
                    first = ends[keys]
                    at = np.empty(ends[-1], dtype=np.int64)
                    top = np.empty(ends[-1])
                    fz.pair_row_steps(self.gram_array, xsq, first, count, at, top)
                if count.min() > 0:
                    self._steps = (first, count, at, top)
        return self._steps or None

    def _sync_carried(self) -> None:
        """The carried maxima at the cursor after blocks that :meth:`distance_max` passed by steps."""
        import torch

        if self._carried_at == self._cursor:
            return
        B, K = self.xsq.shape
        keys = np.ascontiguousarray(np.broadcast_to(np.arange(K), (B, 1, K)))
        best, arg = np.empty((B, 1, K)), np.empty((B, 1, K), dtype=np.int64)
        _fused_kernels().pair_step_lookup(keys, self._cursor - 1, *self._steps, best, arg)
        self._best, self._arg = torch.from_numpy(best[:, 0]), torch.from_numpy(arg[:, 0])
        self._carried_at = self._cursor


def _pair_exact(xs, xsq, b, j, sel, ends, chunk: int = 2048, starts=None):
    """max_{start ≤ i ≤ end, i ∉ sel} ‖x_i − x_j‖² for P triples (head b, key j, row's selection);
    −inf when no key is left. ``xs`` (B, K, d), ``xsq`` (B, K); ``b``, ``j``, ``ends``, ``starts`` (P,), ``sel`` (P, n)."""
    import torch

    K = xs.shape[1]
    out = torch.empty(b.shape[0], dtype=torch.float64)
    keys = torch.arange(K)
    for h in torch.unique(b).tolist():  # one matmul per head
        at = torch.nonzero(b == h)[:, 0]
        for lo in range(0, at.shape[0], chunk):
            p = at[lo:lo + chunk]
            d2 = (xsq[h][None, :] + xsq[h, j[p]][:, None]).sub_(xs[h, j[p]] @ xs[h].T, alpha=2.0)  # (p, K) ‖x_i − x_j‖²
            drop = torch.zeros((p.shape[0], K), dtype=torch.bool).scatter_(-1, sel[p], True) | (keys[None, :] > ends[p, None])
            if starts is not None:
                drop |= keys[None, :] < starts[p, None]
            out[p] = d2.masked_fill_(drop, -np.inf).amax(-1)  # i ∈ I_N or hidden: not a candidate
    return out


def pair_distance_max(x, order, n, visible=None, *, chunk: int = 64, maxima=None, fused=None, gram=None) -> np.ndarray:
    """max_{i∉I_N, j∈I_N} ‖x_i − x_j‖ for every row (B, R); −inf where no key is left out.

    ``n`` is N, or a sequence of N: then (B, len(n), R), one set-up shared by every N.
    ``order`` is :func:`top_order` (B, R, k >= max N); ``visible`` as in :func:`position_metrics`.
    ``maxima`` are the block's running maxima from a :class:`PairTable` (``rows`` for causal
    prefix rows, ``every`` for rows that see every key): then every row is a lookup: the
    maximum for a selected j is exact unless its maximizer is itself selected, and only
    rows where such a j could win are recomputed exactly. Without ``maxima`` every row is
    computed directly, O(B R N K). With the compiled kernels (``fused``, default when numba is
    installed) the recomputed j are taken largest candidate first and skipped once their
    candidate cannot win.
    """
    import torch

    many = not isinstance(n, numbers.Integral)
    ns = [int(m) for m in n] if many else [int(n)]
    B, R = order.shape[:2]
    K = np.shape(x)[-2]
    ranges = None if maxima is None else _visible_ranges(visible, R, K)
    if ranges is not None:  # the maxima must be those of these rows' windows
        band = maxima[2] if len(maxima) > 2 else None
        starts = ranges[0]
        if np.any(starts > 0) and (band is None or not np.array_equal(np.asarray(band), starts)):
            ranges = None
    fz = _fused_kernels()
    if ranges is None:
        outs = [_pair_distance_rows(x, order, m, visible, chunk=chunk) for m in ns]
    elif fz is not None and fused is not False:  # the compiled lookup (candidates largest first, pruned)
        starts, ends = (np.ascontiguousarray(a, dtype=np.int64) for a in ranges)
        xs = np.asarray(x.numpy() if isinstance(x, torch.Tensor) else x, dtype=np.float64)
        xsq = np.multiply(xs, xs, out=scratch("pair-products", xs.shape)).sum(-1)  # (fresh pages: as costly as the sum)
        use_gram = gram is not None and min(np.shape(gram)[1:]) >= K  # x_j · x_i for the recomputed maxima
        g, xs = (gram, np.zeros((1, 1, 1))) if use_gram else (np.zeros((1, 1, 1)), np.ascontiguousarray(xs))
        o = order.numpy() if isinstance(order, torch.Tensor) else np.asarray(order)
        if o.shape[-1] < max(ns):
            raise ValueError(f"order: {o.shape[-1]} keys a row, fewer than N = {max(ns)}")
        sel = np.ascontiguousarray(o[..., :max(ns)], dtype=np.int64)
        val, far = np.empty(sel.shape), np.empty(sel.shape, dtype=np.int64)  # each row's maxima at its selected keys
        fz.pair_gather(np.asarray(maxima[0]), np.asarray(maxima[1]), sel, maxima[0].shape[-1] == R and R > 1, val, far)
        out = np.empty((B, len(ns), R))
        fz.pair_maxima(xs, xsq, sel, np.asarray(ns, dtype=np.int64), val, far, starts, ends, out, g)
        d1 = np.where(np.isinf(out), out, np.sqrt(np.maximum(out, 0.0)))
        return d1 if many else d1[:, 0]
    else:
        outs = [_pair_lookup(x, order, m, maxima, ranges) for m in ns]
    return np.stack(outs, 1) if many else outs[0]


def _pair_lookup(x, order, n: int, maxima, ranges) -> np.ndarray:
    """:func:`pair_distance_max` from a PairTable's running maxima by torch (one N)."""
    import torch

    B, R = order.shape[:2]
    K = np.shape(x)[-2]
    starts, ends = ranges
    best, argmax = maxima[0], maxima[1]
    idx = order[..., :n]  # (B, R, n)
    bidx = torch.arange(B)[:, None, None]
    col = torch.arange(R)[None, :, None] if best.shape[-1] == R else torch.zeros((1, 1, 1), dtype=torch.int64)
    cand = best[bidx, idx, col]  # (B, R, n): max over the row's keys of ‖x_i − x_j‖²
    arg = argmax[bidx, idx, col]
    if n <= 16:  # the maximizer is itself selected
        inside = (arg[..., :, None] == idx[..., None, :]).any(-1)
    else:
        chosen = torch.zeros((B, R, K), dtype=torch.bool).scatter_(-1, idx, True)
        inside = torch.gather(chosen, -1, arg)
    good = torch.where(inside, -np.inf, cand).amax(-1)  # exact for the j whose maximizer is left out
    redo = torch.nonzero(inside & (cand > good[..., None]))  # (head, row, j) whose exact value could still win
    if redo.shape[0]:
        xs = _tensor(x)
        hb, hr, hj = redo[:, 0], redo[:, 1], redo[:, 2]
        exact = _pair_exact(xs, (xs * xs).sum(-1), hb, idx[hb, hr, hj], idx[hb, hr], torch.as_tensor(ends)[hr],
                            starts=torch.as_tensor(starts)[hr] if np.any(starts > 0) else None)
        good.view(-1).scatter_reduce_(0, hb * R + hr, exact, reduce="amax")  # with the j recomputed exactly
    return torch.where(torch.isinf(good), good, good.clamp(min=0.0).sqrt()).numpy()


def _pair_distance_rows(x, order, n: int, visible=None, *, chunk: int = 64) -> np.ndarray:
    """:func:`pair_distance_max` computed row by row (any visibility), O(B R N K)."""
    import torch

    xs = _tensor(x)
    B, K, _ = xs.shape
    R = order.shape[1]
    xsq = (xs * xs).sum(-1)
    gram = torch.bmm(xs, xs.transpose(1, 2))  # (B, K, K)
    vis = None if visible is None else torch.as_tensor(np.asarray(visible, dtype=bool))
    out = torch.empty((B, R), dtype=torch.float64)
    bidx = torch.arange(B)[:, None, None]
    for lo in range(0, R, chunk):
        o = order[:, lo:lo + chunk, :n]  # (B, r, n) selected keys
        d2 = xsq[:, None, None, :] + xsq[bidx, o][..., None] - 2.0 * gram[bidx, o]  # (B, r, n, K)
        d2.scatter_(-1, o[:, :, None, :].expand(-1, -1, n, -1), -np.inf)  # i ∈ I_N is not a candidate
        if vis is not None:
            d2.masked_fill_(~vis[lo:lo + chunk, None, :], -np.inf)
        m = d2.amax(dim=(-2, -1))
        out[:, lo:lo + chunk] = torch.where(torch.isinf(m), m, m.clamp(min=0.0).sqrt())
    return out.numpy()


def perturbation_gain(logits, temperatures, epsilons, rng: np.random.Generator, *,
                      fused: bool | None = None) -> np.ndarray:
    """E5 at every query row: g = ‖softmax((l + εv)/T) − softmax(l/T)‖₂ / ε, v a random unit vector.

    ``logits`` (B, R, K), −inf at hidden keys. One direction v per (head, row), uniform on the
    unit sphere of the row's visible keys, drawn from ``rng`` (one ``standard_normal((B, R, K))``,
    then masked and normalized) and shared by every T and ε. Returns (B, R, n_T, n_ε).

    ``fused`` (default: when numba is installed) computes every (T, ε) of a row in one
    compiled pass over its visible keys (:func:`attnbounds.empirical.fused.perturbation_rows`);
    ``fused=False`` is the torch path, one float64 softmax per (T, ε) over the whole (B, R, K)
    block. The two draw the same v. The torch path subtracts two softmaxes, which loses digits
    where ε/T is small (up to about 1e-11 of a row's g) and where one weight is within 1e-16
    of 1 (that weight's change is lost: g up to √2 too small); the compiled path has no such
    cancellation and matches an 80-digit evaluation to about 1e-15
    (``tests/empirical/test_e5_h1_kernels.py``). On a full gpt2-random run the two give the
    same ``heads.csv`` to 2.4e-13.

    >>> g = perturbation_gain(np.zeros((1, 1, 2)), [1.0], [1e-6], np.random.default_rng(0))
    >>> 0.0 <= float(g[0, 0, 0, 0]) <= 0.5 + 1e-6
    True
    """
    shape = tuple(np.shape(logits))
    if len(shape) != 3:
        raise ValueError(f"logits: expected shape (B, R, K), got {shape}")
    Ts = np.asarray(temperatures, dtype=np.float64).reshape(-1)
    eps = np.asarray(epsilons, dtype=np.float64).reshape(-1)
    if Ts.size == 0 or eps.size == 0 or np.any(Ts <= 0) or np.any(eps <= 0):
        raise ValueError("temperatures, epsilons: must be non-empty and > 0")
    fz = _fused_kernels()
    if fused and fz is None:
        raise ValueError("fused: needs numba")
    v = check_rng(rng).standard_normal(shape)  # (B, R, K): the same draw on both paths
    if fz is None or fused is False:
        return _perturbation_gain_torch(logits, Ts, eps, v)
    l = logits.numpy() if hasattr(logits, "numpy") else np.asarray(logits)
    if l.dtype not in (np.float32, np.float64):
        l = l.astype(np.float64)
    out = np.empty(shape[:2] + (Ts.size, eps.size))
    fz.perturbation_rows(l, v, Ts, eps, out)
    return out


def _perturbation_gain_torch(logits, Ts, eps, v) -> np.ndarray:
    """:func:`perturbation_gain` by torch: a float64 softmax per (T, ε) over the (B, R, K) block."""
    import torch

    l = _tensor(logits)
    hidden = ~torch.isfinite(l)
    v = torch.from_numpy(v)
    v.masked_fill_(hidden, 0.0)
    v /= (v * v).sum(-1, keepdim=True).sqrt().clamp(min=1e-300)  # unit vector on the visible keys
    out = np.empty(tuple(l.shape[:2]) + (Ts.size, eps.size))
    for i, T in enumerate(Ts):
        base = torch.softmax(l / T, dim=-1)
        for j, e in enumerate(eps):
            diff = torch.softmax(torch.add(l, v, alpha=e).div_(T), dim=-1).sub_(base)
            out[..., i, j] = ((diff * diff).sum(-1).sqrt() / e).numpy()
    return out
