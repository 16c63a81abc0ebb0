"""Random top-N selection (Theorem 1 (ii)) and geometric separability (Theorem 2).

For a uniformly random n-subset S ⊂ I = {1..L} the cumulative distance is
d̃(S) = Σ_{i∉S} ‖α_i x_i − s_S‖₂ with s_S = Σ_{j∈S} α_j x_j. Its expectation is computed

* ``"exact"`` -- by enumerating all C(L, n) subsets;
* ``"mc"`` -- by Monte Carlo over random subsets, with a Student-t confidence interval;
* ``"main"`` -- by the main term of the reading of Theorem 1 (ii),

  M = (L−n)/L · Σ_i ‖(1 + n/(L−1))·α_i x_i − (n/(L−1))·Σ_j α_j x_j‖₂.

Why M: P(i ∉ S) = (L−n)/L and E[s_S | i ∉ S] = n/(L−1)·Σ_{j≠i} α_j x_j, so
α_i x_i − E[s_S | i ∉ S] is the vector inside the norm; by Jensen, E_S[d̃] = M + ε with ε ≥ 0.

>>> w, x = [0.5, 0.25, 0.25], np.eye(3)
>>> r = random_selection_expectation(w, x, 1)
>>> round(float(r.value), 6), r.samples
(0.981058, 3)
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

import numpy as np

from attnbounds.numerics.attention import per_token_distance, subset_cumulative_distance, top_n_mask
from attnbounds.numerics.montecarlo import check_confidence, mean_ci
from attnbounds.numerics.sampling import as_generator
from attnbounds.numerics.validation import check_count, check_distribution, check_embeddings, check_top_n

__all__ = [
    "SELECTION_METHODS",
    "SelectionExpectation",
    "subset_masks",
    "random_subset_masks",
    "random_selection_expectation",
    "random_selection_main_term",
    "jensen_gap_bound",
    "jensen_gap",
    "separability",
    "exact_sphere3",
    "distinguishable_mask",
]

#: Methods accepted by :func:`random_selection_expectation`.
SELECTION_METHODS: tuple[str, ...] = ("exact", "main", "mc")

# Elements of the largest temporary (subsets × batch × L × d) built at once.
_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class SelectionExpectation:
    """E_S[d̃] for a uniformly random n-subset S, with its confidence interval.

    ``value``/``ci_low``/``ci_high`` are floats or arrays over the batch. For ``"exact"``
    and ``"main"`` the interval is degenerate (``ci_low == ci_high == value``); ``samples``
    is the number of subsets evaluated (C(L, n) for ``"exact"``, 0 for ``"main"``).
    """

    value: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    samples: int
    method: str
    confidence: float | None = None


def subset_masks(L: int, n: int, max_subsets: int = 200_000) -> np.ndarray:
    """All n-subsets of {0..L−1} as a boolean array of shape ``(C(L, n), L)``, lexicographic.

    >>> subset_masks(3, 2).astype(int)
    array([[1, 1, 0],
           [1, 0, 1],
           [0, 1, 1]])
    >>> subset_masks(30, 15)
    Traceback (most recent call last):
    ...
    ValueError: max_subsets: C(30, 15) = 155117520 subsets exceed max_subsets = 200000; use method="mc"
    """
    L = check_count(L, "L")
    n = check_top_n(n, L)
    max_subsets = check_count(max_subsets, "max_subsets")
    count = math.comb(L, n)
    if count > max_subsets:
        raise ValueError(
            f"max_subsets: C({L}, {n}) = {count} subsets exceed max_subsets = {max_subsets}; use method=\"mc\""
        )
    # itertools yields the index tuples in C; np.fromiter packs them without a Python loop body.
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(L), n)), dtype=np.intp, count=count * n
    )
    masks = np.zeros((count, L), dtype=bool)
    np.put_along_axis(masks, flat.reshape(count, n), True, axis=1)
    return masks


def random_subset_masks(rng, samples: int, L: int, n: int, batch_shape: tuple[int, ...] = ()) -> np.ndarray:
    """Uniformly random n-subsets as masks of shape ``(samples, *batch_shape, L)``.

    The n smallest of L i.i.d. uniforms index a uniformly random n-subset.

    >>> m = random_subset_masks(0, 5, 4, 2)
    >>> m.shape, bool(np.all(m.sum(axis=-1) == 2))
    ((5, 4), True)
    """
    g = as_generator(rng)
    samples = check_count(samples, "samples")
    L = check_count(L, "L")
    n = check_top_n(n, L)
    shape = (samples, *batch_shape, L)
    keys = g.random(shape)
    idx = np.argpartition(keys, n - 1, axis=-1)[..., :n]
    masks = np.zeros(shape, dtype=bool)
    np.put_along_axis(masks, idx, True, axis=-1)
    return masks


def _validate(weights, x, n):
    w = check_distribution(weights)
    xs = check_embeddings(x, w)
    n = check_top_n(n, w.shape[-1])
    batch = np.broadcast_shapes(w.shape[:-1], xs.shape[:-2])
    return w, xs, n, batch


def _check_radius(r, batch) -> np.ndarray:
    radius = np.asarray(r, dtype=np.float64) if not isinstance(r, bool) else None
    if radius is None or not np.issubdtype(radius.dtype, np.floating):
        raise TypeError(f"r: must be a number or an array of numbers, got {type(r).__name__}")
    if radius.size == 0 or not np.all(np.isfinite(radius)) or np.any(radius < 0):
        raise ValueError("r: must be finite and >= 0")
    try:
        np.broadcast_shapes(radius.shape, batch)
    except ValueError as exc:
        raise ValueError(f"r: shape {radius.shape} does not broadcast with batch shape {batch}") from exc
    return radius


def random_selection_main_term(weights, x, n: int) -> np.ndarray:
    """M = (L−n)/L · Σ_i ‖(1 + n/(L−1))·α_i x_i − (n/(L−1))·Σ_j α_j x_j‖₂, batched.

    >>> float(random_selection_main_term([0.5, 0.5], [[1.0], [-1.0]], 1))
    1.0
    """
    w, xs, n, _ = _validate(weights, x, n)
    L = w.shape[-1]
    c = n / (L - 1)
    ax = w[..., :, None] * xs  # α_i x_i, (..., L, d)
    total = ax.sum(axis=-2, keepdims=True)  # Σ_j α_j x_j, (..., 1, d)
    inner = np.linalg.norm((1 + c) * ax - c * total, axis=-1)  # (..., L)
    return (L - n) / L * inner.sum(axis=-1)


def _chunked_mean_exact(w, xs, masks, batch):
    L, d = w.shape[-1], xs.shape[-1]
    per = max(1, int(np.prod(batch, dtype=np.int64)) * L * d)
    step = max(1, _CHUNK_ELEMENTS // per)
    total = np.zeros(batch)
    for start in range(0, masks.shape[0], step):  # loop over chunks of subsets, not elements
        m = masks[start : start + step].reshape((-1,) + (1,) * len(batch) + (L,))
        total = total + subset_cumulative_distance(w, xs, m).sum(axis=0)
    return total / masks.shape[0]


def _mc_samples(w, xs, n, batch, samples, rng):
    L, d = w.shape[-1], xs.shape[-1]
    per = max(1, int(np.prod(batch, dtype=np.int64)) * L * d)
    step = max(1, _CHUNK_ELEMENTS // per)
    out = []
    done = 0
    while done < samples:  # loop over chunks of samples
        k = min(step, samples - done)
        m = random_subset_masks(rng, k, L, n, batch)
        out.append(subset_cumulative_distance(w, xs, m))  # (k, *batch)
        done += k
    return np.concatenate(out, axis=0)


def random_selection_expectation(
    weights,
    x,
    n: int,
    method: str = "exact",
    samples: int = 10_000,
    seed=0,
    confidence: float = 0.99,
    max_subsets: int = 200_000,
) -> SelectionExpectation:
    """E_S[d̃(S)] over a uniformly random n-subset S, by ``method`` ∈ {"exact", "main", "mc"}.

    ``weights`` is ``(..., L)`` (probability vectors) and ``x`` is ``(..., L, d)``; the value
    has the broadcast batch shape (a float when unbatched). ``"exact"`` refuses more than
    ``max_subsets`` subsets; ``"mc"`` draws ``samples`` subsets per batch element from
    ``seed`` (an int or a numpy Generator) and reports a Student-t interval at ``confidence``.

    >>> w, x = [0.5, 0.25, 0.25], np.eye(3)
    >>> mc = random_selection_expectation(w, x, 1, method="mc", samples=2000)
    >>> bool(mc.ci_low <= 0.981058 <= mc.ci_high)
    True
    """
    w, xs, n, batch = _validate(weights, x, n)
    if method not in SELECTION_METHODS:
        raise ValueError(f"method: must be one of {SELECTION_METHODS}, got {method!r}")
    L = w.shape[-1]

    def shaped(v):
        v = np.asarray(v, dtype=float)
        return float(v) if v.ndim == 0 else v

    if method == "main":
        v = shaped(random_selection_main_term(w, xs, n))
        return SelectionExpectation(v, v, v, 0, "main")
    if method == "exact":
        masks = subset_masks(L, n, max_subsets)
        v = shaped(_chunked_mean_exact(w, xs, masks, batch))
        return SelectionExpectation(v, v, v, masks.shape[0], "exact")
    samples = check_count(samples, "samples")
    if samples < 2:
        raise ValueError(f"samples: need at least 2 for a confidence interval, got {samples}")
    c = check_confidence(confidence)
    rng = as_generator(seed, "seed")
    draws = _mc_samples(w, xs, n, batch, samples, rng)
    mean, lo, hi = mean_ci(draws, confidence=c, axis=0)
    return SelectionExpectation(shaped(mean), shaped(lo), shaped(hi), samples, "mc", c)


def exact_sphere3(a, b, radius, r_):
    """Exact ξ_i = E[D_i] and P(D_i ≤ r) for d = 3 when the other selected weights are a, b
    (the formulas of :mod:`attnbounds.theory.separability`, evaluated in numpy).

    ``a`` and ``b`` are the weights of the (at most two) other selected tokens (0 for an
    absent one); arrays broadcast. With ab = 0, D_i = radius·max(a, b) is deterministic.

    >>> exact_sphere3(0.25, 0.0, 1.0, 0.3)
    (array(0.25), array(1.))
    >>> xi, p = exact_sphere3(0.5, 0.5, 1.0, 0.5)
    >>> float(xi), float(p)
    (0.6666666666666666, 0.25)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    for arr, name in ((a, "a"), (b, "b")):
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name}: must be finite and >= 0")
    if isinstance(radius, bool) or not isinstance(radius, numbers.Real) or not radius > 0:
        raise ValueError(f"radius: must be a real > 0, got {radius!r}")
    r_ = np.asarray(r_, dtype=np.float64)
    if not np.all(np.isfinite(r_)) or np.any(r_ < 0):
        raise ValueError("r_: must be finite and >= 0")
    ab = a * b
    big, small = np.maximum(a, b), np.minimum(a, b)
    # ξ = M((a+b)³ − (a−b)³)/(6ab) = M(3A² + B²)/(3A) with A = max, B = min: no cancellation,
    # and the ab → 0 limit M·A comes out of the same formula.
    xi_val = radius * np.where(big > 0, (3 * big**2 + small**2) / (3 * np.where(big > 0, big, 1.0)), 0.0)
    # P(t ≤ u), u = ((r/M)² − a² − b²)/(2ab), t ~ U[−1, 1]:  (u + 1)/2 = ((r/M)² − (a−b)²)/(4ab), clipped.
    safe = np.where(ab > 0, ab, 1.0)
    with np.errstate(over="ignore"):  # (r/M)² = inf for a huge r: P = 1 after the clip (trial 50's warning)
        p_smooth = np.clip(((r_ / radius) ** 2 - (a - b) ** 2) / (4 * safe), 0.0, 1.0)
    p_point = (r_ >= radius * big).astype(np.float64)
    return np.asarray(xi_val), np.asarray(np.where(ab > 0, p_smooth, p_point))


