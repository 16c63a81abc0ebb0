"""Verdicts are a function of the budget of work and the seed, not of the machine's load.

Last session ``L1:transcribed`` fell from proved to certified on a loaded machine: a budget
counted in seconds cut its symbolic proof short. The engine now reads the clock only to
report timings and for its explicit safety net (``time_limit``), whose firing every row
reports (``timed_out``).
"""

from __future__ import annotations

import time

from attnbounds import engine


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

    # proved (symbolic), holds (Hypothesis + sweep), falsified by Monte Carlo, falsified by Hypothesis
    ids = ["L1:transcribed", "T1ii:reconstructed", "C2:transcribed", "L2:row"]
    quiet = engine.check(ids, quick=True)
    assert [r.verdict for r in quiet] == ["proved", "holds", "falsified", "falsified"]
    monkeypatch.setattr(methods, "time", _SlowClock())
    monkeypatch.setattr(run, "time", _SlowClock())
    loaded = engine.check(ids, quick=True)
    assert _without_timings(loaded) == _without_timings(quiet)
