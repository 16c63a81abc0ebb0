r"""# Theorem 1 (ii): the expected distance for a random selection

**Setting.** As in Theorem 1 (i), but the selected set is a uniformly random $N$-subset $S$ of
$I = \{1,\dots,L\}$ ($1 \le N < L$), independent of everything else. Write
$s_S = \sum_{j\in S}\alpha_j x_j$, $\tilde d(S) = \sum_{i\notin S}\|\alpha_i x_i - s_S\|$,
$E = \mathbb{E}_S[\tilde d(S)]$, $k = N/(L-1)$ and $c = \sum_{j=1}^{L}\alpha_j x_j$.

The summary transcribes the statement as

$$E = \frac{L-N}{L}\sum_{i=1}^{L}\big\|(\alpha_i + \tfrac{N}{L-1})\,x_i - \bar x\big\|_2 + \varepsilon .$$

As an identity with an unspecified $\varepsilon$ this says nothing; its content is that
$\varepsilon \ge 0$, i.e. that the sum is a lower bound of $E$. The summary does not define
$\bar x$; the checker reads it as the mean $\frac1L\sum_j x_j$ (reading `transcribed`) and as
the full context vector $c$ (reading `transcribed_context`).

## Reconstruction: an exact decomposition and a Jensen gap

**Step 1 (linearity).** $E = \sum_{i=1}^{L}\Pr(i\notin S)\;\mathbb{E}\big[\|\alpha_i x_i - s_S\|\;\big|\; i\notin S\big]$.

**Step 2 (counting).** $\Pr(i\notin S) = \binom{L-1}{N}/\binom{L}{N} = \frac{L-N}{L}$. Given
$i\notin S$, $S$ is a uniform $N$-subset of $I\setminus\{i\}$, so each $j\ne i$ belongs to it
with probability $\binom{L-2}{N-1}/\binom{L-1}{N} = k$ and
$\mathbb{E}[s_S \mid i\notin S] = k\sum_{j\ne i}\alpha_j x_j = k(c - \alpha_i x_i)$.

**Step 3 (Jensen).** The norm is convex, so
$\mathbb{E}[\|\alpha_i x_i - s_S\| \mid i\notin S] \ge \|\alpha_i x_i - k(c-\alpha_i x_i)\|
= \|(1+k)\,\alpha_i x_i - k\,c\|$. Summing with the weights of Step 2,

$$E = M + \varepsilon,\qquad M = \frac{L-N}{L}\sum_{i=1}^{L}\big\|(1+k)\,\alpha_i x_i - k\,c\big\|,\qquad \varepsilon \ge 0 .$$

This is the reading in `CLAIMS.md`; it is proved, by a chain the kernel checks for any $L$ and
$N$: per token, the probabilities of Step 2 (hypothesis `uniform_subset`), linearity of the
expectation (rule `linearity`) and Jensen for the norm (rule `jensen`, through `monotone-chain`
since the term carries the factor $\Pr(i\notin S)$), summed with `termwise`. Step 1 is checked
too: the chain starts at $\mathbb{E}_S\big[\sum_{i=1}^{L}\mathbf 1[i\notin S]\,\|\alpha_i x_i - s_S\|\big]$,
takes the expectation inside the finite sum (rule `expect-sum`), splits each term by the law of
total expectation over the partition $\{i\notin S\}, \{i\in S\}$ (rule `total-expectation`,
which checks that the events are a partition), and conditions on each event (rule `condition`:
the indicator is 1 given $i\notin S$ and 0 given $i\in S$, so a selected token adds nothing). The
chain of `tight_last` starts the same way. The checker also verifies Steps 2 and 3's algebra
exactly (SymPy `combsimp` then `expand`).

**Equality at $N = L-1$.** Given $i\notin S$ the subset is $I\setminus\{i\}$, a constant, so
Jensen is an equality for every $i$ and $\varepsilon = 0$.

**An upper bound on the gap.** By the triangle inequality
$\|\alpha_i x_i - s_S\| \le \|\alpha_i x_i - \mathbb{E}s_S\| + \|s_S - \mathbb{E}s_S\|$, and by
Cauchy–Schwarz $\mathbb{E}\|s_S-\mathbb{E}s_S\| \le (\mathbb{E}\|s_S-\mathbb{E}s_S\|^2)^{1/2}$.
For a uniform $n$-subset of $m$ vectors $y_j$ the sum $T$ has
$\mathbb{E}\|T-\mathbb{E}T\|^2 = \frac{n(m-n)}{m(m-1)}\sum_j\|y_j-\bar y\|^2$ (checked exactly by
enumeration for $m\le5$, and for all $m$ symbolically). With $m = L-1$, $n=N$ and $y_j=\alpha_j x_j$ ($j\ne i$):

$$0 \le \varepsilon \le G = \frac{L-N}{L}\sum_{i=1}^{L}\Big(\tfrac{N(L-1-N)}{(L-1)(L-2)}\sum_{j\ne i}\|\alpha_j x_j - \bar y_{-i}\|^2\Big)^{1/2}.$$

This bound (reading `gap_bound`) is a checked chain too: per token, the triangle inequality under the
expectation (rules `triangle`, `expect-monotone`, `linearity`), $\mathbb{E}Z \le \sqrt{\mathbb{E}Z^2}$
(rule `moment`) and the variance factor (part of hypothesis `uniform_subset`), summed with `termwise`.

**How large is $\varepsilon$?** Under Lemma 1 ($\alpha_j \le C_2/L$) and $\|x_j\|\le R$,
$G \le \frac{L-N}{L}\,C_2 R\sqrt{N(L-1)/(L-2)} = O(\sqrt N)$, while $M \approx N\|c\|$. So
$\varepsilon/M$ need not vanish as $L$ grows. For isotropic embeddings $\|c\|\to0$ and the
measured $\varepsilon/M$ *grows* with $L$ (about 0.6 at $L=16$ and 2 at $L=1024$ for $N=5$,
$d=16$). For embeddings with a common mean direction it is a few percent.

## The transcription is false

Take $L=2$, $N=1$, $d=1$, $\alpha=(\tfrac12,\tfrac12)$, $x=(1,1)$. Both subsets give
$s_S = \tfrac12$ and $D = |\tfrac12 - \tfrac12| = 0$, so $E=0$. Here $\bar x = 1$ under every
reading of $\bar x$ (mean, $c$, or $k\,c$), so the transcribed sum is
$\tfrac12\,(|\tfrac32-1| + |\tfrac32-1|) = \tfrac12 > 0 = E$, and $\varepsilon = -\tfrac12 < 0$.
The coefficient $\alpha_i + N/(L-1)$ adds a weight and a count. It makes the transcribed term
of order $N\|x_i\|/L$ per token, so of order $N + L\|\bar x\|$ in total. That is far above
$E$ in random instances as well. In the Monte Carlo instance ($L=256$, $N=5$, $d=16$) it is about 12 (mean
reading) or 24 (context reading), while $E \approx 3.2$ with a 99% interval of width 0.1.

## What the full text changed

The full text says each token is left out with probability $(L-N)/L$, that the main sum comes
from replacing the random inclusion indicators by their expectations, and that $\varepsilon$ is
a Jensen gap, small when no single weight dominates. That is the reconstruction above: given
$i \notin S$, each indicator $\mathbf 1[j\in S]$ is replaced by $\Pr(j\in S \mid i\notin S) = N/(L-1)$,
and $\varepsilon = E - (\text{main term}) \ge 0$ by Jensen. No verdict changed.
"""

