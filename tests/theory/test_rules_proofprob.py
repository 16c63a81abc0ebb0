"""The rules union-bound, union-contains, min-max and monotone-chain: they check correct
instantiations and reject wrong ones (issue 11, proofprob)."""

import sympy as sp

from attnbounds.engine.refute import refute
from attnbounds.theory.proof import RULES, Chain, Context, Cup, Expect, Prob, by

h, H, g, K = sp.symbols("h H g K", integer=True, positive=True)
r = sp.Symbol("r", positive=True)
x = sp.Symbol("x", real=True)
A, D = sp.Function("A"), sp.Function("D")
U = Prob(Cup(A(h), (h, 1, H)))
S = sp.Sum(Prob(A(h)), (h, 1, H))


def _ok(chain, lhs, rel, rhs):
    res = chain.prove(lhs, rel, rhs)
    return res.complete


def test_rules_are_registered_with_a_reason():
    for name in ("union-bound", "union-contains", "min-max", "monotone-chain"):
        assert RULES[name].why and RULES[name].statement


# ----------------------------------------------------------------------------- union-bound


def test_union_bound_accepts_boole():
    assert _ok(Chain(U).le(S, by.union_bound()), U, "<=", S)
    assert _ok(Chain(S).ge(U, by.union_bound()), S, ">=", U)
    # events written as relations
    E = Prob(Cup(sp.Le(D(h), r), (h, 1, K)))
    big = sp.Sum(Prob(sp.Le(D(h), r)), (h, 1, K))
    assert _ok(Chain(E).le(big, by.union_bound()), E, "<=", big)


def test_union_bound_rejects_the_reverse_direction():
    assert not _ok(Chain(S).le(U, by.union_bound()), S, "<=", U)
    assert not Chain(U).eq(S, by.union_bound()).prove(U, "==", S).complete


def test_union_bound_rejects_another_range_or_event():
    assert not _ok(Chain(U).le(sp.Sum(Prob(A(h)), (h, 1, H - 1)), by.union_bound()), U, "<=", sp.Sum(Prob(A(h)), (h, 1, H - 1)))
    assert not _ok(Chain(U).le(sp.Sum(Prob(A(h)), (h, 2, H)), by.union_bound()), U, "<=", sp.Sum(Prob(A(h)), (h, 2, H)))
    other = sp.Sum(Prob(A(h + 1)), (h, 1, H))
    assert not _ok(Chain(U).le(other, by.union_bound()), U, "<=", other)
    halved = sp.Sum(Prob(A(h)) / 2, (h, 1, H))
    assert not _ok(Chain(U).le(halved, by.union_bound()), U, "<=", halved)
    # the small side must be a union
    assert not _ok(Chain(Prob(A(1))).le(S, by.union_bound()), Prob(A(1)), "<=", S)


def test_union_bound_rejects_a_reversed_range():
    # SymPy reads a sum with hi < lo - 1 as minus a sum (Karr): the range must be proved sane
    U2 = Prob(Cup(A(h), (h, 3, K)))
    S2 = sp.Sum(Prob(A(h)), (h, 3, K))
    assert not _ok(Chain(U2).le(S2, by.union_bound()), U2, "<=", S2)
    assert _ok(Chain(U2, Context({"K>=2": sp.Ge(K, 2)})).le(S2, by.union_bound()), U2, "<=", S2)


# ----------------------------------------------------------------------------- union-contains


def test_union_contains_needs_the_index_in_range():
    ctx = Context({"g<=H": sp.Le(g, H)})
    assert _ok(Chain(U, ctx).ge(Prob(A(g)), by.union_contains(g)), U, ">=", Prob(A(g)))
    assert not _ok(Chain(U).ge(Prob(A(g)), by.union_contains(g)), U, ">=", Prob(A(g)))  # g <= H dropped
    assert not _ok(Chain(U, ctx).ge(Prob(A(g + 1)), by.union_contains(g + 1)), U, ">=", Prob(A(g + 1)))
    assert not _ok(Chain(U, ctx).ge(Prob(A(0)), by.union_contains(0)), U, ">=", Prob(A(0)))  # below lo = 1


