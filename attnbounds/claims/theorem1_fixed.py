r"""# Theorem 1 (i): the fixed top-N distance bound

**Setting.** Weights $\alpha \in \Delta^{L-1}$ (non-negative, $\sum_i \alpha_i = 1$), embeddings
$x_1,\dots,x_L \in \mathbb{R}^d$, the top-$N$ set $I_N$ ($1 \le N < L$), the selected mass
$\bar\alpha_N = \sum_{j\in I_N}\alpha_j$, the context vector $s = \sum_{j\in I_N}\alpha_j x_j$,
$D_i = \|\alpha_i x_i - s\|_2$ and $\tilde d = \sum_{i\notin I_N} D_i$. As in the paper,

$$d_1 = \max_{i\notin I_N,\ j\in I_N}\|x_i - x_j\|_2, \qquad R = \max_{j\in I_N}\|x_j\|_2 ,$$

the largest distance between a non-selected and a selected embedding, and the largest
selected norm. The summary transcribes the theorem as

$$\tilde d \le (1-\bar\alpha_N)\,d_1 + R\,\bar\alpha_N (L-N) - (1-\bar\alpha_N).$$

## Reconstruction

**Claim.** For the top-$N$ set,

$$\tilde d \le B := (1-\bar\alpha_N)\,d_1 + R\,\big((L-N)\,\bar\alpha_N - (1-\bar\alpha_N)\big),$$

and $B$ is attained for every weight vector, every $N$, every $d_1, R \ge 0$ and every $d$.

**Proof.** Fix a non-selected token $i$. Because $\sum_{j\in I_N}\alpha_j/\bar\alpha_N = 1$,

$$\alpha_i x_i - s = \sum_{j\in I_N}\frac{\alpha_j}{\bar\alpha_N}\Big(\alpha_i\,(x_i - x_j) - (\bar\alpha_N - \alpha_i)\,x_j\Big).$$

$I_N$ holds the largest weights, so $\alpha_i \le \min_{j\in I_N}\alpha_j \le \bar\alpha_N$ and
$\bar\alpha_N - \alpha_i \ge 0$. By the triangle inequality each bracket has norm at most
$\alpha_i d_1 + (\bar\alpha_N - \alpha_i)R$, and so does their convex combination:

$$D_i \le \alpha_i d_1 + (\bar\alpha_N - \alpha_i)\,R .$$

The non-selected weights sum to $1-\bar\alpha_N$ and there are $L-N$ of them, so summing
gives $\tilde d \le (1-\bar\alpha_N)d_1 + R\big((L-N)\bar\alpha_N - (1-\bar\alpha_N)\big) = B$.

**Sharpness.** Fix a unit vector $e$. Put $x_j = R\,e$ for $j\in I_N$ and
$x_i = (R - d_1)\,e$ for $i\notin I_N$. Every selected–non-selected distance is $d_1$, the
largest selected norm is $R$, $s = \bar\alpha_N R\,e$ and
$\alpha_i x_i - s = -\big(\alpha_i d_1 + (\bar\alpha_N - \alpha_i)R\big)\,e$, so every $D_i$
equals its bound and $\tilde d = B$. No bound in $\alpha, N, d_1, R$ can be smaller. With
$d_1 = 2$ and $R = 1$ the witness lies on the unit sphere ($x_i = -e$).

## The checked chain

The kernel checks this proof for every $N$ and $L$ (`t1i_chains` in
{py:mod}`attnbounds.theory.distance`). With $w_j = \alpha_j/\bar\alpha_N$ and the weighted mean
$c = \sum_{j\in I_N} w_j x_j$ (so $s = \bar\alpha_N c$), the ball lemma $\|c\| \le R$ and
$\|x_i - c\| \le d_1$ is a chain over the $N$ selected terms (rules `triangle-sum`, `termwise`,
with $\sum_j w_j = 1$, $\|x_j\| \le R$ and $\|x_i - x_j\| \le d_1$). The per-token bound uses the
two as lemmas: $\|\alpha_i x_i - \bar\alpha_N c\| \le \alpha_i\|x_i - c\| + (\bar\alpha_N - \alpha_i)\|c\|$.
The sum takes each $D_i = \|\alpha_i x_i - \bar\alpha_N c\|$ as an instance of that theorem (rule
`instance`: $\alpha_i \to a(i)$, $x_i \to X(i)$ and $\delta \to \bar\alpha_N - \alpha_i$, whose sign is
a lemma from top-$N$ itself: $\alpha_i \le \alpha_t$ for every selected $t$, so
$\alpha_i \le N\alpha_i = \sum_t \alpha_i \le \sum_t \alpha_t = \bar\alpha_N$; the theorem's premises are
discharged by the hypotheses at token $i$). The witness sum takes each token's equality the same
way, and two more chains check that the witness has the stated $R$ and $d_1$. The only hypotheses
are the definitions ($w_t = \alpha_t/\bar\alpha_N$ and $c$, $D_i$, $R$ and $d_1$ as bounds on every
norm and distance) and the statement's ($\sum_i \alpha_i = 1$, $\alpha_i \ge 0$, top-$N$); dropping any
one of the context's entries breaks the chain ($w_t \ge 0$ is an assumption of the symbol). (Before,
the ball lemma was checked with $N = 3$ explicit embeddings, and the per-token bound and
$\bar\alpha_N \ge \alpha_i$ entered the sum as hypotheses.)

## The trailing term, and when the transcription is true

$B$ carries a trailing term $-R\,(1-\bar\alpha_N)$, so

$$\text{transcribed} - B = (R - 1)(1 - \bar\alpha_N).$$

* **On the unit sphere** (the paper's experiments, Assumption 1 with $M = 1$) $R = 1$ and the
  transcription *is* $B$: proved, and attained by the antipodal witness (reading
  `transcribed-sphere`).
* **For arbitrary embeddings** the transcription holds for every configuration with given
  $\alpha, N, d_1, R$ exactly when $R \ge 1$ or $\bar\alpha_N = 1$ (reading
  `transcribed-if-R-ge-1`). For $R < 1$ the witness violates it. The smallest case is
  $L=2$, $N=1$, $d=1$, $\alpha = (\tfrac12,\tfrac12)$, $x = (\tfrac12,-\tfrac12)$: $d_1 = 1$,
  $R = \tfrac12$, $\tilde d = \tfrac12 = B$, while the transcribed side is $\tfrac14$. With
  $x = 0$ it asserts $0 \le -(1-\bar\alpha_N)$.
* **The sign of the trailing term needs the top-$N$ set.** The step
  $\bar\alpha_N - \alpha_i \ge 0$ fails for an arbitrary $N$-subset. For weights
  $(\tfrac14,\tfrac34)$ with the smaller one selected and $x = (1, 1)$: $D = \tfrac12 > B = -\tfrac12$.
  For any subset, $D_i \le \alpha_i d_1 + |\bar\alpha_N - \alpha_i|\,R$ still holds.

## What the full text changed

The summary never defined $d_1$; we had read it as $\max_{i\notin I_N}\|x_i\|$. The full text
defines it as the largest selected–non-selected distance, and $R$ as the largest selected norm.

| reading | before | now | why |
|---|---|---|---|
| `transcribed` | falsified ($\alpha=(\tfrac12,\tfrac12)$, $x=(1,-1)$: $1 > \tfrac12$) | falsified, new witness $x = (\tfrac12,-\tfrac12)$: $\tfrac12 > \tfrac14$ | the old counterexample is an *equality* with the paper's $d_1 = 2$; the formula fails only when $R < 1$ |
| `transcribed-sphere` | (new) | proved | on the unit sphere the trailing $-(1-\bar\alpha_N)$ is exactly the sharp $-R(1-\bar\alpha_N)$ |
| `transcribed-if-R-ge-1` | (new) | proved | transcribed $= B + (R-1)(1-\bar\alpha_N)$ |
| `reconstructed` | proved, $(1-\bar\alpha_N)d_1 + (L-N)\bar\alpha_N R$ (old $d_1$) | proved, $B$ above | a sharper bound with the paper's $d_1$: the trailing term survives as $-R(1-\bar\alpha_N)$ |
| `sharp` | proved (witness $x_i = -d_1 e$) | proved (witness $x_i = (R-d_1)e$) | the witness for $B$ |
| `transcribed-d1-norm` | was `transcribed` | falsified | the old reading, kept so the change stays visible |
| `reconstructed-d1-norm` | was `reconstructed` | proved | the old bound, still true and sharp under the old reading |

## Why normalization is needed

The step "the non-selected weights sum to $1-\bar\alpha_N$" uses $\sum_i\alpha_i = 1$. For
unnormalized weights $\alpha = (1,1)$, $x = (1,-1)$, $N=1$: $d_1 = 2$, $R = 1$, $\tilde d = 2 > B = 1$.
"""

