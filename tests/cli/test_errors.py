"""Bad input is one line naming the flag as typed, exit 2, before any heavy work (issue 13)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from attnbounds.cli import main

REPO = Path(__file__).resolve().parents[2]
CORPUS = str((REPO / ".." / "shared" / "corpus" / "war_and_peace.txt").resolve())


def _one_line_error(result, *fragments) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def no_model_load(monkeypatch):
    """Loading a model fails the test: every check here must come before it."""
    from attnbounds.empirical import models

    def forbidden(*a, **k):
        raise AssertionError("the model was loaded before the arguments were checked")

    monkeypatch.setattr(models, "load_model", forbidden)


def _reproduce(tmp_path, *args, out=None):
    return CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", CORPUS, "--no-progress",
                                     "--out", str(out or tmp_path / "out"), *args])


def test_unwritable_out_exits_2_fast_before_the_model(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "attnbounds", "reproduce", "--model", "gpt2-random", "--text", CORPUS,
                        "--out", str(blocker / "out"), "--no-progress"], env=env, capture_output=True, text=True,
                       timeout=120)
    elapsed = time.perf_counter() - t0
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 2, p.stderr
    assert len(lines) == 1 and lines[0].startswith("Error: --out: ") and "is not a directory" in lines[0], p.stderr
    assert elapsed < 5, f"took {elapsed:.1f} s"


def test_out_that_is_a_file_is_refused(tmp_path, no_model_load):
    f = tmp_path / "results"
    f.write_text("x")
    _one_line_error(_reproduce(tmp_path, out=f), "--out: ", "is not a directory")


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_non_finite_or_non_positive_radius(tmp_path, no_model_load, value):
    _one_line_error(_reproduce(tmp_path, "--protocol", "last-query", "--radius", value), "--radius: must be a finite number > 0")


@pytest.mark.parametrize("flag, value", [("--mc-samples", "1"), ("--ks-grid", "1")])
def test_settings_errors_name_the_flag(tmp_path, no_model_load, flag, value):
    line = _one_line_error(_reproduce(tmp_path, "--protocol", "last-query", flag, value), f"{flag}: ")
    assert "mc_samples" not in line and "ks_grid" not in line and "last-query only" not in line


@pytest.mark.parametrize("flag, value, field", [("--ks-alpha", "2", "ks_alpha"), ("--e5-length", "1", "e5_length")])
def test_paper_protocol_settings_errors_name_the_flag(tmp_path, no_model_load, flag, value, field):
    line = _one_line_error(_reproduce(tmp_path, flag, value), f"{flag}: ")
    assert field not in line


@pytest.mark.parametrize("spec, fragment", [("os:sep", "is not a normalizer"),
                                            ("numpy:exp", "rows must sum to 1"),
                                            ("nosuch", "unknown normalizer")])
def test_reproduce_bad_normalizer_plugins(tmp_path, no_model_load, spec, fragment):
    _one_line_error(_reproduce(tmp_path, "--normalizers", spec), "--normalizers: ", fragment)


@pytest.mark.parametrize("spec, fragment", [("os:sep", "is not a normalizer"), ("numpy:exp", "rows must sum to 1")])
def test_check_bad_normalizer_plugins(spec, fragment):
    _one_line_error(CliRunner().invoke(main, ["check", "L1", "--quick", "--normalizer", spec]),
                    "--normalizer: ", fragment)


def test_bad_text_is_reported_before_the_model(tmp_path, no_model_load):
    short = tmp_path / "short.txt"
    short.write_text("Only a few words here.")
    _one_line_error(CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", str(short),
                                              "--out", str(tmp_path / "o"), "--no-progress"]),
                    "--text: text too short")
    line = _one_line_error(CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text",
                                                     str(tmp_path / "missing.txt"), "--out", str(tmp_path / "o")]),
                           "--text: ", "missing.txt")
    assert "src:" not in line


def test_cuda_on_a_build_without_it(tmp_path, no_model_load, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    _one_line_error(_reproduce(tmp_path, "--device", "cuda"), "--device: 'cuda' is not available", "--device cpu")


def test_check_unwritable_json_fails_before_the_claims_run(tmp_path, monkeypatch):
    from attnbounds import engine

    def forbidden(*a, **k):
        raise AssertionError("the claims ran before --json was checked")

    monkeypatch.setattr(engine, "check", forbidden)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    _one_line_error(CliRunner().invoke(main, ["check", "L1", "--quick", "--json", str(blocker / "v.json")]),
                    "--json: cannot write")
    _one_line_error(CliRunner().invoke(main, ["check", "L1", "--quick", "--json", str(tmp_path)]),
                    "--json", "is a directory")  # click's own check, made one line


def test_check_unwritable_plot_fails_before_the_matrix_runs(tmp_path, monkeypatch):
    from attnbounds import battery

    def forbidden(*a, **k):
        raise AssertionError("the matrix ran before --plot was checked")

    monkeypatch.setattr(battery, "run_matrix", forbidden)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    _one_line_error(CliRunner().invoke(main, ["check", "--matrix", "--quick", "--plot", str(blocker / "m.png")]),
                    "--plot: cannot write")
    _one_line_error(CliRunner().invoke(main, ["check", "--matrix", "--quick", "--plot", str(tmp_path / "m.gif")]),
                    "--plot: must end in .png")


def test_unexpected_errors_are_one_line_unless_debug(monkeypatch):
    from attnbounds import engine

    def broken(*a, **k):
        raise RuntimeError("something\ninternal broke")

    monkeypatch.setattr(engine, "check", broken)
    r = CliRunner().invoke(main, ["check", "L1", "--quick"])
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert lines[0] == "Error: RuntimeError: something internal broke (rerun with --debug for the traceback)"
    r = CliRunner().invoke(main, ["--debug", "check", "L1", "--quick"])
    assert isinstance(r.exception, RuntimeError)  # --debug lets the traceback through


def test_reproduce_verify_needs_no_model(tmp_path):
    r = CliRunner().invoke(main, ["reproduce", "--verify", str(tmp_path)])
    assert r.exit_code == 1 and "inconsistent: no manifest.json" in r.output, r.output
    _one_line_error(CliRunner().invoke(main, ["reproduce", "--text", CORPUS]), "--model: required")


@pytest.mark.parametrize("flag, value, instead", [("--top-n", "1,5", "listings' N"), ("--mc-samples", "4", "T1(ii)'s main term"),
                                                  ("--ks-grid", "8", "step max(1"), ("--radius", "0.5", "min over non-selected")])
def test_last_query_options_are_refused_under_the_paper_protocol(tmp_path, no_model_load, flag, value, instead):
    """The paper protocol (the default) reads none of these; a run that silently ignored them would mislead."""
    line = _one_line_error(_reproduce(tmp_path, flag, value), f"{flag}: used by --protocol last-query only")
    assert instead in line
    _one_line_error(_reproduce(tmp_path, "--protocol", "paper", flag, value), f"{flag}: used by --protocol last-query only")


def test_a_reader_that_goes_away_ends_the_command_quietly():
    """`attnbounds claims | head`: the reader closes the pipe before the command writes; the
    command ends as a process killed by SIGPIPE would (141), with nothing on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "attnbounds", "claims"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO)
    proc.stdout.close()  # before the child's imports are done: its first write finds no reader
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141, err
    assert err == "", err


