r"""# Theorem 2: geometric separability

**Setting.** Fixed weights $\alpha$ (independent of the embeddings) with top-$N$ set $I_N$.
The embeddings $x_1,\dots,x_L$ are i.i.d. uniform on the sphere $M\,S^{d-1}$ (Assumption 1).
$s = \sum_{j\in I_N}\alpha_j x_j$ and $D_i = \|\alpha_i x_i - s\|$ for every token. For a
selected token $i\in I_N$,

$$D_i = \Big\|\sum_{j\in I_N\setminus\{i\}}\alpha_j x_j\Big\| ,$$

which depends only on the *other* selected embeddings.

**Distinguishable (the paper's definition).** A selected $x_i$ counts only if $\alpha_i x_i$
lies in the closed ball $B_r(s)$ **and** every non-selected $\alpha_j x_j$ lies outside it:

$$N_s = \#\{i\in I_N : D_i \le r\}\cdot \mathbf 1\Big[\min_{j\notin I_N} D_j > r\Big].$$

$\xi_i$ measures how widely the other $N-1$ selected embeddings, each scaled by its weight,
are spread: $\xi_i = \mathbb{E}[D_i] = \mathbb{E}\|\sum_{j\in I_N\setminus\{i\}}\alpha_j x_j\|$.
By Cauchy–Schwarz, $\xi_i \le \sqrt{\mathbb{E}D_i^2} = M\sigma_i$ with
$\sigma_i^2 = \sum_{j\in I_N\setminus\{i\}}\alpha_j^2$ (the cross terms vanish: independent,
mean-zero directions). The summary states

$$1 - \frac{1}{rN}\sum_{i\in I_N}\xi_i \;\le\; \frac{\mathbb{E}[N_s]}{N} \;\le\; \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{(r-\xi_i)^2}{16M^2}\Big).$$

Write $N_s^{\mathrm{sel}} = \#\{i\in I_N : D_i\le r\}$ for the count without the condition on
the non-selected tokens (our earlier reading). Always $N_s \le N_s^{\mathrm{sel}}$.

## Upper side: Hoeffding on the paper's range and McDiarmid (needs $r \le \xi_i$)

$D_i$ lies in $[0, 2M]$ (the paper's range). Hoeffding's inequality for one variable with that
range gives the lower tail $\Pr(D_i \le \xi_i - t) \le \exp(-2t^2/(2M)^2) = \exp(-t^2/(2M^2))$.
Finer, $D_i = f(x_j : j\in I_N\setminus\{i\})$ for independent $x_j$, and replacing one $x_j$
changes $f$ by at most $\alpha_j\|x_j - x_j'\| \le 2M\alpha_j$, so McDiarmid gives

$$\Pr(D_i \le \xi_i - t) \le \exp\!\Big(-\frac{2t^2}{\sum_j (2M\alpha_j)^2}\Big) = \exp\!\Big(-\frac{t^2}{2M^2\sigma_i^2}\Big).$$

With $t = \xi_i - r$ this bounds $\Pr(D_i\le r)$, **but only when $r\le\xi_i$**. Averaging,
and using $\mathbb{E}[N_s] \le \mathbb{E}[N_s^{\mathrm{sel}}] = \sum_i\Pr(D_i\le r)$:

* reading `hoeffding`: $\mathbb{E}[N_s]/N \le \frac1N\sum_i \exp(-((\xi_i-r)_+)^2/(2M^2))$, every $r \ge 0$;
* reading `reconstructed`: $\mathbb{E}[N_s]/N \le \frac1N\sum_i \exp(-((\xi_i-r)_+)^2/(2M^2\sigma_i^2))$;
* reading `upper_if_r_le_xi`: the transcription with $16M^2$ holds when $r\le\min_i\xi_i$, since
  $2M^2\sigma_i^2 \le 2M^2 < 16M^2$. The summary's constant is valid but 8 times looser than
  the constant that Hoeffding on the paper's range $[0, 2M]$ gives. (The full text names
  Hoeffding and that range; its constant was lost with the formulas, so $2M^2$ is ours, not a
  quotation.)

## The transcribed upper side without a condition on $r$ is false

With $N = 1$, $D_1 = 0 = \xi_1$, so the transcribed right side is $e^{-r^2/(16M^2)} < 1$ for
every $r > 0$. With $\alpha = (\tfrac34,\tfrac14)$, $M = 1$, $r = \tfrac14$: the non-selected
$D_2 = \|\tfrac14 x_2 - \tfrac34 x_1\| \ge \tfrac12 > r$ surely, so $N_s = 1$ and
$\mathbb{E}[N_s]/N = 1 > e^{-1/256}$.

## Lower side: Markov holds for $N_s^{\mathrm{sel}}$, not for the paper's $N_s$

$D_i \ge 0$, so Markov gives $\Pr(D_i > r) \le \xi_i/r$ for $r>0$, hence
$\mathbb{E}[N_s^{\mathrm{sel}}]/N \ge 1 - \frac{1}{rN}\sum_i\xi_i$ (reading
`transcribed_lower-selected-only`, proved: see below). With the paper's definition this fails: with
$\alpha = (\tfrac12,\tfrac12)$, $N = 1$, $M = r = 1$, the non-selected
$D_2 = \tfrac12\|x_2 - x_1\| \le 1 = r$ always lies inside the ball, so $N_s = 0$ while the
Markov side is $1 - 0 = 1$. What holds (reading `lower_reconstructed`) subtracts the chance that
a non-selected token falls inside:

$$\frac{\mathbb{E}[N_s]}{N} \ge 1 - \frac{1}{rN}\sum_{i\in I_N}\xi_i - \sum_{j\notin I_N}\Pr(D_j \le r),$$

because $N_s \ge N_s^{\mathrm{sel}} - N\,\mathbf 1[\exists j\notin I_N: D_j\le r]$ (if some $D_j \le r$
then $N_s = 0 \ge N_s^{\mathrm{sel}} - N$, else $N_s = N_s^{\mathrm{sel}}$) and the union bound
$\Pr(\exists j\notin I_N: D_j\le r) \le \sum_{j\notin I_N}\Pr(D_j\le r)$. The chain checks, for any
$N < L$ (at $N = L$ no token is left out and $N_s = N_s^{\mathrm{sel}}$), Markov per selected token summed (rules `markov`, `termwise`), the union bound
(rule `union-bound`, used through `monotone-chain` since it enters with a minus sign), and the
count's definition in expectation. Writing $A_i = \{D_i \le r\}$ and
$B = \{\exists j\notin I_N: D_j \le r\}$, so that $N_s = \sum_i \mathbf 1[A_i \wedge \neg B]$:

* $\mathbf 1[A_i \wedge \neg B] \ge \mathbf 1[A_i] - \mathbf 1[B]$ at every outcome (rule
  `indicator-order`: both sides as 0/1 polynomials in the two events, compared at all four
  values), summed over $i$ (`termwise`) and averaged (`expect-monotone`);
* $\mathbb{E}\big[\frac1N\sum_i(\mathbf 1[A_i] - \mathbf 1[B])\big] = \frac1N\sum_i\Pr(A_i) - \Pr(B)$
  (rules `expect-sum` and `indicator-mean`: an indicator's mean is its event's probability);
* $\Pr(D_i > r) = 1 - \Pr(D_i \le r)$ (rule `indicator-algebra`).

So `lower_reconstructed` is **proved**. The same three rules take Markov's side for
$N_s^{\mathrm{sel}} = \sum_i \mathbf 1[A_i]$ to its expectation, so
`transcribed_lower-selected-only` is **proved** too.

## How the upper side is checked

The upper sides' chains start from the counts by their definitions. They check
$N_s \le N_s^{\mathrm{sel}}$ at every outcome (`indicator-order`, summed and averaged) and
$\mathbb{E}[N_s^{\mathrm{sel}}]/N = \frac1N\sum_i \Pr(D_i \le r)$ (`expect-sum`, `indicator-mean`).
Each token's term is then a case split on $\xi_i - r$ (rule `cases`):

* $\xi_i > r$: $\Pr(D_i \le r) = \Pr(D_i - \xi_i \le -(\xi_i - r))$ (`indicator-algebra`), and the
  tail bound with $t = \xi_i - r$;
* $\xi_i \le r$: the term is $\exp(0) = 1 \ge \Pr(D_i \le r)$ (`probability`). For
  `upper_if_r_le_xi` the hypothesis $r \le \xi_i$ makes this case $\xi_i = r$, where
  $e^{-(r-\xi_i)^2/(16M^2)} = 1$ (`monotone`, between $0$ and $\xi_i - r$).

The tail bounds read the setting, which each chain states as a hypothesis:

* `sphere_iid`: $D_i = \|\sum_{j\in I_N\setminus\{i\}}\alpha_j x_j\|$ with the $x_j$ independent,
  $\|x_j\| = M$ and $\alpha$ fixed, where $\sigma_{1,i} = \sum_{j\in I_N\setminus\{i\}}\alpha_j$ and
  $\sigma_i^2 = \sum_{j\in I_N\setminus\{i\}}\alpha_j^2$ (a `WeightedNorm`, see
  {doc}`/proof-rules`);
* `weights`: $\sigma_{1,i} \le 1$, since the attention weights sum to 1.

From them the kernel checks:

* McDiarmid's bounded differences $c_j = 2M\alpha_j$, so $\sum_j c_j^2 = 4M^2\sigma_i^2$ (rule `mcdiarmid`
  on the weighted norm);
* $0 \le D_i \le M\sigma_{1,i} \le M \le 2M$ (rule `weighted-norm`, then algebra), the range for
  Hoeffding (rule `hoeffding`). `upper_if_r_le_xi` takes Hoeffding's $e^{-t^2/(2M^2)}$ and then
  $2M^2 \le 16M^2$; McDiarmid's form with $\sigma_i^2 \le 1$ would do as well, but it needs
  $\sigma_i^2 > 0$.

Only `reconstructed` and `reconstructed-selected-only` divide by $\sigma_i^2$, so only their
chains take $\sigma_i^2 > 0$ (McDiarmid needs $\sum_j c_j^2 > 0$; at $\sigma_i^2 = 0$ their
right side is not defined). The other two also cover $\sigma_i^2 = 0$: $N = 1$, or other
selected weights that are all 0.

So `hoeffding`, `reconstructed` and `reconstructed-selected-only` are **proved** for every
$r \ge 0$, and `upper_if_r_le_xi` for every $r$ with $0 \le r \le \xi_i$ at every $i$ (its
hypothesis `r_le_xi`, the chain's `r<=xi`). Dropping `sphere_iid` breaks all four; dropping
`weights` breaks `hoeffding` and `upper_if_r_le_xi`, while McDiarmid's form keeps
$\sigma_i^2$ and does not need it; dropping `r<=xi` breaks `upper_if_r_le_xi`. Two independent
reviews tried to make the new rules accept false statements; what they found (random
thresholds and ranges, a case split on a summation index, a refuter world outside the
setting, a case split glued in prose) is fixed and kept as regression tests.

## Exact cases used for checking: $d=3$ or $d=1$, $N\le 2$

In $\mathbb{R}^3$ the cosine between two independent uniform directions is uniform on
$[-1,1]$, so $\Pr(\|a u - s\| \le r \mid \|s\| = \rho) = \mathrm{clip}\big((r^2-(a-\rho)^2)/(4a\rho), 0, 1\big)$.
For $N = 1$, $D_1 = 0$ and, given $x_1$, the non-selected $D_j$ are independent, so
$\mathbb{E}[N_s] = \prod_j(1 - \Pr(D_j \le r))$. For $N = 2$, $D_1 = \alpha_2 M$ and
$D_2 = \alpha_1 M$ are constants, $\|s\|^2$ is uniform on $[(\alpha_1-\alpha_2)^2M^2, (\alpha_1+\alpha_2)^2M^2]$,
and the product is integrated over it by Gauss–Legendre quadrature between its kinks. In
$\mathbb{R}^1$ the sphere is the two points $\pm M$: $\Pr(|a u - s| \le r \mid |s| = \rho)$ is the
mean of $1[|a-\rho| \le r]$ and $1[a+\rho \le r]$, and for $N = 2$, $\rho = |\alpha_1 \pm \alpha_2|M$
with probability $\tfrac12$ each (tested against the enumeration of all $2^L$ sign patterns).
The sweep and the Hypothesis search evaluate both sides with these formulas, in $d = 1$
and $d = 3$; Monte Carlo with 99% intervals checks $L = 16$, $N = 5$, $d = 8$. The
counterexamples below are in $d = 1$, the smallest dimension where they fail.

## The proofs tied to the readings' sides

Each proved reading's chain is evaluated at the reading's own instances in $\mathbb{R}^1$
(`_bind_line`), where $x_1, \dots, x_L$ uniform on $\{-M, M\}$ make a finite space of $2^L$
equally likely sign patterns: the chain's goal, a mean of the counts and the $\xi_i$ as means
on that space, must equal the sides the formulas above give. The fact `sphere_iid`
($D_i = \|\sum_{j\in I_N\setminus\{i\}}\alpha_j x_j\|$, the $x_j$ independent with norm $M$) is
checked against its witness, the other selected weights and the selected $x_j$ at each atom,
independence included (the law of the $x_j$ together is the product of each one's), and so are
`weights`, `r<=xi` and `D>=0`. The instances in $\mathbb{R}^3$, a continuous law, are passed
over; the selected-only readings draw $d \in \{1, 3\}$ where $N \le 2$ (there $D_i$ is a
constant, the same in every dimension), and $d = 3$ where $N = 3$.

## What the full text changed

The summary counted a selected token as soon as it was inside the ball; the full text also
requires every non-selected $\alpha_j x_j$ to lie outside it, and its proof uses Hoeffding on
$[0, 2M]$ and Markov with Cauchy–Schwarz.

| reading | before | now | why |
|---|---|---|---|
| `transcribed` | falsified ($\alpha=(\tfrac12,\tfrac12)$, $r=1$) | falsified ($\alpha=(\tfrac34,\tfrac14)$, $r=\tfrac14$) | the old instance has $N_s = 0$ under the paper's definition; a new one is needed |
| `transcribed_lower` | proved | falsified | a non-selected token inside the ball makes $N_s = 0$ |
| `transcribed_lower-selected-only` | proved | proved (Markov, and $\mathbb{E}[N_s^{\mathrm{sel}}]$ as a sum of probabilities by the indicator rules) | the chain now checks linearity over the indicators |
| `upper_if_r_le_xi` | proved | proved (Hoeffding, the range $[0, 2M]$ by `weighted-norm`, then $2M^2 \le 16M^2$; a case split per token) | $N_s \le N_s^{\mathrm{sel}}$, checked by the indicator rules |
| `reconstructed` | proved | proved (McDiarmid on the weighted norm, a case split per token) | $N_s \le N_s^{\mathrm{sel}}$, checked by the indicator rules |
| `hoeffding` | (new) | proved (Hoeffding, the range $[0, 2M]$ by `weighted-norm`, a case split per token) | the paper's own constant, $2M^2$ from the range $[0, 2M]$ |
| `lower_reconstructed` | (new) | proved (chain: Markov, termwise, union bound, the count's step by the indicator rules) | Markov plus the union bound over the non-selected tokens |
| `*-selected-only` | were `transcribed`, `transcribed_lower`, `reconstructed` | kept as alternatives; `transcribed_lower-selected-only` and `reconstructed-selected-only` are proved | our earlier reading |
"""

