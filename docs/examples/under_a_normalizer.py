"""Judge a claim of your own under another normalizer (``attnbounds check --normalizer NAME``).

The claim is about softmax attention at temperature T on logits l:

* transcribed: every diagonal entry of the Jacobian, ∂α_i/∂l_i = α_i(1 − α_i)/T, is at most
  1/(4T);
* reconstructed: the largest weight is at least the mean, max_i α_i ≥ 1/L.

Its instances are ``{"logits", "T"}``: the sides make the weights themselves. Marked with
``draws_weights`` and computing α with ``weights_of`` (∂α/∂l with ``jacobian_of``), they take the
weights of the normalizer the instance names (softmax when it names none), so the engine can
judge the claim under any normalizer. Without the mark every row under ``--normalizer`` is
``undecided``.

Run it with ``python docs/examples/under_a_normalizer.py``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from attnbounds import strategies
from attnbounds.claims.base import Claim, Reading, Sides
from attnbounds.claims.normalized import draws_weights, jacobian_of, weights_of
from attnbounds.engine import check


@draws_weights
def diagonal_sides(instance: dict) -> Sides:
    """max_i ∂α_i/∂l_i <= 1/(4T), on one instance or a batch."""
    z = np.asarray(instance["logits"], dtype=float)  # (..., L)
    T = np.asarray(instance["T"], dtype=float)  # () or (...,)
    J = jacobian_of(instance, z, T)  # (..., L, L): softmax's, or the normalizer's
    lhs = np.max(np.diagonal(J, axis1=-2, axis2=-1), axis=-1)
    return Sides(lhs, 0.25 / T)


@draws_weights
def max_weight_sides(instance: dict) -> Sides:
    """max_i α_i >= 1/L."""
    z = np.asarray(instance["logits"], dtype=float)
    w = weights_of(instance, z, instance["T"])  # softmax's weights, or the normalizer's
    return Sides(np.max(w, axis=-1), np.full(w.shape[:-1], 1.0 / w.shape[-1]))


def logit_instances():
    """Hypothesis strategy: logits of length 1..8 in [-5, 5] and a temperature in [0.1, 10]."""
    return st.tuples(
        strategies.logits(min_size=1, max_size=8, min_value=-5.0, max_value=5.0),
        strategies.temperatures(0.1, 10.0),
    ).map(lambda lt: {"logits": lt[0], "T": lt[1]})


def logit_batches(rng: np.random.Generator, count: int) -> dict:
    """numpy sweep: ``count`` rows of L logits (one random L in 1..16) and their temperatures."""
    L = int(rng.integers(1, 17))
    return {"logits": rng.uniform(-5.0, 5.0, size=(count, L)), "T": 10 ** rng.uniform(-1.0, 1.0, size=count)}


def reading(name: str, sides, relation: str, statement: str) -> Reading:
    return Reading(name, statement, statement, relation=relation, sides=sides,
                   strategy=logit_instances, sweep=logit_batches)


CLAIM = Claim(
    id="DIAG",
    title="Diagonal of the attention Jacobian",
    source="docs/examples/under_a_normalizer.py",
    statement="For softmax attention, d(alpha_i)/d(l_i) <= 1/(4T), and max_i alpha_i >= 1/L.",
    transcription="max_i d(alpha_i)/d(l_i) <= 1/(4T)",
    transcription_latex=r"\max_i \partial\alpha_i/\partial l_i \le 1/(4T)",
    hypotheses=(),
    readings=(
        reading("transcribed", diagonal_sides, "<=", "max_i d(alpha_i)/d(l_i) <= 1/(4T)"),
        reading("reconstructed", max_weight_sides, ">=", "max_i alpha_i >= 1/L"),
    ),
    proof="alpha(1 - alpha) <= 1/4; the largest of L numbers summing to 1 is at least their mean 1/L.",
)


def main(normalizer: str | None = None) -> list:
    rows = check(claims=[CLAIM], quick=True, normalizer=normalizer)
    for row in rows:
        print(f"{row.id:20} {row.verdict:10} {row.evidence}")
    return rows


if __name__ == "__main__":
    main()  # softmax: both readings hold
    main("sparsemax")  # the transcription is falsified: on a support of two, the diagonal is 1/(2T)
