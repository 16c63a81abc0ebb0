"""The console script ends the process without the interpreter's teardown (about 2 s after a
reproduce run, a trial), but otherwise as Python's exit does: status, output, threads, atexit."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_the_console_script_keeps_output_status_threads_and_atexit(tmp_path):
    marker = tmp_path / "thread-done"
    got = _python(f"""
        import atexit, threading, time
        from pathlib import Path
        atexit.register(lambda: print("ATEXIT-RAN", flush=True))
        def late():  # a thread that is not a daemon: Python's exit waits for it
            time.sleep(0.3)
            Path({str(marker)!r}).write_text("done")
        threading.Thread(target=late).start()
        from attnbounds.cli import run
        run(["claims"])
        print("NOT REACHED")
    """)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0].startswith("L1") and any(line.startswith("T2") for line in lines)  # the whole list, flushed
    assert lines[-1] == "ATEXIT-RAN" and "NOT REACHED" not in got.stdout
    assert marker.read_text() == "done"


def test_the_console_script_exits_with_mains_status():
    got = _python("from attnbounds.cli import run; run(['claims', 'NO-SUCH-CLAIM'])")
    assert got.returncode == 2 and got.stderr.startswith("Error: ") and "Traceback" not in got.stderr
    got = subprocess.run([sys.executable, "-m", "attnbounds", "--version"], capture_output=True, text=True, timeout=300)
    assert got.returncode == 0 and got.stdout.startswith("attnbounds, version")


def test_a_message_status_is_printed_and_exits_1():
    got = _python("from attnbounds.cli import _exit_now; _exit_now('stopped: a reason')")
    assert got.returncode == 1 and got.stderr.strip() == "stopped: a reason"
    got = _python("from attnbounds.cli import _exit_now; _exit_now(None)")
    assert got.returncode == 0
