"""Kernel edges (issue 13): an out-of-range axis and an overflow are errors, never NaN."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import softmax as scipy_softmax

from attnbounds.numerics.attention import softmax


@pytest.mark.parametrize("axis", [5, 2, -3])
def test_softmax_axis_out_of_range_on_2d(axis):
    with pytest.raises(ValueError, match=r"axis: must be an integer in \[-2, 1\]"):
        softmax(np.zeros((2, 3)), axis=axis)


@pytest.mark.parametrize("logits, T", [([1e308, 0.0], 1e-4), ([-1e308, -1e308], 1e-4), ([[1e300, 1.0]], 1e-10)])
def test_softmax_overflow_is_an_error_not_nan(logits, T):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning either: one clear error
        with pytest.raises(ValueError, match="logits / T: overflows float64"):
            softmax(logits, T=T)


def test_softmax_large_finite_logits_still_match_scipy():
    z = np.array([[1e3, -1e3, 0.0, 999.9], [1e5, 1e5 - 1, 0.0, -1e5]])
    for T in (1e-4, 1.0):
        assert np.allclose(softmax(z, T=T), scipy_softmax(z / T, axis=-1), rtol=0, atol=1e-15)
    assert np.allclose(softmax(z, axis=0), scipy_softmax(z, axis=0))
