"""Verdicts are a function of the budget of work and the seed, not of the machine's load.

Last session ``L1:transcribed`` fell from proved to certified on a loaded machine: a budget
counted in seconds cut its symbolic proof short. The engine now reads the clock only to
report timings and for its explicit safety net (``time_limit``), whose firing every row
reports (``timed_out``).
"""

from __future__ import annotations

import time

import numpy as np
from hypothesis import strategies as st

from attnbounds import engine
from attnbounds.claims.base import Claim, Reading, Sides


def _amgm_sides(inst):
    # (a + b)/2 >= sqrt(ab) on a, b >= 0: true, and no exact method, so it can only hold
    a, b = np.asarray(inst["a"], float), np.asarray(inst["b"], float)
    return Sides((a + b) / 2, np.sqrt(a * b))


_AMGM = Claim(
    id="AMGM", title="toy AM-GM", source="tests", statement="toy", transcription="toy", transcription_latex="toy",
    hypotheses=(), proof="toy",
    readings=(
        Reading("transcribed", "(a+b)/2 >= sqrt(ab)", "-", relation=">=", sides=_amgm_sides,
                strategy=lambda: st.fixed_dictionaries({"a": st.floats(0, 100), "b": st.floats(0, 100)}),
                sweep=lambda rng, n: {"a": rng.uniform(0, 100, n), "b": rng.uniform(0, 100, n)}),
        Reading("reconstructed", "no method", "-"),
    ),
)


class _SlowClock:
    """A stand-in for the ``time`` module whose clock runs 1000 s per reading: on this clock
    every method overruns any time-based budget."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 1000.0
        return self.now

    def sleep(self, seconds):
        time.sleep(seconds)


def _without_timings(rows):
    return [{k: v for k, v in r.items() if k not in ("seconds", "method_seconds")} for r in rows]


def test_the_verdict_does_not_depend_on_how_fast_the_clock_runs(monkeypatch):
    """The budget is counted in work: the engine reads the clock only to report timings, so
    a machine so loaded that every step takes "1000 s" gives the same rows (issue: on a
    loaded machine a wall-time budget cut Hypothesis and the sweep short).
    """
    from attnbounds.engine import methods, run

    # the paper's readings: proved (symbolic, and a Hypothesis search and a sweep that must run
    # in full), falsified by Monte Carlo, falsified by Hypothesis; and a toy that only holds
    ids = ["L1:transcribed", "C2:transcribed", "L2:row"]
    quiet = engine.check(ids, quick=True) + engine.check(claims=[_AMGM], quick=True)
    assert [r.verdict for r in quiet] == ["proved", "falsified", "falsified", "holds", "undecided"]
    assert quiet[0].examples == 30 and quiet[0].sweep == 10_000 and quiet[3].sweep == 10_000
    monkeypatch.setattr(methods, "time", _SlowClock())
    monkeypatch.setattr(run, "time", _SlowClock())
    loaded = engine.check(ids, quick=True) + engine.check(claims=[_AMGM], quick=True)
    assert _without_timings(loaded) == _without_timings(quiet)


def _drawing_reading(seen: list) -> Reading:
    def sides(inst):
        x = float(inst["x"])
        seen.append(x)
        return Sides(np.asarray(x * x), np.asarray(-1.0))

    return Reading("transcribed", "x^2 >= -1", "-", relation=">=", sides=sides,
                   strategy=lambda: st.fixed_dictionaries({"x": st.floats(-1, 1)}))


def test_a_seed_draws_the_same_examples_after_another_local_module_is_imported(tmp_path, monkeypatch):
    """Hypothesis mixes constants read from the local modules loaded into its draws; the engine's
    runs (run_strategy, the tie's examples) leave them out (``methods.seeded_draws``), so the
    same seed draws the same examples before and after a module full of constants is imported."""
    import importlib

    from attnbounds.engine.methods import run_strategy
    from attnbounds.engine.tie import _examples

    budget = engine.Budget(examples=200, sweep=10, mc_samples=10, audit=10)
    before: list = []
    run_strategy(_drawing_reading(before), budget, seed=3, reading_id="X:transcribed")
    tie_before = _examples(st.fixed_dictionaries({"x": st.floats(-1, 1)}), 200, 3)
    consts = ", ".join(f"{(k * 0.0137) % 1 - 0.5:.6f}" for k in range(300))
    (tmp_path / "many_constants_here.py").write_text(f"VALUES = [{consts}]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("many_constants_here")
    after: list = []
    run_strategy(_drawing_reading(after), budget, seed=3, reading_id="X:transcribed")
    assert len(before) >= 150 and after == before
    assert _examples(st.fixed_dictionaries({"x": st.floats(-1, 1)}), 200, 3) == tie_before


def test_seeded_draws_nested_interleaved_and_raising_blocks_restore_hypothesis():
    """Review 68: two threads' blocks interleaved (A in, B in, A out, B out) left Hypothesis'
    pool empty for the rest of the process; nested blocks and an exception inside restore it too."""
    import threading

    from hypothesis.internal.conjecture import providers

    from attnbounds.engine.methods import seeded_draws

    own = providers._get_local_constants
    try:
        with seeded_draws():
            with seeded_draws():
                assert len(providers._get_local_constants()) == 0
            assert len(providers._get_local_constants()) == 0
            raise RuntimeError("inside")
    except RuntimeError:
        pass
    assert providers._get_local_constants is own
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    inside_b: list = []

    def a():
        with seeded_draws():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b():
        a_in.wait(10)
        with seeded_draws():
            b_in.set()
            a_out.wait(10)
            inside_b.append(len(providers._get_local_constants()))  # still inside B's block, after A left

    threads = [threading.Thread(target=f) for f in (a, b)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(20)
    assert a_out.is_set() and inside_b == [0] and providers._get_local_constants is own
