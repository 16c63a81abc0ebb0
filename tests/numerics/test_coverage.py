"""attnbounds.numerics.coverage against naive set arithmetic."""

import itertools

import numpy as np
import pytest

from attnbounds.numerics import coverage as cv

RNG = np.random.default_rng(12)


def naive(masks, universe=None):
    H, N = masks.shape
    U = set(range(N)) if universe is None else {i for i in range(N) if universe[i]}
    sets = [{i for i in U if masks[h, i]} for h in range(H)]
    union = set().union(*sets)
    p = [len(s) / len(U) for s in sets]
    return len(union) / len(U), p, sets


def test_coverage_and_fractions_match_set_arithmetic():
    for _ in range(200):
        H, N = int(RNG.integers(1, 6)), int(RNG.integers(1, 10))
        m = RNG.uniform(size=(H, N)) < RNG.uniform()
        u = RNG.uniform(size=N) < 0.7
        u[0] = True
        c, p, _ = naive(m, u)
        assert float(cv.coverage(m, u)) == pytest.approx(c, abs=1e-15)
        np.testing.assert_allclose(cv.head_fractions(m, u), p, atol=1e-15)
        refs = cv.coverage_references(np.array(p))
        assert refs["worst_case"] <= c + 1e-15 <= refs["union_bound"] + 2e-15


def test_batched_rows_equal_single_rows():
    m = RNG.uniform(size=(7, 3, 5)) < 0.4
    batched = cv.coverage(m)
    for i in range(7):
        assert batched[i] == cv.coverage(m[i])


def test_expected_coverage_matches_monte_carlo_and_closed_form():
    p = np.array([0.3, 0.7, 0.5])
    exact = float(cv.expected_coverage_independent(p, 3))
    assert exact == pytest.approx(1 - np.prod(1 - p), rel=1e-12)
    draws = RNG.uniform(size=(200_000, 3, 3)) < p[None, :, None]
    mc = draws.any(axis=1).mean()
    assert abs(mc - exact) < 4 * np.sqrt(exact * (1 - exact) / (200_000 * 3)) + 1e-3


def test_extremes_identical_and_disjoint_heads_attain_the_bounds():
    same = np.array([[1, 1, 0, 0]] * 3, dtype=bool)
    out = cv.head_overlap(same)["summary"]
    assert out["coverage"] == out["worst_case"] == 0.5 and out["jaccard"] == 1.0
    disjoint = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=bool)
    out = cv.head_overlap(disjoint)["summary"]
    assert out["coverage"] == out["union_bound"] == 0.75 and out["jaccard"] == 0.0
    assert out["excess_over_independent"] > 0  # disjoint heads beat independence


def test_probe_on_positions_averages_rows_and_handles_empty_sets():
    m = np.zeros((4, 2, 3), dtype=bool)  # 4 positions, 2 heads, nobody separates anything
    out = cv.head_overlap(m)
    assert out["summary"]["coverage"] == 0.0 and np.isnan(out["summary"]["jaccard"])
    assert out["summary"]["rows"] == 4 and out["p"].shape == (4, 2)
    one = cv.head_overlap(np.ones((1, 3), dtype=bool))
    assert np.isnan(one["summary"]["jaccard"]) and one["summary"]["coverage"] == 1.0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: cv.coverage(np.array([1, 0])), "masks: expected shape"),
        (lambda: cv.coverage(np.array([[2, 0]])), "masks: must be boolean"),
        (lambda: cv.coverage(np.ones((2, 3), bool), universe=np.zeros(3, bool)), "universe: must contain"),
        (lambda: cv.coverage(np.ones((2, 3), bool), universe=np.ones(4, bool)), "universe: shape"),
        (lambda: cv.coverage_references([1.5]), "p: every fraction"),
        (lambda: cv.expected_coverage_independent([0.5] * 4, 4), "H\\*n <= 14"),
        (lambda: cv.expected_coverage_independent([0.5], 0), "n: must be"),
    ],
)
def test_errors_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_enumeration_is_exact_for_degenerate_probabilities():
    for p in itertools.product((0.0, 1.0), repeat=3):
        assert float(cv.expected_coverage_independent(np.array(p), 2)) == float(max(p))
