"""A twentieth review found four more ways to a false statement, kept here as regressions beside
true variants: an instance's discharge chain, run under a smaller context, read D(1) as an
indicator although the citing context said D(1) >= 2 on its event (the check in Chain.prove saw
a hypothesis's sides, never the hypothesis as a relation); a theorem T citing T0, whose chain read
D(c) as an indicator for the statement E[D(c)] <= 1, carried that reading where D(c) >= 2 (now a
proof may read as an event only what the statement itself uses as one); a WeightedNorm with
f > R l1 passed (2 <= 1); and the verdict layer took a ChainCheck altered by hand."""

import dataclasses

import pytest
import sympy as sp

from attnbounds.claims.base import Proof
from attnbounds.theory.proof import Chain, Cond, Context, Expect, Lemma, Prob, WeightedNorm, by

D = sp.Function("D")



def test_a_discharge_chain_does_not_read_an_indicator_that_the_citing_hypotheses_deny():
    k, a = sp.Symbol("k", integer=True), sp.Symbol("a")
    S0 = sp.Sum(sp.Integer(0), (k, 1, 1))
    thm = Lemma(Chain(a + S0, Context({"h": a <= 1})).eq(a, by.identity()).le(1, by.hypothesis("h")), a + S0, "<=", 1)
    E1 = Expect(Cond(D(1), D(1)))
    H = sp.Ge(Cond(D(1), D(1)) + k, 2 + k)  # D ≡ 2 surely meets it
    chain = (Chain(sp.Integer(2), Context({"H": H}))
             .eq(Expect(sp.Integer(2)), by.linearity())
             .le(E1, by.expect_monotone(Chain(sp.Integer(2)).le(Cond(D(1), D(1)), by.hypothesis("H"))))
             .le(1, by.instance(thm, {a: E1}, discharge={"h": Chain(E1).eq(1, by.condition())})))
    assert not chain.prove(2, "<=", 1).complete


def test_a_proof_reads_as_an_event_only_what_the_statement_uses_as_one(event_split):
    c = sp.Symbol("c")
    X = D(c)
    T0 = event_split(X).le(1, by.probability())
    assert not T0.prove(Expect(X), "<=", 1).complete  # E[D(c)] <= 1 is false for D ≡ 2
    thm0 = Lemma(T0, Expect(X), "<=", 1)
    T = Chain(Expect(X)).le(1, by.instance(thm0, {c: c}))
    assert not T.prove(Expect(X), "<=", 1).complete
    # where the statement has the event, the reading stands: E[D(c)] = P(D(c)) <= 1
    assert event_split(X).prove(Expect(X), "=", Prob(X)).complete


def test_a_weighted_norm_above_its_bound_is_impossible():
    one, i = sp.Integer(1), sp.Symbol("i")
    assert not Chain(sp.Integer(2), Context({"s": WeightedNorm(2, one, one, one)})).le(1, by.weighted_norm("s")).prove(2, "<=", 1).complete
    assert not Chain(sp.Integer(2), Context({"s": WeightedNorm(2, 0, 0, 0)})).le(0, by.weighted_norm("s")).prove(2, "<=", 0).complete
    F = sp.Function("F", nonnegative=True)
    ok = Context({"s": WeightedNorm(F(i), 2, one, one)})
    assert Chain(F(i), ok).le(2, by.weighted_norm("s")).prove(F(i), "<=", 2).complete


def test_the_verdict_layer_takes_only_what_chain_prove_returned():
    x = sp.Symbol("x")
    res = Chain(sp.Integer(2)).le(1, by.algebra()).prove(2, "<=", 1)
    assert not res.complete
    forged = dataclasses.replace(res, reaches_goal=True,
                                 step_checks=tuple(dataclasses.replace(s, checked=True) for s in res.step_checks))
    assert forged.complete
    with pytest.raises(ValueError, match="Chain.prove"):
        Proof.from_chain(forged, "forged")
    good = Chain(x + 1).eq(1 + x, by.identity()).prove(x + 1, "=", 1 + x)
    assert Proof.from_chain(good, "true").status is True
