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
