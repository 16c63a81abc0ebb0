"""The staleness stamp of docs/_generated/verdicts.json, and the docs' own text helpers."""

from __future__ import annotations

import doctest
import json
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import docstring_text  # noqa: E402
import markdown_text  # noqa: E402
import verdict_store  # noqa: E402


@pytest.fixture
def tree(tmp_path):
    """A small copy of the source layout the stamp covers."""
    for rel in ("attnbounds/claims/lemma1.py", "attnbounds/numerics/attention.py", "attnbounds/engine/run.py"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n")
    (tmp_path / "attnbounds/empirical").mkdir()
    (tmp_path / "attnbounds/empirical/models.py").write_text("# not an input of the verdicts\n")
    return tmp_path


def _stamp(root: Path) -> dict:
    hashes = verdict_store.file_hashes(root)
    return {"sources": hashes, "sources_sha256": verdict_store.combined_hash(hashes)}


def test_stamp_covers_claims_numerics_engine_only(tree):
    assert sorted(verdict_store.file_hashes(tree)) == [
        "attnbounds/claims/lemma1.py",
        "attnbounds/engine/run.py",
        "attnbounds/numerics/attention.py",
    ]


def test_every_source_entry_matches_a_file_of_the_repository():
    # a stale entry (the old attnbounds/engine.py) would silently hash nothing
    root = verdict_store.REPO_ROOT
    for pattern in verdict_store.SOURCE_GLOBS:
        assert any(p.is_file() for p in root.glob(pattern)), f"{pattern} matches no file"


def test_every_module_the_check_imports_is_hashed():
    # the modules `attnbounds check` loads (the command, the engine, every registered claim)
    # are exactly what decides the verdicts: each must be covered by the stamp
    import subprocess

    root = verdict_store.REPO_ROOT
    code = (
        "import sys, attnbounds.cli.check, attnbounds.engine, attnbounds.claims as c\n"
        "c.all_claims()\n"
        "print('\\n'.join(sorted(m.__file__ for n, m in list(sys.modules.items())\n"
        "      if n.split('.')[0] == 'attnbounds' and getattr(m, '__file__', None))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(root)})
    imported = {Path(f).resolve().relative_to(root).as_posix() for f in out.stdout.split()}
    hashed = set(verdict_store.file_hashes(root))
    assert imported and {"attnbounds/engine/run.py", "attnbounds/claims/lemma1.py"} <= imported
    assert imported - hashed == set()


def test_fresh_stamp_is_not_stale(tree):
    assert not verdict_store.check_fresh(_stamp(tree), tree).stale


def test_edit_addition_and_removal_are_stale(tree):
    meta = _stamp(tree)
    (tree / "attnbounds/claims/lemma1.py").write_text("# edited\n")
    s = verdict_store.check_fresh(meta, tree)
    assert s.stale and s.changed == ("attnbounds/claims/lemma1.py",)
    assert "lemma1.py" in s.describe()
    (tree / "attnbounds/claims/lemma2.py").write_text("# new claim\n")
    (tree / "attnbounds/engine/run.py").unlink()
    s = verdict_store.check_fresh(meta, tree)
    assert s.added == ("attnbounds/claims/lemma2.py",) and s.removed == ("attnbounds/engine/run.py",)


def test_untracked_layers_do_not_make_it_stale(tree):
    meta = _stamp(tree)
    (tree / "attnbounds/empirical/models.py").write_text("# edited\n")
    assert not verdict_store.check_fresh(meta, tree).stale


def test_hand_edited_combined_hash_is_caught(tree):
    meta = _stamp(tree)
    meta["sources_sha256"] = "0" * 64
    assert verdict_store.check_fresh(meta, tree).stale


def test_caches_are_ignored(tree):
    meta = _stamp(tree)
    cache = tree / "attnbounds/claims/__pycache__"
    cache.mkdir()
    (cache / "lemma1.cpython-311.py").write_text("x")
    assert not verdict_store.check_fresh(meta, tree).stale


def test_committed_verdicts_are_consistent():
    """If verdicts are committed, rows are well formed and the stamp names the real sources."""
    rows = verdict_store.load_rows()
    meta = verdict_store.load_meta()
    if rows is None and meta is None:
        pytest.skip("docs/_generated/verdicts.json is not generated (make verdicts)")
    assert rows is not None and meta is not None, "verdicts.json and verdicts.meta.json must be committed together"
    assert meta["rows"] == len(rows)
    assert all(r["verdict"] in ("proved", "certified", "holds", "falsified", "undecided") for r in rows)
    assert verdict_store.combined_hash(meta["sources"]) == meta["sources_sha256"]


def test_load_rows_rejects_malformed(tmp_path):
    bad = tmp_path / "verdicts.json"
    bad.write_text(json.dumps([{"id": "L1:transcribed"}]))
    with pytest.raises(ValueError, match="verdict"):
        verdict_store.load_rows(bad)


@pytest.mark.parametrize("module", [markdown_text, docstring_text])
def test_doctests_of_docs_extensions(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_docstring_section_shifts_headings_and_fences_doctests():
    text = "# Top\n\n## Sub\n\n#### Deep\n\n```python\n# not a heading\n>>> not a doctest\n```\n\n>>> 1\n1\n"
    out = markdown_text.docstring_to_section(text, top_level=3).splitlines()
    assert out[0] == "### Top" and "#### Sub" in out and "##### Deep" in out
    assert "# not a heading" in out and ">>> not a doctest" in out
    assert out[out.index(">>> 1") - 1] == "```pycon"


def test_escape_round_trips_through_myst():
    pytest.importorskip("myst_parser")
    from markdown_it import MarkdownIt

    text = "C1/L <= alpha_i * 2 [a, b] |x| $5 `code` #1"
    html = MarkdownIt("commonmark").render(markdown_text.escape(text))
    assert html.strip() == "<p>" + text.replace("<", "&lt;") + "</p>"


def test_the_cli_pages_example_counts_are_the_recorded_verdicts():
    """docs/cli.md quotes the `counts` of the full run; they must be the recorded verdicts' (a new
    user's trial found 22 and 8 quoted where the run gives 21 and 10)."""
    import json
    import re
    from collections import Counter
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    rows = json.loads((docs / "_generated" / "verdicts.json").read_text())
    got = {}
    for kind in ("reading", "hypothesis"):
        got[kind] = dict(Counter(r["verdict"] for r in rows if r["kind"] == kind))
    quoted = re.search(r'`(\{"reading": .*?\}\})`', (docs / "cli.md").read_text()).group(1)
    assert json.loads(quoted) == got, (quoted, got)
