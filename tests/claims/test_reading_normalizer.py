"""Reading(normalizer=...) is checked when the reading is made and recorded in its row (trial 48)."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds import engine, strategies
from attnbounds.claims.base import Claim, Reading, Sides
from attnbounds.numerics import normalizers as nz


def _instances():
    return strategies.simplex_points(min_size=2, max_size=4).map(lambda w: {"weights": w})


def _sweep(rng, count):
    return {"weights": rng.dirichlet(np.ones(3), size=count)}


def _sides(instance):
    w = np.asarray(instance["weights"])
    return Sides(w.max(-1), np.ones(w.shape[:-1]))


def _reading(name, normalizer=None):
    return Reading(name, "max w <= 1", "max w <= 1", sides=_sides, strategy=_instances, sweep=_sweep,
                   normalizer=normalizer)


def test_an_unknown_normalizer_name_is_refused_naming_the_field():
    with pytest.raises(nz.NormalizerNotFound, match=r"^reading 'transcribed': normalizer: unknown normalizer "
                                                    r"'no-such-normalizer!!'"):
        _reading("transcribed", "no-such-normalizer!!")
    with pytest.raises(ValueError, match=r"^reading 'r': normalizer: parameter 's' must be a number"):
        _reading("r", "ssmax(s=x)")
    with pytest.raises(TypeError, match=r"^reading 'r': normalizer: expected a normalizer name or spec"):
        _reading("r", 3)


def test_the_normalizer_is_kept_as_its_spec():
    assert _reading("r", "sparsemax").normalizer == "sparsemax"
    assert _reading("r", "ssmax(s=2)").normalizer == "ssmax(s=2.0)"
    assert _reading("r").normalizer is None
    own = nz.from_sympy(nz.LOGIT**2 + 1, nz.LOGIT, name="trial48_quadratic")
    assert _reading("r", own).normalizer == "trial48_quadratic"
    assert _reading("r", "trial48_quadratic").normalizer == "trial48_quadratic"  # known once posed


def test_the_row_records_the_readings_normalizer():
    claim = Claim(id="RN", paper="rn", title="t", source="s", statement="s", transcription="t",
                  transcription_latex="t", hypotheses=(), proof="p",
                  readings=(_reading("transcribed"), _reading("reconstructed", "sparsemax")))
    rows = {r.reading: r for r in engine.check(claims=[claim], quick=True)}
    assert rows["reconstructed"].normalizer == "sparsemax" and rows["reconstructed"]["normalizer"] == "sparsemax"
    assert rows["transcribed"].normalizer is None and "normalizer" not in rows["transcribed"].to_dict()
    assert all(r.verdict == "holds" for r in rows.values())
    # judged under --normalizer, the row records that normalizer
    rows = {r.reading: r for r in engine.check(claims=[claim], quick=True, normalizer="ssmax")}
    assert rows["reconstructed"].normalizer == "ssmax" and rows["transcribed"].normalizer == "ssmax"
