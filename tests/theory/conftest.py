"""Shared pieces of the proof-kernel tests."""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Expect, Prob, by


@pytest.fixture
def event_split():
    """E[X] = P(X) E[X | X] + P(¬X) E[X | ¬X] = P(X): the chain that reads the event X as its
    0/1 indicator (total expectation over X, ¬X, then condition)."""
    def split(X):
        return (Chain(Expect(X))
                .eq(Prob(X) * Expect(Cond(X, X)) + Prob(sp.Not(X)) * Expect(Cond(X, sp.Not(X))),
                    by.total_expectation([X, sp.Not(X)]))
                .eq(Prob(X), by.condition()))
    return split
