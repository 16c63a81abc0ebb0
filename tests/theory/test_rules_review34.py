"""A thirty-fourth review (by hand, against review 33's fixes) found one more wrong SymPy fact,
kept here as a regression beside true variants: SymPy calls C(n, k) negative for an odd k where
n >= 0 is not known, so the kernel proved C(n, 3) <= 0 for every integer n (C(5, 3) = 10)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, by, prove_nonnegative

n = sp.Symbol("n", integer=True)


def test_binomial_signs_are_read_only_where_sympy_is_right():
    L = sp.binomial(n, 3)
    assert L.is_negative  # SymPy's fact, false at n = 5
    assert not Chain(L).le(0, by.algebra()).prove(L, "<=", 0).complete
    L2 = sp.binomial(n, 5) + 1
    assert not Chain(L2, Context({"h": n >= 5})).le(0, by.algebra()).prove(L2, "<=", 0).complete  # 2 <= 0 at n = 5
    assert not prove_nonnegative(-L)
    # an even k, or an n known >= 0: SymPy's sign is right and is used
    m = sp.Symbol("m", integer=True, nonnegative=True)
    assert prove_nonnegative(sp.binomial(n, 2))
    assert prove_nonnegative(sp.binomial(m, 3))
