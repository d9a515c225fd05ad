"""Chunked passes over large arrays, spread over the machine's cores, with fixed results.

numpy releases the GIL inside its ufuncs and reductions, so the chunks of one long pass (a
sum of log-losses, a calibration map applied to 10^7 scores) run in parallel threads.  The
chunks are fixed by the array length only, never by the number of threads, and their partial
results are combined in chunk order: every result is bit-for-bit the same on one core or
many (and with or without the pool).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["CHUNK", "chunk_slices", "map_chunks", "map_ordered", "run_pair", "set_threads",
           "take_in_chunks"]

#: Chunk length: 2^18 float64 = 2 MiB, small enough to stay in cache between the steps of
#: a chunk, large enough that thread hand-off costs nothing in comparison.
CHUNK = 1 << 18
#: Below this many elements a pass runs inline (thread hand-off would cost more).
PARALLEL_MIN = 4 * CHUNK

_WORKERS = 1
_POOL = None
_PREFIX = "llrlab-chunks"


def set_threads(n=None):
    """Use ``n`` threads for the chunked passes (1: none); default the environment variable
    ``LLRLAB_THREADS``, else the number of CPUs (at most 8).  Results do not depend on it."""
    global _WORKERS, _POOL
    if n is None:
        n = os.environ.get("LLRLAB_THREADS") or min(os.cpu_count() or 1, 8)
    n = max(1, int(n))
    if _POOL is not None:
        _POOL.shutdown(wait=True)
    _WORKERS = n
    _POOL = (ThreadPoolExecutor(max_workers=n, thread_name_prefix=_PREFIX)
             if n > 1 else None)


def _after_fork_in_child():
    # a forked child inherits the pool object but none of its threads: work submitted to it
    # would wait forever, so the child starts a pool of its own
    global _POOL
    _POOL = None
    set_threads(_WORKERS)


set_threads()
os.register_at_fork(after_in_child=_after_fork_in_child)


def chunk_slices(n, chunk=CHUNK):
    """The slices ``[i, i + chunk)`` covering ``range(n)``, in order."""
    return [slice(i, min(i + chunk, n)) for i in range(0, n, chunk)]


def map_chunks(fn, n, *, chunk=CHUNK):
    """``[fn(s) for s in chunk_slices(n, chunk)]``, in parallel threads for long arrays.

    ``fn`` must only read shared inputs and write to its own slice of an output.  The list
    is in chunk order whatever the scheduling, so a caller that combines it in order gets
    the same result as the serial loop.  Called from one of the pool's threads (inside
    another ``fn``) it runs inline.
    """
    return map_ordered(fn, chunk_slices(n, chunk), parallel=n >= PARALLEL_MIN)


def map_ordered(fn, items, *, parallel=True):
    """``[fn(x) for x in items]``, the items shared out in contiguous runs over threads.

    The result is in the order of ``items``; with ``parallel`` False (or one core) it is
    the plain loop.
    """
    items = list(items)
    if _POOL is None or not parallel or len(items) < 2 or _in_pool():
        return [fn(x) for x in items]
    groups = _groups(items, _WORKERS)
    futures = [_POOL.submit(lambda g=g: [fn(x) for x in g]) for g in groups[1:]]
    out = [fn(x) for x in groups[0]]  # the calling thread takes the first share
    for f in futures:
        out.extend(f.result())
    return out


def _in_pool():
    """True in one of the pool's own threads: a pass started there runs inline (waiting on
    the pool's other workers from inside it could wait forever)."""
    return threading.current_thread().name.startswith(_PREFIX)


def _groups(items, k):
    """``items`` cut into ``k`` contiguous runs of nearly equal length."""
    n = len(items)
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [items[bounds[i]:bounds[i + 1]] for i in range(k) if bounds[i + 1] > bounds[i]]


def run_pair(first, second, *, parallel=True):
    """``(first(), second())``, ``first`` in a pool thread while the calling thread runs
    ``second`` when the pool has threads and ``parallel`` is true, else one after the other.

    For two independent steps that release the GIL (two sorts of 10^7 scores): the results
    are those of the plain calls whatever the threads.  ``first`` must not use the pool
    itself (:func:`map_chunks`): run in a pool thread, it would wait for workers that two
    such calls at once (two sessions of a server) both hold.  ``second`` may.  An exception
    of either is raised (in a pool thread, after both have finished).
    """
    if _POOL is None or not parallel:
        return first(), second()
    fut = _POOL.submit(first)
    try:
        b = second()
    finally:
        a = fut.result()
    return a, b


def take_in_chunks(table, index):
    """``table[index]`` for a 1-D ``table`` and an integer ``index`` (valid indices),
    gathered in chunks in llrlab's threads (e.g. a weight per trial looked up by its
    condition code)."""
    out = np.empty(index.size, dtype=table.dtype)
    # mode "clip": the same values for valid indices, and no buffered copy of ``out``
    # (numpy buffers it in the default mode "raise")
    map_chunks(lambda sl: np.take(table, index[sl], out=out[sl], mode="clip"), index.size)
    return out
