"""A thirteenth review found four more ways to a false statement, kept here as regressions
beside true variants: the renaming of bound variables (``_alpha``) kept only the innermost
limit of a sum, product or integral with several (SymPy folds Sum(Sum(f, a), b) back into one
Sum), so the other variables became free and a hypothesis about a free j reached them
(Σ_{k=1}^{2} Σ_{j=1}^{3} kj = 3j); its kernel symbols were numbered 800 + depth + 50·position,
so a Mat's column index was the variable of a sum 50 levels down, which captured it; a Limit
was no binder to the capture checks (1 − y = 0 from y = z, through lim_{z→1} (z − y)); and a
symbol definition was put under an integral ∫^2 s dx that binds a symbol of its value (s = x)."""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, Mat, _alpha, by

k, j = sp.symbols("k j", integer=True)
S = sp.Sum(k * j, (k, 1, 2), (j, 1, 3))  # 18


def _refused(res):
    assert not res.complete, "a false statement was checked"


def test_every_limit_of_a_multi_limit_sum_is_renamed():
    assert _alpha(S).doit() == 18
    assert _alpha(sp.Sum(k, (k, 1, j), (j, 1, 3))).doit() == 10  # an inner limit's bound uses the outer variable
    x, y = sp.symbols("x y", real=True)
    assert _alpha(sp.Integral(x * y, (x, 0, 1), (y, 0, 1))).doit() == sp.Rational(1, 4)
    assert _alpha(sp.Product(j, (k, 1, 2), (j, 1, 3))).doit() == 36


@pytest.mark.parametrize("case", ["sum", "sign", "integral", "product"])
def test_a_multi_limit_binder_keeps_its_outer_variables_bound(case):
    x, y = sp.symbols("x y", real=True)
    if case == "sum":  # 18 = 3j is false at j = 1
        _refused(Chain(S).eq(3 * j, by.index_identity()).prove(S, "=", 3 * j))
    elif case == "sign":  # 18 <= 0 "from" j <= 0
        _refused(Chain(S, Context({"h": sp.Le(j, 0)})).le(0, by.algebra()).prove(S, "<=", 0))
        jn = sp.Symbol("j", integer=True, negative=True)
        Sn = sp.Sum(k * jn, (k, 1, 2), (jn, 1, 3))
        _refused(Chain(Sn).le(0, by.algebra()).prove(Sn, "<=", 0))
    elif case == "integral":  # 1/4 = y/2 is false at y = 0
        I = sp.Integral(x * y, (x, 0, 1), (y, 0, 1))
        _refused(Chain(I).eq(y / 2, by.index_identity()).prove(I, "=", y / 2))
    else:  # 36 = j^2 is false at j = 1
        P = sp.Product(j, (k, 1, 2), (j, 1, 3))
        _refused(Chain(P).eq(j ** 2, by.index_identity()).prove(P, "=", j ** 2))
    assert Chain(S).eq(18, by.index_identity()).prove(S, "=", 18).complete  # true


def test_no_two_bound_variables_in_scope_share_a_kernel_symbol():
    r, c = sp.symbols("r c", integer=True, positive=True)
    ms = sp.symbols("m1:51", integer=True, positive=True)

    def nest(inner):  # a sum over 1..2 under 49 binders over 1..1: depth 50 inside the Mat's entry
        e = sp.Sum(inner, (ms[49], 1, 2))
        for i, m in enumerate(reversed(ms[:49])):
            e = (sp.Product if i % 2 == 0 else sp.Sum)(e, (m, 1, 1))
        return e

    A = Mat(sp.Lambda((r, c), nest(c)), 1)  # [2]
    B = Mat(sp.Lambda((r, c), nest(ms[49])), 1)  # [3]
    # before, both renamed to one expression, so index-identity checked opnorm([2]) = opnorm([3]);
    # now they differ (the chain is refused too, but only after a minute of simplification)
    a, b = _alpha(A), _alpha(B)
    assert a != b
    col = a.args[0].variables[1]

    def innermost(e):  # the sum over 1..2 at depth 50
        return next(x for x in e.atoms(sp.Sum) if x.limits[0][2] == 2)

    ia, ib = innermost(a), innermost(b)
    assert ia.function == col and ia.limits[0][0] != col  # Σ_{m=1}^{2} c: 2c, c still the column
    assert ib.function == ib.limits[0][0]  # Σ_{m=1}^{2} m: 3


def test_a_limit_binds_its_variable():
    y, z = sp.symbols("y z", real=True)
    L = sp.Limit(z - y, z, 1)  # 1 - y
    h = Context({"h": sp.Eq(y, z)})  # 1 - y = 0 is false at y = z = 2
    _refused(Chain(1 - y, h).eq(L, by.identity()).eq(sp.Limit(0, z, 1), by.hypothesis("h")).eq(0, by.identity())
             .prove(1 - y, "=", 0))
    _refused(Chain(1 - y, h).eq(L, by.identity()).eq(0, by.index_identity(defs="h")).prove(1 - y, "=", 0))
    thm = Lemma(Chain(L).eq(1 - y, by.identity()), L, "=", 1 - y)  # cited at y := z: 0 = 1 - z
    _refused(Chain(sp.Integer(0)).eq(sp.Limit(0, z, 1), by.identity()).eq(1 - z, by.instance(thm, {y: z}))
             .prove(0, "=", 1 - z))
    w = sp.Symbol("w", real=True)  # a value the limit does not bind is fine
    assert Chain(1 - w).eq(sp.Limit(z - w, z, 1), by.instance(thm, {y: w})).prove(1 - w, "=", sp.Limit(z - w, z, 1)).complete


def test_a_symbol_definition_is_not_put_under_a_binder_of_its_value():
    s, x = sp.symbols("s x", real=True)
    I = sp.Integral(s, (x, 2))  # 2s; with s = x read under the integral, 2 (false at s = x = 3)
    _refused(Chain(2 * s, Context({"h": sp.Eq(s, x)})).eq(I, by.identity()).eq(2, by.index_identity(defs="h"))
             .prove(2 * s, "=", 2))
    t = sp.Symbol("t", real=True)
    assert Chain(2 * s, Context({"h": sp.Eq(s, t)})).eq(I, by.identity()).eq(2 * t, by.index_identity(defs="h")).prove(2 * s, "=", 2 * t).complete
