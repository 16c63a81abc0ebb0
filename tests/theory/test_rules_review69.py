"""Review 69 of the kernel: the per-argument caches (``_kept``, ``_equal_apart``) and the
``hypothesis`` rule's structural substitution, and declarations in the context's facts.

One hole, in two rules, closed: a fact (``WeightedNorm``, ``BoundedDifferences``) is part of the
statement, but its fields were never checked for a binder declared with what its range does not
give. ``_misdeclared_statement`` read the sides and ``ctx.relations()`` only, and a fact is no
relation; ``check_steps`` checks only each step's sides; and the rules read the fields through
``_nonnegative``, which relies on the statement check. It now reads the facts' fields too. SymPy reads the bound variable's declaration
as a fact when it builds the field: Σ_{k=−1}^{−1} (|k| − k + 1) with k declared positive is built
as Σ_{k=−1}^{−1} 1 = 1, though as written it is |−1| + 1 + 1 = 3. The same sum in a relation is
refused (kept below); in a fact the kernel read the radius (or Σc_j²) as 1:

* weighted-norm proved D(i) <= a1(i) from a weighted norm with ‖X_j‖ <= 3 (one X_1 with
  ‖X_1‖ = 3, w_1 = 1: f = 3, l1 = 1, l2 = 1, so D(i) = 3 > 1 = a1(i));
* mcdiarmid proved P(f − E f <= −t) <= exp(−2t²) from bounded differences with Σc_j² = 3
  (f uniform on {0, √3}, t = √3/2: the tail is 1/2 > exp(−3/2)).

The step sides hold no binder at all (D(i) <= a1(i)): ``is_identity`` evaluates the fact's sum.

Also kept: the caches give each declaration its own answer (a MinOver whose Lambda variable is
declared negative is refused after its integer twin was accepted: SymPy's Lambda compares
declarations, unlike Subs), and a Subs in a hypothesis is refused after its plain twin was
accepted (SymPy calls the two hypotheses equal; the statement check reads every relation).
"""

import sympy as sp

from attnbounds.theory.proof import (BoundedDifferences, Chain, Context, Expect, MinOver, Prob, WeightedNorm, by)

D = sp.Function("D")  # random
i = sp.Symbol("i")
a1 = sp.Function("a1", nonnegative=True, deterministic=True)
s2 = sp.Function("s2", nonnegative=True, deterministic=True)
t = sp.Symbol("t", positive=True)
k = sp.Symbol("k", integer=True)
kp = sp.Symbol("k", integer=True, positive=True)

# Σ_{k=−1}^{−1} (|k| − k + 1) = 3; with k declared positive SymPy builds it as Σ_{k=−1}^{−1} 1 = 1
THREE = sp.Sum(sp.Abs(k) - k + 1, (k, -1, -1))
MISDECLARED_THREE = sp.Sum(sp.Abs(kp) - kp + 1, (kp, -1, -1))

MISDECLARED = "is declared with an assumption its range does not give"


def test_the_misdeclared_sum_is_built_as_one():
    assert MISDECLARED_THREE == sp.Sum(1, (kp, -1, -1))
    assert THREE.doit() == 3


# ---------------------------------------------------------------- weighted-norm

def _norm_bound(radius, rhs):
    ctx = Context({"setting": WeightedNorm(D(i), radius, a1(i), s2(i))})
    return Chain(D(i), ctx).le(rhs, by.weighted_norm("setting")).prove(D(i), "<=", rhs)


def test_a_weighted_norm_with_radius_three_gives_three_l1():
    """True: f <= R l1 with R = Σ_{k=−1}^{−1} (|k| − k + 1) = 3, k only an integer."""
    res = _norm_bound(THREE, 3 * a1(i))
    assert res.complete, res.first_failure


