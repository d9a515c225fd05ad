"""Benchmark: the built-in lesson's steps on the dashboard's stage (``llrlab serve``, the
demo data), on a quiet and on a loaded machine.

Each run starts a fresh ``llrlab serve`` (a separate process), once on the machine as it is
("quiet") and once with a CPU hog on every core ("loaded": one busy Python process per core,
started and stopped by this script), the two interleaved ``--repeats`` times.

In headless chromium at 1280 x 720, the lesson's link at step 1 is opened (page open ->
complete step 1), then PageDown through every step and PageUp back, ``--passes`` times: key
press -> complete step.  A step is complete when its text, its panels and highlights, every
shown plot's data and the metrics table all match the step (``_lesson_page.py``;
expectations computed by the dashboard in this process), timed in the page with
``performance.now()`` from the key press to the document change that completes it (then to
the next animation frame: painted).  Also: whether the text and the plots changed in the
same animation frame (atomic), the websocket bytes and frames of each step, the server's CPU
time per step, and the link to step 8 opened in a new page.  ``--each`` prints every step.

The class of forty (the lecture page that follows the lecturer) is measured by
``bench_lecture.py``.

Targets (issue 19, item 1): key press -> complete step median <= 300 ms, p90 <= 500 ms;
page open or link -> complete step <= 3 s.

Usage::

    python bench/bench_lesson.py [--repeats 2] [--passes 2] [--conditions quiet loaded]
                                 [--each] [--log server.log]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lesson_page import PROBE_INIT, WATCH, expected_steps
from _served import CHROMIUM, FLAGS, Hogs, Server

LESSON = "calibration"


# ------------------------------------------------------------------------------ the machine


def _q(xs, q):
    return float(np.quantile(xs, q)) if len(xs) else float("nan")


# ------------------------------------------------------------------------------ chromium


def _browser(pw):
    return pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)


def _page(browser, size=(1280, 720)):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.route("**/*", lambda r: r.continue_() if urlparse(r.request.url).hostname in
               ("127.0.0.1", "localhost") else r.abort())
    page.add_init_script(PROBE_INIT)
    page.set_default_timeout(120_000)
    return page


def _open_at(page, url, expect, index, timeout=180):
    """Open ``url`` and wait for step ``index`` (0-based) complete; its time from the
    navigation's start (s)."""
    page.goto(url, wait_until="commit")
    deadline = time.monotonic() + timeout
    while not page.evaluate(WATCH, expect):
        if time.monotonic() > deadline:
            raise RuntimeError("the lesson page did not show its text")
        page.wait_for_timeout(25)
    page.evaluate(f"() => __probe.expectStep({index})")
    try:
        page.wait_for_function(f"() => __probe.done[{index}] && __probe.done[{index}].painted",
                               timeout=1000 * timeout, polling=25)
    except Exception as exc:  # (Playwright's TimeoutError): say what the page lacked
        why = page.evaluate(f"() => (__probe.done[{index}] || {{}}).why")
        raise RuntimeError(f"{url}: step {index + 1} not complete after {timeout} s; "
                           f"the page lacks: {why or 'its text'}") from exc
    return page.evaluate(f"() => __probe.done[{index}].all") / 1000.0


def _press(page, key, index, server, timeout=60):
    """Press ``key`` and wait for step ``index`` complete: its measurements."""
    nk = page.evaluate("() => __probe.keys.length")
    nm = page.evaluate("() => __probe.msgs.length")
    page.evaluate(f"() => {{ delete __probe.done[{index}]; __probe.expectStep({index}); }}")
    cpu0 = server.cpu()
    page.keyboard.press(key)
    page.wait_for_function(f"() => __probe.done[{index}] && __probe.done[{index}].painted",
                           timeout=1000 * timeout, polling=10)
    page.wait_for_timeout(400)  # what follows the step (the address, the hint's end)
    p = page.evaluate(f"() => ({{k: __probe.keys[{nk}][0], d: __probe.done[{index}], "
                      f"m: __probe.msgs.slice({nm})}})")
    k, d, msgs = p["k"], p["d"], p["m"]
    before = [m for m in msgs if m[0] <= d["all"]]
    return {"complete": (d["all"] - k) / 1e3, "painted": (d["painted"] - k) / 1e3,
            "atomic": d["text_frame"] == d["plots_frame"],
            "first_msg": ((before[0][0] - k) / 1e3) if before else float("nan"),
            "frames": len(before), "kb": sum(m[1] for m in before) / 1e3,
            "cpu": server.cpu() - cpu0}


