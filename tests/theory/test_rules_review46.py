"""A forty-sixth review, over every place the kernel substitutes, found six more ways to accept a
false statement, all a rewrite that reached inside a derivative, which reads its expression near
its variable: a Piecewise branch or a case of Max(e, 0) chosen at a point, an indexed definition
put into a derivative by a symbol of its value, a hypothesis x[i] = 3 under a derivative by x[j]
(x[i] itself at i = j), a cited theorem's value captured by a derivative's variable, and a Lambda
call or union-contains' term whose index a derivative's variable holds. SymPy also differentiates
G(k) by G(j) as 0, wrong at k = j, so such a derivative is refused. Each is refused now; the true
variants beside them stay accepted."""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Cup, Lemma, MaxOver, Prob, by

x, y, c = sp.symbols("x y c", real=True)
a, b = sp.symbols("a b", positive=True)
i, j, k, n, h, H = sp.symbols("i j k n h H", integer=True, positive=True)
G = sp.Function("G", real=True)


def test_a_piecewise_branch_chosen_at_a_point_is_not_read_inside_a_derivative():
    P = sp.Piecewise((0, x**2 <= 0), (x**2, True))  # x**2 at every real x: P'' = 2
    lhs = sp.Derivative(P, (x, 2))
    ctx = Context({"h": x**2 <= 0})
    assert not Chain(lhs, ctx).eq(0, by.index_identity()).prove(lhs, "=", 0).complete
    ok = sp.Derivative(x**3, x) + P  # the Piecewise outside the derivative
    assert Chain(ok, ctx).eq(3 * x**2, by.index_identity()).prove(ok, "=", 3 * x**2).complete
    ok2 = sp.Derivative(y**2 * sp.Piecewise((0, x**2 <= 0), (1, True)), y)  # by y, the condition on x
    assert Chain(ok2, ctx).eq(0, by.index_identity()).prove(ok2, "=", 0).complete


def test_a_case_of_max_is_not_read_inside_a_derivative_by_its_variable():
    e = x**2 - 2 * x + 1 + c  # >= 0 on the whole line at c = 0
    M = sp.Max(e, 0)
    lhs, rhs = sp.Derivative(M + x**3, (x, 2)), 6 * x + 2 * sp.sign(M)  # 8 <= 6 at x = 1, c = 0
    pos = Chain(sp.Derivative(e + x**3, (x, 2))).eq(6 * x + 2, by.index_identity()).le(6 * x + 2 * sp.sign(e), by.algebra())
    nonpos = Chain(sp.Derivative(x**3, (x, 2))).eq(6 * x, by.index_identity())
    assert not Chain(lhs).le(rhs, by.cases(e, pos=pos, nonpos=nonpos)).prove(lhs, "<=", rhs).complete
    ok = sp.Derivative(sp.Max(c, 0) * x**2, (x, 2))  # the split free of x
    p2 = Chain(sp.Derivative(c * x**2, (x, 2))).eq(2 * c, by.index_identity())
    n2 = Chain(sp.Derivative(0 * x**2, (x, 2))).eq(0, by.index_identity())
    assert Chain(ok).eq(2 * sp.Max(c, 0), by.cases(c, pos=p2, nonpos=n2)).prove(ok, "=", 2 * sp.Max(c, 0)).complete


def test_an_indexed_definition_is_not_put_into_a_derivative_by_a_symbol_of_its_value():
    f = sp.IndexedBase(sp.Symbol("f", real=True))
    kk = sp.Symbol("kk", integer=True)
    ctx = Context({"def": sp.Eq(f[kk], y)})
    lhs, rhs = sp.Derivative(sp.Abs(f[1]) * y, y), sp.Derivative(sp.Abs(y) * y, y)  # 1 = 2 at f = y = 1
    assert not Chain(lhs, ctx).eq(rhs, by.index_identity(defs="def")).prove(lhs, "=", rhs).complete
    ok = rhs + f[2]
    assert Chain(ok, ctx).eq(rhs + y, by.index_identity(defs="def")).prove(ok, "=", rhs + y).complete


