"""Fixes from a new user's review: help text, one-line errors, derive by claim id, evidence
without ``rhs=None``, a summary that keeps readings and hypothesis checks apart."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attnbounds.cli import main

REPO = Path(__file__).resolve().parents[2]
CORPUS = str((REPO / ".." / "shared" / "corpus" / "war_and_peace.txt").resolve())


def _one_line_error(result, *fragments) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


def test_reproduce_help_lists_every_builtin_model():
    from attnbounds.empirical.models import BUILTIN_MODELS

    text = " ".join(CliRunner().invoke(main, ["reproduce", "--help"]).output.split())
    missing = [name for name in BUILTIN_MODELS if name not in text]
    assert not missing, f"reproduce --help omits {missing}"


def test_model_that_looks_like_a_path_is_no_such_directory(tmp_path):
    missing = str(tmp_path / "no" / "model")
    r = CliRunner().invoke(main, ["reproduce", "--model", missing, "--text", CORPUS, "--no-progress",
                                  "--out", str(tmp_path / "out")])
    line = _one_line_error(r, "--model:", "no such directory", missing)
    assert "hf download" not in line


def test_model_directory_without_config_says_what_is_missing(tmp_path):
    empty = tmp_path / "model"
    empty.mkdir()
    r = CliRunner().invoke(main, ["reproduce", "--model", str(empty), "--text", CORPUS, "--no-progress",
                                  "--out", str(tmp_path / "out")])
    line = _one_line_error(r, "--model:", "holds no config.json")
    assert "hf download" not in line and "not a local directory" not in line


def test_model_path_check_leaves_hub_ids_alone():
    from attnbounds.empirical.models import _looks_like_path

    assert not _looks_like_path("someone/no-such-model")
    assert not _looks_like_path("gpt2")
    for path in ("/nonexistent/model", "./model", "../model", "~/model", "a/b/c", "model/"):
        assert _looks_like_path(path), path


def test_verify_missing_directory_is_a_usage_error(tmp_path):
    _one_line_error(CliRunner().invoke(main, ["reproduce", "--verify", str(tmp_path / "nope")]),
                    "Error: --verify: no such directory")
    a_file = tmp_path / "f"
    a_file.write_text("x")
    _one_line_error(CliRunner().invoke(main, ["reproduce", "--verify", str(a_file)]),
                    "Error: --verify:", "is not a directory")


def test_derive_accepts_a_claim_id():
    from attnbounds.theory import derivation

    for claim in ("L1", "L2"):
        r = CliRunner().invoke(main, ["derive", claim])
        assert r.exit_code == 0, r.output
        mine = [n for n in derivation.names() if n.startswith(claim + "-")]
        assert mine and all(n in r.output for n in mine), r.output
    _one_line_error(CliRunner().invoke(main, ["derive", "nonsense"]), "unknown derivation 'nonsense'")
    _one_line_error(CliRunner().invoke(main, ["derive", "L2-sofmax"]), "(did you mean 'L2-softmax'?)")


def test_derive_t1i_defines_every_free_symbol_it_prints():
    r = CliRunner().invoke(main, ["derive", "T1i"])
    assert r.exit_code == 0, r.output
    assert "delta = alpha_N - alpha_i" in r.output


def test_json_into_a_missing_directory_is_refused_and_nothing_is_created(tmp_path, monkeypatch):
    from attnbounds import engine

    def forbidden(*a, **k):
        raise AssertionError("the claims ran before --json was checked")

    monkeypatch.setattr(engine, "check", forbidden)
    target = tmp_path / "no_such_dir" / "deeper" / "v.json"
    _one_line_error(CliRunner().invoke(main, ["check", "L1", "--quick", "--json", str(target)]),
                    "--json:", "no such directory")
    assert not (tmp_path / "no_such_dir").exists()


def test_counterexamples_without_a_numeric_right_side_say_what_fails():
    from attnbounds import engine

    rows = {row.id: row for row in engine.check(["C2:transcribed", "L1:without-positive"], quick=True)}
    for rid, row in rows.items():
        assert row.verdict == "falsified", (rid, row.verdict)
        assert row.counterexample["rhs"] is None  # the case this is about
        assert "rhs=None" not in row.evidence, row.evidence
        assert "None" not in row.evidence, row.evidence
    assert "d~ = 0 for every L" in rows["C2:transcribed"].evidence
    assert "vanishes" in rows["L1:without-positive"].evidence


def test_check_summary_keeps_readings_and_hypothesis_checks_apart(tmp_path):

    out = tmp_path / "rows.json"
    r = CliRunner().invoke(main, ["check", "L1", "--quick", "--json", str(out)])
    assert r.exit_code == 0, r.output
    from attnbounds.engine.meta import read_rows

    rows = read_rows(out)
    readings = [row for row in rows if row["kind"] == "reading"]
    drops = [row for row in rows if row["kind"] == "hypothesis"]
    assert readings and drops
    assert all(row["verdict"] in ("proved", "falsified") for row in rows)  # the cases spelled out below
    lines = [line for line in r.output.splitlines() if line.strip() and "wrote" not in line]
    last = lines[-1]
    assert "row(s)" not in last
    proved = sum(row["verdict"] == "proved" for row in readings)
    falsified = len(readings) - proved
    expected = f"{len(readings)} readings: " + ", ".join(
        f"{n} {v}" for v, n in (("proved", proved), ("falsified", falsified)) if n)
    needed = sum(row["verdict"] == "falsified" for row in drops)
    expected += f"; {len(drops)} hypothesis checks: " + ", ".join(
        f"{n} {v}" for v, n in (("not needed", len(drops) - needed), ("needed", needed)) if n)
    assert last.startswith(expected + ";"), (last, expected)
