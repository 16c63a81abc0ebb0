"""A thirtieth review (by hand, against the check that a used relation is defined where the
step is) found two holes with one cause, kept here as regressions beside true variants:
``instance`` never checked that the values it puts into a cited theorem are defined where the
citing step is. SymPy builds σ(a b) with a := 1/x, b := x as x/x = 1, so a b = 0 (given
b = 0) was applied at x = 0 as 1 = 0; the same cancellation in a premise (v <= a b built as
y <= 1) got past the check of the discharged premise's sides."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Lemma, by

x, y = sp.symbols("x y", real=True)
a, b, v = sp.symbols("a b v")
at0 = Context({"x0": sp.Eq(x, 0)})


def test_a_value_whose_pole_the_theorem_cancels_is_refused():
    T = Lemma(Chain(a * b, Context({"P": sp.Eq(b, 0)})).eq(0, by.hypothesis("P")), a * b, "=", sp.Integer(0))
    res = Chain(sp.Integer(1), at0).eq(0, by.instance(T, {a: 1 / x, b: x}, {"P": "x0"})).prove(1, "=", 0)
    assert not res.complete and "value of a" in res.first_failure  # 1 = 0 at x = 0
    # a value defined where the step is: a := x + 1
    ok = Chain((x + 1) * x, at0).eq(0, by.instance(T, {a: x + 1, b: x}, {"P": "x0"}))
    assert ok.prove((x + 1) * x, "=", 0).complete


def test_a_value_whose_pole_a_premise_cancels_is_refused():
    own = Context({"P1": sp.Le(v, a * b), "P2": sp.Eq(b, 0)})
    T = Lemma(Chain(v, own).le(a * b, by.hypothesis("P1")).eq(0, by.hypothesis("P2")), v, "<=", sp.Integer(0))
    ctx = Context({"x0": sp.Eq(x, 0), "y<=1": y <= 1})

    def cite(value, premise_rhs):
        prem = Chain(y, ctx).le(premise_rhs, by.hypothesis("y<=1") if premise_rhs == 1 else by.algebra())
        return Chain(y, ctx).le(0, by.instance(T, {v: y, a: value, b: x}, {"P1": prem, "P2": "x0"}))

    assert not cite(1 / x, 1).prove(y, "<=", 0).complete  # y <= 0 at x = 0, y = 1
    # with a := 1 the premise is y <= x, which y <= 1 does not give: no proof, as it should be
    assert not cite(sp.Integer(1), x).prove(y, "<=", 0).complete