def separability(weights, x, n: int, r) -> np.ndarray:
    """N_s/N = #{i ∈ I_N : D_i ≤ r}/n, the share of top-n tokens inside the ball B_r(s).

    ``r`` (≥ 0, finite) is a number or an array broadcasting against the batch shape; the
    result has the broadcast shape, so an array of radii for one instance gives the curve
    N_s/N against r.

    >>> separability([0.5, 0.3, 0.2], np.eye(3), 2, r=[0.1, 0.4, 1.0]).tolist()
    [0.0, 0.5, 1.0]

    >>> float(separability([0.5, 0.3, 0.2], np.eye(3), 2, r=0.4))
    0.5
    """
    w, xs, n, batch = _validate(weights, x, n)
    radius = _check_radius(r, batch)
    D = per_token_distance(w, xs, n)  # (..., L)
    inside = top_n_mask(w, n) & (D <= radius[..., None])
    out = inside.sum(axis=-1) / n
    return float(out) if np.ndim(out) == 0 else out


def distinguishable_mask(weights, x, n: int, r) -> np.ndarray:
    """The paper's distinguishable tokens: selected i with α_i x_i in the closed ball B_r(s),
    counted only when every non-selected α_j x_j lies outside it (D_j > r). Shape ``(..., L)``.

    N_s = ``distinguishable_mask(...).sum(-1)``. ``r`` (≥ 0, finite) broadcasts against the
    batch shape.

    >>> distinguishable_mask([0.5, 0.3, 0.2], np.eye(3), 2, r=0.6).tolist()  # D = (0.3, 0.5, 0.616)
    [True, True, False]
    >>> distinguishable_mask([0.5, 0.3, 0.2], np.eye(3), 2, r=0.7).tolist()  # token 3 falls inside
    [False, False, False]
    """
    w, xs, n, batch = _validate(weights, x, n)
    radius = np.asarray(r, dtype=np.float64) if not isinstance(r, bool) else None
    if radius is None or not np.issubdtype(radius.dtype, np.floating):
        raise TypeError(f"r: must be a number or an array of numbers, got {type(r).__name__}")
    if radius.size == 0 or not np.all(np.isfinite(radius)) or np.any(radius < 0):
        raise ValueError("r: must be finite and >= 0")
    D = per_token_distance(w, xs, n)  # (..., L)
    mask = top_n_mask(w, n)
    inside = D <= radius[..., None]
    separated = ~np.any(inside & ~mask, axis=-1, keepdims=True)  # every non-selected token outside
    return mask & inside & separated


