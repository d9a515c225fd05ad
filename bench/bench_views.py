"""Benchmark: EPC, APE and ECE curve data against one numpy sort of the same scores.

Synthetic Gaussian scores with 10% targets.  Rows:

* EPC: 10^6 dev and 10^6 eval trials, 101 alphas (``llrlab.core.epc.epc``: one sort of dev,
  one of eval, PAV on dev, binary searches).  Its sort reference is one ``numpy.sort`` of all
  2 x 10^6 scores it reads.
* APE: 10^6 trials, 201 prior log-odds (``ape_curves``: analyze + binary searches).
* ECE: 10^6 trials, 201 prior log-odds (``ece_curves``: analyze + binned Taylor sums for the
  cross-entropy of the LLRs + PAV blocks for the minimum).
* APE + ECE sharing one ``analyze``, as the dashboard would.
* ECE the naive way, for comparison: ``cross_entropy`` and ``min_cross_entropy`` called at
  each of the 201 priors (one run; skip with ``--no-naive``).

Each time is the median of ``--repeats`` runs, measured side by side with ``numpy.sort`` of the
same scores in the same run; the ratio is time / sort.

Usage: python bench/bench_views.py [--trials 1e6] [--repeats 5] [--no-naive]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import median_time
from scipy.special import expit

from llrlab.core import analyze, cross_entropy, min_cross_entropy
from llrlab.core.ape import ape_curves, ece_curves
from llrlab.core.epc import epc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=float, default=1e6)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-naive", action="store_true")
    args = ap.parse_args()
    n = int(args.trials)
    rng = np.random.default_rng(0)

    def scores():
        t = n // 10
        return rng.normal(1.5, 2.0, t), rng.normal(-2.0, 2.5, n - t)

    dev, ev = scores(), scores()
    tar, non = ev
    alpha = np.linspace(0.0, 1.0, 101)
    plo = np.linspace(-10.0, 10.0, 201)
    both = np.concatenate([*dev, *ev])
    one = np.concatenate([tar, non])

    def ape_ece():
        a = analyze(tar, non, plo=[])
        ape_curves(a, plo=plo)
        ece_curves(a, plo=plo)

    def naive_ece():
        for p in expit(plo):
            cross_entropy(tar, non, p)
            min_cross_entropy(tar, non, p)

    rows = [
        (f"EPC {n:.0e} dev + {n:.0e} eval, 101 alphas", both,
         lambda: epc(dev, ev, alpha), args.repeats),
        (f"APE {n:.0e} trials, 201 priors", one, lambda: ape_curves(tar, non, plo),
         args.repeats),
        (f"ECE {n:.0e} trials, 201 priors", one, lambda: ece_curves(tar, non, plo),
         args.repeats),
        ("APE + ECE, one analyze", one, ape_ece, args.repeats),
    ]
    if not args.no_naive:
        rows.append(("ECE naive (cross_entropy per prior)", one, naive_ece, 1))
    header = f"{'measure':<42} {'sort [s]':>9} {'time [s]':>9} {'ratio':>8}"
    print(header)
    print("-" * len(header))
    for name, data, fn, repeats in rows:
        t_sort = median_time(lambda d=data: np.sort(d), args.repeats)
        t = median_time(fn, repeats)
        print(f"{name:<42} {t_sort:>9.4f} {t:>9.4f} {t / t_sort:>7.2f}x")


if __name__ == "__main__":
    main()
