"""A targeted run that collects a package module for its doctests before the tests that use it
sees one copy of the module (the root conftest.py; pytest-dev/pytest#11306 under
``--import-mode=importlib``): before it, ``pytest attnbounds/theory/proof.py tests/claims/...``
failed with "expected a ChainCheck or AllOf, got ChainCheck"."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_doctest_module_first_then_its_users():
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "attnbounds/theory/proof.py",
         "tests/claims/test_theorem2.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "passed" in res.stdout and "failed" not in res.stdout, res.stdout[-2000:]
    import attnbounds.theory.proof as proof
    import attnbounds.theory.separability as sep

    assert sep.Chain is proof.Chain  # and in this process too
