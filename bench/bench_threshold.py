"""Benchmark: the threshold measures of ``llrlab eval --biometric`` against one numpy sort and
against scikit-learn's ROC and AUC of the same scores.

``threshold_summary`` gives the threshold-sweep EER, FMR100/FMR1000/FMR10000, ZeroFMR,
ZeroFNMR and the AUC with DeLong's interval from one sort (a ``Trials`` keeps its sort, so
in ``llrlab eval`` the sort is shared with the main analysis: the "cached sort" row times
that case).  scikit-learn's ``roc_curve`` + ``roc_auc_score`` (the curve and the area, no
operating points, no interval) is the nearest peer; pyeer's ``get_eer_stats`` is timed at
10^5 trials only (it sorts Python tuples).

Shapes (each row says its own): Gaussian scores, 1 % or 10 % targets; unique scores, or
scores rounded to 3 decimals (many ties); unweighted or with per-trial weights (two
conditions weighted equally).  Each time is the median of ``--repeats`` interleaved runs
(every callable takes its turn in each round) with the spread (min-max) across runs; the
ratios are to one ``numpy.sort`` of all the scores measured in the same rounds.  The load
average is printed; with threadpoolctl installed, one-thread BLAS/OpenMP runs are added
(``--one-thread``).

Usage: python bench/bench_threshold.py [--sizes 1e5 1e6 1e7] [--repeats 5] [--one-thread]
"""

from __future__ import annotations

import argparse
import statistics
import warnings

import numpy as np
from _timing import interleaved_times, load_average

from llrlab.core import Trials, threshold_summary


def _trials(n, p_tar, ties, weighted, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < p_tar
    s = np.where(labels, rng.normal(2.0, 1.0, n), rng.normal(0.0, 1.0, n))
    if ties:
        s = np.round(s, 3)
    w = None
    if weighted:  # two conditions of 1/3 and 2/3 of the trials, weighted equally
        cond = rng.random(n) < 1 / 3
        w = np.where(cond, 1.5, 0.75)
    return Trials(s, labels, w)


def _row(name, times, base):
    med = statistics.median(times)
    return (f"{name:46}{1e3 * med:10.1f} ms  [{1e3 * min(times):.1f}-{1e3 * max(times):.1f}]"
            f"{med / base:9.2f}x")


def run(args, header):
    from sklearn.metrics import roc_auc_score, roc_curve

    print(header)
    print(f"{'shape / what':46}{'median':>13}  {'[spread]':>12}{'/ sort':>10}")
    for n in (int(x) for x in args.sizes):
        for p_tar in (0.01, 0.1):
            for ties, weighted in ((False, False), (True, False), (False, True)):
                t = _trials(n, p_tar, ties, weighted)
                shape = (f"n={n:.0e} tar={p_tar:.0%} "
                         f"{'ties' if ties else 'unique'}{' weighted' if weighted else ''}")
                scores, labels, w = t.scores, t.labels, t.weights
                cached = Trials(scores, labels, w)
                cached.sorted()

                fns = {
                    "numpy.sort of the scores": lambda s=scores: np.sort(s),
                    "threshold_summary (sorts)": lambda t=t: threshold_summary(
                        Trials(t.scores, t.labels, t.weights)),
                    "threshold_summary (cached sort)": lambda c=cached: threshold_summary(c),
                    "sklearn roc_curve + roc_auc_score": lambda s=scores, y=labels, w=w: (
                        roc_curve(y, s, sample_weight=w),
                        roc_auc_score(y, s, sample_weight=w)),
                }
                if n <= 100_000 and not weighted:
                    from pyeer.eer_info import get_eer_stats

                    def pyeer_stats(s=scores, y=labels):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            return get_eer_stats(s[y], s[~y])

                    fns["pyeer get_eer_stats"] = pyeer_stats
                _, times = interleaved_times(fns, args.repeats)
                base = statistics.median(times["numpy.sort of the scores"])
                print(shape)
                for name, ts in times.items():
                    print("  " + _row(name, ts, base))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--one-thread", action="store_true",
                    help="also run with one BLAS/OpenMP thread (threadpoolctl)")
    args = ap.parse_args()
    run(args, f"default threads; load average {load_average():.2f}")
    if args.one_thread:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            run(args, f"one thread; load average {load_average():.2f}")
    print(f"load average at the end {load_average():.2f}")


if __name__ == "__main__":
    main()
