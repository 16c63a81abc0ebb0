"""Usability of the command line as a new user meets it: errors that say what to do next,
output that says under which normalizer it was judged, widths that follow COLUMNS."""

from __future__ import annotations

from click.testing import CliRunner

from attnbounds.cli import main


def _invoke(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


# --- 1. a bad claim id: named, close matches, a pointer; not every valid id on one line ----------


def test_unknown_check_id_suggests_close_matches_instead_of_listing_every_id():
    result = _invoke("check", "L9")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("Error: ids: unknown id 'L9'")
    assert "did you mean 'L1' or 'L2'?" in line
    assert "`attnbounds claims`" in line
    assert "T1ii:transcribed_context" not in line and len(line) < 300  # not the ~70 valid ids


def test_unknown_reading_id_suggests_the_reading_and_several_bad_ids_are_each_named():
    result = _invoke("check", "T1i:transcribd", "Q7")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith("Error: ids: unknown ids 'T1i:transcribd' (did you mean 'T1i:transcribed'")
    assert "'Q7'" in line and "valid:" not in line


def test_an_unknown_reading_of_a_known_claim_is_matched_against_that_claims_readings():
    """Trial 51: 'L1:bogus' was offered 'L2:frobenius', another claim's reading; now L1's own
    readings, by close match, or all of them where none is close."""
    line = _invoke("check", "L1:bogus").stderr.strip()
    assert line.startswith("Error: ids: unknown id 'L1:bogus' (L1's readings: transcribed, reconstructed"), line
    assert "L2:" not in line and "\n" not in line
    line = _invoke("check", "L2:spectrl").stderr.strip()
    assert line.startswith("Error: ids: unknown id 'L2:spectrl' (did you mean 'L2:spectral'"), line
    assert "C3:" not in line  # (C3:spectral was offered too)


def test_a_claim_id_in_other_letter_case_is_matched_against_that_claim():
    """Stop 51's lead: 'l1:bogus' was offered 'L2:frobenius'; a claim id in other letter case
    now gets the claim's own readings, or the id in the right case."""
    cases = {"l1:bogus": "(L1's readings: transcribed, reconstructed", "l1:transcribed": "(did you mean 'L1:transcribed'?)",
             "l1": "(did you mean 'L1'?)", "c2:Collapse": "(did you mean 'C2:collapse'?)"}
    for bad, hint in cases.items():
        line = _invoke("check", bad).stderr.strip()
        assert line.startswith(f"Error: ids: unknown id '{bad}' {hint}"), line
        assert "L2:" not in line and "\n" not in line


def test_unknown_id_under_matrix_and_mutants_is_the_same_short_error():
    for flag in ("--matrix", "--mutants"):
        result = _invoke("check", flag, "L9")
        assert result.exit_code == 2, (flag, result.output)
        assert "did you mean 'L1' or 'L2'?" in result.stderr and len(result.stderr) < 300


def test_unknown_claim_of_the_claims_command():
    result = _invoke("claims", "L9")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith("Error: CLAIM_ID: unknown claim 'L9' (did you mean 'L1' or 'L2'?)")
    assert "`attnbounds claims` lists the claims: L1, C1" in line


def test_a_reading_id_given_to_the_claims_command_points_to_its_claim():
    result = _invoke("claims", "L1:transcribed")
    assert result.exit_code == 2 and "`attnbounds claims L1`" in result.stderr
    result = _invoke("claims", "L1:transcribd")
    assert result.exit_code == 2 and "claim L1 has no reading 'transcribd' (did you mean 'transcribed'?)" in result.stderr


def test_the_claims_command_shows_the_claims_of_a_claims_file():
    from pathlib import Path
    import json

    spec = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py")
    listed = _invoke("claims", "--claims", spec)
    assert listed.exit_code == 0 and listed.output.startswith("TV ") and "L1 " not in listed.output
    data = json.loads(_invoke("claims", "--claims", spec, "--json").output)
    assert [c["id"] for c in data] == ["TV"]
    full = _invoke("claims", "TV", "--claims", spec)
    assert full.exit_code == 0 and "TV:transcribed" in full.output and "Hypotheses:" in full.output
    assert _invoke("claims", "my-notes:TV", "--claims", spec).output == full.output  # its paper:id
    bad = _invoke("claims", "TX", "--claims", spec)
    assert bad.exit_code == 2 and "unknown claim 'TX' (did you mean 'TV'?); the --claims files define TV" in bad.stderr
    for rid in ("TV:transcribed", "my-notes:TV:transcribed"):
        reading = _invoke("claims", rid, "--claims", spec)
        assert reading.exit_code == 2 and "is a reading (or hypothesis-drop) id of claim TV" in reading.stderr
    typo = _invoke("claims", "TV:transcribd", "--claims", spec)
    assert typo.exit_code == 2 and "claim TV has no reading 'transcribd' (did you mean 'transcribed'?)" in typo.stderr
    missing = _invoke("claims", "--claims", "no_such_file.py")
    assert missing.exit_code == 2 and missing.stderr.strip().startswith("Error: --claims:")


# --- 2. reproduce --text DIR: a directory, not a missing file ---------------------------------------


def test_reproduce_text_that_is_a_directory_says_so(tmp_path, monkeypatch):
    from attnbounds.empirical import models

    def forbidden(*a, **k):
        raise AssertionError("the model was loaded before --text was checked")

    monkeypatch.setattr(models, "load_model", forbidden)
    folder = tmp_path / "texts"
    folder.mkdir()
    result = _invoke("reproduce", "--model", "gpt2-random", "--text", str(folder), "--no-progress",
                     "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert line.startswith(f"Error: --text: {str(folder)!r} is a directory") and "expected a text file" in line
    assert "no such file" not in line


# --- 3. reproduce --model: the error names what the loader accepts --------------------------------


def _fake_hf_cache(root, repo: str):
    """The layout huggingface_hub's cache uses for ``repo``'s config.json (no network)."""
    snap = root / f"models--{repo.replace('/', '--')}" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text("{}")
    (root / f"models--{repo.replace('/', '--')}" / "refs").mkdir()
    (root / f"models--{repo.replace('/', '--')}" / "refs" / "main").write_text("abc123")
    return root


def test_in_hf_cache_reads_the_cache_only(tmp_path):
    from attnbounds.empirical import run

    cache = _fake_hf_cache(tmp_path, "distilgpt2")
    assert run._in_hf_cache("distilgpt2", cache_dir=cache)
    assert not run._in_hf_cache("gpt3", cache_dir=cache)
    assert not run._in_hf_cache("not a repo id", cache_dir=cache)


def _reproduce_model(tmp_path, monkeypatch, model, cache):
    import functools

    from attnbounds.empirical import models, run

    loaded = []

    def fake_load(name, **kwargs):
        loaded.append(name)
        raise FileNotFoundError("stop here: the test does not load weights")

    monkeypatch.setattr(models, "load_model", fake_load)
    if hasattr(run, "_in_hf_cache"):  # (absent before the fix: then the name check alone is tested)
        monkeypatch.setattr(run, "_in_hf_cache", functools.partial(run._in_hf_cache, cache_dir=cache))
    text = tmp_path / "t.txt"
    text.write_text("word " * 2000)
    result = _invoke("reproduce", "--model", model, "--text", str(text), "--quick", "--no-progress",
                     "--out", str(tmp_path / "out"))
    return result, loaded


def test_unknown_model_message_says_what_is_accepted(tmp_path, monkeypatch):
    result, loaded = _reproduce_model(tmp_path, monkeypatch, "gpt3", _fake_hf_cache(tmp_path / "hf", "distilgpt2"))
    assert result.exit_code == 2 and loaded == []
    line = result.stderr.strip()
    assert line.startswith("Error: --model: unknown model 'gpt3' (did you mean 'gpt2'")
    assert "not a built-in name, a local directory, or a hub id in the Hugging Face cache" in line
    assert "hub id 'owner/name'" in line


def test_a_hub_id_without_owner_in_the_cache_reaches_the_loader(tmp_path, monkeypatch):
    result, loaded = _reproduce_model(tmp_path, monkeypatch, "distilgpt2", _fake_hf_cache(tmp_path / "hf", "distilgpt2"))
    assert loaded == ["distilgpt2"], result.output  # accepted, as the message promises
    assert result.exit_code == 2 and "stop here" in result.stderr


# --- 6. COLUMNS is honoured off a terminal; the compact layout is explained in --help -------------

MY_CLAIM = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py")
_NO_TTY = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "TTY_INTERACTIVE": None}


def test_columns_80_gives_the_compact_table_in_a_pipe():
    result = _invoke("check", "--claims", MY_CLAIM, "--quick", "--no-progress", env={**_NO_TTY, "COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert lines[0].split() == ["id", "verdict", "proof", "s"]  # the compact header, not the box table


def test_without_columns_a_pipe_keeps_the_wide_table():
    result = _invoke("check", "--claims", MY_CLAIM, "--quick", "--no-progress", env={**_NO_TTY, "COLUMNS": None})
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("┏") and "evidence" in result.stdout.splitlines()[1]


def test_help_explains_the_compact_proof_column():
    text = " ".join(_invoke("check", "--help").output.split())
    assert '"k/n +m": k of the chain\'s n top-level steps checked, plus m sub-steps' in text
    assert "COLUMNS" in text and '"exact cex"' in text


# --- 5. under --normalizer: the title and the last line name it; a broken hypothesis is shown ------


def _rows_under(normalizer):
    return [
        {"id": "C1:transcribed", "kind": "reading", "verdict": "falsified", "methods": ["strategy"],
         "evidence": "hypothesis: lhs=0.0666 > rhs=0.0660", "seconds": 1.0, "normalizer": normalizer,
         "hypotheses_broken": ["softmax"]},
        {"id": "L1:transcribed", "kind": "reading", "verdict": "proved", "methods": ["symbolic"],
         "evidence": "exact", "seconds": 0.5, "normalizer": normalizer, "hypotheses_broken": []},
    ]


def _render(rows, width):
    import io

    from rich.console import Console

    from attnbounds.cli.check import render_table

    console = Console(file=io.StringIO(), width=width, color_system=None)
    render_table(rows, console)
    return console.file.getvalue()


def test_the_table_names_the_normalizer_and_the_hypothesis_it_breaks():
    for width in (150, 80):  # the box table and the compact one
        text = _render(_rows_under("sparsemax"), width)
        flat = " ".join(text.split())
        assert "verdicts under normalizer sparsemax" in flat, width
        assert "under normalizer sparsemax: 2 readings: 1 proved, 1 falsified;" in flat, width
        assert "in 1, sparsemax does not meet a hypothesis of the claim (softmax)" in flat, width
        assert "hypothesis 'softmax' not met by sparsemax" in flat, width
        line = next(x for x in text.splitlines() if "C1:transcribed" in x)
        assert "falsified (hypothesis not met)" in line, width  # the verdict itself is unchanged
        line = next(x for x in text.splitlines() if "L1:transcribed" in x)
        assert "proved" in line and "not met" not in line, width
        if width == 80:
            assert all(len(x) <= 80 for x in text.splitlines()), text


def test_without_a_normalizer_the_table_is_as_before():
    rows = [{k: v for k, v in r.items() if k not in ("normalizer", "hypotheses_broken")} for r in _rows_under(None)]
    text = _render(rows, 150)
    assert "normalizer" not in text and "not met" not in text
    assert text.splitlines()[-1].startswith("2 readings: 1 proved, 1 falsified; ")


def test_check_under_a_normalizer_shows_what_the_json_says(tmp_path):
    from attnbounds.engine.meta import read_rows

    out = tmp_path / "rows.json"
    result = _invoke("check", "C1:transcribed", "--examples", "5", "--normalizer", "sparsemax", "--no-progress",
                     "--json", str(out), env={**_NO_TTY, "COLUMNS": "150"})
    assert result.exit_code == 0, result.output
    (row,) = read_rows(out)
    assert row["normalizer"] == "sparsemax" and row["hypotheses_broken"]  # sparsemax is not softmax
    flat = " ".join(result.stdout.split())
    assert "verdicts under normalizer sparsemax" in flat and "under normalizer sparsemax: 1 reading:" in flat
    assert f"hypothesis {row['hypotheses_broken'][0]!r} not met by sparsemax" in flat
    assert f"{row['verdict']} (hypothesis not met)" in flat


# --- 4. --matrix: what it leaves out and why, a summary line, format and meta in its JSON ------------


def _fake_battery(monkeypatch):
    import sys
    import types

    rows = {"softmax": [{"id": "C1:transcribed", "kind": "reading", "verdict": "proved", "hypotheses_broken": []}],
            "sparsemax": [{"id": "C1:transcribed", "kind": "reading", "verdict": "falsified",
                           "hypotheses_broken": ["softmax"]}]}

    def run_matrix(normalizers=None, ids=None, *, budget, seed, claims, progress):
        names = list(normalizers or rows)
        return {"normalizers": names, "ids": ["C1:transcribed"], "seconds": 1.5,
                "verdicts": {n: {r["id"]: r["verdict"] for r in rows[n]} for n in names},
                "rows": {n: rows[n] for n in names}}

    fake = types.ModuleType("attnbounds.battery")
    fake.run_matrix, fake.plot_matrix = run_matrix, lambda matrix, path: None
    monkeypatch.setitem(sys.modules, "attnbounds.battery", fake)


def test_matrix_says_which_registered_normalizers_it_leaves_out_and_why(monkeypatch, tmp_path):
    import json

    from attnbounds.engine.meta import CHECK_FORMAT
    from attnbounds.numerics import normalizers as nz

    _fake_battery(monkeypatch)
    left_out = [n for n in nz.names() if n not in nz.names(role="attention")]
    assert left_out  # the registry has normalizers the matrix does not run (the ratio-form families)
    out = tmp_path / "m.json"
    result = _invoke("check", "--matrix", "C1", "--json", str(out), env={**_NO_TTY, "COLUMNS": "150"})
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert f"not in the matrix: {', '.join(left_out)} (role 'family' only" in flat
    assert "judge one with --normalizer NAME" in flat
    # the last line sums the matrix up, like check's
    assert result.stdout.splitlines()[-1] == ("2 normalizers x 1 reading: 2 cells: 1 proved, 1 falsified; "
                                              "1 marked * (a hypothesis of the claim not met); 1.5 s")
    assert "falsified*" in flat and "*: the normalizer does not meet a hypothesis" in flat
    doc = json.loads(out.read_text())
    check_meta = json.loads(_invoke("check", "--claims", MY_CLAIM, "--quick", "--no-progress", "--json", "-").stdout)
    assert doc["format"] == "attnbounds-matrix/1" and doc["format"] != CHECK_FORMAT
    assert set(check_meta["meta"]) <= set(doc["meta"]) and doc["meta"]["command"] == "matrix"
    assert doc["meta"]["complete"] is True
    assert sorted(doc["omitted"]) == sorted(left_out) and doc["verdicts"]["sparsemax"]["C1:transcribed"] == "falsified"
    help_text = " ".join(_invoke("check", "--help").output.split())
    assert "--matrix" in help_text and "role 'family' only" in help_text


def test_matrix_under_one_normalizer_omits_nothing(monkeypatch, tmp_path):
    import json

    _fake_battery(monkeypatch)
    out = tmp_path / "m.json"
    result = _invoke("check", "--matrix", "--normalizer", "softmax", "C1", "--json", str(out),
                     env={**_NO_TTY, "COLUMNS": "150"})
    assert result.exit_code == 0, result.output
    assert "not in the matrix" not in result.stdout
    assert result.stdout.splitlines()[-1].startswith("1 normalizer x 1 reading: 1 cell: 1 proved")
    # the one column is said, with how to get every column
    assert result.stdout.splitlines()[-2].startswith("one column: --normalizer softmax (without --normalizer")
    assert json.loads(out.read_text())["omitted"] == {}


# --- 7. meta: elapsed seconds and verdict counts; documented on the CLI page ------------------------


def test_check_json_meta_has_elapsed_seconds_and_the_verdict_counts(tmp_path):
    import json

    out = tmp_path / "rows.json"
    result = _invoke("check", "--claims", MY_CLAIM, "--quick", "--no-progress", "--json", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    meta, rows = doc["meta"], doc["rows"]
    assert isinstance(meta["elapsed_seconds"], float) and meta["elapsed_seconds"] >= 0
    # at least the rows' own seconds have passed (rounded to 0.1 s both)
    assert meta["elapsed_seconds"] + 0.1 >= round(sum(r["seconds"] for r in rows), 1) - 0.1
    expected: dict = {}
    for r in rows:
        expected.setdefault(r["kind"], {}).setdefault(r["verdict"], 0)
        expected[r["kind"]][r["verdict"]] += 1
    assert meta["counts"] == expected and sum(expected["reading"].values()) == len(rows)


def test_the_cli_page_documents_every_key_of_the_json(tmp_path, monkeypatch):
    import json
    import re
    from pathlib import Path

    from attnbounds.engine import meta as meta_module

    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    documented = set(re.findall(r"`([a-z_]+)`", page))
    out = tmp_path / "rows.json"
    assert _invoke("check", "--claims", MY_CLAIM, "--quick", "--no-progress", "--json", str(out)).exit_code == 0
    doc = json.loads(out.read_text())
    missing = [k for k in [*doc, *doc["meta"]] if k not in documented]
    assert not missing, f"docs/cli.md does not document {missing}"
    _fake_battery(monkeypatch)
    out = tmp_path / "m.json"
    assert _invoke("check", "--matrix", "C1", "--json", str(out)).exit_code == 0
    missing = [k for k in json.loads(out.read_text()) if k not in documented]
    assert not missing, f"docs/cli.md does not document the matrix's {missing}"
    for fmt in (meta_module.CHECK_FORMAT, meta_module.MATRIX_FORMAT, meta_module.MUTANTS_FORMAT):
        assert f"`{fmt}`" in page


def test_mutants_json_has_its_format_and_elapsed_seconds(tmp_path):
    import json

    from attnbounds.engine.meta import MUTANTS_FORMAT

    out = tmp_path / "m.json"
    _invoke("check", "--mutants", "--quick", "--claims", "tests/cli/test_mutants.py:TOY", "PQ:transcribed",
            "--json", str(out))
    doc = json.loads(out.read_text())
    assert doc["format"] == MUTANTS_FORMAT and doc["meta"]["command"] == "mutants"
    assert isinstance(doc["meta"]["elapsed_seconds"], float)


def test_claims_offers_exactly_the_hypothesis_drop_ids_that_check_runs():
    """`claims` called C3:without-positive-temperature a hypothesis-drop id that `check` refused."""
    from attnbounds import claims as registry
    from attnbounds import engine

    runnable = set(engine.valid_ids())
    seen = {True: 0, False: 0}
    for c in registry.all_claims():
        shown = CliRunner().invoke(main, ["claims", c.id]).output
        for h in c.hypotheses:
            rid = f"{c.id}:without-{h.name}"
            r = CliRunner().invoke(main, ["claims", rid])
            offered = "hypothesis-drop) id of claim" in r.output
            assert offered == (rid in runnable), (rid, r.output)
            assert (f"check {rid} shows" in shown) == (rid in runnable), rid
            seen[rid in runnable] += 1
    assert seen[True] and seen[False]  # both kinds exist, so the test tells them apart


def test_matrix_at_80_columns_numbers_the_columns_and_keeps_the_marks(monkeypatch):
    """At 80 columns the full matrix cut the names (entmax15 and entmax alike) and every '*'."""
    import sys
    import types

    names = ["softmax", "ssmax", "logn_scaled", "sparsemax", "entmax15", "entmax", "sigmoid", "adaptive_softmax"]
    verdict = {n: ("falsified" if n != "softmax" else "proved") for n in names}
    rows = {n: [{"id": "T1i:transcribed-if-R-ge-1", "kind": "reading", "verdict": verdict[n],
                 "hypotheses_broken": [] if n == "softmax" else ["softmax"]}] for n in names}

    def run_matrix(normalizers=None, ids=None, *, budget, seed, claims, progress):
        return {"normalizers": names, "ids": ["T1i:transcribed-if-R-ge-1"], "seconds": 1.0,
                "verdicts": {n: {r["id"]: r["verdict"] for r in rows[n]} for n in names}, "rows": rows}

    fake = types.ModuleType("attnbounds.battery")
    fake.run_matrix, fake.plot_matrix = run_matrix, lambda matrix, path: None
    monkeypatch.setitem(sys.modules, "attnbounds.battery", fake)
    narrow = _invoke("check", "--matrix", "T1i", env={**_NO_TTY, "COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.output
    lines = narrow.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    row = next(line for line in lines if line.lstrip().startswith("T1i:transcribed-if-R-ge-1"))
    assert row.split()[1:] == ["P"] + ["F*"] * 7, row
    assert "columns: " + ", ".join(f"{k} {n}" for k, n in enumerate(names, 1)) in " ".join(narrow.stdout.split())
    assert "P proved" in narrow.stdout and "F falsified" in narrow.stdout
    wide = _invoke("check", "--matrix", "T1i", env={**_NO_TTY, "COLUMNS": "200"})
    assert "falsified*" in wide.stdout and "adaptive_softmax" in wide.stdout and "columns: " not in wide.stdout


def test_comma_separated_ids_and_misspelled_normalizers_get_a_hint():
    ids = _invoke("check", "L1,C1", "--quick")
    assert ids.exit_code == 2 and "separate ids with spaces, not commas" in ids.output
    assert "separate ids" not in _invoke("check", "L9", "--quick").output
    norm = _invoke("check", "C1", "--quick", "--normalizer", "sparsemx")
    assert norm.exit_code == 2 and "(did you mean 'sparsemax'" in norm.output


# --- three senses of "hypothesis": the wide table's caption tells them apart; --latex says what is prose ----


def test_the_wide_table_explains_its_method_labels_and_the_senses_of_hypothesis():
    rows = _rows_under(None)
    rows[1]["proof"] = {"steps": 1, "checked": 1, "rules": ["hypothesis"], "status": "checked"}
    text = " ".join(_render(rows, 150).split())
    assert "methods: sym a symbolic proof, hyp the Hypothesis library's counterexample search." in text
    assert "the rule 'hypothesis' uses one of the claim's assumptions" in text
    # the senses the rows do not show are not explained (a new user read of ':without-NAME' rows
    # in a table that had none)
    assert "without-NAME" not in text
    assert "uses one of the claim's assumptions" not in " ".join(_render(_rows_under(None), 150).split())
    assert "cert" not in text.split("methods:")[1]  # only the labels the rows use
    assert text.rstrip().endswith("s")  # the summary line stays last (its seconds)
    assert "methods:" not in _render(_rows_under(None), 80)  # the compact layout shows no methods column


def test_claims_latex_says_the_statement_is_plain_text():
    result = _invoke("claims", "L2", "--latex")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[2].startswith("Statement (plain text: only the transcription and the readings have LaTeX forms): ")
    assert lines[3].startswith("Transcription: \\left")
    assert _invoke("claims", "L2").output.splitlines()[2].startswith("Statement: ")
