"""Instances outside a reading's own hypotheses (``Reading.assume``) are discarded and counted,
never judged: not counterexamples and not errors; and a real error stays an error, in
``--matrix`` too.

Last stop ``check --normalizer sparsemax`` turned ``T1i:transcribed-if-R-ge-1`` into an error
row: drawing the weights through sparsemax changes the top-N set, and with it R, so some
instances broke the reading's condition R >= 1 and its sides raised; ``--strict`` then exited
1, and ``--matrix`` showed the error as a plain "undecided".
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import strategies as st

from attnbounds import engine
from attnbounds.claims.base import Claim, Reading, Sides
from attnbounds.cli import main
from attnbounds.engine import Budget
from attnbounds.engine.methods import run_strategy, run_sweep

SMALL = Budget(examples=20, sweep=2_000, mc_samples=100, audit=200)


def _sqrt_sides(inst):
    # sqrt(x) >= 0: true where x >= 0; NaN (an evaluator error) for x < 0
    x = np.asarray(inst["x"], dtype=float)
    with np.errstate(invalid="ignore"):
        return Sides(np.sqrt(x), np.zeros_like(x))


def _reading(assume):
    return Reading("transcribed", "sqrt(x) >= 0 for x >= 0", "-", relation=">=", sides=_sqrt_sides,
                   strategy=lambda: st.fixed_dictionaries({"x": st.floats(-1, 1)}),
                   sweep=lambda rng, n: {"x": rng.uniform(-1, 1, n)}, assume=assume)


def _nonnegative(inst):
    return np.asarray(inst["x"]) >= 0


def test_instances_outside_the_readings_hypotheses_are_discarded_and_counted():
    bare = _reading(None)
    assert run_sweep(bare, SMALL).outcome == "error"  # without assume, x < 0 is an evaluator error
    r = _reading(_nonnegative)
    sw = run_sweep(r, SMALL, reading_id="SQ:transcribed")
    assert sw.outcome == "pass" and sw.count == SMALL.sweep  # the budget counts judged instances
    assert 0.3 * SMALL.sweep < sw.discarded < 3 * SMALL.sweep  # about as many drawn outside as inside
    hyp = run_strategy(r, SMALL, reading_id="SQ:transcribed")
    assert hyp.outcome == "pass" and hyp.discarded > 0
    claim = Claim(id="SQ", title="toy", source="tests", statement="-", transcription="-", transcription_latex="-",
                  hypotheses=(), readings=(r, Reading("reconstructed", "-", "-")), proof="toy")
    row = engine.check(["SQ:transcribed"], claims=[claim], budget=SMALL)[0]
    assert row.verdict == "holds" and row.error is None
    assert row.discarded == {"strategy": hyp.discarded, "sweep": sw.discarded}
    assert "discarded" in row.evidence and row.to_dict()["discarded"] == row.discarded


def test_a_reading_whose_instances_are_all_outside_is_undecided_not_an_error():
    r = _reading(lambda inst: np.asarray(inst["x"]) > 5)  # nothing drawn meets it
    sw = run_sweep(r, SMALL)
    assert sw.outcome == "incomplete" and sw.count == 0 and sw.discarded == 10 * SMALL.sweep
    assert "met the reading's hypotheses" in sw.detail
    hyp = run_strategy(r, SMALL)
    assert hyp.outcome == "incomplete" and hyp.count == 0 and hyp.discarded > 0


def test_a_violation_outside_the_hypotheses_is_no_counterexample():
    # x^2 <= x holds on [0, 1] only: with assume x in [0, 1] the reading holds, without it it is falsified
    def sides(inst):
        x = np.asarray(inst["x"], dtype=float)
        return Sides(x * x, x)

    def make(assume):
        return Reading("transcribed", "x^2 <= x", "-", sides=sides, assume=assume,
                       strategy=lambda: st.fixed_dictionaries({"x": st.floats(-2, 2)}),
                       sweep=lambda rng, n: {"x": rng.uniform(-2, 2, n)})

    inside = lambda inst: (np.asarray(inst["x"]) >= 0) & (np.asarray(inst["x"]) <= 1)  # noqa: E731
    assert run_sweep(make(None), SMALL).outcome == "fail"
    assert run_strategy(make(None), SMALL).outcome == "fail"
    assert run_sweep(make(inside), SMALL).outcome == "pass"
    assert run_strategy(make(inside), SMALL).outcome == "pass"


def test_t1i_if_r_ge_1_under_sparsemax_is_judged_not_an_error():
    row = engine.check(["T1i:transcribed-if-R-ge-1"], budget=SMALL, normalizer="sparsemax")[0]
    assert row.error is None, row.error
    assert row.verdict == "holds", row.evidence  # the statement is a theorem for any weights summing to 1
    assert row.discarded and row.discarded.get("sweep", 0) > 0  # sparsemax moved some top-N sets: R < 1


def test_hypotheses_that_reject_a_normalizers_weights_make_the_row_not_applicable():
    """sigmoid's rows do not sum to 1; T1i:transcribed-if-R-ge-1's hypothesis (R >= 1) is computed
    from the weights and rejected them with a ValueError that stopped the whole run (check
    --matrix crashed after about 70 s). The row is now undecided, not applicable, with the reason."""
    row = engine.check(["T1i:transcribed-if-R-ge-1"], budget=SMALL, normalizer="sigmoid")[0]
    assert row.verdict == "undecided"
    assert "not applicable" in row.evidence and "hypotheses reject the weights of 'sigmoid'" in row.evidence


def test_strict_passes_under_sparsemax(tmp_path):
    out = tmp_path / "rows.json"
    result = CliRunner().invoke(main, ["check", "--quick", "--strict", "--normalizer", "sparsemax",
                                       "T1i:transcribed-if-R-ge-1", "--json", str(out)])
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())["rows"][0]
    assert row["error"] is None and row["discarded"]["sweep"] > 0


def _broken_sides(inst):
    w = np.asarray(inst["weights"], dtype=float)
    if np.any(w == 0):  # a bug of this toy that only sparse weights reach
        raise RuntimeError("toy bug: a zero weight")
    return Sides(w.max(axis=-1), np.ones(w.shape[:-1]))


BROKEN = Claim(
    id="BRK", title="toy", source="tests", statement="max weight <= 1", transcription="-", transcription_latex="-",
    hypotheses=(), proof="toy",
    readings=(
        Reading("transcribed", "max weight <= 1", "-", sides=_broken_sides,
                strategy=lambda: st.fixed_dictionaries({"weights": st.just(np.array([0.7, 0.2, 0.1]))}),
                sweep=lambda rng, n: {"weights": rng.dirichlet(np.ones(3) * 0.2, n)}),
        Reading("reconstructed", "-", "-"),
    ),
)


def test_matrix_shows_a_real_error_as_an_error(tmp_path):
    result = CliRunner().invoke(main, ["check", "--matrix", "--quick", "--claims", "tests/test_assume.py:BROKEN",
                                       "--json", str(tmp_path / "m.json")],
                                 env={"COLUMNS": None})  # the wide table (a COLUMNS set by the runner would fold it)
    assert result.exit_code == 0, result.output
    m = json.loads((tmp_path / "m.json").read_text())
    errored = [n for n, rows in m["rows"].items() if rows[0]["error"]]
    assert errored  # some normalizer gives zero weights
    line = next(line for line in result.stdout.splitlines() if "BRK:transcribed" in line and "│" in line)
    assert "error" in line
    assert "error or conflict (not a verdict): BRK:transcribed under " + errored[0] in " ".join(result.stdout.split())
    # the undecided reconstructed reading (no method) is not shown as an error
    line = next(line for line in result.stdout.splitlines() if "BRK:reconstructed" in line)
    assert "error" not in line and "undecided" in line


def test_plot_marks_error_cells(tmp_path):
    pytest.importorskip("matplotlib")
    from attnbounds import battery

    m = {"normalizers": ["a"], "ids": ["X:r"], "verdicts": {"a": {"X:r": "undecided"}},
         "rows": {"a": [{"id": "X:r", "verdict": "undecided", "error": "boom"}]}}
    battery.plot_matrix(m, tmp_path / "m.svg")
    assert "E: error or conflict" in (tmp_path / "m.svg").read_text()
