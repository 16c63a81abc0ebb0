"""Review 57 of the kernel (the rules attacked least: cases, min-max, max-bound, the probability
and matrix rules) found two holes in ``cases`` and one in ``expect-monotone``:

* a split identically 0 that SymPy leaves unevaluated made the literal 0 of Max(x, 0) both "the
  0" and "the split", so Max(x, 0) read as 0 where the split is <= 0: Max(x, 0) <= 0 passed;
* the case y[k] > 0 about one k was read for every k by a sub-chain's max-bound at the generic
  index k (cases refused a split only where a binder bound its symbols):
  Max(y_k, 0) · max_j(−y_j) <= 0 passed, 1 at n = 2, k = 1, y = (1, −1);
* expect-monotone compared means on two probability spaces: E[D | D >= 1] <= E[D] from
  D <= D where D >= 1 (false for D in {0, 2}).
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, MaxOver, by


def test_a_split_identically_zero_does_not_decide_a_max():
    x = sp.Symbol("x", real=True)
    e = (x + 1) ** 2 - x**2 - 2 * x - 1  # 0, left unevaluated
    pos = Chain(e, Context({})).le(0, by.algebra())
    nonpos = Chain(sp.Integer(0), Context({})).le(0, by.algebra())
    lhs = sp.Max(x, 0)
    assert not Chain(lhs, Context({})).le(0, by.cases(e, pos=pos, nonpos=nonpos)).prove(lhs, "<=", 0).complete
    # a real split still decides Max(split, 0): Max(x, 0) <= |x|
    pos = Chain(x, Context({})).le(sp.Abs(x), by.algebra())
    nonpos = Chain(sp.Integer(0), Context({})).le(sp.Abs(x), by.algebra())
    assert Chain(lhs, Context({})).le(sp.Abs(x), by.cases(x, pos=pos, nonpos=nonpos)).prove(lhs, "<=", sp.Abs(x)).complete


def test_a_case_about_one_index_is_not_read_for_every_index():
    k, j = sp.symbols("k j", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    y = sp.IndexedBase("y", real=True)
    ctx = Context({})
    M = MaxOver(sp.Lambda(j, -y[j]), n)
    lhs = sp.Max(y[k], 0) * M
    term = Chain(-y[k], ctx).le(0, by.algebra())  # uses the case y[k] > 0
    fact = Chain(M, ctx).le(0, by.max_bound(M, 0, k, term))  # k taken as a generic index
    pos = Chain(y[k] * M, ctx).le(0, by.algebra_facts(fact))
    nonpos = Chain(sp.Integer(0), ctx).le(0, by.algebra())
    assert not Chain(lhs, ctx).le(0, by.cases(y[k], pos=pos, nonpos=nonpos)).prove(lhs, "<=", 0).complete


def test_expect_monotone_keeps_to_one_probability_space():
    D = sp.Function("D", real=True)
    X = Cond(D(1), sp.Ge(D(1), 1))
    with pytest.raises(TypeError, match="different probability spaces"):  # review 60: refused as a hypothesis
        Context({"H": sp.Le(X, D(1))})
    # the rule's own check still stands: a sub-chain by algebra from a one-space hypothesis
    ctx = Context({"H": sp.Ge(X, 1)})
    sub = Chain(X, ctx).le(D(1), by.argued("X on D >= 1 is at most D"))
    res = Chain(Expect(X), ctx).le(Expect(D(1)), by.expect_monotone(sub)).prove(Expect(X), "<=", Expect(D(1)))
    assert not res.complete  # E[D | D >= 1] = 2 > 1 = E[D] for D in {0, 2} with probability 1/2 each
    same = Chain(D(1), Context({"H": sp.Le(D(1), D(2))})).le(D(2), by.hypothesis("H"))
    res = Chain(Expect(D(1)), Context({"H": sp.Le(D(1), D(2))})).le(Expect(D(2)), by.expect_monotone(same))
    assert res.prove(Expect(D(1)), "<=", Expect(D(2))).complete
