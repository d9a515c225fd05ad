"""SIGTERM on the command line: stop like Ctrl-C, so that nothing half-written is left.

Python ends at SIGTERM (``kill PID``, a batch scheduler cancelling a job, ``timeout``)
without running ``finally`` blocks: the temporary files of an output being written would
stay.  :func:`terminate_as_interrupt` makes SIGTERM raise :class:`Terminated` (a
``KeyboardInterrupt``) instead, so that it cleans up exactly as Ctrl-C does; the command then
exits with ``128 + 15``, as a shell reports a process ended by SIGTERM.

A signal handler's exception is raised wherever the main thread happens to be, and C code
may turn it into an error of its own: SIGTERM during ``import numpy`` surfaces as an
``ImportError`` ("PyCapsule_Import could not import module 'datetime'").  The block
therefore also records that SIGTERM arrived (:attr:`SigtermState.arrived`), so that the
command can report the termination whatever exception it caused.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["TERMINATED_EXIT", "SigtermState", "Terminated", "terminate_as_interrupt"]

#: Exit code after SIGTERM (what a shell shows for a process ended by signal 15).
TERMINATED_EXIT = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (handled as an interruption)."""


class SigtermState:
    """Whether SIGTERM arrived within a :func:`terminate_as_interrupt` block."""

    def __init__(self):
        self.arrived = False

    def _raise(self, signum, frame):
        self.arrived = True
        raise Terminated


@contextlib.contextmanager
def terminate_as_interrupt():
    """Within the block, SIGTERM raises :class:`Terminated`; the previous handler is put
    back afterwards.  Yields a :class:`SigtermState`.  Does nothing outside the main thread
    (only it receives signals)."""
    state = SigtermState()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = signal.signal(signal.SIGTERM, state._raise)
    try:
        yield state
    finally:
        signal.signal(signal.SIGTERM, previous)
