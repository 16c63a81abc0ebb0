"""The compiled row kernels of attnbounds.empirical.fused against direct numpy references."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds.empirical import experiments as ex

from attnbounds.empirical import fused as fz  # numba is a dependency (pyproject): no skip


def _tied_rows(rng, B, R, K, digits):
    """Weights with many ties (rounded) and an exactly-zero tail (hidden keys)."""
    w = np.round(rng.random((B, R, K)), digits)
    w[..., K - K // 4:] = 0.0
    return w


def _causal_weights(rng, B, K, scale):
    """Softmax weights (B, K, K) of normal logits times ``scale`` over each causal prefix, and the mask."""
    lg = rng.standard_normal((B, K, K)) * scale
    vis = np.tril(np.ones((K, K), dtype=bool))
    lg[:, ~vis] = -np.inf
    w = np.exp(lg - lg.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return w, vis


@pytest.mark.parametrize("K", [7, 40, 300])
def test_top_k_rows_is_the_stable_descending_order(K):
    """Every regime (heap k <= 16, quickselect, full sort when 2k >= K) gives the first k of a
    stable sort of −w: largest first, equal weights in index order."""
    rng = np.random.default_rng(K)
    for digits in (1, 2, 12):
        w = _tied_rows(rng, 2, 5, K, digits)
        for k in sorted({1, 2, min(K, 5), min(K, 16), min(K, 17), K // 3 or 1, K // 2 or 1, K - 1, K}):
            out = np.empty((2, 5, k), dtype=np.int64)
            fz.top_k_rows(w, k, out)
            ref = np.argsort(-w, axis=-1, kind="stable")[..., :k]
            assert np.array_equal(out, ref), (digits, k)


def test_top_k_rows_reference_sees_tie_order():
    """The test data above discriminates: ties to the higher index (a plausible bug) give a
    different order than the reference on the same rows."""
    rng = np.random.default_rng(40)
    w = _tied_rows(rng, 2, 5, 40, 1)
    k = 17
    out = np.empty((2, 5, k), dtype=np.int64)
    fz.top_k_rows(w, k, out)
    flipped = w[..., ::-1]
    wrong = (w.shape[-1] - 1) - np.argsort(-flipped, axis=-1, kind="stable")[..., :k]  # ties to the higher index
    assert not np.array_equal(out, wrong)
    assert not np.array_equal(out[..., 1:], np.argsort(-w, axis=-1, kind="stable")[..., :k - 1])  # off by one


def test_top_order_uses_the_compiled_selection_and_keeps_ties():
    w = np.array([[[0.25, 0.25, 0.25, 0.25, 0.0], [0.1, 0.3, 0.3, 0.3, 0.0]]])
    assert ex.top_order(w, 2).tolist() == [[[0, 1], [1, 2]]]
    assert ex.top_order(w, 4).tolist() == [[[0, 1, 2, 3], [1, 2, 3, 0]]]


def _running_reference(d2, r0, carried, carried_arg, later=True):
    """Direct: best[b, j, c] = max over keys i <= r0 + c (the carried maximum over i < r0 wins
    only when strictly larger; within the block a tie moves to the later key, or with
    ``later=False`` stays with the earlier one)."""
    B, K, C = d2.shape
    best = np.empty((B, K, C))
    arg = np.empty((B, K, C), dtype=np.int64)
    for b in range(B):
        for j in range(K):
            m, a = -np.inf, 0
            for c in range(C):
                if c == 0 or d2[b, j, c] > m or (later and d2[b, j, c] == m):
                    m, a = d2[b, j, c], r0 + c
                best[b, j, c], arg[b, j, c] = (carried[b, j], carried_arg[b, j]) if carried[b, j] > m else (m, a)
    return best, arg


def _tied_products(rng, B, K):
    """‖x‖² (B, K) and products x_j·x_i (B, K, K) on a coarse grid: the distances
    (‖x_j‖² + ‖x_i‖²) − 2 x_j·x_i are small integers, with many ties."""
    return np.round(rng.random((B, K)) * 4), np.round(rng.random((B, K, K)) * 4) / 2


@pytest.mark.parametrize("col0", [12, 0])  # the Gram matrix (the block's keys at its columns), or the block's products
def test_running_pair_maxima_equals_the_direct_running_maximum(col0):
    rng = np.random.default_rng(7)
    B, K, C, r0 = 2, 30, 9, 12
    xsq, gram = _tied_products(rng, B, K)
    dots = gram if col0 else np.ascontiguousarray(gram[:, :, r0:r0 + C])
    d2 = (xsq[:, :, None] + xsq[:, None, r0:r0 + C]) - 2.0 * gram[:, :, r0:r0 + C]
    carried = np.round(rng.random((B, K)) * 4)
    carried_arg = rng.integers(0, r0, (B, K))
    ref_best, ref_arg = _running_reference(d2, r0, carried, carried_arg)
    best, arg = np.empty((B, K, C)), np.empty((B, K, C), dtype=np.int64)
    c2, a2 = carried.copy(), carried_arg.copy()
    fz.running_pair_maxima(dots, col0, xsq, r0, c2, a2, best, arg)
    assert np.array_equal(best, ref_best) and np.array_equal(arg, ref_arg)
    assert np.array_equal(c2, ref_best[..., -1]) and np.array_equal(a2, ref_arg[..., -1])  # carried to r0 + C
    # the data discriminates: ties kept with the earlier key, or maximizers off by one, differ
    assert not np.array_equal(arg, _running_reference(d2, r0, carried, carried_arg, later=False)[1])
    assert not np.array_equal(arg, ref_arg + 1)


def test_pair_table_compiled_blocks_equal_the_torch_blocks(monkeypatch):
    """PairTable.rows by the compiled pass equals the torch cummax path, block after block,
    with repeated vectors (tied distances): values, maximizers and the carried maxima."""
    import torch

    rng = np.random.default_rng(3)
    x = np.round(rng.standard_normal((2, 50, 3)))
    x[:, 9] = x[:, 4]
    compiled, plain = ex.PairTable(x), ex.PairTable(x)
    for r0, r1 in ((0, 7), (7, 20), (20, 21), (21, 50)):
        got = compiled.rows(r0, r1)
        with monkeypatch.context() as m:
            m.setattr(ex, "_FUSED", False)  # the torch path
            ref = plain.rows(r0, r1)
        assert torch.equal(got[0], ref[0]) and torch.equal(got[1], ref[1])
        assert torch.equal(compiled._best, plain._best) and torch.equal(compiled._arg, plain._arg)


def _row_steps(gram, xsq, room):
    """fused.pair_row_steps with ``room`` changes per key: (first, count, at, top)."""
    B, K = xsq.shape
    first = (np.arange(B)[:, None] * K + np.arange(K + 1)[None, :]) * room
    count = np.empty((B, K), dtype=np.int64)
    at, top = np.full(B * K * room, -7, dtype=np.int64), np.full(B * K * room, np.nan)
    fz.pair_row_steps(gram, xsq, first, count, at, top)
    return first, count, at, top


@pytest.mark.parametrize("room", [23, 2])  # every change kept, or too little room (the counts still say how many)
def test_pair_row_steps_and_lookup_give_each_prefix_rows_running_maximum(room):
    """The running maximum of ‖x_i − x_j‖² over the keys i ≤ r, looked up at any row r and key j
    from each key's steps, equals the direct one: values and maximizers (a tie moves to the
    later key), with tied distances, a key whose maximum changes at every key (past the scan,
    a bisection finds the step), and K − 1 not a multiple of the four columns a test takes."""
    rng = np.random.default_rng(11)
    B, K = 3, 23
    xsq, gram = _tied_products(rng, B, K)
    gram[:, 0] = (xsq[:, :1] + xsq - np.arange(K)) / 2  # key 0: ‖x_i − x_0‖² = i, a change at every key
    d2 = (xsq[:, :, None] + xsq[:, None, :]) - 2.0 * gram
    none, zero = np.full((B, K), -np.inf), np.zeros((B, K), dtype=np.int64)
    ref_best, ref_arg = _running_reference(d2, 0, none, zero)
    first, count, at, top = _row_steps(gram, xsq, room)
    changes = 1 + (np.diff(ref_arg, axis=-1) != 0).sum(-1)  # each change moves the maximizer
    assert np.array_equal(count, changes) and count[0, 0] == K
    kept = np.minimum(count, room)
    for b in range(B):
        for j in range(K):
            steps = at[first[b, j]:first[b, j] + kept[b, j]]
            assert np.array_equal(steps, np.flatnonzero(np.diff(ref_arg[b, j], prepend=-1))[:room])
            assert np.array_equal(top[first[b, j]:first[b, j] + kept[b, j]], ref_best[b, j, steps])
    if room < K:
        return
    r0, C, n = 4, 19, 9
    order = rng.integers(0, K, (B, C, n))  # any keys, repeated ones too
    val, far = np.empty((B, C, n)), np.empty((B, C, n), dtype=np.int64)
    fz.pair_step_lookup(order, r0, first, count, at, top, val, far)
    heads, rows = np.arange(B)[:, None, None], np.arange(r0, r0 + C)[None, :, None]
    assert np.array_equal(val, ref_best[heads, order, rows]) and np.array_equal(far, ref_arg[heads, order, rows])
    # the data discriminates: ties kept with the earlier key differ
    assert not np.array_equal(far, _running_reference(d2, 0, none, zero, later=False)[1][heads, order, rows])


def test_pair_row_steps_mark_a_nan_distance():
    """A key whose row holds a NaN distance gets the count −1, wherever the NaN is: at the
    first key, or at any of the four places of a four-column test."""
    rng = np.random.default_rng(12)
    xsq, gram = _tied_products(rng, 2, 9)
    # (head, key j, key i): i = 0, and i = 5, 2, 7, 8 (the tests take i = 1 … 4 and 5 … 8)
    nan = [(0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 3, 0), (1, 4, 5), (1, 5, 2), (1, 6, 7), (1, 7, 8)]
    for b, j, i in nan:
        gram[b, j, i] = np.nan
    count = _row_steps(gram, xsq, 9)[1]
    marked = np.zeros_like(count, dtype=bool)
    marked[[b for b, _, _ in nan], [j for _, j, _ in nan]] = True
    assert np.all(count[marked] == -1) and np.all(count[~marked] > 0)


_ARGSORT = None


def _numba_argsort(a):
    """np.argsort as compiled code runs it (its order of ties is the kernels')."""
    global _ARGSORT
    if _ARGSORT is None:
        import numba

        _ARGSORT = numba.njit(lambda v: np.argsort(v))
    return _ARGSORT(np.asarray(a, dtype=np.float64))


def _pair_maxima_reference(xsq, gram, order, n, val, far, start, end, tie_order=_numba_argsort):
    """d_1² of one row as pair_maxima's docstring states it, step by step: a selected key's
    bound is exact when its maximizer is left out; the others are recomputed over the row's
    left-out keys, largest bound first in the order np.argsort(−bound) gives, while the bound
    is above the best so far."""
    chosen = set(order[:n].tolist())
    good, cand, who = -np.inf, [], []
    for m in range(n):
        if far[m] in chosen:
            cand.append(val[m])
            who.append(order[m])
        elif val[m] > good:
            good = val[m]
    if not cand:
        return good
    for u in tie_order(-np.array(cand)):
        if not cand[u] > good:
            break
        for i in range(start, end + 1):
            d2 = (xsq[i] + xsq[who[u]]) - 2.0 * gram[who[u], i]
            if i not in chosen and d2 > good:
                good = d2
    return good


def _later_first(a):
    """The ascending order of ``a`` with tied values in descending index order."""
    return len(a) - 1 - np.argsort(a[::-1], kind="stable")


def test_pair_maxima_follows_its_reference_where_bounds_are_below_the_values():
    """pair_maxima equals its stated procedure bit for bit on rows with tied bounds, where a
    recomputed value may exceed its bound (the table and the recomputation sum ‖x‖² apart:
    here they differ by 0.5 on some keys), so that which tied bound comes first matters
    (up to 40 bounds a row: np.argsort's order of ties is then not the index order); and
    with consistent bounds it is the direct max_{i∉I_N, j∈I_N} ‖x_i − x_j‖²."""
    rng = np.random.default_rng(4)
    B, R, K, n = 4, 16, 64, 40
    ns = np.array([1, 3, 8, 40], dtype=np.int64)
    starts = np.zeros(R, dtype=np.int64)
    ends = np.arange(K - R, K, dtype=np.int64)
    xsq, gram = _tied_products(rng, B, K)
    gram = (gram + gram.transpose(0, 2, 1)) / 2  # symmetric: two selected keys can be each other's farthest
    order = np.stack([np.stack([rng.permutation(int(e) + 1)[:n] for e in ends]) for _ in range(B)])
    d2 = (xsq[:, :, None] + xsq[:, None, :]) - 2.0 * gram
    best, arg = _running_reference(d2, 0, np.full((B, K), -np.inf), np.zeros((B, K), dtype=np.int64))
    heads, rows = np.arange(B)[:, None, None], ends[None, :, None]
    val, far = best[heads, order, rows], arg[heads, order, rows]

    def reference(xsq_rows, tie_order=_numba_argsort):
        return np.array([[[_pair_maxima_reference(xsq_rows[b], gram[b], order[b, r], nq, val[b, r], far[b, r], 0,
                                                  ends[r], tie_order) for r in range(R)] for nq in ns]
                          for b in range(B)])

    for shift in (0.0, 0.5):
        xsq_rows = xsq + shift * (rng.random((B, K)) < 0.3)  # the recomputation's ‖x‖²
        out = np.empty((B, ns.size, R))
        fz.pair_maxima(np.zeros((1, 1, 1)), xsq_rows, order, ns, val, far, starts, ends, out, gram)
        assert np.array_equal(out, reference(xsq_rows))
        if shift == 0.0:  # consistent bounds: the direct maximum
            d2_rows = (xsq_rows[:, :, None] + xsq_rows[:, None, :]) - 2.0 * gram
            for b, q, r in np.ndindex(B, ns.size, R):
                sel = order[b, r, :ns[q]]
                left = np.setdiff1d(np.arange(ends[r] + 1), sel)
                assert out[b, q, r] == d2_rows[b][np.ix_(sel, left)].max()
        else:  # the data discriminates: tied bounds taken in index order, or the later first, give other values
            assert not np.array_equal(out, reference(xsq_rows, lambda a: np.argsort(a, kind="stable")))
            assert not np.array_equal(out, reference(xsq_rows, _later_first))


@pytest.mark.parametrize("case", ["gram", "little room", "no gram", "nan"])
def test_distance_max_equals_the_lookup_in_the_blocks_maxima(case, monkeypatch):
    """PairTable.distance_max (from each key's steps, with the Gram matrix) gives, bit for bit,
    pair_distance_max of the block's rows from PairTable.rows, block after block, with tied
    distances; also when the steps need more room than given at first, and through the blocks'
    maxima where there are no steps (no Gram matrix, a NaN distance). A table that passed
    blocks by steps then carries the same maxima into a sliding window's rows."""
    import torch

    rng = np.random.default_rng(31)
    B, K = 3, 70
    x = ex.to_sphere(rng.standard_normal((B, K, 4)))
    x[:, 9] = x[:, 4]
    gram = np.matmul(x, x.transpose(0, 2, 1))
    if case == "nan":
        gram[1, 20, 33] = np.nan
    if case == "little room":
        monkeypatch.setattr(ex.PairTable, "_STEP_ROOM", 2)
    w, vis = _causal_weights(rng, B, K, 2.0)
    order = ex.top_order(w, 12)
    g = None if case == "no gram" else gram
    direct, blocks = ex.PairTable(x, gram=g), ex.PairTable(x, gram=g)
    for r0, r1 in ((0, 30), (30, 31), (31, 64)):
        got = direct.distance_max(r0, r1, order[:, r0:r1], [1, 5, 12])
        maxima = blocks.rows(r0, r1)
        ref = ex.pair_distance_max(x[:, :r1], order[:, r0:r1], [1, 5, 12], vis[r0:r1, :r1], maxima=maxima, gram=g)
        np.testing.assert_array_equal(got, ref)
    assert direct.distance_max(64, 64, order[:, 64:64], [5]).shape == (B, 1, 0)
    blocks.rows(64, 64)
    assert bool(direct._steps) == (case in ("gram", "little room"))
    if case == "little room":  # the second pass, with room for every change
        assert direct._steps[2].size == direct._steps[1].sum() > 2 * B * K
    starts = np.array([40, 41, 42, 50, 50, 55])  # a sliding window
    a, b = direct.rows(64, 70, starts), blocks.rows(64, 70, starts)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_distance_max_names_the_bad_argument():
    """distance_max and the compiled lookup of pair_distance_max refuse blocks out of order or
    past the keys, an order too short for N and keys out of range, with an error naming the
    argument; an empty table passes an empty block."""
    rng = np.random.default_rng(32)
    B, K = 2, 12
    x = ex.to_sphere(rng.standard_normal((B, K, 3)))
    table = ex.PairTable(x, gram=np.matmul(x, x.transpose(0, 2, 1)))
    order = np.zeros((B, 4, 3), dtype=np.int64)
    with pytest.raises(ValueError, match="r0: blocks must come in order"):
        table.distance_max(4, 8, order, [3])
    with pytest.raises(ValueError, match="r1: must be in"):
        table.distance_max(0, K + 1, order, [3])
    with pytest.raises(ValueError, match="order: shape"):
        table.distance_max(0, 4, order[:, :3], [3])
    with pytest.raises(ValueError, match="order: shape"):
        table.distance_max(0, 4, order, [4])
    with pytest.raises(ValueError, match="order: a selected key"):
        table.distance_max(0, 4, order + K, [3])
    maxima = ex.PairTable(x).rows(0, 4)
    with pytest.raises(ValueError, match="order: 3 keys a row, fewer than N = 4"):
        ex.pair_distance_max(x[:, :4], order, [1, 4], np.tril(np.ones((4, 4), dtype=bool)), maxima=maxima)
    with pytest.raises(ValueError, match="order: a selected key"):
        ex.pair_distance_max(x[:, :4], order + K, [3], np.tril(np.ones((4, 4), dtype=bool)), maxima=maxima)
    empty = ex.PairTable(np.zeros((B, 0, 3)), gram=np.zeros((B, 0, 0)))
    assert empty.distance_max(0, 0, np.zeros((B, 0, 3), dtype=np.int64), [3]).shape == (B, 1, 0)


def _separability_ref(a, radius):
    """Theorem 2's sides of one row from its selected weights ``a`` (ξ_j read as σ_j)."""
    xi = np.sqrt(np.maximum((a ** 2).sum() - a ** 2, 0.0))
    gap = np.maximum(xi - radius, 0.0)
    return 1.0 - xi.mean() / radius, np.mean([np.exp(-g * g / (2 * s * s)) if g > 0 else 1.0 for g, s in zip(gap, xi)])


def test_separability_equals_the_direct_formula():
    """E4 of one row (N_s/N strictly inside r, Theorem 2's sides with ξ_j read as σ_j) against a
    direct loop over the top set; a selection off by one place in the order gives different
    values (the data discriminates)."""
    rng = np.random.default_rng(9)
    K, n = 30, 5
    seen_exp = False
    for trial in range(12):
        w = rng.random(K) ** 3
        w /= w.sum()
        order = np.argsort(-w, kind="stable")
        D = rng.random(K) * 0.1
        radius = float(rng.random() * 0.05)  # some ξ_j above r (an exp term), some below (a term of 1)
        out = [np.full((1, 1, 1), np.nan) for _ in range(4)]
        sq = float((w[order[:n]] ** 2).sum())
        fz._separability(w, order, n, D, 0, sq, radius, 0, 0, 0, *out)
        lower, upper = _separability_ref(w[order[:n]], radius)
        seen_exp |= 0 < upper < 1
        assert out[0][0, 0, 0] == radius
        assert out[1][0, 0, 0] == np.sum(D[order[:n]] < radius) / n
        assert out[2][0, 0, 0] == pytest.approx(lower, rel=1e-12, abs=1e-12)
        assert out[3][0, 0, 0] == pytest.approx(upper, rel=1e-12)
        shifted = np.ascontiguousarray(order[1:])  # I_N off by one place
        fz._separability(w, shifted, n, D, 0, float((w[shifted[:n]] ** 2).sum()), radius, 0, 0, 0, *out)
        assert out[2][0, 0, 0] != pytest.approx(lower, rel=1e-6)
    assert seen_exp


def _sorted(w, lo, hi):
    t = hi - lo
    a, b = np.empty(t, np.int64), np.empty(t, np.int64)
    ka, kb = np.empty(t, np.uint32), np.empty(t, np.uint32)
    fz.sort_row(np.ascontiguousarray(w, dtype=np.float64), lo, hi, a, b, ka, kb, np.empty(1024, np.int64))
    return a


@pytest.mark.parametrize("case", ["random", "ties", "float32 collisions", "long run", "zeros", "negative"])
def test_sort_row_is_the_stable_descending_order(case):
    """The radix sort equals a stable descending argsort of the float64 weights over the range,
    including weights equal in float32 but not in float64 (short runs by insertion, runs longer
    than _RUN_SORT by argsort), exact ties (index order), zero and negative weights."""
    rng = np.random.default_rng(len(case))
    K = 300
    w = rng.random(K)
    if case == "ties":
        w = np.round(w, 1)
    elif case == "float32 collisions":  # runs of 4 keys equal in float32, distinct in float64 (insertion sort)
        w = np.repeat(rng.random(K // 4), 4) + rng.integers(0, 4, K) * 2.0 ** -40
    elif case == "long run":
        w = np.full(K, 0.5) + rng.permutation(K) * 2.0 ** -45  # one run of K equal float32 keys
    elif case == "zeros":
        w[::3] = 0.0
    elif case == "negative":
        w = rng.standard_normal(K)
    if case in ("float32 collisions", "long run"):  # the float32 keys do collide, the float64 weights do not
        assert np.unique(w.astype(np.float32)).size <= K // 4 and np.unique(w).size > K // 2
    for lo, hi in ((0, K), (17, 230), (5, 6)):
        ref = lo + np.argsort(-w[lo:hi], kind="stable")
        assert np.array_equal(_sorted(w, lo, hi), ref), (lo, hi)
    assert not np.array_equal(_sorted(w, 0, K), np.argsort(-w, kind="quicksort")[::-1])


def _engine(w, x, ns, what, *, gram_gap=None, limits=None, k_order=0):
    B, R, K = w.shape
    plan = ex.EnginePlan(ns, what, limits)
    out = plan.outputs(B, R)
    order = np.zeros((B, R, k_order), dtype=np.int64) if k_order else None
    ex.row_engine(w, ex.RowKeys(x), plan, ex._visible_ranges(None, R, K), out, order_out=order, gram_gap=gram_gap)
    res = plan.results(out, set().union(*what.values()), ns)
    return (res, order) if k_order else res


def test_row_engine_gram_and_direct_checkpoints_agree():
    """Every checkpoint computed through the Gram matrix (every N a Gram checkpoint) equals the
    same checkpoint by the direct product (no Gram checkpoint), and both equal the torch path."""
    rng = np.random.default_rng(21)
    B, R, K = 2, 9, 70
    lg = rng.standard_normal((B, R, K)) * 2
    w = np.exp(lg)
    w /= w.sum(-1, keepdims=True)
    x = ex.to_sphere(rng.standard_normal((B, K, 5)))
    what = {1: {"separability", "terms"}, 3: {"main", "mass"}, 10: {"separability"}, 40: {"main", "terms"},
            69: {"separability", "mass"}}
    ns = list(what)
    gram = _engine(w, x, ns, what, gram_gap=10 ** 6)
    direct = _engine(w, x, ns, what, gram_gap=0)
    ref = ex.position_metrics(w, x, ns, what=what, fused=False)
    assert set(gram) == set(direct) == set(ref)
    for k in ref:
        np.testing.assert_allclose(gram[k], ref[k], rtol=1e-12, atol=1e-12 if k == "t2_lower" else 0.0, err_msg=k)
        np.testing.assert_allclose(direct[k], ref[k], rtol=1e-12, atol=1e-12 if k == "t2_lower" else 0.0, err_msg=k)


def test_row_engine_limits_and_order():
    """An N limited to the first rows is NaN below them and equal to the unlimited value above;
    ``k_order`` returns the first keys of each row's stable descending order."""
    rng = np.random.default_rng(22)
    B, R, K = 2, 12, 40
    w = rng.random((B, R, K)) ** 4
    w[..., 3] = w[..., 7]  # a tie: index order
    w /= w.sum(-1, keepdims=True)
    x = ex.to_sphere(rng.standard_normal((B, K, 4)))
    what = {2: {"main"}, 9: {"main", "mass"}, 30: {"main"}}
    full = _engine(w, x, [2, 9, 30], what)
    part, order = _engine(w, x, [2, 9, 30], what, limits={9: 5, 30: 0}, k_order=6)
    for k in full:
        np.testing.assert_array_equal(part[k][:, 0], full[k][:, 0])
        np.testing.assert_array_equal(part[k][:, 1, :5], full[k][:, 1, :5])
        assert np.isnan(part[k][:, 1, 5:]).all() and np.isnan(part[k][:, 2]).all()
    np.testing.assert_array_equal(order, np.argsort(-w, axis=-1, kind="stable")[..., :6])


def test_pair_distance_max_of_several_n_equals_one_call_per_n():
    rng = np.random.default_rng(2)
    B, K = 2, 40
    x = ex.to_sphere(rng.standard_normal((B, K, 4)))
    w, vis = _causal_weights(rng, B, K, 1.0)
    order = ex.top_order(w, 12)
    maxima = ex.PairTable(x).rows(0, K)
    many = ex.pair_distance_max(x, order, [1, 5, 12], vis, maxima=maxima)
    for a, n in enumerate((1, 5, 12)):
        one = ex.pair_distance_max(x, order, n, vis, maxima=maxima)
        assert np.array_equal(many[:, a], one)
    assert not np.array_equal(many[:, 0], many[:, 2])


def test_softmax_rows_equals_torch_softmax_over_each_range():
    """The compiled softmax of each row's visible range equals torch's float64 softmax of the
    masked row (within 4 ulp), is 0 outside the range, and keeps weights far below e^-575 (the
    vectorized exp's flush) distinct and ordered, as torch does."""
    import torch

    rng = np.random.default_rng(23)
    B, R, K = 3, 40, 90
    lg = (rng.standard_normal((B, R, K)) * 3).astype(np.float32)
    lg[0, 0, :15] = np.float32(-700.0)  # e^-700: below the flush, still a positive weight
    lg[0, 0, 15:] = np.float32(0.0)
    lg[1, :, 5] = -np.inf  # a hidden key inside the range: weight 0
    starts = np.minimum(np.arange(R) // 3, 10).astype(np.int64)
    ends = np.minimum(np.arange(R) + 20, K - 1).astype(np.int64)
    w = np.full((B, R, K), np.nan)
    fz.softmax_rows(lg, starts, ends, w)
    keys = np.arange(K)[None, :]
    inside = (keys >= starts[:, None]) & (keys <= ends[:, None])
    ref = torch.softmax(torch.from_numpy(np.where(inside[None], lg, -np.inf)), -1, dtype=torch.float64).numpy()
    assert np.all(w[:, ~inside] == 0.0)
    np.testing.assert_allclose(w, ref, rtol=4 * 2.0 ** -52, atol=0.0)
    tiny = w[0, 0, :15]  # starts[0] = 0, ends[0] = 20: keys 0..14 have logit −700, 15..20 logit 0
    assert np.all(tiny > 0) and np.all(tiny < 1e-300) and w[1, 0, 5] == 0.0


@pytest.mark.parametrize("ties", [False, True])
def test_pair_table_from_the_gram_matrix_equals_the_direct_distances(ties):
    """d_1's running maxima and lookups read from the Gram matrix (the row engine's) equal the
    ones from direct products of x, block after block, with repeated vectors (tied distances)."""
    import torch

    rng = np.random.default_rng(24)
    B, K = 2, 70
    x = ex.to_sphere(rng.standard_normal((B, K, 4)))
    if ties:
        x[:, 9] = x[:, 4]
    gram = np.matmul(x, x.transpose(0, 2, 1))
    w, vis = _causal_weights(rng, B, K, 2.0)
    order = ex.top_order(w, 12)
    plain, from_gram = ex.PairTable(x), ex.PairTable(x, gram=gram)
    for r0, r1 in ((0, 30), (30, 64), (64, 70)):
        a, b = plain.rows(r0, r1), from_gram.rows(r0, r1)
        np.testing.assert_allclose(b[0].numpy(), a[0].numpy(), rtol=1e-12, atol=1e-15)
        got = ex.pair_distance_max(x, order[:, r0:r1], [1, 5, 12], vis[r0:r1], maxima=b, gram=gram)
        ref = ex.pair_distance_max(x, order[:, r0:r1], [1, 5, 12], vis[r0:r1], maxima=a)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
        assert torch.is_tensor(b[1])


def test_scratch_arrays_are_reused_per_name():
    """scratch gives the same memory for a name while it fits (a view of the right shape), new
    memory when it grows, and other memory for another name."""
    a = ex.scratch("test-a", (3, 4))
    a[...] = 7.0
    b = ex.scratch("test-a", (2, 5))
    assert b.shape == (2, 5) and np.shares_memory(a, b)
    c = ex.scratch("test-a", (10, 10))
    assert not np.shares_memory(a, c) and c.shape == (10, 10)
    assert not np.shares_memory(ex.scratch("test-b", (3, 4)), ex.scratch("test-a", (3, 4)))
    assert ex.scratch("test-i", (4,), np.int64).dtype == np.int64
    ex.release_scratch()
    assert not np.shares_memory(ex.scratch("test-a", (3, 4)), c)


def test_row_engine_entry_points_name_the_bad_argument():
    """RowKeys, EnginePlan, row_engine and PairTable(gram=...) refuse bad input with an error
    that names the argument."""
    rng = np.random.default_rng(25)
    B, R, K = 2, 4, 10
    w = rng.random((B, R, K))
    w /= w.sum(-1, keepdims=True)
    x = ex.to_sphere(rng.standard_normal((B, K, 3)))
    keys, plan = ex.RowKeys(x), ex.EnginePlan([1, 3], {1: {"main"}, 3: {"separability"}})
    ranges = ex._visible_ranges(None, R, K)
    with pytest.raises(ValueError, match="x: expected shape"):
        ex.RowKeys(x[0])
    with pytest.raises(ValueError, match="ns: must be distinct"):
        ex.EnginePlan([0, 2], {0: set(), 2: set()})
    with pytest.raises(ValueError, match="ns: must be distinct"):
        ex.EnginePlan([2, 2], {2: set()})
    with pytest.raises(ValueError, match=r"asked: no entry for N = \[3\]"):
        ex.EnginePlan([1, 3], {1: set()})
    with pytest.raises(ValueError, match="asked: unknown"):
        ex.EnginePlan([1], {1: {"masss"}})
    with pytest.raises(ValueError, match="keys: shape"):
        ex.row_engine(w, ex.RowKeys(x[:, :5]), plan, ranges, plan.outputs(B, R))
    with pytest.raises(ValueError, match="ranges:"):
        ex.row_engine(w, keys, plan, (ranges[0], ranges[1] + 1), plan.outputs(B, R))
    with pytest.raises(ValueError, match="out:"):
        ex.row_engine(w, keys, plan, ranges, plan.outputs(B, R - 1))
    with pytest.raises(ValueError, match="order_out:"):
        ex.row_engine(w, keys, plan, ranges, plan.outputs(B, R), order_out=np.zeros((B, R, 2)))
    with pytest.raises(ValueError, match="gram: shape"):
        ex.PairTable(x, gram=np.zeros((B, K - 1, K - 1)))
    out = plan.outputs(B, R)
    ex.row_engine(w, keys, plan, ranges, out)  # the same arguments, well formed, run
    assert np.isfinite(out["main"][:, 0]).all() and np.isfinite(out["ns_over_n"][:, 1]).all()


def _causal_logits(rng, B, L, scale=3.0):
    lg = (rng.standard_normal((B, L, L)) * scale).astype(np.float32)
    lg[:, np.triu(np.ones((L, L), dtype=bool), 1)] = -np.inf
    return lg


def test_row_engine_from_logits_equals_the_engine_on_their_weights():
    """With ``from_logits`` the engine takes each row's softmax itself (groups of rows, causal
    ranges): every output equals, bit for bit, the engine run on softmax_rows' weights, and
    the weights path equals the torch path to rounding."""
    rng = np.random.default_rng(31)
    B, L, d = 3, 70, 6  # 70 rows: groups of 16 with a short last group
    lg = _causal_logits(rng, B, L)
    x = ex.to_sphere(rng.standard_normal((B, L, d)))
    ranges = ex._visible_ranges(np.isfinite(lg[0]), L, L)
    w = np.empty((B, L, L))
    fz.softmax_rows(lg, *ranges, w)
    what = {1: {"separability", "mass"}, 4: {"main"}, 20: {"main", "terms"}, 40: {"main"}, 60: {"main"}}
    ns = list(what)
    outs = []
    for src, logits in ((lg, True), (w, False)):
        plan = ex.EnginePlan(ns, what)
        out = plan.outputs(B, L)
        order = np.zeros((B, L, 3), dtype=np.int64)
        ex.row_engine(src, ex.RowKeys(x), plan, ranges, out, order_out=order, from_logits=logits)
        outs.append((plan.results(out, set().union(*what.values()), ns), order))
    (a, oa), (b, ob) = outs
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    np.testing.assert_array_equal(oa, ob)
    assert np.isfinite(a["main"][:, 4, 61:]).all() and np.isnan(a["main"][:, 4, :60]).all()
    ref = ex.position_metrics(w, x, ns, visible=np.isfinite(lg[0]), what=what, fused=False)
    for k in ref:
        np.testing.assert_allclose(a[k], ref[k], rtol=1e-12, atol=1e-12 if k == "t2_lower" else 0.0, err_msg=k)


def _engine_case(seed, B, L, d=64):
    """Causal logits (B, L, L) of scale 2, the row engine's keys of unit vectors, the rows' ranges."""
    rng = np.random.default_rng(seed)
    lg = _causal_logits(rng, B, L, scale=2.0)
    x = ex.to_sphere(rng.standard_normal((B, L, d)))
    return lg, ex.RowKeys(x), ex._visible_ranges(np.isfinite(lg[0]), L, L)


def test_row_engine_values_do_not_depend_on_the_other_n_asked():
    """A checkpoint's values are computed by a rule of its own N and the row's keys (Gram or
    direct, top or bottom running sums, the key-by-key products, the group's context), so the
    same N asked alone or beside others gives the same numbers bit for bit (E3's look-ahead
    passes and the forward passes compute the same N with different companions)."""
    B, L = 2, 200
    lg, keys, ranges = _engine_case(32, B, L)

    def run(what, limits=None):
        ns = sorted(what)
        plan = ex.EnginePlan(ns, what, limits)
        out = plan.outputs(B, L)
        ex.row_engine(lg, keys, plan, ranges, out, from_logits=True)
        res = plan.results(out, set().union(*what.values()), ns)
        return {n: ({k: v[:, ns.index(n)].copy() for k, v in res.items()}, what[n]) for n in ns}

    alone = {n: run({n: {"main"}})[n] for n in (3, 30, 120, 170)}
    alone[64] = run({64: {"main", "mass"}})[64]
    alone[5] = run({5: {"separability"}})[5]
    alone[40] = run({40: {"separability", "mass"}})[40]
    together = run({3: {"main"}, 5: {"separability"}, 30: {"main"}, 64: {"main", "mass"}, 120: {"main"},
                    150: {"main"}, 170: {"main"}, 190: {"main"}}, limits={190: 100})
    # a dozen N on the all-keys product at once (a larger BLAS product than N alone)
    many = run({**{n: {"main"} for n in range(16, 100, 8)}, 40: {"separability", "mass"}, 30: {"main"}})
    compared = 0
    for n, (got, asked) in alone.items():
        for other in (together, many):
            if n in other and other[n][1] == asked:  # the same N asking the same quantities
                for k in got:
                    np.testing.assert_array_equal(other[n][0][k], got[k], err_msg=f"N={n} {k}")
                    compared += 1
        assert np.isfinite(got["d_tilde"][:, n + 1:]).all()
    assert compared >= 14  # d̃, main, ᾱ_N, R and E4's four quantities among them
    assert np.isfinite(many[40][0]["ns_over_n"][:, 41:]).all() and np.isfinite(together[64][0]["mass"][:, 65:]).all()


def test_row_engine_small_n_alone_takes_the_top_by_selection():
    """Rows of more than 48 keys whose checkpoints all read their first ranks only (E1's N = 5
    with d_1's order) take those ranks by selection: the order and every value equal the full
    sort's (the torch path's), ties to the lower index included."""
    rng = np.random.default_rng(33)
    B, L, d = 2, 120, 6
    lg = _causal_logits(rng, B, L)
    lg[:, :, 10] = lg[:, :, 40] = np.maximum(lg[:, :, 10], lg[:, :, 40])  # ties among heavy keys
    lg[:, np.triu(np.ones((L, L), dtype=bool), 1)] = -np.inf
    x = ex.to_sphere(rng.standard_normal((B, L, d)))
    vis = np.isfinite(lg[0])
    ranges = ex._visible_ranges(vis, L, L)
    what = {5: {"main", "mass", "separability"}}
    plan = ex.EnginePlan([5], what)
    out = plan.outputs(B, L)
    order = np.zeros((B, L, 7), dtype=np.int64)
    ex.row_engine(lg, ex.RowKeys(x), plan, ranges, out, order_out=order, from_logits=True)
    w = np.empty((B, L, L))
    fz.softmax_rows(lg, *ranges, w)
    ref = ex.position_metrics(w, x, [5], visible=vis, what=what, fused=False)
    got = plan.results(out, {"main", "mass", "separability"}, [5])
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-12 if k == "t2_lower" else 0.0, err_msg=k)
    tied = 0
    for r in range(49, L):
        np.testing.assert_array_equal(order[:, r], np.argsort(-w[:, r, :r + 1], axis=-1, kind="stable")[:, :7])
        tied += int(np.sum(np.isin(order[:, r], [10, 40]).sum(-1) == 2))
    assert tied > 0  # the equal weights of keys 10 and 40 were both among the first 7 somewhere


def test_row_engine_from_logits_names_the_bad_argument():
    """Logits that are not (B, R, K) name ``w``; logits that do not match the keys name ``keys``."""
    rng = np.random.default_rng(34)
    B, R, K = 2, 4, 10
    lg = rng.standard_normal((B, R, K)).astype(np.float32)
    x = ex.to_sphere(rng.standard_normal((B, K, 3)))
    plan = ex.EnginePlan([1], {1: {"main"}})
    ranges = ex._visible_ranges(None, R, K)
    with pytest.raises(ValueError, match=r"w: expected logits of shape \(B, R, K\)"):
        ex.row_engine(lg[0], ex.RowKeys(x), plan, ranges, plan.outputs(B, R), from_logits=True)
    with pytest.raises(ValueError, match="keys: shape"):
        ex.row_engine(lg, ex.RowKeys(x[:, :5]), plan, ranges, plan.outputs(B, R), from_logits=True)
    out = plan.outputs(B, R)
    ex.row_engine(lg, ex.RowKeys(x), plan, ranges, out, from_logits=True)  # well formed: runs
    assert np.isfinite(out["main"][:, 0]).all()


def _accumulate_one_key(acc, x, wr, a, m0, m1):
    """The reference: one key per pass over ``acc`` (the code before four keys per pass)."""
    step = 1 if m1 >= m0 else -1
    for m in range(m0, m1, step):
        j = a[m]
        bj = wr[j]
        xj = x[j]
        for e in range(acc.shape[0]):
            acc[e] += bj * xj[e]


def test_accumulate_takes_the_keys_one_after_the_other():
    """Four keys per pass give the one-key-per-pass sums bit for bit (each element takes the
    products in key order, fused multiply-adds alike), upwards and downwards, for every
    remainder of four, and wherever the running sum is split into checkpoints."""
    import numba as nb

    one = nb.njit(fastmath={"contract"})(_accumulate_one_key)
    rng = np.random.default_rng(41)
    K, d = 61, 64
    x = rng.standard_normal((K, d)) * np.exp(rng.standard_normal((K, 1)) * 4)  # magnitudes that expose reordering
    wr = rng.random(K) * np.exp(rng.standard_normal(K) * 3)
    a = rng.permutation(K)
    for m0, m1 in [(0, 0), (0, 1), (0, 3), (0, 4), (0, 5), (2, 9), (0, K), (K - 1, -1), (K - 1, 10), (20, 7)]:
        got, want = np.zeros(d), np.zeros(d)
        fz._accumulate(got, x, wr, a, m0, m1)
        one(want, x, wr, a, m0, m1)
        np.testing.assert_array_equal(got, want, err_msg=f"{m0}..{m1}")
        step = 1 if m1 >= m0 else -1
        np.testing.assert_allclose(got, (wr[a[m0:m1:step], None] * x[a[m0:m1:step]]).sum(0) if m1 >= 0 else
                                   (wr[a[m0::-1], None] * x[a[m0::-1]]).sum(0), rtol=1e-9, atol=1e-9 * np.abs(x).max())
    split = np.zeros(d)
    for m0, m1 in [(0, 3), (3, 10), (10, 11), (11, 30), (30, K)]:  # checkpoints at 3, 10, 11, 30
        fz._accumulate(split, x, wr, a, m0, m1)
    whole = np.zeros(d)
    fz._accumulate(whole, x, wr, a, 0, K)
    np.testing.assert_array_equal(split, whole)
    shifted = np.zeros(d)
    fz._accumulate(shifted, x, wr, a, 0, 5)
    one(whole := np.zeros(d), x, wr, a, 0, 5)
    assert np.array_equal(shifted, whole) and not np.array_equal(shifted, np.zeros(d))


def test_row_engine_rows_do_not_depend_on_the_other_rows_of_their_group():
    """The direct checkpoints of a group of 16 rows share one matrix product; a row's values are
    the same whether the rows beside it in its group ask for many N, few, or none (limits that
    end inside a group), bit for bit."""
    B, L = 2, 160
    lg, keys, ranges = _engine_case(42, B, L)
    ns = [16, 24, 40, 70, 90]

    def run(limits):
        what = {n: {"main", "mass"} for n in ns}
        plan = ex.EnginePlan(ns, what, limits)
        out = plan.outputs(B, L)
        ex.row_engine(lg, keys, plan, ranges, out, from_logits=True)
        return plan.results(out, {"main", "mass"}, ns)

    every = run(None)
    cut = run({24: 101, 40: 123, 70: 150, 90: 137})  # limits in the middle of groups (96–111, 112–127, 144–159, 128–143)
    for k in ("d_tilde", "main", "mass"):
        for a, (n, lim) in enumerate([(16, L), (24, 101), (40, 123), (70, 150), (90, 137)]):
            np.testing.assert_array_equal(cut[k][:, a, :lim], every[k][:, a, :lim], err_msg=f"{k} N={n}")
            assert np.isnan(cut[k][:, a, lim:]).all() and np.isfinite(every[k][:, a, n + 1:]).all()


def test_kernels_cached_tells_a_cold_numba_cache_from_a_warm_one(tmp_path):
    """The note `reproduce` prints before a first run rests on it: cold in an empty cache
    directory; warm where the kernels' cache index files are (touched here, as a run that
    compiled them would have written them)."""
    import os
    import subprocess
    import sys

    code = ("import pathlib, sys\n"
            "from attnbounds.empirical import fused as f\n"
            "print(f.kernels_cached())\n"
            "for d in vars(f).values():\n"
            "    if hasattr(d, '_cache') and hasattr(d._cache, '_cache_file'):\n"
            "        p = pathlib.Path(d._cache._cache_file._index_path)\n"
            "        p.parent.mkdir(parents=True, exist_ok=True)\n"
            "        p.touch()\n"
            "print(f.kernels_cached())\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
