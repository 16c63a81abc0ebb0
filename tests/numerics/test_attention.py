"""attention.py kernels against naive per-element Python loops, plus stability and errors."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from attnbounds.numerics.attention import (
    context_vector,
    cumulative_distance,
    per_token_distance,
    selected_mass,
    softmax,
    softmax_jacobian,
    subset_cumulative_distance,
    top_n,
    top_n_mask,
)
from attnbounds.strategies import attention_configs, logits, temperatures

# ----------------------------------------------------------------------------- naive references


def naive_softmax(z, T):
    m = max(z)
    e = [math.exp((v - m) / T) for v in z]
    s = sum(e)
    return [v / s for v in e]


def naive_top_n(w, n):
    # Repeatedly take the first index holding the largest remaining weight.
    chosen = []
    for _ in range(n):
        best = None
        for i, v in enumerate(w):
            if i in chosen:
                continue
            if best is None or v > w[best]:
                best = i
        chosen.append(best)
    return chosen


def naive_distances(w, x, selected):
    d = len(x[0])
    s = [sum(w[j] * x[j][k] for j in selected) for k in range(d)]
    D = [math.sqrt(sum((w[i] * x[i][k] - s[k]) ** 2 for k in range(d))) for i in range(len(w))]
    return s, D


# ----------------------------------------------------------------------------- softmax


@given(logits(), temperatures(1e-2, 1e2))
@example(np.zeros(4), 1.0)
@example(np.array([10.0, -10.0, 10.0]), 1e-2)
def test_softmax_matches_naive(z, T):
    got = softmax(z, T)
    want = naive_softmax(list(z), T)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)


def test_softmax_stable_at_tiny_temperature_and_huge_logits():
    z = np.array([1e3, 999.9999, -1e3, 1e3])
    a = softmax(z, T=1e-4)
    assert np.all(np.isfinite(a))
    # The two maxima share the mass; 1e3 − 999.9999 = 1e-4 = T gives a factor e^{-1} to index 1.
    e = math.exp(-(1e3 - 999.9999) / 1e-4)
    np.testing.assert_allclose(a, [1 / (2 + e), e / (2 + e), 0.0, 1 / (2 + e)], rtol=1e-9)


def test_softmax_batched_matches_rowwise():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((3, 4, 5)) * 10
    a = softmax(z, 0.3)
    for idx in np.ndindex(3, 4):
        np.testing.assert_allclose(a[idx], naive_softmax(list(z[idx]), 0.3), rtol=1e-12)


@given(logits(max_size=5), temperatures(1e-1, 1e1))
def test_softmax_jacobian_matches_naive(z, T):
    a = naive_softmax(list(z), T)
    L = len(a)
    want = [[a[i] * ((i == j) - a[j]) / T for j in range(L)] for i in range(L)]
    np.testing.assert_allclose(softmax_jacobian(z, T), want, rtol=1e-12, atol=1e-15)


# ----------------------------------------------------------------------------- top-n and masks


@given(attention_configs())
@example({"logits": np.zeros(4), "T": 1.0, "weights": np.full(4, 0.25), "x": np.eye(4), "n": 2})
def test_top_n_and_mask_match_naive(cfg):
    w, n = cfg["weights"], cfg["n"]
    want = naive_top_n(list(w), n)
    assert top_n(w, n).tolist() == want
    mask = top_n_mask(w, n)
    assert mask.tolist() == [i in want for i in range(len(w))]
    assert float(selected_mass(w, n)) == pytest.approx(sum(w[i] for i in want), abs=1e-15)


def test_tie_breaking_prefers_lower_index():
    w = [0.25, 0.25, 0.25, 0.25]
    assert top_n(w, 2).tolist() == [0, 1]
    assert top_n([0.1, 0.3, 0.3, 0.3], 2).tolist() == [1, 2]
    # batched rows break ties independently
    assert top_n([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]], 1).tolist() == [[0], [1]]


# ----------------------------------------------------------------------------- distances


@given(attention_configs())
def test_distances_match_naive(cfg):
    w, x, n = cfg["weights"], cfg["x"], cfg["n"]
    sel = naive_top_n(list(w), n)
    s, D = naive_distances(list(w), x.tolist(), sel)
    np.testing.assert_allclose(context_vector(w, x, n), s, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(per_token_distance(w, x, n), D, rtol=1e-12, atol=1e-14)
    want = sum(D[i] for i in range(len(w)) if i not in sel)
    assert float(cumulative_distance(w, x, n)) == pytest.approx(want, rel=1e-12, abs=1e-14)


@given(attention_configs(), st.data())
def test_subset_cumulative_distance_matches_naive(cfg, data):
    w, x = cfg["weights"], cfg["x"]
    L = len(w)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=L, max_size=L)))
    sel = [i for i in range(L) if mask[i]]
    _, D = naive_distances(list(w), x.tolist(), sel)
    want = sum(D[i] for i in range(L) if i not in sel)
    assert float(subset_cumulative_distance(w, x, mask)) == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_subset_cumulative_distance_broadcasts_masks():
    rng = np.random.default_rng(1)
    w = softmax(rng.standard_normal(5))
    x = rng.standard_normal((5, 3))
    masks = rng.random((7, 5)) < 0.5
    got = subset_cumulative_distance(w, x, masks)
    assert got.shape == (7,)
    for k in range(7):
        assert got[k] == pytest.approx(float(subset_cumulative_distance(w, x, masks[k])), rel=1e-14)


def test_batched_distances_match_rowwise():
    rng = np.random.default_rng(2)
    w = softmax(rng.standard_normal((4, 6)) * 3)
    x = rng.standard_normal((4, 6, 2))
    got = cumulative_distance(w, x, 2)
    for b in range(4):
        assert got[b] == pytest.approx(float(cumulative_distance(w[b], x[b], 2)), rel=1e-14)


# ----------------------------------------------------------------------------- error paths


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: softmax([np.nan, 0.0]), ValueError, "logits: must be finite"),
        (lambda: softmax([np.inf, 0.0]), ValueError, "logits: must be finite"),
        (lambda: softmax([]), ValueError, "logits: must not be empty"),
        (lambda: softmax(3.0), ValueError, "logits: expected at least 1 dimension"),
        (lambda: softmax(["a"]), TypeError, "logits: expected an array"),
        (lambda: softmax([0.0], T=0), ValueError, "T: must be > 0"),
        (lambda: softmax([0.0], T=-1.0), ValueError, "T: must be > 0"),
        (lambda: softmax([0.0], T=float("nan")), ValueError, "T: must be > 0"),
        (lambda: softmax_jacobian([0.0, 1.0], T=0.0), ValueError, "T: must be > 0"),
        (lambda: top_n([0.5, 0.5], 2), ValueError, "n: must satisfy 1 <= n < L"),
        (lambda: top_n([0.5, 0.5], 0), ValueError, "n: must satisfy 1 <= n < L"),
        (lambda: top_n([0.5, 0.5], 1.0), TypeError, "n: must be an integer"),
        (lambda: top_n([0.5, 0.5], True), TypeError, "n: must be an integer"),
        (lambda: top_n_mask([0.5, np.nan], 1), ValueError, "weights: must be finite"),
        (lambda: selected_mass([0.5, 0.6], 1), ValueError, "weights: each row must sum to 1"),
        (lambda: selected_mass([1.5, -0.5], 1), ValueError, "weights: must be non-negative"),
        (lambda: context_vector([0.5, 0.5], np.zeros((3, 2)), 1), ValueError, "x: shape"),
        (lambda: context_vector([0.5, 0.5], np.zeros(2), 1), ValueError, "x: expected at least 2"),
        (lambda: per_token_distance([0.5, 0.5], [[0.0], [np.inf]], 1), ValueError, "x: must be finite"),
        (lambda: cumulative_distance([0.5, 0.5], np.zeros((2, 1)), 2), ValueError, "n: must satisfy"),
        (lambda: cumulative_distance(np.full((2, 2), 0.5), np.zeros((3, 2, 1)), 1), ValueError, "x: batch shape"),
        (lambda: subset_cumulative_distance([0.5, 0.5], np.zeros((2, 1)), [True]), ValueError, "mask: last axis"),
    ],
)
def test_error_paths_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
