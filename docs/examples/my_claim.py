"""A claim of your own, in one file: how far attention weights can be from uniform.

The total-variation distance between attention weights α over L tokens and the uniform
weights is TV(α) = ½ Σ_i |α_i − 1/L|. Suppose your notes say that it never exceeds 1/2. That
is true for two tokens, and false from three on: one-hot weights are 1 − 1/L away from
uniform. The sharp bound is TV(α) ≤ 1 − 1/L, attained by one-hot weights. This file encodes both
readings:

* ``transcribed``: TV(α) ≤ 1/2 (what the notes say; the checker falsifies it and shrinks the
  counterexample to a one-hot vector of three weights);
* ``reconstructed``: TV(α) ≤ 1 − 1/L (true: the positive part of α_i − 1/L sums to TV, and it
  is at most Σ_{i∈P} α_i − |P|/L ≤ 1 − 1/L for the set P of weights above 1/L, which is
  non-empty unless α is uniform).

Judge it without touching the package::

    attnbounds check --claims docs/examples/my_claim.py --quick

The claim's id is qualified by its paper, ``my-notes:TV``; the short id ``TV`` works while it
is unique (``attnbounds check --claims docs/examples/my_claim.py TV:transcribed``).
"""

from __future__ import annotations

import numpy as np

from attnbounds import strategies
from attnbounds.claims.base import Claim, Hypothesis, Reading, Sides
from attnbounds.numerics.sampling import random_simplex


def tv_from_uniform(instance: dict) -> np.ndarray:
    """½ Σ_i |α_i − 1/L| over the last axis (one instance or a batch)."""
    w = np.asarray(instance["weights"], dtype=float)  # (..., L)
    return 0.5 * np.abs(w - 1.0 / w.shape[-1]).sum(axis=-1)


def half_sides(instance: dict) -> Sides:
    lhs = tv_from_uniform(instance)
    return Sides(lhs, np.full_like(lhs, 0.5))


def sharp_sides(instance: dict) -> Sides:
    lhs = tv_from_uniform(instance)
    L = np.asarray(instance["weights"]).shape[-1]
    return Sides(lhs, np.full_like(lhs, 1.0 - 1.0 / L))


def weight_instances():
    """Hypothesis: one probability vector of length 1..12 (one-hot, uniform, two-point, random)."""
    return strategies.simplex_points(min_size=1, max_size=12).map(lambda w: {"weights": w})


def weight_batches(rng: np.random.Generator, count: int) -> dict:
    """numpy sweep: ``count`` probability vectors of one random length L in 1..16, half of them two-point."""
    L = int(rng.integers(1, 17))
    half = max(count // 2, 1)
    w = np.concatenate([random_simplex(rng, half, L, "two_point"), random_simplex(rng, max(count - half, 1), L, "dirichlet")])
    return {"weights": w[:count]}


def is_distribution(instance: dict):
    w = np.asarray(instance["weights"], dtype=float)
    return (w >= 0).all(axis=-1) & np.isclose(w.sum(axis=-1), 1.0)


CLAIM = Claim(
    id="TV",
    paper="my-notes",
    title="Attention weights are close to uniform (tutorial)",
    source="docs/examples/my_claim.py",
    statement="The total-variation distance of attention weights from uniform is at most 1 − 1/L.",
    transcription="½ Σ_i |α_i − 1/L| ≤ 1/2",
    transcription_latex=r"\tfrac12 \sum_i \lvert \alpha_i - \tfrac1L \rvert \le \tfrac12",
    hypotheses=(Hypothesis("distribution", "α is a probability vector: α_i ≥ 0, Σ α_i = 1", check=is_distribution),),
    readings=(
        Reading(
            name="transcribed",
            statement="½ Σ_i |α_i − 1/L| ≤ 1/2",
            latex=r"\tfrac12 \sum_i \lvert \alpha_i - \tfrac1L \rvert \le \tfrac12",
            strategy=weight_instances,
            sides=half_sides,
            sweep=weight_batches,
        ),
        Reading(
            name="reconstructed",
            statement="½ Σ_i |α_i − 1/L| ≤ 1 − 1/L",
            latex=r"\tfrac12 \sum_i \lvert \alpha_i - \tfrac1L \rvert \le 1 - \tfrac1L",
            strategy=weight_instances,
            sides=sharp_sides,
            sweep=weight_batches,
        ),
    ),
    proof=__doc__,
)
