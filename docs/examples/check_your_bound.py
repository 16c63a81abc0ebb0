"""Check a bound of your own: the weight-variance bound α_i(1 − α_i) ≤ 1/4.

For weights α of any attention head, each α_i(1 − α_i) is at most 1/4. It matters because
α_i(1 − α_i)/T is the diagonal entry ∂α_i/∂l_i of the softmax Jacobian, so this is the
"1/(4T)" of Lemma 2 read entrywise on the diagonal.

Suppose a source states it as α_i(1 − α_i) ≤ 1/L instead (true for uniform weights,
where α_i(1 − α_i) = (1/L)(1 − 1/L)). We encode both readings and let the engine judge:

* the reconstruction ``max_i α_i(1 − α_i) ≤ 1/4`` is proved exactly, since
  1/4 − p(1 − p) = (p − 1/2)², and searched numerically as well (the engine reports a
  conflict if the two ever disagree). The proof is about one number p; ``bind`` says which
  (the weight α_i where α_i(1 − α_i) is largest), and the engine checks at the reading's
  instances that the proof's goal, at that p, has the reading's two sides. Without ``bind``
  nothing a machine checked links the proof to the reading, and the verdict is ``holds``;
* the transcription ``max_i α_i(1 − α_i) ≤ 1/L`` is searched by Hypothesis and by a numpy
  sweep; any counterexample is shrunk by Hypothesis and reported with both sides.

Run it with ``python docs/examples/check_your_bound.py``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from attnbounds import strategies
from attnbounds.claims.base import Claim, Hypothesis, Proof, Reading, Sides
from attnbounds.engine import judge_reading
from attnbounds.numerics.sampling import random_simplex
from attnbounds.theory.proof import Chain, by


def weight_variance(instance: dict) -> np.ndarray:
    """max_i α_i(1 − α_i) over the last axis (works on one instance and on a batch)."""
    w = np.asarray(instance["weights"], dtype=float)  # (..., L)
    return np.max(w * (1.0 - w), axis=-1)  # (...,)


def quarter_sides(instance: dict) -> Sides:
    lhs = weight_variance(instance)
    return Sides(lhs, np.full_like(lhs, 0.25))  # rhs = 1/4


def one_over_length_sides(instance: dict) -> Sides:
    L = np.asarray(instance["weights"]).shape[-1]
    lhs = weight_variance(instance)
    return Sides(lhs, np.full_like(lhs, 1.0 / L))  # rhs = 1/L


P = sp.Symbol("p", real=True)  # the proof's variable


def prove_quarter() -> Proof:
    """A chain of two checked steps: p(1 − p) = 1/4 − (p − 1/2)² (an identity) ≤ 1/4 (the
    dropped square is ≥ 0 for real p). The proof kernel checks both and the chaining."""
    p = P
    quarter, half = sp.Rational(1, 4), sp.Rational(1, 2)
    chain = Chain(p * (1 - p)).eq(quarter - (p - half) ** 2, by.identity()).le(quarter, by.algebra())
    return Proof.from_chain(chain.prove(p * (1 - p), "<=", quarter), "p(1 − p) = 1/4 − (p − 1/2)² ≤ 1/4")


def bind_quarter(instance: dict) -> dict:
    """The tie: the value of the proof's p at one instance, the weight where α_i(1 − α_i) is largest,
    so that the goal p(1 − p) <= 1/4 has the reading's sides there."""
    w = np.asarray(instance["weights"], dtype=float)
    return {P: float(w[np.argmax(w * (1.0 - w))])}


def weight_instances():
    """Hypothesis strategy: one probability vector of length 1..12 (one-hot, uniform, two-point, random)."""
    return strategies.simplex_points(min_size=1, max_size=12).map(lambda w: {"weights": w})


def weight_batches(rng: np.random.Generator, count: int) -> dict:
    """numpy sweep: ``count`` probability vectors of one random length L in 1..16, half of them two-point."""
    L = int(rng.integers(1, 17))
    half = count // 2
    w = np.concatenate(
        [
            random_simplex(rng, max(half, 1), L, "two_point"),
            random_simplex(rng, max(count - half, 1), L, "dirichlet"),
        ]
    )[:count]
    return {"weights": w}  # (count, L)


def is_distribution(instance: dict):
    w = np.asarray(instance["weights"], dtype=float)
    return (w >= 0).all(axis=-1) & np.isclose(w.sum(axis=-1), 1.0)


CLAIM = Claim(
    id="VAR",
    title="Weight variance bound (tutorial)",
    source="docs/examples/check_your_bound.py",
    statement="For attention weights α, every α_i(1 − α_i) is at most 1/4.",
    transcription="α_i(1 − α_i) ≤ 1/L",
    transcription_latex=r"\alpha_i (1 - \alpha_i) \le \frac{1}{L}",
    hypotheses=(Hypothesis("distribution", "α is a probability vector: α_i ≥ 0, Σ α_i = 1", check=is_distribution),),
    readings=(
        Reading(
            name="transcribed",
            statement="max_i α_i(1 − α_i) ≤ 1/L",
            latex=r"\max_i \alpha_i (1 - \alpha_i) \le \frac{1}{L}",
            strategy=weight_instances,
            sides=one_over_length_sides,
            sweep=weight_batches,
        ),
        Reading(
            name="reconstructed",
            statement="max_i α_i(1 − α_i) ≤ 1/4",
            latex=r"\max_i \alpha_i (1 - \alpha_i) \le \frac{1}{4}",
            symbolic=prove_quarter,
            bind=bind_quarter,
            strategy=weight_instances,
            sides=quarter_sides,
            sweep=weight_batches,
        ),
    ),
    proof=__doc__,
)


def main() -> list[dict]:
    rows = [judge_reading(CLAIM, reading, quick=True, seed=0) for reading in CLAIM.readings]
    for row in rows:
        print(f"{row['id']:<18} {row['verdict']:<10} {row['evidence']}")
        if row["counterexample"] is not None:
            cx = row["counterexample"]
            print(f"{'':<18} counterexample: {cx['instance']}  lhs={cx['lhs']}  rhs={cx['rhs']}")
    return rows


if __name__ == "__main__":
    main()