from __future__ import annotations

from functools import lru_cache, partial

import numpy as np
from hypothesis import strategies as st

from attnbounds.claims.base import Claim, chain_symbols, Hypothesis, Proof, Reading, Sides
from attnbounds.numerics.attention import cumulative_distance, selected_mass, softmax, top_n_mask
from attnbounds.numerics.validation import check_count, check_rng
from attnbounds.strategies import attention_configs, simplex_points
from attnbounds.theory.proof import AllOf
from attnbounds.theory.distance import (
    any_subset_counterexample_t1i,
    derive_t1_fixed,
    sharpness_witness,
    t1_fixed_bounds,
    t1i_chains,
    transcription_counterexample_d1_norm,
    transcription_counterexample_t1i,
)

__all__ = [
    "CLAIM",
    "bound",
    "bound_d1_norm",
    "bound_terms",
    "sides_reconstructed",
    "sides_transcribed",
    "sides_transcribed_sphere",
    "sides_transcribed_if_R_ge_1",
    "R_ge_1",
    "sides_reconstructed_d1_norm",
    "sides_transcribed_d1_norm",
    "sweep_instances",
]

#: Tolerance on ‖x_i‖ = 1 for the sphere reading.
SPHERE_TOL = 1e-9


def bound_terms(instance: dict) -> dict:
    """d̃ and the ingredients of the bounds for an instance ``{"weights", "x", "n"}`` (batched or not).

    An optional ``"selected"`` (a list of token indices) replaces the top-N set by that subset
    (so that the ``top_n`` drop demonstration can be evaluated).

    Returns ``{"d_tilde", "alpha_N", "d_1", "d_1_norm", "R", "L", "n"}`` with the paper's
    d_1 = max_{i∉I_N, j∈I_N}‖x_i − x_j‖, the old reading d_1_norm = max_{i∉I_N}‖x_i‖ and
    R = max_{j∈I_N}‖x_j‖.

    >>> t = bound_terms({"weights": np.array([0.5, 0.5]), "x": np.array([[1.0], [-1.0]]), "n": 1})
    >>> float(t["d_tilde"]), float(t["alpha_N"]), float(t["d_1"]), float(t["d_1_norm"]), float(t["R"])
    (1.0, 0.5, 2.0, 1.0, 1.0)
    >>> t = bound_terms({"weights": np.array([0.25, 0.75]), "x": np.array([[1.0], [1.0]]), "selected": [0]})
    >>> float(t["d_tilde"]), float(t["alpha_N"]), float(bound(t))  # the smaller weight selected: d~ > B
    (0.5, 0.25, -0.5)
    """
    if not isinstance(instance, dict):
        raise TypeError(f"instance: expected a dict, got {type(instance).__name__}")
    w = np.asarray(instance.get("weights"), dtype=np.float64)
    x = np.asarray(instance.get("x"), dtype=np.float64)
    if "weights" not in instance or "x" not in instance:
        raise KeyError(f"instance: missing {'weights' if 'weights' not in instance else 'x'!r}")
    mask, n = _selection(instance, w)  # (..., L)
    norms = np.linalg.norm(x, axis=-1)  # (..., L)
    pair = np.linalg.norm(x[..., :, None, :] - x[..., None, :, :], axis=-1)  # (..., L, L) ‖x_i − x_j‖
    cross = ~mask[..., :, None] & mask[..., None, :]  # i ∉ I_N, j ∈ I_N
    if "selected" in instance:
        y = w[..., None] * x
        s = np.where(mask[..., None], y, 0.0).sum(axis=-2, keepdims=True)
        d_tilde = np.where(mask, 0.0, np.linalg.norm(y - s, axis=-1)).sum(axis=-1)
        alpha_N = np.where(mask, w, 0.0).sum(axis=-1)
    else:
        d_tilde, alpha_N = cumulative_distance(w, x, n), selected_mass(w, n)
    return {
        "d_tilde": d_tilde,
        "alpha_N": alpha_N,
        "d_1": np.where(cross, pair, -np.inf).max(axis=(-2, -1)),  # max_{i∉I_N, j∈I_N} ‖x_i − x_j‖
        "d_1_norm": np.where(mask, -np.inf, norms).max(axis=-1),  # old reading: max_{i∉I_N} ‖x_i‖
        "R": np.where(mask, norms, -np.inf).max(axis=-1),  # max_{j∈I_N} ‖x_j‖
        "L": w.shape[-1],
        "n": n,
    }


