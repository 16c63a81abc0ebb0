"""An eighteenth review found four more ways to a false statement, kept here as regressions
beside true variants: simplify took a Limit (lim_{x→∞} 1/(ax + 1) = 0 for every real a, and so
0 = 1 given a = 0); the sign oracle's dummy for a symbol v bounded below was monotone's own
variable v_ (jensen's phi_var_ likewise), so g' = t − v read as t − t; a hypothesis about a
scalar x reached the entries of IndexedBase("x"), whose label is that x; and a caller's function
named like the kernel's opaque atoms was one of them."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by

x, a = sp.symbols("x a", real=True)


def test_a_limit_is_opaque():
    L = sp.Limit(1 / (a * x + 1), x, sp.oo)  # 1 at a = 0
    assert not Chain(L).eq(0, by.identity()).prove(L, "=", 0).complete
    c = Chain(0, Context({"a=0": sp.Eq(a, 0)})).eq(L, by.identity()).eq(L.subs(a, 0), by.hypothesis("a=0")).eq(1, by.identity())
    assert not c.prove(0, "=", 1).complete
    assert Chain(L + 1).eq(1 + L, by.identity()).prove(L + 1, "=", 1 + L).complete


def test_the_sign_oracles_dummies_are_not_a_rules_variables():
    v = sp.Symbol("v", real=True)
    g = x**2 / 2 - v * x  # increasing only for x >= v
    ctx = Context({"v>=1": v >= 1})
    lhs, rhs = g.subs(x, 2), g.subs(x, 3)  # false at v = 5
    assert not Chain(lhs, ctx).le(rhs, by.monotone(x, g, 2, 3)).prove(lhs, "<=", rhs).complete
    w = sp.Symbol("w", positive=True)
    s = sp.Symbol("phi_var", real=True)
    phi = sp.Lambda(w, (w - s) ** 3)  # not convex below s
    h, pts = sp.Rational(1, 2), [sp.Rational(1, 2), sp.Rational(3, 2)]
    lhs, rhs = phi(h * pts[0] + h * pts[1]), h * phi(pts[0]) + h * phi(pts[1])  # −8 <= −9.5 at s = 3
    assert not Chain(lhs, Context({"s>=1": s >= 1})).le(rhs, by.jensen(phi, weights=[h, h], points=pts)).prove(lhs, "<=", rhs).complete
    # with v := 1 the map is increasing on [2, 3]
    g1 = g.subs(v, 1)
    assert Chain(g1.subs(x, 2), ctx).le(g1.subs(x, 3), by.monotone(x, g1, 2, 3)).prove(g1.subs(x, 2), "<=", g1.subs(x, 3)).complete


def test_a_hypothesis_about_a_scalar_does_not_reach_the_entries_of_a_base_with_its_name():
    X = sp.IndexedBase("x")
    xs = sp.Symbol("x")
    assert not Chain(0, Context({"x>=1": xs >= 1})).le(X[1], by.algebra()).prove(0, "<=", X[1]).complete
    assert Chain(0, Context({"x>=1": xs >= 1})).le(xs, by.algebra()).prove(0, "<=", xs).complete


def test_a_caller_cannot_forge_an_opaque_atom():
    k, n = sp.Symbol("k", integer=True), sp.Symbol("n", integer=True, positive=True)
    U = sp.Function("_opaque0", commutative=True, kernel_opaque=True)
    H = sp.Sum(1 / k, (k, 1, n))  # 1 at n = 1
    c = Chain(H, Context({"U(n)=0": sp.Eq(U(n), 0)})).eq(U(n), by.identity()).eq(0, by.hypothesis("U(n)=0"))
    assert not c.prove(H, "=", 0).complete
