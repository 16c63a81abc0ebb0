"""A thirty-fifth review (a fuzzer: about 550,000 of SymPy's facts about 172 of its function
classes, and about arithmetic, compared with their values) found ten wrong SymPy facts that the
kernel read, each kept here as a regression beside a true variant:

- from declarations: an even e makes e/3 "not an integer", so non-zero, and e/6 "an integer"
  (1 <= e/6 for every even e >= 2, by algebra alone); an irrational x makes x**2 "irrational"
  (0 < (x**2 - 2)**2 at x = sqrt(2)); an odd o makes gamma(o + 1/2) "non-positive"; an imaginary y
  makes floor(y) "non-zero" and fresnels(y) "infinite"; a prime or composite p makes genocchi(p)
  "even". A symbol declared even, odd, prime, composite, irrational, non-integer or imaginary is
  untrusted;
- from special functions: divisor_sigma(n, k) is "a positive integer" for any k, betainc is "real"
  for real arguments, erf2(I*m, w) is "non-zero", rf(x, k) is "non-zero" (0 at x = -1, k = -1/2).
  SymPy's functions outside an allow-list (those the fuzzer found no wrong fact in) are untrusted."""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, prove_nonnegative

c = sp.Symbol("c")


def _by_hypothesis(lhs, rhs, value):
    """lhs = rhs from the hypothesis c = value (the value's facts folded in by SymPy)."""
    return Chain(lhs, Context({"h": sp.Eq(c, value)})).eq(rhs, by.hypothesis("h")).prove(lhs, "=", rhs).complete


def test_an_even_symbol_is_untrusted():
    ep, e = sp.Symbol("ep", even=True, positive=True), sp.Symbol("e", even=True)
    assert (ep / 6).is_integer and (e / 3).is_zero is False  # SymPy's facts: false at ep = 2, e = 0
    assert not Chain(sp.Integer(1)).le(ep / 6, by.algebra()).prove(1, "<=", ep / 6).complete  # 1 <= 1/3 at ep = 2
    assert not prove_nonnegative(ep / 6 - 1)
    assert not prove_nonnegative(e**2 / 3, strict=True)  # 0 at e = 0
    assert not _by_hypothesis(sp.KroneckerDelta(c, 2), 0, e / 3)  # 1 at e = 6
    assert not _by_hypothesis(sp.sin(sp.pi * c), 0, e / 6)
    # a true variant with an integer symbol: 1 <= 2k/2 + 1 for k >= 0
    k = sp.Symbol("k", integer=True, nonnegative=True)
    assert Chain(sp.Integer(1)).le(2 * k / 2 + 1, by.algebra()).prove(1, "<=", k + 1).complete


@pytest.mark.parametrize("decl, build, point", [
    ({"irrational": True}, lambda x: prove_nonnegative((x**2 - 2) ** 2, strict=True), "x = sqrt(2)"),
    ({"irrational": True}, lambda x: _by_hypothesis(sp.KroneckerDelta(c, 2), 0, x**2), "x = sqrt(2)"),
    ({"odd": True}, lambda o: Chain(sp.gamma(o + sp.Rational(1, 2))).le(0, by.algebra())
     .prove(sp.gamma(o + sp.Rational(1, 2)), "<=", 0).complete, "o = 1: gamma(3/2) > 0"),
    ({"imaginary": True}, lambda y: prove_nonnegative(sp.Abs(sp.floor(y)), strict=True), "y = i/2"),
    ({"imaginary": True}, lambda y: _by_hypothesis(sp.KroneckerDelta(c, 0), 0, sp.floor(y)), "y = i/2"),
    ({"imaginary": True}, lambda y: _by_hypothesis(sp.floor(c), sp.fresnels(y), sp.fresnels(y)), "y = i"),
    ({"prime": True}, lambda p: prove_nonnegative(sp.Abs(sp.genocchi(p) + 1), strict=True), "p = 2: G_2 = -1"),
    ({"composite": True}, lambda q: _by_hypothesis((-1) ** c, 1, sp.genocchi(q)), "q = 4: G_4 = 1"),
])
def test_symbols_declared_with_facts_sympy_misreads_are_untrusted(decl, build, point):
    assert not build(sp.Symbol("s", **decl)), point


def test_sympy_functions_outside_the_trusted_list_are_untrusted():
    n = sp.Symbol("n", integer=True, positive=True)
    k = sp.Symbol("k", real=True)
    assert not _by_hypothesis(sp.sin(sp.pi * c), 0, sp.divisor_sigma(n, k))  # n = 2, k = 1/2: 1 + sqrt(2)
    assert not prove_nonnegative(sp.divisor_sigma(n, c), strict=True)  # n = 2, c = i pi/log 2: 0
    a, b, x1, x2 = sp.symbols("a b x1 x2", positive=True)
    assert not prove_nonnegative(sp.betainc(a, b, x1, x2) ** 2)  # (1, 1/2, 1, 2): (-2i)^2 = -4
    assert not prove_nonnegative(sp.betainc_regularized(a, b, x1, x2) ** 2)
    m, w = sp.Symbol("m", integer=True, positive=True), sp.Symbol("w")
    assert not _by_hypothesis(sp.KroneckerDelta(c, 0), 0, sp.erf2(sp.I * m, w))  # m = 1, w = i: erf2(i, i) = 0
    xn, kn = sp.symbols("xn kn", negative=True)
    assert not _by_hypothesis(sp.KroneckerDelta(c, 0), 0, sp.rf(xn, kn))  # xn = -1, kn = -1/2: 0
    # a true variant with trusted functions; gamma is untrusted since review 38 (gamma(2m + 3/2) is
    # "not positive"), so even the true gamma(n) >= 0 is refused
    assert prove_nonnegative(sp.exp(k) + sp.Abs(sp.sin(k)), strict=True)
    assert not prove_nonnegative(sp.gamma(n))
