"""``derive --normalizer SPEC``: Lemma 1's and Lemma 2's constants for a user's normalizer (a
built-in ratio-form family, or a plug-in made with ``normalizers.from_sympy``), resolved as
``check --normalizer`` resolves it; undecided values printed as such, never guessed."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp
from click.testing import CliRunner

from attnbounds.cli import main
from attnbounds.cli.derive import DERIVE_FORMAT, NORMALIZER_TITLE

T, a = sp.Symbol("T", positive=True), sp.Symbol("a", positive=True)
l = sp.Symbol("l", real=True)
G = sp.Symbol("G", positive=True)
NAMES = {"T": T, "a": a, "l": l, "G": G}
KEYS = ["F", "g", "m", "M", "C1", "C2", "G", "entry", "row", "spectral", "frobenius"]

PLUGINS = '''
from dataclasses import replace

import sympy as sp
from attnbounds.numerics.normalizers import from_callable, from_sympy

l = sp.Symbol("l", real=True)
b = sp.Symbol("b", positive=True)
quad = from_sympy(l**2 + 1, l, name="quad")
scaled = from_sympy(sp.exp(b * l), l, name="scaled", b=2.0)
square_power = from_sympy((1 + l**2) ** 2, l, name="square_power")
softplus_own = from_sympy(sp.log(1 + sp.exp(l)), l, name="softplus_own")
taylor_own = from_sympy(1 + l + l**2 / 2, l, name="taylor_own")
skew_quad = from_sympy(1 + l + l**2, l, name="skew_quad")  # no family's F
wiggle = from_sympy(2 + sp.sin(l), l, name="wiggle")
cubic = from_sympy(3 + l**3 - 3 * l, l, name="cubic")  # > 0 on [-2, 2], < 0 for l < -2.1
sinpos = from_sympy(1 + sp.sin(l), l, name="sinpos")  # >= 0, zero at -pi/2 + 2k pi  # g = cos l/(2 + sin l): infinitely many critical points
q = sp.Symbol("p", real=True)
inverse_power = from_sympy((1 + l**2) ** q, l, name="inverse_power", p=-1.0)  # even_power's F, but p < 0
gauss = from_sympy(sp.exp(l**2), l, name="gauss")
cosh = from_sympy(sp.cosh(l), l, name="cosh")
gauss1 = from_sympy(1 + sp.exp(-l**2), l, name="gauss1")
no_T = replace(quad, name="no_T", sympy_F=l**2 + 1)  # hand-made: its F does not read l/T
T_outside = replace(quad, name="T_outside", sympy_F=sp.exp(l) + sp.Symbol("T", positive=True))
elu1 = from_sympy(sp.Piecewise((l + 1, l > 0), (sp.exp(l), True)), l, name="elu1")  # ELU(l) + 1
step = from_sympy(sp.Piecewise((2, l > 0), (1, True)), l, name="step")
exp_min = from_sympy(sp.exp(sp.Min(l, 3)), l, name="exp_min")
numeric_only = from_callable(lambda z: (z**2 + 1) / (z**2 + 1).sum(-1, keepdims=True), name="numeric_only")
'''


@pytest.fixture(scope="module")
def plugins(tmp_path_factory):
    path = tmp_path_factory.mktemp("derive_plugins") / "derive_plugins.py"
    path.write_text(PLUGINS)
    return str(path)


def _run(*args):
    return CliRunner().invoke(main, ["derive", *args])


def _json(*args) -> dict:
    out = _run(*args, "--json")
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def _expr(results, key):
    return sp.sympify(results[key]["expr"], locals=NAMES)


def _same(x, y) -> bool:
    return sp.simplify(sp.sympify(x) - sp.sympify(y)) == 0


def _error(out, *fragments):
    assert out.exit_code == 2, out.output
    line = out.output.strip()
    assert "\n" not in line and line.startswith("Error: "), line
    for fragment in fragments:
        assert fragment in line, line
    return line


def test_softmax_constants_are_exact_in_json():
    doc = _json("--normalizer", "softmax")
    assert doc["format"] == DERIVE_FORMAT and doc["name"] == "softmax" and doc["title"] == NORMALIZER_TITLE
    r = doc["results"]
    assert list(r) == KEYS
    expected = {
        "F": sp.exp(l / T), "g": 1 / T, "m": sp.exp(-a / T), "M": sp.exp(a / T),
        "C1": sp.exp(-2 * a / T), "C2": sp.exp(2 * a / T), "G": 1 / T,
        "entry": 1 / (4 * T), "row": sp.sqrt(2) / (4 * T), "spectral": 1 / (2 * T), "frobenius": 1 / (2 * T),
    }
    for key, value in expected.items():
        assert _same(_expr(r, key), value), (key, r[key])
        assert not r[key].get("undecided")
    assert r["m"]["maximizer"] == {"l": "-a"} and r["M"]["maximizer"] == {"l": "a"}
    assert "G_softmax" in r["G"]["note"]  # from L2-generic's exact table


def test_softmax_text_and_latex_layout():
    text = _run("--normalizer", "softmax")
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0] == f"softmax: {NORMALIZER_TITLE}"
    for line in ("  F = exp(l/T)", "  m = exp(-a/T)", "  C1 = exp(-2*a/T)", "  C2 = exp(2*a/T)", "  G = 1/T",
                 "  entry = 1/(4*T)", "  row = sqrt(2)/(4*T)", "  spectral = 1/(2*T)", "      attained at: l = -a"):
        assert line in lines, line
    latex = _run("--normalizer", "softmax", "--latex")
    assert latex.exit_code == 0 and "  C1 = e^{- \\frac{2 a}{T}}" in latex.output.splitlines()
    assert "  G = \\frac{1}{T}" in latex.output.splitlines()
    assert "      attained at: l = -a" in latex.output.splitlines()  # not a Python dict (trial 49)


def test_a_spec_that_sets_the_temperature_substitutes_it():
    r = _json("--normalizer", "softmax(T=0.5)")["results"]
    assert _expr(r, "F") == sp.exp(2 * l)
    assert _expr(r, "C1") == sp.exp(-4 * a) and _expr(r, "G") == 2 and _expr(r, "spectral") == 1
    # T = 1 written out is set too (the bare name keeps T a symbol)
    assert _expr(_json("--normalizer", "softmax(T=1)")["results"], "G") == 1


@pytest.mark.parametrize(("T", "G"), [("0.3333333333", sp.Rational(10**10, 3333333333)),
                                      ("1.4142135623730951", sp.Rational(10**16, 14142135623730951)),
                                      ("1e-100", sp.Integer(10) ** 100)])
def test_a_parameter_is_the_value_written_not_a_guess(T, G):
    # review 49: nsimplify printed T = 1/3 and G = 3 for T = 0.3333333333, sqrt(2) for 1.4142135623730951,
    # and refused 1e-100 (taken for 0)
    r = _json("--normalizer", f"softmax(T={T})")["results"]
    assert _expr(r, "G") == G, r["G"]


def test_softplus_family_uses_the_exact_table_and_matches_numbers():
    r = _json("--normalizer", "softplus")["results"]
    assert _same(_expr(r, "m"), sp.log(1 + sp.exp(-a / T)))
    assert _same(_expr(r, "M"), sp.log(1 + sp.exp(a / T)))
    assert _expr(r, "G") == 1 / T  # sup over the real line, approached as l -> -oo
    Tv, av = 0.7, 1.3
    x = np.linspace(-av, av, 100_001)
    F = np.logaddexp(0.0, x / Tv)
    values = {T: sp.nsimplify(Tv), a: sp.nsimplify(av)}
    assert float(_expr(r, "C1").subs(values)) == pytest.approx(F.min() / F.max(), rel=1e-9)
    assert float(_expr(r, "C2").subs(values)) == pytest.approx(F.max() / F.min(), rel=1e-9)
    g = np.exp(-np.logaddexp(0.0, -x / Tv)) / (Tv * F)  # sigma(x/T) / (T softplus(x/T)) < 1/T
    assert g.max() < 1 / Tv


def test_an_undecided_lemma1_constant_is_printed_undecided_never_guessed(plugins):
    # F = 1 + l + l^2 as a plug-in: its critical point -1/2 is in [-a, a] only for a >= 1/2 (a a symbol), and
    # it is no family's F. Until stop 50 this was quad, F = 1 + l^2, which the critical points now decide for a
    # symbolic a (its critical point 0 is always inside); until stop 51 it was 1 + l + l^2/2, which is the
    # family taylor2's F, whose worked case now applies to it (test_a_plugin_with_a_familys_f_takes_its_tables)
    text = _run("--normalizer", f"{plugins}:skew_quad")
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    for key in ("m", "M", "C1", "C2"):
        assert f"  {key} = undecided" in lines
    r = _json("--normalizer", f"{plugins}:skew_quad")["results"]
    for key in ("m", "M", "C1", "C2"):
        assert r[key]["expr"] is None and r[key]["latex"] is None and r[key]["undecided"] is True
        assert "undecided" in r[key]["note"]
    assert not r["G"].get("undecided")  # decided: critical points of g = (1 + 2l/T)/(T (1 + l/T + l^2/T^2))
    x = np.linspace(-200, 200, 2_000_001)
    assert float(_expr(r, "G").subs(T, 1)) == pytest.approx(np.abs((1 + 2 * x) / (1 + x + x**2)).max(), rel=1e-9)
    assert f"  G = {r['G']['expr']}" in lines


def test_a_plugin_with_a_familys_f_takes_its_tables(plugins):
    """Stop 50's lead: a hand-written softplus, log(1 + e^{l/T}), is the family softplus whatever it is
    called, so its G is the exact table's (1/T; SymPy finds no critical point of g); and 1 + l/T +
    l^2/(2T^2) gets taylor2's worked Lemma 1 constants. Checked against grids."""
    r = _json("--normalizer", f"{plugins}:softplus_own(T=0.5)")["results"]
    assert _expr(r, "G") == 2 and "as F is the family softplus's" in r["G"]["note"]
    x = np.linspace(-60, 60, 1_200_001)
    g = 2 / ((1 + np.exp(-2 * x)) * np.log1p(np.exp(2 * x)))  # (log F)' at T = 1/2, F = log(1 + e^{2l})
    assert g.max() <= 2 * (1 + 1e-12) and g.max() == pytest.approx(2, rel=1e-6)  # approached as l -> -oo
    r = _json("--normalizer", f"{plugins}:taylor_own")["results"]  # a symbol: the critical points leave it undecided
    assert "F is the family taylor2's" in r["m"]["note"] and _expr(r, "G") == 1 / T
    for half, temp in ((2, 0.7), (0.5, 0.7), (3, 2.0)):  # the minimum inside, and at -a
        x = np.linspace(-half, half, 400_001)
        values = 1 + x / temp + (x / temp) ** 2 / 2
        at = {a: sp.Rational(str(half)), T: sp.Rational(str(temp))}
        assert float(_expr(r, "m").subs(at)) == pytest.approx(values.min(), rel=1e-9), (half, temp)
        assert float(_expr(r, "M").subs(at)) == pytest.approx(values.max(), rel=1e-9), (half, temp)


