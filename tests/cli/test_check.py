"""Tests of ``attnbounds check``: output, JSON, exit codes, bad options, interrupts, dispatch.

Toy claims with known verdicts are registered in an isolated registry.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import strategies as st

from attnbounds import claims as registry
from attnbounds.claims import registry as claim_registry
from attnbounds.claims.base import Claim, Proof, Reading, Sides
from attnbounds.cli import main
from attnbounds.engine.budget import DEFAULT_BUDGET
from attnbounds.engine.meta import read_rows


def _int_sides(inst):
    # n² <= 10 n fails exactly for n >= 11
    n = np.asarray(inst["n"], dtype=float)
    return Sides(n**2, 10 * n)


def _ints():
    return st.fixed_dictionaries({"n": st.integers(0, 100)})


def _sweep_ints(rng, k):
    return {"n": rng.integers(0, 101, k)}


def _checked(detail):
    import sympy as sp

    from attnbounds.theory.proof import Chain, by

    one = sp.Integer(1)
    return Proof.from_chain(Chain(one).le(2, by.algebra()).prove(one, "<=", 2), detail)


def _one_two(inst):
    # 1 <= 2 at every instance: the numeric side of the toys' proved readings, whose proof of 1 <= 2
    # the bind ties to these sides (_tie_one_two: the goal has no symbol to give a value to);
    # without a bind, a proof makes a reading `holds` at most
    n = np.asarray(inst["n"], dtype=float)
    return Sides(np.ones_like(n), 2 * np.ones_like(n))


def _tie_one_two(inst):
    return {}


def _claim(cid, transcribed, reconstructed=None):
    return Claim(
        id=cid, title=f"toy {cid}", source="tests", statement="toy", transcription="toy",
        transcription_latex="toy", hypotheses=(),
        readings=(transcribed, reconstructed or Reading("reconstructed", "-", "-",
                                                        symbolic=lambda: _checked("exact"), sides=_one_two,
                                                        sweep=_sweep_ints, strategy=_ints, bind=_tie_one_two)),
        proof="toy",
    )


FALSE = Reading("transcribed", "n² <= 10n", "-", strategy=_ints, sides=_int_sides, sweep=_sweep_ints)
TRUE = Reading("transcribed", "1 <= 2", "-", symbolic=lambda: _checked("1 <= 2"), sides=_one_two, sweep=_sweep_ints,
               strategy=_ints, bind=_tie_one_two)


@pytest.fixture
def toys(monkeypatch):
    monkeypatch.setattr(claim_registry, "REGISTRY", claim_registry.ClaimRegistry(modules=()))
    registry.register(_claim("BAD", FALSE))
    registry.register(_claim("GOOD", TRUE))


def run(*args):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_table_lists_every_reading_with_its_verdict(toys):
    result = run("--quick", "--examples", "20")
    assert result.exit_code == 0, result.output
    for rid, verdict in [("BAD:transcribed", "falsified"), ("BAD:reconstructed", "proved"),
                         ("GOOD:transcribed", "proved")]:
        line = next(line for line in result.stdout.splitlines() if rid in line)
        assert verdict in line
    assert "121" in result.stdout  # the minimal counterexample n = 11: 121 > 110


def test_json_rows_and_strict_exit_codes(toys, tmp_path):
    out = tmp_path / "sub" / "check.json"
    out.parent.mkdir()  # --json refuses a missing directory (tests/cli/test_review_fixes.py)
    result = run("--quick", "--examples", "20", "--json", str(out))
    assert result.exit_code == 0
    rows = read_rows(out)
    assert [r["id"] for r in rows] == ["BAD:transcribed", "BAD:reconstructed", "GOOD:transcribed",
                                       "GOOD:reconstructed"]
    assert rows[0]["counterexample"]["instance"] == {"n": 11}
    assert run("--quick", "--examples", "20", "--strict").exit_code == 1
    strict_ok = run("--quick", "--strict", "GOOD", "BAD:reconstructed")
    assert strict_ok.exit_code == 0, strict_ok.output


def test_json_to_stdout_keeps_the_table_on_stderr(toys):
    result = run("GOOD", "--json", "-")
    assert result.exit_code == 0
    rows = read_rows(result.stdout)
    assert [r["verdict"] for r in rows] == ["proved", "proved"]
    assert "GOOD:transcribed" in result.stderr


def _slow_checked():
    import time

    time.sleep(3)
    return _checked("late")


def test_time_limit_fires_visibly_in_the_table_the_json_and_strict(monkeypatch, tmp_path):
    monkeypatch.setattr(claim_registry, "REGISTRY", claim_registry.ClaimRegistry(modules=()))
    registry.register(_claim("SLOW", Reading("transcribed", "1 <= 2", "-", symbolic=_slow_checked, sides=_one_two,
                                             sweep=_sweep_ints, strategy=_ints, bind=_tie_one_two)))
    out = tmp_path / "rows.json"
    result = run("SLOW:transcribed", "--time-limit", "0.3", "--json", str(out))
    assert result.exit_code == 0, result.output
    row = read_rows(out)[0]
    # the proof cut short, the verdict is the numeric evidence's (Hypothesis and the sweep: holds), marked
    assert row["verdict"] == "holds" and row["timed_out"] == ["symbolic"]
    assert row["evidence"].startswith("TIME LIMIT (symbolic)")
    assert "(time limit)" in result.stdout and "TIME LIMIT: the wall-clock safety net interrupted" in result.stdout
    assert run("SLOW:transcribed", "--time-limit", "0.3", "--strict").exit_code == 1
    # no limit (0), or the default hang guard: the proof runs to completion
    for args in (["--time-limit", "0"], []):
        result = run("SLOW:transcribed", "--json", str(out), *args)
        row = read_rows(out)[0]
        assert row["verdict"] == "proved" and row["timed_out"] is None, result.output


def test_same_seed_same_json(toys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        assert run("BAD", "--quick", "--seed", "5", "--json", str(path)).exit_code == 0

    def strip(p):
        return [{k: v for k, v in r.items() if k not in ("seconds", "method_seconds")} for r in read_rows(p)]

    assert strip(a) == strip(b)


def test_unknown_id_is_a_one_line_usage_error(toys):
    result = run("NOPE")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Error: ids: unknown id 'NOPE'; valid: BAD, BAD:transcribed")


@pytest.mark.parametrize(
    ("args", "name"),
    [(["--examples", "-3"], "--examples"), (["--examples", "0"], "--examples"), (["--examples", "x"], "--examples"),
     (["--seed", "-1"], "--seed"), (["--plot", "m.png"], "--plot"), (["--time-limit", "-1"], "--time-limit"),
     (["--time-limit", "soon"], "--time-limit")],
)
def test_bad_option_values_name_the_option(toys, args, name):
    result = run(*args)
    assert result.exit_code == 2
    assert name in result.stderr


def _undecided(sweep):
    """A reading whose proof says nothing and whose sweep is ``sweep``."""
    return Reading("transcribed", "-", "-", symbolic=lambda: Proof(None, "?"), strategy=_ints, sides=_int_sides,
                   sweep=sweep)


def _run_claims(monkeypatch, tmp_path, *claims):
    """``check --quick --json`` over ``claims`` only: (result, the JSON's path)."""
    monkeypatch.setattr(claim_registry, "REGISTRY", claim_registry.ClaimRegistry(modules=()))
    for claim in claims:
        registry.register(claim)
    out = tmp_path / "partial.json"
    return run("--quick", "--json", str(out)), out


def test_interrupt_writes_the_finished_rows(monkeypatch, tmp_path):
    def interrupting_sweep(rng, k):
        raise KeyboardInterrupt

    result, out = _run_claims(monkeypatch, tmp_path, _claim("BAD", FALSE), _claim("STUCK", _undecided(interrupting_sweep)))
    assert result.exit_code == 130
    assert "interrupted" in result.stderr
    rows = read_rows(out)
    assert [r["id"] for r in rows] == ["BAD:transcribed", "BAD:reconstructed", "STUCK:transcribed"]
    assert rows[0]["verdict"] == "falsified" and rows[2]["error"] == "interrupted"
    assert "STUCK:transcribed cut short" in result.stderr


def test_a_swallowed_ctrl_c_still_stops_at_the_next_method():
    """Python drops a KeyboardInterrupt raised in a gc callback; the guard's flag catches it."""
    from attnbounds.cli.check import _InterruptGuard

    seen = []
    guard = _InterruptGuard()
    guarded = guard.wrap(lambda *args: seen.append(args))
    guarded("L1:transcribed", 0, 3)
    guard.hit = True  # what the SIGINT handler sets before raising
    with pytest.raises(KeyboardInterrupt):
        guarded("L1:transcribed sweep", 0, 3)
    assert seen == [("L1:transcribed", 0, 3)]


def test_normalizer_judges_the_claims_own_readings(toys):
    result = run("BAD", "--normalizer", "ssmax", "--quick", "--json", "-")
    assert result.exit_code == 0, result.output
    rows = read_rows(result.stdout)
    assert [r["id"] for r in rows] == ["BAD:transcribed", "BAD:reconstructed"]  # no drop rows under N
    assert all(r["normalizer"] == "ssmax" and r["verdict"] == "undecided" for r in rows)
    assert "not applicable under ssmax" in rows[0]["evidence"]  # the toy's instances fix no weights
    bad = run("--normalizer", "nope")  # resolved by attnbounds.numerics.normalizers before running
    assert bad.exit_code == 2 and "--normalizer:" in bad.stderr and "'nope'" in bad.stderr
    assert "ssmax" in bad.stderr  # the valid names are listed
    bad = run("NOPE", "--normalizer", "softmax")
    assert bad.exit_code == 2 and "ids: unknown id 'NOPE'" in bad.stderr


def test_matrix_dispatches_to_the_loop(toys, monkeypatch, tmp_path):
    calls = {}

    def run_matrix(normalizers=None, ids=None, *, budget, seed, claims, progress):
        calls["matrix"] = (normalizers, ids, budget, seed, claims)
        return {"verdicts": {"softmax": {"L1:transcribed": "holds"}, "ssmax": {"L1:transcribed": "falsified"}}}

    def plot_matrix(matrix, path):
        calls["plot"] = path

    fake = types.ModuleType("attnbounds.battery")
    fake.run_matrix, fake.plot_matrix = run_matrix, plot_matrix
    monkeypatch.setitem(sys.modules, "attnbounds.battery", fake)
    out = tmp_path / "m.json"
    result = run("--matrix", "--json", str(out), "--plot", str(tmp_path / "m.png"))
    assert result.exit_code == 0, result.output
    assert calls["matrix"] == (None, None, DEFAULT_BUDGET, 0, None) and calls["plot"] == str(tmp_path / "m.png")
    assert json.loads(out.read_text())["verdicts"]["ssmax"]["L1:transcribed"] == "falsified"
    assert "ssmax" in result.stdout and "falsified" in result.stdout


def test_missing_battery_is_a_clear_error(toys, monkeypatch):
    monkeypatch.setitem(sys.modules, "attnbounds.battery", None)
    result = run("--matrix")
    assert result.exit_code == 1
    assert "attnbounds.battery" in result.stderr


# --------------------------------------------------------------------------- the real claims


def test_quick_check_of_real_readings_end_to_end(tmp_path):
    """Two fast readings of the paper's claims through the whole command.

    L2:row reads 1/(4T) as a bound on one weight's gradient: at uniform logits with L = 2,
    T = 1 the row norm is sqrt(2)/4 > 1/4, so it must come out falsified with lhs > rhs.
    C1:reconstructed is a theorem, so it must not be falsified.
    """
    out = tmp_path / "real.json"
    result = run("L2:row", "C1:reconstructed", "--quick", "--json", str(out))
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in read_rows(out)}
    assert set(rows) == {"L2:row", "C1:reconstructed"}
    for r in rows.values():
        assert r["error"] is None and r["conflict"] is None, r
    row = rows["L2:row"]
    assert row["verdict"] == "falsified"
    assert row["counterexample"]["lhs"] > row["counterexample"]["rhs"]
    assert rows["C1:reconstructed"]["verdict"] in ("proved", "certified", "holds")
    assert run("L2:row", "--quick", "--strict").exit_code == 1


