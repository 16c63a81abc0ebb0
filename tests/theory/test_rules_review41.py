"""A forty-first review (a fuzzer over about 19,000 expressions with sums, products, integrals,
Piecewise, Subs, derivatives and indexed values, about 38,000 facts at 88,000 points) found five
families of false statements the kernel accepted, kept here as regressions beside true variants:
SymPy's facts about a sum, product or integral are its terms' facts, so an empty or reversed range
or terms that cancel make them wrong (Sum(I, (k, 1, n)) "not real" is 0 at n = 0; Product(I, (k, 1,
2)) = -1 "not real"; the integral of exp(i t) over [0, 2 pi] "non-zero" is 0; an empty product was
"<= 0"). Its fifth family, prove_nonnegative called directly on a binder declared with what its
range does not give (the sum of atan(kp), kp "positive", over 0..q is 0 at q = 0), was closed in
stop 36: prove_nonnegative checks the declarations against the ranges, with its hypotheses, as a
chain does."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, prove_nonnegative

c = sp.Symbol("c")
d = sp.KroneckerDelta(c, 0)
k, n, m = sp.symbols("k n m", integer=True)
p = sp.Symbol("p", integer=True, positive=True)
kp = sp.Symbol("kp", integer=True, positive=True)


def _zero_by_hypothesis(value, lhs=d):
    return Chain(lhs, Context({"h": sp.Eq(c, value)})).eq(0, by.hypothesis("h")).prove(lhs, "=", 0).complete


def test_facts_of_sums_products_and_integrals_with_terms_not_known_real_are_untrusted():
    t = sp.Symbol("t", real=True)
    assert not _zero_by_hypothesis(sp.Integral(sp.exp(sp.I * t), (t, 0, 2 * sp.pi)))  # 0
    S = sp.Sum(sp.I, (k, 1, n))  # 0 at n = 0
    assert not _zero_by_hypothesis(S)
    assert not prove_nonnegative(sp.Abs(sp.im(S)), strict=True)
    assert not _zero_by_hypothesis(sp.Sum(sp.I * (-1) ** k, (k, 1, 2)))  # 0
    assert not _zero_by_hypothesis(sp.Sum(sp.exp(sp.I * kp), (kp, 1, p - 1)))  # 0 at p = 1
    P = sp.Product(sp.I, (k, 1, 2))  # -1
    assert not _zero_by_hypothesis(P, sp.KroneckerDelta(sp.im(c), 0))
    assert not prove_nonnegative(sp.Abs(sp.im(sp.Product(sp.I, (k, 1, 2 * m)))), strict=True)  # -1 at m = 1
    E = sp.Product((m - 1) * sp.erf(k) - 1, (k, n + 1, n)) - 1  # 0: an empty product is 1
    assert not _zero_by_hypothesis(E)
    # true variants: terms known real (positive)
    assert prove_nonnegative(sp.Product(kp, (kp, 1, p)), strict=True)
    assert prove_nonnegative(sp.Sum(kp, (kp, 1, p)))


def test_a_binder_declared_with_what_its_range_does_not_give_is_refused_in_a_chain():
    # a chain's steps are checked for it before any rule reads a sign
    q = sp.Symbol("q", integer=True, nonnegative=True)
    A = sp.Sum(sp.atan(kp), (kp, 0, q))  # atan(0) = 0 at q = 0
    assert not Chain(A).ge(sp.pi / 4, by.algebra()).prove(A, ">=", sp.pi / 4).complete
    B = sp.Product(sp.atan(kp), (kp, 0, p - 1))  # 0: its term at kp = 0
    assert not Chain(B).ge(sp.pi / 4, by.algebra()).prove(B, ">=", sp.pi / 4).complete


def test_prove_nonnegative_called_directly_checks_a_binders_declaration_against_its_range():
    q = sp.Symbol("q", integer=True, nonnegative=True)
    a = sp.Symbol("a", integer=True)
    assert not prove_nonnegative(sp.Sum(sp.atan(kp), (kp, 0, q)), strict=True)  # 0 at q = 0
    assert not prove_nonnegative(sp.Sum(sp.atan(kp), (kp, a, a + q)), strict=True)  # a = 0, q = 0
    assert not prove_nonnegative(-sp.Product(sp.atan(kp) - 1, (kp, 0, 1)))  # π/4 − 1 < 0
    # ... in the hypotheses too: x >= Σ_{kp=0}^{q} atan kp read as x > 0
    x = sp.Symbol("x", real=True)
    assert not prove_nonnegative(x, [x >= sp.Sum(sp.atan(kp), (kp, 0, q))], strict=True)  # x = 0 at q = 0
    # true variants: the range gives the declaration, or the hypotheses do
    assert prove_nonnegative(sp.Sum(sp.atan(kp), (kp, 1, q + 1)), strict=True)
    assert prove_nonnegative(sp.Sum(sp.atan(kp), (kp, a, a + q)), [a >= 1], strict=True)