def test_json_to_a_fifo_or_through_a_symlink(tmp_path):
    # a FIFO is refused at once (the writability probe used to block on opening it); a symlink
    # is written through, so the link survives and its target holds the rows
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    res = CliRunner().invoke(main, ["check", "L2:entry", "--quick", "--json", str(fifo)])
    assert res.exit_code == 2 and "--json" in res.output and "not a regular file" in res.output, res.output
    target = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    res = CliRunner().invoke(main, ["check", "L2:entry", "--quick", "--json", str(link)])
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and '"rows"' in target.read_text()


def test_claim_ids_print_literally_without_emoji(tmp_path):
    # rich read ":TV:" in "my-notes:TV:transcribed" as an emoji code (📺)
    src = Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py"
    other = tmp_path / "my_claim2.py"
    other.write_text(src.read_text().replace('paper="my-notes"', 'paper="other-notes"'))
    assert other.read_text() != src.read_text()
    res = CliRunner().invoke(main, ["check", "--quick", "--claims", str(src), "--claims", str(other)],
                             env={"COLUMNS": "200"})
    assert res.exit_code in (0, 1), res.output
    assert "📺" not in res.output and "my-notes:TV:transcribed" in res.output, res.output


def test_a_counterexample_under_a_parametrized_normalizer_replays(tmp_path):
    # rows and instances used to record "ssmax" for ssmax(s=2): the recorded counterexample
    # then replayed under s = 1 and was no counterexample
    import json

    import numpy as np

    from attnbounds.claims import registry

    out = tmp_path / "rows.json"
    res = CliRunner().invoke(main, ["check", "--quick", "--normalizer", "ssmax(s=2)", "L2:entry", "--json", str(out)])
    assert res.exit_code in (0, 1), res.output
    row = json.loads(out.read_text())["rows"][0]
    assert row["normalizer"] == "ssmax(s=2.0)" and row["verdict"] == "falsified", row
    inst = {k: (np.array(v) if isinstance(v, list) else v) for k, v in row["counterexample"]["instance"].items()}
    assert inst["normalizer"] == "ssmax(s=2.0)"
    sides = registry.get("L2").reading("entry").sides(inst)
    assert np.max(sides.lhs) > np.max(sides.rhs)


