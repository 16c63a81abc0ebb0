"""Fused per-row kernels (numba) for :func:`attnbounds.empirical.experiments.position_metrics`.

The torch path of ``position_metrics`` makes about a dozen passes over a (heads, rows, keys)
float64 block per N (the squared distance, clamp, sqrt, masking, sums), and re-reads the
block for each N. Here each row is handled by one compiled loop:

* :func:`selected_sums`: the selection sums of every N at once, s_N = Σ_{m<N} α_{o_m} x_{o_m},
  ᾱ_N and R = max_{m<N}‖x_{o_m}‖, by running sums along the row's order o (the top order,
  largest weight first, ties to the lower index);
* the products x_i · s_N of every key with every N's s_N are one batched matmul (torch);
* :func:`distance_sums`: one pass over the row's visible keys per N gives
  D_i = ‖α_i x_i − s_N‖ from them, d̃ = Σ_{i∉I_N} D_i, E4's r = min_{i∉I_N} D_i and
  N_s = #{j ∈ I_N : D_j < r}, and d_1 = max_{i∉I_N}‖x_i‖;
* :func:`main_sums`: the T1(ii) main term of every N in one pass over the keys;
* :func:`t2_sides`: Theorem 2's two sides of one N (E4);
* :func:`top_k_rows`: the top order itself (the first k of a stable descending sort), by
  selection; :func:`running_pair_maxima` and :func:`pair_maxima`: d_1 from running maxima.

The arithmetic of each term is the torch path's (the same products in the same order);
only the order of the sums over keys differs, so the two agree to rounding (tested).
A row's visible keys must be one range [start, end] (a causal prefix, a sliding window or
every key); ``position_metrics`` takes the torch path otherwise.
"""

from __future__ import annotations

import math
import os

import numba as nb
import numpy as np

# numba's default OpenMP layer is a second OpenMP runtime beside torch's; their idle threads
# spin between the many short kernel and tensor calls. The work-queue layer does not spin:
# measured on a loaded 2-core machine, a layer's E2/E4 rows took 6.8 s of CPU instead of 11.7 s.
if "NUMBA_THREADING_LAYER" not in os.environ:
    nb.config.THREADING_LAYER = "workqueue"

__all__ = ["selected_sums", "distance_sums", "main_sums", "pair_maxima", "top_k_rows", "running_pair_maxima", "t2_sides"]


@nb.njit(parallel=True, cache=True)
def selected_sums(w, x, norms, order, ns, S, mass, rmax):  # pragma: no cover - compiled
    """For each row (b, r) and each N of ``ns`` (ascending): S[b, r, a] = Σ_{m<N} α_{o_m} x_{o_m},
    mass = Σ_{m<N} α_{o_m}, rmax = max_{m<N} ‖x_{o_m}‖. ``order`` (B, R, k ≥ max N)."""
    B, R, _ = w.shape
    d = x.shape[2]
    nN = ns.shape[0]
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        acc = np.zeros(d)
        m_acc = 0.0
        r_acc = -np.inf
        m = 0
        for a in range(nN):
            n = ns[a]
            while m < n:
                j = order[b, r, m]
                wj = w[b, r, j]
                for q in range(d):
                    acc[q] += wj * x[b, j, q]
                m_acc += wj
                if norms[b, j] > r_acc:
                    r_acc = norms[b, j]
                m += 1
            for q in range(d):
                S[b, r, a, q] = acc[q]
            mass[b, r, a] = m_acc
            rmax[b, r, a] = r_acc


@nb.njit(parallel=True, cache=True, fastmath={"reassoc", "contract"})
def distance_sums(w, xsq, norms, dots, ss, order, ns, starts, ends, sep, terms,
                  d_tilde, radius, inside, d1_norm):  # pragma: no cover - compiled
    """Per row and N: d̃ = Σ_{i∉I_N} D_i over the visible keys [starts[r], ends[r]],
    D_i = sqrt(max(α_i²‖x_i‖² − 2 α_i (x_i·s_N) + ‖s_N‖², 0)) with ``dots`` (B, R, nN, K)
    = x_i·s_N and ``ss`` (B, R, nN) = ‖s_N‖². As in the torch path, d̃ is the sum over the
    visible keys minus the sum over I_N. With ``sep``: radius = min_{i∉I_N} D_i and
    inside = #{j ∈ I_N : D_j < radius}; with ``terms``: d1_norm = max_{i∉I_N} ‖x_i‖."""
    B, R, K = w.shape
    k = order.shape[2]
    nN = ns.shape[0]
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        lo = starts[r]
        hi = ends[r] + 1
        rank = np.empty(0, np.int64)
        buf = np.empty(K)
        if sep or terms:
            rank = np.full(K, k, np.int64)  # position in the top order; k: not among the first k
            for m in range(k):
                rank[order[b, r, m]] = m
        for a in range(nN):
            n = ns[a]
            s2 = ss[b, r, a]
            tot = 0.0
            for i in range(lo, hi):
                wi = w[b, r, i]
                dv = math.sqrt(max(wi * wi * xsq[b, i] + (-2.0) * wi * dots[b, r, a, i] + s2, 0.0))
                buf[i] = dv
                tot += dv
            sel = 0.0
            for m in range(n):
                j = order[b, r, m]
                if lo <= j < hi:
                    sel += buf[j]
                else:  # a hidden key (α = 0): D = ‖s‖
                    sel += math.sqrt(max(s2, 0.0))
            d_tilde[b, r, a] = tot - sel
            if sep:
                rmin = np.inf
                for i in range(lo, hi):
                    if rank[i] >= n and buf[i] < rmin:
                        rmin = buf[i]
                radius[b, r, a] = rmin
                c = 0
                for m in range(n):
                    j = order[b, r, m]
                    dj = buf[j] if lo <= j < hi else math.sqrt(max(s2, 0.0))
                    if dj < rmin:
                        c += 1
                inside[b, r, a] = c
            if terms:
                dmax = -np.inf
                for i in range(lo, hi):
                    if rank[i] >= n and norms[b, i] > dmax:
                        dmax = norms[b, i]
                d1_norm[b, r, a] = dmax


