"""Review 62 of the kernel (attacking review 61's E[X | A] undefined where P(A) = 0, and its
exemption under a factor P(A), as in the law of total expectation):

* an end holding P(A)·E[c | A] made E[c | A] a node "surely undefined in the ends", so a bare
  E[c | A] in the chain's middle passed without P(A) != 0: c + T >= 1 + T with T = P(A)·E[c | A]
  from the vacuous "c >= 1 on A" (false at c = 0, A null, where T = E[c 1_A] = 0);
* the exemption crossed a binder: P(D >= k)·Σ_{k=5}^{5} E[c | D >= k] was read as defined.

The true P(A)·E[D | A] <= P(A), by monotone-chain with g(t) = P(A)·t, still checks: g is 0 where
the means given A are undefined.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Prob, by, undefined_parts

D = sp.Function("D", nonnegative=True)(1)
c = sp.Symbol("c", real=True)
t = sp.Symbol("t", real=True)


@pytest.mark.parametrize("A", [sp.Lt(D, 0), sp.Ge(D, 5)], ids=["impossible", "null"])
def test_a_covered_mean_in_an_end_does_not_cover_a_bare_one_in_the_middle(A):
    ctx = Context({"h": sp.Ge(Cond(c, A), 1)})
    E = Expect(Cond(c, A))
    T = Prob(A) * E
    sub = Chain(sp.Integer(1), ctx).le(Cond(c, A), by.hypothesis("h"))
    term = Chain(Expect(sp.Integer(1)), ctx).le(E, by.expect_monotone(sub))
    res = (Chain(c + T, ctx).eq(E + T, by.condition())
           .ge(Expect(sp.Integer(1)) + T, by.termwise(pairs=[(Expect(sp.Integer(1)), E), (T, T)], term=[term, None]))
           .eq(1 + T, by.linearity()).prove(c + T, ">=", 1 + T))
    assert not res.complete and "not proved non-zero" in res.first_failure


def test_the_exemption_does_not_cross_a_binder_of_its_event():
    k = sp.Symbol("k", integer=True)
    e = Prob(sp.Ge(D, k)) * sp.Sum(Expect(Cond(c, sp.Ge(D, k))), (k, 5, 5))
    assert undefined_parts(e)[0] == frozenset({Prob(sp.Ge(D, k))})  # the sum's own k: not the factor's
    assert undefined_parts(Prob(sp.Ge(D, 5)) * Expect(Cond(c, sp.Ge(D, 5)))) == (frozenset(), frozenset())


def test_a_monotone_map_with_a_factor_p_a_needs_no_p_a_non_zero():
    A = sp.Ge(D, 5)
    ctx = Context({"h": sp.Le(Cond(D, A), 1)})
    E, E1 = Expect(Cond(D, A)), Expect(sp.Integer(1))
    sub = Chain(E, ctx).le(E1, by.expect_monotone(Chain(Cond(D, A), ctx).le(1, by.hypothesis("h"))))
    res = (Chain(Prob(A) * E, ctx).le(Prob(A) * E1, by.monotone_chain(t, Prob(A) * t, E, E1, sub))
           .eq(Prob(A), by.linearity()).prove(Prob(A) * E, "<=", Prob(A)))
    assert res.complete, res.first_failure


def test_the_cover_is_not_taken_where_the_ends_hold_the_factor():
    """Review 63: a = 1/P(A) made cover·a = 1, defined, though the sub-relation about it is not
    where P(A) = 0 (another check refused that chain; this one must not rely on it)."""
    from attnbounds.theory.proof import _monotone_cover

    P = Prob(sp.Ge(D, 5))
    assert _monotone_cover(t, P * t, Expect(Cond(c, sp.Ge(D, 5))), 1) == P
    assert _monotone_cover(t, P * t, 1 / P, c / P) == 1
    assert _monotone_cover(t, P * t ** 2 + 1, Expect(Cond(c, sp.Ge(D, 5))), 1) == 1  # a sum: no factor
