"""Review 65 of the kernel (attacking review 64's "a conditioned value is undefined where its event
is null", then the rest):

* a doubly conditioned value Cond(Cond(W, A), B) is W on the space given A and B (review 60), which
  does not exist where P(A and B) = 0, but the kernel asked only for P(A) != 0 and P(B) != 0: with
  P(A), P(B) > 0 stated, c = Cond(Cond(c, A), B) >= 1 proved c >= 1 from "c >= 1 where A and B
  hold", vacuous for A: D >= 1, B: D <= 0 (false at c = 0, D uniform on {0, 1}). It now needs
  P(A and B) proved non-zero.
* a hypothesis holding a conditioned value says nothing where its event is null (review 64), but
  the kernel read it there wherever the step itself held no conditioned value: the sign oracle took
  c >= 0 from c >= ‖Cond(u, A)‖ (the case review 64's notes named) and c >= 1 from
  c >= 1 + P(Cond(D, A) >= 1); the rule ``hypothesis`` took c + Cond(0, A) >= 1 + Cond(0, A) for
  the step c >= 1 (its sides' difference c − 1, the conditioned value cancelled); ``defs=`` made
  f[1] = f[2] from f[k] = Cond(0, A). Each is false where A is null (c = 0 or −1, f = (0, 1)).
  Such a hypothesis is now read only where P(A) is proved non-zero (from the hypotheses that hold no
  conditioned value), where the step is itself undefined, or where the step holds trivially
  (its sides equal with P(A) := 0, as T1ii's substitutions under a factor P(A) are).
* a conditioned value under a factor P(A) in an end, T = P(A)·Cond(c, A), made Cond(c, A) a node
  "surely undefined in the ends", so a bare Cond(c, A) passed through the chain's middle without
  P(A) != 0: c + T >= 1 + T from "c >= 1 where A holds" (0 >= 1 where A is null, T = 0 there),
  and so did the probability or the indicator of an event on the space given A, T = P(A)·P(D >= 1 | A),
  from "c >= 1 + P(D >= 1 | A)". Review 62 closed this for E[X | A] only.
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import (
    Chain,
    Cond,
    Context,
    Expect,
    Indicator,
    Norm,
    Prob,
    by,
    undefined_parts,
    vector,
)

c = sp.Symbol("c", real=True)
y = sp.Symbol("y", real=True)
D = sp.Function("D", real=True)(1)
NULL = sp.Ge(D, 5)  # null for D = 0
IMPOSSIBLE = sp.Ge(c, 1)  # impossible at c = 0
Z = Cond(sp.Integer(0), NULL)  # "0 where D >= 5": nothing where D >= 5 is null


def _double(extra):
    A, B = sp.Ge(D, 1), sp.Le(D, 0)  # both possible for D uniform on {0, 1}, never together
    V = Cond(Cond(c, A), B)
    ctx = Context({"pa": sp.Gt(Prob(A), 0), "pb": sp.Gt(Prob(B), 0), "h": sp.Ge(V, 1), "same": sp.Eq(c, V), **extra})
    return Chain(c, ctx).eq(V, by.hypothesis("same")).ge(1, by.hypothesis("h")).prove(c, ">=", 1)


def test_a_doubly_conditioned_value_needs_both_events_possible_together():
    res = _double({})
    assert not res.complete
    assert "not proved non-zero" in res.first_failure and "&" in res.first_failure
    A, B = sp.Ge(D, 1), sp.Le(D, 0)
    assert Prob(sp.And(A, B)) in undefined_parts(Cond(Cond(c, A), B))[0]
    assert Prob(sp.And(A, B)) in undefined_parts(Expect(Cond(Cond(c, A), B)))[0]
    # under a factor P(A) the space given A and B is still needed where P(A) > 0
    assert Prob(sp.And(A, B)) in undefined_parts(Prob(A) * Cond(Cond(c, A), B))[0]
    # where A and B can happen together, c >= 1 on both is c >= 1
    assert _double({"pab": sp.Gt(Prob(sp.And(sp.Ge(D, 1), sp.Le(D, 0))), 0)}).complete


@pytest.mark.parametrize("h, goal", [
    (sp.Ge(c, Norm(Cond(vector("u"), NULL))), 0),
    (sp.Ge(c, 1 + Prob(sp.Ge(Cond(D, NULL), 1))), 1),
], ids=["norm", "probability"])
def test_the_sign_oracle_does_not_read_a_conditioned_hypothesis_where_its_event_is_null(h, goal):
    res = Chain(c, Context({"h": h})).ge(goal, by.algebra()).prove(c, ">=", goal)
    assert not res.complete and "algebra: cannot prove" in res.first_failure
    # where the event can happen, the hypothesis is read
    ctx = Context({"h": h, "p": sp.Gt(Prob(NULL), 0)})
    assert Chain(c, ctx).ge(goal, by.algebra()).prove(c, ">=", goal).complete


def test_a_step_about_the_conditioned_value_itself_still_reads_the_hypothesis():
    V = Cond(c, NULL)
    ctx = Context({"h": sp.Ge(V, 2)})
    res = Chain(V, ctx).ge(2, by.algebra()).prove(V, ">=", 2)  # undefined where D >= 5 is null: nothing to prove there
    assert res.complete, res.first_failure
    # and under a factor P(A) the step is 0 >= 0 where P(A) = 0
    P = Prob(NULL)
    res = Chain(P * V, ctx).ge(2 * P, by.algebra()).prove(P * V, ">=", 2 * P)
    assert res.complete, res.first_failure


@pytest.mark.parametrize("h, rel, rhs", [
    (sp.Ge(c + Z, 1 + Z), ">=", 1),
    (sp.Ge(c + Expect(Cond(c, NULL)), 1 + Expect(Cond(c, NULL))), ">=", 1),
], ids=["cancelled-cond", "cancelled-mean"])
def test_the_hypothesis_rule_does_not_read_a_conditioned_hypothesis_where_its_event_is_null(h, rel, rhs):
    def chain(extra):
        return Chain(c, Context({"h": h, **extra})).ge(rhs, by.hypothesis("h")).prove(c, rel, rhs)

    res = chain({})
    assert not res.complete
    assert "says nothing where Prob(D(1) >= 5) = 0" in res.first_failure
    assert chain({"p": sp.Gt(Prob(NULL), 0)}).complete


def test_a_definition_of_a_conditioned_value_is_not_read_where_its_event_is_null():
    k = sp.Symbol("k", integer=True)
    f = sp.IndexedBase("f", real=True)

    def chain(extra):
        ctx = Context({"def": sp.Eq(f[k], Z), **extra})
        return Chain(f[1], ctx).eq(f[2], by.index_identity(defs="def")).prove(f[1], "=", f[2])

    res = chain({})
    assert not res.complete and "definitions:" in res.first_failure and "says nothing" in res.first_failure
    assert chain({"p": sp.Gt(Prob(NULL), 0)}).complete


@pytest.mark.parametrize("A", [IMPOSSIBLE, NULL], ids=["impossible", "null"])
def test_a_covered_conditioned_value_in_an_end_does_not_cover_a_bare_one_in_the_middle(A):
    def chain(extra):
        V = Cond(c, A)
        T = Prob(A) * V  # 0 where A is null
        ctx = Context({"h": sp.Ge(V, 1), "same": sp.Eq(c, V), **extra})
        sub = Chain(c, ctx).eq(V, by.hypothesis("same"))
        return (Chain(c + T, ctx).eq(V + T, by.termwise(pairs=[(c, V), (T, T)], term=[sub, None]))
                .ge(1 + T, by.algebra()).prove(c + T, ">=", 1 + T))

    res = chain({})
    assert not res.complete and "not proved non-zero" in res.first_failure
    assert chain({"p": sp.Gt(Prob(A), 0)}).complete


@pytest.mark.parametrize("A", [IMPOSSIBLE, NULL], ids=["impossible", "null"])
@pytest.mark.parametrize("kind", [Prob, Indicator], ids=["probability", "indicator"])
def test_a_covered_event_given_a_in_an_end_does_not_cover_a_bare_one_in_the_middle(A, kind):
    """The same with P(D >= 1 | A) or 1[D >= 1 given A] for Cond(c, A): c >= 1 + V is "c >= 1 + V
    where A can happen", and c + P(A) V >= 1 + P(A) V is c >= 1 where A is null."""
    def chain(extra):
        V = kind(sp.Ge(Cond(D, A), 1))
        T = Prob(A) * V
        ctx = Context({"h": sp.Ge(c, 1 + V), **extra})
        sub = Chain(1 + V, ctx).le(c, by.hypothesis("h"))
        return (Chain(c + T, ctx).ge(1 + V + T, by.termwise(pairs=[(1 + V, c), (T, T)], term=[sub, None]))
                .ge(1 + T, by.algebra()).prove(c + T, ">=", 1 + T))

    res = chain({})
    assert not res.complete and "the chain passes through" in res.first_failure
    assert "not proved non-zero" in res.first_failure
    assert chain({"p": sp.Gt(Prob(A), 0)}).complete


def test_the_substitutions_under_a_factor_p_a_stay():
    """T1ii's kind: an equation about E[X | A] put in under a factor P(A), where both sides are 0
    if P(A) = 0, needs no P(A) != 0."""
    s = sp.Function("s", real=True)(1)
    A = sp.Ge(D, 5)
    mu = Expect(Cond(s, A))
    ctx = Context({"law": sp.Eq(mu, y)})
    res = Chain(Prob(A) * Norm(mu), ctx).eq(Prob(A) * Norm(y), by.hypothesis("law")).prove(
        Prob(A) * Norm(mu), "=", Prob(A) * Norm(y))
    assert res.complete, res.first_failure
