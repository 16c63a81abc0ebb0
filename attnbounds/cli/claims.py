"""``attnbounds claims [ID] [--latex] [--json]``."""

from __future__ import annotations

import click

from attnbounds import claims as registry
from attnbounds.cli.common import UsageError, write_json


@click.command()
@click.argument("claim_id", required=False)
@click.option("--latex", is_flag=True, help="Print LaTeX forms instead of plain text.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
def claims(claim_id, latex, as_json):
    """List the claims, or print claim CLAIM_ID in full."""
    if claim_id is None:
        items = registry.all_claims()
        if as_json:
            write_json([c.to_dict() for c in items], None)
            return
        for c in items:
            text = c.transcription_latex if latex else c.statement
            click.echo(f"{c.id:<5} {c.title}\n      {text}")
        return
    try:
        c = registry.get(claim_id)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    if as_json:
        write_json(c.to_dict(), None)
        return
    click.echo(f"{c.id}: {c.title}")
    click.echo(f"Source: {c.source}")
    click.echo(f"Statement: {c.statement}")
    click.echo(f"Transcription: {c.transcription_latex if latex else c.transcription}")
    click.echo("Hypotheses:")
    for h in c.hypotheses:
        click.echo(f"  - {h.name}: {h.statement}")
    click.echo("Readings:")
    for r in c.readings:
        click.echo(f"  - {c.id}:{r.name}: {r.latex if latex else r.statement}")
        click.echo(f"      methods: {', '.join(r.methods) or 'none'}")
    if c.derivations:
        click.echo(f"Derivations: {', '.join(c.derivations)} (attnbounds derive NAME)")
