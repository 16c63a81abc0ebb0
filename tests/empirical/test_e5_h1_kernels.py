"""E5's compiled perturbation gain and the H1 probe's compiled sets against their references.

* ``perturbation_gain(..., fused=True)`` (:func:`attnbounds.empirical.fused.perturbation_rows`)
  against the torch path (``fused=False``, the previous implementation) and against a
  80-digit mpmath evaluation; the random directions stay the same stream;
* ``h1_layer`` (:func:`attnbounds.empirical.fused.h1_heads` / ``h1_universe``) against the
  row-by-row reference ``protocol._h1_layer_rows``: equal, not close.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds.empirical import experiments as ex
from attnbounds.empirical import fused as fz  # numba is a dependency (pyproject): no skip
from attnbounds.empirical import protocol

TS = np.array(protocol.PaperSettings.temperatures)
EPS = np.array(protocol.PaperSettings.epsilons)


# --- the vectorized exponentials ----------------------------------------------------------


def test_exp_nonpositive_is_exp_to_one_ulp_and_zero_below_the_flush():
    rng = np.random.default_rng(0)
    x = np.concatenate([-rng.uniform(0, 575, 200_000), -rng.uniform(0, 1e-3, 1000), -np.logspace(-300, 2.75, 2000),
                        [0.0, -0.0, -1e-320, fz.EXP_FLUSH]])
    got = np.empty_like(x)
    fz.exp_nonpositive_array(x, got)
    ref = np.exp(x)
    assert np.all(np.abs(got - ref) <= np.spacing(ref)), np.max(np.abs(got - ref) / np.spacing(ref))
    assert got[-4] == 1.0 and got[-3] == 1.0 and got[-2] == 1.0 and got[-1] > 0
    below = np.array([np.nextafter(fz.EXP_FLUSH, -np.inf), -600.0, -745.0, -1e300, -np.inf])
    out = np.empty_like(below)
    fz.exp_nonpositive_array(below, out)
    assert np.all(out == 0.0)
    assert np.mean(got == ref) > 0.85  # mostly correctly rounded, not merely close


def test_expm1_series_is_expm1_to_two_ulp_on_each_tier():
    rng = np.random.default_rng(1)
    for a in (5e-3, 0.05, 0.35):
        x = np.concatenate([rng.uniform(-a, a, 100_000), [a, -a, 0.0, 1e-300, -1e-300]])
        got = np.empty_like(x)
        fz.expm1_small_array(x, got)
        ref = np.expm1(x)
        assert np.all(np.abs(got - ref) <= 2 * np.spacing(np.abs(ref))), a


def test_series_coefficients_are_the_stated_chebyshev_fits():
    """The constants are what their comment says: mpmath.chebyfit's output, rounded."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    half_ln2 = mp.log(2) / 2
    c = mp.chebyfit(mp.exp, [-half_ln2, half_ln2], 12)
    assert np.array_equal(np.array([float(v) for v in c]), np.array(fz.EXP_COEFFS))
    ratio = lambda x: mp.expm1(x) / x if x != 0 else mp.mpf(1)  # noqa: E731
    for a, n in ((0.35, 11), (0.05, 8), (5e-3, 6)):
        c = mp.chebyfit(ratio, [-a, a], n)
        assert np.array_equal(np.array([float(v) for v in c]), np.array(fz.EXPM1_COEFFS[a])), a


# --- E5 ------------------------------------------------------------------------------------


