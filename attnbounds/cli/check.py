"""``attnbounds check [IDS...] [--quick] [--examples K] [--seed S] [--time-limit S] [--json PATH] [--strict]``.

Judges each reading of the selected claims (default: all) with every method it has and
prints one row per reading: id, methods, verdict, evidence, seconds (see
:mod:`attnbounds.engine` for the verdicts and the row schema).

The budget is counted in work (Hypothesis examples, sweep instances, Monte Carlo samples;
exact methods run to completion), so the verdicts do not depend on the machine's load.
``--time-limit`` sets the wall-clock safety net per method (default
:data:`~attnbounds.engine.budget.HANG_GUARD_SECONDS`, a hang guard; 0: none); a method it
interrupts is marked ``(time limit)`` in the table and listed in the row's ``timed_out``.

Exit status: 0 when the run completed (a falsified transcription is a finding, not a
failure); 1 under ``--strict`` when a reading is falsified or a row reports a conflict, an
error or a method interrupted by the time limit; 1 under ``--expect PATH`` when a row's verdict
differs from the one recorded in PATH (or is not recorded there); 2 on usage errors; 130 when interrupted,
143 when stopped by SIGTERM (either way the rows finished so far are printed and, with ``--json``, written).

``--json PATH`` writes ``{"format", "meta", "rows"}`` (:mod:`attnbounds.engine.meta`: what the
run was, and the rows of :mod:`attnbounds.engine.rows`); it is rewritten after every row,
with ``meta.complete`` false until the run ends.

``--normalizer NAME`` judges the claims' own readings under another normalizer (rows keep
their ids, e.g. ``L1:reconstructed``) and ``--matrix`` loops over every normalizer
(:mod:`attnbounds.battery`).
"""

from __future__ import annotations

import importlib
import math
import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path

import click

from attnbounds.cli.common import (SignalHook, UsageError, check_writable_file, did_you_mean, load_user_claims,
                                   refuse_option_like, write_json)

_STYLE = {
    "proved": "bold green",
    "certified": "bold green",
    "holds": "green",
    "falsified": "bold red",
    "undecided": "yellow",
}
_LABEL = {"symbolic": "sym", "certify": "cert", "strategy": "hyp", "sweep": "sweep", "montecarlo": "mc", "drop": "drop"}


def _console(stderr: bool):
    from rich.console import Console

    console = Console(stderr=stderr, soft_wrap=False, emoji=False)  # ids such as my-notes:TV:x print literally
    if not console.is_terminal and console.width < 140 and not _columns_set():
        console.width = 140  # logs and pipes: room for the evidence column, unless COLUMNS says otherwise
    return console


def _columns_set() -> bool:
    """Whether the environment sets the width explicitly (``COLUMNS``, a positive integer), which
    rich's console then uses and :func:`_console` honours, on a terminal or not."""
    import os

    value = os.environ.get("COLUMNS", "").strip()
    return value.isdigit() and int(value) > 0


#: Below this console width the table is printed compactly (:func:`_render_compact`).
WIDE = 120


def _verdict_markup(row: dict) -> str:
    verdict = row["verdict"]
    shown = f"[{_STYLE.get(verdict, '')}]{verdict}[/]"
    if row.get("conflict"):
        shown = "[bold magenta]undecided: CONFLICT[/]"
    elif row.get("error"):
        shown += " [red](error)[/]"
    if row.get("timed_out"):
        shown += " [bold yellow](time limit)[/]"
    if row.get("hypotheses_broken"):
        # the verdict stands, but it is about weights outside the claim's hypotheses
        shown += " [yellow](hypothesis not met)[/]"
    return shown


def broken_note(row: dict) -> str:
    """What the evidence of a row judged under a normalizer starts with when the normalizer
    breaks hypotheses of the claim (the row's ``hypotheses_broken``); "" otherwise.

    >>> broken_note({"normalizer": "sparsemax", "hypotheses_broken": ["softmax"]})
    "hypothesis 'softmax' not met by sparsemax; "
    >>> broken_note({"normalizer": "sigmoid", "hypotheses_broken": ["softmax", "normalized"]}), broken_note({})
    ("hypotheses 'softmax', 'normalized' not met by sigmoid; ", '')
    """
    broken = row.get("hypotheses_broken") or []
    if not broken:
        return ""
    names = ", ".join(repr(str(h)) for h in broken)
    return f"hypothes{'is' if len(broken) == 1 else 'es'} {names} not met by {row.get('normalizer') or 'the normalizer'}; "


def _evidence(row: dict) -> str:
    return broken_note(row) + (row.get("evidence") or "")


def normalizer_of(rows: list[dict]) -> str | None:
    """The normalizer the rows were judged under (``check --normalizer``, which every row
    records), or None: one reading that names its own (``Reading(normalizer=...)``) among others
    does not make the whole table "under" it.

    >>> normalizer_of([{"normalizer": "ssmax"}, {"normalizer": "ssmax"}]), normalizer_of([{"id": "L1"}])
    ('ssmax', None)
    >>> normalizer_of([{"normalizer": "ssmax"}, {"id": "L1"}]) is None
    True
    """
    if not rows or not all(r.get("normalizer") for r in rows):
        return None
    return ", ".join(dict.fromkeys(str(r["normalizer"]) for r in rows))


def short_proof(proof: dict | None) -> str:
    """The proof column of the compact table: ``"k/n"``, ``"+m"`` sub-steps, ``argued`` or ``refused``.

    >>> short_proof({"steps": 4, "checked": 4, "substeps": 5, "status": "checked"}), short_proof(None)
    ('4/4 +5', '-')
    >>> short_proof({"steps": 1, "checked": 1, "status": "refuted"}), short_proof({"steps": 3, "checked": 2, "status": "argued"})
    ('exact cex', '2/3 argued')
    >>> short_proof({"steps": 1, "checked": 0, "status": "refused"})
    '0/1 refused'
    """
    if not proof:
        return "-"
    if proof.get("status") == "refuted":
        return "exact cex"
    text = f"{proof['checked']}/{proof['steps']}"
    if proof.get("substeps"):
        text += f" +{proof['substeps']}"
    from attnbounds.engine.rows import UNPROVED  # (the engine is imported where rows are rendered)

    return text + (f" {proof['status']}" if proof.get("status") in UNPROVED else "")


