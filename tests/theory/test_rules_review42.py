"""A forty-second review, by hand over the named inequality rules, found three false statements that
`monotone`, `monotone-chain` and `jensen` accepted, all through the check that their map is
continuous: the allow-list was read on the map as written, but the rules differentiate it at their
own real dummy, where SymPy may rebuild it from other pieces (atan(-tanh(sqrt(-v**2)) sqrt(-v**2)/|v|)
is atan(tan t) at a real t: a sawtooth whose derivative SymPy gives as 1), and atan of an argument
not known real may cross a branch cut (atan(s + 2i) + atan(s - 2i) is real for real s and jumps by
2 pi where s crosses 0). The rebuilt map is now checked again, and every atan and tanh in it that
holds the variable must have an argument known real."""

import sympy as sp

from attnbounds.theory.proof import Chain, by

v = sp.Symbol("v")  # no assumptions
vr = sp.Symbol("v", real=True)
# = atan(tan(t)) at a real t: 1 at t = 1, 2 - pi at t = 2
SAW = sp.atan(-sp.tanh(sp.sqrt(-v**2)) * sp.sqrt(-v**2) / sp.Abs(v))


def _monotone(g, var, a, b):
    lhs, rhs = g.subs(var, a), g.subs(var, b)
    return Chain(lhs).le(rhs, by.monotone(var, g, a, b)).prove(lhs, "<=", rhs).complete


def test_a_map_that_sympy_rebuilds_at_the_rules_dummy_is_checked_again():
    assert sp.N(SAW.subs(v, 2) - SAW.subs(v, 1)) < 0  # 1 <= 2 - pi is false
    assert not _monotone(SAW, v, 1, 2)
    lhs, rhs = SAW.subs(v, 1), SAW.subs(v, 2)
    order = Chain(sp.Integer(1)).le(sp.Integer(2), by.algebra())
    assert not Chain(lhs).le(rhs, by.monotone_chain(v, SAW, 1, 2, order)).prove(lhs, "<=", rhs).complete
    held = sp.atan(sp.Mul(-sp.I, sp.tanh(sp.I * vr, evaluate=False), evaluate=False), evaluate=False)
    assert not _monotone(held, vr, 1, 2)
    # jensen: phi(t) = atan(tan(t)) has phi'' = 0 where defined, and jumps by pi at pi/2
    J = sp.sqrt(-v**2) / sp.sqrt(v**2)
    phi = sp.Lambda(v, -sp.atan(sp.tanh(v * J) * J))
    lhs, rhs = phi(sp.Rational(3, 2)), (phi(1) + phi(2)) / 2  # 3/2 <= 3/2 - pi/2
    assert sp.N(rhs - lhs) < 0
    half = [sp.Rational(1, 2)] * 2
    assert not Chain(lhs).le(rhs, by.jensen(phi, weights=half, points=[1, 2])).prove(lhs, "<=", rhs).complete


def test_atan_of_an_argument_not_known_real_is_refused_in_a_monotone_map():
    s = (vr - 1) / (vr + 1)
    g = sp.atan(s + 2 * sp.I) + sp.atan(s - 2 * sp.I)  # real for real v; jumps by 2 pi at v = 1
    lhs, rhs = g.subs(vr, 2), g.subs(vr, 0)
    assert abs(sp.N(sp.im(lhs))) < 1e-20 and abs(sp.N(sp.im(rhs))) < 1e-20
    assert sp.N(sp.re(lhs - rhs)) > 5  # 2.93 <= -2.68 is false
    assert not Chain(lhs).le(rhs, by.monotone(vr, g, 2, 0)).prove(lhs, "<=", rhs).complete


def test_true_variants_stay_accepted():
    assert _monotone(sp.atan((vr - 1) / (vr + 1)), vr, 0, 2)
    assert _monotone(sp.atan(vr), vr, 1, 2)
    assert _monotone(sp.exp(vr) + vr**3, vr, 0, 1)
    phi = sp.Lambda(vr, vr**2)
    lhs, rhs = phi(sp.Rational(3, 2)), (phi(1) + phi(2)) / 2
    assert Chain(lhs).le(rhs, by.jensen(phi, weights=[sp.Rational(1, 2)] * 2, points=[1, 2])).prove(lhs, "<=", rhs).complete
