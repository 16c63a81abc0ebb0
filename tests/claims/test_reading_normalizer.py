"""Reading(normalizer=...) is checked when the reading is made and recorded in its row (trial 48)."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds import engine, strategies
from attnbounds.claims.base import Claim, Reading, Sides
from attnbounds.claims.normalized import draws_weights, jacobian_of
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


# --- a reading about a normalizer, whose sides draw their weights (trial 132) ----------------


def _logit_instances():
    from hypothesis import strategies as st

    return st.builds(lambda z, T: {"logits": np.asarray(z), "T": T},
                     st.lists(st.floats(-5, 5), min_size=2, max_size=4), st.floats(0.1, 4.0))


def _logit_sweep(rng, count):
    return {"logits": rng.uniform(-5, 5, size=(count, 3)), "T": rng.uniform(0.1, 4.0, size=count)}


@draws_weights
def _diagonal_sides(instance):
    z = np.asarray(instance["logits"], dtype=float)
    T = np.asarray(instance["T"], dtype=float)
    J = jacobian_of(instance, z, T)
    return Sides(np.max(np.diagonal(J, axis1=-2, axis2=-1), axis=-1), 0.25 / T)


def _diagonal(name, normalizer=None):
    return Reading(name, "J_ii <= 1/(4T)", "J_ii <= 1/(4T)", sides=_diagonal_sides, strategy=_logit_instances,
                   sweep=_logit_sweep, normalizer=normalizer)


def _claim(*readings):
    return Claim(id="RD", paper="rd", title="t", source="s", statement="s", transcription="t",
                 transcription_latex="t", hypotheses=(), proof="p", readings=readings)


def test_a_reading_about_a_normalizer_is_judged_with_its_weights():
    # softmax's diagonal is at most 1/(4T); sparsemax's is 1/(2T) on a support of two keys. A
    # reading naming sparsemax, whose sides take the Jacobian from jacobian_of, was judged with
    # softmax's (it held) while its row said sparsemax
    rows = {r.reading: r for r in engine.check(claims=[_claim(_diagonal("transcribed"),
                                                              _diagonal("reconstructed", "sparsemax"))], quick=True)}
    assert rows["transcribed"].verdict == "holds"
    named = rows["reconstructed"]
    assert named.verdict == "falsified" and named.normalizer == "sparsemax"
    assert named.counterexample["instance"]["normalizer"] == "sparsemax"
    # the instances name it, in place of one they name themselves (the row says the reading's)
    assert _diagonal("r", "sparsemax").sweep(np.random.default_rng(0), 2)["normalizer"] == "sparsemax"
    assert _diagonal("r").sweep(np.random.default_rng(0), 2).get("normalizer") is None
    naming_softmax = Reading("r", "-", "-", sides=_diagonal_sides, normalizer="sparsemax",
                             sweep=lambda rng, n: {**_logit_sweep(rng, n), "normalizer": "softmax"})
    assert naming_softmax.sweep(np.random.default_rng(0), 2)["normalizer"] == "sparsemax"
    # two readings made alike are equal (the named sweep is not a fresh closure each time)
    assert _diagonal("r", "sparsemax") == _diagonal("r", "sparsemax") != _diagonal("r", "ssmax")


def test_a_mutant_of_a_named_reading_keeps_its_normalizer():
    # the mutation check's scaled sides lost draws_weights, so the mutant was judged under softmax
    from attnbounds.engine.mutants import _scaled_reading

    mutant = _scaled_reading(_diagonal("r", "sparsemax"))
    assert mutant.normalizer == "sparsemax"
    assert mutant.sweep(np.random.default_rng(0), 2)["normalizer"] == "sparsemax"
    assert mutant.under("ssmax").sweep(np.random.default_rng(0), 2)["normalizer"] == "ssmax"


def test_a_named_reading_posed_under_another_normalizer_takes_that_ones_weights():
    named = _diagonal("transcribed", "sparsemax")
    back = named.under("softmax")
    assert back.normalizer == "softmax"
    assert back.sweep(np.random.default_rng(0), 2).get("normalizer") is None  # no name: softmax's weights
    claim = _claim(named, _diagonal("reconstructed"))
    rows = {r.reading: r for r in engine.check(claims=[claim], quick=True, normalizer="softmax")}
    assert rows["transcribed"].verdict == "holds" and rows["transcribed"].normalizer == "softmax"
    rows = {r.reading: r for r in engine.check(claims=[claim], quick=True, normalizer="sparsemax")}
    assert rows["transcribed"].verdict == rows["reconstructed"].verdict == "falsified"


def test_sides_that_make_their_own_weights_keep_their_instances():
    # not marked draws_weights: the name labels the reading, the instances are the strategy's own
    reading = _reading("r", "sparsemax")
    assert reading.strategy is _instances and reading.sweep is _sweep
