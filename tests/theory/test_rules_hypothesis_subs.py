"""The rule ``hypothesis`` substituting an equation under a sum that binds its symbol.

A hypothesis that has a symbol only as a subscript or argument (b[k] = 1/L, P(pick(k)) = 1/L) is
read for every value of it, so it reaches Σ_k b[k] when the sum's range has k's assumptions and no
other hypothesis pins k. SymPy's ``subs`` does not go under a sum that binds a symbol of the old
value, so such a step was refused although true (an over-refusal); the rule now also tries the
substitution done structurally (xreplace), behind the same capture checks.

The false variants stay refused: the symbol bare in the hypothesis (k = 2, b[k] = k), a symbol of
the new value that a sum would capture, a range outside k's assumptions, k pinned by another
hypothesis, derivatives, an integral or Subs over an integer k, a random index, and a binder over
a value in place of a symbol: Subs(L b[k], b[k], 5) is 5 L, and 1/L := b[k] made it Subs(1, b[k], 5)
= 1, so 5 L = 1 was proved from b[k] = 1/L (a hole of SymPy's own substitution, closed here).
"""

import pytest
import sympy as sp

from attnbounds.theory.proof import Chain, Context, Cond, Expect, Indicator, MaxOver, Prob, by

L = sp.Symbol("L", integer=True, positive=True)
n = sp.Symbol("n", integer=True)
k = sp.Symbol("k", integer=True, positive=True)
j = sp.Symbol("j", integer=True, positive=True)
kr = sp.Symbol("k", integer=True, positive=True, random=True)
b = sp.IndexedBase("b", real=True)
c = sp.IndexedBase("c", real=True)
pick = sp.Function("pick")  # the event U = k
X = sp.Function("X")
f = sp.Function("f", deterministic=True)
THIRD = sp.Rational(1, 3)


def S(e, v=k, lo=1, hi=L):
    return sp.Sum(e, (v, lo, hi))


def _step(lhs, rhs, hyps, name="h"):
    return Chain(lhs, Context(hyps)).eq(rhs, by.hypothesis(name)).prove(lhs, "==", rhs)


@pytest.mark.parametrize("lhs, rhs, hyps", [
    (S(b[k]), S(1 / L), {"h": sp.Eq(b[k], 1 / L)}),
    (S(b[k]), S(1 / L), {"h": sp.Eq(1 / L, b[k])}),  # the hypothesis written the other way
    (S(1 / L), S(b[k]), {"h": sp.Eq(b[k], 1 / L)}),  # the step written the other way
    (S(b[k] * c[k]), S(c[k] / L), {"h": sp.Eq(b[k], 1 / L)}),
    (S(b[k] + 1), S(4 * THIRD), {"h": sp.Eq(b[k], THIRD)}),
    (S(b[k] ** 2), S(THIRD ** 2), {"h": sp.Eq(b[k], THIRD)}),
    (S(sp.Piecewise((1, b[k] > 0), (0, True))), S(sp.Piecewise((1, THIRD > 0), (0, True))), {"h": sp.Eq(b[k], THIRD)}),
    (S(b[k] * Prob(pick(k))), S(b[k] / L), {"h": sp.Eq(Prob(pick(k)), 1 / L)}),
    (S(S(b[k])), S(S(1 / L)), {"h": sp.Eq(b[k], 1 / L)}),  # nested sums binding the same k
    (S(sp.Sum(b[k], (j, 1, k))), S(sp.Sum(1 / L, (j, 1, k))), {"h": sp.Eq(b[k], 1 / L)}),
    (b[k] + S(b[k]), 1 / L + S(1 / L), {"h": sp.Eq(b[k], 1 / L)}),  # k free and bound
    (Expect(S(b[k] * X(k))), Expect(S(X(k) / L)), {"h": sp.Eq(b[k], 1 / L)}),
    (sp.Product(b[k], (k, 1, L)), sp.Product(1 / L, (k, 1, L)), {"h": sp.Eq(b[k], 1 / L)}),
], ids=["sum", "swapped-hypothesis", "backwards", "times-c", "plus-one", "square", "piecewise-condition",
        "probability", "nested-same-name", "inner-limit", "free-and-bound", "inside-expect", "product"])
def test_a_hypothesis_about_every_entry_is_substituted_under_the_sum(lhs, rhs, hyps):
    res = _step(lhs, rhs, hyps)
    assert res.complete, res.first_failure