from __future__ import annotations

import functools

import numpy as np

import sympy as sp

from attnbounds.claims.base import Claim, chain_symbols, Estimate, Hypothesis, Proof, Reading, Sides
from attnbounds.numerics.attention import softmax, subset_cumulative_distance
from attnbounds.numerics.sampling import sphere_points
from attnbounds.numerics.selection import (
    jensen_gap_bound,
    random_selection_expectation,
    random_selection_main_term,
    subset_masks,
)
from attnbounds.numerics.validation import check_count, check_distribution, check_embeddings, check_rng, check_top_n
from attnbounds.strategies import attention_configs
from attnbounds.theory import distance as thd
from attnbounds.theory.distance import derive_t1_random, main_term_coefficients
from attnbounds.theory.proof import Chain, Cond, Context, Expect, Norm, Prob, by

__all__ = [
    "CLAIM",
    "transcribed_term",
    "sweep_instances",
    "large_instance",
    "XBAR_READINGS",
]

#: Readings of the undefined x̄ in the transcription.
XBAR_READINGS: tuple[str, ...] = ("mean", "context")

#: Monte Carlo instance size (large L, beyond exact enumeration).
MC_L, MC_N, MC_DIM = 256, 5, 16


def _validated(instance: dict):
    if not isinstance(instance, dict):
        raise TypeError(f"instance: expected a dict, got {type(instance).__name__}")
    for key in ("weights", "x", "n"):
        if key not in instance:
            raise KeyError(f"instance: missing {key!r}")
    w = check_distribution(instance["weights"])
    x = check_embeddings(instance["x"], w)
    n = check_top_n(int(instance["n"]), w.shape[-1])
    return w, x, n


