"""The experiments page, from the committed outputs of ``attnbounds reproduce``.

``make experiments-docs`` (``docs/generate_experiments.py``) runs ``attnbounds reproduce``
for each model of :data:`MODELS` and copies its outputs (``report.md``, PNG figures,
``results.json``) to ``docs/_generated/experiments/<model>/``. The fence ``{experiments}`` renders each
model's report (its figures included) or, when a model's outputs are not there, says so
and shows the command that produces them. Nothing is invented.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx

import generated_blocks
import verdict_store
from markdown_text import escape

EXPERIMENTS_DIR = verdict_store.GENERATED_DIR / "experiments"

#: (directory name, title, the command ``make experiments-docs`` runs for it)
MODELS: tuple[tuple[str, str, str], ...] = (
    (
        "gpt2-random",
        "GPT-2-small shape, random weights (the control)",
        "attnbounds reproduce --model gpt2-random --text ../shared/corpus/war_and_peace.txt --windows 2",
    ),
    (
        "smollm2",
        "SmolLM2-135M-Instruct (pretrained; its packaged Q4_1 GGUF, dequantized)",
        "attnbounds reproduce --model smollm2 --text ../shared/corpus/war_and_peace.txt --windows 2",
    ),
    (
        "minilm",
        "all-MiniLM-L6-v2 (a sentence-embedding encoder, L up to 512)",
        "attnbounds reproduce --model minilm --text ../shared/corpus/war_and_peace.txt --windows 2",
    ),
    (
        "gemma3",
        "Gemma-3-270M (pretrained; its packaged Q4_K_M GGUF, dequantized)",
        "attnbounds reproduce --model gemma3 --text ../shared/corpus/war_and_peace.txt --windows 2",
    ),
)

_FIGURE_SUFFIXES = (".svg", ".png")


def _figures(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.suffix in _FIGURE_SUFFIXES)


def _rel(path: Path, env) -> str:
    import os

    page_dir = Path(env.srcdir) / Path(env.docname).parent
    return Path(os.path.relpath(path, page_dir)).as_posix()


def _model_section(name: str, title: str, command: str, env) -> tuple[list[str], list[Path]]:
    directory = EXPERIMENTS_DIR / name
    md = [f"## {escape(title)}", ""]
    report = directory / "report.md"
    results = directory / "results.json"
    if not directory.is_dir() or not (report.exists() or results.exists()):
        md += [
            "```{note}",
            f"These results have not been generated yet (`docs/_generated/experiments/{name}/` does not "
            "exist). `make experiments-docs` produces them by running:",
            "",
            f"    {command}",
            "```",
            "",
        ]
        return md, []
    deps: list[Path] = []
    md += [f"Produced by `{command}` (`make experiments-docs`).", ""]
    if report.exists():
        md += ["```{include} " + _rel(report, env), ":relative-images:", ":heading-offset: 2", "```", ""]
        deps.append(report)
    else:
        for figure in _figures(directory):
            md += [f"```{{figure}} {_rel(figure, env)}", ":width: 90%", "", escape(figure.stem), "```", ""]
    if results.exists():
        json.loads(results.read_text())  # a corrupt results file fails the build
        md += [
            f"Raw numbers: {{download}}`results.json <{_rel(results, env)}>`. Of the CSV tables the report "
            f"names, `heads_summary.csv`, `critical_n.csv`, `positions.csv` and `multihead.csv` are committed "
            f"beside it; `heads.csv` and "
            f"`ks_scan.csv` are written to `runs/experiments-docs/{name}/` and are not committed.",
            "",
        ]
        deps.append(results)
    return md, deps


_HEADLINE_NAMES = {
    "d_tilde_slope": "log-log slope of d̃ in L (E1, N = 5)",
    "e2_plateau_n": "N where E2 plateaus",
    "ns_saturation": "N_s/N saturation level (E4)",
    "ns_saturation_n": "N where N_s/N saturates (E4)",
    "e5_slope": "slope of max-over-heads g(T), T ≤ 0.1 (E5, ε = 1e-3)",
    "e5_ratio": "g at T ≤ 0.1 / g at T ≥ 1 (E5, ε = 1e-3)",
    "distance_vs_L": "d̃ vs L (E1)",
    "n_crit_over_L": "N_crit / L (E3; median over windows, largest L)",
    "separability": "N_s / N (E4)",
    "gradient_slope": "log-log slope of g(T), T ≤ 0.1 (E5)",
    "gradient_ratio": "g at low T / g at T ≥ 1 (E5)",
}


def comparison_table() -> tuple[list[str], list[Path]]:
    """Headline numbers of every generated model side by side with the paper's."""
    results = {}
    for name, title, _ in MODELS:
        path = EXPERIMENTS_DIR / name / "results.json"
        if path.exists():
            results[name] = (title, json.loads(path.read_text()), path)
    if not results:
        return [], []
    keys: list[str] = []
    for _, data, _ in results.values():
        keys += [k for k in data.get("headline", {}) if k not in keys]
    header = ["Quantity", *(escape(title.split(" (")[0]) for title, _, _ in results.values()), "Paper (GPT-2)"]
    rows = []
    for key in keys:
        paper = next((d["headline"][key].get("paper", "") for _, d, _ in results.values() if key in d.get("headline", {})), "")
        cells = [escape(_HEADLINE_NAMES.get(key, key))]
        cells += [escape(str(d.get("headline", {}).get(key, {}).get("measured", "not measured"))) for _, d, _ in results.values()]
        rows.append([*cells, escape(str(paper))])
    lines = ["## Comparison with the paper", "",
             "From each model's `results.json` (`headline`, the paper protocol: every query position, per-head means; "
             "definitions in `attnbounds.empirical.paper_report`), measured as reported below.", ""]
    lines += ["```{list-table}", ":header-rows: 1", ""]
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            lines.append(("* - " if i == 0 else "  - ") + cell)
    lines += ["```", ""]
    return lines, [path for _, _, path in results.values()]


@generated_blocks.generator("experiments")
def experiments(argument: str, env):
    md, deps = comparison_table()
    for name, title, command in MODELS:
        section, section_deps = _model_section(name, title, command, env)
        md += section
        deps += section_deps
    return "\n".join(md), deps


def setup(app: Sphinx) -> dict:
    app.setup_extension("generated_blocks")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
