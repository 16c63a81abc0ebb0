"""Certify a bound with interval arithmetic, and tie the certificate to the reading: x e^{−x} ≤ 3/8.

The largest value of x e^{−x} for x ≥ 0 is 1/e ≈ 0.368 (at x = 1), so 3/8 = 0.375 bounds it.

* ``reconstructed``: x e^{−x} ≤ 3/8 on [0, 4]. ``certify`` encloses f(x) = x e^{−x} with
  python-flint ``arb`` balls on [0, 4], bisecting where an enclosure is not yet below 3/8
  (:func:`attnbounds.numerics.intervals.certify_upper_bound`); ``locate`` says which point of that
  box an instance is (its x) and ``domain`` states the reading's domain in those coordinates,
  [0, 4]. The engine checks that the box contains the domain and, at the reading's instances,
  that each point lies in the domain and that f(x) − 3/8 is the reading's lhs − rhs. The
  verdict is ``certified``.
* ``transcribed``: the same for every x ≥ 0, domain [0, oo), drawn on [0, 40]. The certificate
  covers [0, 4] only, so the tie reports that the box does not contain the domain ("uncovered")
  and the verdict is the numeric evidence's, ``holds``, with the certificate named. It would be
  the same if the sweep drew [0, 4] only: the stated domain decides, not what is drawn.

Run it with ``python docs/examples/certify_a_bound.py``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from attnbounds.claims.base import Claim, Proof, Reading, Sides
from attnbounds.engine import judge_reading
from attnbounds.numerics.intervals import certify_upper_bound

BOUND = "3/8"  # a certificate's bound is an exact rational


def sides(instance: dict) -> Sides:
    x = np.asarray(instance["x"], dtype=float)
    return Sides(x * np.exp(-x), np.full_like(x, 0.375))


def certify() -> Proof:
    """x e^{−x} ≤ 3/8 on [0, 4]: f receives one arb ball per coordinate and returns an enclosure."""
    cert = certify_upper_bound(lambda z: z[0] * (-z[0]).exp(), [(0, 4)], BOUND)
    return Proof(cert.status, "arb encloses x e^(-x) below 3/8 on [0, 4]", certificate=cert)


def locate(instance: dict) -> list[float]:
    """The point of the certificate's box that an instance is: here its x."""
    return [float(instance["x"])]


def sweep_on(high: float):
    def sweep(rng: np.random.Generator, count: int) -> dict:
        x = rng.uniform(0.0, high, count)
        x[:2] = (0.0, high)[:count]  # the ends too, where the sides are compared with the certificate
        return {"x": x}

    return sweep


def instances_on(high: float):
    return lambda: st.fixed_dictionaries({"x": st.floats(0.0, high)})


CLAIM = Claim(
    id="XEX",
    title="x e^{-x} is at most 3/8 (tutorial)",
    source="docs/examples/certify_a_bound.py",
    statement="For x ≥ 0, x e^{−x} ≤ 3/8.",
    transcription="x e^{−x} ≤ 3/8 for every x ≥ 0",
    transcription_latex=r"x e^{-x} \le 3/8",
    hypotheses=(),
    readings=(
        Reading("transcribed", "x e^{-x} <= 3/8 for every x >= 0 (drawn on [0, 40])", r"x e^{-x} \le 3/8",
                sides=sides, certify=certify, locate=locate, domain=[(0, "oo")], sweep=sweep_on(40.0),
                strategy=instances_on(40.0)),
        Reading("reconstructed", "x e^{-x} <= 3/8 on [0, 4]", r"x e^{-x} \le 3/8, x \in [0, 4]",
                sides=sides, certify=certify, locate=locate, domain=[(0, 4)], sweep=sweep_on(4.0),
                strategy=instances_on(4.0)),
    ),
    proof=__doc__,
)


def main() -> list[dict]:
    rows = [judge_reading(CLAIM, reading, quick=True, seed=0) for reading in CLAIM.readings]
    for row in rows:
        print(f"{row['id']:<18} {row['verdict']:<10} {row['evidence']}")
    return rows


if __name__ == "__main__":
    main()
