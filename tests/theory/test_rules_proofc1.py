"""The ``instance`` rule: citing a checked theorem under a substitution. It accepts a right
instantiation and rejects wrong ones (goal, substitution, assumptions, premises, capture)."""

import pytest
import sympy as sp

from attnbounds.theory.proof import RULES, Chain, Context, Lemma, by

x, M = sp.symbols("x M", real=True)
c = sp.Symbol("c", positive=True)
u, b, d, vv = sp.symbols("u b d v", real=True)
n = sp.Symbol("n", positive=True, integer=True)
j = sp.Symbol("j", positive=True, integer=True)
F = sp.IndexedBase("F", real=True)
g = sp.IndexedBase("g", real=True)

# a theorem: x <= M implies c x <= c M (c > 0 by assumption)
SCALE = Lemma(Chain(c * x, Context({"x<=M": x <= M})).le(c * M, by.algebra()), c * x, "<=", c * M)
# a theorem with a sum: F_j <= M for every j implies sum_{j=1}^n F_j <= n M
SUM = Lemma(Chain(sp.Sum(F[j], (j, 1, n)), Context({"F<=M": F[j] <= M}))
            .le(sp.Sum(M, (j, 1, n)), by.termwise(j, 1, n)).eq(n * M, by.identity()),
            sp.Sum(F[j], (j, 1, n)), "<=", n * M)


def exp_le(a_, b_):
    return Chain(sp.exp(a_)).le(sp.exp(b_), by.monotone(vv, sp.exp(vv), a_, b_))


def step(lhs, rel, rhs, justification, ctx):
    res = Chain(lhs, ctx).then(rel, rhs, justification).prove(lhs, "==" if rel == "=" else rel, rhs)
    return res.complete, res.step_checks[0].reason


def test_instance_is_a_trusted_rule():
    assert "instance" in RULES and RULES["instance"].why


def test_instance_accepts_a_right_instantiation_with_a_checked_discharge():
    ctx = Context({"u<=b": u <= b})
    just = by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: 2}, {"x<=M": exp_le(u, b)})
    done, reason = step(2 * sp.exp(u), "<=", 2 * sp.exp(b), just, ctx)
    assert done, reason
    # read the other way round: c M >= c x
    done, reason = step(2 * sp.exp(b), ">=", 2 * sp.exp(u), just, ctx)
    assert done, reason


def test_instance_rejects_a_step_that_is_not_the_instantiated_goal():
    ctx = Context({"u<=b": u <= b})
    just = by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: 2}, {"x<=M": exp_le(u, b)})
    done, reason = step(2 * sp.exp(u), "<=", sp.exp(b), just, ctx)  # lost the factor 2
    assert not done and "not the theorem's goal" in reason
    done, _ = step(2 * sp.exp(u), ">=", 2 * sp.exp(b), just, ctx)  # wrong direction
    assert not done


def test_instance_rejects_an_undischarged_premise():
    just = by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: 2}, {"x<=M": exp_le(u, b)})
    done, reason = step(2 * sp.exp(u), "<=", 2 * sp.exp(b), just, Context({}))  # u <= b dropped
    assert not done and "x<=M" in reason
    # no discharge given: the sign oracle alone cannot prove exp(u) <= exp(b) without u <= b
    done, _ = step(2 * sp.exp(u), "<=", 2 * sp.exp(b), by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: 2}), Context({}))
    assert not done


def test_instance_rejects_a_discharge_chain_for_another_relation():
    ctx = Context({"u<=b": u <= b})
    wrong = exp_le(u, b + 1)  # proves exp(u) <= exp(b + 1), not exp(u) <= exp(b)
    done, reason = step(2 * sp.exp(u), "<=", 2 * sp.exp(b), by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: 2}, {"x<=M": wrong}), ctx)
    assert not done and "does not check" in reason


def test_instance_keeps_the_assumptions_of_the_substituted_symbols():
    ctx = Context({"u<=b": u <= b})
    # c is positive in the theorem: -2 is not (the instance -2 e^u <= -2 e^b is false)
    just = by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: -2}, {"x<=M": exp_le(u, b)})
    done, reason = step(-2 * sp.exp(u), "<=", -2 * sp.exp(b), just, ctx)
    assert not done and "positive" in reason
    # a real d is positive only under a hypothesis that says so
    just = by.instance(SCALE, {x: sp.exp(u), M: sp.exp(b), c: d}, {"x<=M": exp_le(u, b)})
    assert not step(d * sp.exp(u), "<=", d * sp.exp(b), just, ctx)[0]
    done, reason = step(d * sp.exp(u), "<=", d * sp.exp(b), just, ctx.extended({"d>0": d > 0}))
    assert done, reason


