"""A certificate ties to a reading through its ``locate`` and ``domain``: `certified` only when the
certificate's box contains the reading's stated domain and, at the reading's instances, every
point lies in that domain and the certified f(x) - bound is the reading's lhs - rhs (trial 48: an
unrelated certificate made a reading `certified`; a reading stated for every x but drawn on
[-4, 4] was certified on [-4, 4])."""

import numpy as np
import pytest
from flint import arb
from hypothesis import strategies as st

from attnbounds import engine
from attnbounds.claims.base import Claim, Proof, Reading, Sides
from attnbounds.engine import Budget
from attnbounds.engine.mutants import run_mutants
from attnbounds.numerics.intervals import certify_between_on_grid, certify_upper_bound

SMALL = Budget(examples=30, sweep=2_000, mc_samples=100, audit=200)


def _x(i):
    return np.asarray(i["x"], dtype=float)


def _var_sides(i):  # x(1 - x) <= 1/4, attained at x = 1/2
    return Sides(_x(i) * (1 - _x(i)), 0.25 + 0 * _x(i))


def _upper():
    # attained: certified by concavity (f'' = -2 on the box)
    return certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4",
                               gradient=lambda x: [1 - 2 * x[0]], hessian=lambda x: [[arb(-2)]])


def _certify():
    cert = _upper()
    return Proof(cert.status, "arb: x(1 - x) <= 1/4 on [0, 1]", certificate=cert)


def _sweep(high):
    def sweep(rng, n):
        x = rng.uniform(0, high, n)
        x[:2] = (0.0, high)[:n]  # the ends: the tie needs the draws to spread over the domain
        return {"x": x}

    return sweep


def _reading(name="reconstructed", sides=_var_sides, high=1.0, **kw):
    args = dict(sides=sides, certify=_certify, locate=lambda i: [float(_x(i))], domain=[(0, high)],
                sweep=_sweep(high),
                strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, high)}))
    args.update(kw)
    return Reading(name, "x(1 - x) <= 1/4", "-", **args)


def _claim(*readings):
    names = {r.name for r in readings}
    extra = tuple(Reading(n, "no method", "-") for n in ("transcribed", "reconstructed") if n not in names)
    return Claim(id="CERT", title="toy", source="tests", statement="-", transcription="-", transcription_latex="-",
                 hypotheses=(), readings=tuple(readings) + extra, proof="toy")


def _row(reading):
    return engine.judge_reading(_claim(reading), reading, budget=SMALL, seed=0)


def test_a_certificate_tied_by_locate_is_certified():
    row = _row(_reading())
    assert row["verdict"] == "certified", row["evidence"]
    assert "tie tied" in row["evidence"], row["evidence"]
    assert "the box [0, 1] contains the reading's domain [0, 1]" in row["evidence"], row["evidence"]


def test_without_locate_a_certificate_is_named_in_a_holds():
    row = _row(_reading(locate=None, domain=None))
    assert row["verdict"] == "holds", row["evidence"]
    assert "not tied to the reading's domain and sides (no locate), so not certified" in row["evidence"]


def test_a_box_that_misses_the_readings_domain_is_not_certified():
    # the reading speaks of [0, 2] (where x(1 - x) <= 1/4 still holds); the box is [0, 1]
    row = _row(_reading(high=2.0))
    assert row["verdict"] == "holds" and row["conflict"] is None, row["evidence"]
    assert "tie uncovered" in row["evidence"], row["evidence"]


def test_a_domain_wider_than_what_is_drawn_is_not_certified():
    # trial 48: the statement is for every x >= 0; the sweep and strategy draw [0, 1] only, all inside
    # the box, yet the box does not contain the stated domain
    row = _row(_reading(domain=[(0, "oo")]))
    assert row["verdict"] == "holds" and row["conflict"] is None, row["evidence"]
    assert "tie uncovered" in row["evidence"] and "domain [0, oo) is not within the certificate's box [0, 1]" in \
        row["evidence"], row["evidence"]


def test_an_instance_outside_the_stated_domain_is_the_readings_error():
    # the sweep draws [0, 2] while the reading states [0, 1]: it draws outside its own statement
    row = _row(_reading(high=2.0, domain=[(0, 1)]))
    assert row["verdict"] == "undecided" and "the certificate's tie raised" in row["evidence"], row["evidence"]
    assert "outside its stated domain [0, 1]" in row["conflict"], row["conflict"]


