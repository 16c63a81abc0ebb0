"""``derive --claims``: a user's own derivations, registered by their claims file, are NAMEs too
(a new user's trial: `claims --claims` pointed at `derive NAME`, which did not know them)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attnbounds.cli import main
from attnbounds.theory import derivation

CLAIM_FILE = '''
import numpy as np
import sympy as sp
from hypothesis import strategies as st
from attnbounds.claims.base import Claim, Hypothesis, Reading, Sides
from attnbounds.theory.derivation import Result, register


@register("USR-range", "the range of a mean of L weights")
def _range():
    L = sp.Symbol("L", positive=True)
    return {"lower": Result(1 / L, note="uniform weights")}


def sides(i):
    return Sides(np.asarray(i["x"]), 1.0)


CLAIM = Claim(id="USR", paper="mine", title="a user claim", source=__file__, statement="x <= 1",
              transcription="x <= 1", transcription_latex="x \\\\le 1",
              hypotheses=(Hypothesis("h", "x in [0, 1]"),),
              readings=(Reading("transcribed", "x <= 1", "x \\\\le 1", sides=sides,
                                strategy=lambda: st.fixed_dictionaries({"x": st.floats(0, 1)}),
                                sweep=lambda rng, n: {"x": rng.uniform(0, 1, n)}),
                        Reading("reconstructed", "x <= 1", "x \\\\le 1", sides=sides,
                                sweep=lambda rng, n: {"x": rng.uniform(0, 1, n)})),
              derivations=(DERIVATIONS,), proof="")
'''


@pytest.fixture
def fresh_registry(monkeypatch):
    derivation.names()  # the package's own first
    monkeypatch.setattr(derivation, "DERIVATIONS", dict(derivation.DERIVATIONS))


def _file(tmp_path, name, derivations='"USR-range"'):
    path = tmp_path / f"{name}.py"
    path.write_text(CLAIM_FILE.replace("(DERIVATIONS,)", f"({derivations},)"))
    return str(path)


def test_derive_prints_a_derivation_a_claims_file_registers(tmp_path, fresh_registry):
    path = _file(tmp_path, "usr_claims")
    out = CliRunner().invoke(main, ["derive", "--claims", path, "USR-range", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["results"]["lower"]["expr"] == "1/L"
    assert doc["format"] == "attnbounds-derive/1" and doc["name"] == "USR-range"
    listed = CliRunner().invoke(main, ["derive", "--claims", path, "USR"])
    assert listed.exit_code == 0 and "USR-range" in listed.output and f"--claims {path}" in listed.output
    shown = CliRunner().invoke(main, ["claims", "--claims", path, "USR"])
    assert f"attnbounds derive --claims {path} NAME" in shown.output


def test_a_claim_naming_no_registered_derivation_is_refused(tmp_path, fresh_registry):
    path = _file(tmp_path, "usr_typo", derivations='"USR-rnage"')
    out = CliRunner().invoke(main, ["check", "--claims", path, "--quick"])
    assert out.exit_code == 2
    assert "derivations: no derivation named 'USR-rnage'" in out.output and "USR-range" in out.output


def test_debug_prints_the_traceback_of_an_error_a_row_records(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNBOUNDS_DEBUG", "0")  # restored after: --debug sets it to 1 in this process
    path = tmp_path / "boom.py"
    path.write_text(CLAIM_FILE.replace("derivations=(DERIVATIONS,), ", "")
                    .replace('@register("USR-range"', '@register("USR-boom"')
                    .replace("return Sides(np.asarray(i[\"x\"]), 1.0)", "raise RuntimeError('boom in my sides')"))
    monkeypatch.setattr(derivation, "DERIVATIONS", dict(derivation.DERIVATIONS))
    quiet = CliRunner().invoke(main, ["check", "--claims", str(path), "--quick", "USR:transcribed"])
    assert "boom in my sides" in quiet.output and "Traceback" not in quiet.stderr
    monkeypatch.setattr(derivation, "DERIVATIONS", dict(derivation.DERIVATIONS))
    loud = CliRunner().invoke(main, ["--debug", "check", "--claims", str(path), "--quick", "USR:transcribed"])
    assert "Traceback" in loud.stderr and "raise RuntimeError('boom in my sides')" in loud.stderr


def test_derive_claims_with_a_bad_spec_is_a_usage_error_naming_the_option(tmp_path):
    out = CliRunner().invoke(main, ["derive", "--claims", str(tmp_path / "missing.py"), "L2"])
    assert out.exit_code == 2 and "--claims" in out.output