def test_a_family_shape_outside_the_familys_parameters_is_not_that_family(plugins):
    """Review 51: (1 + l^2)^p with p = -1 matched even_power, whose table's G = p is for p > 0,
    and derive printed G = -1/T. The family's parameters must be positive; the critical points
    give G = 1/T (g = -2l/(T^2 + l^2), sup |g| at l = -T), as a grid confirms."""
    r = _json("--normalizer", f"{plugins}:inverse_power")["results"]
    assert _expr(r, "G") == 1 / T and "even_power" not in r["G"]["note"]
    x = np.linspace(-100, 100, 2_000_001)
    assert np.abs(-2 * x / (1 + x**2)).max() == pytest.approx(1, rel=1e-9)
    from attnbounds.claims.lemma2 import _family_table_sup
    from attnbounds.numerics import normalizers as nz

    assert _family_table_sup(nz.resolve(f"{plugins}:inverse_power", flag="--normalizer")) is None
    assert _family_table_sup(nz.resolve(f"{plugins}:softplus_own(T=0.5)", flag="--normalizer")) == 2.0


def test_an_undecided_or_infinite_g(plugins):
    r = _json("--normalizer", f"{plugins}:gauss1")["results"]  # 1 + e^{-l^2/T^2}: no finite set of critical points of g
    assert r["G"]["expr"] is None and r["G"]["undecided"] is True
    assert _expr(r, "entry") == G / 4 and _expr(r, "spectral") == G / 2  # still Lemma 2, in terms of G
    assert "undecided" in r["entry"]["note"]
    # trial 49: the bounds in an undecided G are marked undecided in the JSON and the text
    assert all(r[k]["undecided"] is True for k in ("entry", "row", "spectral", "frobenius"))
    lines = _run("--normalizer", f"{plugins}:gauss1").output.splitlines()
    assert "  G = undecided" in lines and "  entry = G/4 (undecided)" in lines
    r = _json("--normalizer", f"{plugins}:gauss1(T=1)", "--half-width", "2")["results"]  # Lemma 1 decided all the same
    assert _same(_expr(r, "M"), 2) and _same(_expr(r, "m"), 1 + sp.exp(-4)) and r["G"]["undecided"] is True
    gauss = _json("--normalizer", f"{plugins}:gauss")["results"]  # g = 2l/T^2, unbounded
    assert gauss["G"]["expr"] == "oo" and gauss["spectral"]["expr"] == "oo"