def _selection(instance: dict, w: np.ndarray) -> tuple[np.ndarray, int]:
    """(mask of the selected tokens, N) for weights ``w`` (batched or not): the top-N set, or the
    instance's explicit ``"selected"`` subset where it gives one (the ``top_n`` drop demonstration)."""
    if "selected" in instance:
        sel = np.asarray(instance["selected"], dtype=int)
        if sel.ndim != 1 or sel.size < 1 or sel.size >= w.shape[-1] or np.unique(sel).size != sel.size \
                or sel.min() < 0 or sel.max() >= w.shape[-1]:
            raise ValueError(f"selected: expected 1..L-1 distinct token indices, got {instance['selected']!r}")
        mask = np.zeros(w.shape, dtype=bool)
        mask[..., sel] = True
        return mask, int(sel.size)
    if "n" not in instance:
        raise KeyError("instance: missing 'n'")
    n = int(instance["n"])
    return top_n_mask(w, n), n


def bound(t: dict) -> np.ndarray:
    """The right side of ``T1i:reconstructed`` from its ingredients, B = (1 − ᾱ_N) d_1 +
    R((L − N) ᾱ_N − (1 − ᾱ_N)) with the paper's d_1; ``t`` has ``alpha_N``, ``d_1``, ``R``,
    ``L`` and ``n`` (arrays broadcast). The experiments take E1/E2's bound from here.

    >>> float(bound({"alpha_N": 0.5, "d_1": 2.0, "R": 1.0, "L": 2, "n": 1}))
    1.0
    """
    a = t["alpha_N"]
    return (1 - a) * t["d_1"] + t["R"] * ((t["L"] - t["n"]) * a - (1 - a))


