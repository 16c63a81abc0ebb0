"""The indicator rules (indicator-mean, indicator-algebra, indicator-order): they check correct
instantiations and reject wrong ones; indicator-algebra agrees with truth tables."""

import itertools

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from attnbounds.theory.proof import RULES, Chain, Context, Cup, Expect, Indicator, Prob, by

i, j, N, K = sp.symbols("i j N K", integer=True, positive=True)
r = sp.Symbol("r", positive=True)
c = sp.Symbol("c", real=True)
# atomic events: relations (SymPy's And / Or take relations, not applied functions)
A, B, C = (sp.Le(sp.Function(n, real=True)(i), 0) for n in ("a", "b", "c"))
D = sp.Function("D", real=True)  # a real random variable
Dplain = sp.Function("Dp")  # not known to be real


def _ok(rule, lhs, rel, rhs, ctx=None):
    step = {"indicator-mean": by.indicator_mean(), "indicator-algebra": by.indicator_algebra(),
            "indicator-order": by.indicator_order()}[rule]
    chain = Chain(lhs, ctx or Context({}))
    chain = {"=": chain.eq, "<=": chain.le, ">=": chain.ge}[rel](rhs, step)
    return chain.prove(lhs, "==" if rel == "=" else rel, rhs).complete


def test_rules_are_registered_with_statement_and_reason():
    for name in ("indicator-mean", "indicator-algebra", "indicator-order"):
        assert RULES[name].statement and RULES[name].why


# ----------------------------------------------------------------------------- indicator-mean


@pytest.mark.parametrize("lhs, rhs, ok", [
    (Expect(Indicator(A)), Prob(A), True),
    (Expect(2 * Indicator(A) + 3), 2 * Prob(A) + 3, True),
    (sp.Sum(Expect(Indicator(sp.Le(D(i), r)) / N), (i, 1, N)), sp.Sum(Prob(sp.Le(D(i), r)) / N, (i, 1, N)), True),
    (Expect(Indicator(A) - Indicator(B)), Prob(A) - Prob(B), True),
    (Expect(Indicator(A)), Prob(B), False),  # another event
    (Expect(Indicator(A)), 2 * Prob(A), False),
    (Expect(Indicator(A) * Indicator(B)), Prob(A) * Prob(B), False),  # not independent
    (Expect(D(i) * Indicator(A)), D(i) * Prob(A), False),  # a random coefficient
    (Expect(D(i)), Prob(D(i) >= 0), False),  # no indicator
])
def test_indicator_mean(lhs, rhs, ok):
    assert _ok("indicator-mean", lhs, "=", rhs) is ok


def test_indicator_mean_is_an_equality_rule():
    assert not _ok("indicator-mean", Expect(Indicator(A)), "<=", Prob(A))


# ----------------------------------------------------------------------------- indicator-algebra


@pytest.mark.parametrize("lhs, rhs, ok", [
    (Prob(sp.Not(A)), 1 - Prob(A), True),
    (Prob(A), Prob(sp.And(A, B)) + Prob(sp.And(A, sp.Not(B))), True),
    (Prob(sp.Or(A, B)), Prob(A) + Prob(B) - Prob(sp.And(A, B)), True),
    (Prob(sp.Or(A, B)), Prob(A) + Prob(B), False),  # only for disjoint events
    (Prob(sp.Not(A)), Prob(A), False),
    (Prob(A) ** 2, Prob(A), False),  # not linear in its probabilities
    (sp.exp(Prob(A)), sp.exp(1 - Prob(sp.Not(A))), False),  # a probability inside a function
    (D(i) * Prob(A), D(i) - D(i) * Prob(sp.Not(A)), False),  # a random coefficient
    (Prob(D(i) > r), 1 - Prob(D(i) <= r), True),  # complements when D(i) - r is real
    (Prob(Dplain(i) > r), 1 - Prob(Dplain(i) <= r), False),  # not known to be real: unrelated atoms
    (Prob(D(i) <= r), Prob(D(i) < r), False),
    (c * Prob(sp.Not(A)) + c * Prob(A), c, True),
])
def test_indicator_algebra(lhs, rhs, ok):
    assert _ok("indicator-algebra", lhs, "=", rhs) is ok


