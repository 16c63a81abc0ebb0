"""The metric kernels' first compilation, in a process of its own.

The paper protocol's metrics are numba kernels (:mod:`attnbounds.empirical.fused`) kept in
numba's on-disk cache. A run that finds the cache cold compiles them as it meets them, with
the model and its captured arrays in memory: measured on gpt2-random (E1–E5, L up to 1024,
one window, 2 cores), that run peaked at 2,075 MB, where a run with the kernels cached peaks
at 1,806 MB, and the issue's memory target is 2 GB. :func:`compile_apart` compiles them first
in a child process instead, which runs the same pipeline
(:func:`attnbounds.empirical.run.window_tables`, the run's settings) on a one-layer GPT-2
with random weights and windows of 32 and 64 tokens: the kernels meet the argument types of
the real run and are written to the cache, and the run then loads them. Measured the same
way: the child peaked at 834 MB (while the run's process holds its loaded model, about
900 MB for gpt2-random), and the run after it compiled nothing and peaked at 1,806 MB.

Whether a child is needed is decided per setting: the child writes a manifest of the kernels
its settings used into numba's cache directory (``attnbounds-warmup-<key>.json``, the key a
digest of the settings and of the kernels' source), and a run starts a child unless the
manifest of its settings, or of the same settings with more experiments, is there and numba's
own index of each kernel it lists is valid for the current source
(:func:`attnbounds.empirical.fused.kernels_valid`): after a full run, ``--experiments E1``
starts no child.

A kernel the child did not meet with the same argument types (another model's path: a
sliding window) still compiles in the run, as before; so does everything where the child
fails (a crash, a cache directory that cannot be written, :data:`CHILD_TIMEOUT` passed):
the run goes on, after a note. Without numba, or with ``NUMBA_DISABLE_JIT``, no child starts.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["compile_apart", "warm_up", "needs_child", "WARM_UP_LENGTHS", "CHILD_TIMEOUT"]

#: Window lengths of the child's run (E3's grid, E4's and E5's lengths all exist at these).
WARM_UP_LENGTHS = (32, 64)
#: Seconds the run waits for the child (its compile takes about a minute on 2 cores).
CHILD_TIMEOUT = 1800.0

# the ReproduceConfig fields that choose the code paths (hence the kernels' argument types)
_FIELDS = ("experiments", "vectors", "sphere", "rows", "tile")


def _check_spec(spec) -> None:
    """``spec`` must be a dict of some of :data:`_FIELDS` (a TypeError or ValueError naming it)."""
    if not isinstance(spec, dict):
        raise TypeError(f"spec: expected a dict of settings (some of {list(_FIELDS)}), got {type(spec).__name__}")
    unknown = sorted(set(spec) - set(_FIELDS))
    if unknown:
        raise ValueError(f"spec: unknown fields {unknown}; expected some of {list(_FIELDS)}")


def _spec(config) -> dict:
    """The child's settings, as plain JSON values."""
    return {"experiments": [str(e) for e in config.experiments], "vectors": str(config.vectors),
            "sphere": bool(config.sphere), "rows": str(config.rows), "tile": bool(config.tile)}


@functools.lru_cache(maxsize=1)
def _source_digest() -> str:
    """A digest of the kernels' source (:mod:`attnbounds.empirical.fused`), read once per
    process (the kernels a process runs are those of the source it imported)."""
    from attnbounds.empirical import fused

    return hashlib.sha256(Path(fused.__file__).read_bytes()).hexdigest()[:16]


def _manifest(spec: dict) -> Path | None:
    """Where the child of ``spec`` writes its manifest (None: numba missing, or not caching)."""
    try:
        from attnbounds.empirical import fused
    except ImportError:
        return None
    directory = fused.cache_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode() + _source_digest().encode())
    return Path(directory) / f"attnbounds-warmup-{digest.hexdigest()[:16]}.json"


def _covers(manifest: dict, spec: dict, source: str) -> bool:
    """Whether a manifest's child ran ``spec``'s code paths: the same kernel source and settings,
    with every experiment of ``spec`` among its own (fewer experiments call fewer kernels)."""
    theirs = manifest.get("spec")
    if manifest.get("source") != source or not isinstance(theirs, dict):
        return False
    same = all(theirs.get(k) == spec.get(k) for k in _FIELDS if k != "experiments")
    return same and set(spec.get("experiments", ())) <= set(theirs.get("experiments") or ())


