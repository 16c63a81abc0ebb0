"""Review 58 of the kernel (attacking review 57's fixes; the rules that mix probability spaces):

* expect-monotone took Σ_i (−1)^i Cond(D, D >= i) for one space, though its event is another at
  each i: E[D | D >= 2] − E[D | D >= 1] <= 0 passed (1/2 for D uniform on {0, 1, 2});
* a definition given as a Lemma (``defs=`` naming it) was not among the indices a cited theorem
  reads for every value, so ``instance`` substituted it (Σ_m g[m] = 0 from g[1] = 0);
* a Lemma whose chain is no Chain, or whose side SymPy cannot read, made prove() raise.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Lemma, by

i = sp.Symbol("i", integer=True, positive=True)


def test_an_event_that_varies_with_a_summation_index_is_not_one_space():
    D = sp.Function("D", real=True)
    X = D(1)

    def A(k):
        return Cond(X, sp.Ge(X, k))

    with pytest.raises(TypeError, match="different probability spaces"):  # review 60: refused as a hypothesis
        Context({"H": sp.Le(A(2), A(1))})
    # and without it the chain still fails: Σ_i (−1)^i Cond(D, D >= i) is a mean over two spaces
    ctx = Context({})
    S = sp.Sum((-1) ** i * Cond(X, sp.Ge(X, i)), (i, 1, 2))
    sub = Chain(S, ctx).eq(A(2) - A(1), by.identity()).le(0, by.algebra())
    goal = Expect(A(2)) - Expect(A(1))
    chain = (Chain(goal, ctx)
             .eq(sp.Sum((-1) ** i * Expect(Cond(X, sp.Ge(X, i))), (i, 1, 2)), by.identity())
             .eq(sp.Sum(Expect((-1) ** i * Cond(X, sp.Ge(X, i))), (i, 1, 2)), by.linearity())
             .eq(Expect(S), by.expect_sum())
             .le(Expect(sp.Integer(0)), by.expect_monotone(sub))
             .eq(0, by.linearity()))
    assert not chain.prove(goal, "<=", 0).complete


def test_a_lemma_given_as_a_definition_is_read_for_every_index():
    j, m = sp.symbols("j m", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    g = sp.IndexedBase("g", real=True)
    P = sp.Eq(g[j], 0)
    L = Lemma(Chain(g[j], Context({"P": P})).eq(0, by.hypothesis("P")), g[j], "=", 0)
    S = sp.Sum(g[m], (m, 1, n))
    T = Lemma(Chain(S, Context({"P": P, "L": L})).eq(0, by.index_identity(defs="L")), S, "=", 0)
    res = Chain(S, Context({"g1": sp.Eq(g[1], 0)})).eq(0, by.instance(T, {j: 1}, {"P": "g1"})).prove(S, "=", 0)
    assert not res.complete  # g = (0, 5) at n = 2: g[1] = 0, the sum is 5


def test_a_malformed_lemma_is_refused_when_built():
    x = sp.Symbol("x", real=True)
    with pytest.raises(TypeError, match="chain: expected a Chain, got int"):
        Lemma(5, x, "<=", 1)
    with pytest.raises(TypeError, match="lhs: expected a SymPy expression, got str"):
        Lemma(Chain(x, Context({})).le(x, by.algebra()), "x**", "<=", 1)
