"""A twelfth review found more ways to a false statement, kept here as regressions beside true
variants:

1. ``instance`` checked a cited base's Lambda at integer subscripts only, so a theorem 0 <= x[1/2]
   about a positive base was cited at x := Lambda(m, cos(2 pi m)), giving 0 <= -1;
2. ``jensen`` with X= took a random phi (Lambda(v, Y)), so Y <= E[Y] at every outcome;
3. ``rank-one`` evaluated x(k), y(k) at the caller's k, declared negative (x(k) = Max(k, 2) - 2 = 0),
   and let x use k itself, which its sums over k captured;
4. ``gershgorin-rows`` did the same with its column index j;
5. ``mean-value`` built its Jacobian as Lambda((u_mv, w_mv), ...) with fixed names, which captured a
   caller's free w_mv in phi;
6. ``mean-value`` ignored phi's dependence on coordinates outside 1..n (phi_q = x_q + x_0, moved by
   d_0 alone, with |d|_2 over 1..n equal to 0);
7. ``simplex-diameter`` (and ``mean-value``) read the caller's hypotheses about its fixed index name
   (k_sd >= 2 made p_k = 5k - 7 >= 0);
8. ``index-identity``'s ``defs=`` read f[k] = e(k) at every index even where another hypothesis pins
   k (k = 1, k <= 1) or k is declared negative; and a sum that a definition brings in was not
   renamed, so a hypothesis about a free k decided a Piecewise on the bound k, and another
   definition was read at its bound k by k's declared assumptions, not its range;
9. ``hypothesis`` read a hypothesis about P(missed(i)) "for every i" under a sum over i = 1..N
   although i was declared negative (or zero).

A tenth finding (a ``WeightedNorm`` definition that contradicts the other hypotheses) is vacuous,
like contradictory hypotheses: no code change, see docs/proof-rules.md.
"""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Expect, Lemma, Mat, OpNorm, Prob, by

r, c, q, m = sp.symbols("r c q m", integer=True, positive=True)
kpos = sp.Symbol("k", integer=True, positive=True)
kneg = sp.Symbol("k", integer=True, negative=True)


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


def _e3(t):
    return sp.Max(t, 2) - 2  # (0, 0, 1) on 1..3


# 1. instance ------------------------------------------------------------------------------------


def test_instance_checks_a_base_value_at_every_subscript_the_theorem_reads():
    x = sp.IndexedBase("x", positive=True)
    half = sp.Rational(1, 2)
    thm = Lemma(Chain(sp.Integer(0)).le(x[half], by.algebra()), sp.Integer(0), "<=", x[half])
    v = sp.Symbol("v")
    lam = sp.Lambda(v, sp.cos(2 * sp.pi * v))  # 1 at every integer, -1 at 1/2
    res = Chain(sp.Integer(0)).le(lam(half), by.instance(thm, {x: lam})).prove(0, "<=", -1)
    _refused(res, "must be positive, as x[1/2] is")
    ok = sp.Lambda(v, 2 + sp.cos(2 * sp.pi * v))  # positive everywhere: 1 at 1/2
    assert Chain(sp.Integer(0)).le(ok(half), by.instance(thm, {x: ok})).prove(0, "<=", 1).complete


# 2. jensen --------------------------------------------------------------------------------------


def test_jensen_with_X_refuses_a_random_phi():
    Y = sp.Symbol("Y", real=True, random=True)
    v = sp.Symbol("v", real=True)
    phi = sp.Lambda(v, Y)  # "convex", but Y <= E[Y] is false
    _refused(Chain(Y).le(Expect(Y), by.jensen(phi, X=Y)).prove(Y, "<=", Expect(Y)), "phi's body must be non-random")
    _refused(Chain(Expect(Y)).le(Y, by.jensen(phi, X=Y, concave=True)).prove(Expect(Y), "<=", Y),
             "phi's body must be non-random")
    sq = sp.Lambda(v, v ** 2)  # true: E[Y]^2 <= E[Y^2]
    assert Chain(Expect(Y) ** 2).le(Expect(Y ** 2), by.jensen(sq, X=Y)).prove(Expect(Y) ** 2, "<=", Expect(Y ** 2)).complete


# 3. rank-one ------------------------------------------------------------------------------------


