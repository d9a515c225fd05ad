"""Ten browser sessions on one server while one of them uploads a hostile file.

Starts ``llrlab serve`` (the demo, localhost only) as a separate process and opens N pages
in headless chromium, each in a context of its own (its own session).  N - 1 pages "drag"
the operating point: a script in the page writes a new prior log-odds into the NBER plot's
drag channel every 100 ms (what a drag does) and times how long the server takes to move the
operating-point line (``op_span``) there -- the round trip of one drag.  The last page
uploads a labelled file with one distinct condition name per pair of trials (``--conditions``
of them) and presses Load.

Phases: *before* (the nine drag, nothing else happens), *hostile* (from pressing Load until
that page shows the loaded data or an error, or ``--timeout``), *after* (a few seconds
more).  Per phase: drags answered, median / 90th percentile / largest round trip, and the
longest wait without an answer in any page (staleness); plus the server's largest resident
memory, and the round trip of a tiny static request (the event loop's responsiveness).

Usage: ``python bench/bench_sessions.py [--sessions 10] [--conditions 1000000]
[--timeout 600] [--phase-seconds 10]``.  Needs the ``llrlab`` console script next to this
Python (a venv with llrlab installed), the playwright package and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _served import CHROMIUM, FLAGS, Server

LLRLAB = Path(sys.executable).parent / "llrlab"

#: Runs in each dragging page: one drag in flight at a time, at most one every 100 ms.
DRAG_JS = """
() => {
  const doc = Bokeh.documents[0];
  const channel = doc.get_model_by_name('nber_drag');
  const span = doc.get_model_by_name('op_span');
  const targets = [-4.0, -2.5, -3.25, -1.75];
  const d = window.__drag = {lat: [], pending: null, target: null, i: 0, stop: false,
                            last: performance.now()};
  span.properties.location.change.connect(() => {
    if (d.pending !== null && Math.abs(span.location - d.target) < 1e-9) {
      const now = performance.now();
      d.lat.push([d.pending, now - d.pending]);
      d.pending = null;
      d.last = now;
    }
  });
  d.timer = setInterval(() => {
    if (d.stop || d.pending !== null) { return; }
    const now = performance.now();
    if (d.lat.length && now - d.lat[d.lat.length - 1][0] < 100) { return; }
    d.i += 1;
    d.target = targets[d.i % targets.length] + 1e-6 * d.i;
    d.pending = now;
    channel.data = {x: [d.target], y: [0.5]};
  }, 10);
}
"""


def make_hostile_file(path, n_conditions, seed=0):
    """A labelled CSV with ``n_conditions`` distinct condition names, two trials each (one
    target, one non-target); returns its size in bytes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    tar = rng.normal(2.0, 1.5, n_conditions)
    non = rng.normal(-2.0, 1.5, n_conditions)
    with open(path, "w") as f:
        f.write("score,label,condition\n")
        block = 50_000
        for lo in range(0, n_conditions, block):
            hi = min(lo + block, n_conditions)
            f.write("".join(f"{tar[i]:.4f},target,c{i:07d}\n{non[i]:.4f},nontarget,c{i:07d}\n"
                            for i in range(lo, hi)))
    return os.path.getsize(path)


class Probe(threading.Thread):
    """Samples the server's memory and the round trip of a small static file."""

    def __init__(self, server, interval=0.5):
        super().__init__(daemon=True)
        self.server, self.interval = server, interval
        self.samples = []  # (time, rss MB, static round trip s or None)
        self.halt = threading.Event()

    def run(self):
        url = self.server.url + "static/js/bokeh.min.js"
        while not self.halt.is_set():
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(urllib.request.Request(
                        url, method="HEAD"), timeout=60) as r:
                    r.read()
                rt = time.monotonic() - t0
            except OSError:
                rt = None
            self.samples.append((t0, self.server.rss_mb(), rt))
            self.halt.wait(self.interval)


def _route(route):
    host = route.request.url.split("/")[2].split(":")[0]
    if host in ("127.0.0.1", "localhost"):
        route.continue_()
    else:
        route.abort()


def open_pages(browser, url, n, timeout=300):
    """``n`` pages in contexts of their own, each showing the dashboard's plots."""
    pages = []
    for _ in range(n):
        ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
        page = ctx.new_page()
        page.route("**/*", _route)
        page.set_default_timeout(timeout * 1000)
        page.goto(url, wait_until="commit")
        pages.append(page)
    deadline = time.monotonic() + timeout
    for page in pages:
        while True:
            ok = page.evaluate("() => !!(window.Bokeh && Bokeh.documents.length && "
                               "Bokeh.documents[0].get_model_by_name('op_span'))")
            if ok and page.locator(".bk-Canvas").count() >= 4:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the pages did not render")
            page.wait_for_timeout(200)
    return pages