def _render_compact(rows: list[dict], console) -> None:
    """The table for a narrow terminal (under :data:`WIDE` columns): one line per row (id,
    verdict, proof k/n with +sub-steps, seconds) and its evidence on at most two indented
    lines below, cut with an ellipsis (the full text is in ``--json``)."""
    import textwrap

    from rich.markup import escape
    from rich.text import Text

    width = max(40, console.width)
    plain = [Text.from_markup(_verdict_markup(r)).plain for r in rows]
    wverdict = max([len(v) for v in plain] + [7])
    wproof = max([len(short_proof(r.get("proof"))) for r in rows] + [5])
    # the id gives way to the other columns (a verdict with "(hypothesis not met)" is wider)
    wid = min(max([len(str(r["id"])) for r in rows] + [2]), max(12, width - 14 - wverdict - wproof))
    normalizer = normalizer_of(rows)
    if normalizer:
        console.print(f"[bold]verdicts under normalizer {escape(normalizer)}[/]", soft_wrap=True)
    console.print(f"[bold]{'id':<{wid}}  {'verdict':<{wverdict}}  {'proof':<{wproof}}  {'s':>6}[/]", soft_wrap=True)
    for row, shown in zip(rows, plain):
        rid = str(row["id"])
        rid = rid if len(rid) <= wid else rid[: wid - 1] + "…"
        pad = " " * (wverdict - len(shown))
        console.print(f"{escape(rid):<{wid}}  {_verdict_markup(row)}{pad}  {short_proof(row.get('proof')):<{wproof}}  "
                      f"{row.get('seconds', 0) or 0:>6.1f}", soft_wrap=True, highlight=False)
        lines = textwrap.wrap(_evidence(row), width - 4, max_lines=2, placeholder=" …")
        for line in lines:
            console.print("    " + escape(line), soft_wrap=True, highlight=False, style="dim")


