"""A twenty-fourth review (a fuzzer of about 8,100 queries, with chains that use hypotheses, points
where a side is undefined, and sums over reversed ranges) found ten ways to a false statement,
kept here as regressions beside true variants. Six were the twenty-fifth review's hole (a chain
through a point where its middle is undefined, then a hypothesis put there: csc, a removable 0/0
through algebra, a pole inside a sum, the expand path, together, a Kronecker delta). Three were
in the first fix of it, which took where the chain's ends *may* be undefined as leave for its
middle: a bound variable's pole read as a free one's, a power (x − 1)^y and a Piecewise branch.
The last: monotone took a complex interval (exp z <= e exp z, so -1 <= -e at z = iπ)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by, surely_undefined

x = sp.Symbol("x", real=True)
k = sp.Symbol("k", integer=True)
v = sp.Symbol("v")


def test_monotone_needs_a_real_interval():
    z = sp.Symbol("z")  # complex
    ch = Chain(sp.exp(z)).le(sp.E * sp.exp(z), by.monotone(v, sp.exp(v), z, z + 1))
    res = ch.prove(sp.exp(z), "<=", sp.E * sp.exp(z))
    assert not res.complete and "must be known real" in res.first_failure
    thm = Lemma(ch, sp.exp(z), "<=", sp.E * sp.exp(z))
    assert not Chain(sp.Integer(-1)).le(-sp.E, by.instance(thm, {z: sp.I * sp.pi})).prove(-1, "<=", -sp.E).complete
    real = Chain(sp.exp(x)).le(sp.E * sp.exp(x), by.monotone(v, sp.exp(v), x, x + 1))
    assert real.prove(sp.exp(x), "<=", sp.E * sp.exp(x)).complete


def test_no_way_through_a_point_where_the_middle_is_undefined():
    sin0 = Context({"s": sp.Eq(sp.sin(x), 0)})
    csc = Chain(sp.Integer(1), sin0).eq(sp.sin(x) * sp.csc(x), by.identity()).eq(0, by.hypothesis("s"))
    assert not csc.prove(1, "=", 0).complete  # x = 0
    quad = Context({"h": sp.Eq(x**2 - x, 0)})
    alg = Chain(x, quad).le((x**2 - x) / (x - 1), by.algebra()).eq(0, by.hypothesis("h"))
    assert not alg.prove(x, "<=", 0).complete  # 1 <= 0 at x = 1
    tog = Chain(sp.Integer(1), quad).eq((x**2 - x) / (x * (x - 1)), by.identity()).eq(0, by.hypothesis("h"))
    assert not tog.prove(1, "=", 0).complete
    one = Context({"h": sp.Eq(x**2 - 1, 0)})
    inside = Chain(x + 1, one).eq(sp.Sum((x**2 - 1) / (x - k), (k, 1, 1)), by.identity()).eq(0, by.hypothesis("h"))
    assert not inside.prove(x + 1, "=", 0).complete  # 2 = 0 at x = 1
    y = sp.Symbol("y", positive=True)
    lg = (Chain(sp.Integer(1), Context({"h": sp.Eq(sp.log(y**2), 0)}))
          .eq(sp.log(y**2) / (2 * sp.log(y)), by.identity()).eq(0, by.hypothesis("h")))
    assert not lg.prove(1, "=", 0).complete  # y = 1
    a, b = sp.symbols("a b", integer=True)
    d = sp.KroneckerDelta(a, b)
    delta = Chain(d, Context({"h": sp.Eq(a, 2)})).eq(d * (a - 2) / (b - 2), by.index_identity()).eq(0, by.hypothesis("h"))
    assert not delta.prove(d, "=", 0).complete  # a = b = 2
    # a function with poles that the ends have too is a way through
    both = Chain(1 + sp.csc(x)).eq(sp.sin(x) * sp.csc(x) + sp.csc(x), by.identity()).eq(1 + sp.csc(x), by.identity())
    assert both.prove(1 + sp.csc(x), "=", 1 + sp.csc(x)).complete


def test_what_the_ends_may_lack_is_no_leave_for_the_middle():
    one = Context({"h": sp.Eq(x**2 - 1, 0)})
    S5 = sp.Sum(1 / (x - k), (k, 5, 5))  # a pole at 5, not at 1
    bound = Chain(x + 1 + S5, one).eq(sp.Sum((x**2 - 1) / (x - k), (k, 1, 1)) + S5, by.identity()).eq(S5, by.hypothesis("h"))
    assert not bound.prove(x + 1 + S5, "=", S5).complete  # 7/4 = -1/4 at x = 1
    y = sp.Symbol("y")
    P = (x - 1) ** y  # defined at x = 1 for y = 2
    power = Chain(x + 1 + P, one).eq((x**2 - 1) / (x - 1) + P, by.identity()).eq(P, by.hypothesis("h"))
    assert not power.prove(x + 1 + P, "=", P).complete
    L = sp.Piecewise((1 / (x - 1), x > 5), (0, True))  # 0 at x = 1
    piece = Chain(x + 1 + L, one).eq((x**2 - 1) / (x - 1) + L, by.identity()).eq(L, by.hypothesis("h"))
    assert not piece.prove(x + 1 + L, "=", L).complete
    assert surely_undefined(P) == (frozenset(), frozenset()) and surely_undefined(L) == (frozenset(), frozenset())
    # what the ends surely have is leave: the same sum, or a pole outside any binder
    same = Chain(x + 1 + S5).eq(sp.Sum(x + 1, (k, 1, 1)) + S5, by.identity()).eq(x + 1 + S5, by.identity())
    assert same.prove(x + 1 + S5, "=", x + 1 + S5).complete
    end = (x + 1) / (x - 1)
    sure = Chain(end, one).eq((x**2 - 1) / (x - 1) ** 2, by.identity()).eq(end, by.identity())
    assert sure.prove(end, "=", end).complete
