"""Fixtures shared by the claim tests."""

from __future__ import annotations

import dataclasses

import pytest


@pytest.fixture
def tie_where():
    """``tie_where(reading, keep, sweep, scale=1.0)``: the tie of the reading's proof under its
    ``bind`` (:func:`attnbounds.engine.tie.tie`), at batches of ``sweep`` (drawn again until one
    meets ``keep``) and the strategy's examples that meet ``keep``, with the reading's right side
    scaled by ``scale``."""
    from attnbounds.claims.base import Sides
    from attnbounds.engine.tie import tie

    def run(reading, keep, sweep, scale=1.0):
        def kept_sweep(rng, n):
            while not keep(batch := sweep(rng, n)):
                pass
            return batch

        def sides(instance):
            s = reading.sides(instance)
            return Sides(s.lhs, s.rhs * scale)

        tied = dataclasses.replace(reading, sweep=kept_sweep, strategy=lambda: reading.strategy().filter(keep),
                                   sides=sides)
        return tie(tied, reading.symbolic())

    return run
