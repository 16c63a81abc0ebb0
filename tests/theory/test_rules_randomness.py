"""What the kernel takes as random (``is_constant``, ``is_random_atom``) fails closed.

A first review got five false statements checked through the old convention, which called
only ``sp.Function("D")(i)`` random: a user's ``sp.Function`` subclass and a ``sympy.stats``
random symbol were constants, so linearity took them out of E, Markov took one as its
threshold, and ``cases`` split on one; two notions of "random" also disagreed (a function
declared deterministic was a constant for Markov and random for linearity). A second review
found user ``Expr``/``Symbol`` classes, random sum and union limits, and ``condition`` on an
entry of a random base; a third, a conditioned value given to a random symbol by ``instance``
and a random point put into a probability by four rules. Each is kept below as a regression:
the false chain is refused, the true one still checks. A random quantity written as a plain
symbol or ``x[j]`` is a constant by convention; a symbol (or an indexed base's label) declared
``random=True`` is random, and the rules about random variables (Markov, Hoeffding,
McDiarmid) refuse a non-random one."""

import pytest
import sympy as sp
from sympy.stats import Normal, Uniform

from attnbounds.theory.proof import (BoundedDifferences, Chain, Cond, Context, Cup, Expect, Lemma, Prob, by, is_constant,
                                     is_random_atom)

k = sp.Symbol("k", integer=True)
i = sp.Symbol("i", integer=True)
r = sp.Symbol("r", positive=True)


class Dist(sp.Function):
    """A user's function class for a random distance D_k (no deterministic=True)."""

    nargs = 1
    is_real = True
    is_positive = True


class Weight(sp.Function):
    """A user's function class declared deterministic (a fixed weight w_k)."""

    nargs = 1
    is_positive = True
    deterministic = True


def _zero_variance(X):
    """E[X^2] = X^2 = E[X]^2 by linearity: checked only if X is taken as a constant."""
    return (Chain(Expect(X**2)).eq(X**2, by.linearity()).eq(Expect(X) ** 2, by.linearity())
            .prove(Expect(X**2), "=", Expect(X) ** 2))


def _split_product(V):
    """E[max(V, 0)] E[min(V, 0)] = 0 by a case split on V: false for V = ±1 (it is −1/4)."""
    lhs = Expect(sp.Max(V, 0)) * Expect(sp.Min(V, 0))
    pos = Chain(Expect(V) * Expect(sp.Integer(0))).eq(0, by.linearity())
    nonpos = Chain(Expect(sp.Integer(0)) * Expect(V)).eq(0, by.linearity())
    return Chain(lhs).eq(0, by.cases(V, pos=pos, nonpos=nonpos)).prove(lhs, "=", 0)


RANDOM = {
    "undefined function": sp.Function("W", real=True)(k),
    "user's Function subclass": Dist(k),
    "sympy.stats Normal": Normal("X", 0, 1),
    "symbol declared random": sp.Symbol("Y", real=True, random=True),
    "indexed, label declared random": sp.IndexedBase(sp.Symbol("x", real=True, random=True))[k],
}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_forms_are_random_and_stay_inside_expectations(name):
    X = RANDOM[name]
    assert not is_constant(X) and not is_constant(2 * X + 1) and is_constant(Expect(X))
    res = _zero_variance(X)
    assert not res.complete and "linearity" in res.first_failure, res.first_failure
    res = _split_product(X)
    assert not res.complete and "cases: the split" in res.first_failure and "must be non-random" in res.first_failure, \
        res.first_failure


def test_constants_by_convention_and_by_declaration():
    y = sp.IndexedBase("y")
    for c in (sp.Symbol("a"), y[k], Weight(k), sp.Function("t", deterministic=True)(k), sp.sqrt(sp.Symbol("a")),
              sp.Max(y[k], 0)):
        assert is_constant(c), c
    assert not is_random_atom(sp.exp(Dist(k))) and not is_constant(sp.exp(Dist(k)))  # random through its argument
    # linearity takes a declared-deterministic factor out (it used to refuse it, as random)
    t = sp.Function("t", positive=True, deterministic=True)(i)
    D = sp.Function("D", nonnegative=True)(i)
    res = Chain(Expect(t * D)).eq(t * Expect(D), by.linearity()).prove(Expect(t * D), "=", t * Expect(D))
    assert res.complete, res.first_failure
    res = Chain(Expect(Weight(k) * D)).eq(Weight(k) * Expect(D), by.linearity()).prove(
        Expect(Weight(k) * D), "=", Weight(k) * Expect(D))
    assert res.complete, res.first_failure
    assert res.nonrandom == ("Weight",)  # a declaration is an assumption: the summary names it
    assert "non-random by declaration: Weight" in res.summary()


