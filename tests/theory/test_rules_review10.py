"""A tenth review found three more false statements checked, kept here as regressions beside
true variants: ``instance`` kept only ten of a cited symbol's assumptions, so a theorem about
an imaginary x (x² <= 0) or a prime x (x >= 2) was cited at x := 1; and the sign prover took an
even power of a complex base as >= 0 (0 <= 2(y + i)²) and an even-power divisor of a negative
base as <= 0 (0 <= −1/x² for x < 0)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by, prove_nonnegative


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


WRONG = "from which SymPy derives wrong facts"  # the refusal of an untrusted declaration (review 35)


def test_instance_keeps_every_assumption_of_the_cited_symbol():
    x = sp.Symbol("x", imaginary=True)  # 1 <= 0
    thm = Lemma(Chain(x ** 2).le(0, by.algebra()), x ** 2, "<=", 0)
    # since review 35 a symbol declared imaginary (or prime) is untrusted: SymPy derives wrong facts
    # from these declarations (floor(y) "non-zero", genocchi(p) "even"), so the theorem itself is
    # refused, at its true instance too (a narrower kernel, not a weaker one)
    _refused(Chain(sp.Integer(1)).le(0, by.instance(thm, {x: 1})).prove(1, "<=", 0), "imaginary by its declaration, " + WRONG)
    _refused(Chain(-sp.Integer(4)).le(0, by.instance(thm, {x: 2 * sp.I})).prove(-4, "<=", 0), WRONG)
    x = sp.Symbol("x", prime=True)  # 1 >= 2
    thm = Lemma(Chain(x).ge(2, by.algebra()), x, ">=", 2)
    _refused(Chain(sp.Integer(1)).ge(2, by.instance(thm, {x: 1})).prove(1, ">=", 2), "prime by its declaration, " + WRONG)
    _refused(Chain(sp.Integer(3)).ge(2, by.instance(thm, {x: 3})).prove(3, ">=", 2), WRONG)
    # the check this test was written for, with an assumption SymPy reads right: x positive
    x = sp.Symbol("x", positive=True)  # 1 <= 0
    thm = Lemma(Chain(-x).le(0, by.algebra()), -x, "<=", 0)
    _refused(Chain(sp.Integer(1)).le(0, by.instance(thm, {x: -1})).prove(1, "<=", 0), "-1 must be positive, as x is")
    assert Chain(-sp.Integer(3)).le(0, by.instance(thm, {x: 3})).prove(-3, "<=", 0).complete


def test_an_even_power_is_nonnegative_only_for_a_real_base():
    y = sp.Symbol("y", real=True)  # 2(y + i)² = −2 at y = 0
    res = (Chain(sp.Integer(0), Context({"y0": sp.Eq(y, 0)})).le(2 * (y + sp.I) ** 2, by.algebra())
           .eq(-2, by.hypothesis("y0")).prove(0, "<=", -2))
    _refused(res, "cannot prove")
    assert not prove_nonnegative(2 * sp.Symbol("z") ** 2)
    assert prove_nonnegative(2 * (y + 1) ** 2)


def test_an_even_power_divisor_is_never_negative():
    x = sp.Symbol("x", real=True)  # −1/x² <= 0, not >= 0, for x < 0
    assert not prove_nonnegative(-1 / x ** 2, [x < 0])
    assert not prove_nonnegative(-1 / sp.Symbol("xn", negative=True) ** 2)
    assert prove_nonnegative(-1 / x ** 3, [x < 0])  # true: an odd power of a negative base
