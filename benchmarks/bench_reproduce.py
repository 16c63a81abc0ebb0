"""Benchmark ``attnbounds reproduce`` against the naive peer (benchmarks/naive_e1.py).

Both run as whole processes under ``/usr/bin/time`` (wall time, peak RSS) on GPT-2-small
with random weights, E1 only, L ∈ {32..1024}, N ∈ {1,5,10,20,100}, 2 windows. Targets:
≥ 2.5× faster, ≤ half the peak memory, metric time ≤ 25% of forward time. Then the full
E1–E5 run on SmolLM2 with 4 windows is timed. Writes benchmarks/results/reproduce.json.

    python benchmarks/bench_reproduce.py [--skip-smollm2] [--windows 2]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import machine  # benchmarks/machine.py: the script's own directory is on sys.path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus" / "war_and_peace.txt"


def timed(cmd: list, log: Path, env: dict | None = None) -> dict:
    """Run ``cmd`` under /usr/bin/time -v (``env``: its environment, default ours); wall seconds
    and peak RSS (MiB) of the process (the largest of it and the children it waited for)."""
    timefile = log.with_suffix(".time")
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.run(["/usr/bin/time", "-v", "-o", str(timefile), *cmd], cwd=ROOT, stdout=fh,
                              stderr=subprocess.STDOUT, env=env)
    wall = time.perf_counter() - t0
    rss_kb = None
    cpu = 0.0
    for line in timefile.read_text().splitlines():
        if "Maximum resident set size" in line:
            rss_kb = int(line.split(":")[1])
        if "User time (seconds)" in line or "System time (seconds)" in line:
            cpu += float(line.split(":")[1])
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}); see {log}:\n{log.read_text()[-2000:]}")
    return {"wall_seconds": wall, "cpu_seconds": cpu, "peak_rss_mib": rss_kb / 1024 if rss_kb else None,
            "returncode": proc.returncode, "command": " ".join(str(c) for c in cmd)}


def mean_d_tilde(path: Path) -> float:
    with open(path) as fh:
        vals = [float(r["d_tilde"]) for r in csv.DictReader(fh) if r["normalizer"] == "captured"]
    return sum(vals) / len(vals)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--smollm2-windows", type=int, default=4)
    ap.add_argument("--skip-smollm2", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "reproduce.json"))
    args = ap.parse_args()
    assert CORPUS.is_file(), f"corpus missing: {CORPUS}"
    py = sys.executable
    result = {"machine": {**machine(), "loadavg_start": os.getloadavg()},
              "setup": {"model": "gpt2-random (GPT-2 small, 12×12 heads)", "lengths": "32..1024", "top_n": "1,5,10,20,100",
                        "windows": args.windows, "experiments": "E1", "mc_samples": 16}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ours_dir = tmp / "ours"
        ours = timed([py, "-m", "attnbounds", "reproduce", "--model", "gpt2-random", "--text", str(CORPUS),
                      "--protocol", "last-query", "--experiments", "E1", "--windows", str(args.windows), "--mc-samples", "16",
                      "--out", str(ours_dir),
                      "--no-progress"],
                     tmp / "ours.log")
        res = json.loads((ours_dir / "results.json").read_text())
        ours.update(forward_seconds=res["timing"]["forward_seconds"], metric_seconds=res["timing"]["metric_seconds"],
                    model_load_seconds=res["timing"]["model_load_seconds"], mean_d_tilde=mean_d_tilde(ours_dir / "distances.csv"))
        naive = timed([py, str(ROOT / "benchmarks" / "naive_e1.py"), "--text", str(CORPUS), "--windows", str(args.windows),
                       "--mc-samples", "16",
                       "--out", str(tmp / "naive.json")], tmp / "naive.log")
        nres = json.loads((tmp / "naive.json").read_text())
        naive.update(forward_seconds=nres["forward_seconds"], metric_seconds=nres["metric_seconds"],
                     mean_d_tilde=nres["mean_d_tilde"], rows=nres["rows"])
        result["gpt2_e1"] = {"ours": ours, "naive": naive}
        speedup = naive["wall_seconds"] / ours["wall_seconds"]
        mem = ours["peak_rss_mib"] / naive["peak_rss_mib"]
        share = ours["metric_seconds"] / ours["forward_seconds"]
        result["targets"] = {
            "speedup": speedup, "speedup_target": 2.5, "speedup_met": speedup >= 2.5,
            "memory_ratio": mem, "memory_target": 0.5, "memory_met": mem <= 0.5,
            "metric_over_forward": share, "metric_target": 0.25, "metric_met": share <= 0.25,
            "same_mean_d_tilde": abs(ours["mean_d_tilde"] - naive["mean_d_tilde"]) <= 1e-4 * abs(naive["mean_d_tilde"]),
        }
        print(json.dumps(result["targets"], indent=1), flush=True)
        if not args.skip_smollm2:
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(result, indent=2) + "\n")  # kept if the SmolLM2 part fails
        if not args.skip_smollm2:
            smol_dir = tmp / "smol"
            try:
                smol = timed([py, "-m", "attnbounds", "reproduce", "--model", "smollm2", "--text", str(CORPUS),
                              "--windows", str(args.smollm2_windows), "--out", str(smol_dir), "--no-progress"], tmp / "smol.log")
                sres = json.loads((smol_dir / "results.json").read_text())
                smol.update(forward_seconds=sres["timing"]["forward_seconds"], metric_seconds=sres["timing"]["metric_seconds"],
                            model_load_seconds=sres["timing"]["model_load_seconds"], headline=sres["headline"],
                            windows=args.smollm2_windows, experiments="E1-E5")
                result["smollm2_full"] = smol
                keep = ROOT / "benchmarks" / "results" / "reproduce_smollm2"
                keep.mkdir(parents=True, exist_ok=True)
                for f in ["results.json", "report.md", *[p.name for p in smol_dir.glob("*.png")]]:
                    (keep / f).write_bytes((smol_dir / f).read_bytes())
            except RuntimeError as err:
                result["smollm2_full"] = {"error": str(err)[-1500:]}
    result["machine"]["loadavg_end"] = os.getloadavg()
    out = Path(args.out)
    if args.skip_smollm2 and out.is_file():  # keep the SmolLM2 timing of an earlier run
        earlier = json.loads(out.read_text()).get("smollm2_full")
        if earlier:
            result["smollm2_full"] = {**earlier, "note": "from an earlier run of this script"}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