def test_the_uniform_token_mean_needs_no_auxiliary_symbol():
    """docs/examples/uniform_token.py went through a symbol q = 1/L; P(pick(k)) = 1/L is enough."""
    a = sp.IndexedBase("a", real=True)
    Sa = S(a[k])
    goal = Expect(S(a[k] * Indicator(pick(k))))
    ctx = Context({"sum1": sp.Eq(Sa, 1), "uniform": sp.Eq(Prob(pick(k)), 1 / L)})
    res = (Chain(goal, ctx)
           .eq(S(Expect(a[k] * Indicator(pick(k)))), by.expect_sum())
           .eq(S(a[k] * Prob(pick(k))), by.indicator_mean())
           .eq(S(a[k] / L), by.hypothesis("uniform"))
           .eq(Sa / L, by.identity())
           .eq(1 / L, by.hypothesis("sum1"))
           .prove(goal, "==", 1 / L))
    assert res.complete, res.first_failure


CAPTURED = "would be captured by a sum that binds the same symbol"


@pytest.mark.parametrize("lhs, rhs, hyps, why", [
    # Σ_{k=1}^2 k = 3, not 4: k = 2 is about one k
    (sp.Sum(k, (k, 1, 2)), sp.Sum(2, (k, 1, 2)), {"h": sp.Eq(k, 2)}, f"['k'] {CAPTURED}"),
    (S(b[k]), S(k), {"h": sp.Eq(b[k], k)}, f"['k'] {CAPTURED}"),
    # Σ_{L=1}^3 b[k] = 3/L, Σ_{L=1}^3 1/L = 11/6: the sum would capture the hypothesis' L
    (sp.Sum(b[k], (L, 1, 3)), sp.Sum(1 / L, (L, 1, 3)), {"h": sp.Eq(b[k], 1 / L)}, f"['L'] {CAPTURED}"),
    # b[0] is no entry the hypothesis speaks of (k positive); 1..n runs over 0, −1, … for n <= −1
    (S(b[k], k, 0, L), S(1 / L, k, 0, L), {"h": sp.Eq(b[k], 1 / L)}, "not about every k of the sum (or other binder) over k = 0..L"),
    (S(b[k], k, 1, n), S(1 / L, k, 1, n), {"h": sp.Eq(b[k], 1 / L)}, "not about every k of the sum (or other binder) over k = 1..n"),
    # another hypothesis makes k one value: b[1] = 1/L says nothing of b[2]
    (S(b[k]), S(1 / L), {"h": sp.Eq(b[k], 1 / L), "p": sp.Eq(k, 1)}, f"['k'] {CAPTURED}"),
    (S(b[k]), S(1 / L), {"h": sp.Eq(b[k], 1 / L), "p": sp.Le(k, 1)}, f"['k'] {CAPTURED}"),
    # d/dL (3 b[k]) = 0, d/dL (3/L) = −3/L²; d/db[2] Σ_k b[k] = 1, not 0
    (sp.Derivative(S(b[k], hi=3), L), sp.Derivative(S(1 / L, hi=3), L), {"h": sp.Eq(b[k], 1 / L)}, "would go under a derivative in ['L']"),
    (sp.Derivative(S(b[k], hi=3), b[2]), sp.Integer(0), {"h": sp.Eq(b[k], 1 / L)}, "would go under a derivative in ['b[2]']"),
    # b at a non-integer k, or at k = 0, is no entry the hypothesis speaks of
    (sp.Integral(b[k], (k, 0, 1)), sp.Integral(1 / L, (k, 0, 1)), {"h": sp.Eq(b[k], 1 / L)}, "an integral, Lambda or Subs over k"),
    (sp.Subs(L * b[k], k, 0), sp.Integer(1), {"h": sp.Eq(b[k], 1 / L)}, "an integral, Lambda or Subs over k"),
    # a random index: the hypothesis is about the values it takes, not every k of 1..L
    (sp.Sum(b[kr], (kr, 1, L)), sp.Sum(1 / L, (kr, 1, L)), {"h": sp.Eq(b[kr], 1 / L)}, "random=True"),
    (sp.Sum(f(kr), (kr, 1, L)), sp.Sum(1 / L, (kr, 1, L)), {"h": sp.Eq(f(kr), 1 / L)}, "random=True"),
    # the hypothesis is about b[k + 1], or b[k] of another k, or says 1/L
    (S(b[k]), S(1 / L), {"h": sp.Eq(b[k + 1], 1 / L)}, "the step is not a substitution of Eq(b[k + 1], 1/L)"),
    (sp.Sum(b[sp.Symbol("k")], (sp.Symbol("k"), 1, L)), sp.Sum(1 / L, (sp.Symbol("k"), 1, L)), {"h": sp.Eq(b[k], 1 / L)},
     "the step is not a substitution of Eq(b[k], 1/L)"),
    (S(b[k]), S(2 / L), {"h": sp.Eq(b[k], 1 / L)}, "the step is not a substitution of Eq(b[k], 1/L)"),
], ids=["bare-k", "bare-rhs", "captured-rhs-symbol", "range-from-0", "range-may-reverse", "pinned-eq", "pinned-le",
        "derivative-symbol", "derivative-entry", "integral-over-integer", "subs-at-0", "random-index",
        "random-index-function", "shifted", "other-k", "wrong-value"])
