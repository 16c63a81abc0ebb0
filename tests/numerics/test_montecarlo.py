"""montecarlo.py: intervals against scipy's own and against coverage by simulation."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from attnbounds.numerics.montecarlo import mean_ci, proportion_ci
from attnbounds.strategies import rng_arrays


@given(rng_arrays((3, 25)), st.sampled_from([0.9, 0.95, 0.99]))
def test_mean_ci_matches_scipy_t_interval(x, c):
    mean, lo, hi = mean_ci(x, confidence=c, axis=1)
    for k in range(3):
        want = stats.t.interval(c, df=24, loc=x[k].mean(), scale=stats.sem(x[k]))
        assert lo[k] == pytest.approx(want[0], rel=1e-12, abs=1e-14)
        assert hi[k] == pytest.approx(want[1], rel=1e-12, abs=1e-14)
        assert mean[k] == pytest.approx(x[k].mean(), rel=1e-14)


def test_mean_ci_covers_true_mean_at_nominal_rate():
    rng = np.random.default_rng(0)
    x = rng.exponential(2.0, size=(4000, 40))  # true mean 2
    _, lo, hi = mean_ci(x, confidence=0.9, axis=1)
    cover = np.mean((lo <= 2.0) & (2.0 <= hi))
    # 4000 intervals: a binomial(4000, ~0.9) share is within ±0.03 far beyond 5 sigma; skew
    # of the exponential costs the t interval about one point of coverage at m = 40.
    assert 0.85 <= cover <= 0.93


def test_mean_ci_axis_none_flattens_and_constant_samples_are_degenerate():
    assert mean_ci([[1.0, 2.0], [3.0, 4.0]])[0] == 2.5
    assert mean_ci([5.0, 5.0, 5.0]) == (5.0, 5.0, 5.0)


def test_proportion_ci_wilson_matches_closed_form_and_cp_matches_scipy():
    k, m = np.array([0, 3, 50, 100]), np.array([100, 100, 100, 100])
    p, lo, hi = proportion_ci(k, m, confidence=0.95)
    res = [stats.binomtest(int(a), int(b)).proportion_ci(0.95, method="wilson") for a, b in zip(k, m)]
    np.testing.assert_allclose(lo, [r.low for r in res], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(hi, [r.high for r in res], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(p, k / m)
    p, lo, hi = proportion_ci(k, m, confidence=0.95, method="clopper-pearson")
    res = [stats.binomtest(int(a), int(b)).proportion_ci(0.95, method="exact") for a, b in zip(k, m)]
    np.testing.assert_allclose(lo, [r.low for r in res], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(hi, [r.high for r in res], rtol=1e-10, atol=1e-14)


def test_clopper_pearson_covers_at_least_nominal():
    rng = np.random.default_rng(1)
    k = rng.binomial(30, 0.2, size=3000)
    _, lo, hi = proportion_ci(k, 30, confidence=0.9, method="clopper-pearson")
    assert np.mean((lo <= 0.2) & (0.2 <= hi)) >= 0.88


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: mean_ci([1.0]), ValueError, "samples: need at least 2"),
        (lambda: mean_ci([]), ValueError, "samples: must not be empty"),
        (lambda: mean_ci([1.0, np.nan]), ValueError, "samples: must be finite"),
        (lambda: mean_ci([1.0, 2.0], confidence=0), ValueError, "confidence:"),
        (lambda: mean_ci([1.0, 2.0], confidence=True), TypeError, "confidence:"),
        (lambda: mean_ci([1.0, 2.0], axis=3), ValueError, "axis:"),
        (lambda: mean_ci([1.0, 2.0], axis=0.5), TypeError, "axis:"),
        (lambda: proportion_ci(11, 10), ValueError, "successes:"),
        (lambda: proportion_ci(-1, 10), ValueError, "successes:"),
        (lambda: proportion_ci(1.5, 10), ValueError, "successes: must be whole"),
        (lambda: proportion_ci(1, 0), ValueError, "trials:"),
        (lambda: proportion_ci(True, 10), TypeError, "successes:"),
        (lambda: proportion_ci(1, 10, method="bayes"), ValueError, "method:"),
        (lambda: proportion_ci(1, 10, confidence=1.0), ValueError, "confidence:"),
    ],
)
def test_error_paths_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