def test_g_is_scaled_by_T_only_where_F_reads_l_over_T(plugins):
    r = _json("--normalizer", f"{plugins}:no_T")["results"]
    assert _expr(r, "F") == 1 + l**2 and _expr(r, "G") == 1 and r["G"]["maximizer"] == {"l": "1"}
    # exp(l) + T: sup over l of |g| = e^l/(e^l + T) is 1 for every T, not 1/T; SymPy does not decide it here
    r = _json("--normalizer", f"{plugins}:T_outside")["results"]
    assert r["G"]["undecided"] is True


def test_name_and_normalizer_together_are_refused():
    _error(_run("L1-constants", "--normalizer", "softmax"), "NAME and --normalizer", "'L1-constants'")


@pytest.mark.parametrize("spec, fragments", [
    ("nosuch", ["--normalizer: unknown normalizer 'nosuch'"]),
    ("softmax(q=1)", ["--normalizer:", "q is an unknown parameter"]),
    ("softmax(T=-1)", ["--normalizer:", "T: must be > 0"]),
    ("sparsemax", ["--normalizer: 'sparsemax' has no symbolic form F", "from_sympy"]),
    ("ssmax", ["--normalizer: 'ssmax' depends on the number of keys n", "Lemma 1 needs F independent of L"]),
])
def test_a_bad_or_unusable_spec_names_the_option(spec, fragments):
    _error(_run("--normalizer", spec), *fragments)


