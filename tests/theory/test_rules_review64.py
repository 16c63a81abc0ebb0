"""Review 64 of the kernel (probability spaces and conditioned values, after reviews 59-63):

* a conditioned value outside a mean was read as defined where its event is null: c = Cond(c, A)
  ("c is c where A holds") and Cond(c, A) >= 1 ("c >= 1 where A holds") are both vacuous when A
  cannot happen, and the chain c = Cond(c, A) >= 1 proved c >= 1 (false at c = 0 with A = x >= 1,
  x = 0, or A = D >= 5 for D = 0); 1 = Cond(1, A) >= 2 proved 1 >= 2. Review 61 made E[X | A]
  undefined where P(A) = 0; Cond(X, A) itself (and so P(B | A), an event's probability on the
  space given A) is now undefined there too, so a chain through it needs P(A) proved non-zero.
  (The same reading makes a hypothesis c >= ‖Cond(u, A)‖ say nothing where P(A) = 0, from which
  algebra took c >= 0.)
* a fact was not checked for probability spaces (review 60 checked relations and lemmas):
  WeightedNorm(D − Cond(D, A), 1, 1, 1) gave D >= Cond(D, A) through weighted-norm's 0 <= f, and
  a pointwise sub-chain 1 <= Cond(D, A) <= D under expect-monotone gave E[D] >= 1 from "D >= 1
  where D >= 1" (E[D] = 1/2 for D uniform on {0, 1});
* total-expectation took events on a conditioned space for a partition of the whole space:
  Cond(D, C) >= 2 and Cond(D, C) < 2 partition the space given C, and their sum
  P(B1) E[D | B1] + P(B2) E[D | B2] is E[D | C], not E[D] (3/2 against 1 for D uniform on
  {0, 1, 2}, C: D >= 1).
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import (
    BoundedDifferences,
    Chain,
    Cond,
    Context,
    Expect,
    Indicator,
    Norm,
    Prob,
    WeightedNorm,
    by,
    undefined_parts,
    vector,
)

c = sp.Symbol("c", real=True)
x = sp.Symbol("x", real=True)
D = sp.Function("D", real=True)(1)
NULL = sp.Ge(D, 5)  # null for D = 0
IMPOSSIBLE = sp.Ge(x, 1)  # at x = 0


@pytest.mark.parametrize("A", [IMPOSSIBLE, NULL], ids=["impossible", "null"])
def test_a_conditioned_value_in_a_chains_middle_needs_its_event_possible(A):
    def chain(extra):
        ctx = Context({"h": sp.Ge(Cond(c, A), 1), "same": sp.Eq(c, Cond(c, A)), **extra})
        return (Chain(c, ctx).eq(Cond(c, A), by.hypothesis("same")).ge(1, by.hypothesis("h"))
                .prove(c, ">=", 1))

    res = chain({})
    assert not res.complete
    assert "Cond(c" in res.first_failure and "not proved non-zero" in res.first_failure
    assert chain({"p": sp.Gt(Prob(A), 0)}).complete  # where A can happen, c >= 1 on A is c >= 1


def test_one_is_not_two_where_a_null_event_would_say_so():
    one = Cond(sp.Integer(1), NULL)  # 1 on the space given D >= 5
    ctx = Context({"h": sp.Ge(one, 2), "same": sp.Eq(1, one)})  # "1 >= 2 where D >= 5": D = 0 never gets there
    res = Chain(sp.Integer(1), ctx).eq(one, by.hypothesis("same")).ge(2, by.hypothesis("h")).prove(1, ">=", 2)
    assert not res.complete and "not proved non-zero" in res.first_failure


def test_a_conditioned_value_is_undefined_where_its_event_is_null():
    u = vector("u")
    P = Prob(NULL)
    for e in (Cond(c, NULL), Norm(Cond(u, NULL)), Prob(sp.Ge(Cond(D, NULL), 1)), Indicator(sp.Ge(Cond(D, NULL), 1))):
        assert P in undefined_parts(e)[0], e
    # under a factor P(A), as in the law of total expectation, it is 0 there (review 61)
    assert undefined_parts(P * Cond(D, NULL)) == (frozenset(), frozenset())
    assert undefined_parts(P * Expect(Cond(D, NULL))) == (frozenset(), frozenset())


@pytest.mark.parametrize("fact", [
    WeightedNorm(D - Cond(D, sp.Ge(D, 1)), 1, 1, 1),
    BoundedDifferences(D - Cond(D, sp.Ge(D, 1)), 1),
], ids=["weighted-norm", "bounded-differences"])
def test_a_fact_on_two_probability_spaces_is_refused(fact):
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({"w": fact})


def test_the_sub_chain_a_mixed_fact_gave_is_refused_and_one_space_facts_stay():
    A = sp.Ge(D, 1)
    hyps = {"h": sp.Ge(Cond(D, A), 1), "p": sp.Gt(Prob(A), 0)}
    with pytest.raises(TypeError, match="different probability spaces"):
        Context({**hyps, "w": WeightedNorm(D - Cond(D, A), 1, 1, 1)})
    # a weighted norm on one space (given A) is still a fact
    ctx = Context({**hyps, "w": WeightedNorm(Cond(D, A), 1, 1, 1)})
    res = Chain(Cond(D, A), ctx).le(1, by.weighted_norm("w")).prove(Cond(D, A), "<=", 1)
    assert res.complete, res.first_failure


def test_total_expectation_events_partition_the_whole_space():
    C = sp.Ge(D, 1)
    B1, B2 = sp.Ge(Cond(D, C), 2), sp.Lt(Cond(D, C), 2)
    rhs = Prob(B1) * Expect(Cond(D, B1)) + Prob(B2) * Expect(Cond(D, B2))
    res = Chain(Expect(D)).eq(rhs, by.total_expectation([B1, B2])).prove(Expect(D), "=", rhs)
    assert not res.complete and "conditioned" in res.first_failure
    # events of the whole space still split E[D]
    A1, A2 = sp.Ge(D, 2), sp.Lt(D, 2)
    rhs = Prob(A1) * Expect(Cond(D, A1)) + Prob(A2) * Expect(Cond(D, A2))
    res = Chain(Expect(D)).eq(rhs, by.total_expectation([A1, A2])).prove(Expect(D), "=", rhs)
    assert res.complete, res.first_failure