def test_markov_threshold_that_is_a_users_random_class_is_refused():
    X = Dist(k)  # 1 = P(X >= X) <= E[X]/X, i.e. X <= E[X] at every outcome: false
    res = (Chain(sp.Integer(1), Context({"X>0": sp.Gt(X, 0)})).eq(Prob(sp.true), by.indicator_algebra())
           .le(Expect(X) / X, by.markov(X, X))).prove(1, "<=", Expect(X) / X)
    assert not res.complete and "markov: r must be non-random" in res.first_failure, res.first_failure
    U = Uniform("U", 1, 3)  # the same with U ~ U[1, 3]: false whenever U > 2
    res = (Chain(sp.Integer(1), Context({"U>0": sp.Gt(U, 0)})).eq(Prob(sp.true), by.indicator_algebra())
           .le(Expect(U) / U, by.markov(U, U))).prove(1, "<=", Expect(U) / U)
    assert not res.complete and "markov: r must be non-random" in res.first_failure, res.first_failure


def test_instance_refuses_a_users_random_class_as_a_threshold():
    y = sp.IndexedBase("y", positive=True)
    Z = sp.Function("Z", nonnegative=True)
    ctx = Context({"Z>=0": sp.Ge(Z(k), 0)})
    thm = Lemma(Chain(Prob(sp.Ge(Z(k), y[k])), ctx).le(Expect(Z(k)) / y[k], by.markov(Z(k), y[k])),
                Prob(sp.Ge(Z(k), y[k])), "<=", Expect(Z(k)) / y[k])
    goal = (Prob(sp.Ge(Z(k), Dist(k))), "<=", Expect(Z(k)) / Dist(k))
    res = Chain(goal[0], ctx).le(goal[2], by.instance(thm, {y: sp.Lambda(k, Dist(k))})).prove(*goal)
    assert not res.complete and "must be non-random" in res.first_failure, res.first_failure
    ok = (Prob(sp.Ge(Z(k), Weight(k))), "<=", Expect(Z(k)) / Weight(k))  # a deterministic one is fine
    res = Chain(ok[0], ctx).le(ok[2], by.instance(thm, {y: sp.Lambda(k, Weight(k))})).prove(*ok)
    assert res.complete, res.first_failure


def test_conditioning_conditions_a_users_random_class():
    X = Dist(k)  # E[X | X <= 1] = E[X]: false in general; condition must keep X under the condition
    A = sp.Le(X, 1)
    res = Chain(Expect(Cond(X, A))).eq(X, by.condition()).eq(Expect(X), by.linearity()).prove(
        Expect(Cond(X, A)), "=", Expect(X))
    assert not res.complete and "condition" in res.first_failure, res.first_failure
    t = sp.Function("t", positive=True, deterministic=True)(k)  # E[t | A] = t for a non-random t
    res = Chain(Expect(Cond(t, A))).eq(t, by.condition()).prove(Expect(Cond(t, A)), "=", t)
    assert res.complete, res.first_failure


def test_rules_about_random_variables_refuse_a_constant():
    """A step of Markov, Hoeffding or McDiarmid about a plain symbol (a random quantity written as
    a constant; linearity would then read its mean as itself) is refused, and accepted once the
    symbol is declared random."""
    t = sp.Symbol("t", positive=True)
    for Y in (sp.Symbol("Y", nonnegative=True), sp.Symbol("Y", nonnegative=True, random=True)):
        random = is_random_atom(Y)
        tail = Prob(Y - Expect(Y) <= -t)
        steps = {"markov: X": (Chain(Prob(Y >= r)).le(Expect(Y) / r, by.markov(Y, r)), (Prob(Y >= r), "<=", Expect(Y) / r)),
                 "hoeffding: X": (Chain(tail, Context({"Y>=0": sp.Ge(Y, 0), "Y<=1": sp.Le(Y, 1)})).le(
                     sp.exp(-2 * t**2), by.hoeffding(Y, t, 0, 1)), (tail, "<=", sp.exp(-2 * t**2))),
                 "mcdiarmid: f": (Chain(tail, Context({"bd": BoundedDifferences(Y, 4)})).le(
                     sp.exp(-t**2 / 2), by.mcdiarmid(Y, t, "bd")), (tail, "<=", sp.exp(-t**2 / 2)))}
        for what, (chain, goal) in steps.items():
            res = chain.prove(*goal)
            assert res.complete is random, (what, res.first_failure)
            if not random:
                assert f"{what} = Y must be a random variable" in res.first_failure, res.first_failure


class DistExpr(sp.Expr):
    """A user's random distance written as an ``Expr`` subclass (no deterministic flag)."""

    is_real = True
    is_commutative = True

    def __new__(cls, arg):
        return sp.Expr.__new__(cls, sp.sympify(arg))


class RandomVar(sp.Symbol):
    """A user's ``Symbol`` subclass for a random variable."""