def test_indicator_algebra_keeps_the_indices_of_events_under_sums():
    a = sp.Function("in_S")  # an indicator event given as an applied function
    assert _ok("indicator-algebra", sp.Sum(Prob(sp.Not(a(i))) / N, (i, 1, N)), "=",
               1 - sp.Sum(Prob(a(i)) / N, (i, 1, N)))
    # the events differ from term to term: no identity with one of them
    assert not _ok("indicator-algebra", sp.Sum(Prob(a(i)), (i, 1, N)), "=", N * Prob(a(1)))
    assert not _ok("indicator-algebra", sp.Sum(Prob(a(i)), (i, 1, N)), "=", N * Prob(a(i)))
    # a union is an atomic event of its own
    some = Cup(sp.Le(D(j), r), (j, 1, K))
    assert _ok("indicator-algebra", Prob(sp.Not(some)), "=", 1 - Prob(some))
    assert not _ok("indicator-algebra", Prob(some), "=", sp.Sum(Prob(sp.Le(D(j), r)), (j, 1, K)))


_ATOMS = [A, B, C]


def _events(depth):
    leaf = st.sampled_from(_ATOMS)
    if depth == 0:
        return leaf
    sub = _events(depth - 1)
    return st.one_of(leaf, sub.map(sp.Not), st.tuples(sub, sub).map(lambda p: sp.And(*p)),
                     st.tuples(sub, sub).map(lambda p: sp.Or(*p)))


def _truth(ev, values):
    # atom k holds (f_k(i) <= 0) when its function is -1, fails when it is 1 (SymPy writes
    # Not(f <= 0) as f > 0, so the values go to the functions, not to the relations)
    return bool(ev.xreplace({atom.lhs: (-1 if v else 1) for atom, v in zip(_ATOMS, values)}))


@given(st.lists(st.tuples(st.integers(-2, 2), _events(2)), min_size=1, max_size=3),
       st.lists(st.tuples(st.integers(-2, 2), _events(2)), min_size=1, max_size=3),
       st.integers(-2, 2))
def test_indicator_algebra_agrees_with_truth_tables(left, right, shift):
    # Σ c_k P(A_k) = Σ d_m P(B_m) + shift holds for every law exactly when the indicators agree at
    # every outcome; over independent atomic events every row of the truth table is an outcome,
    # so the rule must accept exactly the identities the truth table confirms
    lhs = sp.Add(*[k * Prob(ev) for k, ev in left])
    rhs = sp.Add(*[k * Prob(ev) for k, ev in right]) + shift
    if not (lhs.has(Prob) or rhs.has(Prob)):
        return
    table = all(
        sum(k * _truth(ev, v) for k, ev in left) == sum(k * _truth(ev, v) for k, ev in right) + shift
        for v in itertools.product((0, 1), repeat=3))
    assert _ok("indicator-algebra", lhs, "=", rhs) is table


# ----------------------------------------------------------------------------- indicator-order


some = Cup(sp.Le(D(j), r), (j, 1, K))


@pytest.mark.parametrize("lhs, rel, rhs, ok", [
    (Indicator(sp.And(A, B)), "<=", Indicator(A), True),
    (Indicator(A), "<=", Indicator(sp.And(A, B)), False),
    (Indicator(sp.And(A, sp.Not(some))), ">=", Indicator(A) - Indicator(some), True),
    (Indicator(sp.And(A, sp.Not(some))), ">=", Indicator(A), False),
    (Indicator(sp.Or(A, B)), "<=", Indicator(A) + Indicator(B), True),
    (Indicator(A) + Indicator(B), "<=", Indicator(sp.Or(A, B)), False),
    (Indicator(A) / N, "<=", 1 / N, True),
    (Indicator(A), "<=", D(i), False),  # another random variable: not decided by the events
    (Indicator(A), "<=", 1 - Indicator(sp.Not(A)), True),
    (Indicator(A), "<=", Expect(Indicator(A)) + 1, False),  # an averaged indicator is not fixed by an outcome
])
def test_indicator_order(lhs, rel, rhs, ok):
    assert _ok("indicator-order", lhs, rel, rhs) is ok


