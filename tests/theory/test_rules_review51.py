"""A fifty-first review attacked the fiftieth's fixes and found:

* MaxOver / MinOver took their terms' sign wherever n was known positive, but 1..n is empty for
  0 < n < 1 too: 0 <= max_{1 <= k <= n} 1 under n <= 1/2 (and at n = 1/2 itself). It needs n >= 1.
* The sign oracle rebuilt every hypothesis with SymPy's evaluation on, so SymPy decided the
  relation by evaluating its sides: Σ_{j=1}^{10} 1/(j − 5) >= x made prove() raise a TypeError
  (complex infinity) instead of returning. The hypotheses are rebuilt unevaluated.

Left open (docs/proof-rules.md): SymPy also evaluates a number-valued sum or integral when it
orders an expression's terms, so a hypothesis Σ_{k=1}^{10^6} k^k >= x takes minutes or more.
"""

import sympy as sp

from attnbounds.theory.proof import Chain, Context, MaxOver, MinOver, by

k = sp.Symbol("k", integer=True)
x = sp.Symbol("x", real=True)


def test_an_extremum_over_1_to_a_fraction_has_no_sign():
    n = sp.Symbol("n", positive=True)
    for cls in (MaxOver, MinOver):
        E = cls(sp.Lambda(k, sp.Integer(1)), n)
        assert E.is_nonnegative is None
        assert not Chain(sp.Integer(0), Context({"h": sp.Le(n, sp.Rational(1, 2))})).le(E, by.algebra()).prove(0, "<=", E).complete
        half = cls(sp.Lambda(k, sp.Integer(1)), sp.Rational(1, 2))
        assert not Chain(sp.Integer(0), Context({})).le(half, by.algebra()).prove(0, "<=", half).complete
        assert cls(sp.Lambda(k, sp.Integer(1)), 1).is_nonnegative is True  # one term: its sign
        m = sp.Symbol("m", integer=True, positive=True)
        assert cls(sp.Lambda(k, sp.Integer(1)), m).is_nonnegative is True


def test_a_hypothesis_with_an_undefined_term_does_not_stop_prove():
    j = sp.Symbol("j", integer=True)
    i = sp.Symbol("i", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    S = sp.Sum(1, (i, 1, n))
    ctx = Context({"h": sp.Ge(sp.Sum(1 / (j - 5), (j, 1, 10)), x, evaluate=False)})
    res = Chain(S, ctx).eq(n, by.identity()).prove(S, "==", n)  # raised TypeError
    assert res.complete, res.first_failure
    res = Chain(x, ctx).le(0, by.algebra()).prove(x, "<=", 0)  # returns, refused: nothing says x <= 0
    assert not res.complete