def test_a_weighted_norm_with_a_misdeclared_radius_does_not_give_l1():
    """False: D(i) <= a1(i) where the definition's radius is 3 as written (k declared positive
    over −1..−1; SymPy built the sum as Σ 1). Model: one X_1 with ‖X_1‖ = 3, w_1 = 1."""
    res = _norm_bound(MISDECLARED_THREE, a1(i))
    assert not res.complete
    assert MISDECLARED in res.first_failure, res.first_failure


# ---------------------------------------------------------------- mcdiarmid

def _tail(sum_c2, denominator):
    f = D(i)
    ctx = Context({"bd": BoundedDifferences(f, sum_c2)})
    lhs, rhs = Prob(sp.Le(f - Expect(f), -t)), sp.exp(-2 * t**2 / denominator)
    return Chain(lhs, ctx).le(rhs, by.mcdiarmid(f, t, "bd")).prove(lhs, "<=", rhs)


def test_mcdiarmid_with_sum_c2_three():
    """True: P(f − E f <= −t) <= exp(−2t²/3) for Σc_j² = 3."""
    res = _tail(THREE, 3)
    assert res.complete, res.first_failure


def test_mcdiarmid_with_a_misdeclared_sum_c2_is_not_read_as_one():
    """False: P(f − E f <= −t) <= exp(−2t²) where Σc_j² is 3 as written (f uniform on {0, √3},
    t = √3/2: the tail is 1/2 > exp(−3/2))."""
    res = _tail(MISDECLARED_THREE, 1)
    assert not res.complete
    assert MISDECLARED in res.first_failure, res.first_failure


# ---------------------------------------------------------------- correct refusals, kept

def test_the_same_misdeclared_sum_in_a_relation_is_refused():
    """The relation D(i) <= Σ (|k| − k + 1) a1(i), k positive, is refused where the fact was not."""
    ctx = Context({"r": sp.Le(D(i), MISDECLARED_THREE * a1(i))})
    res = Chain(D(i), ctx).le(a1(i), by.hypothesis("r")).prove(D(i), "<=", a1(i))
    assert not res.complete
    assert MISDECLARED in res.first_failure, res.first_failure


def test_a_minover_is_judged_by_its_own_variables_declaration_after_its_twin():
    """min_{k=1..n} (−k) <= −1 with k an integer is true; with k declared negative SymPy builds
    min_k √(k²) as min_k (−k), so the same chain would prove min_k √(k²) <= −1. The kept answer for
    the first must not serve the second (SymPy's Lambda, unlike Subs, compares declarations)."""
    n = sp.Symbol("n", integer=True, positive=True)
    kn = sp.Symbol("k", integer=True, negative=True)
    good = MinOver(sp.Lambda(k, -k), n)
    bad = MinOver(sp.Lambda(kn, sp.sqrt(kn**2)), n)
    assert good != bad
    ok = Chain(good).le(-1, by.extremum(good, 1)).prove(good, "<=", -1)
    assert ok.complete, ok.first_failure
    res = Chain(bad).le(-1, by.extremum(bad, 1)).prove(bad, "<=", -1)
    assert not res.complete
    assert MISDECLARED in res.first_failure, res.first_failure


def test_a_subs_in_a_hypothesis_is_judged_after_its_plain_twin():
    """c = Subs(t, t, −1) gives c = −1; c = Subs(√(t²), t, −1) with t positive is built as the same
    Subs (SymPy calls the two hypotheses equal) but says c = 1 as written: refused, after the first."""
    c = sp.Symbol("c", real=True)
    tt, tp = sp.Symbol("t"), sp.Symbol("t", positive=True)
    plain, declared = sp.Eq(c, sp.Subs(tt, tt, -1)), sp.Eq(c, sp.Subs(sp.sqrt(tp**2), tp, -1))
    assert plain == declared

    def run(h):
        return (Chain(c, Context({"h": h})).eq(sp.Subs(tt, tt, -1), by.hypothesis("h")).eq(-1, by.identity())
                .prove(c, "=", -1))

    assert run(plain).complete
    res = run(declared)
    assert not res.complete
    assert MISDECLARED in res.first_failure, res.first_failure
