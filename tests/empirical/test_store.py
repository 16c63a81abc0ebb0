"""The reproduce output directory is never stale, mixed or lost (issue 13).

* the cache key covers the plug-in's source: an edited plug-in changes the numbers;
* a run locks ``--out``: concurrent runs give one completion and one-line refusals;
* a damaged cache entry is deleted and recomputed;
* a kill during the final write leaves the old complete results (or the new ones);
* ``reproduce --verify`` accepts a published directory and reports a tampered one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from attnbounds.cli import main
from attnbounds.empirical import run, store

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus" / "war_and_peace.txt"
TINY = dict(n_layer=2, n_head=4, n_embd=64)  # gpt2-random override: same code path, fast

pytestmark = pytest.mark.empirical


@pytest.fixture(scope="module")
def corpus() -> str:
    assert CORPUS.is_file(), f"shared corpus missing: {CORPUS}"  # FAIL, not skip
    return str(CORPUS.resolve())


@pytest.fixture(scope="module")
def tiny_handle():
    from attnbounds.empirical.models import load_model

    return load_model("gpt2-random", seed=0, **TINY)


def _config(corpus, **kw):
    base = dict(model="gpt2-random", text=corpus, lengths=(16, 32), top_n=(1, 5), windows=2,
                experiments=("E1",), quick=True, settings=run.QUICK_SETTINGS, model_overrides=TINY,
                protocol="last-query")
    base.update(kw)
    return run.ReproduceConfig(**base)


def _results(d: Path) -> dict:
    """Every result file of a directory (not the cache or the lock): name -> bytes."""
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file() and p.relative_to(d).parts[0] not in ("cache", ".lock")}


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


PLUGIN = """
import numpy as np

def weights(z):
    e = np.exp(POWER * (z - z.max(-1, keepdims=True)))
    return e / e.sum(-1, keepdims=True)
"""


def test_edited_plugin_changes_the_numbers(corpus, tiny_handle, tmp_path):
    plugin = tmp_path / "plug.py"
    spec = f"{plugin}:weights"
    out = tmp_path / "out"
    cfg = _config(corpus, windows=1, normalizers=(spec,))

    def plugin_rows(d):
        import csv

        with open(d / "distances.csv") as fh:
            return [r["d_tilde"] for r in csv.DictReader(fh) if r["normalizer"] == spec]

    plugin.write_text(PLUGIN.replace("POWER", "1.0"))
    run.run_reproduce(cfg, out, progress=False, handle=tiny_handle)
    first = plugin_rows(out)
    plugin.write_text(PLUGIN.replace("POWER", "3.0"))  # same spec string, other code
    again = run.run_reproduce(cfg, out, progress=False, handle=tiny_handle)
    assert again["timing"]["cached_windows"] == []  # the key covers the plug-in's source
    edited = plugin_rows(out)
    assert first and edited != first
    fresh = tmp_path / "fresh"
    run.run_reproduce(cfg, fresh, progress=False, handle=tiny_handle)
    assert plugin_rows(fresh) == edited


# A plug-in that, on the run's real logits (not the (2, 4) trial rows), records that the run
# is under way and then waits for the test to let it finish: the run holds --out meanwhile.
# It waits for that event, not for a clock (a loaded machine only makes it wait longer), and
# gives up only if the test process is gone.
GATE_PLUGIN = """
import os, time
import numpy as np

