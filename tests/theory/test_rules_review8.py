"""An eighth review looked at the seventh review's fixes and got seven more false statements
checked; each is kept here as a regression, beside a true variant that still checks. The
renaming of bound variables missed sums with several limits (SymPy merges nested sums into
one), integrals and ``Subs``; its sign profile read lo >= 1 as "every k is positive" on a
reversed range, which SymPy (Karr) reads as hi + 1 .. lo − 1; a value's sign was read from a
bound variable's own assumptions in ``instance``; a relation inside an event was not counted as
a use of the function's value; the "for every i" reading of a hypothesis ignored a hypothesis
that pins i, and a substitution's old side; and the kernel's fixed symbols could be forged by
their index."""

import sympy as sp

from attnbounds.theory import proof
from attnbounds.theory.proof import Chain, Context, Cond, Expect, Lemma, Prob, by

S = sp.Symbol
k, m, kp, i = (S(n, integer=True, positive=True) for n in ("k", "m", "kp", "i"))
a, s, x, y, q = (S(n, real=True) for n in "asxyq")


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


def _checks(res):
    assert res.complete, res.first_failure


def test_sums_with_several_limits_are_renamed_too():
    rhs = sp.Sum(a - k, (k, 1, 3), (m, 1, 1))  # 3a − 6 >= 0 "from" a >= k: −3 at a = k = 1
    _refused(Chain(sp.Integer(0), Context({"h": a >= k})).le(rhs, by.algebra()).prove(0, "<=", rhs), "cannot prove")
    e = sp.Sum(kp, (kp, -3, -1), (m, 1, 1))  # −6 >= 0 "because" kp > 0
    _refused(Chain(sp.Integer(0)).le(e, by.algebra()).prove(0, "<=", e), "cannot prove")
    lhs = sp.Sum(s, (k, 1, 2), (m, 1, 1))  # 2s = 2k with s = k, not 3
    _refused(Chain(lhs, Context({"def": sp.Eq(s, k)})).eq(3, by.index_identity(defs="def")).prove(lhs, "=", 3), "does not reduce")
    e = sp.Sum(kp * m, (kp, 1, 3), (m, 1, 2))  # true: every term is positive
    _checks(Chain(sp.Integer(0)).le(e, by.algebra()).prove(0, "<=", e))


def test_a_reversed_range_gives_its_index_no_sign():
    kk, n, j, mm = (S(v, integer=True) for v in ("kk", "n", "j", "mm"))
    e = sp.Sum(sp.Abs(kk) - kk, (kk, 1, n))  # −20 at n = −5 (Karr: −Σ_{kk=−4}^{0})
    _refused(Chain(e).ge(sp.Integer(0), by.algebra()).prove(e, ">=", 0), "cannot prove")
    _checks(Chain(e, Context({"n>=0": n >= 0})).ge(sp.Integer(0), by.algebra()).prove(e, ">=", 0))  # true for n >= 0
    e = sp.Sum(2 * sp.Sum(sp.KroneckerDelta(mm, j), (mm, 1, 3)), (j, 1, -5))  # 0, not −10
    _refused(Chain(e).eq(-10, by.index_identity()).prove(e, "=", -10), "does not reduce")


def test_integrals_and_subs_bind_their_variable():
    lhs, rhs = sp.Subs(x * y, x, 1), sp.Subs(x * x, x, 1)  # y = 1 "from" y = x
    _refused(Chain(lhs, Context({"h": sp.Eq(y, x)})).eq(rhs, by.hypothesis("h")).prove(lhs, "=", rhs), "would be captured")
    lhs = sp.Integral(s, (x, 0, 1))  # s "=" 1/2 from s = x
    _refused(Chain(lhs, Context({"def": sp.Eq(s, x)})).eq(sp.Rational(1, 2), by.index_identity(defs="def"))
             .prove(lhs, "=", sp.Rational(1, 2)), "does not reduce")


def test_instance_reads_a_value_sign_without_its_bound_variables_assumptions():
    A, yp = sp.Sum(kp, (kp, -3, -1)), S("yp", positive=True)  # A = −6 stands for a positive yp
    thm = Lemma(Chain(sp.Integer(0)).le(yp, by.algebra()), 0, "<=", yp)
    _refused(Chain(sp.Integer(0)).le(A, by.instance(thm, {yp: A})).prove(0, "<=", A), "must be positive")
    A = sp.Sum(kp, (kp, 1, 3))
    _checks(Chain(sp.Integer(0)).le(A, by.instance(thm, {yp: A})).prove(0, "<=", A))


def test_a_relation_inside_an_event_uses_the_value():
    D = sp.Function("D")  # P(D >= 2) = 1: D >= 2 surely, so E[D | D] is not 1
    lhs = Expect(Cond(D(i), D(i)))
    _refused(Chain(lhs, Context({"h": sp.Eq(Prob(D(i) >= 2), 1)})).eq(1, by.condition()).prove(lhs, "=", 1), "is not 1")
    _checks(Chain(lhs, Context({"h": sp.Eq(Prob(D(i)), sp.Rational(1, 2))})).eq(1, by.condition()).prove(lhs, "=", 1))


def test_the_for_every_reading_of_a_hypothesis_needs_an_unpinned_index():
    Dd = sp.Function("Dd", deterministic=True)  # q = Dd(i) with i = 1 is about Dd(1) only: 3q vs q + 14
    lhs, rhs = sp.Sum(q, (i, 1, 3)), sp.Sum(Dd(i), (i, 1, 3))
    _refused(Chain(lhs, Context({"h": sp.Eq(q, Dd(i)), "pin": sp.Eq(i, 1)})).eq(rhs, by.hypothesis("h")).prove(lhs, "=", rhs),
             "would be captured")
    _checks(Chain(lhs, Context({"h": sp.Eq(q, Dd(i))})).eq(rhs, by.hypothesis("h")).prove(lhs, "=", rhs))


def test_the_kernel_symbols_are_not_forged_by_their_index():
    forged = sp.Dummy("idx_", dummy_index=9_000_800, integer=True, positive=True)  # the old fixed index
    rhs = sp.Sum(a - k, (k, 1, 3))
    _refused(Chain(sp.Integer(0), Context({"h": a >= forged})).le(rhs, by.algebra()).prove(0, "<=", rhs), "cannot prove")
    assert proof._fixed_dummy("idx", 0) != forged
