"""The API reference's module list (docs/_ext/apipages.py) matches the package."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import attnbounds
from attnbounds import claims

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

import apipages  # noqa: E402


def _all_modules() -> set[str]:
    names = {"attnbounds"}
    for info in pkgutil.walk_packages(attnbounds.__path__, "attnbounds."):
        names.add(info.name)
    return names


def _excluded(name: str) -> bool:
    claim_modules = set(claims._MODULES.values())
    return (
        name in ("attnbounds", "attnbounds.__main__")
        or name == "attnbounds.cli"
        or name.startswith("attnbounds.cli.")
        or name in claim_modules
    )


def test_every_module_is_documented_or_excluded():
    missing = sorted(n for n in _all_modules() if not _excluded(n) and n not in apipages.listed_modules())
    assert not missing, f"add these modules to API_SECTIONS in docs/_ext/apipages.py: {missing}"


def test_every_listed_module_exists():
    for name in apipages.listed_modules():
        importlib.import_module(name)


def test_public_members_lists_what_a_module_defines():
    import attnbounds.numerics.attention as attention

    members = dict(apipages.public_members(attention))
    assert members["softmax"] == "function"
    assert set(attention.__all__) <= set(members)
    assert "as_float_array" not in members  # imported, documented where it is defined
