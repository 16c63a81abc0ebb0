"""A thirty-ninth review (a fuzzer over about 75,000 expressions built only from what the kernel
trusted after review 37, with about 267,000 of SymPy's facts checked at about 400,000 points)
found five families of false statements the kernel accepted, kept here as regressions:

- floor, ceiling and frac of an argument not real are "not real", so non-zero
  (floor(sqrt(ng)) = floor(0.316 i) = 0 at ng = -1/10);
- atan2 of a non-real argument is "non-zero" (atan2(0, i) = 0);
- beta(a, b) is "non-zero" (beta(i/2, -i/2) = 0);
- binomial(n, k) with k negative but not an integer is "non-zero" (C(-3/2, -1/2) = 0);
- a product of factors not known real is "not real" (sqrt(L - 1) sqrt(L + 1)/L at L = log(-1) = i pi
  is real).

The first four were closed by review 38's changes (floor, ceiling, frac, atan2 and beta left the
allow-list; a binomial's k must be known to be an integer); the fifth is refused since this review.
Two more of its constructions are not holes under the kernel's reading of "defined": exp(atanh(2r))
and 1/log(n) at points where atanh and log are infinite."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, prove_nonnegative

c = sp.Symbol("c")
d = sp.KroneckerDelta(c, 0)


def _zero_by_hypothesis(value):
    return Chain(d, Context({"h": sp.Eq(c, value)})).eq(0, by.hypothesis("h")).prove(d, "=", 0).complete


def test_functions_of_non_real_arguments_sympy_calls_non_zero_are_untrusted():
    ng = sp.Symbol("ng", negative=True)
    assert not prove_nonnegative(sp.Abs(sp.floor(sp.sqrt(ng))), strict=True)  # 0 at ng = -1/10
    assert not _zero_by_hypothesis(sp.floor(sp.sqrt(ng)))
    assert not prove_nonnegative(sp.Abs(sp.ceiling(-sp.sqrt(ng))), strict=True)
    assert not prove_nonnegative(sp.Abs(sp.frac(sp.sqrt(ng))), strict=True)  # frac(i) = 0 at ng = -1
    r, i = sp.Symbol("r", real=True), sp.Symbol("i", integer=True)
    assert not _zero_by_hypothesis(sp.atan2(r, sp.I))  # 0 at r = 0
    assert not _zero_by_hypothesis(sp.atan2(1 - i, sp.I))
    assert not _zero_by_hypothesis(sp.beta(sp.I / 2, sp.I * i / 2))  # 0 at i = -1
    ineg = sp.Symbol("ineg", integer=True, negative=True)
    assert not _zero_by_hypothesis(sp.binomial(ineg - sp.Rational(1, 2), ineg + sp.Rational(1, 2)))  # 0 at ineg = -1


def test_a_product_of_factors_not_known_real_called_not_real_is_untrusted():
    inp = sp.Symbol("inp", integer=True, nonpositive=True)
    L = sp.log(inp)
    e = sp.sqrt(L - 1) * sp.sqrt(L + 1) / L  # real at inp = -1
    assert e.is_extended_real is False  # SymPy's fact
    assert not prove_nonnegative(sp.Abs(sp.im(e)), strict=True)
    # a true variant: a product with one factor not real
    x = sp.Symbol("x", positive=True)
    assert prove_nonnegative(sp.Abs(sp.I * x), strict=True)
