"""Benchmark of the dashboard's server side with 10^7 eval trials.

Measures, in one run:

* the operating-point update: setting ``state.plo`` with every view built (NBER, DET,
  histogram, metrics, calibration), i.e. ``Analysis.at(plo)`` per dataset plus every source and
  widget update -- target: median below 10 ms;
* a calibration toggle (none -> affine, -> PAV; first time, i.e. not cached, and again from the
  cache) -- target: below 3x one ``numpy.sort`` of the eval scores, measured in the same run.

Usage: ``python bench/bench_dashboard.py [--n-eval 10000000] [--n-dev 1000000] [--repeat 200]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def trials(n, seed, *, p_tar=0.02, scale=1.0, shift=0.0):
    from llrlab.core import Trials

    rng = np.random.default_rng(seed)
    labels = rng.random(n) < p_tar
    s = np.where(labels, rng.normal(2.0, 1.3, n), rng.normal(-2.0, 1.3, n))
    return Trials(0.2 * (scale * s + shift), labels, source=f"bench {n}")


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-eval", type=int, default=10_000_000)
    ap.add_argument("--n-dev", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args(argv)

    from llrlab.dashboard.state import DashboardState
    from llrlab.dashboard.views import (
        CalibrationView,
        DETView,
        HistogramView,
        MetricsView,
        NBERView,
    )

    print(f"generating dev {args.n_dev:,} and eval {args.n_eval:,} trials ...", flush=True)
    dev = trials(args.n_dev, 1)
    ev = trials(args.n_eval, 2, shift=0.4, scale=1.1)

    st = DashboardState()
    views = [NBERView(state=st), DETView(state=st), HistogramView(state=st),
             MetricsView(state=st), CalibrationView(state=st)]
    rows = []
    rows.append(("load dev (analysis, sources)", timed(lambda: st.set_trials("A", "dev", dev)),
                 None))
    rows.append(("load eval (analysis, sources)",
                 timed(lambda: st.set_trials("A", "eval", ev)), None))
    assert st.error == "", st.error

    sort_times = [timed(lambda: np.sort(ev.scores)) for _ in range(3)]
    t_sort = statistics.median(sort_times)
    rows.append(("numpy.sort of the eval scores (median of 3)", t_sort, None))

    rng = np.random.default_rng(0)
    plos = rng.uniform(-7, 3, args.repeat)
    op_times = [timed(lambda p=p: setattr(st, "plo", float(p))) for p in plos]
    op_med = statistics.median(op_times)
    op_p90 = float(np.quantile(op_times, 0.9))
    rows.append((f"operating point update, median of {args.repeat}", op_med, 0.010))
    rows.append((f"operating point update, 90th percentile of {args.repeat}", op_p90, None))

    def toggle(method):
        def run():
            st.calibration = method
        return run

    rows.append(("calibration none -> affine (not cached)", timed(toggle("affine")),
                 3 * t_sort))
    assert st.error == "", st.error
    rows.append(("calibration affine -> pav (not cached)", timed(toggle("pav")), 3 * t_sort))
    assert st.error == "", st.error
    rows.append(("calibration pav -> none (cached)", timed(toggle("none")), 3 * t_sort))
    rows.append(("calibration none -> affine (cached)", timed(toggle("affine")), 3 * t_sort))
    rows.append(("train prior 0.5 -> 0.3 (affine, not cached)",
                 timed(lambda: setattr(st, "train_prior", 0.3)), 3 * t_sort))
    assert views[0].figure is views[0].figure

    width = max(len(r[0]) for r in rows)
    print(f"\ndashboard benchmark: dev {args.n_dev:,} trials, eval {args.n_eval:,} trials")
    print(f"{'measurement'.ljust(width)}  {'time':>10}  {'target':>10}  ok")
    for name, t, target in rows:
        tgt = "" if target is None else f"{1000 * target:8.1f} ms"
        ok = "" if target is None else ("yes" if t < target else "NO")
        print(f"{name.ljust(width)}  {1000 * t:8.1f} ms  {tgt:>10}  {ok}")


if __name__ == "__main__":
    main()
