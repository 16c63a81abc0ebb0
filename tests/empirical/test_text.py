"""Tests of attnbounds.empirical.text: Gutenberg stripping, chapters, token windows."""

from __future__ import annotations

import urllib.error

import numpy as np
import pytest

from attnbounds.empirical import text as text_module
from attnbounds.empirical.text import chapters, load_text, strip_gutenberg, token_windows, unwrap_lines

HEADER = "The Project Gutenberg EBook of X\n\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\n"
FOOTER = "\nEnd of the Project Gutenberg EBook of X\n\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\nLicense text.\n"


@pytest.fixture(scope="module")
def gpt2_tokenizer():
    from attnbounds.empirical.models import gpt2_bpe_tokenizer

    return gpt2_bpe_tokenizer()


@pytest.fixture(scope="module")
def war_and_peace(war_and_peace_path):
    return load_text(str(war_and_peace_path))


def test_gutenberg_header_and_footer_are_stripped(tmp_path):
    body = "CONTENTS\n\nCHAPTER I\n\nFirst words.\n"
    path = tmp_path / "book.txt"
    path.write_bytes(("\ufeff" + HEADER + body + FOOTER).replace("\n", "\r\n").encode("utf-8"))
    out = load_text(str(path))
    assert out == "CONTENTS\n\nCHAPTER I\n\nFirst words."
    assert "START OF" not in out and "End of the Project" not in out and "License" not in out


def test_this_project_marker_variant():
    raw = "x\n*** START OF THIS PROJECT GUTENBERG EBOOK WAR AND PEACE ***\nbody\n*** END OF THIS PROJECT GUTENBERG EBOOK WAR AND PEACE ***\n"
    assert strip_gutenberg(raw) == "body"


def test_start_without_end_is_an_error(tmp_path):
    path = tmp_path / "cut.txt"
    path.write_text(HEADER + "body only\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no '\\*\\*\\* END OF"):
        load_text(str(path))


def test_file_without_gutenberg_header_is_verbatim(tmp_path):
    raw = "  Leading spaces,\r\nCRLF lines,\n\n\nCHAPTER I\ttabs and *** stars *** kept.\n\n"
    path = tmp_path / "plain.txt"
    path.write_bytes(raw.encode("utf-8"))
    assert load_text(path) == raw


def test_missing_file_and_bad_src_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="src"):
        load_text(str(tmp_path / "nope.txt"))
    with pytest.raises(ValueError, match="src"):
        load_text("")
    with pytest.raises(ValueError, match="gutenberg:<number>"):
        load_text("gutenberg:war")


def test_gutenberg_offline_points_to_text_path(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNBOUNDS_CACHE", str(tmp_path))

    def offline(*args, **kwargs):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(text_module.urllib.request, "urlopen", offline)
    with pytest.raises(FileNotFoundError, match="--text PATH"):
        load_text("gutenberg:2600")


def test_gutenberg_cached_copy_is_used_without_network(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNBOUNDS_CACHE", str(tmp_path))
    (tmp_path / "gutenberg").mkdir()
    (tmp_path / "gutenberg" / "pg99.txt").write_text(HEADER + "cached body" + FOOTER, encoding="utf-8")
    monkeypatch.setattr(text_module.urllib.request, "urlopen", lambda *a, **k: pytest.fail("network used"))
    assert load_text("gutenberg:99") == "cached body"


def test_unwrap_lines_keeps_paragraphs():
    assert unwrap_lines("a\nb\n  \nc\n\n\nd e\nf") == "a b\n\nc\n\nd e f"


def test_text_without_headings_is_one_chapter():
    (only,) = chapters("no headings here\nat all")
    assert (only.index, only.title, only.book, only.text) == (0, "", "", "no headings here\nat all")


def test_war_and_peace_chapters(war_and_peace):
    found = chapters(war_and_peace)
    assert len(found) == 365  # 15 books and two epilogues
    first = found[0]
    assert (first.title, first.book) == ("CHAPTER I", "BOOK ONE: 1805")
    assert first.text.startswith("“Well, Prince, so Genoa and Lucca are now just family estates")
    assert "CHAPTER II" not in first.text and "CONTENTS" not in first.text
    assert (found[28].title, found[28].book) == ("CHAPTER I", "BOOK TWO: 1805")
    assert (found[-1].title, found[-1].book) == ("CHAPTER XII", "SECOND EPILOGUE")
    assert "Project Gutenberg" not in found[-1].text
    assert [c.index for c in found] == list(range(365))


@pytest.mark.empirical
def test_war_and_peace_windows_are_consecutive_and_disjoint(war_and_peace, gpt2_tokenizer):
    windows = token_windows(war_and_peace, gpt2_tokenizer, length=64, count=5)
    assert windows.shape == (5, 64) and windows.dtype == np.int64
    first_chapter = unwrap_lines(chapters(war_and_peace)[0].text)
    expected = gpt2_tokenizer(first_chapter, add_special_tokens=False)["input_ids"][: 5 * 64]
    assert windows.reshape(-1).tolist() == expected
    assert gpt2_tokenizer.decode(windows[0][:10]).startswith("“Well, Prince, so Genoa")
    later = token_windows(war_and_peace, gpt2_tokenizer, length=64, count=1, start_chapter=28)
    assert later[0].tolist() == gpt2_tokenizer(unwrap_lines(chapters(war_and_peace)[28].text))["input_ids"][:64]


@pytest.mark.empirical
def test_windows_span_chapter_boundaries(gpt2_tokenizer):
    book = "CHAPTER I\n\nOne two\nthree.\n\nCHAPTER II\n\nFour five six."
    ids = token_windows(book, gpt2_tokenizer, length=3, count=3)
    joined = gpt2_tokenizer("One two three.\n\nFour five six.", add_special_tokens=False)["input_ids"]
    assert ids.reshape(-1).tolist() == joined[:9]
    assert gpt2_tokenizer.decode(ids.reshape(-1)).startswith("One two three.\n\nFour five")
    wrapped = token_windows(book, gpt2_tokenizer, length=3, count=1, unwrap=False)
    assert gpt2_tokenizer.decode(wrapped[0]) == "One two\n"


@pytest.mark.empirical
def test_too_short_text_reports_the_counts(war_and_peace, gpt2_tokenizer):
    with pytest.raises(ValueError) as err:
        token_windows(war_and_peace, gpt2_tokenizer, length=1024, count=10, start_chapter=364)
    message = str(err.value)
    assert "chapters 364..364" in message and "10 × 1024 = 10240" in message and "give " in message


@pytest.mark.empirical
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(length=0, count=1), "length"),
        (dict(length=4, count=0), "count"),
        (dict(length=True, count=1), "length"),
        (dict(length=4, count=1, start_chapter=-1), "start_chapter"),
        (dict(length=4, count=1, start_chapter=2), "start_chapter=2, but the text has 1"),
    ],
)
def test_bad_arguments_are_named(gpt2_tokenizer, kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):  # a bool is a TypeError (numerics.validation)
        token_windows("CHAPTER I\n\nsome words here and more", gpt2_tokenizer, **kwargs)