def _e5_rows(seed=0, B=3, R=12, K=40):
    """Logits (B, R, K) float32 with every case the kernel branches on: ties (rounded values),
    causal and random −inf masks, rows with one visible key, a near one-hot row, a wide row,
    a row with no visible key and rows with +inf or NaN."""
    rng = np.random.default_rng(seed)
    l = np.round(rng.standard_normal((B, R, K)) * 2, 1).astype(np.float32)  # many ties
    causal = np.arange(K)[None, None, :] <= np.arange(4)[None, :, None] * 7  # rows 0-3: keys 0, 0-7, 0-14, 0-21
    l[:, :4] = np.where(causal, l[:, :4], -np.inf)
    l[:, 4] = np.where(rng.random((B, K)) < 0.5, l[:, 4], -np.inf)  # a random mask
    l[:, 5] = -np.inf
    l[:, 5, 17] = 1.5  # one visible key (not the first)
    l[:, 6] = -np.inf
    l[:, 6, 0] = 3.0  # one visible key: the first
    l[:, 7] *= 40  # wide: most weights underflow at small T (the flushes)
    l[:, 8, 3] += 30  # one key far above the others: its weight is 1 − 1e-13 at T = 1
    l[0, 9] = -np.inf  # no visible key: NaN
    l[1, 9, 2] = np.inf  # +inf: NaN
    l[2, 9, 5] = np.nan  # NaN: NaN
    return l


def _reference_mp(l, v, Ts, eps, dps=50):
    """g by mpmath at ``dps`` digits from the same normalized directions (visible keys only)."""
    import mpmath as mp

    mp.mp.dps = dps
    out = np.full(l.shape[:2] + (len(Ts), len(eps)), np.nan)
    for b in range(l.shape[0]):
        for r in range(l.shape[1]):
            vis = np.isfinite(l[b, r])
            if not vis.any() or np.any(np.isnan(l[b, r])) or np.any(l[b, r] == np.inf):
                continue
            lv = [mp.mpf(float(z)) for z in l[b, r, vis]]
            vv = v[b, r, vis]
            vv = vv / max(np.sqrt(np.sum(vv * vv)), 1e-300)
            vv = [mp.mpf(float(z)) for z in vv]

            def softmax(z):
                m = max(z)
                e = [mp.exp(zi - m) for zi in z]
                s = mp.fsum(e)
                return [ei / s for ei in e]

            for a, T in enumerate(Ts):
                base = softmax([li / mp.mpf(T) for li in lv])
                for j, e in enumerate(eps):
                    q = softmax([(li + mp.mpf(e) * vi) / mp.mpf(T) for li, vi in zip(lv, vv)])
                    out[b, r, a, j] = float(mp.sqrt(mp.fsum([(qi - pi) ** 2 for qi, pi in zip(q, base)])) / mp.mpf(e))
    return out


def test_perturbation_gain_fused_agrees_with_the_torch_path_and_is_exact_where_it_cancels():
    l = _e5_rows()
    got = ex.perturbation_gain(l, TS, EPS, np.random.default_rng(3), fused=True)
    old = ex.perturbation_gain(l, TS, EPS, np.random.default_rng(3), fused=False)
    assert got.shape == old.shape == (3, 12, 13, 3)
    assert np.array_equal(np.isnan(got), np.isnan(old))
    assert np.isnan(got[:, 9]).all() and not np.isnan(got[:, :9]).any()
    assert np.all(got[:, 5:7] == 0.0) and np.all(old[:, 5:7] == 0.0)  # one key: softmax 1 whatever v is
    v = np.random.default_rng(3).standard_normal(l.shape)
    ref = _reference_mp(l, v, TS, EPS, dps=80)
    ok = np.isfinite(ref)
    # against the exact value where 80 digits resolve it (g > 1e-20: the smallest weights that
    # matter are above 1e-60): the compiled path to about 1e-15, the torch path (float64
    # softmax differences) much worse where a weight is close to 1
    big = ok & (ref > 1e-20)
    rel_new = np.abs(got - ref)[big] / ref[big]
    rel_old = np.abs(old - ref)[big] / ref[big]
    assert rel_new.max() < 5e-14, rel_new.max()
    assert rel_old.max() > 1e-6  # the data has rows where the torch path cancels
    # against the torch path: within the torch path's own error (absolute ~1e-16 per weight / ε)
    keys = np.isfinite(l).sum(-1)[..., None, None]
    assert np.all(np.abs(got - old)[ok] <= (1e-9 * old + 4e-15 * np.sqrt(keys) / EPS)[ok])
    assert np.all(got[ok & ~big] < 1e-19)  # nearly one-hot rows stay (nearly) zero


