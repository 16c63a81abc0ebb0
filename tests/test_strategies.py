"""attnbounds.strategies: every strategy draws valid values and rejects bad arguments by name."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from attnbounds.numerics.attention import softmax
from attnbounds.strategies import (
    EMBEDDING_KINDS,
    attention_configs,
    embeddings,
    logits,
    normalizer_families,
    rng_arrays,
    seeds,
    simplex_points,
    temperatures,
)


@given(logits(min_size=2, max_size=5, min_value=-3.0, max_value=4.0))
def test_logits_shape_dtype_bounds(z):
    assert z.dtype == np.float64 and z.ndim == 1 and 2 <= z.size <= 5
    assert np.all((z >= -3.0) & (z <= 4.0))


@given(logits(max_size=6, allow_ties=False))
def test_logits_without_ties_are_distinct(z):
    assert len(set(z.tolist())) == z.size


def test_logits_cover_ties_and_extremes():
    seen = {"tie": False, "max": False, "min": False}

    @settings(max_examples=200, database=None)
    @given(logits(min_size=3, max_size=6))
    def run(z):
        seen["tie"] |= len(set(z.tolist())) < z.size
        seen["max"] |= 10.0 in z
        seen["min"] |= -10.0 in z

    run()
    assert all(seen.values()), seen


@given(temperatures())
def test_temperatures_in_range(T):
    assert isinstance(T, float) and 1e-3 <= T <= 1e3


def test_temperatures_cover_decades():
    decades = set()

    @settings(max_examples=300, database=None)
    @given(temperatures(1e-3, 1e3))
    def run(T):
        decades.add(math.floor(math.log10(T)))

    run()
    assert len(decades) >= 5, decades


@pytest.mark.parametrize(("bounds", "nearest_one"), [((1e-3, 1e3), 1.0), ((2.0, 50.0), 2.0), ((1e-3, 0.5), 0.5)])
def test_temperatures_shrink_toward_one(bounds, nearest_one):
    # a property false at every T: the minimal example is the neutral temperature, or the end nearer 1
    assert find(temperatures(*bounds), lambda T: True, settings=settings(database=None)) == nearest_one


@given(simplex_points(max_size=7))
def test_simplex_points_are_distributions(w):
    assert w.ndim == 1 and 1 <= w.size <= 7
    assert np.all(w >= 0)
    assert abs(w.sum() - 1.0) <= 1e-12


@pytest.mark.parametrize("kind", ["one_hot", "uniform", "two_point", "random"])
def test_simplex_kinds(kind):
    @settings(max_examples=25, database=None)
    @given(simplex_points(min_size=2, max_size=5, kinds=(kind,)))
    def run(w):
        if kind == "one_hot":
            assert sorted(w.tolist())[-1] == 1.0 and np.count_nonzero(w) == 1
        elif kind == "uniform":
            np.testing.assert_allclose(w, 1.0 / w.size)
        elif kind == "two_point":
            assert np.count_nonzero(w) <= 2
        assert abs(w.sum() - 1.0) <= 1e-12

    run()


@pytest.mark.parametrize("kind", EMBEDDING_KINDS)
def test_embedding_kinds(kind):
    @settings(max_examples=20, database=None)
    @given(embeddings(st.integers(1, 5), st.integers(1, 3), kind=kind, radius=2.0))
    def run(x):
        assert x.ndim == 2 and 1 <= x.shape[0] <= 5 and 1 <= x.shape[1] <= 3
        assert np.all(np.isfinite(x))
        norms = np.linalg.norm(x, axis=1)
        if kind in ("sphere", "antipodal"):
            np.testing.assert_allclose(norms, 2.0, rtol=1e-12)
        if kind == "antipodal" and x.shape[0] > 1:
            np.testing.assert_allclose(x[1], -x[0])
        if kind in ("collinear", "antipodal"):
            assert np.linalg.matrix_rank(x, tol=1e-9) <= 1
        if kind in ("collinear", "box"):
            assert np.all(norms <= 2.0 * math.sqrt(x.shape[1]) + 1e-12)

    run()


@pytest.mark.parametrize("kind", EMBEDDING_KINDS)
def test_large_embeddings_are_built_from_a_seed(kind):
    @settings(max_examples=10, database=None)
    @given(embeddings(20, 8, kind=kind))
    def run(x):
        assert x.shape == (20, 8) and np.all(np.isfinite(x))
        if kind in ("sphere", "antipodal"):
            np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, rtol=1e-12)
        if kind in ("antipodal", "collinear"):
            assert np.linalg.matrix_rank(x, tol=1e-9) <= 1

    run()


@given(attention_configs())
def test_attention_configs_are_consistent(cfg):
    assert set(cfg) == {"logits", "T", "weights", "x", "n"}
    L = cfg["logits"].size
    assert 2 <= L <= 8
    assert cfg["x"].shape[0] == L and 1 <= cfg["x"].shape[1] <= 4
    assert 1 <= cfg["n"] <= L - 1
    np.testing.assert_array_equal(cfg["weights"], softmax(cfg["logits"], cfg["T"]))


@given(seeds())
def test_seeds_are_valid_numpy_seeds(s):
    np.random.default_rng(s)
    assert 0 <= s < 2**32


@given(rng_arrays((4, 3), distribution="sphere", scale=3.0), rng_arrays((2, 5), distribution="simplex"))
def test_rng_arrays(x, w):
    np.testing.assert_allclose(np.linalg.norm(x, axis=-1), 3.0)
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


@settings(max_examples=30)
@given(normalizer_families(), st.floats(-5, 5))
def test_normalizer_families_are_positive_and_consistent(fam, v):
    from attnbounds.numerics.normalizers import LOGIT as l

    F = sp.lambdify(l, fam.expr, "math")
    dF = sp.lambdify(l, sp.diff(fam.expr, l), "math")
    assert fam.F(np.array([v]))[0] > 0
    assert fam.F(np.array([v]))[0] == pytest.approx(F(v), rel=1e-12)
    assert fam.dF(np.array([v]))[0] == pytest.approx(dF(v), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: logits(min_size=0), "min_size"),
        (lambda: logits(min_size=1.5), "min_size"),
        (lambda: logits(min_size=5, max_size=3), "max_size"),
        (lambda: logits(max_size=1000), "max_size"),
        (lambda: logits(min_value=float("nan")), "min_value"),
        (lambda: logits(max_value=float("inf")), "max_value"),
        (lambda: logits(min_value=1.0, max_value=0.0), "max_value"),
        (lambda: logits(allow_ties="yes"), "allow_ties"),
        (lambda: logits(min_size=2, min_value=1.0, max_value=1.0, allow_ties=False), "allow_ties"),
        # min_size 1 but max_size 3: only length 1 could be drawn, which once happened silently
        (lambda: logits(max_size=3, min_value=1.0, max_value=1.0, allow_ties=False), "allow_ties"),
        (lambda: temperatures(min_value=0.0), "min_value"),
        (lambda: temperatures(min_value=-1.0), "min_value"),
        (lambda: temperatures(min_value=2.0, max_value=1.0), "max_value"),
        (lambda: simplex_points(kinds=()), "kinds"),
        (lambda: simplex_points(kinds=("dirichlet",)), "kinds"),
        (lambda: simplex_points(min_size=0), "min_size"),
        (lambda: embeddings(0, 2), "n_tokens"),
        (lambda: embeddings(2, 0), "dim"),
        (lambda: embeddings(2, 2, kind="ball"), "kind"),
        (lambda: embeddings(2, 2, radius=0), "radius"),
        (lambda: embeddings(2, 2, radius=True), "radius"),
        (lambda: attention_configs(min_size=1), "min_size"),
        (lambda: attention_configs(min_dim=3, max_dim=2), "max_dim"),
        (lambda: attention_configs(min_temperature=0), "min_temperature"),
        (lambda: attention_configs(kinds=("x",)), "kinds"),
        (lambda: rng_arrays(()), "shape"),
        (lambda: rng_arrays((2, 0)), "shape"),
        (lambda: rng_arrays((2,), distribution="cauchy"), "distribution"),
        (lambda: rng_arrays((2,), scale=-1), "scale"),
        (lambda: normalizer_families(names=("relu",)), "names"),
        (lambda: attention_configs(normalizer="nosuch"), "normalizer"),
    ],
)
def test_invalid_arguments_name_the_argument(make, match):
    with pytest.raises(InvalidArgument, match=match):
        make()


def test_drawn_sizes_are_validated():
    @settings(max_examples=5, database=None)
    @given(embeddings(st.just(0), 2))
    def run(x):
        pass

    with pytest.raises(InvalidArgument, match="n_tokens"):
        run()


_l = sp.Symbol("l", real=True)


@settings(max_examples=20)
@given(attention_configs(normalizer="ssmax"))
def test_attention_configs_take_a_normalizer_of_your_own(cfg):
    from attnbounds.numerics.normalizers import get

    np.testing.assert_allclose(cfg["weights"], get("ssmax").weights(cfg["logits"], T=cfg["T"]))


def test_the_normalizer_chosen_is_not_softmax_in_disguise():
    # (so the test above tells the two apart: ssmax scales the logits by log n)
    from attnbounds.numerics.normalizers import get

    z = np.array([0.0, 1.0, 2.0])
    assert not np.allclose(get("ssmax").weights(z, T=1.0), softmax(z, 1.0))


def test_normalizer_families_take_a_ratio_form_normalizer_of_your_own():
    from attnbounds.numerics.normalizers import from_callable, from_sympy

    capped = from_sympy(sp.exp(sp.Min(_l, 3)), _l, name="capped", roles=("attention", "family"))
    assert capped.roles == {"attention", "family"}
    drawn = set()

    @settings(max_examples=30)
    @given(normalizer_families([capped, "softmax"]))
    def draw(fam):
        drawn.add(fam.name)

    draw()
    assert "capped" in drawn
    with pytest.raises(InvalidArgument, match="no ratio form"):
        normalizer_families([from_callable(lambda z: np.full_like(z, 1 / z.shape[-1]), name="flat")])


@pytest.mark.parametrize("roles", ["nope", (), ("attention", "family", "other")])
def test_from_sympy_names_a_bad_roles_argument(roles):
    from attnbounds.numerics.normalizers import from_sympy

    with pytest.raises(ValueError, match="roles: must be a non-empty subset"):
        from_sympy(sp.exp(_l), _l, roles=roles)


def test_normalizer_families_names_a_registered_normalizer_with_no_ratio_form():
    """sparsemax is registered, not unknown: the error says why it is not a family."""
    with pytest.raises(InvalidArgument, match=r"'sparsemax' is a registered normalizer but not a ratio-form family"):
        normalizer_families(["sparsemax"])
