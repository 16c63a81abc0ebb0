"""E3's kept state: the per-head sums per L, the seed from the main pass, and the kept logits
recomputed from queries and keys (exactly the captured logits, or a copy)."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds.empirical import protocol


class _Config:
    class settings:
        ks_alpha = 0.01


def _causal_logits(rng, H, L, dh, scaling=0.125):
    import torch

    q = rng.standard_normal((H, L, dh)).astype(np.float32)
    k = rng.standard_normal((H, L, dh)).astype(np.float32)
    logits = (torch.matmul(torch.from_numpy(q), torch.from_numpy(k).transpose(-1, -2)) * scaling).numpy()
    logits[:, np.triu(np.ones((L, L), dtype=bool), 1)] = -np.inf
    return logits, q, k, scaling


def _running(v, L):
    """The sum of the finite rows t <= L, added in row order (as the search keeps it)."""
    return np.cumsum(np.where(np.isfinite(v), v, 0.0), -1)[:, L - 1]


def test_search_keeps_sums_per_length_not_rows():
    """The kept sums at each L equal the sums of the rows t <= L (no rows are kept)."""
    rng = np.random.default_rng(0)
    ks = protocol._KSSearch((32, 64, 128), _Config, prefix=True, window=0)
    d, m = rng.random((4, 128)), rng.random((4, 128))
    d[:, :6] = np.nan  # skipped rows (t <= N)
    m[:, :6] = np.nan
    ks.seed(0, 5, d, m)
    got = ks.rows[5][0]
    assert sorted(got) == [32, 64, 128]
    for L in (32, 64, 128):
        sd, cd, sm, cm = got[L]
        np.testing.assert_array_equal(sd, _running(d, L))
        np.testing.assert_array_equal(sm, _running(m, L))
        np.testing.assert_allclose(sd, np.nansum(d[:, :L], -1), rtol=1e-14)  # the rows t <= L, whatever order
        np.testing.assert_allclose(sm, np.nansum(m[:, :L], -1), rtol=1e-14)
        np.testing.assert_array_equal(cd, np.isfinite(d[:, :L]).sum(-1))
        np.testing.assert_array_equal(cm, np.isfinite(m[:, :L]).sum(-1))
    assert all(isinstance(v, np.ndarray) and v.shape == (4,) for L in got for v in got[L])


def test_search_is_seeded_by_the_windows_own_rows_only():
    """A tiling window's rows (S = 1, shorter than the window) must not replace the window's
    prefix rows: they belong to the tiling windows' sums."""
    rng = np.random.default_rng(1)
    ks = protocol._KSSearch((64, 128), _Config, prefix=True, window=0)
    main_d, main_m = rng.random((4, 128)), rng.random((4, 128))
    tile_d, tile_m = rng.random((4, 64)) + 10.0, rng.random((4, 64)) + 10.0
    ks.seed(0, 5, main_d, main_m)
    ks.seed(0, 5, tile_d, tile_m)
    np.testing.assert_array_equal(ks.rows[5][0][64][0], _running(main_d, 64))
    np.testing.assert_allclose(ks.rows[5][0][64][0], main_d[:, :64].sum(-1), rtol=1e-14)
    fresh = protocol._KSSearch((64, 128), _Config, prefix=True, window=0)
    fresh.seed(0, 5, tile_d, tile_m)
    assert 5 not in fresh.rows


def test_kept_logits_from_queries_and_keys_equal_the_copy():
    """With (q, k, scaling) a kept layer recomputes each block; every block equals the copy
    kept otherwise, bit for bit (including the -inf of the hidden keys)."""
    rng = np.random.default_rng(2)
    logits, q, k, scaling = _causal_logits(rng, H=3, L=300, dh=16)
    by_qk = protocol._Logits(logits, True, keep=True, qk=(q, k, scaling))
    copied = protocol._Logits(logits, True, keep=True)
    assert by_qk.qk is not None and by_qk.parts is None
    assert copied.qk is None and copied.parts is not None
    for r0, r1, K in protocol._blocks(300, True):
        a, b = by_qk.block(r0, r1, K), copied.block(r0, r1, K)
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("change", ["scaling", "mask", "additive"])
def test_kept_logits_fall_back_to_a_copy_when_the_recomputation_differs(change):
    """A recomputation that differs anywhere (another scaling, a mask that is not one range per
    row, an additive bias in the logits) keeps a copy of the captured logits instead."""
    rng = np.random.default_rng(3)
    logits, q, k, scaling = _causal_logits(rng, H=2, L=140, dh=8)
    if change == "scaling":
        scaling = scaling * (1 + 1e-6)
    elif change == "mask":
        logits[:, 100, 3] = -np.inf  # a hole: the row's visible keys are not one range
    else:
        logits[:, 130, 7] += 1e-3
    lg = protocol._Logits(logits, True, keep=True, qk=(q, k, scaling))
    assert lg.qk is None and lg.parts is not None
    for r0, r1, K in protocol._blocks(140, True):
        np.testing.assert_array_equal(lg.block(r0, r1, K), logits[:, r0:r1, :K])


def test_block_ranges_equal_the_masked_block_on_each_rows_keys():
    """block_ranges (the row engine's input) gives each row's visible keys as one range and, on
    them, the same logits as block, for a kept layer that recomputes from (q, k) (unmasked
    outside the range) and for a copy (masked)."""
    rng = np.random.default_rng(4)
    logits, q, k, scaling = _causal_logits(rng, H=3, L=300, dh=16)
    for lg in (protocol._Logits(logits, True, keep=True, qk=(q, k, scaling)), protocol._Logits(logits, True, keep=True)):
        for r0, r1, K in protocol._blocks(300, True):
            got, (starts, ends) = lg.block_ranges(r0, r1, K)
            ref = lg.block(r0, r1, K)
            np.testing.assert_array_equal(starts, 0)
            np.testing.assert_array_equal(ends, np.arange(r0, r1))  # a causal row r sees keys 0..r
            for i in range(r1 - r0):
                np.testing.assert_array_equal(got[:, i, :ends[i] + 1], ref[:, i, :ends[i] + 1])
                assert np.isinf(ref[:, i, ends[i] + 1:]).all()


def test_a_limited_seed_serves_only_the_lengths_it_was_computed_for():
    """An N the main pass computed on the rows r < 64 only (a scan point of L = 64) seeds L ≤ 64
    and not L = 128, which E3 must then compute itself; the tiling windows' rows go to their own
    sums, per layer in order, and a layer missed leaves (L, N) to E3."""
    rng = np.random.default_rng(5)
    ks = protocol._KSSearch((32, 64, 128), _Config, prefix=True, window=0)
    d, m = rng.random((4, 128)), rng.random((4, 128))
    d[:, 64:] = m[:, 64:] = np.nan  # the rows beyond the limit were not computed
    ks.seed(0, 10, d, m, upto=64)
    assert sorted(ks.rows[10][0]) == [32, 64]
    assert not ks._has(10, 128, 1) and ks._has(10, 64, 1)
    for y in range(2):
        ks.seed_tiles(y, 10, 64, rng.random((8, 64)), rng.random((8, 64)), S=2)
    assert len(ks.extra[(64, 10)]) == 2 and ks.extra[(64, 10)][0][0].shape == (4,)  # 2 windows × 4 heads folded
    ks.seed_tiles(1, 20, 64, rng.random((8, 64)), rng.random((8, 64)), S=2)  # layer 0 missed
    assert (64, 20) not in ks.extra