def test_union_contains_rejects_a_non_integer_or_another_event():
    ctx = Context({"x<=H": sp.Le(x, H), "x>=1": sp.Ge(x, 1)})
    assert not _ok(Chain(U, ctx).ge(Prob(A(x)), by.union_contains(x)), U, ">=", Prob(A(x)))
    ctx = Context({"g<=H": sp.Le(g, H)})
    assert not _ok(Chain(U, ctx).ge(Prob(A(g)), by.union_contains(1)), U, ">=", Prob(A(g)))
    assert not _ok(Chain(U, ctx).le(Prob(A(g)), by.union_contains(g)), U, "<=", Prob(A(g)))  # wrong direction


# ----------------------------------------------------------------------------- min-max


def test_min_max_needs_a_checked_chain_for_every_bound():
    both = [Chain(U).le(1, by.probability()), Chain(U).le(S, by.union_bound())]
    goal = sp.Min(1, S)
    assert _ok(Chain(U).le(goal, by.min_max(both)), U, "<=", goal)
    assert not _ok(Chain(U).le(goal, by.min_max(both[:1])), U, "<=", goal)
    assert not _ok(Chain(U).le(goal, by.min_max(both[1:])), U, "<=", goal)
    # a chain that does not check does not count
    bad = Chain(U).le(S / 2, by.union_bound())
    half = sp.Min(1, S / 2)
    assert not _ok(Chain(U).le(half, by.min_max([both[0], bad])), U, "<=", half)
    # the big side must be a Min (or the small side a Max)
    assert not _ok(Chain(U).le(S, by.min_max(both)), U, "<=", S)
    assert not _ok(Chain(U).ge(goal, by.min_max(both)), U, ">=", goal)


def test_min_max_on_a_max():
    a, b = sp.symbols("a b", real=True)
    ctx = Context({"a<=x": a <= x, "b<=x": b <= x})
    subs = [Chain(a, ctx).le(x, by.hypothesis("a<=x")), Chain(b, ctx).le(x, by.hypothesis("b<=x"))]
    assert _ok(Chain(sp.Max(a, b), ctx).le(x, by.min_max(subs)), sp.Max(a, b), "<=", x)
    # the sub-chains run under the step's context: dropping a hypothesis breaks them
    assert not Chain(sp.Max(a, b), ctx).le(x, by.min_max(subs)).prove(sp.Max(a, b), "<=", x, ctx=ctx.without("b<=x")).complete


# ----------------------------------------------------------------------------- monotone-chain


def test_monotone_chain_uses_a_checked_order():
    u = sp.Symbol("u", real=True)
    c = sp.Symbol("c", real=True)
    sub = Chain(U).le(S, by.union_bound())
    # c - S <= c - U: decreasing g(u) = c - u, and U <= S by the sub-chain
    step = by.monotone_chain(u, c - u, S, U, term=sub)
    assert _ok(Chain(c - S).le(c - U, step), c - S, "<=", c - U)
    assert Chain(c - S).le(c - U, step).prove(c - S, "<=", c - U).rules == ("monotone-chain", "union-bound")
    # the wrong direction: c - U <= c - S does not follow
    assert not _ok(Chain(c - U).le(c - S, by.monotone_chain(u, c - u, U, S, term=sub)), c - U, "<=", c - S)
    # an increasing g needs the other order
    assert not _ok(Chain(c + S).le(c + U, by.monotone_chain(u, c + u, S, U, term=sub)), c + S, "<=", c + U)
    # a sub-chain that does not check proves no order
    bad = Chain(U).le(S / 2, by.union_bound())
    assert not _ok(Chain(c - S / 2).le(c - U, by.monotone_chain(u, c - u, S / 2, U, term=bad)), c - S / 2, "<=", c - U)
    # a sub-chain about other expressions proves nothing about a and b
    assert not _ok(Chain(c - Expect(x)).le(c - U, by.monotone_chain(u, c - u, Expect(x), U, term=sub)),
                   c - Expect(x), "<=", c - U)


# ----------------------------------------------------------------------------- the refuter knows unions


def test_refuter_evaluates_unions_of_events():
    ctx = Context({"g<=H": sp.Le(g, H)})
    # with g <= H, P(A_g) <= P(union) holds at every assignment; without it, it fails somewhere
    assert refute(U, ">=", Prob(A(g)), ctx, seed=0).assignment is None
    found = refute(U, ">=", Prob(A(g)), ctx, drop="g<=H", seed=0)
    assert found.assignment is not None and found.lhs < found.rhs and found.assignment["g"] > found.assignment["H"]
    # Min is evaluated (it crashed before): the union bound with a min holds, a tighter one fails
    assert refute(U, "<=", sp.Min(1, S), Context(), seed=0).assignment is None
    assert refute(U, "<=", sp.Min(1, S) * sp.Rational(999, 1000), Context(), seed=0).assignment is not None


