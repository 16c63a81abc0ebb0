"""The ``attnbounds`` command line: ``claims``, ``derive``, ``check``, ``reproduce``.

Subcommands are imported lazily so that ``attnbounds claims`` does not pay for torch.
"""

from __future__ import annotations

import importlib

import click

# command name -> (module, attribute)
_COMMANDS = {
    "claims": ("attnbounds.cli.claims", "claims"),
    "derive": ("attnbounds.cli.derive", "derive"),
    "check": ("attnbounds.cli.check", "check"),
    "reproduce": ("attnbounds.cli.reproduce", "reproduce"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return [name for name, (mod, _) in _COMMANDS.items() if importlib.util.find_spec(mod)]

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        mod, attr = _COMMANDS[name]
        return getattr(importlib.import_module(mod), attr)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="attnbounds")
def main():
    """Check theorems about attention: symbolically, numerically, and on real models."""