def bound_d1_norm(t: dict) -> np.ndarray:
    """The right side of ``T1i:reconstructed-d1-norm`` (the old reading of d_1, key ``d_1_norm``):
    (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R.

    >>> float(bound_d1_norm({"alpha_N": 0.5, "d_1_norm": 1.0, "R": 1.0, "L": 2, "n": 1}))
    1.0
    """
    a = t["alpha_N"]
    return (1 - a) * t["d_1_norm"] + (t["L"] - t["n"]) * a * t["R"]


def _transcribed(t: dict, d1_key: str = "d_1") -> np.ndarray:
    # (1 − ᾱ_N) d_1 + R ᾱ_N (L − N) − (1 − ᾱ_N)
    a = t["alpha_N"]
    return (1 - a) * t[d1_key] + t["R"] * a * (t["L"] - t["n"]) - (1 - a)


def sides_reconstructed(instance: dict) -> Sides:
    """d̃ ≤ (1 − ᾱ_N) d_1 + R((L − N) ᾱ_N − (1 − ᾱ_N)), paper's d_1.

    >>> s = sides_reconstructed(transcription_counterexample_t1i())
    >>> float(s.lhs), float(s.rhs)
    (0.5, 0.5)
    """
    t = bound_terms(instance)
    return Sides(t["d_tilde"], bound(t))


def sides_transcribed(instance: dict) -> Sides:
    """d̃ ≤ (1 − ᾱ_N) d_1 + R ᾱ_N (L − N) − (1 − ᾱ_N), as the summary writes it, paper's d_1.

    >>> s = sides_transcribed(transcription_counterexample_t1i())
    >>> float(s.lhs), float(s.rhs)
    (0.5, 0.25)
    """
    t = bound_terms(instance)
    return Sides(t["d_tilde"], _transcribed(t))


def sides_transcribed_sphere(instance: dict) -> Sides:
    """The transcription for embeddings on the unit sphere; ``ValueError`` if some ‖x_i‖ ≠ 1.

    >>> s = sides_transcribed_sphere(sharpness_witness([0.5, 0.5], 1))
    >>> float(s.lhs), float(s.rhs)
    (1.0, 1.0)
    """
    x = np.asarray(instance["x"], dtype=np.float64)
    if np.any(np.abs(np.linalg.norm(x, axis=-1) - 1.0) > SPHERE_TOL):
        raise ValueError("x: every embedding must have norm 1 for the sphere reading")
    return sides_transcribed(instance)


def R_ge_1(instance: dict):
    """The reading's own hypothesis R = max_{j∈I_N}‖x_j‖ ≥ 1 (one truth value per instance of a
    batch): its ``assume``, so that an instance whose top-N set, and so R, changed after it was
    drawn (weights drawn through another normalizer) is discarded, not judged.

    >>> bool(R_ge_1({"weights": np.array([0.5, 0.5]), "x": np.array([[0.5], [-0.5]]), "n": 1}))
    False
    """
    return bound_terms(instance)["R"] >= 1.0 - 1e-9  # rescaled instances may land at 1 − ulp


def sides_transcribed_if_R_ge_1(instance: dict) -> Sides:
    """The transcription where R = max_{j∈I_N}‖x_j‖ ≥ 1; ``ValueError`` otherwise.

    >>> s = sides_transcribed_if_R_ge_1(sharpness_witness([0.5, 0.5], 1, d1=1.0, radius=2.0))
    >>> float(s.lhs), float(s.rhs)
    (0.5, 1.0)
    """
    t = bound_terms(instance)
    if np.any(t["R"] < 1.0 - 1e-9):  # rescaled instances may land at 1 − ulp
        raise ValueError("x: the largest selected norm R must be >= 1 for this reading")
    return Sides(t["d_tilde"], _transcribed(t))


def sides_reconstructed_d1_norm(instance: dict) -> Sides:
    """Old reading d_1 = max_{i∉I_N}‖x_i‖: d̃ ≤ (1 − ᾱ_N) d_1 + (L − N) ᾱ_N R.

    >>> s = sides_reconstructed_d1_norm(transcription_counterexample_d1_norm())
    >>> float(s.lhs), float(s.rhs)
    (1.0, 1.0)
    """
    t = bound_terms(instance)
    return Sides(t["d_tilde"], bound_d1_norm(t))


def sides_transcribed_d1_norm(instance: dict) -> Sides:
    """Old reading d_1 = max_{i∉I_N}‖x_i‖, with the trailing −(1 − ᾱ_N).

    >>> s = sides_transcribed_d1_norm(transcription_counterexample_d1_norm())
    >>> float(s.lhs), float(s.rhs)
    (1.0, 0.5)
    """
    t = bound_terms(instance)
    return Sides(t["d_tilde"], _transcribed(t, "d_1_norm"))


