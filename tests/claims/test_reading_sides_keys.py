"""``Reading.sides`` on an instance missing a key names the key and the expected keys."""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds import claims
from attnbounds.claims.base import MissingKeyError, Reading, Sides


def _readings_with_sweep():
    for claim_id in claims.ids():
        for reading in claims.get(claim_id).readings:
            if reading.sides is not None and reading.sweep is not None:
                yield f"{claim_id}:{reading.name}", reading


def test_a_missing_key_names_it_and_the_instance_keys():
    tried = 0
    for rid, reading in _readings_with_sweep():
        instance = dict(reading.sweep(np.random.default_rng(0), 1))
        for key in list(instance):
            partial = {k: v for k, v in instance.items() if k != key}
            try:
                reading.sides(partial)
            except MissingKeyError as exc:
                text = str(exc)
                assert repr(key) in text and rid.split(":", 1)[1] in text, text
                for k in instance:
                    assert repr(k) in text, (k, text)
                tried += 1
            except KeyError as exc:  # a bare KeyError for a missing key is what this is about
                pytest.fail(f"{rid}: without {key!r}: bare KeyError {exc}")
            except Exception:  # noqa: BLE001 -- other errors (a missing array shape, ...) are not this test's
                pass
    assert tried, "no reading needed a key of its instances"


def test_a_key_error_from_inside_the_evaluator_is_not_renamed():
    def sides(instance):
        return Sides({}["inner"], 0.0)

    reading = Reading("r", "s", "s", sides=sides)
    with pytest.raises(KeyError) as info:
        reading.sides({"inner": 1.0})
    assert not isinstance(info.value, MissingKeyError)


def test_markers_and_equality_survive_the_wrapper():
    def sides(instance):
        return Sides(instance["a"], 1.0)

    sides.marker = True
    r1, r2 = Reading("r", "s", "s", sides=sides), Reading("r", "s", "s", sides=sides)
    assert r1.sides.marker and r1 == r2 and r1.sides({"a": 0.5}).lhs == 0.5