def transcribed_term(weights, x, n: int, xbar: str = "mean") -> np.ndarray:
    """(L−N)/L · Σ_i ‖(α_i + N/(L−1)) x_i − x̄‖, with x̄ the mean of x (``"mean"``) or Σ_j α_j x_j.

    >>> float(transcribed_term([0.5, 0.5], [[1.0], [1.0]], 1))
    0.5
    """
    w, xs, n = _validated({"weights": weights, "x": x, "n": n})
    if xbar not in XBAR_READINGS:
        raise ValueError(f"xbar: must be one of {XBAR_READINGS}, got {xbar!r}")
    L = w.shape[-1]
    k = n / (L - 1)
    if xbar == "mean":
        center = xs.mean(axis=-2, keepdims=True)  # (1/L) Σ_j x_j
    else:
        center = np.einsum("...l,...ld->...d", w, xs)[..., None, :]  # Σ_j α_j x_j
    inner = np.linalg.norm((w + k)[..., :, None] * xs - center, axis=-1)  # (..., L)
    return (L - n) / L * inner.sum(axis=-1)


def _exact_E(instance: dict):
    w, x, n = _validated(instance)
    return w, x, n, random_selection_expectation(w, x, n, method="exact").value


def _sides_transcribed(instance: dict) -> Sides:
    w, x, n, E = _exact_E(instance)
    return Sides(E, transcribed_term(w, x, n, "mean"))


def _sides_transcribed_context(instance: dict) -> Sides:
    w, x, n, E = _exact_E(instance)
    return Sides(E, transcribed_term(w, x, n, "context"))


def _sides_reconstructed(instance: dict) -> Sides:
    w, x, n, E = _exact_E(instance)
    return Sides(E, random_selection_main_term(w, x, n))


def _sides_gap_bound(instance: dict) -> Sides:
    w, x, n, E = _exact_E(instance)
    return Sides(E, random_selection_main_term(w, x, n) + jensen_gap_bound(w, x, n))


def sweep_instances(rng: np.random.Generator, size: int, n_last: bool = False) -> dict:
    """A batch sharing L ∈ [2, 7], d ∈ [1, 3] and n (n = L − 1 when ``n_last``).

    Weights: softmax of N(0, 1) logits at a log-uniform temperature in [0.05, 20].
    Embeddings: N(0, 1) entries plus a common random offset of length U[0, 3] per instance
    (so both isotropic and mean-shifted clouds occur).

    >>> b = sweep_instances(np.random.default_rng(1), 4)
    >>> b["x"].shape[0], 1 <= b["n"] < b["weights"].shape[1]
    (4, True)
    """
    check_rng(rng, "rng")
    size = check_count(size, "size")
    L = int(rng.integers(2, 8))
    d = int(rng.integers(1, 4))
    n = L - 1 if n_last else int(rng.integers(1, L))
    T = np.exp(rng.uniform(np.log(0.05), np.log(20.0), size=(size, 1)))
    w = softmax(rng.standard_normal((size, L)), T)
    offset = rng.uniform(0.0, 3.0, size=(size, 1, 1)) * sphere_points(rng, size, 1, d)
    x = rng.standard_normal((size, L, d)) + offset
    return {"weights": w, "x": x, "n": n}


def large_instance(rng: np.random.Generator, L: int = MC_L, n: int = MC_N, dim: int = MC_DIM) -> dict:
    """One instance beyond exact enumeration: softmax of N(0, 1) logits, x uniform on the unit sphere.

    >>> inst = large_instance(np.random.default_rng(0), L=8, n=2, dim=3)
    >>> inst["x"].shape, inst["n"]
    ((8, 3), 2)
    """
    check_rng(rng, "rng")
    w = softmax(rng.standard_normal(L))
    x = sphere_points(rng, 1, L, dim)[0]
    check_top_n(n, L)
    return {"weights": w, "x": x, "n": n}


def _montecarlo(rhs_fn, detail: str):
    def run(rng: np.random.Generator, samples: int) -> Estimate:
        inst = large_instance(rng)
        w, x, n = inst["weights"], inst["x"], inst["n"]
        est = random_selection_expectation(w, x, n, method="mc", samples=max(int(samples), 2), seed=rng)
        rhs = float(rhs_fn(w, x, n))
        return Estimate(
            lhs=float(est.value),
            lhs_ci=(float(est.ci_low), float(est.ci_high)),
            rhs=rhs,
            rhs_ci=(rhs, rhs),
            samples=int(est.samples),
            confidence=float(est.confidence),
            instance=inst,
            detail=f"L={MC_L}, N={MC_N}, d={MC_DIM}: E_S[d~] by {est.samples} random subsets; {detail} exact",
        )

    return run


