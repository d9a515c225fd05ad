"""Benchmark: a lecture from the lecture page of ``llrlab serve`` with a class following it,
on a quiet and on a loaded machine.

One ``llrlab serve`` (a separate process, the demo data) for the whole run.  The lecturer's
dashboard is opened in headless chromium (1280 x 720) at ``?lesson=calibration`` and its
"Lecture page" button pressed: the lecture page, led from the dashboard's channel
(:mod:`llrlab.dashboard.lecture_routes`); the dashboard's tab is then hidden, as a real
browser hides a tab behind another.  Then, under each condition ("quiet": the machine
as it is; "loaded": one busy Python process per core, started and stopped by this script),
interleaved ``--repeats`` times:

* **open**: a new chromium page opens the class's link -> the lesson's step is complete and
  painted (BokehJS idle, the step shown); the first opening (the server makes the page) is
  reported on its own;
* **step**: on the lecturer's page, PageDown through every step and PageUp back: key press
  -> the new step shown and painted (two animation frames), timed in the page with
  ``performance.now()``;
* **class**: ``--clients`` light clients (Tornado's HTTP client, no browser: what a
  student's browser asks of the server) open the class's link, started evenly over
  ``--spread`` seconds (open -> the whole page received, compressed as the browser gets
  it), then each long-polls the lecture's position; the lecturer presses PageDown
  ``--moves`` times (1.5 s apart): key press -> each client has the new step.  Also the
  server's CPU seconds for the whole class phase.

Then (``--parts demo``: this part alone, no browser), under each condition, interleaved
``--demo-repeats`` times, for the demo dashboard (``/``: the served dashboard with the demo
data, the drag computed in the page) and a lesson's link.  By default each such class
opens a server of its own started as a lecturer starts it for a class, ``llrlab serve
--class N`` (N = ``--class-pages``, default ``--clients``; a lesson's class: with
``--lesson calibration``, at its printed link ``/``), once its N pages are made (made on
the quiet machine; the time and the server CPU this took are reported); with
``--class-pages 0`` the lecture part's server, its pages made on demand (``/`` and
``/?lesson=calibration``):

* **ready**: ``--clients`` light clients (``_served.LightClient``: what a browser asks of the
  server on Bokeh's websocket protocol -- the page's HTML, the websocket, PULL-DOC, "document
  ready", then the patches), started evenly over ``--spread`` seconds; a client is *ready*
  when the metrics table has arrived with numbers (its eval act. DCF cell holds a number,
  in the pulled document or a later patch): from its ``GET`` to the arrival of that message.
  Also the time to the drag's grid (the ``op_grid`` source's points, sent ``GRID_DELAY``
  after the analyses: from then on the page drags by itself) and the server's CPU seconds
  for opening the class;
* **pause**: each client then sends ``--pauses`` times the one message a drag's pause sends
  (the drag channel's ``data = {x, y, n}``, :data:`llrlab.dashboard.op_grid_script.
  SERVED_DRAG`), at a new prior log-odds in [-6, 2] each time; in each round every client
  sends one, started evenly over ``--pause-spread`` seconds in a random order.  Pause ->
  exact values: until the client has the server's answer for that point (the NBER line's
  location at exactly ``x`` and the metrics table redrawn).  Server CPU per pause: the
  server's CPU seconds over the pause rounds divided by the pauses sent (and the same less
  the CPU the idle sessions use, measured for 3 s before);
* the server's RSS before the class opens and with the forty sessions open (after their
  grids), and this script's own CPU (its clients decode every message, so on 2 cores they
  compete with the server).

Targets (issue 19, items 1 and 8; issue 20, item 4): key press -> complete step median <=
300 ms, p90 <= 500 ms; page open -> complete step <= 3 s; 40 clients opening within 10 s:
ready p90 <= 10 s (the lecture page and the demo dashboard); a step change reaching every
follower within 1 s at p90; server CPU per drag pause about 0 (a few ms).

Usage::

    python bench/bench_lecture.py [--repeats 5] [--clients 40] [--spread 10] [--moves 5]
                                  [--conditions quiet loaded] [--parts lecture demo]
                                  [--demo-repeats 3] [--pauses 5] [--pause-spread 4]
                                  [--links demo lesson] [--class-pages N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _served import Hogs, Server, demo_client, pause
from _timing import load_average

CHROMIUM = "/usr/bin/chromium"

#: Key press -> the new step shown (the page shows a step once its figures are drawn, see
#: ``lecture._LAZY_SCRIPT``), then two animation frames: painted.
KEY_TO_PAINT = """(key) => new Promise((resolve) => {
  const before = llrlabLecture.current(), t0 = performance.now();
  document.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true}));
  const painted = () => requestAnimationFrame(() => requestAnimationFrame(() =>
      resolve({ms: performance.now() - t0, step: llrlabLecture.current()})));
  const wait = () => {
    if (llrlabLecture.current() !== before || performance.now() - t0 > 20000) { painted(); }
    else { setTimeout(wait, 2); }
  };
  wait();
})"""
READY = ("() => window.llrlabLecture != null && llrlabLecture.current() > 0"
         " && window.Bokeh != null && Bokeh.documents.length > 0"
         " && Bokeh.documents[0].is_idle")


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))]


def summary(values, unit="ms"):
    if not values:
        return "-"
    f, d = {"ms": (1000.0, 1), "n": (1.0, 0)}.get(unit, (1.0, 2))
    return (f"{f * statistics.median(values):7.{d}f} {f * pct(values, 0.9):7.{d}f} "
            f"{f * min(values):7.{d}f} {f * max(values):7.{d}f}  (n={len(values)})")


async def open_page(browser, url):
    """A new page at ``url``: seconds to the step complete and painted."""
    page = await browser.new_page(viewport={"width": 1280, "height": 720})
    t0 = time.perf_counter()
    await page.goto(url, timeout=180_000)
    await page.wait_for_function(READY, timeout=180_000, polling=20)
    await page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                        "requestAnimationFrame(r)))")
    return page, time.perf_counter() - t0


async def steps(lead, n):
    """Key press -> painted step for PageDown through the lesson and PageUp back (ms)."""
    out = []
    await lead.evaluate("llrlabLecture.show(1)")
    await lead.wait_for_timeout(500)
    for key in ["PageDown"] * (n - 1) + ["PageUp"] * (n - 1):
        r = await lead.evaluate(KEY_TO_PAINT, key)
        out.append(r["ms"] / 1000)
        await lead.wait_for_timeout(250)
    return out


async def a_class(lead, link, clients, spread, moves):
    """Light clients open the class link and follow ``moves`` PageDowns of the lecturer."""
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=clients + 10)
    http = AsyncHTTPClient()
    q = parse_qs(urlsplit(link).query)
    base = link.split("/lecture", 1)[0]
    channel = q["channel"][0]
    opened, arrivals, stop = [], {}, asyncio.Event()
    await lead.evaluate("llrlabLecture.show(1)")

    async def student(i):
        await asyncio.sleep(spread * i / clients)
        t0 = time.perf_counter()
        r = await http.fetch(link, request_timeout=120, decompress_response=True)
        assert r.code == 200 and b"llrlabLecture" in r.body
        opened.append(time.perf_counter() - t0)
        version = -1
        while not stop.is_set():
            r = await http.fetch(f"{base}/lecture-position?channel={channel}&since={version}",
                                 request_timeout=60)
            p = json.loads(r.body)
            if p["version"] != version:
                version = p["version"]
                arrivals.setdefault(p["step"], []).append(time.perf_counter())

    tasks = [asyncio.create_task(student(i)) for i in range(clients)]
    while len(opened) < clients:
        await asyncio.sleep(0.1)
        if any(t.done() and t.exception() for t in tasks):
            raise next(t.exception() for t in tasks if t.done() and t.exception())
    await asyncio.sleep(1.0)
    delays = []
    for k in range(2, 2 + moves):
        pressed = time.perf_counter()
        await lead.evaluate(KEY_TO_PAINT, "PageDown")
        while len(arrivals.get(k, ())) < clients and time.perf_counter() - pressed < 20:
            await asyncio.sleep(0.01)
        delays += [t - pressed for t in arrivals.get(k, ())]
        delays += [20.0] * (clients - len(arrivals.get(k, ())))  # never arrived
        await asyncio.sleep(1.5)
    stop.set()
    await lead.evaluate("llrlabLecture.show(1)")  # wakes the waiting polls
    await asyncio.wait(tasks, timeout=30)
    return opened, delays


async def demo_class(server, url, clients, spread, rounds, pause_spread, seed=0):
    """``clients`` light clients open ``url`` (started evenly over ``spread`` s), then send
    ``rounds`` drag pauses each (in each round every client once, started evenly over
    ``pause_spread`` s in a random order).  Returns a dict of lists and numbers (see
    :func:`demo`'s rows)."""
    import numpy as np
    import psutil
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=clients + 10)
    rng = np.random.default_rng(seed)
    me = psutil.Process()
    rss0, cpu0, own0 = server.rss_mb(), server.cpu(), sum(me.cpu_times()[:2])
    got = await asyncio.gather(*(demo_client(url, spread * i / clients)
                                 for i in range(clients)))
    opened = server.cpu() - cpu0
    out = {"ready": [g[1] for g in got], "grid": [g[2] for g in got if g[2] is not None],
           "no_grid": [sum(g[2] is None for g in got)], "open_cpu": [opened], "rss0": [rss0]}
    group = [g[0] for g in got]
    await asyncio.sleep(2.0)
    out["rss"] = [server.rss_mb()]
    c0, t0 = server.cpu(), time.perf_counter()
    await asyncio.sleep(3.0)
    idle = (server.cpu() - c0) / (time.perf_counter() - t0)  # CPU seconds per second
    latencies, missing, sent = [], 0, 0
    c0, t0 = server.cpu(), time.perf_counter()
    for r in range(rounds):
        order = rng.permutation(clients)
        # a point on the grid of the in-page drag or between its points, in the plot's range
        xs = np.round(rng.uniform(-6.0, 2.0, clients), 3)

        async def one(k, i, r=r, xs=xs):
            await asyncio.sleep(pause_spread * k / clients)
            return await pause(group[i], float(xs[i]), r + 1)

        for t in await asyncio.gather(*(one(k, i) for k, i in enumerate(order))):
            sent += 1
            if t is None:
                missing += 1
            else:
                latencies.append(t)
    cpu, wall = server.cpu() - c0, time.perf_counter() - t0
    out.update(pause=latencies, missing=[missing], idle=[idle],
               pause_cpu=[cpu / sent], pause_cpu_net=[max(cpu - idle * wall, 0.0) / sent],
               own=[sum(me.cpu_times()[:2]) - own0])
    await asyncio.gather(*(c.close() for c in group))
    return out


