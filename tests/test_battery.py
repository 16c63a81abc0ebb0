"""Tests for attnbounds.battery: the claims' conclusions under other normalizers."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import sympy as sp

from attnbounds import battery
from attnbounds.engine import ROW_FIELDS
from attnbounds.numerics import normalizers as nz
from attnbounds.numerics.attention import subset_cumulative_distance


@pytest.fixture(scope="module")
def softmax_rows():
    return {r["id"]: r for r in battery.run_battery("softmax", ["L1", "C1", "T1i", "L2"], quick=True)}


def test_rows_have_the_engine_schema_and_are_json(softmax_rows):
    for row in softmax_rows.values():
        assert set(ROW_FIELDS) <= set(row), set(ROW_FIELDS) - set(row)
        assert row["normalizer"] == "softmax" and row["hypotheses_broken"] == []
        assert row["verdict"] in ("proved", "certified", "holds", "falsified", "undecided")
        json.dumps(row, allow_nan=False)


def test_softmax_keeps_the_paper_conclusions(softmax_rows):
    for rid in ("L1:squeeze", "C1:upper", "C1:lower", "T1i:reconstructed", "L2:entry"):
        assert softmax_rows[rid]["verdict"] == "holds", (rid, softmax_rows[rid]["evidence"])
    assert softmax_rows["L2:entry"]["detail"]["measured_sup_times_T"]["entry"] == pytest.approx(0.25, abs=1e-6)


def test_softmax_counterexamples_are_real(softmax_rows):
    # T1i as transcribed: the trailing −(1 − ᾱ) term makes it false (a finding).
    row = softmax_rows["T1i:transcribed"]
    assert row["verdict"] == "falsified"
    inst = row["counterexample"]["instance"]
    w = nz.get("softmax").weights(np.array(inst["logits"]), T=inst["T"])
    x, n = np.array(inst["x"]), inst["n"]
    idx = np.argsort(-w, kind="stable")[:n]
    mask = np.zeros(w.size, bool)
    mask[idx] = True
    d = subset_cumulative_distance(w, x, mask)
    norms = np.linalg.norm(x, axis=-1)
    a = w[mask].sum()
    rhs = (1 - a) * norms[~mask].max() + norms[mask].max() * a * (w.size - n) - (1 - a)
    assert d > rhs + 1e-12
    # L2 spectral: sup ‖J‖₂ = 1/(2T) at two tied logits, twice 1/(4T)
    row = softmax_rows["L2:spectral"]
    assert row["verdict"] == "falsified"
    c = row["counterexample"]
    J = nz.get("softmax").jacobian(np.array(c["instance"]["logits"]), T=c["instance"]["T"])
    assert np.linalg.norm(J, 2) == pytest.approx(c["lhs"]) and c["lhs"] > c["rhs"] == 1 / (4 * c["instance"]["T"])
    assert softmax_rows["L2:spectral"]["detail"]["measured_sup_times_T"]["spectral"] == pytest.approx(0.5, abs=1e-6)


def test_sparse_and_length_aware_normalizers_escape_the_squeeze():
    sp_row = battery.run_battery("sparsemax", ["L1"], quick=True)[0]
    assert sp_row["verdict"] == "falsified" and sp_row["counterexample"]["lhs"] == 0.0
    logits = np.array(sp_row["counterexample"]["instance"]["logits"])
    assert (nz.get("sparsemax").weights(logits) == 0).any()
    assert "F > 0 (no zero weights)" in sp_row["hypotheses_broken"]

    ss_row = battery.run_battery("ssmax", ["L1"], quick=True)[0]
    assert ss_row["verdict"] == "falsified" and ss_row["hypotheses_broken"] == ["independent of L"]
    assert ss_row["methods"] == ["fit", "symbolic"] and ss_row["counterexample"]["lhs"] == "oo"
    # independently: with one logit at +1 and the rest at −1, L·max α of ssmax grows like L
    top = [float(n * nz.get("ssmax").weights(np.r_[1.0, -np.ones(n - 1)]).max()) for n in (64, 1024)]
    assert top[1] / top[0] > 10


def test_l1_growth_over_finite_L_is_not_a_counterexample():
    # softmax(10 z) saturates at e^20 only for L ≫ 4096: a fit alone cannot tell.
    steep = nz.from_callable(lambda z: nz.softmax_weights(10 * z), name="steep")
    row = battery.run_battery(steep, ["L1"], quick=True)[0]
    assert row["verdict"] == "undecided" and row["counterexample"] is None
    assert "cannot show unboundedness" in row["evidence"]
    # the same map as a ratio form: the exact limit e^20 is finite, so Lemma 1 holds
    l = sp.Symbol("l", real=True)
    row = battery.run_battery(nz.from_sympy(sp.exp(10 * l), l, name="steep_sympy"), ["L1"], quick=True)[0]
    assert row["verdict"] == "holds" and "exp(20)" in row["detail"]["symbolic"]


def test_sigmoid_applicability_and_jensen_reading():
    rows = {r["id"]: r for r in battery.run_battery("sigmoid", ["T1i", "T1ii"], quick=True)}
    for rid in ("T1i:transcribed", "T1i:reconstructed"):
        assert rows[rid]["verdict"] == "undecided"
        assert rows[rid]["evidence"] == "not applicable: rows do not sum to 1"
        assert rows[rid]["hypotheses_broken"] == ["rows sum to 1"]
    # The Jensen reading of T1(ii) needs no normalization: it holds for sigmoid weights too.
    assert rows["T1ii:reconstructed"]["verdict"] == "holds"


def test_corrected_corollary2_under_sharp_normalizers():
    rows = {r["id"]: r for r in battery.run_battery("ssmax", ["C2"], quick=True)}
    # the sandwich is exact for any distribution; the O(1) bound needs Lemma 1's squeeze
    assert rows["C2:sandwich"]["verdict"] == "holds"
    row = rows["C2:bounded"]
    assert row["verdict"] == "falsified"
    inst = row["counterexample"]["instance"]
    w = nz.get("ssmax").weights(np.array(inst["logits"]), T=inst["T"])
    x, n = np.array(inst["x"]), inst["n"]
    L = w.size
    R = np.linalg.norm(x, axis=-1).max()
    bound = R * (1 + n * np.exp(2 * inst["a"] / inst["T"]) * (L - n) / L)
    d = subset_cumulative_distance(w, x, np.isin(np.arange(L), np.argsort(-w, kind="stable")[:n]))
    assert d == pytest.approx(row["counterexample"]["lhs"]) and d > 2 * bound
    assert battery.run_battery("softmax", ["C2:bounded"], quick=True)[0]["verdict"] == "holds"


def test_expected_random_distance_matches_enumeration_by_hand():
    rng = np.random.default_rng(3)
    for L, n in [(3, 1), (5, 2), (6, 3)]:
        w = nz.get("softmax").weights(rng.normal(size=L))
        x = rng.normal(size=(L, 2))
        by_hand = np.mean([
            subset_cumulative_distance(w, x, np.isin(np.arange(L), S))
            for S in itertools.combinations(range(L), n)
        ])
        assert battery._expected_random_distance(w, x, n) == pytest.approx(by_hand, rel=1e-12)


def test_run_matrix_and_plot(tmp_path):
    seen = []
    m = battery.run_matrix(["softmax", "sigmoid"], ids=["L1", "T1i:reconstructed"], quick=True,
                           progress=lambda label, done, total: seen.append((label, done, total)))
    assert m["normalizers"] == ["softmax", "sigmoid"] and m["ids"] == ["L1:squeeze", "T1i:reconstructed"]
    assert m["verdicts"]["softmax"] == {"L1:squeeze": "holds", "T1i:reconstructed": "holds"}
    assert m["verdicts"]["sigmoid"]["T1i:reconstructed"] == "undecided"
    assert seen[0] == ("softmax L1:squeeze", 0, 4) and seen[-1][1:] == (3, 4)
    png = battery.plot_matrix(m, tmp_path / "m.png")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    svg = battery.plot_matrix(m, tmp_path / "m.svg")
    assert "<svg" in open(svg).read(2000)
    with pytest.raises(ValueError, match="^path:"):
        battery.plot_matrix(m, tmp_path / "m.txt")
    with pytest.raises(ValueError, match="^matrix:"):
        battery.plot_matrix({}, tmp_path / "m.png")


def test_same_seed_same_rows_alone_or_together():
    a = battery.run_battery("adaptive_temperature", ["C1:lower"], quick=True, seed=5)[0]
    b = battery.run_battery("adaptive_temperature", ["C1"], quick=True, seed=5)[1]
    assert b["id"] == "C1:lower"
    assert (a["verdict"], a["counterexample"]) == (b["verdict"], b["counterexample"])
    assert a["verdict"] == "falsified"  # β > 1 sharpens rows past softmax's e^{±2Δ/T}


def test_argument_errors():
    with pytest.raises(ValueError, match="^ids: unknown id 'X9'"):
        battery.run_battery("softmax", ["X9"])
    with pytest.raises(ValueError, match="^seed:"):
        battery.run_battery("softmax", ["L1"], seed=-1)
    with pytest.raises(TypeError, match="^progress:"):
        battery.run_battery("softmax", ["L1"], progress=3)
    with pytest.raises(nz.NormalizerNotFound):
        battery.run_battery("nope", ["L1"])
    assert battery._resolve_ids(["L2:row", "L1"]) == ["L1:squeeze", "L2:row"]
    with pytest.raises(ValueError, match="^claim_id:"):
        battery.hypotheses_broken("softmax", "Z")
