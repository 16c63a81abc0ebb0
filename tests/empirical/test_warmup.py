"""The kernels' first compilation in a child process (attnbounds.empirical.warmup)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
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
    """numba's cache lacks the kernels; ``state["runner"]`` records the child's command."""
    state = {"commands": []}
    monkeypatch.setattr(warmup, "needs_child", lambda spec: state.setdefault("asked", spec) is not None)

    def runner(cmd, **kw):
        state["commands"].append((cmd, kw))
        if "raise" in state:
            raise state["raise"]
        return SimpleNamespace(returncode=state.get("code", 0), stderr=state.get("stderr", ""))

    state["runner"] = runner
    return state


def test_a_cold_cache_is_filled_by_a_child_running_the_run_s_settings(cold):
    err, p = io.StringIO(), _Progress()
    config = _config(experiments=("E1", "E3"), vectors="keys", rows="full", tile=False, sphere=False)
    warmup.compile_apart(config, causal=True, progress=p, runner=cold["runner"], stream=err)
    [(cmd, kw)] = cold["commands"]
    spec = {"experiments": ["E1", "E3"], "vectors": "keys", "sphere": False, "rows": "full", "tile": False}
    assert cold["asked"] == spec
    assert cmd[0] == sys.executable and cmd[1] == "-c" and json.loads(cmd[3]) == spec
    # the child imports the package this process imported, not one in the working directory
    import attnbounds

    root = os.path.dirname(os.path.dirname(os.path.abspath(attnbounds.__file__)))
    assert f"sys.path.insert(0, {root!r})" in cmd[2] and "_main()" in cmd[2]
    assert kw.get("capture_output") is True and kw.get("timeout") == warmup.CHILD_TIMEOUT
    assert "separate process" in err.getvalue() and "failed" not in err.getvalue()
    assert p.calls[0][0] == "add" and p.calls[-1] == ("update", 7, {"description": "metric kernels compiled",
                                                                    "total": 1, "completed": 1})


def test_settings_of_numpy_types_reach_the_child_as_json(cold):
    import numpy as np

    config = _config(tile=np.bool_(False), sphere=np.bool_(True))
    warmup.compile_apart(config, causal=True, progress=None, runner=cold["runner"], stream=io.StringIO())
    [(cmd, _)] = cold["commands"]
    assert json.loads(cmd[3])["tile"] is False and json.loads(cmd[3])["sphere"] is True


def test_nothing_is_started_where_the_child_would_not_help(cold):
    err = io.StringIO()
    for config, causal in ((_config(), False), (_config(protocol="last-query", lengths=(32, 128), quick=True), True)):
        assert warmup.compile_apart(config, causal=causal, progress=_Progress(), runner=cold["runner"], stream=err) == 0.0
    assert cold["commands"] == [] and err.getvalue() == ""


def test_a_warm_cache_starts_nothing(monkeypatch, cold):
    monkeypatch.setattr(warmup, "needs_child", lambda spec: False)
    assert warmup.compile_apart(_config(), causal=True, progress=_Progress(), runner=cold["runner"]) == 0.0
    assert cold["commands"] == []


def test_without_a_progress_display_there_is_no_note(cold):
    err = io.StringIO()
    warmup.compile_apart(_config(), causal=True, progress=None, runner=cold["runner"], stream=err)
    assert len(cold["commands"]) == 1 and err.getvalue() == ""


@pytest.mark.parametrize("case, said", [
    ("exit", "exit status 1: MemoryError: out of memory"),
    ("signal", "killed by SIGKILL"),
    ("oserror", "FileNotFoundError"),
    ("timeout", "no result within 1800 s"),
    ("other", "TypeError: expected str"),
])
def test_a_failed_child_leaves_the_compile_to_the_run_with_a_note(cold, case, said):
    err, p = io.StringIO(), _Progress()
    if case == "exit":
        cold.update(code=1, stderr="Traceback (most recent call last):\n  ...\nMemoryError: out of memory\n")
    elif case == "signal":
        cold.update(code=-9, stderr="[transformers] a warning\n")
    elif case == "oserror":
        cold["raise"] = FileNotFoundError(2, "No such file or directory", "python")
    elif case == "timeout":
        cold["raise"] = subprocess.TimeoutExpired("python", warmup.CHILD_TIMEOUT)
    else:
        cold["raise"] = TypeError("expected str, bytes or os.PathLike object, not NoneType")
    warmup.compile_apart(_config(), causal=True, progress=p, runner=cold["runner"], stream=err)
    note = err.getvalue()
    assert "failed" in note and "this run compiles them itself" in note and said in note
    assert p.calls[-1][2]["description"] == "compiling in a separate process failed"


def test_an_interrupt_while_the_child_runs_stops_the_run(cold):
    cold["raise"] = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        warmup.compile_apart(_config(), causal=True, progress=None, runner=cold["runner"], stream=io.StringIO())


def test_the_manifest_decides_per_setting(monkeypatch, tmp_path):
    """A child is needed without a readable manifest of these settings, or where a kernel it
    lists is not valid in numba's cache (fused.kernels_valid, asked with the listed names)."""
    from attnbounds.empirical import fused

    path = tmp_path / "attnbounds-warmup-x.json"
    monkeypatch.setattr(warmup, "_manifest", lambda spec: path)
    asked = []
    valid = {"ok": True}
    monkeypatch.setattr(fused, "kernels_valid", lambda names: asked.append(list(names)) or valid["ok"])
    spec = warmup._spec(_config())
    assert warmup.needs_child(spec)  # no manifest
    path.write_text("{not json")
    assert warmup.needs_child(spec)
    path.write_text(json.dumps({"kernels": []}))
    assert warmup.needs_child(spec)  # lists nothing
    path.write_text(json.dumps({"spec": spec, "kernels": ["row_metrics", "perturbation_rows"]}))
    assert not warmup.needs_child(spec)
    valid["ok"] = False
    assert warmup.needs_child(spec)
    assert asked == [["row_metrics", "perturbation_rows"]] * 2
    monkeypatch.setattr(warmup, "_manifest", lambda spec: None)  # numba missing or not caching: no child
    assert not warmup.needs_child(spec)


