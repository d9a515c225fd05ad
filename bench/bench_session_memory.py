"""Benchmark: server memory held by sessions that were opened and closed (issue 14 item 1).

Each variant runs in its own child process (its RSS is its own): a Panel server in the
process, one system of ``--n-dev`` dev / ``--n-eval`` eval trials, and ``--sessions``
sessions opened one after the other by the light websocket client of ``_served.py`` (a
browser stand-in), each waiting for an affine calibration and the metrics table, then
closed.  The server destroys a closed session after ``--lifetime`` seconds; after each one,
the child collects garbage and records its RSS and how many sessions' states are still alive.

Variants: ``before`` (the prior log-odds as an ``EditableFloatSlider`` and no clean-up when
a session ends, as the dashboard was) and ``after`` (the dashboard as it is).  They run
alternately (``--repeats``) and the table gives, per variant, the median RSS growth per
closed session after the first one and the states left alive.

Usage::

    python bench/bench_session_memory.py [--n-eval 1e6] [--n-dev 2e5] [--sessions 6]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
import weakref
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _before_variant():
    """Patch the dashboard back to its state before the fix (for the comparison only)."""
    import panel as pn

    from llrlab.dashboard import app

    def old_point_controls(state):
        point = state.point.param
        return pn.Column(
            pn.widgets.FloatInput.from_param(point.p_target),
            pn.widgets.EditableFloatSlider.from_param(point.plo, start=-10.0, end=10.0,
                                                      fixed_start=-20.0, fixed_end=20.0,
                                                      step=0.01, name="Prior log-odds"))

    app.operating_point_controls = old_point_controls
    app.end_with_session = lambda doc, state: None


def child(args):
    import numpy as np
    import panel as pn
    import psutil

    sys.path.insert(0, str(HERE))
    from _served import LightClient, free_port

    from llrlab.core import Trials
    from llrlab.dashboard import app
    from llrlab.dashboard.compute import SystemData

    if args.variant == "before":
        _before_variant()
    rng = np.random.default_rng(0)

    def trials(n, shift):
        labels = rng.random(n) < 0.05
        s = np.where(labels, rng.normal(2.0, 1.5, n), rng.normal(-2.0, 1.5, n))
        return Trials(0.5 * s + shift, labels, source="synthetic")

    data = {"A": SystemData(trials(int(args.n_dev), 1.0), trials(int(args.n_eval), 1.3))}
    refs = []

    def factory():
        page = app.create_app(demo=False)
        page.state.data.set_systems(data)
        refs.append(weakref.ref(page.state))
        return page

    port = free_port()
    server = pn.serve(factory, port=port, address="127.0.0.1", threaded=True, show=False,
                      check_unused_sessions_milliseconds=200,
                      unused_session_lifetime_milliseconds=int(args.lifetime * 1000))
    time.sleep(2)
    url = f"http://127.0.0.1:{port}/?cal=affine"

    def ready():
        st = refs[-1]() if refs else None
        return (st is not None and st.results is not None
                and st.results.calibration is not None and not st.status.busy)

    async def one():
        c = LightClient(url)
        await c.open()
        await c.wait_for(ready, 300)
        await c.wait_for(c.table_has_numbers, 300)
        await c.close()

    proc = psutil.Process()
    rss, alive = [], []
    for _ in range(args.sessions):
        asyncio.run(one())
        deadline = time.monotonic() + args.lifetime + 3
        while time.monotonic() < deadline:
            gc.collect()
            if all(r() is None for r in refs):
                break
            time.sleep(0.2)
        gc.collect()
        rss.append(proc.memory_info().rss / 1e6)
        alive.append(sum(r() is not None for r in refs))
    server.stop()
    print(json.dumps({"rss": rss, "alive": alive}))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-eval", type=float, default=1e6)
    ap.add_argument("--n-dev", type=float, default=2e5)
    ap.add_argument("--sessions", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--lifetime", type=float, default=5.0,
                    help="seconds before the server destroys a closed session")
    ap.add_argument("--variant", choices=("before", "after"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.variant:
        child(args)
        return
    print(f"dev {int(args.n_dev):,} / eval {int(args.n_eval):,} trials, "
          f"{args.sessions} sessions opened and closed, per variant ...", flush=True)
    runs = {"before": [], "after": []}
    for _ in range(args.repeats):
        for variant in runs:
            cmd = [sys.executable, __file__, "--variant", variant,
                   "--n-eval", str(args.n_eval), "--n-dev", str(args.n_dev),
                   "--sessions", str(args.sessions), "--lifetime", str(args.lifetime)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            runs[variant].append(json.loads(out.strip().splitlines()[-1]))
    print(f"\n{'variant':8}  {'RSS after 1st (MB)':>18}  {'after last (MB)':>15}  "
          f"{'growth/session (MB)':>19}  {'states alive':>12}")
    for variant, rs in runs.items():
        first = statistics.median(r["rss"][0] for r in rs)
        last = statistics.median(r["rss"][-1] for r in rs)
        per = statistics.median((r["rss"][-1] - r["rss"][0]) / max(len(r["rss"]) - 1, 1)
                                for r in rs)
        alive = max(r["alive"][-1] for r in rs)
        print(f"{variant:8}  {first:18.0f}  {last:15.0f}  {per:19.1f}  "
              f"{alive:>6} of {args.sessions}")


if __name__ == "__main__":
    main()
