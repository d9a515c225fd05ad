"""Benchmark of the dashboard's server side with 10^7 eval trials.

Measures, in one run:

* the operating-point update: ``state.point.set_plo`` (a drag) with every view built (NBER, DET,
  histogram, metrics, calibration), i.e. ``Analysis.at(plo)`` per dataset plus every source and
  widget update -- target: median below 10 ms;
* the state changes the page triggers, each timed ``--toggles`` times (at least 5),
  interleaved with one single-threaded ``numpy.sort`` of the eval scores, the results cache
  emptied before each timed change (the raw analyses made at load are kept, as in the
  page): calibration none -> affine, affine -> PAV, the training prior 0.5 -> 0.3 (affine),
  and, with ``--conditions K`` (default 10) conditions of unequal sizes and score shifts,
  pooled -> equal weights per condition (condition weights, weighted pool and the
  per-condition analyses; the pool's order from the sort made when the conditions were
  first pooled) -- targets: a toggle below 2x the sort, pooled -> equal below 0.5 s; each
  row gives the median ratio (or time) and the spread (smallest - largest);
* then the operating-point update with per-condition curves and Wilson intervals on
  (``Analysis.at`` per dataset and per condition, intervals from the counts) -- target:
  median below 10 ms.

The load average is printed before and after.  ``--threads one`` limits BLAS / OpenMP and
llrlab's chunk threads to one.

Usage: ``python bench/bench_dashboard.py [--n-eval 10000000] [--n-dev 1000000] [--repeat 200]
[--conditions 10] [--toggles 5] [--threads default|one]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _timing import load_average, machine_line, thread_settings


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
    ap.add_argument("--toggles", type=int, default=5, help="timed runs of each state change")
    ap.add_argument("--threads", choices=("default", "one"), default="default")
    args = ap.parse_args(argv)
    if args.toggles < 5:
        ap.error("--toggles must be at least 5")
    print(f"load average before: {load_average()}", flush=True)
    with thread_settings(None if args.threads == "default" else 1):
        run(args)
    print(f"machine: {machine_line()}; threads: {args.threads}")
    print(f"load average after: {load_average()}")


def toggle_rows(st, ev, rows, toggles, what, prepare, act, target_ratio=None, target_s=None):
    """Time ``act()`` (a state change) ``toggles`` times, each after ``prepare()`` (untimed)
    and with the results cache emptied, next to one numpy.sort of the eval scores."""
    ratios, times = [], []
    for _ in range(toggles):
        prepare()
        st._cache.clear()
        t_sort = timed(lambda: np.sort(ev.scores))
        t = timed(act)
        assert st.status.error == "", st.status.error
        ratios.append(t / t_sort)
        times.append(t)
    ratios.sort()
    times.sort()
    med = statistics.median(ratios)
    if target_ratio is not None:
        ok = "yes" if med <= target_ratio else "NO"
        rows.append((f"{what}: time / sort, median of {toggles} [spread "
                     f"{ratios[0]:.2f}-{ratios[-1]:.2f}]", med, f"{target_ratio:g}x", ok))
    tmed = statistics.median(times)
    ok = "" if target_s is None else ("yes" if tmed <= target_s else "NO")
    rows.append((f"{what}: time, median of {toggles} [spread {times[0]:.3f}-{times[-1]:.3f} s]",
                 f"{tmed:8.3f} s", "" if target_s is None else f"{target_s:g} s", ok))


def run(args):

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

    def row(name, t, target=None):
        """A time in ms with an optional target (seconds)."""
        ok = "" if target is None else ("yes" if t < target else "NO")
        rows.append((name, f"{1000 * t:8.1f} ms",
                     "" if target is None else f"{1000 * target:8.1f} ms", ok))

    row("load dev (analysis, sources)", timed(lambda: st.data.set_trials("A", "dev", dev)))
    row("load eval (analysis, sources)", timed(lambda: st.data.set_trials("A", "eval", ev)))
    assert st.status.error == "", st.status.error

    sort_times = sorted(timed(lambda: np.sort(ev.scores)) for _ in range(5))
    row(f"numpy.sort of the eval scores (median of 5, spread {sort_times[0]:.3f}-"
        f"{sort_times[-1]:.3f} s)", statistics.median(sort_times))

    rng = np.random.default_rng(0)
    plos = rng.uniform(-7, 3, args.repeat)
    op_times = [timed(lambda p=p: st.point.set_plo(float(p))) for p in plos]
    row(f"operating point update, median of {args.repeat}", statistics.median(op_times), 0.010)
    row(f"operating point update, 90th percentile of {args.repeat}",
        float(np.quantile(op_times, 0.9)))

    def setter(part, name, value):
        return lambda: setattr(part, name, value)

    cal = st.calibration
    n = args.toggles
    toggle_rows(st, ev, rows, n, "calibration none -> affine", setter(cal, "method", "none"),
                setter(cal, "method", "affine"), target_ratio=2.0)
    toggle_rows(st, ev, rows, n, "calibration affine -> pav", setter(cal, "method", "affine"),
                setter(cal, "method", "pav"), target_ratio=2.0)

    def prior_05():
        cal.method = "affine"
        cal.train_prior = 0.5

    toggle_rows(st, ev, rows, n, "train prior 0.5 -> 0.3 (affine)", prior_05,
                setter(cal, "train_prior", 0.3), target_ratio=2.0)
    cal.train_prior = 0.5
    assert views[0].figure is views[0].figure

    if args.conditions:
        k = args.conditions
        print(f"attaching {k} conditions ...", flush=True)
        cdev, cev = with_conditions(dev, k, 3), with_conditions(ev, k, 4)
        cal.method = "none"
        row(f"load dev and eval with {k} conditions (pooled trials)",
            timed(lambda: st.data.set_systems({"C": SystemData(cdev, cev)})))
        assert st.status.error == "", st.status.error
        cond = st.conditions
        toggle_rows(st, ev, rows, n, f"weighting pooled -> equal ({k} conditions)",
                    setter(cond, "weighting", "pooled trials"),
                    setter(cond, "weighting", "equal per condition"), target_s=0.5)
        assert st.status.error == "", st.status.error
        st.conditions.show_curves = True
        assert len(st.results.datasets["eval"].conditions) == k

        def op_rows(what, target):
            times = [timed(lambda p=p: st.point.set_plo(float(p))) for p in plos]
            row(f"op. update, {what}, median of {args.repeat}", statistics.median(times),
                target)
            row(f"op. update, {what}, 90th percentile", float(np.quantile(times, 0.9)))

        op_rows(f"equal weights, {k} condition curves", 0.010)
        st.uncertainty.ci_method = "wilson"
        op_rows(f"equal weights, {k} condition curves + Wilson CI", 0.010)
        st.conditions.weighting = "pooled trials"
        op_rows(f"pooled trials, {k} condition curves + Wilson CI", 0.010)
        st.conditions.weighting = "equal per condition"
        d = st.results.datasets["eval"]
        row(f"  of which Analysis.at of the {k} eval conditions",
            statistics.median(timed(lambda p=p: [c.llr.at(p) for c in d.conditions])
                              for p in plos[:50]))
        row("  of which the eval interval (weighted pool)",
            statistics.median(timed(lambda p=p: compute.op_interval(d.llr, p))
                              for p in plos[:50]))

    width = max(len(r[0]) for r in rows)
    print(f"\ndashboard benchmark: dev {args.n_dev:,} trials, eval {args.n_eval:,} trials")
    print(f"{'measurement'.ljust(width)}  {'value':>11}  {'target':>11}  ok")
    for name, value, target, ok in rows:
        if isinstance(value, float):
            value = f"{value:9.2f}x"
        print(f"{name.ljust(width)}  {value:>11}  {target:>11}  {ok}")


if __name__ == "__main__":
    main()
