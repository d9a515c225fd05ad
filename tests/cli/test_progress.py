"""The live progress line: shown on a terminal while a long step runs, erased at the end,
silent off a terminal and with --quiet."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from llrlab.core.cli import Progress
from llrlab.core.io import write_trials

from .._time_scale import scaled
from ..dashboard.conftest import make_trials

LLRLAB = Path(sys.executable).parent / "llrlab"


def _screen(raw):
    """The lines a terminal shows after ``raw`` (carriage return, erase-to-end, newline)."""
    lines, line, col = [], [], 0
    i = 0
    while i < len(raw):
        if raw.startswith("\x1b[K", i):
            del line[col:]
            i += 3
            continue
        c = raw[i]
        if c == "\r":
            col = 0
        elif c == "\n":
            lines.append("".join(line))
            line, col = [], 0
        else:
            if col < len(line):
                line[col] = c
            else:
                line.append(c)
            col += 1
        i += 1
    if line:
        lines.append("".join(line))
    return lines


def test_progress_draws_fraction_and_elapsed_then_erases():
    buf = io.StringIO()
    p = Progress(buf, delay=0.0, interval=0.0, force=True)
    p(0.5, "loading eval.txt")
    with p.step("training the affine calibration"):
        time.sleep(0.05)
    p.close()
    raw = buf.getvalue()
    assert "\rloading eval.txt   50%\x1b[K" in raw
    assert "training the affine calibration  0 s" in raw
    assert _screen(raw) == []  # nothing is left on the terminal


def test_progress_is_silent_off_a_terminal_and_when_quiet():
    for p in (Progress(io.StringIO(), delay=0.0), Progress(io.StringIO(), delay=0.0,
                                                             force=True, quiet=True)):
        p(0.5, "loading")
        with p.step("working"):
            pass
        p.close()
        assert p.stream.getvalue() == ""


def _run_in_a_terminal(argv, env):
    """Run ``argv`` with stdout and stderr on a pseudo-terminal; ``(exit code, raw output)``."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=scaled(60)), b"".join(chunks).decode().replace("\r\n", "\n")


def test_llrlab_eval_in_a_terminal_shows_progress_and_leaves_only_its_output(tmp_path):
    path = tmp_path / "eval.txt"
    write_trials(path, make_trials(20_000, seed=3))
    env = dict(os.environ, LLRLAB_PROGRESS_DELAY="0")
    code, raw = _run_in_a_terminal([str(LLRLAB), "eval", str(path), "--bootstrap", "50"], env)
    assert code == 0, raw
    assert "\rbootstrap: 50 replicates by trial of 20,000 trials" in raw  # shown live
    screen = _screen(raw)
    assert screen[0] == f"llrlab eval: {path}"  # ... and erased before the output
    assert not any("replicates by trial of" in line or "analysing" in line
                   for line in screen)
    # --quiet: no progress at all
    code, raw = _run_in_a_terminal([str(LLRLAB), "eval", str(path), "--bootstrap", "50",
                                    "--quiet"], env)
    assert code == 0 and "\r" not in raw.replace("\r\n", "\n")