def weights(z):
    if z.shape[-1] > 4:
        gate = os.environ["GATE_DIR"]
        test = int(os.environ["GATE_TEST_PID"])
        open(os.path.join(gate, f"started-{os.getpid()}"), "w").close()
        while not os.path.exists(os.path.join(gate, "release")):
            try:
                os.kill(test, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
"""


def _until(event, what: str, guard: float = 1800.0) -> None:
    """Wait until ``event()`` is true. The guard is no deadline on speed: it only ends a test
    that hangs (a run that never finishes), after half an hour."""
    end = time.monotonic() + guard
    while not event():
        assert time.monotonic() < end, f"hung for {guard:g} s waiting for {what}"
        time.sleep(0.05)


def test_concurrent_runs_one_completes_others_refuse(corpus, tiny_gpt2_dir, tmp_path):
    gate = tmp_path / "gate"
    gate.mkdir()
    plugin = tmp_path / "gate_plugin.py"
    plugin.write_text(GATE_PLUGIN)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "attnbounds", "reproduce", "--model", str(tiny_gpt2_dir), "--text", corpus,
           "--lengths", "16,32", "--top-n", "1,5", "--windows", "1", "--experiments", "E1", "--quick",
           "--normalizers", f"{plugin}:weights", "--out", str(out), "--no-progress"]
    env = dict(_env(), GATE_DIR=str(gate), GATE_TEST_PID=str(os.getpid()))
    logs = tmp_path / "logs"
    logs.mkdir()

    handles = []

    def start(name):  # output to files, so that waiting on events never blocks on a full pipe
        handles.extend([open(logs / f"{name}.out", "w"), open(logs / f"{name}.err", "w")])
        return subprocess.Popen(cmd, env=env, stdout=handles[-2], stderr=handles[-1], text=True, cwd=tmp_path), name

    def output(name):
        return (logs / f"{name}.out").read_text(), (logs / f"{name}.err").read_text()

    first, _ = start("first")
    others = []
    try:
        # event: the first run computes (it holds --out), or it ended (then it failed)
        _until(lambda: list(gate.glob("started-*")) or first.poll() is not None, "the first run to start computing")
        assert list(gate.glob("started-*")), f"the first run never started computing: {output('first')}"
        others = [start(f"other{k}") for k in range(2)]
        # event: both others ended, or one of them got in (a second started-* file): no waiting for a clock
        _until(lambda: all(p.poll() is not None for p, _ in others) or len(list(gate.glob("started-*"))) > 1,
               "the other runs to be refused")
        assert len(list(gate.glob("started-*"))) == 1, "a second run got the lock and computed"
        refusals = [output(name) + (p.returncode,) for p, name in others]
    finally:
        (gate / "release").touch()
        for p, _ in others:
            if p.poll() is None:
                p.kill()
    first.wait()
    for h in handles:
        h.close()
    stdout, stderr = output("first")
    assert first.returncode == 0, stderr
    assert "it/s" not in stderr and "Loading" not in stderr, stderr  # --no-progress: no loading bars either
    for _, err, rc in refusals:
        lines = [line for line in err.splitlines() if line.strip()]
        assert rc == 2 and len(lines) == 1, err
        assert lines[0].startswith("Error: --out: ") and "in use by another reproduce run" in lines[0]
        assert f"PID {first.pid}" in lines[0] and "started 20" in lines[0]
    assert len(list(gate.glob("started-*"))) == 1  # the refused runs computed nothing
    r = CliRunner().invoke(main, ["reproduce", "--verify", str(out)])
    assert r.exit_code == 0 and "consistent" in r.output, r.output
    assert not list(tmp_path.glob(".out.staging-*"))  # nothing left beside --out


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_damaged_cache_entry_is_recomputed(corpus, tiny_handle, tmp_path, capsys, damage):
    cfg = _config(corpus)
    out = tmp_path / "out"
    run.run_reproduce(cfg, out, progress=False, handle=tiny_handle)
    before = _results(out)
    entry = out / "cache" / "window_001.npz"
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"")
    capsys.readouterr()
    again = run.run_reproduce(cfg, out, progress=False, handle=tiny_handle)
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "window_001.npz is damaged" in warnings[0] and "recomputing" in warnings[0]
    assert again["timing"]["cached_windows"] == [0]
    assert _results(out)["distances.csv"] == before["distances.csv"]  # the same numbers, recomputed
    assert again["numbers_sha256"] == json.loads(before["results.json"])["numbers_sha256"]
    assert store.WindowCache(out).load(1, "x") is None  # rewritten whole: readable, other key
    assert store.verify(out) == []


# The cache key covers a hash of the package's source, computed once per process. A test
# process hashes the source when it first runs; a subprocess started later hashes the files
# as they are then. If anyone edits the working tree in between (a long test run while
# someone works), the two keys differ and the rerun rightly recomputes instead of resuming:
# that, not the load, made the kill test fail now and then. The test is about resuming
# after a kill with the same code, so both processes pin the source hash.
PINNED_SOURCE = "source-hash-pinned-by-test_store"

KILL_SCRIPT = """
import os, signal, sys
from attnbounds.empirical import report, run, store
from attnbounds.empirical.models import load_model

corpus, out, seed, where, pinned = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
store._PACKAGE_SOURCE = pinned
real = report.write_csv
calls = []

def dying_write_csv(*args, **kw):
    calls.append(1)
    if where == "tables" and len(calls) == 2:  # one new table written, then killed
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kw)

