"""Review 60 of the kernel (attacking review 59's fix, which refused only an equation with random
values on both sides, on different spaces, compared as sets of spaces per side):

* X − Cond(X, A) = 0, X + Cond(2X, A) = 2X + Cond(X, A) and the same behind a zero written
  (t + 1)² − t² − 2t − 1 each mix two spaces within a side, and substituted under a mean gave
  E[X] = E[X | A] (1/2 against 1 for X uniform on {0, 1}, A: X >= 1);
* the inequality X − Cond(X, A) >= 0 was never checked: markov read Z = X − Cond(X, A) as one
  random variable, 0 <= E[X] − E[X | A] (−1/2).

A relation that holds random values on two spaces pointwise is refused as a hypothesis, and a
mean or probability of such a value is refused in any step; means are numbers, so
E[X] = E[X | A]/2 is still a hypothesis.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Prob, by

D = sp.Function("D", real=True)
X = D(1)
A = sp.Ge(X, 1)
t = sp.Symbol("t", real=True)
ZERO = (t + 1) ** 2 - t ** 2 - 2 * t - 1


@pytest.mark.parametrize("h", [
    sp.Eq(X - Cond(X, A), 0),
    sp.Eq(X + Cond(2 * X, A), 2 * X + Cond(X, A)),
    sp.Eq(X + ZERO * Cond(X, A), Cond(X, A) + ZERO * X),
    sp.Ge(X - Cond(X, A), 0),
    sp.Le(Cond(X, sp.Ge(X, 2)), Cond(X, A)),
], ids=["one-side", "both-sides", "behind-zero", "inequality", "two-events"])
def test_a_relation_on_two_probability_spaces_is_refused(h):
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({"H": h})


def test_a_mean_of_a_value_on_two_spaces_is_refused_in_a_step():
    Z = X - Cond(X, A)
    ch = (Chain(sp.Integer(0)).le(Prob(sp.Ge(Z, 1)), by.probability()).le(Expect(Z), by.markov(Z, 1))
          .eq(Expect(X) - Expect(Cond(X, A)), by.linearity()))
    res = ch.prove(0, "<=", Expect(X) - Expect(Cond(X, A)))
    assert not res.complete and "different probability spaces" in res.first_failure


def test_relations_between_means_and_on_one_space_stay_hypotheses():
    Context({"m": sp.Eq(Expect(X), Expect(Cond(X, A)) / 2), "c": sp.Ge(Cond(X, A), 1), "x": sp.Ge(X, 0)})
    chain = Chain(Expect(Cond(X, A)), Context({"c": sp.Ge(Cond(X, A), 1)}))
    sub = Chain(sp.Integer(1), Context({"c": sp.Ge(Cond(X, A), 1)})).le(Cond(X, A), by.hypothesis("c"))
    res = chain.ge(Expect(sp.Integer(1)), by.expect_monotone(sub)).eq(1, by.linearity()).prove(Expect(Cond(X, A)), ">=", 1)
    assert res.complete, res.first_failure


def test_a_doubly_conditioned_value_is_on_one_space():
    """Cond(Cond(X, A), B) is X on A and B: one space, so a relation about it alone stays a
    hypothesis (and instance's own check, not this one, refuses it for a random symbol)."""
    B = sp.Ge(X, 2)
    Context({"h": sp.Ge(Cond(Cond(X, A), B), 0)})
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({"h": sp.Ge(Cond(Cond(X, A), B), Cond(X, A))})
