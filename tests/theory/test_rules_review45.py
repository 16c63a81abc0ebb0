"""A forty-fifth review, by hand over instance and the identity rules, found two false statements the
kernel accepted, both through a substitution into a derivative's variable: instance built
d/db (b**2) = b from the true d/da (a b) = b cited at a := b (the derivative at b, not of b**2), and
index-identity and entrywise put a definition f[k] = y into Derivative(..., f[1]). A derivative's
variable is no longer substituted by instance, and a derivative by an entry of a defined base is
held whole while the definition is put in."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, Mat, OpNorm, by

a, b = sp.symbols("a b", positive=True)


def test_instance_does_not_substitute_a_derivatives_variable():
    T_lhs = sp.Derivative(a * b, a)
    T = Lemma(Chain(T_lhs).eq(b, by.index_identity()), T_lhs, "=", b)
    D = sp.Derivative(b * b, b)  # = 2b
    assert sp.simplify(D.doit() - b).subs(b, 1) != 0  # 2b = b is false at b = 1
    assert not Chain(2 * b).eq(D, by.index_identity()).eq(b, by.instance(T, {a: b})).prove(2 * b, "=", b).complete
    x = sp.IndexedBase(sp.Symbol("x", real=True))
    i = sp.Symbol("i", integer=True)
    T2_lhs = sp.Derivative(x[1] * x[2], x[1])
    T2 = Lemma(Chain(T2_lhs).eq(x[2], by.index_identity()), T2_lhs, "=", x[2])
    assert not Chain(D).eq(b, by.instance(T2, {x: sp.Lambda(i, b)})).prove(D, "=", b).complete
    # a true variant: the other symbol substituted, d/da (3 a) = 3
    lhs = sp.Derivative(3 * a, a)
    assert Chain(lhs).eq(3, by.instance(T, {b: sp.Integer(3)})).prove(lhs, "=", 3).complete


def test_a_definition_is_not_put_into_a_derivatives_variable():
    k = sp.Symbol("k", integer=True)
    y = sp.Symbol("y", positive=True)
    f = sp.IndexedBase(sp.Symbol("f", real=True))
    ctx = Context({"def": sp.Eq(f[k], y)})
    lhs = sp.Derivative(sp.Abs(f[1]) * f[2], f[1])  # sign(f1) f2: 1 at f = (1, 1)
    rhs = sp.Derivative(sp.Abs(f[1]) * f[1], f[1])  # 2|f1|: 2 there
    assert not Chain(lhs, ctx).eq(rhs, by.index_identity(defs="def")).prove(lhs, "=", rhs).complete
    n = sp.Symbol("n", integer=True, positive=True)
    r, c = sp.symbols("r c", integer=True, positive=True)
    A, B = Mat(sp.Lambda((r, c), lhs), n), Mat(sp.Lambda((r, c), rhs), n)  # opnorm [[1]] = 1, [[2]] = 2
    assert not Chain(OpNorm(A), ctx).eq(OpNorm(B), by.entrywise(A, B, defs="def")).prove(OpNorm(A), "=", OpNorm(B)).complete
    # a true variant: the definition used outside the derivative
    lhs_ok, rhs_ok = rhs + f[2], rhs + y
    assert Chain(lhs_ok, ctx).eq(rhs_ok, by.index_identity(defs="def")).prove(lhs_ok, "=", rhs_ok).complete
