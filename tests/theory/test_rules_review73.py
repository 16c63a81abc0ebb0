"""Review 73 of the kernel (helper, about 75 minutes): lemma and theorem instantiation, the
indicator reading of ``condition`` carried through a cited theorem's lemma, and the cover of
``monotone-chain`` by a factor P(B) of another event.

No hole was found in the time given. Kept below as regressions (each test fails if the kernel
accepts the false chain):

* ``instance`` of a theorem whose *context* holds a lemma that reads D(i) as its 0/1 indicator
  (E[D(i)] = P(D(i)) by total expectation and ``condition``): the outer chain's own rules do not
  name ``condition`` (it sits in the cited theorem's lemma), so the outer indicator-conflict check
  is not where it is caught; the cited theorem's own check is (its context holds the lemma's
  relation E[D] = P(D), which compares D's values), and ``instance`` refuses the theorem.
  False conclusion: P(D(i) >= 2) <= 1/2 for D >= 0; model D(i) = 3 surely: 1 > 1/2.
* ``monotone-chain`` with g(t) = P(B) t, a factor P(B) of an event B other than the event A of
  the conditioned mean the order sub-chain passes through: the order 1 <= c comes from the
  vacuous "c >= 1 where A holds". False conclusion: P(B) <= P(B) c; model D ≡ 0 (A = D >= 5 null,
  B = D <= 1 sure), c = 0: 1 <= 0. The sub-chain is refused (its middle E[c | A] needs P(A) != 0).

Leads examined by reading, not turned into false statements: ``_term_rules`` does not collect the
rules of the lemmas in ``mean-value``'s Jacobian-chain context (so the outer ``condition`` check
cannot see them), but the Jacobian chain's own check reads those lemmas' relations, which compare
the event's values, and refuses; ``_readable`` passes equations holding conditioned values to the
sign oracle, which reads inequalities only; ``abs-bound``'s Kronecker case puts b := a with
SymPy's ``subs``, which writes a derivative by b as a ``Subs`` (exact); ``instance``'s literal
discharge of a premise holding Cond(c, A) is reached only after every value is proved defined
where the step is, and under a factor P(A) the instance is true at P(A) = 0.
"""

import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Lemma, Prob, by

i = sp.Symbol("i")
p = sp.Symbol("p")


def test_an_event_reading_in_a_cited_theorems_lemma_is_refused(event_split):
    """False: P(D(i) >= 2) <= 1/2 for every D >= 0 (D(i) = 3 surely gives 1). The reading
    E[D] = P(D) is a lemma of the cited theorem's context, not of this chain's."""
    D = sp.Function("D", nonnegative=True)
    X = D(i)
    lemma = Lemma(event_split(X), Expect(X), "=", Prob(X))
    thm = Lemma(Chain(Expect(X) / 2, Context({"EP": lemma})).eq(Prob(X) / 2, by.hypothesis("EP")),
                Expect(X) / 2, "=", Prob(X) / 2)
    goal = Prob(X >= 2)
    c = (Chain(goal).le(Expect(X) / 2, by.markov(X, 2)).eq(Prob(X) / 2, by.instance(thm, {p: p}))
         .le(sp.Rational(1, 2), by.monotone_chain(p, p / 2, Prob(X), 1, Chain(Prob(X)).le(1, by.probability()))))
    res = c.prove(goal, "<=", sp.Rational(1, 2))
    assert not res.complete
    assert "compared in a relation" in res.first_failure, res.first_failure


def test_monotone_chain_takes_no_cover_from_the_probability_of_another_event():
    """False: P(B) <= P(B) c. Model: D ≡ 0, so A = (D >= 5) is null (the hypothesis c >= 1 where A
    holds is vacuous) and B = (D <= 1) is sure; c = 0 gives 1 <= 0."""
    D = sp.Function("D", nonnegative=True)(1)
    c, t = sp.Symbol("c", real=True), sp.Symbol("t", real=True)
    A, B = sp.Ge(D, 5), sp.Le(D, 1)
    ctx = Context({"h": sp.Ge(Cond(c, A), 1)})
    sub = (Chain(sp.Integer(1), ctx).eq(Expect(sp.Integer(1)), by.linearity())
           .le(Expect(Cond(c, A)), by.expect_monotone(Chain(sp.Integer(1), ctx).le(Cond(c, A), by.hypothesis("h"))))
           .eq(c, by.condition()))
    g = Prob(B) * t
    res = Chain(g.subs(t, 1), ctx).le(g.subs(t, c), by.monotone_chain(t, g, 1, c, sub)).prove(
        g.subs(t, 1), "<=", g.subs(t, c))
    assert not res.complete
    assert "proves neither a <= b nor b <= a" in res.first_failure, res.first_failure
