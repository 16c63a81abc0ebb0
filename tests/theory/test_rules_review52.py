"""A fifty-second review (sums and indices) found one hole, reached through three rules: SymPy's
Kronecker delta with a range, δ(a, b, (lo, hi)), is 1 only where a = b lies in lo..hi
(δ(5, 5, (1, 3)) = 0), yet SymPy builds δ(a, a, (1, 3)) as 1 for a symbolic a. Every rule that
substitutes b := a (``hypothesis``, ``sum-term``, ``abs-bound``'s split) got a wrong 1. The
kernel reads no fact of a delta with a range: a step that holds one is refused."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by

a, b = sp.symbols("a b", integer=True)
R = sp.Tuple(1, 3)


def test_a_delta_with_a_range_is_refused_where_a_substitution_would_fold_it():
    d = sp.KroneckerDelta(a, b, R)
    assert d.subs({a: 5, b: 5}) == 0 and d.subs(b, a) == 1  # SymPy's fold
    res = Chain(d, Context({"h": sp.Eq(b, a)})).eq(sp.Integer(1), by.hypothesis("h")).prove(d, "=", 1)
    assert not res.complete and "with a range" in res.first_failure
    x = sp.Symbol("x", integer=True)
    k = sp.Symbol("k", integer=True)
    f = sp.Abs(sp.KroneckerDelta(k, x, R))
    S = sp.Sum(f, (k, 1, 10))
    ctx = Context({"lo": sp.Ge(x, 1), "hi": sp.Le(x, 10)})
    assert S.subs(x, 5).doit() == 0
    res = Chain(sp.Integer(1), ctx).le(S, by.sum_term(index=k, lo=1, hi=10, x=x, f=f)).prove(1, "<=", S)
    assert not res.complete and "with a range" in res.first_failure


def test_the_plain_delta_still_goes_through():
    d = sp.KroneckerDelta(a, b)
    res = Chain(d, Context({"h": sp.Eq(b, a)})).eq(sp.Integer(1), by.hypothesis("h")).prove(d, "=", 1)
    assert res.complete, res.first_failure


def test_an_indexed_events_stand_in_cannot_be_forged_by_name():
    """indicator-algebra stood for the event A(i) by the function _e0(i), a name anyone can write:
    a random X = _e0 had its powers reduced (X² = X, as for an indicator), inside E too, and
    P(A(i)) + E[X(i)²] = P(A(i)) + E[X(i)] passed (false at X = 2 surely)."""
    from attnbounds.theory.proof import Expect, Prob

    i = sp.Symbol("i", integer=True, positive=True)
    A, X = sp.Function("A")(i), sp.Function("_e0")(i)
    lhs, rhs = Prob(A) + Expect(X ** 2), Prob(A) + Expect(X)
    assert not Chain(lhs, Context({})).eq(rhs, by.indicator_algebra()).prove(lhs, "=", rhs).complete
    B = sp.Function("B")(i)  # the rule itself still works: P(not B) = 1 - P(B)
    ok = Chain(Prob(sp.Not(B)), Context({})).eq(1 - Prob(B), by.indicator_algebra())
    assert ok.prove(Prob(sp.Not(B)), "=", 1 - Prob(B)).complete


def test_jensen_refuses_a_map_whose_variable_stands_inside_a_mean():
    from attnbounds.theory.proof import Expect

    v = sp.Symbol("v", real=True)
    D = sp.Function("D", real=True)(sp.Symbol("i", integer=True, positive=True))
    phi = sp.Lambda(v, Expect((v - D) ** 2))
    small, big = phi(Expect(D)), Expect(phi(D))
    res = Chain(small, Context({})).le(big, by.jensen(phi, X=D)).prove(small, "<=", big)
    assert not res.complete and "inside an expectation" in res.first_failure
