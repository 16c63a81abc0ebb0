"""Progress on stderr: a rich bar on a terminal, plain lines in a log.

A rich progress bar draws nothing when stderr is not a terminal (a log file, a pipe, CI), so a
long run, such as a 45-minute ``attnbounds reproduce``, used to be silent there.
:func:`progress_display` gives the bar on a terminal and a :class:`LineProgress` otherwise:
one plain line every :data:`INTERVAL` seconds (and one as each task ends, unless the run was
shorter than one interval: a short run stays silent), with the stage, the
count done of the total, the elapsed time and an estimate of the time left::

    [progress] window 1/4: E3 L=512 | 0/4 | elapsed 12m30s | ETA unknown
    [progress] window 2/4: forward | 1/4 | elapsed 14m02s | ETA ~42m06s

Both offer the subset of rich's ``Progress`` (``rich.progress``) that the commands use: a context manager
with ``add_task(description, total=None)`` and ``update(task, description=, completed=,
total=, advance=)``. ``--no-progress`` gives None: nothing at all.

>>> import io
>>> out = io.StringIO()
>>> with LineProgress(stream=out, interval=None, clock=iter(range(0, 1000, 60)).__next__) as p:
...     t = p.add_task("checking", total=4)
...     p.update(t, description="L1:transcribed", completed=1)
...     p.emit()  # the background thread does this every interval
...     p.update(t, description="done", completed=4)  # a task that ends writes its last line
>>> print(out.getvalue().strip())
[progress] L1:transcribed | 1/4 | elapsed 1m00s | ETA ~3m00s
[progress] done | 4/4 | elapsed 2m00s | ETA done
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TextIO

__all__ = ["INTERVAL", "LineProgress", "progress_display", "format_seconds"]

#: Seconds between two plain progress lines when stderr is not a terminal.
INTERVAL = 30.0


def format_seconds(seconds: float) -> str:
    """``"45s"``, ``"12m30s"`` or ``"1h05m"``.

    >>> format_seconds(5.2), format_seconds(750), format_seconds(3900)
    ('5s', '12m30s', '1h05m')
    """
    s = int(round(max(0.0, float(seconds))))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


class LineProgress:
    """Plain progress lines (see the module docstring).

    Parameters
    ----------
    stream : file, optional
        Where the lines go (default ``sys.stderr``).
    interval : float or None
        Seconds between lines, written by a background thread whether or not the run
        reported anything new (a long stage still shows that it is alive); None: a line
        only when a task ends (for tests).
    clock : callable
        Monotonic seconds (for tests).
    """

    def __init__(self, stream: TextIO | None = None, interval: float | None = INTERVAL,
                 clock: Callable[[], float] = time.monotonic):
        if interval is not None and not interval > 0:
            raise ValueError(f"interval: must be > 0 seconds or None, got {interval!r}")
        self.stream = stream
        self.interval = interval
        self.clock = clock
        self.tasks: list[dict] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start = None
        self._emitted = False

    def __enter__(self):
        self._start = self.clock()
        if self.interval is not None:
            self._thread = threading.Thread(target=self._tick, name="attnbounds-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return False

    def add_task(self, description: str, total: float | None = None, **_) -> int:
        with self._lock:
            self.tasks.append({"description": str(description), "total": total, "completed": 0, "ended": False})
            return len(self.tasks) - 1

    def update(self, task: int, *, description: str | None = None, completed: float | None = None,
               total: float | None = None, advance: float | None = None, **_) -> None:
        with self._lock:
            t = self.tasks[task]
            if description is not None:
                t["description"] = str(description)
            if total is not None:
                t["total"] = total
            if completed is not None:
                t["completed"] = completed
            if advance is not None:
                t["completed"] += advance
            ended = bool(t["total"]) and t["completed"] >= t["total"] and not t["ended"]
            if ended:
                t["ended"] = True
        # the last line of a task, where lines were shown at all: a run shorter than one
        # interval stays silent in a log
        if ended and (self.interval is None or self._emitted):
            self.emit()

    def line(self) -> str:
        """The current line: the last task's stage, done/total, elapsed and ETA."""
        with self._lock:
            t = dict(self.tasks[-1]) if self.tasks else {"description": "starting", "total": None, "completed": 0}
        elapsed = self.clock() - (self._start if self._start is not None else self.clock())
        done, total = t["completed"], t["total"]
        count = f"{done:g}/{total:g}" if total else f"{done:g}"
        if total and done >= total:
            eta = "done"
        elif total and done > 0:
            eta = "~" + format_seconds(elapsed / done * (total - done))
        else:
            eta = "unknown"
        return f"[progress] {t['description']} | {count} | elapsed {format_seconds(elapsed)} | ETA {eta}"

    def emit(self) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            stream.write(self.line() + "\n")
            stream.flush()
        except (OSError, ValueError):  # a closed log must not stop the run
            pass
        self._emitted = True

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self.emit()


def progress_display(enabled: bool = True, *, transient: bool = True, console=None):
    """A rich progress bar on stderr when it is a terminal, a :class:`LineProgress` when it is
    not, or None when ``enabled`` is False (``--no-progress``)."""
    if not enabled:
        return None
    from rich.console import Console

    console = console if console is not None else Console(stderr=True)
    if not console.is_terminal:
        return LineProgress(stream=console.file, interval=INTERVAL)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=transient)