def test_a_nearly_one_hot_row_is_exact_where_the_torch_path_cancels():
    """A weight of 1 − 1e-16: the float64 softmax difference loses the change of that weight
    (its part of ‖Δ‖ is 0 in the torch path, √2 too small), the compiled path keeps it."""
    l = np.array([[[0.0, -0.5]]])
    got = ex.perturbation_gain(l, [1e-2], [1e-3], np.random.default_rng(0), fused=True)[0, 0, 0, 0]
    old = ex.perturbation_gain(l, [1e-2], [1e-3], np.random.default_rng(0), fused=False)[0, 0, 0, 0]
    v = np.random.default_rng(0).standard_normal(l.shape)[0, 0]
    v = v / np.sqrt(v @ v)
    # exactly: q − p = (−δ, δ), δ = s(e^{c(v_1 − v_0)} − 1) + O(s²) with s = e^{−50}, c = ε/T
    s, c = np.exp(-50.0), 1e-3 / 1e-2
    delta = s * np.expm1(c * (v[1] - v[0]))
    want = np.sqrt(2) * abs(delta) / 1e-3
    assert got == pytest.approx(want, rel=1e-13)
    assert old == pytest.approx(want / np.sqrt(2), rel=1e-10)


def test_perturbation_gain_fused_matches_torch_on_real_size_causal_blocks():
    rng = np.random.default_rng(4)
    R, K = 64, 128
    l = (rng.standard_normal((4, R, K)) * rng.uniform(0.1, 3, (4, 1, 1))).astype(np.float32)
    l[:, np.arange(R)[:, None] < np.arange(K)[None, :] - (K - R)] = -np.inf  # rows of a causal block
    got = ex.perturbation_gain(l, TS, EPS, np.random.default_rng(5))  # the default: compiled
    old = ex.perturbation_gain(l, TS, EPS, np.random.default_rng(5), fused=False)
    keys = np.isfinite(l).sum(-1)[..., None, None]
    assert np.all(np.abs(got - old) <= 1e-9 * old + 4e-15 * np.sqrt(keys) / EPS)
    sums_new, sums_old = got.sum(1), old.sum(1)  # what heads.csv keeps: sums over rows
    # 1e-11 relative, or the torch path's own error where every row is nearly one-hot (a head
    # with a large logit spread at T = 1e-3: sums of 5e-11, 0.16% apart, the compiled one exact)
    bound = 1e-11 * sums_old + R * 4e-15 * np.sqrt(K) / EPS
    assert np.all(np.abs(sums_new - sums_old) <= bound)
    assert np.mean(np.abs(sums_new - sums_old) <= 1e-11 * sums_old) > 0.9


def test_perturbation_gain_draws_one_standard_normal_block_per_call():
    """The directions are the same stream as before: one ``standard_normal((B, R, K))`` per
    call (the hidden keys' draws included, then masked), on both paths."""
    l = _e5_rows(seed=6)
    for fused in (True, False):
        rng = np.random.default_rng(7)
        ex.perturbation_gain(l, TS[:2], EPS[:1], rng, fused=fused)
        twin = np.random.default_rng(7)
        twin.standard_normal(l.shape)
        assert rng.bit_generator.state == twin.bit_generator.state, fused
    v = np.random.default_rng(8).standard_normal(l.shape)
    direct = ex._perturbation_gain_torch(l, TS, EPS, v)
    via_rng = ex.perturbation_gain(l, TS, EPS, np.random.default_rng(8), fused=False)
    assert np.array_equal(direct, via_rng, equal_nan=True)
    wrong = ex._perturbation_gain_torch(l, TS, EPS, np.random.default_rng(8).standard_normal(l.shape[::-1]).T)
    assert not np.allclose(wrong[:, :9], via_rng[:, :9])  # the check can see another draw


