r"""# Theorem 2: geometric separability

**Setting.** Fixed weights $\alpha$ (independent of the embeddings) with top-$N$ set $I_N$.
The embeddings $x_1,\dots,x_L$ are i.i.d. uniform on the sphere $M\,S^{d-1}$. For a
selected token $i\in I_N$,

$$D_i = \|\alpha_i x_i - s\| = \Big\|\sum_{j\in I_N\setminus\{i\}}\alpha_j x_j\Big\| ,$$

which depends only on the *other* selected embeddings. $N_s = \#\{i\in I_N : D_i \le r\}$
counts the selected tokens inside the ball $B_r(s)$, and $\xi_i = \mathbb{E}[D_i]$. Then
$\mathbb{E}[N_s]/N = \frac1N\sum_{i\in I_N}\Pr(D_i\le r)$. The summary states

$$1 - \frac{1}{rN}\sum_{i\in I_N}\xi_i \;\le\; \frac{\mathbb{E}[N_s]}{N} \;\le\; \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{(r-\xi_i)^2}{16M^2}\Big).$$

## Lower side: Markov (needs $r>0$ only)

$D_i \ge 0$, so Markov's inequality gives $\Pr(D_i > r) \le \xi_i/r$ for $r>0$, i.e.
$\Pr(D_i\le r) \ge 1-\xi_i/r$. Averaging over $i\in I_N$ gives the left inequality. It uses
neither the sphere nor independence. It is informative only when $r > \frac1N\sum_i\xi_i$.

## Upper side: McDiarmid, lower tail (needs $r \le \xi_i$)

$D_i = f(x_j : j\in I_N\setminus\{i\})$ for independent $x_j$. Replacing one $x_j$ by $x_j'$
changes $f$ by at most $\alpha_j\|x_j - x_j'\| \le 2M\alpha_j$ (reverse triangle inequality;
two points of the sphere are at most $2M$ apart). McDiarmid's inequality for the lower tail
gives, for $t \ge 0$,

$$\Pr(D_i \le \xi_i - t) \le \exp\!\Big(-\frac{2t^2}{\sum_j (2M\alpha_j)^2}\Big) = \exp\!\Big(-\frac{t^2}{2M^2\sigma_i^2}\Big),\qquad \sigma_i^2 = \sum_{j\in I_N\setminus\{i\}}\alpha_j^2 .$$

With $t = \xi_i - r$ this bounds $\Pr(D_i\le r)$, **but only when $r\le\xi_i$**. Since
$\sigma_i^2 \le (\sum_j\alpha_j)^2 \le 1$, our denominator satisfies $2M^2\sigma_i^2 \le 2M^2 < 16M^2$.
So the summary's constant $16M^2$ is valid, but loose by a factor $8/\sigma_i^2 \ge 8$,
**provided** $r \le \min_i \xi_i$ (reading `upper_if_r_le_xi`). For every $r\ge0$ the correct
statement replaces $(r-\xi_i)^2$ by $((\xi_i-r)_+)^2$ (reading `reconstructed`):

$$\frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{((\xi_i-r)_+)^2}{2M^2\sigma_i^2}\Big).$$

## The transcription without a condition on $r$ is false

For $r > \xi_i$ the transcribed term is $<1$, while $\Pr(D_i\le r)$ tends to $1$. It equals
$1$ as soon as $r \ge M\sum_{j\ne i}\alpha_j$, because $D_i$ never exceeds that value. The
minimal case is $L=2$, $N=1$, any $d$, $M=1$, $r=1$. Then $D_1 = 0$ and $\xi_1 = 0$, so
$\mathbb{E}[N_s]/N = 1 > e^{-1/16} \approx 0.939$. A non-degenerate Monte Carlo check
($L=16$, $N=5$, $d=8$, $r = \bar\alpha_N M$) gives the same verdict with confidence
intervals.

## Exact case used for checking: $d=3$, $N\le3$

In $\mathbb{R}^3$ the cosine $t$ between two independent uniform directions is uniform on
$[-1,1]$. With the other selected weights $a\ge b>0$, $D_i = M\sqrt{a^2+b^2+2abt}$. Hence
$\xi_i = M\frac{(a+b)^3-(a-b)^3}{6ab}$ (integrate
$\frac{d}{dt}\frac{(a^2+b^2+2abt)^{3/2}}{3ab}$) and
$\Pr(D_i\le r) = \mathrm{clip}\big(\frac{(r/M)^2-(a-b)^2}{4ab},0,1\big)$. For $N\le 2$, $D_i$ is
deterministic. The sweep and the Hypothesis search evaluate both sides exactly with these
formulas, and the tests check them against Monte Carlo.
"""

