"""Coverage of llrlab's intervals, measured by seeded simulation (not a timing benchmark).

Two tables, each row saying its shape; every number is the share of simulated sets whose 95 %
interval contains the true value, with its binomial standard error.

1. **Bootstrap intervals** (:func:`llrlab.core.uncertainty.bootstrap_ci`, by trial) of EER,
   minimum DCF, actual DCF (plo 0) and Cllr: BCa, percentile and basic, all three from the same
   replicates.  Trials: calibrated Gaussian LLRs, targets ``N(mu, 2 mu)`` and non-targets
   ``N(-mu, 2 mu)`` with ``mu = d^2 / 2``; the true EER is ``Phi(-d/2)``, the true min and act
   DCF ``2 Phi(-d/2)`` (the Bayes threshold is optimal for calibrated LLRs), Cllr by
   quadrature.  Shapes: issue 18's 2000 trials (200 targets, EER 5 %: about 10 misses at
   the EER), the same EER with 600 targets (30 misses: Doddington's rule of 30), and 1000
   targets and 1000 non-targets.
2. **Binomial intervals of condition-weighted trials**
   (:func:`llrlab.core.uncertainty.operating_point_ci`) of Pmiss, Pfa and the DCF at the
   Bayes threshold, for the normal, Wilson and Clopper-Pearson kinds, with the stratified
   variance, against Kish's effective number with the pooled rate (before issue 18), on
   issue 18's three conditions (400/100/25 targets, 4000/600/150 non-targets, miss rates
   0.10/0.25/0.40, false-alarm rates 0.05/0.10/0.20, equal condition weights).

Usage: python bench/bench_coverage.py [--sets 400] [--boot 1000] [--seed 18]
[--only bootstrap|weighted]

docs/conventions.md quotes a run with the defaults (about half an hour on a busy machine).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy.integrate import quad
from scipy.stats import norm

from llrlab.core import Trials, condition_weights
from llrlab.core.uncertainty import bootstrap_ci, operating_point_ci, proportion_ci

MEASURES = ("eer", "min_dcf", "act_dcf", "cllr")
KINDS = ("bca", "percentile", "basic")
#: (label, targets, non-targets, d)
SHAPES = (("2000 trials, 200 tar, EER 5 % (~10 misses at the EER)", 200, 1800, 3.29),
          ("2000 trials, 600 tar, EER 5 % (~30 misses at the EER)", 600, 1400, 3.29),
          ("2000 trials, 1000 tar, EER 5 % (~50 misses at the EER)", 1000, 1000, 3.29))


def _truth(d):
    mu, sd = d * d / 2, d
    eer = norm.cdf(-d / 2)
    c = quad(lambda x: norm.pdf(x, mu, sd) * np.logaddexp(0, -x), mu - 12 * sd,
             mu + 12 * sd)[0] / np.log(2)
    return {"eer": eer, "min_dcf": 2 * eer, "act_dcf": 2 * eer, "cllr": c}


def _cell(hits):
    p = float(np.mean(hits))
    return f"{100 * p:5.1f} ± {100 * np.sqrt(p * (1 - p) / len(hits)):3.1f}"


def bootstrap_table(sets, boot, seed):
    print(f"Bootstrap intervals by trial, 95 %: coverage [%] ± standard error over {sets} "
          f"sets, {boot} replicates each, seed {seed}")
    print(f"{'shape':58}{'measure':>9}" + "".join(f"{k:>14}" for k in KINDS))
    for label, n_tar, n_non, d in SHAPES:
        true = _truth(d)
        mu, sd = d * d / 2, d
        rng = np.random.default_rng([seed, n_tar, n_non])
        hits = {(m, k): [] for m in MEASURES for k in KINDS}
        t0 = time.perf_counter()
        for _ in range(sets):
            t = Trials.from_tar_non(rng.normal(mu, sd, n_tar), rng.normal(-mu, sd, n_non))
            b = bootstrap_ci(t, plo=0.0, n_boot=boot, seed=rng)
            for m in MEASURES:
                for k in KINDS:
                    iv = b.interval(m, k)
                    hits[(m, k)].append(iv.lower <= true[m] <= iv.upper)
        for m in MEASURES:
            print(f"{label:58}{m:>9}" + "".join(f"{_cell(hits[(m, k)]):>14}" for k in KINDS))
        print(f"  ({time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f})")


def weighted_table(sets, seed):
    nt, nn = np.array([400, 100, 25]), np.array([4000, 600, 150])
    pm, pf = np.array([0.10, 0.25, 0.40]), np.array([0.05, 0.10, 0.20])
    cond = np.r_[np.repeat(np.arange(3), nt), np.repeat(np.arange(3), nn)].astype(str)
    lab = np.r_[np.ones(nt.sum(), bool), np.zeros(nn.sum(), bool)]
    p = np.r_[np.repeat(pm, nt), np.repeat(pf, nn)]
    base = condition_weights(Trials(np.where(lab, 1.0, -1.0), lab, conditions=cond)).trials
    w = base.weights
    kish = [w[c].sum() ** 2 / np.dot(w[c], w[c]) for c in (lab, ~lab)]
    true = {"p_miss": pm.mean(), "p_fa": pf.mean(), "dcf": pm.mean() + pf.mean()}
    methods = ("normal", "wilson", "clopper-pearson")
    rng = np.random.default_rng([seed, 1])
    hits = {}
    for _ in range(sets):
        e = rng.random(lab.size) < p
        t = base.with_scores(np.where(lab != e, 1.0, -1.0))
        for method in methods:
            ci = operating_point_ci(t, plo=0.0, method=method)
            for key, iv in (("p_miss", ci.p_miss), ("p_fa", ci.p_fa), ("dcf", ci.dcf)):
                hits.setdefault((key, method, "stratified"), []).append(
                    float(iv.lower) <= true[key] <= float(iv.upper))
            for key, iv, n in (("p_miss", ci.p_miss, kish[0]), ("p_fa", ci.p_fa, kish[1])):
                old = proportion_ci(float(iv.estimate) * n, n, method=method)
                hits.setdefault((key, method, "Kish"), []).append(
                    float(old.lower) <= true[key] <= float(old.upper))
    print(f"\nBinomial intervals of condition-weighted trials (issue 18's three conditions), "
          f"95 %: coverage [%] ± standard error over {sets} sets, seed {seed}")
    print(f"{'rate':10}{'kind':>18}{'stratified':>16}{'Kish (before)':>16}")
    for key in ("p_miss", "p_fa", "dcf"):
        for method in methods:
            old = hits.get((key, method, "Kish"))
            print(f"{key:10}{method:>18}{_cell(hits[(key, method, 'stratified')]):>16}"
                  f"{_cell(old) if old else '':>16}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", type=int, default=400)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--only", choices=("bootstrap", "weighted"))
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}, LLRLAB_THREADS={os.environ.get('LLRLAB_THREADS')}")
    if args.only != "weighted":
        bootstrap_table(args.sets, args.boot, args.seed)
    if args.only != "bootstrap":
        weighted_table(args.sets, args.seed)


if __name__ == "__main__":
    main()
