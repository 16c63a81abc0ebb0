"""land11 (issue 11): the shared base class of the non-negative scalar functions (D1), and the
rules total-expectation, condition and expect-sum: they check correct instantiations and reject
wrong ones."""

import sympy as sp

from attnbounds.theory import proof
from attnbounds.theory.proof import Chain, Context, Expect, Mat, Norm, OpNorm, Prob, by, prove_nonnegative

x = sp.Symbol("x", real=True)
u = sp.Symbol("u", nonnegative=True)


def _ok(chain, lhs, rel, rhs):
    return chain.prove(lhs, rel, rhs).complete


# ----------------------------------------------------------------------------- D1: one base class


def test_norm_prob_and_opnorm_share_the_nonnegative_scalar_base():
    for cls in (Norm, Prob, OpNorm):
        assert cls.__mro__[1] is proof._NonnegativeScalar
        for name in ("_eval_is_commutative", "_eval_is_extended_real", "_eval_is_extended_nonnegative", "_eval_is_finite"):
            assert name not in vars(cls)  # inherited, not repeated


def test_nonnegative_scalars_carry_their_assumptions():
    i, n = sp.symbols("i n", integer=True, positive=True)
    M = Mat(sp.Lambda((sp.Symbol("r"), sp.Symbol("c")), 1), n)
    for e in (Prob(x >= 1), OpNorm(M), Norm(proof.vector("v"))):
        assert (e.is_commutative, e.is_real, e.is_finite, e.is_nonnegative) == (True, True, True, True)
        assert e.is_positive is None  # a probability (a norm) may be 0
    # a probability is a finite number, so P * u is non-decreasing in u >= 0 ...
    assert prove_nonnegative(Prob(x >= 1) * u)
    # ... but nothing says it is at most 1 without the probability rule
    assert not prove_nonnegative(1 - Prob(x >= 1))


# ----------------------------------------------------------------------------- total-expectation

from attnbounds.engine.refute import refute  # noqa: E402
from attnbounds.theory.proof import RULES, Cond  # noqa: E402

i, n = sp.symbols("i n", integer=True, positive=True)
r = sp.Symbol("r", real=True)
In, In2 = sp.Function("in_S")(i), sp.Function("hit")(i)  # indicator events
D, F = sp.Function("D", real=True)(i), sp.Function("F", real=True)(i)  # real random variables
t = sp.Symbol("t", real=True)
s = sp.Function("s", commutative=False)(i)  # a random vector
y = sp.IndexedBase("y", commutative=False)[i]


def _split(X, events):
    return sp.Add(*[Prob(ev) * Expect(Cond(X, ev)) for ev in events])


def _total(X, events, claimed=None):
    rhs = _split(X, events) if claimed is None else claimed
    return _ok(Chain(Expect(X)).eq(rhs, by.total_expectation(events)), Expect(X), "=", rhs)


def test_new_rules_are_registered_with_a_reason():
    for name in ("total-expectation", "condition", "expect-sum"):
        assert RULES[name].why and RULES[name].statement


def test_total_expectation_accepts_partitions():
    assert _total(D, [sp.Not(In), In])  # an indicator event and its complement
    assert _total(D, [D <= r, D > r])  # a relation and its complement (D real)
    cells = [(D <= r) & (F <= t), (D <= r) & (F > t), D > r]
    assert _total(Norm(y - s), cells)  # three cells
    assert _total(D, [sp.true])  # the whole space
    # read right to left as well
    rhs = _split(D, [In, sp.Not(In)])
    assert _ok(Chain(rhs).eq(Expect(D), by.total_expectation([In, sp.Not(In)])), rhs, "=", Expect(D))


def test_total_expectation_rejects_what_is_not_a_partition():
    assert not _total(D, [In, In])  # not disjoint, and does not cover the complement
    assert not _total(D, [In, In2])  # two unrelated events
    assert not _total(D, [D <= r, D >= r])  # both hold at D = r
    assert not _total(D, [D < r, D > r])  # neither holds at D = r
    assert not _total(D, [(D <= r) & (F <= t), D > r])  # misses D <= r < F
    assert not _total(D, [(D <= r) | (F <= t), D > r])  # overlap on F <= t < D
    z = sp.Symbol("z")  # not known to be real: z < r is not the complement of r <= z
    assert not _total(D, [z < r, r <= z])