_CEX = {"weights": np.array([0.5, 0.5]), "x": np.array([[1.0], [1.0]]), "n": 1}


def _symbolic_transcribed(xbar: str):
    def proof() -> Proof:
        res = derive_t1_random()
        return Proof(
            False,
            f"x-bar = {xbar}: L=2, N=1, weights=(1/2,1/2), x=(1,1) give E_S[d~] = 0 but the transcribed "
            "sum is (1/2)(|3/2-1| + |3/2-1|) = 1/2, so epsilon = -1/2 < 0",
            counterexample=dict(_CEX),
            lhs=float(res["transcription_counterexample_E"].expr),
            rhs=float(res["transcription_counterexample_main"].expr),
        )

    return proof


@functools.lru_cache(maxsize=1)
def random_selection_checks() -> dict:
    """The checked chains of T1ii:reconstructed (``"reconstructed"``: E_S[d̃] ≥ M) and
    T1ii:gap_bound (``"gap_bound"``: E_S[d̃] ≤ M + G), summed over the tokens i = 1..L, any L and N.

    As in :func:`tight_last_check`, the chains start at E_S[d̃] = E[Σ_i (1 − in_S(i))·‖y_i − s_S‖],
    with y_j = α_j x_j, Y = Σ_j y_j, ``in_S(i)`` the indicator of the event i ∈ S and ``s_S(i)``
    the random context vector s_S (written with the index i; the chains never use that it is the
    same vector for every i, so they prove the bound for any such family). Rule ``expect-sum``
    takes E inside the sum; per token, rule ``total-expectation`` splits E over the partition
    {i ∉ S}, {i ∈ S} and rule ``condition`` conditions on each event, leaving
    P(i ∉ S)·E[‖y_i − s_S‖ | i ∉ S]. The hypothesis ``uniform_subset`` (S a uniform N-subset)
    gives, exactly:

    * P(i ∉ S) = C(L−1, N)/C(L, N) = (L − N)/L;
    * E[s_S | i ∉ S] = C(L−2, N−1)/C(L−1, N)·(Y − y_i) = N/(L − 1)·(Y − y_i) (each j ≠ i is in S
      with that probability; the ratios of binomials are put in lowest terms by
      :func:`attnbounds.theory.distance.derive_t1_random`, exactly);
    * E‖s_S − E s_S‖² = f·V_i given i ∉ S, with f = N(L−1−N)/((L−1)(L−2)) and
      V_i = Σ_{j≠i} ‖y_j − ȳ_{−i}‖² (the sampling variance factor, proved for all m by
      :func:`attnbounds.theory.distance.variance_factor_checks`; the upper bound's only: f is
      0/0 at L = 2, so the lower bound's chain, which covers L = 2, does not assume it).

    Lower bound, per token: ‖E[y_i − s_S]‖ ≤ E‖y_i − s_S‖ (Jensen, the norm is convex), and
    E[y_i − s_S] = y_i − E s_S (linearity). Upper bound, per token: ‖y_i − s_S‖ ≤ ‖y_i − E s_S‖ +
    ‖E s_S − s_S‖ (triangle, then monotonicity and linearity of E) and E‖s_S − E s_S‖ ≤
    √(E‖s_S − E s_S‖²) (rule ``moment``). Both check only with the main term's coefficients of
    :func:`attnbounds.theory.distance.main_term_coefficients`.
    """
    L, N = thd.L, thd.N
    i = sp.Symbol("i", integer=True, positive=True)
    y = sp.IndexedBase("y", commutative=False)[i]
    V = sp.IndexedBase("V")[i]  # sum_{j != i} |y_j - ybar_{-i}|^2 (a constant)
    s_all = sp.Function("s_S", commutative=False)(i)  # the context vector s_S (random; see the docstring)
    B = sp.Function("in_S")(i)  # the indicator of the event i in S
    A = sp.Not(B)  # the event i not in S
    s = Cond(s_all, A)  # s_S under the law of S given i not in S
    Y = sp.Symbol("Y", commutative=False)
    P = Prob(A)  # P(i not in S)
    c = main_term_coefficients()
    probs = derive_t1_random()  # C(L-1, N)/C(L, N) and C(L-2, N-1)/C(L-1, N), put in lowest terms exactly
    p_out, p_in = probs["p_excluded"].expr, probs["p_in_given_excluded"].expr
    f = N * (L - 1 - N) / ((L - 1) * (L - 2))
    mu = Expect(s)
    laws = (sp.Eq(P, p_out), sp.Eq(mu, p_in * (Y - y)))
    ctx = Context({"uniform_subset": (*laws, sp.Eq(Expect(Norm(mu - s) ** 2), f * V))})
    # the lower bound uses the first two laws only: the variance factor f is 0/0 at L = 2, which it covers
    ctx_low = Context({"uniform_subset": laws})
    u = sp.Symbol("u", nonnegative=True)
    X = y - s
    M_i = c["prefactor"] * Norm(c["own"] * y - c["k"] * Y)
    G_i = c["prefactor"] * sp.sqrt(f * V)
    W = (1 - B) * Norm(y - s_all)  # token i's share of d~(S): 0 when i is in S
    D_i = Expect(W)
    split_i = P * Expect(Cond(W, A)) + Prob(B) * Expect(Cond(W, B))  # total expectation over {i not in S}, {i in S}
    E_i = P * Expect(Norm(X))
    jensen = Chain(Norm(Expect(X)), ctx_low).le(Expect(Norm(X)), by.jensen(Norm, X=X))
    low = (Chain(M_i, ctx_low)
           .eq(p_out * Norm(y - p_in * (Y - y)), by.identity())
           .eq(P * Norm(y - p_in * (Y - y)), by.hypothesis("uniform_subset"))
           .eq(P * Norm(y - mu), by.hypothesis("uniform_subset"))
           .eq(P * Norm(Expect(X)), by.linearity())
           .le(E_i, by.monotone_chain(u, P * u, Norm(Expect(X)), Expect(Norm(X)), term=jensen))
           .eq(split_i, by.condition())
           .eq(D_i, by.total_expectation([A, B])))
    tri = (Chain(Norm(X), ctx)
           .eq(Norm((y - mu) + (mu - s)), by.identity())
           .le(Norm(y - mu) + Norm(mu - s), by.triangle(y - mu, mu - s)))
    split = Chain(Expect(Norm(X)), ctx).le(Expect(Norm(y - mu) + Norm(mu - s)), by.expect_monotone(tri))
    Z = Norm(mu - s)
    moment = Chain(Expect(Z), ctx).le(sp.sqrt(Expect(Z**2)), by.moment(Z))
    high = (Chain(D_i, ctx)
            .eq(split_i, by.total_expectation([A, B]))
            .eq(E_i, by.condition())
            .le(P * Expect(Norm(y - mu) + Z), by.monotone_chain(u, P * u, Expect(Norm(X)), Expect(Norm(y - mu) + Z), term=split))
            .eq(P * (Norm(y - mu) + Expect(Z)), by.linearity())
            .le(P * (Norm(y - mu) + sp.sqrt(Expect(Z**2))),
                by.monotone_chain(u, P * (Norm(y - mu) + u), Expect(Z), sp.sqrt(Expect(Z**2)), term=moment))
            .eq(P * (Norm(y - mu) + sp.sqrt(f * V)), by.hypothesis("uniform_subset"))
            .eq(P * (Norm(y - p_in * (Y - y)) + sp.sqrt(f * V)), by.hypothesis("uniform_subset"))
            .eq(p_out * (Norm(y - p_in * (Y - y)) + sp.sqrt(f * V)), by.hypothesis("uniform_subset"))
            .eq(M_i + G_i, by.identity()))
    E = Expect(sp.Sum(W, (i, 1, L)))  # E_S[d~], d~(S) = sum_i 1[i not in S] |y_i - s_S|
    per_token = sp.Sum(D_i, (i, 1, L))
    M = sp.Sum(M_i, (i, 1, L))
    MG = sp.Sum(M_i, (i, 1, L)) + sp.Sum(G_i, (i, 1, L))
    rec = (Chain(E, ctx_low)
           .eq(per_token, by.expect_sum())
           .ge(M, by.termwise(i, 1, L, term=low)))
    gap = (Chain(E, ctx)
           .eq(per_token, by.expect_sum())
           .le(sp.Sum(M_i + G_i, (i, 1, L)), by.termwise(i, 1, L, term=high))
           .eq(MG, by.identity()))
    return {"reconstructed": rec.prove(E, ">=", M), "gap_bound": gap.prove(E, "<=", MG)}


