"""Benchmark: binomial intervals of weighted trials (the variance per condition) against
unweighted ones, at one operating point, as the dashboard asks for them while a point is
dragged.

Rows (each says its shape; 10 % or 1 % targets, trials shuffled):

* ``unweighted``: the binomial variance (two binary searches);
* ``per-trial weights``: the linearised variance, one stratum;
* ``condition weights, C conditions``: the variance stratified by condition (van Leeuwen 2008
  eq. 12 weights; C = 10, and as many as give about 20 targets each).

Columns: ``first`` -- the first interval of a sorted set (it builds the per-stratum running
sums once, ``O(n log n)``); ``drag`` -- every later interval at another operating point
(``O(C log n)``); both medians of ``--repeats`` interleaved runs with their spread
(min-max), and the ratio to the unweighted row.  The variance is plain numpy in the calling
thread; run once more with ``LLRLAB_THREADS=1`` for the one-thread figures.

Usage: python bench/bench_intervals.py [--trials 1000000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from llrlab.core import Trials, analyze, condition_weights
from llrlab.core.uncertainty import operating_point_ci


def _shapes(n, target_share, rng):
    lab = rng.random(n) < target_share
    s = rng.normal(size=n) + 2.0 * lab
    out = {"unweighted": Trials(s, lab)}
    out["per-trial weights"] = Trials(s, lab, weights=rng.lognormal(size=n))
    for c in (10, int(n * target_share) // 20):  # many: ~20 targets each
        cond = np.char.add("c", rng.integers(0, c, n).astype(str))
        out[f"condition weights, {c:,} conditions"] = condition_weights(
            Trials(s, lab, conditions=cond)).trials
    return out


def _one(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}, LLRLAB_THREADS={os.environ.get('LLRLAB_THREADS')}")
    rng = np.random.default_rng(0)
    for share in (0.1, 0.01):
        sets = _shapes(args.trials, share, rng)
        analyses = {k: analyze(t, plo=[0.0]) for k, t in sets.items()}
        first = {k: [] for k in sets}
        drag = {k: [] for k in sets}
        for r in range(args.repeats):  # interleaved: a slow phase hits every row alike
            for k, a in analyses.items():
                a.sorted.__dict__.pop("_prefix_variances", None)  # the first interval again
                first[k].append(_one(lambda a=a: operating_point_ci(a, plo=-2.0)))
                drag[k].append(_one(lambda a=a, r=r: operating_point_ci(a, plo=0.1 * r)))
        base_f = statistics.median(first["unweighted"])
        base_d = statistics.median(drag["unweighted"])
        print(f"\n{args.trials:,} trials, {100 * share:g} % targets, shuffled: median [min-max] "
              f"ms over {args.repeats} interleaved runs, ratio to unweighted")
        print(f"{'shape':38}{'first':>24}{'ratio':>8}{'drag':>24}{'ratio':>8}")
        for k in sets:
            f, d = first[k], drag[k]
            print(f"{k:38}{_cell(f):>24}{statistics.median(f) / base_f:8.1f}"
                  f"{_cell(d):>24}{statistics.median(d) / base_d:8.1f}")
    print(f"\nload average {os.getloadavg()}")


def _cell(times):
    ms = [1e3 * t for t in times]
    return f"{statistics.median(ms):.2f} [{min(ms):.2f}-{max(ms):.2f}]"


if __name__ == "__main__":
    main()
