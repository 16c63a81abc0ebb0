"""Fused per-row kernels (numba) for :func:`attnbounds.empirical.experiments.position_metrics`.

The torch path of ``position_metrics`` makes about a dozen passes over a (heads, rows, keys)
float64 block per N and re-reads the block for each N. Here each row (b, r) is handled by one
compiled loop, :func:`row_metrics`, for every N at once:

* rows in groups of 16 of one head: each row's softmax from its float32 logits (the code of
  :func:`softmax_rows`), and the group's contexts c = Σ_i α_i x_i and products x_i · c by two
  matrix products (BLAS) of a shape fixed by the block;
* the row's order (largest weight first, equal weights in index order): by insertion for
  short rows, by selection of the first ranks when no checkpoint reads beyond them, else by a
  radix sort (:func:`sort_row`); which keys lie outside I_N comes from each key's rank;
* the **Gram checkpoints**, N < ``gram_gap`` (a rule per N, so that a value does not
  depend on the other N asked): the products P_i = x_i · s_N with s_N = Σ_{m<N} α_{o_m} x_{o_m} are
  running sums of rows of the Gram matrix G = X Xᵀ, P += α_j G[j, ·] for each key j that
  joins the top set (one pass over the row's keys per key, no product of length d), and
  ‖s_N‖² = ‖s_{N−1}‖² + 2α_j P_j + α_j² G[j, j];
* the **direct checkpoints**, the other N: s_N by running sums along the order (four keys per
  pass, :func:`_accumulate`), then one matrix product (BLAS) of the s_N of every row of the
  group with the group's keys gives every x_i · s_N (one product per group, not per row: BLAS
  packs the keys once, and a few rows of s_N per row ran it at a quarter of its speed; an N ≥ 3t/4
  that needs only the keys it leaves out takes those key by key, :func:`_low_distance_sums`).
  A row's half before the product is :func:`_row_prepare`, after it :func:`_row_complete`;
* at each N, D_i = ‖α_i x_i − s_N‖ = (α_i²‖x_i‖² − 2α_i x_i·s_N + ‖s_N‖²)^{1/2} over the
  row's visible keys, d̃ = Σ_{i∉I_N} D_i, ᾱ_N and R = max_{j∈I_N}‖x_j‖, d_1 = max_{i∉I_N}‖x_i‖,
  E4's r = min_{i∉I_N} D_i with N_s = #{j ∈ I_N : D_j < r} and Theorem 2's two sides
  (:func:`_separability`), and the T1(ii) main term from x_i · c;
* :func:`top_k_rows`: the top order alone (the first k of a stable descending sort), by
  selection; :func:`running_pair_maxima` (or :func:`pair_row_steps` and
  :func:`pair_step_lookup`) and :func:`pair_maxima`: d_1 from running maxima.

The terms are the torch path's formulas; the products x_i · s_N are summed in another order
(through G, or one BLAS product), so the two agree to rounding (tested, 1e-12 relative).
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

__all__ = ["row_metrics", "sort_row", "softmax_rows", "exp_nonpositive", "pair_maxima",
           "top_k_rows", "running_pair_maxima", "pair_gather", "pair_row_steps", "pair_step_lookup",
           "perturbation_rows", "h1_heads", "h1_universe", "FLAG_MASS", "FLAG_TERMS", "FLAG_MAIN", "FLAG_SEP",
           "kernels_cached", "kernels_valid", "kernels_in_use", "cache_directory"]


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
    index (the first k of a stable sort of −w), by the row engine's selection
    (:func:`_top_order`: the k-th largest weight by a min-heap, then the keys above it and the
    lowest-index keys at it, in order). With 2k ≥ K a full stable sort is cheaper."""
    B, R, K = w.shape
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        if 2 * k >= K:
            idx = np.argsort(-w[b, r], kind="mergesort")
            for m in range(k):
                out[b, r, m] = idx[m]
            continue
        a = np.empty(K, np.int64)
        _top_order(w[b, r], 0, K, k, a)
        for m in range(k):
            out[b, r, m] = a[m]


@nb.njit(cache=True, inline="always")
def _step(c, v, m, n, o, e, at, top, nan):  # pragma: no cover - compiled
    """One distance v (at column c) of _key_steps not below the maximum m, or NaN."""
    if v >= m:
        if o + n < e:
            at[o + n], top[o + n] = c, v
        return v, n + 1, nan
    return m, n, nan or v != v


@nb.njit(cache=True, inline="always")
def _key_steps(w, sq, sj, o, e, at, top):  # pragma: no cover - compiled
    """The running maximum of one key j's d2[c] = (‖x_j‖² + ‖x_i‖²) − 2 x_j·x_i over columns c (the
    keys i in order), with w[c] = x_j·x_i, sq[c] = ‖x_i‖², sj = ‖x_j‖²; the first column is taken
    as it is, after it a tie moves to the later column (as ``torch.cummax``). Writes where it
    changes: the p-th change at column at[o + p] to top[o + p] (the first at column 0), while
    o + p < e. Returns (the number of changes, whether a distance is NaN).

    Four columns a test: all four below the maximum (nearly always: it changes a few times
    along a row) cost one branch; on a gpt2-random layer 1.3x faster than a test a column."""
    C = w.shape[0]
    m = (sj + sq[0]) - 2.0 * w[0]
    nan = m != m
    if o < e:
        at[o], top[o] = 0, m
    n = 1
    c = 1
    while c + 4 <= C:
        v0 = (sj + sq[c]) - 2.0 * w[c]
        v1 = (sj + sq[c + 1]) - 2.0 * w[c + 1]
        v2 = (sj + sq[c + 2]) - 2.0 * w[c + 2]
        v3 = (sj + sq[c + 3]) - 2.0 * w[c + 3]
        if not (v0 < m and v1 < m and v2 < m and v3 < m):
            m, n, nan = _step(c, v0, m, n, o, e, at, top, nan)
            m, n, nan = _step(c + 1, v1, m, n, o, e, at, top, nan)
            m, n, nan = _step(c + 2, v2, m, n, o, e, at, top, nan)
            m, n, nan = _step(c + 3, v3, m, n, o, e, at, top, nan)
        c += 4
    while c < C:
        m, n, nan = _step(c, (sj + sq[c]) - 2.0 * w[c], m, n, o, e, at, top, nan)
        c += 1
    return n, nan


_KEYS_PER_TASK = 64  # keys per parallel task of running_pair_maxima (its distances: 64 KiB at C = 128)


@nb.njit(parallel=True, cache=True)
def running_pair_maxima(dots, col0, xsq, r0, carried, carried_arg, best, arg):  # pragma: no cover - compiled
    """One prefix block of :class:`~attnbounds.empirical.experiments.PairTable`'s running maxima.

    The block's keys are i = r0 … r0 + C − 1 and ‖x_i − x_j‖² = (‖x_j‖² + ‖x_i‖²) − 2 x_j·x_i with
    x_j·x_i = dots[b, j, col0 + i − r0] (the Gram matrix and col0 = r0, or the block's products and
    col0 = 0) and ‖x‖² = ``xsq`` (B, K): the sum torch's d2 block had, so the values are its own.
    best[b, j, c] = max over keys i ≤ r0 + c and arg its maximizer: the running maximum over the
    block (a tie moves to the later key, as ``torch.cummax``), replaced by the carried maximum
    over the keys < r0 (``carried``/``carried_arg`` (B, K)) only where that is strictly larger.
    ``carried``/``carried_arg`` are then advanced to the keys < r0 + C, in place."""
    B, K, C = best.shape
    groups = (K + _KEYS_PER_TASK - 1) // _KEYS_PER_TASK
    for task in nb.prange(B * groups):
        b = task // groups
        lo = (task - b * groups) * _KEYS_PER_TASK
        hi = min(lo + _KEYS_PER_TASK, K)
        sq = xsq[b, r0:r0 + C]
        # the task's distances first, by a plain loop: its loads of the rows' column ranges (one
        # per key, far apart) overlap, which a running maximum's comparisons do not let them do
        # (scanning the products directly took 1.5x as long)
        d2 = np.empty((hi - lo, C))
        for j in range(lo, hi):
            sj = xsq[b, j]
            w = dots[b, j, col0:col0 + C]
            row = d2[j - lo]
            for c in range(C):
                row[c] = (sj + sq[c]) - 2.0 * w[c]
        for j in range(lo, hi):
            row = d2[j - lo]
            cb = carried[b, j]
            ca = carried_arg[b, j]
            out, out_arg = best[b, j], arg[b, j]
            m = row[0]  # the first key is taken as it is (NaN too)
            a = r0
            for c in range(C):
                if row[c] >= m:
                    m = row[c]
                    a = r0 + c
                if cb > m:
                    out[c] = cb
                    out_arg[c] = ca
                else:
                    out[c] = m
                    out_arg[c] = a
            if not cb > m:
                carried[b, j] = m
                carried_arg[b, j] = a