def render_table(rows: list[dict], console) -> None:
    """Print ``rows`` as a rich table (id, methods, verdict, evidence, seconds) and a summary;
    on a console narrower than :data:`WIDE` columns, compactly (:func:`_render_compact`)."""
    from rich.table import Table

    if console.width < WIDE:
        _render_compact(rows, console)
        _render_summary(rows, console)
        return
    normalizer = normalizer_of(rows)
    table = Table(show_lines=False, header_style="bold",
                  title=f"verdicts under normalizer {_escape(normalizer)}" if normalizer else None,
                  caption=_methods_legend(rows), caption_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("methods")
    table.add_column("verdict", no_wrap=True)
    table.add_column("proof", overflow="fold", max_width=36)
    table.add_column("evidence", overflow="fold")
    table.add_column("s", justify="right", no_wrap=True)
    for row in rows:
        methods = ",".join(_LABEL.get(m, m) for m in row.get("methods") or []) or "-"
        table.add_row(
            _escape(str(row["id"])), methods, _verdict_markup(row), _escape(proof_cell(row.get("proof"))),
            _escape(_evidence(row)), f"{row.get('seconds', 0):.1f}",
        )
    console.print(table)
    _render_summary(rows, console)


def _methods_legend(rows: list[dict]) -> str | None:
    """The table's caption: what the ``methods`` abbreviations in ``rows`` stand for, and the
    other two senses of "hypothesis" where the rows show them (the proof rule that uses a claim's
    assumption, a ``:without-NAME`` row), apart from the Hypothesis library's search (``hyp``).
    None when no row names a method.

    >>> _methods_legend([{"methods": ["symbolic", "strategy"], "proof": {"rules": ["hypothesis"]}},
    ...                  {"id": "L1:without-positive", "methods": ["drop"]}])
    "methods: sym a symbolic proof, hyp the Hypothesis library's counterexample search, drop a hypothesis check. \
In 'proof', the rule 'hypothesis' uses one of the claim's assumptions. A ':without-NAME' row drops assumption \
NAME (a hypothesis check)."
    >>> _methods_legend([{"methods": ["strategy", "sweep"]}])
    "methods: hyp the Hypothesis library's counterexample search, sweep a seeded sweep."
    """
    names = {"symbolic": "a symbolic proof", "certify": "an interval certificate",
             "strategy": "the Hypothesis library's counterexample search", "sweep": "a seeded sweep",
             "montecarlo": "Monte Carlo with a confidence interval", "drop": "a hypothesis check"}
    used = [m for m in names if any(m in (r.get("methods") or []) for r in rows)]
    if not used:
        return None
    text = "methods: " + ", ".join(f"{_LABEL.get(m, m)} {names[m]}" for m in used) + "."
    if any("hypothesis" in ((r.get("proof") or {}).get("rules") or []) for r in rows):
        text += " In 'proof', the rule 'hypothesis' uses one of the claim's assumptions."
    if any(":without-" in str(r.get("id", "")) for r in rows):
        text += " A ':without-NAME' row drops assumption NAME (a hypothesis check)."
    return text


def _render_summary(rows: list[dict], console) -> None:
    total = sum(r.get("seconds") or 0 for r in rows)
    normalizer = normalizer_of(rows)
    if normalizer:
        broken = [r for r in rows if r.get("hypotheses_broken")]
        names = ", ".join(dict.fromkeys(str(h) for r in broken for h in r["hypotheses_broken"]))
        note = f"; in {len(broken)}, {normalizer} does not meet a hypothesis of the claim ({names})" if broken else ""
        console.print(f"under normalizer {_escape(normalizer)}: {summary_line(rows)}{_escape(note)}; {total:.1f} s")
    else:
        console.print(f"{summary_line(rows)}; {total:.1f} s")
    conflicts = [r["id"] for r in rows if r.get("conflict") and "CONFLICT (a bug)" in (r.get("evidence") or "")]
    if conflicts:
        console.print(f"[bold magenta]CONFLICT (a bug: the methods disagree, in a claim's methods or in the "
                      f"proof kernel; each row's conflict says which): {', '.join(conflicts)}[/]")
    raised = [r["id"] for r in rows if r.get("conflict") and "CONFLICT (the bind raised)" in (r.get("evidence") or "")]
    if raised:
        console.print(f"[bold magenta]CONFLICT (the bind raised: the tie could not evaluate the proof's goal at the "
                      f"reading's instances; each row's conflict names the error): {', '.join(raised)}[/]")
    located = [r["id"] for r in rows
               if r.get("conflict") and "CONFLICT (the certificate's tie raised)" in (r.get("evidence") or "")]
    if located:
        console.print(f"[bold magenta]CONFLICT (the certificate's tie raised: its locate, or the reading's sides, failed "
                      f"at the reading's instances; each row's conflict names the error): {', '.join(located)}[/]")
    rest = [r for r in rows if r.get("conflict") and r["id"] not in conflicts + raised + located]
    uncertified = [r["id"] for r in rest if str(r["conflict"]).startswith("certify:")]
    if uncertified:
        console.print(f"[bold magenta]CONFLICT (the certificate is not of the reading's sides: its f(x) - bound, at the "
                      f"points its locate gives, is not the reading's lhs - rhs; each row's conflict says where): "
                      f"{', '.join(uncertified)}[/]")
    untied = [r["id"] for r in rest if r["id"] not in uncertified]
    if untied:
        console.print(f"[bold magenta]CONFLICT (the proof does not prove the reading: its goal, at the values its "
                      f"bind gives, is not the reading's sides; each row's conflict says where): {', '.join(untied)}[/]")
    timed = [r["id"] for r in rows if r.get("timed_out")]
    if timed:
        console.print(f"[bold yellow]TIME LIMIT: the wall-clock safety net interrupted a method of "
                      f"{', '.join(timed)}; those verdicts are not those of the full budget[/]")


def summary_line(rows: list[dict]) -> str:
    """Counts of the readings' verdicts, then of the hypothesis checks (rows of kind
    ``hypothesis``), where *falsified* means the conclusion fails without the hypothesis:
    the hypothesis is needed.

    >>> summary_line([{"kind": "reading", "verdict": "proved"}, {"kind": "reading", "verdict": "falsified"},
    ...               {"kind": "hypothesis", "verdict": "falsified"}, {"kind": "hypothesis", "verdict": "proved"}])
    '2 readings: 1 proved, 1 falsified; 2 hypothesis checks: 1 not needed, 1 needed'
    >>> summary_line([])
    '0 readings: none'

    A claim module that failed to load is one row of kind ``load-error``: counted apart, not
    as a reading.

    >>> summary_line([{"kind": "reading", "verdict": "proved"}, {"kind": "load-error", "verdict": "undecided"}])
    '1 reading: 1 proved; 1 error'
    """
    readings = [r for r in rows if r.get("kind", "reading") == "reading"]
    hypotheses = [r for r in rows if r.get("kind") == "hypothesis"]
    errors = [r for r in rows if r.get("kind") == "load-error"]

    def counts(group, names):
        tally: dict[str, int] = {}
        for r in group:
            tally[r["verdict"]] = tally.get(r["verdict"], 0) + 1
        return ", ".join(f"{n} {names.get(v, v)}" for v, n in sorted(tally.items(), key=lambda kv: _order(kv[0])))

    text = f"{len(readings)} reading{'' if len(readings) == 1 else 's'}: {counts(readings, {}) or 'none'}"
    if hypotheses:
        # falsified: the conclusion fails without it (needed); proved: it holds without it
        names = {"falsified": "needed", "proved": "not needed"}
        text += f"; {len(hypotheses)} hypothesis check{'' if len(hypotheses) == 1 else 's'}: {counts(hypotheses, names)}"
    if errors:
        text += f"; {len(errors)} error{'' if len(errors) == 1 else 's'}"
    return text


def proof_cell(proof: dict | None) -> str:
    """``"k/n steps checked"`` and the rules of a row's ``proof`` object ("-" without one).

    >>> proof_cell({"steps": 8, "checked": 8, "rules": ["monotone", "algebra"], "status": "checked"})
    '8/8 steps checked: monotone, algebra'
    >>> proof_cell({"steps": 2, "checked": 2, "substeps": 12, "rules": ["termwise"], "status": "checked"})
    '2/2 steps (+12 sub-steps) checked: termwise'
    >>> proof_cell({"steps": 1, "checked": 1, "rules": ["counterexample"], "status": "refuted"})
    'exact counterexample'
    >>> proof_cell({"steps": 1, "checked": 1, "rules": ["algebra"], "status": "checked",
    ...             "audit": {"steps": 3, "searched": 2, "counterexamples": 0}})
    '1/1 steps checked: algebra; audit: 2/3 steps searched, none refuted'
    >>> proof_cell({"steps": 1, "checked": 1, "rules": ["algebra"], "status": "checked",
    ...             "audit": {"steps": 3, "searched": 3, "no_draw_met": 1, "counterexamples": 0}})
    '1/1 steps checked: algebra; audit: 3/3 steps searched (1 with no draw meeting its hypotheses), none refuted'
    """
    if not proof:
        return "-"
    if proof.get("status") == "refuted":
        return "exact counterexample"
    sub = proof.get("substeps") or 0
    plural = "s" if sub != 1 else ""
    text = f"{proof['checked']}/{proof['steps']} steps{f' (+{sub} sub-step{plural})' if sub else ''} checked"
    from attnbounds.engine.rows import UNPROVED

    if proof.get("status") in UNPROVED:
        text += f" ({proof['status']})"
    rules = [r for r in proof.get("rules") or [] if r != "argued"]
    text = f"{text}: {', '.join(rules)}" if rules else text
    audit = proof.get("audit")
    if audit:
        bad = audit["counterexamples"]
        empty = audit.get("no_draw_met") or 0
        empty = f" ({empty} with no draw meeting {'its' if empty == 1 else 'their'} hypotheses)" if empty else ""
        text += f"; audit: {audit['searched']}/{audit['steps']} steps searched{empty}, {bad or 'none'} refuted"
    return text


def _order(verdict: str) -> int:
    from attnbounds.claims.base import VERDICTS

    return VERDICTS.index(verdict) if verdict in VERDICTS else len(VERDICTS)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


class _Progress:
    """Progress on stderr: a rich bar on a terminal, a plain line every
    :data:`attnbounds.progress.INTERVAL` seconds otherwise (a log, a pipe, CI)."""

    def __init__(self, enabled: bool = True):
        from attnbounds.progress import progress_display

        self.bar = progress_display(enabled, console=_console(stderr=True))  # None with --no-progress
        self.task = None

    def __enter__(self):
        if self.bar is not None:
            self.bar.__enter__()
            self.task = self.bar.add_task("checking", total=None)
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc) if self.bar is not None else False

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=str(label), completed=done, total=total or None)


