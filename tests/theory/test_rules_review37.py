"""A thirty-seventh review (by hand, against review 36's fixes) found three more ways to a false
statement, kept here as regressions beside true variants:

- SymPy calls a power with an imaginary exponent "not imaginary", so I*2**(I*y) is "not real" and
  1 + I*2**(I*y) "non-zero", though it is 0 at y = pi/(2 log 2) (2**(I*y) = I there): a power whose
  exponent is not real is untrusted;
- SymPy builds sign(z)**4 as 1 for any z known non-zero, real or not (sign(1 + i)**4 = -1): sign of
  an argument not known real is untrusted, like Max and Min;
- a sum over a numeric range is written out term by term, and a term can hold a wrong fact that
  neither the sum as written nor its renamed variable shows: sum_{k=2}^{2} re((-1)**(n k/4)) is
  re((-1)**(n/2)), which SymPy builds as 0 (1 at n = 0). Each term is judged too."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, is_identity, prove_nonnegative

c = sp.Symbol("c")


def test_a_power_with_an_imaginary_exponent_is_untrusted():
    y, u = sp.Symbol("y", positive=True), sp.Symbol("u", complex=True)
    A = 1 + sp.I * 2 ** (sp.I * y)  # 0 at y = pi/(2 log 2)
    assert A.is_zero is False  # SymPy's fact
    d = sp.KroneckerDelta(c, 0)
    assert not Chain(d, Context({"h": sp.Eq(c, A)})).eq(0, by.hypothesis("h")).prove(d, "=", 0).complete
    L = sp.Subs(d, c, A)
    assert not is_identity(L, 0)
    assert not Chain(L).eq(0, by.identity()).prove(L, "=", 0).complete
    assert not prove_nonnegative(sp.Abs(A ** u), strict=True)
    g = sp.Abs(sp.sign(c))
    assert not Chain(g, Context({"h": sp.Eq(c, A)})).eq(1, by.hypothesis("h")).prove(g, "=", 1).complete
    # a true variant: a real exponent
    assert prove_nonnegative(2**y, strict=True)


def test_sign_of_an_argument_not_known_real_is_untrusted():
    x = sp.Symbol("x", real=True)
    g4 = sp.sign(c) ** 4  # sign(1 + i)**4 = -1
    assert not Chain(g4, Context({"h": sp.Eq(c, 1 + sp.I * x)})).eq(1, by.hypothesis("h")).prove(g4, "=", 1).complete
    L4 = sp.Subs(g4, c, 1 + sp.I * x)
    assert not is_identity(L4, 1)
    assert not Chain(L4).eq(1, by.identity()).prove(L4, "=", 1).complete
    # a true variant: a real argument
    r = sp.Symbol("r", real=True)
    h = Context({"h": sp.Eq(r, 1 + x**2)})
    assert Chain(sp.sign(r) ** 4, h).eq(1, by.hypothesis("h")).prove(sp.sign(r) ** 4, "=", 1).complete


def test_each_term_of_a_sum_over_a_numeric_range_is_judged():
    n, k = sp.Symbol("n", integer=True), sp.Symbol("k", integer=True)
    T = sp.Sum(sp.re((-1) ** (n * k / 4)), (k, 2, 2))  # re((-1)**(n/2)): 1 at n = 0
    assert not is_identity(T, 0)
    assert not Chain(T).eq(0, by.identity()).prove(T, "<=", 0).complete
    assert not is_identity(sp.Sum(sp.KroneckerDelta((-1) ** (n * k / 4), 1), (k, 2, 2)), 0)
    # a true variant: an exponent that stays an integer at every term
    U = sp.Sum((-1) ** (2 * n * k), (k, 1, 3))
    assert is_identity(U, 3)
