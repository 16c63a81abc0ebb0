"""``attnbounds check --claims SPEC``: a user's claim, defined in one file, judged as it stands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from attnbounds.cli import main
from attnbounds.engine.meta import read_rows

EXAMPLE = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py")


def run(*args):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def _rows(result):
    assert result.exit_code == 0, result.output
    return read_rows(result.stdout)


def test_the_example_claim_true_reading_holds_and_false_one_is_falsified():
    rows = _rows(run("--claims", EXAMPLE, "--quick", "--json", "-"))
    verdicts = {r["id"]: r["verdict"] for r in rows}
    assert verdicts == {"TV:transcribed": "falsified", "TV:reconstructed": "holds"}
    cex = rows[0]["counterexample"]
    w = np.asarray(cex["instance"]["weights"])
    tv = 0.5 * np.abs(w - 1 / w.size).sum()  # recomputed here, not taken from the claim
    assert tv == cex["lhs"] > 0.5 == cex["rhs"]


def test_ids_select_among_the_user_claims_in_short_and_qualified_form():
    for rid in ("TV:transcribed", "my-notes:TV:transcribed"):
        rows = _rows(run("--claims", EXAMPLE, "--quick", "--json", "-", rid))
        assert [r["id"] for r in rows] == ["TV:transcribed"]
    result = run("--claims", EXAMPLE, "L1")
    assert result.exit_code == 2 and "unknown id 'L1'" in result.output and "TV:transcribed" in result.output


def test_module_object_spec_judges_a_package_claim_alone():
    rows = _rows(run("--claims", "attnbounds.claims.theorem2:CLAIM", "--quick", "--json", "-", "T2:transcribed"))
    assert [(r["id"], r["verdict"]) for r in rows] == [("T2:transcribed", "falsified")]


def test_bad_specs_are_one_line_usage_errors(tmp_path):
    result = run("--claims", "nope.py")
    assert result.exit_code == 2 and "--claims: no such file 'nope.py'" in result.output
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    result = run("--claims", str(empty))
    assert result.exit_code == 2 and "defines no claim" in result.output
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    result = run("--claims", str(broken))
    # a file that fails to import is a bad argument, as --normalizer's is (it exited 1 here)
    assert result.exit_code == 2 and "RuntimeError: boom" in result.output
