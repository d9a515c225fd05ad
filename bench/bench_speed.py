"""Benchmark: the numeric core's slow steps as multiples of one numpy.sort of the same data.

Every row times a user call next to one single-threaded ``numpy.sort`` of the same float64
scores (the baseline), interleaved (``--repeats``, at least 5, after one warm-up run),
and reports the median of the run-by-run ratios and their spread (smallest - largest).
Each row runs twice: with the default threads (BLAS, OpenMP and llrlab's chunk threads as
the libraries set them; the sort is one thread whatever the setting) and with one thread
for every pool (``threadpoolctl``, ``llrlab.core._parallel.set_threads(1)`` and
``threads=False`` where a call takes it).  The load average is printed before and after.
With ``--baseline REV`` each row also times llrlab's ``core/`` as it was at git revision
``REV`` (extracted with ``git archive``, imported as ``llrlab_before.core``) in the same
interleaved loop: "before" and "after" come from one run on one machine state.

Rows (``--rows``, default all), at ``--n`` trials (default 10^7); every Trials is built
fresh in each run (no cached factorize or sort) unless the row says "loaded":

=================  ================================================================  ======
row                shape                                                              target
=================  ================================================================  ======
analyze10          ``analyze(tar, non)``, Gaussian scores, 10 % targets                2x
analyze1           the same, 1 % targets                                               2x
weights10          ``analyze(Trials(..., weights=w))``, integer weights 1-10, 10 %     3x
cond_short         ``analyze(condition_weights(Trials(..., conditions=c)).trials)``,   3x
                   10 conditions of unequal size, names of 6 characters, equal weights
cond_long          the same with names of 30-40 characters with slashes                3x
cond_grouped       the same, 12 such names, the trials grouped by condition (a list     3x
                   sorted by it: the first ~130,000 of 10^7 hold one condition)
cond_loaded        the same on trials read by ``load_trials`` from a labelled file     3x
                   with a condition column (its lines shuffled); conditions held as
                   codes, as loaded; a fresh ``Trials`` sharing them in each run
fit05, fit001      ``AffineCalibrator.fit(Trials(s, lab), prior=p)`` (with its          5x
                   training report), scores ``3 x + 7``, 1 target per 10 non-targets,
                   p = 0.5 and 0.01
fit_skew           the same, p = 0.01, skewed classes (gamma distributions), scores of    5x
                   scale 0.01, 10 % targets
fit_weights        the same, p = 0.5, per-trial weights (real, 0-10), scores of scale     5x
                   100, 50 % targets
fit_sep            the same, p = 0.01, nearly separable classes (means -4 and 4, unit      5x
                   variance), 1 % targets
conditions         ``by_condition`` with ``--cond-n`` trials in ``--cond-n / 2``          -
                   conditions of one target and one non-target each
=================  ================================================================  ======

The trials are in random order in every row (the order of a score file sorted by model or
segment id, or shuffled, is random with respect to the scores).

Usage: python bench/bench_speed.py [--n 1e7] [--repeats 5] [--baseline REV]
                                   [--rows ...] [--threads default one]
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from _timing import interleaved_times, load_average, machine_line, ratio_stats, thread_settings

import llrlab.core as after_core

ROWS = ("analyze10", "analyze1", "weights10", "cond_short", "cond_long", "cond_grouped",
        "cond_loaded",
        "fit05", "fit001", "fit_skew", "fit_weights", "fit_sep", "conditions")
TARGETS = {"analyze10": 2.0, "analyze1": 2.0, "weights10": 3.0, "cond_short": 3.0,
           "cond_long": 3.0, "cond_grouped": 3.0, "cond_loaded": 3.0, "fit05": 5.0, "fit001": 5.0,
           "fit_skew": 5.0, "fit_weights": 5.0, "fit_sep": 5.0}
#: The other shapes of the affine fit: (data maker, prior).
FIT_SHAPES = {"fit_skew": ("skew", 0.01), "fit_weights": ("weights", 0.5),
              "fit_sep": ("sep", 0.01)}
SHAPES = {
    "analyze10": "analyze(tar, non); 10% targets",
    "analyze1": "analyze(tar, non); 1% targets",
    "weights10": "analyze, per-trial integer weights 1-10; 10% targets",
    "cond_short": "cond.-weighted analyze, fresh Trials, 10 cond. names of 6 chars",
    "cond_long": "cond.-weighted analyze, fresh Trials, names of 30-40 chars with /",
    "cond_grouped": "the same, 12 long names, trials grouped by condition",
    "cond_loaded": "cond.-weighted analyze, trials loaded from a shuffled file",
    "fit05": "AffineCalibrator.fit, prior 0.5, 1:10, fresh Trials",
    "fit001": "AffineCalibrator.fit, prior 0.01, 1:10, fresh Trials",
    "fit_skew": "AffineCalibrator.fit, prior 0.01, gamma classes, scale 0.01, 10% targets",
    "fit_weights": "AffineCalibrator.fit, prior 0.5, real weights 0-10, scale 100, 50%",
    "fit_sep": "AffineCalibrator.fit, prior 0.01, nearly separable, 1% targets",
    "conditions": "by_condition, many conditions of 2 trials",
}


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


# --- data --------------------------------------------------------------------------------------

def gaussian(n, frac, rng):
    """Scores of ``n`` trials, ``frac`` of them targets, in random order: ``(scores, lab)``."""
    lab = rng.random(n) < frac
    return np.where(lab, 2.0, -2.0) + rng.normal(size=n), lab


def affine_data(n, rng):
    lab = np.zeros(n, bool)
    lab[: n // 11] = True
    rng.shuffle(lab)
    x = np.where(lab, 1.0, -1.0) + rng.normal(size=n)
    return 3.0 * x + 7.0, lab


def fit_shape(kind, n, rng):
    """Scores, labels and weights (or None) of the other affine-fit rows (see FIT_SHAPES)."""
    if kind == "skew":
        lab = rng.random(n) < 0.1
        return 0.01 * np.where(lab, rng.gamma(2.0, 2.0, n), rng.gamma(1.2, 1.5, n)), lab, None
    if kind == "weights":
        lab = rng.random(n) < 0.5
        s = 100.0 * (np.where(lab, 1.0, -1.0) + rng.normal(size=n)) + 500.0
        return s, lab, rng.uniform(0.0, 10.0, n)
    lab = rng.random(n) < 0.01  # nearly separable
    return np.where(lab, 4.0, -4.0) + rng.normal(size=n), lab, None


def condition_data(n, rng, *, long_names=False, n_cond=10, grouped=False):
    """Trials in ``n_cond`` conditions of unequal size (shares 1 : 2 : ... : n_cond), each
    with its own target share and score shift; names ``cond03`` or, with ``long_names``,
    like ``vox2/dev/aac/id10270/5r0dWxy17C8/cond03`` (30-40 characters); with ``grouped``,
    the trials of each condition together (in random order within it)."""
    share = np.arange(1, n_cond + 1, dtype=np.float64)
    cond = rng.choice(n_cond, size=n, p=share / share.sum())
    if grouped:
        cond.sort()
    p_tar = np.linspace(0.02, 0.2, n_cond)[cond]
    lab = rng.random(n) < p_tar
    scores = np.where(lab, 2.0, -2.0) + 0.3 * cond + rng.normal(size=n)
    if long_names:
        names = np.array([f"vox2/dev/aac/id1{k:04d}/{'5r0dWxy17C8'[:k + 1]}/cond{k:02d}"
                          for k in range(n_cond)])
    else:
        names = np.array([f"cond{k:02d}" for k in range(n_cond)])
    return scores, lab, names[cond]


def pair_conditions(n, rng):
    """``n // 2`` conditions of one target and one non-target trial each."""
    m = n // 2
    lab = np.tile([True, False], m)
    scores = np.where(lab, 1.0, -1.0) + rng.normal(size=2 * m)
    names = np.repeat(np.char.add("c", np.arange(m).astype(str)), 2)
    return scores, lab, names


