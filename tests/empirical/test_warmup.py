"""The kernels' first compilation in a child process (attnbounds.empirical.warmup)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from attnbounds.empirical import warmup
from attnbounds.empirical.run import ReproduceConfig


class _Progress:
    def __init__(self):
        self.calls = []

    def add_task(self, description, total=None):
        self.calls.append(("add", description, total))
        return 7

    def update(self, task, **kw):
        self.calls.append(("update", task, kw))


def _config(**kw):
    return ReproduceConfig(model="gpt2-random", text="-", **kw).validate()


@pytest.fixture
def cold(monkeypatch):
    """numba's cache reads cold until the child has run (``state["after"]``: what it reads after)."""
    state = {"ran": False, "after": True, "commands": []}
    monkeypatch.setattr(warmup, "_cached", lambda: state["after"] if state["ran"] else False)

    def runner(cmd, **kw):
        state["ran"] = True
        state["commands"].append((cmd, kw))
        return SimpleNamespace(returncode=state.get("code", 0), stderr=state.get("stderr", ""))

    state["runner"] = runner
    return state


def test_a_cold_cache_is_filled_by_a_child_running_the_run_s_settings(cold):
    err, p = io.StringIO(), _Progress()
    config = _config(experiments=("E1", "E3"), vectors="keys", rows="full", tile=False, sphere=False)
    seconds = warmup.compile_apart(config, causal=True, progress=p, runner=cold["runner"], stream=err)
    assert seconds >= 0.0
    [(cmd, kw)] = cold["commands"]
    assert cmd[:3] == [sys.executable, "-m", "attnbounds.empirical.warmup"]
    assert json.loads(cmd[3]) == {"experiments": ["E1", "E3"], "vectors": "keys", "sphere": False, "rows": "full",
                                  "tile": False}
    assert kw.get("capture_output") is True
    assert "separate process" in err.getvalue() and "failed" not in err.getvalue()
    assert p.calls[0][0] == "add" and p.calls[-1] == ("update", 7, {"description": "metric kernels compiled",
                                                                    "total": 1, "completed": 1})


def test_nothing_is_started_where_the_child_would_not_help(cold):
    err = io.StringIO()
    for config, causal in ((_config(), False), (_config(protocol="last-query", lengths=(32, 128), quick=True), True)):
        assert warmup.compile_apart(config, causal=causal, progress=_Progress(), runner=cold["runner"], stream=err) == 0.0
    assert cold["commands"] == [] and err.getvalue() == ""


def test_a_warm_cache_starts_nothing(monkeypatch, cold):
    monkeypatch.setattr(warmup, "_cached", lambda: True)
    assert warmup.compile_apart(_config(), causal=True, progress=_Progress(), runner=cold["runner"]) == 0.0
    assert cold["commands"] == []


def test_without_a_progress_display_there_is_no_note(cold):
    err = io.StringIO()
    warmup.compile_apart(_config(), causal=True, progress=None, runner=cold["runner"], stream=err)
    assert len(cold["commands"]) == 1 and err.getvalue() == ""


@pytest.mark.parametrize("case", ["exit", "oserror", "not cached"])
def test_a_failed_child_leaves_the_compile_to_the_run_with_a_note(cold, case):
    err = io.StringIO()
    runner = cold["runner"]
    if case == "exit":
        cold.update(code=1, stderr="Traceback (most recent call last):\n  ...\nMemoryError: out of memory\n")
    elif case == "oserror":
        def runner(cmd, **kw):
            raise FileNotFoundError(2, "No such file or directory", cmd[0])
    else:
        cold["after"] = False
    warmup.compile_apart(_config(), causal=True, progress=None, runner=runner, stream=err)
    note = err.getvalue()
    assert "failed" in note and "this run compiles them itself" in note
    assert {"exit": "exit status 1: MemoryError: out of memory", "oserror": "FileNotFoundError",
            "not cached": "NUMBA_CACHE_DIR"}[case] in note


def test_the_child_refuses_unknown_settings_by_name():
    with pytest.raises(ValueError, match=r"spec: unknown fields \['lengths'\]"):
        warmup.warm_up({"lengths": [32]})


def test_the_run_hands_a_causal_paper_run_to_the_child_and_times_it(monkeypatch):
    from attnbounds.empirical import run

    seen = []
    monkeypatch.setattr(warmup, "compile_apart", lambda config, causal, progress: seen.append((config, causal)) or 4.5)
    config = _config()
    assert run._compile_kernels(config, SimpleNamespace(causal=True), progress=False) == 4.5
    assert seen == [(config, True)]
    assert run._compile_kernels(config, SimpleNamespace(causal=False), progress=False) == 0.0
    assert len(seen) == 1


def test_the_child_runs_the_pipeline_and_leaves_the_kernels_cached():
    """The child process itself, with every experiment (numba's cache is shared with it: it
    loads the kernels where a test before compiled them, else compiles them, as a first run)."""
    spec = {"experiments": ["E1", "E2", "E3", "E4", "E5"], "vectors": "values", "sphere": True, "rows": "prefix",
            "tile": True}
    done = subprocess.run([sys.executable, "-m", "attnbounds.empirical.warmup", json.dumps(spec)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    from attnbounds.empirical.fused import kernels_cached

    assert kernels_cached()
