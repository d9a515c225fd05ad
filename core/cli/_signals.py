"""SIGTERM on the command line: stop like Ctrl-C, so that nothing half-written is left.

Python ends at SIGTERM (``kill PID``, a batch scheduler cancelling a job, ``timeout``)
without running ``finally`` blocks: the temporary files of an output being written would
stay.  :func:`terminate_as_interrupt` makes SIGTERM raise :class:`Terminated` (a
``KeyboardInterrupt``) instead, so that it cleans up exactly as Ctrl-C does; the command then
exits with ``128 + 15``, as a shell reports a process ended by SIGTERM.

A signal handler's exception is raised wherever the main thread happens to be, and C code
may turn it into an error of its own: SIGTERM during ``import numpy`` surfaces as an
``ImportError`` ("PyCapsule_Import could not import module 'datetime'"), and so can
Ctrl-C's ``KeyboardInterrupt``.  The block therefore also records which of the two arrived
(:attr:`StopSignal.received`), so that the command reports the stop whatever exception it
caused, and :meth:`StopSignal.exception` gives the exception to report it with.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["TERMINATED_EXIT", "StopSignal", "Terminated", "terminate_as_interrupt"]

#: Exit code after SIGTERM (what a shell shows for a process ended by signal 15).
TERMINATED_EXIT = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (handled as an interruption)."""


class StopSignal:
    """Which stop signal (SIGTERM or SIGINT) arrived within a :func:`terminate_as_interrupt`
    block, if any."""

    def __init__(self):
        self.received = None

    def _term(self, signum, frame):
        self.received = signal.SIGTERM
        raise Terminated

    def _int(self, signum, frame):
        self.received = signal.SIGINT
        raise KeyboardInterrupt

    def exception(self):
        """The interruption that stands for the signal received (None if none was)."""
        if self.received is None:
            return None
        return Terminated() if self.received == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def terminate_as_interrupt():
    """Within the block, SIGTERM raises :class:`Terminated`; the previous handler is put
    back afterwards.  Ctrl-C keeps raising ``KeyboardInterrupt`` (where Python's own handler
    is in place) and is recorded too.  Yields a :class:`StopSignal`.  Does nothing outside
    the main thread (only it receives signals)."""
    state = StopSignal()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = signal.signal(signal.SIGTERM, state._term)
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:
        signal.signal(signal.SIGINT, state._int)
    try:
        yield state
    finally:
        signal.signal(signal.SIGTERM, previous)
        if previous_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous_int)