def test_a_plugin_without_a_symbolic_form_names_the_option(plugins, tmp_path):
    _error(_run("--normalizer", f"{plugins}:numeric_only"), "--normalizer:", "has no symbolic form F")
    _error(_run("--normalizer", f"{tmp_path / 'missing.py'}:quad"), "--normalizer:")


def test_the_help_documents_the_option_and_its_combination_with_name():
    out = _run("--help")
    assert out.exit_code == 0
    text = " ".join(out.output.split())
    assert "--normalizer SPEC" in text and "Instead of NAME (both is an error)" in text
    assert "'undecided'" in text and "T stays a symbol unless SPEC sets it" in text


def test_piecewise_plugins(plugins):
    """Trial 49's lead: ELU + 1 and e^{min(l, 3)} with a symbolic a. Their F at l/T is F_1 at l/T,
    so m and M are F_1's on [-a/T, a/T] (SymPy splits F_1 by conditions in l alone), and G of
    ELU + 1 is decided piece by piece; e^{min(l, 3)} is not differentiable at 3 (g jumps), so its
    G stays undecided. Checked against grids at T = 0.7."""
    r = _json("--normalizer", f"{plugins}:elu1")["results"]
    assert _same(_expr(r, "m"), sp.exp(-a / T)) and _same(_expr(r, "M"), 1 + a / T)
    assert _expr(r, "G") == 1 / T and r["G"]["maximizer"] == {"l": "0"}
    e = _json("--normalizer", f"{plugins}:exp_min")["results"]
    assert _same(_expr(e, "m"), sp.exp(-a / T)) and _same(_expr(e, "M"), sp.exp(sp.Min(3, a / T)))
    assert e["M"]["maximizer"] == {"l": "a"} and "non-decreasing" in e["M"]["note"]
    assert e["G"]["undecided"] is True and "continuous" in e["G"]["note"]
    Tv = 0.7
    for half in (0.5, 2.1, 4.0):  # 2.1/0.7 = 3: the kink of e^{min(l/T, 3)} at the end
        x = np.linspace(-half, half, 200_001)
        at = {T: sp.Rational(7, 10), a: sp.Rational(str(half))}
        for res, F in ((r, np.where(x > 0, x / Tv + 1, np.exp(x / Tv))), (e, np.exp(np.minimum(x / Tv, 3)))):
            assert float(_expr(res, "C1").subs(at)) == pytest.approx(F.min() / F.max(), rel=1e-9), half
            assert float(_expr(res, "C2").subs(at)) == pytest.approx(F.max() / F.min(), rel=1e-9), half
    x = np.linspace(-60, 60, 400_001)
    g = np.where(x > 0, 1 / (np.maximum(x, 0) + 1), 1.0) / Tv  # ELU + 1's (log F)' at l/T, times 1/T
    assert g.max() == pytest.approx(1 / Tv, rel=1e-9) and g.max() <= 1 / Tv * (1 + 1e-12)
    latex = _run("--normalizer", f"{plugins}:exp_min", "--latex")  # SymPy's printer raised on e^{-min(3, a/T)}
    assert latex.exit_code == 0, latex.output
    assert "  C1 = e^{- \\frac{a}{T}} e^{- \\min{\\left(3,\\frac{a}{T} \\right)}}" in latex.output.splitlines()


