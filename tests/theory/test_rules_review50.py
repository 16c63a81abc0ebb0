"""A fiftieth review (forty minutes on the side conditions of the less-reviewed rules) found false
statements the kernel accepted:

* mean-value read the hypotheses about its point z through ``ctx.relation``, which gives nothing for
  a weighted-norm fact, so a fact 0 <= z_1 <= 1 let the Jacobian bound hold on part of the segment
  only: |φ(3) − φ(0)| = 9 <= 2·3 for φ(x) = x_1² was accepted. The point must now be free of every
  hypothesis, facts and assumed premises included.
* gershgorin took a 0×0 matrix, whose max of no row sums SymPy builds as −oo: 0 <= opnorm(M) <= −oo.
* MaxOver / MinOver over 1..n took their terms' signs with n = 0 (no terms): 0 <= max of nothing.
"""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Mat, MaxOver, MinOver, OpNorm, WeightedNorm, by

X, Z = sp.IndexedBase("x", real=True), sp.IndexedBase("z", real=True)
U, W = sp.symbols("u_mv w_mv", integer=True, positive=True)
KMV = sp.Symbol("k_mv", integer=True, positive=True)
q, m = sp.symbols("q m", integer=True, positive=True)
A0, D3 = sp.Lambda(m, sp.Integer(0)), sp.Lambda(m, sp.Integer(3))


def _mean_value(phi_expr, jac_of, ctx, bound):
    phi = sp.Lambda(q, phi_expr(X[1]))
    jz = Mat(sp.Lambda((U, W), sp.Derivative(phi_expr(Z[1]), Z[W])), 1)
    jac = jac_of(jz)
    small = sp.sqrt(sp.Sum((phi_expr(A0(1) + D3(1)) - phi_expr(A0(1))) ** 2, (KMV, 1, 1)))
    big = bound * sp.sqrt(sp.Sum(D3(KMV) ** 2, (KMV, 1, 1)))
    return small, big, Chain(small, ctx).le(big, by.mean_value(phi, X, A0, D3, Z, 1, bound, jac)).prove(small, "<=", big)


def test_mean_value_refuses_a_point_bounded_by_a_fact():
    ctx = Context({"wn": WeightedNorm(Z[1], 1, 1, 1)})  # 0 <= z_1 <= 1: met by z_1 = 1/2
    facts = [Chain(Z[1], ctx).le(1, by.weighted_norm("wn")), Chain(sp.Integer(0), ctx).le(Z[1], by.weighted_norm("wn"))]

    def jac_of(jz):
        return (Chain(OpNorm(jz), ctx)
                .le(sp.Max(sp.Abs(2 * Z[1])), by.gershgorin(sp.Matrix([[2 * Z[1]]]), OpNorm(jz)))
                .le(2, by.abs_bound(facts=facts)))

    small, big, res = _mean_value(lambda v: v ** 2, jac_of, ctx, 2)
    assert (small.doit(), big.doit()) == (9, 6)  # false: 9 <= 6
    assert not res.complete
    assert "must be free" in res.first_failure and "WeightedNorm" in res.first_failure


def test_mean_value_still_takes_a_free_point():
    ctx = Context({})

    def jac_of(jz):
        return Chain(OpNorm(jz), ctx).le(sp.Max(sp.Abs(2)), by.gershgorin(sp.Matrix([[2]]), OpNorm(jz)))

    small, big, res = _mean_value(lambda v: 2 * v, jac_of, ctx, 2)
    assert small.doit() == big.doit() == 6
    assert res.complete, res.first_failure


def test_gershgorin_refuses_an_empty_matrix():
    r, c = sp.symbols("r c", integer=True, positive=True)
    M = Mat(sp.Lambda((r, c), sp.Integer(1)), 0)
    assert sp.Max() == -sp.oo
    res = (Chain(sp.Integer(0), Context({})).le(OpNorm(M), by.algebra())
           .le(sp.Max(), by.gershgorin(sp.zeros(0, 0), OpNorm(M))).prove(0, "<=", sp.Max()))
    assert not res.complete and "at least one row" in res.first_failure
    one = Mat(sp.Lambda((r, c), sp.Integer(1)), 1)  # a 1×1 matrix still goes through
    ok = Chain(OpNorm(one), Context({})).le(sp.Max(sp.Abs(1)), by.gershgorin(sp.Matrix([[1]]), OpNorm(one)))
    assert ok.prove(OpNorm(one), "<=", 1).complete


def test_an_extremum_over_a_range_that_may_be_empty_has_no_sign():
    k = sp.Symbol("k", integer=True)
    n = sp.Symbol("n", integer=True)
    for cls in (MaxOver, MinOver):
        E = cls(sp.Lambda(k, sp.Integer(1)), n)
        assert E.is_nonnegative is None and E.is_finite is None
        assert not Chain(sp.Integer(0), Context({"n0": sp.Eq(n, 0)})).le(E, by.algebra()).prove(0, "<=", E).complete
        assert cls(sp.Lambda(k, sp.Integer(1)), 0).is_nonnegative is None
        npos = sp.Symbol("n", integer=True, positive=True)  # 1..n not empty: the terms' sign is the extremum's
        F = cls(sp.Lambda(k, sp.Integer(1)), npos)
        assert F.is_nonnegative is True
        assert Chain(sp.Integer(0), Context({})).le(F, by.algebra()).prove(0, "<=", F).complete


def test_a_sum_or_integral_over_an_infinite_range_is_refused_not_evaluated():
    """A second part of the review, on definedness: a hypothesis Σ_{k>=1} 1 >= x made prove()
    raise SymPy's 'Sum diverges', one with ∫_0^∞ 1 dt made it run a quadrature that never
    returned, and 1/∫_0^∞ 1 ds = 0 was accepted as an identity. The kernel reads finite ranges
    only: such a statement is refused before any step is checked, with the reason."""
    x = sp.Symbol("x", real=True)
    t, s = sp.symbols("t s", real=True)
    k = sp.Symbol("k", integer=True, positive=True)
    S = sp.Sum(1, (k, 1, sp.oo))
    res = Chain(x, Context({"h": sp.Ge(S, x, evaluate=False)})).le(0, by.algebra()).prove(x, "<=", 0)
    assert not res.complete and "infinite range" in res.goal_reason
    J = sp.Integral(1, (s, 0, sp.oo))
    res = Chain(1 / J, Context({})).eq(0, by.identity()).prove(1 / J, "==", 0)
    assert not res.complete and "infinite range" in res.goal_reason
    I = sp.Integral(1, (t, 0, sp.oo))
    assert not Chain(sp.Integer(0), Context({})).le(I - J, by.algebra()).prove(0, "<=", I - J).complete
    F = sp.Sum(1, (k, 1, 3))  # a finite range is read as before
    assert Chain(F, Context({})).eq(3, by.identity()).prove(F, "==", 3).complete