def upload(page, path, timeout=300):
    """Choose ``path`` in the page's scores upload widget, wait until the browser has sent
    it (FilePond says "Upload complete") and press Load."""
    page.get_by_text("Upload files").first.click()
    inputs = page.locator("input[type=file]")
    inputs.nth(0).set_input_files(str(path))
    page.get_by_text("Upload complete").first.wait_for(timeout=1000 * timeout)
    page.locator(".bk-btn", has_text="Load uploaded file").first.click()


#: The page's visible markup (status line, upload status, alerts, data summary), as plain
#: text from its Bokeh document, what FilePond says of its files, and the notifications
#: shown (e.g. Panel's "connection lost").  Panel sends markup
#: HTML-escaped: it is decoded, then its tags dropped.
PAGE_TEXT_JS = """
() => {
  const plain = (h) => new DOMParser().parseFromString(h, 'text/html').documentElement
                                      .textContent;
  const texts = [], errors = [];
  for (const m of Bokeh.documents[0]._all_models.values()) {
    if (!m.visible || typeof m.text !== 'string' || m.text === '' ||
        !m.type.startsWith('panel.models.markup')) { continue; }
    const t = plain(plain(m.text)).replace(/\\s+/g, ' ').trim().slice(0, 300);
    texts.push(t);
    if ((m.css_classes || []).includes('alert-danger')) { errors.push(t); }
  }
  const ponds = [], toasts = [];
  const walk = (root) => {
    for (const item of root.querySelectorAll('.filepond--item')) {
      ponds.push((item.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 200));
    }
    for (const item of root.querySelectorAll('.notyf__message')) {
      toasts.push((item.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 300));
    }
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot != null) { walk(el.shadowRoot); }
    }
  };
  walk(document);
  return {texts: texts.slice(0, 30), errors: errors, filepond: ponds, toasts: toasts};
}
"""


def page_text(page):
    """What the page shows (see PAGE_TEXT_JS), or why it cannot say."""
    try:
        return page.evaluate(PAGE_TEXT_JS)
    except Exception as exc:  # a page that cannot say is itself a finding
        return {"texts": [], "errors": [], "page": f"{type(exc).__name__}: {exc}"[:300]}


def hostile_done(page):
    """'loaded', 'error: <message>' (the page's error bar), 'disconnected: <message>' (the
    page lost its server) or None (still working)."""
    if page.get_by_text("uploaded:", exact=False).count() > 0:
        return "loaded"
    shown = page_text(page)
    if shown["errors"]:
        return "error: " + shown["errors"][0][:120]
    if any("connection" in t.lower() for t in shown.get("toasts", ())):
        return "disconnected: " + next(t for t in shown["toasts"]
                                       if "connection" in t.lower())[:120]
    return None


def drag_records(pages):
    return [p.evaluate("() => ({lat: window.__drag.lat, origin: performance.timeOrigin})")
            for p in pages]


def summarize(records, t_from, t_to):
    """Round trips of drags sent in [t_from, t_to) (epoch seconds) over all pages, and the
    longest wait without an answer (staleness) within the window."""
    lat, stale = [], 0.0
    for r in records:
        origin = r["origin"] / 1000.0
        sent = [(origin + s / 1000.0, ms / 1000.0) for s, ms in r["lat"]]
        inside = [(s, x) for s, x in sent if t_from <= s < t_to]
        lat += [x for _, x in inside]
        # staleness: the longest gap between answers (and the window's ends)
        marks = [t_from, *sorted(s + x for s, x in sent if t_from < s + x < t_to), t_to]
        stale = max(stale, max(b - a for a, b in itertools.pairwise(marks)))
    return lat, stale


def run(*, sessions=10, conditions=200_000, timeout=600.0, phase_seconds=10.0,
        workdir=None, hide=True, log=print, browser=None):
    """Run the scenario; returns a dict of measurements (see the module docstring).
    ``browser``: a Playwright chromium browser to open the pages in (by default one is
    launched; a test suite that holds one already passes it, as Playwright's synchronous API
    cannot run twice at once)."""
    if browser is not None:
        return _run(browser, sessions, conditions, timeout, phase_seconds, workdir, hide, log)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            return _run(b, sessions, conditions, timeout, phase_seconds, workdir, hide, log)
        finally:
            b.close()


