"""SIGTERM on the command line: stop like Ctrl-C, so that nothing half-written is left.

Python ends at SIGTERM (``kill PID``, a batch scheduler cancelling a job, ``timeout``)
without running ``finally`` blocks: the temporary files of an output being written would
stay.  :func:`terminate_as_interrupt` makes SIGTERM raise :class:`Terminated` (a
``KeyboardInterrupt``) instead, so that it cleans up exactly as Ctrl-C does; the command then
exits with ``128 + 15``, as a shell reports a process ended by SIGTERM.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["TERMINATED_EXIT", "Terminated", "terminate_as_interrupt"]

#: Exit code after SIGTERM (what a shell shows for a process ended by signal 15).
TERMINATED_EXIT = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (handled as an interruption)."""


def _raise(signum, frame):
    raise Terminated


@contextlib.contextmanager
def terminate_as_interrupt():
    """Within the block, SIGTERM raises :class:`Terminated`; the previous handler is put
    back afterwards.  Does nothing outside the main thread (only it receives signals)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