def loaded_conditions(n, rng, tmp):
    """Trials of :func:`condition_data` (long names) written as a labelled text file with
    ids and a condition column, lines shuffled, and read back with ``load_trials``."""
    from llrlab.core.io import load_trials, write_trials

    scores, lab, cond = condition_data(n, rng, long_names=True)
    ids = np.char.add("id", (np.arange(n) % 1000).astype(str))
    seg = np.char.add("seg/", np.arange(n).astype(str))
    t = after_core.Trials(scores, lab, conditions=cond, model_ids=ids, segment_ids=seg)
    path = os.path.join(tmp, "trials.txt")
    write_trials(path, t)
    return load_trials(path)


# --- rows: each gives {name: callable} with the baseline "sort" -----------------------------

def analyze_row(cores, scores, lab, threaded):
    tar, non = scores[lab], scores[~lab]
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        fns[tag] = lambda c=core: c.analyze(tar, non, threads=threaded)
    return fns


def weights_row(cores, scores, lab, w, threaded):
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        fns[tag] = lambda c=core: c.analyze(c.Trials(scores, lab, weights=w), threads=threaded)
    return fns


def condition_row(cores, scores, lab, cond, threaded):
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        def run(c=core):
            t = c.Trials(scores, lab, conditions=cond)  # fresh: no cached factorize or sort
            return c.analyze(c.condition_weights(t, "equal").trials, threads=threaded)
        fns[tag] = run
    return fns


def loaded_row(cores, loaded, threaded):
    scores = loaded.scores
    codes = loaded.condition_codes
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        def run(c=core):
            # the loaded arrays and condition codes, in a Trials without cached results
            t = c.Trials(scores, loaded.labels, conditions=c.IdCodes(codes.codes, codes.vocab))
            return c.analyze(c.condition_weights(t, "equal").trials, threads=threaded)
        fns[tag] = run
    return fns


def fit_row(cores, s, lab, prior, w=None):
    fns = {"sort": lambda: np.sort(s)}
    for tag, core in cores.items():
        cal = importlib.import_module(core.__name__ + ".calibration")
        fns[tag] = (lambda c=core, k=cal: k.AffineCalibrator.fit(c.Trials(s, lab, weights=w),
                                                                 prior=prior))
    return fns