def test_a_step_f_has_no_g(plugins):
    """Trial 50: F = 2 for l > 0, 1 beyond printed G = 0 ("g is constant"): SymPy's (log F)' of a
    Piecewise drops the jump. F must be shown continuous first; so m, M and G are undecided."""
    r = _json("--normalizer", f"{plugins}:step")["results"]
    assert r["G"]["undecided"] is True and "F and g continuous" in r["G"]["note"]
    assert all(r[k]["undecided"] for k in ("m", "M", "C1", "C2"))


def test_half_width_gives_a_numeric_range(plugins):
    """Trial 50's wish: check decides Lemma 1's constants at a numeric a, derive only with the symbol
    a. --half-width A sets the range [-A, A] (A as written: 0.5 is 1/2); checked against grids."""
    for spec, half, F in ((f"{plugins}:cosh(T=0.7)", "4", lambda x: np.cosh(x / 0.7)),
                          ("taylor2(T=0.7)", "0.5", lambda x: 1 + x / 0.7 + x**2 / (2 * 0.7**2)),
                          ("taylor2(T=0.7)", "2", lambda x: 1 + x / 0.7 + x**2 / (2 * 0.7**2)),
                          (f"{plugins}:elu1(T=0.7)", "1/3", lambda x: np.where(x > 0, x / 0.7 + 1, np.exp(x / 0.7)))):
        r = _json("--normalizer", spec, "--half-width", half)["results"]
        x = np.linspace(-float(sp.Rational(half)), float(sp.Rational(half)), 200_001)
        values = F(x)
        for key, want in (("m", values.min()), ("M", values.max()), ("C1", values.min() / values.max())):
            assert not r[key].get("undecided") and not _expr(r, key).free_symbols, (spec, key, r[key])
            assert float(_expr(r, key)) == pytest.approx(want, rel=1e-9), (spec, half, key)
        assert f"[-{sp.Rational(half)}, {sp.Rational(half)}]" in r["m"]["note"]
    # the symbol a leaves 1 + l + l^2 undecided (its critical point -1/2 is inside for a >= 1/2 only), and says
    # how to give a number; until stop 51 the example was cosh, which the symbol a now decides (cosh a >= 1)
    r = _json("--normalizer", f"{plugins}:skew_quad")["results"]
    assert r["m"]["undecided"] is True and "--half-width A" in r["m"]["note"]
    r = _json("--normalizer", f"{plugins}:skew_quad(T=1)", "--half-width", "2")["results"]
    x = np.linspace(-2, 2, 400_001)
    assert float(_expr(r, "m")) == pytest.approx((1 + x + x**2).min(), rel=1e-9)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--normalizer", "softmax", "--half-width", "-1"], "--half-width: must be a number > 0, got '-1'"),
    (["--normalizer", "softmax", "--half-width", "0"], "--half-width: must be a number > 0"),
    (["--normalizer", "softmax", "--half-width", "two"], "--half-width: expected a number"),
    (["--normalizer", "softmax", "--half-width", "nan"], "--half-width: expected a number"),
    (["--normalizer", "softmax", "--half-width", "3/0"], "--half-width: expected a number"),  # trial 51: a traceback
    (["L1-constants", "--half-width", "2"], "--half-width: only with --normalizer SPEC"),
])
def test_half_width_errors_name_it(args, fragment):
    _error(_run(*args), fragment)


