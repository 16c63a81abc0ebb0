"""docs/examples/under_a_normalizer.py (check_your_bound.md, "Judge your claim under another
normalizer"): a claim whose sides make their own weights is judged under --normalizer once its
sides are marked with draws_weights and use weights_of / jacobian_of."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from attnbounds import engine
from attnbounds.claims.base import Claim
from attnbounds.numerics import normalizers as nz

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = DOCS / "examples" / "under_a_normalizer.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("docs_examples_under_a_normalizer", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_both_readings_hold_under_softmax(example, capsys):
    rows = {r.reading: r for r in example.main()}
    assert rows["transcribed"].verdict == "holds" and rows["reconstructed"].verdict == "holds"
    assert "DIAG:transcribed" in capsys.readouterr().out


def test_under_sparsemax_the_diagonal_bound_is_falsified(example):
    rows = {r.reading: r for r in example.main("sparsemax")}
    assert rows["reconstructed"].verdict == "holds" and rows["reconstructed"].normalizer == "sparsemax"
    row = rows["transcribed"]
    assert row.verdict == "falsified" and row.normalizer == "sparsemax"
    inst = row.counterexample["instance"]
    assert inst["normalizer"] == "sparsemax"
    # the counterexample is genuine: sparsemax's diagonal at the instance exceeds 1/(4T)
    z, T = np.asarray(inst["logits"], dtype=float), float(inst["T"])
    J = nz.get("sparsemax").jacobian(z, T=T)
    assert np.max(np.diag(J)) > 0.25 / T


def test_without_draws_weights_every_row_is_undecided(example):
    unmarked = replace(
        example.CLAIM,
        readings=tuple(replace(r, sides=lambda inst, f=r.sides: f(inst)) for r in example.CLAIM.readings),
    )
    assert isinstance(unmarked, Claim)
    rows = engine.check(claims=[unmarked], quick=True, normalizer="sparsemax")
    assert [r.verdict for r in rows] == ["undecided", "undecided"]
    assert all("make their own weights" in r.detail["under"] for r in rows)


def test_the_tutorial_section_names_the_fix():
    text = (DOCS / "tutorials" / "check_your_bound.md").read_text()
    section = text[text.index("## Judge your claim under another normalizer"):]
    for needed in ("draws_weights", "weights_of", "jacobian_of", "examples/under_a_normalizer.py",
                   ":pyobject: diagonal_sides", ":pyobject: max_weight_sides"):
        assert needed in section, needed
