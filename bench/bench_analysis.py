"""Benchmark: the full analysis of a score set against one numpy sort of the same scores.

Synthetic Gaussian scores with 1% targets at 10^5, 10^6 and 10^7 trials.  "Full analysis" is
``llrlab.core.analyze``: actual and minimum DCF at 1001 operating points, Cllr, minCllr,
ROCCH-EER, PRBEP and DR30.  Each time is the median of 5 runs, measured side by side with
``numpy.sort`` of the same scores in the same run.  Peak memory is measured with tracemalloc
(numpy reports its allocations to it) and given as a multiple of the bytes of the scores.
For reference, scikit-learn's ``det_curve`` (one steppy curve, nothing else) is timed too.

Targets (issue 2): analysis <= 3x one sort at 10^7 trials; peak memory <= 4x the scores.

Usage: python bench/bench_analysis.py [--sizes 1e5 1e6 1e7] [--repeats 5]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

import numpy as np
from _timing import median_time

from llrlab.core import analyze


def peak_bytes(fn):
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-sklearn", action="store_true")
    args = ap.parse_args()
    try:
        if args.no_sklearn:
            raise ImportError
        from sklearn.metrics import det_curve
    except ImportError:
        det_curve = None

    plo = np.linspace(-10, 10, 1001)
    rng = np.random.default_rng(0)
    header = (f"{'trials':>10} {'sort [s]':>10} {'analyze [s]':>12} {'ratio':>7} "
              f"{'1 thread':>9} {'peak mem / scores':>18}"
              + (f" {'sklearn det_curve':>18}" if det_curve else ""))
    print(header)
    print("-" * len(header))
    for n in (int(x) for x in args.sizes):
        t_count = n // 100
        tar = rng.normal(2.0, 1.0, t_count)
        non = rng.normal(-2.0, 1.0, n - t_count)
        scores = np.concatenate([tar, non])
        t_sort = median_time(lambda s=scores: np.sort(s), args.repeats)
        t_an = median_time(lambda t=tar, u=non: analyze(t, u, plo=plo), args.repeats)
        t_1 = median_time(lambda t=tar, u=non: analyze(t, u, plo=plo, threads=False),
                          args.repeats)
        peak = peak_bytes(lambda t=tar, u=non: analyze(t, u, plo=plo)) / scores.nbytes
        line = (f"{n:>10,d} {t_sort:>10.4f} {t_an:>12.4f} {t_an / t_sort:>6.2f}x "
                f"{t_1 / t_sort:>8.2f}x {peak:>17.2f}x")
        if det_curve:
            y = np.r_[np.ones(t_count), np.zeros(n - t_count)]
            t_sk = median_time(lambda y=y, s=scores: det_curve(y, s), max(1, args.repeats // 2))
            line += f" {t_sk / t_sort:>17.2f}x"
        print(line, flush=True)
    print("\nratio = analyze / numpy.sort (median of runs); '1 thread' = analyze(threads=False);"
          " sklearn det_curve as a multiple of the sort, for reference.")


if __name__ == "__main__":
    main()
