"""selection.py: exact enumeration vs a naive loop, Monte Carlo coverage, the main term."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings

from attnbounds.numerics.attention import softmax
from attnbounds.numerics.selection import (
    random_selection_expectation,
    random_selection_main_term,
    random_subset_masks,
    separability,
    subset_masks,
)
from attnbounds.strategies import attention_configs


def naive_d_tilde(w, x, S):
    d = len(x[0])
    s = [sum(w[j] * x[j][k] for j in S) for k in range(d)]
    return sum(
        math.sqrt(sum((w[i] * x[i][k] - s[k]) ** 2 for k in range(d))) for i in range(len(w)) if i not in S
    )


def naive_expectation(w, x, n):
    subsets = list(itertools.combinations(range(len(w)), n))
    return sum(naive_d_tilde(w, x, S) for S in subsets) / len(subsets)


def naive_main_term(w, x, n):
    L, d = len(w), len(x[0])
    c = n / (L - 1)
    tot = [sum(w[j] * x[j][k] for j in range(L)) for k in range(d)]
    inner = sum(
        math.sqrt(sum(((1 + c) * w[i] * x[i][k] - c * tot[k]) ** 2 for k in range(d))) for i in range(L)
    )
    return (L - n) / L * inner


@settings(max_examples=60)
@given(attention_configs(max_size=7))
@example({"logits": np.zeros(4), "T": 1.0, "weights": np.full(4, 0.25), "x": np.eye(4), "n": 2})
def test_exact_matches_naive_enumeration_and_main_term(cfg):
    w, x, n = cfg["weights"], cfg["x"], cfg["n"]
    wl, xl = list(w), x.tolist()
    exact = random_selection_expectation(w, x, n, method="exact")
    assert exact.samples == math.comb(len(w), n)
    assert exact.value == pytest.approx(naive_expectation(wl, xl, n), rel=1e-12, abs=1e-14)
    main = random_selection_expectation(w, x, n, method="main")
    assert main.value == pytest.approx(naive_main_term(wl, xl, n), rel=1e-12, abs=1e-14)
    # Jensen: E‖Y‖ ≥ ‖EY‖ termwise, so the main term never exceeds the exact expectation.
    assert main.value <= exact.value * (1 + 1e-12) + 1e-14


def test_subset_masks_are_all_distinct_n_subsets():
    m = subset_masks(6, 3)
    assert m.shape == (20, 6)
    assert np.all(m.sum(axis=1) == 3)
    assert len({tuple(r) for r in m.tolist()}) == 20


def test_exact_guard_refuses_too_many_subsets():
    w = np.full(30, 1 / 30)
    with pytest.raises(ValueError, match="max_subsets: C\\(30, 15\\)"):
        random_selection_expectation(w, np.eye(30), 15, method="exact")


def test_random_subsets_are_uniform():
    # Each index lies in S with probability n/L; a 5-sigma band on 20000 draws.
    m = random_subset_masks(np.random.default_rng(0), 20000, 6, 2)
    freq = m.mean(axis=0)
    sigma = math.sqrt((1 / 3) * (2 / 3) / 20000)
    assert np.all(np.abs(freq - 1 / 3) < 5 * sigma)
    assert np.all(m.sum(axis=1) == 2)


def test_mc_interval_covers_exact():
    rng = np.random.default_rng(3)
    hits = 0
    trials = 20
    for t in range(trials):
        L = 8
        w = softmax(rng.standard_normal(L) * 2)
        x = rng.standard_normal((L, 3))
        exact = random_selection_expectation(w, x, 3).value
        mc = random_selection_expectation(w, x, 3, method="mc", samples=3000, seed=t, confidence=0.99)
        assert mc.ci_low <= mc.value <= mc.ci_high
        hits += mc.ci_low <= exact <= mc.ci_high
    # With 99% intervals, missing more than 3 of 20 has probability < 1e-3.
    assert hits >= trials - 3


def test_batched_methods_match_rowwise():
    rng = np.random.default_rng(4)
    w = softmax(rng.standard_normal((3, 6)))
    x = rng.standard_normal((3, 6, 2))
    for method in ("exact", "main"):
        got = random_selection_expectation(w, x, 2, method=method).value
        assert got.shape == (3,)
        for b in range(3):
            assert got[b] == pytest.approx(random_selection_expectation(w[b], x[b], 2, method=method).value, rel=1e-13)
    mc = random_selection_expectation(w, x, 2, method="mc", samples=4000, seed=1)
    exact = random_selection_expectation(w, x, 2).value
    assert mc.value.shape == (3,)
    assert np.all((mc.ci_low <= exact) & (exact <= mc.ci_high))


def test_exact_chunking_matches_single_pass(monkeypatch):
    import attnbounds.numerics.selection as sel

    rng = np.random.default_rng(5)
    w = softmax(rng.standard_normal(9))
    x = rng.standard_normal((9, 2))
    full = sel.random_selection_expectation(w, x, 4).value
    monkeypatch.setattr(sel, "_CHUNK_ELEMENTS", 50)  # forces many chunks
    assert sel.random_selection_expectation(w, x, 4).value == pytest.approx(full, rel=1e-13)


def test_main_term_known_value():
    # w = (1/2, 1/2), x = (1, −1), n = 1: (1/2)·(‖2·(1/2)‖ + ‖2·(−1/2)‖) = 1, and the exact
    # expectation is ‖α_2 x_2 − α_1 x_1‖ = 1 for either subset: ε = 0 here.
    w, x = [0.5, 0.5], [[1.0], [-1.0]]
    assert float(random_selection_main_term(w, x, 1)) == pytest.approx(1.0)
    assert random_selection_expectation(w, x, 1).value == pytest.approx(1.0)


@given(attention_configs())
@example(
    cfg={
        "logits": np.array([-10.0, -10, -10, -10, 0, 0]),
        "T": 1.0,
        "weights": softmax(np.array([-10.0, -10, -10, -10, 0, 0])),
        "x": np.array([[1.0], [-1], [1], [-1], [1], [-1]]),
        "n": 3,
    }
)
def test_separability_matches_naive(cfg):
    w, x, n = cfg["weights"], cfg["x"], cfg["n"]
    L = len(w)
    order = sorted(range(L), key=lambda i: (-w[i], i))[:n]
    d = x.shape[1]
    s = [sum(w[j] * x[j][k] for j in order) for k in range(d)]
    D = [math.sqrt(sum((w[i] * x[i][k] - s[k]) ** 2 for k in range(d))) for i in range(L)]
    for r in (0.0, 0.1, 0.5, 2.0):
        # D_i is summed in another order here than in the kernel, so a D_i within rounding of
        # r may fall on either side (ties in w put D_i = 0 exactly at r = 0): bracket the count
        tol = 1e-12 * (1 + max(D))
        at_least = sum(D[i] <= r - tol for i in order) / n
        at_most = sum(D[i] <= r + tol for i in order) / n
        got = separability(w, x, n, r)
        assert at_least - 1e-15 <= got <= at_most + 1e-15, (r, got, at_least, at_most)


def test_separability_batched_radius():
    w = np.array([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2]])
    x = np.stack([np.eye(3), np.eye(3)])
    np.testing.assert_allclose(separability(w, x, 2, np.array([0.4, 0.1])), [0.5, 0.0])
    # radii with an extra leading axis give the curve N_s/N against r for every instance
    curve = separability(w, x, 2, np.array([[0.1], [0.4], [1.0]]))
    np.testing.assert_allclose(curve, [[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]])


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 1, method="bad"), ValueError, "method:"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 2), ValueError, "n: must satisfy"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 0), ValueError, "n: must satisfy"),
        (lambda: random_selection_expectation([0.5, 0.6], np.eye(2), 1), ValueError, "weights: each row"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(3), 1), ValueError, "x: shape"),
        (lambda: random_selection_expectation([0.5, 0.5], [[np.nan], [0]], 1), ValueError, "x: must be finite"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 1, method="mc", samples=1), ValueError, "samples:"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 1, method="mc", confidence=1.5), ValueError, "confidence:"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 1, method="mc", seed="x"), TypeError, "seed:"),
        (lambda: random_selection_expectation([0.5, 0.5], np.eye(2), 1, max_subsets=0), ValueError, "max_subsets:"),
        (lambda: separability([0.5, 0.5], np.eye(2), 1, -0.1), ValueError, "r: must be finite"),
        (lambda: separability([0.5, 0.5], np.eye(2), 1, np.nan), ValueError, "r: must be finite"),
        (lambda: separability([0.5, 0.5], np.eye(2), 1, "a"), (TypeError, ValueError), "r"),
        (lambda: separability(np.full((2, 2), 0.5), np.ones((2, 2, 1)), 1, [0.1, 0.2, 0.3]), ValueError, "r: shape"),
        (lambda: subset_masks(4, 4), ValueError, "n: must satisfy"),
        (lambda: random_subset_masks(0, 0, 4, 2), ValueError, "samples:"),
    ],
)
def test_error_paths_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_distinguishable_mask_against_a_naive_loop():
    from attnbounds.numerics.selection import distinguishable_mask

    rng = np.random.default_rng(21)
    for _ in range(50):
        L, n = int(rng.integers(2, 7)), 0
        n = int(rng.integers(1, L))
        w = rng.dirichlet(np.ones(L))
        x = rng.normal(size=(L, 3))
        r = float(rng.uniform(0, 1.5))
        top = sorted(range(L), key=lambda i: (-w[i], i))[:n]
        s = sum(w[j] * x[j] for j in top)
        D = [np.linalg.norm(w[i] * x[i] - s) for i in range(L)]
        clear = all(D[j] > r for j in range(L) if j not in top)
        expected = [clear and i in top and D[i] <= r for i in range(L)]
        assert distinguishable_mask(w, x, n, r).tolist() == expected
