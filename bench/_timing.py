"""Timing helpers shared by the benchmark scripts (run them as ``python bench/NAME.py``).

Every timed row of a benchmark table is measured the same way: the callables of the row
(always including the baseline, e.g. one ``numpy.sort`` of the same scores) run once
untimed, then take turns ``repeats`` times, garbage collected before each run, so that a
slow phase of the machine hits all of them alike; a row reports the median of each and its
spread (smallest to largest run).  The machine's load average is read before and after the
table, and :func:`thread_settings` runs a row with the default threads or with one thread
for every pool (BLAS / OpenMP through threadpoolctl, and llrlab's own chunk threads).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import statistics
import time


def median_time(fn, repeats, *, warmup=False):
    """Median wall time of ``fn()`` over ``repeats`` runs (garbage collected before each);
    with ``warmup``, one untimed run first (page cache, allocator)."""
    return statistics.median(run_times(fn, repeats, warmup=warmup))


def run_times(fn, repeats, *, warmup=False):
    """The wall times of ``repeats`` runs of ``fn()`` (garbage collected before each); with
    ``warmup``, one untimed run first."""
    if warmup:
        fn()
    times = []
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def interleaved(fns, repeats):
    """Time several callables side by side: ``(results, median times)``, dicts by name.

    Each callable runs once untimed (warm-up; its result is returned), then the callables
    take turns ``repeats`` times (garbage collected before each run), so a slow phase of the
    machine hits all of them alike.
    """
    out, times = interleaved_times(fns, repeats)
    return out, {k: statistics.median(v) for k, v in times.items()}


def interleaved_times(fns, repeats):
    """As :func:`interleaved`, with every run's time: ``(results, {name: [seconds]})``."""
    out = {k: fn() for k, fn in fns.items()}
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            times[k].append(run_times(fn, 1)[0])
    return out, times


def ratio_stats(times, base):
    """Median and spread of ``times / base`` run by run (the ``i``-th run of a callable over
    the ``i``-th run of the baseline, which ran next to it): ``(median, low, high)``."""
    r = sorted(t / b for t, b in zip(times, base, strict=True))
    return statistics.median(r), r[0], r[-1]


def load_average():
    """The machine's 1-, 5- and 15-minute load averages, as text."""
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:  # pragma: no cover - not on Linux
        return "unknown"


@contextlib.contextmanager
def thread_settings(threads, cores=()):
    """Run the block with ``threads=None`` (the libraries' defaults and llrlab's own) or
    with every pool limited to ``threads`` (BLAS / OpenMP via threadpoolctl; the chunk
    threads of llrlab and of each package in ``cores`` (e.g. a baseline's ``core``) via
    ``_parallel.set_threads``; the caller passes ``threads=False`` to the functions that
    take it)."""
    if threads is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    from llrlab.core import _parallel

    modules = [_parallel] + [importlib.import_module(c.__name__ + "._parallel") for c in cores]
    before = [m._WORKERS for m in modules]
    for m in modules:
        m.set_threads(threads)
    try:
        with threadpool_limits(limits=threads):
            yield
    finally:
        for m, b in zip(modules, before, strict=True):
            m.set_threads(b)


def machine_line():
    """CPUs, numpy, the BLAS pools and the OpenBLAS variables that change numpy's speed."""
    import numpy as np
    from threadpoolctl import threadpool_info

    from llrlab.core import _parallel

    pools = ", ".join([f"{p['internal_api']} {p['num_threads']}" for p in threadpool_info()]
                      + [f"llrlab {_parallel._WORKERS}"])
    env = " ".join(f"{k}={os.environ[k]}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                                   "OMP_NUM_THREADS", "LLRLAB_THREADS")
                   if k in os.environ) or "no OPENBLAS_* / OMP_* / LLRLAB_THREADS set"
    return (f"{os.cpu_count()} CPUs, numpy {np.__version__}; default thread pools: {pools}; "
            f"{env}")
