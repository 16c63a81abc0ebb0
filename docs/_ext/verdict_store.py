"""The committed verdicts file and its staleness stamp.

``docs/_generated/verdicts.json`` holds the rows of ``attnbounds check --json`` (one row per
reading). ``docs/_generated/verdicts.meta.json`` stores, next to it, a SHA-256 of every source
file the verdicts depend on (:data:`SOURCE_GLOBS`). The docs build recomputes that hash and
fails (a Sphinx warning, an error under ``-W``) when it differs, naming the changed files and
telling the reader to run ``make verdicts``.

This module is imported both by the Sphinx extensions (``docs/_ext``) and by
``docs/generate_verdicts.py``; it depends only on the standard library.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

#: The repository root (``docs/_ext/verdict_store.py`` -> two levels up).
REPO_ROOT = Path(__file__).resolve().parents[2]
GENERATED_DIR = REPO_ROOT / "docs" / "_generated"
VERDICTS_PATH = GENERATED_DIR / "verdicts.json"
META_PATH = GENERATED_DIR / "verdicts.meta.json"

#: Source files whose content determines the verdicts (relative to the repository root).
#: The claims, the layers they compute with, the strategies, the engine package, the plug-in
#: loader (claims and normalizers), the command that writes the rows (with its helpers and the
#: JSON writer), the package's import, and the generator that picks the command line. Every
#: ``attnbounds`` module that ``attnbounds check`` imports is matched
#: (``tests/docs/test_verdict_store.py`` checks it, and that every entry matches a file).
#: The empirical layer and the docs' other sources are not inputs of ``attnbounds check``.
SOURCE_GLOBS: tuple[str, ...] = (
    "attnbounds/__init__.py",
    "attnbounds/__main__.py",
    "attnbounds/claims/**/*.py",
    "attnbounds/theory/**/*.py",
    "attnbounds/numerics/**/*.py",
    "attnbounds/strategies.py",
    "attnbounds/plugins.py",
    "attnbounds/jsonio.py",
    "attnbounds/fileio.py",
    "attnbounds/suggest.py",
    "attnbounds/progress.py",
    "attnbounds/engine/**/*.py",
    "attnbounds/cli/__init__.py",
    "attnbounds/cli/check.py",
    "attnbounds/cli/common.py",
    "docs/generate_verdicts.py",
)

META_FORMAT = 1


def source_files(root: Path = REPO_ROOT) -> list[Path]:
    """Every existing file matched by :data:`SOURCE_GLOBS` under ``root``, sorted, no caches."""
    root = Path(root)
    found: set[Path] = set()
    for pattern in SOURCE_GLOBS:
        for path in root.glob(pattern):
            if path.is_file() and "__pycache__" not in path.parts:
                found.add(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def file_hashes(root: Path = REPO_ROOT) -> dict[str, str]:
    """``{relative posix path: sha256 of its bytes}`` for :func:`source_files`."""
    root = Path(root)
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in source_files(root)
    }


def combined_hash(hashes: dict[str, str]) -> str:
    """One SHA-256 over the sorted ``path NUL sha256`` lines: a rename or a new file counts."""
    digest = hashlib.sha256()
    for path in sorted(hashes):
        digest.update(f"{path}\0{hashes[path]}\n".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Staleness:
    """How the current sources differ from those the verdicts were generated from."""

    changed: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def stale(self) -> bool:
        return bool(self.changed or self.added or self.removed)

    def describe(self) -> str:
        parts = []
        for label, paths in (("changed", self.changed), ("new", self.added), ("removed", self.removed)):
            if paths:
                parts.append(f"{label}: {', '.join(paths)}")
        return "; ".join(parts)


def compare(recorded: dict[str, str], current: dict[str, str]) -> Staleness:
    """Compare the per-file hashes recorded in the meta file with the current ones."""
    return Staleness(
        changed=tuple(sorted(p for p in recorded.keys() & current.keys() if recorded[p] != current[p])),
        added=tuple(sorted(current.keys() - recorded.keys())),
        removed=tuple(sorted(recorded.keys() - current.keys())),
    )


def load_rows(path: Path = VERDICTS_PATH) -> list[dict] | None:
    """The committed rows, or None when the file does not exist (``check --json``'s object
    ``{"format", "meta", "rows"}`` or a bare list of rows)."""
    path = Path(path)
    if not path.exists():
        return None
    rows = json.loads(path.read_text())
    if isinstance(rows, dict) and isinstance(rows.get("rows"), list):
        rows = rows["rows"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "id" in r and "verdict" in r for r in rows):
        raise ValueError(f"{path}: expected a JSON list of rows with 'id' and 'verdict'")
    return rows


def load_meta(path: Path = META_PATH) -> dict | None:
    """The committed meta (stamp), or None when the file does not exist."""
    path = Path(path)
    if not path.exists():
        return None
    meta = json.loads(path.read_text())
    if not isinstance(meta, dict) or "sources" not in meta or "sources_sha256" not in meta:
        raise ValueError(f"{path}: expected an object with 'sources' and 'sources_sha256'")
    return meta


def check_fresh(meta: dict, root: Path = REPO_ROOT) -> Staleness:
    """Staleness of ``meta`` against the sources now under ``root``."""
    current = file_hashes(root)
    staleness = compare(meta["sources"], current)
    if not staleness.stale and combined_hash(current) != meta["sources_sha256"]:
        # Per-file hashes agree but the combined one does not: the meta file was edited by hand.
        return Staleness(changed=("(verdicts.meta.json: inconsistent sources_sha256)",), added=(), removed=())
    return staleness
