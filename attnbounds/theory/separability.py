"""Theorem 2 (geometric separability): Markov and McDiarmid sides, constants and exact cases.

Setting (``shared/paper/CLAIMS.md``): weights α fixed (independent of the embeddings), I_N the
top-N set, x_i i.i.d. uniform on the sphere of radius M in R^d. For a selected token
i ∈ I_N the per-token distance is

    D_i = ‖α_i x_i − s‖ = ‖Σ_{j∈I_N∖{i}} α_j x_j‖,

a function of the *other* selected embeddings only. N_s = #{i ∈ I_N : D_i ≤ r}, ξ_i = E[D_i],
so E[N_s]/N = (1/N) Σ_i P(D_i ≤ r).

* Lower side (Markov, any r > 0): P(D_i > r) ≤ ξ_i / r, hence E[N_s]/N ≥ 1 − Σ ξ_i/(rN).
* Upper side (McDiarmid): replacing x_j by x_j' moves D_i by at most α_j‖x_j − x_j'‖ ≤ 2Mα_j,
  so for t ≥ 0, P(D_i ≤ ξ_i − t) ≤ exp(−2t²/Σ_j (2Mα_j)²) = exp(−t²/(2M² σ_i²)) with
  σ_i² = Σ_{j∈I_N∖{i}} α_j². This is the *lower* tail: it bounds P(D_i ≤ r) only for r ≤ ξ_i.
  Since σ_i² ≤ 1, 2M²σ_i² ≤ 2M² < 16M²: the summary's constant is valid but loose (by a
  factor ≥ 8) — under the condition r ≤ ξ_i, which the summary omits. For r > ξ_i the
  transcribed right side is < 1 while P(D_i ≤ r) → 1, and the transcription fails.

Exact case d = 3, N ≤ 3 (used to check everything against numbers): the cosine of the angle
between two independent uniform directions in R³ is uniform on [−1, 1], so with the two other
selected weights a, b > 0, D_i = M√(a² + b² + 2ab·t), t ~ U[−1, 1], and

    ξ_i = M((a + b)³ − |a − b|³)/(6ab) = M(3a² + b²)/(3a) (a ≥ b),
    P(D_i ≤ r) = clip(((r/M)² − (a − b)²)/(4ab), 0, 1).

The numpy evaluation of these two formulas is
:func:`attnbounds.numerics.selection.exact_sphere3` (the theory layer holds no numpy kernel).
"""

from __future__ import annotations

import functools
import numbers

import sympy as sp

from attnbounds.theory.derivation import Result, is_identity, register
from attnbounds.theory.proof import Chain, Context, Cup, Expect, Indicator, Lemma, Prob, WeightedNorm, by

__all__ = [
    "M",
    "r",
    "t",
    "markov_lower",
    "mcdiarmid_exponent",
    "transcribed_exponent",
    "derive_separability",
    "t2_chains",
]

M = sp.Symbol("M", positive=True)
r = sp.Symbol("r", positive=True)
t = sp.Symbol("t", nonnegative=True)
xi = sp.Symbol("xi", nonnegative=True)
sigma2 = sp.Symbol("sigma_i^2", nonnegative=True)  # σ_i² = Σ_{j∈I_N∖{i}} α_j² (LaTeX \sigma^{2}_{i})


def markov_lower(n_selected: int | sp.Symbol = sp.Symbol("N", positive=True, integer=True)):
    """Markov's lower side 1 − (1/(rN)) Σ_i ξ_i for ``n_selected`` symbolic ξ's.

    >>> markov_lower(2)
    1 - (xi_1 + xi_2)/(2*r)
    """
    if isinstance(n_selected, sp.Symbol):
        return 1 - sp.Symbol("Sigma_xi", nonnegative=True) / (r * n_selected)
    if isinstance(n_selected, bool) or not isinstance(n_selected, numbers.Integral) or n_selected < 1:
        raise ValueError(f"n_selected: must be an integer >= 1 or a SymPy symbol, got {n_selected!r}")
    xis = sp.symbols(f"xi_1:{n_selected + 1}", nonnegative=True)
    return 1 - sum(xis) / (r * n_selected)