def test_an_ambiguous_id_is_not_called_unknown_and_a_bad_parameter_is_named(tmp_path):
    src = Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py"
    other = tmp_path / "my_claim2.py"
    other.write_text(src.read_text().replace('paper="my-notes"', 'paper="other-notes"'))
    res = CliRunner().invoke(main, ["check", "--quick", "--claims", str(src), "--claims", str(other), "TV"])
    assert res.exit_code == 2 and "unknown" not in res.output, res.output
    assert "ambiguous claim id 'TV': my-notes:TV, other-notes:TV" in res.output
    res = CliRunner().invoke(main, ["check", "--quick", "--normalizer", "ssmax(q=1)", "L2:entry"])
    assert res.exit_code == 2 and "q is an unknown parameter for normalizer 'ssmax'" in res.output, res.output


def test_claims_latex_with_json_is_refused_and_one_substep_is_singular():
    res = CliRunner().invoke(main, ["claims", "L2", "--json", "--latex"])
    assert res.exit_code == 2 and "--latex: not with --json" in res.output, res.output
    from attnbounds.cli.check import proof_cell

    assert proof_cell({"checked": 2, "steps": 2, "substeps": 1, "rules": ["termwise"], "status": "checked"}).startswith(
        "2/2 steps (+1 sub-step) checked")


@pytest.mark.parametrize("argv", [["derive", "L2-softmax", "--json", "--latex"], ["derive", "--latex", "--json"],
                                  ["derive", "--normalizer", "sparsemax", "--json", "--latex"]])
def test_derive_latex_with_json_is_refused_as_claims_refuses_it(argv):
    # derive accepted the pair and ignored --latex (trial 132)
    _one_line_error(CliRunner().invoke(main, argv), "--latex: not with --json")