def _symbolic_reconstructed() -> Proof:
    res = derive_t1_random()
    return Proof.from_chain(
        random_selection_checks()["reconstructed"],
        f"E_S[d~] = sum_i P(i not in S) E[|y_i - s_S| | i not in S], P(i not in S) = {res['p_excluded'].expr}, "
        f"E[s_S | i not in S] = {res['p_in_given_excluded'].expr}*sum_{{j!=i}} y_j; linearity, then Jensen (norm convex) "
        "termwise: E_S[d~] >= M",
    )


def _symbolic_gap_bound() -> Proof:
    derive_t1_random()  # checks the variance factor exactly (all m; enumerated for m <= 5)
    return Proof.from_chain(
        random_selection_checks()["gap_bound"],
        "per token: |y_i - s_S| <= |y_i - E s_S| + |s_S - E s_S| (triangle, monotone and linear E), "
        "E|s_S - E s_S| <= sqrt(E|s_S - E s_S|^2) = sqrt(f(L-1,N) sum_{j!=i}|y_j - ybar|^2) "
        "(sampling-without-replacement variance); summed: E_S[d~] <= M + G",
    )


def tight_last_check():
    """The checked chain of T1ii:tight_last, summed over the tokens i = 1..L.

    With N = L − 1 and y_j = α_j x_j, Y = Σ_j y_j: the chain starts at E_S[d̃] =
    E[Σ_i (1 − in_S(i))·‖y_i − s_S‖] and splits each term by the law of total expectation over
    {i ∉ S}, {i ∈ S} (rules ``expect-sum``, ``total-expectation``, ``condition``, as in
    :func:`random_selection_checks`). A token i is left out with probability
    P(i ∉ S) = C(L−1, N)/C(L, N), and then S = I ∖ {i}, so s_S = Y − y_i is fixed and the
    conditional expectation is the single value ‖y_i − s_S‖ (Jensen is an equality). The
    chain turns this term into the main term's ((L−N)/L)‖(1 + k) y_i − k Y‖ with the
    coefficient k of :func:`attnbounds.theory.distance.main_term_coefficients`; it checks only
    if that k is N/(L − 1) at N = L − 1.
    """
    L, N = thd.L, thd.N
    i = sp.Symbol("i", integer=True, positive=True)
    y = sp.IndexedBase("y", commutative=False)[i]
    s_all = sp.Function("s_S", commutative=False)(i)  # the context vector s_S (random)
    B = sp.Function("in_S")(i)  # the indicator of the event i in S
    A = sp.Not(B)  # the event i not in S
    s = Cond(s_all, A)  # s_S given i not in S
    Y = sp.Symbol("Y", commutative=False)
    c = {k: v.subs(N, L - 1) for k, v in main_term_coefficients().items()}
    p_out = (sp.binomial(L - 1, N) / sp.binomial(L, N)).subs(N, L - 1)
    P = Prob(A)  # P(i not in S)
    ctx = Context({"N = L-1: S is I minus {i}": sp.Eq(s, Y - y),
                   "uniform_subset": sp.Eq(P, p_out)})  # S uniform: P(i not in S) = C(L-1, N)/C(L, N)
    W = (1 - B) * Norm(y - s_all)  # token i's share of d~(S)
    term = (Chain(Expect(W), ctx)
            .eq(P * Expect(Cond(W, A)) + Prob(B) * Expect(Cond(W, B)), by.total_expectation([A, B]))
            .eq(P * Expect(Norm(y - s)), by.condition())
            .eq(P * Expect(Norm(y - (Y - y))), by.hypothesis("N = L-1: S is I minus {i}"))
            .eq(P * Norm(y - (Y - y)), by.linearity())
            .eq(p_out * Norm(y - (Y - y)), by.hypothesis("uniform_subset"))
            .eq(c["prefactor"] * Norm(c["own"] * y - c["k"] * Y), by.identity()))
    lhs = Expect(sp.Sum(W, (i, 1, L)))  # E_S[d~], d~(S) = sum_i 1[i not in S] |y_i - s_S|
    rhs = sp.Sum(c["prefactor"] * Norm(c["own"] * y - c["k"] * Y), (i, 1, L))
    chain = (Chain(lhs, ctx)
             .eq(sp.Sum(Expect(W), (i, 1, L)), by.expect_sum())
             .eq(rhs, by.termwise(i, 1, L, term=term)))
    return chain.prove(lhs, "==", rhs)  # E_S[d~] == M (the main term)


