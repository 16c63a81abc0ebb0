"""An eleventh review found three more ways to a false statement, kept here as regressions
beside true variants: E[X] was real for every X (so 0 <= 2 E[Y]² checked for an imaginary Y,
−2 at Y = i); ``indicator-order`` read an indicator under a MinOver's Lambda as the free
indicator of the same event (1_{D(k) >= 0} <= sign(min_k 1_{D(k) >= 0}), 1 <= 0 at D = (1, −1));
and ``weighted-norm`` gave its forms from a definition that cannot hold (R = −1 with l1 = 1,
or l2 > l1²), so 0 <= f <= −1."""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Expect, Indicator, MaxOver, MinOver, WeightedNorm, by, prove_nonnegative

k = sp.Symbol("k", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
D = sp.Function("D", real=True)


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


def test_an_expectation_is_real_only_when_its_variable_is():
    Y = sp.Symbol("Y", random=True, imaginary=True)  # E[Y]^2 = -1 at Y = i
    assert Expect(Y).is_extended_real is not True
    assert not prove_nonnegative(2 * Expect(Y) ** 2)
    # refused as untrusted since review 35 (a symbol declared imaginary), before algebra runs
    _refused(Chain(sp.Integer(0)).le(2 * Expect(Y) ** 2, by.algebra()).prove(0, "<=", 2 * Expect(Y) ** 2),
             "imaginary by its declaration, from which SymPy derives wrong facts")
    Z = sp.Symbol("Z", random=True)  # undeclared: not known real either
    assert not prove_nonnegative(Expect(Z) ** 2)
    X = sp.Symbol("X", random=True, real=True)  # true for a real X
    assert Expect(X).is_extended_real and prove_nonnegative(2 * Expect(X) ** 2)


@pytest.mark.parametrize("binder", [
    lambda body: sp.sign(MinOver(sp.Lambda(k, body), n)),  # checked before: the review's statement
    # refused before too, but only because the sign oracle could not decide the bound atom's value
    lambda body: MaxOver(sp.Lambda(k, body), n),  # false for a free k outside 1..n
    lambda body: sp.Subs(body, k, 1),
], ids=["MinOver", "MaxOver", "Subs"])
def test_indicator_order_refuses_an_indicator_under_any_binder(binder):
    free = Indicator(D(k) >= 0)  # 1 <= 0 at D = (1, -1), n = 2, k = 1 for the MinOver form
    big = binder(Indicator(D(k) >= 0))
    _refused(Chain(free).le(big, by.indicator_order()).prove(free, "<=", big), "binder")


def test_indicator_order_still_compares_free_indicators():
    a, b = Indicator(D(1) >= 0), Indicator(D(2) >= 0)
    both = Indicator(sp.And(D(1) >= 0, D(2) >= 0))
    assert Chain(a).ge(both, by.indicator_order()).prove(a, ">=", both).complete
    assert Chain(both).ge(a + b - 1, by.indicator_order()).prove(both, ">=", a + b - 1).complete
    assert not Chain(both).ge(a, by.indicator_order()).prove(both, ">=", a).complete  # false: D = (1, -1)


f = sp.Function("F", real=True)(i)


@pytest.mark.parametrize("R, l1, l2, fragment", [
    (sp.Integer(-1), sp.Integer(1), sp.Integer(1), "radius must be >= 0"),  # 0 <= f <= -1
    (sp.Integer(1), sp.Integer(-1), sp.Integer(1), "l1 must be >= 0"),  # 0 <= l1 = -1
    (sp.Integer(1), sp.Integer(1), sp.Integer(-1), "l2 must be >= 0"),
    (sp.Integer(1), sp.Integer(1), sp.Integer(5), "impossible"),  # 5 = l2 <= l1^2 = 1
    (sp.Symbol("R", real=True), sp.Integer(1), sp.Integer(1), "radius must be >= 0"),  # not known >= 0
])
def test_weighted_norm_refuses_a_definition_that_cannot_hold(R, l1, l2, fragment):
    ctx = Context({"wn": WeightedNorm(f, R, l1, l2)})
    _refused(Chain(f, ctx).le(R * l1, by.weighted_norm("wn")).prove(f, "<=", R * l1), fragment)
    _refused(Chain(l2, ctx).le(l1 ** 2, by.weighted_norm("wn")).prove(l2, "<=", l1 ** 2), fragment)


def test_weighted_norm_reads_a_definition_that_can_hold():
    R = sp.Symbol("R", real=True)
    s1 = sp.Function("s1", deterministic=True)
    ctx = Context({"wn": WeightedNorm(f, R, s1(i), sp.Rational(1, 2)), "R>=0": R >= 0, "s1>=0": s1(i) >= 0})
    assert Chain(f, ctx).le(R * s1(i), by.weighted_norm("wn")).prove(f, "<=", R * s1(i)).complete  # stated
    assert Chain(sp.Rational(1, 2), ctx).le(s1(i) ** 2, by.weighted_norm("wn")).prove(sp.Rational(1, 2), "<=", s1(i) ** 2).complete
    ctx = Context({"wn": WeightedNorm(f, sp.Integer(2), sp.Integer(1), sp.Integer(1))})  # one weight 1
    assert Chain(f, ctx).le(2, by.weighted_norm("wn")).prove(f, "<=", 2).complete
