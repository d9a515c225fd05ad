"""Benchmark of the dashboard's server side with 10^7 eval trials.

Measures, in one run:

* the operating-point update: ``state.point.set_plo`` (a drag) with every view built (NBER, DET,
  histogram, metrics, calibration), i.e. ``Analysis.at(plo)`` per dataset plus every source and
  widget update -- target: median below 10 ms;
* a calibration toggle (none -> affine, -> PAV; first time, i.e. not cached, and again from the
  cache) -- target: below 2x one ``numpy.sort`` of the eval scores, measured in the same run;
* with ``--conditions K`` (default 10) conditions of unequal sizes and score shifts on the same
  trials: switching to equal weights per condition (condition weights, weighted pool and the
  per-condition analyses; not cached) -- target: 0.5 s and below one sort (the pool's order
  is taken from the sort made when the conditions were loaded), then the operating-point
  update with per-condition curves and Wilson intervals on (``Analysis.at`` per dataset and
  per condition, intervals from the counts) -- target: median below 10 ms.

Usage: ``python bench/bench_dashboard.py [--n-eval 10000000] [--n-dev 1000000] [--repeat 200]
[--conditions 10]``.
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


def with_conditions(t, k, seed):
    """``t`` with ``k`` conditions of unequal sizes (shares ~ 1, 1/2, 1/3, ...) whose scores
    are shifted by different amounts."""
    from llrlab.core import Trials

    rng = np.random.default_rng(seed)
    share = 1.0 / np.arange(1, k + 1)
    code = rng.choice(k, len(t), p=share / share.sum())
    names = np.array([f"c{i}" for i in range(k)])
    shift = np.linspace(-0.1, 0.1, k)[code]
    return Trials(t.scores + shift, t.labels, conditions=names[code], source=t.source)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-eval", type=int, default=10_000_000)
    ap.add_argument("--n-dev", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--conditions", type=int, default=10)
    args = ap.parse_args(argv)

    from llrlab.dashboard import compute
    from llrlab.dashboard.compute import SystemData
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
    rows.append(("load dev (analysis, sources)", timed(lambda: st.data.set_trials("A", "dev", dev)),
                 None))
    rows.append(("load eval (analysis, sources)",
                 timed(lambda: st.data.set_trials("A", "eval", ev)), None))
    assert st.status.error == "", st.status.error

    sort_times = [timed(lambda: np.sort(ev.scores)) for _ in range(3)]
    t_sort = statistics.median(sort_times)
    rows.append(("numpy.sort of the eval scores (median of 3)", t_sort, None))

    rng = np.random.default_rng(0)
    plos = rng.uniform(-7, 3, args.repeat)
    op_times = [timed(lambda p=p: st.point.set_plo(float(p))) for p in plos]
    op_med = statistics.median(op_times)
    op_p90 = float(np.quantile(op_times, 0.9))
    rows.append((f"operating point update, median of {args.repeat}", op_med, 0.010))
    rows.append((f"operating point update, 90th percentile of {args.repeat}", op_p90, None))

    def toggle(method):
        def run():
            st.calibration.method = method
        return run

    rows.append(("calibration none -> affine (not cached)", timed(toggle("affine")),
                 2 * t_sort))
    assert st.status.error == "", st.status.error
    rows.append(("calibration affine -> pav (not cached)", timed(toggle("pav")), 2 * t_sort))
    assert st.status.error == "", st.status.error
    rows.append(("calibration pav -> none (cached)", timed(toggle("none")), 2 * t_sort))
    rows.append(("calibration none -> affine (cached)", timed(toggle("affine")), 2 * t_sort))
    rows.append(("train prior 0.5 -> 0.3 (affine, not cached)",
                 timed(lambda: setattr(st.calibration, "train_prior", 0.3)), 2 * t_sort))
    assert views[0].figure is views[0].figure

    if args.conditions:
        k = args.conditions
        print(f"attaching {k} conditions ...", flush=True)
        cdev, cev = with_conditions(dev, k, 3), with_conditions(ev, k, 4)
        st.calibration.method = "none"
        rows.append((f"load dev and eval with {k} conditions (pooled trials)",
                     timed(lambda: st.data.set_systems({"C": SystemData(cdev, cev)})), None))
        assert st.status.error == "", st.status.error
        rows.append((f"weighting pooled -> equal per condition ({k} conditions, not cached)",
                     timed(lambda: setattr(st.conditions, "weighting",
                                           "equal per condition")), min(0.5, t_sort)))
        assert st.status.error == "", st.status.error
        st.conditions.show_curves = True
        assert len(st.results.datasets["eval"].conditions) == k

        def op_rows(what, target):
            times = [timed(lambda p=p: st.point.set_plo(float(p))) for p in plos]
            rows.append((f"op. update, {what}, median of {args.repeat}",
                         statistics.median(times), target))
            rows.append((f"op. update, {what}, 90th percentile", float(np.quantile(times, 0.9)),
                         None))

        op_rows(f"equal weights, {k} condition curves", 0.010)
        st.uncertainty.ci_method = "wilson"
        op_rows(f"equal weights, {k} condition curves + Wilson CI", 0.010)
        st.conditions.weighting = "pooled trials"
        op_rows(f"pooled trials, {k} condition curves + Wilson CI", 0.010)
        st.conditions.weighting = "equal per condition"
        d = st.results.datasets["eval"]
        t_at = statistics.median(timed(lambda p=p: [c.llr.at(p) for c in d.conditions])
                                 for p in plos[:50])
        rows.append((f"  of which Analysis.at of the {k} eval conditions", t_at, None))
        t_ci = statistics.median(timed(lambda p=p: compute.op_interval(d.llr, p))
                                 for p in plos[:50])
        rows.append(("  of which the eval interval (weighted pool)", t_ci, None))

    width = max(len(r[0]) for r in rows)
    print(f"\ndashboard benchmark: dev {args.n_dev:,} trials, eval {args.n_eval:,} trials")
    print(f"{'measurement'.ljust(width)}  {'time':>10}  {'target':>10}  ok")
    for name, t, target in rows:
        tgt = "" if target is None else f"{1000 * target:8.1f} ms"
        ok = "" if target is None else ("yes" if t < target else "NO")
        print(f"{name.ljust(width)}  {1000 * t:8.1f} ms  {tgt:>10}  {ok}")


if __name__ == "__main__":
    main()
