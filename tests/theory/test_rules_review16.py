"""A sixteenth review attacked the fifteenth review's fixes and found five more ways to a false
statement, kept here as regressions beside true variants: a polynomial summand's coefficients
and a polynomial integrand's constants went through SymPy's doit after all (so Σ_{k=0}^{n}
(−1)^k C(n, k) = 0 came back as a coefficient); a Float entered through an instance's values;
SingularityFunction, outside the old deny-list, was differentiated at its kink (now an allow-list
of smooth pieces); and the hypothesis rule's derivative check looked for the equation's side as
a node (x² in d/dx x⁴) and for symbols only (d/df(t) f(t)²)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by

x = sp.Symbol("x", real=True)
k, j, l = sp.symbols("k j l", integer=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
m = sp.Symbol("m", integer=True, positive=True)
B = sp.Sum((-1) ** k * sp.binomial(n, k), (k, 0, n))  # 1 at n = 0, 0 for n >= 1


def _eq(lhs, rhs, rule=None):
    return Chain(lhs).eq(rhs, rule or by.identity()).prove(lhs, "=", rhs).complete


def test_a_polynomial_summand_or_integrand_keeps_its_coefficients_unevaluated():
    S = sp.Sum(j * B, (j, 1, m), (l, 1, 1))  # m(m + 1)/2 at n = 0
    assert not _eq(S, 0)
    assert not _eq(S, 0, by.index_identity())
    a = sp.Symbol("a", positive=True)
    J = sp.Integral(1 / (a + sp.cos(x)), (x, 0, 2 * sp.pi))  # 2π/√3 at a = 2
    assert not _eq(sp.Sum(j * J, (j, 1, m), (l, 1, 1)), 0)
    assert not _eq(sp.Integral(B, (x, 0, 1)), 0)  # 1 at n = 0
    # the polynomial parts are still summed and integrated, the coefficient carried along
    assert _eq(sp.Sum(j * B, (j, 1, m), (l, 1, 1)), m * (m + 1) / 2 * B)
    assert _eq(sp.Integral(x * B, (x, 0, 2)), 2 * B)


def test_a_float_does_not_enter_through_an_instance():
    c, d = sp.symbols("c d", real=True)
    T = Chain(x, Context({"h1": x <= c, "h2": c <= d})).le(c, by.hypothesis("h1")).le(d, by.hypothesis("h2"))
    thm = Lemma(T, x, "<=", d)
    q = sp.Rational(3124, 10000)
    ctx = Context({"hx": x <= sp.Rational(5, 16)})
    assert not Chain(x, ctx).le(q, by.instance(thm, {c: sp.Float(0.3125, 1), d: q})).prove(x, "<=", q).complete
    assert Chain(x, ctx).le(sp.Rational(1, 3), by.instance(thm, {c: sp.Rational(5, 16), d: sp.Rational(1, 3)})).prove(
        x, "<=", sp.Rational(1, 3)).complete


def test_a_derivative_is_taken_of_smooth_pieces_only():
    SF = sp.SingularityFunction
    f = SF(x, 0, 1) - SF(-x, 0, 1)  # max(x, 0) − max(−x, 0) = x
    Dp = sp.Subs(sp.Derivative(f, x), x, 0)  # 1; SymPy's doit says 2
    assert not _eq(Dp, 2)
    assert not _eq(Dp, 2, by.index_identity())
    assert not _eq(sp.Subs(sp.Derivative(sp.atan2(x, -1), x), x, 0), -1)  # atan2(x, −1) jumps at 0
    assert _eq(sp.Subs(sp.Derivative(sp.exp(2 * x) + x**3, x), x, 0), 2)


def test_no_substitution_under_a_derivative_in_what_the_equation_holds():
    D4 = sp.Derivative(x**4, x)  # x² = 9 rewrites x⁴ as 81 inside it
    chain = Chain(4 * x**3, Context({"h": sp.Eq(x**2, 9)})).eq(D4, by.identity()).eq(sp.Derivative(81, x), by.hypothesis("h"))
    assert not chain.eq(0, by.identity()).prove(4 * x**3, "=", 0).complete  # 108 at x = 3
    t = sp.Symbol("t", real=True)
    F = sp.Function("f")(t)
    D2 = sp.Derivative(F**2, F)
    chain = Chain(2 * F, Context({"h": sp.Eq(F**2, 9)})).eq(D2, by.identity()).eq(sp.Derivative(9, F), by.hypothesis("h"))
    assert not chain.eq(0, by.identity()).prove(2 * F, "=", 0).complete  # 6 at f(t) = 3
    y = sp.Symbol("y", real=True)  # a derivative in a variable the equation does not hold
    assert Chain(sp.Derivative(x**2, x) + y, Context({"h": sp.Eq(y, 3)})).eq(sp.Derivative(x**2, x) + 3, by.hypothesis("h")).prove(
        sp.Derivative(x**2, x) + y, "=", sp.Derivative(x**2, x) + 3).complete
