"""The claim registry: paper namespaces, short and qualified ids, discovery, user claims."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnbounds import claims, engine
from attnbounds.claims import registry as claim_registry
from attnbounds.claims.base import Claim, Proof, Reading
from attnbounds.engine import Budget

EXAMPLE = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_claim.py")
SMALL = Budget(examples=5, sweep=50, mc_samples=50, audit=200)


def toy(cid, paper=None, status=True):
    readings = tuple(Reading(n, "-", "-", symbolic=lambda: Proof(status, "toy")) for n in ("transcribed", "reconstructed"))
    return Claim(cid, "toy", "toy", "toy", "toy", "toy", (), readings, "toy $x$", paper=paper)


@pytest.fixture
def reg(monkeypatch):
    fresh = claim_registry.ClaimRegistry()  # discovers the package's claims, like the real one
    monkeypatch.setattr(claim_registry, "REGISTRY", fresh)
    return fresh


def test_package_claims_are_qualified_by_the_paper():
    assert claims.get("2508.17821:T1i") is claims.get("T1i")
    assert claims.qualified_ids()[0] == "2508.17821:L1"
    assert claims.module_of("L1") == "attnbounds.claims.lemma1"
    with pytest.raises(KeyError, match="unknown claim 'NOPE'; valid: L1, C1"):
        claims.get("NOPE")


def test_a_second_papers_lemma_does_not_collide(reg):
    other = claims.register(toy("L1", paper="2601.00001"))
    assert claims.get("2601.00001:L1") is other
    assert claims.get("2508.17821:L1") is not other
    with pytest.raises(KeyError, match="ambiguous claim id 'L1': 2508.17821:L1, 2601.00001:L1"):
        claims.get("L1")
    # listings and rows show the qualified id only where the short one is ambiguous
    assert "2601.00001:L1" in claims.ids() and "2508.17821:L1" in claims.ids() and "C1" in claims.ids()
    rows = engine.check(["2601.00001:L1"], budget=SMALL)
    assert [r.id for r in rows] == ["2601.00001:L1:transcribed", "2601.00001:L1:reconstructed"]
    with pytest.raises(ValueError, match="ambiguous claim id 'L1'"):
        engine.resolve_ids(["L1"])


def test_register_rejects_a_taken_id_and_works_as_a_decorator(reg):
    claims.register(toy("MINE"))
    assert claims.qualified_ids()[-1] == "user:MINE"
    with pytest.raises(ValueError, match="id 'user:MINE' is already registered"):
        claims.register(toy("MINE"))

    @claims.register
    def made():
        return toy("MADE", paper="notes")

    assert made.id == "MADE" and claims.get("notes:MADE") is made
    assert claims.unregister("MINE").id == "MINE"
    with pytest.raises(ValueError, match="package claim"):
        claims.unregister("L1")
    with pytest.raises(TypeError, match="claim: expected a Claim"):
        claims.register(3)


def test_ids_are_validated_on_the_claim():
    with pytest.raises(ValueError, match="id: a claim id"):
        toy("A:B")
    with pytest.raises(ValueError, match="paper: a paper id"):
        toy("A", paper="x:y")


def test_a_broken_claim_module_is_reported_not_fatal(monkeypatch):
    broken = claim_registry.ClaimRegistry(modules=["attnbounds.claims.no_such_module_for_tests"])
    monkeypatch.setattr(claim_registry, "REGISTRY", broken)
    assert claims.ids() == ()
    assert "no_such_module_for_tests" in next(iter(claims.load_errors()))
    with pytest.raises(KeyError, match="failed to load: attnbounds.claims.no_such_module_for_tests"):
        claims.get("L1")


def test_load_claims_from_a_file_and_from_module_object():
    from_file = claims.load_claims(EXAMPLE)
    assert [c.id for c in from_file] == ["TV"] and from_file[0].paper == "my-notes"
    rows = engine.check(claims=from_file, budget=SMALL)  # the tutorial's Python route
    assert [(r.id, r.verdict) for r in rows][0] == ("TV:transcribed", "falsified")
    assert claims.load_claims("attnbounds.claims.lemma1:CLAIM") == [claims.get("L1")]
    assert claims.load_claims("attnbounds.claims.lemma1") == [claims.get("L1")]
    with pytest.raises(ValueError, match="claims: 'attnbounds.claims.base' defines no claim"):
        claims.load_claims("attnbounds.claims.base")
    from attnbounds.plugins import PluginNotFound

    with pytest.raises(PluginNotFound, match="no such file 'nope.py'"):
        claims.load_claims("nope.py")


def test_a_registry_beside_another_shows_a_shared_short_id_qualified():
    mine = toy("L1", paper="my-notes")
    private = claim_registry.ClaimRegistry(modules=(), beside=claim_registry.REGISTRY)
    private.register(mine)
    assert private.display_id(mine) == "my-notes:L1"  # the package has an L1
    own = toy("ONLY", paper="my-notes")
    private.register(own)
    assert private.display_id(own) == "ONLY"
    alone = claim_registry.ClaimRegistry(modules=())
    alone.register(mine)
    assert alone.display_id(mine) == "L1"  # nothing beside it
    with pytest.raises(TypeError, match="beside: expected a ClaimRegistry, got dict"):
        claim_registry.ClaimRegistry(modules=(), beside={})
