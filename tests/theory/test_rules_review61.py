"""Review 61 of the kernel (attacking review 60's fix):

* a conditioned constant was on no space: D = Cond(1, D >= 1) ("D is 1 where D >= 1", true for
  D uniform on {0, 1}) was a hypothesis, and E[D] = E[Cond(1, A)] = 1 was proved (it is 1/2);
* a mean on a null event was read as a number: from Cond(c, A) >= 1 (c >= 1 wherever A holds,
  vacuous when A cannot happen) `condition` and `expect-monotone` gave c >= 1, false at c = 0.
  E[X | A] is E[X 1_A]/P(A): a chain through it needs P(A) proved non-zero, as any division.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Prob, by

D = sp.Function("D", nonnegative=True)(1)
c = sp.Symbol("c", real=True)


def test_a_conditioned_constant_is_on_its_events_space():
    A = sp.Ge(D, 1)
    for h in (sp.Eq(D, Cond(1, A)), sp.Ge(D - Cond(1, A), 0)):
        with pytest.raises(TypeError, match="different probability spaces"):
            Context({"H": h})
    Context({"H": sp.Ge(Cond(c, A), 1)})  # one space: still a hypothesis


@pytest.mark.parametrize("A", [sp.Lt(D, 0), sp.Ge(D, 5)], ids=["impossible", "null"])
def test_a_mean_given_an_event_needs_its_probability_non_zero(A):
    def chain(ctx):
        sub = Chain(sp.Integer(1)).le(Cond(c, A), by.hypothesis("h"))
        return (Chain(c, ctx).eq(Expect(Cond(c, A)), by.condition())
                .ge(Expect(sp.Integer(1)), by.expect_monotone(sub)).eq(1, by.linearity()).prove(c, ">=", 1))

    res = chain(Context({"h": sp.Ge(Cond(c, A), 1)}))
    assert not res.complete and "Prob(" in res.first_failure and "not proved non-zero" in res.first_failure
    if A is not sp.false:  # with P(A) > 0 given, the same chain is a proof: c >= 1 wherever A can happen
        assert chain(Context({"h": sp.Ge(Cond(c, A), 1), "p": sp.Gt(Prob(A), 0)})).complete
