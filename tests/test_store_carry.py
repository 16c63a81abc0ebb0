"""``store._carry`` never copies the lock file: a copy is another inode, which the held lock
does not cover (last stop it copied ``.lock`` when it could not hard-link it)."""

from __future__ import annotations

import os

from attnbounds.empirical import store


def test_the_lock_is_linked_or_left_behind_never_copied(tmp_path, monkeypatch):
    old, new = tmp_path / "out", tmp_path / "staging"
    new.mkdir()
    with store.RunLock(old):
        (old / store.CACHE).mkdir()
        (old / store.CACHE / "window_000.npz").write_bytes(b"cache")
        store._carry(old, new)  # a file system with hard links: the very same inode
        assert os.stat(new / store.LOCK).st_ino == os.stat(old / store.LOCK).st_ino
        assert (new / store.CACHE / "window_000.npz").read_bytes() == b"cache"
        for p in (new / store.LOCK, new / store.CACHE / "window_000.npz"):
            os.unlink(p)

        def no_links(src, dst):
            raise OSError(1, "Operation not permitted")

        monkeypatch.setattr(os, "link", no_links)  # a file system without hard links
        store._carry(old, new)
        assert not (new / store.LOCK).exists()  # not a copy on another inode
        assert (new / store.CACHE / "window_000.npz").read_bytes() == b"cache"  # the cache is copied
