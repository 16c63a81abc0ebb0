"""The atomic-write helper: concurrent writers, interrupted writes, kills, permissions."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from attnbounds.fileio import atomic_write, write_bytes, write_text
from attnbounds.jsonio import write_json

ROOT = Path(__file__).resolve().parents[1]


def _writer(path: str, tag: str, rounds: int, size: int, go, how: str) -> None:
    go.wait()
    for i in range(rounds):
        # each version is a JSON document whose every element names its writer and round,
        # so a mix of two writers or a truncated file does not parse or does not agree
        doc = {"tag": tag, "round": i, "data": [f"{tag}{i}"] * size}
        if how == "write_json":  # `check --json` writes after every row: two checks may share a path
            write_json(doc, path)
        else:
            write_text(path, json.dumps(doc))


def _check_whole(text: str) -> tuple[str, int]:
    doc = json.loads(text)
    tag, i = doc["tag"], doc["round"]
    assert set(doc["data"]) == {f"{tag}{i}"}, "a mix of two versions"
    return tag, i


@pytest.mark.parametrize("how", ["write_text", "write_json"])
def test_two_concurrent_writers_never_corrupt_the_file(tmp_path, how):
    path = tmp_path / "rows.json"
    ctx = mp.get_context("fork")
    go = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(str(path), tag, 40, 20_000, go, how)) for tag in ("a", "b")]
    for p in procs:
        p.start()
    go.set()
    while any(p.is_alive() for p in procs):
        if path.exists():
            _check_whole(path.read_text())  # a reader never sees half a file or a mix
    for p in procs:
        p.join()
        assert p.exitcode == 0  # neither writer failed (a shared temp name can make one rename fail)
    tag, i = _check_whole(path.read_text())
    assert i == 39 and tag in ("a", "b")
    assert [f.name for f in tmp_path.iterdir()] == ["rows.json"]  # no temporary file left


def test_an_exception_during_the_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "table.csv"
    write_text(path, "old,complete\n")
    for exc in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)):
            with atomic_write(path) as fh:
                fh.write("new,half")
                raise exc
        assert path.read_text() == "old,complete\n"
        assert sorted(f.name for f in tmp_path.iterdir()) == ["table.csv"]


_SLOW_WRITER = """
import sys, time
from attnbounds.fileio import atomic_write
with atomic_write(sys.argv[1]) as fh:
    fh.write("new-")
    fh.flush()
    print("writing", flush=True)
    time.sleep(60)
    fh.write("rest")
"""


def test_a_killed_writer_leaves_the_old_file(tmp_path):
    path = tmp_path / "report.md"
    write_text(path, "old report\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(path)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "writing"  # it is inside the write
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert path.read_text() == "old report\n"
    left = [f.name for f in tmp_path.iterdir() if f.name != "report.md"]
    # the killed writer's temporary file: hidden, named after the target, and not the target
    assert len(left) == 1 and left[0].startswith(".report.md.") and left[0].endswith(".partial")


def test_permissions_are_those_of_a_plain_write_or_of_the_replaced_file(tmp_path):
    fresh = tmp_path / "fresh.txt"
    plain = tmp_path / "plain.txt"
    write_text(fresh, "x")
    plain.write_text("x")
    assert stat.S_IMODE(fresh.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    os.chmod(plain, 0o640)
    write_bytes(plain, b"y")
    assert stat.S_IMODE(plain.stat().st_mode) == 0o640 and plain.read_bytes() == b"y"


def test_bad_arguments_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="mode: must be 'w' or 'wb'"):
        with atomic_write(tmp_path / "x", "a"):
            pass
    with pytest.raises(FileNotFoundError, match="path: directory"):
        write_text(tmp_path / "missing" / "x.txt", "x")


def test_a_downloaded_book_is_cached_through_the_helper(tmp_path, monkeypatch):
    import contextlib
    import io
    import urllib.request

    from attnbounds.empirical import text

    monkeypatch.setenv("ATTNBOUNDS_CACHE", str(tmp_path))
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: contextlib.closing(io.BytesIO(b"the book")))
    path = text._gutenberg_file("gutenberg:2600")
    assert path == tmp_path / "gutenberg" / "pg2600.txt" and path.read_bytes() == b"the book"
    assert [f.name for f in path.parent.iterdir()] == ["pg2600.txt"]


def test_atomic_write_goes_through_a_symlink_and_refuses_special_files(tmp_path):
    from attnbounds.fileio import atomic_write

    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with atomic_write(link) as fh:
        fh.write("new")
    assert link.is_symlink() and target.read_text() == "new"  # the link stays a link
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        with atomic_write(fifo) as fh:
            fh.write("x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # untouched