# ----------------------------------------------------------------------------- linearity, expect-monotone, moment

from attnbounds.theory.proof import Norm  # noqa: E402

i = sp.Symbol("i", integer=True, positive=True)
c = sp.Symbol("c", real=True)
s = sp.Function("s", commutative=False)(i)  # a random vector
Z = sp.Function("Z", real=True)(i)  # a random scalar
yv = sp.IndexedBase("y", commutative=False)[i]  # a constant vector


def test_expectation_of_a_vector_is_a_vector():
    assert Expect(yv - s).is_commutative is False and Expect(Z).is_commutative is True
    assert isinstance(Norm(Expect(yv - s)), Norm)  # not Abs: a norm of a vector


def test_linearity_pulls_out_constants_only():
    assert _ok(Chain(Expect(yv - s)).eq(yv - Expect(s), by.linearity()), Expect(yv - s), "==", yv - Expect(s))
    assert _ok(Chain(Expect(c * Z + 3)).eq(c * Expect(Z) + 3, by.linearity()), Expect(c * Z + 3), "==", c * Expect(Z) + 3)
    # inside a norm and a product, as in T1ii
    lhs, rhs = c * Norm(Expect(yv - s)), c * Norm(yv - Expect(s))
    assert _ok(Chain(lhs).eq(rhs, by.linearity()), lhs, "==", rhs)
    # a random variable is not a constant: E[Z] is not Z, E[Z^2] is not E[Z]^2, E[Z Z'] is not E[Z] E[Z']
    assert not _ok(Chain(Expect(Z)).eq(Z, by.linearity()), Expect(Z), "==", Z)
    assert not _ok(Chain(Expect(Z**2)).eq(Expect(Z) ** 2, by.linearity()), Expect(Z**2), "==", Expect(Z) ** 2)
    W = sp.Function("W", real=True)(i)
    assert not _ok(Chain(Expect(Z * W)).eq(Expect(Z) * Expect(W), by.linearity()), Expect(Z * W), "==", Expect(Z) * Expect(W))
    assert not _ok(Chain(Expect(Norm(yv - s))).eq(Norm(yv - Expect(s)), by.linearity()), Expect(Norm(yv - s)), "==", Norm(yv - Expect(s)))
    # only '=' steps, and only where there is an expectation
    assert not _ok(Chain(Expect(c * Z)).le(c * Expect(Z), by.linearity()), Expect(c * Z), "<=", c * Expect(Z))
    assert not _ok(Chain(c + 1).eq(1 + c, by.linearity()), c + 1, "==", 1 + c)


def test_expect_monotone_needs_a_checked_pointwise_chain():
    tri = Chain(Norm(yv - s)).le(Norm(yv) + Norm(-s), by.triangle(yv, -s))
    lhs, rhs = Expect(Norm(yv - s)), Expect(Norm(yv) + Norm(-s))
    assert _ok(Chain(lhs).le(rhs, by.expect_monotone(tri)), lhs, "<=", rhs)
    assert not _ok(Chain(rhs).le(lhs, by.expect_monotone(tri)), rhs, "<=", lhs)  # the wrong direction
    bad = Chain(Norm(yv - s)).le(Norm(yv), by.triangle(yv, -s))
    assert not _ok(Chain(lhs).le(Expect(Norm(yv)), by.expect_monotone(bad)), lhs, "<=", Expect(Norm(yv)))
    # both sides must be expectations
    assert not _ok(Chain(Norm(yv - s)).le(Norm(yv) + Norm(-s), by.expect_monotone(tri)), Norm(yv - s), "<=", Norm(yv) + Norm(-s))


