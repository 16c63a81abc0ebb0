"""A twenty-eighth review (a fuzzer of about 10,660 queries over the sign prover, identities and
one-step algebra chains, then by hand) found holes, kept here as regressions beside true variants:
a scalar y and an indexed base y (whose label is y) were one name to the slack search and to the
hypothesis rule (SymPy's subs renames both), so 0 <= y[1] followed from y >= 0; SymPy's facts
call atan, asin and acos of a rational argument irrational, so non-zero, also where it may be 0
(atan(0) = 0), and call Mod, Max and Min of a complex argument real; and prove_nonnegative took
a floating-point hypothesis (the chain layer refuses floats)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, prove_nonnegative

y, Y = sp.Symbol("y"), sp.IndexedBase("y")  # Y.label is y
z, Z = sp.Symbol("z"), sp.IndexedBase("z")


def test_a_symbol_and_an_indexed_base_of_the_same_name_are_two_things():
    assert not Chain(sp.Integer(0), Context({"h": y >= 0})).le(Y[1], by.algebra()).prove(0, "<=", Y[1]).complete
    assert not prove_nonnegative(Y[1], [sp.Gt(y, 0)], strict=True)  # y = 1, y[1] = -1
    assert not prove_nonnegative(Y[1] * Y[2], [sp.Ge(y, 0)])
    eq = Context({"h": sp.Eq(y, z)})
    assert not Chain(Y[1], eq).eq(Z[1], by.hypothesis("h")).prove(Y[1], "=", Z[1]).complete
    # the scalar itself is still substituted, and an entry's own hypothesis still read
    assert Chain(y + 1, eq).eq(z + 1, by.hypothesis("h")).prove(y + 1, "=", z + 1).complete
    assert Chain(sp.Integer(0), Context({"h": Y[1] >= 0})).le(Y[1], by.algebra()).prove(0, "<=", Y[1]).complete


def test_atan_asin_acos_where_the_argument_may_be_their_zero_give_no_sign():
    m = sp.Symbol("m", integer=True, nonnegative=True)
    a = sp.Symbol("a", real=True)
    assert sp.atan(m).is_positive  # SymPy's fact, false at m = 0
    assert not Chain(sp.sign(a), Context({"h": a >= sp.atan(m)})).ge(1, by.algebra()).prove(sp.sign(a), ">=", 1).complete
    for e in (sp.atan(m), sp.asin(m), sp.acos(m + 1)):
        assert not prove_nonnegative(e, strict=True)
    # where the argument is known away from that point, the facts hold and are used
    p = sp.Symbol("p", integer=True, positive=True)
    assert prove_nonnegative(sp.atan(p), strict=True)


def test_mod_max_min_of_an_argument_not_known_real_give_no_sign():
    w = sp.Symbol("w")  # complex
    for e in (sp.Mod(w, 2) ** 2, sp.Max(0, w), sp.Min(w, 0) ** 2):
        assert not prove_nonnegative(e)
        assert not Chain(sp.Integer(0)).le(e, by.algebra()).prove(0, "<=", e).complete
    x = sp.Symbol("x", real=True)
    assert Chain(sp.Integer(0)).le(sp.Max(0, x), by.algebra()).prove(0, "<=", sp.Max(0, x)).complete


def test_prove_nonnegative_refuses_floats():
    x = sp.Symbol("x", real=True)
    assert not prove_nonnegative(x - 1 - sp.Rational(1, 10**20), [sp.Ge(x, sp.Float(1))])  # -1e-20 at x = 1
    assert prove_nonnegative(x - 1, [sp.Ge(x, 1)])
