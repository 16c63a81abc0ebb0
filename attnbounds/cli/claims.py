"""``attnbounds claims [ID] [--latex] [--json] [--claims SPEC]``."""

from __future__ import annotations

from collections import Counter

import click

from attnbounds import claims as registry
from attnbounds.claims.base import _domain_text
from attnbounds.cli.common import UsageError, claims_options, did_you_mean, load_user_claims, write_json


@click.command()
@click.argument("claim_id", required=False)
@click.option("--latex", is_flag=True, help="Print LaTeX forms instead of plain text: the transcription's and the "
                                              "readings' (a claim's statement and hypotheses are plain text).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--claims", "claim_specs", multiple=True, metavar="SPEC",
              help="Show your own claims instead of the package's: a file 'path/to/my_claim.py' or "
                   "'module:object' (repeatable), as `check --claims` takes them.")
def claims(claim_id, latex, as_json, claim_specs):
    """List the claims, or print claim CLAIM_ID in full."""
    if latex and as_json:  # the JSON carries both forms (transcription_latex, each reading's latex)
        raise UsageError("--latex: not with --json, whose output has both the plain and the LaTeX forms")
    user = None
    if claim_specs:
        user = load_user_claims(claim_specs)
    if claim_id is None:
        items = registry.all_claims() if user is None else user
        if as_json:
            write_json([c.to_dict() for c in items], None)
            return
        count = Counter(c.id for c in items)
        for c in items:  # an id two listed claims share is shown with its paper, as `check` shows it
            text = c.transcription_latex if latex else c.statement
            shown = c.id if count[c.id] == 1 else f"{c.paper or 'user'}:{c.id}"
            click.echo(f"{shown:<5} {c.title}\n      {text}")
        return
    if user is not None:
        c = _user_claim(claim_id, user)
    else:
        try:
            c = registry.get(claim_id)
        except KeyError as exc:
            raise UsageError(_unknown_claim_text(claim_id, str(exc.args[0]))) from None
    if as_json:
        write_json(c.to_dict(), None)
        return
    click.echo(f"{c.id}: {c.title}")
    click.echo(f"Source: {c.source}")
    # a claim's statement and hypotheses are prose; only the transcription and the readings have LaTeX forms
    click.echo(f"Statement{' (plain text: only the transcription and the readings have LaTeX forms)' if latex else ''}: "
               f"{c.statement}")
    click.echo(f"Transcription: {c.transcription_latex if latex else c.transcription}")
    click.echo("Hypotheses:")
    for h in c.hypotheses:
        click.echo(f"  - {h.name}: {h.statement}")
        if h.drop is not None:
            click.echo(f"      check {c.id}:without-{h.name} shows that it is needed")
    click.echo("Readings:")
    for r in c.readings:
        click.echo(f"  - {c.id}:{r.name}: {r.latex if latex else r.statement}")
        click.echo(f"      methods: {', '.join(r.methods) or 'none'}")
        if r.domain is not None:  # a certificate's tie: the stated domain, in locate's coordinates (trial 49)
            click.echo(f"      domain (locate's coordinates): {_domain_text(r.domain)}")
    if c.derivations:
        how = "attnbounds derive NAME" if user is None else f"attnbounds derive {claims_options(claim_specs)} NAME"
        click.echo(f"Derivations: {', '.join(c.derivations)} ({how})")


def _user_claim(claim_id: str, user: list):
    """The claim CLAIM_ID among the ``--claims`` claims (its id, or ``<paper>:<id>``), else a usage
    error: a reading id names its claim, an unknown one the close matches."""
    def paper(c):
        return c.paper or "user"

    found = [c for c in user if claim_id in (c.id, f"{paper(c)}:{c.id}")]
    if len({id(c) for c in found}) == 1:
        return found[0]
    if found:
        names = ", ".join(f"{paper(c)}:{c.id}" for c in found)
        raise UsageError(f"CLAIM_ID: {claim_id!r} is ambiguous among the --claims files: {names}")
    head, _, rest = claim_id.partition(":")
    if rest and head in {paper(c) for c in user}:  # qualified: paper:claim[:reading]
        cid, _, part = rest.partition(":")
        mine = [c for c in user if paper(c) == head and c.id == cid]
    else:
        cid, part = head, rest
        mine = [c for c in user if c.id == cid]
    if mine and part:
        raise UsageError(_reading_part_text(claim_id, mine[0], part, f"attnbounds claims {mine[0].id} --claims ..."))
    ids = [c.id for c in user]
    raise UsageError(f"CLAIM_ID: unknown claim {claim_id!r}{did_you_mean(claim_id, ids)}; the --claims files define "
                     f"{', '.join(ids)}")


def _reading_part_text(claim_id: str, claim, part: str, command: str) -> str:
    """The error for a CLAIM_ID ``<claim>:<part>``: a reading (or hypothesis-drop) id of the claim,
    or an unknown one with the close matches; ``command`` prints the claim."""
    # the hypothesis-drop ids that `check` runs: the hypotheses with a drop demonstration
    names = [r.name for r in claim.readings] + [f"without-{h.name}" for h in claim.hypotheses if h.drop is not None]
    if part in names:
        return (f"CLAIM_ID: {claim_id!r} is a reading (or hypothesis-drop) id of claim {claim.id}, not a "
                f"claim id; `{command}` prints the claim with its readings")
    return (f"CLAIM_ID: unknown claim {claim_id!r}: claim {claim.id} has no reading {part!r}"
            f"{did_you_mean(part, names)}; `{command}` lists its readings")


def _unknown_claim_text(claim_id: str, text: str) -> str:
    """The error for an unknown CLAIM_ID: named as the argument, with the close matches, the
    claim of a reading id (``L1:transcribed`` -> ``attnbounds claims L1``) and the claim ids."""
    if not text.startswith("unknown claim"):
        return f"CLAIM_ID: {text}"  # e.g. an ambiguous short id, which names the qualified ones
    ids = list(registry.ids())
    try:
        claim, part = registry.split_id(claim_id)
    except (KeyError, ValueError):
        claim, part = None, ""
    if claim is not None and part:
        return _reading_part_text(claim_id, claim, part, f"attnbounds claims {claim.id}")
    broken = text.partition(" (claim modules that failed to load")[2]
    broken = f" (claim modules that failed to load{broken}" if broken else ""
    return (f"CLAIM_ID: unknown claim {claim_id!r}{did_you_mean(claim_id, ids)}; "
            f"`attnbounds claims` lists the claims: {', '.join(ids)}{broken}")