async def lecture(server, args):
    """The lecture page's measurements (chromium and the class's light clients)."""
    from playwright.async_api import async_playwright

    from llrlab.dashboard.lessons import builtin_lessons

    n = len(builtin_lessons()["calibration"])
    results = {c: {"open": [], "step": [], "ready": [], "follow": [], "cpu": []}
               for c in args.conditions}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM,
                                           args=["--no-sandbox"])
        dash = await browser.new_page(viewport={"width": 1280, "height": 720})
        await dash.goto(server.url + "?lesson=calibration&step=1", timeout=180_000)
        button = dash.locator(".bk-btn", has_text="Lecture page")
        await button.wait_for(timeout=180_000)
        t0 = time.perf_counter()
        async with dash.context.expect_page() as info:
            await button.click()
        lead = await info.value
        await lead.set_viewport_size({"width": 1280, "height": 720})
        await lead.wait_for_function(READY, timeout=180_000, polling=50)
        first = time.perf_counter() - t0
        # the dashboard's tab is behind the lecture page, as in a real browser (headless
        # chromium shows every page)
        await dash.evaluate("""() => {
            Object.defineProperty(document, 'hidden', {value: true, configurable: true});
            document.dispatchEvent(new Event('visibilitychange'));
        }""")
        links = []
        lead.once("dialog", lambda d: (links.append(d.default_value),
                                       asyncio.ensure_future(d.dismiss())))
        await lead.wait_for_function(
            "() => !document.getElementById('llrlab-class').hidden", timeout=30_000)
        await lead.click("#llrlab-class")
        while not links:
            await asyncio.sleep(0.05)
        link = links[0]
        print(f"first opening of the lecture page (the server makes it): {first:.1f} s;"
              f" load average {load_average()}")
        for rep in range(args.repeats):
            for cond in args.conditions:
                with Hogs(cond == "loaded"):
                    r = results[cond]
                    page, t = await open_page(browser, link)
                    r["open"].append(t)
                    await page.close()
                    r["step"] += await steps(lead, n)
                    cpu0 = server.cpu()
                    opened, delays = await a_class(lead, link, args.clients, args.spread,
                                                   args.moves)
                    r["cpu"].append(server.cpu() - cpu0)
                    r["ready"] += opened
                    r["follow"] += delays
                print(f"  repeat {rep + 1} {cond}: load average {load_average()}",
                      flush=True)
        await browser.close()
    print(f"\nlecture page, {args.clients} light clients over {args.spread:g} s, "
          f"{args.moves} moves; load average at end {load_average()}")
    print(f"{'measurement':40} {'cond':7} {'median':>7} {'p90':>7} {'min':>7} {'max':>7}")
    rows = [("key press -> painted step (ms)", "step", "ms", "<= 300 / p90 <= 500"),
            ("open class link -> painted step (ms)", "open", "ms", "<= 3000"),
            ("class: open -> page received (ms)", "ready", "ms", "p90 <= 10000"),
            ("class: key press -> step at client (ms)", "follow", "ms", "p90 <= 1000"),
            ("class phase: server CPU (s)", "cpu", "s", "")]
    for title, key, unit, target in rows:
        for cond in args.conditions:
            print(f"{title:40} {cond:7} {summary(results[cond][key], unit)}  {target}")


