"""check --expect PATH: a regression gate on recorded verdicts (exit 1 on any change)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from attnbounds.cli import main


def _check(*args):
    return CliRunner().invoke(main, ["check", "C1", "--quick", "--no-progress", *args])


def test_expect_passes_on_the_recorded_verdicts_and_fails_on_a_changed_one(tmp_path):
    base = tmp_path / "base.json"
    first = _check("--json", str(base))
    assert first.exit_code == 0, first.output
    doc = json.loads(base.read_text())
    assert len(doc["rows"]) >= 2

    same = _check("--expect", str(base))
    assert same.exit_code == 0, same.output
    assert f"{len(doc['rows'])} of {len(doc['rows'])} row(s) as recorded" in same.output

    changed = dict(doc)
    victim = doc["rows"][0]
    changed["rows"] = [dict(victim, verdict="falsified" if victim["verdict"] != "falsified" else "proved")] + doc["rows"][1:]
    other = tmp_path / "changed.json"
    other.write_text(json.dumps(changed))
    r = _check("--expect", str(other))
    assert r.exit_code == 1, r.output
    assert f"--expect: {victim['id']}: {victim['verdict']}, recorded {changed['rows'][0]['verdict']}" in r.output

    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(doc["rows"][1:]))  # the bare list of older versions, one row short
    r = _check("--expect", str(missing))
    assert r.exit_code == 1 and f"--expect: {victim['id']}: {victim['verdict']}, not recorded" in r.output


def test_expect_reports_a_bad_file_before_the_run(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": 3}')
    for path, fragment in ((bad, "is not check --json output"), (tmp_path / "nope.json", "no such file")):
        r = CliRunner().invoke(main, ["check", "C1", "--quick", "--no-progress", "--expect", str(path)])
        assert r.exit_code == 2 and "--expect: " in r.output and fragment in r.output, r.output
        assert "proved" not in r.output  # refused before any reading ran
    r = CliRunner().invoke(main, ["check", "C1", "--matrix", "--expect", str(bad)])
    assert r.exit_code == 2 and "not combinable with --matrix" in r.output


def test_expect_refuses_unusable_records_before_the_run(tmp_path):
    rows = [{"id": "C1:transcribed", "kind": "reading", "verdict": "proved"}]
    cases = {
        "unfinished.json": ({"format": "attnbounds-check/2", "meta": {"complete": False}, "rows": rows}, "did not finish"),
        "other.json": ({"format": "other", "rows": rows}, "format 'other'"),
        "maybe.json": ([dict(rows[0], verdict="maybe")], "verdict 'maybe'"),
    }
    for name, (doc, fragment) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        r = _check("--expect", str(path))
        assert r.exit_code == 2 and fragment in r.output and "readings:" not in r.output, (name, r.output)
    same = tmp_path / "base.json"
    same.write_text(json.dumps(rows))
    r = _check("--expect", str(same), "--json", str(same))
    assert r.exit_code == 2 and "also --json's output" in r.output
    assert json.loads(same.read_text()) == rows  # the record is untouched


def test_expect_notes_settings_that_differ_from_the_record(tmp_path):
    base = tmp_path / "base.json"
    assert _check("--json", str(base)).exit_code == 0
    r = _check("--expect", str(base), "--seed", "1")
    assert "--expect: note: seed differs: recorded 0, this run 1" in r.output, r.output
    assert "budget differs" not in r.output and "normalizer differs" not in r.output
    same = _check("--expect", str(base))
    assert "note:" not in same.output
    # a bare list of rows (as docs/_generated/verdicts.json) records no settings: the note says
    # that nothing was compared, where it used to say nothing at all
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(json.loads(base.read_text())["rows"]))
    r = _check("--expect", str(bare), "--seed", "1")
    assert r.exit_code == 0 and "is a list of rows without meta" in r.output and "not compared" in r.output, r.output


def test_strict_says_why_each_row_fails():
    r = CliRunner().invoke(main, ["check", "C1", "--quick", "--no-progress", "--strict", "--normalizer", "sparsemax"])
    assert r.exit_code == 1, r.output
    line = next(l for l in r.output.splitlines() if l.startswith("--strict:"))
    assert "falsified outside the claim's hypotheses (softmax not met)" in line, line