def test_a_hypothesis_about_an_entry_is_not_put_under_a_derivative_by_another_entry():
    X = sp.IndexedBase(sp.Symbol("X", real=True))
    ctx = Context({"h": sp.Eq(X[i], 3)})
    start = X[i] + sp.KroneckerDelta(i, j) * X[j]  # 6 at i = j = 1, X[1] = 3
    chain = (Chain(start, ctx).eq(sp.Derivative(X[i] * X[j], X[j]), by.index_identity())
             .eq(sp.Derivative(3 * X[j], X[j]), by.hypothesis("h")).eq(3, by.index_identity()))
    assert not chain.prove(start, "=", 3).complete
    ok = X[i] * X[j]
    assert Chain(ok, ctx).eq(3 * X[j], by.hypothesis("h")).prove(ok, "=", 3 * X[j]).complete


def test_a_cited_theorems_value_is_not_captured_by_a_derivatives_variable():
    T_lhs = sp.Derivative(a * b, b)
    T = Lemma(Chain(T_lhs).eq(a, by.index_identity()), T_lhs, "=", a)
    D = sp.Derivative(b * b, b)  # 2b = b at a := b
    assert not Chain(2 * b).eq(D, by.index_identity()).eq(b, by.instance(T, {a: b})).prove(2 * b, "=", b).complete
    X = sp.IndexedBase(sp.Symbol("X", real=True))
    T4_lhs = sp.Derivative(a * X[1], X[1])
    T4 = Lemma(Chain(T4_lhs).eq(a, by.index_identity()), T4_lhs, "=", a)
    D4 = sp.Derivative(X[1] ** 2, X[1])
    ctx = Context({"pos": X[1] > 0})
    assert not Chain(2 * X[1], ctx).eq(D4, by.index_identity()).eq(X[1], by.instance(T4, {a: X[1]})).prove(
        2 * X[1], "=", X[1]).complete
    # SymPy differentiates g(a) by g(b) as 0, wrong at a = b: such a derivative is refused outright
    g = sp.Function("g", real=True)
    T2_lhs = sp.Derivative(g(a) * g(b), g(b))
    assert not Chain(T2_lhs).eq(g(a), by.index_identity()).prove(T2_lhs, "=", g(a)).complete
    cc = sp.Symbol("cc", positive=True)  # true variants: a fresh symbol, a number
    assert Chain(sp.Derivative(cc * b, b)).eq(cc, by.instance(T, {a: cc})).prove(sp.Derivative(cc * b, b), "=", cc).complete
    assert Chain(sp.Derivative(3 * b, b)).eq(3, by.instance(T, {a: 3})).prove(sp.Derivative(3 * b, b), "=", 3).complete


def test_a_lambda_call_or_a_union_term_is_not_captured_by_a_derivatives_variable():
    M = MaxOver(sp.Lambda(k, sp.Derivative(G(k) * G(j), G(j))), n)
    with pytest.raises(ValueError, match="captured"):
        M.term(j)  # would be d/dG(j) G(j)**2 = 2 G(j)
    D = sp.Function("D")
    A = sp.Le(D(h), sp.Derivative(G(h) * G(k), G(k)))
    U = Prob(Cup(A, (h, 1, H)))
    small = Prob(sp.Le(D(k), sp.Derivative(G(k) ** 2, G(k))))  # P(D(k) <= 2 G(k)) <= P(U_h {D(h) <= G(h)})
    assert not Chain(small, Context({"k<=H": sp.Le(k, H)})).le(U, by.union_contains(k)).prove(small, "<=", U).complete
    M0 = MaxOver(sp.Lambda(k, G(k)), n)  # true variants
    ctx = Context({"j<=n": sp.Le(j, n)})
    assert Chain(G(j), ctx).le(M0, by.extremum(M0, j)).prove(G(j), "<=", M0).complete
    My = MaxOver(sp.Lambda(k, sp.Derivative(G(k) * y**2, y)), n)
    assert Chain(My.term(j), ctx).le(My, by.extremum(My, j)).prove(My.term(j), "<=", My).complete
    A0 = sp.Le(D(h), G(h))
    U0 = Prob(Cup(A0, (h, 1, H)))
    assert Chain(Prob(sp.Le(D(k), G(k))), Context({"k<=H": sp.Le(k, H)})).le(U0, by.union_contains(k)).prove(
        Prob(sp.Le(D(k), G(k))), "<=", U0).complete
