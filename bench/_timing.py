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
    """The wall times of ``repeats`` runs of ``fn()``."""
    if warmup:
        fn()
    times = []
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times