class _InterruptGuard(SignalHook):
    """Make Ctrl-C stick: Python drops a ``KeyboardInterrupt`` raised inside a garbage-collector
    callback (Hypothesis installs one), so the SIGINT handler also sets a flag that the
    progress callback turns into a ``KeyboardInterrupt`` at the next method boundary."""

    signum = signal.SIGINT

    @property
    def hit(self) -> bool:
        """Whether Ctrl-C (or a SIGTERM, :attr:`SignalHook.terminated`, also where SIGINT is
        ignored and this guard is not in place) came."""
        return self._hit or SignalHook.terminated

    @hit.setter
    def hit(self, value: bool) -> None:
        self._hit = value

    def _handler(self, signum, frame):
        self.hit = True
        raise KeyboardInterrupt

    def wrap(self, progress):
        def guarded(label, done, total):
            if self.hit:
                raise KeyboardInterrupt
            progress(label, done, total)

        return guarded


def _strict_failures(rows: list[dict]) -> list[str]:
    """``--strict``'s failing rows, each as "id (why)"."""
    bad = []
    for r in rows:
        why = [w for w, hit in (("conflict", r.get("conflict")), ("error", r.get("error")),
                                ("time limit", r.get("timed_out"))) if hit]
        if not why and r.get("kind", "reading") == "reading" and r["verdict"] == "falsified":
            broken = r.get("hypotheses_broken")
            why = [f"falsified outside the claim's hypotheses ({', '.join(map(str, broken))} not met)" if broken
                   else "falsified"]
        if why:
            bad.append(f"{r['id']} ({', '.join(why)})")
    return bad


def _battery():
    try:
        return importlib.import_module("attnbounds.battery")
    except ModuleNotFoundError as exc:
        if exc.name != "attnbounds.battery":
            raise
        raise click.ClickException(
            "--normalizer/--matrix need the module attnbounds.battery, which this build does not have"
        ) from None


def _as_usage_error(exc: Exception, prefixes: tuple[str, ...]) -> None:
    """Re-raise a validation error about a user-given argument as a one-line usage error."""
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, str) and text.startswith(prefixes):
        raise UsageError(text) from None


@click.command()
@click.argument("ids", nargs=-1)
@click.option("--quick", is_flag=True, help="Fewer examples, a smaller sweep and audit (all claims in about a minute on two cores).")
@click.option(
    "--examples", type=click.IntRange(min=1), default=None, metavar="K",
    help="Hypothesis examples per reading (default 200; 30 with --quick).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="S",
              help="Seed of Hypothesis and of the numpy sweeps; same seed, same rows.")
@click.option("--time-limit", "time_limit", type=click.FloatRange(min=0), default=None, metavar="S",
              help="Wall-clock safety net per method, in seconds (default 900, a hang guard; 0: none). The budget "
                   "itself is counted in work, so verdicts do not depend on load; a method this limit interrupts "
                   "is marked '(time limit)' and listed in the row's timed_out.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Write the rows as JSON to PATH ('-' for stdout; the table then goes to stderr): an object "
                   "{format, meta, rows} whose meta records the version, git commit, seed, budget, time limit, "
                   "normalizer, ids, date, library versions, elapsed seconds and the verdict counts "
                   "(attnbounds.engine.meta; read_rows() reads it and the bare list of rows of older versions). "
                   "A file is rewritten after every row, with meta.complete false until the run ends. With "
                   "--matrix or --mutants, their own object with the same format and meta keys.")
@click.option("--strict", is_flag=True,
              help="Exit 1 if a reading is falsified or a row has a conflict, an error or a method cut by --time-limit. "
                   "The package's own transcribed readings are falsified by design (they are findings), so on them "
                   "use --expect instead.")
@click.option("--expect", "expect_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Exit 1 if a row's verdict differs from the one recorded in PATH (check --json output; "
                   "docs/_generated/verdicts.json holds the package's verdicts at the default budget and seed 0), "
                   "or a row is not in PATH: a regression gate. Rows of PATH that this run did not select are not "
                   "compared; where PATH's meta records another budget, seed or normalizer, or PATH has no meta, a note "
                   "says so. PATH "
                   "must be a finished run's output, and not --json's own PATH.")
@click.option("--normalizer", default=None, metavar="NAME",
              help="Judge the readings under normalizer NAME: a registered name (an unknown one lists them), "
                   "'module:object', 'path.py:object' or an entry point. Only the numeric methods run (the "
                   "Hypothesis search and the sweep, on the weights NAME gives): the symbolic proofs and interval "
                   "certificates are about the claim's own normalizer, so even --normalizer softmax can give "
                   "'holds' where the plain check proves; and the hypothesis checks (':without-…' rows) are not run.")
@click.option("--matrix", is_flag=True,
              help="Judge the readings under every normalizer registered with role 'attention' (a verdict matrix), "
                   "then print the registered normalizers it did not run and why (the ratio-form families of "
                   "Lemma 1 and 2, softplus, taylor2, even_power and sigmoid_ratio, have role 'family' only; "
                   "judge one with --normalizer NAME) and a summary line. A cell marked * is a reading whose claim "
                   "has a hypothesis that the normalizer does not meet. With --normalizer NAME, the matrix has NAME's "
                   "column only.")
