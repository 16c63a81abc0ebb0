"""The metric kernels' first compilation, in a process of its own.

The paper protocol's metrics are numba kernels (:mod:`attnbounds.empirical.fused`) kept in
numba's on-disk cache. A run that finds the cache cold compiles them as it meets them, with
the model and its captured arrays in memory: measured on gpt2-random (E1–E5, L up to 1024,
one window, 2 cores), that run peaked at 2,075 MB, where a run with the kernels cached peaks
at 1,806 MB, and the issue's memory target is 2 GB. :func:`compile_apart` compiles them first
in a child process instead (``python -m attnbounds.empirical.warmup``), which runs the same
pipeline (:func:`attnbounds.empirical.run.window_tables`, same settings) on a one-layer GPT-2
with random weights and windows of 32 and 64 tokens: the kernels meet the argument types of
the real run and are written to the cache, and the run then loads them. Measured the same
way: the child peaked at 834 MB (while the run's process holds its loaded model, about
900 MB for gpt2-random), and the run after it compiled nothing and peaked at 1,806 MB.

A kernel whose argument types the child did not meet (another model's path: a sliding window,
``--vectors hidden``) still compiles in the run, as before. Where the child fails (no numba,
no writable cache, a crash), the run goes on and compiles in its own process, with a note.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

__all__ = ["compile_apart", "warm_up", "WARM_UP_LENGTHS"]

#: Window lengths of the child's run (E3's grid, E4's and E5's lengths all exist at these).
WARM_UP_LENGTHS = (32, 64)

# the ReproduceConfig fields that choose the code paths (hence the kernels' argument types)
_FIELDS = ("experiments", "vectors", "sphere", "rows", "tile")


def _cached() -> bool | None:
    """Whether the kernels are in numba's cache (None: numba is not installed)."""
    try:
        from attnbounds.empirical.fused import kernels_cached
    except ImportError:
        return None
    return kernels_cached()


def compile_apart(config, *, causal: bool, progress=None, runner=subprocess.run, stream=None) -> float:
    """Compile the paper protocol's kernels in a child process when numba's cache lacks them.

    ``config``: the run's :class:`~attnbounds.empirical.run.ReproduceConfig`; ``causal``: the
    loaded model's (the child's model is causal: a bidirectional model's kernels compile in
    the run); ``progress``: a progress display (``add_task``/``update``) or None. Returns the
    seconds the child took (0.0 when nothing was compiled here). Never raises for a failed
    child: the run compiles in its own process then, and a note on ``stream`` (stderr) says why.
    """
    stream = sys.stderr if stream is None else stream
    if config.protocol != "paper" or not causal or _cached() is not False:
        return 0.0
    spec = {k: (list(v) if isinstance(v, tuple) else v) for k, v in ((k, getattr(config, k)) for k in _FIELDS)}
    task = None
    if progress is not None:  # (as the notes of a cold cache always were: with a progress display only)
        print("note: this first run compiles the metric kernels (numba, about a minute), in a separate process so "
              "that the compiler's memory does not add to the run's; later runs reuse them from numba's cache",
              file=stream, flush=True)
        task = progress.add_task("compiling the metric kernels (first run only)", total=None)
    t0 = time.perf_counter()
    try:  # (the child inherits the environment: NUMBA_CACHE_DIR, the threads' settings)
        done = runner([sys.executable, "-m", "attnbounds.empirical.warmup", json.dumps(spec)], capture_output=True,
                      text=True)
        why = None if done.returncode == 0 else \
            f"exit status {done.returncode}: {' '.join((done.stderr or '').strip().splitlines()[-1:]) or 'no message'}"
    except OSError as err:
        why = f"{type(err).__name__}: {err}"
    seconds = time.perf_counter() - t0
    if task is not None:
        progress.update(task, description="metric kernels compiled", total=1, completed=1)
    if why is None and not _cached():
        why = "the kernels are still not in numba's cache (is its cache directory writable? see NUMBA_CACHE_DIR)"
    if why is not None:
        print(f"note: compiling the metric kernels in a separate process failed ({why}); this run compiles them "
              "itself", file=stream, flush=True)
    return seconds


def warm_up(spec: dict) -> None:
    """The child's work: the paper protocol on a one-layer random GPT-2 (head size 64, no
    tokenizer, no file) over windows of :data:`WARM_UP_LENGTHS`, with ``spec``'s fields of
    :class:`~attnbounds.empirical.run.ReproduceConfig` (``experiments``, ``vectors``,
    ``sphere``, ``rows``, ``tile``); the tables are thrown away."""
    import numpy as np
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from attnbounds.empirical.models import _handle
    from attnbounds.empirical.run import ReproduceConfig, window_tables

    unknown = sorted(set(spec) - set(_FIELDS))
    if unknown:
        raise ValueError(f"spec: unknown fields {unknown}; expected some of {list(_FIELDS)}")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}
    config = ReproduceConfig(model="warm-up", text="-", lengths=WARM_UP_LENGTHS, windows=1, protocol="paper",
                             **fields).validate()
    gpt2 = GPT2Config(n_layer=1, n_head=2, n_embd=128, vocab_size=256, n_positions=WARM_UP_LENGTHS[-1])
    gpt2._attn_implementation = "eager"
    torch.manual_seed(0)
    model = GPT2LMHeadModel(gpt2)
    model.set_attn_implementation("eager")
    handle = _handle("warm-up", model, None, causal=True, source="GPT2Config (kernel warm-up)")
    ids = np.random.default_rng(0).integers(0, gpt2.vocab_size, WARM_UP_LENGTHS[-1])
    window_tables(handle, ids, 0, config)


if __name__ == "__main__":  # pragma: no cover - run as a child process (tests run it so)
    warm_up(json.loads(sys.argv[1]))