def _check_rng_size(rng, size):
    check_rng(rng, "rng")
    check_count(size, "size")


def sweep_instances(rng: np.random.Generator, size: int) -> dict:
    """A batch of ``size`` random instances sharing L ∈ [2, 12], d ∈ [1, 4] and n ∈ [1, L − 1].

    Weights are softmax of N(0, 1) logits at a log-uniform temperature in [0.05, 20] per
    instance; embeddings are N(0, 1) entries scaled per instance by a log-uniform factor.

    >>> b = sweep_instances(np.random.default_rng(0), 3)
    >>> b["weights"].shape[0], b["x"].shape[0]
    (3, 3)
    """
    _check_rng_size(rng, size)
    L = int(rng.integers(2, 13))
    d = int(rng.integers(1, 5))
    n = int(rng.integers(1, L))
    T = np.exp(rng.uniform(np.log(0.05), np.log(20.0), size=(size, 1)))
    w = softmax(rng.standard_normal((size, L)), T)
    scale = np.exp(rng.uniform(np.log(0.1), np.log(10.0), size=(size, 1, 1)))
    x = scale * rng.standard_normal((size, L, d))
    return {"weights": w, "x": x, "n": n}


def _sphere_sweep(rng: np.random.Generator, size: int) -> dict:
    # Unit-sphere embeddings; a third of the rows put I_N at e_1 and the rest near −e_1 (near the witness).
    b = sweep_instances(rng, size)
    x = b["x"]
    k = size // 3
    if k:
        mask = top_n_mask(b["weights"][:k], b["n"])
        e = np.zeros(x.shape[-1])
        e[0] = 1.0
        x[:k] = np.where(mask[..., None], e, -e + 0.05 * rng.standard_normal(x[:k].shape))
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    return {**b, "x": x / np.where(norm > 0, norm, 1.0)}


def _rescale_R_ge_1(b: dict) -> dict:
    # Scale each instance so that R = max_{j∈I_N}‖x_j‖ is at least 1 (instances with R = 0 get x_j = e_1).
    x = np.array(b["x"], dtype=np.float64)
    mask = top_n_mask(b["weights"], b["n"])
    R = np.where(mask, np.linalg.norm(x, axis=-1), -np.inf).max(axis=-1)
    zero = R <= 0
    if np.any(zero):
        sel = mask & zero[..., None]
        x[..., 0] = np.where(sel, 1.0, x[..., 0])
        R = np.where(zero, 1.0, R)
    factor = np.where(R < 1.0, 1.0 / np.where(R > 0, R, 1.0), 1.0)
    return {**b, "x": x * factor[..., None, None]}


def _sweep_R_ge_1(rng: np.random.Generator, size: int) -> dict:
    return _rescale_R_ge_1(sweep_instances(rng, size))


def _sweep_witnesses(rng: np.random.Generator, size: int) -> dict:
    # Random weights, then the witness x_j = R u on I_N, x_i = (R − d_1) u off it, random d_1, R.
    _check_rng_size(rng, size)
    L = int(rng.integers(2, 13))
    d = int(rng.integers(1, 5))
    n = int(rng.integers(1, L))
    w = softmax(rng.standard_normal((size, L)), np.exp(rng.uniform(-3, 3, size=(size, 1))))
    mask = top_n_mask(w, n)
    d1 = rng.uniform(0.0, 3.0, size=(size, 1))
    R = rng.uniform(0.0, 3.0, size=(size, 1))
    u = rng.standard_normal((size, 1, d))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    x = np.where(mask, R, R - d1)[..., None] * u
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


def _sphere_configs():
    return attention_configs(min_size=2, max_size=6, min_dim=1, max_dim=3, kinds=("sphere", "antipodal"))


def _R_ge_1_configs():
    return _configs().map(_rescale_R_ge_1)


def _chained(main: str, uses: tuple[str, ...], detail: str) -> Proof:
    """A proof from the checked chains of :func:`attnbounds.theory.distance.t1i_chains`: the
    ``main`` chain carries the statement and the ``uses`` chains prove the facts it assumes;
    all of them together (:class:`~attnbounds.theory.proof.AllOf`) must check."""
    chains = t1i_chains()
    return Proof.from_chain(AllOf(tuple(chains[k] for k in (main, *uses))), detail)


_PER_TOKEN = ("per_token", "centroid_norm", "centroid_distance")


def _symbolic_reconstructed() -> Proof:
    derive_t1_fixed()  # raises if an exact identity fails
    return _chained(
        "sum",
        _PER_TOKEN,
        "per token: |a_i x_i - alpha_N c| <= a_i |x_i - c| + (alpha_N - a_i)|c| <= a_i d_1 + (alpha_N - a_i) R "
        "(c = s/alpha_N, top-N: alpha_N >= a_i); summed over the L - N non-selected tokens",
    )


