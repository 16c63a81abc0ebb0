"""The step audit (attnbounds.engine.audit) against the proof kernel's past holes.

Each review of the proof kernel left a regression file, ``tests/theory/test_rules_reviewNN.py``,
whose tests pin false statements the kernel accepted before the review's fix. For each review
in the range, this script checks out the commit just before the one that added the file (a
``git worktree`` in a temporary directory), puts in the file and this checkout's refuter
(``attnbounds/engine/refute.py``), and runs the file under a pytest plug-in that audits every
chain that old kernel accepts: every accepted step with the context it was checked under
(recorded by wrapping ``Chain.check_steps``: the old kernels lack the recorder ``Chain.prove``
has now) and the chain's
goal, searched by the refuter at 1,200 draws each. A chain counts as caught when a step or
its goal is refuted.

The accepted chains include the tests' true variants (a test may also pin that a true
statement is still accepted), so "caught / accepted" is a lower bound on the share of the
false ones caught. Writes benchmarks/results/audit_history.json and a short .md beside it:

    python benchmarks/audit_history.py [--first 26] [--last 49]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

PLUGIN = '''
import json, os, zlib
import sympy as sp
import attnbounds.theory.proof as K
from attnbounds.engine.refute import refute

REC, depth = [], [0]
orig_cs, orig_prove = K.Chain.check_steps, K.Chain.prove


def cs(self, ctx=None):
    out = orig_cs(self, ctx)
    for rec in REC:
        rec.extend((c, self.ctx if ctx is None else ctx) for c in out if c.checked)
    return out


def search(lhs, rel, rhs, ctx):
    try:
        f = refute(lhs, rel, rhs, ctx, seed=[0, zlib.crc32(sp.sstr(lhs).encode())], batches=6, batch=200)
    except Exception:  # NoNumericForm, or an old kernel's objects the current refuter does not read
        return None
    return f


def prove(self, lhs, relation, rhs, ctx=None):
    if depth[0] > 0:
        return orig_prove(self, lhs, relation, rhs, ctx)
    cache = getattr(K, "_lemma_check_cached", None)
    if cache is not None:
        cache.cache_clear()
    depth[0] += 1
    rec = []
    REC.append(rec)
    try:
        res = orig_prove(self, lhs, relation, rhs, ctx)
    finally:
        REC.remove(rec)
        depth[0] -= 1
    if res.complete:
        items = {(c.lhs, c.relation, c.rhs, cx): c.rule for c, cx in rec}
        items.setdefault((sp.sympify(lhs), "=" if relation == "==" else relation, sp.sympify(rhs),
                          self.ctx if ctx is None else ctx), "goal")
        searched, refuted = 0, []
        for (a, rel, b, cx), rule in items.items():
            f = search(a, rel, b, cx)
            if f is None:
                continue
            searched += 1
            if f.assignment is not None:
                refuted.append(f"{rule}: {sp.sstr(a)[:80]} {rel} {sp.sstr(b)[:80]}")
        with open(os.environ["AUDIT_HISTORY_LOG"], "a") as fh:
            fh.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0],
                                 "goal": f"{sp.sstr(lhs)[:100]} {relation} {sp.sstr(rhs)[:100]}",
                                 "items": len(items), "searched": searched, "refuted": refuted}) + "\\n")
    return res


K.Chain.check_steps = cs
K.Chain.prove = prove
'''


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def review(n: int, tmp: Path) -> dict | None:
    """The audit of the chains the kernel before review n's fix accepts in its regression file."""
    path = f"tests/theory/test_rules_review{n}.py"
    added = _git("log", "--diff-filter=A", "--format=%h", "--", path).splitlines()
    if not added:
        return None
    fix = added[-1]
    parent = _git("rev-parse", "--short", f"{fix}^")
    tree = tmp / f"review{n}"
    _git("worktree", "add", "-q", "--detach", str(tree), parent)
    try:
        (tree / path).write_text(_git("show", f"{fix}:{path}"))
        shutil.copy(ROOT / "attnbounds" / "engine" / "refute.py", tree / "attnbounds" / "engine" / "refute.py")
        log = tmp / f"log{n}.jsonl"
        env = {**os.environ, "AUDIT_HISTORY_LOG": str(log), "PYTHONPATH": f"{tree}{os.pathsep}{tmp}"}
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "audit_history_plugin",
                              path], cwd=tree, env=env, capture_output=True, text=True, timeout=1800)
        chains = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-200:]
        return {"review": n, "fix": fix, "kernel": parent, "pytest": summary, "accepted": len(chains),
                "caught": sum(bool(c["refuted"]) for c in chains), "chains": chains}
    finally:
        _git("worktree", "remove", "--force", str(tree))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first", type=int, default=26, help="first review (default 26)")
    ap.add_argument("--last", type=int, default=49, help="last review (default 49)")
    args = ap.parse_args(argv)
    if args.first > args.last:
        ap.error(f"--first: must be <= --last, got {args.first} > {args.last}")
    out = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "audit_history_plugin.py").write_text(PLUGIN)
        for n in range(args.first, args.last + 1):
            got = review(n, tmp)
            if got is None:
                continue
            out.append(got)
            print(f"review {n} (kernel {got['kernel']}): {got['caught']}/{got['accepted']} accepted chains caught; "
                  f"tests: {got['pytest']}", flush=True)
    accepted = sum(r["accepted"] for r in out)
    caught = sum(r["caught"] for r in out)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "audit_history.json").write_text(json.dumps({"reviews": out, "accepted": accepted, "caught": caught},
                                                           indent=1) + "\n")
    lines = ["# The step audit against the kernel's past holes", "",
             f"Reviews {args.first}–{args.last}: the audit refutes **{caught} of {accepted}** chains that the kernel "
             "just before each fix accepted in that review's regression tests (the tests' true variants among them).", "",
             "| review | kernel | accepted | caught |", "|---|---|---|---|"]
    lines += [f"| {r['review']} | {r['kernel']} | {r['accepted']} | {r['caught']} |" for r in out]
    lines += ["", "Missed (not refuted):", ""]
    lines += [f"- review {r['review']}: `{c['goal']}` ({c['searched']}/{c['items']} searched)"
              for r in out for c in r["chains"] if not c["refuted"]]
    (RESULTS / "audit_history.md").write_text("\n".join(lines) + "\n")
    print(f"{caught}/{accepted} accepted chains caught; wrote {RESULTS / 'audit_history.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
