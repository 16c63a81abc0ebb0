"""engine.jsonable turns rows (mappings) into dicts, never into their repr (trial 48)."""

from __future__ import annotations

import json
import types

import numpy as np

from attnbounds import engine
from attnbounds.engine.rows import Row


def test_a_row_and_a_list_of_rows_become_json():
    row = Row("L1:transcribed", "L1", "transcribed", counterexample={"instance": {"w": [0.5, 0.5]}, "lhs": 1.0,
                                                                      "rhs": 0.5, "method": "sweep"})
    out = engine.jsonable(row)
    assert isinstance(out, dict) and out == row.to_dict()
    doc = json.loads(json.dumps(engine.jsonable({"rows": [row]})))
    assert doc["rows"][0]["id"] == "L1:transcribed" and doc["rows"][0]["counterexample"]["lhs"] == 1.0


def test_any_mapping_and_to_dict_objects_are_converted():
    assert engine.jsonable(types.MappingProxyType({"a": np.float64(1.5), 2: np.array([1, 2])})) == {"a": 1.5, "2": [1, 2]}

    class WithToDict:
        def to_dict(self):
            return {"x": np.inf}

    assert engine.jsonable([WithToDict()]) == [{"x": "inf"}]
    assert engine.jsonable({3, 1, 2}) == [1, 2, 3]


def test_a_real_rows_list_is_jsonable():
    rows = engine.check(["T1i:reconstructed"], quick=True)
    text = json.dumps(engine.jsonable(rows))
    assert json.loads(text)[0]["id"] == "T1i:reconstructed"