def test_a_manifest_of_the_same_settings_with_more_experiments_covers_fewer(monkeypatch, tmp_path):
    """After a full run, --experiments E1 starts no child (CI's ten settings started ten); a
    manifest of other rows, or of another kernel source, or with fewer experiments does not cover."""
    from attnbounds.empirical import fused

    monkeypatch.setattr(warmup, "_manifest", lambda spec: tmp_path / "attnbounds-warmup-mine.json")
    monkeypatch.setattr(fused, "kernels_valid", lambda names: True)
    full, source = warmup._spec(_config()), warmup._source_digest()
    e1 = warmup._spec(_config(experiments=("E1",)))

    def other(spec, **kw):
        (tmp_path / "attnbounds-warmup-other.json").write_text(json.dumps(
            {"spec": spec, "source": kw.get("source", source), "kernels": ["row_metrics"]}))

    assert warmup.needs_child(e1)
    other(full)
    assert not warmup.needs_child(e1)
    other({**full, "rows": "full"})
    assert warmup.needs_child(e1)
    other(full, source="0" * 16)
    assert warmup.needs_child(e1)
    other(e1)
    assert warmup.needs_child(full)


def test_the_manifest_is_per_setting():
    a = warmup._manifest(warmup._spec(_config()))
    b = warmup._manifest(warmup._spec(_config(experiments=("E5",))))
    assert a is not None and b is not None and a != b and a.parent == b.parent
    assert a.name.startswith("attnbounds-warmup-") and a == warmup._manifest(warmup._spec(_config()))


def test_bad_arguments_are_named():
    from attnbounds.empirical import fused

    with pytest.raises(TypeError, match=r"^spec: expected a dict of settings"):
        warmup.needs_child(["E1"])
    with pytest.raises(ValueError, match=r"^spec: unknown fields \['lengths'\]"):
        warmup.needs_child({"lengths": [32]})
    with pytest.raises(TypeError, match=r"^spec: expected a dict"):
        warmup.warm_up("E1")
    with pytest.raises(TypeError, match=r"^config: expected a ReproduceConfig, got dict"):
        warmup.compile_apart({"protocol": "paper"}, causal=True)
    with pytest.raises(TypeError, match=r"^causal: expected True or False"):
        warmup.compile_apart(_config(), causal="yes")
    with pytest.raises(TypeError, match=r"^names: expected a list of kernel names, not one string"):
        fused.kernels_valid("row_metrics")
    with pytest.raises(TypeError, match=r"^names: expected kernel names \(strings\)"):
        fused.kernels_valid([1, 2])