@nb.njit(parallel=True, cache=True, fastmath={"reassoc", "contract"})
def main_sums(w, xsq, xc, csq, ns, starts, ends, out):  # pragma: no cover - compiled
    """The T1(ii) main term per row and N: (t − N)/t Σ_i ‖(1 + k) α_i x_i − k c‖ over the row's
    t visible keys, k = N/max(t − 1, 1), with ``xc`` (B, R, K) = x_i·c and ``csq`` (B, R) = ‖c‖²."""
    B, R, K = w.shape
    nN = ns.shape[0]
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        lo = starts[r]
        hi = ends[r] + 1
        t = hi - lo
        km1 = max(t - 1, 1)
        A = np.empty(nN)
        Bc = np.empty(nN)
        C = np.empty(nN)
        for a in range(nN):
            kk = ns[a] / km1
            A[a] = (1.0 + kk) ** 2
            Bc[a] = -2.0 * kk * (1.0 + kk)
            C[a] = kk * kk * csq[b, r]
        acc = np.zeros(nN)
        for i in range(lo, hi):
            wi = w[b, r, i]
            ai = wi * wi * xsq[b, i]
            bi = xc[b, r, i] * wi
            for a in range(nN):
                acc[a] += math.sqrt(max(ai * A[a] + bi * Bc[a] + C[a], 0.0))
        for a in range(nN):
            out[b, r, a] = (t - ns[a]) / t * acc[a]


@nb.njit(parallel=True, cache=True)
def pair_maxima(x, xsq, order, n, best, arg, per_row, starts, ends, out):  # pragma: no cover - compiled
    """d_1² = max_{i∉I_N, j∈I_N} ‖x_i − x_j‖² per row from a PairTable's running maxima.

    ``best``/``arg`` (B, K, C): the largest ‖x_i − x_j‖² over the row's visible keys and its
    maximizer, column r (``per_row``) or 0. For a selected j whose maximizer is not selected
    the maximum is exact; the others are recomputed over the row's visible non-selected
    keys, largest candidate first, only while their candidate (an upper bound) can still win.
    ``out`` (B, R): −inf where no key is left out."""
    B, R, _ = order.shape
    K = x.shape[1]
    d = x.shape[2]
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        c = r if per_row else 0
        chosen = np.zeros(K, np.bool_)
        for m in range(n):
            chosen[order[b, r, m]] = True
        good = -np.inf
        cand = np.empty(n)
        who = np.empty(n, np.int64)
        k = 0
        for m in range(n):
            j = order[b, r, m]
            v = best[b, j, c]
            if chosen[arg[b, j, c]]:
                cand[k] = v
                who[k] = j
                k += 1
            elif v > good:
                good = v
        if k:
            idx = np.argsort(-cand[:k])
            for q in range(k):
                v = cand[idx[q]]
                if not v > good:
                    break
                j = who[idx[q]]
                for i in range(starts[r], ends[r] + 1):
                    if chosen[i]:
                        continue
                    dot = 0.0
                    for e in range(d):
                        dot += x[b, j, e] * x[b, i, e]
                    d2 = (xsq[b, i] + xsq[b, j]) - 2.0 * dot
                    if d2 > good:
                        good = d2
        out[b, r] = good


