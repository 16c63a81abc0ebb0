"""Regenerate ``docs/_generated/verdicts.json`` and its stamp ``verdicts.meta.json``.

Run by ``make verdicts``::

    python docs/generate_verdicts.py            # the full check, as the docs show it
    python docs/generate_verdicts.py --quick    # forwarded to `attnbounds check`

It runs the real command ``attnbounds check --json FILE`` (any extra arguments are forwarded
to it), then records a SHA-256 of every source file the verdicts depend on
(``docs/_ext/verdict_store.py``: ``SOURCE_GLOBS``). The docs build refuses a verdicts file
whose stamp no longer matches the sources. If a source file changes while the check runs,
or if the check's wall-clock safety net interrupted a method (a row with ``timed_out``: its
verdict is not that of the full budget), nothing is written and the script exits with
status 1. The files are replaced atomically (:mod:`attnbounds.fileio`).
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import verdict_store  # noqa: E402

from attnbounds.fileio import write_text  # noqa: E402

_VERSIONS = ("attnbounds", "numpy", "scipy", "sympy", "hypothesis", "python-flint")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def generate(check_args: list[str], out_dir: Path = verdict_store.GENERATED_DIR) -> dict:
    """Run the check, write the rows and the stamp into ``out_dir``; return the stamp."""
    before = verdict_store.file_hashes()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows_tmp = Path(tmp) / "verdicts.json"
        command = [sys.executable, "-m", "attnbounds", "check", *check_args, "--json", str(rows_tmp)]
        start = time.perf_counter()
        # A fixed terminal width, so that the saved table does not depend on who ran it.
        env = {**os.environ, "COLUMNS": "150", "NO_COLOR": "1"}
        completed = subprocess.run(command, cwd=verdict_store.REPO_ROOT, stdout=subprocess.PIPE, text=True, env=env)
        seconds = time.perf_counter() - start
        sys.stdout.write(completed.stdout)
        # `attnbounds check` exits non-zero when a reading is falsified; that is a finding, not a
        # failure of the generator. It must still have written its rows.
        if not rows_tmp.exists():
            raise SystemExit(f"generate_verdicts: `{' '.join(command[2:])}` wrote no rows (exit {completed.returncode})")
        rows = verdict_store.load_rows(rows_tmp)
        after = verdict_store.file_hashes()
        if before != after:
            changed = verdict_store.compare(before, after).describe()
            raise SystemExit(f"generate_verdicts: sources changed while checking ({changed}); run it again")
        timed_out = [r["id"] for r in rows if r.get("timed_out")]
        if timed_out:
            raise SystemExit(
                f"generate_verdicts: the time limit interrupted a method of {', '.join(timed_out)}, so their "
                "verdicts are not those of the full budget; nothing written (run it again on a quieter machine, "
                "or pass --time-limit 0)"
            )
        meta = {
            "format": verdict_store.META_FORMAT,
            "command": "attnbounds check " + " ".join([*check_args, "--json", "docs/_generated/verdicts.json"]),
            "exit_status": completed.returncode,
            "generated_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "seconds": round(seconds, 1),
            "rows": len(rows),
            "python": platform.python_version(),
            "versions": {name: _version(name) for name in _VERSIONS},
            "sources_sha256": verdict_store.combined_hash(after),
            "sources": after,
        }
        write_text(out_dir / "check_output.txt", completed.stdout)
        write_text(out_dir / verdict_store.VERDICTS_PATH.name, json.dumps(rows, indent=2, default=str) + "\n")
        write_text(out_dir / verdict_store.META_PATH.name, json.dumps(meta, indent=2) + "\n")
    return meta


def main(argv: list[str]) -> int:
    meta = generate(argv)
    print(
        f"wrote {meta['rows']} rows to docs/_generated/verdicts.json in {meta['seconds']} s "
        f"(sources sha256 {meta['sources_sha256'][:12]}…)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
