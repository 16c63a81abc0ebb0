"""``attnbounds reproduce`` end to end: outputs, resume, determinism, one-line errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from attnbounds.cli import main
from attnbounds.empirical import run
from attnbounds.numerics import attention as att

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "war_and_peace.txt"
TINY = dict(n_layer=2, n_head=4, n_embd=64)  # gpt2-random override: same code path, fast

pytestmark = pytest.mark.empirical


@pytest.fixture(scope="module")
def corpus() -> str:
    # must FAIL, not skip, when the shared corpus is missing
    assert CORPUS.is_file(), f"shared corpus missing: {CORPUS}"
    return str(CORPUS)


@pytest.fixture(scope="module")
def tiny_handle():
    from attnbounds.empirical.models import load_model

    return load_model("gpt2-random", seed=0, **TINY)


def _config(corpus, **kw):
    base = dict(model="gpt2-random", text=corpus, lengths=(16, 32, 64), top_n=(1, 5, 20), windows=2,
                quick=True, settings=run.QUICK_SETTINGS, model_overrides=TINY, protocol="last-query")
    base.update(kw)
    return run.ReproduceConfig(**base)


def _read_csv(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def _outputs(d: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.csv"))}


def test_causal_prefix_row_equals_separate_forward(tiny_handle):
    from attnbounds.empirical.capture import capture_attention

    ids = np.arange(100, 164)
    one = capture_attention(tiny_handle, ids, [15, 31, 63])
    for k, L in enumerate([16, 32, 64]):
        sep = capture_attention(tiny_handle, ids[:L], [L - 1])
        assert np.allclose(one.weights[:, :, k, :L], sep.weights[:, :, 0], atol=1e-6)
        assert np.allclose(one.logits[:, :, k, :L], sep.logits[:, :, 0], atol=1e-4)
        assert np.allclose(one.values[:, :, :L], sep.values, atol=1e-5)
        assert np.all(one.weights[:, :, k, L:] == 0)  # keys after the query are masked
    # the pipeline captures through the base model (no LM head): the same attention
    base = capture_attention(run.without_lm_head(tiny_handle), ids, [15, 31, 63])
    assert run.without_lm_head(tiny_handle).model is not tiny_handle.model
    for field in ("weights", "logits", "values", "keys", "hidden"):
        assert np.array_equal(getattr(base, field), getattr(one, field)), field


def test_reproduce_outputs_and_independent_recomputation(corpus, tiny_handle, tmp_path):
    from attnbounds.empirical.capture import capture_attention
    from attnbounds.empirical.text import load_text, token_windows

    cfg = _config(corpus, normalizers=("sparsemax",))
    res = run.run_reproduce(cfg, tmp_path, progress=False, handle=tiny_handle)
    names = {p.name for p in tmp_path.iterdir()}
    for f in ["results.json", "report.md", "distances.csv", "critical_n.csv", "separability.csv", "gradient.csv"]:
        assert f in names
    for stem in ["e1_distance_vs_L", "e2_distance_vs_N", "e3_critical_n", "e4_separability", "e5_gradient"]:
        assert f"{stem}.png" in names and f"{stem}.svg" in names
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["model"]["sha256"] and data["text"]["sha256"] and data["seed"] == 0
    assert data["versions"]["numpy"] == np.__version__
    assert set(data["headline"]) >= {"n_crit_over_L", "separability", "gradient_slope"}
    assert data["experiments"]["E1"]["reconstructed_bound_violations"] == 0  # a theorem
    rows = _read_csv(tmp_path / "distances.csv")
    assert list(rows[0])[:12] == ["layer", "head", "window", "L", "N", "d_tilde", "d_random", "d_random_ci_low",
                                  "d_random_ci_high", "bound_reconstructed", "bound_transcribed", "selected_mass"]
    cap_rows = [r for r in rows if r["normalizer"] == "captured"]
    # 2 layers × 4 heads × 2 windows × (L=16: N∈{1,5}; L=32, 64: N∈{1,5,20})
    assert len(cap_rows) == 2 * 4 * 2 * (2 + 3 + 3)
    assert {r["normalizer"] for r in rows} == {"captured", "sparsemax"}
    # recompute one row from a fresh capture with the naive kernels of numerics.attention
    ids = token_windows(load_text(corpus), tiny_handle.tokenizer, 64, 2)[1]
    c = capture_attention(tiny_handle, ids[:32], [31])
    w = c.weights[1, 3, 0].astype(np.float64)
    w /= w.sum()
    x = c.values[1, 3].astype(np.float64)
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    row = next(r for r in cap_rows if (r["layer"], r["head"], r["window"], r["L"], r["N"]) == ("1", "3", "1", "32", "5"))
    assert np.isclose(float(row["d_tilde"]), att.cumulative_distance(w, x, 5), rtol=1e-4)
    assert np.isclose(float(row["selected_mass"]), att.selected_mass(w, 5), rtol=1e-4)
    assert float(row["d_random_ci_low"]) <= float(row["d_random"]) <= float(row["d_random_ci_high"])
    e3 = _read_csv(tmp_path / "critical_n.csv")
    assert all(1 <= float(r["n_crit"]) < int(r["L"]) for r in e3 if r["n_crit"] != "nan")
    g = _read_csv(tmp_path / "gradient.csv")
    assert all(float(r["g_analytic"]) <= float(r["bound_spectral"]) * (1 + 1e-9) for r in g)
    assert res["numbers_sha256"] == data["numbers_sha256"]


def test_resume_after_interrupt_is_identical(corpus, tiny_handle, tmp_path, monkeypatch):
    from attnbounds.empirical import capture

    cfg = _config(corpus, experiments=("E1", "E3"), windows=3)
    full = tmp_path / "full"
    ref = run.run_reproduce(cfg, full, progress=False, handle=tiny_handle)

    calls = []
    real = capture.capture_attention

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(capture, "capture_attention", counting)

    def interrupt(i):
        if i == 1:
            raise KeyboardInterrupt

    part = tmp_path / "part"
    with pytest.raises(KeyboardInterrupt) as stopped:
        run.run_reproduce(cfg, part, progress=False, handle=tiny_handle, after_window=interrupt)
    assert sorted(p.name for p in (part / "cache").glob("window_*.npz")) == ["window_000.npz", "window_001.npz"]
    assert stopped.value.windows_saved == 2  # what the CLI's message counts
    assert not (part / "results.json").exists()
    calls.clear()
    again = run.run_reproduce(cfg, part, progress=False, handle=tiny_handle)
    assert len(calls) == 1  # only window 2 was recomputed (one causal forward)
    assert again["timing"]["cached_windows"] == [0, 1]
    report = (part / "report.md").read_text()
    assert "(2 of 3 windows from the cache: their seconds are those of the run that computed them)" in report
    assert "- protocol `last-query`: the last query row of each window only" in report
    assert again["protocol"] == {"name": "last-query"}
    assert "windows from the cache" not in (full / "report.md").read_text()
    assert _outputs(part) == _outputs(full)
    assert again["numbers_sha256"] == ref["numbers_sha256"]
    # a different seed changes the random columns: the cache is keyed on the settings
    other = run.run_reproduce(_config(corpus, experiments=("E1", "E3"), windows=3, seed=1), part, progress=False,
                              handle=tiny_handle)
    assert other["numbers_sha256"] != ref["numbers_sha256"]


def test_bidirectional_minilm_one_pass_per_length(corpus, tmp_path):
    cfg = run.ReproduceConfig(model="minilm", text=corpus, lengths=(16, 32), top_n=(1, 5), windows=1,
                              experiments=("E1", "E4"), quick=True, settings=run.QUICK_SETTINGS, protocol="last-query")
    res = run.run_reproduce(cfg, tmp_path, progress=False)
    assert res["model"]["causal"] is False
    assert res["experiments"]["E1"]["reconstructed_bound_violations"] == 0
    rows = _read_csv(tmp_path / "distances.csv")
    assert len(rows) == 6 * 12 * 2 * 2


def test_rows_full_on_an_encoder_is_said_to_change_nothing(corpus, minilm, tmp_path, capsys):
    """A trial's --rows full on MiniLM ran silently: an encoder's rows see every key either way."""
    def paper(rows, out):
        cfg = run.ReproduceConfig(model="minilm", text=corpus, lengths=(16, 32), windows=1, experiments=("E1",),
                                  rows=rows, settings=run.QUICK_SETTINGS)
        return run.run_reproduce(cfg, tmp_path / out, progress=False, handle=minilm)

    full = paper("full", "full")
    assert "note: --rows full: minilm is bidirectional" in capsys.readouterr().err
    prefix = paper("prefix", "prefix")
    assert "--rows" not in capsys.readouterr().err
    assert (tmp_path / "full" / "heads.csv").read_text() == (tmp_path / "prefix" / "heads.csv").read_text()
    assert full["protocol"]["rows"] == prefix["protocol"]["rows"] == "all keys (bidirectional)"


def test_cli_quick_smollm2_end_to_end(corpus, tmp_path):
    out = tmp_path / "smol"
    r = CliRunner().invoke(main, ["reproduce", "--model", "smollm2", "--text", corpus, "--quick", "--out", str(out),
                                  "--protocol", "last-query", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "it/s" not in r.output and "GGUF" not in r.output  # --no-progress: no loading bars either
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["lengths"] == [32, 64, 128]
    assert data["model"]["n_layers"] == 30 and data["model"]["n_heads"] == 9
    assert data["experiments"]["E1"]["reconstructed_bound_violations"] == 0
    assert "6% rule" in (out / "report.md").read_text()
    for key in ("n_crit_over_L", "separability", "gradient_slope"):
        assert key in r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--model", "no-such-model"], "--model: unknown model"),
        (["--model", "gpt2-random", "--experiments", "E1,E9"], "--experiments: unknown experiment E9"),
        (["--model", "gpt2-random", "--experiments", ""], "--experiments: no experiment given"),
        (["--model", "gpt2-random", "--experiments", " , "], "--experiments: no experiment given"),
        (["--model", "gpt2-random", "--vectors", "queries"], "--vectors: must be one of"),
        (["--model", "gpt2-random", "--lengths", "32,64", "--top-n", "1,64", "--protocol", "last-query"], "--top-n: N = 64 must be < L"),
        (["--model", "gpt2-random", "--lengths", "32", "--top-n", "x", "--protocol", "last-query"], "--top-n: expected comma-separated integers"),
    ],
)
def test_cli_usage_errors_are_one_line(corpus, tmp_path, args, message):
    r = CliRunner().invoke(main, ["reproduce", "--text", corpus, "--out", str(tmp_path), "--no-progress", *args])
    assert r.exit_code == 2
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], r.output


def test_errors_that_need_the_model(corpus, tiny_handle, tmp_path):
    with pytest.raises(run.ConfigError, match="--lengths: L = 2048 exceeds the model's 1024 positions"):
        run.run_reproduce(_config(corpus, lengths=(32, 2048)), tmp_path, progress=False, handle=tiny_handle)
    assert tmp_path.is_dir()  # it existed before the run: kept
    fresh = tmp_path / "new" / "fresh"
    with pytest.raises(run.ConfigError, match="--lengths: L = 2048 exceeds the model's 1024 positions"):
        run.run_reproduce(_config(corpus, lengths=(32, 2048)), fresh, progress=False, handle=tiny_handle)
    assert not (tmp_path / "new").exists()  # created for the run and left empty: removed again, parents and all
    short = tmp_path.parent / f"{tmp_path.name}-short.txt"  # not in --out: a run replaces --out whole
    short.write_text("Only a few words here.")
    with pytest.raises(run.ConfigError, match="--text: text too short"):
        run.run_reproduce(_config(str(short)), tmp_path, progress=False, handle=tiny_handle)
    few = tmp_path.parent / f"{tmp_path.name}-few.txt"  # enough bytes, too few tokens: say how many fit (trial 133)
    few.write_text("word " * 40)
    with pytest.raises(run.ConfigError, match=r"text too short for 2 window\(s\) of 64 tokens \(it gives 40 tokens: "
                                              r"0 window\(s\) of 64 fit\)"):
        run.run_reproduce(_config(str(few)), tmp_path, progress=False, handle=tiny_handle)
    with pytest.raises(run.ConfigError, match="--text"):
        run.run_reproduce(_config(str(tmp_path / "missing.txt")), tmp_path, progress=False, handle=tiny_handle)
    with pytest.raises(run.ConfigError, match="--normalizers"):
        run.run_reproduce(_config(corpus, normalizers=("nope",)), tmp_path, progress=False, handle=tiny_handle)


@pytest.mark.parametrize("args, message", [
    (["--protocol", "last-query", "--rows", "prefix"], "--rows: used by --protocol paper only"),
    (["--protocol", "last-query", "--tile"], "--tile: used by --protocol paper only"),
    (["--protocol", "last-query", "--no-tile"], "--no-tile: used by --protocol paper only"),
    (["--normalizers", "sparsemax", "--e5-length", "32"], "--e5-length: used by --protocol paper only"),
    (["--lengths", "32,64", "--e5-length", "48"], "--e5-length: must be one of the lengths [32, 64], got 48"),
])
def test_cli_paper_only_options_are_refused_before_the_model_loads(corpus, tmp_path, args, message):
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", corpus, "--out", str(out),
                                  "--no-progress", *args])
    assert r.exit_code == 2
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], r.output
    assert not out.exists()  # refused before the lock: nothing created


def test_cli_list_options_refuse_empty_items_and_verify_refuses_run_options(corpus, tmp_path):
    r = CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", corpus, "--lengths", "32,,64",
                                  "--out", str(tmp_path / "out"), "--no-progress"])
    assert r.exit_code == 2 and "Error: --lengths: expected comma-separated integers, got '32,,64'" in r.output
    r = CliRunner().invoke(main, ["reproduce", "--verify", str(tmp_path), "--model", "gpt2-random", "--lengths", "32"])
    assert r.exit_code == 2 and "Error: --verify: checks DIR and runs nothing; drop --model, --lengths" in r.output
    r = CliRunner().invoke(main, ["reproduce", "--verify", str(tmp_path), "--no-tile"])
    assert r.exit_code == 2 and "drop --no-tile" in r.output


def test_a_broken_pipe_that_is_not_stdout_is_an_error(corpus, tmp_path, monkeypatch):
    def broken(*a, **k):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(run, "run_reproduce", broken)
    r = CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", corpus, "--out", str(tmp_path / "o")])
    assert r.exit_code == 1 and "Error: BrokenPipeError: a pipe closed" in r.output


def test_an_interrupt_says_what_a_rerun_will_find(corpus, tmp_path, monkeypatch):
    """A trial: the interrupt promised a resume even when no window had finished."""
    from attnbounds.empirical import store

    out = tmp_path / "o"

    def interrupted(config, out_dir, **k):
        cache = store.WindowCache(out_dir).dir  # a file of another run (another model, other settings) is there
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "window_000.npz").write_bytes(b"")
        err = KeyboardInterrupt()
        if k.get("progress") is False and (tmp_path / "save").exists():
            err.windows_saved = 1  # as run_reproduce sets it: the windows of this run that finished
        raise err

    monkeypatch.setattr(run, "run_reproduce", interrupted)
    args = ["reproduce", "--model", "gpt2-random", "--text", corpus, "--out", str(out), "--no-progress"]
    r = CliRunner().invoke(main, args)
    # another run's file in the cache was counted as "1 finished window(s) are saved" (trial 133)
    assert r.exit_code == 130 and "no window of this run had finished, so it saved nothing" in r.output
    (tmp_path / "save").touch()
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 130 and "1 finished window(s) of this run are saved in" in r.output
    assert "rerun the same command" in r.output


def test_sigterm_says_what_was_saved_and_exits_143(corpus, tmp_path, monkeypatch):
    """A job scheduler's stop (SIGTERM) takes the interrupt path of Ctrl-C, even when SIGINT is
    ignored (a background job of a script)."""
    import os
    import signal

    from attnbounds.empirical import store

    def terminated(config, out_dir, **k):
        cache = store.WindowCache(out_dir).dir
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "window_000.npz").write_bytes(b"")
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        except KeyboardInterrupt as err:  # as run_reproduce does: how many of its windows finished
            err.windows_saved = 1
            raise
        raise AssertionError("SIGTERM did not stop the run")

    monkeypatch.setattr(run, "run_reproduce", terminated)
    monkeypatch.setattr(signal, "getsignal", lambda s, real=signal.getsignal: signal.SIG_IGN if s == signal.SIGINT
                        else real(s))
    r = CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", corpus, "--out", str(tmp_path / "o"),
                                  "--no-progress"])
    assert r.exit_code == 143, r.output
    assert "1 finished window(s) of this run are saved in" in r.output


def test_cli_error_above_model_positions(corpus, tmp_path):
    r = CliRunner().invoke(main, ["reproduce", "--model", "minilm", "--text", corpus, "--lengths", "32,1024",
                                  "--out", str(tmp_path), "--no-progress"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1].startswith("Error: --lengths: L = 1024 exceeds the model's 512 positions")


def test_hidden_vectors_without_sphere(corpus, tiny_handle, tmp_path):
    cfg = _config(corpus, windows=1, experiments=("E1", "E4"), vectors="hidden", sphere=False)
    res = run.run_reproduce(cfg, tmp_path, progress=False, handle=tiny_handle)
    assert res["experiments"]["E1"]["reconstructed_bound_violations"] == 0
    rows = _read_csv(tmp_path / "distances.csv")
    # raw hidden states are not unit vectors: d_1 and R are the largest norms, not 1
    assert any(abs(float(r["R"]) - 1) > 1e-3 for r in rows)
    assert {r["head"] for r in rows} == {"0", "1", "2", "3"}


def test_last_query_report_shows_only_the_experiments_asked(corpus, tiny_handle, tmp_path):
    """--experiments E4 reported E1's headline and an E1/E2 section too (E4 reads the distance rows)."""
    res = run.run_reproduce(_config(corpus, experiments=("E4",), windows=1), tmp_path, progress=False, handle=tiny_handle)
    report = (tmp_path / "report.md").read_text()
    assert "E4" in res["experiments"] and "E1" not in res["experiments"] and "E2" not in res["experiments"]
    assert "distance_vs_L" not in res["headline"] and "## E1/E2" not in report and "## E4" in report


