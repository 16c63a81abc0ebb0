"""'proved' means machine-checked: walk every reading of every claim."""

import json
from pathlib import Path

import pytest

from attnbounds import claims as registry
from attnbounds.engine import Budget
from attnbounds.engine.methods import proof_summary, run_exact

READINGS = [(c, r) for c in registry.all_claims() for r in c.readings if r.symbolic is not None]
BUDGET = Budget(examples=1, sweep=1, mc_samples=1, audit=200)


@pytest.mark.parametrize("claim,reading", READINGS, ids=[f"{c.id}:{r.name}" for c, r in READINGS])
def test_a_symbolic_pass_is_a_fully_checked_chain(claim, reading):
    proof = reading.symbolic()
    if proof.status is True:
        # no Proof(status=True) without a checked chain
        assert proof.chain is not None, f"{claim.id}:{reading.name} returns Proof(True) without a chain"
        assert proof.chain.complete and proof.checked == proof.steps > 0
    outcome = run_exact(reading, "symbolic", BUDGET)
    if outcome.outcome == "pass":  # the only way to the verdict "proved"
        assert outcome.proof["status"] == "checked"
        assert outcome.proof["checked"] == outcome.proof["steps"] > 0
    if outcome.proof is not None and outcome.outcome == "pass":
        # the row's proof object is the proof's summary, plus the step audit of a checked chain
        # (and, for a reading with bind, the tie of its goal to the sides, which must hold)
        audit = outcome.proof.get("audit")
        assert {k: v for k, v in outcome.proof.items() if k not in ("audit", "tie")} == proof_summary(proof)
        assert audit is not None and audit["counterexamples"] == 0 and outcome.conflict is None
        assert ("tie" in outcome.proof) == (reading.bind is not None)
        assert reading.bind is None or outcome.proof["tie"]["status"] == "tied"


def test_committed_proved_verdicts_have_every_step_checked():
    path = Path(__file__).resolve().parents[2] / "docs" / "_generated" / "verdicts.json"
    rows = json.loads(path.read_text())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    proved = [r for r in rows if r["verdict"] == "proved" and r.get("kind", "reading") == "reading"]
    assert proved, "no proved reading at all"
    for r in proved:
        assert r["proof"] is not None and r["proof"]["checked"] == r["proof"]["steps"] > 0, r["id"]
