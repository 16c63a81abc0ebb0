"""Fused per-row kernels (numba) for :func:`attnbounds.empirical.experiments.position_metrics`.

The torch path of ``position_metrics`` makes about a dozen passes over a (heads, rows, keys)
float64 block per N and re-reads the block for each N. Here each row (b, r) is handled by one
compiled loop, :func:`row_metrics`, for every N at once:

* the row's order (largest weight first, equal weights in index order) by a radix sort
  (:func:`sort_row`);
* the **Gram checkpoints**, the smallest N of the row while each adds fewer than
  ``gram_gap`` keys: the products P_i = x_i · s_N with s_N = Σ_{m<N} α_{o_m} x_{o_m} are
  running sums of rows of the Gram matrix G = X Xᵀ, P += α_j G[j, ·] for each key j that
  joins the top set (one pass over the row's keys per key, no product of length d), and
  ‖s_N‖² = ‖s_{N−1}‖² + 2α_j P_j + α_j² G[j, j];
* the **direct checkpoints**, the other N: s_N by running sums along the order, then one
  matrix product (BLAS) of all their s_N, and of the row's context c = Σ_i α_i x_i, with
  the row's x gives every x_i · s_N and x_i · c;
* at each N, D_i = ‖α_i x_i − s_N‖ = (α_i²‖x_i‖² − 2α_i x_i·s_N + ‖s_N‖²)^{1/2} over the
  row's visible keys, d̃ = Σ_{i∉I_N} D_i, ᾱ_N and R = max_{j∈I_N}‖x_j‖, d_1 = max_{i∉I_N}‖x_i‖,
  E4's r = min_{i∉I_N} D_i with N_s = #{j ∈ I_N : D_j < r} and Theorem 2's two sides
  (:func:`_separability`), and the T1(ii) main term from x_i · c;
* :func:`top_k_rows`: the top order alone (the first k of a stable descending sort), by
  selection; :func:`running_pair_maxima` and :func:`pair_maxima`: d_1 from running maxima.

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

__all__ = ["row_metrics", "sort_row", "softmax_rows", "exp_nonpositive", "pair_maxima", "top_k_rows",
           "running_pair_maxima", "FLAG_MASS", "FLAG_TERMS", "FLAG_MAIN", "FLAG_SEP"]


@nb.njit(parallel=True, cache=True)
def pair_maxima(x, xsq, order, n, best, arg, per_row, starts, ends, out, gram):  # pragma: no cover - compiled
    """d_1² = max_{i∉I_N, j∈I_N} ‖x_i − x_j‖² per row from a PairTable's running maxima.

    ``best``/``arg`` (B, K, C): the largest ‖x_i − x_j‖² over the row's visible keys and its
    maximizer, column r (``per_row``) or 0. For a selected j whose maximizer is not selected
    the maximum is exact; the others are recomputed over the row's visible non-selected
    keys, largest candidate first, only while their candidate (an upper bound) can still win,
    the products x_j · x_i read from ``gram`` (B, K', K'), K' ≥ K, when it is given ((1, 1, 1): not).
    ``out`` (B, R): −inf where no key is left out."""
    B, R, _ = order.shape
    K = x.shape[1]
    d = x.shape[2]
    use_gram = gram.shape[1] >= K and gram.shape[2] >= K
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
                    if use_gram:
                        dot = gram[b, j, i]
                    else:
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


# --- the row engine ------------------------------------------------------------------------

# what a checkpoint N asks for (bits of ``flags``; d̃ is always computed)
FLAG_MASS = 1  # ᾱ_N and R = max_{j∈I_N} ‖x_j‖
FLAG_TERMS = 2  # d_1 = max_{i∉I_N} ‖x_i‖ (and ᾱ_N, R)
FLAG_MAIN = 4  # the T1(ii) main term
FLAG_SEP = 8  # E4: r, N_s/N and Theorem 2's sides

_RUN_SORT = 32  # a run of equal float32 keys longer than this is re-sorted by np.argsort, not by insertion


@nb.njit(cache=True)
def sort_row(wr, lo, hi, a, b, ka, kb, cnt):  # pragma: no cover - compiled
    """a[:t] = the keys lo … hi − 1 (t = hi − lo) by weight ``wr``, largest first, equal weights
    in index order: the stable descending order of the float64 weights.

    An LSD radix sort with byte digits (a digit that every key shares is skipped) on the
    float32 rounding of the weights, which is monotone; keys whose float32 weights are equal
    are then ordered by their float64 weights, stably. ``b``, ``ka``, ``kb`` (t,) and ``cnt``
    (256,) are work arrays."""
    t = hi - lo
    bits = wr[lo:hi].astype(np.float32).view(np.uint32)
    for i in range(t):
        u = bits[i]
        if u & np.uint32(0x80000000):  # the IEEE order of a float as an unsigned key
            u = ~u
        else:
            u = u | np.uint32(0x80000000)
        ka[i] = ~u  # ascending in ka = descending in w
        a[i] = lo + i
    for sh in range(0, 32, 8):
        for j in range(256):
            cnt[j] = 0
        for i in range(t):
            cnt[(ka[i] >> sh) & 255] += 1
        if cnt[(ka[0] >> sh) & 255] == t:
            continue
        s = 0
        for j in range(256):
            c = cnt[j]
            cnt[j] = s
            s += c
        for i in range(t):
            k = (ka[i] >> sh) & 255
            pos = cnt[k]
            cnt[k] = pos + 1
            b[pos] = a[i]
            kb[pos] = ka[i]
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
                v = a[q]
                wv = wr[v]
                z = q - 1
                while z >= i and wr[a[z]] < wv:
                    a[z + 1] = a[z]
                    z -= 1
                a[z + 1] = v
        i = j


@nb.njit(cache=True)
def _separability(wr, a, n, D, lo, sq, rmin, b, cc, r, radius, ns_over_n, lower, upper):  # pragma: no cover - compiled
    """E4 at one row and N: r = ``rmin`` = min_{i∉I_N} D_i, N_s/N with N_s = #{j ∈ I_N : D_j < r}
    (strictly inside), and Theorem 2's sides with ξ_j read as σ_j = (Σ_{k∈I_N∖j} α_k²)^{1/2}:
    lower = 1 − (1/N) Σ_j ξ_j / r (Markov), upper = (1/N) Σ_j exp(−((ξ_j − r)₊)²/(2σ_j²))
    (McDiarmid, M = 1; a term is 1 where ξ_j ≤ r). ``sq`` = Σ_{j∈I_N} α_j²."""
    inside = 0
    xs = 0.0
    ts = 0.0
    for k in range(n):
        j = a[k]
        if D[j - lo] < rmin:
            inside += 1
        aj = wr[j]
        xi = math.sqrt(max(sq - aj * aj, 0.0))
        xs += xi
        gap = max(xi - rmin, 0.0)
        if gap > 0:
            den = 2.0 * (xi * xi) if xi > 0 else 2.0
            ts += math.exp(-gap * gap / den)
        else:
            ts += 1.0
    radius[b, cc, r] = rmin
    ns_over_n[b, cc, r] = inside / n
    lower[b, cc, r] = 1.0 - (xs / n) / rmin
    upper[b, cc, r] = ts / n


@nb.njit(cache=True)
def _finish(f, wr, a, n, D, keep, lo, t, norms, b, msum, rm, sq, tot, cc, r,
            d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper):  # pragma: no cover - compiled
    """Write checkpoint ``cc`` of row (b, r) from its distances D (t,) and the mask ``keep``
    (1.0 for a key outside I_N): d̃ = ``tot``, and what ``f`` asks for."""
    d_tilde[b, cc, r] = tot
    if f & FLAG_MASS or f & FLAG_TERMS:
        mass[b, cc, r] = msum
        rmax[b, cc, r] = rm
    if f & FLAG_TERMS:
        dmax = -np.inf
        for i in range(t):
            if keep[i] > 0.0 and norms[b, lo + i] > dmax:
                dmax = norms[b, lo + i]
        d1n[b, cc, r] = dmax
    if f & FLAG_SEP:
        rmin = np.inf
        for i in range(t):
            if keep[i] > 0.0 and D[i] < rmin:
                rmin = D[i]
        _separability(wr, a, n, D, lo, sq, rmin, b, cc, r, radius, ns_over_n, lower, upper)


@nb.njit(cache=True, fastmath={"contract"})
def _accumulate(acc, x, wr, a, m0, m1):  # pragma: no cover - compiled
    """acc += Σ α_{a_m} x_{a_m} (rows of ``x``) over m = m0, m0 ± 1, … up to m1 excluded (downwards
    when m1 < m0), key after key: no reassociation, so that a running sum does not depend on
    where it was split into checkpoints."""
    d = acc.shape[0]
    step = 1 if m1 >= m0 else -1
    for m in range(m0, m1, step):
        j = a[m]
        bj = wr[j]
        xj = x[j]
        for e in range(d):
            acc[e] += bj * xj[e]


# fastmath: reassociation only (vectorized sums). No contraction into FMAs here: with it, ‖s‖²
# and Σα_j² are rounded differently from α_j² alone, and ξ_j = (Σα_k² − α_j²)^{1/2} at N = 1
# becomes the square root of a rounding error (1e-9) instead of 0.
@nb.njit(parallel=True, cache=True, fastmath={"reassoc"})
def row_metrics(w, G, x, xT, c, xsq, norms, starts, ends, ns, flags, limit, gram_gap, k_order, r0,
                order_out, d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper, main):  # pragma: no cover - compiled
    """Every checkpoint N of every row (b, r) of ``w`` (B, R, K), in one pass per row.

    ``ns`` (nN,) ascending, ``flags`` (nN,) what each N asks for (``FLAG_*``), ``limit``
    (nN,): N is computed on the rows r0 + r < limit only. Row r's visible keys are
    starts[r] … ends[r]; N is computed where N < t (a key is left out). ``G`` (B, K', K') the
    Gram matrix x xᵀ (K' ≥ K; unused when ``gram_gap`` is 0), ``x`` (B, K', d), ``xT`` (B, d,
    K) x transposed, ``c`` (B, R, d) each row's context Σ_i α_i x_i, ``xsq``/``norms``
    (B, K') ‖x_i‖² and ‖x_i‖. Outputs (B, nN, R') at column r0 + r, written where computed;
    ``order_out`` (B, R', k_order) the first k_order keys of each row's order."""
    B, R, K = w.shape
    d = x.shape[2]
    nN = ns.shape[0]
    for q in nb.prange(B * R):
        b = q // R
        r = q - b * R
        ro = r0 + r
        lo = starts[r]
        hi = ends[r] + 1
        t = hi - lo
        app = np.empty(nN, np.int64)  # this row's checkpoints, ascending
        na = 0
        any_main = False
        for cc in range(nN):
            if ns[cc] < t and ro < limit[cc]:
                app[na] = cc
                na += 1
                if flags[cc] & FLAG_MAIN:
                    any_main = True
        if na == 0 and k_order == 0:
            continue
        ng = 0  # the Gram checkpoints: N < gram_gap (fixed per N, so that a value does not depend on the other N asked)
        while ng < na and ns[app[ng]] < gram_gap:
            ng += 1
        wr = w[b, r]
        a = np.empty(t, np.int64)
        work = np.empty(t, np.int64)
        ka = np.empty(t, np.uint32)
        kb = np.empty(t, np.uint32)
        cnt = np.empty(256, np.int64)
        sort_row(wr, lo, hi, a, work, ka, kb, cnt)
        for m in range(min(k_order, t)):
            order_out[b, ro, m] = a[m]
        if na == 0:
            continue
        aw = np.empty(t)  # α_i² ‖x_i‖²
        ww = np.empty(t)  # α_i
        for i in range(t):
            wi = wr[lo + i]
            ww[i] = wi
            aw[i] = wi * wi * xsq[b, lo + i]
        keep = np.ones(t)  # 1.0 for a key outside I_N
        D = np.empty(t)
        sq = 0.0  # Σ_{j∈I_N} α_j²
        msum = 0.0  # ᾱ_N
        rm = -np.inf  # R
        m = 0  # keys in I_N so far
        if ng > 0:
            P = np.zeros(t)  # x_i · s_N
            ss = 0.0  # ‖s_N‖²
            for z in range(ng):
                cc = app[z]
                n = ns[cc]
                while m < n:
                    j = a[m]
                    bj = wr[j]
                    g = G[b, j]
                    ss += 2.0 * bj * P[j - lo] + bj * bj * g[j]
                    for i in range(t):
                        P[i] += bj * g[lo + i]
                    msum += bj
                    sq += bj * bj
                    if norms[b, j] > rm:
                        rm = norms[b, j]
                    keep[j - lo] = 0.0
                    m += 1
                tot = 0.0
                for i in range(t):
                    dv = math.sqrt(max(aw[i] - 2.0 * ww[i] * P[i] + ss, 0.0))
                    D[i] = dv
                    tot += dv * keep[i]
                _finish(flags[cc], wr, a, n, D, keep, lo, t, norms, b, msum, rm, sq, tot, cc, ro,
                        d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper)
        nd = na - ng
        nrow = nd + 1 if any_main else nd
        if nrow == 0:
            continue
        # s_N of the direct checkpoints: running sums from the top of the order where N ≤ t/2,
        # c minus running sums from the bottom above (fixed per N and t, as the Gram rule)
        split = 0
        while split < nd and 2 * ns[app[ng + split]] <= t:
            split += 1
        S = np.zeros((max(nrow, 2), d))  # two rows at least: BLAS takes a matrix-vector path for one, rounded differently
        acc = np.zeros(d)
        mm = 0
        xb = x[b]
        for u in range(split):
            n = ns[app[ng + u]]
            _accumulate(acc, xb, wr, a, mm, n)
            mm = n
            for e in range(d):
                S[u, e] = acc[e]
        acc[:] = 0.0
        mm = t - 1
        for u in range(nd - 1, split - 1, -1):  # from the bottom of the order, key t − 1 first
            n = ns[app[ng + u]]
            _accumulate(acc, xb, wr, a, mm, n - 1)
            mm = n - 1
            for e in range(d):
                S[u, e] = c[b, r, e] - acc[e]
        if any_main:
            for e in range(d):
                S[nd, e] = c[b, r, e]
        prod = np.dot(S, xT[b])  # (nrow, K): x_i · s_N, and x_i · c in the last row
        for z in range(ng, na):
            cc = app[z]
            n = ns[cc]
            while m < n:
                j = a[m]
                bj = wr[j]
                msum += bj
                sq += bj * bj
                if norms[b, j] > rm:
                    rm = norms[b, j]
                keep[j - lo] = 0.0
                m += 1
            ss = 0.0
            for e in range(d):
                ss += S[z - ng, e] * S[z - ng, e]
            pz = prod[z - ng]
            tot = 0.0
            for i in range(t):
                dv = math.sqrt(max(aw[i] - 2.0 * ww[i] * pz[lo + i] + ss, 0.0))
                D[i] = dv
                tot += dv * keep[i]
            _finish(flags[cc], wr, a, n, D, keep, lo, t, norms, b, msum, rm, sq, tot, cc, ro,
                    d_tilde, mass, rmax, d1n, radius, ns_over_n, lower, upper)
        if not any_main:
            continue
        # the T1(ii) main term: (t − N)/t Σ_i ‖(1 + k) α_i x_i − k c‖ over the t keys, k = N/max(t − 1, 1)
        csq = 0.0
        for e in range(d):
            csq += S[nd, e] * S[nd, e]
        pc = prod[nd]
        bw = np.empty(t)  # α_i x_i · c
        for i in range(t):
            bw[i] = ww[i] * pc[lo + i]
        for z in range(na):
            cc = app[z]
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


# --- softmax ------------------------------------------------------------------------------

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 in two parts (Cody–Waite): k·_LN2_HI is exact for |k| < 2^20
_LN2_LO = 1.90821492927058770002e-10
_E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13 = (1.0 / math.factorial(k) for k in range(2, 14))


@nb.njit(cache=True, fastmath={"contract"})
def exp_nonpositive(y, out, bits):  # pragma: no cover - compiled
    """out[i] = exp(y[i]) for y[i] ≤ 0, within one ulp, in a loop the compiler vectorizes (numba's
    own exp calls libm one value at a time): y = k ln 2 + r with |r| ≤ ln 2 / 2, e^r by its
    Taylor polynomial of degree 13 (remainder below 4e-18), 2^k from the exponent bits;
    y < −708 (a subnormal result, or 0) falls back to ``math.exp``. ``bits`` (n,) int64 work array."""
    n = y.shape[0]
    for i in range(n):
        v = max(y[i], -708.0)
        k = math.floor(v * _LOG2E + 0.5)
        r = (v - k * _LN2_HI) - k * _LN2_LO
        p = _E13
        p = p * r + _E12
        p = p * r + _E11
        p = p * r + _E10
        p = p * r + _E9
        p = p * r + _E8
        p = p * r + _E7
        p = p * r + _E6
        p = p * r + _E5
        p = p * r + _E4
        p = p * r + _E3
        p = p * r + _E2
        p = p * r + 1.0
        out[i] = p * r + 1.0
        bits[i] = (np.int64(k) + 1023) << 52
    scale = bits[:n].view(np.float64)
    for i in range(n):
        out[i] *= scale[i]
    for i in range(n):
        if y[i] < -708.0:
            out[i] = math.exp(y[i])


@nb.njit(parallel=True, cache=True, fastmath={"reassoc"})
def softmax_rows(lg, starts, ends, w):  # pragma: no cover - compiled
    """w[b, r] = the softmax of the float32 logits lg[b, r] over the keys starts[r] … ends[r] in
    float64 (0 at the other keys): e_i = exp(l_i − max l), w_i = e_i / Σ e (:func:`exp_nonpositive`)."""
    B, R, K = lg.shape
    for q in nb.prange(B * R):
        b = q // R
        r = q - b * R
        lo = starts[r]
        hi = ends[r] + 1
        row = lg[b, r]
        m = -np.inf
        for i in range(lo, hi):
            v = np.float64(row[i])
            if v > m:
                m = v
        y = np.empty(hi - lo)
        for i in range(lo, hi):
            y[i - lo] = np.float64(row[i]) - m
        e = np.empty(hi - lo)
        exp_nonpositive(y, e, np.empty(hi - lo, np.int64))
        s = 0.0
        for i in range(hi - lo):
            s += e[i]
        out = w[b, r]
        for i in range(lo):
            out[i] = 0.0
        for i in range(lo, hi):
            out[i] = e[i - lo] / s
        for i in range(hi, K):
            out[i] = 0.0