#: The demo dashboard's links a class opens (issue 20 item 4).
DEMO_LINKS = (("demo", "/"), ("lesson", "/?lesson=calibration"))


async def class_server(name, pages, log):
    """A server of its own for a class on link ``name`` with ``pages`` made in advance
    (``llrlab serve --class``; a lesson's class: ``--lesson calibration``, the printed link),
    once they are made: ``(server, seconds, server CPU seconds)`` of making them."""
    opts = ["--class", str(pages)] + (["--lesson", "calibration"] if name == "lesson" else [])
    server = Server(opts, log=log)
    t0 = time.perf_counter()
    server.wait()
    await asyncio.to_thread(server.wait_line, "made for a class")
    return server, time.perf_counter() - t0, server.cpu()


async def demo(server, args):
    """Forty light clients on the demo dashboard and a lesson's link, with drag pauses."""
    import tempfile

    links = [(name, path) for name, path in DEMO_LINKS if name in args.links]
    results = {(name, c): {} for name, _ in links for c in args.conditions}
    for rep in range(args.demo_repeats):
        for cond in args.conditions:
            for name, path in links:
                own = None
                if args.class_pages:  # the pages made on a quiet machine, before the class
                    log = tempfile.NamedTemporaryFile(suffix=".log", delete=False).name
                    own, made, made_cpu = await class_server(name, args.class_pages, log)
                    results[(name, cond)].setdefault("made", []).append(made)
                    results[(name, cond)].setdefault("made_cpu", []).append(made_cpu)
                try:
                    with Hogs(cond == "loaded"):
                        target = own or server
                        url = target.url if own else target.url.rstrip("/") + path
                        out = await demo_class(target, url, args.clients, args.spread,
                                               args.pauses, args.pause_spread, seed=rep)
                finally:
                    if own is not None:
                        own.stop()
                        os.unlink(own.log_path)
                for k, v in out.items():
                    results[(name, cond)].setdefault(k, []).extend(v)
                print(f"  demo repeat {rep + 1} {cond} {name}: ready p90 "
                      f"{pct(out['ready'], 0.9):.2f} s, grid p90 "
                      f"{pct(out['grid'] or [float('nan')], 0.9):.2f} s (missing "
                      f"{out['no_grid'][0]}), pause median "
                      f"{1e3 * statistics.median(out['pause'] or [float('nan')]):.0f} ms, "
                      f"server CPU per pause {1e3 * out['pause_cpu'][0]:.1f} ms, RSS "
                      f"{out['rss0'][0]:.0f} -> {out['rss'][0]:.0f} MB; load average "
                      f"{load_average()}", flush=True)
    made = (f"{args.class_pages} pages made in advance (llrlab serve --class "
            f"{args.class_pages}; a lesson: --lesson calibration, its printed link)"
            if args.class_pages else "pages made on demand")
    print(f"\ndemo dashboard, {made}")
    print(f"{args.clients} light clients over {args.spread:g} s, then "
          f"{args.pauses} drag pauses each ({args.clients} over {args.pause_spread:g} s per "
          f"round), {args.demo_repeats} repeats; load average at end {load_average()}")
    print(f"{'measurement':46} {'link':6} {'cond':7} {'median':>7} {'p90':>7} {'min':>7} "
          f"{'max':>7}")
    rows = [("pages made in advance: time (s)", "made", "s", ""),
            ("  their server CPU (s)", "made_cpu", "s", ""),
            ("open -> table with numbers (ms)", "ready", "ms", "p90 <= 10000"),
            ("open -> drag's grid received (ms)", "grid", "ms", ""),
            ("clients without the grid (300 s)", "no_grid", "n", "0"),
            ("opening the class: server CPU (s)", "open_cpu", "s", ""),
            ("pause -> exact values at client (ms)", "pause", "ms", ""),
            ("pauses never answered (20 s)", "missing", "n", "0"),
            ("server CPU per pause (ms)", "pause_cpu", "ms", "a few ms"),
            ("  the same, less the idle sessions' CPU (ms)", "pause_cpu_net", "ms", ""),
            ("idle server with the class (CPU s per s)", "idle", "x", ""),
            ("server RSS before the class (MB)", "rss0", "n", ""),
            ("server RSS with the class (MB)", "rss", "n", ""),
            ("this script's own CPU, whole run (s)", "own", "s", "")]
    for title, key, unit, target in rows:
        for name, _ in links:
            for cond in args.conditions:
                print(f"{title:46} {name:6} {cond:7} "
                      f"{summary(results[(name, cond)].get(key, []), unit)}  {target}")


