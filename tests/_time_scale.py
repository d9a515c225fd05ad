"""One setting for every time limit of the tests: ``LLRLAB_TEST_TIME_SCALE``.

A time limit in a test (a browser wait, a server's start, a subprocess, pytest-timeout's
limit per test) is a guard against a hang, not a measurement: on a loaded machine the same
work takes longer, and the test must get slower, not red.  So every such limit is written at
its value for an idle machine (CI) and multiplied by one factor:

* ``LLRLAB_TEST_TIME_SCALE=3`` (any positive number): every limit is 3 times as long.
* unset, empty or ``auto`` (the default): 1 on an idle machine; on a busy one the smaller
  of two signs of it, capped at :data:`AUTO_CAP`: the load average per core when the tests
  start (the larger of the 1- and 5-minute averages, so a load that has just begun counts),
  and the slow-down a busy loop measures here (:func:`cpu_share`: the wall time it took over
  the CPU time it got, squared, since a test's processes and the browser compete too).  In a
  container the load average can be the whole host's: the measured share keeps such a number
  from stretching the limits of a machine whose own cores are free.  A load of 6 on 2
  cores that leaves a process half a core makes every limit 3 times as long.

The factor in use is printed in pytest's header.  Latency bounds that a test checks as its
subject (e.g. the staleness of dragging pages in ``tests/browser/test_load.py``) are bounds
of liveness and scale too; the targets for speed live in ``bench/``, measured side by side.
"""

from __future__ import annotations

import functools
import math
import os
import time

ENV = "LLRLAB_TEST_TIME_SCALE"
#: The largest factor chosen automatically (a set value is used as it is): a limit is a guard
#: against a hang, and a failing test waits its whole limit.
AUTO_CAP = 4.0


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def load_per_core():
    """The larger of the 1- and 5-minute load averages, per core (0 where unknown)."""
    try:
        one, five, _ = os.getloadavg()
    except (AttributeError, OSError):
        return 0.0
    return max(one, five) / _cores()


def cpu_share(seconds=0.5):
    """How much slower than on an idle core a busy loop runs here: its wall time over the CPU
    time it got (1 when it has a core to itself), over ``seconds`` (shorter tries scatter:
    a container's CPU quota and the scheduler hand out time in slices)."""
    w0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - w0 < seconds:
        sum(range(2000))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return max(wall / max(cpu, 1e-6), 1.0)


def parse(value):
    """``(factor, how it was chosen)`` for a value of ``LLRLAB_TEST_TIME_SCALE`` (None:
    unset); a value that is not a positive number or ``auto`` raises ``ValueError``."""
    text = (value or "").strip().lower()
    if text in ("", "auto"):
        per_core = load_per_core()
        if per_core <= 1.0:
            return 1.0, f"auto, load average {per_core:.1f} per core"
        slow = cpu_share() ** 2
        factor = max(1.0, min(per_core, slow, AUTO_CAP))
        return factor, (f"auto, load average {per_core:.1f} per core, a busy loop "
                        f"{math.sqrt(slow):.2f}x slower")
    try:
        factor = float(text)
    except ValueError:
        factor = math.nan
    if not (math.isfinite(factor) and factor > 0):
        raise ValueError(f"{ENV}={value!r}: expected a positive number (e.g. 3 makes every "
                         "time limit of the tests 3 times as long) or 'auto'")
    return factor, f"{ENV}={value}"


@functools.cache
def time_scale():
    """``(factor, how it was chosen)``, read once per test session."""
    return parse(os.environ.get(ENV))


def scaled(seconds):
    """``seconds`` (a limit for an idle machine) times the time scale."""
    return seconds * time_scale()[0]


def scaled_ms(seconds):
    """:func:`scaled` in whole milliseconds (Playwright's unit)."""
    return round(1000 * scaled(seconds))