from __future__ import annotations


import numpy as np
from hypothesis import strategies as st

from attnbounds.claims.base import (SPACE, WITNESSES, Claim, Estimate, Hypothesis, NoFiniteSpace, Proof, Reading, Sides,
                                    chain_symbols)
from attnbounds.numerics.attention import per_token_distance, softmax, top_n, top_n_mask
from attnbounds.numerics.montecarlo import mean_ci
from attnbounds.numerics.sampling import sphere_points
from attnbounds.numerics.selection import distinguishable_mask, exact_sphere3, separability
from attnbounds.numerics.validation import check_count, check_rng
from attnbounds.strategies import simplex_points
from attnbounds.theory.separability import derive_separability, t2_chains

__all__ = [
    "CLAIM",
    "exact_terms",
    "exact_paper_terms",
    "paper_sides",
    "sample_distances",
    "mc_instance",
]

#: Monte Carlo instance: L tokens, N selected, dimension, sphere radius.
MC_L, MC_N, MC_DIM, MC_M = 16, 5, 8, 1.0


def exact_terms(instance: dict) -> dict:
    """Exact ξ_i, P(D_i ≤ r) and σ_i² for the selected tokens (N ≤ 2 any d; N = 3 needs d = 3).

    Instance: ``{"weights" (…, L), "n", "M", "r", "d"}`` (``M``, ``r`` scalars or per-row).
    Returns ``{"xi", "p", "sigma2"}`` with shape (…, N), plus ``"M"``, ``"r"`` shaped (…, 1).

    >>> t = exact_terms({"weights": np.array([0.5, 0.5]), "n": 1, "M": 1.0, "r": 1.0, "d": 1})
    >>> float(t["xi"][0]), float(t["p"][0])
    (0.0, 1.0)
    """
    if not isinstance(instance, dict):
        raise TypeError(f"instance: expected a dict, got {type(instance).__name__}")
    w = np.asarray(instance["weights"], dtype=np.float64)
    n = int(instance["n"])
    d = int(instance.get("d", 3))
    if n > 3:
        raise ValueError(f"n: exact evaluation needs n <= 3, got {n}; use the Monte Carlo method")
    if n == 3 and d != 3:
        raise ValueError(f"d: exact evaluation with n = 3 needs d = 3, got {d}")
    M = np.asarray(instance["M"], dtype=np.float64)[..., None]
    r = np.asarray(instance["r"], dtype=np.float64)[..., None]
    if np.any(M <= 0):
        raise ValueError("M: must be > 0")
    if np.any(r < 0):
        raise ValueError("r: must be >= 0")
    sel = np.take_along_axis(w, top_n(w, n), axis=-1)  # α_j, j ∈ I_N, (…, n)
    zeros = np.zeros(sel.shape[:-1] + (1,))
    if n == 1:
        a, b = zeros, zeros
    elif n == 2:
        a, b = sel[..., ::-1], np.zeros_like(sel)  # the one other selected weight
    else:
        a = sel[..., [1, 0, 0]]  # the two others of each selected token
        b = sel[..., [2, 2, 1]]
    # D_i scales with M: D_i = M‖Σ α_j u_j‖, so evaluate on the unit sphere at radius r/M.
    xi_unit, p = exact_sphere3(a, b, 1.0, np.broadcast_to(r / M, sel.shape))
    xi = M * xi_unit
    return {"xi": xi, "p": p, "sigma2": a**2 + b**2, "M": M, "r": r}