def _rank_one(k):
    x, y = sp.Lambda(r, _e3(r)), sp.Lambda(c, sp.Integer(1))  # M = x y^T, opnorm sqrt(3)
    M = Mat(sp.Lambda((r, c), _e3(r)), 3)
    big = sp.sqrt(sp.Sum(x(k) ** 2, (k, 1, 3))) * sp.sqrt(sp.Sum(y(k) ** 2, (k, 1, 3)))
    return Chain(OpNorm(M)).eq(big, by.rank_one(x, y, k)).prove(OpNorm(M), "=", big), big


def test_rank_one_reads_its_norms_at_a_generic_index():
    res, big = _rank_one(kneg)  # x(k) = 0 for k < 0: opnorm = 0, false
    assert sp.Sum(0, (kneg, 1, 3)) in big.atoms(sp.Sum)  # |x|_2 read as 0
    _refused(res, "the index k has assumptions ['negative=True'] that not every k in 1..3 has")
    res, big = _rank_one(kpos)
    assert res.complete and big.doit() == sp.sqrt(3)


def test_rank_one_refuses_maps_that_use_the_index():
    x, y = sp.Lambda(q, kpos * q), sp.Lambda(q, sp.Integer(1))  # Σ_k x(k)² would be Σ_k k⁴
    M = Mat(sp.Lambda((r, c), kpos * r), 2)
    big = sp.sqrt(sp.Sum(x(kpos) ** 2, (kpos, 1, 2))) * sp.sqrt(sp.Sum(y(kpos) ** 2, (kpos, 1, 2)))
    _refused(Chain(OpNorm(M)).eq(big, by.rank_one(x, y, kpos)).prove(OpNorm(M), "=", big), "uses the norms' index k itself")


# 4. gershgorin-rows -----------------------------------------------------------------------------


def test_gershgorin_rows_reads_its_row_sums_at_a_generic_column():
    i = sp.Symbol("i", integer=True, positive=True)
    jneg = sp.Symbol("j", integer=True, negative=True)
    A = Mat(sp.Lambda((r, c), _e3(r) * _e3(c)), 3)  # e3 e3^T: opnorm 1
    row = Chain(sp.Sum(sp.Abs(A.entry(i, jneg)), (jneg, 1, 3))).eq(0, by.index_identity())  # 0 at j < 0
    _refused(Chain(OpNorm(A)).le(0, by.gershgorin_rows(i, jneg, row)).prove(OpNorm(A), "<=", 0),
             "the column index: the index j has assumptions ['negative=True']")
    j = sp.Symbol("j", integer=True, positive=True)
    ones = Mat(sp.Lambda((r, c), sp.Integer(1)), 2)  # opnorm 2
    row = Chain(sp.Sum(sp.Abs(ones.entry(i, j)), (j, 1, 2))).eq(2, by.index_identity())
    assert Chain(OpNorm(ones)).le(2, by.gershgorin_rows(i, j, row)).prove(OpNorm(ones), "<=", 2).complete


# 5, 6, 7. mean-value, simplex-diameter ----------------------------------------------------------


X, Z = sp.IndexedBase("x", real=True), sp.IndexedBase("z", real=True)
U, W = sp.symbols("u_mv w_mv", integer=True, positive=True)  # the names the rule used
KMV = sp.Symbol("k_mv", integer=True, positive=True)


def _mean_value(phi, jz, bound, d, n=2, ctx=None):
    """sqrt(Σ_k (phi_k(0 + d) - phi_k(0))²) <= bound |d|_2, the Jacobian chain by diag-norm."""
    a = sp.Lambda(m, sp.Integer(0))
    term = Chain(sp.Abs(jz.entry(kpos, kpos))).eq(bound, by.index_identity())
    jac = Chain(OpNorm(jz)).le(bound, by.diag_norm(kpos, bound, term))
    small = sp.sqrt(sp.Sum((phi(KMV).subs(X[0], a(0) + d(0)).replace(lambda t: isinstance(t, sp.Indexed) and t.base == X,
                                                                      lambda t: a(t.indices[0]) + d(t.indices[0]))
                            - phi(KMV).replace(lambda t: isinstance(t, sp.Indexed) and t.base == X,
                                               lambda t: a(t.indices[0]))) ** 2, (KMV, 1, n)))
    big = bound * sp.sqrt(sp.Sum(d(KMV) ** 2, (KMV, 1, n)))
    step = by.mean_value(phi, X, a, d, Z, n, bound, jac)
    return Chain(small, ctx or Context()).le(big, step).prove(small, "<=", big), small, big