def run_steps(expect, passes, log=None):
    """The step scenario on a fresh server (see the module docstring)."""
    from playwright.sync_api import sync_playwright

    n = len(expect)
    out = {"steps": [], "open": [], "link8": []}
    with Server(log=log) as server, \
            sync_playwright() as pw:
        server.wait()
        browser = _browser(pw)
        try:
            page = _page(browser)
            out["open"].append(_open_at(page, f"{server.url}?lesson={LESSON}&step=1", expect, 0))
            page.wait_for_timeout(1500)
            cur = 0
            for _ in range(passes):
                for i in [*range(1, n), *range(n - 2, -1, -1)]:
                    r = _press(page, "PageDown" if i > cur else "PageUp", i, server)
                    r["step"] = i + 1
                    out["steps"].append(r)
                    cur = i
            other = _page(browser)
            out["link8"].append(_open_at(other, f"{server.url}?lesson={LESSON}&step=8",
                                         expect, 7))
        finally:
            browser.close()
    return out


# ------------------------------------------------------------------------------ the table


def _row(name, value, unit, target=None):
    return (name, value, unit, target)


def summarize(steps):
    """Rows ``(name, value, unit, target)`` of the runs of one condition."""
    rows = []
    if steps:
        st = [r for run in steps for r in run["steps"]]
        comp = [r["complete"] for r in st]
        per_run = [statistics.median(r["complete"] for r in run["steps"]) for run in steps]
        rows += [
            _row(f"key -> complete step, median of {len(comp)}", statistics.median(comp),
                 "ms", 0.300),
            _row("key -> complete step, p90", _q(comp, 0.9), "ms", 0.500),
            _row("key -> complete step, max", max(comp), "ms"),
            _row("key -> complete step, spread of run medians",
                 max(per_run) - min(per_run), "ms"),
            _row("key -> painted (next frame), median",
                 statistics.median(r["painted"] for r in st), "ms"),
            _row("key -> first websocket frame, median",
                 statistics.median(r["first_msg"] for r in st), "ms"),
            _row("steps whose text and plots changed in one frame",
                 sum(r["atomic"] for r in st) / len(st), "x", None),
            _row("websocket frames per step, median",
                 statistics.median(r["frames"] for r in st), "n"),
            _row("kB per step, median", statistics.median(r["kb"] for r in st), "n"),
            _row("server CPU per step, median", statistics.median(r["cpu"] for r in st),
                 "ms"),
            _row("open the lesson link -> complete step 1 (worst)",
                 max(x for run in steps for x in run["open"]), "s", 3.0),
            _row("link to step 8 in a new page -> complete (worst)",
                 max(x for run in steps for x in run["link8"]), "s", 3.0),
        ]
    return rows


def _print(cond, rows, load):
    from _served import print_table

    print_table(f"{cond} machine (load average during the runs: {load:.1f} on "
                f"{os.cpu_count()} cores)", [(cond, rows)])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--passes", type=int, default=2, help="forward-and-back passes per run")
    ap.add_argument("--conditions", nargs="+", default=["quiet", "loaded"],
                    choices=["quiet", "loaded"])
    ap.add_argument("--each", action="store_true", help="print every step's figures")
    ap.add_argument("--log", default=None, help="write the servers' output here")
    args = ap.parse_args(argv)
    expect = expected_steps(LESSON)
    results = {c: {"steps": [], "loads": []} for c in args.conditions}
    for rep in range(args.repeats):
        for cond in args.conditions:
            with Hogs(cond == "loaded"):
                time.sleep(1.0)
                r = results[cond]
                print(f"[{rep + 1}/{args.repeats}] {cond}: steps in chromium ...", flush=True)
                run = run_steps(expect, args.passes, log=args.log)
                r["steps"].append(run)
                r["loads"].append(os.getloadavg()[0])
                if args.each:
                    for x in run["steps"]:
                        print(f"  step {x['step']:2d}: complete {x['complete'] * 1e3:5.0f} ms,"
                              f" painted {x['painted'] * 1e3:5.0f} ms, {x['frames']} frames,"
                              f" {x['kb']:.0f} kB, server CPU {x['cpu'] * 1e3:.0f} ms",
                              flush=True)
    for cond in args.conditions:
        r = results[cond]
        load = statistics.mean(r["loads"]) if r["loads"] else os.getloadavg()[0]
        _print(cond, summarize(r["steps"]), load)


if __name__ == "__main__":
    main()
