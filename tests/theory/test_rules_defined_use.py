"""A relation that a rule takes from a sub-chain, a fact chain, a case split, a Lemma hypothesis
or a cited theorem's discharged premise holds only where its sides are defined. The rules used
such relations wherever the step is defined (the lead left open by review 27, which closed its
one route through zoo). Each is now used only where it is defined wherever the step is (or, for
a Lemma hypothesis, at every point that meets the hypotheses); otherwise the step is refused.

The steps refused below are not false statements: the rest of the kernel keeps poles from being
cancelled, so no false one was found this way. They are steps that rested, at one point, on a
relation that says nothing there (the cases tan x > 0 and tan x <= 0 leave out x = π/2). Each
test beside them keeps a variant whose relation is defined where the step is."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Expect, Lemma, Prob, by

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
free = Context({})
pos = Context({"x>0": x > 0})


def _sq(ctx, lhs=sp.Integer(0)):
    return Chain(lhs, ctx).le(x**2, by.algebra())


def test_a_case_split_must_be_defined_where_the_step_is():
    step = Chain(sp.Integer(0), free).le(x**2, by.cases(sp.tan(x), pos=_sq(free), nonpos=_sq(free)))
    res = step.prove(0, "<=", x**2)
    assert not res.complete and "tan(x)" in res.first_failure  # neither case holds at x = π/2
    ok = Chain(sp.Integer(0), free).le(x**2, by.cases(sp.sin(x), pos=_sq(free), nonpos=_sq(free)))
    assert ok.prove(0, "<=", x**2).complete


def test_termwise_terms_must_be_defined_where_their_sum_is():
    # 1/x - 1/x is 0: the terms' bounds say nothing at x = 0, where the step 0 <= 1 is defined
    step = Chain(sp.Integer(0), free).le(sp.Integer(1), by.termwise(pairs=[(1 / x, 1 / x + 1), (-1 / x, -1 / x)]))
    res = step.prove(0, "<=", 1)
    assert not res.complete and "1/x" in res.first_failure
    # where the sum keeps the pole, so does the step: the terms are defined wherever it is
    lhs, rhs = 1 / x + x, 1 / x + 1 + x
    ok = Chain(lhs, free).le(rhs, by.termwise(pairs=[(1 / x, 1 / x + 1), (x, x)]))
    assert ok.prove(lhs, "<=", rhs).complete
    # or where the hypotheses keep x away from the pole
    at = Chain(sp.Integer(0), pos).le(sp.Integer(1), by.termwise(pairs=[(1 / x, 1 / x + 1), (-1 / x, -1 / x)]))
    assert at.prove(0, "<=", 1).complete


def test_a_fact_must_be_defined_where_the_step_is():
    def fact(ctx):
        return Chain(1 / x + y, ctx).le(1 / x + y + x**2, by.algebra())

    step = Chain(y, free).le(y + x**2, by.algebra_facts(fact(free)))
    res = step.prove(y, "<=", y + x**2)
    assert not res.complete and "fact 1" in res.first_failure
    assert Chain(y, pos).le(y + x**2, by.algebra_facts(fact(pos))).prove(y, "<=", y + x**2).complete


def test_a_lemma_hypothesis_is_read_only_where_its_sides_are_defined():
    def ctx(extra):
        lemma = Lemma(Chain(1 / x + y, Context(extra)).le(1 / x, by.hypothesis("y<=0")), 1 / x + y, "<=", 1 / x)
        return Context({**extra, "L": lemma})

    # the lemma is about 1/x, which says nothing at x = 0: it is no hypothesis there
    assert ctx({"y<=0": y <= 0}).relation("L") == ()
    assert ctx({"y<=0": y <= 0, "x>0": x > 0}).relation("L") != ()


def test_a_discharged_premise_must_be_defined_where_the_citing_step_is():
    w, a = sp.Symbol("w", real=True), sp.Symbol("a")
    T = Lemma(Chain(w, Context({"P": sp.Le(1 / a + w, 1 / a)})).le(0, by.algebra()), w, "<=", 0)

    def cite(ctx):
        premise = Chain(1 / x + y, ctx).le(1 / x, by.algebra())  # 1/x + y <= 1/x given y <= 0
        return Chain(y, ctx).le(0, by.instance(T, {w: y, a: x}, {"P": premise}))

    # the premise 1/x + y <= 1/x says nothing at x = 0, where the step y <= 0 is defined
    res = cite(Context({"y<=0": y <= 0})).prove(y, "<=", 0)
    assert not res.complete and "premise" in res.first_failure
    assert cite(Context({"y<=0": y <= 0, "x>0": x > 0})).prove(y, "<=", 0).complete


def test_a_sub_chain_must_be_defined_where_the_step_is():
    D = sp.Function("D", real=True)
    X, t = D(1) + 1 / x, sp.Rational(1, 2)
    tail = Prob(sp.Le(X - Expect(X), -t))
    bound = sp.exp(-2 * t**2)

    def step(ctx):
        low = Chain(X, ctx).ge(1 / x, by.algebra())  # X - 1/x = D(1) >= 0
        high = Chain(X, ctx).le(1 / x + 1, by.algebra())
        return Chain(tail, ctx).le(bound, by.hoeffding(X, t, 1 / x, 1 / x + 1, low=low, high=high))

    unit = {"D>=0": D(1) >= 0, "D<=1": D(1) <= 1}
    res = step(Context(unit)).prove(tail, "<=", bound)
    assert not res.complete and "hoeffding" in res.first_failure
    assert step(Context({**unit, "x>0": x > 0})).prove(tail, "<=", bound).complete