def test_mean_value_jacobian_does_not_capture_a_callers_w_mv():
    phi = sp.Lambda(q, X[q] * (W - q))  # (w_mv - q) x_q for a free w_mv: |phi(d)|_2 = 5 at w_mv = 5, d = (1, 1)
    jz = Mat(sp.Lambda((U, W), sp.Derivative(Z[U] * (W - U), Z[W])), 2)  # the captured Jacobian: 0
    res, small, _ = _mean_value(phi, jz, 0, sp.Lambda(m, sp.Integer(1)))
    assert small.subs(W, 5).doit() == 5
    _refused(res, "the Jacobian chain does not start at")


def test_mean_value_refuses_a_map_of_coordinates_outside_1_n():
    phi = sp.Lambda(q, X[q] + X[0])  # moved by d_0 alone: |phi(a + d) - phi(a)|_2 = sqrt(2) > 0 = |d|_2
    jz = Mat(sp.Lambda((U, W), sp.Derivative(Z[U] + Z[0], Z[W])), 2)
    m0 = sp.Symbol("m0", integer=True)
    res, small, big = _mean_value(phi, jz, 1, sp.Lambda(m0, sp.KroneckerDelta(m0, 0)))
    assert small.doit() == sp.sqrt(2) and big.doit() == 0
    _refused(res, "phi reads x[0], which is not proved to be one of x[1..2]")


def test_mean_value_still_checks_a_map_of_x_1_n():
    phi = sp.Lambda(q, X[q])  # the identity map: |d|_2 <= 1 |d|_2
    jz = Mat(sp.Lambda((U, W), sp.Derivative(Z[U], Z[W])), 2)
    res, _, _ = _mean_value(phi, jz, 1, sp.Lambda(m, sp.Integer(1)))
    assert res.complete, res.first_failure


def test_mean_value_index_is_no_callers_symbol():
    # a hypothesis about the caller's k_mv made 1/(k - 1) smooth at the rule's k_mv (it is 1/0 at k = 1)
    phi = sp.Lambda(q, X[q] / (q - 1))
    jz = Mat(sp.Lambda((U, W), sp.Derivative(Z[U] / (U - 1), Z[W])), 2)
    res, _, _ = _mean_value(phi, jz, 1, sp.Lambda(m, sp.Integer(1)), ctx=Context({"k_mv": KMV >= 2}))
    _refused(res, "phi is not built from smooth parts")


def test_simplex_diameter_index_is_no_callers_symbol():
    ksd = sp.Symbol("k_sd", integer=True, positive=True)
    P, Q = sp.Lambda(m, 5 * m - 7), sp.Lambda(m, m - 1)  # p = (-2, 3) sums to 1 but is no probability vector
    small = sp.sqrt(sp.Sum((P(ksd) - Q(ksd)) ** 2, (ksd, 1, 2)))  # 2 sqrt(2) > sqrt(2)
    res = Chain(small, Context({"free k_sd": ksd >= 2})).le(sp.sqrt(2), by.simplex_diameter(P, Q, 2)).prove(small, "<=", sp.sqrt(2))
    # refused since review 40 at (4 k_sd - 6)**2, which SymPy calls even (untrusted)
    _refused(res, "SymPy calls it even")
    Q = sp.Lambda(m, sp.Rational(1, 2))  # the check this test was written for: |p - q|_2 = 5/sqrt(2) > sqrt(2)
    small = sp.sqrt(sp.Sum((P(ksd) - Q(ksd)) ** 2, (ksd, 1, 2)))
    res = Chain(small, Context({"free k_sd": ksd >= 2})).le(sp.sqrt(2), by.simplex_diameter(P, Q, 2)).prove(small, "<=", sp.sqrt(2))
    _refused(res, "p_k >= 0")
    P = sp.Lambda(m, m - 1)  # p = (0, 1), q = (1, 0): |p - q|_2 = sqrt(2)
    Q = sp.Lambda(m, 2 - m)
    small = sp.sqrt(sp.Sum((P(ksd) - Q(ksd)) ** 2, (ksd, 1, 2)))
    assert Chain(small).le(sp.sqrt(2), by.simplex_diameter(P, Q, 2)).prove(small, "<=", sp.sqrt(2)).complete