@nb.njit(parallel=True, cache=True)
def pair_row_steps(gram, xsq, first, count, at, top):  # pragma: no cover - compiled
    """The running maximum of ‖x_i − x_j‖² = (‖x_j‖² + ‖x_i‖²) − 2 gram[b, j, i] along every key
    j's row, over the keys i = 0 … K − 1 (K = ``xsq``.shape[1], ‖x‖² = ``xsq``), as steps: where it
    changes (a tie moves to the later key, as ``torch.cummax``), so that the running maxima of
    every prefix row are lookups (:func:`pair_step_lookup`).

    Key j's p-th change is at key at[first[b, j] + p] to the value top[first[b, j] + p] (the
    first at key 0); ``first`` (B, K + 1) gives each key's room, first[b, j + 1] − first[b, j]
    changes. count[b, j] = the number of changes, written even where it exceeds the room
    (then only the first are kept: the caller asks again with more room), or −1 where a
    distance is NaN (the running maximum then depends on where the blocks start: the caller
    takes the blocks' path).

    A key's whole row is read at once: on a gpt2-random layer (L = 1024) the Gram matrix is read
    about 5x faster so than by the blocks' column ranges."""
    B, K = xsq.shape
    for task in nb.prange(B * K):
        b = task // K
        j = task - b * K
        n, nan = _key_steps(gram[b, j, :K], xsq[b, :K], xsq[b, j], first[b, j], first[b, j + 1], at, top)
        count[b, j] = -1 if nan else n


@nb.njit(cache=True, inline="always")  # once per lookup: a call would cost more than the search
def _last_step(at, lo, hi, r):  # pragma: no cover - compiled
    """The last q in [lo, hi) with at[q] ≤ r (at[lo] = 0 ≤ r; ``at`` ascending on [lo, hi)): a
    scan over the few changes a row usually has, a bisection past 16."""
    if hi - lo <= 16:
        q = lo
        while q + 1 < hi and at[q + 1] <= r:
            q += 1
        return q
    while hi - lo > 1:  # at[lo] ≤ r < at[hi] (at[hi] taken as past every key)
        mid = (lo + hi) // 2
        if at[mid] <= r:
            lo = mid
        else:
            hi = mid
    return lo


@nb.njit(parallel=True, cache=True)
def pair_gather(best, arg, order, per_row, val, far):  # pragma: no cover - compiled
    """Each row's running maxima at its selected keys from a PairTable's (B, K, C) maxima:
    val[b, r, m] = best[b, order[b, r, m], c] and far[b, r, m] = arg[…], c = r (``per_row``) or 0.
    ``order`` (B, R, n), keys < K."""
    B, R, n = order.shape
    K = best.shape[1]
    bad = np.zeros(B * R, np.bool_)
    for p in nb.prange(B * R):
        b = p // R
        r = p - b * R
        c = r if per_row else 0
        for m in range(n):
            j = order[b, r, m]
            if j < 0 or j >= K:
                bad[p] = True
                continue
            val[b, r, m] = best[b, j, c]
            far[b, r, m] = arg[b, j, c]
    if bad.any():
        raise ValueError("order: a selected key is not one of the table's (0 <= key < K)")


_LOOKUP_ROWS = 128  # (head, row) pairs per parallel task of pair_step_lookup


@nb.njit(parallel=True, cache=True)
def pair_step_lookup(order, r0, first, count, at, top, val, far):  # pragma: no cover - compiled
    """The running maxima of the prefix rows r0 … r0 + C − 1 at their selected keys, from
    :func:`pair_row_steps`: for row r = r0 + c and its m-th key j = order[b, c, m], val[b, c, m] =
    max over the keys i ≤ r of ‖x_i − x_j‖² and far[b, c, m] its maximizer (the last change of
    j's running maximum at or before key r), as :func:`running_pair_maxima` gives them.
    ``order`` (B, C, n), keys < K.

    A task takes consecutive rows. At its first row of a head it reads the steps of the keys the
    block's rows see in key order (a stream): each key's maximum there, its maximizer and
    where it next changes; a row's keys are then read from those arrays, and a key's steps
    again only where it changed since (a key's maximum changes a few times along its whole
    row). Reading each selected key's steps at random instead took twice as long in a full
    pass, the steps being out of the cache by then."""
    B, C, n = order.shape
    K = count.shape[1]
    seen = min(r0 + C, K)  # the keys the block's rows see; any other key is searched for each time
    tasks = (B * C + _LOOKUP_ROWS - 1) // _LOOKUP_ROWS
    bad = np.zeros(tasks, np.bool_)
    for task in nb.prange(tasks):
        step = np.empty(seen, np.int64)  # key j's last change at or before the row, its value and maximizer,
        value = np.empty(seen)  # and the key of its next change (K: none)
        maximizer = np.empty(seen, np.int64)
        change = np.empty(seen, np.int64)
        head = -1
        for p in range(task * _LOOKUP_ROWS, min((task + 1) * _LOOKUP_ROWS, B * C)):
            b = p // C
            c = p - b * C
            r = r0 + c
            if b != head:
                head = b
                for j in range(seen):
                    end = first[b, j] + count[b, j]
                    q = _last_step(at, first[b, j], end, r)
                    step[j], value[j], maximizer[j] = q, top[q], at[q]
                    change[j] = at[q + 1] if q + 1 < end else K
            for m in range(n):
                j = order[b, c, m]
                if j < 0 or j >= K:
                    bad[task] = True
                    continue
                if j >= seen:
                    q = _last_step(at, first[b, j], first[b, j] + count[b, j], r)
                    val[b, c, m], far[b, c, m] = top[q], at[q]
                    continue
                if r >= change[j]:  # changed since: along its steps
                    end = first[b, j] + count[b, j]
                    q = step[j]
                    while q + 1 < end and at[q + 1] <= r:
                        q += 1
                    step[j], value[j], maximizer[j] = q, top[q], at[q]
                    change[j] = at[q + 1] if q + 1 < end else K
                val[b, c, m] = value[j]
                far[b, c, m] = maximizer[j]
    if bad.any():
        raise ValueError("order: a selected key is not one of the table's (0 <= key < K)")


@nb.njit(cache=True, inline="always")
def _largest_bound(cand, k, done):  # pragma: no cover - compiled
    """(index, tied): the largest of cand[:k] not ``done`` (index −1: none; NaN is never taken)
    and whether another not done equals it."""
    top = -1
    tied = False
    for u in range(k):
        v = cand[u]
        if done[u] or v != v:
            continue
        if top < 0 or v > cand[top]:
            top = u
            tied = False
        elif v == cand[top]:
            tied = True
    return top, tied


@nb.njit(cache=True, inline="always")
def _left_out_maximum(x, xsq, gram, use_gram, b, j, start, end, pos, n):  # pragma: no cover - compiled
    """max ‖x_i − x_j‖² over the keys start ≤ i ≤ end that are not among the first n selected
    (pos[i] ≥ n); −inf when there is none."""
    good = -np.inf
    sj = xsq[b, j]
    if use_gram:  # no branch per key: a selected key's place is unpredictable (a third of the time)
        row = gram[b, j, start:end + 1]
        sq = xsq[b, start:end + 1]
        place = pos[start:end + 1]
        for i in range(end + 1 - start):
            d2 = (sq[i] + sj) - 2.0 * row[i]
            good = d2 if place[i] >= n and d2 > good else good
    else:
        for i in range(start, end + 1):
            if pos[i] < n:
                continue
            dot = 0.0
            for e in range(x.shape[2]):
                dot += x[b, j, e] * x[b, i, e]
            d2 = (xsq[b, i] + sj) - 2.0 * dot
            if d2 > good:
                good = d2
    return good


@nb.njit(cache=True)
def _pair_maxima_rows(x, xsq, gram, use_gram, order, ns, val, far, starts, ends, out, lo,
                      hi):  # pragma: no cover - compiled
    """:func:`pair_maxima` of the (head, row) pairs lo ≤ b R + r < hi (one call per parallel task:
    the arrays are passed, and the work arrays made, once for its rows)."""
    R, n = val.shape[1], val.shape[2]
    K = xsq.shape[1]
    pos = np.full(K, n, np.int64)  # key i's first place in the row's order (n: none)
    seen = np.empty(n, np.int64)  # seen[m]: the visible keys among the row's first m + 1
    place = np.empty(n, np.int64)  # place[m]: the place of the m-th key's maximizer
    cand = np.empty(n)  # the bounds to recompute, their places in the row's order, which are taken,
    slot = np.empty(n, np.int64)  # and (for a tie) their recomputed values
    done = np.empty(n, np.bool_)
    exact = np.empty(n)
    for p in range(lo, hi):
        b = p // R
        r = p - b * R
        start, end = starts[r], ends[r]
        s = 0
        for m in range(n):
            j = order[b, r, m]
            if pos[j] == n:
                pos[j] = m
                if start <= j and j <= end:
                    s += 1
            seen[m] = s
        for m in range(n):
            place[m] = pos[far[b, r, m]]
        for q in range(ns.shape[0]):
            nq = ns[q]
            good = -np.inf
            k = 0
            for m in range(nq):  # no branch per key: which are candidates is unpredictable
                v = val[b, r, m]
                inside = place[m] < nq  # its farthest key is selected: v only bounds its distance to a left-out key
                cand[k] = v
                slot[k] = m
                k += inside
                good = v if not inside and v > good else good
            if k and seen[nq - 1] < end - start + 1:  # bounds to recompute, and a visible key left out
                # The bounds are taken largest first, as np.argsort(-cand[:k]) orders them, while
                # one can still win (is above good). A bound may be below its recomputed value by a
                # rounding (the two sides sum ‖x‖² differently), so which are recomputed can change
                # the result: the order must be argsort's exactly. Distinct bounds come in value
                # order; a tie (two keys farthest from each other) is recomputed whole, and only if
                # one of it reaches the bound does argsort say which came first.
                for t in range(k):
                    done[t] = False
                while True:
                    top, tied = _largest_bound(cand, k, done)
                    if top < 0 or not cand[top] > good:
                        break
                    v = cand[top]
                    if not tied:
                        done[top] = True
                        e = _left_out_maximum(x, xsq, gram, use_gram, b, order[b, r, slot[top]], start, end, pos, nq)
                        good = e if e > good else good
                        continue
                    reached = False
                    for u in range(k):
                        if not done[u] and cand[u] == v:
                            done[u] = True
                            exact[u] = _left_out_maximum(x, xsq, gram, use_gram, b, order[b, r, slot[u]], start, end,
                                                         pos, nq)
                            reached = reached or not v > exact[u]
                    if not reached:  # all of them are recomputed whatever their order
                        for u in range(k):
                            if cand[u] == v:
                                good = exact[u] if exact[u] > good else good
                        continue
                    for u in np.argsort(-cand[:k]):  # up to the first that reaches the bound
                        if cand[u] == v:
                            if not v > good:
                                break
                            good = exact[u] if exact[u] > good else good
                    break  # good ≥ v: no bound left can win
            out[b, q, r] = good
        for m in range(n):
            pos[order[b, r, m]] = n


