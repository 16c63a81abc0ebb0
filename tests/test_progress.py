"""Long runs show progress when stderr is not a terminal (a log, a pipe, CI).

Last stop a 45-minute ``reproduce`` printed nothing in its log: the rich bar draws nothing
when stderr is not a terminal. Now a plain line (stage, done/total, elapsed, ETA) goes to
stderr every :data:`attnbounds.progress.INTERVAL` seconds; ``--no-progress`` silences it.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import strategies as st

from attnbounds import progress
from attnbounds.claims.base import Claim, Reading, Sides
from attnbounds.cli import main
from attnbounds.progress import LineProgress, progress_display


def test_lines_come_at_the_interval_while_a_stage_runs():
    out = io.StringIO()
    with LineProgress(stream=out, interval=0.05) as p:
        t = p.add_task("windows", total=4)
        p.update(t, description="window 1/4: E3 L=512", completed=1)
        time.sleep(0.4)  # a long stage: nothing new is reported, the lines keep coming
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3, lines
    assert lines[0].startswith("[progress] window 1/4: E3 L=512 | 1/4 | elapsed ")
    assert "ETA ~" in lines[-1]


def test_a_finished_task_writes_its_last_line_and_an_unknown_total_has_no_eta():
    out = io.StringIO()
    clock = iter([0.0, 10.0, 20.0, 30.0]).__next__
    with LineProgress(stream=out, interval=None, clock=clock) as p:
        t = p.add_task("loading")
        p.emit()
        p.update(t, total=2, completed=2, description="done")
    assert out.getvalue().splitlines() == [
        "[progress] loading | 0 | elapsed 10s | ETA unknown",
        "[progress] done | 2/2 | elapsed 20s | ETA done",
    ]
    with pytest.raises(ValueError, match="interval"):
        LineProgress(interval=0)


def test_not_a_terminal_gives_lines_and_disabled_gives_none():
    from rich.console import Console

    assert isinstance(progress_display(True, console=Console(file=io.StringIO())), LineProgress)
    assert progress_display(False) is None
    from rich.progress import Progress

    assert isinstance(progress_display(True, console=Console(file=io.StringIO(), force_terminal=True)), Progress)


def test_reproduce_uses_the_same_display():
    from attnbounds.empirical import run

    with run._progress(True, 3) as p:  # pytest's stderr is not a terminal
        assert isinstance(p, LineProgress)
    with run._progress(False, 3) as p:
        assert p is None


def _slow_sides(inst):
    time.sleep(0.02)
    x = np.asarray(inst["x"], dtype=float)
    return Sides(x, x + 1)


SLOW = Claim(
    id="SLOW", title="toy", source="tests", statement="-", transcription="-", transcription_latex="-",
    hypotheses=(), proof="toy",
    readings=(
        Reading("transcribed", "x <= x + 1", "-", sides=_slow_sides,
                strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, 1)}),
                sweep=lambda rng, n: {"x": rng.uniform(0, 1, n)}),
        Reading("reconstructed", "-", "-"),
    ),
)


@pytest.mark.parametrize("flag", [[], ["--no-progress"]])
def test_check_prints_progress_lines_to_stderr_unless_told_not_to(monkeypatch, flag):
    monkeypatch.setattr(progress, "INTERVAL", 0.05)
    result = CliRunner().invoke(main, ["check", "--examples", "10", "--claims", "tests/test_progress.py:SLOW", *flag])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("[progress]")]
    if flag:
        assert not lines
    else:
        assert lines and any("SLOW:transcribed" in line for line in lines), result.stderr
        assert all(" | elapsed " in line and " | ETA " in line for line in lines)
    assert "[progress]" not in result.stdout


def test_a_run_shorter_than_one_interval_stays_silent():
    out = io.StringIO()
    with LineProgress(stream=out, interval=60.0) as p:
        t = p.add_task("checking", total=2)
        p.update(t, completed=2)  # ended before the first interval: no line at all
    assert out.getvalue() == ""


def test_mutants_progress_counts_readings(monkeypatch):
    monkeypatch.setattr(progress, "INTERVAL", 0.05)
    result = CliRunner().invoke(main, ["check", "--mutants", "--quick", "--claims", "tests/cli/test_mutants.py:TOY",
                                       "PQ"])
    lines = [line for line in result.stderr.splitlines() if line.startswith("[progress]")]
    assert any(" mutants | " in line and "/2 |" in line for line in lines), result.stderr  # 2 readings of PQ
    assert lines[-1].startswith("[progress] done | 2/2 | elapsed ") and lines[-1].endswith("ETA done")
