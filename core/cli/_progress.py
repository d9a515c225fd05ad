"""One live progress line on stderr while a long step of a command runs.

:class:`Progress` shows what the command is doing once a step has run for about a second:
``loading eval.txt  42%`` when the step reports fractions (the loaders' ``progress(fraction,
message)`` callback), or ``fitting the affine calibration  3 s`` with the elapsed time when
it does not (a ticker thread repaints it).  The line is rewritten in place (carriage return,
then erase to the end of the line), and erased when the command ends, so that what remains on
the terminal is the command's output alone.  Nothing is written when stderr is not a terminal
(a pipe, a file, a test) or with ``--quiet``.

The environment variable ``LLRLAB_PROGRESS_DELAY`` (seconds, default 1) sets how long a step
runs before its line appears.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

__all__ = ["Progress"]

#: Erase from the cursor to the end of the line (ANSI/VT100, understood by every terminal
#: emulator in use, including Windows 10+ consoles).
_ERASE = "\x1b[K"


class Progress:
    """The live progress line of one command (see the module docstring).

    Parameters
    ----------
    stream : text stream, optional
        Default ``sys.stderr``.
    quiet : bool
        Show nothing.
    delay : float, optional
        Seconds a step runs before its line appears (short steps stay silent); default
        ``LLRLAB_PROGRESS_DELAY`` or 1.
    interval : float
        Seconds between repaints.
    force : bool
        Show the line even when ``stream`` is not a terminal (tests).
    """

    def __init__(self, stream=None, *, quiet=False, delay=None, interval=0.25, force=False):
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = not quiet and (force or bool(isatty and isatty()))
        if delay is None:
            try:
                delay = float(os.environ.get("LLRLAB_PROGRESS_DELAY", "1"))
            except ValueError:
                delay = 1.0
        self.delay = delay
        self.interval = interval
        self._lock = threading.Lock()
        self._message = ""
        self._fraction = None
        self._started = time.monotonic()
        self._shown = False
        self._last = 0.0
        self._ticker = None
        self._stop = threading.Event()

    # ------------------------------------------------------------------ reporting
    def __call__(self, fraction=None, message=""):
        """A loader's callback: ``fraction`` in [0, 1] (or None) of the step ``message``."""
        if not self.enabled:
            return
        with self._lock:
            if message and message != self._message:
                self._message, self._started = message, time.monotonic()
            self._fraction = None if fraction is None else min(max(float(fraction), 0.0), 1.0)
            now = time.monotonic()
            if now - self._last >= self.interval:
                self._paint(now)

    @contextlib.contextmanager
    def step(self, message):
        """A step without fractions: its line shows the elapsed seconds while it runs."""
        if not self.enabled:
            yield self
            return
        with self._lock:
            self._message, self._fraction = message, None
            self._started = time.monotonic()
            self._paint(self._started)  # at once when there is no delay
        self._ensure_ticker()
        try:
            yield self
        finally:
            with self._lock:
                self._message, self._fraction = "", None
                self._clear()

    def close(self):
        """Erase the line and stop the ticker (idempotent)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        with self._lock:
            self._clear()

    done = close  # the name the loaders' callers used

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ drawing
    def _ensure_ticker(self):
        if self._ticker is None:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="llrlab-progress",
                                            daemon=True)
            self._ticker.start()

    def _tick(self):
        while not self._stop.wait(self.interval):
            with self._lock:
                self._paint(time.monotonic())

    def _paint(self, now):
        """Write the line (lock held)."""
        if not self._message or now - self._started < self.delay:
            return
        if self._fraction is not None:
            what = f"{self._message}  {100 * self._fraction:3.0f}%"
        else:
            what = f"{self._message}  {now - self._started:.0f} s"
        self.stream.write(f"\r{what}{_ERASE}")
        self.stream.flush()
        self._shown, self._last = True, now

    def _clear(self):
        """Erase the line if one was written (lock held)."""
        if self._shown:
            self.stream.write(f"\r{_ERASE}")
            self.stream.flush()
            self._shown = False
