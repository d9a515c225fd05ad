"""Benchmark: from a mouse move to the updated metrics table, in chromium, on ``llrlab serve``;
one page, or ``--sessions`` pages dragging at the same time, or one page while
``--light-sessions`` other sessions drag through light clients.

``llrlab serve`` runs as a separate process with one system (``--n-dev`` dev and
``--n-eval`` eval trials, HDF5 files written once into ``--dir``; ``--n-eval 0``: the demo).
One headless Debian chromium (driven by Playwright, every non-local request aborted) opens
``--sessions`` pages, each in its own browser context (its own renderer process and server
session), presses the mouse on each page's NBER plot and moves it to ``--moves`` random points
of the plot at 60 Hz (a mouse's rate: each move is sent without waiting for the page, as a
mouse does not wait; moves the busy page has not handled yet are coalesced by chromium, as
for a real mouse), in ``--repeats`` blocks.  With several sessions the pages are driven
concurrently (one asyncio task per page: every page drags at once, as ten students dragging
in the same second): their renderers compete for the machine's cores, as ten tabs would on
one laptop, which is the worst case.  With ``--before``, the blocks of the two servers
alternate: interleaved.  The moves of a block follow each other within the drag's pause, so
the page computes them itself (the drag computed in the page,
:mod:`llrlab.dashboard.op_grid_script`); after each block every pointer stays still for 1 s
(the pause): each page sends its point once (``C.data = {x, y, n}`` on the plot's drag
channel) and the server answers with the exact numbers.

``--sessions N`` is the worst case of N tabs dragging on one machine: N chromium renderers
share this machine's cores with the server, so it measures the test machine's browser
capacity as much as the server.  ``--light-sessions K`` models a class: K students dragging,
each on a laptop of their own, who share only the server.  One chromium page is measured as
above, and K other sessions drag through light websocket clients (``_served.LightClient``: a
browser stand-in on Bokeh's protocol that renders nothing), which send the server exactly
what a dragging page sends it: with the drag computed in the page, only the point of each
pause (``_served.pause``), never the moves.  Each light session does the measured page's
blocks at its cadence (one pause per block of ``--moves`` moves and its 1 s pause), its
pause at a fixed random offset in the block (drawn once per session, uniform over the
block's length), and times pause -> the server's exact values (the NBER line at the point
and the metrics table redrawn).

In the page, a capturing ``pointermove`` listener stamps each move that the page handles
(``performance.now()``, and the event's own ``timeStamp``: when chromium made the input
event) and a ``MutationObserver`` on the metrics table stamps each update; a move's update is
the first one after it and before the next handled move (:func:`pair_latencies`).  The
latency of a move is the time from its input event's creation to that update: the wait for
the page's main thread and for chromium's next frame (to which it aligns pointer moves)
included; of coalesced moves the newest counts, as the pointer is where the user sees it.
The time from the page's handler is shown under it (what the script measured before 60 Hz
moves: one move at a time after the previous table, without the input queue).

Rows (on the last column; every block of every page counts):

* page load to numbers: ``goto`` -> the eval act. DCF cell shows a number (slowest page);
* mouse move -> updated table: median and 90th percentile over all pages' moves; the
  spread of the per-page medians (``--sessions`` > 1) and of the blocks' medians;
* moves sent (the "per move" rows divide by it), moves the pages handled (the rest
  coalesced while the page was busy), and handled moves without a table update;
* browser main-thread time per move: chromium's ``TaskDuration`` (``Performance.getMetrics``)
  of every page, summed (the wall time of the pages' tasks: on a crowded machine it counts
  the time a renderer waits for a core); chromium CPU per move: CPU time of all chromium
  processes (browser, renderers, GPU and utility processes) over the blocks' moves; driver
  CPU per move (this script and Playwright's node process);
* server CPU per move: the ``llrlab serve`` process's CPU time over the blocks' moves
  (including the points that pages sent meanwhile: a page that finished its block early, or
  a page whose pointer seemed still for 200 ms because its renderer or the driver lagged);
* points sent while moving (before a page's last move: its renderer or the driver lagged
  200 ms) and after a page's last move (its pause); server CPU per point sent: the server's
  CPU time over the blocks and their pauses over every point sent then (a page sends
  nothing else while the pointer moves, so this is the cost of one drag pause's point: the
  exact numbers, the line, the markers and the table sent back);
* with ``--light-sessions``: their pauses sent, those without an answer within 20 s, and
  pause -> exact values (median, 90th percentile); their points count in the server CPU
  rows above (CPU per move: those sent while the page moved; per point sent: all);
* requests leaving localhost.

The load average is printed with the table (at its start and end).

Targets (issue 20 item 3): median at most 16 ms and 90th percentile at most 33 ms at 10^7
trials, also with ten sessions dragging at once; server CPU while dragging about 0 and a few
ms per pause.

Usage::

    python bench/bench_browser.py [--n-eval 1e7] [--n-dev 1e6] [--moves 60]
                                  [--repeats 5] [--sessions 1] [--light-sessions 0]
                                  [--hogs]
                                  [--dir /tmp/llrlab-bench-serve]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _served import (
    CHROMIUM,
    FLAGS,
    Hogs,
    Server,
    add_served_arguments,
    demo_client,
    pause,
    print_table,
    served_data,
    served_runs,
)
from _timing import load_average

#: Installs the stamps (see the module docstring); returns false until the table exists.
_INSTRUMENT = """() => {
    function find(root) {
        for (const el of root.querySelectorAll('*')) {
            if (el.matches('table.llrlab-metrics')) { return el.getRootNode(); }
            if (el.shadowRoot) { const r = find(el.shadowRoot); if (r) { return r; } }
        }
        return null;
    }
    const root = find(document);
    if (root == null) { return false; }
    if (window.__llrlab) { return true; }
    const st = window.__llrlab = {moves: [], created: [], updates: []};
    document.addEventListener('pointermove', (e) => {
        st.moves.push(performance.now());
        st.created.push(e.timeStamp);
    }, {capture: true});
    new MutationObserver(() => st.updates.push(performance.now()))
        .observe(root, {childList: true, subtree: true, characterData: true});
    return true;
}"""
_COUNTS = "() => [window.__llrlab.moves.length, window.__llrlab.updates.length]"
_STAMPS = """([m, u]) => [window.__llrlab.moves.slice(m), window.__llrlab.created.slice(m),
                    window.__llrlab.updates.slice(u)]"""


def pair_latencies(moves, created, updates):
    """The latency of each dispatched move: ``(from creation, from dispatch, missed)``.

    ``moves`` are the times the page dispatched its ``pointermove`` events (increasing),
    ``created`` the events' own time stamps (when the browser made the input event: the
    wait for the page's main thread included) and ``updates`` the table's updates
    (increasing).  A move's update is the first one at or after it and before the next
    move (the page computes a move's numbers in its handler); a move without one is missed.
    """
    updates = np.asarray(updates, float)
    moves = np.asarray(moves, float)
    if moves.size == 0:
        return [], [], 0
    k = np.searchsorted(updates, moves, side="left")
    nxt = np.append(updates, np.inf)[k]  # the first update at or after each move
    ok = nxt < np.append(moves[1:], np.inf)
    u = nxt[ok]
    return ((u - np.asarray(created, float)[ok]).tolist(), (u - moves[ok]).tolist(),
            int(moves.size - ok.sum()))


#: True once the page holds the in-page drag's grid (:mod:`llrlab.dashboard.views.op_grid`).
_GRID_READY = """() => {
    const d = window.Bokeh != null && Bokeh.documents[0];
    const g = d && d.get_model_by_name('op_grid');
    return g != null && g.data.plo != null && g.data.plo.length > 0;
}"""

#: One pointer event per frame at 60 Hz at most.
MOVE_INTERVAL = 1 / 60


async def _table_ready(page):
    texts = await page.locator('td[data-role="eval"][data-key="act_dcf"]').all_inner_texts()
    return bool(texts) and texts[0][:1].isdigit()


class Session:
    """A chromium page (its own browser context) on ``url`` with the stamps installed and the
    mouse pressed on the NBER plot; :meth:`moves` makes moves and returns their latencies."""

    @classmethod
    async def open(cls, browser, url, server, seed=0):
        self = cls()
        self.external, self.server = [], server
        self.context = await browser.new_context(viewport={"width": 1500, "height": 1300})
        page = self.page = await self.context.new_page()

        async def route(r):
            if urlparse(r.request.url).hostname in ("localhost", "127.0.0.1"):
                await r.continue_()
            else:
                self.external.append(r.request.url)
                await r.abort()

        await page.route("**/*", route)
        # the drag positions the page sends (a move after a still pointer: a pause)
        self.sent = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: self.sent.append(1) if (
            isinstance(f, str) and '["n",[' in f) else None))
        t0 = time.perf_counter()
        await page.goto(url, timeout=300_000)
        deadline = time.monotonic() + 300
        while not await _table_ready(page):
            if time.monotonic() > deadline:
                raise RuntimeError("the page did not show the metrics table")
            await page.wait_for_timeout(100)
        self.load = time.perf_counter() - t0
        # the drag's grid (sent GRID_DELAY after the analyses): until then it goes to the server
        await page.wait_for_function(_GRID_READY, timeout=300_000, polling=100)
        await page.wait_for_timeout(300)
        while not await page.evaluate(_INSTRUMENT):
            await page.wait_for_timeout(100)
        self.cdp = await self.context.new_cdp_session(page)
        await self.cdp.send("Performance.enable")
        box = self.box = await page.locator(".bk-Canvas").nth(0).bounding_box()
        self.y = box["y"] + 0.5 * box["height"]
        self.rng = np.random.default_rng(seed)
        await page.mouse.move(box["x"] + 0.3 * box["width"], self.y)
        await page.mouse.down()
        await page.mouse.move(box["x"] + 0.32 * box["width"], self.y)  # the drag starts
        await page.wait_for_timeout(1000)
        return self

    async def task_ms(self):
        """Chromium's main-thread busy time of this page so far (ms)."""
        m = (await self.cdp.send("Performance.getMetrics"))["metrics"]
        return 1e3 * next(x["value"] for x in m if x["name"] == "TaskDuration")

    async def moves(self, moves):
        """``moves`` moves at 60 Hz, each sent without waiting for the page (a mouse does
        not wait); ``(latencies from creation ms, from dispatch ms, missed, dispatched)``."""
        page, box = self.page, self.box
        xs = box["x"] + box["width"] * self.rng.uniform(0.12, 0.62, moves)
        counts = await page.evaluate(_COUNTS)
        sent, t0, points = [], time.perf_counter(), len(self.sent)
        for k, x in enumerate(xs):
            sent.append(asyncio.ensure_future(page.mouse.move(float(x), self.y)))
            await asyncio.sleep(max(0.0, t0 + (k + 1) * MOVE_INTERVAL - time.perf_counter()))
        await asyncio.gather(*sent)
        self.moving = len(self.sent) - points  # points sent before the last move: mid-drag
        await asyncio.sleep(0.1)  # the last move's table (the pause is 200 ms)
        m, c, u = await page.evaluate(_STAMPS, counts)
        created, dispatched, missed = pair_latencies(m, c, u)
        return created, dispatched, missed, len(m)

    async def close(self):
        with contextlib.suppress(Exception):
            await self.page.mouse.up()
        await self.context.close()


def client_cpu():
    """CPU seconds so far of every chromium process started by this script (via Playwright)
    and of the driver (this process and Playwright's node process)."""
    import psutil

    me = psutil.Process()
    chromium, driver = 0.0, sum(me.cpu_times()[:2])
    for p in me.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            if "chrom" in p.name():
                chromium += t.user + t.system
            else:
                driver += t.user + t.system
    return chromium, driver


async def light_block(client, offset, x, n):
    """A light session's part of a block: its pause point at prior log-odds ``x`` (its
    ``n``-th), ``offset`` seconds into the block; pause -> exact values (s) or ``None``."""
    await asyncio.sleep(offset)
    return await pause(client, x, n)


async def measure(args, files):
    """Serve, open the sessions, run the blocks; ``(runs, sessions per run, results)``."""
    from playwright.async_api import async_playwright
    from tornado.httpclient import AsyncHTTPClient

    runs = served_runs(args)
    AsyncHTTPClient.configure(None, max_clients=args.light_sessions + 10)
    rng = np.random.default_rng(0)
    # each light session's pause, in its every block (a block: the moves, then 1 s still)
    offsets = rng.uniform(0.0, args.moves * MOVE_INTERVAL + 1.0, args.light_sessions)
    async with contextlib.AsyncExitStack() as stack:
        pw = await stack.enter_async_context(async_playwright())
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        stack.push_async_callback(browser.close)
        servers, sessions, lights = [], [], []
        for _label, exe in runs:
            server = stack.enter_context(Server(files, log=args.log, llrlab=exe))
            server.wait()
            servers.append(server)
            # one after the other, as pages opened in a classroom's first minute
            group = []
            for k in range(args.sessions):
                group.append(await Session.open(browser, server.url, server, seed=k))
                stack.push_async_callback(group[-1].close)
            sessions.append(group)
            opened = await asyncio.gather(*(demo_client(server.url, 0.0)
                                            for _ in range(args.light_sessions)))
            lights.append([c for c, _ready, _grid in opened])
            for c in lights[-1]:
                stack.push_async_callback(c.close)
        got = [dict(lat=[], disp=[], per_page=[[] for _ in range(args.sessions)], medians=[],
                    dispatched=0, missed=0, busy=0.0, chromium=0.0, driver=0.0, cpu=0.0,
                    while_moving=0, pauses=0, block_cpu=0.0, loads=[], light=[],
                    light_moving=0) for _ in runs]
        for r in range(args.repeats):  # interleaved: one block of each server in turn
            for server, group, light, g in zip(servers, sessions, lights, got, strict=True):
                busy0 = [await s.task_ms() for s in group]
                sent0 = sum(len(s.sent) for s in group)
                cpu0, (chr0, drv0) = server.cpu(), client_cpu()
                xs = np.round(rng.uniform(-6.0, 2.0, len(light)), 3)  # in the plot's range
                blocks = asyncio.gather(*(light_block(c, off, float(x), r + 1) for c, off, x
                                          in zip(light, offsets, xs, strict=True)))
                t0 = time.perf_counter()
                out = await asyncio.gather(*(s.moves(args.moves) for s in group))
                cpu1, (chr1, drv1) = server.cpu(), client_cpu()
                g["light_moving"] += int(np.sum(offsets < time.perf_counter() - t0))
                busy1 = [await s.task_ms() for s in group]
                await asyncio.sleep(1.0)  # the pause: each page sends its point, once
                g["light"] += await blocks
                g["block_cpu"] += server.cpu() - cpu0
                moving = sum(s.moving for s in group)
                g["pauses"] += sum(len(s.sent) for s in group) - sent0 - moving
                g["while_moving"] += moving
                g["cpu"] += cpu1 - cpu0
                g["chromium"] += chr1 - chr0
                g["driver"] += drv1 - drv0
                g["busy"] += sum(b1 - b0 for b0, b1 in zip(busy0, busy1, strict=True))
                lat = []
                for k, (page_lat, page_disp, missed, dispatched) in enumerate(out):
                    lat += page_lat
                    g["disp"] += page_disp
                    g["per_page"][k] += page_lat
                    g["missed"] += missed
                    g["dispatched"] += dispatched
                g["lat"] += lat
                g["medians"].append(statistics.median(lat) if lat else float("nan"))
                g["loads"].append(load_average())
    return runs, sessions, got


def _spread(values):
    values = [v for v in values if v == v]
    return (max(values) - min(values)) if values else float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_served_arguments(ap)
    ap.add_argument("--moves", type=int, default=60,
                    help="moves per block and page (at 60 Hz: 60 moves, one second)")
    ap.add_argument("--repeats", type=int, default=5, help="blocks of moves per server")
    ap.add_argument("--sessions", type=int, default=1,
                    help="pages dragging at the same time (one browser, a context each)")
    ap.add_argument("--light-sessions", type=int, default=0,
                    help="other sessions dragging through light clients (one pause per "
                         "block each, no browser: students on laptops of their own)")
    ap.add_argument("--hogs", action="store_true",
                    help="one busy process per core while measuring (a loaded machine)")
    args = ap.parse_args(argv)
    files, what = served_data(args)
    light = f", {args.light_sessions} light sessions" if args.light_sessions else ""
    print(f"serving {what}; {args.sessions} page(s) x {args.repeats} x {args.moves} mouse "
          f"moves in chromium{light}{', a busy process per core' if args.hogs else ''}; "
          f"load average {load_average()} ...", flush=True)
    with Hogs(args.hogs):
        runs, sessions, got = asyncio.run(measure(args, files))
        load = load_average()
    columns, external = [], []
    for (label, _exe), group, g in zip(runs, sessions, got, strict=True):
        lat, disp = g["lat"], g["disp"]
        n = args.moves * args.sessions * args.repeats  # moves sent
        pages = [statistics.median(v) if v else float("nan") for v in g["per_page"]]
        external += [u for s in group for u in s.external]
        rows = [
            ("page load to numbers (slowest page)", max(s.load for s in group), "s", None),
            (f"mouse move -> updated table, median of {len(lat)}",
             statistics.median(lat) / 1e3, "ms", 0.016),
            ("mouse move -> updated table, 90th percentile",
             float(np.quantile(lat, 0.9)) / 1e3, "ms", 0.033),
            ("  from the page's handler (no input queue), median",
             statistics.median(disp) / 1e3, "ms", None),
            ("  from the page's handler (no input queue), p90",
             float(np.quantile(disp, 0.9)) / 1e3, "ms", None),
        ]
        if args.sessions > 1:
            rows += [("per-page medians, smallest", min(pages) / 1e3, "ms", None),
                     ("per-page medians, largest", max(pages) / 1e3, "ms", 0.016)]
        rows += [
            (f"spread of the {args.repeats} blocks' medians (max - min)",
             _spread(g["medians"]) / 1e3, "ms", None),
            ("moves sent (60 Hz per page)", n, "n", None),
            ("moves dispatched by the pages (the rest coalesced)", g["dispatched"], "n", None),
            ("dispatched moves without a table update", g["missed"], "n", 0),
            ("browser main-thread time per move (all pages)", g["busy"] / n / 1e3, "ms", None),
            ("chromium CPU per move (all processes)", g["chromium"] / n, "ms", None),
            ("driver CPU per move (Playwright, this script)", g["driver"] / n, "ms", None),
            ("server CPU per move (while moving)", g["cpu"] / n, "ms", None),
            ("points sent while moving (a page still >= 200 ms)", g["while_moving"], "n",
             None),
            ("points sent after a page's last move (its pause)", g["pauses"], "n", None),
            ("server CPU per point sent (blocks and pauses)",
             g["block_cpu"] / max(g["pauses"] + g["while_moving"] + len(g["light"]), 1), "ms",
             None),
        ]
        answered = [t for t in g["light"] if t is not None]
        rows += [
            ("light sessions: pauses sent", len(g["light"]), "n", None),
            ("  of them while the page moved", g["light_moving"], "n", None),
            ("light sessions: pauses without an answer (20 s)",
             len(g["light"]) - len(answered), "n", 0),
            ("light sessions: pause -> exact values, median",
             statistics.median(answered) if answered else float("nan"), "ms", None),
            ("light sessions: pause -> exact values, p90",
             float(np.quantile(answered, 0.9)) if answered else float("nan"), "ms", None),
        ] if args.light_sessions else []
        rows += [
            ("requests leaving localhost", sum(len(s.external) for s in group), "n", 0),
        ]
        columns.append((label, rows))
        if args.sessions > 1:
            print(f"{label}: per-page medians (ms): "
                  + " ".join(f"{v:.1f}" for v in pages))
        print(f"{label}: load average after each block: " + "; ".join(g["loads"]))
    print_table(f"browser latency: {what}, chromium, {args.sessions} page(s) dragging at "
                f"once{light}{', loaded' if args.hogs else ''}; load average {load}", columns)
    for u in external[:5]:
        print("  external request:", u)


if __name__ == "__main__":
    main()