def test_a_false_substitution_under_a_sum_is_refused(lhs, rhs, hyps, why):
    res = _step(lhs, rhs, hyps)
    assert not res.complete
    assert why in res.first_failure, res.first_failure


NOT_A_SYMBOL = "which is not a symbol: a value of the equation there would be read as its variable"


@pytest.mark.parametrize("lhs, rhs, hyps, bound", [
    # Subs(L b[k], b[k], 5) = 5 L, not 1 (SymPy's subs of 1/L by b[k] made it Subs(1, b[k], 5))
    (sp.Subs(L * b[k], b[k], 5), sp.Integer(1), {"h": sp.Eq(b[k], 1 / L)}, "b[k]"),
    (sp.Subs(L * f(k), f(k), 5), sp.Integer(1), {"h": sp.Eq(f(k), 1 / L)}, "f(k)"),
    # Σ_{b[k]=1}^{2} L b[k] = 3 L, not Σ_{b[k]=1}^{2} 1 = 2
    (sp.Sum(L * b[k], (b[k], 1, 2)), sp.Sum(1, (b[k], 1, 2)), {"h": sp.Eq(b[k], 1 / L)}, "b[k]"),
    (sp.Limit(L * b[k], b[k], 5), sp.Integer(1), {"h": sp.Eq(b[k], 1 / L)}, "b[k]"),
], ids=["subs-indexed", "subs-function", "sum-over-indexed", "limit-over-indexed"])
def test_no_substitution_through_a_binder_over_a_value(lhs, rhs, hyps, bound):
    res = _step(lhs, rhs, hyps)
    assert not res.complete
    assert f"binds ['{bound}'], {NOT_A_SYMBOL}" in res.first_failure, res.first_failure


def test_five_l_is_not_one():
    """The hole itself, as a chain: 5 L = Subs(L b[k], b[k], 5) = 1 from b[k] = 1/L."""
    x = sp.Subs(L * b[k], b[k], 5)
    res = (Chain(5 * L, Context({"h": sp.Eq(b[k], 1 / L)}))
           .eq(x, by.identity()).eq(1, by.hypothesis("h")).prove(5 * L, "==", 1))
    assert not res.complete
    assert res.first_failure.startswith("step 2 (hypothesis)") and NOT_A_SYMBOL in res.first_failure


def test_a_conditioned_value_under_the_sum_is_still_not_passed_through():
    """E[X(k) | pick(k)] = 1/L and = 2/L both hold where every P(pick(k)) = 0 (they say nothing
    there): the chain 1 = Σ 1/L = Σ E[X(k) | pick(k)] = Σ 2/L = 2 must not pass through the sum."""
    V = Expect(Cond(X(k), pick(k)))
    ctx = Context({"h": sp.Eq(V, 1 / L), "h2": sp.Eq(V, 2 / L)})
    assert _step(S(V), S(1 / L), {"h": sp.Eq(V, 1 / L)}).complete  # the step itself: the sum holds V
    res = (Chain(sp.Integer(1), ctx).eq(S(1 / L), by.identity()).eq(S(V), by.hypothesis("h"))
           .eq(S(2 / L), by.hypothesis("h2")).eq(2, by.identity()).prove(1, "==", 2))
    assert not res.complete
    assert "undefined where Prob(pick(k)) = 0" in res.first_failure, res.first_failure


def test_a_lambda_over_every_k_reads_the_hypothesis_for_every_k():
    """MaxOver's Lambda binds k over 1..L: max_k b[k] = 1/L from b[k] = 1/L (this was accepted
    before, through SymPy's subs; kept to notice if the new path changes it)."""
    lhs, rhs = MaxOver(sp.Lambda(k, b[k]), L), MaxOver(sp.Lambda(k, 1 / L), L)
    assert _step(lhs, rhs, {"h": sp.Eq(b[k], 1 / L)}).complete
