"""``attnbounds reproduce``: experiments E1–E5 of the paper on a real model and text."""

from __future__ import annotations

import json
from pathlib import Path

import click

from attnbounds.cli.common import UsageError, path_option


def _int_list(text: str | None, option: str):
    if text is None:
        return None
    try:
        items = text.replace(" ", "").split(",")
        if "" in items and items != [""]:
            raise ValueError
        values = [int(v) for v in items if v]
    except ValueError:
        raise UsageError(f"{option}: expected comma-separated integers, got {text!r}") from None
    if not values:
        raise UsageError(f"{option}: expected at least one integer")
    return tuple(values)


def _name_list(text: str | None):
    if not text:
        return ()
    return tuple(v.strip() for v in text.split(",") if v.strip())


# ExperimentSettings fields whose option is not "--" + the field with "-" for "_" (errors name
# the option, not the field)
_FLAGS = {"radius_multiplier": "--radius", "radius_multipliers": "--radius"}


def _settings_error(err: ValueError) -> UsageError:
    text = str(err)
    field, sep, rest = text.partition(": ")
    if not sep or not field.isidentifier():
        return UsageError(text)
    flag = _FLAGS.get(field, "--" + field.replace("_", "-"))
    options = {o for p in reproduce.params for o in getattr(p, "opts", ())}
    return UsageError(f"{flag}: {rest}" if flag in options else text)


#: The options that only --protocol last-query reads, with what the paper protocol does instead.
_LAST_QUERY_ONLY = {
    "--top-n": "uses the listings' N (E1: 5; E2: 1,5,10,20,100), for E4 (no N in its listing) 1,2,4,8,16,32,64, and E3's grid of step "
               "max(1, ⌊L/100⌋)",
    "--mc-samples": "takes the expectation from T1(ii)'s main term (indicators replaced by their means), not from random subsets",
    "--ks-grid": "tests E3's grid of step max(1, ⌊L/100⌋)",
    "--radius": "sets E4's radius to r = min over non-selected i of ‖s − α_i x_i‖",
}


def _verify(directory: str) -> None:
    from attnbounds.empirical import store

    if not Path(directory).is_dir():
        if Path(directory).exists():
            raise UsageError(f"--verify: {directory!r} is not a directory")
        raise UsageError(f"--verify: no such directory {directory!r}")
    problems = store.verify(directory)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        click.echo(f"{directory}: inconsistent: {problems[0]}{more}")
        for line in problems[1:]:
            click.echo(f"  {line}")
        raise click.exceptions.Exit(1)
    manifest = json.loads((Path(directory) / store.MANIFEST).read_text())
    click.echo(f"{directory}: consistent ({len(manifest['files'])} files match {store.MANIFEST}, run {manifest['run_id']})")


@click.command()
@click.option("--model", default=None, help="gpt2, gpt2-random, smollm2, minilm, gemma3 (the extra `gemma`), a local directory holding "
                   "config.json, the weights and the tokenizer files, or a hub id 'owner/name' read from the Hugging "
                   "Face cache (downloaded only when online; an id without owner, e.g. distilgpt2, only when cached).  [required unless --verify]")
