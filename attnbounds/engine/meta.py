"""What a run of the checker was: the ``meta`` object of ``attnbounds check --json``.

``check --json PATH`` writes one object (format :data:`CHECK_FORMAT`)::

    {
      "format": "attnbounds-check/2",
      "meta": {
        "attnbounds": "0.1.0",                   version of the package
        "git": {"commit": "cb705fc…", "dirty": false},   or null outside a git checkout
        "command": "check",                      check | mutants | matrix
        "seed": 0,
        "budget": {"preset": "quick", "examples": 30, "sweep": 10000, "mc_samples": 2000, "audit": 400},
        "time_limit": 900.0,                     the wall-clock safety net (null: none)
        "normalizer": null,                      --normalizer, or null
        "ids": [],                               the ids asked for ([]: every claim)
        "claims_files": [],                      --claims specs ([]: the package's claims)
        "date": "2026-12-03T10:30:00+00:00",     when the run started (UTC)
        "complete": true,                        false while running, or when interrupted
        "versions": {"python": "3.12.3", "numpy": "…", "sympy": "…", "scipy": "…", "hypothesis": "…"},
        "elapsed_seconds": 104.2,                seconds from the start of the run to this write
        "counts": {"reading": {"proved": 35, "falsified": 22}, "hypothesis": {…}}
                                                 the rows so far by kind, then verdict
      },
      "rows": [ {row}, … ]                       the rows, as before (attnbounds.engine.rows)
    }

Before format 2 the file was the bare list of rows; :func:`read_rows` reads both, so a reader
of the rows does not need to know which it has. ``--mutants`` and ``--matrix`` write their
own objects (``rows`` and ``summary``; ``normalizers``, ``ids``, ``verdicts``, ``rows`` and
``seconds``), to which ``format`` (:data:`MUTANTS_FORMAT`, :data:`MATRIX_FORMAT`) and the
same ``meta`` are added; the matrix also records the registered normalizers it did not run,
``omitted``: ``{name: why}`` (:func:`matrix_document`).

>>> read_rows([{"id": "L1:transcribed", "verdict": "proved"}])[0]["verdict"]
'proved'
>>> read_rows({"format": CHECK_FORMAT, "meta": {}, "rows": []})
[]
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import json
import platform
import subprocess
import time
from pathlib import Path
from typing import Any, Iterable

from attnbounds.engine.budget import DEFAULT_BUDGET, QUICK_BUDGET, Budget

__all__ = ["CHECK_FORMAT", "MATRIX_FORMAT", "MUTANTS_FORMAT", "run_meta", "git_state", "read_rows",
           "check_document", "matrix_document", "mutants_document", "verdict_counts"]

#: The ``format`` of ``check --json``'s object (the bare list of rows before it).
CHECK_FORMAT = "attnbounds-check/2"
#: The ``format`` of ``check --matrix --json``'s object (no ``format`` before it).
MATRIX_FORMAT = "attnbounds-matrix/1"
#: The ``format`` of ``check --mutants --json``'s object (no ``format`` before it).
MUTANTS_FORMAT = "attnbounds-mutants/1"
_VERSIONS = ("numpy", "sympy", "scipy", "hypothesis")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def git_state(where: Path | None = None) -> dict | None:
    """``{"commit", "dirty"}`` of the git checkout holding the package (``where``), or None when
    it is not in one or git is missing. ``dirty``: tracked files differ from the commit."""
    where = Path(where) if where is not None else Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None}


def _preset(budget: Budget) -> str:
    work = lambda b: (b.examples, b.sweep, b.mc_samples, b.audit)  # noqa: E731
    if work(budget) == work(QUICK_BUDGET):
        return "quick"
    if work(budget) == work(DEFAULT_BUDGET):
        return "default"
    if (budget.sweep, budget.mc_samples, budget.audit) == (QUICK_BUDGET.sweep, QUICK_BUDGET.mc_samples, QUICK_BUDGET.audit):
        return "quick, examples overridden"
    if (budget.sweep, budget.mc_samples, budget.audit) == (DEFAULT_BUDGET.sweep, DEFAULT_BUDGET.mc_samples,
                                                           DEFAULT_BUDGET.audit):
        return "default, examples overridden"
    return "custom"


def run_meta(
    *,
    budget: Budget,
    seed: int,
    ids: Iterable[str] | None = None,
    normalizer: str | None = None,
    claims_files: Iterable[str] = (),
    command: str = "check",
    complete: bool = False,
) -> dict[str, Any]:
    """The ``meta`` object of a run (see the module docstring)."""
    import attnbounds

    return {
        "attnbounds": getattr(attnbounds, "__version__", None),
        "git": git_state(),
        "command": command,
        "seed": int(seed),
        "budget": {"preset": _preset(budget), "examples": budget.examples, "sweep": budget.sweep,
                   "mc_samples": budget.mc_samples, "audit": budget.audit},
        "time_limit": budget.time_limit,
        "normalizer": normalizer,
        "ids": list(ids or []),
        "claims_files": [str(c) for c in claims_files],
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "complete": bool(complete),
        "versions": {"python": platform.python_version(), **{name: _version(name) for name in _VERSIONS}},
    }


def verdict_counts(rows) -> dict[str, dict[str, int]]:
    """The rows' verdicts counted by row kind (``reading``, ``hypothesis``, ``load-error``).

    >>> verdict_counts([{"kind": "reading", "verdict": "proved"}, {"kind": "reading", "verdict": "proved"},
    ...                 {"kind": "hypothesis", "verdict": "falsified"}, {"verdict": "holds"}])
    {'reading': {'proved': 2, 'holds': 1}, 'hypothesis': {'falsified': 1}}
    """
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        per = out.setdefault(str(r.get("kind", "reading")), {})
        per[str(r["verdict"])] = per.get(str(r["verdict"]), 0) + 1
    return out


def _finished(meta: dict, started: float | None) -> dict:
    meta = dict(meta)
    if started is not None:
        meta["elapsed_seconds"] = round(time.perf_counter() - started, 1)
    return meta


def check_document(rows: list, meta: dict, started: float | None = None) -> dict:
    """The object ``check --json`` writes: ``{"format", "meta", "rows"}``; ``meta`` gains
    ``counts`` (:func:`verdict_counts`) and, given the run's ``time.perf_counter()`` at its
    start, ``elapsed_seconds``."""
    return {"format": CHECK_FORMAT, "meta": {**_finished(meta, started), "counts": verdict_counts(rows)}, "rows": rows}


def matrix_document(result: dict, meta: dict, omitted: dict | None = None, started: float | None = None) -> dict:
    """The object ``check --matrix --json`` writes: ``{"format", "meta", ...}`` with the keys
    of :func:`attnbounds.battery.run_matrix`'s result and ``omitted`` (``{name: why}``, the
    registered normalizers the matrix did not run). ``meta`` gains ``counts``, one
    :func:`verdict_counts` per normalizer, and ``elapsed_seconds`` as in :func:`check_document`.

    >>> doc = matrix_document({"normalizers": ["softmax"], "rows": {"softmax": [{"verdict": "proved"}]}},
    ...                       {"command": "matrix"}, {"taylor2": "family"})
    >>> doc["format"], doc["meta"], doc["normalizers"], doc["omitted"]
    ('attnbounds-matrix/1', {'command': 'matrix', 'counts': {'softmax': {'reading': {'proved': 1}}}}, ['softmax'], {'taylor2': 'family'})
    """
    rows = result.get("rows") if isinstance(result.get("rows"), dict) else {}
    counts = {name: verdict_counts(r for r in rs if isinstance(r, dict)) for name, rs in rows.items()}
    return {"format": MATRIX_FORMAT, "meta": {**_finished(meta, started), "counts": counts},
            **{k: v for k, v in result.items() if k not in ("format", "meta")}, "omitted": dict(omitted or {})}


def mutants_document(report: dict, meta: dict, started: float | None = None) -> dict:
    """The object ``check --mutants --json`` writes: the report's ``rows`` and ``summary``
    with ``format`` :data:`MUTANTS_FORMAT` and ``meta`` (with ``elapsed_seconds`` as in
    :func:`check_document`; no ``counts``: the summary counts the mutants).

    >>> mutants_document({"rows": [], "summary": {"mutants": 0}}, {"command": "mutants"})["format"]
    'attnbounds-mutants/1'
    """
    return {"format": MUTANTS_FORMAT, **report, "meta": _finished(meta, started)}


def read_rows(data) -> list[dict]:
    """The rows of ``check --json`` output: a path, a JSON string, the parsed object of format
    2 (``{"format", "meta", "rows"}``) or the bare list of rows written before it.

    Raises
    ------
    ValueError
        When ``data`` holds neither.
    """
    if isinstance(data, Path) or (isinstance(data, str) and not data.lstrip().startswith(("[", "{"))):
        data = Path(data).read_text()
    if isinstance(data, str):
        data = json.loads(data)
    if isinstance(data, dict) and isinstance(data.get("rows"), list):
        data = data["rows"]
    if not isinstance(data, list) or not all(isinstance(r, dict) and "id" in r and "verdict" in r for r in data):
        raise ValueError("data: expected check --json output: {'format', 'meta', 'rows': [...]} or a list of rows")
    return data
