"""Nothing imports upward: each layer of attnbounds imports only from its own layer or below."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "attnbounds"

#: Layers from the bottom up; a module may import its own layer and the layers below.
RANK = {
    "numerics": 0, "theory": 0, "plugins": 0, "jsonio": 0, "fileio": 0, "progress": 0, "suggest": 0,
    "strategies": 1,
    "claims": 2,
    "engine": 3,
    "battery": 4, "empirical": 4,
    "cli": 5, "__main__": 5,
}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "attnbounds" else None


def _imports():
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.startswith("attnbounds.") and _layer(name) in RANK:
                    yield module, name
                    break


def test_every_module_has_a_layer():
    assert {_layer(m) for m, _ in _imports()} <= set(RANK)


@pytest.mark.parametrize("module,imported", sorted(set(_imports())))
def test_no_upward_import(module, imported):
    assert RANK[_layer(imported)] <= RANK[_layer(module)], f"{module} imports {imported} (a higher layer)"


def test_empirical_exports_load_model_without_importing_torch():
    code = (
        "import sys, attnbounds.empirical as e; assert 'torch' not in sys.modules; "
        "assert 'load_model' in e.__all__; from attnbounds.empirical.models import load_model; "
        "assert e.load_model is load_model"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PACKAGE.parent)
