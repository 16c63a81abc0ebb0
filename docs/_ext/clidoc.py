"""The CLI reference and sample CLI output, generated from the click objects.

Fences (expanded by :mod:`generated_blocks`):

``{cli-reference}``
    one section per command of ``attnbounds.cli.main``: its help, usage line and a table of
    every argument and option (flags, type, default, help);
``{cli-output} attnbounds ARGS...``
    runs the command in-process (``click.testing.CliRunner``) at build time and shows what it
    prints, so sample output is real output. A non-zero exit status fails the build.
"""

from __future__ import annotations

import shlex

import click
from click.testing import CliRunner
from sphinx.application import Sphinx

import generated_blocks
from markdown_text import escape


def _param_row(param: click.Parameter, ctx: click.Context) -> list[str]:
    if isinstance(param, click.Argument):
        names = f"`{param.human_readable_name}`"
        kind = "argument" + ("" if param.required else " (optional)")
        if param.nargs == -1:
            kind += ", any number"
    else:
        flags = [*param.opts, *param.secondary_opts]
        names = ", ".join(f"`{f}`" for f in flags)
        kind = "flag" if getattr(param, "is_flag", False) else "option"
        if param.required:
            kind += " (required)"
        if param.multiple:
            kind += ", repeatable"
    if getattr(param, "is_flag", False):
        type_name = ""
    elif isinstance(param.type, click.Choice):
        type_name = "one of " + ", ".join(str(c) for c in param.type.choices)
    else:
        type_name = param.type.name
    default = param.default
    shown_default = ""
    if not (_unset(default) or callable(default) or getattr(param, "is_flag", False) or default == ()):
        shown_default = f"`{default!r}`"
    help_text = escape(getattr(param, "help", None) or "")
    return [names, escape(kind), escape(str(type_name)), shown_default, help_text]


def _unset(value) -> bool:
    """None, or click's UNSET sentinel (click >= 8.3) for a parameter without a default."""
    return value is None or type(value).__name__ == "Sentinel"


def _table(rows: list[list[str]]) -> str:
    lines = ["```{list-table}", ":header-rows: 1", ":widths: 22 14 14 12 38", ""]
    for row in [["Name", "Kind", "Type", "Default", "Help"], *rows]:
        for i, cell in enumerate(row):
            lines.append(("* - " if i == 0 else "  - ") + cell)
    lines.append("```")
    return "\n".join(lines)


def _command_section(name: str, command: click.Command, parent: click.Context) -> str:
    ctx = click.Context(command, info_name=name, parent=parent)
    usage = command.collect_usage_pieces(ctx)
    md = [f"(cli-{name.replace(' ', '-')})=", f"## `{ctx.command_path}`", ""]
    md += [f"```text\nUsage: {ctx.command_path} {' '.join(usage)}\n```", ""]
    help_text = inspect_help(command)
    if help_text:
        md += [escape(p) + "\n" for p in help_text.split("\n\n")]
    params = [p for p in command.get_params(ctx)]
    md += [_table([_param_row(p, ctx) for p in params]), ""]
    return "\n".join(md)


def inspect_help(command: click.Command) -> str:
    return (command.help or "").strip()


@generated_blocks.generator("cli-reference")
def cli_reference(argument: str, env):
    from attnbounds.cli import main

    root = click.Context(main, info_name="attnbounds")
    md = ["```text\nUsage: attnbounds [OPTIONS] COMMAND [ARGS]...\n```", "", escape(inspect_help(main)), ""]
    md += [_table([_param_row(p, root) for p in main.get_params(root)]), ""]
    names = main.list_commands(root)
    md += ["Commands: " + ", ".join(f"{{ref}}`{n} <cli-{n}>`" for n in names) + ".", ""]
    for name in names:
        command = main.get_command(root, name)
        md.append(_command_section(name, command, root))
    return "\n".join(md), []


@generated_blocks.generator("cli-output")
def cli_output(argument: str, env):
    from attnbounds.cli import main

    words = shlex.split(argument)
    if not words or words[0] != "attnbounds":
        raise ValueError(f"cli-output: expected 'attnbounds ...', got {argument!r}")
    result = CliRunner().invoke(main, words[1:], catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"`{argument}` exited with status {result.exit_code}: {result.output[-500:]}")
    fence = "````" if "```" in result.output else "```"
    return f"{fence}console\n$ {argument}\n{result.output.rstrip()}\n{fence}", []


def setup(app: Sphinx) -> dict:
    app.setup_extension("generated_blocks")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


@generated_blocks.generator("example-output")
def example_output(argument: str, env):
    """Run ``python PATH`` (relative to the repository root) and show what it prints."""
    import subprocess
    import sys

    import verdict_store

    path = verdict_store.REPO_ROOT / argument
    if not path.is_file():
        raise FileNotFoundError(f"example-output: no file {argument}")
    done = subprocess.run(
        [sys.executable, str(path)], cwd=verdict_store.REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"`python {argument}` exited with status {done.returncode}: {done.stderr[-800:]}")
    return f"```console\n$ python {argument}\n{done.stdout.rstrip()}\n```", [path]