def needs_child(spec: dict) -> bool:
    """Whether the kernels of ``spec`` (:func:`_spec`) may not all be in numba's cache for the
    current source: no manifest of a child whose settings cover these (the same, or the same
    with more experiments: :func:`_covers`) lists kernels that are all valid."""
    _check_spec(spec)
    path = _manifest(spec)
    if path is None:
        return False
    from attnbounds.empirical.fused import kernels_valid

    source = _source_digest()
    for candidate in [path, *(c for c in sorted(path.parent.glob("attnbounds-warmup-*.json")) if c != path)]:
        try:
            manifest = json.loads(candidate.read_text())
            names = manifest["kernels"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if (candidate == path or _covers(manifest, spec, source)) and isinstance(names, list) and names \
                and kernels_valid(names):
            return False
    return True


def _failure(done) -> str | None:
    """Why a finished child failed (None: it did not)."""
    if done.returncode == 0:
        return None
    if done.returncode < 0:
        try:
            return f"killed by {signal.Signals(-done.returncode).name}"
        except ValueError:
            return f"killed by signal {-done.returncode}"
    last = " ".join((done.stderr or "").strip().splitlines()[-1:]) or "no message"
    return f"exit status {done.returncode}: {last}"


def compile_apart(config, *, causal: bool, progress=None, runner=subprocess.run, stream=None) -> float:
    """Compile the paper protocol's kernels in a child process where numba's cache lacks them.

    ``config``: the run's :class:`~attnbounds.empirical.run.ReproduceConfig`; ``causal``: the
    loaded model's (the child's model is causal: a bidirectional model's kernels compile in
    the run); ``progress``: a progress display (``add_task``/``update``), or None for none and
    no note. Returns the seconds the child took (0.0 when none ran). Never raises for a failed
    child (only an interrupt goes through): the run compiles in its own process then, and a
    note on ``stream`` (stderr) says why.
    """
    if not all(hasattr(config, k) for k in ("protocol", *_FIELDS)):
        raise TypeError(f"config: expected a ReproduceConfig, got {type(config).__name__}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal: expected True or False (the loaded model's), got {causal!r}")
    stream = sys.stderr if stream is None else stream
    if config.protocol != "paper" or not causal:
        return 0.0
    spec = _spec(config)
    if not needs_child(spec):
        return 0.0
    task = None
    if progress is not None:  # (as the notes of a cold cache always were: with a progress display only)
        print("note: this first run compiles the metric kernels (numba, about a minute), in a separate process so "
              "that the compiler's memory does not add to the run's; later runs reuse them from numba's cache",
              file=stream, flush=True)
        task = progress.add_task("compiling the metric kernels (first run only)", total=None)
    # the child imports the package the run imported (python -m would put the working directory first)
    root = str(Path(__file__).resolve().parents[2])
    code = f"import sys; sys.path.insert(0, {root!r}); from attnbounds.empirical.warmup import _main; _main()"
    t0 = time.perf_counter()
    try:
        why = _failure(runner([sys.executable or "python", "-c", code, json.dumps(spec)], capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT))
    except subprocess.TimeoutExpired:
        why = f"no result within {CHILD_TIMEOUT:.0f} s"
    except Exception as err:  # noqa: BLE001 - whatever stops the child, the run can compile itself
        why = f"{type(err).__name__}: {err}"
    seconds = time.perf_counter() - t0
    if task is not None:
        progress.update(task, description="metric kernels compiled" if why is None else
                        "compiling in a separate process failed", total=1, completed=1)
    if why is not None:
        print(f"note: compiling the metric kernels in a separate process failed ({why}); this run compiles them "
              "itself", file=stream, flush=True)
    return seconds


def warm_up(spec: dict) -> list:
    """The child's work: the paper protocol on a one-layer random GPT-2 (head size 64, no
    tokenizer, no file) over windows of :data:`WARM_UP_LENGTHS`, with ``spec``'s fields of
    :class:`~attnbounds.empirical.run.ReproduceConfig` (``experiments``, ``vectors``,
    ``sphere``, ``rows``, ``tile``); the tables are thrown away. Returns the kernels used."""
    import numpy as np
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from attnbounds.empirical.fused import kernels_in_use
    from attnbounds.empirical.models import _handle
    from attnbounds.empirical.run import ReproduceConfig, window_tables

    _check_spec(spec)
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}
    config = ReproduceConfig(model="warm-up", text="-", lengths=WARM_UP_LENGTHS, windows=1, protocol="paper",
                             **fields).validate()
    gpt2 = GPT2Config(n_layer=1, n_head=2, n_embd=128, vocab_size=256, n_positions=WARM_UP_LENGTHS[-1],
                      bos_token_id=0, eos_token_id=0)
    gpt2._attn_implementation = "eager"
    torch.manual_seed(0)
    model = GPT2LMHeadModel(gpt2)
    model.set_attn_implementation("eager")
    handle = _handle("warm-up", model, None, causal=True, source="GPT2Config (kernel warm-up)")
    ids = np.random.default_rng(0).integers(0, gpt2.vocab_size, WARM_UP_LENGTHS[-1])
    window_tables(handle, ids, 0, config)
    return kernels_in_use()


def _main(argv=None) -> None:
    """The child: :func:`warm_up`, then its manifest (written whole, then renamed into place)."""
    spec = json.loads((sys.argv[1:] if argv is None else argv)[0])
    names = warm_up(spec)
    path = _manifest(spec)
    if path is None or not names:
        raise SystemExit("no kernel of numba's cache was used (numba not caching?)")
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"spec": spec, "source": _source_digest(), "kernels": names}) + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":  # pragma: no cover - the run starts the child with -c (tests too)
    _main()