def test_an_interrupted_derive_does_not_promise_to_resume(monkeypatch):
    """Trial 50: a derive stopped by a signal said "rerun the same command to resume from what was
    saved", but derive saves nothing (only check and reproduce do)."""
    import attnbounds.cli.derive as derive_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(derive_module, "normalizer_derivation", interrupted)
    out = CliRunner().invoke(main, ["derive", "--normalizer", "softmax"])
    assert out.exit_code == 130, out.output
    assert out.stderr.strip() == "Interrupted."


def test_an_interrupted_reproduce_still_points_to_its_saved_work(monkeypatch, tmp_path):
    # the other side of the test above: reproduce keeps its finished windows, so it says how to resume
    from attnbounds.empirical import store

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "check_output_dir", interrupted)
    out = CliRunner().invoke(main, ["reproduce", "--model", "gpt2-random", "--text", "x.txt", "--out", str(tmp_path / "o")])
    assert out.exit_code == 130, out.output
    assert out.stderr.strip() == "Interrupted (rerun the same command to resume from what was saved)."


def test_at_a_set_temperature_the_unit_form_is_solved(plugins, monkeypatch):
    """Stop 50's lead: 1 + e^{-l^2} at T = 0.7 is 1 + e^{-100 l^2/49}, on which SymPy's solveset ran
    past 300 s. F(l) = F_1(l/T), so at a set T derive solves F_1's problems (g of 1 + e^{-l^2},
    [-A/T, A/T]) and scales: G = G_1/T, points T times F_1's."""
    import attnbounds.theory.normalization as thn

    seen = []
    real = thn.real_line_extremes

    def recording(f, *args, **kwargs):
        seen.append(f)
        assert not f.has(sp.Rational(100, 49)), f  # at once: the old route took minutes here
        return real(f, *args, **kwargs)

    monkeypatch.setattr(thn, "real_line_extremes", recording)
    r = _json("--normalizer", f"{plugins}:gauss1(T=0.7)", "--half-width", "2")["results"]
    g1 = sp.diff(sp.log(1 + sp.exp(-l**2)), l)  # (F_1 itself is asked too: is it positive on the real line?)
    assert any(sp.simplify(f - g1) == 0 for f in seen), seen
    x = np.linspace(-2, 2, 400_001)
    values = 1 + np.exp(-(x / 0.7) ** 2)
    assert float(_expr(r, "m")) == pytest.approx(values.min(), rel=1e-12)
    assert float(_expr(r, "M")) == pytest.approx(values.max(), rel=1e-12)
    assert r["G"]["undecided"] is True and "timed_out" not in r["G"]  # no finite set of critical points
    # a decided G at a set T is G_1/T, attained at T times F_1's point (quad: G_1 = 1 at l = 1)
    r = _json("--normalizer", f"{plugins}:quad(T=0.7)")["results"]
    assert _expr(r, "G") == sp.Rational(10, 7) and r["G"]["maximizer"] == {"l": "7/10"}
    grid = np.linspace(-50, 50, 1_000_001)
    g = 2 * (grid / 0.7) / (0.7 * (1 + (grid / 0.7) ** 2))
    assert np.abs(g).max() == pytest.approx(10 / 7, rel=1e-9)


