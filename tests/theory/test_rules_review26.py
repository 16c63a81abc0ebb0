"""A twenty-sixth review attacked the twenty-fourth and twenty-fifth reviews' fixes and found eleven
more ways to a false statement, kept here as regressions beside true variants: zeros the pole
reader missed (a number that is 0 without SymPy knowing it, a power x^(−y) with y <= 0 that
sp.fraction files as a denominator), C(n, n) = 1 read at n = −1, a cited theorem used at its
own pole (σ(a/b) built as z/z = 1), a Lemma or a record's context altered after the check,
misdeclared binders in a hypothesis, a goal side, a MaxOver, an indexed Subs variable and a
limit over the integers at a finite point."""

import numpy as np
import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, MaxOver, by, issued

x = sp.Symbol("x", real=True)
kp = sp.Symbol("k", integer=True, positive=True)
j = sp.Symbol("j", integer=True)


def test_zeros_the_pole_reader_must_see():
    xp = sp.Symbol("x", positive=True)
    c = sp.cos(1) ** 2 + sp.sin(1) ** 2 - 1  # 0, which SymPy does not know
    mid = c * (xp + 1) / (c * xp + c)
    chain = Chain(sp.S.One, Context({"h": sp.Eq(c * (xp + 1), 0)})).eq(mid, by.identity()).eq(0, by.hypothesis("h"))
    assert not chain.prove(1, "=", 0).complete  # 0/0 everywhere
    y = sp.Symbol("y", nonpositive=True)
    w = sp.Symbol("w", real=True)
    s = x ** (-y)  # 0 at x = 0 for y = -1
    N = sp.sqrt(s) * (w + 1) - sp.sqrt(s) * w
    frac = Chain(sp.S.One, Context({"h": sp.Eq(N, 0)})).eq(N * s ** sp.Rational(-1, 2), by.identity()).eq(0, by.hypothesis("h"))
    assert not frac.prove(1, "=", 0).complete
    q = sp.Symbol("q", positive=True)
    fine = Chain(sp.S.One).eq(sp.Integer(3) * (q + 1) / (3 * q + 3), by.identity()).eq(1, by.identity())
    assert fine.prove(1, "=", 1).complete  # 3 is known non-zero


def test_a_binomial_with_a_symbolic_lower_index_has_poles():
    n = sp.Symbol("n", integer=True)
    thm = Lemma(Chain(sp.binomial(n, n)).eq(1, by.identity()), sp.binomial(n, n), "=", 1)
    assert not Chain(sp.S.Zero).eq(1, by.instance(thm, {n: -1})).prove(0, "=", 1).complete  # C(-1, -1) = 0
    assert not Chain(sp.binomial(n, 1)).eq(sp.binomial(n, n - 1), by.identity()).prove(
        sp.binomial(n, 1), "=", sp.binomial(n, n - 1)).complete  # false at n = -1
    assert Chain(sp.binomial(n, 2)).eq(n * (n - 1) / 2, by.identity()).prove(sp.binomial(n, 2), "=", n * (n - 1) / 2).complete


def test_instance_does_not_use_a_theorem_at_its_own_pole():
    a, b, c, z = sp.symbols("a b c z", real=True)
    thm = Lemma(Chain(a / b, Context({"h": sp.Eq(a, c * b)})).eq(c, by.hypothesis("h")), a / b, "=", c)
    res = Chain(sp.S.One, Context({"g": sp.Eq(z, c * z)})).eq(c, by.instance(thm, {a: z, b: z})).prove(1, "=", c)
    assert not res.complete and "undefined where b = 0" in res.first_failure  # 1 = 2 at z = 0, c = 2
    p = sp.Symbol("p", positive=True)
    ok = Chain(sp.S.One, Context({"g": sp.Eq(p, c * p)})).eq(c, by.instance(thm, {a: p, b: p}))
    assert ok.prove(1, "=", c).complete  # p > 0: the theorem is used where it speaks


