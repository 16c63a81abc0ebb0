"""``attnbounds derive [NAME] [--latex] [--json]``."""

from __future__ import annotations

import click

from attnbounds.cli.common import UsageError, claims_options, load_user_claims, write_json
from attnbounds.theory import derivation

#: The ``format`` of ``derive NAME --json``'s object (none before it). The lists that ``derive
#: --json`` and ``derive CLAIM --json`` print (``[{"name", "title"}]``) stay bare lists.
DERIVE_FORMAT = "attnbounds-derive/1"


@click.command()
@click.argument("name", required=False)
@click.option("--latex", is_flag=True, help="Print LaTeX instead of SymPy strings.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--claims", "claim_specs", multiple=True, metavar="SPEC",
              help="Load your own claims first (a file 'path/to/my_claim.py' or 'module:object', repeatable, as "
                   "`check --claims` takes them): the derivations they register become NAMEs, and their claim ids "
                   "list theirs.")
def derive(name, latex, as_json, claim_specs):
    """Print the closed forms of derivation NAME (no NAME: list the derivations; a claim id
    such as L2: list that claim's derivations)."""
    user = load_user_claims(claim_specs)
    if name is None:
        if as_json:
            write_json([{"name": n, "title": derivation.get(n).title} for n in derivation.names()], None)
            return
        for n in derivation.names():
            click.echo(f"{n:<14} {derivation.get(n).title}")
        return
    if name not in derivation.names():
        of_claim = _of_claim(name, user)
        if of_claim:  # a claim id: list that claim's derivations
            if as_json:
                write_json([{"name": n, "title": derivation.get(n).title} for n in of_claim], None)
                return
            how = "" if user is None else claims_options(claim_specs) + " "
            click.echo(f"{name}: {len(of_claim)} derivation(s); print one with `attnbounds derive {how}NAME`:")
            for n in of_claim:
                click.echo(f"{n:<14} {derivation.get(n).title}")
            return
    if name not in derivation.names() and _claims_named(name, user):
        raise UsageError(f"NAME: claim {name} names no derivation; `attnbounds derive"
                         f"{'' if user is None else ' ' + claims_options(claim_specs)}` lists them")
    try:
        data = derivation.to_json(name)
    except KeyError as exc:
        from attnbounds.claims.registry import ids
        from attnbounds.suggest import did_you_mean

        hint = did_you_mean(name, [*derivation.names(), *(ids() if user is None else [c.id for c in user])])
        raise UsageError(f"NAME: {exc.args[0]} (or a claim id such as L2, for its derivations){hint}") from None
    if as_json:
        write_json({"format": DERIVE_FORMAT, **data}, None)
        return
    click.echo(f"{data['name']}: {data['title']}")
    for key, res in data["results"].items():
        click.echo(f"  {key} = {res['latex'] if latex else res['expr']}")
        if "maximizer" in res:
            click.echo(f"      attained at: {res['maximizer']}")
        if "note" in res:
            click.echo(f"      {res['note']}")


def _claims_named(name: str, user=None) -> list:
    """The claims whose id (or paper-qualified id) is ``name``: the package's, or with ``--claims`` the user's."""
    if user is not None:
        return [c for c in user if name in (c.id, f"{c.paper}:{c.id}")]
    from attnbounds.claims import registry

    try:
        claim, rest = registry.split_id(name)
    except (KeyError, ValueError):
        return []
    return [claim] if not rest else []


def _of_claim(name: str, user=None) -> list[str]:
    """The derivations of claim ``name`` (``L2`` -> ``L2-generic``, ``L2-softmax``); with ``--claims``
    (``user``: the claims loaded), those its claim of that id names."""
    named = [n for c in _claims_named(name, user) for n in c.derivations]
    if user is None:  # (a trial: C3 names L2-softmax, and `derive C3` was refused)
        named += [n for n in derivation.names() if n.startswith(name + "-")]
    return list(dict.fromkeys(named))