def test_time_limit_cuts_each_exact_routine_and_says_so(plugins, monkeypatch):
    """SymPy's solvers have no budget; --time-limit S is a safety net per routine (Lemma 1's m and M,
    Lemma 2's G). A routine cut short is undecided, with TIME LIMIT in its note and "timed_out";
    the other routine is untouched."""
    import time

    import attnbounds.cli.derive as derive_module

    def slow(*args):
        time.sleep(60)

    monkeypatch.setattr(derive_module, "_lemma1_constants", slow)
    started = time.monotonic()  # the limit is for each routine: the one not patched must finish within it
    r = _json("--normalizer", f"{plugins}:quad", "--time-limit", "4")["results"]
    assert time.monotonic() - started < 25  # cut short, not slept through
    for key in ("m", "M", "C1", "C2"):
        assert r[key]["undecided"] is True and r[key]["timed_out"] is True, (key, r[key])
    assert "TIME LIMIT" in r["m"]["note"] and "4 s (--time-limit)" in r["m"]["note"]
    assert _expr(r, "G") == 1 / T and "timed_out" not in r["G"]
    monkeypatch.undo()
    monkeypatch.setattr(derive_module, "_log_derivative_sup", slow)
    r = _json("--normalizer", f"{plugins}:quad", "--time-limit", "4")["results"]
    assert _expr(r, "M") == 1 + a**2 / T**2 and "timed_out" not in r["M"]
    assert r["G"]["undecided"] is True and r["G"]["timed_out"] is True and "TIME LIMIT" in r["G"]["note"]
    for key in ("entry", "row", "spectral", "frobenius"):  # written in G, marked as G is
        assert r[key]["undecided"] is True and r[key]["timed_out"] is True and _expr(r, key).has(G)
    assert "timed_out" not in r["g"] and _expr(r, "g") == 2 * l / (T**2 + l**2)  # simplified within the limit
    monkeypatch.setattr(derive_module, "_simplified_log_derivative", slow)  # under the limit too: printed unsimplified
    r = _json("--normalizer", f"{plugins}:quad", "--time-limit", "4")["results"]
    assert r["g"]["timed_out"] is True and "not simplified: TIME LIMIT" in r["g"]["note"]
    assert _same(_expr(r, "g"), 2 * l / (T**2 + l**2))
    text = _run("--normalizer", f"{plugins}:quad", "--time-limit", "4").output
    assert "G = undecided" in text and "TIME LIMIT" in text


@pytest.mark.parametrize(("args", "fragment"), [
    (["--normalizer", "softmax", "--time-limit", "nan"], "--time-limit: must be a finite number of seconds"),
    (["--normalizer", "softmax", "--time-limit", "inf"], "--time-limit: must be a finite number of seconds"),
    (["--normalizer", "softmax", "--time-limit", "-1"], "'--time-limit'"),
    (["--normalizer", "softmax", "--time-limit", "soon"], "'--time-limit'"),
    (["L1-constants", "--time-limit", "60"], "--time-limit: only with --normalizer SPEC"),
])
def test_time_limit_errors_name_it(args, fragment):
    out = _run(*args)
    assert out.exit_code == 2 and fragment in out.output, out.output


