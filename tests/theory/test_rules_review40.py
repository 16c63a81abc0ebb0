"""A fortieth review (by hand, against reviews 38 and 39's fixes) found nine ways to a false
statement, all from one cause, kept here as regressions: a rule that puts a value in (a hypothesis
whose side is an expression or a tuple, chained definitions, an indexed definition, a Kronecker
delta reduced by index-identity or split by abs-bound, extremum, sum-term, instance with a base
Lambda) builds nodes the kernel did not judge, and SymPy folds them with review 38's wrong fact
(2**p/6 "an integer", so im((-1)**(2**p/6)) is built as 0; it is sqrt(3)/2 at p = 1). A power
whose parity SymPy derives (2**p "even") is now untrusted wherever it stands, and the hypothesis
maps cover expression sides and tuples."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, MinOver, by

p = sp.Symbol("p", integer=True, positive=True)
ci, k, m, kk = sp.symbols("ci k m kk", integer=True)
c = sp.Symbol("c", real=True)
Y = sp.IndexedBase("Y")


def _im(x):
    return sp.im((-1) ** (x / 6))  # sqrt(3)/2 at x = 2


def test_values_put_in_by_a_rule_do_not_bring_in_a_wrong_parity():
    L = _im(sp.Abs(c))
    assert not Chain(L, Context({"h": sp.Eq(sp.Abs(c), 2**p)})).eq(0, by.hypothesis("h")).prove(L, "=", 0).complete
    ctx = Context({"h": sp.Eq(Y[k], _im(k))})
    assert not Chain(Y[2**p], ctx).eq(0, by.index_identity(defs="h")).prove(Y[2**p], "=", 0).complete
    S, cc = sp.symbols("S cc")
    ctx = Context({"hS": sp.Eq(S, cc / 6), "hc": sp.Eq(cc, 2**p)})
    L = sp.im((-1) ** S)
    assert not Chain(L, ctx).eq(0, by.index_identity(defs=["hS", "hc"])).prove(L, "=", 0).complete
    L = _im(ci)
    assert not Chain(L, Context({"h": (sp.Eq(ci, 2**p),)})).eq(0, by.hypothesis("h")).prove(L, "=", 0).complete
    L = sp.Sum(sp.KroneckerDelta(m, 2**p) * _im(m), (m, 0, 2**p))
    assert not Chain(L).eq(0, by.index_identity()).prove(L, "=", 0).complete
    L = sp.Abs(sp.KroneckerDelta(2**p, ci) * _im(ci))
    assert not Chain(L).then("<=", 0, by.abs_bound(cases=(2**p, ci))).prove(L, "<=", 0).complete
    mn = MinOver(sp.Lambda(kk, _im(kk) ** 2), 2**p)
    assert not Chain(mn).then("<=", 0, by.extremum(of=mn, x=2**p)).prove(mn, "<=", 0).complete
    f = 1 / (1 + _im(kk) ** 2)
    big = sp.Sum(f, (kk, 2**p, 2**p))
    assert not (Chain(sp.Integer(1)).then("<=", big, by.sum_term(index=kk, lo=2**p, hi=2**p, x=2**p, f=f))
                .prove(1, "<=", big).complete)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    W = sp.IndexedBase("W")
    T_l = sp.Sum(sp.KroneckerDelta(kk, j) * W[kk], (kk, 0, j))
    T = Lemma(Chain(T_l).eq(W[j], by.index_identity()), T_l, "=", W[j])
    L = sp.Sum(sp.KroneckerDelta(kk, 2**p) * _im(kk), (kk, 0, 2**p))
    assert not Chain(L).eq(0, by.instance(T, {W: sp.Lambda(kk, _im(kk)), j: 2**p})).prove(L, "=", 0).complete
    # a true variant: the same theorem at a value with no derived parity
    q = sp.Symbol("q", integer=True, nonnegative=True)
    L = sp.Sum(sp.KroneckerDelta(kk, q) * sp.exp(kk), (kk, 0, q))
    assert Chain(L).eq(sp.exp(q), by.instance(T, {W: sp.Lambda(kk, sp.exp(kk)), j: q})).prove(L, "=", sp.exp(q)).complete