def test_e5_layer_keeps_its_seeded_stream_and_chunks():
    """_e5_layer's totals: the per-head sums over rows 1 … L − 1 of g, with one draw per block
    of 64 rows (K = the block's last row + 1) from seeded_rng(seed, window, L, 5, layer[, part]);
    and golden values of the previous implementation (they change if the stream does)."""
    rng = np.random.default_rng(9)
    B, L = 2, 150
    lg = rng.standard_normal((B, L, L)).astype(np.float32)
    lg[:, np.triu_indices(L, 1)[0], np.triu_indices(L, 1)[1]] = -np.inf
    for part in (0, 1):
        tot, cnt = protocol._e5_layer(lg, True, 11, 2, L, 3, part)
        keys = (11, 2, L, 5, 3) if part == 0 else (11, 2, L, 5, 3, part)
        stream = ex.seeded_rng(*keys)
        ref = np.zeros_like(tot)
        for r0 in range(1, L, 64):
            r1 = min(r0 + 64, L)
            v = stream.standard_normal((B, r1 - r0, r1))
            ref += ex._perturbation_gain_torch(lg[:, r0:r1, :r1], TS, EPS, v).sum(1)
        assert cnt == L - 1
        np.testing.assert_allclose(tot, ref, rtol=1e-11)
    tot, _ = protocol._e5_layer(lg, True, 11, 2, L, 3, 0)
    # the torch path's totals on this input (computed by the implementation before the compiled path)
    golden = {(0, 0, 0): 14.334014773959554, (0, 6, 1): 28.490671286167135, (1, 12, 2): 0.4343520116329625}
    for k, want in golden.items():
        assert tot[k] == pytest.approx(want, rel=1e-11), k


def test_without_numba_the_reference_paths_are_taken(monkeypatch):
    l = _e5_rows(seed=10)[:, :9]
    want = ex.perturbation_gain(l, TS, EPS, np.random.default_rng(1), fused=False)
    monkeypatch.setattr(ex, "_FUSED", False)  # as if numba were missing
    assert np.array_equal(ex.perturbation_gain(l, TS, EPS, np.random.default_rng(1)), want)
    with pytest.raises(ValueError, match="fused: needs numba"):
        ex.perturbation_gain(l, TS, EPS, np.random.default_rng(1), fused=True)
    lg, x = _h1_case(0, H=2, L=20)
    assert protocol.h1_layer(lg, x, True, 20, 4) == protocol._h1_layer_rows(lg, x, True, 20, 4)
    with pytest.raises(ValueError, match="fused: needs numba"):
        protocol.h1_layer(lg, x, True, 20, 4, fused=True)


# --- H1 ------------------------------------------------------------------------------------


def _h1_case(seed, H=4, L=40, d=5, shared=False, digits=1):
    rng = np.random.default_rng(seed)
    lg = np.round(rng.standard_normal((H, L, L)) * 2, digits).astype(np.float32)  # ties in the weights
    lg[:, np.triu_indices(L, 1)[0], np.triu_indices(L, 1)[1]] = -np.inf
    x = ex.to_sphere(rng.standard_normal((1 if shared else H, L, d)))
    x[:, 7] = x[:, 3]  # a repeated vector: equal distances where the weights tie too
    lg[:, :, 7] = lg[:, :, 3]
    return lg, x


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_h1_layer_fused_equals_the_row_by_row_reference(seed, shared, causal):
    lg, x = _h1_case(seed, shared=shared)
    L = lg.shape[-1]
    for n in (1, 4, 9):
        got = protocol.h1_layer(lg, x, causal, L, n)
        ref = protocol.h1_layer(lg, x, causal, L, n, fused=False)
        assert got == ref, (n, {k: (got[k], ref[k]) for k in got if got[k] != ref[k]})
        assert got["rows"] == (L - n if causal else L)