report.write_csv = dying_write_csv
handle = load_model("gpt2-random", seed=0, n_layer=2, n_head=4, n_embd=64)
cfg = run.ReproduceConfig(model="gpt2-random", text=corpus, lengths=(16, 32), top_n=(1, 5), windows=2,
                          experiments=("E1", "E3"), quick=True, settings=run.QUICK_SETTINGS, seed=seed,
                          model_overrides=dict(n_layer=2, n_head=4, n_embd=64), protocol="last-query")
kw = {"before_swap": lambda: os.kill(os.getpid(), signal.SIGKILL)} if where == "swap" else {}
run.run_reproduce(cfg, out, progress=False, handle=handle, **kw)
"""


@pytest.mark.parametrize("where", ["tables", "swap"])
def test_kill_during_final_write_keeps_old_results(corpus, tiny_handle, tmp_path, where, monkeypatch):
    monkeypatch.setattr(store, "_PACKAGE_SOURCE", PINNED_SOURCE)
    out = tmp_path / "out"
    cfg = _config(corpus, experiments=("E1", "E3"))
    run.run_reproduce(cfg, out, progress=False, handle=tiny_handle)
    old = _results(out)
    script = tmp_path / "kill.py"
    script.write_text(textwrap.dedent(KILL_SCRIPT))
    p = subprocess.run([sys.executable, str(script), corpus, str(out), "1", where, PINNED_SOURCE], env=_env(),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == -9, p.stderr  # killed, as planned
    assert _results(out) == old  # the old complete results, untouched
    assert json.loads((out / "results.json").read_text())["seed"] == 0
    assert store.verify(out) == []
    # the killed run's cache is kept: the seed-1 rerun resumes and publishes whole new results
    new = run.run_reproduce(_config(corpus, experiments=("E1", "E3"), seed=1), out, progress=False,
                            handle=tiny_handle)
    assert new["timing"]["cached_windows"] == [0, 1]
    assert new["seed"] == 1 and store.verify(out) == []
    assert not list(tmp_path.glob(".out.staging-*"))


def test_verify_reports_inconsistent_directories(corpus, tiny_handle, tmp_path):
    out = tmp_path / "out"
    run.run_reproduce(_config(corpus, windows=1), out, progress=False, handle=tiny_handle)
    manifest = json.loads((out / "manifest.json").read_text())
    assert "results.json" in manifest["files"] and "distances.csv" in manifest["files"]
    assert manifest["parameters"]["config"]["seed"] == 0
    results = json.loads((out / "results.json").read_text())
    assert results["run_id"] == manifest["run_id"]
    assert next(iter(results)) == "format" and results["format"] == "attnbounds-reproduce/1"
    ok = CliRunner().invoke(main, ["reproduce", "--verify", str(out)])
    assert ok.exit_code == 0, ok.output
    with open(out / "distances.csv", "a") as fh:
        fh.write("tampered\n")
    (out / "stray.csv").write_text("a,b\n")
    bad = CliRunner().invoke(main, ["reproduce", "--verify", str(out)])
    assert bad.exit_code == 1
    assert "inconsistent" in bad.output and "distances.csv: sha256 differs" in bad.output
    assert "stray.csv: not listed" in bad.output
    (out / "manifest.json").unlink()
    assert "no manifest.json" in store.verify(out)[0]


def test_stale_lock_is_taken_over_with_a_warning(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (out / ".lock").write_text(json.dumps({"pid": pid, "started": "2026-01-01T00:00:00+00:00"}))
    with store.RunLock(out) as lock:
        assert lock.info["pid"] == os.getpid()
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"left by PID {pid}" in err and "no longer running" in err
        with pytest.raises(store.OutputLocked, match=rf"PID {os.getpid()}, started 20"):
            store.RunLock(out).acquire()
    # released cleanly: the file stays (flock locks its inode; see the store's docstring), empty
    assert (out / ".lock").is_file() and (out / ".lock").read_text() == ""
    inode = (out / ".lock").stat().st_ino
    with store.RunLock(out):  # no warning the next time, and the same file is locked
        assert capsys.readouterr().err == ""
        assert (out / ".lock").stat().st_ino == inode


def test_output_dir_of_other_files_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(store.OutputDirError, match="--out: .* is not empty and holds no reproduce results"):
        store.check_output_dir(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"
    (tmp_path / "results.json").write_text("{}")  # results without a manifest: which file is whose is not known
    with pytest.raises(store.OutputDirError, match=r"holds files \(notes.txt, results.json\) and no readable manifest"):
        store.check_output_dir(tmp_path)


def test_a_file_the_manifest_does_not_list_is_refused_whatever_its_name(tmp_path):
    """A user's notes.md beside a run's report.md was taken for an output (by its suffix) and
    deleted by the next run into the directory; with a manifest, only what it lists is the run's."""
    (tmp_path / "report.md").write_text("# report")
    (tmp_path / "results.json").write_text("{}")
    store.write_manifest(tmp_path, run_id="r1", parameters={})
    assert (tmp_path / store.MANIFEST).is_file()
    assert store.check_output_dir(tmp_path) == tmp_path.resolve()  # the run's own files only: accepted
    (tmp_path / "my_notes.md").write_text("mine")
    with pytest.raises(store.OutputDirError, match=r"holds files no reproduce run wrote \(my_notes.md\)"):
        store.check_output_dir(tmp_path)
    (tmp_path / store.MANIFEST).unlink()  # no manifest: which files are the run's is not known
    with pytest.raises(store.OutputDirError, match=r"holds files \(my_notes.md, report.md, results.json\) and no readable"):
        store.check_output_dir(tmp_path)
    assert (tmp_path / "my_notes.md").read_text() == "mine"