# 8. definitions ---------------------------------------------------------------------------------


f = sp.IndexedBase("f")


def test_a_definition_is_not_read_at_every_index_where_a_hypothesis_pins_it():
    for pin in (sp.Eq(kpos, 1), kpos <= 1):  # f_k = 0 at the one index k = 1
        ctx = Context({"def": sp.Eq(f[kpos], 0), "pin": pin})
        _refused(Chain(f[2], ctx).eq(0, by.index_identity(defs="def")).prove(f[2], "=", 0), "constrain the index k")
    ctx = Context({"def": sp.Eq(f[kpos], 0)})
    assert Chain(f[2], ctx).eq(0, by.index_identity(defs="def")).prove(f[2], "=", 0).complete


def test_a_definition_is_read_only_where_its_index_assumptions_hold():
    ctx = Context({"def": sp.Eq(f[kneg], 0)})  # f_k = 0 for every negative k
    _refused(Chain(f[2], ctx).eq(0, by.index_identity(defs="def")).prove(f[2], "=", 0), "2 must be negative, as k is")
    assert Chain(f[-2], ctx).eq(0, by.index_identity(defs="def")).prove(f[-2], "=", 0).complete


def test_a_sum_a_definition_brings_in_is_renamed():
    s = sp.Symbol("s")
    S = sp.Sum(sp.Piecewise((0, kpos <= 1), (1, True)), (kpos, 1, 3))  # = 2
    ctx = Context({"def": sp.Eq(s, S), "free": kpos <= 1})  # about a free k, not the sum's
    _refused(Chain(s, ctx).eq(0, by.index_identity(defs="def")).prove(s, "=", 0), "does not reduce to 0")
    # the sum's own k is declared positive, but it runs over -3..-1, where f_k = 0 (k >= 1) says nothing
    for names in (("S", "f"), ("f", "S")):
        ctx = Context({"S": sp.Eq(s, sp.Sum(f[kpos], (kpos, -3, -1))), "f": sp.Eq(f[kpos], 0)})
        _refused(Chain(s, ctx).eq(0, by.index_identity(defs=names)).prove(s, "=", 0), "must be positive, as k is")
    ctx = Context({"S": sp.Eq(s, sp.Sum(f[kpos], (kpos, 1, 3))), "f": sp.Eq(f[kpos], 0)})
    assert Chain(s, ctx).eq(0, by.index_identity(defs=("S", "f"))).prove(s, "=", 0).complete


# 9. hypothesis ----------------------------------------------------------------------------------


def test_hypothesis_for_every_value_keeps_the_symbols_domain():
    missed = sp.Function("missed")
    N = sp.Symbol("N", integer=True, positive=True)
    p = sp.Symbol("p", nonnegative=True)
    # i = 0 is declared even too, which is untrusted since review 35 and refused before the rule runs
    for i, why in ((sp.Symbol("i", integer=True, negative=True), "not about every i of the sum"),
                   (sp.Symbol("i", integer=True, zero=True), "even by its declaration, from which SymPy derives wrong facts")):
        ctx = Context({"ind": sp.Eq(Prob(missed(i)), p)})  # about the negative i (or i = 0) only
        lhs, rhs = sp.Sum(1 - Prob(missed(i)), (i, 1, N)), sp.Sum(1 - p, (i, 1, N))
        _refused(Chain(lhs, ctx).eq(rhs, by.hypothesis("ind")).prove(lhs, "=", rhs), why)
    i = sp.Symbol("i", integer=True, positive=True)
    ctx = Context({"ind": sp.Eq(Prob(missed(i)), p)})
    lhs, rhs = sp.Sum(1 - Prob(missed(i)), (i, 1, N)), sp.Sum(1 - p, (i, 1, N))
    assert Chain(lhs, ctx).eq(rhs, by.hypothesis("ind")).prove(lhs, "=", rhs).complete