def _symbolic_tight_last() -> Proof:
    return Proof.from_chain(
        tight_last_check(),
        "N = L-1: given i not in S, S = I minus {i} is fixed, so E[|y_i - s_S| | i not in S] = |y_i - (Y - y_i)|; "
        "with P(i not in S) = 1/L and k = N/(L-1) = 1 this is the main term",
    )


@functools.lru_cache(maxsize=None)
def _chain_symbols(which: str) -> dict:
    """The symbols, bases and functions of T1ii chain ``which`` (``"reconstructed"`` or
    ``"gap_bound"`` of :func:`random_selection_checks`, or ``"tight_last"``,
    :func:`tight_last_check`), its goal's and hypotheses', by name."""
    return chain_symbols(tight_last_check() if which == "tight_last" else random_selection_checks()[which])


def _bind_random_subset(which: str):
    """``bind`` for T1ii chain ``which`` of :func:`random_selection_checks` (its
    goal E[Σ_i (1 − in_S(i))·‖y_i − s_S(i)‖] against the main term): the setting built as a finite
    probability space, apart from the sides' enumeration. Its atoms are the N-subsets S of the
    L tokens, each of probability 1/C(L, N); in_S(i) is 1 at an atom whose S holds token i, and
    s_S(i) is that S's context vector Σ_{j∈S} α_j x_j (the same for every i). The primitive values are
    y_j = α_j x_j, Y = Σ_j y_j, L, N and (where the chain reads it) V_i = Σ_{j≠i} ‖y_j − ȳ_{−i}‖².
    The tie then evaluates the mean and the hypotheses (P(i ∉ S), E[s_S | i ∉ S] and the variance
    E‖s_S − E s_S‖² given i ∉ S) on that space (:mod:`attnbounds.engine.tie`).

    For ``"tight_last"`` (:func:`tight_last_check`, N = L − 1 put in) the tie checks its hypothesis
    s_S = Y − y_i given i ∉ S atom by atom, at the atoms where i ∉ S.

    >>> b = _bind_random_subset("gap_bound")(_CEX)
    >>> from attnbounds.claims.base import SPACE
    >>> b[SPACE].tolist(), {str(k): np.asarray(v).tolist() for k, v in b.items() if str(k) in ("in_S", "Y", "V")}
    ([0.5, 0.5], {'in_S': [[1.0, 0.0], [0.0, 1.0]], 'Y': [1.0], 'V': [0.0, 0.0]})
    """
    import itertools

    from attnbounds.claims.base import SPACE

    def bind(instance: dict) -> dict:
        names = _chain_symbols(which)
        w, x, n = _validated(instance)
        L = w.shape[-1]
        y = w[:, None] * x  # y_j = α_j x_j, (L, d)
        subsets = list(itertools.combinations(range(L), n))
        in_s = np.zeros((L, len(subsets)))
        for a, S in enumerate(subsets):
            in_s[list(S), a] = 1.0
        s = np.einsum("la,ld->ad", in_s, y)  # s_S at each atom, (atoms, d)
        out = {SPACE: np.full(len(subsets), 1 / len(subsets)), names["in_S"]: in_s,
               names["s_S"]: np.broadcast_to(s, (L,) + s.shape).copy(), names["y"]: y, names["Y"]: y.sum(axis=0),
               names["L"]: L}
        if "N" in names:  # (tight_last's chain has N = L − 1 put in)
            out[names["N"]] = n
        if "V" in names:  # (gap_bound's)
            rest = [np.delete(y, i, axis=0) for i in range(L)]
            out[names["V"]] = np.array([((r - r.mean(axis=0)) ** 2).sum() for r in rest])
        return out

    return bind


