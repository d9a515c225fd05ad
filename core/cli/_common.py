"""What the subcommands share: progress on stderr, loading, number formatting, safe writing."""

from __future__ import annotations

import math
import os
import sys
import time

from ..errors import FileFormatError, LlrlabError

__all__ = ["StderrProgress", "fmt_number", "load_trials_arg", "operating_point_args",
           "refuse_overwriting_inputs", "write_all_atomically", "write_atomically"]


class StderrProgress:
    """Progress callback ``(fraction, message)`` that writes to stderr.

    Writes at most every half second, and only once the task has run for a second, so that
    small files stay quiet.
    """

    def __init__(self, stream=None, quiet=False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, fraction, message=""):
        if self.quiet:
            return
        now = time.monotonic()
        if now - self.start < 1.0 or (now - self.last < 0.5 and fraction < 1.0):
            return
        self.last = now
        self.shown = True
        self.stream.write(f"\r{message} {100 * fraction:5.1f}%")
        if fraction >= 1.0:
            self.stream.write("\n")
        self.stream.flush()

    def done(self):
        if self.shown and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()


def operating_point_args(p):
    p.add_argument("--p-target", type=float, default=0.01, help="target prior (default 0.01)")
    p.add_argument("--c-miss", type=float, default=1.0, help="cost of a miss (default 1)")
    p.add_argument("--c-fa", type=float, default=1.0, help="cost of a false alarm (default 1)")


def load_trials_arg(files, option, progress=None):
    """Labelled trials from ``[SCORES, KEY]`` or ``[LABELLED]`` given to ``option``."""
    from ..io import load_trials

    if not 1 <= len(files) <= 2:
        raise LlrlabError(f"{option} takes SCORES KEY, or one labelled file; got "
                          f"{len(files)} files")
    return load_trials(files[0], files[1] if len(files) == 2 else None, progress=progress)


def fmt_number(v):
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.6g}" if abs(v) < 1e6 else f"{v:.6e}"


def refuse_overwriting_inputs(outputs, inputs):
    """Raise LlrlabError if an output path names an input file (it would be destroyed)."""
    for out in outputs:
        if out is None or not os.path.exists(out):
            continue
        for inp in inputs:
            if inp is not None and os.path.exists(inp) and os.path.samefile(out, inp):
                raise LlrlabError(f"{out}: the output would overwrite the input file {inp}; "
                                  f"choose another name")


def write_atomically(path, write):
    """Call ``write(tmp)`` on a temporary file next to ``path``, then rename it to ``path``.

    A failure while writing leaves any existing ``path`` untouched and no partial file.
    """
    write_all_atomically([(path, write)])


def write_all_atomically(jobs):
    """Write several files, each through ``write(tmp)`` as in :func:`write_atomically`.

    ``jobs`` is a list of ``(path, write)``.  The files are renamed into place only once
    every one of them is written, so a failure leaves all existing paths untouched (and no
    partial file); errors name the path, not the temporary file.
    """
    done = []  # (path, tmp) of every file begun
    path = None  # the file being written or renamed, for error messages
    try:
        for path, write in jobs:
            path = os.fspath(path)
            folder, base = os.path.split(os.path.abspath(path))
            stem, ext = os.path.splitext(base)
            tmp = os.path.join(folder, f".{stem}.partial-{os.getpid()}{ext}")
            done.append((path, tmp))
            try:
                write(tmp)
            except FileFormatError as exc:
                if exc.path != tmp:
                    raise
                raise FileFormatError(path, exc.reason.replace(tmp, path), line=exc.line,
                                      text=exc.text) from None
        for path, tmp in done:
            os.replace(tmp, path)
    except OSError as exc:
        raise FileFormatError(path, f"cannot be written ({exc.strerror or exc})") from None
    finally:
        for _, tmp in done:
            if os.path.exists(tmp):
                os.remove(tmp)
