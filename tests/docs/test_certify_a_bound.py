"""docs/examples/certify_a_bound.py: a tied certificate is certified; one whose box does not contain
the reading's stated domain is not, even where the sweep draws inside the box, and neither is one
tied to sides it does not bound."""

import importlib.util
from dataclasses import replace
from pathlib import Path

import numpy as np

from attnbounds.claims.base import Sides
from attnbounds.engine import judge_reading

PATH = Path(__file__).resolve().parents[2] / "docs" / "examples" / "certify_a_bound.py"


def _load():
    spec = importlib.util.spec_from_file_location("docs_examples_certify_a_bound", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tutorial_verdicts(capsys):
    ex = _load()
    rows = {row["reading"]: row for row in ex.main()}
    assert rows["reconstructed"]["verdict"] == "certified", rows["reconstructed"]["evidence"]
    assert "the box [0, 4] contains the reading's domain [0, 4]" in rows["reconstructed"]["evidence"]
    assert rows["transcribed"]["verdict"] == "holds", rows["transcribed"]["evidence"]
    assert "tie uncovered: the reading's domain [0, oo) is not within" in rows["transcribed"]["evidence"]
    assert "XEX:reconstructed" in capsys.readouterr().out


def test_the_stated_domain_decides_not_what_is_drawn():
    ex = _load()
    # "for every x >= 0" drawn on [0, 4] only: every draw lies in the box, yet the statement is wider
    narrow = replace(ex.CLAIM.readings[0], sweep=ex.sweep_on(4.0), strategy=ex.instances_on(4.0))
    row = judge_reading(ex.CLAIM, narrow, quick=True, seed=0)
    assert row["verdict"] == "holds" and "tie uncovered" in row["evidence"], row["evidence"]


def test_sides_the_certificate_does_not_bound_are_not_certified():
    ex = _load()
    reading = ex.CLAIM.readings[1]
    # 0.37 is still above 1/e = 0.3679, so the reading is true, but the certificate is of 3/8: the
    # margins differ, a conflict
    tighter = replace(reading, sides=lambda i: Sides(ex.sides(i).lhs, np.full_like(np.asarray(i["x"], float), 0.37)))
    row = judge_reading(ex.CLAIM, tighter, quick=True, seed=0)
    assert row["verdict"] == "undecided" and "the certificate is not of the reading's sides" in row["conflict"], \
        row["evidence"]


def test_the_claims_listing_shows_the_stated_domain():
    """Trial 49: `attnbounds claims` listed a certified reading's methods but not its domain."""
    import json

    from click.testing import CliRunner

    from attnbounds.cli import main

    text = CliRunner().invoke(main, ["claims", "--claims", str(PATH), "XEX"])
    assert text.exit_code == 0, text.output
    assert "      domain (locate's coordinates): [0, oo)" in text.output.splitlines()
    assert "      domain (locate's coordinates): [0, 4]" in text.output.splitlines()
    doc = json.loads(CliRunner().invoke(main, ["claims", "--claims", str(PATH), "XEX", "--json"]).output)
    assert [r.get("domain") for r in doc["readings"]] == [[["0", "oo"]], [["0", "4"]]]