def _sides_tight_last(instance: dict) -> Sides:
    w, x, n, E = _exact_E(instance)
    if n != w.shape[-1] - 1:
        raise ValueError(f"n: this reading needs n = L - 1 = {w.shape[-1] - 1}, got {n}")
    return Sides(E, random_selection_main_term(w, x, n))


def _configs():
    return attention_configs(min_size=2, max_size=6, min_dim=1, max_dim=3)


def _configs_last():
    return attention_configs(min_size=2, max_size=6, min_dim=1, max_dim=3).map(
        lambda c: {**c, "n": c["weights"].size - 1}
    )


def _drop_uniform_subset() -> Proof:
    # A subset law that always picks one fixed subset (not uniform): Step 2 fails, and the
    # expected distance (= d~ of that subset) can fall below M.
    w = np.array([0.5, 0.25, 0.25])
    x = np.array([[1.0], [1.0], [-1.0]])
    masks = subset_masks(3, 1)
    per_subset = subset_cumulative_distance(w, x, masks)  # d~(S) for S = {0}, {1}, {2}
    best = int(np.argmin(per_subset))
    E_fixed = float(per_subset[best])
    M = float(random_selection_main_term(w, x, 1))
    return Proof(
        False,
        f"with S always {{{best}}} (not uniform): E = {E_fixed:.4g} < M = {M:.4g}",
        counterexample={"weights": w, "x": x, "n": 1, "subset": [best]},
        lhs=E_fixed,
        rhs=M,
    )


