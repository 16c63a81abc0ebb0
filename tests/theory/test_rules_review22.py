"""A twenty-second review found two ways to a false statement in the matrix rules, kept here as
regressions beside true variants: entrywise compared A's entries with A's symbols free where a
sum of the step bound one of them (Σ_{j=11}^{12} opnorm(A) = Σ_{j=11}^{12} opnorm(1) with A's
entries [1 <= j <= 10]: 0 = 4); and rank-one never asked that the size n be >= 0, so a sum over
1..n ran backwards and 0 <= n followed from n <= −1."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Mat, OpNorm, by

r, c, q = sp.symbols("r c q", integer=True, positive=True)


def test_entrywise_does_not_compare_entries_under_a_binder_of_their_symbols():
    j, m = sp.symbols("j m", integer=True)
    A = Mat(sp.Lambda((r, c), sp.Sum(sp.KroneckerDelta(m, j), (m, 1, 10))), 2)  # [1 <= j <= 10]
    B = Mat(sp.Lambda((r, c), sp.Integer(1)), 2)
    lhs, rhs = sp.Sum(OpNorm(A), (j, 11, 12)), sp.Sum(OpNorm(B), (j, 11, 12))  # 0 and 4
    ctx = Context({"j_lo": j >= 1, "j_hi": j <= 10})
    assert not Chain(lhs, ctx).eq(rhs, by.entrywise(A, B)).prove(lhs, "=", rhs).complete
    # with j free the entries are compared under the hypotheses about it
    assert Chain(OpNorm(A), ctx).eq(OpNorm(B), by.entrywise(A, B)).prove(OpNorm(A), "=", OpNorm(B)).complete


def test_a_matrix_size_must_be_non_negative():
    k, n = sp.Symbol("k", integer=True), sp.Symbol("n", integer=True)
    M = Mat(sp.Lambda((r, c), sp.Integer(1)), n)
    one = sp.Lambda(q, sp.Integer(1))
    S = sp.Sum(sp.Integer(1), (k, 1, n))
    chain = (Chain(sp.Integer(0), Context({"neg": sp.Le(n, -1)})).le(OpNorm(M), by.algebra())
             .eq(sp.sqrt(S) * sp.sqrt(S), by.rank_one(one, one, k)).eq(n, by.identity()))
    assert not chain.prove(0, "<=", n).complete  # 0 <= −2 at n = −2
    N = sp.Symbol("N", integer=True, positive=True)
    MN = Mat(sp.Lambda((r, c), sp.Integer(1)), N)
    SN = sp.Sum(sp.Integer(1), (k, 1, N))
    assert Chain(OpNorm(MN)).eq(sp.sqrt(SN) * sp.sqrt(SN), by.rank_one(one, one, k)).eq(N, by.identity()).prove(OpNorm(MN), "=", N).complete
