"""Facts that used to be printed or checked on a few cases only, now checked in general."""

import sympy as sp

from attnbounds.theory import distance as thd
from attnbounds.theory.separability import mcdiarmid_ratio_at_least


def test_mcdiarmid_ratio_is_compared_not_printed():
    # 16M^2/(2M^2 sigma^2) = 8/sigma^2 >= 8 for 0 < sigma^2 <= 1, attained at sigma^2 = 1
    assert mcdiarmid_ratio_at_least(8)
    assert not mcdiarmid_ratio_at_least(9)
    assert not mcdiarmid_ratio_at_least(sp.Rational(8001, 1000))


def test_summed_t1_bound_for_every_number_of_non_selected_tokens():
    assert thd.summed_t1_bound_checks()
    # the old check substituted L - N = 3; a bound with 3 in place of L - N is now rejected
    assert not thd.summed_t1_bound_checks((1 - thd.alpha_N) * thd.d_1 + 3 * thd.alpha_N * thd.R)
    assert not thd.summed_t1_bound_checks((1 - thd.alpha_N) * thd.d_1 + (thd.L - thd.N + 1) * thd.alpha_N * thd.R)


def test_variance_factor_for_every_m():
    m, n = thd.m_sym, thd.n_sym
    assert thd.variance_factor_checks()
    assert not thd.variance_factor_checks(n * (m - n) / m**2)  # with replacement
    assert not thd.variance_factor_checks(n * (m - n) / (m * (m + 1)))
    # the general factor agrees with the enumeration at small m
    for mm in range(2, 6):
        for nn in range(1, mm + 1):
            assert (n * (m - n) / (m * (m - 1))).subs({m: mm, n: nn}) == thd.sampling_variance_factor(mm, nn)