def test_the_child_refuses_unknown_settings_by_name():
    with pytest.raises(ValueError, match=r"spec: unknown fields \['lengths'\]"):
        warmup.warm_up({"lengths": [32]})


def test_the_run_hands_a_causal_paper_run_to_the_child_and_times_it(monkeypatch):
    from attnbounds.empirical import run

    seen, opened = [], []
    monkeypatch.setattr(warmup, "compile_apart", lambda config, causal, progress: seen.append((config, causal)) or 4.5)
    monkeypatch.setattr(warmup, "needs_child", lambda spec: True)
    real = run._progress
    monkeypatch.setattr(run, "_progress", lambda enabled, total: opened.append(enabled) or real(enabled, total))
    config = _config()
    assert run._compile_kernels(config, SimpleNamespace(causal=True), progress=False) == 4.5
    assert seen == [(config, True)] and opened == [False]
    assert run._compile_kernels(config, SimpleNamespace(causal=False), progress=False) == 0.0
    assert len(seen) == 1
    monkeypatch.setattr(warmup, "needs_child", lambda spec: False)  # a warm cache: no child, no display opened
    assert run._compile_kernels(config, SimpleNamespace(causal=True), progress=True) == 0.0
    assert len(seen) == 1 and opened == [False]


def test_kernels_valid_reads_numba_s_own_index(tmp_path):
    """In an empty cache nothing is valid; an empty (touched) index is not valid either; a
    compiled kernel is, and is in use."""
    code = textwrap.dedent("""
        import pathlib
        import numpy as np
        from attnbounds.empirical import fused as f
        print(f.kernels_valid(["exp_nonpositive_array"]), f.kernels_valid(["no_such_kernel"]), f.kernels_in_use())
        p = pathlib.Path(f.exp_nonpositive_array._cache._cache_file._index_path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.touch()
        print(f.kernels_valid(["exp_nonpositive_array"]))
        p.unlink()
        f.exp_nonpositive_array(np.zeros(3), np.empty(3))
        print(f.kernels_valid(["exp_nonpositive_array"]), f.kernels_in_use())
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:3] == ["False False []", "False", "True ['exp_nonpositive_array']"]


def test_after_the_child_a_run_of_its_settings_compiles_nothing(tmp_path):
    """The mechanism end to end, on an empty numba cache (E5 alone: its few kernels compile in
    about 20 s): the child (compile_apart) writes the cache and its manifest; afterwards no
    child is needed, and the same pipeline in another process meets no numba compile."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    first = textwrap.dedent("""
        import io
        from attnbounds.empirical import warmup
        from attnbounds.empirical.run import ReproduceConfig
        config = ReproduceConfig(model="gpt2-random", text="-", experiments=("E5",)).validate()
        spec = warmup._spec(config)
        print(warmup.needs_child(spec))
        err = io.StringIO()
        seconds = warmup.compile_apart(config, causal=True, progress=None, stream=err)
        print(seconds > 0, repr(err.getvalue()), warmup.needs_child(spec))
    """)
    out = subprocess.run([sys.executable, "-c", first], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:2] == ["True", "True '' False"]
    second = textwrap.dedent("""
        from numba.core import event
        compiled = []
        class Listener(event.Listener):
            def on_start(self, ev):
                compiled.append(str(ev.data.get("dispatcher")))
            def on_end(self, ev):
                pass
        event.register("numba:compile", Listener())
        from attnbounds.empirical import warmup
        used = warmup.warm_up({"experiments": ["E5"], "vectors": "values", "sphere": True, "rows": "prefix",
                               "tile": True})
        print(len(used) > 0, compiled)
    """)
    out = subprocess.run([sys.executable, "-c", second], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[0] == "True []"