def mcdiarmid_exponent() -> sp.Expr:
    """The lower-tail exponent of P(D_i ≤ ξ_i − t): −2t²/Σ_j (2Mα_j)² = −t²/(2M²σ_i²).

    >>> mcdiarmid_exponent()
    -t**2/(2*M**2*sigma_i^2)
    """
    return -(t**2) / (2 * M**2 * sigma2)


def transcribed_exponent() -> sp.Expr:
    """The summary's exponent −(r − ξ_i)²/(16 M²).

    >>> transcribed_exponent()
    -(r - xi)**2/(16*M**2)
    """
    return -((r - xi) ** 2) / (16 * M**2)


def mcdiarmid_ratio_at_least(bound=8, alphas=None) -> bool:
    """Check with the proof kernel that 16M²/(2M²σ²) = 8/σ² ≥ 8, where σ² = Σ α_j² > 0 over
    (here three) selected weights with α_j ≥ 0 and Σ α_j ≤ 1 (so σ² ≤ Σ α_j ≤ 1).

    >>> mcdiarmid_ratio_at_least(8), mcdiarmid_ratio_at_least(9)  # 8 is attained at sigma^2 = 1
    (True, False)
    """
    from attnbounds.theory.proof import Chain, Context, Lemma, by

    a = sp.symbols("alpha_1:4", nonnegative=True) if alphas is None else alphas
    s2 = sum(x**2 for x in a)
    ctx = Context({"weights": tuple(x <= 1 for x in a) + (sum(a) <= 1,)})
    s2_le_1 = (Chain(s2, ctx)
               .le(sum(a), by.termwise(pairs=[(x**2, x) for x in a]))
               .le(1, by.hypothesis("weights")))
    # sigma^2 > 0 (some other selected token has weight): for sigma^2 = 0 the ratio is undefined
    ctx = ctx.extended({"sigma2<=1": Lemma(s2_le_1, s2, "<=", 1), "sigma2>0": s2 > 0})
    ratio = (16 * M**2) / (2 * M**2 * s2)
    chain = Chain(ratio, ctx).eq(8 / s2, by.identity()).ge(bound, by.algebra())
    return chain.prove(ratio, ">=", bound).complete


