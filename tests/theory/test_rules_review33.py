"""A thirty-third review (by hand, against review 32's fixes) found one more hole, with two ways
through it, kept here as regressions beside a true variant: an indexed base whose label is an
expression ((v + 1)[1]) escaped the check for one name used as a symbol and a base's label, and
SymPy's substitutions still renamed the symbols inside the label. monotone then built its ends
as 1[1] and 2[1] and read d/dv (v + 1)[1] as 0 (1[1] <= 2[1] for any values); the hypothesis
rule took (c + 1)[1] = (d + 1)[1] from c = d. A base's label must now be a plain symbol."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by


def test_an_indexed_base_needs_a_plain_symbol_as_its_label():
    v = sp.Symbol("v", real=True)
    g = sp.IndexedBase(v + 1)[1]
    L, R = g.subs(v, 0), g.subs(v, 1)
    assert not Chain(L).le(R, by.monotone(v, g, 0, 1)).prove(L, "<=", R).complete  # 1 <= 0 at 1[1] = 1, 2[1] = 0
    c, d = sp.symbols("c d", real=True)
    X, Y = sp.IndexedBase(c + 1), sp.IndexedBase(d + 1)
    assert not Chain(X[1], Context({"h": sp.Eq(c, d)})).eq(Y[1], by.hypothesis("h")).prove(X[1], "=", Y[1]).complete
    # a base of its own, as a plain symbol: the same substitution checks
    W = sp.IndexedBase("W")
    assert Chain(W[1] + c, Context({"h": sp.Eq(c, d)})).eq(W[1] + d, by.hypothesis("h")).prove(W[1] + c, "=", W[1] + d).complete