async def main(args):
    print(f"# bench_lecture: {os.cpu_count()} cores, load average at start {load_average()}")
    with Server(log=args.log) as server:
        server.wait()
        if "lecture" in args.parts:
            await lecture(server, args)
        if "demo" in args.parts:
            await demo(server, args)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--clients", type=int, default=40)
    ap.add_argument("--spread", type=float, default=10.0)
    ap.add_argument("--moves", type=int, default=5)
    ap.add_argument("--conditions", nargs="+", default=["quiet", "loaded"],
                    choices=["quiet", "loaded"])
    ap.add_argument("--parts", nargs="+", default=["lecture", "demo"],
                    choices=["lecture", "demo"])
    ap.add_argument("--demo-repeats", type=int, default=3)
    ap.add_argument("--links", nargs="+", default=[n for n, _ in DEMO_LINKS],
                    choices=[n for n, _ in DEMO_LINKS],
                    help="the demo part's links: the demo dashboard, a lesson's link")
    ap.add_argument("--class-pages", type=int, default=None,
                    help="the demo part: pages made in advance (llrlab serve --class N, "
                         "a server of its own per link, condition and repeat); default: "
                         "--clients; 0: one server, pages made on demand")
    ap.add_argument("--pauses", type=int, default=5, help="drag pauses per demo client")
    ap.add_argument("--pause-spread", type=float, default=4.0,
                    help="seconds over which a round's pauses (one per client) start")
    ap.add_argument("--log", default=None, help="write the server's output to this file")
    parsed = ap.parse_args()
    if parsed.class_pages is None:
        parsed.class_pages = parsed.clients
    asyncio.run(main(parsed))