def _symbolic_sharp() -> Proof:
    derive_t1_fixed()
    return _chained("witness_sum", ("witness", "witness_R", "witness_d1"),
                    "witness x_j = R e on I_N, x_i = (R - d_1) e: every D_i equals its bound, and summed "
                    "(sum of the non-selected weights = 1 - alpha_N) d~ equals the bound")


@lru_cache(maxsize=None)
def _chain_symbols(key: str) -> dict:
    """The symbols, functions and indexed bases of the statement and hypotheses of the chain
    ``key`` of :func:`~attnbounds.theory.distance.t1i_chains`, by name (its chains are built and
    checked once).

    >>> sorted(_chain_symbols("R_ge_1"))
    ['D', 'K', 'N', 'R', 'X', 'a', 'alpha_N', 'c', 'd_1', 'i', 'm', 't', 'w', 'y']
    """
    return chain_symbols(t1i_chains()[key])


def _bind_bound(instance: dict, chain: str = "sum", d1_key: str = "d_1") -> dict:
    """The values of the symbols of the chain ``chain`` of :func:`~attnbounds.theory.distance.t1i_chains`
    (``"sum"``, ``"sphere"``, ``"R_ge_1"`` or ``"d1_norm_sum"``: goal Σ_{i=1}^{K} D(i) <= its bound)
    at an instance, from the reading's own definitions (for the tie, :mod:`attnbounds.engine.tie`):
    the K = L − N non-selected tokens i in token order, a(i) = α_i, X(i) = x_i and
    D(i) = ‖α_i x_i − s‖ (s = Σ_{j∈I_N} α_j x_j); the N selected tokens t in token order,
    w_t = α_t/ᾱ_N and y_t = x_t, and their weighted mean c = s/ᾱ_N; ᾱ_N and R of
    :func:`bound_terms`, d_1 its entry ``d1_key`` (the paper's ``"d_1"``, or the old reading's
    ``"d_1_norm"``), and the non-selected mass m = Σ_i α_i (= 1 − ᾱ_N, summed so that it is not
    negative by rounding). Only the chain's own symbols are returned.

    The indices i and t are left free: the tie checks the hypotheses that read them (top-N
    a(i) <= ᾱ_N w_t, ‖y_t‖ <= R, ‖X(i) − y_t‖ <= d_1, or ‖X(i)‖ <= d_1 for the old reading) at every
    pair. An explicit ``"selected"`` subset of the instance replaces I_N, as in :func:`bound_terms`.

    >>> inst = {"weights": np.array([0.5, 0.3, 0.2]), "x": np.array([[1.0], [-1.0], [0.5]]), "n": 1}
    >>> {str(k): np.round(v, 12).tolist() for k, v in _bind_bound(inst).items()}  # doctest: +NORMALIZE_WHITESPACE
    {'D': [0.8, 0.4], 'a': [0.3, 0.2], 'X': [[-1.0], [0.5]], 'K': 2, 'N': 1, 'alpha_N': 0.5, 'c': [1.0],
     'w': [1.0], 'y': [[1.0]], 'R': 1.0, 'd_1': 2.0}
    >>> float(_bind_bound(inst, "d1_norm_sum", "d_1_norm")[_chain_symbols("d1_norm_sum")["d_1"]])  # max_i ‖x_i‖ off I_N
    1.0
    """
    w = np.asarray(instance["weights"], dtype=np.float64)
    x = np.asarray(instance["x"], dtype=np.float64)
    mask, n = _selection(instance, w)
    terms = bound_terms(instance)
    sel, rest = np.flatnonzero(mask), np.flatnonzero(~mask)
    mass = float(terms["alpha_N"])
    s = (w[sel, None] * x[sel]).sum(axis=0)
    values = {
        "D": np.linalg.norm(w[rest, None] * x[rest] - s, axis=-1),
        "a": w[rest],
        "X": x[rest],
        "K": int(rest.size),
        "N": n,
        "alpha_N": mass,
        "c": s / mass,
        "w": w[sel] / mass,
        "y": x[sel],
        "R": float(terms["R"]),
        "d_1": float(terms[d1_key]),
        "m": float(w[rest].sum()),
    }
    names = _chain_symbols(chain)
    return {names[k]: v for k, v in values.items() if k in names}


def _bind_sharp(instance: dict) -> dict:
    """The values of the sharpness proof's symbols (its chain ``witness_sum``) at a witness
    instance: those of :func:`_bind_bound` (a(i), D(i), K, N, ᾱ_N, w_t, R and the paper's d_1,
    from the reading's own definitions), and the witness's unit vector e (x_j = R e on I_N,
    x_i = (R − d_1) e off it), read as the direction of the longest embedding (its sign does not
    matter; e_1 where every x_i is 0). The tie checks the hypothesis top-N, a(i) <= ᾱ_N w_t, at
    every pair (i, t)."""
    x = np.asarray(instance["x"], dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1)
    longest = int(np.argmax(norms))
    e = x[longest] / norms[longest] if norms[longest] > 0 else np.eye(x.shape[-1])[0]
    return {**_bind_bound(instance, "witness_sum"), _chain_symbols("witness_sum")["e"]: e}


