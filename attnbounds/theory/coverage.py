"""Multi-head coverage (the paper's Discussion): independence, union bound, worst case.

H heads separate subsets S_h of a top set of N tokens, fractions p_h = |S_h|/N; the coverage is
c = |∪ S_h|/N. Under independent memberships E[c] = 1 − Π(1 − p_h) (inclusion–exclusion);
for any heads max_h p_h ≤ c ≤ min(1, Σ p_h), both attained.

>>> derive_coverage()["paper_example"].expr
124/125
"""

from __future__ import annotations

import functools
import itertools

import sympy as sp

from attnbounds.theory.derivation import Result, is_identity, register
from attnbounds.theory.proof import Chain, Context, Cup, Expect, Indicator, Prob, by

__all__ = ["PAPER_EXAMPLE", "derive_coverage", "h1_chains"]

#: The Discussion's example: H = 3 heads, each separating p = 4/5 of the top set, against 99%.
PAPER_EXAMPLE = {"p": sp.Rational(4, 5), "H": 3, "target": sp.Rational(99, 100)}


@register("H1", "Multi-head coverage: independence, union bound and worst case")
def derive_coverage() -> dict[str, Result]:
    """Exact facts behind H1.

    * inclusion–exclusion under independence: Σ_{∅≠A⊆[H]} (−1)^{|A|+1} Π_{h∈A} p_h = 1 − Π_h (1 − p_h),
      checked for H = 1..5;
    * the paper's example 1 − (1 − 4/5)³ = 124/125 ≥ 99/100;
    * the identical-heads counterexample: coverage 1/2 < 3/4.
    """
    for H in range(1, 6):
        p = sp.symbols(f"p1:{H + 1}")
        incl_excl = sum(
            (-1) ** (len(A) + 1) * sp.Mul(*[p[h] for h in A])
            for r in range(1, H + 1)
            for A in itertools.combinations(range(H), r)
        )
        if not is_identity(incl_excl, 1 - sp.Mul(*[1 - x for x in p])):
            raise AssertionError(f"H1: inclusion-exclusion, H = {H}")
    p_, H_ = sp.symbols("p H", positive=True)
    paper = (1 - (1 - p_) ** H_).subs({p_: PAPER_EXAMPLE["p"], H_: PAPER_EXAMPLE["H"]})
    if not paper - PAPER_EXAMPLE["target"] > 0:
        raise AssertionError("H1: the paper's example")
    return {
        "independent": Result(1 - (1 - p_) ** H_, note="E[coverage] for independent heads, each with fraction p"),
        "union_bound": Result(sp.Min(1, H_ * p_), note="upper bound for any heads; disjoint sets attain it"),
        "worst_case": Result(p_, note="lower bound for any heads; identical sets attain it"),
        "paper_example": Result(paper, maximizer={"p": "4/5", "H": 3}, note=">= 99/100"),
        "counterexample_coverage": Result(sp.Rational(1, 2), maximizer={"masks": [[1, 0], [1, 0]]}),
        "counterexample_rhs": Result(1 - (1 - sp.Rational(1, 2)) ** 2),
    }