@click.option("--text", "text", default=None, help="A text file, or gutenberg:ID (e.g. gutenberg:2600, War and Peace).  [required unless --verify]")
@click.option("--lengths", default=None, help="Comma-separated L values, each >= 2 [default: 32,64,128,256,512,1024 capped at the model's positions; --quick: 32,64,128].")
@click.option("--top-n", default=None, help="--protocol last-query: comma-separated N values; each L uses the N < L [default: 1,5,10,20,100; --quick: 1,5,10,20]. The paper protocol uses the listings' N (E1: 5; E2: 1,5,10,20,100), for E4 (no N in its listing) 1,2,4,…,64, for E3 a grid of step max(1, ⌊L/100⌋), and refuses this option.")
@click.option("--windows", type=int, default=None, help="Number of text windows [default: 4; --quick: 1].")
@click.option("--experiments", default="E1,E2,E3,E4,E5", show_default=True, help="Comma-separated subset of E1..E5.")
@click.option("--vectors", default="values", show_default=True, help="x_i: values, keys or hidden (each head's value vectors, its key vectors, or the layer's input hidden states).")
@click.option("--no-sphere", is_flag=True, help="Do not project x_i to the unit sphere.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every random draw (and of gpt2-random's weights).")
@click.option("--device", default="cpu", show_default=True, help="cpu or cuda.")
@click.option("--out", "out_dir", default="runs/reproduce", show_default=True, callback=path_option(stdout=False),
              help="Output directory (also holds the resume cache), created with its parent directories if missing.")
@click.option("--quick", is_flag=True, help="Small run: 1 window, L in 32,64,128; under --protocol last-query also N in 1,5,10,20 and fewer samples and temperatures (the paper protocol keeps the listings' N and temperatures).")
@click.option("--normalizers", default=None, help="What-if: recompute E1/E2 from the captured logits under these normalizers (comma-separated names or "
                   "specs, as `attnbounds check --normalizer` takes them; an unknown name lists the registered ones); "
                   "implies --protocol last-query.")
@click.option("--mc-samples", type=int, default=None, help="--protocol last-query: random subsets per (L, N) for E_S[d̃] [default: 16; --quick: 8].")
@click.option("--ks-grid", type=int, default=None, help="--protocol last-query: E3 grid points of N (0: every N in 1..L-1) [default: 24; --quick: 16].")
@click.option("--radius", type=float, default=None, help="--protocol last-query: E4 headline radius r = c·δ, this is c [default: 0.5].")
@click.option("--protocol", type=click.Choice(["paper", "last-query"]), default=None,
              help="paper: Appendix B's Algorithms 1–5 at every query position, per-head means; last-query: the last "
                   "row only [default: paper; last-query with --normalizers].")
@click.option("--rows", type=click.Choice(["prefix", "full"]), default="prefix", show_default=True,
              help="Paper protocol, causal models: a row's metric over its t visible keys (prefix) or over all L keys, masked ones with weight 0 (full).")
@click.option("--ks-alpha", type=float, default=None, help="E3's KS level [default: 0.01; the listing uses 0.05].")
@click.option("--e5-length", type=int, default=None, help="Paper protocol: the L of E5 [default: the largest L <= 256, else the smallest L].")
@click.option("--tile/--no-tile", default=True, show_default=True,
              help="Paper protocol: each shorter L also uses the windows of length L that tile the rest of each window "
                   "(one batched forward), so its per-head means rest on about as many positions as the longest L's.")
@click.option("--no-progress", is_flag=True, help="No progress bars (also none while the model loads).")
@click.option("--verify", "verify_dir", default=None, metavar="DIR", callback=path_option(stdout=False),
              help="Only check that DIR's files match its manifest.json (exit 1 if not); run nothing.")
