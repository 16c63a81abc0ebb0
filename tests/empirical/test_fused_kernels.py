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


def test_running_pair_maxima_equals_the_direct_running_maximum():
    rng = np.random.default_rng(7)
    B, K, C, r0 = 2, 30, 9, 12
    d2 = np.round(rng.random((B, K, C)) * 4)  # many ties
    carried = np.round(rng.random((B, K)) * 4)
    carried_arg = rng.integers(0, r0, (B, K))
    ref_best, ref_arg = _running_reference(d2, r0, carried, carried_arg)
    best, arg = np.empty((B, K, C)), np.empty((B, K, C), dtype=np.int64)
    c2, a2 = carried.copy(), carried_arg.copy()
    fz.running_pair_maxima(d2, r0, c2, a2, best, arg)
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


def test_t2_sides_equals_the_direct_formula():
    """Theorem 2's sides per row (ξ_j read as σ_j) against a direct loop over the top set; a
    selection off by one place in the order gives different values (the data discriminates)."""
    rng = np.random.default_rng(9)
    B, R, K, n = 2, 6, 30, 5
    w = rng.random((B, R, K)) ** 3
    w /= w.sum(-1, keepdims=True)
    order = np.argsort(-w, axis=-1, kind="stable")
    radius = rng.random((B, R)) * 0.05  # some ξ_j above r (an exp term), some below (a term of 1)
    lower, upper = np.empty((B, R)), np.empty((B, R))
    fz.t2_sides(w, order, n, radius, lower, upper)
    ref_l, ref_u = np.empty((B, R)), np.empty((B, R))
    for b in range(B):
        for r in range(R):
            a = w[b, r, order[b, r, :n]]
            xi = np.sqrt(np.maximum((a ** 2).sum() - a ** 2, 0.0))
            gap = np.maximum(xi - radius[b, r], 0.0)
            ref_l[b, r] = 1.0 - xi.mean() / radius[b, r]
            ref_u[b, r] = np.mean([np.exp(-g * g / (2 * s * s)) if g > 0 else 1.0 for g, s in zip(gap, xi)])
    assert np.any((ref_u < 1) & (ref_u > 0))
    np.testing.assert_allclose(lower, ref_l, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(upper, ref_u, rtol=1e-12)
    shifted = np.ascontiguousarray(order[..., 1:])  # I_N off by one place
    lo2, up2 = np.empty((B, R)), np.empty((B, R))
    fz.t2_sides(w, shifted, n, radius, lo2, up2)
    assert not np.allclose(lo2, ref_l, rtol=1e-6)


def test_pair_distance_max_of_several_n_equals_one_call_per_n():
    rng = np.random.default_rng(2)
    B, K = 2, 40
    x = ex.to_sphere(rng.standard_normal((B, K, 4)))
    lg = rng.standard_normal((B, K, K))
    vis = np.tril(np.ones((K, K), dtype=bool))
    lg[:, ~vis] = -np.inf
    w = np.exp(lg - lg.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    order = ex.top_order(w, 12)
    maxima = ex.PairTable(x).rows(0, K)
    many = ex.pair_distance_max(x, order, [1, 5, 12], vis, maxima=maxima)
    for a, n in enumerate((1, 5, 12)):
        one = ex.pair_distance_max(x, order, n, vis, maxima=maxima)
        assert np.array_equal(many[:, a], one)
    assert not np.array_equal(many[:, 0], many[:, 2])