def test_what_a_check_read_cannot_be_altered_afterwards():
    thm = Lemma(Chain(x).le(x + 1, by.algebra()), x, "<=", x + 1)
    assert Chain(sp.S.Zero).le(1, by.instance(thm, {x: 0})).prove(0, "<=", 1).complete
    object.__setattr__(thm, "rhs", x - 1)  # now the "theorem" x <= x - 1
    assert not Chain(sp.S.Zero).le(-1, by.instance(thm, {x: 0})).prove(0, "<=", -1).complete
    res = Chain(x).eq(0, by.hypothesis("h")).prove(x, "=", 0, ctx=Context({"h": sp.Eq(x, 0)}))
    assert res.complete and issued(res)
    with pytest.raises(TypeError, match="immutable"):
        res.chain.ctx.hypotheses.clear()
    with pytest.raises(TypeError, match="immutable"):
        res.chain.ctx.hypotheses["h"] = sp.Eq(x, 1)
    assert dict(res.chain.ctx.hypotheses) == {"h": sp.Eq(x, 0)}


def test_misdeclared_binders_outside_the_steps():
    z = sp.Symbol("z", real=True)
    H = sp.Sum(sp.sqrt(kp**2) * z, (kp, -1, -1)) >= z  # as written z >= z; built as Σ k z >= z
    hyp = Chain(-z, Context({"H": H})).eq(sp.Sum(j * z, (j, -1, -1)), by.identity()).ge(z, by.algebra())
    res = hyp.prove(-z, ">=", z)  # -1 >= 1 at z = 1
    assert not res.complete and "does not give" in res.first_failure
    G = sp.Sum(sp.sqrt(kp**2), (kp, -1, -1))  # 1 as written, built as -1
    assert not Chain(sp.Sum(j, (j, -1, -1))).eq(-1, by.identity()).prove(G, "=", -1).complete
    kn = sp.Symbol("k", integer=True, negative=True)
    n = sp.Symbol("n", integer=True, positive=True)
    i = sp.Symbol("i", integer=True, positive=True)
    E = MaxOver(sp.Lambda(kn, sp.sqrt(kn**2)), n)  # max_{k=1..n} |k| = n, built as max(-k)
    assert not Chain(E).le(-1, by.max_bound(E, -1, i, Chain(-i).le(-1, by.algebra()))).prove(E, "<=", -1).complete
    X = sp.IndexedBase("X", positive=True)
    S = sp.Subs(sp.sqrt(X[1] ** 2), X[1], -1)  # 1 as written, built as Subs(X[1], X[1], -1)
    assert not Chain(S).eq(-1, by.identity()).prove(S, "=", -1).complete
    zi = sp.Symbol("z", integer=True)
    L = sp.Limit(sp.sin(sp.pi * zi) / (zi - 1), zi, 1)  # -π in the real variable; built as Limit(0, z, 1)
    assert not Chain(L).eq(0, by.identity()).prove(L, "=", 0).complete
    # declared with what their ranges give, the same statements check
    T = sp.Sum(sp.sqrt(kp**2), (kp, 1, n))
    assert Chain(T).eq(n * (n + 1) / 2, by.identity()).prove(T, "=", n * (n + 1) / 2).complete
    assert Chain(-z, Context({"H": sp.Sum(j * z, (j, -1, -1)) >= -z})).eq(-z, by.identity()).prove(-z, "=", -z).complete
    assert Chain(sp.Limit(zi**2, zi, sp.oo)).eq(sp.Limit(zi**2, zi, sp.oo), by.identity()).prove(
        sp.Limit(zi**2, zi, sp.oo), "=", sp.Limit(zi**2, zi, sp.oo)).complete  # a sequence's limit


def test_a_context_is_a_value():
    """The frozen hypotheses still compare, hash, copy and pickle like the mapping they hold."""
    import copy
    import pickle

    ctx = Context({"h": x >= 0, "g": sp.Eq(x, 1)})
    again = pickle.loads(pickle.dumps(ctx))
    assert again == ctx and hash(again) == hash(ctx) and copy.deepcopy(ctx) == ctx
    assert ctx.without("g").hypotheses == {"h": x >= 0} and "g" in ctx.extended({"k": x <= 2}).hypotheses
    assert np.all([isinstance(k, str) for k in ctx.hypotheses])
