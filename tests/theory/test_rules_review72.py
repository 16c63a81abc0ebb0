"""Review 72 of the kernel (helper): monotone-chain and its cover of P(A), monotone, instance,
markov, total-expectation, condition.

No hole was found in the time given (about 35 minutes). Kept below, each beside a true variant the
kernel accepts:

* ``monotone-chain`` takes no cover from a map that is not a product with a factor P(A):
  g(t) = P(A) t + t, a = 1, b = c, with the order 1 <= c read through E[c | A] from the vacuous
  "c >= 1 on A" (false at c = 0, A null: 1 <= 0) is refused; with g(t) = 3 P(A) t (a factor
  P(A), so g is 0 where the mean given A is undefined) the step is accepted and true.
* ``markov``: a hypothesis X >= 0 with X = D − Cond(D, A) (two spaces) is refused by Context;
  with X = D the step is accepted.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Prob, by

D = sp.Function("D", nonnegative=True)(1)
c = sp.Symbol("c", real=True)
t = sp.Symbol("t", real=True)
r = sp.Symbol("r", positive=True)
A = sp.Ge(D, 5)
E = Expect(Cond(c, A))


def _order_through_a_null_mean():
    """1 <= E[c | A] = c, from "c >= 1 where A holds" (vacuous where P(A) = 0)."""
    ctx = Context({"h": sp.Ge(Cond(c, A), 1)})
    sub = (Chain(sp.Integer(1), ctx)
           .eq(Expect(sp.Integer(1)), by.linearity())
           .le(E, by.expect_monotone(Chain(sp.Integer(1), ctx).le(Cond(c, A), by.hypothesis("h"))))
           .eq(c, by.condition()))
    return ctx, sub


def test_monotone_chain_without_a_factor_p_a_needs_the_order_everywhere():
    """False: P(A) + 1 <= P(A) c + c. Model: c = 0, D ≡ 0 (P(A) = 0): 1 <= 0."""
    ctx, sub = _order_through_a_null_mean()
    g = Prob(A) * t + t
    res = Chain(g.subs(t, 1), ctx).le(g.subs(t, c), by.monotone_chain(t, g, 1, c, sub)).prove(
        g.subs(t, 1), "<=", g.subs(t, c))
    assert not res.complete
    assert "proves neither a <= b nor b <= a" in res.first_failure, res.first_failure


def test_monotone_chain_with_a_factor_p_a_and_means_given_a():
    ctx = Context({"h": sp.Le(Cond(D, A), 1)})
    ED, E1 = Expect(Cond(D, A)), Expect(sp.Integer(1))
    sub = Chain(ED, ctx).le(E1, by.expect_monotone(Chain(Cond(D, A), ctx).le(1, by.hypothesis("h"))))
    g = 3 * Prob(A) * t
    res = Chain(g.subs(t, ED), ctx).le(g.subs(t, E1), by.monotone_chain(t, g, ED, E1, sub)).prove(
        g.subs(t, ED), "<=", g.subs(t, E1))
    assert res.complete, res.first_failure


def test_markov_on_a_value_of_two_spaces_is_refused():
    """The hypothesis X >= 0 for X = D − Cond(D, A) is refused when the context is built."""
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({"h": sp.Ge(D - Cond(D, A), 0)})


def test_markov_on_a_non_negative_variable():
    res = Chain(Prob(sp.Ge(D, r)), Context({})).le(Expect(D) / r, by.markov(D, r)).prove(
        Prob(sp.Ge(D, r)), "<=", Expect(D) / r)
    assert res.complete, res.first_failure
