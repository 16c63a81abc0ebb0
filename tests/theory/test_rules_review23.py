"""A twenty-third review (a fuzzer, then two hand-made cases in classes it covered) found two
more ways to a false statement, kept here as regressions beside true variants: identity cancelled
a removable 0/0 around a Kronecker delta, and a hypothesis then put 0 for the numerator
(δ(x, 1) = 0); and identity read a bound variable's declared assumptions as facts about its range
(Σ_{k=−1}^{−1} log(k²) = Σ_{k=−1}^{−1} 2 log(k) for k declared positive: 0 = 2πi)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by


def _eq(lhs, rhs, rule=None, ctx=None):
    return Chain(lhs, ctx or Context({})).eq(rhs, rule or by.identity()).prove(lhs, "=", rhs).complete


def test_a_removable_zero_over_zero_is_not_cancelled_into_a_chain():
    x = sp.Symbol("x", integer=True)
    d = sp.KroneckerDelta(x, 1)
    C = (x**2 - 1) * d  # 0 for every integer x
    lemma = Lemma(Chain(C).eq(0, by.index_identity()), C, "=", 0)
    chain = Chain(d, Context({"C=0": lemma})).eq(C / ((x - 1) * (x + 1)), by.identity()).eq(0, by.hypothesis("C=0"))
    assert not chain.prove(d, "=", 0).complete  # 1 at x = 1
    assert not _eq(d, C / ((x - 1) * (x + 1)))
    p = sp.Symbol("p", positive=True)  # a factor known to be non-zero (p) cancels
    assert _eq(p / (p**2 + p), 1 / (p + 1))


def test_a_bound_variables_assumptions_are_not_facts_about_its_range():
    k = sp.Symbol("k", integer=True, positive=True)
    x = sp.Symbol("x", real=True)
    assert not _eq(sp.Sum(sp.log(k**2), (k, -1, -1)), sp.Sum(2 * sp.log(k), (k, -1, -1)))
    assert not _eq(sp.Sum(sp.log(k * x), (k, -1, -1)), sp.Sum(sp.log(k) + sp.log(x), (k, -1, -1)))
    t = sp.Symbol("t", positive=True)
    assert not _eq(sp.Integral(sp.log(t**2), (t, -1, 0)), sp.Integral(2 * sp.log(t), (t, -1, 0)))
    n = sp.Symbol("n", integer=True, positive=True)  # over 1..n, k's positivity is its range's
    assert _eq(sp.Sum(sp.log(k**2), (k, 1, n)), sp.Sum(2 * sp.log(k), (k, 1, n)))
