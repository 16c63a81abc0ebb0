"""A twenty-seventh review (a fuzzer of 6,958 queries over the probability, matrix and sub-chain
rules, checked against finite probability spaces, then by hand) found one more hole, with five
ways through it, kept here as regressions beside a true variant: a chain passed through zoo (a
hypothesis x = 0 put into 1/x), so it related two ends that are undefined at every admissible
point, and termwise, algebra-facts, a Lemma hypothesis, instance's discharge and hoeffding's
range then used its relation where the outer statement is defined (0 <= -5 at x = 0). Complex
infinity and nan are now defined nowhere: a chain may not pass through them."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Expect, Lemma, Prob, by, undefined_parts

x, y, w = sp.symbols("x y w", real=True)
at0 = Context({"x0": sp.Eq(x, 0)})


def _vacuous(lhs, rhs):
    """lhs = zoo = rhs under x = 0: both ends undefined there (lhs, rhs hold 1/x)."""
    return Chain(lhs, at0).eq(sp.zoo, by.hypothesis("x0")).eq(rhs, by.hypothesis("x0"))


def test_complex_infinity_is_defined_nowhere():
    assert sp.S.Zero in undefined_parts(sp.zoo)[0] and sp.S.Zero in undefined_parts(x + sp.nan)[0]
    assert not _vacuous(1 / x, 1 / x - 5).prove(1 / x, "=", 1 / x - 5).complete
    # a chain that stays where its ends are defined is unaffected
    assert Chain(1 / x, Context({"x1": sp.Eq(x, 1)})).eq(1, by.hypothesis("x1")).prove(1 / x, "=", 1).complete


def test_a_vacuous_relation_is_no_premise_for_the_rules_that_use_one():
    t1, t2 = _vacuous(1 / x, 1 / x - 5), Chain(-1 / x, at0).eq(-1 / x, by.identity())
    terms = Chain(sp.Integer(0), at0).le(sp.Integer(-5), by.termwise(pairs=[(1 / x, 1 / x - 5), (-1 / x, -1 / x)], term=[t1, t2]))
    assert not terms.prove(0, "<=", -5).complete  # 0 <= -5 at x = 0
    fact = _vacuous(1 / x + y, 1 / x - 5).le(1 / x - 5, by.algebra())
    assert not Chain(y, at0).le(-5, by.algebra_facts(fact)).prove(y, "<=", -5).complete  # y = 0
    lemma = Context({"x0": sp.Eq(x, 0), "L": Lemma(fact, 1 / x + y, "<=", 1 / x - 5)})
    assert not Chain(y, lemma).le(-5, by.algebra()).prove(y, "<=", -5).complete
    a, k = sp.IndexedBase("a"), sp.Symbol("k", integer=True)
    T = Lemma(Chain(w, Context({"P": sp.Le(a[1] + w, a[1] - 5)})).le(-5, by.algebra()), w, "<=", -5)
    cite = Chain(y, at0).le(-5, by.instance(T, {w: y, a: sp.Lambda(k, 1 / x)}, {"P": fact}))
    assert not cite.prove(y, "<=", -5).complete
    D = sp.Function("D", real=True)
    L1 = Lemma(_vacuous(2 / x, D(1) + 1 / x).le(D(1) + 1 / x, by.algebra()), 2 / x, "<=", D(1) + 1 / x)
    L2 = Lemma(_vacuous(D(1) + 1 / x, 2 / x + 1).le(2 / x + 1, by.algebra()), D(1) + 1 / x, "<=", 2 / x + 1)
    tail = Prob(sp.Le(D(1) - Expect(D(1)), -10))  # 1/2 for D(1) = 0 or 100, equally likely
    hoeff = Chain(tail, Context({"x0": sp.Eq(x, 0), "L1": L1, "L2": L2})).le(sp.exp(-200), by.hoeffding(D(1), 10, 1 / x, 1 / x + 1))
    assert not hoeff.prove(tail, "<=", sp.exp(-200)).complete