def test_indicator_order_uses_the_hypotheses_for_the_coefficients():
    assert not _ok("indicator-order", c * Indicator(A), "<=", c)  # c may be negative
    assert _ok("indicator-order", c * Indicator(A), "<=", c, Context({"c>=0": sp.Ge(c, 0)}))


def test_indicator_order_refuses_too_many_atoms():
    many = [sp.Le(sp.Function(f"e{k}", real=True)(i), 0) for k in range(11)]
    assert not _ok("indicator-order", Indicator(sp.And(*many)), "<=", 1)
    assert _ok("indicator-order", Indicator(sp.And(*many[:10])), "<=", 1)


@given(st.lists(st.tuples(st.integers(-2, 2).filter(bool), _events(2), _events(1), st.booleans()), min_size=1, max_size=3))
def test_indicator_algebra_accepts_rewritten_identities(terms):
    # each P(E) rewritten as P(E and X) + P(E and not X) or as 1 - P(not E): true identities,
    # which the truth tables above would confirm, so the rule must accept them
    lhs = sp.Add(*[k * Prob(ev) for k, ev, _, _ in terms])
    rhs = sp.Add(*[k * (Prob(sp.And(ev, x)) + Prob(sp.And(ev, sp.Not(x))) if split else 1 - Prob(sp.Not(ev)))
                   for k, ev, x, split in terms])
    if lhs.has(Prob) or rhs.has(Prob):  # (the terms may cancel: then the step has no probability)
        assert _ok("indicator-algebra", lhs, "=", rhs)


# ----------------------------------------------------------------------------- regressions (review)


def test_indicator_order_refuses_indicators_under_a_sum():
    # one atom for the whole family A_1, ..., A_N made #A * #notA <= 0 "hold" (false: N = 2,
    # A_1 true, A_2 false gives 1)
    count = sp.Sum(Indicator(A), (i, 1, N))
    missed = sp.Sum(1 - Indicator(A), (i, 1, N))
    assert not _ok("indicator-order", count * missed, "<=", 0)
    assert not _ok("indicator-order", Indicator(A) * missed, "<=", 0)
    # the sound route: compare the terms, then sum them
    term = Chain(Indicator(sp.And(A, B)) / N).le(Indicator(A) / N, by.indicator_order())
    lhs, rhs = sp.Sum(Indicator(sp.And(A, B)) / N, (i, 1, N)), sp.Sum(Indicator(A) / N, (i, 1, N))
    assert Chain(lhs).le(rhs, by.termwise(i, 1, N, term=term)).prove(lhs, "<=", rhs).complete


def test_indicator_algebra_keeps_events_with_probabilities_inside_as_written():
    # P(A and B) and P(A) P(B) were both rewritten to e_A e_B inside the outer events, which then
    # shared one atom (false: with B = A and P(A) = 1/2 the sides are 0 and 1)
    lhs = Prob(sp.Le(Prob(sp.And(A, B)), sp.Rational(1, 3)))
    rhs = Prob(sp.Le(Prob(A) * Prob(B), sp.Rational(1, 3)))
    assert not _ok("indicator-algebra", lhs, "=", rhs)
    assert _ok("indicator-algebra", lhs, "=", 1 - Prob(sp.Not(sp.Le(Prob(sp.And(A, B)), sp.Rational(1, 3)))))


def test_indicator_algebra_sees_a_free_index_apart_from_a_bound_one():
    a = sp.Function("in_S")
    assert not _ok("indicator-algebra", sp.Sum(Prob(a(i)), (i, 1, N)), "=", N * Prob(a(i)))