@click.option("--claims", "claim_specs", multiple=True, metavar="SPEC",
              help="Judge your own claims instead of the package's: a file 'path/to/my_claim.py' or "
                   "'module:object' (repeatable). IDS then select among them.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="With --matrix: also plot the verdict matrix to PATH.")
@click.option("--no-progress", "no_progress", is_flag=True,
              help="No progress on stderr (by default a bar on a terminal, else a plain line every 30 s).")
@click.option("--mutants", is_flag=True,
              help="Mutation-test the checker: mutate every proved or certified reading of IDS and judge "
                   "each mutant (exit 1 if a mutant is proved or certified).")
def check(ids, quick, examples, seed, time_limit, json_path, strict, expect_path, normalizer, matrix, claim_specs, plot_path,
          no_progress, mutants):
    """Judge the readings of claims IDS (claim ids like T1i or 2508.17821:T1i, reading ids like
    T1i:transcribed; default: all claims) and print their verdicts.

    The proof column reads "k/n steps (+m sub-steps) checked: rules": n counts the chain's
    top-level steps, m the steps of the sub-chains they carry (each checked within its step;
    "substeps" in the JSON), and the rules include the sub-chains' rules.
    The last line counts the readings' verdicts apart from the hypothesis checks, where
    falsified means the hypothesis is needed.

    Under --normalizer NAME the table's title and the last line name NAME. A row whose claim
    has a hypothesis that NAME does not meet ("hypotheses_broken" in the JSON, e.g. softmax
    weights) shows its verdict unchanged with "(hypothesis not met)", and its evidence starts
    with the hypothesis: such a verdict is about the reading under NAME, outside the claim's
    hypotheses, not a counterexample to the claim.

    Narrower than 120 columns (a terminal, or the COLUMNS environment variable; a file or a
    pipe is 140 columns wide unless COLUMNS is set), the table is compact: one line per row
    (id, verdict, proof, seconds) and its evidence on up to two lines below, cut with "…"
    (--json has it in full in each row's "detail"). Its proof column reads "k/n +m": k of
    the chain's n top-level steps checked, plus m sub-steps; "k/n argued": a step is argued,
    not checked; "exact cex": an exact counterexample; "-": no symbolic proof.
    """
    from attnbounds.engine.budget import PRESET, budget_for

    if time_limit is not None and not math.isfinite(time_limit):  # FloatRange(min=0) lets inf and nan through
        raise click.BadParameter(f"must be a finite number of seconds (0: none), got {time_limit}",
                                 param_hint="'--time-limit'")
    budget = budget_for(quick, examples, PRESET if time_limit is None else (time_limit or None))
    for path, flag in ((json_path, "--json"), (plot_path, "--plot")):  # first: an option taken for the path
        refuse_option_like(path, flag)
    if plot_path and not matrix:
        raise UsageError("--plot: only valid with --matrix")
    if strict and (matrix or mutants):  # it was silently ignored there
        raise UsageError(f"--strict: not combinable with {'--mutants' if mutants else '--matrix'} (--mutants exits 1 "
                         "when a mutant is proved or certified; --matrix reports its cells)")
    check_writable_file(json_path, "--json")  # before the claims run, not after
    _refuse_overwriting_inputs(json_path, claim_specs, normalizer)
    expected, recorded_meta = _read_expected(expect_path, mutants or matrix, json_path)
    check_writable_file(plot_path, "--plot", suffixes=(".png", ".svg", ".pdf"), stdout=False)
    user_claims = load_user_claims(claim_specs)
    console = _console(stderr=json_path == "-")
    from attnbounds.engine.meta import check_document, run_meta

    command = "mutants" if mutants else "matrix" if matrix else "check"
    started = time.perf_counter()  # meta's elapsed_seconds
    meta = run_meta(budget=budget, seed=seed, ids=ids, normalizer=normalizer, claims_files=claim_specs, command=command)
    if mutants:
        if matrix or normalizer is not None:
            raise UsageError("--mutants: not combinable with --normalizer/--matrix")
        _run_mutants(ids, budget, seed, json_path, user_claims, console, progress=not no_progress, meta=meta,
                     run_started=started)
        return
    if matrix:
        _run_matrix(ids, budget, seed, json_path, normalizer, plot_path, console, user_claims, progress=not no_progress,
                    meta=meta, started=started)
        return
    rows = _run_check(ids, budget, seed, json_path, user_claims, normalizer, progress=not no_progress, meta=meta,
                      started=started)
    render_table(rows, console)
    if json_path:
        meta["complete"] = True
        write_json(check_document(rows, meta, started), json_path)
        if json_path != "-":
            click.echo(f"wrote {len(rows)} row(s) to {json_path}", err=True)
    failed = False
    if strict:
        bad = _strict_failures(rows)
        if bad:
            click.echo(f"--strict: {len(bad)} row(s) failed: {', '.join(bad)}", err=True)
            failed = True
    if expected is not None:
        changed = _expect_failures(rows, expected)
        for line in changed:
            click.echo(f"--expect: {line}", err=True)
        if recorded_meta is None:  # a bare list of rows: nothing says which budget made them
            click.echo(f"--expect: note: {expect_path} is a list of rows without meta, so its budget, seed and "
                       "normalizer are unknown and not compared (docs/_generated/verdicts.json: the default budget, "
                       "seed 0, softmax)", err=True)
        for line in _setting_differences(recorded_meta, meta):
            click.echo(f"--expect: note: {line}", err=True)
        click.echo(f"--expect: {len(rows) - len(changed)} of {len(rows)} row(s) as recorded in {expect_path}", err=True)
        failed = failed or bool(changed)
    if failed:
        sys.exit(1)


def _row_key(row: dict) -> tuple:
    return row["id"], row.get("kind", "reading")


def _refuse_overwriting_inputs(json_path, claim_specs, normalizer) -> None:
    """--json must not name a file this run reads: a trial's `--claims mine.py --json mine.py`
    replaced the user's claim file with the rows."""
    if not json_path or json_path == "-":
        return
    target = os.path.abspath(json_path)
    for flag, specs in (("--claims", claim_specs), ("--normalizer", (normalizer,) if normalizer else ())):
        for spec in specs:
            path = spec.split(":", 1)[0]  # 'file.py' or 'file.py:object'
            if path.endswith(".py") and os.path.abspath(path) == target:
                raise UsageError(f"--json: {json_path!r} is the file {flag} reads ({spec!r}); this run would overwrite "
                                 "it: write the rows elsewhere")


def _read_expected(path, other_command: bool, json_path=None) -> tuple[dict | None, dict | None]:
    """``--expect PATH``'s verdicts by (id, kind) and its ``meta`` (None for the bare list of
    older versions), read before the claims run: a bad file is reported at once."""
    if path is None:
        return None, None
    if other_command:
        raise UsageError("--expect: compares check's rows; not combinable with --matrix/--mutants")
    if json_path not in (None, "-") and Path(json_path).resolve() == Path(path).resolve():
        raise UsageError(f"--expect: {path!r} is also --json's output, which this run would overwrite; "
                         "record to one file and compare with another")
    import json

    from attnbounds.claims.base import VERDICTS
    from attnbounds.engine.meta import CHECK_FORMAT, read_rows

    def bad(why):
        return UsageError(f"--expect: {path!r} is not check --json output ({why})")

    try:
        data = json.loads(Path(path).read_text())
        rows = read_rows(data)
    except FileNotFoundError:
        raise UsageError(f"--expect: no such file {path!r}") from None
    except (ValueError, OSError) as exc:  # json.JSONDecodeError is a ValueError
        raise bad(exc) from None
    meta = None
    if isinstance(data, dict):
        if data.get("format") != CHECK_FORMAT:
            raise bad(f"format {data.get('format')!r}, expected {CHECK_FORMAT!r}")
        meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
        if meta.get("complete") is False:
            raise UsageError(f"--expect: {path!r} was written by a run that did not finish (meta.complete is false)")
    for r in rows:
        if r["verdict"] not in VERDICTS:
            raise bad(f"row {r['id']!r} has verdict {r['verdict']!r}, not one of {', '.join(VERDICTS)}")
    return {_row_key(r): r["verdict"] for r in rows}, meta


def _setting_differences(recorded: dict | None, current: dict) -> list[str]:
    """The settings a verdict depends on (budget, seed, normalizer) where PATH's run and this one differ."""
    if not recorded:
        return []
    out = []
    for key in ("budget", "seed", "normalizer"):
        if key in recorded and recorded[key] != current.get(key):
            out.append(f"{key} differs: recorded {recorded[key]!r}, this run {current.get(key)!r}")
    return out


def _expect_failures(rows: list[dict], expected: dict) -> list[str]:
    """One line per row whose verdict differs from the recorded one, or that is not recorded."""
    out = []
    for r in rows:
        key = _row_key(r)
        if key not in expected:
            out.append(f"{r['id']}: {r['verdict']}, not recorded")
        elif expected[key] != r["verdict"]:
            out.append(f"{r['id']}: {r['verdict']}, recorded {expected[key]}")
    return out


def _run_mutants(ids, budget, seed, json_path, user_claims, console, progress: bool = True, meta=None,
                 run_started: float | None = None) -> None:
    from rich.table import Table

    from attnbounds.engine.mutants import run_mutants

    selections = _resolve_ids(ids, user_claims)
    total = sum(1 for s in selections if s.claim is not None for r in s.claim.readings
                if s.readings is None or r.name in s.readings)
    started = [0]

    def step(rid):  # progress by readings: each is judged, then (proved or certified) mutated
        if guard.hit:  # an interrupt dropped in a gc callback (see _InterruptGuard)
            raise KeyboardInterrupt
        bar(f"{rid} mutants", started[0], total)
        started[0] += 1

    with _InterruptGuard() as guard, _Progress(progress) as bar:
        report = run_mutants(list(ids) or None, seed=seed, budget=budget, claims=user_claims, progress=step)
        bar("done", total, total)
    table = Table(header_style="bold")
    for col in ("reading", "mutant", "verdict", "reason"):
        table.add_column(col, overflow="fold", no_wrap=col != "reason")
    for r in report.rows:
        style = "bold magenta" if r.defect else _STYLE.get(r.verdict, "")
        table.add_row(_escape(r.reading), _escape(r.mutant), f"[{style}]{r.verdict}[/]", _escape(r.reason))
    console.print(table)
    summary = report.summary()
    rate = summary["kill_rate"]
    console.print(
        f"{summary['mutants']} mutant(s) of {summary['readings']} proved/certified reading(s): "
        f"{summary['falsified']} falsified, {summary['undecided']} undecided, "
        f"{summary['proved'] + summary['certified']} proved/certified; kill rate "
        + ("n/a" if rate is None else f"{100 * rate:.1f}%")
    )
    if json_path:
        from attnbounds.engine.meta import mutants_document

        write_json(mutants_document(report.to_dict(), {**(meta or {}), "complete": True}, run_started), json_path)
        if json_path != "-":
            click.echo(f"wrote {summary['mutants']} mutant row(s) to {json_path}", err=True)
    if report.defects:
        click.echo(f"checker defect: {len(report.defects)} mutant(s) proved, certified or in conflict: "
                   f"{', '.join(summary['defects'])}", err=True)
        sys.exit(1)


def _interrupted(rows: list[dict], json_path: str | None, meta: dict | None = None, started: float | None = None) -> None:
    from attnbounds.engine.meta import check_document

    render_table(rows, _console(stderr=True))
    if json_path:
        write_json(check_document(rows, {**(meta or {}), "complete": False}, started), json_path)
        where = "stdout" if json_path == "-" else json_path
        click.echo(f"interrupted: wrote {len(rows)} row(s) to {where}{_partial_note(rows)}", err=True)
    else:
        click.echo(f"interrupted after {len(rows)} row(s){_partial_note(rows)}", err=True)
    sys.exit(130)


def _partial_note(rows: list[dict]) -> str:
    cut = [r["id"] for r in rows if r.get("error") == "interrupted"]
    return f" ({', '.join(cut)} cut short, marked undecided)" if cut else ""


#: Up to this many valid ids, an unknown id's error lists them all (a --claims file's few ids);
#: beyond it, the close matches and a pointer to ``attnbounds claims``.
LIST_VALID_IDS = 12


def _resolve_ids(ids, user_claims=None) -> list:
    """:func:`attnbounds.engine.resolve_ids`, an unknown id a one-line usage error (:func:`_unknown_ids_text`)."""
    from attnbounds import engine

    try:
        return engine.resolve_ids(list(ids) or None, claims=user_claims)
    except ValueError as exc:
        raise UsageError(_unknown_ids_text(exc, ids, user_claims)) from None


def _unknown_ids_text(exc: ValueError, ids, user_claims=None) -> str:
    """The error for unknown IDS: each bad id with its close matches, the engine's notes
    (an ambiguous short id, claim modules that failed to load), and the valid ids when there
    are at most :data:`LIST_VALID_IDS`, else where to find them (not all ~70 on one line)."""
    from attnbounds import engine

    text = str(exc)
    if not text.startswith("ids: unknown id"):
        return text
    valid = engine.valid_ids(claims=user_claims)
    bad, notes = [], []
    for w in ids:
        try:
            engine.resolve_ids([w], claims=user_claims)
        except ValueError as one:
            head = f"ids: unknown id {w!r}"
            own = str(one)
            if own.startswith(head):  # "; ambiguous claim id ...; claim modules that failed to load: ..."
                parts = own[len(head):].rpartition("; valid: ")[0].split("; ")
                hint = parts[0] if parts[0].startswith(" (") else ""  # the engine's own: a claim's readings first
                bad.append(f"{w!r}{hint}")
                notes += [n for n in parts[1 if hint else 0:] if n and n not in notes]
            else:
                bad.append(f"{w!r}{did_you_mean(w, valid)}")
        except TypeError:
            bad.append(repr(w))
    if not bad:  # cannot happen (the ids failed together), but never hide the engine's message
        return text
    if all(any(n.startswith(f"ambiguous claim id {w!r}") for n in notes) for w in ids if f"{w!r}" in " ".join(bad)):
        # known, but in several papers: say so, not "unknown"
        return "ids: " + "; ".join(notes) + " (qualify the id with its paper, as listed)"
    out = f"ids: unknown id{'s' if len(bad) > 1 else ''} {', '.join(bad)}"
    out += "".join(f"; {n}" for n in notes)
    if any("," in str(w) for w in ids):
        out += "; separate ids with spaces, not commas (check L1 C1)"
    if len(valid) <= LIST_VALID_IDS:
        return f"{out}; valid: {', '.join(valid)}"
    if user_claims is not None:
        return f"{out}; the --claims files define {len(valid)} ids (claim ids, CLAIM:reading, CLAIM:without-hypothesis)"
    return (f"{out}; `attnbounds claims` lists the claims and `attnbounds claims CLAIM` a claim's readings "
            f"(ids: CLAIM, CLAIM:reading, CLAIM:without-hypothesis)")


def _run_check(ids, budget, seed, json_path, user_claims=None, normalizer=None, progress: bool = True,
               meta: dict | None = None, started: float | None = None) -> list[dict]:
    from attnbounds import engine
    from attnbounds.engine.meta import check_document

    _resolve_ids(ids, user_claims)
    if normalizer is not None:
        _check_normalizer(normalizer)
    done: list[dict] = []

    def save(row):
        done.append(row)
        if json_path and json_path != "-":
            # after every row: an interrupt or a kill loses nothing finished ("complete": false until the end)
            write_json(check_document(done, meta or {}, started), json_path)

    try:
        with _InterruptGuard() as guard, _Progress(progress) as bar:
            return engine.check(list(ids) or None, budget=budget, seed=seed,
                                progress=guard.wrap(bar), on_row=save, claims=user_claims,
                                normalizer=normalizer)
    except engine.CheckInterrupted as exc:
        _interrupted(exc.rows, json_path, meta, started)
    except KeyboardInterrupt:
        _interrupted(done, json_path, meta, started)


def _check_normalizer(normalizer: str) -> None:
    """Resolve ``--normalizer`` up front so that a bad name is a usage error, not a traceback."""
    from attnbounds.numerics import normalizers

    try:
        normalizers.resolve(normalizer, flag="--normalizer")  # resolves and runs it once on small logits
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _run_matrix(ids, budget, seed, json_path, normalizer, plot_path, console, user_claims=None,
                progress: bool = True, meta: dict | None = None, started: float | None = None) -> None:
    battery = _battery()
    if normalizer is not None:
        _check_normalizer(normalizer)
    _resolve_ids(ids, user_claims)
    try:
        with _InterruptGuard() as guard, _Progress(progress) as bar:
            result = battery.run_matrix([normalizer] if normalizer else None, list(ids) or None,
                                        budget=budget, seed=seed, claims=user_claims,
                                        progress=guard.wrap(bar))
    except (ValueError, KeyError) as exc:
        _as_usage_error(exc, ("normalizer", "ids", "unknown"))
        raise
    except KeyboardInterrupt:
        click.echo("interrupted: the matrix was not finished", err=True)
        sys.exit(130)
    omitted = _omitted_normalizers() if normalizer is None else {}
    _render_matrix(result, console, omitted, single=normalizer)
    if json_path:
        from attnbounds.engine.meta import matrix_document

        write_json(matrix_document(result, {**(meta or {}), "complete": True}, omitted, started), json_path)
        if json_path != "-":
            click.echo(f"wrote the matrix to {json_path}", err=True)
    if plot_path:
        battery.plot_matrix(result, plot_path)
        click.echo(f"wrote the matrix plot to {plot_path}", err=True)


def _omitted_normalizers() -> dict[str, str]:
    """``{name: why}`` for the registered normalizers that ``--matrix`` does not run (those
    without role ``"attention"``, :func:`attnbounds.numerics.normalizers.names`)."""
    from attnbounds.numerics import normalizers as nz

    run = set(nz.names(role="attention"))
    out = {}
    for name in nz.names():
        if name in run:
            continue
        roles = sorted(nz.get(name).roles)
        if roles == ["family"]:
            out[name] = ("role 'family' only: a ratio form F(l_i)/sum_j F(l_j) that Lemma 1 and Lemma 2 search "
                         "over, not registered as an attention normalizer")
        else:
            out[name] = f"roles {', '.join(roles) or 'none'}: not registered as an attention normalizer"
    return out


def matrix_summary(result: dict) -> str:
    """The last line of ``--matrix``: its size, the cells' verdicts, the cells marked ``*``.

    >>> matrix_summary({"normalizers": ["softmax", "ssmax"], "ids": ["L1:transcribed"], "seconds": 3.25,
    ...                 "verdicts": {"softmax": {"L1:transcribed": "proved"}, "ssmax": {"L1:transcribed": "falsified"}},
    ...                 "rows": {"ssmax": [{"id": "L1:transcribed", "hypotheses_broken": ["length-independent"]}]}})
    '2 normalizers x 1 reading: 2 cells: 1 proved, 1 falsified; 1 marked * (a hypothesis of the claim not met); 3.2 s'
    """
    verdicts = result.get("verdicts") or {}
    names = list(result.get("normalizers") or verdicts)
    ids = list(result.get("ids") or dict.fromkeys(k for v in verdicts.values() for k in v))
    tally = Counter(str(v) for per in verdicts.values() for v in per.values())
    cells = sum(tally.values())
    counts = ", ".join(f"{n} {v}" for v, n in sorted(tally.items(), key=lambda kv: _order(kv[0]))) or "none"
    text = (f"{len(names)} normalizer{'' if len(names) == 1 else 's'} x {len(ids)} reading{'' if len(ids) == 1 else 's'}: "
            f"{cells} cell{'' if cells == 1 else 's'}: {counts}")
    rows = result.get("rows") if isinstance(result.get("rows"), dict) else {}
    marked = sum(1 for rs in rows.values() for r in rs if isinstance(r, dict) and r.get("hypotheses_broken"))
    if marked:
        text += f"; {marked} marked * (a hypothesis of the claim not met)"
    if isinstance(result.get("seconds"), (int, float)):
        text += f"; {result['seconds']:.1f} s"
    return text


#: The compact matrix's cell letters.
_MATRIX_LETTERS = {"proved": "P", "certified": "C", "holds": "H", "falsified": "F", "undecided": "U"}


def _matrix_cell(verdict: str, row: dict | None, short: bool = False) -> str:
    """One cell of the verdict matrix: the verdict, marked like the table's verdict column when
    the row has an error, a conflict or a method cut by the time limit (an error is not a
    plain "undecided"), and with ``*`` when the normalizer does not meet a hypothesis of the
    reading's claim (``hypotheses_broken``: the verdict is not about the claim itself)."""
    if row is not None and row.get("conflict"):
        return "[bold magenta]CF[/]" if short else "[bold magenta]CONFLICT[/]"
    if row is not None and row.get("error"):
        return "[bold red]ER[/]" if short else "[bold red]error[/]"
    shown = _MATRIX_LETTERS.get(str(verdict), str(verdict)) if short else verdict
    cell = f"[{_STYLE.get(str(verdict), '')}]{shown}[/]"
    if row is not None and row.get("hypotheses_broken"):
        cell += "*"
    if row is not None and row.get("timed_out"):
        cell += "[bold yellow]t[/]" if short else " [bold yellow](time limit)[/]"
    return cell


def _render_omitted(omitted: dict[str, str], console) -> None:
    by_reason: dict[str, list[str]] = {}
    for name, why in omitted.items():
        by_reason.setdefault(why, []).append(name)
    for why, names in by_reason.items():
        console.print(f"not in the matrix: {', '.join(names)} ({_escape(why)}); judge one with --normalizer NAME",
                      highlight=False)


def _render_matrix(result, console, omitted: dict[str, str] | None = None, single: str | None = None) -> None:
    """Print a normalizer x reading verdict matrix; rows of the battery if it gives them.
    ``single``: the --normalizer NAME that made it one column (said before the summary line)."""
    from rich import box
    from rich.table import Table

    verdicts = result.get("verdicts") if isinstance(result, dict) else None
    if isinstance(verdicts, dict) and verdicts and all(isinstance(v, dict) for v in verdicts.values()):
        readings = list(dict.fromkeys(k for v in verdicts.values() for k in v))
        rows = result.get("rows") if isinstance(result.get("rows"), dict) else {}
        by_id = {(name, r.get("id")): r for name, rs in rows.items() for r in rs if isinstance(r, dict)}
        names = [str(n) for n in verdicts]
        # a full column per normalizer needs its name and "falsified*" (10); below that width the
        # columns are numbered and the cells are letters, with a legend (the * marks stay visible)
        need = max(len("reading"), *(len(str(r)) for r in readings)) + 4 + sum(max(len(n), 10) + 3 for n in names)
        compact = need > console.width
        table = Table(header_style="bold", box=box.SIMPLE if compact else box.HEAVY_HEAD, pad_edge=not compact)
        table.add_column("reading", no_wrap=True)
        for k, name in enumerate(names, 1):
            table.add_column(str(k) if compact else name, no_wrap=compact)
        for rid in readings:
            cells = [_matrix_cell(per.get(rid, "-"), by_id.get((name, rid)), short=compact) for name, per in verdicts.items()]
            table.add_row(str(rid), *cells)
        console.print(table)
        if compact:
            console.print("columns: " + ", ".join(f"{k} {n}" for k, n in enumerate(names, 1)), highlight=False)
            console.print("cells: " + ", ".join(f"{a} {v}" for v, a in _MATRIX_LETTERS.items())
                          + ", ER error, CF conflict, t cut by the time limit", highlight=False)
        if any(r.get("hypotheses_broken") for r in by_id.values()):
            console.print("*: the normalizer does not meet a hypothesis of the reading's claim (hypotheses_broken in "
                          "the JSON); the verdict is about the reading under it, not a counterexample to the claim",
                          highlight=False)
        flagged = [f"{r['id']} under {name}" for (name, _), r in by_id.items() if r.get("error") or r.get("conflict")]
        if flagged:
            console.print(f"[bold red]error or conflict (not a verdict): {', '.join(flagged)}[/]")
        _render_omitted(omitted or {}, console)
        if single is not None:
            console.print(f"one column: --normalizer {single} (without --normalizer, a column per normalizer "
                          "registered with role 'attention')", highlight=False)
        console.print(matrix_summary(result), highlight=False)
        return
    rows = result.get("rows") if isinstance(result, dict) else None
    if isinstance(rows, list) and all(isinstance(r, dict) and "verdict" in r for r in rows):
        render_table(rows, console)
        return
    import json

    console.print_json(json.dumps(result, default=str))