def test_draws_that_miss_part_of_the_domain_tie_to_part_of_it_only():
    """Review 49: -|1 - x| <= 1/2 on [0, 2] is x - 1 on [0, 1]; a reading "x - 1 <= 1/2 on [0, 2]"
    (false beyond 3/2) whose sweep drew [0, 1] only was certified."""
    def certify():
        cert = certify_upper_bound(lambda x: -abs(1 - x[0]), [(0, 2)], "1/2")
        return Proof(cert.status, "arb", certificate=cert)

    false = _reading(sides=lambda i: Sides(_x(i) - 1, 0.5 + 0 * _x(i)), certify=certify, domain=[(0, 2)])
    row = _row(false)  # drawn on [0, 1]: no counterexample there, and the certificate's margin matches
    assert row["verdict"] == "holds", row["evidence"]
    assert "tie undersampled" in row["evidence"], row["evidence"]
    assert "reach coordinate 0 of the domain only from 0 to 1" in row["detail"]["certify"], row["detail"]["certify"]
    # a gap in the middle: draws near both ends of [0, 1], none between 0.1 and 0.9
    def gapped(rng, n):
        x = rng.uniform(0, 0.1, n)
        x[: n // 2] = rng.uniform(0.9, 1, n // 2)
        x[:2] = (0.0, 1.0)[:n]
        return {"x": x}

    ends = lambda: st.fixed_dictionaries({"x": st.floats(0, 0.1) | st.floats(0.9, 1)})  # noqa: E731
    row = _row(_reading(sweep=gapped, strategy=ends))
    assert row["verdict"] == "holds" and "tie undersampled" in row["evidence"], row["evidence"]
    assert "leave a gap from" in row["detail"]["certify"], row["detail"]["certify"]
    # without a strategy the numeric evidence falls short of holds: the row says which tie failed
    row = _row(_reading(sweep=gapped, strategy=None))
    assert row["verdict"] == "undecided" and "nothing ties the certificate to the reading (its tie is " \
        "undersampled" in row["evidence"], row["evidence"]


def test_a_float_drawn_at_a_decimal_end_is_inside():
    """Review 49: the float 0.1 is 1/10 + 5.6e-18, outside [0, 1/10]; it was a conflict."""
    def certify():
        cert = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, "1/10")], "1/4")
        return Proof(cert.status, "arb", certificate=cert)

    row = _row(_reading(certify=certify, domain=[(0, "1/10")], sweep=lambda rng, n: {"x": np.linspace(0, 0.1, n)},
                        strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, 0.1)})))
    assert row["verdict"] == "certified" and row["conflict"] is None, row["evidence"]
    # trial 49: a locate that computes rounds by more than two ulps; the reading's slack covers it
    row = _row(_reading(certify=certify, domain=[(0, "1/10")], sweep=lambda rng, n: {"x": np.linspace(0, 0.1, n)},
                        locate=lambda i: [float(_x(i)) * (1 + 4e-15)],
                        strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, 0.1)})))
    assert row["verdict"] == "certified" and row["conflict"] is None, row["evidence"]
    # further out than rounding is still the reading's error
    row = _row(_reading(certify=certify, domain=[(0, "1/10")], sweep=lambda rng, n: {"x": np.linspace(0, 0.1001, n)},
                        strategy=None))
    assert "outside its stated domain [0, 1/10]" in (row["conflict"] or ""), row["evidence"]


def test_a_domain_of_another_dimension_is_the_readings_error():
    row = _row(_reading(domain=[(0, 1), (0, 1)]))
    assert row["verdict"] == "undecided", row["evidence"]
    assert "domain: the reading's domain [0, 1] x [0, 1] has 2 coordinate(s)" in row["conflict"], row["conflict"]


def test_domain_ends_are_exact_or_unbounded():
    import sympy as sp
    from fractions import Fraction

    r = _reading(domain=[(-sp.oo, Fraction(1, 3))])
    assert r.domain == (("-oo", "1/3"),)
    assert _reading(domain=[(float("-inf"), "oo")]).domain == (("-oo", "oo"),)
    assert _reading(domain=[(0.1, 1)]).domain[0][0] == "3602879701896397/36028797018963968"  # 0.1's exact value
    for bad, message in (([(1, 0)], "coordinate 0 is empty"), ([("oo", "oo")], "coordinate 0 is empty"),
                         ([(0, "x")], "coordinate 0's end 'x' is neither an exact number"), ([(0, 1, 2)], "coordinate 0 must be a pair"),
                         ([], "needs at least one coordinate"), ("0,1", "expected a sequence of \\(lo, hi\\) pairs")):
        with pytest.raises((ValueError, TypeError), match=f"domain: {message}"):
            _reading(domain=bad)