def test_users_expr_and_symbol_classes_are_random():
    """A second review: only Function subclasses failed closed at first."""
    for X in (DistExpr(k), RandomVar("R", real=True)):
        assert is_random_atom(X) and not is_constant(X)
        res = _zero_variance(X)
        assert not res.complete and "linearity" in res.first_failure, res.first_failure
    assert not is_random_atom(3) and is_constant(3)  # not a SymPy object


def test_sums_and_unions_over_a_random_range_are_refused():
    """A second review got both accepted: the index's range i <= N is read as a hypothesis, at
    every outcome, which a random N makes true on part of the space only (so Markov inside the
    term took N − i >= 0), and a union bound over 1..N compared a number with a random sum."""
    h = sp.Symbol("h", integer=True, positive=True)
    A = sp.Function("A")
    for random in (True, False):
        N = sp.Symbol("N", integer=True, positive=True, random=random)
        lhs, rhs = Prob(Cup(A(h), (h, 1, N))), sp.Sum(Prob(A(h)), (h, 1, N))
        res = Chain(lhs).le(rhs, by.union_bound()).prove(lhs, "<=", rhs)
        assert res.complete is not random, res.first_failure
        if random:
            assert "union-bound: the limit N must be non-random" in res.first_failure
        # a true step (N >= 2 surely), refused conservatively: sum-term's range feeds a sign check only
        f = sp.Function("f", nonnegative=True, deterministic=True)
        ctx = Context({"N>=2": sp.Ge(N, 2)})
        res = Chain(f(2), ctx).le(sp.Sum(f(h), (h, 1, N)), by.sum_term(h, 1, N, 2, f(h))).prove(
            f(2), "<=", sp.Sum(f(h), (h, 1, N)))
        assert res.complete is not random, res.first_failure
        if random:
            assert "sum-term: the limit N must be non-random" in res.first_failure
    N = sp.Symbol("N", integer=True, positive=True, random=True)
    X = N - i  # N = 10 w.p. 1/10 else 1: at N = 10, 9/10 <= sum_{i<=10} (19/10 − i) = −36
    term = Chain(Prob(X >= 1), Context({"i>=1": sp.Ge(i, 1)})).le(Expect(X), by.markov(X, 1))
    lhs, rhs = sp.Sum(Prob(X >= 1), (i, 1, N)), sp.Sum(Expect(X), (i, 1, N))
    res = Chain(lhs).le(rhs, by.termwise(i, 1, N, term=term)).prove(lhs, "<=", rhs)
    assert not res.complete and "termwise: the limit N must be non-random" in res.first_failure, res.first_failure
    n = sp.Symbol("n", integer=True, positive=True)  # the same over a fixed range checks
    Y = sp.Symbol("Y", nonnegative=True, random=True)
    term = Chain(Prob(Y >= i), Context({"i>=1": sp.Ge(i, 1)})).le(Expect(Y) / i, by.markov(Y, i))
    lhs, rhs = sp.Sum(Prob(Y >= i), (i, 1, n)), sp.Sum(Expect(Y) / i, (i, 1, n))
    res = Chain(lhs).le(rhs, by.termwise(i, 1, n, term=term)).prove(lhs, "<=", rhs)
    assert res.complete, res.first_failure


def test_condition_conditions_an_entry_of_a_random_base_whole():
    x = sp.IndexedBase(sp.Symbol("x", real=True, random=True))
    for X in (x[k], sp.Symbol("Y", real=True, random=True), sp.Function("D", real=True)(k)):
        A = sp.Le(X, 1)
        lhs, rhs = Expect(Cond(2 * X, A)), Expect(2 * Cond(X, A))
        res = Chain(lhs).eq(rhs, by.condition()).prove(lhs, "=", rhs)
        assert res.complete, (X, res.first_failure)
        res = Chain(lhs).eq(Expect(2 * X), by.condition()).prove(lhs, "=", Expect(2 * X))  # not unconditioned
        assert not res.complete, X