def conditions_row(cores, scores, lab, names):
    fns = {"sort": lambda: np.sort(scores)}
    for tag, core in cores.items():
        fns[tag] = (lambda c=core: c.by_condition(c.Trials(scores, lab, conditions=names),
                                                  "equal", grid=[0.0]))
    return fns


# --- the table ----------------------------------------------------------------------------------

def run_rows(args, cores, tmp):
    n = int(args.n)
    rng = np.random.default_rng(0)
    data = {}

    def get(key, make):
        if key not in data:
            data[key] = make()
        return data[key]

    for row in args.rows:
        for threads in args.threads:
            limit = None if threads == "default" else 1
            threaded = limit is None
            if row in ("analyze10", "analyze1"):
                s, lab = get(row, lambda r=row: gaussian(n, 0.1 if r == "analyze10" else 0.01,
                                                         rng))
                fns = analyze_row(cores, s, lab, threaded)
            elif row == "weights10":
                s, lab, w = get(row, lambda: (*gaussian(n, 0.1, rng),
                                              rng.integers(1, 11, n).astype(np.float64)))
                fns = weights_row(cores, s, lab, w, threaded)
            elif row in ("cond_short", "cond_long", "cond_grouped"):
                s, lab, c = get(row, lambda r=row: condition_data(
                    n, rng, long_names=r != "cond_short", grouped=r == "cond_grouped",
                    n_cond=12 if r == "cond_grouped" else 10))
                fns = condition_row(cores, s, lab, c, threaded)
            elif row == "cond_loaded":
                loaded = get(row, lambda: loaded_conditions(n, rng, tmp))
                fns = loaded_row(cores, loaded, threaded)
            elif row in ("fit05", "fit001"):
                s, lab = get("fit", lambda: affine_data(n, rng))
                fns = fit_row(cores, s, lab, 0.5 if row == "fit05" else 0.01)
            elif row in FIT_SHAPES:
                kind, prior = FIT_SHAPES[row]
                s, lab, w = get(row, lambda k=kind: fit_shape(k, n, rng))
                fns = fit_row(cores, s, lab, prior, w)
            else:  # conditions
                m = int(args.cond_n)
                s, lab, names = get(row, lambda m=m: pair_conditions(m, rng))
                which = {"after": cores["after"]}  # the baseline was quadratic here
                fns = conditions_row(which, s, lab, names)
            with thread_settings(limit, cores.values()):
                _, times = interleaved_times(fns, args.repeats)
            yield row, threads, times


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7, help="trials per row (default 1e7)")
    ap.add_argument("--repeats", type=int, default=5, help="interleaved runs (at least 5)")
    ap.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS))
    ap.add_argument("--threads", nargs="+", choices=("default", "one"),
                    default=["default", "one"])
    ap.add_argument("--baseline", metavar="REV",
                    help="also time llrlab's core/ at this git revision (before/after)")
    ap.add_argument("--cond-n", type=float, default=1e6,
                    help="trials of the 'conditions' row (default 1e6)")
    args = ap.parse_args(argv)
    if args.repeats < 5:
        ap.error("--repeats must be at least 5 (medians of fewer runs flatter or punish)")
    warnings.simplefilter("ignore")  # e.g. a baseline's warnings; none is timed
    print(f"load average before: {load_average()}", flush=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        cores = {"after": after_core}
        if args.baseline:
            cores = {"before": load_baseline(args.baseline, tmp), "after": after_core}
        tags = list(cores)
        head = f"{'row':<12} {'threads':<8} {'sort [s]':>9}"
        for tag in tags:
            head += f" {tag + '/sort':>10} {'spread':>13}"
        head += f" {'target':>7} {'ok':>3}  shape"
        print(head)
        print("-" * len(head), flush=True)
        for row, threads, times in run_rows(args, cores, tmp):
            sort_t = sorted(times["sort"])[len(times["sort"]) // 2]
            line = f"{row:<12} {threads:<8} {sort_t:>9.3f}"
            med = None
            for tag in tags:
                if tag not in times:
                    line += f" {'-':>10} {'-':>13}"
                    continue
                med, lo, hi = ratio_stats(times[tag], times["sort"])
                line += f" {med:>9.2f}x {f'{lo:.2f}-{hi:.2f}':>13}"
            target = TARGETS.get(row)
            ok = "" if target is None else ("yes" if med <= target else "NO")
            line += f" {f'{target:g}x' if target else '-':>7} {ok:>3}  {SHAPES[row]}"
            print(line, flush=True)
    print(f"\n{int(args.n):,d} trials ('conditions': {int(args.cond_n):,d}); ratio = run time / "
          f"the single-threaded numpy.sort of the same scores timed next to it, median of "
          f"{args.repeats} interleaved runs after a warm-up, spread = smallest-largest ratio; "
          f"baseline {args.baseline or '-'}; total {time.perf_counter() - t0:.0f} s")
    print(f"machine: {machine_line()}")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