def _upper_transcribed(t: dict) -> np.ndarray:
    # (1/N) Σ_i exp(−(r − ξ_i)²/(16M²))
    return np.exp(-((t["r"] - t["xi"]) ** 2) / (16 * t["M"] ** 2)).mean(axis=-1)


def _upper_reconstructed(t: dict) -> np.ndarray:
    # (1/N) Σ_i exp(−((ξ_i − r)₊)²/(2M²σ_i²)); a term is 1 when (ξ_i − r)₊ = 0
    gap = np.clip(t["xi"] - t["r"], 0.0, None)
    denom = 2 * t["M"] ** 2 * t["sigma2"]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(gap > 0, np.exp(-(gap**2) / np.where(denom > 0, denom, 1.0)), 1.0)
    return term.mean(axis=-1)


def _sides_transcribed(instance: dict) -> Sides:
    t = exact_terms(instance)
    return Sides(t["p"].mean(axis=-1), _upper_transcribed(t))


def _sides_reconstructed(instance: dict) -> Sides:
    t = exact_terms(instance)
    return Sides(t["p"].mean(axis=-1), _upper_reconstructed(t))


def _sides_lower(instance: dict) -> Sides:
    t = exact_terms(instance)
    if np.any(t["r"] <= 0):
        raise ValueError("r: the Markov side needs r > 0")
    return Sides(1 - t["xi"].sum(axis=-1) / (t["r"][..., 0] * t["xi"].shape[-1]), t["p"].mean(axis=-1))


def _sides_conditioned(instance: dict) -> Sides:
    # r = u · min_i ξ_i with u ∈ [0, 1]: the condition r ≤ ξ_i holds by construction.
    u = np.asarray(instance["u"], dtype=np.float64)
    if np.any((u < 0) | (u > 1)):
        raise ValueError("u: must lie in [0, 1]")
    probe = exact_terms({**instance, "r": np.zeros_like(u)})
    r = u * probe["xi"].min(axis=-1)
    t = exact_terms({**instance, "r": r})
    return Sides(t["p"].mean(axis=-1), _upper_transcribed(t))


@st.composite
def _exact_strategy(draw, r_key: str = "r", positive_r: bool = False):
    w = draw(simplex_points(min_size=2, max_size=6))
    w = w / w.sum()
    n = draw(st.integers(1, min(3, w.size - 1)))
    M = draw(st.floats(0.25, 4.0, allow_nan=False, allow_infinity=False))
    # N <= 2: D_i is a constant, the same in every R^d; R^1 (two points) lets the tie build the space
    inst = {"weights": w, "n": n, "M": M, "d": 3 if n == 3 else draw(st.sampled_from([1, 3]))}
    if r_key == "u":
        inst["u"] = draw(st.floats(0.0, 1.0, allow_nan=False))
    else:
        lo = 1e-3 if positive_r else 0.0
        inst["r"] = M * draw(st.floats(lo, 2.0, allow_nan=False))
    return inst


