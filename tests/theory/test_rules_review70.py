"""Review 70 of the kernel: the context's facts (``WeightedNorm``, ``BoundedDifferences``) and the
checks that read relations and sides but maybe not facts' fields.

One hole, closed: a ``WeightedNorm`` field that is undefined at a point
is multiplied away. ``weighted-norm`` and ``mcdiarmid`` build their bounds from the fields
themselves, ``R*l1`` and ``4*R**2*l2``, and SymPy cancels a factor that two fields share when it
builds the product. With R = 1/b and l1 = b it builds R*l1 = 1, which is defined everywhere,
though the fact's fields are not. The kernel reads a relation only where its sides are defined:
a relation taken from elsewhere "says nothing where its sides are undefined" (see
test_rules_defined_use.py, ``_defined_where_step``), and a hypothesis holding a value
conditioned on a null event says nothing there (reviews 64 and 65). A fact is read with no such
check. ``is_identity``'s ``_same_poles`` cannot catch it either: the step side (1) is compared
with the product as SymPy built it (1), not with the fields. So the step rests, at one point, on a
fact that says nothing there, and the goal, defined there, is false:

* weighted-norm proved D(i) <= 1 from WeightedNorm(D(i), 1/b, b, s2(i)) with b = (y² − y)/(y − 1)
  (0/0 at y = 1). Model: y = 1, where the radius and l1 are undefined; one X_1 ≡ e_1 (‖X_1‖ = 1),
  w_1 = 2, s2(i) = 4: f = 2 > 1.
* the same through a conditioned value: b = E[c | A] with A = (G(i) >= 5), stated positive
  (``b > 0``, ``1/b > 0``, which also say nothing where P(A) = 0). Model: G ≡ 0, so P(A) = 0, and
  D(i) = 2 as above.
* mcdiarmid proved P(D(i) − E D(i) <= −t) <= exp(−t²/2) from WeightedNorm(D(i), 1/√b, a1(i), b),
  Σc² = 4 R² l2 = 4 as built. Model: y = 1 (radius and l2 undefined); one X_1 uniform on
  {0, 4 e_1}, w_1 = 1, a1(i) = 1: f is uniform on {0, 4}, E f = 2, and at t = 2 the tail is
  P(f = 0) = 1/2 > exp(−2) ≈ 0.135.

Each is beside its true variant, which the kernel accepts (b = y with y > 0, or P(A) > 0 stated).

Which of the three are holes depends on how a stated fact with an ordinary pole is read. A stated
relation with a pole presumes the point away (docs/proof-rules.md: "a hypothesis with 1/y
presumes y != 0"; review 71 kept such a chain as true): read so, y = 1 is no model of the first
and third contexts, and those two statements are true. The second is false under either reading
(a value conditioned on a null event says nothing: reviews 64 and 65). The fix refuses all three:
for a fact it is stricter than for a stated relation.
The fix: both rules read a fact only where its fields are defined wherever the step is
(``proof._fact_defined``, the check a sub-chain's relation gets).

Tried and held (kept below where cheap): a ``BoundedDifferences`` Σc² with a pole (the bound
exp(−2t²/Σc²) keeps it, or is exp(0) = 1 there, which is true); a pole in one field only, with the
other field 0 there (l1 = 0 forces f = 0, so the cancelled bound still holds); a pole in the
fact's radius alone compared with the cancelled step (``_same_poles`` refuses); odd fields
(True, sets, matrices, relations, ∞, zoo, nan, non-commutative symbols, Lambda, Subs, Limit,
Derivative) raise nothing out of ``prove``.
"""

import sympy as sp

from attnbounds.theory.proof import BoundedDifferences, Chain, Cond, Context, Expect, Prob, WeightedNorm, by

D = sp.Function("D")  # random
G = sp.Function("G")  # random
i = sp.Symbol("i")
y = sp.Symbol("y", positive=True)
c = sp.Symbol("c", positive=True)
t = sp.Symbol("t", positive=True)
a1 = sp.Function("a1", nonnegative=True, deterministic=True)
s2 = sp.Function("s2", nonnegative=True, deterministic=True)

B00 = (y**2 - y) / (y - 1)  # y where y != 1; 0/0 at y = 1 (SymPy does not cancel it)
A = sp.Ge(G(i), 5)
BC = Expect(Cond(c, A))  # E[c | A]: c where P(A) > 0, undefined where P(A) = 0

FIELDS = "the definition's fields"  # the refusal's words


def test_the_fields_are_undefined_where_the_product_is_not():
    assert B00.subs(y, 1) is sp.nan and (1 / B00).subs(y, 1) is sp.nan
    assert (1 / B00) * B00 == 1 and 4 * (1 / sp.sqrt(B00)) ** 2 * B00 == 4
    assert (1 / BC) * BC == 1


