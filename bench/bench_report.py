"""Benchmark of the offline HTML report (``llrlab report``) at 10^7 trials, in chromium.

Builds the report of an eval set of ``--trials`` trials (10 % targets), calibrated with an
affine map trained on a dev set of the same size: three score sets (eval, dev, eval before
calibration), as ``llrlab report SCORES KEY --dev DEV KEY --calibrate affine`` writes it.
Prints

* the file size (target: under 5 MB) and the time to build it, beside one ``numpy.sort`` of
  the eval scores measured in the same run;
* the latency in chromium (headless, offline, the file opened from disk) from a mouse move
  dragging the operating point on the NBER plot to the updated metrics table, over
  ``--moves`` moves (default 100): from the ``pointermove`` event's time stamp to the
  table's DOM mutation, and to the next animation frame after it (the frame that paints it);
  median and 90th percentile (target: 16 ms, one frame at 60 Hz).  The same run measures a
  reference page in which a ``pointermove`` listener writes one table cell: what the
  browser itself costs for an event and a DOM change.

Usage: python bench/bench_report.py [--trials 1e7] [--moves 100] [--out report.html]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _served import CHROMIUM, FLAGS

#: Installed in the page: stamps every pointermove and the first table mutation after it.
PROBE = """(selector) => {
  window.__moves = []; window.__start = []; window.__dom = []; window.__frame = [];
  window.addEventListener("pointermove", (e) => {
    window.__moves.push(e.timeStamp); window.__start.push(performance.now()); },
    {capture: true});
  const target = document.querySelector(selector);
  new MutationObserver(() => {
    const k = window.__moves.length;
    if (k === 0 || window.__dom.length >= k) { return; }
    window.__dom.push(performance.now());
    requestAnimationFrame(() => { window.__frame.push(performance.now()); });
  }).observe(target, {subtree: true, childList: true, characterData: true});
}"""

REFERENCE_PAGE = """<!DOCTYPE html><html><body style="margin:0">
<div id="pad" style="width:1400px;height:600px;background:#eee"></div>
<table id="t"><tr><td id="c">0</td></tr></table>
<script>
document.getElementById("pad").addEventListener("pointermove", (e) => {
  document.getElementById("c").textContent = (e.clientX / 7).toFixed(4);
});
</script></body></html>"""


def gaussian(n, seed):
    from llrlab.core import gaussian_trials

    return gaussian_trials(n // 10, n - n // 10, seed=seed, scale=1.8, shift=-1.2)


def build(n, path):
    from llrlab.core import analyze
    from llrlab.core.calibration import fit_calibrator
    from llrlab.dashboard.report import report_html, write_report
    from llrlab.dashboard.report_cli import _sets_calibrated

    ev, dev = gaussian(n, 2), gaussian(n, 1)
    t = time.perf_counter()
    np.sort(ev.scores)
    t_sort = time.perf_counter() - t
    t = time.perf_counter()
    cal = fit_calibrator(dev, method="affine")
    sets = _sets_calibrated(analyze(ev), ev, analyze(dev), dev, cal)  # as llrlab report
    t_analysis = time.perf_counter() - t
    t = time.perf_counter()
    text = report_html(sets, calibration=cal)
    write_report(path, text)
    t_html = time.perf_counter() - t
    return os.path.getsize(path), t_sort, t_analysis, t_html


def nber_region(page):
    """Viewport coordinates (x0, x1, y) across the middle of the NBER plot (scrolled into
    view)."""
    x0, x1, y = page.evaluate("""() => {
        const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('nber'));
        v.el.scrollIntoView({block: "center"});
        const r = v.canvas_view.el.getBoundingClientRect();
        const f = v.frame.bbox;
        return [r.x + f.left, r.x + f.right, r.y + (f.top + f.bottom) / 2]; }""")
    return x0 + 0.1 * (x1 - x0), x0 + 0.9 * (x1 - x0), y


def latencies(page, url, selector, region, moves):
    """Drag across ``region(page)`` = (x0, x1, y) in ``moves`` steps; return the per-move
    latencies (ms) to the DOM update and to the next frame."""
    page.goto(url)
    page.wait_for_timeout(1500)
    page.evaluate(PROBE, selector)
    x0, x1, y = region(page)
    page.mouse.move(x0 - 30, y)
    page.mouse.down()
    page.mouse.move(x0, y, steps=3)  # past the pan gesture's start threshold
    page.wait_for_timeout(300)
    page.evaluate("() => { window.__moves = []; window.__start = []; window.__dom = []; "
                  "window.__frame = []; }")
    for k in range(moves):
        x = x0 + (x1 - x0) * (k + 1) / moves
        page.mouse.move(x, y)
        try:
            page.wait_for_function("(k) => window.__frame.length >= k", arg=k + 1,
                                   timeout=10_000)
        except Exception:
            state = page.evaluate("() => [window.__moves.length, window.__dom.length, "
                                  "window.__frame.length]")
            raise RuntimeError(f"no table update after move {k + 1} of {url} "
                               f"(pointermoves, updates, frames: {state})") from None
        page.wait_for_timeout(20)
    page.mouse.up()
    m, st, d, f = page.evaluate(
        "() => [window.__moves, window.__start, window.__dom, window.__frame]")
    # a move may fire several pointermove events (coalesced); each table update is matched
    # with the last event dispatched before it
    out = {"input->DOM": [], "dispatch->DOM": [], "input->frame": []}
    for td, tf in zip(d, f, strict=False):
        k = max((i for i, t in enumerate(st) if t <= td), default=None)
        if k is not None:
            out["input->DOM"].append(td - m[k])
            out["dispatch->DOM"].append(td - st[k])
            out["input->frame"].append(tf - m[k])
    return out


def pct(values, q):
    v = sorted(values)
    return v[min(int(q * len(v)), len(v) - 1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=float, default=1e7)
    ap.add_argument("--moves", type=int, default=100)
    ap.add_argument("--out", default=None, help="keep the report here")
    args = ap.parse_args()
    n = int(args.trials)
    tmp = tempfile.mkdtemp(prefix="llrlab-bench-")
    path = args.out or os.path.join(tmp, "report.html")
    size, t_sort, t_analysis, t_html = build(n, path)
    print(f"report of {n:,} eval + {n:,} dev trials (3 score sets): {size / 1e6:.2f} MB "
          f"(target < 5 MB)")
    print(f"  numpy.sort of the eval scores {t_sort:.2f} s; analyses and calibration "
          f"{t_analysis:.2f} s ({t_analysis / t_sort:.1f} x sort); page {t_html:.2f} s "
          f"({t_html / t_sort:.1f} x sort)")

    ref = os.path.join(tmp, "reference.html")
    with open(ref, "w", encoding="utf-8") as f:
        f.write(REFERENCE_PAGE)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        ctx = b.new_context(viewport={"width": 1500, "height": 1300}, offline=True)
        page = ctx.new_page()
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                   else r.abort())
        url = Path(path).as_uri()
        rows = []
        for name, u, sel, reg in (
                ("offline report, NBER drag", url, "#llrlab-table", nber_region),
                ("reference: listener writes a cell", Path(ref).as_uri(), "#t",
                 lambda _page: (50, 1350, 300))):
            rows.append((name, latencies(page, u, sel, reg, args.moves)))
        b.close()
    print(f"\nlatency from a mouse move to the updated table, {args.moves} moves, in ms "
          f"(target 16 ms); input: the event's time stamp, dispatch: its handler starts, "
          f"DOM: the table changed, frame: the next animation frame after it")
    keys = ("input->DOM", "dispatch->DOM", "input->frame")
    print(f"{'page':36}{'n':>5}" + "".join(f"{k + ' med':>19}{'p90':>7}" for k in keys))
    for name, lat in rows:
        print(f"{name:36}{len(lat[keys[0]]):5d}" + "".join(
            f"{statistics.median(lat[k]):19.2f}{pct(lat[k], 0.9):7.2f}" for k in keys))
    for k in keys:
        print(f"ratio report / reference, {k} (medians): "
              f"{statistics.median(rows[0][1][k]) / statistics.median(rows[1][1][k]):.2f}")


if __name__ == "__main__":
    main()
