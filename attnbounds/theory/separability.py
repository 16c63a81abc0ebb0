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
from attnbounds.theory.proof import Assumed, BoundedDifferences, Chain, Context, Cup, Expect, Indicator, Lemma, Prob, by

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


#: The premises of Theorem 2's chains that are argued on the claim's page, not checked by a rule
#: (:class:`~attnbounds.theory.proof.Assumed`): a chain that uses one is argued, so its reading is at most ``holds``.
_BOUNDED_WHY = ("bounded differences c_j = 2 M alpha_j: replacing x_j by x_j' changes D_i by at most "
                "alpha_j |x_j - x_j'| <= 2 M alpha_j (reverse triangle inequality), so sum_j c_j^2 = 4 M^2 sigma_i^2")
_SIGMA_WHY = "sigma_i^2 = sum_{j != i} alpha_j^2 <= (sum_j alpha_j)^2 <= 1 for weights on the simplex"
_RANGE_WHY = "D_i lies in [0, 2M] (a norm of weighted points of the sphere of radius M, weights summing to at most 1)"


@functools.lru_cache(maxsize=1)
def t2_chains() -> dict:
    """Chains (:mod:`attnbounds.theory.proof`) behind Theorem 2's readings.

    Per token, t_i = ξ_i − r > 0 and P(D_i ≤ r) = P(D_i − ξ_i ≤ −t_i):

    * ``"mcdiarmid"``: E[N_s]/N ≤ (1/N) Σ_i exp(−t_i²/(2M²σ_i²)), from McDiarmid with Σ_j c_j² = 4M²σ_i²
      and N_s ≤ N_s^sel (averaged with ``termwise``; below);
    * ``"conditioned"``: the same with 16M², since exp(−t²/(2M²v)) increases in v and σ_i² ≤ 1 ≤ 8;
    * ``"hoeffding"``: the same with 2M², from Hoeffding for one variable with range [0, 2M];
    * ``"markov_terms"``: 1 − Σ_i ξ_i/(rN) ≤ (1/N) Σ_i (1 − P(D_i > r)), from Markov per token,
      and ``"markov"``: the same ≤ E[N_s^sel]/N, with N_s^sel = Σ_i 1[D_i ≤ r] by its definition:
      P(D_i > r) = 1 − P(D_i ≤ r) (``indicator-algebra``), an indicator's mean is its event's
      probability (``indicator-mean``), the mean of a finite sum (``expect-sum``);
    * ``"trivial"``: P(D_i ≤ r) ≤ 1 (the case r ≥ ξ_i of the (ξ_i − r)₊ forms);
    * ``"union"``: with the paper's N_s = Σ_i 1[D_i ≤ r and no non-selected D'_j ≤ r], 1 − Σ_i
      ξ_i/(rN) − Σ_{j=1}^{K} P(D'_j ≤ r) ≤ E[N_s]/N for the K = L − N non-selected distances
      D'_j, from Markov per selected token (as ``"markov"``), the union bound P(∃j: D'_j ≤ r) ≤
      Σ_j P(D'_j ≤ r), and the count in expectation: 1[A_i and not B] ≥ 1[A_i] − 1[B] at every
      outcome (``indicator-order``), summed over i and averaged (``expect-monotone``), with
      E[(1/N) Σ_i (1[A_i] − 1[B])] = (1/N) Σ_i P(D_i ≤ r) − P(B) (``expect-sum``,
      ``indicator-mean``).

    The McDiarmid and Hoeffding chains start from the counts by their definitions too: N_s ≤
    N_s^sel at every outcome (``indicator-order``, ``termwise``, ``expect-monotone``), E[N_s^sel]/N
    = (1/N) Σ_i P(D_i ≤ r) (``expect-sum``, ``indicator-mean``), and P(D_i ≤ r) = P(D_i − ξ_i ≤ −t_i)
    with the definition t_i = ξ_i − r (``indicator-algebra``, ``hypothesis``);
    ``"mcdiarmid_selected"`` is the selected-only count's. Their per-token tail bounds use premises
    the claim's page argues in prose (:class:`~attnbounds.theory.proof.Assumed`): McDiarmid's
    bounded differences, σ_i² ≤ 1 and the range [0, 2M]. The other chains are complete:

    >>> {k: c.complete for k, c in t2_chains().items()}  # doctest: +NORMALIZE_WHITESPACE
    {'trivial': True, 'union': True, 'mcdiarmid': False, 'mcdiarmid_selected': False,
     'conditioned': False, 'hoeffding': False, 'markov': True, 'markov_terms': True}
    >>> sorted(t2_chains()["hoeffding"].assumed)
    ['range-2M']
    """
    i = sp.Symbol("i", integer=True, positive=True)
    N = sp.Symbol("N", integer=True, positive=True)
    M, r = sp.symbols("M r", positive=True)
    u, v = sp.symbols("u v", positive=True)
    D, t, s2 = sp.Function("D", real=True), sp.Function("t", real=True), sp.Function("sigma2", positive=True)
    xi = Expect(D(i))
    tail = Prob(sp.Le(D(i) - xi, -t(i)))  # P(D_i <= xi_i - t_i) = P(D_i <= r) with t_i = xi_i - r
    j = sp.Symbol("j", integer=True, positive=True)
    K = sp.Symbol("K", integer=True, positive=True)  # K = L - N non-selected tokens
    Dout = sp.Function("D_out")  # their distances D'_j = |alpha_j x_j - s|
    inside = sp.Le(D(i), r)  # selected token i inside the ball
    some = Cup(sp.Le(Dout(j), r), (j, 1, K))  # some non-selected token inside
    # the counts by their definitions, over N: N_s^sel/N = (1/N) Σ_i 1[D_i <= r] and N_s/N =
    # (1/N) Σ_i 1[D_i <= r and no non-selected D'_j <= r]
    count_sel = sp.Sum(Indicator(inside) / N, (i, 1, N))
    count = sp.Sum(Indicator(sp.And(inside, sp.Not(some))) / N, (i, 1, N))
    in_probs = sp.Sum(Prob(inside) / N, (i, 1, N))
    # N_s <= N_s^sel at every outcome: 1[A_i and not B] <= 1[A_i], term by term
    fewer = Chain(Indicator(sp.And(inside, sp.Not(some))) / N).le(Indicator(inside) / N, by.indicator_order())

    def average(bound, per_token_ctx, per_token_chain, name, selected=False):
        """E[N_s]/N (E[N_s^sel]/N with ``selected``) <= (1/N) Σ_i bound_i, from the per-token bound
        on the tail P(D_i <= ξ_i − t_i) with t_i = ξ_i − r (a definition in the context)."""
        lemma = Lemma(per_token_chain, tail, "<=", bound)
        ctx = Context({**per_token_ctx, name: lemma, "t=xi-r": sp.Eq(t(i), xi - r)})
        term = Chain(tail / N, ctx).le(bound / N, by.monotone(u, u / N, tail, bound))
        start = Expect(count_sel if selected else count)
        chain = Chain(start, ctx)
        if not selected:  # N_s <= N_s^sel at every outcome, so in expectation
            chain = chain.le(Expect(count_sel), by.expect_monotone(
                Chain(count, ctx).le(count_sel, by.termwise(i, 1, N, term=fewer))))
        chain = (chain
                 .eq(sp.Sum(Expect(Indicator(inside) / N), (i, 1, N)), by.expect_sum())
                 .eq(in_probs, by.indicator_mean())
                 .eq(sp.Sum(Prob(sp.Le(D(i) - xi, -(xi - r))) / N, (i, 1, N)), by.indicator_algebra())
                 .eq(sp.Sum(tail / N, (i, 1, N)), by.hypothesis("t=xi-r"))
                 .le(sp.Sum(bound / N, (i, 1, N)), by.termwise(i, 1, N, term=term)))
        return chain.prove(start, "<=", sp.Sum(bound / N, (i, 1, N)))

    # McDiarmid: c_j = 2 M alpha_j, sum c_j^2 = 4 M^2 sigma_i^2
    base = {"bounded-differences": Assumed(BoundedDifferences(D(i), 4 * M**2 * s2(i)), _BOUNDED_WHY),
            "t>0": sp.Gt(t(i), 0)}
    mc_bound = sp.exp(-t(i) ** 2 / (2 * M**2 * s2(i)))
    mc = (Chain(tail, Context(base))
          .le(sp.exp(-2 * t(i) ** 2 / (4 * M**2 * s2(i))), by.mcdiarmid(D(i), t(i), "bounded-differences"))
          .eq(mc_bound, by.identity()))
    loose_ctx = {**base, "sigma2<=1": Assumed(sp.Le(s2(i), 1), _SIGMA_WHY)}
    loose_bound = sp.exp(-t(i) ** 2 / (16 * M**2))
    g = sp.exp(-t(i) ** 2 / (2 * M**2 * v))  # increasing in v > 0
    loose = (type(mc)(mc.start, Context(loose_ctx), mc.steps).le(g.subs(v, 1), by.monotone(v, g, s2(i), 1))
             .le(loose_bound, by.monotone(v, g, 1, 8)))
    # Hoeffding: one variable with range [0, 2M]
    h_ctx = {"range-2M": Assumed(BoundedDifferences(D(i), 4 * M**2), _RANGE_WHY), "t>0": sp.Gt(t(i), 0)}
    h_bound = sp.exp(-t(i) ** 2 / (2 * M**2))
    hoeff = (Chain(tail, Context(h_ctx))
             .le(sp.exp(-2 * t(i) ** 2 / (4 * M**2)), by.mcdiarmid(D(i), t(i), "range-2M"))
             .eq(h_bound, by.identity()))
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
    trivial = Chain(Prob(sp.Le(D(i), r))).le(1, by.probability()).prove(Prob(sp.Le(D(i), r)), "<=", 1)
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
    return {
        "trivial": trivial,
        "union": union.prove(union_start, "<=", Expect(count)),
        "mcdiarmid": average(mc_bound, base, mc, "per-token"),
        "mcdiarmid_selected": average(mc_bound, base, mc, "per-token", selected=True),
        "conditioned": average(loose_bound, loose_ctx, loose, "per-token"),
        "hoeffding": average(h_bound, h_ctx, hoeff, "per-token"),
        "markov": selected.prove(start, "<=", Expect(count_sel)),
        "markov_terms": lower.prove(start, "<=", goal),
    }