def _run(browser, sessions, conditions, timeout, phase_seconds, workdir, hide, log):
    workdir = Path(workdir or tempfile.mkdtemp(prefix="llrlab-bench-"))
    hostile = workdir / "many_conditions.csv"
    size = make_hostile_file(hostile, conditions)
    log(f"hostile file: {conditions:,} conditions, {size / 1e6:.1f} MB")
    server = Server(llrlab=str(LLRLAB), log=str(workdir / "server.log")).wait(timeout)
    probe = Probe(server)
    out = {"conditions": conditions, "file_mb": size / 1e6, "sessions": sessions}
    pages = []
    try:
        t0 = time.monotonic()
        pages = open_pages(browser, server.url, sessions, timeout)
        log(f"{sessions} sessions open in {time.monotonic() - t0:.1f} s")
        draggers, uploader = pages[:-1], pages[-1]
        probe.start()
        for pg in draggers:
            if hide:  # the page keeps its models and websocket, without painting
                pg.evaluate("() => { document.body.style.display = 'none'; }")
            pg.evaluate(DRAG_JS)
        # every page answered once (sessions finish starting) before timing begins
        deadline = time.monotonic() + 300
        for pg in draggers:
            while (pg.evaluate("() => window.__drag.lat.length") < 2
                   and time.monotonic() < deadline):
                pg.wait_for_timeout(100)
        t_start = time.time()
        uploader.wait_for_timeout(1000 * phase_seconds)
        t_load = time.time()
        upload(uploader, hostile, timeout)
        state = None
        while time.time() - t_load < timeout:
            state = hostile_done(uploader)
            if state:
                break
            uploader.wait_for_timeout(250)
        t_done = time.time()
        if state != "loaded":  # where the upload or the load stopped
            out["diagnosis"] = page_text(uploader)
        uploader.wait_for_timeout(1000 * phase_seconds)
        t_end = time.time()
        records = drag_records(draggers)
        for pg in draggers:
            pg.evaluate("() => { window.__drag.stop = true; }")
    finally:
        for pg in pages:
            pg.context.close()
        probe.halt.set()
        server.stop()
    out["load"] = os.getloadavg()[0]
    log_path = Path(server.log_path)
    out["server_log"] = log_path.read_text(errors="replace")[-4000:] if log_path.exists() else ""
    out["hostile_result"] = state or "timeout"
    out["hostile_seconds"] = t_done - t_load
    phases = {"before": (t_start, t_load), "hostile": (t_load, t_done),
              "after": (t_done, t_end)}
    mono_offset = time.time() - time.monotonic()
    for name, (a, b) in phases.items():
        lat, stale = summarize(records, a, b)
        rts = [rt for t, _, rt in probe.samples if a <= t + mono_offset < b and rt is not None]
        out[name] = {
            "seconds": b - a, "drags": len(lat),
            "median_ms": 1000 * statistics.median(lat) if lat else float("nan"),
            "p90_ms": 1000 * _quantile(lat, 0.9), "max_ms": 1000 * max(lat, default=float("nan")),
            "stale_s": stale,
            "static_max_ms": 1000 * max(rts, default=float("nan")),
            "rss_max_mb": max((m for t, m, _ in probe.samples
                               if a <= t + mono_offset < b), default=float("nan")),
        }
    return out


def _quantile(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(int(q * len(xs)), len(xs) - 1)]


def table(out):
    lines = [f"{out['sessions']} sessions; hostile upload: {out['conditions']:,} conditions "
             f"({out['file_mb']:.1f} MB) -> {out['hostile_result']} after "
             f"{out['hostile_seconds']:.1f} s; load average {out['load']:.1f} on "
             f"{os.cpu_count()} cores",
             f"{'phase':<8} {'secs':>6} {'drags':>6} {'median ms':>10} {'p90 ms':>8} "
             f"{'max ms':>8} {'stale s':>8} {'static ms':>10} {'RSS MB':>8}"]
    for name in ("before", "hostile", "after"):
        r = out[name]
        lines.append(f"{name:<8} {r['seconds']:6.1f} {r['drags']:6d} {r['median_ms']:10.1f} "
                     f"{r['p90_ms']:8.1f} {r['max_ms']:8.1f} {r['stale_s']:8.2f} "
                     f"{r['static_max_ms']:10.1f} {r['rss_max_mb']:8.0f}")
    if "diagnosis" in out:
        lines.append(f"the uploading page shows: {out['diagnosis']}")
        lines.append("server log (end):\n" + out["server_log"])
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--conditions", type=int, default=1_000_000)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--phase-seconds", type=float, default=10.0)
    ap.add_argument("--paint", action="store_true",
                    help="let the dragging pages paint (default: hidden, so that the browser's "
                         "rendering on a small machine does not dominate the round trips)")
    a = ap.parse_args()
    out = run(sessions=a.sessions, conditions=a.conditions, timeout=a.timeout,
              phase_seconds=a.phase_seconds, hide=not a.paint)
    print(table(out))


if __name__ == "__main__":
    main()
