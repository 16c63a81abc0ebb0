"""Defects found by new-user trial 48 in attnbounds.numerics.normalizers (and what uses it)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings

from attnbounds import engine
from attnbounds.numerics import normalizers as nz
from attnbounds.strategies import normalizer_families

# ----------------------------------------------------------- from_sympy: positivity of F itself


@pytest.mark.parametrize("real", [True, False])
def test_from_sympy_accepts_a_square_that_is_positive_everywhere(real):
    # a forced expand_log rewrote log((sin l − 2)²) as 2·log(sin l − 2): NaN everywhere
    l = sp.Symbol("l", real=True) if real else sp.Symbol("l")
    F = (sp.sin(l) - 2) ** 2
    N = nz.from_sympy(F, l, name="sinsq")
    z = np.array([0.0, 1.0, -2.5, 40.0])
    f = (np.sin(z) - 2) ** 2
    np.testing.assert_allclose(N.weights(z), f / f.sum(), rtol=1e-12)
    fd = nz.finite_difference_jacobian(N.weights, z[:3])
    np.testing.assert_allclose(N.jacobian(z[:3]), fd, atol=1e-7)


def test_from_sympy_square_of_the_logit_is_positive_off_zero_and_refused_at_zero():
    l = sp.Symbol("l", real=True)
    N = nz.from_sympy(l**2, l, name="sq")
    np.testing.assert_allclose(N.weights([-1.0, 2.0]), [0.2, 0.8])  # F(−1) = 1 > 0
    with pytest.raises(nz.PluginError, match=r"F\(l/T = 0\) = 0"):  # the value of F itself
        N.weights([0.0, 1.0])


def test_from_sympy_parameters_are_not_assumed_positive():
    # log((b·l)²) is not 2·log(b·l) for b < 0 or l < 0
    l, b = sp.symbols("l b", real=True)
    N = nz.from_sympy((b * l) ** 2 + 1, l, name="quad_b", b=-2.0)
    z = np.array([-1.0, 0.5, 3.0])
    f = (2 * z) ** 2 + 1
    np.testing.assert_allclose(N.weights(z), f / f.sum(), rtol=1e-12)


def test_from_sympy_keeps_its_stable_forms_and_its_refusals():
    l = sp.Symbol("l", real=True)
    # log(e^l + …) overflows float64 at l = 800 and is recomputed in mpmath, not refused
    N = nz.from_sympy(sp.exp(l) + (1 + l**2) ** 2, l, name="poly")
    np.testing.assert_allclose(N.weights([800.0, 0.0]), [1.0, 0.0], atol=1e-300)
    # F(0) = −1: refused, naming the value of F
    with pytest.raises(nz.PluginError, match=r"F must be positive and finite, but F\(l/T = 0\) = -1"):
        nz.from_sympy(l - 1, l, name="neg").weights([0.0, 3.0])


# ----------------------------------------------------------- a plug-in's spec resolves again


@pytest.fixture()
def plugin_file(tmp_path, monkeypatch):
    (tmp_path / "trial48_norms.py").write_text(textwrap.dedent('''
        import numpy as np
        import sympy as sp
        from attnbounds.numerics import normalizers

        def softmax1(z):
            m = np.maximum(z.max(axis=-1, keepdims=True), 0.0)
            e = np.exp(z - m)
            return e / (np.exp(-m) + e.sum(axis=-1, keepdims=True))

        softmax_plus_one = normalizers.from_callable(softmax1, name="softmax1", sums_to_one=False)
        l, beta = sp.symbols("l beta", real=True)
        learned_temp = normalizers.from_sympy(sp.exp(beta * l), l, name="learned_temp", beta=1.7)
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("spec", ["trial48_norms:softmax_plus_one", "trial48_norms:learned_temp",
                                  "trial48_norms:learned_temp(beta=3.0)", "trial48_norms.py:learned_temp(beta=3.0)"])
def test_a_plugins_spec_resolves_through_get(plugin_file, spec):
    N = nz.get(spec)
    again = nz.get(N.spec)
    assert N.spec.startswith(spec.split("(")[0]) and again.spec == N.spec
    assert again.params == N.params
    z = np.array([[0.5, -1.0, 2.0]])
    np.testing.assert_allclose(again.weights(z), N.weights(z))


def test_a_registered_plugin_is_named_by_its_registered_name(plugin_file):
    N = nz.register("trial48_lt", nz.get("trial48_norms:learned_temp"))
    try:
        assert N.spec == "trial48_lt" and nz.get("trial48_lt").spec == "trial48_lt"
    finally:
        nz.unregister("trial48_lt")


def test_a_plugin_rows_normalizer_replays_its_counterexample(plugin_file):
    """The row (and the counterexample's instance) record a spec that normalizers.get resolves."""
    rows = engine.check(["L1:reconstructed"], quick=True, normalizer="trial48_norms:learned_temp(beta=3.0)")
    row = rows[0]
    assert row.normalizer == "trial48_norms:learned_temp(beta=3.0)"
    N = nz.get(row.normalizer)
    assert N.name == "learned_temp" and N.params["beta"] == 3.0
    rows = engine.check(["L2:reconstructed"], quick=True, normalizer="trial48_norms:softmax_plus_one")
    assert nz.get(rows[0].normalizer).name == "softmax1"
    cx = rows[0].counterexample
    if cx is not None and "normalizer" in cx["instance"]:
        assert nz.get(cx["instance"]["normalizer"]).name == "softmax1"


# ----------------------------------------------------------- engine.check names its argument


@pytest.mark.parametrize("bad, kind, text", [
    ("nonexistent_norm", nz.NormalizerNotFound, "normalizer: unknown normalizer 'nonexistent_norm'"),
    ("ssmax(s=x)", ValueError, "normalizer: parameter 's' must be a number"),
    ("no_such_module_48:x", nz.NormalizerNotFound, "normalizer: cannot import module"),
])
def test_engine_check_names_the_normalizer_argument(bad, kind, text):
    with pytest.raises(kind) as info:
        engine.check(["L2:reconstructed"], normalizer=bad)
    assert str(info.value).startswith(text) and "name_or_spec" not in str(info.value)


def test_for_argument_leaves_other_kinds_of_error_alone_and_names_the_argument_in_the_rest():
    with pytest.raises(KeyError, match="name_or_spec"):
        with nz.for_argument("normalizer"):
            raise KeyError("name_or_spec: not an error of get")
    # a parameter's error is about the normalizer passed too (review 48: "ssmax(s=-1)" said only
    # "s: must be > 0"), and says which argument it came in
    with pytest.raises(ValueError, match="^normalizer: something else$"):
        with nz.for_argument("normalizer"):
            raise ValueError("something else")
    with pytest.raises(ValueError, match="^normalizer: s: must be > 0"):
        with nz.for_argument("normalizer"):
            nz.get("ssmax(s=-1)")
    with pytest.raises(ValueError, match="^normalizer: already named$"):  # not named twice
        with nz.for_argument("normalizer"):
            raise ValueError("normalizer: already named")


# ----------------------------------------------------------- normalizer_families: readable examples


def test_normalizer_repr_names_the_family_and_its_parameters():
    assert repr(nz.get("even_power", p=0.5)) == "Normalizer('even_power', p=0.5, T=1.0)"
    assert repr(nz.get("softmax", T=2.0)) == "Normalizer('softmax', T=2.0)"
    assert repr(nz.get("ssmax")) == "Normalizer('ssmax', s=1.0, T=1.0)"  # n=None (the row length) left out


def test_a_failing_normalizer_families_example_names_the_family(capsys):
    @settings(max_examples=200, database=None, derandomize=True)
    @given(F=normalizer_families())
    def fails_for_even_power_half(F):
        assert not (F.name == "even_power" and F.params["p"] == 0.5)

    with pytest.raises(AssertionError) as info:
        fails_for_even_power_half()
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "F=Normalizer('even_power', p=0.5, T=1.0)" in notes, notes
    assert "with_params" not in notes
