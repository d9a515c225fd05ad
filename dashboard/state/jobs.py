"""Background work of the dashboard: runners, the job helper that reports in a
:class:`~.status.StatusState`, bounded caches and warnings collected as notes.

A *runner* has two methods: ``run(job, on_done, on_error, on_progress)`` calls
``job(progress)`` and hands its result to ``on_done`` (or its exception to ``on_error``);
``follow(future, on_done, on_error)`` does the same with a
:class:`concurrent.futures.Future` computed elsewhere (the results shared by the sessions,
:mod:`.shared`).
:class:`SyncRunner` does so inline (tests, benchmarks, notebooks); the app installs one that
runs the job in a worker thread and calls back on the session's event loop.
"""

from __future__ import annotations

import logging
import warnings
from collections import OrderedDict

from llrlab.core import LlrlabError, LlrlabWarning

__all__ = ["LRU", "Jobs", "SyncRunner", "user_message", "with_notes"]

log = logging.getLogger("llrlab.dashboard.state")


def user_message(exc: BaseException) -> str:
    """One sentence for the page: the LlrlabError message, never a traceback."""
    if isinstance(exc, LlrlabError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return "not enough memory for this data set"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


class SyncRunner:
    """Runs heavy jobs inline (tests, benchmarks, notebooks)."""

    def run(self, job, on_done, on_error, on_progress):
        try:
            result = job(on_progress)
        except Exception as exc:  # reported in the page, see Jobs.report
            on_error(exc)
        else:
            on_done(result)

    def follow(self, future, on_done, on_error):
        """Wait for ``future`` (computed elsewhere, e.g. by the shared results' worker)
        and hand over its result or its exception."""
        self.run(lambda _progress: future.result(), on_done, on_error, None)


def with_notes(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), notes)``: the messages of the LlrlabWarnings raised meanwhile
    (what the user should know, shown in the page rather than lost in the server log)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LlrlabWarning)
        result = fn(*args, **kwargs)
    return result, [str(w.message) for w in caught if issubclass(w.category, LlrlabWarning)]


class LRU(OrderedDict):
    """A dict that keeps its ``size`` most recently stored or read entries."""

    def __init__(self, size):
        super().__init__()
        self.size = int(size)

    def get(self, key, default=None):
        if key in self:
            self.move_to_end(key)
            return self[key]
        return default

    def put(self, key, value):
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class Jobs:
    """Runs jobs through a runner and reports them in a status part.

    While a tracked job runs, ``status.busy`` is True and its progress is shown; a failure
    sets ``status.error`` (one line; the traceback goes to the server log unless the error is
    an :class:`~llrlab.core.LlrlabError`, i.e. the user's input).
    """

    def __init__(self, runner, status):
        self.runner = runner
        self.status = status
        self.closed = False

    def close(self):
        """The session has ended: results of jobs still running are dropped, not applied."""
        self.closed = True

    def run(self, what, job, on_done, on_error, *, track=True):
        """Run ``job(progress)``; then ``on_done(result)`` or ``on_error(exc)``.

        ``what`` names the job in the status line.  ``track=False`` leaves the status alone
        (the caller shows its own progress).  The job is handed to the runner as it is.
        """
        if self.closed:
            return
        if not track:
            self.runner.run(job, self._unless_closed(on_done), self._unless_closed(on_error),
                            lambda *_: None)
            return
        self.runner.run(job, *self._tracked(what, on_done, on_error), self.status.step)

    def follow(self, what, future, on_done, on_error):
        """Like :meth:`run`, for a :class:`concurrent.futures.Future` computed elsewhere
        (the status shows ``what`` meanwhile, without a progress value)."""
        if not self.closed:
            self.runner.follow(future, *self._tracked(what, on_done, on_error))

    def _tracked(self, what, on_done, on_error):
        """Show ``what`` as busy until the job ends; ``(done, fail)`` that end it and call
        ``on_done`` / ``on_error`` (neither once the session has closed)."""

        def done(result):
            if not self.closed:
                self.status.end()
                on_done(result)

        def fail(exc):
            if not self.closed:
                self.status.end()
                on_error(exc)

        self.status.begin(what)
        return done, fail

    def _unless_closed(self, fn):
        def call(arg):
            if not self.closed:
                fn(arg)
        return call

    def report(self, exc, what, shown=None, *, show=True):
        """Show ``exc`` in the page (``shown`` rewrites the text, e.g. temporary paths into
        the names the user knows; ``show=False``: only log it); log it with its traceback
        unless it is the user's input."""
        if not isinstance(exc, LlrlabError):
            log.error("%s failed", what, exc_info=exc)
        if show:
            text = user_message(exc)
            self.status.error = shown(text) if shown is not None else text
