"""A forty-eighth review attacked the derivative fixes once more and found three false statements
the kernel accepted: a definition whose value binds its own index (f[k] = Limit(k**2 + 1, k, 0),
which SymPy's subs reads as 5 at k = 2, though every f[k] is 1); a definition f[kk] = G(kk) that
becomes the derivative's variable G(1) only once read at kk = 1; and instance with a base replaced
by Lambda(i, G(i)), read at 1 inside a derivative by G(1). A definition may not bind its own index,
and a value that holds a derivative variable's function or indexed base now touches it."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by

f = sp.IndexedBase(sp.Symbol("f", real=True))
G = sp.Function("G", real=True, deterministic=True)
Gp = sp.Function("Gp", positive=True, deterministic=True)
kk = sp.Symbol("kk", integer=True)
i = sp.Symbol("i", integer=True)


def test_a_definition_may_not_bind_its_own_index():
    k = sp.Symbol("k", real=True)
    ctx = Context({"def": sp.Eq(f[k], sp.Limit(k**2 + 1, k, 0))})  # every f[k] is 1
    assert not Chain(f[2], ctx).eq(5, by.index_identity(defs="def")).prove(f[2], "=", 5).complete
    t = sp.Symbol("t", real=True)  # a true variant: the limit over another symbol
    ctx2 = Context({"def": sp.Eq(f[k], sp.Limit(t**2 + 1, t, 0))})
    assert Chain(f[2], ctx2).eq(1, by.index_identity(defs="def")).prove(f[2], "=", 1).complete


def test_a_definition_read_at_a_point_does_not_become_a_derivatives_variable():
    u = G(1)
    ctx = Context({"def": sp.Eq(f[kk], G(kk))})
    lhs, rhs = sp.Derivative(sp.Abs(f[1]) * u, u), sp.Derivative(sp.Abs(u) * u, u)  # 1 = 2 at G = 1
    assert not Chain(lhs, ctx).eq(rhs, by.index_identity(defs="def")).prove(lhs, "=", rhs).complete
    ok = rhs + f[2]  # a true variant: the definition outside the derivative
    assert Chain(ok, ctx).eq(rhs + G(2), by.index_identity(defs="def")).prove(ok, "=", rhs + G(2)).complete


def test_a_base_lambda_read_at_a_point_does_not_become_a_derivatives_variable():
    u = Gp(1)
    T_lhs = sp.Derivative(f[1] ** 2 * u, u)
    T = Lemma(Chain(T_lhs).eq(f[1] ** 2, by.index_identity()), T_lhs, "=", f[1] ** 2)
    D = sp.Derivative(u**3, u)  # 3 G(1)**2 = G(1)**2 at f := Lambda(i, G(i))
    chain = Chain(3 * u**2).eq(D, by.index_identity()).eq(u**2, by.instance(T, {f: sp.Lambda(i, Gp(i))}))
    assert not chain.prove(3 * u**2, "=", u**2).complete
    c = sp.Symbol("c", positive=True)  # a true variant: a value free of G
    D2 = sp.Derivative(c**2 * u, u)
    assert Chain(D2).eq(c**2, by.instance(T, {f: sp.Lambda(i, c)})).prove(D2, "=", c**2).complete