def test_model_loading_draws_no_tqdm_bars_into_a_log(monkeypatch):
    # with progress on but stderr not a terminal (a log, CI), the loaders' own tqdm bars are
    # switched off: the log gets attnbounds' plain progress lines only
    import io
    import sys
    from types import SimpleNamespace

    from transformers.utils import logging as hf_logging

    from attnbounds.empirical import run as run_mod

    hf_logging.enable_progress_bar()
    try:
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        config = SimpleNamespace(model="gpt2-random", device="cpu", seed=0, model_overrides={})
        got = run_mod._load_model_checked(lambda name, **kw: ("loaded", name), config, progress=True)
        assert got == ("loaded", "gpt2-random") and not hf_logging.is_progress_bar_enabled()
    finally:
        hf_logging.disable_progress_bar()  # as every other test's --no-progress leaves it


def test_an_interrupt_while_publishing_counts_every_window_saved(corpus, tiny_handle, tmp_path):
    """A Ctrl-C after the last window (while the results are written) was reported as "no window
    of this run had finished": the count was set inside the windows' loop only (review 134)."""
    cfg = _config(corpus, experiments=("E1",), windows=2)

    def interrupt():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as stopped:
        run.run_reproduce(cfg, tmp_path / "o", progress=False, handle=tiny_handle, before_swap=interrupt)
    assert stopped.value.windows_saved == 2
    assert len(list((tmp_path / "o" / "cache").glob("window_*.npz"))) == 2
