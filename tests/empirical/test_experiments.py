"""Metrics of E1–E5 (attnbounds.empirical.experiments) against naive per-head references."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.distance import pdist

from attnbounds.empirical import experiments as ex
from attnbounds.numerics import attention as att
from attnbounds.numerics import selection


def _batch(seed, shape=(2, 3), L=24, d=5, scale=2.0, sphere=True):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=shape + (L,)) * scale
    w = att.softmax(logits)
    x = rng.normal(size=shape + (L, d))
    return logits, w, (ex.to_sphere(x) if sphere else x)


@pytest.mark.parametrize("sphere", [True, False])
def test_distance_table_matches_per_head_loop(sphere):
    _, w, x = _batch(0, sphere=sphere)
    w[0, 0] = 1.0 / w.shape[-1]  # uniform row: every weight tied (ties to the lower index)
    ns = [1, 3, 10, 23]
    tab = ex.distance_table(w, x, ns)
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            for k, n in enumerate(ns):
                mask = att.top_n_mask(w[i, j], n)
                assert np.isclose(tab["d_tilde"][i, j, k], att.cumulative_distance(w[i, j], x[i, j], n), rtol=1e-10)
                assert np.isclose(tab["selected_mass"][i, j, k], att.selected_mass(w[i, j], n), rtol=1e-12)
                assert np.allclose(tab["per_token"][i, j, k], att.per_token_distance(w[i, j], x[i, j], n), atol=1e-6)  # sqrt of a rounding-level square
                assert np.array_equal(tab["selected"][i, j, k], mask)
                norms = np.linalg.norm(x[i, j], axis=-1)
                d1, R = norms[~mask].max(), norms[mask].max()
                mass = w[i, j][mask].sum()
                recon = (1 - mass) * d1 + R * mass * (w.shape[-1] - n)
                assert np.isclose(tab["bound_reconstructed"][i, j, k], recon)
                assert np.isclose(tab["bound_transcribed"][i, j, k], recon - (1 - mass))


@pytest.mark.parametrize("seed", range(5))
def test_reconstructed_bound_holds(seed):
    _, w, x = _batch(seed, scale=4.0, sphere=bool(seed % 2))
    tab = ex.distance_table(w, x, [1, 2, 5, 20])
    assert np.all(tab["d_tilde"] <= tab["bound_reconstructed"] * (1 + 1e-12))


def test_transcribed_bound_can_fail():
    # selected token along e, the others along −e: D_i = α_i + ᾱ_N, and the reconstructed
    # bound is attained; the transcription's extra − (1 − ᾱ_N) then fails
    w = np.array([0.4, 0.2, 0.2, 0.2])
    x = np.array([[1.0, 0], [-1, 0], [-1, 0], [-1, 0]])
    tab = ex.distance_table(w, x, [1])
    assert np.isclose(tab["d_tilde"][0], 1.8)
    assert np.isclose(tab["bound_reconstructed"][0], 1.8)  # sharp
    assert np.isclose(tab["bound_transcribed"][0], 1.2)
    assert tab["d_tilde"][0] > tab["bound_transcribed"][0]


def test_random_expectation_main_matches_selection_module():
    _, w, x = _batch(1)
    ns = [1, 4, 12]
    got = ex.random_expectation_main(w, x, ns)
    for k, n in enumerate(ns):
        assert np.allclose(got[..., k], selection.random_selection_main_term(w, x, n), rtol=1e-10)


def test_random_distance_mc_matches_naive_and_exact():
    _, w, x = _batch(2, shape=(2,), L=8, d=3)
    ns = [2, 5]
    samples = 64
    got = ex.random_distance_mc(w, x, ns, np.random.default_rng(7), samples=samples, confidence=0.95, chunk=5)
    rng = np.random.default_rng(7)  # the same draws, one block per N, in order
    for k, n in enumerate(ns):
        masks = ex.random_subsets(rng, 8, n, samples)
        vals = np.stack([att.subset_cumulative_distance(w, x, m[None].repeat(2, 0)) for m in masks], -1)
        mu = vals.mean(-1)
        half = stats.t.ppf(0.975, samples - 1) * vals.std(-1, ddof=1) / np.sqrt(samples)
        assert np.allclose(got["mean"][..., k], mu, rtol=1e-5)
        assert np.allclose(got["ci_high"][..., k], mu + half, rtol=1e-5)
        exact = selection.random_selection_expectation(w, x, n, method="exact").value
        big = ex.random_distance_mc(w, x, [n], np.random.default_rng(k), samples=4000, confidence=0.999)
        assert np.all((big["ci_low"][..., 0] <= exact) & (exact <= big["ci_high"][..., 0]))


def test_random_subsets_are_uniform_size_n():
    m = ex.random_subsets(np.random.default_rng(0), 12, 5, 3000)
    assert np.all(m.sum(1) == 5)
    freq = m.mean(0)  # each token is selected with probability n/L
    assert np.allclose(freq, 5 / 12, atol=0.04)


@pytest.mark.parametrize("n", [1, 3, 20, 60, 200])
def test_ks_pvalue_equal_matches_scipy_exact(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        a, b = rng.normal(size=n), rng.normal(0.3, size=n)
        r = stats.ks_2samp(a, b, method="exact")
        k = int(round(r.statistic * n))
        assert np.isclose(ex.ks_pvalue_equal(n, k), r.pvalue, rtol=1e-6, atol=1e-12)


def test_ks_two_sample_with_padding_and_ties_matches_scipy():
    rng = np.random.default_rng(3)
    rows_a, rows_b, ref = [], [], []
    for n in (5, 17, 30):
        a = rng.integers(0, 6, n).astype(float)  # many ties
        b = rng.integers(1, 7, n).astype(float)
        pad = np.full(30 - n, np.inf)
        rows_a.append(np.concatenate([a, pad]))
        rows_b.append(np.concatenate([b, pad]))
        ref.append(stats.ks_2samp(a, b))
    stat, p = ex.ks_two_sample(np.array(rows_a), np.array(rows_b))
    assert np.allclose(stat, [r.statistic for r in ref])
    assert np.allclose(p, [r.pvalue for r in ref], rtol=1e-6)


def test_critical_n_matches_naive_scipy_loop():
    _, w, x = _batch(4, shape=(3,), L=30, d=4, scale=1.0)
    grid = ex.critical_n_grid(30, 0)
    res = ex.critical_n(w, x, grid, np.random.default_rng(11), alpha=0.01, chunk=7)
    rng = np.random.default_rng(11)
    rand = [ex.random_subsets(rng, 30, int(n), 1)[0] for n in grid]
    for b in range(3):
        found = np.nan
        for g, n in enumerate(grid):
            top = att.top_n_mask(w[b], int(n))
            D_top = att.per_token_distance(w[b], x[b], int(n))[~top]
            s = (w[b][rand[g]][:, None] * x[b][rand[g]]).sum(0)
            D_rand = np.linalg.norm(w[b][:, None] * x[b] - s, axis=-1)[~rand[g]]
            p = stats.ks_2samp(D_top, D_rand).pvalue
            assert np.isclose(res["pvalue"][b, g], p, rtol=1e-6, atol=1e-12)
            if np.isnan(found) and p >= 0.01:
                found = n
        assert res["n_crit"][b] == found


def test_critical_n_grid():
    assert ex.critical_n_grid(5, 0).tolist() == [1, 2, 3, 4]
    g = ex.critical_n_grid(1024, 40)
    assert g[0] == 1 and g[-1] == 1023 and np.all(np.diff(g) > 0)


def test_min_pairwise_distance_matches_pdist():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3, 20, 4))
    x[0, 0, 7] = x[0, 0, 2]  # a duplicate is skipped
    got = ex.min_pairwise_distance(x, [2, 9, 20])
    for i in range(2):
        for j in range(3):
            for k, L in enumerate([2, 9, 20]):
                dist = pdist(x[i, j, :L])
                assert np.isclose(got[i, j, k], dist[dist > 1e-4].min())


def test_separability_fraction_matches_selection_module():
    _, w, x = _batch(6)
    ns = [1, 4, 10]
    tab = ex.distance_table(w, x, ns)
    r = np.array([0.05, 0.2, 1.0])
    got = ex.separability_fraction(tab["per_token"], tab["selected"], ns, np.broadcast_to(r, w.shape[:-1] + (3,)))
    for k, n in enumerate(ns):
        for m, rr in enumerate(r):
            assert np.allclose(got[..., k, m], selection.separability(w, x, n, rr))


def _fd_jacobian(l, T, eps):
    a = att.softmax(l, T)
    cols = [(att.softmax(l + eps * e, T) - a) / eps for e in np.eye(l.size)]
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("T", [1e-3, 3e-2, 1.0, 10.0])
@pytest.mark.parametrize("eps", [1e-3, 1e-1, 10.0])
def test_fd_jacobian_norm_matches_explicit_fd(T, eps):
    rng = np.random.default_rng(8)
    l = rng.normal(size=(3, 12)) * 0.05
    l[1, 3] = l[1, 5]  # a tie
    got = ex.fd_jacobian_norm(l, [T], [eps])[..., 0, 0]
    want = [np.linalg.norm(_fd_jacobian(row, T, eps), 2) for row in l]
    assert np.allclose(got, want, rtol=1e-6, atol=1e-300)


def test_softmax_jacobian_norm_matches_svd_and_half_over_T():
    rng = np.random.default_rng(9)
    l = rng.normal(size=(4, 10))
    T = np.array([1e-2, 0.3, 1.0, 5.0])
    got = ex.softmax_jacobian_norm(l, T)
    for i in range(4):
        for t, TT in enumerate(T):
            assert np.isclose(got[i, t], np.linalg.norm(att.softmax_jacobian(l[i], TT), 2), rtol=1e-7)
    assert np.all(got <= 1 / (2 * T) * (1 + 1e-9))
    # the supremum 1/(2T) is attained by two tied logits far above the rest
    assert np.isclose(ex.softmax_jacobian_norm([5.0, 5.0, -50.0], [0.5])[0], 1.0)


def test_loglog_slope():
    T = np.logspace(-3, 1, 9)
    g = np.stack([3 / T, 2 * T**2, np.where(T < 1e-2, 0.0, 1 / T)])
    s = ex.loglog_slope(T, g, below=0.1)
    assert np.allclose(s, [-1, 2, -1])


def test_seeded_rng_and_validation():
    assert ex.seeded_rng(3, 1, 2).integers(1 << 30) == ex.seeded_rng(3, 1, 2).integers(1 << 30)
    assert ex.seeded_rng(3, 1, 2).integers(1 << 30) != ex.seeded_rng(3, 2, 1).integers(1 << 30)
    with pytest.raises(ValueError, match="seed"):
        ex.seeded_rng(-1)
    with pytest.raises(ValueError, match="top_n"):
        ex.distance_table(np.full(4, 0.25), np.eye(4), [4])
    with pytest.raises(ValueError, match="x"):
        ex.distance_table(np.full(4, 0.25), np.eye(3), [1])
    with pytest.raises(ValueError, match="weights"):
        ex.distance_table(np.full(4, 0.3), np.eye(4), [1])
    with pytest.raises(ValueError, match="mc_samples"):
        ex.ExperimentSettings(mc_samples=1)
    with pytest.raises(ValueError, match="ks_grid"):
        ex.ExperimentSettings(ks_grid=1)


def test_vectors_shared_by_heads_broadcast():
    # hidden states are (Y, 1, L, d): every kernel must equal the explicit per-head copy
    rng = np.random.default_rng(12)
    w = att.softmax(rng.normal(size=(3, 4, 40)))
    h = ex.to_sphere(rng.normal(size=(3, 1, 40, 7)))
    hb = np.broadcast_to(h, (3, 4, 40, 7)).copy()
    kernels = [
        lambda x: ex.distance_table(w, x, [1, 5])["d_tilde"],
        lambda x: ex.random_expectation_main(w, x, [1, 5]),
        lambda x: ex.random_distance_mc(w, x, [1, 5], np.random.default_rng(1), samples=8)["mean"],
        lambda x: ex.critical_n(w, x, ex.critical_n_grid(40, 0), np.random.default_rng(2))["pvalue"],
    ]
    for kernel in kernels:
        assert np.allclose(kernel(h), kernel(hb))


def test_random_distance_mc_many_members_path():
    # N > 32 takes the masked-matmul path instead of the gather: same numbers as the loop
    _, w, x = _batch(13, shape=(3,), L=60, d=4)
    got = ex.random_distance_mc(w, x, [3, 40], np.random.default_rng(5), samples=6)
    rng = np.random.default_rng(5)
    for k, n in enumerate([3, 40]):
        masks = ex.random_subsets(rng, 60, n, 6)
        vals = np.stack([att.subset_cumulative_distance(w, x, np.broadcast_to(m, w.shape)) for m in masks], -1)
        assert np.allclose(got["mean"][:, k], vals.mean(-1), rtol=1e-5)
