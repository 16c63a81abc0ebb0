"""The ``reproduce`` output directory: a lock, a content-addressed cache, atomic results.

A run owns its ``--out`` directory ``DIR`` from start to finish:

* **Lock.** ``DIR/.lock`` is held with ``flock`` for the whole run and records the
  holder's PID and start time. A second run into ``DIR`` stops at once (exit 2) with one
  line naming them. The kernel drops the lock when a process dies, so a lock left by a
  killed run is simply taken over, with a warning naming the dead PID. The file **stays**
  after the run, emptied (an empty ``.lock`` means "released cleanly"). It is not deleted
  on purpose: ``flock`` locks the file's inode, not its name. If a finishing run unlinked
  ``.lock``, a second run that had already opened the old file could lock that orphaned
  inode while a third created a new ``.lock`` and locked it too: two runs writing one
  directory. Keeping the file keeps one inode per directory, so the lock means what it says.
* **Cache.** ``DIR/cache/window_XXX.npz`` holds one window's tables together with its
  key: the sha256 of everything that determines the numbers (model identity, text,
  window, every parameter, the source of every plug-in, the package version and
  source). An entry is used only when its key matches; a damaged entry is deleted and
  recomputed with one warning line. Entries are written to a unique temporary name and
  renamed, so an interrupt never leaves half a file.
* **Atomic results.** The final outputs (whatever the run writes: tables, figures,
  ``results.json``, ``report.md``) go to a temporary sibling directory, with a
  ``manifest.json`` listing every file and its sha256, the run's parameters and id. The
  sibling then replaces ``DIR`` in one step (``renameat2(RENAME_EXCHANGE)`` on Linux), so
  ``DIR`` always holds either the old complete results or the new ones, never a mix.
  Without ``renameat2`` two renames do it; a kill between them leaves the results beside
  ``DIR``, and the next run into ``DIR`` moves them back before anything else.
  :func:`verify` reports a directory whose files disagree with its manifest.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import errno
import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
import uuid
from pathlib import Path

import numpy as np

from attnbounds.fileio import atomic_write, fsync_dir, write_text

__all__ = [
    "MANIFEST",
    "LOCK",
    "CACHE",
    "OutputLocked",
    "OutputDirError",
    "check_output_dir",
    "RunLock",
    "cache_key",
    "code_identity",
    "plugin_source_sha256",
    "WindowCache",
    "publish",
    "write_manifest",
    "verify",
    "new_run_id",
]

MANIFEST = "manifest.json"
LOCK = ".lock"
CACHE = "cache"
_MANIFEST_FORMAT = 1
# entries of DIR that belong to the directory, not to one run's results: carried over
_KEEP = (CACHE, LOCK)


class OutputDirError(ValueError):
    """``--out`` cannot be used (not writable, not a directory, someone else's files)."""


class OutputLocked(RuntimeError):
    """Another live run holds the lock on ``--out``."""


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr, flush=True)


