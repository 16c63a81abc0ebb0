"""Collection: every module of the package is imported once, under its own name.

Under ``--import-mode=importlib`` (pyproject.toml), collecting a package module for its
doctests imports its parent package first, whose ``__init__`` already imports the module; pytest
then executes the file a second time (it looked the name up in ``sys.modules`` before the parent
was imported). Two copies of ``attnbounds.theory.proof`` meant two ``Chain`` classes, and
``pytest attnbounds/theory/proof.py tests/claims`` failed with "expected a ChainCheck, got
ChainCheck" (pytest-dev/pytest#11306; the full run passed only because ``tests`` is collected
first). Importing the module by its name before pytest does makes pytest reuse it.
"""

import importlib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent / "attnbounds"


def pytest_collect_file(file_path, parent):
    path = Path(file_path).resolve()
    if path.suffix != ".py" or _PACKAGE not in path.parents:
        return None
    parts = path.relative_to(_PACKAGE.parent).with_suffix("").parts
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - pytest's own import of the file reports the error as a collection error
        pass
    return None