def test_derive_and_check_take_g_from_the_same_routine(plugins):
    """Trial 51: for 2 + sin l, check got G = 1/sqrt(3) from SymPy's maximum and minimum, while derive
    printed G undecided; the docs said they share one routine. Now both use log_derivative_extremes
    (its SymPy route cross-checked on a grid), and agree with a fine grid."""
    from attnbounds.claims.lemma2 import ratio_log_derivative_sup

    r = _json("--normalizer", f"{plugins}:wiggle(T=0.7)")["results"]
    assert _same(_expr(r, "G"), 10 * sp.sqrt(3) / 21) and "checked on a grid" in r["G"]["note"]
    x = np.linspace(-10, 10, 2_000_001)
    assert np.abs(np.cos(x) / (2 + np.sin(x))).max() == pytest.approx(1 / np.sqrt(3), rel=1e-9)
    from attnbounds.numerics import normalizers as nz

    nz.register("wiggle", nz.resolve(f"{plugins}:wiggle", flag="--normalizer"))  # as check poses it
    try:
        assert ratio_log_derivative_sup("wiggle", 0.7, 3) == pytest.approx(float(_expr(r, "G")), rel=1e-12)
    finally:
        nz.unregister("wiggle")


def test_sympy_running_out_of_recursion_is_undecided_not_a_crash(plugins, monkeypatch):
    """Trial 51: --half-width 1e300 made SymPy raise RecursionError, and derive exited 1 with it. The
    routine is undecided now, saying why; nothing was timed out."""
    import attnbounds.cli.derive as derive_module

    def deep(*args):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(derive_module, "_lemma1_constants", deep)
    r = _json("--normalizer", f"{plugins}:quad")["results"]
    assert r["m"]["undecided"] is True and "RecursionError" in r["m"]["note"] and "timed_out" not in r["m"]
    assert _expr(r, "G") == 1 / T


def test_trial_51_a_negative_f_and_a_step_f_say_what_they_are(plugins):
    """Trial 51: F = 3 + l^3 - 3l (negative for l < -2.1) got G = oo, and its error at --half-width 10
    named the range [-a, a]; a step F printed g = 0 without a word."""
    r = _json("--normalizer", f"{plugins}:cubic")["results"]
    assert r["G"]["undecided"] is True and "F is not positive on the real line" in r["G"]["note"]
    assert "timed_out" not in r["G"] and all(r[k]["undecided"] is True for k in ("entry", "spectral"))
    r = _json("--normalizer", f"{plugins}:cubic(T=1)", "--half-width", "1")["results"]  # positive on [-1, 1]
    x = np.linspace(-1, 1, 200_001)
    assert float(_expr(r, "m")) == pytest.approx((3 + x**3 - 3 * x).min(), rel=1e-12)
    _error(_run("--normalizer", f"{plugins}:cubic(T=1)", "--half-width", "10"),
           "F: must be positive on [-10, 10]; its minimum is -967")
    r = _json("--normalizer", f"{plugins}:step")["results"]
    assert _expr(r, "g") == 0 and "F is not shown continuous on the real line" in r["g"]["note"]
    assert "not shown continuous" not in _json("--normalizer", f"{plugins}:quad")["results"]["g"]["note"]


def test_review_51_sympys_route_gives_no_infinite_g_where_f_may_vanish_and_an_exact_max_where_unordered(
        plugins, monkeypatch):
    """Review 51: F = 1 + sin l (zero at -pi/2) got G = oo from SymPy's minimum and maximum, as its
    positivity is undecided; now undecided. And where SymPy's extremes come unordered (e^{cos^3 l}:
    m = -M, written with I; 70 s, so mimicked here), G is their exact Max, not undecided."""
    import attnbounds.theory.normalization as thn

    r = _json("--normalizer", f"{plugins}:sinpos(T=1)")["results"]
    assert r["G"]["undecided"] is True and "timed_out" not in r["G"]
    one = sp.sin(1) ** 2 + sp.cos(1) ** 2  # 1, which SymPy does not order against 1
    monkeypatch.setattr(thn, "log_derivative_extremes", lambda g, variable: thn.NormalizerConstants(
        -one, sp.S.One, None, None, "SymPy's minimum and maximum over the reals"))
    r = _json("--normalizer", f"{plugins}:quad(T=1)")["results"]  # its g = 2l/(1 + l^2) lies in [-1, 1]
    assert _expr(r, "G") == sp.Max(1, one) and float(_expr(r, "G")) == 1.0
    assert "no point given" in r["G"]["note"]
