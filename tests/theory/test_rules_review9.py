"""A ninth review found three more ways to a false statement, each kept here as a regression
beside a true variant that checks: a sum whose limit is not an integer (SymPy reads its sign
from the terms but its doit uses the polynomial formula: Σ_{k=1}^{6/5} (k − 1)⁴ = −49/15625);
Jensen at points that are not real (φ(v) = v² at ±i gave 0 <= −1, and E[Y²] <= E[Y]²); and
rules that read "real", "integer" or "positive" from SymPy directly, where a bound variable's
own assumptions leaked (Σ_{k=−1}^{−1} √k with k declared positive counted as real)."""

import sympy as sp

from attnbounds.theory.proof import Chain, Expect, by, is_identity, prove_nonnegative


def _refused(res, fragment):
    assert not res.complete and fragment in res.first_failure, res.first_failure


def _checks(res):
    assert res.complete, res.first_failure


def test_a_sum_limit_must_be_an_integer():
    k = sp.Symbol("k", integer=True)
    S = sp.Sum((k - 1) ** 4, (k, 1, sp.Rational(6, 5)))
    v = S.doit()  # −49/15625
    assert v < 0
    _refused(Chain(sp.Integer(0)).le(S, by.algebra()).eq(v, by.identity()).prove(0, "<=", v), "not known to be an integer")
    assert not prove_nonnegative(S)
    assert not is_identity(sp.Sum(k, (k, 1, sp.Rational(1, 2))), 0)  # SymPy recursed without end here
    S = sp.Sum((k - 1) ** 4, (k, 1, 2))  # true: 0 <= 1
    _checks(Chain(sp.Integer(0)).le(S, by.algebra()).eq(1, by.identity()).prove(0, "<=", 1))


def test_jensen_points_must_be_real():
    w = sp.Symbol("w", real=True)
    phi, half = sp.Lambda(w, w ** 2), sp.Rational(1, 2)
    _refused(Chain(sp.Integer(0)).le(-1, by.jensen(phi, weights=[half, half], points=[sp.I, -sp.I])).prove(0, "<=", -1),
             "is not known to be real")
    Y = sp.Symbol("Y", random=True, real=True)
    res = (Chain(-Expect(Y) ** 2).eq(Expect(sp.I * Y) ** 2, by.linearity())
           .le(Expect(-Y ** 2), by.jensen(phi, X=sp.I * Y)).eq(-Expect(Y ** 2), by.linearity())
           .prove(-Expect(Y) ** 2, "<=", -Expect(Y ** 2)))
    _refused(res, "is not known to be real")
    _checks(Chain(Expect(Y) ** 2).le(Expect(Y ** 2), by.jensen(phi, X=Y)).prove(Expect(Y) ** 2, "<=", Expect(Y ** 2)))


def test_realness_is_read_without_a_bound_variables_own_assumptions():
    kp = sp.Symbol("kp", positive=True)
    F = sp.Sum(sp.sqrt(kp), (kp, -1, -1))  # √−1 = i: |F² − 1| <= F² + 1 reads 2 <= 0
    small, big = sp.Abs(F * F - 1), sp.sqrt(F ** 2 + 1) * sp.sqrt(F ** 2 + 1)
    _refused(Chain(small).le(big, by.cauchy_schwarz([F, 1], [F, -1])).prove(small, "<=", big), "is not known to be real")
    F = sp.Sum(sp.sqrt(kp), (kp, 1, 2))  # true: a real sum
    small, big = sp.Abs(F * F - 1), sp.sqrt(F ** 2 + 1) * sp.sqrt(F ** 2 + 1)
    _checks(Chain(small).le(big, by.cauchy_schwarz([F, 1], [F, -1])).prove(small, "<=", big))