CLAIM = Claim(
    id="T1ii",
    order=4,
    title="Theorem 1 (ii): expected distance for a random N-subset",
    source="arXiv 2508.17821, Theorem 1 (ii) (as transcribed in the Spanish summary)",
    statement=(
        "For a uniformly random N-subset S, E_S[d~] = (L-N)/L sum_i |(1 + N/(L-1)) alpha_i x_i - "
        "N/(L-1) sum_j alpha_j x_j| + eps with eps >= 0 (a Jensen gap)."
    ),
    transcription="E = (L-N)/L sum_{i=1..L} |(alpha_i + N/(L-1)) x_i - x_bar|_2 + eps",
    transcription_latex=(
        r"E = \frac{L-N}{L}\sum_{i=1}^{L}\big\|(\alpha_i + \tfrac{N}{L-1})x_i - \bar x\big\|_2 + \varepsilon"
    ),
    hypotheses=(
        Hypothesis(
            "uniform_subset",
            "S is a uniformly random N-subset of {1..L}, independent of alpha and x",
            drop=_drop_uniform_subset,
        ),
        Hypothesis("normalized", "the weights are a probability vector; 1 <= N < L"),
    ),
    readings=(
        Reading(
            "transcribed",
            "eps >= 0 with x_bar = (1/L) sum_j x_j: E_S[d~] >= (L-N)/L sum_i |(alpha_i + N/(L-1)) x_i - x_bar|",
            r"\mathbb{E}_S\tilde d \ge \frac{L-N}{L}\sum_i\|(\alpha_i+\tfrac{N}{L-1})x_i-\tfrac1L\textstyle\sum_j x_j\|",
            relation=">=",
            symbolic=_symbolic_transcribed("mean of x"),
            strategy=_configs,
            sides=_sides_transcribed,
            sweep=sweep_instances,
            montecarlo=_montecarlo(lambda w, x, n: transcribed_term(w, x, n, "mean"), "transcribed term"),
        ),
        Reading(
            "transcribed_context",
            "eps >= 0 with x_bar = sum_j alpha_j x_j",
            r"\mathbb{E}_S\tilde d \ge \frac{L-N}{L}\sum_i\|(\alpha_i+\tfrac{N}{L-1})x_i-\textstyle\sum_j\alpha_j x_j\|",
            relation=">=",
            symbolic=_symbolic_transcribed("sum_j alpha_j x_j"),
            strategy=_configs,
            sides=_sides_transcribed_context,
            sweep=sweep_instances,
            montecarlo=_montecarlo(lambda w, x, n: transcribed_term(w, x, n, "context"), "transcribed term"),
        ),
        Reading(
            "reconstructed",
            "E_S[d~] >= M = (L-N)/L sum_i |(1 + N/(L-1)) alpha_i x_i - N/(L-1) sum_j alpha_j x_j| (eps >= 0)",
            r"\mathbb{E}_S\tilde d \ge \frac{L-N}{L}\sum_i\|(1+\tfrac{N}{L-1})\alpha_i x_i-\tfrac{N}{L-1}\textstyle\sum_j\alpha_j x_j\|",
            relation=">=",
            symbolic=_symbolic_reconstructed,
            strategy=_configs,
            sides=_sides_reconstructed,
            sweep=sweep_instances,
            bind=_bind_random_subset("reconstructed"),
            montecarlo=_montecarlo(random_selection_main_term, "main term M"),
        ),
        Reading(
            "gap_bound",
            "L >= 3: E_S[d~] <= M + G, G = (L-N)/L sum_i sqrt(N(L-1-N)/((L-1)(L-2)) sum_{j!=i} |a_j x_j - ybar_{-i}|^2) "
            "(at L = 2, G is 0/0)",
            r"\mathbb{E}_S\tilde d \le M + G",
            relation="<=",
            assume=lambda instance: np.asarray(instance["weights"]).shape[-1] >= 3,
            symbolic=_symbolic_gap_bound,
            strategy=_configs,
            sides=_sides_gap_bound,
            sweep=sweep_instances,
            bind=_bind_random_subset("gap_bound"),
            montecarlo=_montecarlo(
                lambda w, x, n: random_selection_main_term(w, x, n) + jensen_gap_bound(w, x, n), "M + G"
            ),
        ),
        Reading(
            "tight_last",
            "for N = L - 1 the Jensen gap vanishes: E_S[d~] = M",
            r"N=L-1 \Rightarrow \mathbb{E}_S\tilde d = M",
            relation="==",
            symbolic=_symbolic_tight_last,
            strategy=_configs_last,
            sides=_sides_tight_last,
            sweep=lambda rng, size: sweep_instances(rng, size, n_last=True),
            bind=_bind_random_subset("tight_last"),
        ),
    ),
    proof=__doc__,
    symbolic_form=lambda: {
        "main_term_prefactor": main_term_coefficients()["prefactor"],
        "main_term_own_coefficient": main_term_coefficients()["own"],
        "main_term_context_coefficient": -main_term_coefficients()["k"],
        "p_excluded": derive_t1_random()["p_excluded"].expr,
    },
    derivations=("T1ii",),
)
