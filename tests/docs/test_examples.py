"""The tutorial code in docs/examples/ works, and its checks can fail."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bound():
    return _load("check_your_bound")


@pytest.fixture(scope="module")
def variant():
    return _load("test_your_variant")


# --------------------------------------------------------------------- check_your_bound


def test_bound_tutorial_verdicts(bound, capsys):
    rows = {row["reading"]: row for row in bound.main()}
    assert set(rows) == {"transcribed", "reconstructed"}
    assert rows["reconstructed"]["verdict"] == "proved"
    assert rows["reconstructed"]["conflict"] is None
    transcribed = rows["transcribed"]
    assert transcribed["verdict"] == "falsified"
    cx = transcribed["counterexample"]
    w = np.asarray(cx["instance"]["weights"], dtype=float)
    # The counterexample is genuine: recompute both sides from the instance.
    assert np.isclose(w.sum(), 1.0) and (w >= 0).all()
    assert np.max(w * (1 - w)) > 1 / w.size
    assert cx["lhs"] > cx["rhs"]
    # 1/L >= 1/4 >= α(1 − α) for L <= 4, so any counterexample has at least 5 weights.
    assert w.size >= 5
    assert "VAR:transcribed" in capsys.readouterr().out


def test_bound_tutorial_sides_on_batches(bound):
    batch = bound.weight_batches(np.random.default_rng(1), 50)
    sides = bound.quarter_sides(batch)
    assert sides.lhs.shape == (50,) and sides.rhs.shape == (50,)
    assert np.all(sides.lhs <= 0.25 + 1e-15)
    assert bound.is_distribution(batch).all()
    # The transcription fails on the uniform-on-two-tokens pattern once L >= 5.
    w = np.array([0.5, 0.5, 0.0, 0.0, 0.0])
    s = bound.one_over_length_sides({"weights": w})
    assert s.lhs == 0.25 and s.rhs == 0.2


def test_bound_tutorial_proof_is_exact(bound):
    proof = bound.prove_quarter()
    assert proof.status is True and proof.checked == proof.steps == 2
    assert proof.rules == ("identity", "algebra")


# --------------------------------------------------------------------- test_your_variant


@pytest.mark.parametrize(
    "name",
    [
        "test_outputs_are_distributions",
        "test_jacobian_matches_finite_differences",
        "test_agrees_with_softmax_at_temperature",
        "test_large_batches_built_from_a_seed",
        "test_distance_bound_holds_for_the_variant",
    ],
)
def test_variant_properties_pass(variant, name):
    getattr(variant, name)()  # runs the Hypothesis property


def test_variant_checks_catch_a_wrong_jacobian(variant):
    z = np.array([0.3, -1.0, 2.0, 0.5])
    # Missing the factor c = s·log L: a plausible bug.
    def wrong(l):
        alpha = variant.scalable_softmax(l, 0.4)
        return np.diag(alpha) - np.outer(alpha, alpha)

    with pytest.raises(AssertionError):
        variant.assert_jacobian_matches(lambda l: variant.scalable_softmax(l, 0.4), wrong, z)
    variant.assert_jacobian_matches(
        lambda l: variant.scalable_softmax(l, 0.4), lambda l: variant.scalable_softmax_jacobian(l, 0.4), z
    )


def test_variant_checks_catch_an_unnormalized_output(variant):
    z = np.array([0.3, -1.0, 2.0])
    with pytest.raises(AssertionError):
        variant.assert_is_distribution(np.exp(z))  # forgot to divide by the sum
    with pytest.raises(AssertionError):
        variant.assert_is_distribution(np.array([1.2, -0.2]))  # sums to 1, negative entry


def test_variant_distance_check_catches_unnormalized_weights(variant):
    # Weights that do not sum to 1 (α = (1, 1)) break the bound: d̃ = 2 > B = 1. The check must
    # not pass them (the numerics kernels reject them before the comparison).
    with pytest.raises((AssertionError, ValueError)):
        variant.assert_distance_bound(np.array([1.0, 1.0]), np.array([[1.0], [-1.0]]), 1)
    variant.assert_distance_bound(np.array([0.5, 0.5]), np.array([[1.0], [-1.0]]), 1)  # d̃ = B: holds


def test_variant_is_length_aware(variant):
    # SSMax depends on L: the same top logit gap gives more mass as L grows (softmax does not).
    small = variant.scalable_softmax(np.array([1.0, 0.0]), 1.0)[0]
    large = variant.scalable_softmax(np.r_[1.0, np.zeros(63)], 1.0)[0]
    assert np.isclose(small, 2 / 3)  # softmax(log 2 · (1, 0)) = (2/3, 1/3)
    assert np.isclose(large, 64 / (64 + 63))  # e^{log 64} / (e^{log 64} + 63)


def test_every_example_is_linked_from_a_doc_page():
    """A user finds each example file from the docs, not only by browsing the repository."""
    docs = EXAMPLES.parent
    pages = [p.read_text() for p in docs.rglob("*.md") if "_build" not in p.parts]
    unlinked = [f.name for f in sorted(EXAMPLES.glob("*.py")) if not any(f"examples/{f.name}" in t for t in pages)]
    assert not unlinked, f"docs/examples files no page links to: {unlinked}"


# --------------------------------------------------------------------- max_ge_mean (proof-rules.md)


def test_max_ge_mean_proof_checks_and_needs_its_hypothesis():
    import sympy as sp

    from attnbounds.theory.proof import Context

    example = _load("max_ge_mean")
    p = example.proof()
    assert p.status is True and p.checked == p.steps == 4
    assert not example.chain(Context({})).complete  # without sum a_k = 1 the first step is refused
    wrong = example.chain(Context({"sum1": sp.Eq(example.S, 2)}))  # then 1/L = 2/L is false
    assert not wrong.complete


# --------------------------------------------------------------------- uniform_token (my_claim.md, bind)


def test_uniform_token_readings_are_proved_and_tied_and_a_wrong_space_unties():
    import dataclasses

    from attnbounds.claims.base import SPACE
    from attnbounds.engine import Budget, judge_reading
    from attnbounds.engine.tie import tie

    example = _load("uniform_token")
    small = Budget(examples=20, sweep=300, mc_samples=100, audit=50)
    for reading in example.CLAIM.readings:
        row = judge_reading(example.CLAIM, reading, budget=small)
        assert row["verdict"] == "proved" and row["proof"]["tie"]["status"] == "tied", row["evidence"]
    mean = example.CLAIM.reading("reconstructed")

    def skewed(instance):  # U drawn with the first token twice as likely: E[w_U] is no longer the sides'
        b = example.mean_bind(instance)
        p = b[SPACE].copy()
        p[0] *= 2
        return {**b, SPACE: p / p.sum()}

    got = tie(dataclasses.replace(mean, bind=skewed), mean.symbolic())
    assert got["status"] == "untied"


# --------------------------------------------------------------------- random_signs (my_claim.md, witness)


def test_random_signs_readings_are_proved_and_tied_and_a_dependent_witness_unties():
    """The WeightedNorm example: both readings proved and tied with the fact's witness; signs that
    are not independent (X_2 = X_1 in the witness), or a witness left out, do not tie."""
    import dataclasses

    from attnbounds.claims.base import WITNESSES
    from attnbounds.engine import Budget, judge_reading
    from attnbounds.engine.tie import tie

    example = _load("random_signs")
    small = Budget(examples=20, sweep=300, mc_samples=100, audit=50)
    for reading in example.CLAIM.readings:
        row = judge_reading(example.CLAIM, reading, budget=small)
        assert row["verdict"] == "proved" and row["proof"]["tie"]["status"] == "tied", row["evidence"]
        assert row["proof"]["tie"]["hypotheses"] == ["signs"]
    mean = example.CLAIM.reading("transcribed")

    def dependent(instance):
        b = example.bind(instance)
        w, X = b[WITNESSES]["signs"]
        return {**b, WITNESSES: {"signs": (w, np.repeat(X[:1], len(w), axis=0))}}

    keep = dataclasses.replace(mean, sweep=lambda rng, n: {"weights": np.array([[0.5, 0.25, 0.25]] * n)})
    got = tie(dataclasses.replace(keep, bind=dependent), mean.symbolic())
    assert got["status"] == "untied" and "not independent" in got["detail"], got
    bare = dataclasses.replace(keep, bind=lambda i: {k: v for k, v in example.bind(i).items() if k != WITNESSES})
    assert tie(bare, mean.symbolic())["status"] == "not evaluable"
