"""The check table reads at 80 columns: one line per row, its evidence on two lines below."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from attnbounds.cli.check import WIDE, render_table

ROWS = json.loads((Path(__file__).resolve().parents[2] / "docs" / "_generated" / "verdicts.json").read_text())


def _render(width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    render_table(ROWS, console)
    return console.file.getvalue().splitlines()


def test_at_80_columns_every_row_is_one_line_and_nothing_is_wider():
    lines = _render(80)
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    starts = [line.split()[0] for line in lines if line and not line.startswith(" ")]
    assert starts[0] == "id" and starts[1:1 + len(ROWS)] == [r["id"] for r in ROWS]  # every row, in order
    for r in ROWS:  # each row's line carries its verdict
        line = next(x for x in lines if x.startswith(r["id"] + " "))
        assert r["verdict"] in line
    # at most 1 header + 3 lines per row + the summary lines (the 80-column table used ~30 per row)
    assert len(lines) <= 1 + 3 * len(ROWS) + 3


def test_a_wide_terminal_keeps_the_full_table():
    lines = _render(WIDE + 30)
    assert lines[0].startswith("┏") and "evidence" in lines[1] and "methods" in lines[1]
