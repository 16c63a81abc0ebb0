"""Benchmark ``reproduce --protocol paper`` against the naive peer (benchmarks/naive_listings.py).

Whole processes under ``/usr/bin/time -v`` (wall time, peak RSS), GPT-2-small shape with
random weights, the shared corpus, one window:

1. E1 at L ∈ {64, 128, 256, 512, 1024}, N = 5, every query position: ours against the
   peer (Python loops over layers, heads and t; one ``output_attentions`` forward per L).
   Targets: ≥ 10× faster, ≤ ½ the peer's peak memory; the per-head means must agree.
2. The full paper-scale run (E1–E5, L ≤ 1024): ≤ 5 min and ≤ 2 GB; metric time ≤ forward time.

Writes benchmarks/results/reproduce_paper.json (with the load average before and after).

    python benchmarks/bench_reproduce_paper.py [--skip-peer] [--skip-full]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus" / "war_and_peace.txt"
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_reproduce import timed  # noqa: E402

E1_LENGTHS = "64,128,256,512,1024"


def _ours_e1(path: Path) -> dict:
    out = {}
    with open(path) as fh:
        for r in csv.DictReader(fh):
            if r["experiment"] == "E1":
                out[f"0/{r['L']}/{r['layer']}/{r['head']}/{r['N']}/{r['metric']}"] = float(r["value"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--skip-full", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "reproduce_paper.json"))
    args = ap.parse_args()
    assert CORPUS.is_file(), f"corpus missing: {CORPUS}"
    py = sys.executable
    result = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_start": os.getloadavg()},
              "setup": {"model": "gpt2-random (GPT-2 small shape, 12 layers × 12 heads)", "windows": 1}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ours = timed([py, "-m", "attnbounds", "reproduce", "--model", "gpt2-random", "--text", str(CORPUS),
                      "--experiments", "E1", "--lengths", E1_LENGTHS, "--windows", "1", "--out", str(tmp / "ours"),
                      "--no-progress"], tmp / "ours.log")
        res = json.loads((tmp / "ours" / "results.json").read_text())
        ours.update(forward_seconds=res["timing"]["forward_seconds"], metric_seconds=res["timing"]["metric_seconds"],
                    model_load_seconds=res["timing"]["model_load_seconds"])
        result["e1"] = {"lengths": E1_LENGTHS, "N": 5, "ours": ours}
        if not args.skip_peer:
            peer = timed([py, str(ROOT / "benchmarks" / "naive_listings.py"), "--text", str(CORPUS), "--lengths", E1_LENGTHS,
                          "--top-n", "5", "--out", str(tmp / "peer.json")], tmp / "peer.log")
            pres = json.loads((tmp / "peer.json").read_text())
            peer.update(forward_seconds=pres["forward_seconds"], metric_seconds=pres["metric_seconds"])
            mine = _ours_e1(tmp / "ours" / "heads.csv")
            rel = [abs(mine[k] - v) / max(abs(v), 1e-300) for k, v in pres["values"].items() if k in mine]
            result["e1"]["peer"] = peer
            result["e1"]["compared_values"] = len(rel)
            result["e1"]["max_relative_difference"] = max(rel) if rel else None
            speed = peer["wall_seconds"] / ours["wall_seconds"]
            mem = ours["peak_rss_mib"] / peer["peak_rss_mib"]
            result["e1"]["targets"] = {"speedup": speed, "speedup_target": 10, "speedup_met": speed >= 10,
                                       "memory_ratio": mem, "memory_target": 0.5, "memory_met": mem <= 0.5}
            print(json.dumps(result["e1"]["targets"], indent=1), flush=True)
        if not args.skip_full:
            full = timed([py, "-m", "attnbounds", "reproduce", "--model", "gpt2-random", "--text", str(CORPUS),
                          "--windows", "1", "--out", str(tmp / "full"), "--no-progress"], tmp / "full.log")
            fres = json.loads((tmp / "full" / "results.json").read_text())
            full.update(forward_seconds=fres["timing"]["forward_seconds"], metric_seconds=fres["timing"]["metric_seconds"],
                        model_load_seconds=fres["timing"]["model_load_seconds"], paper_table=fres["paper_table"])
            full["targets"] = {"wall_target_s": 300, "wall_met": full["wall_seconds"] <= 300,
                               "memory_target_mib": 2048, "memory_met": full["peak_rss_mib"] <= 2048,
                               "metric_over_forward": full["metric_seconds"] / full["forward_seconds"],
                               "metric_met": full["metric_seconds"] <= full["forward_seconds"]}
            result["full"] = full
            print(json.dumps(full["targets"], indent=1), flush=True)
    result["machine"]["loadavg_end"] = os.getloadavg()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