# ---------------------------------------------------------------- the Jensen gap of T1(ii)


def jensen_gap_bound(weights, x, n: int) -> np.ndarray:
    """G = (L−N)/L Σ_i √(f · Σ_{j≠i} ‖α_j x_j − ȳ_{−i}‖²), f = N(L−1−N)/((L−1)(L−2)) (0 if N = L−1).

    An upper bound on the Jensen gap ε = E_S[d̃] − M.

    >>> float(jensen_gap_bound([0.5, 0.25, 0.25], np.eye(3), 2))
    0.0
    """
    w, xs, n, _ = _validate(weights, x, n)
    L = w.shape[-1]
    m = L - 1
    f = 0.0 if n == m else n * (m - n) / (m * (m - 1))
    y = w[..., :, None] * xs  # α_j x_j, (..., L, d)
    sq = (y**2).sum(axis=-1)  # ‖y_j‖²
    total_sq = sq.sum(axis=-1, keepdims=True)  # Σ_j ‖y_j‖²
    Y = y.sum(axis=-2, keepdims=True)  # Σ_j y_j
    # Σ_{j≠i} ‖y_j − ȳ_{−i}‖² = Σ_{j≠i}‖y_j‖² − ‖Σ_{j≠i} y_j‖²/m
    spread = (total_sq - sq) - ((Y - y) ** 2).sum(axis=-1) / m
    return (L - n) / L * np.sqrt(f * np.clip(spread, 0.0, None)).sum(axis=-1)


