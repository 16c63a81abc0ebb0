"""Time ``attnbounds check``: ``--quick`` on all claims, and the default run of each claim.

Writes ``benchmarks/results/check.json``::

    {"machine": {...},
     "quick_all": {"seconds", "exit_code", "rows", "verdicts": {verdict: count},
                   "slowest": [[id, seconds], ...]},
     "default_per_claim": {claim_id: {"seconds", "verdicts": {row id: verdict}}}}

``--quick`` on all claims is timed as a subprocess (import time included) because that is
what a user runs; the default runs are timed in-process, one claim at a time.

Usage: ``python benchmarks/bench_check.py [--skip-default] [--claims L1,C1] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from machine import machine  # benchmarks/machine.py: the script's own directory is on sys.path

HERE = Path(__file__).resolve().parent


def time_quick_all() -> dict:
    """Run ``attnbounds check --quick --json TMP`` in a subprocess and time it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "check.json"
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "attnbounds", "check", "--quick", "--json", str(path)],
            capture_output=True, text=True,
        )
        seconds = time.perf_counter() - start
        rows = json.loads(path.read_text()) if path.exists() else []
        rows = rows["rows"] if isinstance(rows, dict) else rows  # --json writes {"meta", "rows"}
    slowest = sorted(((r["id"], r["seconds"]) for r in rows), key=lambda kv: -kv[1])[:5]
    return {
        "seconds": round(seconds, 2),
        "exit_code": proc.returncode,
        "rows": len(rows),
        "verdicts": dict(Counter(r["verdict"] for r in rows)),
        "slowest": [[i, s] for i, s in slowest],
        "stderr_tail": proc.stderr[-2000:] if proc.returncode else "",
    }


def time_default(claim_ids: list[str]) -> dict:
    """The default budget, one claim at a time, in-process."""
    from attnbounds import engine

    out = {}
    for cid in claim_ids:
        start = time.perf_counter()
        rows = engine.check([cid])
        out[cid] = {
            "seconds": round(time.perf_counter() - start, 2),
            "verdicts": {r["id"]: r["verdict"] for r in rows},
            "rows": [{"id": r["id"], "seconds": r["seconds"], "examples": r["examples"], "sweep": r["sweep"]}
                     for r in rows],
        }
        print(f"  default {cid}: {out[cid]['seconds']:.1f} s", file=sys.stderr)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-default", action="store_true", help="Only time --quick on all claims.")
    parser.add_argument("--claims", default=None, help="Comma-separated claim ids for the default runs.")
    parser.add_argument("--out", default=str(HERE / "results" / "check.json"))
    args = parser.parse_args(argv)

    from attnbounds import claims as registry

    claim_ids = args.claims.split(",") if args.claims else list(registry.ids())
    unknown = [c for c in claim_ids if c not in registry.ids()]
    if unknown:
        parser.error(f"--claims: unknown claim id(s) {', '.join(unknown)}; valid: {', '.join(registry.ids())}")

    result = {
        "machine": machine(),
    }
    print("timing check --quick on all claims ...", file=sys.stderr)
    result["quick_all"] = time_quick_all()
    print(f"  quick all: {result['quick_all']['seconds']:.1f} s", file=sys.stderr)
    if not args.skip_default:
        result["default_per_claim"] = time_default(claim_ids)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
