"""A thirty-first review (by hand, against reviews 29 and 30's fixes) found one hole, kept here
as a regression beside true variants, and four constructions that are not holes under the
kernel's reading of "defined", kept here so that the reading is pinned down.

The hole: ``instance`` checked an indexed base's value (a Lambda) only with the Lambda's
variable free and carrying its declared assumptions. z**(1/i) with i positive has no pole, but
the theorem read the base at X[-1], where it is 1/z: σ(X[-1] X[1]) was built as 1, and the
true X[-1] X[1] = 0 (given X[1] = 0) was applied at z = 0 as 1 = 0.

The reading: an expression is defined at a point where every part of it is. acot(1/x) is not
defined at x = 0, though SymPy evaluates acot(zoo) to 0 and acot(1/x) = atan(x) elsewhere; so
is (1/x)**y at y = 0 (SymPy: zoo**0 = 1), a product whose term is 1/x, and a sum of δ(k, 5)/x."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by, surely_undefined

z = sp.Symbol("z", real=True)
X = sp.IndexedBase("X")


def _theorem():
    return Lemma(Chain(X[-1] * X[1], Context({"P": sp.Eq(X[1], 0)})).eq(0, by.hypothesis("P")), X[-1] * X[1], "=", sp.Integer(0))


def test_a_lambda_is_checked_at_every_subscript_the_theorem_reads():
    i = sp.Symbol("i", integer=True, positive=True)
    at0 = Context({"z0": sp.Eq(z, 0)})
    bad = Chain(sp.Integer(1), at0).eq(0, by.instance(_theorem(), {X: sp.Lambda(i, z ** (1 / i))}, {"P": "z0"}))
    assert not bad.prove(1, "=", 0).complete  # 1 = 0 at z = 0
    # the value at -1 defined where the step is: X[k] := k z, so X[-1] X[1] is -z**2
    k = sp.Symbol("k", integer=True)
    ok = Chain(-z**2, at0).eq(0, by.instance(_theorem(), {X: sp.Lambda(k, k * z)}, {"P": "z0"}))
    assert ok.prove(-z**2, "=", 0).complete


def test_an_expression_is_undefined_where_a_part_of_it_is():
    x = sp.Symbol("x", real=True)
    k = sp.Symbol("k", integer=True)
    y = sp.Symbol("y", nonnegative=True)
    for P in (sp.acot(1 / x), (1 / x) ** y, sp.Product(1 / x, (k, 2, 0)), sp.Sum(sp.KroneckerDelta(k, 5) / x, (k, 1, 2))):
        assert x in surely_undefined(P)[0], P