def _exact_sweep(
    rng: np.random.Generator, size: int, r_key: str = "r", positive_r: bool = False, max_n: int = 3, line: bool = False
) -> dict:
    """A batch of instances in R³; with ``line``, in R¹ or R³ (drawn last) where N <= 2, as
    :func:`_exact_strategy` draws them."""
    L = int(rng.integers(2, 9))
    n = int(rng.integers(1, min(max_n, L - 1) + 1))
    T = np.exp(rng.uniform(np.log(0.05), np.log(20.0), size=(size, 1)))
    w = softmax(rng.standard_normal((size, L)), T)
    M = float(rng.uniform(0.25, 4.0))
    inst = {"weights": w, "n": n, "M": M, "d": 3}
    if r_key == "u":
        inst["u"] = rng.uniform(0.0, 1.0, size=size)
    else:
        inst["r"] = M * rng.uniform(1e-3 if positive_r else 0.0, 2.0, size=size)
    if line and n <= 2:
        inst["d"] = int(rng.choice([1, 3]))
    return inst


# ----------------------------------------------------------------------------- the paper's definition

#: Gauss–Legendre nodes per smooth piece of the N = 2 integral over ρ² = ‖s‖².
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)


def _p_inside(a, rho, r):
    """P(‖a·u − s‖ ≤ r) for u uniform on the unit sphere of R³ and ‖s‖ = ρ (a, ρ ≥ 0; broadcast).

    ‖a u − s‖² = a² + ρ² − 2aρ t with t ~ U[−1, 1], so the probability is
    clip((r² − (a − ρ)²)/(4aρ), 0, 1); it is 1[ρ ≤ r] when a = 0 and 1[a ≤ r] when ρ = 0.
    """
    a, rho, r = np.broadcast_arrays(np.asarray(a, float), np.asarray(rho, float), np.asarray(r, float))
    both = (a > 0) & (rho > 0)
    # (r² − (a − ρ)²)/(4aρ) in units of m = max(a, ρ), with s = min(a, ρ)/m: ((r/m)² − 1 + s(2 − s))/(4s).
    # Written so, it neither cancels (a ≪ ρ: r² − (ρ − a)² as written loses a, 1e-17 gave 0 for 1/2)
    # nor under- or overflows as a ρ product (a = 1e-308 is drawn); ±inf is read right by the clip
    m = np.where(both, np.maximum(a, rho), 1.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
        s = np.minimum(a, rho) / m
        ratio = ((r - m) / m * (r / m + 1) + s * (2 - s)) / (4 * s)  # (r − m exact near m: no rounding of r/m there)
    ratio = np.where(np.isnan(ratio), 0.5, ratio)  # 0/0: s below the smallest float and r = max(a, ρ), where P → 1/2
    smooth = np.clip(ratio, 0.0, 1.0)
    return np.where(both, smooth, np.where(a > 0, (a <= r), (rho <= r)).astype(float))


def _p_inside_line(a, rho, r):
    """P(|a·u − s| ≤ r) for u uniform on {−1, 1} (the unit sphere of R¹) and |s| = ρ: the mean of
    1[|a − ρ| ≤ r] and 1[a + ρ ≤ r] (broadcast)."""
    a, rho, r = np.broadcast_arrays(np.asarray(a, float), np.asarray(rho, float), np.asarray(r, float))
    return ((np.abs(a - rho) <= r).astype(float) + (a + rho <= r).astype(float)) / 2


def exact_paper_terms(instance: dict) -> dict:
    """Exact terms of Theorem 2 with the paper's definition of N_s, d = 3 or d = 1, N ≤ 2.

    N_s counts the selected i with D_i ≤ r, and only when every non-selected D_j > r. Returns
    ``{"frac", "xi", "sigma2", "p_sel", "sum_p_out", "M", "r"}``: E[N_s]/N, ξ_i = E[D_i], σ_i²,
    P(D_i ≤ r) for the selected tokens and Σ_{j∉I_N} P(D_j ≤ r).

    * N = 1: D_1 = 0 ≤ r; given x_1, the non-selected D_j = ‖α_j x_j − α_1 x_1‖ are independent
      with a law that does not depend on x_1, so E[N_s] = Π_j (1 − P(D_j ≤ r)).
    * N = 2: D_1 = α_2 M and D_2 = α_1 M are constants; given s (ρ = ‖s‖, ρ² uniform on
      [(α_1 − α_2)² M², (α_1 + α_2)² M²]) the non-selected D_j are independent, so
      E[N_s] = #{i: D_i ≤ r} · E_ρ[Π_j (1 − P(D_j ≤ r | ρ))], integrated by Gauss–Legendre on the
      pieces between the kinks ρ ∈ {|α_j M − r|, α_j M + r}.
    * d = 1: the sphere is {−M, M}, so P(D_j ≤ r | ρ) = (1[|α_j M − ρ| ≤ r] + 1[α_j M + ρ ≤ r])/2,
      and with N = 2, ρ = |α_1 ± α_2| M with probability 1/2 each (a mean of two terms, no
      quadrature).

    >>> t = exact_paper_terms({"weights": np.array([0.75, 0.25]), "n": 1, "M": 1.0, "r": 0.25, "d": 3})
    >>> float(t["frac"]), float(t["sum_p_out"])
    (1.0, 0.0)
    >>> float(exact_paper_terms({"weights": np.array([0.5, 0.5]), "n": 1, "M": 1.0, "r": 1.0, "d": 3})["frac"])
    0.0
    """
    if not isinstance(instance, dict):
        raise TypeError(f"instance: expected a dict, got {type(instance).__name__}")
    w = np.asarray(instance["weights"], dtype=np.float64)
    n = int(instance["n"])
    d = int(instance.get("d", 3))
    if d not in (1, 3):
        raise ValueError(f"d: exact evaluation of the paper's N_s needs d = 1 or 3, got {instance.get('d')}")
    if n not in (1, 2):
        raise ValueError(f"n: exact evaluation of the paper's N_s needs n <= 2, got {n}; use the Monte Carlo method")
    if w.shape[-1] <= n:
        raise ValueError(f"weights: need L > n = {n}, got L = {w.shape[-1]}")
    M = np.asarray(instance["M"], dtype=np.float64)
    r = np.asarray(instance["r"], dtype=np.float64)
    if np.any(M <= 0):
        raise ValueError("M: must be > 0")
    if np.any(r < 0):
        raise ValueError("r: must be >= 0")
    order = np.argsort(-w, axis=-1, kind="stable")
    sel = np.take_along_axis(w, order[..., :n], axis=-1)  # (…, n)
    out = np.take_along_axis(w, order[..., n:], axis=-1) * M[..., None]  # (…, K): a_j = α_j M
    rr = r[..., None]
    inside = _p_inside if d == 3 else _p_inside_line
    if n == 1:
        p_out = inside(out, sel * M[..., None], rr)  # ρ = ‖α_1 x_1‖ = α_1 M
        frac = np.prod(1 - p_out, axis=-1)
        xi = np.zeros(sel.shape)
        sigma2 = np.zeros(sel.shape)
        p_sel = np.ones(sel.shape)
        sum_p_out = p_out.sum(axis=-1)
    elif d == 1:  # ρ = |α_1 ± α_2| M, each with probability 1/2
        other = sel[..., ::-1] * M[..., None]
        xi, sigma2 = other, sel[..., ::-1] ** 2
        p_sel = (other <= rr).astype(float)
        rhos = np.stack([np.abs(sel[..., 0] - sel[..., 1]), sel[..., 0] + sel[..., 1]], axis=-1) * M[..., None]  # (…, 2)
        p_j = _p_inside_line(out[..., None, :], rhos[..., None], rr[..., None])  # (…, 2, K)
        frac = p_sel.mean(axis=-1) * np.prod(1 - p_j, axis=-1).mean(axis=-1)
        sum_p_out = p_j.mean(axis=-2).sum(axis=-1)
    else:
        other = sel[..., ::-1] * M[..., None]  # D_1 = α_2 M, D_2 = α_1 M
        xi, sigma2 = other, sel[..., ::-1] ** 2
        p_sel = (other <= rr).astype(float)
        lo = ((sel[..., 0] - sel[..., 1]) * M) ** 2  # ρ² range
        hi = ((sel[..., 0] + sel[..., 1]) * M) ** 2
        kinks = np.concatenate([(out - rr) ** 2, (out + rr) ** 2], axis=-1)  # (…, 2K) in ρ²
        cuts = np.sort(np.clip(np.concatenate([lo[..., None], kinks, hi[..., None]], axis=-1), lo[..., None], hi[..., None]), axis=-1)
        left, right = cuts[..., :-1], cuts[..., 1:]  # (…, P)
        half = (right - left) / 2
        u = (left + right)[..., None] / 2 + half[..., None] * _GL_NODES  # (…, P, G)
        rho = np.sqrt(u)
        miss = np.prod(1 - _p_inside(out[..., None, None, :], rho[..., None], rr[..., None, None]), axis=-1)
        span = np.where(hi > lo, hi - lo, 1.0)
        integral = (half[..., None] * _GL_WEIGHTS * miss).sum(axis=(-2, -1)) / span
        point = np.prod(1 - _p_inside(out, np.sqrt(lo)[..., None], rr), axis=-1)  # α_1 = α_2 ... degenerate span
        all_out = np.where(hi > lo, integral, point)
        frac = p_sel.mean(axis=-1) * all_out
        # Σ_j P(D_j ≤ r) = Σ_j E_ρ[P(D_j ≤ r | ρ)], by the same quadrature
        p_j = _p_inside(out[..., None, None, :], rho[..., None], rr[..., None, None])  # (…, P, G, K)
        mean_p = (half[..., None, None] * _GL_WEIGHTS[:, None] * p_j).sum(axis=(-3, -2)) / span[..., None]
        sum_p_out = np.where(hi > lo, mean_p.sum(axis=-1), _p_inside(out, np.sqrt(lo)[..., None], rr).sum(axis=-1))
    return {"frac": frac, "xi": xi, "sigma2": sigma2, "p_sel": p_sel, "sum_p_out": sum_p_out,
            "M": M[..., None], "r": rr}


def _mean_exp(t: dict, denom, plus: bool):
    # (1/N) Σ_i exp(−g_i²/denom_i), g = (ξ − r)₊ (plus) or r − ξ; a term with g = 0 is 1
    g = np.clip(t["xi"] - t["r"], 0.0, None) if plus else (t["r"] - t["xi"])
    denom = np.broadcast_to(denom, g.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(g != 0, np.exp(-(g**2) / np.where(denom > 0, denom, 1.0)), 1.0)
    term = np.where((g != 0) & (denom <= 0), 0.0, term)
    return term.mean(axis=-1)


def paper_sides(kind: str):
    """``sides`` of the T2 readings with the paper's N_s (exact, d = 1 or 3, N ≤ 2).

    ``kind``: ``transcribed`` (E[N_s]/N ≤ mean exp(−(r − ξ)²/(16M²))), ``lower`` (Markov side),
    ``conditioned`` (upper side at r = u·min ξ), ``hoeffding`` (exp(−((ξ − r)₊)²/(2M²))),
    ``reconstructed`` (exp(−((ξ − r)₊)²/(2M²σ²))) or ``lower_reconstructed`` (Markov minus
    Σ_{j∉I_N} P(D_j ≤ r)).

    >>> s = paper_sides("lower")({"weights": np.array([0.5, 0.5]), "n": 1, "M": 1.0, "r": 1.0, "d": 3})
    >>> float(s.lhs), float(s.rhs)
    (1.0, 0.0)
    """
    kinds = ("transcribed", "lower", "conditioned", "hoeffding", "reconstructed", "lower_reconstructed")
    if kind not in kinds:
        raise ValueError(f"kind: must be one of {kinds}, got {kind!r}")

    def sides(instance) -> Sides:
        if kind == "conditioned" and "u" not in instance and "r" in instance:
            pass  # r given directly: the condition r <= xi_i is then not imposed (drop demonstrations)
        elif kind == "conditioned":
            u = np.asarray(instance["u"], dtype=np.float64)
            if np.any((u < 0) | (u > 1)):
                raise ValueError("u: must lie in [0, 1]")
            probe = exact_paper_terms({**instance, "r": np.zeros_like(u)})
            instance = {**instance, "r": u * probe["xi"].min(axis=-1)}
        t = exact_paper_terms(instance)
        M2 = t["M"] ** 2
        if kind in ("transcribed", "conditioned"):
            return Sides(t["frac"], _mean_exp(t, 16 * M2, plus=False))
        if kind == "hoeffding":
            return Sides(t["frac"], _mean_exp(t, 2 * M2, plus=True))
        if kind == "reconstructed":
            return Sides(t["frac"], _mean_exp(t, 2 * M2 * t["sigma2"], plus=True))
        if np.any(t["r"] <= 0):
            raise ValueError("r: the Markov side needs r > 0")
        markov = 1 - t["xi"].sum(axis=-1) / (t["r"][..., 0] * t["xi"].shape[-1])
        if kind == "lower":
            return Sides(markov, t["frac"])
        return Sides(markov - t["sum_p_out"], t["frac"])

    return sides


@st.composite
def _paper_strategy(draw, r_key: str = "r", positive_r: bool = False):
    w = draw(simplex_points(min_size=2, max_size=6))
    w = w / w.sum()
    n = draw(st.integers(1, min(2, w.size - 1)))
    M = draw(st.floats(0.25, 4.0, allow_nan=False, allow_infinity=False))
    inst = {"weights": w, "n": n, "M": M, "d": draw(st.sampled_from([1, 3]))}  # the exact cases: R¹ and R³
    if r_key == "u":
        inst["u"] = draw(st.floats(0.0, 1.0, allow_nan=False))
    else:
        inst["r"] = M * draw(st.floats(1e-3 if positive_r else 0.0, 2.0, allow_nan=False))
    return inst


def _paper_sweep(rng: np.random.Generator, size: int, r_key: str = "r", positive_r: bool = False) -> dict:
    inst = _exact_sweep(rng, size, r_key=r_key, positive_r=positive_r, max_n=2)  # N <= 2
    inst["d"] = int(rng.choice([1, 3]))  # the exact cases: R¹ and R³
    return inst


# ----------------------------------------------------------------------------- Monte Carlo


def mc_instance(rng: np.random.Generator) -> dict:
    """The Monte Carlo setting: L = 16, N = 5, d = 8, M = 1, weights softmax of 2·N(0, 1) logits.

    >>> mc_instance(np.random.default_rng(0))["weights"].shape
    (16,)
    """
    check_rng(rng, "rng")
    return {"weights": softmax(2.0 * rng.standard_normal(MC_L)), "n": MC_N, "d": MC_DIM, "M": MC_M}


def sample_distances(rng: np.random.Generator, weights, n: int, samples: int, dim: int, radius: float):
    """``samples`` draws of (D_i)_{i∈I_N} with x_i i.i.d. uniform on the sphere; shape ``(samples, n)``.

    Also returns the embeddings' batch so callers can recompute with other kernels.

    >>> D, x = sample_distances(np.random.default_rng(0), [0.5, 0.5], 1, 3, 2, 1.0)
    >>> D.shape, float(abs(D).max())
    ((3, 1), 0.0)
    """
    samples = check_count(samples, "samples", minimum=2)
    w = np.asarray(weights, dtype=np.float64)
    x = sphere_points(rng, samples, w.size, dim, radius)  # (samples, L, d)
    D = per_token_distance(w, x, n)  # (samples, L)
    return D[:, top_n(w, n)], x


def _interval_exp(lo, hi, r, scale, plus: bool):
    # Range of exp(−(r − ξ)²/scale) (plus=False) or exp(−((ξ − r)₊)²/scale) (plus=True) over ξ ∈ [lo, hi].
    def f(v):
        g = np.clip(v - r, 0.0, None) if plus else (r - v)
        return np.exp(-(g**2) / scale)

    if plus:  # non-increasing in ξ
        return f(hi), f(lo)
    low = np.minimum(f(lo), f(hi))
    high = np.where((lo <= r) & (r <= hi), 1.0, np.maximum(f(lo), f(hi)))
    return low, high


def _paper_fraction(w, x, n, r) -> np.ndarray:
    # N_s/N per draw with the paper's definition
    return distinguishable_mask(w, x, n, r).sum(axis=-1) / n


def _mc_upper(kind: str, definition: str = "paper"):
    def run(rng: np.random.Generator, samples: int) -> Estimate:
        inst = mc_instance(rng)
        w, n, d, M = inst["weights"], inst["n"], inst["d"], inst["M"]
        sel = w[top_n(w, n)]
        pilot, _ = sample_distances(rng, w, n, 1000, d, M)
        xi_pilot = pilot.mean(axis=0)
        if kind == "transcribed":
            # paper: a small ball keeps the non-selected tokens out; selected-only: every D_i <= M sum_{j != i} alpha_j
            r = float(0.5 * xi_pilot.min()) if definition == "paper" else float(sel.sum() * M)
        elif kind == "conditioned":
            r = float(0.5 * xi_pilot.min())
        else:
            r = float(xi_pilot.mean())
        samples = max(int(samples), 2)
        D, x = sample_distances(rng, w, n, samples, d, M)
        frac = _paper_fraction(w, x, n, r) if definition == "paper" else separability(w, x, n, r)
        lhs, lhs_lo, lhs_hi = mean_ci(frac, confidence=0.99)
        # ξ_i intervals, Bonferroni over the n tokens, then the exact range of the right side.
        _, xi_lo, xi_hi = mean_ci(D, confidence=1 - 0.01 / n, axis=0)
        xi_hat = D.mean(axis=0)
        if kind == "reconstructed":
            scale, plus = 2 * M**2 * ((sel**2).sum() - sel**2), True
        elif kind == "hoeffding":
            scale, plus = np.full(n, 2 * M**2), True
        else:
            scale, plus = np.full(n, 16 * M**2), False
        lo_terms, hi_terms = _interval_exp(xi_lo, xi_hi, r, scale, plus)
        mid = _interval_exp(xi_hat, xi_hat, r, scale, plus)[0]
        return Estimate(
            lhs, (lhs_lo, lhs_hi), float(mid.mean()), (float(lo_terms.mean()), float(hi_terms.mean())),
            samples, 0.99,
            instance={**inst, "r": r},
            detail=f"L={MC_L}, N={n}, d={d}, M={M}, r={r:.4g}: E[N_s]/N ({definition}) vs upper side ({kind})",
        )

    return run


def _mc_lower(definition: str = "paper", union: bool = False):
    def run(rng: np.random.Generator, samples: int) -> Estimate:
        inst = mc_instance(rng)
        w, n, d, M = inst["weights"], inst["n"], inst["d"], inst["M"]
        pilot, _ = sample_distances(rng, w, n, 1000, d, M)
        r = float(pilot.mean())
        samples = max(int(samples), 2)
        D, x = sample_distances(rng, w, n, samples, d, M)
        markov = 1 - D.sum(axis=1) / (r * n)  # per-draw 1 − Σ_i D_i/(rN), mean 1 − Σξ_i/(rN)
        if union:  # minus Σ_{j∉I_N} 1[D_j ≤ r], mean Σ_j P(D_j ≤ r)
            D_all = per_token_distance(w, x, n)
            markov = markov - ((D_all <= r) & ~top_n_mask(w, n)).sum(axis=-1)
        lhs, lhs_lo, lhs_hi = mean_ci(markov, confidence=0.99)
        frac = _paper_fraction(w, x, n, r) if definition == "paper" else separability(w, x, n, r)
        rhs, rhs_lo, rhs_hi = mean_ci(frac, confidence=0.99)
        return Estimate(
            lhs, (lhs_lo, lhs_hi), rhs, (rhs_lo, rhs_hi), samples, 0.99,
            instance={**inst, "r": r},
            detail=f"L={MC_L}, N={n}, d={d}, M={M}, r={r:.4g} (mean xi): Markov side{' - union term' if union else ''} "
            f"vs E[N_s]/N ({definition})",
        )

    return run


# ----------------------------------------------------------------------------- exact methods

#: Old minimal counterexample (selected-only count): L = 2, N = 1, r = M = 1.
_CEX = {"weights": np.array([0.5, 0.5]), "n": 1, "M": 1.0, "r": 1.0, "d": 1}
#: Paper's definition, upper side: the non-selected token stays outside a small ball.
CEX_UPPER = {"weights": np.array([0.75, 0.25]), "n": 1, "M": 1.0, "r": 0.25, "d": 1}
#: Paper's definition, Markov side: the non-selected token is always inside the ball.
CEX_LOWER = {"weights": np.array([0.5, 0.5]), "n": 1, "M": 1.0, "r": 1.0, "d": 1}


def _symbolic_transcribed() -> Proof:
    t = exact_paper_terms(CEX_UPPER)
    rhs = float(derive_separability()["counterexample_rhs"].expr)  # exp(-1/256)
    return Proof(
        False,
        "N = 1: D_1 = 0 = xi_1, so the right side is exp(-r^2/(16M^2)) < 1; weights (3/4, 1/4), M = 1, r = 1/4: "
        f"the non-selected D_2 = |x_2/4 - 3x_1/4| >= 1/2 > r surely, E[N_s]/N = {float(t['frac']):g} > exp(-1/256)",
        counterexample=dict(CEX_UPPER),
        lhs=float(t["frac"]),
        rhs=rhs,
    )


def _symbolic_lower() -> Proof:
    t = exact_paper_terms(CEX_LOWER)
    return Proof(
        False,
        "weights (1/2, 1/2), N = 1, M = r = 1: the non-selected D_2 = |x_2 - x_1|/2 <= 1 = r always, so N_s = 0; "
        "the Markov side is 1 - 0 = 1",
        counterexample=dict(CEX_LOWER),
        lhs=1.0,
        rhs=float(t["frac"]),
    )


def _symbolic_lower_selected() -> Proof:
    derive_separability()
    return Proof.from_chain(t2_chains()["markov"], "Markov: P(D_i > r) <= xi_i/r for r > 0 (D_i >= 0); average over i in I_N")


def _symbolic_lower_reconstructed() -> Proof:
    derive_separability()
    return Proof.from_chain(
        t2_chains()["union"],
        "N_s >= N_s^sel - N 1[some non-selected D_j <= r], in expectation; Markov for each selected i "
        "(averaged with termwise), union bound over the K = L - N tokens j not in I_N",
    )


def _symbolic_conditioned() -> Proof:
    derive_separability()
    return Proof.from_chain(
        t2_chains()["conditioned"],
        "N_s <= N_s^sel; per token, xi_i > r: Hoeffding for D_i in [0, 2M], exp(-t^2/(2M^2)) <= exp(-t^2/(16M^2)) "
        "with t = xi_i - r; xi_i = r: the term is exp(0) = 1",
    )


def _symbolic_hoeffding() -> Proof:
    derive_separability()
    return Proof.from_chain(
        t2_chains()["hoeffding"],
        "N_s <= N_s^sel; per token, xi_i > r: Hoeffding for one variable D_i in [0, 2M], P(D_i <= xi_i - t) <= "
        "exp(-2t^2/(2M)^2) = exp(-t^2/(2M^2)) with t = xi_i - r; xi_i <= r: the term is exp(0) = 1",
    )


def _symbolic_reconstructed() -> Proof:
    res = derive_separability()
    return Proof.from_chain(
        t2_chains()["mcdiarmid"],
        f"N_s <= N_s^sel; term {res['corrected_upper_term'].expr}: McDiarmid for xi_i > r, 1 = exp(0) otherwise "
        "(a case split per token)",
    )


def _symbolic_reconstructed_selected() -> Proof:
    res = derive_separability()
    return Proof.from_chain(
        t2_chains()["mcdiarmid_selected"],
        f"E[N_s^sel]/N = (1/N) sum_i P(D_i <= r); term {res['corrected_upper_term'].expr}: McDiarmid for xi_i > r, "
        "1 = exp(0) otherwise (a case split per token)",
    )


def _symbolic_transcribed_selected() -> Proof:
    res = derive_separability()
    rhs = float(res["counterexample_rhs_selected"].expr)
    return Proof(
        False,
        "selected-only count: L=2, N=1, M=1, r=1: D = 0, xi = 0, "
        f"E[N_s^sel]/N = 1 > exp(-1/16) = {rhs:.6f}",
        counterexample=dict(_CEX),
        lhs=1.0,
        rhs=rhs,
    )


def _drop_condition() -> Proof:
    return Proof(
        False,
        "r > xi_i: weights (3/4, 1/4), N = 1, M = 1, r = 1/4 gives E[N_s]/N = 1 > exp(-1/256)",
        counterexample=dict(CEX_UPPER),
        lhs=1.0,
        rhs=float(np.exp(-1 / 256)),
    )


def _bind_line(chain: str, r_key: str = "r"):
    """``bind`` for the T2 chain ``chain`` of :func:`~attnbounds.theory.separability.t2_chains`:
    the setting at d = 1 as a finite probability space, apart from the sides' formulas. The
    sphere of radius M in R¹ is the two points ±M, so x_1, …, x_L independent and uniform on it
    make 2^L equally likely atoms, one per pattern of signs. The tokens are ranked as the sides
    rank them (largest weight first, equal weights in index order): D(i) = |α_{o_i} x_{o_i} − s|
    for the N selected (i = 1..N, s = Σ_{selected} α x) and D_out(j) the same for the K = L − N
    others, at each atom; σ1_i and σ2_i are the sum and the sum of squares of the other selected
    weights, and t_i = ξ_i − r with ξ_i the mean of D(i) on the space. The WeightedNorm fact
    ``sphere_iid`` (D(i) = |Σ_{j≠i selected} α_j x_j|) is witnessed by those weights and the
    selected x_j at each atom, which the tie checks, independence included. With ``r_key`` "u",
    r = u·min_i ξ_i, as the sides set it.

    At d = 3 the law on the sphere is continuous: the bind raises
    :class:`~attnbounds.claims.base.NoFiniteSpace` and the tie passes the instance over.

    >>> b = _bind_line("hoeffding")({"weights": np.array([0.5, 0.3, 0.2]), "n": 2, "M": 1.0, "r": 0.1, "d": 1})
    >>> {str(k): np.round(np.asarray(v), 3).tolist() for k, v in b.items() if str(k) in ("sigma1", "sigma2", "K")}
    {'K': 1, 'sigma1': [0.3, 0.5], 'sigma2': [0.09, 0.25]}
    >>> len(b[SPACE]), sorted(b[WITNESSES])
    (8, ['sphere_iid'])
    """
    import itertools

    def bind(instance: dict) -> dict:
        d = int(instance.get("d", 3))
        if d != 1:
            raise NoFiniteSpace(f"d = {d}: the uniform law on the sphere of R^{d} is continuous (the tie's space is R^1's, "
                                "the two points ±M)")
        names = chain_symbols(t2_chains()[chain])
        w = np.asarray(instance["weights"], dtype=np.float64)
        n, M, L = int(instance["n"]), float(instance["M"]), w.shape[-1]
        if r_key == "u":  # r = u · min_i ξ_i, as paper_sides("conditioned") sets it
            r = float(instance["u"]) * float(exact_paper_terms({**instance, "r": 0.0})["xi"].min())
        else:
            r = float(instance["r"])
        order = np.argsort(-w, kind="stable")
        sel, rest = order[:n], order[n:]
        x = M * np.array(list(itertools.product((-1.0, 1.0), repeat=L))).T  # x_k at each atom, (L, 2^L)
        y = w[:, None] * x
        s = y[sel].sum(axis=0)
        prob = np.full(x.shape[1], 1.0 / x.shape[1])
        others = np.where(np.eye(n, dtype=bool), 0.0, w[sel][None, :])  # row i: the other selected weights
        # D(i) = |α_i x_i − s| as the sum it is, |Σ_{j≠i} α_j x_j| (at N ≤ 2 exactly the sides' α_j M: not
        # an ulp off it, which would move D(i) across r = ξ_i)
        D = np.abs(others @ x[sel])  # (N, atoms)
        given = {"D": D, "D_out": np.abs(y[rest] - s), "N": n, "K": L - n, "M": M, "r": r,
                 "sigma1": others.sum(axis=1), "sigma2": (others**2).sum(axis=1), "t": D @ prob - r}
        out = {names[k]: v for k, v in given.items() if k in names}
        out[SPACE] = prob
        if "sigma1" in names:  # the chains with the WeightedNorm fact
            out[WITNESSES] = {"sphere_iid": (others, x[sel][..., None])}
        return out

    return bind


def _sigma_positive(instance):
    """σ_i² = Σ_{j∈I_N∖{i}} α_j² > 0 for every selected i: N ≥ 2 and the second largest weight > 0
    (McDiarmid's form divides by σ_i²; at σ_i² = 0 its right side is not defined)."""
    w = np.sort(np.asarray(instance["weights"], dtype=np.float64), axis=-1)
    return (np.asarray(instance["n"]) >= 2) & (w[..., -2] > 0)


def _reading(name, statement, latex, symbolic, kind, mc, r_key="r", positive_r=False, relation="<=", note="",
             assume=None, bind=None):
    return Reading(
        name,
        statement,
        latex,
        relation=relation,
        assume=assume,
        symbolic=symbolic,
        strategy=lambda: _paper_strategy(r_key=r_key, positive_r=positive_r),
        sides=paper_sides(kind),
        sweep=lambda rng, size: _paper_sweep(rng, size, r_key=r_key, positive_r=positive_r),
        montecarlo=mc,
        rtol=1e-9,
        atol=1e-9,
        note=note,
        bind=bind,
    )


_NS = "N_s = #{i in I_N: D_i <= r} if every non-selected D_j > r, else 0"

CLAIM = Claim(
    id="T2",
    order=6,
    title="Theorem 2: geometric separability under a spherical assumption",
    source="arXiv 2508.17821, Theorem 2; distinguishable as defined in the full text",
    statement=(
        "x_i i.i.d. uniform on the sphere of radius M, independent of alpha; N_s counts the selected tokens with "
        "alpha_i x_i in B_r(s) when every non-selected alpha_j x_j lies outside. Then E[N_s]/N <= (1/N) sum "
        "exp(-((xi_i - r)_+)^2/(2 M^2 sigma_i^2)) and E[N_s]/N >= 1 - (1/(rN)) sum xi_i - sum_{j not in I_N} P(D_j <= r)."
    ),
    transcription="1 - (1/rN) sum_{i in I_N} xi_i <= E[N_s]/N <= (1/N) sum_{i in I_N} exp[-(r - xi_i)^2/(16 M^2)]",
    transcription_latex=(
        r"1-\frac{1}{rN}\sum_{i\in I_N}\xi_i \le \frac{\mathbb{E}[N_s]}{N} \le "
        r"\frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{(r-\xi_i)^2}{16M^2}\Big)"
    ),
    hypotheses=(
        Hypothesis("sphere_iid", "x_i i.i.d. uniform on the sphere of radius M in R^d, independent of alpha"),
        Hypothesis("r_positive", "r > 0 (Markov side)",
                   readings=("transcribed_lower", "lower_reconstructed", "transcribed_lower-selected-only")),
        Hypothesis("r_le_xi", "r <= xi_i for every i in I_N (upper side with (r - xi_i)^2)", drop=_drop_condition,
                   names=("r<=xi",),  # the chain's form of it
                   readings=("upper_if_r_le_xi",)),  # the (xi_i - r)_+ forms hold for every r >= 0
    ),
    readings=(
        _reading(
            "transcribed",
            f"upper side as written, any r >= 0, {_NS}: E[N_s]/N <= (1/N) sum exp(-(r - xi_i)^2/(16 M^2))",
            r"\frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}e^{-(r-\xi_i)^2/(16M^2)}",
            _symbolic_transcribed, "transcribed", _mc_upper("transcribed"),
            note="false: with r > xi_i the right side is < 1 while N_s/N can be 1",
        ),
        _reading(
            "transcribed_lower",
            f"left side as written, r > 0, {_NS}: 1 - (1/(rN)) sum xi_i <= E[N_s]/N",
            r"1-\frac{1}{rN}\sum_{i\in I_N}\xi_i \le \frac{\mathbb{E}[N_s]}{N}",
            _symbolic_lower, "lower", _mc_lower("paper"), positive_r=True,
            note="false: a non-selected token inside the ball makes N_s = 0",
        ),
        _reading(
            "upper_if_r_le_xi",
            "upper side as written, restricted to r <= min_i xi_i (instances give r = u min_i xi_i, u in [0, 1])",
            r"r\le\min_i\xi_i \Rightarrow \frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}e^{-(r-\xi_i)^2/(16M^2)}",
            _symbolic_conditioned, "conditioned", _mc_upper("conditioned"), r_key="u",
            bind=_bind_line("conditioned", r_key="u"),
        ),
        _reading(
            "hoeffding",
            "the constant Hoeffding gives on the paper's range (D_i in [0, 2M]; the paper's own constant was lost): E[N_s]/N <= (1/N) sum exp(-((xi_i - r)_+)^2/(2 M^2))",
            r"\frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{((\xi_i-r)_+)^2}{2M^2}\Big)",
            _symbolic_hoeffding, "hoeffding", _mc_upper("hoeffding"), bind=_bind_line("hoeffding"),
        ),
        _reading(
            "reconstructed",
            "every r >= 0 and sigma_i^2 > 0 (N >= 2): E[N_s]/N <= (1/N) sum exp(-((xi_i - r)_+)^2/(2 M^2 sigma_i^2)), "
            "sigma_i^2 = sum_{j in I_N, j != i} alpha_j^2",
            r"\frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{((\xi_i-r)_+)^2}{2M^2\sigma_i^2}\Big)",
            _symbolic_reconstructed, "reconstructed", _mc_upper("reconstructed"), assume=_sigma_positive,
            bind=_bind_line("mcdiarmid"),
        ),
        _reading(
            "lower_reconstructed",
            "r > 0: 1 - (1/(rN)) sum xi_i - sum_{j not in I_N} P(D_j <= r) <= E[N_s]/N (Markov + union bound)",
            r"1-\frac{1}{rN}\sum_{i\in I_N}\xi_i - \sum_{j\notin I_N}\Pr(D_j\le r) \le \frac{\mathbb{E}[N_s]}{N}",
            _symbolic_lower_reconstructed, "lower_reconstructed", _mc_lower("paper", union=True), positive_r=True,
            bind=_bind_line("union"),
        ),
        Reading(
            "transcribed-selected-only",
            "CLAIMS.md's reading of the summary, N_s = #{i in I_N: D_i <= r} (non-selected tokens ignored), upper side as written, any r >= 0",
            r"N_s^{\mathrm{sel}}:\ \frac{\mathbb{E}[N_s^{\mathrm{sel}}]}{N} \le \frac1N\sum_{i\in I_N}e^{-(r-\xi_i)^2/(16M^2)}",
            relation="<=",
            symbolic=_symbolic_transcribed_selected,
            strategy=_exact_strategy,
            sides=_sides_transcribed,
            sweep=_exact_sweep,
            montecarlo=_mc_upper("transcribed", definition="selected"),
        ),
        Reading(
            "transcribed_lower-selected-only",
            "CLAIMS.md's reading of the summary, N_s = #{i in I_N: D_i <= r}, r > 0: 1 - (1/(rN)) sum xi_i <= E[N_s]/N",
            r"1-\frac{1}{rN}\sum_{i\in I_N}\xi_i \le \frac{\mathbb{E}[N_s^{\mathrm{sel}}]}{N}",
            relation="<=",
            symbolic=_symbolic_lower_selected,
            strategy=lambda: _exact_strategy(positive_r=True),
            sides=_sides_lower,
            sweep=lambda rng, size: _exact_sweep(rng, size, positive_r=True, line=True),
            bind=_bind_line("markov"),
            montecarlo=_mc_lower("selected"),
        ),
        Reading(
            "reconstructed-selected-only",
            "CLAIMS.md's reading of the summary, N_s = #{i in I_N: D_i <= r}, sigma_i^2 > 0 (N >= 2): E[N_s]/N <= (1/N) sum "
            "exp(-((xi_i - r)_+)^2/(2 M^2 sigma_i^2))",
            r"\frac{\mathbb{E}[N_s^{\mathrm{sel}}]}{N} \le \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{((\xi_i-r)_+)^2}{2M^2\sigma_i^2}\Big)",
            relation="<=",
            assume=_sigma_positive,
            symbolic=_symbolic_reconstructed_selected,
            strategy=_exact_strategy,
            sides=_sides_reconstructed,
            sweep=lambda rng, size: _exact_sweep(rng, size, line=True),
            bind=_bind_line("mcdiarmid_selected"),
            montecarlo=_mc_upper("reconstructed", definition="selected"),
        ),
    ),
    proof=__doc__,
    symbolic_form=lambda: {k: v.expr for k, v in derive_separability().items()},
    derivations=("T2",),
)