@nb.njit(cache=True)
def _kth_by_heap(row, k):  # pragma: no cover - compiled
    """The k-th largest value of ``row``: a min-heap of the k largest seen (a value at or below
    the heap's root costs one comparison)."""
    h = np.empty(k)
    for i in range(k):
        h[i] = row[i]
        c = i
        while c > 0:
            q = (c - 1) // 2
            if h[c] < h[q]:
                h[c], h[q] = h[q], h[c]
                c = q
            else:
                break
    for i in range(k, row.shape[0]):
        v = row[i]
        if not v > h[0]:
            continue
        h[0] = v
        c = 0
        while True:
            lft = 2 * c + 1
            if lft >= k:
                break
            m = lft
            if lft + 1 < k and h[lft + 1] < h[lft]:
                m = lft + 1
            if h[m] < h[c]:
                h[c], h[m] = h[m], h[c]
                c = m
            else:
                break
    return h[0]


@nb.njit(parallel=True, cache=True)
def top_k_rows(w, k, out):  # pragma: no cover - compiled
    """out[b, r] = the first k indices of row (b, r) by weight, largest first, ties to the lower
    index (the first k of a stable sort of −w), by selection. The k-th
    largest weight θ is found by a min-heap of the k largest (small k) or ``np.partition``;
    the keys above θ and the lowest-index keys at θ (as many as fit) are collected in index
    order, then sorted stably by weight. With 2k ≥ K a full stable sort is cheaper."""
    B, R, K = w.shape
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        if 2 * k >= K:
            idx = np.argsort(-w[b, r], kind="mergesort")
            for m in range(k):
                out[b, r, m] = idx[m]
            continue
        if k <= 16:  # measured on (4, 512, 1024) rows: 5x faster than np.partition at k = 5
            theta = _kth_by_heap(w[b, r], k)
        else:  # np.partition (a copy of the row) is within 20% of a hand-written quickselect here
            theta = np.partition(w[b, r], K - k)[K - k]
        above = 0
        for i in range(K):
            if w[b, r, i] > theta:
                above += 1
        at = k - above  # keys at θ that belong to the top k (the lowest indices)
        sel = np.empty(k, np.int64)
        vals = np.empty(k)
        m = 0
        for i in range(K):
            v = w[b, r, i]
            if v > theta or (v == theta and at > 0):
                if v == theta:
                    at -= 1
                sel[m] = i
                vals[m] = -v
                m += 1
        pos = np.argsort(vals, kind="mergesort")  # stable: ties keep index order
        for q in range(k):
            out[b, r, q] = sel[pos[q]]


@nb.njit(parallel=True, cache=True)
def running_pair_maxima(d2, r0, carried, carried_arg, best, arg):  # pragma: no cover - compiled
    """One prefix block of :class:`~attnbounds.empirical.experiments.PairTable`'s running maxima.

    ``d2`` (B, K, C) = ‖x_i − x_j‖² for the keys j and the block's keys i = r0 … r0 + C − 1.
    best[b, j, c] = max over keys i ≤ r0 + c of d2 and arg its maximizer: the running maximum
    over the block (a tie moves to the later key, as ``torch.cummax``), replaced by the
    carried maximum over the keys < r0 (``carried``/``carried_arg`` (B, K)) only where that
    is strictly larger. ``carried``/``carried_arg`` are then advanced to the keys < r0 + C."""
    B, K, C = d2.shape
    for p in nb.prange(B * K):
        b = p // K
        j = p - b * K
        cb = carried[b, j]
        ca = carried_arg[b, j]
        m = -np.inf
        a = 0
        for c in range(C):
            v = d2[b, j, c]
            if c == 0 or v >= m:
                m = v
                a = r0 + c
            if cb > m:
                best[b, j, c] = cb
                arg[b, j, c] = ca
            else:
                best[b, j, c] = m
                arg[b, j, c] = a
        if not cb > m:
            carried[b, j] = m
            carried_arg[b, j] = a


@nb.njit(parallel=True, cache=True)
def t2_sides(w, order, n, radius, lower, upper):  # pragma: no cover - compiled
    """Theorem 2's two sides per row at one N, ξ_j read as σ_j = (Σ_{k∈I_N∖j} α_k²)^{1/2}:
    lower = 1 − (1/N) Σ_j ξ_j / r (Markov) and upper = (1/N) Σ_j exp(−((ξ_j − r)₊)²/(2σ_j²))
    (McDiarmid, M = 1; a term is 1 where ξ_j ≤ r), with r = ``radius`` (B, R)."""
    B, R, _ = w.shape
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        tot = 0.0
        for m in range(n):
            a = w[b, r, order[b, r, m]]
            tot += a * a
        rr = radius[b, r]
        xs = 0.0
        ts = 0.0
        for m in range(n):
            a = w[b, r, order[b, r, m]]
            xi = math.sqrt(max(tot - a * a, 0.0))
            xs += xi
            gap = max(xi - rr, 0.0)
            if gap > 0:
                den = 2.0 * (xi * xi) if xi > 0 else 2.0
                ts += math.exp(-gap * gap / den)
            else:
                ts += 1.0
        lower[b, r] = 1.0 - (xs / n) / rr
        upper[b, r] = ts / n
