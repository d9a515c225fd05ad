"""Benchmark: from a mouse move to the updated metrics table, in chromium, on ``llrlab serve``.

``llrlab serve`` runs as a separate process with one system (``--n-dev`` dev and
``--n-eval`` eval trials, HDF5 files written once into ``--dir``; ``--n-eval 0``: the demo).
Headless Debian chromium (driven by Playwright, every non-local request aborted) opens the
page, presses the mouse on the NBER plot and makes ``--moves`` single mouse moves to random
points of the plot, each after the table has followed the previous one.  In the page, a
capturing ``pointermove`` listener stamps each move and a ``MutationObserver`` on the metrics
table stamps each update (both ``performance.now()``); the latency of a move is the time from
its stamp to the first table update after it.  Chromium's main-thread busy time
(``Performance.getMetrics``: ``TaskDuration``) over the moves is divided by their number.

Target (issue 12 item 6, issue 14 item 3): median at most 50 ms at 10^7 trials.

Usage::

    python bench/bench_browser.py [--n-eval 1e7] [--n-dev 1e6] [--moves 100]
                                  [--dir /tmp/llrlab-bench-serve]
"""

from __future__ import annotations

import argparse
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


def measure(url, moves, seed=0):
    from playwright.sync_api import sync_playwright

    external = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1300})

        def route(r):
            if urlparse(r.request.url).hostname in ("localhost", "127.0.0.1"):
                r.continue_()
            else:
                external.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        t0 = time.perf_counter()
        page.goto(url)
        deadline = time.monotonic() + 300
        while not _table_ready(page):
            if time.monotonic() > deadline:
                raise RuntimeError("the page did not show the metrics table")
            page.wait_for_timeout(100)
        load = time.perf_counter() - t0
        page.wait_for_timeout(1500)
        while not page.evaluate(_INSTRUMENT):
            page.wait_for_timeout(100)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        box = page.locator(".bk-Canvas").nth(0).bounding_box()
        y = box["y"] + 0.5 * box["height"]
        rng = np.random.default_rng(seed)
        xs = box["x"] + box["width"] * rng.uniform(0.12, 0.62, moves)
        page.mouse.move(box["x"] + 0.3 * box["width"], y)
        page.mouse.down()
        page.mouse.move(box["x"] + 0.32 * box["width"], y)  # the drag starts
        page.wait_for_timeout(1000)

        def task():
            m = cdp.send("Performance.getMetrics")["metrics"]
            return next(x["value"] for x in m if x["name"] == "TaskDuration")

        busy0 = task()
        latencies, missed = [], 0
        for x in xs:
            n_up = page.evaluate("() => window.__llrlab.updates.length")
            n_mv = page.evaluate("() => window.__llrlab.moves.length")
            page.mouse.move(float(x), y)
            try:
                page.wait_for_function(f"() => window.__llrlab.updates.length > {n_up}",
                                       timeout=5000, polling=5)
            except Exception:
                missed += 1
                continue
            st = page.evaluate("() => window.__llrlab")
            move = st["moves"][n_mv] if len(st["moves"]) > n_mv else None
            if move is not None:
                latencies.append(st["updates"][n_up] - move)
            page.wait_for_timeout(40)  # the rest of the update (e.g. widgets) lands
        busy = task() - busy0
        page.mouse.up()
        browser.close()
    return {"load": load, "latencies": latencies, "missed": missed, "busy": busy,
            "external": external}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_served_arguments(ap)
    ap.add_argument("--moves", type=int, default=100)
    args = ap.parse_args(argv)
    files, what = served_data(args)
    print(f"serving {what}; {args.moves} mouse moves in chromium ...", flush=True)
    runs = served_runs(args)
    columns, external = [], []
    for label, exe in runs:
        with Server(files, log=args.log, llrlab=exe) as server:
            server.wait()
            r = measure(server.url, args.moves)
        lat = r["latencies"]
        external += r["external"]
        columns.append((label, [
            ("page load to numbers", r["load"], "s", None),
            (f"mouse move -> updated table, median of {args.moves}",
             statistics.median(lat) / 1e3, "ms", 0.050),
            ("mouse move -> updated table, 90th percentile",
             float(np.quantile(lat, 0.9)) / 1e3, "ms", None),
            ("moves without a table update (5 s)", r["missed"], "n", 0),
            ("browser main-thread time per move", r["busy"] / max(len(lat), 1), "ms",
             None),
            ("requests leaving localhost", len(r["external"]), "n", 0),
        ]))
    print_table(f"browser latency: {what}, chromium", columns)
    for u in external[:5]:
        print("  external request:", u)

if __name__ == "__main__":
    main()
