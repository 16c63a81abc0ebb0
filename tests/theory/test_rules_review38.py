"""A thirty-eighth review (by hand, against reviews 35-37's fixes) found that SymPy derives the
facts review 35 refused for declared symbols from compound expressions too, and acts on them,
kept here as regressions beside true variants:

- 2**p (p a positive integer) is "even", and SymPy's product rule weighs only powers of 2, so
  2**p/6 is "an integer" (floor(2**p/6) = 2**p/6, 2**p/6 >= 1, C(2**p/6, 2) >= 0, all false at
  p = 1) and 6**p/3 "not one"; a sum up to 2**p/6 was written out by Faulhaber's formula;
- (r + sqrt(2))**2 is "irrational" (2 at r = 0);
- gamma(2m + 3/2) is "not positive" (gamma(3/2) > 0); C(1/2, m + 1/2) is "non-zero" (0 at m = 1);
- atan2 of arguments not known real is "non-zero" (atan2(0, i) = 0);
- a hypothesis c = v put in by the hypothesis rule builds a node from a wrong fact
  (im((-1)**(c/6)) at c = 2**p is built as 0; it is sqrt(3)/2 at p = 1)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, is_identity, prove_nonnegative

p = sp.Symbol("p", integer=True, positive=True)
m = sp.Symbol("m", integer=True)
c = sp.Symbol("c")
ci = sp.Symbol("ci", integer=True)


def test_a_product_whose_integrality_rests_on_a_symbolic_even_factor_is_untrusted():
    e = 2**p / 6
    assert e.is_integer  # SymPy's fact: 1/3 at p = 1
    assert not is_identity(sp.floor(e), e)
    assert not prove_nonnegative(e - 1)
    assert not Chain(e).ge(1, by.algebra()).prove(e, ">=", 1).complete
    assert not prove_nonnegative(sp.binomial(e, 2))  # C(1/3, 2) = -1/9
    assert not prove_nonnegative(sp.frac(6**p / 3), strict=True)  # frac(2) = 0
    k = sp.Symbol("k", integer=True)
    S = sp.Sum((k - 1) ** 4, (k, 1, e))
    F = 2 ** (5 * p) / 38880 - 2 ** (4 * p) / 2592 + 2 ** (3 * p) / 648 - 2**p / 180  # -1/243 at p = 1
    assert not Chain(F).eq(S, by.identity()).ge(0, by.algebra()).prove(F, ">=", 0).complete
    # a true variant: a quotient of integers with no symbolic even factor
    q = sp.Symbol("q", integer=True, positive=True)
    assert prove_nonnegative(1 - 1 / (q + 1))


def test_a_hypothesis_put_in_is_judged_as_it_is_built():
    ctx = Context({"h": sp.Eq(ci, 2**p)})
    L = sp.im((-1) ** (ci / 6))
    assert not Chain(L, ctx).eq(sp.im((-1) ** (2**p / 6)), by.hypothesis("h")).prove(L, "=", 0).complete
    assert not Chain(sp.Mod(ci, 6), ctx).eq(0, by.hypothesis("h")).prove(sp.Mod(ci, 6), "=", 0).complete  # Mod(2, 6) = 2
    # a true variant
    x = sp.Symbol("x", positive=True)
    ctx2 = Context({"h": sp.Eq(c, x**2 + 1)})
    assert Chain(sp.Abs(c), ctx2).eq(x**2 + 1, by.hypothesis("h")).prove(sp.Abs(c), "=", x**2 + 1).complete


def test_irrational_powers_gamma_binomials_and_atan2_that_sympy_misreads_are_untrusted():
    r = sp.Symbol("r", rational=True)
    assert not prove_nonnegative(sp.frac((r + sp.sqrt(2)) ** 2), strict=True)  # frac(2) = 0 at r = 0
    g = sp.gamma(2 * m + sp.Rational(3, 2))  # gamma(3/2) > 0 at m = 0
    assert not prove_nonnegative(-g)
    assert not Chain(g).le(0, by.algebra()).prove(g, "<=", 0).complete
    assert not is_identity(sp.Abs(g), -g)
    B = sp.binomial(sp.Rational(1, 2), m + sp.Rational(1, 2))  # 0 at m = 1
    d = sp.KroneckerDelta(c, 0)
    assert not Chain(d, Context({"h": sp.Eq(c, B)})).eq(0, by.hypothesis("h")).prove(d, "=", 0).complete
    x = sp.Symbol("x", positive=True)
    T = sp.atan2(1 - x, sp.I * x)  # atan2(0, i) = 0 at x = 1
    assert not Chain(d, Context({"h": sp.Eq(c, T)})).eq(0, by.hypothesis("h")).prove(d, "=", 0).complete
    # a true variant: a binomial with an integer k
    n = sp.Symbol("n", integer=True, nonnegative=True)
    assert prove_nonnegative(sp.binomial(n, 3))
