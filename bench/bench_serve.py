"""Benchmark of the served dashboard, measured on the server: first page, page load, drag steps.

``llrlab serve`` runs as a separate process; light websocket clients (``_served.LightClient``,
tornado only, no Bokeh model built) stand in for browsers, so that the numbers are the
server's.  Phases, in one run:

1. **first page**: ``--first-page`` sequential ``GET /`` (each builds a new session's page);
   the median and the largest time to the response.  ``serve_smoke.py`` and users' browsers
   give up on a first page slower than 2 s.
2. **page load**: ``--sessions`` clients open the page at once; for each, the time from its
   ``GET /`` to a metrics table with numbers (page built, websocket connected, document
   pulled, data loaded and analysed, results sent).
3. **drag**: every client moves the operating point ``--steps`` times through the NBER plot's
   drag channel (as the browser does), waiting for the metrics table of each step before the
   next, ``--interval`` seconds apart at most (0: at once).  Per update: the time from
   sending the step to receiving the updated table (median and 90th percentile over all
   clients' steps), the server's CPU time (the process's user + system time over the phase,
   divided by the number of updates), and the messages and bytes the server sent per step
   (the websocket "OK" replies to the client's own messages not counted).

Targets (issue 14 item 3, issue 12 item 6): one session at 10^7 trials, at most 10 ms of
server CPU per step; ten sessions of the demo, 90th percentile at most 100 ms per update and
every page loaded in at most 5 s.

Usage::

    python bench/bench_serve.py [--n-eval 1e7] [--n-dev 1e6] [--sessions 1] [--steps 100]
                                [--interval 0] [--first-page 5] [--dir /tmp/llrlab-bench-serve]
                                [--before OTHER/bin/llrlab]

``--before`` measures another installation first (e.g. ``git worktree add /tmp/before main``
installed in a second venv) and prints the two columns side by side.

``--n-eval 0`` serves the built-in demo (60,000 trials per set).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _served import LightClient, Server, add_served_arguments, print_table, served_data, served_runs


def _q(values, q):
    return float(np.quantile(values, q)) if len(values) else float("nan")


async def _first_pages(url, n):
    from tornado.httpclient import AsyncHTTPClient

    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        await AsyncHTTPClient().fetch(url, request_timeout=120)
        times.append(time.perf_counter() - t0)
    return times


async def _open(url):
    c = LightClient(url)
    t0 = time.perf_counter()
    await c.open()
    await c.wait_for(c.table_has_numbers, 180)
    c.load_seconds = time.perf_counter() - t0
    return c


async def _drag(c, plos, interval, quiet):
    """Steps of one client; per step: (latency, messages, bytes)."""
    out = []
    for plo in plos:
        t0 = time.perf_counter()
        n_msg, n_tab = len(c.messages), len(c.table_updates)
        await c.drag_to(plo)
        await c.wait_for(lambda n=n_tab: len(c.table_updates) > n, 60)
        latency = c.table_updates[n_tab] - t0
        if quiet:
            await c.quiet(quiet)
        sent = [m for m in c.messages[n_msg:] if m.header["msgtype"] != "OK"]
        out.append((latency, len(sent), sum(m.nbytes for m in sent)))
        rest = interval - (time.perf_counter() - t0)
        if rest > 0:
            await asyncio.sleep(rest)
    return out


async def run(args, server):
    rows = []
    first = await _first_pages(server.url, args.first_page)
    if first:
        rows.append(("first page: GET /, median", statistics.median(first), "s", 2.0))
        rows.append(("first page: GET /, largest", max(first), "s", 2.0))
    clients = await asyncio.gather(*[_open(server.url) for _ in range(args.sessions)])
    loads = [c.load_seconds for c in clients]
    rows.append((f"page load to numbers, median of {len(loads)}", statistics.median(loads),
                 "s", 5.0))
    rows.append((f"page load to numbers, largest of {len(loads)}", max(loads), "s", 5.0))
    for c in clients:
        await c.quiet(1.0)
    rng = np.random.default_rng(0)
    plans = [rng.uniform(-6.0, 2.0, args.steps) for _ in clients]
    quiet = 0.03 if args.sessions == 1 else 0.0
    cpu0, t0 = server.cpu(), time.perf_counter()
    results = await asyncio.gather(*[_drag(c, p, args.interval, quiet)
                                     for c, p in zip(clients, plans, strict=True)])
    wall = time.perf_counter() - t0
    cpu = server.cpu() - cpu0
    steps = [s for r in results for s in r]
    lat = [s[0] for s in steps]
    target = 0.050 if args.sessions == 1 else 0.100
    rows.append((f"drag: step -> updated table, median of {len(lat)}", statistics.median(lat),
                 "ms", target if args.sessions == 1 else None))
    rows.append(("drag: step -> updated table, 90th percentile", _q(lat, 0.9), "ms",
                 None if args.sessions == 1 else target))
    rows.append(("drag: server CPU per step", cpu / len(steps), "ms",
                 0.010 if args.sessions == 1 else None))
    rows.append(("drag: server CPU share of the phase", cpu / wall, "x", None))
    rows.append(("drag: messages sent per step, median",
                 statistics.median(s[1] for s in steps), "n", None))
    rows.append(("drag: bytes sent per step, median",
                 statistics.median(s[2] for s in steps), "B", None))
    rows.append(("server memory (RSS)", server.rss_mb(), "MB", None))
    for c in clients:
        await c.close()
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_served_arguments(ap)
    ap.add_argument("--sessions", type=int, default=1)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--interval", type=float, default=0.0)
    ap.add_argument("--first-page", type=int, default=5)
    args = ap.parse_args(argv)
    files, what = served_data(args)
    print(f"serving {what}; {args.sessions} session(s), {args.steps} steps each ...",
          flush=True)
    runs = served_runs(args)
    columns = []
    for label, exe in runs:
        with Server(files, log=args.log, llrlab=exe) as server:
            server.wait()
            columns.append((label, asyncio.run(run(args, server))))
    print_table(f"served dashboard: {what}, {args.sessions} session(s)", columns)

if __name__ == "__main__":
    main()
