"""Benchmark: from a mouse move to the updated metrics table, in chromium, on ``llrlab serve``.

``llrlab serve`` runs as a separate process with one system (``--n-dev`` dev and
``--n-eval`` eval trials, HDF5 files written once into ``--dir``; ``--n-eval 0``: the demo).
Headless Debian chromium (driven by Playwright, every non-local request aborted) opens the
page, presses the mouse on the NBER plot and makes ``--moves`` single mouse moves to random
points of the plot, each after the table has followed the previous one, in ``--repeats``
blocks (with ``--before``, the blocks of the two servers alternate: interleaved).  The moves
of a block follow each other within the drag's pause, so the page computes them itself (the
drag computed in the page, :mod:`llrlab.dashboard.op_grid_script`); between blocks the pointer
pauses and the server gets the point once.  In the page, a
capturing ``pointermove`` listener stamps each move and a ``MutationObserver`` on the metrics
table stamps each update (both ``performance.now()``); the latency of a move is the time from
its stamp to the first table update after it.  Chromium's main-thread busy time
(``Performance.getMetrics``: ``TaskDuration``) and the server process's CPU time over the
blocks' moves are divided by their number; the load average is printed with the table.

Targets (issue 20 item 3): median at most 16 ms and 90th percentile at most 33 ms at 10^7
trials; server CPU while dragging about 0.

Usage::

    python bench/bench_browser.py [--n-eval 1e7] [--n-dev 1e6] [--moves 100]
                                  [--repeats 5] [--dir /tmp/llrlab-bench-serve]
"""

from __future__ import annotations

import argparse
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
    Server,
    add_served_arguments,
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
    const st = window.__llrlab = {moves: [], updates: []};
    document.addEventListener('pointermove', () => st.moves.push(performance.now()),
                              {capture: true});
    new MutationObserver(() => st.updates.push(performance.now()))
        .observe(root, {childList: true, subtree: true, characterData: true});
    return true;
}"""


def _table_ready(page):
    texts = page.locator('td[data-role="eval"][data-key="act_dcf"]').all_inner_texts()
    return bool(texts) and texts[0][:1].isdigit()


class Session:
    """A chromium page on ``url`` with the stamps installed and the mouse pressed on the NBER
    plot; :meth:`block` makes moves and returns their latencies."""

    def __init__(self, pw, url, server, seed=0):
        self.external, self.server = [], server
        self.browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = self.page = self.browser.new_page(viewport={"width": 1500, "height": 1300})

        def route(r):
            if urlparse(r.request.url).hostname in ("localhost", "127.0.0.1"):
                r.continue_()
            else:
                self.external.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        # the drag positions the page sends (a move after a still pointer: a pause)
        self.sent, self.pauses = [], 0
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: self.sent.append(1) if (
            isinstance(f, str) and '["n",[' in f) else None))
        t0 = time.perf_counter()
        page.goto(url)
        deadline = time.monotonic() + 300
        while not _table_ready(page):
            if time.monotonic() > deadline:
                raise RuntimeError("the page did not show the metrics table")
            page.wait_for_timeout(100)
        self.load = time.perf_counter() - t0
        page.wait_for_timeout(1500)
        while not page.evaluate(_INSTRUMENT):
            page.wait_for_timeout(100)
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")
        box = self.box = page.locator(".bk-Canvas").nth(0).bounding_box()
        self.y = box["y"] + 0.5 * box["height"]
        self.rng = np.random.default_rng(seed)
        page.mouse.move(box["x"] + 0.3 * box["width"], self.y)
        page.mouse.down()
        page.mouse.move(box["x"] + 0.32 * box["width"], self.y)  # the drag starts
        page.wait_for_timeout(1000)

    def _task(self):
        m = self.cdp.send("Performance.getMetrics")["metrics"]
        return next(x["value"] for x in m if x["name"] == "TaskDuration")

    def block(self, moves):
        """``moves`` moves; ``(latencies ms, missed, browser busy ms, server CPU ms)``."""
        page, box = self.page, self.box
        xs = box["x"] + box["width"] * self.rng.uniform(0.12, 0.62, moves)
        busy0, cpu0 = self._task(), self.server.cpu()
        latencies, missed = [], 0
        sent0 = len(self.sent)
        for x in xs:
            n_up, n_mv = page.evaluate(
                "() => [window.__llrlab.updates.length, window.__llrlab.moves.length]")
            page.mouse.move(float(x), self.y)
            try:
                page.wait_for_function(f"() => window.__llrlab.updates.length > {n_up}",
                                       timeout=5000, polling=5)
            except Exception:
                missed += 1
                continue
            move, update = page.evaluate(
                f"() => [window.__llrlab.moves[{n_mv}], window.__llrlab.updates[{n_up}]]")
            if move is not None:
                latencies.append(update - move)
        self.pauses += len(self.sent) - sent0
        busy, cpu = (self._task() - busy0) * 1e3, (self.server.cpu() - cpu0) * 1e3
        page.wait_for_timeout(1000)  # the pause: the server gets the point, once
        return latencies, missed, busy, cpu

    def close(self):
        self.page.mouse.up()
        self.browser.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_served_arguments(ap)
    ap.add_argument("--moves", type=int, default=20, help="moves per block")
    ap.add_argument("--repeats", type=int, default=5, help="blocks of moves per server")
    args = ap.parse_args(argv)
    files, what = served_data(args)
    print(f"serving {what}; {args.repeats} x {args.moves} mouse moves in chromium ...",
          flush=True)
    runs = served_runs(args)
    from playwright.sync_api import sync_playwright

    with contextlib.ExitStack() as stack:
        pw = stack.enter_context(sync_playwright())
        sessions = []
        for _label, exe in runs:
            server = stack.enter_context(Server(files, log=args.log, llrlab=exe))
            server.wait()
            sessions.append(Session(pw, server.url, server))
            stack.callback(sessions[-1].close)
        got = [dict(lat=[], medians=[], missed=0, busy=0.0, cpu=0.0) for _ in runs]
        for _ in range(args.repeats):  # interleaved: one block of each server in turn
            for s, g in zip(sessions, got, strict=True):
                lat, missed, busy, cpu = s.block(args.moves)
                g["lat"] += lat
                g["medians"].append(statistics.median(lat) if lat else float("nan"))
                g["missed"] += missed
                g["busy"] += busy
                g["cpu"] += cpu
        load = load_average()
    columns, external = [], []
    for (label, _exe), s, g in zip(runs, sessions, got, strict=True):
        lat, n = g["lat"], max(len(g["lat"]), 1)
        external += s.external
        columns.append((label, [
            ("page load to numbers", s.load, "s", None),
            (f"mouse move -> updated table, median of {len(lat)}",
             statistics.median(lat) / 1e3, "ms", 0.016),
            ("mouse move -> updated table, 90th percentile",
             float(np.quantile(lat, 0.9)) / 1e3, "ms", 0.033),
            (f"spread of the {args.repeats} blocks' medians (max - min)",
             (max(g["medians"]) - min(g["medians"])) / 1e3, "ms", None),
            ("moves without a table update (5 s)", g["missed"], "n", 0),
            ("browser main-thread time per move", g["busy"] / n / 1e3, "ms", None),
            ("server CPU per move", g["cpu"] / n / 1e3, "ms", None),
            ("positions sent while moving (pointer still >= 200 ms)", s.pauses, "n", None),
            ("requests leaving localhost", len(s.external), "n", 0),
        ]))
    print_table(f"browser latency: {what}, chromium; load average {load}", columns)
    for u in external[:5]:
        print("  external request:", u)


if __name__ == "__main__":
    main()
