"""A nineteenth review found three more ways to a false statement, kept here as regressions beside
true variants: condition read D(i) as a 0/1 indicator where the statement compared D's values
(P(D(i) >= 2) <= 1/2 for every D >= 0, through a lemma E[D(i)] = P(D(i)); and under
Σ_j D(j) >= 2n, which named D at another index); a WeightedNorm whose norm f is negative passed
(0 <= −1); and a Subs put a random point into a probability (P(D >= x) at x := D is not P(True))."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Expect, Lemma, Prob, WeightedNorm, by

i = sp.Symbol("i")



def test_no_indicator_reading_where_the_statement_compares_the_values(event_split):
    D = sp.Function("D", nonnegative=True)
    X, p = D(i), sp.Symbol("p")
    lemma = event_split(X)
    assert lemma.prove(Expect(X), "=", Prob(X)).complete  # E[D(i)] = P(D(i)) for an event D(i)
    ctx = Context({"EP": Lemma(lemma, Expect(X), "=", Prob(X))})
    goal = Prob(X >= 2)  # 1 for D = 3 surely
    c = (Chain(goal, ctx).le(Expect(X) / 2, by.markov(X, 2)).eq(Prob(X) / 2, by.hypothesis("EP"))
         .le(sp.Rational(1, 2), by.monotone_chain(p, p / 2, Prob(X), 1, Chain(Prob(X)).le(1, by.probability()))))
    assert not c.prove(goal, "<=", sp.Rational(1, 2)).complete
    # a hypothesis about D at another index
    k, j = sp.symbols("k j", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    E = sp.Function("E_")
    ctx = Context({"big": sp.Sum(E(j), (j, 1, n)) >= 2 * n})  # E ≡ 2, n = 1: Σ_k E[E(k)] = 2 > 1
    term = event_split(E(k)).le(1, by.probability())
    lhs = sp.Sum(Expect(E(k)), (k, 1, n))
    c = Chain(lhs, ctx).le(sp.Sum(1, (k, 1, n)), by.termwise(k, 1, n, term=term)).eq(n, by.identity())
    assert not c.prove(lhs, "<=", n).complete
    # nor where only the proof makes E_(k) an event (the twentieth review): Σ_k E[E_(k)] <= n is
    # false for E_ ≡ 2, whatever the proof splits on
    c = Chain(lhs).le(sp.Sum(1, (k, 1, n)), by.termwise(k, 1, n, term=term)).eq(n, by.identity())
    assert not c.prove(lhs, "<=", n).complete


def test_a_weighted_norm_cannot_be_negative():
    one = sp.Integer(1)
    assert not Chain(sp.Integer(0), Context({"s": WeightedNorm(-one, one, one, one)})).le(-1, by.weighted_norm("s")).prove(0, "<=", -1).complete
    D = sp.Function("D", positive=True)
    ctx = Context({"s": WeightedNorm(-D(i), one, one, one)})
    assert not Chain(sp.Integer(0), ctx).le(-D(i), by.weighted_norm("s")).prove(0, "<=", -D(i)).complete
    t = sp.Symbol("t", positive=True)
    tail = Prob(-D(i) - Expect(-D(i)) >= t)
    assert not Chain(tail, ctx).le(sp.exp(-t**2 / 2), by.mcdiarmid(-D(i), t, "s")).prove(tail, "<=", sp.exp(-t**2 / 2)).complete
    ok = Context({"s": WeightedNorm(D(i), one, one, one)})
    assert Chain(sp.Integer(0), ok).le(D(i), by.weighted_norm("s")).prove(0, "<=", D(i)).complete


def test_a_subs_does_not_put_a_random_point_into_a_probability():
    x, y = sp.symbols("x y", real=True)
    D = sp.Function("D", real=True)
    at_D = sp.Subs(Prob(D(i) >= x), x, D(i))  # 1/2 w.p. 1/2 for D uniform on {0, 1}
    assert not Chain(at_D).eq(Prob(sp.true), by.identity()).eq(1, by.indicator_algebra()).prove(at_D, "=", 1).complete
    lhs = sp.Subs(Expect(y * D(i)), y, D(i))  # D E[D], not E[D²]
    assert not Chain(lhs).eq(Expect(D(i) ** 2), by.identity()).prove(lhs, "=", Expect(D(i) ** 2)).complete
    at_2 = sp.Subs(Prob(D(i) >= x), x, 2)  # a constant point is substituted
    assert Chain(at_2).eq(Prob(D(i) >= 2), by.identity()).prove(at_2, "=", Prob(D(i) >= 2)).complete
