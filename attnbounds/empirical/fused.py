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
def exp_nonpositive(x):  # pragma: no cover - compiled
    """e^x for x <= 0 to 1 ulp, 0 below ``EXP_FLUSH``: x = k ln 2 + r (|r| <= ln(2)/2),
    e^x = 2^k · P(r) with P the degree-11 fit ``EXP_COEFFS`` and 2^k built from its bits."""
    xc = max(x, -600.0)
    k = math.floor(xc * _LOG2E + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    p = _E[0]
    p = p * r + _E[1]
    p = p * r + _E[2]
    p = p * r + _E[3]
    p = p * r + _E[4]
    p = p * r + _E[5]
    p = p * r + _E[6]
    p = p * r + _E[7]
    p = p * r + _E[8]
    p = p * r + _E[9]
    p = p * r + _E[10]
    p = p * r + _E[11]
    y = p * _bits_as_float((np.int64(k) + 1023) << 52)
    return y if x >= EXP_FLUSH else 0.0


@nb.njit(inline="always", fastmath={"contract"})
def expm1_small(x):  # pragma: no cover - compiled
    """e^x − 1 = x·Q(x) for |x| <= 0.35 (Q: degree 10 of ``EXPM1_COEFFS``), to 2 ulp."""
    p = _M1[0]
    p = p * x + _M1[1]
    p = p * x + _M1[2]
    p = p * x + _M1[3]
    p = p * x + _M1[4]
    p = p * x + _M1[5]
    p = p * x + _M1[6]
    p = p * x + _M1[7]
    p = p * x + _M1[8]
    p = p * x + _M1[9]
    p = p * x + _M1[10]
    return p * x


@nb.njit(inline="always", fastmath={"contract"})
def _expm1_005(x):  # pragma: no cover - compiled
    """e^x − 1 for |x| <= 0.05 (degree 7)."""
    p = _M2[0]
    p = p * x + _M2[1]
    p = p * x + _M2[2]
    p = p * x + _M2[3]
    p = p * x + _M2[4]
    p = p * x + _M2[5]
    p = p * x + _M2[6]
    p = p * x + _M2[7]
    return p * x


@nb.njit(inline="always", fastmath={"contract"})
def _expm1_0005(x):  # pragma: no cover - compiled
    """e^x − 1 for |x| <= 5e-3 (degree 5)."""
    p = _M3[0]
    p = p * x + _M3[1]
    p = p * x + _M3[2]
    p = p * x + _M3[3]
    p = p * x + _M3[4]
    p = p * x + _M3[5]
    return p * x


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
