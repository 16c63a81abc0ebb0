"""A twenty-first review found a way past the twentieth's check on the verdict layer: the very
ChainCheck that Chain.prove returned, altered in place (object.__setattr__ on a frozen
dataclass), still counted as issued. It also asked what makes D(c) an event; the answer (the
statement uses it as one, anywhere) is the kernel's model of events, tested here as such."""

import pytest
import sympy as sp

from attnbounds.claims.base import Proof
from attnbounds.theory.proof import Chain, Context, Expect, Prob, by, issued


def test_a_chaincheck_altered_in_place_is_no_longer_issued():
    res = Chain(sp.Integer(2)).le(1, by.algebra()).prove(2, "<=", 1)
    assert issued(res) and not res.complete
    object.__setattr__(res, "reaches_goal", True)
    for s in res.step_checks:
        object.__setattr__(s, "checked", True)
    assert res.complete and not issued(res)
    with pytest.raises(ValueError, match="Chain.prove"):
        Proof.from_chain(res, "altered")


def test_a_function_the_statement_uses_as_an_event_is_an_indicator(event_split):
    # P(D(c)) in a hypothesis makes D(c) an event, whose value is its 0/1 indicator: E[D(c)] <= 1
    # then holds (the mutation search draws D(c) from {0, 1} too); without it the proof is refused
    c = sp.Symbol("c")
    D = sp.Function("D")
    X = D(c)
    chain = event_split(X).le(1, by.probability())
    assert not chain.prove(Expect(X), "<=", 1).complete
    assert chain.prove(Expect(X), "<=", 1, ctx=Context({"event": Prob(X) <= 1})).complete
