"""A fourth review swept every rule for values put where a rule needs them fixed, and found
twelve false statements checked; each is kept here as a regression (refused, with the reason),
beside a true variant that still checks.

Random or conditioned values (D uniform on {1, 2}, so P(D = k) = 1/2 but P(D = D) = 1):
``index-identity`` put a random point into a mean through its Kronecker normal form and
through a definition f[k] = E[...] read at k := D; ``abs-bound`` split a Kronecker delta on a
random variable inside E; ``max-bound``, ``diag-norm`` and ``gershgorin-rows`` took their "for
every k" index as given (a random one, or a number: one term checked for all); ``condition``
let an event use an index that X binds. Not random at all: ``gershgorin`` never tied its stated
norm to A (5 <= 0); ``monotone`` and ``jensen`` differentiated a Piecewise branch by branch
(1 <= 0, 11 <= 7); ``jensen`` read a hypothesis about phi's own variable as one about its
domain (0 <= -2 for v**3 given v >= 0)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Cond, Context, Expect, Mat, MaxOver, OpNorm, by

D = sp.Symbol("D", integer=True, positive=True, random=True)
j = sp.Symbol("j", integer=True, positive=True)
kk = sp.Symbol("kk", integer=True)


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


def test_index_identity_keeps_a_random_point_out_of_a_mean():
    d = sp.KroneckerDelta(D, j)  # δ(D, j) E[δ(D, j)] = δ(D, j): at D = j, 1/2 = 1
    lhs = d * Expect(d)
    res = Chain(lhs).eq(d * Expect(sp.Integer(1)), by.index_identity()).eq(d, by.linearity()).prove(lhs, "=", d)
    _refused(res, "does not reduce to 0")
    m = sp.Symbol("m", integer=True, positive=True)  # a non-random point still collapses
    dm = sp.KroneckerDelta(m, j)
    lhs, rhs = dm * Expect(sp.KroneckerDelta(D, m)), dm * Expect(sp.KroneckerDelta(D, j))
    assert Chain(lhs).eq(rhs, by.index_identity()).prove(lhs, "=", rhs).complete
    f = sp.IndexedBase("f")  # f_k = P(D = k), read at k := D: f_D = 1 (it is 1/2)
    ctx = Context({"def": sp.Eq(f[kk], Expect(sp.KroneckerDelta(D, kk)))})
    res = Chain(f[D], ctx).eq(Expect(sp.Integer(1)), by.index_identity(defs="def")).eq(1, by.linearity()).prove(f[D], "=", 1)
    _refused(res, "definitions: the index must be non-random")
    res = Chain(f[2], ctx).eq(Expect(sp.KroneckerDelta(D, 2)), by.index_identity(defs="def")).prove(
        f[2], "=", Expect(sp.KroneckerDelta(D, 2)))
    assert res.complete, res.first_failure


def test_abs_bound_does_not_split_on_a_random_variable_inside_a_mean():
    d = sp.KroneckerDelta(D, j)  # at D = j: 1 <= P(D = j) = 1/2
    small, big = sp.Abs(d * (D - j + 1)), d * Expect(d)
    E1 = Expect(sp.Integer(1))
    facts = [Chain(sp.Integer(1)).eq(E1, by.linearity()).le(E1, by.algebra()),
             Chain(sp.Integer(-1)).le(1, by.algebra()).eq(E1, by.linearity())]
    res = Chain(small).le(big, by.abs_bound(cases=(D, j), facts=facts)).prove(small, "<=", big)
    _refused(res, "abs-bound: the case variable must be non-random")


def test_for_every_index_rules_need_a_generic_non_random_index():
    ext = MaxOver(sp.Lambda(kk, Expect(1 - sp.KroneckerDelta(D, kk))), 2)  # max_k P(D != k) = 1/2
    res = Chain(ext).le(0, by.max_bound(ext, 0, D, Chain(ext.term(D)).eq(0, by.linearity()))).prove(ext, "<=", 0)
    _refused(res, "max-bound: the index must be non-random")
    ext = MaxOver(sp.Lambda(kk, kk), 2)  # max_k k = 2, with the term checked at k = 1 only
    res = Chain(ext).le(1, by.max_bound(ext, 1, 1, Chain(sp.Integer(1)).le(1, by.algebra()))).prove(ext, "<=", 1)
    _refused(res, "max-bound: the index 1 must be a symbol")
    k2 = sp.Symbol("k2", integer=True, positive=True)
    ext = MaxOver(sp.Lambda(kk, 1 / (kk + 1)), 2)
    res = Chain(ext).le(1, by.max_bound(ext, 1, k2, Chain(1 / (k2 + 1)).le(1, by.algebra()))).prove(ext, "<=", 1)
    assert res.complete, res.first_failure
    ext = MaxOver(sp.Lambda(kk, kk), k2)  # the index may not be free in the sides: max_{k<=n} k <= n
    res = Chain(ext).le(k2, by.max_bound(ext, k2, k2, Chain(k2).le(k2, by.algebra()))).prove(ext, "<=", k2)
    _refused(res, "is free in the step's sides")
    r, c = sp.symbols("r c", integer=True, positive=True)
    M = Mat(sp.Lambda((r, c), sp.KroneckerDelta(r, c) * c), 2)  # diag(1, 2): its norm is 2
    res = Chain(OpNorm(M)).le(1, by.diag_norm(1, 1, Chain(sp.Abs(M.entry(1, 1))).le(1, by.algebra()))).prove(OpNorm(M), "<=", 1)
    _refused(res, "diag-norm: the index 1 must be a symbol")
    jj = sp.Symbol("jj", integer=True, positive=True)
    row = Chain(sp.Sum(sp.Abs(M.entry(1, jj)), (jj, 1, 2))).eq(1, by.identity())
    res = Chain(OpNorm(M)).le(1, by.gershgorin_rows(1, jj, row)).prove(OpNorm(M), "<=", 1)
    _refused(res, "gershgorin-rows: the index 1 must be a symbol")


def test_condition_refuses_an_event_on_an_index_that_x_binds():
    i = sp.Symbol("i", integer=True, positive=True)
    S = sp.Function("S", nonnegative=True)  # S(1), S(2) independent Bernoulli(1/2): E[S1 + S2 | S1] = 3/2
    lhs = Expect(Cond(sp.Sum(S(i), (i, 1, 2)), S(i)))
    _refused(Chain(lhs).eq(2, by.condition()).prove(lhs, "=", 2), "which X binds")
    lhs = Expect(Cond(S(i), S(i)))
    assert Chain(lhs).eq(1, by.condition()).prove(lhs, "=", 1).complete


def test_gershgorin_reads_the_norm_of_a():
    _refused(Chain(sp.Integer(5)).le(0, by.gershgorin([[0]], 5)).prove(5, "<=", 0), "opnorm(Mat")


def test_monotone_and_jensen_refuse_maps_that_jump():
    t = sp.Symbol("t", real=True)
    g = sp.Piecewise((1, t >= 1), (0, True))  # g' = 0 branch by branch: "1 <= 0"
    _refused(Chain(sp.Integer(1)).le(0, by.monotone(t, g, 1, 0)).prove(1, "<=", 0), "may jump in t")
    half = sp.Rational(1, 2)
    phi = sp.Lambda(t, sp.Piecewise((t**2, t < 1), (t**2 + 10, True)))  # phi'' = 2 branch by branch: 11 <= 7
    small, big = phi(1), half * phi(0) + half * phi(2)
    _refused(Chain(small).le(big, by.jensen(phi, weights=[half, half], points=[0, 2])).prove(small, "<=", big), "may jump in t")
    u = sp.Symbol("u", real=True)  # a smooth map is still accepted
    res = Chain(sp.Integer(-1)).le(8, by.monotone(u, u**3, -1, 2)).prove(-1, "<=", 8)
    assert res.complete, res.first_failure


def test_jensen_convexity_ignores_hypotheses_about_phis_variable():
    v = sp.Symbol("v", real=True)  # v**3 is not convex on R; a hypothesis v >= 0 is about another v
    phi = sp.Lambda(v, v**3)
    w, pts = [sp.Rational(1, 3), sp.Rational(2, 3)], [-2, 1]
    small, big = phi(0), w[0] * phi(-2) + w[1] * phi(1)  # 0 <= -2
    res = Chain(small, Context({"v>=0": sp.Ge(v, 0)})).le(big, by.jensen(phi, weights=w, points=pts)).prove(small, "<=", big)
    _refused(res, "cannot prove phi''")
    vp = sp.Symbol("vp", nonnegative=True)  # convex on its own domain [0, oo): still accepted
    phi = sp.Lambda(vp, vp**3)
    small, big = phi(sp.Rational(2, 3)), w[0] * phi(0) + w[1] * phi(1)
    assert Chain(small).le(big, by.jensen(phi, weights=w, points=[0, 1])).prove(small, "<=", big).complete