from __future__ import annotations

import numbers

import numpy as np
from hypothesis import strategies as st

from attnbounds.claims.base import Claim, Estimate, Hypothesis, Proof, Reading, Sides
from attnbounds.numerics.attention import per_token_distance, softmax, top_n
from attnbounds.numerics.montecarlo import mean_ci
from attnbounds.numerics.sampling import sphere_points
from attnbounds.numerics.selection import separability
from attnbounds.strategies import simplex_points
from attnbounds.theory.separability import derive_separability, exact_sphere3

__all__ = [
    "CLAIM",
    "exact_terms",
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
    inst = {"weights": w, "n": n, "M": M, "d": 3}
    if r_key == "u":
        inst["u"] = draw(st.floats(0.0, 1.0, allow_nan=False))
    else:
        lo = 1e-3 if positive_r else 0.0
        inst["r"] = M * draw(st.floats(lo, 2.0, allow_nan=False))
    return inst


def _exact_sweep(rng: np.random.Generator, size: int, r_key: str = "r", positive_r: bool = False) -> dict:
    L = int(rng.integers(2, 9))
    n = int(rng.integers(1, min(3, L - 1) + 1))
    T = np.exp(rng.uniform(np.log(0.05), np.log(20.0), size=(size, 1)))
    w = softmax(rng.standard_normal((size, L)), T)
    M = float(rng.uniform(0.25, 4.0))
    inst = {"weights": w, "n": n, "M": M, "d": 3}
    if r_key == "u":
        inst["u"] = rng.uniform(0.0, 1.0, size=size)
    else:
        inst["r"] = M * rng.uniform(1e-3 if positive_r else 0.0, 2.0, size=size)
    return inst


# ----------------------------------------------------------------------------- Monte Carlo


def mc_instance(rng: np.random.Generator) -> dict:
    """The Monte Carlo setting: L = 16, N = 5, d = 8, M = 1, weights softmax of 2·N(0, 1) logits.

    >>> mc_instance(np.random.default_rng(0))["weights"].shape
    (16,)
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng: expected a numpy Generator, got {type(rng).__name__}")
    return {"weights": softmax(2.0 * rng.standard_normal(MC_L)), "n": MC_N, "d": MC_DIM, "M": MC_M}


def sample_distances(rng: np.random.Generator, weights, n: int, samples: int, dim: int, radius: float):
    """``samples`` draws of (D_i)_{i∈I_N} with x_i i.i.d. uniform on the sphere; shape ``(samples, n)``.

    Also returns the embeddings' batch so callers can recompute with other kernels.

    >>> D, x = sample_distances(np.random.default_rng(0), [0.5, 0.5], 1, 3, 2, 1.0)
    >>> D.shape, float(abs(D).max())
    ((3, 1), 0.0)
    """
    if isinstance(samples, bool) or not isinstance(samples, numbers.Integral) or samples < 2:
        raise ValueError(f"samples: must be an integer >= 2, got {samples!r}")
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


def _mc_upper(kind: str):
    def run(rng: np.random.Generator, samples: int) -> Estimate:
        inst = mc_instance(rng)
        w, n, d, M = inst["weights"], inst["n"], inst["d"], inst["M"]
        sel = w[top_n(w, n)]
        pilot, _ = sample_distances(rng, w, n, 1000, d, M)
        xi_pilot = pilot.mean(axis=0)
        if kind == "transcribed":
            r = float(sel.sum() * M)  # every D_i ≤ M Σ_{j≠i} α_j < ᾱ_N M
        elif kind == "conditioned":
            r = float(0.5 * xi_pilot.min())
        else:
            r = float(xi_pilot.mean())
        samples = max(int(samples), 2)
        D, x = sample_distances(rng, w, n, samples, d, M)
        frac = separability(w, x, n, r)  # N_s/N per draw
        lhs, lhs_lo, lhs_hi = mean_ci(frac, confidence=0.99)
        # ξ_i intervals, Bonferroni over the n tokens, then the exact range of the right side.
        _, xi_lo, xi_hi = mean_ci(D, confidence=1 - 0.01 / n, axis=0)
        xi_hat = D.mean(axis=0)
        if kind == "reconstructed":
            sigma2 = (sel**2).sum() - sel**2
            scale = 2 * M**2 * sigma2
            plus = True
        else:
            scale = np.full(n, 16 * M**2)
            plus = False
        lo_terms, hi_terms = _interval_exp(xi_lo, xi_hi, r, scale, plus)
        mid = _interval_exp(xi_hat, xi_hat, r, scale, plus)[0]
        return Estimate(
            lhs, (lhs_lo, lhs_hi), float(mid.mean()), (float(lo_terms.mean()), float(hi_terms.mean())),
            samples, 0.99,
            instance={**inst, "r": r},
            detail=f"L={MC_L}, N={n}, d={d}, M={M}, r={r:.4g}: E[N_s]/N vs upper side ({kind}); xi_i by Monte Carlo",
        )

    return run


def _mc_lower(rng: np.random.Generator, samples: int) -> Estimate:
    inst = mc_instance(rng)
    w, n, d, M = inst["weights"], inst["n"], inst["d"], inst["M"]
    pilot, _ = sample_distances(rng, w, n, 1000, d, M)
    r = float(pilot.mean())
    samples = max(int(samples), 2)
    D, x = sample_distances(rng, w, n, samples, d, M)
    markov = 1 - D.sum(axis=1) / (r * n)  # per-draw 1 − Σ_i D_i/(rN), mean 1 − Σξ_i/(rN)
    lhs, lhs_lo, lhs_hi = mean_ci(markov, confidence=0.99)
    rhs, rhs_lo, rhs_hi = mean_ci(separability(w, x, n, r), confidence=0.99)
    return Estimate(
        lhs, (lhs_lo, lhs_hi), rhs, (rhs_lo, rhs_hi), samples, 0.99,
        instance={**inst, "r": r},
        detail=f"L={MC_L}, N={n}, d={d}, M={M}, r={r:.4g} (mean xi): Markov side vs E[N_s]/N",
    )


# ----------------------------------------------------------------------------- exact methods

_CEX = {"weights": np.array([0.5, 0.5]), "n": 1, "M": 1.0, "r": 1.0, "d": 1}


def _symbolic_transcribed() -> Proof:
    res = derive_separability()
    rhs = float(res["counterexample_rhs"].expr)
    return Proof(
        False,
        "the exponential bounds P(D_i <= r) only for r <= xi_i; L=2, N=1, M=1, r=1: D = 0, xi = 0, "
        f"E[N_s]/N = 1 > exp(-1/16) = {rhs:.6f}",
        counterexample=dict(_CEX),
        lhs=1.0,
        rhs=rhs,
    )


def _symbolic_lower() -> Proof:
    derive_separability()
    return Proof(True, "Markov: P(D_i > r) <= xi_i/r for r > 0 (D_i >= 0); average over i in I_N")


def _symbolic_conditioned() -> Proof:
    res = derive_separability()
    return Proof(
        True,
        f"McDiarmid lower tail, c_j = {res['bounded_difference'].expr}: exponent {res['mcdiarmid_exponent'].expr}; "
        f"16M^2 / (2M^2 sigma2) = {res['denominator_ratio'].expr} >= 8, so 16M^2 is valid when r <= xi_i",
    )


def _symbolic_reconstructed() -> Proof:
    res = derive_separability()
    return Proof(
        True,
        f"term {res['corrected_upper_term'].expr}: McDiarmid for xi_i > r, trivial bound 1 otherwise",
    )


def _drop_condition() -> Proof:
    return Proof(
        False,
        "r > xi_i: L=2, N=1, M=1, r=1 gives E[N_s]/N = 1 > exp(-1/16)",
        counterexample=dict(_CEX),
        lhs=1.0,
        rhs=float(np.exp(-1 / 16)),
    )


CLAIM = Claim(
    id="T2",
    order=6,
    title="Theorem 2: geometric separability under a spherical assumption",
    source="arXiv 2508.17821, Theorem 2 (as transcribed in the Spanish summary)",
    statement=(
        "With x_i i.i.d. uniform on the sphere of radius M, independent of alpha, and N_s the number of "
        "top-N tokens with D_i <= r: 1 - (1/(rN)) sum xi_i <= E[N_s]/N <= (1/N) sum exp(-(r - xi_i)^2/(16 M^2))."
    ),
    transcription="1 - (1/rN) sum_{i in I_N} xi_i <= E[N_s]/N <= (1/N) sum_{i in I_N} exp[-(r - xi_i)^2/(16 M^2)]",
    transcription_latex=(
        r"1-\frac{1}{rN}\sum_{i\in I_N}\xi_i \le \frac{\mathbb{E}[N_s]}{N} \le "
        r"\frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{(r-\xi_i)^2}{16M^2}\Big)"
    ),
    hypotheses=(
        Hypothesis("sphere_iid", "x_i i.i.d. uniform on the sphere of radius M in R^d, independent of alpha"),
        Hypothesis("r_positive", "r > 0 (Markov side)"),
        Hypothesis("r_le_xi", "r <= xi_i for every i in I_N (upper side with (r - xi_i)^2)", drop=_drop_condition),
    ),
    readings=(
        Reading(
            "transcribed",
            "upper side as written, any r >= 0: E[N_s]/N <= (1/N) sum exp(-(r - xi_i)^2/(16 M^2)) "
            "(the left side is the reading transcribed_lower)",
            r"\frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}e^{-(r-\xi_i)^2/(16M^2)}",
            relation="<=",
            symbolic=_symbolic_transcribed,
            strategy=_exact_strategy,
            sides=_sides_transcribed,
            sweep=_exact_sweep,
            montecarlo=_mc_upper("transcribed"),
        ),
        Reading(
            "transcribed_lower",
            "left side as written, r > 0: 1 - (1/(rN)) sum xi_i <= E[N_s]/N",
            r"1-\frac{1}{rN}\sum_{i\in I_N}\xi_i \le \frac{\mathbb{E}[N_s]}{N}",
            relation="<=",
            symbolic=_symbolic_lower,
            strategy=lambda: _exact_strategy(positive_r=True),
            sides=_sides_lower,
            sweep=lambda rng, size: _exact_sweep(rng, size, positive_r=True),
            montecarlo=_mc_lower,
        ),
        Reading(
            "upper_if_r_le_xi",
            "upper side as written, restricted to r <= min_i xi_i (instances give r = u min_i xi_i, u in [0, 1])",
            r"r\le\min_i\xi_i \Rightarrow \frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}e^{-(r-\xi_i)^2/(16M^2)}",
            relation="<=",
            symbolic=_symbolic_conditioned,
            strategy=lambda: _exact_strategy(r_key="u"),
            sides=_sides_conditioned,
            sweep=lambda rng, size: _exact_sweep(rng, size, r_key="u"),
            montecarlo=_mc_upper("conditioned"),
        ),
        Reading(
            "reconstructed",
            "every r >= 0: E[N_s]/N <= (1/N) sum exp(-((xi_i - r)_+)^2/(2 M^2 sigma_i^2)), "
            "sigma_i^2 = sum_{j in I_N, j != i} alpha_j^2",
            r"\frac{\mathbb{E}[N_s]}{N} \le \frac1N\sum_{i\in I_N}\exp\!\Big(-\frac{((\xi_i-r)_+)^2}{2M^2\sigma_i^2}\Big)",
            relation="<=",
            symbolic=_symbolic_reconstructed,
            strategy=_exact_strategy,
            sides=_sides_reconstructed,
            sweep=_exact_sweep,
            montecarlo=_mc_upper("reconstructed"),
        ),
    ),
    proof=__doc__,
    symbolic_form=lambda: {k: v.expr for k, v in derive_separability().items()},
    derivations=("T2",),
)