@functools.lru_cache(maxsize=1)
def h1_chains() -> dict:
    """Checked chains behind H1: ``"independent"`` (E[c] = 1 − Π_h (1 − p_h) from linearity of
    expectation and independence, any N and H), ``"paper_numbers"`` (1 − (1/5)³ ≥ 99/100),
    ``"union"`` (c ≤ min(1, Σ_h p_h)) and ``"worst"`` (c ≥ p_g for every head g ≤ H, i.e.
    c ≥ max_h p_h), for any heads, any N and H.

    For ``"union"`` and ``"worst"``, fractions of the top set are probabilities of a token U
    drawn uniformly from it (exact: |A|/N = P(U ∈ A)): c = P(U ∈ ⋃_h S_h) and p_h = P(U ∈ S_h),
    written ``Prob(Cup(S(h), (h, 1, H)))`` and ``Prob(S(h))``. Then c ≤ 1 (a probability),
    c ≤ Σ_h p_h (the union bound: subadditivity of counting), and S_g ⊆ ⋃_h S_h gives
    c ≥ p_g (monotonicity; g must be one of the heads, 1 ≤ g ≤ H).

    ``"independent"`` starts from c by its definition, c = (1/N) Σ_i 1[token i is in some
    head's set]: the mean of the finite sum is the sum of the means (``expect-sum``), an
    indicator's mean is its event's probability (``indicator-mean``), P(not missed) = 1 − P(missed)
    (``indicator-algebra``), then independence, P(i missed) = Π_h (1 − p_h), a hypothesis.

    ``"independent_equal_p"`` is the same with p_h = p for every head, ending at 1 − (1 − p)^H.

    >>> {k: c.complete for k, c in h1_chains().items()}  # doctest: +NORMALIZE_WHITESPACE
    {'independent': True, 'independent_equal_p': True, 'paper_numbers': True, 'union': True,
     'worst': True}
    """
    i = sp.Symbol("i", integer=True, positive=True)
    h = sp.Symbol("h", integer=True, positive=True)
    N, H = sp.symbols("N H", integer=True, positive=True)
    p = sp.Function("p")
    missed = sp.Function("missed")  # the event "token i is in no head's set"
    covered = sp.Sum(Indicator(sp.Not(missed(i))) / N, (i, 1, N))  # c = (1/N) Σ_i 1[token i in some head's set]

    def independent(p_h):
        """E[c] = 1 − Π_h (1 − p_h) for head fractions ``p_h`` (p(h), or one p for every head)."""
        prod = sp.Product(1 - p_h, (h, 1, H))
        ctx = Context({"independence": sp.Eq(Prob(missed(i)), prod)})
        return (Chain(Expect(covered), ctx)
                .eq(sp.Sum(Expect(Indicator(sp.Not(missed(i))) / N), (i, 1, N)), by.expect_sum())
                .eq(sp.Sum(Prob(sp.Not(missed(i))) / N, (i, 1, N)), by.indicator_mean())
                .eq(sp.Sum((1 - Prob(missed(i))) / N, (i, 1, N)), by.indicator_algebra())
                .eq(sp.Sum((1 - prod) / N, (i, 1, N)), by.hypothesis("independence"))
                .eq(1 - prod, by.identity()))

    prod = sp.Product(1 - p(h), (h, 1, H))
    ind = independent(p(h))
    q = sp.Symbol("p", nonnegative=True)  # the Discussion's setting: every head separates a fraction p (p = 0 too)
    equal = independent(q).eq(1 - (1 - q) ** H, by.identity())  # Π_{h=1}^{H} (1 − p) = (1 − p)^H
    covered_example = 1 - (1 - PAPER_EXAMPLE["p"]) ** PAPER_EXAMPLE["H"]
    paper = Chain(covered_example).ge(PAPER_EXAMPLE["target"], by.algebra())
    S = sp.Function("S")  # head h's separated set, as the event "U in S_h"
    c = Prob(Cup(S(h), (h, 1, H)))  # the covered fraction |S_1 u ... u S_H| / N
    total = sp.Sum(Prob(S(h)), (h, 1, H))  # sum_h p_h
    union = Chain(c).le(sp.Min(1, total), by.min_max([Chain(c).le(1, by.probability()),
                                                      Chain(c).le(total, by.union_bound())]))
    g = sp.Symbol("g", integer=True, positive=True)  # any one head
    worst = Chain(c, Context({"g<=H": sp.Le(g, H)})).ge(Prob(S(g)), by.union_contains(g))
    return {"independent": ind.prove(Expect(covered), "==", 1 - prod),
            "independent_equal_p": equal.prove(Expect(covered), "==", 1 - (1 - q) ** H),
            "paper_numbers": paper.prove(covered_example, ">=", PAPER_EXAMPLE["target"]),
            "union": union.prove(c, "<=", sp.Min(1, total)),
            "worst": worst.prove(c, ">=", Prob(S(g)))}