def test_a_users_claim_with_a_package_claims_id_is_shown_qualified(tmp_path):
    """A user's claim L2 in its own paper was shown as 'L2' (unique among the claims the file
    gave), so --expect compared it with the paper's L2."""
    import json

    src = Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py"
    mine = tmp_path / "l2mine.py"
    mine.write_text(src.read_text().replace('id="TV"', 'id="L2"'))
    assert mine.read_text() != src.read_text()
    out = tmp_path / "rows.json"
    res = CliRunner().invoke(main, ["check", "--quick", "--claims", str(mine), "--json", str(out)])
    assert res.exit_code in (0, 1), res.output
    ids = {r["id"] for r in json.loads(out.read_text())["rows"]}
    assert ids and all(i.startswith("my-notes:L2:") for i in ids), ids
    res = CliRunner().invoke(main, ["check", "--quick", "--claims", str(src), "--json", str(out)])
    assert {r["id"] for r in json.loads(out.read_text())["rows"]} >= {"TV:transcribed"}  # no clash: short


def test_a_claim_id_with_a_trailing_colon_is_unknown():
    _one_line_error(CliRunner().invoke(main, ["check", "--quick", "L2:"]), "unknown id 'L2:'")


def test_a_text_file_that_is_not_utf8_is_named(tmp_path):
    bad = tmp_path / "bin.txt"
    bad.write_bytes(b"\xbe\xff abc")
    _one_line_error(CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", str(bad), "--out",
                                              str(tmp_path / "o")]), "--text:", "bin.txt", "is not a UTF-8 text file")


def test_the_version_names_the_program():
    res = CliRunner().invoke(main, ["--version"])
    assert res.exit_code == 0 and res.output.startswith("attnbounds, version "), res.output


def test_claims_naming_a_non_claim_or_a_broken_file_is_a_usage_error(tmp_path):
    """A new user's --claims mynorm.py:relu (a normalizer) was told to define CLAIM = Claim(...);
    a file that failed to import exited 1 where --normalizer's exits 2."""
    (tmp_path / "norm.py").write_text("from attnbounds.numerics import normalizers\nrelu = normalizers.get('softmax')\n")
    (tmp_path / "broken.py").write_text("x = (\n")
    res = CliRunner().invoke(main, ["check", "--claims", f"{tmp_path / 'norm.py'}:relu", "--quick"])
    assert res.exit_code == 2 and "is a Normalizer, not a Claim or a sequence of Claims" in res.output
    res = CliRunner().invoke(main, ["check", "--claims", str(tmp_path / "broken.py"), "--quick"])
    assert res.exit_code == 2 and "importing" in res.output and "SyntaxError" in res.output


def test_claims_lists_a_shared_id_with_its_paper(tmp_path):
    """Two --claims files that both define TV were listed as two identical 'TV' lines (check
    qualified them); the JSON had no paper to tell them apart."""
    import json

    src = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py").read_text()
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(src.replace('paper="my-notes"', f'paper="notes-{name}"'))
    args = ["claims", "--claims", str(tmp_path / "a.py"), "--claims", str(tmp_path / "b.py")]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0 and "notes-a:TV" in res.output and "notes-b:TV" in res.output
    res = CliRunner().invoke(main, args + ["--json"])
    assert [c["paper"] for c in json.loads(res.output)] == ["notes-a", "notes-b"]
    res = CliRunner().invoke(main, ["claims", "--claims", str(tmp_path / "a.py")])
    assert res.output.startswith("TV ")  # a unique id stays short


# --- a demanding user's trial (stop 46) ----------------------------------------------------


def test_check_json_never_overwrites_the_claims_file_it_reads(tmp_path):
    mine = tmp_path / "mine.py"
    text = (REPO / "docs" / "examples" / "my_claim.py").read_text()
    mine.write_text(text)
    r = CliRunner().invoke(main, ["check", "--claims", str(mine), "--quick", "--json", str(mine)])
    _one_line_error(r, "--json: ", "is the file --claims reads", "would overwrite it")
    assert mine.read_text() == text


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_check_time_limit_must_be_finite(value):
    _one_line_error(CliRunner().invoke(main, ["check", "--time-limit", value, "T1i:sharp"]), "'--time-limit'", "finite")


