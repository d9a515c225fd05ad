"""Benchmark: the numeric core's slow steps as multiples of one numpy.sort of the same data.

Each row is timed side by side with ``numpy.sort`` of the same scores in the same run
(interleaved repeats, medians), and printed as ``time / sort``.  With ``--baseline REV``
the same row is also timed with llrlab's ``core/`` as it was at git revision ``REV`` (read
with ``git archive`` into a temporary directory and imported as ``llrlab_before.core``), in
the same interleaved loop: the "before" and "after" columns then come from one run on one
machine state.

Rows (``--rows``, default all), at ``--n`` trials (default 10^7):

* ``fit``: affine calibration of one system (scores ``3 x + 7``, 1 target per 10
  non-targets, prior 0.5): the kernel ``fit_linear`` and the user call
  ``AffineCalibrator.fit`` on a fresh ``Trials`` (its report sorts the dev scores once).
  Timed **with the libraries' default BLAS threads while ``--load`` busy processes keep
  the cores loaded** (the sort is timed under the same load).  Target: <= 5x a sort.
* ``analyze10``: ``analyze(tar, non)`` with 10 % targets.  Target: <= 2x a sort.
* ``weighted``: condition-weighted pooling of 10 conditions of unequal size:
  ``analyze(condition_weights(t).trials)`` on a fresh ``Trials`` each time (so the
  condition factorize is timed too), and ``weighted_indexed``: the same on one ``Trials``
  whose conditions were factorized before (re-weighting loaded trials, as the dashboard
  does).  Target: <= 3x a sort.
* ``conditions``: ``by_condition`` with ``--cond-n`` trials in ``--cond-n / 2`` conditions of
  one target and one non-target each (the many-conditions case).  ``--baseline`` is timed
  at ``--cond-n-before`` trials only (it was quadratic in the number of conditions).

Usage: python bench/bench_speed.py [--n 1e7] [--repeats 5] [--baseline REV] [--load 1]
                                   [--rows fit analyze10 weighted conditions]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from _timing import interleaved

import llrlab.core as after_core

ROWS = ("fit", "analyze10", "weighted", "conditions")
TARGETS = {"fit": 5.0, "fit_report": 5.0, "analyze10": 2.0, "weighted": 3.0,
           "weighted_indexed": 3.0}


def load_baseline(rev, tmp):
    """llrlab's ``core`` package at git revision ``rev``, as ``llrlab_before.core``."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dest = os.path.join(tmp, "llrlab_before")
    os.makedirs(dest)
    archive = subprocess.run(["git", "-C", repo, "archive", rev, "core"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    sys.path.insert(0, tmp)
    return importlib.import_module("llrlab_before.core")


@contextlib.contextmanager
def cpu_load(n):
    """``n`` busy Python processes (a CPU-bound loop each) while the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        time.sleep(0.5 if n else 0.0)
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


# --- data --------------------------------------------------------------------------------------

def affine_data(n, rng):
    lab = np.zeros(n, bool)
    lab[: n // 11] = True
    rng.shuffle(lab)
    x = np.where(lab, 1.0, -1.0) + rng.normal(size=n)
    return 3.0 * x + 7.0, lab


def condition_data(n, rng, n_cond=10):
    """Trials in ``n_cond`` conditions of unequal size (shares 1 : 2 : ... : n_cond), each
    with its own target share and score shift."""
    share = np.arange(1, n_cond + 1, dtype=np.float64)
    cond = rng.choice(n_cond, size=n, p=share / share.sum())
    p_tar = np.linspace(0.02, 0.2, n_cond)[cond]
    lab = rng.random(n) < p_tar
    scores = np.where(lab, 2.0, -2.0) + 0.3 * cond + rng.normal(size=n)
    names = np.array([f"cond{k:02d}" for k in range(n_cond)])
    return scores, lab, names[cond]


def pair_conditions(n, rng):
    """``n // 2`` conditions of one target and one non-target trial each."""
    m = n // 2
    lab = np.tile([True, False], m)
    scores = np.where(lab, 1.0, -1.0) + rng.normal(size=2 * m)
    names = np.repeat(np.char.add("c", np.arange(m).astype(str)), 2)
    return scores, lab, names


# --- rows --------------------------------------------------------------------------------------

def fit_rows(cores, n, repeats, load, rng):
    s, lab = affine_data(n, rng)
    fns = {"sort": lambda: np.sort(s)}
    for tag, core in cores.items():
        from importlib import import_module

        logreg = import_module(core.__name__ + ".calibration._logreg")
        cal = import_module(core.__name__ + ".calibration")
        fns[f"fit {tag}"] = lambda lr=logreg: lr.fit_linear(s, lab, 0.5)
        fns[f"fit_report {tag}"] = (
            lambda c=core, k=cal: k.AffineCalibrator.fit(c.Trials(s, lab), prior=0.5))
    with cpu_load(load):
        t = interleaved(fns, repeats)[1]
    return [("fit", "affine fit kernel (fit_linear), default BLAS threads, under load", t),
            ("fit_report", "AffineCalibrator.fit (with training report), same load", t)]


def analyze_rows(cores, n, repeats, rng):
    t_count = n // 10
    tar = rng.normal(2.0, 1.0, t_count)
    non = rng.normal(-2.0, 1.0, n - t_count)
    scores = np.concatenate([tar, non])
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        fns[f"analyze10 {tag}"] = lambda c=core: c.analyze(tar, non)
    return [("analyze10", "analyze, 10% targets", interleaved(fns, repeats)[1])]


def weighted_rows(cores, n, repeats, rng):
    scores, lab, cond = condition_data(n, rng)
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        def run(c=core):
            t = c.Trials(scores, lab, conditions=cond)  # fresh: no cached factorize or sort
            return c.analyze(c.condition_weights(t, "equal").trials)
        fns[f"weighted {tag}"] = run
        indexed = core.Trials(scores, lab, conditions=cond)
        indexed.condition_index()  # the conditions of a loaded Trials, factorized once
        fns[f"weighted_indexed {tag}"] = (
            lambda c=core, t=indexed: c.analyze(c.condition_weights(t, "equal").trials))
    t = interleaved(fns, repeats)[1]
    return [("weighted", "condition-weighted analyze (10 conditions, equal weights), "
             "fresh Trials", t),
            ("weighted_indexed", "the same, conditions already factorized (a Trials "
             "re-weighted)", t)]


def condition_rows(cores, n_after, n_before, repeats, rng):
    rows = []
    for n, which in ((n_before, cores), (n_after, {"after": cores["after"]})):
        if n is None or not which:
            continue
        scores, lab, cond = pair_conditions(n, rng)
        fns = {"sort": lambda s=scores: np.sort(s)}
        for tag, core in which.items():
            def run(c=core, s=scores, lab=lab, cond=cond):
                return c.by_condition(c.Trials(s, lab, conditions=cond), "equal", grid=[0.0])
            fns[f"conditions {tag}"] = run
        reps = repeats if n <= 100_000 else 1
        rows.append((f"conditions@{n}", f"by_condition, {n:,d} trials in {n // 2:,d} "
                     f"conditions", interleaved(fns, reps)[1]))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7, help="trials per row (default 1e7)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS))
    ap.add_argument("--baseline", metavar="REV",
                    help="also time llrlab's core/ at this git revision (before/after)")
    ap.add_argument("--load", type=int, default=1,
                    help="busy processes running while the fit is timed (default 1)")
    ap.add_argument("--cond-n", type=float, default=1e6,
                    help="trials of the 'conditions' row (default 1e6)")
    ap.add_argument("--cond-n-before", type=float, default=2e4,
                    help="trials of the 'conditions' row for the baseline (default 2e4)")
    args = ap.parse_args(argv)
    n = int(args.n)
    warnings.simplefilter("ignore")  # e.g. a baseline's warnings; none is timed
    with tempfile.TemporaryDirectory() as tmp:
        cores = {"after": after_core}
        if args.baseline:
            cores = {"before": load_baseline(args.baseline, tmp), "after": after_core}
        rng = np.random.default_rng(0)
        results = []
        t0 = time.perf_counter()
        if "fit" in args.rows:
            results += fit_rows(cores, n, args.repeats, args.load, rng)
        if "analyze10" in args.rows:
            results += analyze_rows(cores, n, args.repeats, rng)
        if "weighted" in args.rows:
            results += weighted_rows(cores, n, args.repeats, rng)
        if "conditions" in args.rows:
            results += condition_rows(cores, int(args.cond_n),
                                      int(args.cond_n_before) if args.baseline else None,
                                      args.repeats, rng)
        print_table(results, cores, n, args, time.perf_counter() - t0)


def print_table(results, cores, n, args, total):
    tags = list(cores)
    head = f"{'row':<17} {'sort [s]':>9}"
    for tag in tags:
        head += f" {tag + ' [s]':>11} {tag + '/sort':>12}"
    head += f" {'target':>7}  what"
    print(head)
    print("-" * len(head))
    for key, what, t in results:
        name = key.split("@")[0]
        line = f"{key:<17} {t['sort']:>9.3f}"
        for tag in tags:
            v = t.get(f"{name} {tag}")
            line += (f" {v:>11.3f} {v / t['sort']:>11.2f}x" if v is not None
                     else f" {'-':>11} {'-':>12}")
        target = TARGETS.get(name)
        line += f" {f'{target:g}x' if target else '':>7}  {what}"
        print(line, flush=True)
    import threadpoolctl

    pools = ", ".join(f"{p['internal_api']} {p['num_threads']}"
                      for p in threadpoolctl.threadpool_info())
    print(f"\n{n:,d} trials; medians of {args.repeats} interleaved runs after a warm-up "
          f"(the 'conditions' rows above 10^5 trials: 1 run); fit rows under {args.load} busy "
          f"process(es); baseline {args.baseline or '-'}; {os.cpu_count()} CPUs, numpy "
          f"{np.__version__}; BLAS pools: {pools}; total {total:.0f} s")


if __name__ == "__main__":
    main()
