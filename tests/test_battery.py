"""The claims under other normalizers: Reading.under, engine.judge_under, the matrix loop."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attnbounds import battery, claims, engine
from attnbounds.claims.normalized import NotApplicable, reweigh
from attnbounds.engine import NORMALIZER_FIELDS, ROW_FIELDS, Budget
from attnbounds.numerics import normalizers as nz

SMALL = Budget(examples=20, sweep=2000, mc_samples=200, audit=200)


def test_under_softmax_the_weights_are_unchanged():
    w = np.random.default_rng(0).dirichlet(np.ones(6), size=4)
    out = reweigh({"weights": w, "n": 2}, "softmax")
    np.testing.assert_allclose(out["weights"], w, rtol=1e-12)
    assert out["normalizer"] == "softmax" and out["n"] == 2


def test_logits_recovered_from_weights_are_shifted_under_a_normalizer_that_sees_the_shift():
    """Logits recovered as log(weights) are never above 0, so a normalizer that is not
    shift-invariant was judged on non-positive logits only: a new user's floored softmax
    F = e^l + 1 made "TV(alpha) <= 1/2" hold (its weights stay near uniform there), though logits
    (10, -10, -10) give TV = 0.667. The constant is now drawn; softmax's instances are unchanged."""
    import importlib.util
    from pathlib import Path

    import sympy as sp

    path = Path(__file__).resolve().parents[1] / "docs" / "examples" / "my_claim.py"
    spec = importlib.util.spec_from_file_location("my_claim_for_shift", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    lv = sp.Symbol("l", real=True)
    floored = nz.from_sympy(sp.exp(lv) + 1, lv, name="floored_softmax")
    row = engine.check(["TV:transcribed"], budget=SMALL, claims=[mod.CLAIM], normalizer=floored)[0]
    assert row.verdict == "falsified", row.evidence
    w = np.array([0.9, 0.05, 0.05])
    shifted = reweigh({"weights": w}, floored, shift=10.0)
    np.testing.assert_allclose(shifted["logits"], np.log(w) + 10.0)
    assert reweigh({"weights": w}, "softmax", shift=0.0)["weights"] == pytest.approx(w, rel=1e-12)
    for bad in ("x", np.nan, [1.0, np.inf]):
        with pytest.raises(ValueError, match="shift: expected a finite number"):
            reweigh({"weights": w}, floored, shift=bad)


def test_l1_reconstructed_under_ssmax_is_falsified_with_a_real_counterexample():
    rows = engine.check(["L1"], budget=SMALL, normalizer="ssmax")
    assert [r.id for r in rows] == ["L1:transcribed", "L1:reconstructed"]  # the claim's own ids
    row = rows[1]
    assert row.verdict == "falsified" and row.normalizer == "ssmax"
    assert "length-independent" in row.hypotheses_broken
    inst = row.counterexample["instance"]
    assert inst["family"] == "ssmax"
    # recomputed here: ssmax weights at the row's L against Lemma 1's tight interval for
    # F_2(l) = exp(log(2) l / T), whose extremes on [-a, a] are 2^(-a/T) and 2^(a/T)
    z, a, T = np.asarray(inst["logits"]), inst["a"], inst["param"]
    L = z.size
    e = np.exp(math.log(L) * z / T)
    alpha = e / e.sum()
    m, M = 2 ** (-a / T), 2 ** (a / T)
    lo, hi = m / (m + (L - 1) * M), M / (M + (L - 1) * m)
    assert alpha.max() > hi * (1 + 1e-9) or alpha.min() < lo * (1 - 1e-9)


def test_l1_under_sparsemax_is_not_applicable_and_names_the_broken_hypothesis():
    row = engine.check(["L1:reconstructed"], budget=SMALL, normalizer="sparsemax")[0]
    assert row.verdict == "undecided" and row.evidence.startswith("not applicable under sparsemax")
    assert "no ratio form" in row.evidence and "positive" in row.hypotheses_broken


def test_l1_under_a_positive_callable_does_not_call_positive_broken():
    """A new user's ReLU-shifted normalizer (a numpy callable declared positive) was reported as not
    meeting L1's "positive": with no SymPy F that is not known, as Lemma 2 already says."""
    relu = nz.from_callable(lambda z: (np.maximum(z, 0) + 1) / (np.maximum(z, 0) + 1).sum(-1, keepdims=True),
                            name="relu_shifted")  # positive by default (not sparse)
    row = engine.check(["L1:reconstructed"], budget=SMALL, normalizer=relu)[0]
    assert "positive" not in (row.hypotheses_broken or [])
    assert row.verdict == "undecided" and "no ratio form" in row.evidence


def test_weights_readings_keep_their_verdict_under_a_sum_to_one_normalizer():
    for name in ("sparsemax", "entmax15", "adaptive_temperature"):
        row = engine.check(["T1i:reconstructed"], budget=SMALL, normalizer=name)[0]
        assert row.verdict == "holds", (name, row.evidence)
        assert row.methods == ["strategy", "sweep"]  # exact methods are about softmax: not carried over


def test_rows_that_break_normalization_are_not_applicable_with_the_hypothesis_named():
    row = engine.check(["T1i:reconstructed"], budget=SMALL, normalizer="sigmoid")[0]
    assert row.verdict == "undecided" and "sum to 1" in row.evidence
    assert row.hypotheses_broken == ["normalized"]


def test_softmax_fixed_and_attainment_readings():
    with pytest.raises(NotApplicable, match="make their own weights"):
        claims.get("C3").reading("reconstructed").under("ssmax")
    # H1's instances are head masks: no softmax to fix, the reading is not about the normalizer
    with pytest.raises(NotApplicable, match="hold no logits or weights: the reading is not about the normalizer"):
        claims.get("H1").reading("union-bound").under("ssmax")
    with pytest.raises(NotApplicable, match="attainment"):
        claims.get("T1i").reading("sharp").under("ssmax")
    r = claims.get("C1").reading("reconstructed").under("softmax")  # its own normalizer
    assert r.methods == ("strategy", "sweep") and r.normalizer == "softmax"


def _under(qid, reading, normalizer):
    claim = claims.get(qid)
    return engine.judge_under(claim, claim.reading(reading), normalizer, budget=SMALL)


def test_c1_draws_its_weights_through_the_normalizer():
    row = _under("C1", "reconstructed", "ssmax")
    assert row.verdict == "falsified" and row.normalizer == "ssmax" and "softmax" in row.hypotheses_broken
    inst = row.counterexample["instance"]
    assert inst["normalizer"] == "ssmax"
    # recomputed here: scalable softmax of l = q.k against the sharp softmax interval
    q, keys, T = np.asarray(inst["q"], float), np.asarray(inst["keys"], float), float(inst["T"])
    l = keys @ q
    L = l.size
    e = np.exp(math.log(L) * (l - l.max()) / T)
    alpha = e / e.sum()
    x = 2 * np.linalg.norm(q) * np.linalg.norm(keys, axis=-1).max() / T
    lo, hi = 1 / (1 + (L - 1) * math.exp(x)), 1 / (1 + (L - 1) * math.exp(-x))
    assert alpha.max() > hi * (1 + 1e-9) or alpha.min() < lo * (1 - 1e-9)
    # softmax at another temperature is still softmax: no hypothesis broken, the sharp bound holds
    row = _under("C1", "reconstructed", nz.get("softmax", T=0.5))
    assert row.verdict == "holds" and row.hypotheses_broken == []


def test_l2_softmax_readings_use_the_normalizers_jacobian():
    # sigmoid attention: J = diag(s(1 - s))/T with s = sigma(l/T - log L), so every entry is <= 1/(4T) ...
    assert _under("L2", "entry", "sigmoid").verdict == "holds"
    # ... but at L = 2, logits (0, 0), T = 1, s = 1/3 and |J|_F = sqrt(2)*2/9 > 1/4
    row = _under("L2", "frobenius", "sigmoid")
    assert row.verdict == "falsified" and "softmax" in row.hypotheses_broken
    inst = row.counterexample["instance"]
    z, T = np.asarray(inst["logits"], float), float(inst["T"])
    s = 1 / (1 + np.exp(-(z / T - math.log(z.size))))
    assert np.linalg.norm(s * (1 - s)) / T > 1 / (4 * T)
    assert row.counterexample["lhs"] == pytest.approx(np.linalg.norm(s * (1 - s)) / T, rel=1e-12)


def test_c2_bounded_is_posed_under_a_normalizer_or_says_which_hypothesis_fails():
    row = _under("C2", "bounded", "sparsemax")
    assert row.verdict == "falsified" and {"lemma1", "softmax"} <= set(row.hypotheses_broken)
    inst = row.counterexample["instance"]
    assert inst["normalizer"] == "sparsemax" and row.counterexample["lhs"] > row.counterexample["rhs"]
    row = _under("C2", "bounded", "sigmoid")  # rows that do not sum to 1: not a distance of the claim
    assert row.verdict == "undecided" and "sum to 1" in row.evidence and "lemma1" in row.hypotheses_broken


def test_row_schema_under_a_normalizer_is_json():
    rows = engine.check(["L1", "T1i"], budget=SMALL, normalizer="ssmax")
    for row in rows:
        d = row.to_dict()
        assert tuple(d) == ROW_FIELDS + NORMALIZER_FIELDS
        json.dumps(d, allow_nan=False)


def test_matrix_is_a_loop_over_normalizers_and_plots(tmp_path):
    m = battery.run_matrix(["softmax", "ssmax"], ["L1:reconstructed"], quick=True)
    assert m["normalizers"] == ["softmax", "ssmax"] and m["ids"] == ["L1:reconstructed"]
    assert m["verdicts"] == {"softmax": {"L1:reconstructed": "holds"}, "ssmax": {"L1:reconstructed": "falsified"}}
    path = battery.plot_matrix(m, tmp_path / "m.png")
    assert (tmp_path / "m.png").stat().st_size > 1000 and path.endswith("m.png")
    assert (tmp_path / "m.png").read_bytes().startswith(b"\x89PNG")
    battery.plot_matrix(m, tmp_path / "m.SVG")  # the format follows the suffix, whatever its case
    assert b"<svg" in (tmp_path / "m.SVG").read_bytes()[:1000]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.SVG", "m.png"]  # written atomically: no leftovers
    with pytest.raises(ValueError, match="matrix"):
        battery.plot_matrix({}, tmp_path / "x.png")


def test_a_plugin_normalizer_with_a_ratio_form():
    N = nz.from_sympy(nz.LOGIT**2 + 1, nz.LOGIT, name="quadratic_plus_one")
    row = engine.check(["L1:reconstructed"], budget=SMALL, normalizer=N)[0]
    assert row.verdict == "holds" and row.normalizer == "quadratic_plus_one"


def test_matrix_plot_marks_a_hypothesis_not_met(tmp_path, monkeypatch):
    # the text matrix marks such cells "*" (not counterexamples to the claim); the figure did not
    import matplotlib.axes

    m = battery.run_matrix(["softmax", "ssmax"], ["L1:reconstructed"], quick=True)
    broken = {n: [r["id"] for r in rows if r.get("hypotheses_broken")] for n, rows in m["rows"].items()}
    assert broken == {"softmax": [], "ssmax": ["L1:reconstructed"]}, broken
    texts = []
    real = matplotlib.axes.Axes.text

    def spy(self, x, y, s, *args, **kwargs):
        texts.append(s)
        return real(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "text", spy)
    battery.plot_matrix(m, tmp_path / "m.png")
    assert sorted(texts) == ["F*", "H"], texts


def test_a_hypothesis_of_some_readings_is_reported_for_those_only():
    # L2's "softmax" hypothesis is a hypothesis of its 1/(4T) readings; the generic readings
    # need only a positive differentiable F, which a SymPy plug-in meets
    N = nz.from_sympy((nz.LOGIT**2 + 1) ** 2, nz.LOGIT, name="even_square_plus_one")
    rows = {r.reading: r for r in engine.check(["L2:spectral", "L2:log-form"], budget=SMALL, normalizer=N)}
    assert rows["spectral"].hypotheses_broken == ["softmax"]
    assert rows["log-form"].hypotheses_broken == []
    # a numpy callable has no SymPy F: whether F is positive and differentiable is not known, not "not met"
    tsm = nz.from_callable(lambda z, tau=2.0: nz.get("softmax").weights(z / tau), name="tsm", params={"tau": 2.0})
    row = engine.check(["L2:log-form"], budget=SMALL, normalizer=tsm)[0]
    assert "differentiable-positive-F" not in (row.hypotheses_broken or [])
    from dataclasses import replace

    from attnbounds.claims import registry
    from attnbounds.claims.base import Hypothesis

    with pytest.raises(ValueError, match="names no reading"):
        replace(registry.get("L2"), hypotheses=(Hypothesis("h", "-", readings=("nosuch",)),))