def test_total_expectation_rejects_mismatched_events_and_terms():
    A = sp.Not(In)
    # the probabilities and the conditioning events must pair up
    crossed = Prob(A) * Expect(Cond(D, In)) + Prob(In) * Expect(Cond(D, A))
    assert not _total(D, [A, In], claimed=crossed)
    # a dropped term (E[X | in S] left out), a doubled one, a wrong variable
    assert not _total(D, [A, In], claimed=Prob(A) * Expect(Cond(D, A)))
    assert not _total(D, [A, In], claimed=2 * _split(D, [A, In]))
    assert not _total(D, [A, In], claimed=_split(D + 1, [A, In]))
    # the events named in the rule must be the ones used
    assert not _ok(Chain(Expect(D)).eq(_split(D, [D <= r, D > r]), by.total_expectation([A, In])), Expect(D), "=", _split(D, [D <= r, D > r]))
    # only '=' steps; X must not be conditioned already
    rhs = _split(D, [A, In])
    assert not _ok(Chain(Expect(D)).le(rhs, by.total_expectation([A, In])), Expect(D), "<=", rhs)
    X = Cond(D, In2)
    assert not _total(X, [A, In])


# ----------------------------------------------------------------------------- condition


def _cond(lhs, rhs):
    return _ok(Chain(lhs).eq(rhs, by.condition()), lhs, "=", rhs)


def test_condition_pushes_the_event_to_the_random_atoms_and_decides_indicators():
    A = sp.Not(In)
    W = (1 - In) * Norm(y - s)
    assert _cond(Expect(Cond(W, A)), Expect(Norm(y - Cond(s, A))))  # 1 - in_S is 1 given i not in S
    assert _cond(Prob(In) * Expect(Cond(W, In)), 0)  # and 0 given i in S
    assert _cond(Expect(Cond(In * D, In)), Expect(Cond(D, In)))
    assert _cond(Expect(Cond(D * F, D <= r)), Expect(Cond(D, D <= r) * Cond(F, D <= r)))  # relations stay
    assert _cond(Expect(Cond(y, A)), y)  # a constant stays itself


def test_condition_rejects_wrong_decisions_and_mixed_events():
    A = sp.Not(In)
    W = (1 - In) * Norm(y - s)
    assert not _cond(Expect(Cond(W, In)), Expect(Norm(y - Cond(s, In))))  # 1 - in_S is 0 given in S
    assert not _cond(Expect(Cond(In2 * D, In)), Expect(Cond(D, In)))  # in_S says nothing of hit
    assert not _cond(Expect(Cond(s, A)), Expect(s))  # the condition may not be dropped
    assert not _cond(Expect(Cond(D, A)), Expect(Cond(D, In)))  # nor changed
    # one expectation conditioned on two events, or mixing a conditioned and a free atom
    assert not _cond(Expect(Cond(D + D**2, A)), Expect(Cond(D, A) + Cond(D, In) ** 2))
    assert not _cond(Expect(Cond(D + D**2, A)), Expect(Cond(D, A) + D**2))
    assert not _ok(Chain(Expect(D)).eq(Expect(D), by.condition()), Expect(D), "=", Expect(D))  # nothing conditioned


# ----------------------------------------------------------------------------- expect-sum


def test_expect_sum_accepts_a_finite_sum_with_constant_limits():
    lhs, rhs = Expect(sp.Sum(D, (i, 1, n))), sp.Sum(Expect(D), (i, 1, n))
    assert _ok(Chain(lhs).eq(rhs, by.expect_sum()), lhs, "=", rhs)
    assert _ok(Chain(rhs).eq(lhs, by.expect_sum()), rhs, "=", lhs)


def test_expect_sum_rejects_random_limits_and_other_sums():
    K = sp.Function("K", integer=True)(n)  # a random number of terms
    lhs = Expect(sp.Sum(D, (i, 1, K)))
    assert not _ok(Chain(lhs).eq(sp.Sum(Expect(D), (i, 1, K)), by.expect_sum()), lhs, "=", sp.Sum(Expect(D), (i, 1, K)))
    lhs = Expect(sp.Sum(D, (i, 1, n)))
    for wrong in (sp.Sum(Expect(D), (i, 2, n)), sp.Sum(Expect(D**2), (i, 1, n)), n * Expect(D)):
        assert not _ok(Chain(lhs).eq(wrong, by.expect_sum()), lhs, "=", wrong)


# ----------------------------------------------------------------------------- the refuter


def test_refuter_evaluates_conditional_expectations():
    A = sp.Not(In)
    X = sp.Function("X", nonnegative=True)(i)
    ctx = Context({"p": sp.Eq(Prob(A), sp.Rational(1, 3))})
    # the law of total expectation holds at every assignment
    assert refute(Expect(X), "==", _split(X, [A, In]), ctx, seed=0).assignment is None
    # E[X | A] <= E[X] / P(A) holds (X >= 0); E[X | A] <= E[X] does not
    assert refute(Expect(Cond(X, A)), "<=", 3 * Expect(X), ctx, seed=0).assignment is None
    found = refute(Expect(Cond(X, A)), "<=", Expect(X), ctx, seed=0)
    assert found.assignment is not None and found.lhs > found.rhs