def test_h1_layer_fused_equals_the_reference_on_a_longer_window_and_one_head():
    lg, x = _h1_case(3, H=1, L=30)
    assert protocol.h1_layer(lg, x, True, 30, 4) == protocol.h1_layer(lg, x, True, 30, 4, fused=False)
    lg, x = _h1_case(4, H=6, L=70, d=8, digits=3)
    wider = np.pad(lg, ((0, 0), (0, 10), (0, 10)), constant_values=-np.inf)
    xw = np.pad(x, ((0, 0), (0, 10), (0, 0)), constant_values=0.5)
    got = protocol.h1_layer(wider, xw, True, 70, 16)
    assert got == protocol.h1_layer(lg, x, True, 70, 16, fused=False)
    assert protocol.h1_layer(lg, x, True, 10, 16) == protocol.h1_layer(lg, x, True, 10, 16, fused=False)  # no row


def test_h1_heads_sets_against_numpy():
    """The kernel's top sets (stable: ties to the lower index) and distinguishable flags
    against top_n and per_token_distance row by row."""
    from attnbounds.numerics.attention import per_token_distance, top_n

    lg, x = _h1_case(5, H=3, L=30)
    w_all = protocol._softmax64(lg).numpy()
    n = 4
    rows = np.arange(n, 30)
    t = rows + 1
    sums = np.stack([w_all[:, r, :t[q]].sum(-1) for q, r in enumerate(rows)], axis=1)
    top = np.empty((3, rows.size, n), dtype=np.int64)
    dist = np.empty((3, rows.size, n), dtype=np.bool_)
    fz.h1_heads(w_all, sums, rows, x, t, n, top, dist)
    ties = 0
    for q, r in enumerate(rows):
        for h in range(3):
            w = w_all[h, r, :t[q]] / sums[h, q]
            assert top[h, q].tolist() == top_n(w, n).tolist()
            ties += len(np.unique(w)) < w.size
            D = per_token_distance(w, x[h, :t[q]], n)
            rest = np.setdiff1d(np.arange(t[q]), top[h, q])
            rho = D[rest].min()
            want = (D[top[h, q]] <= rho * (1 - 1e-12)) & (rho > 0)
            assert dist[h, q].tolist() == want.tolist()
    assert ties > 10  # the case exercises tied weights
    assert dist.any() and not dist.all()


def test_h1_overlap_is_head_overlaps_per_row():
    from attnbounds.numerics.coverage import head_overlap

    rng = np.random.default_rng(6)
    for H in (1, 2, 5):
        R, k = 30, 9
        size = rng.integers(1, k + 1, R)
        inside = np.arange(k)[None, None, :] < size[:, None, None]
        masks = (rng.random((R, H, k)) < rng.uniform(0, 1, (R, 1, 1))) & inside
        masks[:3] = False  # empty sets: Jaccard undefined
        counts = masks.sum(-1)
        iu = np.triu_indices(H, 1)
        inter = (masks[:, :, None] & masks[:, None]).sum(-1)[:, iu[0], iu[1]].copy()
        union = (masks[:, :, None] | masks[:, None]).sum(-1)[:, iu[0], iu[1]].copy()
        got = protocol._h1_overlap(counts, size, inter, union)
        for q in range(R):
            ov = head_overlap(masks[q, :, :size[q]])["summary"]
            for key in ("union_bound", "worst_case", "jaccard"):
                a, b = ov[key], got[key][q]
                assert a == b or (np.isnan(a) and np.isnan(b)), (H, q, key)
        protocol._check_overlap(masks, size, got, head_overlap)
        if H > 1:
            bad = {k: v.copy() for k, v in got.items()}
            bad["jaccard"][(R - 1) // 2] = 0.123  # a row the check samples (the middle one)
            with pytest.raises(RuntimeError, match="jaccard differs"):
                protocol._check_overlap(masks, size, bad, head_overlap)