@register("T2", "Theorem 2: separability, Markov lower side and McDiarmid upper side")
def derive_separability() -> dict[str, Result]:
    """Constants and conditions of Theorem 2, with exact checks.

    * bounded difference c_j = 2Mα_j; McDiarmid exponent −2t²/Σc_j² = −t²/(2M²σ_i²) (identity);
    * ratio transcribed/derived denominators 16M²/(2M²σ_i²) = 8/σ_i² ≥ 8 since σ_i² ≤ 1;
    * the upper side needs r ≤ ξ_i (t = ξ_i − r ≥ 0); the corrected term is
      exp(−((ξ_i − r)₊)²/(2M²σ_i²));
    * the exact d = 3 mean ξ = M((a+b)³ − (a−b)³)/(6ab) (a ≥ b) from ∫_{−1}^{1} √(a²+b²+2abt) dt/2;
    * the counterexamples N = 1: D = 0, ξ = 0, E[N_s]/N = 1 > exp(−r²/(16M²)) with the paper's
      count at weights (3/4, 1/4), r = 1/4, M = 1, and with the selected-only count at weights
      (1/2, 1/2), r = M = 1.
    """
    alphas = sp.symbols("alpha_1:4", nonnegative=True)
    c = [2 * M * a for a in alphas]
    exponent = -2 * t**2 / sum(cj**2 for cj in c)
    # Rational identity: the numerator of the difference over a common denominator expands to 0.
    difference = sp.together(exponent - mcdiarmid_exponent().subs(sigma2, sum(a**2 for a in alphas)))
    if not is_identity(sp.numer(difference)):
        raise AssertionError("T2: McDiarmid exponent")
    ratio = sp.cancel((16 * M**2) / (2 * M**2 * sigma2))
    # ratio >= 8: sigma_i^2 = sum of squared weights <= sum of weights <= 1 (a_j^2 <= a_j for
    # 0 <= a_j <= 1), then 8/sigma^2 - 8 = 8(1 - sigma^2)/sigma^2 >= 0; both chains are checked
    if not mcdiarmid_ratio_at_least(8):
        raise AssertionError("T2: the McDiarmid ratio 8/sigma^2 >= 8 did not check")
    a, b, tt = sp.symbols("a b tt", positive=True)
    # ∫ √(a²+b²+2ab t) dt = (a²+b²+2ab t)^{3/2}/(3ab); check by differentiation.
    antider = (a**2 + b**2 + 2 * a * b * tt) ** sp.Rational(3, 2) / (3 * a * b)
    if not is_identity(sp.diff(antider, tt), sp.sqrt(a**2 + b**2 + 2 * a * b * tt)):
        raise AssertionError("T2: antiderivative")
    # At t = ±1 the square root is a + b and |a − b|; for a ≥ b the mean is ((a+b)³ − (a−b)³)/(6ab).
    xi_exact = M * ((a + b) ** 3 - (a - b) ** 3) / (6 * a * b)
    if not is_identity(sp.numer(sp.together(xi_exact - M * (3 * a**2 + b**2) / (3 * a)))):
        raise AssertionError("T2: exact mean")
    # the paper's count: N = 1 (D_1 = xi_1 = 0), weights (3/4, 1/4), M = 1, r = 1/4: the non-selected
    # D_2 = |x_2/4 - 3 x_1/4| >= 1/2 > r surely, so E[N_s]/N = 1; the selected-only count: weights
    # (1/2, 1/2), r = M = 1, where E[N_s^sel]/N = 1 too (D_1 = 0 <= r)
    cx_rhs = sp.exp(transcribed_exponent().subs({r: sp.Rational(1, 4), xi: 0, M: 1}))
    cx_rhs_sel = sp.exp(transcribed_exponent().subs({r: 1, xi: 0, M: 1}))
    if not (cx_rhs < 1 and cx_rhs_sel < 1):
        raise AssertionError("T2: the counterexamples' right sides")
    return {
        "bounded_difference": Result(2 * M * sp.Symbol("alpha_j"), note="|D_i(x) - D_i(x')| <= alpha_j |x_j - x_j'|"),
        "mcdiarmid_exponent": Result(mcdiarmid_exponent(), note="lower tail, t = xi_i - r >= 0"),
        "transcribed_exponent": Result(transcribed_exponent()),
        "denominator_ratio": Result(ratio, note="16M^2 / (2M^2 sigma_i^2) >= 8 since sigma_i^2 <= 1"),
        "markov_lower": Result(markov_lower(), note="needs r > 0"),
        "upper_condition": Result(sp.Le(r, xi), note="needed for the summary's upper side"),
        "corrected_upper_term": Result(
            sp.exp(-(sp.Max(xi - r, 0) ** 2) / (2 * M**2 * sigma2)), note="valid for every r >= 0"
        ),
        "exact_xi_sphere3": Result(xi_exact, note="d = 3, two other selected weights a >= b > 0"),
        "counterexample_rhs": Result(cx_rhs, maximizer={"weights": "(3/4, 1/4)", "N": 1, "d": 1, "M": 1, "r": "1/4"},
                                     note="< 1 = E[N_s]/N (the paper's N_s: the non-selected token stays outside)"),
        "counterexample_rhs_selected": Result(cx_rhs_sel, maximizer={"weights": "(1/2, 1/2)", "N": 1, "d": 1, "M": 1,
                                                                     "r": 1},
                                              note="< 1 = E[N_s^sel]/N (the selected-only count)"),
    }