def _symbolic_transcribed() -> Proof:
    res = derive_t1_fixed()
    return Proof(
        False,
        f"transcribed - sharp bound = {res['transcription_gap'].expr} < 0 when R < 1; at the witness "
        "L=2, N=1, weights=(1/2,1/2), x=(1/2,-1/2): d~ = 1/2 > 1/4",
        counterexample=transcription_counterexample_t1i(),
        lhs=float(res["counterexample_d_tilde"].expr),
        rhs=float(res["counterexample_transcribed_rhs"].expr),
    )


def _symbolic_transcribed_sphere() -> Proof:
    derive_t1_fixed()
    return _chained("sphere", _PER_TOKEN, "the sharp bound with R = 1 is the transcribed formula")


def _symbolic_R_ge_1() -> Proof:
    derive_t1_fixed()
    return _chained("R_ge_1", _PER_TOKEN, "sharp bound <= transcribed formula since (R - 1)(1 - alpha_N) >= 0")


def _symbolic_reconstructed_d1_norm() -> Proof:
    derive_t1_fixed()
    chains = t1i_chains()
    return Proof.from_chain(
        AllOf((chains["d1_norm_sum"], chains["d1_norm"], chains["centroid_norm"])),
        "old d_1 = max |x_i| off I_N: D_i <= a_i|x_i| + |s| <= a_i d_1 + alpha_N R (|s| = alpha_N |c| <= alpha_N R); "
        "summed: (1 - alpha_N) d_1 + (L - N) alpha_N R; attained by x_j = R e, x_i = -d_1 e",
    )


def _symbolic_transcribed_d1_norm() -> Proof:
    res = derive_t1_fixed()
    return Proof(
        False,
        "old d_1 = max |x_i| off I_N: L=2, N=1, weights=(1/2,1/2), x=(1,-1): d~ = 1 > 1/2",
        counterexample=transcription_counterexample_d1_norm(),
        lhs=float(res["counterexample_d1_norm_d_tilde"].expr),
        rhs=float(res["counterexample_d1_norm_rhs"].expr),
    )


def _check_normalized(instance: dict):
    w = np.asarray(instance["weights"], dtype=np.float64)
    return np.all(w >= 0, axis=-1) & np.isclose(w.sum(axis=-1), 1.0)


def _drop_normalized() -> Proof:
    # Unnormalized weights (1, 1): s = x_0 = 1, D_1 = |−1 − 1| = 2 > B = 0·2 + 1·(1·1 − 0) = 1.
    w = np.array([1.0, 1.0])
    x = np.array([[1.0], [-1.0]])
    d_tilde = float(np.linalg.norm(w[1] * x[1] - w[0] * x[0]))
    abar, d1, R = float(w[0]), 2.0, 1.0
    bound = (1 - abar) * d1 + R * ((2 - 1) * abar - (1 - abar))
    return Proof(
        False,
        "without sum(alpha) = 1: weights (1, 1), x = (1, -1), N = 1 give d~ = 2 > B = 1",
        counterexample={"weights": w, "x": x, "n": 1},
        lhs=d_tilde,
        rhs=bound,
    )


def _drop_top_n() -> Proof:
    inst = any_subset_counterexample_t1i()
    w, x, S = inst["weights"], inst["x"], inst["selected"]
    s = sum(w[j] * x[j] for j in S)
    rest = [i for i in range(w.size) if i not in S]
    d_tilde = float(sum(np.linalg.norm(w[i] * x[i] - s) for i in rest))
    abar = float(sum(w[j] for j in S))
    d1 = max(float(np.linalg.norm(x[i] - x[j])) for i in rest for j in S)
    R = max(float(np.linalg.norm(x[j])) for j in S)
    bound = (1 - abar) * d1 + R * ((w.size - len(S)) * abar - (1 - abar))
    return Proof(
        False,
        "with the smaller weight selected: weights (1/4, 3/4), S = {0}, x = (1, 1): d~ = 1/2 > B = -1/2",
        counterexample=inst,
        lhs=d_tilde,
        rhs=bound,
    )


