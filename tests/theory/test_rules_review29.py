"""A twenty-ninth review (by hand) found five holes, kept here as regressions beside true
variants. Four are misdeclared variables that the check missed: a range whose end an outer
binder binds, read with a hypothesis about the free symbol of that name (in a step and in the
hypothesis rule); an integral with one end, ∫^b f dt, which the kernel reads as ∫_0^b; a limit
from the side the declaration excludes (z >= 0, z → 0⁻); an integral transform's variable. The
fifth: where an end is surely undefined was read through the zeros of a power whose exponent
may be 0 (x^y is 1 at x = 0 for y = 0), so a middle step could divide by x."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, surely_undefined

j = sp.Symbol("j", integer=True)


def test_a_range_end_bound_outside_is_not_read_with_hypotheses_about_the_free_symbol():
    k = sp.Symbol("k", integer=True, positive=True)
    S = sp.Sum(sp.Sum(sp.sqrt(k**2), (k, j, j)), (j, -1, -1))  # built with k for √(k²): 1, not −1
    assert not Chain(S, Context({"h": sp.Ge(j, 1)})).eq(-1, by.identity()).prove(S, "=", -1).complete
    # for the free j the hypothesis gives the range k's assumption
    inner = sp.Sum(sp.sqrt(k**2), (k, j, j))
    assert Chain(inner, Context({"h": sp.Ge(j, 1)})).eq(j, by.identity()).prove(inner, "=", j).complete


def test_a_hypothesis_for_every_index_is_not_read_under_a_range_an_outer_binder_fixes():
    i = sp.Symbol("i", integer=True, positive=True)
    a = sp.IndexedBase("a")
    S = sp.Sum(sp.Sum(a[i], (i, j, j)), (j, -1, -1))  # a[-1], which "a[i] = 0 for i >= 1" does not reach
    ctx = Context({"A": sp.Eq(a[i], 0), "h": sp.Ge(j, 1)})
    bad = Chain(S, ctx).eq(sp.Sum(0, (i, j, j), (j, -1, -1)), by.hypothesis("A")).eq(0, by.identity())
    assert not bad.prove(S, "=", 0).complete
    inner = sp.Sum(a[i], (i, j, j))
    ok = Chain(inner, ctx).eq(sp.Sum(0, (i, j, j)), by.hypothesis("A")).eq(0, by.identity())
    assert ok.prove(inner, "=", 0).complete


def test_an_integral_with_one_end_runs_from_zero():
    t = sp.Symbol("t", positive=True)
    L = sp.Integral(sp.sqrt(t**2), (t, -1))  # built as ∫^{−1} t dt = 1/2; over real t it is −1/2
    assert not Chain(L).eq(sp.Rational(1, 2), by.identity()).prove(L, "=", sp.Rational(1, 2)).complete
    R = sp.Integral(sp.sqrt(t**2), (t, 2))  # over 0 … 2, where t > 0 holds
    assert Chain(R).eq(2, by.identity()).prove(R, "=", 2).complete


def test_a_one_sided_limit_runs_over_the_side_it_comes_from():
    z = sp.Symbol("z", nonnegative=True)
    L = sp.Limit(sp.Abs(z) / z, z, 0, "-")  # built as lim 1; over real z it is −1
    assert not Chain(L).eq(1, by.identity()).prove(L, "=", 1).complete
    R = sp.Limit(sp.Abs(z) / z, z, 0, "+")
    assert Chain(R).eq(1, by.identity()).prove(R, "=", 1).complete


def test_an_integral_transforms_variable_carries_no_assumption():
    t, s = sp.Symbol("t", negative=True), sp.Symbol("s", positive=True)
    L1, L2 = sp.LaplaceTransform(sp.sqrt(t**2), t, s), sp.LaplaceTransform(-t, t, s)  # L1 built as L2
    assert not Chain(L1).eq(L2, by.identity()).prove(L1, "=", L2).complete
    u = sp.Symbol("u")
    M = sp.LaplaceTransform(u**2, u, s)
    assert Chain(M).eq(M + 0, by.identity()).prove(M, "=", M).complete


def test_a_power_whose_exponent_may_be_zero_is_not_surely_undefined_at_its_base_zeros():
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", nonnegative=True)
    P = 1 / sp.sqrt(x**y)  # 1 at x = 0, y = 0
    assert surely_undefined(P) == (frozenset(), frozenset())
    bad = Chain(x - 1 + P, Context({"h": sp.Eq(x**2 - x, 0)})).eq((x**2 - x) / x + P, by.identity()).eq(P, by.hypothesis("h"))
    assert not bad.prove(x - 1 + P, "=", P).complete  # 0 = 1 at x = 0, y = 0
    # an exponent known positive keeps the base's zeros: 1/x^y is undefined at x = 0 for y > 0
    yp = sp.Symbol("yp", positive=True)
    assert x in surely_undefined(1 / x**yp)[0]
    Q = 1 / x
    ok = Chain(x - 1 + Q, Context({"h": sp.Eq(x**2 - x, 0)})).eq((x**2 - x) / x + Q, by.identity()).eq(Q, by.hypothesis("h"))
    assert ok.prove(x - 1 + Q, "=", Q).complete