def jensen_gap(weights, x, n: int, method: str = "exact", samples: int = 10_000, seed=0, confidence=0.99) -> dict:
    """E_S[d̃], the main term M, ε = E − M, ε/M and the bound G, for one instance or a batch.

    ``method`` is ``"exact"`` (enumeration) or ``"mc"`` (random subsets, Student-t interval
    on E, carried over to ε). Returns ``{"E", "E_ci", "M", "epsilon", "epsilon_ci",
    "ratio", "G"}``.

    >>> g = jensen_gap([0.5, 0.5], [[1.0], [-1.0]], 1)
    >>> float(g["E"]), float(g["M"]), float(g["epsilon"])
    (1.0, 1.0, 0.0)
    """
    if method not in ("exact", "mc"):
        raise ValueError(f"method: must be 'exact' or 'mc', got {method!r}")
    w, xs, n, _ = _validate(weights, x, n)
    est = random_selection_expectation(w, xs, n, method=method, samples=samples, seed=seed, confidence=confidence)
    M = random_selection_main_term(w, xs, n)
    eps = est.value - M
    return {
        "E": est.value,
        "E_ci": (est.ci_low, est.ci_high),
        "M": M,
        "epsilon": eps,
        "epsilon_ci": (est.ci_low - M, est.ci_high - M),
        "ratio": eps / M,
        "G": jensen_gap_bound(w, xs, n),
    }
