"""A fourteenth review found three ways to a false statement in the thirteenth review's renaming
of multi-limit binders, kept here as regressions beside true variants: an indefinite limit under
a definite one on the same variable left that variable free (∫_0^1 (∫ dx) dx = x); a binder
inside an inner limit's bound took the outer variable's kernel symbol and captured it
(∫_0^1 ∫_0^{∫_0^2 x dt} dy dx = 2); and an integral's variable became real on a complex path
(∫_0^i re(z) dz = −1/2, where it is 0)."""

import sympy as sp

from attnbounds.theory.proof import Chain, by

x = sp.Symbol("x", real=True)


def _checks(lhs, rhs):
    return Chain(lhs).eq(rhs, by.index_identity()).prove(lhs, "=", rhs).complete


def test_an_indefinite_limit_under_a_definite_one_stays_bound():
    I = sp.Integral(1, (x,), (x, 0, 1))  # ∫_0^1 x dx = 1/2
    assert not _checks(I, x)
    assert _checks(I, sp.Rational(1, 2))


def test_a_binder_in_an_inner_bound_does_not_capture_the_outer_variable():
    y, t = sp.symbols("y t", real=True)
    I = sp.Integral(1, (y, 0, sp.Integral(x, (t, 0, 2))), (x, 0, 1))  # ∫_0^1 2x dx = 1
    assert not _checks(I, 2)
    assert _checks(I, 1)
    k, j, m = sp.symbols("k j m", integer=True)
    S = sp.Sum(1, (j, 1, sp.floor(sp.Sum(k, (m, 1, 2)))), (k, 1, 3))  # Σ_k 2k = 12
    assert not _checks(S, 9)


def test_an_integral_on_a_complex_path_keeps_its_variable_complex():
    z = sp.Symbol("z")
    assert not _checks(sp.Integral(sp.re(z), (z, 0, sp.I)), -sp.Rational(1, 2))  # 0 on the path z = is
    assert _checks(sp.Integral(sp.re(x), (x, 0, 1)), sp.Rational(1, 2))  # a real interval: re(x) = x
