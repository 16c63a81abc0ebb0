"""The refuter's float arithmetic: no RuntimeWarning from its evaluator, for a reason each.

Last stop ``engine/refute.py`` warned "overflow encountered in add" (a sum of sampled values
of size e^5 and more) and "invalid value encountered in multiply" (an expectation: 0 × inf at
an atom of probability 0). An atom of probability 0 now contributes nothing (the mean is what
it is on the atoms with mass), and an overflowing sum is inf on purpose (never a
counterexample), without a warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from attnbounds.engine import refute as rf
from attnbounds.theory.proof import Context, Expect, Norm, vector

X = sp.Function("X")
i = sp.Symbol("i", integer=True, positive=True)


def _env_with(values, prob):
    env = rf._Env(len(prob))
    env.prob = np.asarray(prob, dtype=float)
    table = np.zeros((len(prob), rf.INT_MAX + 2, len(prob[0])))
    table[:, 1, :] = values
    env.random[X] = table
    return env


def test_an_atom_of_probability_zero_contributes_nothing_even_if_infinite():
    env = _env_with([[np.inf, 2.0, 4.0], [1.0, 1.0, np.nan]], [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        mean = rf._eval(Expect(X(1)), env)
    assert mean.tolist() == [3.0, 1.0]  # before: nan, nan (and a RuntimeWarning)
    env = _env_with([[np.inf, 2.0, 4.0]], [[0.2, 0.4, 0.4]])  # with mass, an infinite value is the mean's
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert rf._eval(Expect(X(1)), env).tolist() == [np.inf]


def test_an_overflowing_sum_is_inf_without_a_warning_and_never_a_counterexample():
    env = rf._Env(1)
    a = sp.Function("a")
    env.values[a] = np.full((1, rf.INT_MAX + 2), 1e308)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        total = rf._eval(sp.Sum(a(i), (i, 1, 3)), env)
        assert total.tolist() == [np.inf]
        assert not rf._violated(total, "<=", np.zeros(1)).any()


def test_the_search_over_a_package_chain_warns_nothing():
    c = vector("c")
    R = sp.Symbol("R", nonnegative=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        rf.refute(Norm(c), "<=", R, Context({}), seed=0)
