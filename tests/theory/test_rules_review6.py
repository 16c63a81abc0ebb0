"""A sixth review got four false statements past the allow-list of monotone and Jensen maps
and the generic index; each is kept here as a regression, beside a true variant that checks.
A pole inside an allowed node hid its jump from the derivative (d/dt atan(1/t) = −1/(1 + t²),
yet atan(1/t) jumps at 0): every power with a negative or fractional exponent and every log
must now be defined on the interval (monotone) or on φ's whole domain (Jensen). A hypothesis
k <= 1 pinned the "for every k" index of max-bound and diag-norm to one value: a hypothesis
may speak of the k-th entries (|f'_k / f_k| <= G, read for every k) but not of k itself."""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, Mat, MaxOver, OpNorm, by


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


def test_a_pole_inside_an_allowed_map_is_refused():
    t = sp.Symbol("t", real=True)
    g = sp.atan(1 / t)  # π/4 <= −π/4 "by" g' = −1/(1 + t²) <= 0 on [−1, 1]
    lhs, rhs = g.subs(t, 1), g.subs(t, -1)
    _refused(Chain(lhs).le(rhs, by.monotone(t, g, 1, -1)).prove(lhs, "<=", rhs), "1/t is defined only where t > 0")
    lhs, rhs = -1 / t, -1 / t  # on [1, 2], where 1/t is defined, −1/t is increasing: −1 <= −1/2
    res = Chain(sp.Integer(-1)).le(sp.Rational(-1, 2), by.monotone(t, -1 / t, 1, 2)).prove(-1, "<=", sp.Rational(-1, 2))
    assert res.complete, res.first_failure
    v = sp.Symbol("v", real=True)
    phi = sp.Lambda(v, sp.atan(v) + sp.atan(1 / v))  # (π/2) sign(v), "convex" by phi'' = 0: π/2 <= 0
    half = sp.Rational(1, 2)
    small, big = phi(1), half * phi(-1) + half * phi(3)
    _refused(Chain(small).le(big, by.jensen(phi, weights=[half, half], points=[-1, 3])).prove(small, "<=", big),
             "is defined only where")
    vp = sp.Symbol("vp", positive=True)  # 1/v is convex on (0, oo), its own domain: 1/2 <= (1 + 1/3)/2
    phi = sp.Lambda(vp, 1 / vp)
    small, big = phi(2), half * phi(1) + half * phi(3)
    assert Chain(small).le(big, by.jensen(phi, weights=[half, half], points=[1, 3])).prove(small, "<=", big).complete


def test_a_hypothesis_may_not_pin_the_for_every_index():
    kk = sp.Symbol("kk", integer=True)
    k = sp.Symbol("k", integer=True, positive=True)
    ctx = Context({"h": k <= 1})
    ext = MaxOver(sp.Lambda(kk, kk), 2)  # max(1, 2) <= 1
    res = Chain(ext, ctx).le(1, by.max_bound(ext, 1, k, Chain(k).le(1, by.algebra()))).prove(ext, "<=", 1)
    _refused(res, "constrain the index k itself")
    r, c = sp.symbols("r c", integer=True, positive=True)
    M = Mat(sp.Lambda((r, c), sp.KroneckerDelta(r, c) * c), 2)  # diag(1, 2)
    res = Chain(OpNorm(M), ctx).le(1, by.diag_norm(k, 1, Chain(sp.Abs(M.entry(k, k))).le(1, by.algebra()))).prove(OpNorm(M), "<=", 1)
    _refused(res, "constrain the index k itself")
    x = sp.IndexedBase("x", real=True)  # a hypothesis about the k-th entries is read for every k
    ext = MaxOver(sp.Lambda(kk, x[kk]), 2)
    res = Chain(ext, Context({"x<=1": x[k] <= 1})).le(1, by.max_bound(ext, 1, k, Chain(x[k]).le(1, by.hypothesis("x<=1")))).prove(ext, "<=", 1)
    assert res.complete, res.first_failure