def test_sigterm_stops_like_ctrl_c_and_exits_143(monkeypatch, tmp_path):
    """A job scheduler's stop (SIGTERM) takes the interrupt path: the finished rows are written."""
    import os
    import signal

    def terminated_sweep(rng, k):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the sweep")

    before = signal.getsignal(signal.SIGTERM)
    result, out = _run_claims(monkeypatch, tmp_path, _claim("BAD", FALSE), _claim("STUCK", _undecided(terminated_sweep)))
    assert result.exit_code == 143, result.output
    assert "interrupted" in result.stderr
    rows = read_rows(out)
    assert [r["id"] for r in rows] == ["BAD:transcribed", "BAD:reconstructed", "STUCK:transcribed"]
    assert rows[2]["error"] == "interrupted"
    assert signal.getsignal(signal.SIGTERM) is before  # put back


def test_a_sigterm_dropped_in_a_gc_callback_stops_the_run_where_sigint_is_ignored(monkeypatch, tmp_path):
    """Review 49: with SIGINT ignored (a script's background job) check's guard is not in place; a
    SIGTERM whose KeyboardInterrupt a gc callback drops must still stop the run at the next method."""
    import os
    import signal

    sent = []

    def swallowed(rng, k):
        if not sent:
            sent.append(True)
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            except KeyboardInterrupt:  # what a gc callback does with it
                pass
        return _sweep_ints(rng, k)

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result, out = _run_claims(monkeypatch, tmp_path, _claim("LOST", _undecided(swallowed)), _claim("BAD", FALSE))
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert sent and result.exit_code == 143, result.output
    assert "BAD:transcribed" not in [r["id"] for r in read_rows(out)]  # stopped before the next claim


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_an_ignored_signal_stays_ignored(monkeypatch, tmp_path, signame):
    """A parent that ignores SIGINT (a shell's background job) or SIGTERM asked that it not stop the
    command: check's guard and the SIGTERM hook leave it ignored, and the run finishes."""
    import os
    import signal

    signum = getattr(signal, signame)
    sent = []

    def signalled_sweep(rng, k):
        if not sent:
            sent.append(signal.getsignal(signum))
            os.kill(os.getpid(), signum)  # ignored: nothing happens
        return _sweep_ints(rng, k)

    before = signal.signal(signum, signal.SIG_IGN)
    try:
        result, out = _run_claims(monkeypatch, tmp_path, _claim("SIG", _undecided(signalled_sweep)), _claim("BAD", FALSE))
        assert signal.getsignal(signum) is signal.SIG_IGN
    finally:
        signal.signal(signum, before)
    assert sent == [signal.SIG_IGN], sent  # the handler in place while the sweep ran
    assert result.exit_code == 0, result.output
    ids = [r["id"] for r in read_rows(out)]
    assert "BAD:transcribed" in ids and not any(r.get("error") for r in read_rows(out))


def test_a_sigterm_dropped_in_a_gc_callback_still_stops_at_the_next_method(monkeypatch, tmp_path):
    """Python drops a KeyboardInterrupt raised in a gc callback (Hypothesis installs one): SIGTERM goes
    through check's guard, whose flag stops the run at the next method; a second SIGTERM would kill."""
    import os
    import signal

    sent = []

    def swallowed(rng, k):
        if not sent:  # once: a second SIGTERM would kill the test process
            sent.append(True)
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            except KeyboardInterrupt:  # what a gc callback does with it
                pass
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the next SIGTERM kills
        return _sweep_ints(rng, k)

    before = signal.getsignal(signal.SIGTERM)
    result, out = _run_claims(monkeypatch, tmp_path, _claim("LOST", _undecided(swallowed)), _claim("BAD", FALSE))
    assert sent and result.exit_code == 143, result.output
    ids = [r["id"] for r in read_rows(out)]
    assert "BAD:transcribed" not in ids  # stopped before the next claim
    assert signal.getsignal(signal.SIGTERM) is before