def test_locate_and_domain_go_together():
    with pytest.raises(ValueError, match="locate and domain go together"):
        _reading(domain=None)
    with pytest.raises(ValueError, match="locate and domain go together"):
        _reading(locate=None)


def test_a_certificate_of_another_function_is_a_conflict():
    # x/4 <= 1/4 is true on [0, 1], but the certificate bounds x(1 - x), not x/4
    row = _row(_reading(sides=lambda i: Sides(_x(i) / 4, 0.25 + 0 * _x(i))))
    assert row["verdict"] == "undecided" and row["conflict"], row["evidence"]
    assert "the certificate is not of the reading's sides" in row["conflict"]


def test_a_grid_certificate_ties_to_nothing():
    def grid():
        status, cert = certify_between_on_grid(lambda z: [z[0] * (1 - z[0])], [(0, 1)], 64, "-1/100", "26/100")
        return Proof(status, "arb grid", certificate=cert)

    row = _row(_reading(certify=grid))
    assert row["verdict"] == "holds", row["evidence"]
    assert "tie not evaluable" in row["evidence"], row["evidence"]


def test_a_locate_that_raises_is_the_readings_error_and_a_conflict():
    def locate(i):
        raise RuntimeError("no point")

    row = _row(_reading(locate=locate))
    assert row["verdict"] == "undecided" and "the certificate's tie raised" in row["evidence"], row["evidence"]
    assert "locate raised at" in row["conflict"] and "no point" in row["conflict"], row["conflict"]


def test_sides_of_several_numbers_are_named_not_taken_for_locate():
    row = _row(_reading(sides=lambda i: Sides(np.stack([_x(i), _x(i)], -1) * (1 - _x(i))[..., None],
                                              np.full(np.shape(_x(i)) + (2,), 0.25))))
    assert "sides: gave 2 and 2 values at one instance" in (row["conflict"] or ""), row["evidence"]


def test_a_large_bound_buys_no_slack():
    # review 48: the slack was rtol * max(..., |bound|): a bound of 1e12 gave a slack of 1000, so a
    # certificate of the constant 1e12 - 1 <= 1e12 tied to x <= 1 - 1e-7 on [0, 1] (false near 1),
    # which came out `certified`
    def certify():
        cert = certify_upper_bound(lambda x: arb(10**12 - 1) + 0 * x[0], [(0, 1)], 10**12)
        return Proof(cert.status, "arb: a constant", certificate=cert)

    r = _reading(certify=certify, sides=lambda i: Sides(_x(i), 1 - 1e-7 + 0 * _x(i)), strategy=None)
    row = _row(r)
    assert row["verdict"] not in ("certified", "proved"), row["evidence"]
    assert "the certificate is not of the reading's sides" in (row["conflict"] or ""), row["evidence"]


def test_a_certificate_whose_function_changed_after_issue_certifies_nothing():
    state = {"c": 0.0}

    def f(x):  # a closure: its state can change after the certificate is issued
        return x[0] * (1 - x[0]) + arb(state["c"])

    cert = certify_upper_bound(f, [(0, 1)], "1/4", gradient=lambda x: [1 - 2 * x[0]], hessian=lambda x: [[arb(-2)]])
    assert cert.status is True and cert.margin([0.5]) == 0.0
    state["c"] = 0.5
    with pytest.raises(ValueError, match="no longer gives the values"):
        cert.margin([0.5])
    row = _row(_reading(certify=lambda: Proof(True, "arb", certificate=cert)))
    assert row["verdict"] == "undecided" and "no longer gives the values" in (row["conflict"] or ""), row["evidence"]


def test_an_unhashable_callable_can_be_certified():
    class Quadratic:  # a dataclass-like callable without __hash__
        __hash__ = None

        def __call__(self, x):
            return x[0] * (1 - x[0])

    cert = certify_upper_bound(Quadratic(), [(0, 1)], "1/2")
    assert cert.status is True and cert.margin([0.5]) == -0.25


