"""Review 66 of the kernel (log/exp steps, instance, sums with symbolic limits, integer-valued
functions, cases and Piecewise). No new hole was found; these are the attacks it tried, kept as
regressions, each a false statement (Σ_{k=1}^{−3} 1 = −3, Mod(1, −2) = −1, floor(1/2) < 1/2, ...)
or a step that would prove one, which the kernel refuses:

* log of a product or a square split for reals of unknown sign (log(x y) = log x + log y,
  log(x²) = 2 log x: false at x = y = −1), and log(x) <= x − 1 by algebra for a real x;
* monotone through log, |t|, t⁻², exp(−1/t) or a Sum over 1..n (n an integer that may be
  negative, Karr's reversed reading flips the sign) across a point where the map is undefined or
  not increasing;
* a Sum whose limit is the monotone variable (Σ_{k=1}^{t} 1 is a step function of a real t);
* floor, ceiling, factorial, binomial and Mod read by the sign oracle;
* ``instance`` of a theorem about a positive x at y, |y| or exp(z) (z complex);
* a Piecewise without a default branch (undefined off its conditions) taken for its value (true
  where defined, but the sign oracle does not read the condition: kept to notice if it starts to).
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
t = sp.Symbol("t", real=True)
c = sp.Symbol("c", real=True)
z = sp.Symbol("z")
n = sp.Symbol("n", integer=True)
k = sp.Symbol("k", integer=True)


@pytest.mark.parametrize("lhs, rel, rhs, how", [
    (sp.log(x * y), "=", sp.log(x) + sp.log(y), by.identity()),
    (sp.log(x**2), "=", 2 * sp.log(x), by.identity()),
    (sp.log(x), "<=", x - 1, by.algebra()),
    (sp.floor(x), ">=", x, by.algebra()),
    (sp.factorial(n), ">=", 1, by.algebra()),
    (sp.Mod(x, -2), ">=", 0, by.algebra()),
    (sp.Sum(1, (k, 1, n)), ">=", 0, by.algebra()),
    (sp.Piecewise((c, c >= 1)), ">=", 1, by.algebra()),
], ids=["log-product", "log-square", "log-le", "floor", "factorial", "mod", "reversed-sum", "piecewise"])
def test_log_integer_and_piecewise_steps_are_refused(lhs, rel, rhs, how):
    step = Chain(lhs, Context({})).eq if rel == "=" else Chain(lhs, Context({})).le if rel == "<=" else Chain(lhs, Context({})).ge
    assert not step(rhs, how).prove(lhs, rel, rhs).complete


@pytest.mark.parametrize("g, a, b", [
    (sp.log(sp.Abs(t)), -2, 1),
    (sp.log(t**2), -2, 1),
    (t**-2, -1, 1),
    (sp.exp(-1 / t), -1, 1),
    (sp.sqrt(t**2), -2, 1),
    (sp.Sum(t, (k, 1, n)), 0, 1),
    (t - sp.Sum(1, (k, 1, t)), sp.Rational(1, 2), 1),
], ids=["log-abs", "log-square", "inverse-square", "exp-inverse", "abs", "reversed-sum", "sum-limit"])
def test_monotone_across_a_pole_a_kink_or_a_reversed_sum_is_refused(g, a, b):
    lhs, rhs = g.subs(t, a), g.subs(t, b)
    assert not Chain(lhs, Context({})).le(rhs, by.monotone(t, g, a, b)).prove(lhs, "<=", rhs).complete


@pytest.mark.parametrize("value", [y, sp.Abs(y), sp.exp(z)], ids=["real", "abs", "exp-complex"])
def test_instance_keeps_positivity(value):
    p = sp.Symbol("p", positive=True)
    thm = Lemma(Chain(sp.log(p**2), Context({})).eq(2 * sp.log(p), by.identity()), sp.log(p**2), "=", 2 * sp.log(p))
    assert thm.chain.prove(thm.lhs, "=", thm.rhs).complete
    lhs, rhs = sp.log(value**2), 2 * sp.log(value)
    res = Chain(lhs, Context({})).eq(rhs, by.instance(thm, {p: value})).prove(lhs, "=", rhs)
    assert not res.complete and "must be positive" in res.first_failure
