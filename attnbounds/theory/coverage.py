"""Multi-head coverage (the paper's Discussion): independence, union bound, worst case.

H heads separate subsets S_h of a top set of N tokens, fractions p_h = |S_h|/N; the coverage is
c = |∪ S_h|/N. Under independent memberships E[c] = 1 − Π(1 − p_h) (inclusion–exclusion);
for any heads max_h p_h ≤ c ≤ min(1, Σ p_h), both attained.

>>> derive_coverage()["paper_example"].expr
124/125
"""

from __future__ import annotations

import itertools

import sympy as sp

from attnbounds.theory.derivation import Result, is_identity, register

__all__ = ["derive_coverage"]


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
    paper = (1 - (1 - p_) ** H_).subs({p_: sp.Rational(4, 5), H_: 3})
    if not paper - sp.Rational(99, 100) > 0:
        raise AssertionError("H1: the paper's example")
    return {
        "independent": Result(1 - (1 - p_) ** H_, note="E[coverage] for independent heads, each with fraction p"),
        "union_bound": Result(sp.Min(1, H_ * p_), note="upper bound for any heads; disjoint sets attain it"),
        "worst_case": Result(p_, note="lower bound for any heads; identical sets attain it"),
        "paper_example": Result(paper, maximizer={"p": "4/5", "H": 3}, note=">= 99/100"),
        "counterexample_coverage": Result(sp.Rational(1, 2), maximizer={"masks": [[1, 0], [1, 0]]}),
        "counterexample_rhs": Result(1 - (1 - sp.Rational(1, 2)) ** 2),
    }
