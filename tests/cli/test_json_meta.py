"""``check --json`` records what the run was (``meta``); readers of the rows read old and new
files alike; ``write_json`` refuses a missing directory; load errors are counted apart."""

from __future__ import annotations

import json
import platform
import subprocess
from pathlib import Path

import numpy
import pytest
import sympy
from click.testing import CliRunner

import attnbounds
from attnbounds import engine
from attnbounds.claims import registry as claim_registry
from attnbounds.cli import main
from attnbounds.cli.check import summary_line
from attnbounds.engine.meta import CHECK_FORMAT, git_state, read_rows
from attnbounds.jsonio import write_json

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_check_json_has_the_runs_metadata(tmp_path):
    out = tmp_path / "rows.json"
    result = _run("L1:transcribed", "--quick", "--seed", "3", "--time-limit", "120", "--json", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["format"] == CHECK_FORMAT and set(doc) == {"format", "meta", "rows"}
    meta = doc["meta"]
    assert meta["attnbounds"] == attnbounds.__version__ and meta["command"] == "check"
    assert meta["seed"] == 3 and meta["time_limit"] == 120.0 and meta["normalizer"] is None
    assert meta["budget"] == {"preset": "quick", "examples": 30, "sweep": 10_000, "mc_samples": 2_000, "audit": 400}
    assert meta["ids"] == ["L1:transcribed"] and meta["claims_files"] == [] and meta["complete"] is True
    assert meta["versions"]["python"] == platform.python_version()
    assert meta["versions"]["numpy"] == numpy.__version__ and meta["versions"]["sympy"] == sympy.__version__
    assert meta["date"].endswith("+00:00")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:  # a git checkout (CI clones one): the commit is recorded
        assert meta["git"]["commit"] == head.stdout.strip() and isinstance(meta["git"]["dirty"], bool)
    # the rows are those of before, and read_rows reads them from the file
    rows = read_rows(out)
    assert [r["id"] for r in rows] == ["L1:transcribed"] and tuple(rows[0]) == engine.ROW_FIELDS


def test_the_default_budget_and_a_normalizer_are_recorded():
    result = _run("T1i:reconstructed", "--examples", "5", "--normalizer", "sparsemax", "--time-limit", "0",
                  "--json", "-")
    doc = json.loads(result.stdout)
    assert doc["meta"]["budget"]["preset"] == "default, examples overridden" and doc["meta"]["budget"]["examples"] == 5
    assert doc["meta"]["normalizer"] == "sparsemax" and doc["meta"]["time_limit"] is None


def test_read_rows_accepts_the_old_bare_list(tmp_path):
    old = [{"id": "L1:transcribed", "verdict": "proved"}]
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert read_rows(tmp_path / "old.json") == old
    assert read_rows(str(tmp_path / "old.json")) == old
    assert read_rows(json.dumps({"format": CHECK_FORMAT, "meta": {}, "rows": old})) == old
    with pytest.raises(ValueError, match="check --json output"):
        read_rows({"verdicts": {}})


def test_mutants_and_matrix_json_carry_meta_too(tmp_path):
    out = tmp_path / "m.json"
    _run("--mutants", "--quick", "--claims", "tests/cli/test_mutants.py:TOY", "PQ:transcribed", "--json", str(out))
    doc = json.loads(out.read_text())
    assert doc["meta"]["command"] == "mutants" and doc["meta"]["claims_files"] == ["tests/cli/test_mutants.py:TOY"]
    assert "rows" in doc and "summary" in doc


def test_an_interrupted_run_says_it_is_not_complete(tmp_path, monkeypatch):
    from attnbounds.engine import run as engine_run

    def interrupted(*args, on_row=None, **kwargs):
        on_row(engine.Row("L1:transcribed", "L1", "transcribed", verdict="proved"))
        raise engine.CheckInterrupted([engine.Row("L1:transcribed", "L1", "transcribed", verdict="proved")])

    monkeypatch.setattr(engine, "check", interrupted)
    monkeypatch.setattr(engine_run, "check", interrupted)
    out = tmp_path / "rows.json"
    result = CliRunner().invoke(main, ["check", "L1", "--quick", "--json", str(out)])
    assert result.exit_code == 130
    doc = json.loads(out.read_text())
    assert doc["meta"]["complete"] is False and [r["id"] for r in doc["rows"]] == ["L1:transcribed"]


def test_git_state_outside_a_checkout_is_none(tmp_path):
    assert git_state(tmp_path) is None


def test_write_json_refuses_a_missing_directory(tmp_path):
    target = tmp_path / "no" / "such" / "rows.json"
    with pytest.raises(FileNotFoundError, match="no such directory"):
        write_json([1], target)
    assert not (tmp_path / "no").exists()  # nothing created
    (tmp_path / "no").mkdir()
    write_json([1], tmp_path / "no" / "rows.json")  # a caller that wants a directory makes it
    assert json.loads((tmp_path / "no" / "rows.json").read_text()) == [1]


def test_a_load_error_is_counted_apart_from_the_readings(monkeypatch):
    monkeypatch.setattr(
        claim_registry, "REGISTRY",
        claim_registry.ClaimRegistry(modules=["attnbounds.claims.no_such_module_for_tests", "attnbounds.claims.lemma1"]),
    )
    rows = [{"kind": "load-error", "verdict": "undecided"}, {"kind": "reading", "verdict": "proved"}]
    assert summary_line(rows) == "1 reading: 1 proved; 1 error"
    full = CliRunner().invoke(main, ["check", "--quick", "--examples", "5"])
    line = next(x for x in full.stdout.splitlines() if "reading" in x and " s" in x and ":" in x and "│" not in x)
    assert line.startswith("2 readings: ") and "; 1 error;" in line, line