CLAIM = Claim(
    id="T1i",
    order=3,
    title="Theorem 1 (i): distance bound for a fixed top-N set",
    source="arXiv 2508.17821, Theorem 1 (i); d_1 and R as defined in the full text",
    statement=(
        "For the top-N set I_N, with d_1 = max_{i not in I_N, j in I_N} |x_i - x_j| and R = max_{j in I_N} |x_j|: "
        "d~ = sum_{i not in I_N} |alpha_i x_i - s| <= (1 - alpha_N) d_1 + R((L - N) alpha_N - (1 - alpha_N)); "
        "sharp. On the unit sphere this is the summary's formula."
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
        Hypothesis(
            "top_n",
            "I_N is the set of the N largest weights, 1 <= N < L (needed for the sign of the trailing term)",
            drop=_drop_top_n,
        ),
        Hypothesis("unit_sphere", "every |x_i| = 1 (only the reading transcribed-sphere; its sides check it)"),
    ),
    readings=(
        Reading(
            "transcribed",
            "arbitrary embeddings: d~ <= (1 - alpha_N) d_1 + R alpha_N (L - N) - (1 - alpha_N), "
            "d_1 = max_{i not in I_N, j in I_N} |x_i - x_j|, R = max_{j in I_N} |x_j|",
            r"\tilde d \le (1-\bar\alpha_N)d_1 + R\bar\alpha_N(L-N) - (1-\bar\alpha_N)",
            relation="<=",
            symbolic=_symbolic_transcribed,
            strategy=_configs,
            sides=sides_transcribed,
            sweep=sweep_instances,
            note="false exactly when R < 1 (and alpha_N < 1): it undercuts the sharp bound by (1 - R)(1 - alpha_N)",
        ),
        Reading(
            "transcribed-sphere",
            "the same formula for embeddings on the unit sphere (Assumption 1, M = 1)",
            r"\|x_i\|=1\ \forall i \Rightarrow \tilde d \le (1-\bar\alpha_N)d_1 + \bar\alpha_N(L-N) - (1-\bar\alpha_N)",
            relation="<=",
            symbolic=_symbolic_transcribed_sphere,
            strategy=_sphere_configs,
            sides=sides_transcribed_sphere,
            sweep=_sphere_sweep,
            bind=partial(_bind_bound, chain="sphere"),
            note="R = 1 makes it the sharp bound",
        ),
        Reading(
            "transcribed-if-R-ge-1",
            "the same formula for arbitrary embeddings with R >= 1 (the exact condition)",
            r"R \ge 1 \Rightarrow \tilde d \le (1-\bar\alpha_N)d_1 + R\bar\alpha_N(L-N) - (1-\bar\alpha_N)",
            relation="<=",
            symbolic=_symbolic_R_ge_1,
            strategy=_R_ge_1_configs,
            sides=sides_transcribed_if_R_ge_1,
            sweep=_sweep_R_ge_1,
            assume=R_ge_1,
            bind=partial(_bind_bound, chain="R_ge_1"),
        ),
        Reading(
            "reconstructed",
            "d~ <= (1 - alpha_N) d_1 + R((L - N) alpha_N - (1 - alpha_N)) (paper's d_1)",
            r"\tilde d \le (1-\bar\alpha_N)d_1 + R\big((L-N)\bar\alpha_N - (1-\bar\alpha_N)\big)",
            relation="<=",
            symbolic=_symbolic_reconstructed,
            strategy=_configs,
            sides=sides_reconstructed,
            sweep=sweep_instances,
            bind=_bind_bound,
        ),
        Reading(
            "sharp",
            "the witness x_j = R e on I_N, x_i = (R - d_1) e off it attains the reconstructed bound",
            r"\tilde d(x^\star) = (1-\bar\alpha_N)d_1 + R\big((L-N)\bar\alpha_N - (1-\bar\alpha_N)\big)",
            relation="==",
            symbolic=_symbolic_sharp,
            strategy=_witness_strategy,
            sides=sides_reconstructed,
            sweep=_sweep_witnesses,
            bind=_bind_sharp,
        ),
        Reading(
            "transcribed-d1-norm",
            "CLAIMS.md's reading of the summary, d_1 = max_{i not in I_N} |x_i|: d~ <= (1 - alpha_N) d_1 + R alpha_N (L - N) - (1 - alpha_N)",
            r"d_1 := \max_{i\notin I_N}\|x_i\|:\ \tilde d \le (1-\bar\alpha_N)d_1 + R\bar\alpha_N(L-N) - (1-\bar\alpha_N)",
            relation="<=",
            symbolic=_symbolic_transcribed_d1_norm,
            strategy=_configs,
            sides=sides_transcribed_d1_norm,
            sweep=sweep_instances,
            note="the reading used before the full text was found",
        ),
        Reading(
            "reconstructed-d1-norm",
            "CLAIMS.md's reading of the summary, d_1 = max_{i not in I_N} |x_i|: d~ <= (1 - alpha_N) d_1 + (L - N) alpha_N R",
            r"d_1 := \max_{i\notin I_N}\|x_i\|:\ \tilde d \le (1-\bar\alpha_N)d_1 + (L-N)\bar\alpha_N R",
            relation="<=",
            symbolic=_symbolic_reconstructed_d1_norm,
            strategy=_configs,
            sides=sides_reconstructed_d1_norm,
            sweep=sweep_instances,
            bind=partial(_bind_bound, chain="d1_norm_sum", d1_key="d_1_norm"),
            note="sharp under that reading (argued on the page, not part of the verdict)",
        ),
    ),
    proof=__doc__,
    symbolic_form=t1_fixed_bounds,
    derivations=("T1i",),
)