_ROWS_PER_TASK = 32  # (head, row) pairs per parallel task of pair_maxima


@nb.njit(parallel=True, cache=True)
def pair_maxima(x, xsq, order, ns, val, far, starts, ends, out, gram):  # pragma: no cover - compiled
    """d_1² = max_{i∉I_N, j∈I_N} ‖x_i − x_j‖² per row and N from a PairTable's running maxima.

    ``order`` (B, R, n) each row's first n selected keys, ``val``/``far`` (B, R, n) the largest
    ‖x_i − x_j‖² over the row's visible keys i for its selected key j = order[b, r, m] and
    its maximizer (:func:`pair_step_lookup`, or :func:`pair_gather`). For
    a selected j whose maximizer is not selected the maximum is exact; the others are
    recomputed over the row's visible non-selected keys, largest bound first, only while
    their bound can still win, the products x_j · x_i read from ``gram`` (B, K', K'), K' ≥ K,
    when it is given ((1, 1, 1): not, then from ``x`` (B, K, d)); ‖x‖² = ``xsq`` (B, K).
    ``ns`` (nN,) the N, each ≤ n; ``out`` (B, nN, R): −inf where no key is left out."""
    B, R, n = val.shape
    K = xsq.shape[1]
    use_gram = gram.shape[1] >= K and gram.shape[2] >= K
    tasks = (B * R + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK
    for task in nb.prange(tasks):
        _pair_maxima_rows(x, xsq, gram, use_gram, order, ns, val, far, starts, ends, out, task * _ROWS_PER_TASK,
                          min((task + 1) * _ROWS_PER_TASK, B * R))


# --- the row engine ------------------------------------------------------------------------

# what a checkpoint N asks for (bits of ``flags``; d̃ is always computed)
FLAG_MASS = 1  # ᾱ_N and R = max_{j∈I_N} ‖x_j‖
FLAG_TERMS = 2  # d_1 = max_{i∉I_N} ‖x_i‖ (and ᾱ_N, R)
FLAG_MAIN = 4  # the T1(ii) main term
FLAG_SEP = 8  # E4: r, N_s/N and Theorem 2's sides

_RUN_SORT = 32  # a run of equal float32 keys longer than this is re-sorted by np.argsort, not by insertion


@nb.njit(inline="always")
def _insert_stable(a, first, q, wr):  # pragma: no cover - compiled
    """Move the key a[q] into its place in a[first:q] (ordered by weight ``wr``, largest first):
    only a strictly lighter key moves down, so equal weights keep their order."""
    v = a[q]
    wv = wr[v]
    z = q - 1
    while z >= first and wr[a[z]] < wv:
        a[z + 1] = a[z]
        z -= 1
    a[z + 1] = v


@nb.njit(cache=True)
def sort_row(wr, lo, hi, a, b, ka, kb, cnt):  # pragma: no cover - compiled
    """a[:t] = the keys lo … hi − 1 (t = hi − lo) by weight ``wr``, largest first, equal weights
    in index order: the stable descending order of the float64 weights.

    An LSD radix sort with byte digits on the float32 rounding of the weights, which is
    monotone: the four digits' counts in one pass over the keys, then one scatter per digit
    (a digit that every key shares is skipped), between ``a``/``ka`` and ``b``/``kb``; keys
    whose float32 weights are equal are then ordered by their float64 weights, stably. ``b``,
    ``ka``, ``kb`` (t,) and ``cnt`` (1024,) are work arrays."""
    t = hi - lo
    if t <= 0:
        return
    for j in range(1024):
        cnt[j] = 0
    for i in range(t):
        u = _float32_bits(np.float32(wr[lo + i]))
        if u & np.uint32(0x80000000):  # the IEEE order of a float as an unsigned key
            u = ~u
        else:
            u = u | np.uint32(0x80000000)
        ka[i] = ~u  # ascending in ka = descending in w
        k = ka[i]  # (as uint32: numba widens ~u to a signed integer)
        a[i] = lo + i
        cnt[k & 255] += 1
        cnt[256 + ((k >> 8) & 255)] += 1
        cnt[512 + ((k >> 16) & 255)] += 1
        cnt[768 + (k >> 24)] += 1
    src, srck, dst, dstk = a, ka, b, kb
    scatters = 0
    for digit in range(4):
        sh = 8 * digit
        base = 256 * digit
        if cnt[base + ((srck[0] >> sh) & 255)] == t:
            continue
        s = 0
        for j in range(base, base + 256):
            c = cnt[j]
            cnt[j] = s
            s += c
        for i in range(t):
            k = srck[i]
            d = base + ((k >> sh) & 255)
            pos = cnt[d]
            cnt[d] = pos + 1
            dst[pos] = src[i]
            dstk[pos] = k
        src, srck, dst, dstk = dst, dstk, src, srck
        scatters += 1
    if scatters % 2:  # the order is in b
        for i in range(t):
            a[i] = b[i]
            ka[i] = kb[i]
    i = 0
    while i < t:  # a run of equal float32 keys: order it by the float64 weights, stably
        j = i + 1
        while j < t and ka[j] == ka[i]:
            j += 1
        if j - i > _RUN_SORT:
            seg = np.empty(j - i)
            for q in range(i, j):
                seg[q - i] = -wr[a[q]]
            p = np.argsort(seg, kind="mergesort")
            for q in range(i, j):
                b[q] = a[i + p[q - i]]
            for q in range(i, j):
                a[q] = b[q]
        elif j - i > 1:
            for q in range(i + 1, j):
                _insert_stable(a, i, q, wr)
        i = j


@nb.njit(cache=True, fastmath={"nsz"})
def _join_keys(a, wr, norms, m0, m1, msum, sq, rm):  # pragma: no cover - compiled
    """The keys a[m0:m1] join I_N, one after the other: ᾱ_N, Σ_{I_N} α² and R = max_{I_N} ‖x‖
    updated. With fastmath flags of its own (a callee without them takes its caller's
    reassociation), the sums are key by key: the values at N do not depend on where the joins
    stopped before, i.e. on the other N asked."""
    for m in range(m0, m1):
        j = a[m]
        bj = wr[j]
        msum += bj
        sq += bj * bj
        nj = norms[j]
        if nj > rm:
            rm = nj
    return msum, sq, rm


@nb.njit(cache=True, fastmath={"reassoc"})
def _separability(wr, a, n, D, lo, sq, rmin, b, cc, r, radius, ns_over_n, lower, upper):  # pragma: no cover - compiled
    """E4 at one row and N: r = ``rmin`` = min_{i∉I_N} D_i, N_s/N with N_s = #{j ∈ I_N : D_j < r}
    (strictly inside), and Theorem 2's sides with ξ_j read as σ_j = (Σ_{k∈I_N∖j} α_k²)^{1/2}:
    lower = 1 − (1/N) Σ_j ξ_j / r (Markov), upper = (1/N) Σ_j exp(−((ξ_j − r)₊)²/(2σ_j²))
    (McDiarmid, M = 1; a term is e^{-0} = 1 where ξ_j ≤ r; the exponential by
    :func:`exp_nonpositive`, branch-free). ``sq`` = Σ_{j∈I_N} α_j²."""
    inside = 0
    xs = 0.0
    ts = 0.0
    for k in range(n):
        j = a[k]
        inside += D[j - lo] < rmin
        aj = wr[j]
        xi = math.sqrt(max(sq - aj * aj, 0.0))
        xs += xi
        gap = max(xi - rmin, 0.0)
        den = 2.0 * (xi * xi) if xi > 0 else 2.0
        ts += exp_nonpositive(-(gap * gap) / den)
    radius[b, cc, r] = rmin
    ns_over_n[b, cc, r] = inside / n
    lower[b, cc, r] = 1.0 - (xs / n) / rmin
    upper[b, cc, r] = ts / n


@nb.njit(inline="always")
def _outside_min(v, rank, n, t):  # pragma: no cover - compiled
    """min_i v_i over the keys outside I_N (rank_i ≥ N; +inf when none), without a branch per key."""
    m = np.inf
    for i in range(t):
        vi = v[i] if rank[i] >= n else np.inf
        m = min(m, vi)
    return m


@nb.njit(inline="always")
def _outside_max(v, rank, n, t):  # pragma: no cover - compiled
    """max_i v_i over the keys outside I_N (−inf when none), as :func:`_outside_min`."""
    m = -np.inf
    for i in range(t):
        vi = v[i] if rank[i] >= n else -np.inf
        m = max(m, vi)
    return m


@nb.njit(cache=True)
def _finish(f, wr, a, n, D, rank, lo, t, norms, b, msum, rm, sq, tot, cc, r,
            d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper):  # pragma: no cover - compiled
    """Write checkpoint ``cc`` of row (b, r) from its distances D (t,) and the keys' ranks
    (key lo + i is outside I_N where rank[i] ≥ N): d̃ = ``tot``, and what ``f`` asks for."""
    d_tilde[b, cc, r] = tot
    if f & FLAG_MASS or f & FLAG_TERMS:
        mass[b, cc, r] = msum
        rmax[b, cc, r] = rm
    if f & FLAG_TERMS:
        d1n[b, cc, r] = _outside_max(norms[b, lo:lo + t], rank, n, t)
    if f & FLAG_SEP:
        _separability(wr, a, n, D, lo, sq, _outside_min(D, rank, n, t), b, cc, r, radius, ns_over_n, lower, upper)


@nb.njit(cache=True, fastmath={"contract"})
def _accumulate(acc, x, wr, a, m0, m1):  # pragma: no cover - compiled
    """acc += Σ α_{a_m} x_{a_m} (rows of ``x``) over m = m0, m0 ± 1, … up to m1 excluded (downwards
    when m1 < m0), key after key: no reassociation, so that a running sum does not depend on
    where it was split into checkpoints. Four keys per pass over ``acc`` (each element still
    takes their products one after the other, in key order: the same roundings as one key per
    pass, with a quarter of the loads and stores of ``acc``; measured 1.7x faster, d = 64)."""
    d = acc.shape[0]
    step = 1 if m1 >= m0 else -1
    m = m0
    for _ in range(((m1 - m0) * step) // 4):
        j0 = a[m]
        j1 = a[m + step]
        j2 = a[m + 2 * step]
        j3 = a[m + 3 * step]
        b0 = wr[j0]
        b1 = wr[j1]
        b2 = wr[j2]
        b3 = wr[j3]
        x0 = x[j0]
        x1 = x[j1]
        x2 = x[j2]
        x3 = x[j3]
        for e in range(d):
            v = acc[e]
            v += b0 * x0[e]
            v += b1 * x1[e]
            v += b2 * x2[e]
            v += b3 * x3[e]
            acc[e] = v
        m += 4 * step
    for q in range(m, m1, step):
        j = a[q]
        bj = wr[j]
        xj = x[j]
        for e in range(d):
            acc[e] += bj * xj[e]


@nb.njit(inline="always")
def _distance_sum(aw, ww, p, off, ss, rank, n, t, D):  # pragma: no cover - compiled
    """D_i = ‖α_i x_i − s_N‖ = (α_i²‖x_i‖² − 2α_i p_{off+i} + ‖s_N‖²)^{1/2} over the row's t keys
    (p: the products x_i · s_N), and returns d̃ = Σ D_i over the keys outside I_N (rank ≥ N),
    summed as the caller's flags allow (its reassociation: a vectorized sum, fixed by t)."""
    tot = 0.0
    for i in range(t):
        dv = math.sqrt(max(aw[i] - 2.0 * ww[i] * p[off + i] + ss, 0.0))
        D[i] = dv
        tot += dv if rank[i] >= n else 0.0
    return tot


_TOP_ONLY = 16  # a row whose checkpoints read only its first ranks (up to this many) takes them by
# selection (:func:`_top_order`), not a full sort


@nb.njit(inline="always")
def _top_order(wr, lo, hi, k, a):  # pragma: no cover - compiled
    """a[:k] = the k heaviest keys of lo … hi − 1 in :func:`sort_row`'s order (largest first, equal
    weights in index order), a[k:] the other keys in index order: the k-th largest weight θ by
    a min-heap, then the keys above θ and the lowest-index keys at θ, sorted by insertion."""
    theta = _kth_by_heap(wr[lo:hi], k)
    above = 0
    for i in range(lo, hi):
        if wr[i] > theta:
            above += 1
    at = k - above  # keys at θ that belong to the top k (the lowest indices)
    m = 0
    rest = k
    for i in range(lo, hi):
        v = wr[i]
        if v > theta or (v == theta and at > 0):
            if v == theta:
                at -= 1
            a[m] = i
            _insert_stable(a, 0, m, wr)
            m += 1
        else:
            a[rest] = i
            rest += 1


_INSERTION = 48  # rows with at most this many keys are ordered by insertion (the radix sort's 256-bucket
# passes cost more there: measured on 32-key rows, 4x slower)


@nb.njit(inline="always")
def _insertion_order(wr, lo, hi, a):  # pragma: no cover - compiled
    """a[:t] = the keys lo … hi − 1 by weight, largest first, equal weights in index order (the
    stable descending order :func:`sort_row` gives)."""
    t = hi - lo
    for i in range(t):
        a[i] = lo + i
    for q in range(1, t):
        _insert_stable(a, 0, q, wr)


@nb.njit(cache=True, fastmath={"reassoc"})
def _low_distance_sums(S, xb, aw, ww, a, lo, t, first, ns_low, ss, tot):  # pragma: no cover - compiled
    """tot[u] = Σ_{q ≥ N_u} ‖α_j x_j − s_u‖, j = a[q] (rank order), for the rows u of ``S`` with
    N_u = ns_low[u] ascending and ``first`` = N_0: each key's row of x is read once and its
    product with every s_u whose set it is outside of is taken there (no gathered copy)."""
    nu = ns_low.shape[0]
    d = S.shape[1]
    for u in range(nu):
        tot[u] = 0.0
    for q in range(first, t):
        j = a[q]
        xj = xb[j]
        awj = aw[j - lo]
        wwj = ww[j - lo]
        for u in range(nu):
            if ns_low[u] > q:
                break
            p = 0.0
            for e in range(d):
                p += S[u, e] * xj[e]
            tot[u] += math.sqrt(max(awj - 2.0 * wwj * p + ss[u], 0.0))


@nb.njit(cache=True, fastmath={"reassoc"})
def _row_prepare(b, ro, lo, hi, wr, G, x, xsq, norms, ns, flags, limit, gram_gap, k_order,
                 order_out, d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper,
                 here, a, rank, aw, ww, low, row_of, totl, st_i, st_f, SG, mg, c,
                 buf_work, buf_ka, buf_kb, buf_cnt, buf_D, buf_P, buf_S, buf_acc, buf_nl, buf_ssl):  # pragma: no cover - compiled
    """The first half of a row of head b (output column ``ro``), visible keys lo … hi − 1, weights
    ``wr`` (absolute key index), context c = Σ_i α_i x_i where the row's group took it
    (:func:`row_metrics`): its order, its Gram checkpoints (written), the key-by-key low sums,
    and the s_N of its other direct checkpoints, appended to the group's matrix ``SG`` from row
    ``mg`` on (their products with the keys are one matrix product for the whole group). The row's
    state for :func:`_row_complete` goes to its own slots (``here`` … ``st_f``). Returns the next
    free row of ``SG``."""
    d = x.shape[2]
    nN = ns.shape[0]
    t = hi - lo
    st_i[0] = 0  # (na, ng) = (0, 0): nothing for _row_complete unless set below
    st_i[1] = 0
    na = 0
    any_main = False
    for cc in range(nN):
        if ns[cc] < t and ro < limit[cc]:
            here[na] = cc
            na += 1
            if flags[cc] & FLAG_MAIN:
                any_main = True
    if na == 0 and k_order == 0:
        return mg
    ng = 0  # the Gram checkpoints: N < gram_gap (fixed per N, so that a value does not depend on the other N asked)
    while ng < na and ns[here[ng]] < gram_gap:
        ng += 1
    a = a[:t]
    top = k_order  # with every N small (E1's N = 5 alone): only the first ``top`` ranks are read
    for z in range(na):
        n = ns[here[z]]
        top = max(top, n if n < gram_gap or 2 * n <= t else t)
    if t <= _INSERTION:
        _insertion_order(wr, lo, hi, a)
    elif top <= _TOP_ONLY:
        _top_order(wr, lo, hi, top, a)
    else:
        sort_row(wr, lo, hi, a, buf_work[:t], buf_ka[:t], buf_kb[:t], buf_cnt)
    for m in range(min(k_order, t)):
        order_out[b, ro, m] = a[m]
    if na == 0:
        return mg
    xb = x[b]
    aw = aw[:t]  # α_i² ‖x_i‖²
    ww = ww[:t]  # α_i
    for i in range(t):
        wi = wr[lo + i]
        ww[i] = wi
        aw[i] = wi * wi * xsq[b, lo + i]
    rank = rank[:t]  # rank[i]: key lo + i's place in the order (outside I_N where rank ≥ N)
    for m in range(t):
        rank[a[m] - lo] = m
    D = buf_D[:t]
    sq = 0.0  # Σ_{j∈I_N} α_j²
    msum = 0.0  # ᾱ_N
    rm = -np.inf  # R
    m = 0  # keys in I_N so far
    if ng > 0:
        P = buf_P[:t]  # x_i · s_N
        P[:] = 0.0
        ss = 0.0  # ‖s_N‖²
        for z in range(ng):
            cc = here[z]
            n = ns[cc]
            msum, sq, rm = _join_keys(a, wr, norms[b], m, n, msum, sq, rm)
            while m < n:
                j = a[m]
                bj = wr[j]
                g = G[b, j]
                ss += 2.0 * bj * P[j - lo] + bj * bj * g[j]
                for i in range(t):
                    P[i] += bj * g[lo + i]
                m += 1
            tot = _distance_sum(aw, ww, P, 0, ss, rank, n, t, D)
            _finish(flags[cc], wr, a, n, D, rank, lo, t, norms, b, msum, rm, sq, tot, cc, ro,
                    d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper)
    nd = na - ng
    st_i[0] = na  # the row's state for _row_complete: (na, ng, m) and (ᾱ_N, Σα², R) so far
    st_i[1] = ng
    st_i[2] = m
    st_f[0] = msum
    st_f[1] = sq
    st_f[2] = rm
    if nd == 0 and not any_main:
        return mg
    # s_N of the direct checkpoints: running sums from the top of the order where N ≤ t/2,
    # c minus running sums from the bottom above (fixed per N and t, as the Gram rule)
    split = 0
    while split < nd and 2 * ns[here[ng + split]] <= t:
        split += 1
    S = buf_S
    acc = buf_acc
    acc[:] = 0.0
    mm = 0
    for u in range(split):
        n = ns[here[ng + u]]
        _accumulate(acc, xb, wr, a, mm, n)
        mm = n
        for e in range(d):
            S[u, e] = acc[e]
    acc[:] = 0.0
    mm = t - 1
    for u in range(nd - 1, split - 1, -1):  # from the bottom of the order, key t − 1 first
        n = ns[here[ng + u]]
        _accumulate(acc, xb, wr, a, mm, n - 1)
        mm = n - 1
        for e in range(d):
            S[u, e] = c[e] - acc[e]
    # d̃ of a direct N ≥ 3t/4 needs x_i · s_N at the few keys outside I_N only (unless N asks
    # for E4's radius or d_1's norm form, which read every key's distance): those products are
    # taken key by key in rank order from N on (:func:`_low_distance_sums`, about 5 GFLOP/s);
    # the others go to the group's matrix product over every key (BLAS): a rule per N and t, as
    # above (the main term reads x_i · c, not these products)
    n_low = 0
    for u in range(nd):
        cc = here[ng + u]
        low[u] = 4 * ns[cc] >= 3 * t and not (flags[cc] & (FLAG_SEP | FLAG_TERMS))
        if low[u]:
            n_low += 1
        else:
            for e in range(d):
                SG[mg, e] = S[u, e]
            row_of[u] = mg  # row of the group's product
            mg += 1
    if n_low > 0:
        nl = buf_nl[:n_low]
        ssl = buf_ssl[:n_low]
        il = 0
        for u in range(nd):
            if low[u]:
                s2 = 0.0
                for e in range(d):
                    s2 += S[u, e] * S[u, e]
                nl[il] = ns[here[ng + u]]
                ssl[il] = s2
                row_of[u] = il
                if il != u:
                    for e in range(d):
                        S[il, e] = S[u, e]  # low rows packed first (il ≤ u: no row is overwritten before it is read)
                il += 1
        _low_distance_sums(S, xb, aw, ww, a, lo, t, nl[0], nl, ssl, totl)
    return mg


@nb.njit(cache=True, fastmath={"reassoc"})
def _row_complete(b, ro, lo, hi, wr, c, pc, norms, ns, flags, d_tilde, mass, rmax, d1n, radius, ns_over_n,
                  lower, upper, main, here, a, rank, aw, ww, low, row_of, totl, st_i, st_f, SG, PG,
                  buf_D, buf_bw):  # pragma: no cover - compiled
    """The second half of a row (:func:`_row_prepare` took the first): its direct checkpoints
    from the group's products ``PG`` = x_i · s_N (row ``row_of[u]`` of the group's matrix, every
    key of the group) and the key-by-key low sums, and the T1(ii) main term from pc[i] = x_i · c."""
    na = st_i[0]
    ng = st_i[1]
    m = st_i[2]
    any_main = False
    for z in range(na):
        if flags[here[z]] & FLAG_MAIN:
            any_main = True
    if na == ng and not any_main:  # nothing left (or no checkpoint at all: na = 0)
        return
    d = SG.shape[1]
    t = hi - lo
    msum = st_f[0]
    sq = st_f[1]
    rm = st_f[2]
    a = a[:t]
    rank = rank[:t]
    aw = aw[:t]
    ww = ww[:t]
    D = buf_D[:t]
    nd = na - ng
    join_to = 0  # keys join I_N (ᾱ_N, Σα², R) only as far as a checkpoint reads them
    for u in range(nd):
        if flags[here[ng + u]] & (FLAG_MASS | FLAG_TERMS | FLAG_SEP):
            join_to = ns[here[ng + u]]
    for z in range(ng, na):
        cc = here[z]
        n = ns[cc]
        if m < min(n, join_to):
            msum, sq, rm = _join_keys(a, wr, norms[b], m, min(n, join_to), msum, sq, rm)
            m = min(n, join_to)
        u = z - ng
        if low[u]:
            d_tilde[b, cc, ro] = totl[row_of[u]]
            if flags[cc] & FLAG_MASS:
                mass[b, cc, ro] = msum
                rmax[b, cc, ro] = rm
            continue
        ua = row_of[u]
        pz = PG[ua]
        ss = 0.0
        for e in range(d):
            ss += SG[ua, e] * SG[ua, e]
        tot = _distance_sum(aw, ww, pz, lo, ss, rank, n, t, D)
        _finish(flags[cc], wr, a, n, D, rank, lo, t, norms, b, msum, rm, sq, tot, cc, ro,
                d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper)
    if not any_main:
        return
    # the T1(ii) main term: (t − N)/t Σ_i ‖(1 + k) α_i x_i − k c‖ over the t keys, k = N/max(t − 1, 1)
    csq = 0.0
    for e in range(d):
        csq += c[e] * c[e]
    bw = buf_bw[:t]  # α_i x_i · c
    for i in range(t):
        bw[i] = ww[i] * pc[lo + i]
    for z in range(na):
        cc = here[z]
        if not (flags[cc] & FLAG_MAIN):
            continue
        n = ns[cc]
        kk = n / max(t - 1, 1)
        A = (1.0 + kk) ** 2
        Bc = -2.0 * kk * (1.0 + kk)
        C = kk * kk * csq
        tot = 0.0
        for i in range(t):
            tot += math.sqrt(max(aw[i] * A + bw[i] * Bc + C, 0.0))
        main[b, cc, ro] = (t - n) / t * tot


_GROUP = 16  # rows of one head whose weights, contexts c = Σ_i α_i x_i and products x_i · c are taken
# together, by two matrix products of a fixed shape (a row's values do not depend on which rows were asked)


@nb.njit(cache=True)
def _row_needs(t, ro, ns, flags, limit, gram_gap):  # pragma: no cover - compiled
    """(anything, context) a row of t keys at output column ``ro`` asks for: some checkpoint,
    and c (the main term, or a direct N > t/2 whose s_N is c minus the bottom of the order)."""
    anything = False
    context = False
    for cc in range(ns.shape[0]):
        n = ns[cc]
        if n < t and ro < limit[cc]:
            anything = True
            if flags[cc] & FLAG_MAIN or (n >= gram_gap and 2 * n > t):
                context = True
    return anything, context


# fastmath: reassociation only (vectorized sums). No contraction into FMAs here: with it, ‖s‖²
# and Σα_j² are rounded differently from α_j² alone, and ξ_j = (Σα_k² − α_j²)^{1/2} at N = 1
# becomes the square root of a rounding error (1e-9) instead of 0.
@nb.njit(parallel=True, cache=True, fastmath={"reassoc"})
def row_metrics(w, lg, from_logits, G, x, xT, xsq, norms, starts, ends, ns, flags, limit, gram_gap, k_order, r0,
                order_out, d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper, main):  # pragma: no cover - compiled
    """Every checkpoint N of every row (b, r) of a block, in one pass per row.

    The block's weights are ``w`` (B, R, K) float64, or, with ``from_logits``, the softmax of
    each row's visible float32 logits ``lg`` (B, R, K), computed here (the other array is not
    read). ``ns`` (nN,) ascending, ``flags`` (nN,) what each N asks for (``FLAG_*``),
    ``limit`` (nN,): N is computed on the rows r0 + r < limit only. Row r's visible keys are
    starts[r] … ends[r]; N is computed where N < t (a key is left out). ``G`` (B, K', K') the
    Gram matrix x xᵀ (K' ≥ K; unused when ``gram_gap`` is 0), ``x`` (B, K', d), ``xT`` (B, d,
    K) x transposed, ``xsq``/``norms`` (B, K') ‖x_i‖² and ‖x_i‖. Rows are taken in groups of
    ``_GROUP`` of one head: their weights W (zeros outside each row's keys), contexts
    C = W x and products C xᵀ by two matrix products per group, and the products x_i · s_N of
    every direct checkpoint of the group's rows by a third. Outputs (B, nN, R') at column
    r0 + r, written where computed; ``order_out`` (B, R', k_order) the first k_order keys of
    each row's order."""
    B = lg.shape[0] if from_logits else w.shape[0]
    R = lg.shape[1] if from_logits else w.shape[1]
    K = lg.shape[2] if from_logits else w.shape[2]
    d = x.shape[2]
    nN = ns.shape[0]
    n_groups = (R + _GROUP - 1) // _GROUP
    total = B * n_groups
    n_chunks = min(total, 64)  # groups in contiguous chunks, each with its own work arrays
    for ch in nb.prange(n_chunks):
        p0 = ch * total // n_chunks
        p1 = (ch + 1) * total // n_chunks
        buf_Wg = np.empty(_GROUP * K)
        buf_Cg = np.empty((_GROUP, d))
        buf_PCg = np.empty(_GROUP * K)
        buf_e = np.empty(K)
        buf_work = np.empty(K, np.int64)
        buf_ka = np.empty(K, np.uint32)
        buf_kb = np.empty(K, np.uint32)
        buf_cnt = np.empty(1024, np.int64)
        buf_D = np.empty(K)
        buf_P = np.empty(K)
        buf_S = np.empty((nN, d))
        buf_acc = np.empty(d)
        buf_bw = np.empty(K)
        buf_nl = np.empty(nN, np.int64)
        buf_ssl = np.empty(nN)
        # each row's state between its two halves (_row_prepare, the group's product, _row_complete)
        g_here = np.empty((_GROUP, nN), np.int64)
        g_a = np.empty((_GROUP, K), np.int64)
        g_rank = np.empty((_GROUP, K), np.int64)
        g_aw = np.empty((_GROUP, K))
        g_ww = np.empty((_GROUP, K))
        g_low = np.empty((_GROUP, nN), np.bool_)
        g_row = np.empty((_GROUP, nN), np.int64)
        g_totl = np.empty((_GROUP, nN))
        g_si = np.empty((_GROUP, 3), np.int64)
        g_sf = np.empty((_GROUP, 3))
        SG = np.empty((max(_GROUP * nN, 2), d))  # the s_N of the group's direct checkpoints
        buf_PG = np.empty(max(_GROUP * nN, 2) * K)
        for p in range(p0, p1):
            b = p // n_groups
            ra = (p - b * n_groups) * _GROUP
            rb = min(ra + _GROUP, R)
            nr = rb - ra
            anything = k_order > 0
            context = False
            Kg = 0
            for r in range(ra, rb):
                got, ctx = _row_needs(ends[r] - starts[r] + 1, r0 + r, ns, flags, limit, gram_gap)
                anything = anything or got
                context = context or ctx
                Kg = max(Kg, ends[r] + 1)
            if not anything:
                continue
            W = buf_Wg[:nr * Kg].reshape(nr, Kg)  # the group's weights, 0 outside each row's keys
            for r in range(ra, rb):
                lo = starts[r]
                hi = ends[r] + 1
                wr = W[r - ra]
                for i in range(lo):
                    wr[i] = 0.0
                if from_logits:
                    _softmax_range(lg[b, r], lo, hi, buf_e, wr)
                else:
                    for i in range(lo, hi):
                        wr[i] = w[b, r, i]
                for i in range(hi, Kg):
                    wr[i] = 0.0
            C = buf_Cg[:nr]
            PC = buf_PCg[:nr * K].reshape(nr, K)
            if context:  # C = W x and x_i · c = (C xᵀ)_i: a fixed shape per group, whichever rows asked
                np.dot(W, x[b, :Kg], C)
                np.dot(C, xT[b], PC)
            mg = 0
            for r in range(ra, rb):
                g = r - ra
                mg = _row_prepare(b, r0 + r, starts[r], ends[r] + 1, W[g], G, x, xsq, norms, ns, flags, limit,
                                  gram_gap, k_order, order_out, d_tilde, mass, rmax, d1n, radius, ns_over_n, lower,
                                  upper, g_here[g], g_a[g], g_rank[g], g_aw[g], g_ww[g], g_low[g], g_row[g], g_totl[g],
                                  g_si[g], g_sf[g], SG, mg, C[g], buf_work, buf_ka, buf_kb, buf_cnt, buf_D, buf_P,
                                  buf_S, buf_acc, buf_nl, buf_ssl)
            # x_i · s_N of every direct checkpoint of the group's rows at every key of the group: one
            # matrix product (two rows at least: BLAS takes a matrix-vector path for one, rounded differently)
            rows_all = max(mg, 2)
            PG = buf_PG[:rows_all * Kg].reshape(rows_all, Kg)
            if mg > 0:
                for q in range(mg, rows_all):
                    for e in range(d):
                        SG[q, e] = 0.0
                np.dot(SG[:rows_all], x[b, :Kg].T, PG)
            for r in range(ra, rb):
                g = r - ra
                _row_complete(b, r0 + r, starts[r], ends[r] + 1, W[g], C[g], PC[g], norms, ns, flags, d_tilde, mass,
                              rmax, d1n, radius, ns_over_n, lower, upper, main, g_here[g], g_a[g], g_rank[g], g_aw[g],
                              g_ww[g], g_low[g], g_row[g], g_totl[g], g_si[g], g_sf[g], SG, PG, buf_D, buf_bw)


# --- E5's perturbation gain and the H1 probe ------------------------------------------------
#
# perturbation_rows: g = ‖softmax((l + εv)/T) − softmax(l/T)‖₂/ε of every (T, ε) in one
# pass per row over its visible keys only (for :func:`attnbounds.empirical.experiments.perturbation_gain`);
# h1_heads / h1_universe: the distinguishable sets of the H1 probe
# (:func:`attnbounds.empirical.protocol.h1_layer`).
#
# numba has no vectorized exp here (no SVML: math.exp is a scalar libm call, ~5 ns), so the
# row loops use exp_nonpositive below, which LLVM vectorizes: 1.1 ns per element against
# 0.4 ns for torch's exp, but with no pass over memory per operation (torch's fused softmax
# path took 5 ns per element and (T, ε)).

from llvmlite import ir as _ir  # noqa: E402
from numba import types as _types  # noqa: E402
from numba.extending import intrinsic as _intrinsic  # noqa: E402


@_intrinsic
def _bits_as_float(typingctx, bits):
    """The float64 whose IEEE 754 bits are the int64 ``bits`` (a bitcast; vectorizes)."""
    if bits != _types.int64:
        return None

    def codegen(context, builder, signature, args):  # pragma: no cover - compiled
        return builder.bitcast(args[0], _ir.DoubleType())

    return _types.float64(_types.int64), codegen


@_intrinsic
def _float32_bits(typingctx, value):
    """The IEEE 754 bits of the float32 ``value`` as a uint32 (a bitcast)."""
    if value != _types.float32:
        return None

    def codegen(context, builder, signature, args):  # pragma: no cover - compiled
        return builder.bitcast(args[0], _ir.IntType(32))

    return _types.uint32(_types.float32), codegen


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of ln 2: k·_LN2_HI is exact for |k| < 2^20
_LN2_LO = 1.90821492927058770002e-10
#: e^r on |r| <= ln(2)/2, highest degree first: mpmath.chebyfit(exp, [-ln2/2, ln2/2], 12)
#: (Chebyshev fit, max error 3.2e-18; tests/empirical/test_e5_h1_kernels.py regenerates it)
EXP_COEFFS = (2.5110037605963777e-08, 2.763263963904103e-07, 2.755724091857897e-06, 2.4801485482328494e-05,
              0.00019841269890047113, 0.0013888888952314775, 0.008333333333319601, 0.0416666666664881,
              0.1666666666666668, 0.5000000000000019, 1.0, 1.0)
#: (e^x − 1)/x on |x| <= a for a = 0.35, 0.05, 5e-3: mpmath.chebyfit(·, [-a, a], 11 | 8 | 6),
#: max error 2.0e-17, 8.5e-19, 9.7e-20
EXPM1_COEFFS = {
    0.35: (2.5106262550879078e-08, 2.762773069846965e-07, 2.755725286336732e-06, 2.4801501014878055e-05,
           0.00019841269876840357, 0.001388888893514123, 0.008333333333325551, 0.04166666666656548,
           0.1666666666666667, 0.5000000000000007, 1.0),
    0.05: (2.480296520343101e-05, 0.00019842647750290167, 0.0013888888867359, 0.008333333311803297,
           0.04166666666666774, 0.16666666666667743, 0.5, 1.0),
    5e-3: (0.0013888898189487033, 0.00833334077381243, 0.04166666666665795, 0.1666666666665969, 0.5, 1.0),
}
EXP_FLUSH = -575.0  # exp_nonpositive(x) = 0 below: e^-575 = 1.3e-250 (no denormal results: see perturbation_rows)
SQUARE_FLUSH = 2.0 ** -511  # a difference below has a denormal square: it is dropped from ‖·‖²
_E = EXP_COEFFS
_M1, _M2, _M3 = EXPM1_COEFFS[0.35], EXPM1_COEFFS[0.05], EXPM1_COEFFS[5e-3]


@nb.njit(inline="always", fastmath={"contract"})
def _horner(coeffs, x):  # pragma: no cover - compiled
    """The polynomial with ``coeffs`` (highest degree first) at x, by Horner's rule (one FMA a step)."""
    p = coeffs[0]
    for i in range(1, len(coeffs)):  # a constant tuple: the loop is unrolled
        p = p * x + coeffs[i]
    return p


@nb.njit(inline="always", fastmath={"contract"})
def exp_nonpositive(x):  # pragma: no cover - compiled
    """e^x for x <= 0 to 1 ulp, 0 below ``EXP_FLUSH``: x = k ln 2 + r (|r| <= ln(2)/2),
    e^x = 2^k · P(r) with P the degree-11 fit ``EXP_COEFFS`` and 2^k built from its bits."""
    xc = max(x, -600.0)
    k = math.floor(xc * _LOG2E + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    y = _horner(_E, r) * _bits_as_float((np.int64(k) + 1023) << 52)
    return y if x >= EXP_FLUSH else 0.0


@nb.njit(inline="always", fastmath={"contract"})
def expm1_small(x):  # pragma: no cover - compiled
    """e^x − 1 = x·Q(x) for |x| <= 0.35 (Q: degree 10 of ``EXPM1_COEFFS``), to 2 ulp."""
    return _horner(_M1, x) * x


@nb.njit(inline="always", fastmath={"contract"})
def _expm1_005(x):  # pragma: no cover - compiled
    """e^x − 1 for |x| <= 0.05 (degree 7)."""
    return _horner(_M2, x) * x


@nb.njit(inline="always", fastmath={"contract"})
def _expm1_0005(x):  # pragma: no cover - compiled
    """e^x − 1 for |x| <= 5e-3 (degree 5)."""
    return _horner(_M3, x) * x


@nb.njit(parallel=True, cache=True)
def exp_nonpositive_array(x, out):  # pragma: no cover - compiled
    """:func:`exp_nonpositive` elementwise (for the tests)."""
    for i in nb.prange(x.shape[0]):
        out[i] = exp_nonpositive(x[i])


@nb.njit(parallel=True, cache=True)
def expm1_small_array(x, out):  # pragma: no cover - compiled
    """The three series of e^x − 1 elementwise, by |x| (for the tests; |x| <= 0.35)."""
    for i in nb.prange(x.shape[0]):
        a = abs(x[i])
        out[i] = _expm1_0005(x[i]) if a <= 5e-3 else (_expm1_005(x[i]) if a <= 0.05 else expm1_small(x[i]))


@nb.njit(fastmath={"reassoc", "contract"})
def _exp_sum(h, iT, n, out):  # pragma: no cover - compiled
    """out_i = e^{h_i/T} (h_i <= 0) and their sum."""
    z = 0.0
    for i in range(n):
        e = exp_nonpositive(h[i] * iT)
        out[i] = e
        z += e
    return z


@nb.njit(fastmath={"reassoc", "contract"})
def _scale(a, s, n):  # pragma: no cover - compiled
    for i in range(n):
        a[i] *= s


@nb.njit(fastmath={"reassoc", "contract"})
def _shift_scale(d, m, u, s, n):  # pragma: no cover - compiled
    for i in range(n):
        d[i] -= m
        u[i] *= s


@nb.njit(fastmath={"reassoc", "contract"})
def _expm1_dot(p, v, c, n, deg, u):  # pragma: no cover - compiled
    """u_i = e^{c v_i} − 1 (series of degree 5, 7 or 10 by ``deg``) and Σ_i p_i u_i."""
    s = 0.0
    if deg == 0:
        for i in range(n):
            ui = _expm1_0005(c * v[i])
            u[i] = ui
            s += p[i] * ui
    elif deg == 1:
        for i in range(n):
            ui = _expm1_005(c * v[i])
            u[i] = ui
            s += p[i] * ui
    else:
        for i in range(n):
            ui = expm1_small(c * v[i])
            u[i] = ui
            s += p[i] * ui
    return s


@nb.njit(fastmath={"reassoc", "contract"})
def _weighted_square_sum(p, u, S, n):  # pragma: no cover - compiled
    """Σ_i (p_i (u_i − S))², a term below SQUARE_FLUSH dropped."""
    G = 0.0
    for i in range(n):
        w = p[i] * (u[i] - S)
        w = w if abs(w) >= SQUARE_FLUSH else 0.0
        G += w * w
    return G


@nb.njit(fastmath={"reassoc", "contract"})
def _difference_square_sum(f, s, p, n):  # pragma: no cover - compiled
    """(Σ_i f_i s, Σ_i (f_i s − p_i)²), a term below SQUARE_FLUSH dropped."""
    sq = 0.0
    G = 0.0
    for i in range(n):
        q = f[i] * s
        sq += q
        dd = q - p[i]
        dd = dd if abs(dd) >= SQUARE_FLUSH else 0.0
        G += dd * dd
    return sq, G


_SERIES = 0.35  # max_i |c v_i| up to which e^{c v_i} − 1 comes from the series (else: the direct softmax)
_PAD = -1e300  # a padding key (and key 0 in the loops): e^{pad/T} = 0


@nb.njit(parallel=True, cache=True)
def perturbation_rows(l, v, temperatures, epsilons, out):  # pragma: no cover - compiled
    """g[b, r, a, j] = ‖softmax((l + ε_j u)/T_a) − softmax(l/T_a)‖₂/ε_j over the visible keys
    of each row (finite l; u = v on them, normalized: v/max(‖v‖, 1e-300)); NaN for a row with
    no visible key or with a +inf or NaN logit (as torch's softmax).

    Per row, with d_i = l_i − max l (exact for float32 logits; key 0 below is the first
    largest logit), P_i = e^{d_i/T}, Z = Σ P_i, p = P/Z, and δ_i = (ε/T) u_i:

    * |δ| <= 0.35 everywhere: with e^{δ_i} − 1 = w_i from a series and S = Σ_j p_j w_j,
      softmax((l + εu)/T)_i − p_i = p_i (w_i − S)/(1 + S), and for key 0, whose weight may
      be close to 1, w_0 − S = w_0 Σ_{j≠0} p_j − Σ_{j≠0} p_j w_j (no cancellation of
      1 − p_0); g = ‖p (w − S)‖/((1 + S) ε);
    * otherwise the perturbed softmax directly, q_i = e^{h_i/T}/Σ e^{h_j/T} with
      h = d + εu − max(d + εu), and q_0 − p_0 = Σ_{j≠0} p_j − Σ_{j≠0} q_j.

    Both agree with an 80-digit evaluation to about 1e-15; the difference of two float64
    softmaxes loses up to 1e-11 of g when ε/T is small, and all of key 0's change when its
    weight is within 1e-16 of 1. Exponentials below e^-575 and differences whose square
    would be denormal (< 2^-511) are flushed to 0: they change no sum above 1e-300, and
    denormal arithmetic costs about 100 cycles per operation (a g below about 1e-154/ε, a
    nearly one-hot row, can come out 0)."""
    B, R, K = l.shape
    nT = temperatures.shape[0]
    nE = epsilons.shape[0]
    n_max = (K + 15) // 16 * 16  # rows padded to 16 keys: the vector loops need no scalar tail
    tmin = temperatures.min() if nT else 1.0
    for q in nb.prange(B * R):
        b = q // R
        r = q - b * R
        buf = np.empty((4 + nE, n_max))
        d = buf[0]
        u = buf[1]
        P = buf[2]
        f = buf[3]
        t = 0
        bad = False
        m = -np.inf
        mi = 0
        ss = 0.0
        vmax = 0.0
        for k in range(K):
            x = l[b, r, k]
            if math.isfinite(x):
                d[t] = x
                vk = v[b, r, k]
                u[t] = vk
                ss += vk * vk
                vmax = max(vmax, abs(vk))
                if x > m:
                    m = x
                    mi = t
                t += 1
            elif not x < 0.0:  # +inf or NaN
                bad = True
        if bad or t == 0:
            for a in range(nT):
                for j in range(nE):
                    out[b, r, a, j] = np.nan
            continue
        n = (t + 15) // 16 * 16
        for i in range(t, n):
            d[i] = _PAD
            u[i] = 0.0
        inv = 1.0 / max(math.sqrt(ss), 1e-300)
        vmax *= inv  # max_i |u_i|
        u0 = u[mi] * inv  # the largest logit becomes key 0, kept apart: d_0 = 0, P_0 = 1
        u[mi] = u[0]
        d[mi] = d[0]
        d[0] = m
        _shift_scale(d, m, u, inv, n)
        d[0] = _PAD
        u[0] = 0.0
        h0 = np.empty(nE)
        for j in range(nE):  # h = d + εu − max(d + εu), key 0 apart (h0); only for an ε that needs it
            e = epsilons[j]
            if (e / tmin) * vmax <= _SERIES:
                continue
            h = buf[4 + j]
            M = e * u0
            for i in range(n):
                hi = d[i] + e * u[i]
                h[i] = hi
                if hi > M:
                    M = hi
            for i in range(n):
                h[i] -= M
            h0[j] = e * u0 - M
            h[0] = _PAD
        for a in range(nT):
            T = temperatures[a]
            iT = 1.0 / T
            zr = _exp_sum(d, iT, n, P)  # Σ_{i≠0} P_i
            iz = 1.0 / (1.0 + zr)
            _scale(P, iz, n)  # p_i (p_0 = iz apart)
            rest = zr * iz  # Σ_{i≠0} p_i = 1 − p_0
            for j in range(nE):
                e = epsilons[j]
                c = e / T
                big = c * vmax
                if big <= _SERIES:
                    deg = 0 if big <= 5e-3 else (1 if big <= 0.05 else 2)
                    sr = _expm1_dot(P, u, c, n, deg, f)  # Σ_{i≠0} p_i w_i
                    w0 = _expm1_0005(c * u0) if deg == 0 else (_expm1_005(c * u0) if deg == 1 else expm1_small(c * u0))
                    S = iz * w0 + sr
                    g0 = iz * (w0 * rest - sr)
                    g0 = g0 if abs(g0) >= SQUARE_FLUSH else 0.0
                    G = g0 * g0 + _weighted_square_sum(P, f, S, n)
                    out[b, r, a, j] = math.sqrt(G) / ((1.0 + S) * e)
                else:
                    zq = _exp_sum(buf[4 + j], iT, n, f)  # Σ_{i≠0} e^{h_i/T}
                    f0 = exp_nonpositive(h0[j] * iT)
                    sq, G = _difference_square_sum(f, 1.0 / (f0 + zq), P, n)
                    g0 = rest - sq
                    g0 = g0 if abs(g0) >= SQUARE_FLUSH else 0.0
                    out[b, r, a, j] = math.sqrt(g0 * g0 + G) / e


@nb.njit(fastmath={"reassoc", "contract"})
def _scaled_distance2(a, xi, s):  # pragma: no cover - compiled
    """‖a x_i − s‖²."""
    acc = 0.0
    for e in range(s.shape[0]):
        z = a * xi[e] - s[e]
        acc += z * z
    return acc


@nb.njit(parallel=True, cache=True)
def h1_heads(w, sums, rows, x, t, n, top, dist):  # pragma: no cover - compiled
    """The H1 probe's distinguishable sets, per head h and probe row q over the keys i < t[q].

    The weights are α_i = w[h, rows[q], i] / sums[h, q] (``w`` (H, L, ≥ t): softmax rows,
    ``sums`` (H, R): their sums over the row's keys); ``x`` (H or 1, ≥ t, d). top[h, q] = I_N,
    the n largest weights, largest first, ties to the lower index (the first n of a stable
    descending sort). With s = Σ_{j∈I_N} α_j x_j (in key order) and D_i = ‖α_i x_i − s‖,
    E4's radius is ρ = min_{i∉I_N} D_i, and dist[h, q, m] = D_{top[m]} <= ρ(1 − 1e-12) and no
    i ∉ I_N has D_i <= ρ(1 − 1e-12), i.e. ρ > 0 (the distinguishable tokens of
    :func:`attnbounds.numerics.selection.distinguishable_mask`, just inside ρ). Needs t[q] > n."""
    H = w.shape[0]
    R = t.shape[0]
    dim = x.shape[2]
    for p in nb.prange(H * R):
        h = p // R
        q = p - h * R
        xh = x[h if x.shape[0] > 1 else 0]
        tq = t[q]
        row = w[h, rows[q]]
        total = sums[h, q]
        a = np.empty(tq)
        idx = np.empty(n, np.int64)
        val = np.empty(n)
        c = 0
        for i in range(tq):  # insertion into the n best so far: only a strictly larger weight displaces
            ai = row[i] / total
            a[i] = ai
            if c < n:
                j = c
                c += 1
            elif ai > val[n - 1]:
                j = n - 1
            else:
                continue
            while j > 0 and val[j - 1] < ai:  # equal weights keep the earlier key first
                val[j] = val[j - 1]
                idx[j] = idx[j - 1]
                j -= 1
            val[j] = ai
            idx[j] = i
        chosen = np.zeros(tq, np.bool_)
        for m in range(n):
            chosen[idx[m]] = True
        s = np.zeros(dim)
        for i in range(tq):
            if chosen[i]:
                xi = xh[i]
                for e in range(dim):
                    s[e] += a[i] * xi[e]
        D2 = np.empty(tq)
        rho2 = np.inf
        for i in range(tq):
            D2[i] = _scaled_distance2(a[i], xh[i], s)
            if not chosen[i] and D2[i] < rho2:
                rho2 = D2[i]
        rho = math.sqrt(rho2)  # = min of the D_i (sqrt is monotone and correctly rounded)
        thr = rho * (1 - 1e-12)
        separated = not rho <= thr  # no i ∉ I_N inside: ρ is the least of their D_i
        for m in range(n):
            top[h, q, m] = idx[m]
            dist[h, q, m] = separated and math.sqrt(D2[idx[m]]) <= thr


@nb.njit(parallel=True, cache=True)
def h1_universe(top, dist, t, masks, size, counts, inter, union):  # pragma: no cover - compiled
    """Per probe row q: the union U of the heads' top sets (its keys in increasing order),
    size[q] = |U|, masks[q, h, u] = head h separates U's u-th key (``masks`` (R, H, ≥ |U|),
    False beyond), counts[q, h] = |S_h|, and for the head pairs g < h in the order of
    ``numpy.triu_indices(H, 1)``: inter[q, ·] = |S_g ∩ S_h|, union[q, ·] = |S_g ∪ S_h|."""
    H, R, n = top.shape
    for q in nb.prange(R):
        col = np.full(t[q], -1, np.int64)
        for h in range(H):
            for m in range(n):
                col[top[h, q, m]] = 0
        k = 0
        for i in range(t[q]):
            if col[i] == 0:
                col[i] = k
                k += 1
        size[q] = k
        for h in range(H):
            c = 0
            for m in range(n):
                if dist[h, q, m]:
                    masks[q, h, col[top[h, q, m]]] = True
                    c += 1
            counts[q, h] = c
        pair = 0
        for g in range(H):
            for h in range(g + 1, H):
                both = 0
                either = 0
                for u in range(k):
                    a = masks[q, g, u]
                    b = masks[q, h, u]
                    both += a and b
                    either += a or b
                inter[q, pair] = both
                union[q, pair] = either
                pair += 1


# --- softmax ------------------------------------------------------------------------------


@nb.njit(inline="always", fastmath={"reassoc"})
def _softmax_range(row, lo, hi, e, out):  # pragma: no cover - compiled
    """out[lo:hi] = the softmax of the float32 logits row[lo:hi] in float64 (``e``: a work array
    of at least hi − lo): e_i = exp(l_i − max l) by :func:`exp_nonpositive` (vectorized, one
    ulp), redone by ``math.exp`` below its flush (only when the row's least logit is that far
    below its largest), so tiny weights keep their order; w_i = e_i / Σ e."""
    m = -np.inf
    least = np.inf
    for i in range(lo, hi):
        v = np.float64(row[i])
        if v > m:
            m = v
        if v < least:
            least = v
    for i in range(lo, hi):
        e[i - lo] = exp_nonpositive(np.float64(row[i]) - m)
    if least - m < EXP_FLUSH:
        for i in range(lo, hi):
            y = np.float64(row[i]) - m
            if y < EXP_FLUSH:
                e[i - lo] = math.exp(y)
    s = 0.0
    for i in range(hi - lo):
        s += e[i]
    for i in range(lo, hi):
        out[i] = e[i - lo] / s


@nb.njit(parallel=True, cache=True, fastmath={"reassoc"})
def softmax_rows(lg, starts, ends, w):  # pragma: no cover - compiled
    """w[b, r] = the softmax of the float32 logits lg[b, r] over the keys starts[r] … ends[r] in
    float64 (0 at the other keys), by :func:`_softmax_range`: the weights the row engine computes
    for itself, row by row (this array form is the tests' window on it)."""
    B, R, K = lg.shape
    for q in nb.prange(B * R):
        b = q // R
        r = q - b * R
        lo = starts[r]
        hi = ends[r] + 1
        out = w[b, r]
        _softmax_range(lg[b, r], lo, hi, np.empty(hi - lo), out)
        for i in range(lo):
            out[i] = 0.0
        for i in range(hi, K):
            out[i] = 0.0


def _cached_dispatchers() -> dict:
    """{name: dispatcher} of this module's kernels that numba caches on disk."""
    try:
        return {k: d for k, d in globals().items()
                if isinstance(d, nb.core.registry.CPUDispatcher) and hasattr(d._cache, "_cache_file")}
    except AttributeError:  # numba's internals moved
        return {}


def cache_directory() -> str | None:
    """The directory numba caches this module's kernels in (None where that cannot be told)."""
    try:
        return os.path.dirname(next(iter(_cached_dispatchers().values()))._cache._cache_file._index_path)
    except (StopIteration, AttributeError):
        return None


def kernels_in_use() -> list:
    """The kernels this process has compiled or loaded (each with at least one signature)."""
    return sorted(k for k, d in _cached_dispatchers().items() if d.signatures)


def kernels_valid(names) -> bool:
    """Whether numba's on-disk cache holds each named kernel for this module's current source
    (its index is numba's own: empty when missing, of another numba version or of other source).
    ``names``: kernel names (strings), as :func:`kernels_in_use` gives them."""
    if isinstance(names, str):
        raise TypeError(f"names: expected a list of kernel names, not one string ({names!r}): pass [{names!r}]")
    names = list(names)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"names: expected kernel names (strings), got {names!r}")
    have = _cached_dispatchers()
    for name in names:
        d = have.get(name)
        if d is None:
            return False
        try:
            if not d._cache._cache_file._load_index():
                return False
        except AttributeError:  # numba's internals moved: the file's existence is all that can be told
            if not os.path.exists(d._cache._cache_file._index_path):
                return False
        except Exception:  # an unreadable index (truncated, foreign): numba would recompile
            return False
    return True


def kernels_cached() -> bool:
    """Whether numba's on-disk cache seems to hold this module's compiled kernels (else the first
    call of each compiles it: about a minute in all on two cores): at least half of their cache
    index files exist (a run compiles only the kernels it uses). True where that cannot be told
    (nothing to warn about)."""
    paths = [d._cache._cache_file._index_path for d in _cached_dispatchers().values()]  # none: nothing told
    return 2 * sum(os.path.exists(p) for p in paths) >= len(paths)