def test_interrupt_exits_130_and_leaves_a_resumable_cache(corpus, tiny_gpt2_dir, tmp_path, monkeypatch):
    from attnbounds.empirical import capture

    out = tmp_path / "out"
    real = capture.capture_attention
    calls = []

    def interrupting(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(capture, "capture_attention", interrupting)
    args = ["reproduce", "--model", str(tiny_gpt2_dir), "--text", corpus, "--lengths", "16,32",
            "--windows", "2", "--experiments", "E1", "--quick", "--out", str(out), "--no-progress"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 130, r.output
    assert [p.name for p in (out / "cache").glob("window_*.npz")] == ["window_000.npz"]
    assert not (out / "results.json").exists()
    calls.clear()
    monkeypatch.setattr(capture, "capture_attention", real)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert json.loads((out / "results.json").read_text())["timing"]["cached_windows"] == [0]
    assert "1 of 2 windows came from the cache" in again.output  # said on the terminal too (a trial missed it)


def test_publish_without_a_one_step_swap(tmp_path, monkeypatch):
    """Where renameat2 is missing (not Linux), two renames replace the directory."""
    monkeypatch.setattr(store, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    for seed in (0, 1):
        with store.RunLock(out):
            run_id = store.new_run_id()

            def write(d, seed=seed):
                (d / "table.csv").write_text(f"seed\n{seed}\n")
                (d / "figs").mkdir()
                (d / "figs" / "a.svg").write_text("<svg/>")
                return seed

            assert store.publish(out, write, run_id=run_id, parameters={"seed": seed}) == seed
            (out / "cache").mkdir(exist_ok=True)
            (out / "cache" / f"entry{seed}").write_text("kept")
    assert (out / "table.csv").read_text() == "seed\n1\n"
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["files"]) == ["figs/a.svg", "table.csv"] and manifest["parameters"] == {"seed": 1}
    assert sorted(p.name for p in (out / "cache").iterdir()) == ["entry0", "entry1"]  # the cache is carried over
    assert store.verify(out) == [] and not list(tmp_path.glob(".out.staging-*"))


TWO_RENAMES_KILL = """
import os, signal, sys
from pathlib import Path
from attnbounds.empirical import store

store._exchange = lambda a, b: False  # no renameat2: the two-rename fallback
out = Path(sys.argv[1])
real = os.replace
calls = []

def dying_replace(a, b):
    calls.append(1)
    if len(calls) == 2:  # out is renamed aside; killed before the new results are renamed in
        os.kill(os.getpid(), signal.SIGKILL)
    return real(a, b)

with store.RunLock(out):
    def write(d):
        (d / "table.csv").write_text("seed\\n1\\n")
    store.publish(out, write, run_id=store.new_run_id(), parameters={"seed": 1},
                  before_swap=lambda: setattr(os, "replace", dying_replace))
"""


def test_a_kill_between_the_two_renames_loses_no_results(tmp_path, capsys):
    out = tmp_path / "out"
    with store.RunLock(out):
        store.publish(out, lambda d: (d / "table.csv").write_text("seed\n0\n"), run_id=store.new_run_id(),
                      parameters={"seed": 0})
        (out / "cache").mkdir()
        (out / "cache" / "entry0").write_text("kept")
    script = tmp_path / "kill.py"
    script.write_text(TWO_RENAMES_KILL)
    p = subprocess.run([sys.executable, str(script), str(out)], env=_env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == -9, p.stderr
    assert not out.exists() and len(list(tmp_path.glob(".out.staging-*"))) == 2  # the window the kill hit
    capsys.readouterr()
    with store.RunLock(out):  # the next run restores the new, complete results before cleaning up
        pass
    assert "restored the complete results" in capsys.readouterr().err
    assert (out / "table.csv").read_text() == "seed\n1\n"
    assert (out / "cache" / "entry0").read_text() == "kept"
    assert store.verify(out) == [] and not list(tmp_path.glob(".out.staging-*"))



def test_discard_removes_only_a_directory_that_holds_nothing_but_the_lock(tmp_path):
    out = tmp_path / "out"
    lock = store.RunLock(out).acquire()
    assert lock.discard() and not out.exists()
    with store.RunLock(out):  # the path is free again
        pass
    (out / "cache").mkdir()
    lock = store.RunLock(out).acquire()
    assert not lock.discard() and (out / "cache").is_dir() and (out / store.LOCK).exists()
    with store.RunLock(out):  # released all the same
        pass


def test_a_lock_on_a_removed_lock_file_is_taken_again(tmp_path, monkeypatch):
    """A run that opened the lock file just before another run's discard removed it must not
    hold a lock on the removed file: it takes the one now at the path."""
    import fcntl

    out = tmp_path / "out"
    real = fcntl.flock
    calls = []

    def flock(fd, op):
        if op & fcntl.LOCK_EX and not calls:  # the other run's discard, between this open and lock
            calls.append(fd)
            (out / store.LOCK).unlink()
            out.rmdir()
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    lock = store.RunLock(out).acquire()
    try:
        assert calls, "the simulated discard did not run"
        assert os.fstat(lock._fd).st_ino == os.stat(out / store.LOCK).st_ino
        with pytest.raises(store.OutputLocked):
            store.RunLock(out).acquire()  # the lock at the path is held
    finally:
        lock.release()


def test_a_directory_removed_before_the_lock_file_is_opened_is_made_again(tmp_path, monkeypatch):
    out = tmp_path / "out"
    real = os.open
    calls = []

    def opening(path, *a, **k):
        if str(path).endswith(store.LOCK) and not calls:  # another run's discard, between the mkdir and the open
            calls.append(path)
            out.rmdir()
        return real(path, *a, **k)

    monkeypatch.setattr(os, "open", opening)
    lock = store.RunLock(out).acquire()
    try:
        assert calls and (out / store.LOCK).exists()
    finally:
        lock.release()


@pytest.mark.parametrize("beside", [[], [store.LOCK], [store.LOCK, "cache"]])
def test_another_runs_write_probe_is_not_a_foreign_file(tmp_path, beside):
    """Two runs checking --out at the same moment: one sees the other's write probe (there for an
    instant); it is neither someone's file nor a sign that the directory holds other things."""
    out = tmp_path / "out"
    out.mkdir()
    for name in beside:
        (out / name).mkdir() if name == "cache" else (out / name).touch()
    tempfile.mkdtemp(dir=out, prefix=store._PROBE)
    assert store.check_output_dir(out) == out.resolve()
    (out / "notes.txt").touch()  # a real foreign file is still refused
    with pytest.raises(store.OutputDirError, match="notes.txt|not empty"):
        store.check_output_dir(out)


def test_results_stamp_leaves_the_numbers_digest_to_the_numbers():
    from attnbounds.empirical import report

    results = {"seed": 0, "headline": {"x": 1.5}, "timing": {"forward_seconds": 1.0}}
    one = report.stamped(dict(results), {"run_id": "a"})
    other = report.stamped({**results, "timing": {"forward_seconds": 9.0}}, {"run_id": "b"})
    assert list(one)[0] == "format" and one["format"] == report.RESULTS_FORMAT and one["run_id"] == "a"
    assert one["numbers_sha256"] == other["numbers_sha256"] == report._digest({"seed": 0, "headline": {"x": 1.5}})
    assert report.stamped({**results, "seed": 1}, {})["numbers_sha256"] != one["numbers_sha256"]
    assert "run_id" not in report.stamped(dict(results), {})
