"""Timing helper shared by the benchmark scripts (run them as ``python bench/NAME.py``)."""

from __future__ import annotations

import gc
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


def load_average():
    """The 1-minute load average (for the header of a benchmark's table)."""
    import os

    return os.getloadavg()[0]