def test_moment_is_e_z_at_most_root_of_e_z_squared():
    assert _ok(Chain(Expect(Z)).le(sp.sqrt(Expect(Z**2)), by.moment(Z)), Expect(Z), "<=", sp.sqrt(Expect(Z**2)))
    assert not _ok(Chain(sp.sqrt(Expect(Z**2))).le(Expect(Z), by.moment(Z)), sp.sqrt(Expect(Z**2)), "<=", Expect(Z))
    # not E[Z] <= sqrt(E[Z])^... or E[Z]^2 forms
    assert not _ok(Chain(Expect(Z)).le(Expect(Z**2), by.moment(Z)), Expect(Z), "<=", Expect(Z**2))
    assert not _ok(Chain(Expect(Z) ** 2).le(Expect(Z**2), by.moment(Z)), Expect(Z) ** 2, "<=", Expect(Z**2))
    # Z must be a real scalar
    assert not _ok(Chain(Expect(s)).le(sp.sqrt(Expect(s**2)), by.moment(s)), Expect(s), "<=", sp.sqrt(Expect(s**2)))
    q = sp.Function("q")(i)  # no realness known
    assert not _ok(Chain(Expect(q)).le(sp.sqrt(Expect(q**2)), by.moment(q)), Expect(q), "<=", sp.sqrt(Expect(q**2)))


def test_t1ii_chains_need_the_uniform_subset():
    from attnbounds.claims.theorem1_random import random_selection_checks

    for name, res in random_selection_checks().items():
        assert res.complete, name
        chain = res.chain
        goal = res.goal
        assert not chain.prove(*goal, ctx=chain.ctx.without("uniform_subset")).complete, name
        # and with another main-term coefficient k the chain does not reach the goal
    from attnbounds.theory import distance as thd

    k2 = 2 * thd.N / (thd.L - 1)
    res = random_selection_checks()["reconstructed"]
    wrong = res.goal[2].xreplace({thd.N / (thd.L - 1): k2})
    assert wrong != res.goal[2] and not res.chain.prove(res.goal[0], ">=", wrong).complete


def test_jensen_keeps_the_points_in_the_domain_of_phi():
    # v^3 is convex on v > 0 only: Jensen for it must not be applied to points that can be negative
    # (a = -2, b = 0: ((a + b)/2)^3 = -1 > (a^3 + b^3)/2 = -4); the kernel accepted this before
    v = sp.Symbol("v", positive=True)
    phi = sp.Lambda(v, v**3)
    a, b = sp.symbols("a b", real=True)
    half = [sp.Rational(1, 2)] * 2
    small, big = ((a + b) / 2) ** 3, (a**3 + b**3) / 2
    assert not _ok(Chain(small).le(big, by.jensen(phi, weights=half, points=[a, b])), small, "<=", big)
    X = sp.Symbol("X", real=True)
    assert not _ok(Chain(Expect(X) ** 3).le(Expect(X**3), by.jensen(phi, X=X)), Expect(X) ** 3, "<=", Expect(X**3))
    # on the domain it holds and checks
    p, q = sp.symbols("p q", positive=True)
    small, big = ((p + q) / 2) ** 3, (p**3 + q**3) / 2
    assert _ok(Chain(small).le(big, by.jensen(phi, weights=half, points=[p, q])), small, "<=", big)
    ctx = Context({"a>0": a > 0, "b>0": b > 0})
    small, big = ((a + b) / 2) ** 3, (a**3 + b**3) / 2
    assert _ok(Chain(small, ctx).le(big, by.jensen(phi, weights=half, points=[a, b])), small, "<=", big)


def test_refuter_draws_random_vectors_with_a_given_mean():
    # E[s(i)] = m y_i and E|s(i) - E s(i)|^2 = V[i] are met by shifting s and solving for V;
    # |E s| <= E|s| then holds everywhere, |E s| >= E|s| (a tightened Jensen) fails somewhere
    m = sp.Symbol("m", positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    V = sp.IndexedBase("V")[i]
    ctx = Context({"mean": (sp.Eq(Expect(s), m * yv), sp.Eq(Expect(Norm(Expect(s) - s) ** 2), 2 * V))})
    small, big = sp.Sum(Norm(Expect(s)), (i, 1, n)), sp.Sum(Expect(Norm(s)), (i, 1, n))
    assert refute(small, "<=", big, ctx, seed=0).assignment is None
    found = refute(small, ">=", big, ctx, seed=0)
    assert found.assignment is not None and found.lhs < found.rhs
    # the counterexample meets the hypotheses: the mean was put where they say
    assert any(k.startswith("s(1..)") for k in found.assignment)