@functools.lru_cache(maxsize=1)
def t2_chains() -> dict:
    """Chains (:mod:`attnbounds.theory.proof`) behind Theorem 2's readings.

    The upper sides, for every r ≥ 0, with the (ξ_i − r)₊ forms:

    * ``"mcdiarmid"``: E[N_s]/N ≤ (1/N) Σ_i exp(−((ξ_i − r)₊)²/(2M²σ_i²)), from McDiarmid with
      Σ_j c_j² = 4M²σ_i²; ``"mcdiarmid_selected"``: the same for E[N_s^sel]/N;
    * ``"hoeffding"``: the same with 2M², from Hoeffding for one variable with range [0, 2M].

    They start from the counts by their definitions: N_s ≤ N_s^sel at every outcome
    (``indicator-order``, ``termwise``, ``expect-monotone``), E[N_s^sel]/N = (1/N) Σ_i P(D_i ≤ r)
    (``expect-sum``, ``indicator-mean``). Each token's term is a case split on ξ_i − r (rule
    ``cases``): when ξ_i > r, P(D_i ≤ r) = P(D_i − ξ_i ≤ −(ξ_i − r)) (``indicator-algebra``) and the
    tail bound with t = ξ_i − r; when ξ_i ≤ r, the term is exp(0) = 1 ≥ P(D_i ≤ r) (``probability``).
    The tail bounds read the setting, stated as a :class:`~attnbounds.theory.proof.WeightedNorm`
    (``sphere_iid``: D_i = ‖Σ_{j∈I_N∖{i}} α_j x_j‖, x_j independent with ‖x_j‖ = M, σ1_i = Σ_{j≠i} α_j,
    σ_i² = Σ_{j≠i} α_j²) and the weights' total (``weights``: σ1_i ≤ 1): McDiarmid's c_j = 2Mα_j
    come from the rule ``mcdiarmid`` on the weighted norm (whose form divides by σ_i², declared
    positive there), 0 ≤ D_i ≤ Mσ1_i ≤ 2M from the rule ``weighted-norm`` (Hoeffding's chains
    declare σ_i² only non-negative: they cover N = 1).

    * ``"conditioned"``: E[N_s]/N ≤ (1/N) Σ_i exp(−(r − ξ_i)²/(16M²)) when 0 ≤ r ≤ ξ_i for every i
      (the hypothesis ``r<=xi``): where ξ_i > r, Hoeffding as above and 2M² ≤ 16M² (the exponent
      increases in its denominator); where ξ_i = r, the term is exp(0) = 1;
    * ``"markov_terms"``: 1 − Σ_i ξ_i/(rN) ≤ (1/N) Σ_i (1 − P(D_i > r)), from Markov per token,
      and ``"markov"``: the same ≤ E[N_s^sel]/N, with N_s^sel = Σ_i 1[D_i ≤ r] by its definition:
      P(D_i > r) = 1 − P(D_i ≤ r) (``indicator-algebra``), an indicator's mean is its event's
      probability (``indicator-mean``), the mean of a finite sum (``expect-sum``);
    * ``"union"``: with the paper's N_s = Σ_i 1[D_i ≤ r and no non-selected D'_j ≤ r], 1 − Σ_i
      ξ_i/(rN) − Σ_{j=1}^{K} P(D'_j ≤ r) ≤ E[N_s]/N for the K = L − N non-selected distances
      D'_j, from Markov per selected token (as ``"markov"``), the union bound P(∃j: D'_j ≤ r) ≤
      Σ_j P(D'_j ≤ r), and the count in expectation: 1[A_i and not B] ≥ 1[A_i] − 1[B] at every
      outcome (``indicator-order``), summed over i and averaged (``expect-monotone``), with
      E[(1/N) Σ_i (1[A_i] − 1[B])] = (1/N) Σ_i P(D_i ≤ r) − P(B) (``expect-sum``,
      ``indicator-mean``).

    Every chain is complete, and none assumes a premise:

    >>> {k: c.complete for k, c in t2_chains().items()}  # doctest: +NORMALIZE_WHITESPACE
    {'mcdiarmid': True, 'mcdiarmid_selected': True, 'hoeffding': True, 'union': True,
     'conditioned': True, 'markov': True, 'markov_terms': True}
    >>> [k for k, c in t2_chains().items() if c.assumed]
    []
    """
    i = sp.Symbol("i", integer=True, positive=True)
    N = sp.Symbol("N", integer=True, positive=True)
    M, r = sp.symbols("M r", positive=True)
    u, v = sp.symbols("u v", positive=True)
    # D_i is random; t_i, σ1_i = Σ_{j∈I_N∖{i}} α_j and σ_i² are numbers indexed by the token
    D = sp.Function("D", real=True)
    t = sp.Function("t", real=True, deterministic=True)
    s2 = sp.Function("sigma2", positive=True, deterministic=True)
    s1 = sp.Function("sigma1", nonnegative=True, deterministic=True)
    xi = Expect(D(i))
    j = sp.Symbol("j", integer=True, positive=True)
    K = sp.Symbol("K", integer=True, positive=True)  # K = L - N non-selected tokens
    Dout = sp.Function("D_out")  # their distances D'_j = |alpha_j x_j - s|
    def counts(radius):
        """The events and the counts by their definitions, over N, for a ball of ``radius``:
        selected token i inside, some non-selected token inside, N_s^sel/N = (1/N) Σ_i 1[D_i <= r]
        and N_s/N = (1/N) Σ_i 1[D_i <= r and no non-selected D'_j <= r]."""
        ins = sp.Le(D(i), radius)
        any_out = Cup(sp.Le(Dout(j), radius), (j, 1, K))
        return (ins, any_out, sp.Sum(Indicator(ins) / N, (i, 1, N)),
                sp.Sum(Indicator(sp.And(ins, sp.Not(any_out))) / N, (i, 1, N)))

    inside, some, count_sel, count = counts(r)  # the Markov sides need r > 0
    in_probs = sp.Sum(Prob(inside) / N, (i, 1, N))
    # the setting: D_i = ‖Σ_{j∈I_N∖{i}} α_j x_j‖, x_j independent with ‖x_j‖ = M, α fixed; the
    # weights sum to 1, so the other selected ones to at most 1. Hoeffding's chains let σ_i² be 0
    # (N = 1, or the other selected weights 0); McDiarmid's form divides by σ_i², so its chain
    # takes σ_i² > 0 (s2 positive) and needs neither the weights' total nor the range
    s2_any = sp.Function("sigma2", nonnegative=True, deterministic=True)
    setting = {"sphere_iid": WeightedNorm(D(i), M, s1(i), s2_any(i)), "weights": sp.Le(s1(i), 1)}
    wn = {"sphere_iid": WeightedNorm(D(i), M, s1(i), s2(i))}
    # Hoeffding: one variable with range [0, 2M] (weighted-norm: 0 <= D_i <= M sigma1_i <= M <= 2M)
    low = Chain(D(i)).ge(0, by.weighted_norm("sphere_iid"))
    high = Chain(D(i)).le(M * s1(i), by.weighted_norm("sphere_iid")).le(M, by.algebra()).le(2 * M, by.algebra())
    # Markov, selected-only count
    mk_ctx = Context({"D>=0": sp.Ge(D(i), 0)})
    markov = Chain(Prob(sp.Gt(D(i), r)), mk_ctx).le(xi / r, by.markov(D(i), r))
    mctx = Context({"markov": Lemma(markov, Prob(sp.Gt(D(i), r)), "<=", xi / r), "D>=0": sp.Ge(D(i), 0)})
    start = 1 - sp.Sum(xi, (i, 1, N)) / (r * N)
    goal = sp.Sum((1 - Prob(sp.Gt(D(i), r))) / N, (i, 1, N))
    term = Chain((1 - xi / r) / N, mctx).le((1 - Prob(sp.Gt(D(i), r))) / N,
                                            by.monotone(u, (1 - u) / N, xi / r, Prob(sp.Gt(D(i), r))))
    lower = (Chain(start, mctx)
             .eq(sp.Sum((1 - xi / r) / N, (i, 1, N)), by.identity())
             .le(goal, by.termwise(i, 1, N, term=term)))
    # the paper's N_s: minus the chance that some non-selected token falls inside the ball
    p_out = sp.Sum(Prob(sp.Le(Dout(j), r)), (j, 1, K))
    some_in = Prob(some)  # P(some non-selected D'_j <= r)
    sel = goal  # E[N_s^sel]/N = (1/N) sum_i P(D_i <= r) = (1/N) sum_i (1 - P(D_i > r)), checked below
    # pointwise, 1[A_i and not B] >= 1[A_i] - 1[B] (at every value of the two events), summed over i
    lose = sp.Sum((Indicator(inside) - Indicator(some)) / N, (i, 1, N))
    per_token = Chain((Indicator(inside) - Indicator(some)) / N).le(Indicator(sp.And(inside, sp.Not(some))) / N,
                                                                      by.indicator_order())
    markov_sum = Chain(sp.Sum((1 - xi / r) / N, (i, 1, N)), mctx).le(goal, by.termwise(i, 1, N, term=term))
    union_start = start - p_out
    union = (Chain(union_start, mctx)
             .eq(sp.Sum((1 - xi / r) / N, (i, 1, N)) - p_out, by.identity())
             .le(sel - p_out, by.termwise(pairs=[(sp.Sum((1 - xi / r) / N, (i, 1, N)), sel), (-p_out, -p_out)],
                                          term=[markov_sum, None]))
             .le(sel - some_in, by.monotone_chain(u, sel - u, p_out, some_in,
                                                  term=Chain(some_in, mctx).le(p_out, by.union_bound())))
             .eq(in_probs - some_in, by.indicator_algebra())
             .eq(sp.Sum(Expect((Indicator(inside) - Indicator(some)) / N), (i, 1, N)), by.indicator_mean())
             .eq(Expect(lose), by.expect_sum())
             .le(Expect(count), by.expect_monotone(Chain(lose, mctx).le(count, by.termwise(i, 1, N, term=per_token)))))
    # the selected-only count in expectation: E[N_s^sel]/N = (1/N) Σ_i P(D_i <= r)
    selected = (lower
                .eq(in_probs, by.indicator_algebra())
                .eq(sp.Sum(Expect(Indicator(inside) / N), (i, 1, N)), by.indicator_mean())
                .eq(Expect(count_sel), by.expect_sum()))
    # the upper sides, for every r >= 0: per token, a case split on ξ_i − r (rule cases): when
    # ξ_i > r, McDiarmid (Hoeffding) with t = ξ_i − r; when ξ_i <= r, the term is exp(0) = 1 >= P(D_i <= r)
    rn = sp.Symbol("r", nonnegative=True)
    gap = xi - rn  # ξ_i − r, non-random
    inside_n, some_n, count_sel_n, count_n = counts(rn)
    P = Prob(inside_n)
    tail_n = Prob(sp.Le(D(i) - xi, -gap))  # = P, by indicator-algebra
    # P/N <= 1/N, the case ξ_i <= r of every upper side
    at_most_1 = Chain(P / N).le(1 / N, by.monotone_chain(u, u / N, P, 1, term=Chain(P).le(1, by.probability())))

    def averaged(target, pos, nonpos, ctx, selected=False):
        """E[N_s]/N (E[N_s^sel]/N with ``selected``) <= Σ_i target_i, from the per-token cases
        P(D_i <= r)/N <= target_i (``pos``: ξ_i > r, ``nonpos``: ξ_i <= r): N_s <= N_s^sel at every
        outcome, E[N_s^sel]/N = (1/N) Σ_i P(D_i <= r), then termwise."""
        term = Chain(P / N).le(target, by.cases(gap, pos=pos, nonpos=nonpos))
        start = Expect(count_sel_n if selected else count_n)
        chain = Chain(start, Context(ctx))
        if not selected:  # N_s <= N_s^sel at every outcome, so in expectation
            fewer = Chain(Indicator(sp.And(inside_n, sp.Not(some_n))) / N).le(Indicator(inside_n) / N,
                                                                              by.indicator_order())
            chain = chain.le(Expect(count_sel_n), by.expect_monotone(
                Chain(count_n).le(count_sel_n, by.termwise(i, 1, N, term=fewer))))
        end = sp.Sum(target, (i, 1, N))
        chain = (chain
                 .eq(sp.Sum(Expect(Indicator(inside_n) / N), (i, 1, N)), by.expect_sum())
                 .eq(sp.Sum(P / N, (i, 1, N)), by.indicator_mean())
                 .le(end, by.termwise(i, 1, N, term=term)))
        return chain.prove(start, "<=", end)

    def tail_to(raw, tail_step):
        """P(D_i <= r)/N = P(D_i − ξ_i <= −(ξ_i − r))/N <= raw/N, the tail bound ``tail_step``."""
        return (Chain(P / N)
                .eq(tail_n / N, by.indicator_algebra())
                .le(raw / N, by.monotone_chain(u, u / N, tail_n, raw, term=Chain(tail_n).le(raw, tail_step))))

    def positive_part(denominator, tail_step, ctx, selected=False):
        """The (ξ_i − r)₊ forms: E[N_s]/N (E[N_s^sel]/N) <= (1/N) Σ_i exp(−((ξ_i − r)₊)²/denominator_i);
        ``tail_step``: the By of P(D_i − ξ_i <= −(ξ_i − r)) <= exp(−2(ξ_i − r)²/(2·denominator_i))."""
        pos = (tail_to(sp.exp(-2 * gap**2 / (2 * denominator)), tail_step)
               .eq(sp.exp(-gap**2 / denominator) / N, by.identity()))
        return averaged(sp.exp(-sp.Max(gap, 0) ** 2 / denominator) / N, pos, at_most_1, ctx, selected)

    def transcribed_form():
        """E[N_s]/N <= (1/N) Σ_i exp(−(r − ξ_i)²/(16M²)) when r <= ξ_i for every i (``r<=xi``), r >= 0:
        per token, a case split on ξ_i − r: when ξ_i > r, Hoeffding on [0, 2M], exp(−t²/(2M²)), then
        2M² <= 16M² (the exponent increases in its denominator; no σ_i² is involved, so σ_i² = 0
        is covered); when ξ_i <= r, the hypothesis makes ξ_i = r and the term exp(0) = 1 (rule
        monotone between 0 and ξ_i − r, where w <= 0 and r <= ξ_i leave only w = 0)."""
        w = sp.Symbol("w", real=True)
        # in v > 0, exp(−t_i²/(v M²)) increases; t_i = ξ_i − r names the gap as a real number (E[D_i]
        # is only known to be extended real, and t_i² >= 0 needs a real t_i)
        g_v = sp.exp(-t(i) ** 2 / (v * M**2)) / N
        g_w = sp.exp(-w**2 / (16 * M**2)) / N  # increasing in w <= 0
        target = sp.exp(-(rn - xi) ** 2 / (16 * M**2)) / N
        pos = (tail_to(sp.exp(-2 * gap**2 / (2 * M) ** 2), plus_h)
               .eq(g_v.subs(v, 2), by.hypothesis("definition:t=xi-r"))
               .le(g_v.subs(v, 16), by.monotone(v, g_v, 2, 16))
               .eq(target, by.hypothesis("definition:t=xi-r")))
        nonpos = at_most_1.le(g_w.subs(w, gap), by.monotone(w, g_w, 0, gap)).eq(target, by.identity())
        ctx = {**setting, "r<=xi": sp.Le(rn, xi), "definition:t=xi-r": sp.Eq(t(i), gap)}
        return averaged(target, pos, nonpos, ctx)

    plus_mc = by.mcdiarmid(D(i), gap, "sphere_iid")
    plus_h = by.hoeffding(D(i), gap, 0, 2 * M, low=low, high=high)
    return {
        "mcdiarmid": positive_part(2 * M**2 * s2(i), plus_mc, wn),
        "mcdiarmid_selected": positive_part(2 * M**2 * s2(i), plus_mc, wn, selected=True),
        "hoeffding": positive_part(2 * M**2, plus_h, setting),
        "union": union.prove(union_start, "<=", Expect(count)),
        "conditioned": transcribed_form(),
        "markov": selected.prove(start, "<=", Expect(count_sel)),
        "markov_terms": lower.prove(start, "<=", goal),
    }

