"""The API reference's module list (docs/_ext/apipages.py) matches the package."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import attnbounds

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

import apipages  # noqa: E402


def _all_modules() -> set[str]:
    names = {"attnbounds"}
    for info in pkgutil.walk_packages(attnbounds.__path__, "attnbounds."):
        names.add(info.name)
    return names


def test_every_module_is_documented_or_excluded():
    missing = sorted(n for n in _all_modules() if not apipages.is_excluded(n) and n not in apipages.listed_modules())
    assert not missing, f"add these modules to API_SECTIONS in docs/_ext/apipages.py: {missing}"


def test_excluded_modules_are_not_listed():
    assert not [n for n in apipages.listed_modules() if apipages.is_excluded(n)]
    assert apipages.is_excluded("attnbounds.claims.lemma1") and apipages.is_excluded("attnbounds.cli.check")
    assert not apipages.is_excluded("attnbounds.claims.base")


def test_every_listed_module_exists():
    for name in apipages.listed_modules():
        importlib.import_module(name)


def test_public_members_lists_what_a_module_defines():
    import attnbounds.numerics.attention as attention

    members = dict(apipages.public_members(attention))
    assert members["softmax"] == "function"
    assert set(attention.__all__) <= set(members)
    assert "as_float_array" not in members  # imported, documented where it is defined