def test_instance_substitutes_simultaneously():
    # x <-> M: the theorem becomes M <= x implies c M <= c x
    just = by.instance(SCALE, {x: M, M: x})
    assert step(c * M, "<=", c * x, just, Context({"M<=x": M <= x}))[0]
    assert not step(c * M, "<=", c * x, just, Context({"x<=M": x <= M}))[0]


def test_instance_rejects_a_cited_chain_that_does_not_check():
    broken = Lemma(Chain(c * x, Context({"x<=M": x <= M})).le(c * M, by.argued("trust me")), c * x, "<=", c * M)
    done, reason = step(c * x, "<=", c * M, by.instance(broken, {c: c}), Context({"x<=M": x <= M}))
    assert not done and "does not check" in reason
    wrong_goal = Lemma(SCALE.chain, c * x, "<=", c * M / 2)  # a goal the chain does not reach
    done, reason = step(c * x, "<=", c * M / 2, by.instance(wrong_goal, {c: c}), Context({"x<=M": x <= M}))
    assert not done and "does not check" in reason


def test_instance_substitutes_an_indexed_base_by_a_lambda():
    ctx = Context({"g<=M": g[j] <= M})
    just = by.instance(SUM, {F: sp.Lambda(j, g[j])})
    done, reason = step(sp.Sum(g[j], (j, 1, n)), "<=", n * M, just, ctx)
    assert done, reason
    # the exp of a bounded family, discharged per index by monotonicity
    ctx = Context({"g<=b": g[j] <= b})
    just = by.instance(SUM, {F: sp.Lambda(j, sp.exp(g[j])), M: sp.exp(b)}, {"F<=M": exp_le(g[j], b)})
    done, reason = step(sp.Sum(sp.exp(g[j]), (j, 1, n)), "<=", n * sp.exp(b), just, ctx)
    assert done, reason
    # an indexed base must map to a Lambda
    done, _ = step(sp.Sum(g[j], (j, 1, n)), "<=", n * M, by.instance(SUM, {F: g}), Context({"g<=M": g[j] <= M}))
    assert not done


def test_instance_rejects_capture_by_a_bound_index():
    ctx = Context({"F<=j": F[j] <= j})
    # M := j would put the free j under the sum's binder
    done, reason = step(sp.Sum(F[j], (j, 1, n)), "<=", n * j, by.instance(SUM, {M: j}), ctx)
    assert not done and "captured" in reason
    # the bound index itself is not a parameter of the theorem
    k = sp.Symbol("k", positive=True, integer=True)
    done, reason = step(sp.Sum(F[k], (k, 1, n)), "<=", n * M, by.instance(SUM, {j: k}), Context({"F<=M": F[k] <= M}))
    assert not done and "bound" in reason


def test_instance_does_not_discharge_an_every_index_premise_from_a_one_index_fact():
    # g_j <= M + j - 1 and j <= 1 give g_j <= M at j = 1 only; the sum over j = 1..n needs every j
    ctx = Context({"g": g[j] <= M + j - 1, "first": j <= 1})
    done, reason = step(sp.Sum(g[j], (j, 1, n)), "<=", n * M, by.instance(SUM, {F: sp.Lambda(j, g[j])}), ctx)
    assert not done and "F<=M" in reason


def test_instance_rejects_a_chain_for_a_strict_premise_and_unknown_discharges():
    pos = Lemma(Chain(x / c, Context({"x>0": x > 0})).ge(0, by.algebra()), x / c, ">=", 0)
    assert pos.chain.prove(x / c, ">=", 0).complete
    ctx = Context({"u>=0": u >= 0})
    chain = Chain(u + 1).ge(0, by.algebra())  # proves u + 1 >= 0, not the premise u + 1 > 0
    done, reason = step((u + 1) / 3, ">=", 0, by.instance(pos, {x: u + 1, c: 3}, {"x>0": chain}), ctx)
    assert not done and "strict" in reason
    done, reason = step((u + 1) / 3, ">=", 0, by.instance(pos, {x: u + 1, c: 3}), ctx)  # the sign oracle
    assert done, reason
    assert not step((u + 1) / 3, ">=", 0, by.instance(pos, {x: u + 1, c: 3}), Context({}))[0]
    done, reason = step((u + 1) / 3, ">=", 0, by.instance(pos, {x: u + 1, c: 3}, {"nope": None}), ctx)
    assert not done and "nope" in reason


