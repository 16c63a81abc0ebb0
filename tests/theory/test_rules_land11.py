"""land11 (issue 11): the shared base class of the non-negative scalar functions (D1), and the
rules total-expectation, condition and expect-sum: they check correct instantiations and reject
wrong ones."""

import sympy as sp

from attnbounds.theory import proof
from attnbounds.theory.proof import Chain, Context, Expect, Mat, OpNorm, Prob, by, prove_nonnegative

x = sp.Symbol("x", real=True)
u = sp.Symbol("u", nonnegative=True)


def _ok(chain, lhs, rel, rhs):
    return chain.prove(lhs, rel, rhs).complete


# ----------------------------------------------------------------------------- D1: one base class


def test_prob_and_opnorm_share_the_nonnegative_scalar_base():
    assert Prob.__mro__[1] is OpNorm.__mro__[1] is proof._NonnegativeScalar
    for name in ("_eval_is_commutative", "_eval_is_extended_real", "_eval_is_extended_nonnegative", "_eval_is_finite"):
        assert name not in vars(Prob) and name not in vars(OpNorm)  # inherited, not repeated


def test_nonnegative_scalars_carry_their_assumptions():
    i, n = sp.symbols("i n", integer=True, positive=True)
    M = Mat(sp.Lambda((sp.Symbol("r"), sp.Symbol("c")), 1), n)
    for e in (Prob(x >= 1), OpNorm(M)):
        assert (e.is_commutative, e.is_real, e.is_finite, e.is_nonnegative) == (True, True, True, True)
        assert e.is_positive is None  # a probability (a norm) may be 0
    # a probability is a finite number, so P * u is non-decreasing in u >= 0 ...
    assert prove_nonnegative(Prob(x >= 1) * u)
    # ... but nothing says it is at most 1 without the probability rule
    assert not prove_nonnegative(1 - Prob(x >= 1))