def test_locate_needs_certify_and_sweep():
    with pytest.raises(ValueError, match="locate ties a certificate's box"):
        Reading("r", "-", "-", sides=_var_sides, sweep=lambda rng, n: {"x": rng.uniform(size=n)},
                locate=lambda i: [0.0], domain=[(0, 1)])
    with pytest.raises(TypeError, match="locate: expected a callable"):
        _reading(locate=[0.0])


def test_a_certified_readings_mutants_are_judged():
    report = run_mutants(["CERT"], budget=SMALL, claims=[_claim(_reading())])
    assert report.readings == ["CERT:reconstructed"]
    by = {r.mutant: r for r in report.rows}
    assert by["scaled"].verdict == "falsified" and by["flipped"].verdict == "falsified"
    assert not report.defects


def test_the_check_table_says_a_certificate_conflict_is_the_certificates(monkeypatch):
    """review 48: a certificate of another function was summarised as "the proof does not prove the
    reading: its goal, at the values its bind gives, ..."; and one reading that names its own
    normalizer made the whole table "under normalizer"."""
    from click.testing import CliRunner

    from attnbounds import claims as registry
    from attnbounds.claims import registry as claim_registry
    from attnbounds.cli import main

    monkeypatch.setattr(claim_registry, "REGISTRY", claim_registry.ClaimRegistry(modules=()))
    other = _reading(sides=lambda i: Sides(_x(i) / 4, 0.25 + 0 * _x(i)))
    named = _reading(name="transcribed", normalizer="ssmax")
    registry.register(_claim(other, named))
    result = CliRunner().invoke(main, ["check", "--quick", "CERT"], catch_exceptions=False)
    out = " ".join(result.output.split())
    assert "CONFLICT (the certificate is not of the reading's sides" in out, result.output
    assert "the proof does not prove the reading" not in out, result.output
    assert "under normalizer" not in out, result.output


def test_an_undecided_certificate_passed_as_true_is_named_for_what_it_is():
    cert = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4", max_depth=4)  # attained: undecided
    assert cert.status is None
    out = engine.run_exact(_reading(certify=lambda: Proof(True, "arb", certificate=cert)), "certify", SMALL)
    assert out.outcome == "unknown" and "a certificate that certifies nothing (its status is None" in out.detail, out.detail


def test_bad_input_to_the_certificate_tie_names_the_argument():
    from attnbounds.engine.tie import certificate_tie

    cert = _upper()
    with pytest.raises(ValueError, match="point: the box has 1 coordinate"):
        cert.covers([0.5, 0.5])
    refuted = certify_upper_bound(lambda x: x[0] * x[0], [(-1, 1)], 1, strict=True)
    assert refuted.margin([1.0]) == 0.0  # a refutation knows its f and bound (trial 49): it can be tied
    undecided = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4", max_depth=2)
    with pytest.raises(ValueError, match="margin: only a certificate or a refutation"):
        undecided.margin([0.5])
    with pytest.raises(ValueError, match="needs a reading with locate, domain, sweep and sides"):
        certificate_tie(_reading(locate=None, domain=None), cert)
    row = _row(_reading(locate=lambda i: [float(_x(i)), 0.0]))  # two coordinates for a box of one
    assert row["verdict"] == "undecided", row["evidence"]
    assert "locate: gave 2 coordinate(s)" in row["conflict"] and "has 1" in row["conflict"], row["conflict"]


def test_a_certificate_that_refutes_another_function_falsifies_nothing():
    """Trial 49: certify bounded 2x(1 - x) by 1/4 by mistake; the refuted certificate made the true
    reading x(1 - x) <= 1/4 `falsified` (lhs=None at {}), against Hypothesis and the sweep. Its f is
    not the reading's margin: a conflict, as for a passing certificate of another function."""
    def certify():
        cert = certify_upper_bound(lambda x: 2 * x[0] * (1 - x[0]), [(0, 1)], "1/4")
        return Proof(cert.status, "arb: x(1 - x) <= 1/4", certificate=cert)

    row = _row(_reading(certify=certify))
    assert row["verdict"] == "undecided" and row["counterexample"] is None, row["evidence"]
    assert "the certificate is not of the reading's sides" in row["conflict"], row["conflict"]
    assert "the certificate refutes its f <= bound at the point (1/2)" in row["detail"]["certify"], row["detail"]
    # without locate nothing ties the refutation to the reading: it is named, and falsifies nothing
    row = _row(_reading(certify=certify, locate=None, domain=None))
    assert row["verdict"] == "holds" and "falsifies nothing" in row["evidence"], row["evidence"]