def new_run_id() -> str:
    """A unique id: UTC time and 8 random hex digits, e.g. ``20261202T203000Z-1a2b3c4d``."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{uuid.uuid4().hex[:8]}"


# --------------------------------------------------------------------------------------
# Validation of --out (before any heavy work)
# --------------------------------------------------------------------------------------


_PROBE = ".attnbounds-probe-"  # :func:`_can_write`'s test directory, there for an instant (another run's too)


def _entries(directory: Path) -> list[Path]:
    """The entries of ``directory``, without the write probes of runs checking it at the same moment."""
    return [p for p in directory.iterdir() if not p.name.startswith(_PROBE)]


def _looks_like_output(directory: Path) -> bool:
    names = {p.name for p in _entries(directory)}
    return bool(names & {MANIFEST, "results.json", CACHE, LOCK})


def _listed(directory: Path) -> set | None:
    """The files a directory's manifest lists; None without a readable manifest."""
    try:
        return set(json.loads((directory / MANIFEST).read_text())["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _foreign_entries(directory: Path, listed: set) -> list[str]:
    """The entries of an output directory that its manifest does not list: a user's notes.md
    beside the run's report.md too (taken for an output by its suffix, it was deleted by the
    next run into the directory, which replaces the directory as a whole)."""
    top = {Path(rel).parts[0] for rel in listed}
    return sorted(p.name for p in _entries(directory)
                  if p.name not in top and p.name not in (*_KEEP, MANIFEST) and not p.name.endswith(".partial")
                  and os.path.lexists(p))  # (an entry gone meanwhile is no one's file)


def check_output_dir(path, flag: str = "--out") -> Path:
    """Check that ``path`` can be a reproduce output directory; return it absolute.

    It must be a directory (or not exist yet) in a writable parent (the results are built
    in a sibling directory), be writable itself, and be empty or hold reproduce outputs:
    a run replaces the directory as a whole, so a directory of other files is refused.
    """
    out = Path(os.path.realpath(os.path.expanduser(str(path))))  # a symlink: its target is replaced
    if out.exists() and not out.is_dir():
        raise OutputDirError(f"{flag}: {str(path)!r} exists and is not a directory")
    if out.parent == out:
        raise OutputDirError(f"{flag}: {str(path)!r} cannot be the file-system root")
    cwd = Path(os.path.realpath(os.getcwd()))
    if cwd == out or out in cwd.parents:
        raise OutputDirError(f"{flag}: {str(path)!r} is or contains the current directory, and a run "
                             "replaces the directory as a whole; choose another directory")
    if out.exists():
        if not _can_write(out):
            raise OutputDirError(f"{flag}: {str(path)!r} is not writable")
        if _entries(out) and not _looks_like_output(out):
            raise OutputDirError(f"{flag}: {str(path)!r} is not empty and holds no reproduce results; "
                                 "choose a new or empty directory")
        listed = _listed(out)
        foreign = _foreign_entries(out, listed or set())
        if foreign:
            names = f"{', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}"
            said = (f"holds files no reproduce run wrote ({names})" if listed is not None else
                    f"holds files ({names}) and no readable {MANIFEST}, so which of them a run wrote is not known")
            raise OutputDirError(f"{flag}: {str(path)!r} {said}, and a run replaces the directory as a whole; "
                                 "move them or choose another directory")
    ancestor = out.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputDirError(f"{flag}: cannot create {str(path)!r}: {str(ancestor)!r} is not a directory")
    if not _can_write(ancestor):
        raise OutputDirError(f"{flag}: cannot create {str(path)!r} and a sibling beside it: "
                             f"{str(ancestor)!r} is not writable")
    return out


def _can_write(directory: Path) -> bool:
    """Try it: permission bits do not tell (root, read-only mounts, /proc)."""
    try:
        probe = tempfile.mkdtemp(dir=directory, prefix=_PROBE)
    except OSError:
        return False
    os.rmdir(probe)
    return True


# --------------------------------------------------------------------------------------
# Lock
# --------------------------------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunLock:
    """An exclusive lock on an output directory (``flock`` on ``DIR/.lock``).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()) / "out"
    >>> with RunLock(d) as lock:
    ...     RunLock(d).acquire()
    Traceback (most recent call last):
    ...
    attnbounds.empirical.store.OutputLocked: --out: ... is in use by another reproduce run (PID ..., started ...)
    """

    def __init__(self, out, flag: str = "--out"):
        self.out = Path(out)
        self.flag = flag
        self._fd: int | None = None
        self.info: dict = {}

    def acquire(self) -> "RunLock":
        import fcntl

        for _ in range(100):  # another run's discard may remove the directory under us: take it again
            self.out.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(self.out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
            except FileNotFoundError:  # removed between the mkdir and the open
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as err:
                if err.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                holder = _read_holder(fd)
                os.close(fd)
                pid = holder.get("pid", "unknown")
                started = holder.get("started", "unknown time")
                raise OutputLocked(f"{self.flag}: {str(self.out)!r} is in use by another reproduce run "
                                   f"(PID {pid}, started {started})") from None
            if _same_file(fd, self.out / LOCK):
                break
            # the lock file was removed (:meth:`discard`) between the open and the lock: this
            # lock guards nothing; take the one now at the path
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        else:
            raise OutputLocked(f"{self.flag}: {str(self.out)!r}: its lock file kept being removed by other runs; "
                               "try again")
        previous = _read_holder(fd)
        if previous.get("pid") not in (None, os.getpid()):
            state = "no longer running" if not _pid_alive(int(previous["pid"])) else "no longer holding it"
            _warn(f"{self.flag}: taking over the lock on {str(self.out)!r} left by PID {previous['pid']} "
                  f"(started {previous.get('started', 'unknown time')}), {state}")
        self.info = {"pid": os.getpid(), "host": socket.gethostname(),
                     "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(self.info) + "\n").encode(), 0)
        os.fsync(fd)
        self._fd = fd
        _remove_leftovers(self.out)  # staging dirs of killed runs (only the lock holder may)
        return self

    def discard(self) -> bool:
        """Remove ``out`` while the lock is held, if it holds nothing but the lock file (a run
        that created it and stopped before writing anything, e.g. on a setting found bad after
        the model loaded); then release. Returns whether it was removed."""
        if self._fd is None:
            return False
        try:
            if {p.name for p in self.out.iterdir()} != {LOCK}:
                return False
            (self.out / LOCK).unlink()
            self.out.rmdir()  # fails, harmlessly, if something appeared meanwhile
            return True
        except OSError:
            return False
        finally:
            self.release()

    def release(self) -> None:
        if self._fd is None:
            return
        import fcntl

        try:
            os.ftruncate(self._fd, 0)  # an empty lock file: released cleanly (not stale)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> bool:
        self.release()
        return False


def _same_file(fd: int, path: Path) -> bool:
    """Whether the open ``fd`` is the file now at ``path``."""
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _read_holder(fd: int) -> dict:
    try:
        raw = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
        return json.loads(raw) if raw else {}
    except (OSError, ValueError):
        return {}


def _staging_prefix(out: Path) -> str:
    return f".{out.name}.staging-"


def _remove_leftovers(out: Path) -> None:
    """Delete the staging directories that killed runs left beside ``out``.

    Without a one-step swap, :func:`publish` renames ``out`` aside (``...-old``) and then the
    new results in. A kill between those two renames leaves ``out`` without results and
    complete ones beside it: those are moved back first (the new results when their
    manifest was written, else the old), with a warning, so that nothing is lost.
    """
    leftovers = sorted(out.parent.glob(_staging_prefix(out) + "*"))
    if not (out / MANIFEST).is_file():
        for old in (p for p in leftovers if p.name.endswith("-old")):
            new = old.with_name(old.name.removesuffix("-old"))
            source = new if (new / MANIFEST).is_file() else old
            if not (source / MANIFEST).is_file():
                continue
            for entry in source.iterdir():
                if entry.name != LOCK and not (out / entry.name).exists():
                    os.replace(entry, out / entry.name)
            _warn(f"{out}: restored the complete results a killed run left in {source.name}")
            break
    for p in leftovers:
        shutil.rmtree(p, ignore_errors=True)


# --------------------------------------------------------------------------------------
# Cache keys
# --------------------------------------------------------------------------------------


def cache_key(parts: dict) -> str:
    """sha256 of the canonical JSON of ``parts`` (sorted keys).

    >>> cache_key({"a": 1, "b": [1, 2]}) == cache_key({"b": [1, 2], "a": 1})
    True
    >>> cache_key({"a": 1}) == cache_key({"a": 2})
    False
    """
    payload = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def _file_sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def plugin_source_sha256(spec: str) -> str | None:
    """sha256 of the source file a normalizer spec loads (``file.py:obj``, ``pkg.mod:obj``).

    None for registered names (the package's own source covers the built-ins) and for
    modules without a source file.
    """
    import importlib.util
    import re

    base = re.sub(r"\(.*\)\s*$", "", str(spec)).strip()
    if ":" not in base:
        return None
    module_name = base.rpartition(":")[0]
    if module_name.endswith(".py"):
        path = Path(module_name).expanduser()
        return _file_sha256(path) if path.is_file() else None
    try:
        found = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        found = None
    if found is None:
        local = Path.cwd() / (module_name.replace(".", os.sep) + ".py")
        return _file_sha256(local) if local.is_file() else None
    origin = getattr(found, "origin", None)
    return _file_sha256(origin) if origin and os.path.isfile(origin) else None


_PACKAGE_SOURCE: str | None = None


def _package_source_sha256() -> str:
    """sha256 over the package's own ``.py`` files (path and bytes): any code change re-keys."""
    global _PACKAGE_SOURCE
    if _PACKAGE_SOURCE is None:
        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for p in sorted(root.rglob("*.py")):
            digest.update(str(p.relative_to(root)).encode())
            digest.update(p.read_bytes())
        _PACKAGE_SOURCE = digest.hexdigest()
    return _PACKAGE_SOURCE


def code_identity(normalizer_specs=()) -> dict:
    """The code part of a cache key: package version and source, and each plug-in's source."""
    import importlib.metadata

    try:
        version = importlib.metadata.version("attnbounds")
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"attnbounds_version": version, "attnbounds_source_sha256": _package_source_sha256(),
            "plugins": {str(s): plugin_source_sha256(s) for s in normalizer_specs}}


# --------------------------------------------------------------------------------------
# Window cache
# --------------------------------------------------------------------------------------


class WindowCache:
    """``DIR/cache/window_XXX.npz``: one window's tables, valid only under its key."""

    def __init__(self, out, warn=_warn):
        self.dir = Path(out) / CACHE
        self.warn = warn

    def path(self, window: int) -> Path:
        return self.dir / f"window_{window:03d}.npz"

    def load(self, window: int, key: str):
        """``(tables, timing)`` when the entry exists and its key matches, else None.

        A damaged entry (truncated, empty, not an npz, missing fields) is deleted, with
        one warning line, and the window is recomputed.
        """
        path = self.path(window)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["__key__"]) != key:
                    return None  # other settings, model, text or code: recompute, never reuse
                tables: dict = {}
                for name in data.files:
                    if "::" in name:
                        t, c = name.split("::", 1)
                        tables.setdefault(t, {})[c] = data[name]
                timing = json.loads(str(data["__timing__"]))
            return tables, timing
        except Exception as err:  # noqa: BLE001 - any failure to read is a damaged entry
            reason = " ".join(f"{type(err).__name__}: {err}".split())[:120]
            path.unlink(missing_ok=True)
            self.warn(f"cache entry {path} is damaged ({reason}); deleted, recomputing window {window}")
            return None

    def save(self, window: int, key: str, tables: dict, timing: dict) -> Path:
        arrays = {"__key__": np.array(key), "__timing__": np.array(json.dumps(timing))}
        for tname, cols in tables.items():
            for cname, arr in cols.items():
                arrays[f"{tname}::{cname}"] = arr
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.path(window)
        with atomic_write(path, "wb") as fh:  # a reader sees the old entry or the new one
            np.savez(fh, **arrays)
        return path


# --------------------------------------------------------------------------------------
# Manifest and atomic publication
# --------------------------------------------------------------------------------------


def _output_files(directory: Path) -> list[str]:
    """Relative paths of the result files under ``directory`` (not the cache, lock, manifest)."""
    files = []
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory)
        if rel.parts[0] in _KEEP or rel.as_posix() == MANIFEST or not p.is_file():
            continue
        files.append(rel.as_posix())
    return files


def write_manifest(directory, *, run_id: str, parameters: dict) -> dict:
    """Write ``manifest.json``: every result file with its sha256 and size, the parameters and id."""
    directory = Path(directory)
    manifest = {
        "format": _MANIFEST_FORMAT,
        "run_id": run_id,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "parameters": parameters,
        "files": {rel: {"sha256": _file_sha256(directory / rel), "bytes": (directory / rel).stat().st_size}
                  for rel in _output_files(directory)},
    }
    write_text(directory / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
    return manifest


def verify(directory) -> list[str]:
    """Problems of a reproduce output directory (an empty list: consistent).

    Every file the manifest lists must exist with its sha256; every result file must be
    listed; ``results.json`` must carry the manifest's run id.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return [f"{directory} is not a directory"]
    mpath = directory / MANIFEST
    if not mpath.is_file():
        return [f"no {MANIFEST} (not a complete reproduce output directory)"]
    try:
        manifest = json.loads(mpath.read_text())
        listed = manifest["files"]
        run_id = manifest["run_id"]
    except (ValueError, KeyError, TypeError, OSError) as err:
        return [f"{MANIFEST} is unreadable ({type(err).__name__}: {err})"]
    problems = []
    for rel, entry in sorted(listed.items()):
        p = directory / rel
        if not p.is_file():
            problems.append(f"{rel}: listed in {MANIFEST} but missing")
        elif _file_sha256(p) != entry.get("sha256"):
            problems.append(f"{rel}: sha256 differs from {MANIFEST}")
    for rel in _output_files(directory):
        if rel not in listed and not Path(rel).name.endswith(".partial"):
            problems.append(f"{rel}: not listed in {MANIFEST} (left by another run?)")
    results = directory / "results.json"
    if results.is_file() and "results.json" in listed:
        try:
            rid = json.loads(results.read_text()).get("run_id")
        except ValueError:
            rid = None
        if rid is not None and rid != run_id:
            problems.append(f"results.json: run id {rid} differs from {MANIFEST}'s {run_id}")
    return problems


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories in one step (Linux ``renameat2``); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP if hasattr(errno, "ENOTSUP") else errno.EINVAL):
        return False
    raise OSError(err, f"cannot swap {a} and {b}: {os.strerror(err)}")


def _carry(old: Path, new: Path) -> None:
    """Hard-link the directory's own entries (cache, lock) from ``old`` into ``new``.

    The lock file keeps its inode, so the lock still held on it stays held after the swap.
    Where the file system cannot hard-link it, the lock file is **not** carried: a copy is
    another inode, which the held lock does not cover, so it would only look held. The new
    directory then has no ``.lock`` until the next run creates one; its results are complete
    at the swap, so a run that starts before this one releases overlaps only its cleanup.
    (The cache's files are copied where they cannot be linked.)
    """
    for name in _KEEP:
        src = old / name
        if not src.exists():
            continue
        dst = new / name
        if src.is_dir():
            shutil.copytree(src, dst, copy_function=_link_or_copy, dirs_exist_ok=True)
        elif name == LOCK:
            try:
                os.link(src, dst)
            except OSError:
                pass  # never a copy: see above
        else:
            _link_or_copy(src, dst)


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def publish(out, write, *, run_id: str, parameters: dict, before_swap=None):
    """Build the results in a sibling directory with ``write(tmp_dir)``, then swap it in.

    ``write`` returns any value (passed back); it may write any files. The manifest lists
    whatever it wrote. ``before_swap()`` is a test hook called just before the swap.
    The caller must hold :class:`RunLock` on ``out``.
    """
    out = Path(os.path.abspath(out))
    out.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f"{_staging_prefix(out)}{run_id}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        value = write(staging)
        write_manifest(staging, run_id=run_id, parameters=parameters)
        _carry(out, staging)
        fsync_dir(staging)
        if before_swap is not None:
            before_swap()
        if _exchange(staging, out):
            fsync_dir(out.parent)
        else:  # no one-step swap here: two renames (a kill between them leaves the old dir beside)
            old = out.parent / f"{_staging_prefix(out)}{run_id}-old"
            os.replace(out, old)
            os.replace(staging, out)
            staging = old
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return value