@pytest.mark.parametrize("reading", ["transcribed", "reconstructed"])
def test_corollary1_cites_lemma1_and_needs_its_hypotheses(reading):
    from attnbounds.claims import corollary1 as c1

    assert c1.check_proof(reading).complete
    assert not c1.check_proof(reading, ctx=c1._context().without("cauchy-schwarz")).complete
    # a goal tighter than the instance (exp(Delta/T) instead of exp(2 Delta/T)) does not check
    lhs, rel, rhs = c1.GOALS[reading][0]
    tighter = rhs.xreplace({c1._Delta: c1._Delta / 2})
    assert not c1.check_proof(reading, goals=((lhs, rel, tighter), c1.GOALS[reading][1])).complete


def test_corollary1_rejects_a_wrong_lemma1_substitution():
    from attnbounds.claims import corollary1 as c1
    from attnbounds.claims import lemma1 as l1

    cited = l1.proof_chains("transcribed")[0]
    thm = Lemma(cited, *l1.GOALS["transcribed"][0])
    subs, discharge = c1._lemma1_instance()
    # M = exp(Delta/(2T)) would give the tighter exp(3 Delta/(2T))/L, but then x <= M is not dischargeable
    bad = {**subs, l1._M: sp.exp(c1._Delta / (2 * c1._T))}
    rhs = sp.exp(3 * c1._Delta / (2 * c1._T)) / c1._L
    done, reason = step(c1._alpha, "<=", rhs, by.instance(thm, bad, discharge), c1._context())
    assert not done, reason
    done, _ = step(c1._alpha, "<=", rhs, by.instance(thm, bad, {**discharge, "bounded-logits": None}), c1._context())
    assert not done


def test_refuter_handles_a_scalar_with_two_subscripts():
    # w[t, j] in [0, 1] for every t, j: the double sum is at most n^2, not at most n^2/2
    from attnbounds.engine.refute import refute

    t = sp.Symbol("t", positive=True, integer=True)
    w = sp.IndexedBase("w", real=True)
    S = sp.IndexedBase("S", real=True)  # row sums (SymPy would merge two nested sums into one)
    box = Context({"box": (w[t, j] >= 0, w[t, j] <= 1), "definition": sp.Eq(S[t], sp.Sum(w[t, j], (j, 1, n)))})
    double = sp.Sum(S[t], (t, 1, n))
    assert refute(double, "<=", n**2, box, seed=0).assignment is None
    found = refute(double, "<=", n**2 / 2, box, seed=0)
    assert found.assignment is not None and found.lhs > found.rhs
    m = int(found.assignment["n"])  # the box holds on the index range 1..n
    assert all(0 <= v <= 1 for row in found.assignment["w(1..)"][:m] for v in row[1:m + 1])
    # without the box, a negative bound is broken too
    assert refute(double, ">=", 0, box.without("box"), seed=0).assignment is not None


def test_corollary2_bounded_chains_cite_corollary1_and_need_their_hypotheses():
    from attnbounds.claims import corollary2 as c2

    chains = c2.bounded_chains()
    for name, res in chains.items():
        assert res.complete, (name, res.first_failure)
        assert {"instance", "monotone", "triangle-sum"} <= set(res.rules)
        ctx = res.chain.ctx
        for h in ("lemma1", "bounded_norms", "selection") + (("normalized",) if name == "bounded" else ()):
            assert not res.chain.prove(*res.goal, ctx=ctx.without(h)).complete, (name, h)
        lhs, rel, rhs = res.goal
        assert not res.chain.prove(lhs, rel, rhs * sp.Rational(999, 1000)).complete


def test_instance_treats_local_hypotheses_of_the_cited_chain_as_premises():
    # a chain that leans on a hidden "__" hypothesis proves nothing about other contexts
    cheat = Lemma(Chain(x, Context({"__cheat": x <= 0})).le(0, by.hypothesis("__cheat")), x, "<=", 0)
    assert cheat.chain.prove(x, "<=", 0).complete
    done, reason = step(u, "<=", 0, by.instance(cheat, {x: u}), Context({}))
    assert not done and "__cheat" in reason
    assert step(u, "<=", 0, by.instance(cheat, {x: u}), Context({"u<=0": u <= 0}))[0]


def test_instance_rejects_a_symbol_key_that_names_an_indexed_base():
    done, reason = step(sp.Sum(g[j], (j, 1, n)), "<=", n * M, by.instance(SUM, {F.label: g.label}), Context({"g<=M": g[j] <= M}))
    assert not done and "label" in reason