@pytest.mark.parametrize("other", ["--matrix", "--mutants"])
def test_check_strict_is_refused_where_it_would_be_ignored(other):
    _one_line_error(CliRunner().invoke(main, ["check", other, "--strict", "C1", "--quick"]), "--strict: not combinable")


@pytest.mark.parametrize("kind, fragment", [("dir", "is a directory"), ("txt", "is not a .py file")])
def test_check_claims_that_is_not_a_python_file(tmp_path, kind, fragment):
    path = tmp_path if kind == "dir" else tmp_path / "notes.txt"
    if kind == "txt":
        path.write_text("notes\n")
    _one_line_error(CliRunner().invoke(main, ["check", "--claims", str(path), "--quick"]), "--claims: ", fragment)


@pytest.mark.parametrize("name, lists", [("C3", "L2-softmax"), ("2508.17821:L2", "L2-generic")])
def test_derive_a_claim_id_lists_the_derivations_the_claim_names(name, lists):
    """`derive C3` was refused, though C3 names L2-softmax (the names were matched by prefix)."""
    r = CliRunner().invoke(main, ["derive", name])
    assert r.exit_code == 0 and lists in r.output, r.output


def test_derive_a_claim_without_derivations_says_so():
    r = CliRunner().invoke(main, ["derive", "--claims", str(REPO / "docs" / "examples" / "my_claim.py"), "TV"])
    line = _one_line_error(r, "claim TV names no derivation")
    assert "did you mean" not in line


def test_engine_check_given_a_path_says_how_to_load_it():
    from attnbounds import engine

    with pytest.raises(TypeError, match="load it first with attnbounds.claims.load_claims"):
        engine.check(claims="docs/examples/my_claim.py")


@pytest.mark.parametrize("argv, flag, taken", [
    (["check", "L1", "--quick", "--json", "--strict"], "--json", "--strict"),
    (["check", "--matrix", "L1", "--quick", "--plot", "--no-progress"], "--plot", "--no-progress"),
    (["check", "--plot", "--matrix", "L1", "--quick"], "--plot", "--matrix"),  # not "only valid with --matrix"
    (["reproduce", "--model", "gpt2-random", "--text", CORPUS, "--out", "--quick"], "--out", "--quick"),
    # the word after the option taken for the path was click's "unexpected extra argument (nodir)" (trial 132)
    (["reproduce", "--verify", "--out", "nodir"], "--verify", "--out"),
    (["reproduce", "--verify", "--quick"], "--verify", "--quick"),
    (["reproduce", "--out", "--quick", "nodir"], "--out", "--quick"),
])
def test_an_option_taken_as_an_output_path_is_refused(tmp_path, monkeypatch, no_model_load, argv, flag, taken):
    monkeypatch.chdir(tmp_path)  # a file named after the option would land here
    _one_line_error(CliRunner().invoke(main, argv), f"{flag}: {taken!r} looks like an option", f"./{taken}")
    assert not list(tmp_path.iterdir())  # nothing created


def test_a_file_named_like_an_option_is_written_through_dot_slash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["check", "C3", "--quick", "--no-progress", "--json", "./--strict"])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "--strict").read_text())["format"] == "attnbounds-check/2"


@pytest.mark.parametrize("argv, flag", [
    (["check", "--matrix", "L1", "--quick", "--plot", "-"], "--plot"),
    (["reproduce", "--model", "gpt2-random", "--text", CORPUS, "--out", "-"], "--out"),
])
def test_stdout_is_refused_where_it_cannot_be(tmp_path, monkeypatch, no_model_load, argv, flag):
    monkeypatch.chdir(tmp_path)
    _one_line_error(CliRunner().invoke(main, argv), f"{flag}: '-' (stdout) is not possible here", "./-")
    assert not list(tmp_path.iterdir())
