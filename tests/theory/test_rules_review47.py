"""A forty-seventh review attacked reviews 45 and 46's fixes and found five false statements the
kernel still accepted. Four were review 46's attacks with the derivative taken by G(1), an
application with no free symbol, which the fixes' free-symbol tests did not see; the fifth
differentiated by a derivative, G'(y) G'(x) by G'(x), which SymPy reads as G'(y) (wrong at y = x),
as it reads G(k) by G(j). A derivative is now touched by a rewrite whose expressions hold one of
its variables itself, and a derivative by any variable built on an undefined function whose
expression holds that function elsewhere is untrusted."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by

G = sp.Function("G", real=True, deterministic=True)
u = G(1)
y, c, x = sp.symbols("y c x", real=True)


def test_a_piecewise_or_a_case_is_not_read_inside_a_derivative_by_an_application():
    P = sp.Piecewise((0, u**2 <= 0), (u**2, True))  # u**2 for every real u: P'' = 2
    lhs = sp.Derivative(P, (u, 2))
    ctx = Context({"h": u**2 <= 0})
    assert not Chain(lhs, ctx).eq(0, by.index_identity()).prove(lhs, "=", 0).complete
    e = u**2 - 2 * u + 1 + c
    M = sp.Max(e, 0)
    lhs, rhs = sp.Derivative(M + u**3, (u, 2)), 6 * u + 2 * sp.sign(M)  # 8 <= 6 at c = 0, G(1) = 1
    pos = Chain(sp.Derivative(e + u**3, (u, 2))).eq(6 * u + 2, by.index_identity()).le(6 * u + 2 * sp.sign(e), by.algebra())
    nonpos = Chain(sp.Derivative(u**3, (u, 2))).eq(6 * u, by.index_identity())
    assert not Chain(lhs).le(rhs, by.cases(e, pos=pos, nonpos=nonpos)).prove(lhs, "<=", rhs).complete
    # true variants: a derivative by y with the condition on G(1); a split free of G(1)
    ok = sp.Derivative(y**2 * sp.Piecewise((0, u**2 <= 0), (1, True)), y)
    assert Chain(ok, ctx).eq(0, by.index_identity()).prove(ok, "=", 0).complete
    okc = sp.Derivative(sp.Max(c, 0) * u**2, (u, 2))
    p2 = Chain(sp.Derivative(c * u**2, (u, 2))).eq(2 * c, by.index_identity())
    n2 = Chain(sp.Derivative(0 * u**2, (u, 2))).eq(0, by.index_identity())
    assert Chain(okc).eq(2 * sp.Max(c, 0), by.cases(c, pos=p2, nonpos=n2)).prove(okc, "=", 2 * sp.Max(c, 0)).complete


def test_a_value_or_a_definition_holding_the_application_is_not_put_into_its_derivative():
    Gp = sp.Function("Gp", positive=True, deterministic=True)
    a = sp.Symbol("a", positive=True)
    up = Gp(1)
    T_lhs = sp.Derivative(a * up, up)
    T = Lemma(Chain(T_lhs).eq(a, by.index_identity()), T_lhs, "=", a)
    D = sp.Derivative(up * up, up)  # 2 G(1) = G(1) at a := G(1)
    assert not Chain(2 * up).eq(D, by.index_identity()).eq(up, by.instance(T, {a: up})).prove(2 * up, "=", up).complete
    assert Chain(sp.Derivative(3 * up, up)).eq(3, by.instance(T, {a: 3})).prove(sp.Derivative(3 * up, up), "=", 3).complete
    f = sp.IndexedBase(sp.Symbol("f", real=True))
    kk = sp.Symbol("kk", integer=True)
    ctx = Context({"def": sp.Eq(f[kk], u)})
    lhs, rhs = sp.Derivative(sp.Abs(f[1]) * u, u), sp.Derivative(sp.Abs(u) * u, u)  # 1 = 2 at f = G(1) = 1
    assert not Chain(lhs, ctx).eq(rhs, by.index_identity(defs="def")).prove(lhs, "=", rhs).complete
    assert Chain(rhs + f[2], ctx).eq(rhs + u, by.index_identity(defs="def")).prove(rhs + f[2], "=", rhs + u).complete


def test_a_derivative_by_a_derivative_of_a_function_used_elsewhere_is_refused():
    Dx, Dy = sp.Derivative(G(x), x), sp.Derivative(G(y), y)
    T = sp.Derivative(Dy * Dx, Dx)  # G'(y) to SymPy; 2 G'(x) at y = x
    assert not Chain(T).eq(Dy, by.index_identity()).prove(T, "=", Dy).complete
    ctx = Context({"h": sp.Eq(Dy, 3)})
    chain = Chain(T, ctx).eq(sp.Derivative(3 * Dx, Dx), by.hypothesis("h")).eq(3, by.index_identity())
    assert not chain.prove(T, "=", 3).complete
    V = sp.Derivative(Dx**2 * y, Dx)  # true variant: the function at the variable only
    assert Chain(V).eq(2 * Dx * y, by.index_identity()).prove(V, "=", 2 * Dx * y).complete
