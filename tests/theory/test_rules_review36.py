"""A thirty-sixth review (by hand, against reviews 32-34) found five ways to a false statement,
kept here as regressions beside true variants:

- two of SymPy's core rules read "not known" as "no": a power b**e with b real and not known
  positive, e rational and 2e an integer, is "imaginary" where b is negative unless e is known to
  be an integer ((-1)**(n/2) is 1 at n = 0), so exp(i pi (-1)**(n/2)) was proved > 0; and a product
  with a factor not known real nor imaginary is "not real", so non-zero (I*r**n at r = 0);
- ``_alpha`` renamed a bound variable with fewer assumptions after the untrusted-facts check, and
  SymPy rebuilt sign(C(k, 3)) over k declared >= 0 as -1;
- an indexed base whose shape holds a symbol becomes another base under a substitution, so
  ``monotone`` read Y[1] at v = 2 and at v = 3 as one function of v."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, is_identity, prove_nonnegative

n = sp.Symbol("n", integer=True)
c = sp.Symbol("c")


def test_a_power_called_imaginary_where_its_exponent_may_be_an_integer_is_not_read():
    E = sp.exp(sp.I * sp.pi * (-1) ** (n / 2))  # -1 at every even n
    assert E.is_positive  # SymPy's fact, false at n = 0
    assert not prove_nonnegative(E, strict=True)
    assert not Chain(sp.Integer(0)).le(E, by.algebra()).prove(0, "<=", E).complete
    # folded away by a hypothesis: re(c) = 0 from c = (-1)**((n - 1)/2), which is 1 at n = 1
    h = Context({"h": sp.Eq(c, (-1) ** ((n - 1) / 2))})
    assert not Chain(sp.re(c), h).eq(0, by.hypothesis("h")).prove(sp.re(c), "<=", 0).complete
    x = sp.Symbol("x", negative=True)
    L = sp.Subs(sp.re(c), c, x ** (n / 2))  # -1 at n = 2, x = -1
    assert not is_identity(L, 0)
    assert not Chain(L).eq(0, by.identity()).prove(L, "=", 0).complete
    # true variants: an exponent known not to be an integer, or a positive base
    assert prove_nonnegative(sp.exp(sp.I * sp.pi * x ** sp.Rational(1, 2)), strict=True)
    p = sp.Symbol("p", positive=True)
    assert prove_nonnegative(p ** (n / 2), strict=True)


def test_a_product_called_non_zero_though_a_factor_may_be_zero_is_not_read():
    r = sp.Symbol("r", real=True)
    assert (sp.I * r ** n).is_zero is False  # SymPy's fact, false at r = 0, n = 1
    d = sp.KroneckerDelta(c, 0)
    h = Context({"h": sp.Eq(c, sp.I * r ** n)})
    assert not Chain(d, h).eq(0, by.hypothesis("h")).prove(d, "=", 0).complete  # 1 = 0 at r = 0, n = 1
    # a true variant: every factor known non-zero
    q = sp.Symbol("q", positive=True)
    h2 = Context({"h": sp.Eq(c, sp.I * q)})
    assert Chain(d, h2).eq(0, by.hypothesis("h")).prove(d, "=", 0).complete


def test_a_bound_variable_renamed_with_fewer_facts_does_not_bring_a_wrong_fact_in():
    j = sp.Symbol("j", integer=True)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    T = sp.Sum(sp.sign(sp.binomial(k, 3)), (k, j, j))  # 1 at j = 5
    assert not Chain(T, Context({"h": sp.Ge(j, 3)})).eq(-1, by.identity()).prove(T, "=", -1).complete
    assert not is_identity(T, -1)
    assert not prove_nonnegative(-T, strict=True)
    m = sp.Symbol("m", integer=True, nonnegative=True)
    assert not is_identity(sp.Subs(sp.sign(sp.binomial(m, 3)), m, n), -1)
    # true variants: the same sum with its terms' sign right for every integer (a square), its
    # index declared with what its range gives (an integer; non-negative where j >= 0 is given)
    ki = sp.Symbol("ki", integer=True)
    assert prove_nonnegative(sp.Sum(sp.binomial(ki, 2) ** 2, (ki, j, j)))
    U = sp.Sum(sp.binomial(k, 2) ** 2, (k, j, j))
    assert prove_nonnegative(U, [sp.Ge(j, 0)])
    assert not prove_nonnegative(U)  # since stop 36: k declared non-negative over j … j, j any integer


def test_an_indexed_base_with_a_symbol_in_its_shape_is_refused():
    v = sp.Symbol("v", real=True)
    g = sp.IndexedBase("Y", shape=(v,))[1]
    A, B = g.subs(v, 2), g.subs(v, 3)  # two bases: Y[1] of shape (2,) and of shape (3,)
    assert A != B
    ctx = Context({"hA": sp.Eq(A, 1), "hB": sp.Eq(B, 0)})
    chain = (Chain(sp.Integer(1), ctx).eq(A, by.hypothesis("hA")).le(B, by.monotone(v, g, 2, 3))
             .eq(0, by.hypothesis("hB")))
    assert not chain.prove(1, "<=", 0).complete  # 1 <= 0
    assert any("shape with symbols" in s.reason for s in chain.check_steps())
    d = sp.Symbol("d", real=True)
    X = sp.IndexedBase("X", shape=(c,))
    lhs, rhs = X[1], X[1].subs(c, d)
    assert not Chain(lhs, Context({"h": sp.Eq(c, d)})).eq(rhs, by.hypothesis("h")).prove(lhs, "=", rhs).complete
    # a true variant: a numeric shape
    Z = sp.IndexedBase("Z", shape=(3,))
    assert Chain(Z[1], Context({"h": sp.Eq(Z[1], 0)})).eq(0, by.hypothesis("h")).prove(Z[1], "=", 0).complete