def test_instance_gives_a_symbol_the_theorem_declares_random_a_random_value():
    """Markov proved for a random Y (declared random=True) is cited for D(i) and for x[k] of a
    random base; a constant symbol of the same theorem still takes only non-random values."""
    Y = sp.Symbol("Y", nonnegative=True, random=True)
    thm = Lemma(Chain(Prob(Y >= r)).le(Expect(Y) / r, by.markov(Y, r)), Prob(Y >= r), "<=", Expect(Y) / r)
    D = sp.Function("D", nonnegative=True)(i)
    goal = (Prob(D >= r), "<=", Expect(D) / r)
    res = Chain(goal[0]).le(goal[2], by.instance(thm, {Y: D})).prove(*goal)
    assert res.complete, res.first_failure
    x = sp.IndexedBase(sp.Symbol("x", nonnegative=True, random=True))
    thm2 = Lemma(Chain(Prob(x[k] >= r)).le(Expect(x[k]) / r, by.markov(x[k], r)), Prob(x[k] >= r), "<=", Expect(x[k]) / r)
    res = Chain(goal[0]).le(goal[2], by.instance(thm2, {x: sp.Lambda(k, sp.Function("D", nonnegative=True)(k)), k: i})).prove(*goal)
    assert res.complete, res.first_failure
    bad = (Prob(D >= D), "<=", Expect(D) / D)  # r := D(i): a random threshold, refused
    res = Chain(bad[0], Context({"D>0": sp.Gt(D, 0)})).le(bad[2], by.instance(thm, {Y: D, r: D})).prove(*bad)
    assert not res.complete and "instance: the value of r" in res.first_failure, res.first_failure
    Z = sp.Function("Z", real=True)(i)  # the value must keep Y's assumptions (Y >= 0)
    res = Chain(Prob(Z >= r)).le(Expect(Z) / r, by.instance(thm, {Y: Z})).prove(Prob(Z >= r), "<=", Expect(Z) / r)
    assert not res.complete and "must be nonnegative, as Y is" in res.first_failure, res.first_failure


def test_instance_refuses_a_conditioned_value_for_a_random_symbol():
    """A third review: total expectation proved for a random Y and cited for Y := Cond(W, A)
    read E[W | A] = P(B) E[W | A, B] + P(not B) E[W | A, not B], with P(B) for P(B | A): false
    (Omega = {1, 2, 3, 4} uniform, A = {1, 2}, B = {1, 3, 4}, W = 1 at 1: 1/2 against 3/4)."""
    Y = sp.Symbol("Y", real=True, random=True)
    B = sp.Function("in_B")(i)
    split = Prob(B) * Expect(Cond(Y, B)) + Prob(sp.Not(B)) * Expect(Cond(Y, sp.Not(B)))
    thm = Lemma(Chain(Expect(Y)).eq(split, by.total_expectation([B, sp.Not(B)])), Expect(Y), "=", split)
    assert thm.chain.prove(Expect(Y), "==", split).complete
    W, A = sp.Function("W", real=True)(i), sp.Function("in_A")(i)
    for value, ok in ((Cond(W, A), False), (W, True)):
        lhs, rhs = Expect(value), split.xreplace({Y: value})
        res = Chain(lhs).eq(rhs, by.instance(thm, {Y: value})).prove(lhs, "=", rhs)
        assert res.complete is ok, res.first_failure
        if not ok:
            assert "is conditioned" in res.first_failure, res.first_failure


def test_a_random_point_is_not_put_into_a_probability():
    """A third review got four false statements checked (D uniform on {1, 2}): P(D = k) at the
    point k := D is P(D = D) = 1, not 1/2. Each rule now refuses a random point in a term with a
    mean or a probability, and keeps a non-random one."""
    kk, m = sp.Symbol("kk", integer=True), sp.Symbol("m", integer=True)
    D = sp.Symbol("D", integer=True, random=True)
    ctx = Context({"D>=1": sp.Ge(D, 1), "D<=2": sp.Le(D, 2)})
    from attnbounds.theory.proof import MaxOver

    def checks(point):
        f = Prob(sp.Eq(D, kk, evaluate=False)) ** 2
        small, big = f.subs(kk, point), sp.Sum(f, (kk, 1, 2))
        yield "sum-term: the point x", Chain(small, ctx).le(big, by.sum_term(kk, 1, 2, point, f)).prove(small, "<=", big)
        ext = MaxOver(sp.Lambda(kk, Prob(sp.Eq(D, kk, evaluate=False))), 2)
        yield "extremum: the point x", Chain(ext.term(point), ctx).le(ext, by.extremum(ext, point)).prove(
            ext.term(point), "<=", ext)
        A = sp.Ge(Prob(sp.Eq(D, kk, evaluate=False)), sp.Rational(3, 4))
        big = Prob(Cup(A, (kk, 1, 2)))
        small = Prob(A.xreplace({kk: point}))
        yield "union-contains: k", Chain(small, ctx).le(big, by.union_contains(point)).prove(small, "<=", big)
        lhs = sp.Sum(sp.KroneckerDelta(m, point) * Prob(sp.Eq(D, m, evaluate=False)), (m, 1, 2))
        rhs = Prob(sp.Eq(D, point, evaluate=False))
        yield "index-identity", Chain(lhs, ctx).eq(rhs, by.index_identity()).prove(lhs, "=", rhs)

    for what, res in checks(D):
        assert not res.complete and what in res.first_failure, (what, res.first_failure)
        if what != "index-identity":
            assert "must be non-random" in res.first_failure
    for what, res in checks(sp.Integer(2)):
        assert res.complete, (what, res.first_failure)