def reproduce(model, text, lengths, top_n, windows, experiments, vectors, no_sphere, seed, device, out_dir, quick,
              normalizers, mc_samples, ks_grid, radius, protocol, rows, ks_alpha, e5_length, tile, no_progress, verify_dir):
    """Run experiments E1–E5 on captured attention and write tables, figures and a report to --out.

    The run locks --out, caches each window under a key of everything that determines its
    numbers (an interrupted run resumes), and replaces the results in one step, with a
    manifest.json that --verify checks.
    """
    from dataclasses import replace

    if verify_dir is not None:
        source = click.get_current_context().get_parameter_source
        extra = [("--tile" if tile else "--no-tile") if p.name == "tile" else p.opts[0] for p in reproduce.params
                 if p.name not in ("verify_dir", "no_progress") and source(p.name) == click.core.ParameterSource.COMMANDLINE]
        if extra:
            raise UsageError(f"--verify: checks DIR and runs nothing; drop {', '.join(extra)}")
        _verify(verify_dir)
        return
    for flag, value in (("--model", model), ("--text", text)):
        if value is None:
            raise UsageError(f"{flag}: required (or use --verify DIR)")
    from attnbounds.empirical import store

    try:  # first, and before the heavier imports: a bad --out is reported at once
        store.check_output_dir(out_dir)
    except store.OutputDirError as err:
        raise UsageError(str(err)) from None

    if (protocol or ("last-query" if normalizers else "paper")) == "paper":
        given = {"--top-n": top_n, "--mc-samples": mc_samples, "--ks-grid": ks_grid, "--radius": radius}
        for flag, instead in _LAST_QUERY_ONLY.items():
            if given[flag] is not None:
                raise UsageError(f"{flag}: used by --protocol last-query only; the paper protocol {instead}")
    else:  # an explicit --rows (even its default) or --tile is refused too, not ignored
        source = click.get_current_context().get_parameter_source
        for param, flag in (("rows", "--rows"), ("tile", "--tile" if tile else "--no-tile")):
            if source(param) == click.core.ParameterSource.COMMANDLINE:
                from attnbounds.empirical.run import PAPER_ONLY

                raise UsageError(f"{flag}: used by --protocol paper only; {PAPER_ONLY[flag]}")
    from attnbounds.empirical import experiments as ex
    from attnbounds.empirical import run

    settings = run.QUICK_SETTINGS if quick else ex.ExperimentSettings()
    changes = {}
    if mc_samples is not None:
        changes["mc_samples"] = mc_samples
    if ks_grid is not None:
        changes["ks_grid"] = ks_grid
    if radius is not None:
        changes["radius_multiplier"] = radius
    if ks_alpha is not None:
        changes["ks_alpha"] = ks_alpha
    try:
        settings = replace(settings, **changes)
    except (TypeError, ValueError) as err:
        raise _settings_error(err) from None
    tn = _int_list(top_n, "--top-n")
    config = run.ReproduceConfig(
        model=model,
        text=text,
        lengths=_int_list(lengths, "--lengths"),
        top_n=tn,
        windows=windows if windows is not None else (1 if quick else 4),
        experiments=_name_list(experiments),
        vectors=vectors,
        sphere=not no_sphere,
        seed=seed,
        device=device,
        normalizers=_name_list(normalizers),
        quick=quick,
        protocol=protocol,
        rows=rows,
        e5_length=e5_length,
        tile=tile,
        settings=settings,
    )
    try:
        results = run.run_reproduce(config, out_dir, progress=not no_progress)
    except (run.ConfigError, store.OutputLocked) as err:
        raise UsageError(str(err)) from None
    except KeyboardInterrupt as err:  # say what a rerun will find (the group's message promised a resume either way)
        saved = getattr(err, "windows_saved", 0)  # this run's windows only (not every file in the cache: trial 133)
        what = (f"{saved} finished window(s) of this run are saved in {store.WindowCache(out_dir).dir}: rerun the same "
                "command to resume from them" if saved else "no window of this run had finished, so it saved nothing")
        click.echo(f"Interrupted: {what}.", err=True)
        click.get_current_context().exit(130)
    click.echo(f"wrote {out_dir}/results.json, report.md, {len(results['files'])} tables and figures")
    timing = results.get("timing") or {}
    if timing.get("cached_windows"):
        total = len(timing.get("per_window") or []) or len(timing["cached_windows"])
        click.echo(f"  {len(timing['cached_windows'])} of {total} windows came from the cache in {out_dir} "
                   "(computed by an earlier run with the same settings)")
    for key, item in results["headline"].items():
        why = f"; {item['why']}" if item.get("why") else ""
        click.echo(f"  {key}: {item['measured']}  (paper: {item['paper']}{why})")