def test_a_refutation_of_the_readings_own_function_is_a_conflict_with_no_counterexample():
    """Trial 49: a bound false only within 1e-7 of an irrational point (a peak the sweep and
    Hypothesis miss), refuted by the certificate at a dyadic point: not `holds`."""
    import math

    width = 5000.0
    centre = math.log(1.5)

    def sides(i):
        with np.errstate(over="ignore"):
            sg = 1 / (1 + np.exp(-width * (_x(i) - centre)))
        return Sides(sg * (1 - sg), 0.25 - 1e-8 + 0 * _x(i))

    def sweep(rng, n):
        x = rng.uniform(-8, 8, n)
        x[:2] = (-8.0, 8.0)[:n]
        return {"x": x}

    def certify():
        c = arb(3) / 2
        cert = certify_upper_bound(lambda x: (lambda sg: sg * (1 - sg))(1 / (1 + (-width * (x[0] - c.log())).exp())),
                                   [(-8, 8)], "0.24999999")
        return Proof(cert.status, "arb", certificate=cert)

    row = _row(_reading(sides=sides, certify=certify, domain=[(-8, 8)], sweep=sweep,
                        strategy=lambda: st.fixed_dictionaries({"x": st.floats(-8, 8)})))
    assert row["verdict"] == "undecided" and row["counterexample"] is None, row["evidence"]
    assert "the certificate refutes f <= bound at the point" in row["conflict"], row["conflict"]
    assert "if an instance within the reading's hypotheses is that point, the reading is false there" in \
        row["conflict"], row["conflict"]


def test_a_refutation_is_rechecked_and_agrees_with_a_numeric_counterexample():
    """Review 49: a strict refutation (f(p) = bound) of a non-strict reading, and a forged one, made
    conflicts; a tied refutation beside a numeric counterexample turned `falsified` into a conflict."""
    from flint import fmpq

    from attnbounds.numerics.intervals import IntervalCertificate, _fingerprint

    def strict():
        cert = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4", strict=True)
        return Proof(cert.status, "arb", certificate=cert)

    row = _row(_reading(certify=strict))  # x(1 - x) <= 1/4 is true; f(1/2) = 1/4 refutes only < 1/4
    assert row["verdict"] == "holds" and row["conflict"] is None, row["evidence"]
    assert "tie no violation" in row["detail"]["certify"], row["detail"]["certify"]

    def f(x):
        return x[0] * (1 - x[0])

    forged = IntervalCertificate(False, "forged", (fmpq(1, 2),), None, box=(("0", "1"),), f=f, bound="1/4",
                                 fingerprint=_fingerprint(f, [(fmpq(0), fmpq(1))]))
    row = _row(_reading(certify=lambda: Proof(False, "forged", certificate=forged)))
    assert row["verdict"] == "holds" and row["conflict"] is None, row["evidence"]

    def fifth():
        cert = certify_upper_bound(f, [(0, 1)], "1/5")
        return Proof(cert.status, "arb", certificate=cert)

    false = _reading(sides=lambda i: Sides(_x(i) * (1 - _x(i)), 0.2 + 0 * _x(i)), certify=fifth)
    row = _row(false)  # x(1 - x) <= 1/5 is false: Hypothesis finds it, and the refutation agrees
    assert row["verdict"] == "falsified" and row["conflict"] is None, row["evidence"]


def test_an_undecided_certificate_is_named_in_the_holds():
    """Trial 49: an undecided certificate (an attained bound without derivatives) left no trace."""
    def certify():
        cert = certify_upper_bound(lambda x: x[0] * (1 - x[0]), [(0, 1)], "1/4", max_depth=6)
        return Proof(cert.status, "arb: x(1 - x) <= 1/4", certificate=cert)

    row = _row(_reading(certify=certify))
    assert row["verdict"] == "holds", row["evidence"]
    assert "certify did not certify" in row["evidence"] and "still open at depth 6" in row["detail"]["certify"], \
        (row["evidence"], row["detail"])
