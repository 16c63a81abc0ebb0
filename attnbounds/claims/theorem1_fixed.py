r"""# Theorem 1 (i): the fixed top-N distance bound

**Setting.** Weights $\alpha \in \Delta^{L-1}$ (non-negative, $\sum_i \alpha_i = 1$), embeddings
$x_1,\dots,x_L \in \mathbb{R}^d$, the top-$N$ set $I_N$ ($1 \le N < L$), the selected mass
$\bar\alpha_N = \sum_{j\in I_N}\alpha_j$, the context vector $s = \sum_{j\in I_N}\alpha_j x_j$,
$D_i = \|\alpha_i x_i - s\|_2$ and $\tilde d = \sum_{i\notin I_N} D_i$. Write
$d_1 = \max_{i\notin I_N}\|x_i\|$ and $R = \max_{j\in I_N}\|x_j\|$.

The summary transcribes the theorem as

$$\tilde d \le (1-\bar\alpha_N)\,d_1 + R\,\bar\alpha_N (L-N) - (1-\bar\alpha_N).$$

## Reconstruction

**Claim.** $\tilde d \le B := (1-\bar\alpha_N)\,d_1 + (L-N)\,\bar\alpha_N R$, and $B$ is attained
for every choice of $\alpha$, $N$, $d_1$, $R$ and $d$.

**Proof.** By the triangle inequality and the definition of $R$,
$\|s\| \le \sum_{j\in I_N}\alpha_j\|x_j\| \le \bar\alpha_N R$. Again by the triangle inequality,
for each non-selected token $i$,

$$D_i = \|\alpha_i x_i - s\| \le \alpha_i\|x_i\| + \|s\| \le \alpha_i d_1 + \bar\alpha_N R.$$

There are $L-N$ non-selected tokens and their weights sum to $1-\bar\alpha_N$, so summing gives
$\tilde d \le d_1(1-\bar\alpha_N) + (L-N)\bar\alpha_N R = B$. The proof never uses that $I_N$
holds the *largest* weights: the bound holds for every $N$-subset.

**Sharpness.** Fix a unit vector $e$. Put $x_j = R\,e$ for $j\in I_N$ and $x_i = -d_1 e$ for
$i\notin I_N$. Then $s = \bar\alpha_N R\,e$ and
$\alpha_i x_i - s = -(\alpha_i d_1 + \bar\alpha_N R)\,e$, so every $D_i$ equals its bound and
$\tilde d = B$. Both triangle inequalities are equalities because all the vectors involved are
parallel with the same orientation. So $B$ is the best bound expressible in
$\bar\alpha_N, L, N, d_1, R$ (already in dimension $d=1$).

## The transcription is false

The transcribed right side equals $B - (1-\bar\alpha_N)$. At the witness above $\tilde d = B$,
so the transcription fails whenever $\bar\alpha_N < 1$. The smallest case is $L=2$, $N=1$,
$d=1$, $\alpha = (\tfrac12,\tfrac12)$, $x = (1,-1)$: then $I_N=\{1\}$, $s = \tfrac12$,
$\tilde d = |-\tfrac12-\tfrac12| = 1$, while the transcribed side is
$\tfrac12 + \tfrac12 - \tfrac12 = \tfrac12$. The trailing term is also not homogeneous in $x$:
with $x = 0$ the transcription asserts $0 \le -(1-\bar\alpha_N)$, false whenever
$\bar\alpha_N < 1$. The checker's Hypothesis search shrinks to such an instance.

## Why normalization is needed

The step "$\sum_{i\notin I_N}\alpha_i = 1-\bar\alpha_N$" uses $\sum_i\alpha_i = 1$. For
unnormalized weights $\alpha = (1,1)$, $x = (1,-1)$, $N=1$: $\tilde d = 2 > B = 1$.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from attnbounds.claims.base import Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.numerics.attention import cumulative_distance, selected_mass, softmax, top_n_mask
from attnbounds.strategies import attention_configs, simplex_points
from attnbounds.theory.distance import (
    derive_t1_fixed,
    sharpness_witness,
    t1_fixed_bounds,
    transcription_counterexample_t1i,
)

__all__ = ["CLAIM", "bound_terms", "sides_reconstructed", "sides_transcribed", "sweep_instances"]


def bound_terms(instance: dict) -> dict:
    """d̃ and the ingredients of the bound for an instance ``{"weights", "x", "n"}`` (batched or not).

    Returns ``{"d_tilde", "alpha_N", "d_1", "R", "L", "n"}``; d_1 = max_{i∉I_N}‖x_i‖ and
    R = max_{j∈I_N}‖x_j‖.

    >>> t = bound_terms({"weights": np.array([0.5, 0.5]), "x": np.array([[1.0], [-1.0]]), "n": 1})
    >>> float(t["d_tilde"]), float(t["alpha_N"]), float(t["d_1"]), float(t["R"])
    (1.0, 0.5, 1.0, 1.0)
    """
    if not isinstance(instance, dict):
        raise TypeError(f"instance: expected a dict, got {type(instance).__name__}")
    for key in ("weights", "x", "n"):
        if key not in instance:
            raise KeyError(f"instance: missing {key!r}")
    w = np.asarray(instance["weights"], dtype=np.float64)
    x = np.asarray(instance["x"], dtype=np.float64)
    n = int(instance["n"])
    mask = top_n_mask(w, n)  # (..., L)
    norms = np.linalg.norm(x, axis=-1)  # (..., L)
    return {
        "d_tilde": cumulative_distance(w, x, n),
        "alpha_N": selected_mass(w, n),
        "d_1": np.where(mask, -np.inf, norms).max(axis=-1),  # max_{i∉I_N} ‖x_i‖
        "R": np.where(mask, norms, -np.inf).max(axis=-1),  # max_{j∈I_N} ‖x_j‖
        "L": w.shape[-1],
        "n": n,
    }


def _bound(t: dict) -> np.ndarray:
    # B = (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R
    return (1 - t["alpha_N"]) * t["d_1"] + (t["L"] - t["n"]) * t["alpha_N"] * t["R"]


def sides_reconstructed(instance: dict) -> Sides:
    """d̃ ≤ (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R.

    >>> s = sides_reconstructed(transcription_counterexample_t1i())
    >>> float(s.lhs), float(s.rhs)
    (1.0, 1.0)
    """
    t = bound_terms(instance)
    return Sides(t["d_tilde"], _bound(t))


def sides_transcribed(instance: dict) -> Sides:
    """d̃ ≤ (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R − (1 − ᾱ_N), as the summary writes it.

    >>> s = sides_transcribed(transcription_counterexample_t1i())
    >>> float(s.lhs), float(s.rhs)
    (1.0, 0.5)
    """
    t = bound_terms(instance)
    return Sides(t["d_tilde"], _bound(t) - (1 - t["alpha_N"]))


def sweep_instances(rng: np.random.Generator, size: int) -> dict:
    """A batch of ``size`` random instances sharing L ∈ [2, 12], d ∈ [1, 4] and n ∈ [1, L − 1].

    Weights are softmax of N(0, 1) logits at a log-uniform temperature in [0.05, 20] per
    instance; embeddings are N(0, 1) entries scaled per instance by a log-uniform factor.

    >>> b = sweep_instances(np.random.default_rng(0), 3)
    >>> b["weights"].shape[0], b["x"].shape[0]
    (3, 3)
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng: expected a numpy Generator, got {type(rng).__name__}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size: must be an integer >= 1, got {size!r}")
    L = int(rng.integers(2, 13))
    d = int(rng.integers(1, 5))
    n = int(rng.integers(1, L))
    T = np.exp(rng.uniform(np.log(0.05), np.log(20.0), size=(size, 1)))
    w = softmax(rng.standard_normal((size, L)), T)
    scale = np.exp(rng.uniform(np.log(0.1), np.log(10.0), size=(size, 1, 1)))
    x = scale * rng.standard_normal((size, L, d))
    return {"weights": w, "x": x, "n": n}


def _sweep_witnesses(rng: np.random.Generator, size: int) -> dict:
    # Random weights, then the antiparallel witness with random d_1, R per instance.
    L = int(rng.integers(2, 13))
    d = int(rng.integers(1, 5))
    n = int(rng.integers(1, L))
    w = softmax(rng.standard_normal((size, L)), np.exp(rng.uniform(-3, 3, size=(size, 1))))
    mask = top_n_mask(w, n)
    d1 = rng.uniform(0.0, 3.0, size=(size, 1))
    R = rng.uniform(0.0, 3.0, size=(size, 1))
    u = rng.standard_normal((size, 1, d))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    x = np.where(mask, R, -d1)[..., None] * u  # x_j = R u on I_N, x_i = −d_1 u off it
    return {"weights": w, "x": x, "n": n}


@st.composite
def _witness_strategy(draw):
    w = draw(simplex_points(min_size=2, max_size=6))
    n = draw(st.integers(1, w.size - 1))
    d1 = draw(st.floats(0.0, 5.0, allow_nan=False, allow_infinity=False))
    R = draw(st.floats(0.0, 5.0, allow_nan=False, allow_infinity=False))
    dim = draw(st.integers(1, 3))
    return sharpness_witness(w / w.sum(), n, d1, R, dim)


def _configs():
    return attention_configs(min_size=2, max_size=6, min_dim=1, max_dim=3)


def _symbolic_reconstructed() -> Proof:
    derive_t1_fixed()  # raises if an exact step fails
    return Proof(
        None,
        "argued (no checked chain yet): triangle inequality D_i <= a_i|x_i| + |s| <= a_i d_1 + alpha_N R; sum over the L-N "
        "non-selected tokens with sum a_i = 1 - alpha_N (identity checked by expand)",
    )


def _symbolic_sharp() -> Proof:
    derive_t1_fixed()  # includes Abs(-a_i d_1 - alpha_N R) == a_i d_1 + alpha_N R exactly
    return Proof(None, "argued (no checked chain yet): antiparallel witness x_j = R e on I_N, x_i = -d_1 e: every D_i equals its bound (exact)")


def _symbolic_transcribed() -> Proof:
    res = derive_t1_fixed()
    inst = transcription_counterexample_t1i()
    return Proof(
        False,
        f"right side is the sharp bound minus {res['transcription_gap'].expr}; at the witness "
        "L=2, N=1, weights=(1/2,1/2), x=(1,-1): d~ = 1 > 1/2",
        counterexample=inst,
        lhs=float(res["counterexample_d_tilde"].expr),
        rhs=float(res["counterexample_transcribed_rhs"].expr),
    )


def _check_normalized(instance: dict):
    w = np.asarray(instance["weights"], dtype=np.float64)
    return np.all(w >= 0, axis=-1) & np.isclose(w.sum(axis=-1), 1.0)


def _drop_normalized() -> Proof:
    # Unnormalized weights (1, 1): s = x_0 = 1, D_1 = |−1 − 1| = 2 > B = 0·1 + 1·1·1 = 1.
    w = np.array([1.0, 1.0])
    x = np.array([[1.0], [-1.0]])
    s = w[0] * x[0]
    d_tilde = float(np.linalg.norm(w[1] * x[1] - s))
    abar = float(w[0])
    bound = (1 - abar) * 1.0 + (2 - 1) * abar * 1.0
    return Proof(
        False,
        "without sum(alpha) = 1: weights (1, 1), x = (1, -1), N = 1 give d~ = 2 > B = 1",
        counterexample={"weights": w, "x": x, "n": 1},
        lhs=d_tilde,
        rhs=bound,
    )


CLAIM = Claim(
    id="T1i",
    order=3,
    title="Theorem 1 (i): distance bound for a fixed top-N set",
    source="arXiv 2508.17821, Theorem 1 (i) (as transcribed in the Spanish summary)",
    statement=(
        "For the top-N set I_N, the cumulative distance d~ = sum_{i not in I_N} |alpha_i x_i - s| is at most "
        "(1 - alpha_N) d_1 + (L - N) alpha_N max_{j in I_N} |x_j|."
    ),
    transcription="d~ <= (1 - alpha_N) d_1 + max_{j in I_N} |x_j|_2 alpha_N (L - N) - (1 - alpha_N)",
    transcription_latex=(
        r"\tilde d \le (1-\bar\alpha_N)\,d_1 + \max_{j\in I_N}\|x_j\|_2\,\bar\alpha_N (L-N) - (1-\bar\alpha_N)"
    ),
    hypotheses=(
        Hypothesis(
            "normalized",
            "the weights are a probability vector (non-negative, summing to 1)",
            check=_check_normalized,
            drop=_drop_normalized,
        ),
        Hypothesis("top_n", "I_N is the set of the N largest weights, 1 <= N < L (the proof works for any N-subset)"),
    ),
    readings=(
        Reading(
            "transcribed",
            "d~ <= (1 - alpha_N) d_1 + (L - N) alpha_N R - (1 - alpha_N), R = max_{j in I_N} |x_j|",
            r"\tilde d \le (1-\bar\alpha_N)d_1 + (L-N)\bar\alpha_N R - (1-\bar\alpha_N)",
            relation="<=",
            symbolic=_symbolic_transcribed,
            strategy=_configs,
            sides=sides_transcribed,
            sweep=sweep_instances,
            note="false: the sharpness witness has d~ = B > B - (1 - alpha_N)",
        ),
        Reading(
            "reconstructed",
            "d~ <= (1 - alpha_N) d_1 + (L - N) alpha_N R",
            r"\tilde d \le (1-\bar\alpha_N)d_1 + (L-N)\bar\alpha_N R",
            relation="<=",
            symbolic=_symbolic_reconstructed,
            strategy=_configs,
            sides=sides_reconstructed,
            sweep=sweep_instances,
        ),
        Reading(
            "sharp",
            "the antiparallel witness (x_j = R e on I_N, x_i = -d_1 e off it) attains the reconstructed bound",
            r"\tilde d(x^\star) = (1-\bar\alpha_N)d_1 + (L-N)\bar\alpha_N R",
            relation="==",
            symbolic=_symbolic_sharp,
            strategy=_witness_strategy,
            sides=sides_reconstructed,
            sweep=_sweep_witnesses,
        ),
    ),
    proof=__doc__,
    symbolic_form=t1_fixed_bounds,
    derivations=("T1i",),
)
