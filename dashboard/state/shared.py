"""Heavy results shared by every session of the server process, each computed once.

A lesson step's results are deterministic: teaching mode's synthetic data follow from their
settings and seed, and data read from the server's own files are the same for every page.
:class:`SharedResults` keeps such results under their cache key (the full settings that
decide them), so that forty students on one lesson, or one lecturer stepping back and forth,
cost one computation per step:

* :meth:`SharedResults.get` -- a finished result, or None (never blocks);
* :meth:`SharedResults.submit` -- a :class:`concurrent.futures.Future` of the result: the
  finished one, the one already being computed (whoever asked first), or a new computation
  in the cache's worker thread.  ``urgent`` requests (a page waiting for its step) go before
  background preparation (the other steps of an open lesson);
* memory is bounded: the least recently used results are dropped beyond ``max_entries``
  results or ``max_bytes`` (estimated from the trials they hold).

The worker is one daemon thread, started on first use: the machine's other core serves the
pages.  This module imports neither Panel nor Bokeh.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections import OrderedDict
from concurrent.futures import Future

__all__ = ["SHARED", "SharedResults", "results_bytes"]

log = logging.getLogger(__name__)

#: Bytes a result holds per trial of each distinct analysis in it (sorted scores, labels,
#: pooled blocks, curves: teaching mode's results measured 13-15 MB with tracemalloc for
#: 770,000-990,000 such trials, 15-17 bytes each).
_BYTES_PER_TRIAL = 20


def results_bytes(value):
    """An estimate of the memory ``value`` holds: a :class:`~..compute.Results` (or a
    ``(results, notes)`` pair), from the number of trials of its datasets."""
    res = value[0] if isinstance(value, tuple) else value
    seen = {}  # (an analysis may serve twice: raw scores that are the LLRs)
    for d in getattr(res, "datasets", {}).values():
        for a in (d.raw, d.llr, *(c.llr for c in d.conditions)):
            seen[id(a)] = a
    for _, a in getattr(res, "references", ()):
        seen[id(a)] = a
    n = sum(int(getattr(a, "n_tar", 0)) + int(getattr(a, "n_non", 0))
            for a in seen.values())
    return max(n, 1) * _BYTES_PER_TRIAL


class _Task:
    __slots__ = ("fn", "future", "key", "started", "urgent")

    def __init__(self, key, fn, urgent):
        self.key, self.fn, self.urgent = key, fn, urgent
        self.started = False
        self.future = Future()


class SharedResults:
    """A bounded, thread-safe cache of results computed once (see the module docstring).

    Parameters
    ----------
    max_entries : int
        Most results kept.
    max_bytes : int
        Most memory the kept results may hold (:func:`results_bytes`); the newest result
        is kept even when it alone is larger.
    """

    def __init__(self, max_entries=32, max_bytes=512_000_000):
        self.max_entries = int(max_entries)
        self.max_bytes = int(max_bytes)
        self._lock = threading.Condition()
        self._done = OrderedDict()   # key -> (value, bytes), least recently used first
        self._bytes = 0
        self._tasks = {}             # key -> _Task, queued or running
        self._queue = []             # heap of (0 urgent / 1 background, order, key)
        self._order = itertools.count()
        self._worker = None
        self.computed = 0            # computations run (for tests and benchmarks)

    # ------------------------------------------------------------------ look-ups

    def get(self, key):
        """The finished result of ``key``, or None."""
        with self._lock:
            hit = self._done.get(key)
            if hit is None:
                return None
            self._done.move_to_end(key)
            return hit[0]

    def __contains__(self, key):
        with self._lock:
            return key in self._done

    def pending(self, key):
        """True while ``key`` is queued or being computed."""
        with self._lock:
            return key in self._tasks

    def submit(self, key, fn, *, urgent=True):
        """A future of the result of ``key``: ``fn()`` runs in the worker unless the result
        is known or on its way.  An urgent request moves a queued background one ahead."""
        with self._lock:
            hit = self._done.get(key)
            if hit is not None:
                self._done.move_to_end(key)
                fut = Future()
                fut.set_result(hit[0])
                return fut
            task = self._tasks.get(key)
            if task is None:
                task = self._tasks[key] = _Task(key, fn, urgent)
                heapq.heappush(self._queue, (0 if urgent else 1, next(self._order), key))
                self._start()
                self._lock.notify()
            elif urgent and not task.urgent:
                task.urgent = True
                heapq.heappush(self._queue, (0, next(self._order), key))
                self._lock.notify()
            return task.future

    def clear(self):
        """Forget every finished result (queued and running ones still finish)."""
        with self._lock:
            self._done.clear()
            self._bytes = 0

    # ------------------------------------------------------------------ the worker

    def _start(self):
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._work, name="llrlab-shared-results",
                                            daemon=True)
            self._worker.start()

    def _next(self):
        with self._lock:
            while True:
                while self._queue:
                    _, _, key = heapq.heappop(self._queue)
                    task = self._tasks.get(key)
                    if task is None or task.started:  # (moved ahead: queued twice)
                        continue
                    task.started = True
                    if task.future.set_running_or_notify_cancel():
                        return task
                    self._tasks.pop(key, None)  # cancelled
                self._lock.wait()

    def _work(self):
        while True:
            task = self._next()
            try:
                value = task.fn()
            except BaseException as exc:  # the askers see it; nothing is kept
                with self._lock:
                    self._tasks.pop(task.key, None)
                task.future.set_exception(exc)
                continue
            with self._lock:
                self._keep(task.key, value)
                self._tasks.pop(task.key, None)
                self.computed += 1
            task.future.set_result(value)  # (its callbacks find it kept)

    def _keep(self, key, value):
        size = results_bytes(value)
        old = self._done.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        self._done[key] = (value, size)
        self._bytes += size
        while len(self._done) > 1 and (len(self._done) > self.max_entries
                                       or self._bytes > self.max_bytes):
            _, (_, b) = self._done.popitem(last=False)
            self._bytes -= b


#: The results shared by the sessions of this process.
SHARED = SharedResults()
