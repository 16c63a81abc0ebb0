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