# ---------------------------------------------------------------- weighted-norm

def _norm_bound(b, extra=None):
    ctx = Context({"s": WeightedNorm(D(i), 1 / b, b, s2(i)), **(extra or {})})
    return Chain(D(i), ctx).le(1, by.weighted_norm("s")).prove(D(i), "<=", 1)


def test_a_weighted_norm_with_fields_1_over_y_and_y_gives_one():
    """True: f <= R l1 = (1/y) y = 1, both fields defined for every y > 0."""
    res = _norm_bound(y)
    assert res.complete, res.first_failure


def test_a_weighted_norm_whose_fields_are_0_over_0_does_not_give_one():
    """False: D(i) <= 1 from WeightedNorm(D(i), 1/b, b, s2(i)), b = (y² − y)/(y − 1). At y = 1 the
    radius and l1 are 0/0, so the fact says nothing of them: one X_1 ≡ e_1, w_1 = 2, s2(i) = 4
    gives f = 2 > 1."""
    res = _norm_bound(B00)
    assert not res.complete
    assert FIELDS in res.first_failure, res.first_failure


def test_a_weighted_norm_through_a_mean_given_an_event_of_positive_probability():
    """True: with P(A) > 0 stated, E[c | A] = c > 0 and R l1 = 1."""
    res = _norm_bound(BC, {"b>0": sp.Gt(BC, 0), "1/b>0": sp.Gt(1 / BC, 0), "P(A)>0": sp.Gt(Prob(A), 0)})
    assert res.complete, res.first_failure


def test_a_weighted_norm_through_a_mean_given_a_null_event_does_not_give_one():
    """False: the same with P(A) not stated. Model: G ≡ 0, so P(A) = 0: E[c | A] is undefined, the
    fact's radius and l1 (and the hypotheses b > 0, 1/b > 0) say nothing, and D(i) = 2 (one
    X_1 ≡ e_1, w_1 = 2, s2(i) = 4) gives 2 > 1."""
    res = _norm_bound(BC, {"b>0": sp.Gt(BC, 0), "1/b>0": sp.Gt(1 / BC, 0)})
    assert not res.complete
    assert FIELDS in res.first_failure, res.first_failure


# ---------------------------------------------------------------- mcdiarmid

def _tail(b):
    ctx = Context({"s": WeightedNorm(D(i), 1 / sp.sqrt(b), a1(i), b)})
    lhs, rhs = Prob(sp.Le(D(i) - Expect(D(i)), -t)), sp.exp(-2 * t**2 / 4)
    return Chain(lhs, ctx).le(rhs, by.mcdiarmid(D(i), t, "s")).prove(lhs, "<=", rhs)


def test_mcdiarmid_with_radius_1_over_sqrt_y_and_l2_y():
    """True: Σc² = 4 R² l2 = 4 (1/y) y = 4 for every y > 0."""
    res = _tail(y)
    assert res.complete, res.first_failure


def test_mcdiarmid_with_0_over_0_fields_does_not_give_sum_c2_four():
    """False: P(f − E f <= −t) <= exp(−t²/2) from WeightedNorm(D(i), 1/√b, a1(i), b), b 0/0 at
    y = 1. There the radius and l2 say nothing: one X_1 uniform on {0, 4 e_1}, w_1 = 1,
    a1(i) = 1 gives f uniform on {0, 4}; at t = 2 the tail is 1/2 > exp(−2)."""
    assert sp.Rational(1, 2) > sp.exp(-2)
    res = _tail(B00)
    assert not res.complete
    assert FIELDS in res.first_failure, res.first_failure


# ---------------------------------------------------------------- held

def test_a_pole_in_bounded_differences_stays_in_the_bound():
    """Σc² = (y² − y)/(y − 1): exp(−2t²/Σc²) keeps the pole, and the cancelled bound is refused."""
    f = D(i)
    ctx = Context({"bd": BoundedDifferences(f, B00)})
    lhs = Prob(sp.Le(f - Expect(f), -t))
    res = Chain(lhs, ctx).le(sp.exp(-2 * t**2 / y), by.mcdiarmid(f, t, "bd")).prove(lhs, "<=", sp.exp(-2 * t**2 / y))
    assert not res.complete


def test_a_pole_in_the_radius_alone_is_not_cancelled_by_the_step():
    """R = (y² − 1)/(y − 1): the step D(i) <= (y + 1) a1(i) is refused (_same_poles)."""
    ctx = Context({"s": WeightedNorm(D(i), (y**2 - 1) / (y - 1), a1(i), s2(i))})
    res = Chain(D(i), ctx).le((y + 1) * a1(i), by.weighted_norm("s")).prove(D(i), "<=", (y + 1) * a1(i))
    assert not res.complete
