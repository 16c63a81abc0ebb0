"""docs/generate_verdicts.py: writes rows + stamp, and refuses sources that change mid-run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import verdict_store  # noqa: E402

ROWS = [{"id": "L1:transcribed", "claim": "L1", "verdict": "proved"}]


@pytest.fixture
def generator():
    spec = importlib.util.spec_from_file_location("docs_generate_verdicts", DOCS / "generate_verdicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_check(monkeypatch, seen: list):
    def run(command, **kwargs):
        seen.append(command)
        Path(command[command.index("--json") + 1]).write_text(json.dumps(ROWS))
        return subprocess.CompletedProcess(command, 0, stdout="table\n")

    monkeypatch.setattr(subprocess, "run", run)


def test_writes_rows_and_a_matching_stamp(generator, monkeypatch, tmp_path):
    seen: list = []
    _fake_check(monkeypatch, seen)
    meta = generator.generate(["--quick"], out_dir=tmp_path)
    assert seen[0][1:4] == ["-m", "attnbounds", "check"] and "--quick" in seen[0]
    assert json.loads((tmp_path / "verdicts.json").read_text()) == ROWS
    written = json.loads((tmp_path / "verdicts.meta.json").read_text())
    assert written == meta and meta["rows"] == 1
    assert meta["sources"] == verdict_store.file_hashes()
    assert meta["sources_sha256"] == verdict_store.combined_hash(meta["sources"])
    assert (tmp_path / "check_output.txt").read_text() == "table\n"


def test_refuses_when_sources_change_during_the_check(generator, monkeypatch, tmp_path):
    _fake_check(monkeypatch, [])
    calls = iter([{"attnbounds/engine.py": "a"}, {"attnbounds/engine.py": "b"}])
    monkeypatch.setattr(verdict_store, "file_hashes", lambda *a, **k: next(calls))
    with pytest.raises(SystemExit, match="sources changed"):
        generator.generate([], out_dir=tmp_path)
    assert not (tmp_path / "verdicts.json").exists()


def test_refuses_rows_cut_by_the_time_limit(generator, monkeypatch, tmp_path):
    cut = [dict(ROWS[0], verdict="certified", timed_out=["symbolic"])]

    def run(command, **kwargs):
        Path(command[command.index("--json") + 1]).write_text(json.dumps(cut))
        return subprocess.CompletedProcess(command, 0, stdout="table\n")

    monkeypatch.setattr(subprocess, "run", run)
    with pytest.raises(SystemExit, match="time limit interrupted a method of L1:transcribed"):
        generator.generate([], out_dir=tmp_path)
    assert not (tmp_path / "verdicts.json").exists()


def test_fails_when_the_check_writes_no_rows(generator, monkeypatch, tmp_path):
    monkeypatch.setattr(subprocess, "run", lambda command, **k: subprocess.CompletedProcess(command, 2, stdout=""))
    with pytest.raises(SystemExit, match="wrote no rows"):
        generator.generate([], out_dir=tmp_path)
