"""Regenerate the committed experiment outputs shown on the Experiments page.

Run by ``make experiments-docs``::

    python docs/generate_experiments.py [--text PATH] [MODEL ...]

For each model of ``docs/_ext/experimentpages.py`` (``MODELS``), or the ones named, it runs
the model's command there (the paper protocol at the paper's scale: L up to 1024, capped at
the model's positions, all heads, two windows) with ``--out runs/experiments-docs/MODEL``,
from scratch (``--resume`` keeps the resume cache, which lives under ``runs/``, ignored by
git), and copies what the page shows into ``docs/_generated/experiments/MODEL/``:
``report.md``, ``results.json``, the PNG figures and the small tables ``heads_summary.csv``,
``critical_n.csv``, ``positions.csv`` and ``multihead.csv``. ``heads.csv`` stays in ``runs/`` (``results.json`` holds the numbers
the report quotes).
A model whose run fails keeps its previous committed outputs and the script exits with 1.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import experimentpages  # noqa: E402
import verdict_store  # noqa: E402

RUNS_DIR = verdict_store.REPO_ROOT / "runs" / "experiments-docs"


def _default_text() -> str:
    corpus = verdict_store.REPO_ROOT.parent / "shared" / "corpus" / "war_and_peace.txt"
    return str(corpus) if corpus.exists() else "gutenberg:2600"


def run_model(model: str, text: str, resume: bool = False) -> Path:
    import shlex

    out = RUNS_DIR / model
    if not resume:
        # A fresh run: the resume cache may hold tables computed by older code.
        shutil.rmtree(out, ignore_errors=True)
    page_command = next(cmd for name, _, cmd in experimentpages.MODELS if name == model)
    args = shlex.split(page_command)[2:]  # after "attnbounds reproduce"
    args[args.index("--text") + 1] = text
    command = [sys.executable, "-m", "attnbounds", "reproduce", *args, "--no-progress", "--out", str(out)]
    print("$", " ".join(command[2:]), flush=True)
    subprocess.run(command, cwd=verdict_store.REPO_ROOT, check=True)
    return out


def publish(model: str, out: Path) -> Path:
    """Copy the outputs the docs show from ``out`` to docs/_generated/experiments/MODEL."""
    for needed in ("report.md", "results.json"):
        if not (out / needed).exists():
            raise FileNotFoundError(f"{out / needed} was not written by attnbounds reproduce")
    target = experimentpages.EXPERIMENTS_DIR / model
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for path in sorted(out.iterdir()):
        keep = path.name in ("report.md", "results.json", "heads_summary.csv", "critical_n.csv", "positions.csv",
                             "multihead.csv") or path.suffix == ".png"
        if path.is_file() and keep:
            shutil.copy2(path, staging / path.name)
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)
    return target


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="models to run (default: all on the Experiments page)")
    parser.add_argument("--text", default=_default_text(), help="text file or gutenberg:ID")
    parser.add_argument("--resume", action="store_true", help="reuse the resume cache under runs/experiments-docs/")
    args = parser.parse_args(argv)
    known = [name for name, _, _ in experimentpages.MODELS]
    models = args.models or known
    unknown = [m for m in models if m not in known]
    if unknown:
        parser.error(f"models: unknown {unknown}; valid: {known}")
    failed = []
    for model in models:
        try:
            print(f"published {publish(model, run_model(model, args.text, args.resume))}")
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            print(f"{model}: {exc}", file=sys.stderr)
            failed.append(model)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
