"""Dragging on ``llrlab serve`` (a separate process) in chromium: no message while a drag
moves (the page computes it), the final position of a fast drag, press-hold-then-move, and
a page that loads nothing from the network.

The server's websocket messages are counted in the browser (Playwright's websocket frames: a
Bokeh message starts with a JSON header frame naming its ``msgtype``).  The operating point
the server computed is read from the metrics header ("prior log-odds **x**", set only by the
server); the line a drag moved in the browser from the Bokeh models (``op_span``,
``hist_threshold``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from .conftest import (
    PAGE_LOAD,
    SERVER_START,
    bench_module,
    drag_settled,
    model_value,
    quiet,
    scaled,
    settle,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``llrlab serve`` of the demo (console script of this environment)."""
    served = bench_module("_served")
    llrlab = Path(sys.executable).with_name("llrlab")
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    srv = served.Server([], llrlab=str(llrlab), log=str(log))
    try:
        srv.wait(scaled(SERVER_START))
        yield srv
    finally:
        srv.stop()


_SUMMARY = re.compile(r"prior log-odds\s*(-?[0-9]+\.[0-9]+)")




def _server_plo(page):
    """The prior log-odds in the metrics header (three decimals, written by the server)."""
    el = page.locator("text=/prior log-odds/").first
    if el.count() == 0:
        return None
    m = _SUMMARY.search(el.inner_text())
    return None if m is None else float(m.group(1))


def _open(page, url):
    """Open the page, count the server's PATCH-DOC messages (``page.patches``), wait for
    the metrics table with numbers."""
    page.patches, page.sent = [], []

    def on_ws(ws):
        def sent(payload):
            if isinstance(payload, str) and '"msgtype"' in payload[:200]:
                page.sent.append(payload[:200])
            elif isinstance(payload, str) and page.sent:
                page.sent[-1] += payload[:200]

        ws.on("framesent", sent)

        def frame(payload):
            if not isinstance(payload, str):
                return
            if payload.startswith('{"msgid"') \
                    and '"msgtype":"PATCH-DOC"' in payload.replace(" ", ""):
                page.patches.append("")
            elif payload.startswith('{"events"') and page.patches and not page.patches[-1]:
                # what the message changed (model ids and attributes), for the report
                page.patches[-1] = ",".join(
                    f"{e.get('model', {}).get('id')}.{e.get('attr')}"
                    for e in json.loads(payload)["events"])
        ws.on("framereceived", frame)

    page.on("websocket", on_ws)
    page.goto(url)
    wait_until(page, lambda: (page.locator('td[data-role="eval"][data-key="act_dcf"]')
                              .all_inner_texts() or ["x"])[0][:1].isdigit(),
               timeout=PAGE_LOAD, what="the metrics table")
    wait_until(page, lambda: _server_plo(page) is not None, what="the operating point")
    settle(page)


def test_served_page_loads_nothing_from_the_network(server, page):
    _open(page, server.url)
    box = page.locator(".bk-Canvas").nth(0).bounding_box()
    page.mouse.click(box["x"] + 0.4 * box["width"], box["y"] + 0.5 * box["height"])
    page.locator(".bk-tab", has_text="Compare systems").click()
    wait_until(page, lambda: page.locator("tr[data-system]").count() == 2,
               what="the comparison table")
    settle(page)
    assert page.external_requests == []
    bad = [e for e in page.console_errors if "ERR_" in e or "Failed to load" in e]
    assert bad == []


def test_a_drag_costs_no_message_until_it_pauses(server, page):
    """The page computes the drag itself: no message either way while the pointer moves;
    when it pauses, the position goes to the server and its answer comes back."""
    _open(page, server.url)
    box = page.locator(".bk-Canvas").nth(0).bounding_box()
    y = box["y"] + 0.5 * box["height"]
    page.mouse.move(box["x"] + 0.30 * box["width"], y)
    page.mouse.down()
    page.mouse.move(box["x"] + 0.31 * box["width"], y)
    drag_settled(page, "nber")  # the pause: the drag's start went to the server and has landed
    n0, s0, moves = len(page.patches), len(page.sent), 20
    plo0 = _server_plo(page)
    before = model_value(page, "op_label", "text")
    # a steady drag: 20 moves in one go (the driver's steps, a few ms apart)
    page.mouse.move(box["x"] + 0.62 * box["width"], y, steps=moves)
    drags = [m for m in page.sent[s0:] if '"attr":"href"' not in m]
    assert drags == []  # nothing went to the server while the pointer moved
    assert len(page.patches) == n0 and _server_plo(page) == plo0
    assert model_value(page, "op_label", "text") != before  # the page moved the line
    page.wait_for_timeout(300)  # the pause: the position goes to the server,
    quiet(page)                 # and the numbers come back
    assert len(page.sent) - s0 >= 1 and len(page.patches) - n0 >= 1
    line = model_value(page, "op_span", "location")
    assert _server_plo(page) == pytest.approx(line, abs=6e-4)
    page.mouse.up()


def _fast_drag(page, box, fractions, y_frac=0.5):
    y = box["y"] + y_frac * box["height"]
    page.mouse.move(box["x"] + fractions[0] * box["width"], y)
    page.mouse.down()
    for f in fractions[1:]:
        page.mouse.move(box["x"] + f * box["width"], y)  # no waiting: a fast drag
    page.mouse.up()


def test_a_fast_drag_ends_with_the_numbers_at_the_line(server, page):
    _open(page, server.url)
    box = page.locator(".bk-Canvas").nth(0).bounding_box()
    fractions = [0.15 + 0.5 * abs(((k * 0.37) % 2) - 1) for k in range(60)] + [0.55]
    _fast_drag(page, box, fractions)
    # the page drew the line last on the grid point nearest to the pointer; the drag's end
    # sent the pointer's position, and the server puts the line and the numbers there
    grid_line = model_value(page, "op_span", "location")
    wait_until(page, lambda: abs(_server_plo(page) - grid_line) < 1 / 512 + 6e-4,
               what=f"the numbers at the line ({grid_line})")
    quiet(page)  # nothing stale arrives later
    line = model_value(page, "op_span", "location")
    assert abs(line - grid_line) <= 1 / 512
    assert _server_plo(page) == pytest.approx(line, abs=6e-4)


def test_a_fast_histogram_drag_ends_with_the_line_where_the_numbers_are(server, page):
    _open(page, server.url)
    hist = page.locator(".bk-Canvas").nth(3)
    hist.scroll_into_view_if_needed()
    settle(page)
    box = hist.bounding_box()
    plo0 = _server_plo(page)
    fractions = [0.3 + 0.4 * abs(((k * 0.41) % 2) - 1) for k in range(60)] + [0.62]
    _fast_drag(page, box, fractions, y_frac=0.6)
    line = model_value(page, "hist_threshold", "location")
    wait_until(page, lambda: _server_plo(page) not in (None, plo0),
               what="the drag to reach the server")
    quiet(page)
    # the server applied the last position: its threshold is the line the mouse left
    assert model_value(page, "hist_threshold", "location") == pytest.approx(line, abs=1e-6)
    plo = _server_plo(page)
    assert plo is not None and plo != plo0
    nber_line = model_value(page, "op_span", "location")
    assert nber_line == pytest.approx(plo, abs=6e-4)


def test_press_hold_then_move_drags(server, page):
    _open(page, server.url)
    box = page.locator(".bk-Canvas").nth(0).bounding_box()
    y = box["y"] + 0.5 * box["height"]
    # where a plain click at the target puts the point
    target = box["x"] + 0.55 * box["width"]
    page.mouse.click(target, y)
    wait_until(page, lambda: abs(_server_plo(page) - model_value(page, "op_span", "location"))
               < 6e-4, what="the click to reach the server")
    quiet(page)
    expected = _server_plo(page)
    # back elsewhere
    page.mouse.click(box["x"] + 0.2 * box["width"], y)
    wait_until(page, lambda: abs(_server_plo(page) - expected) > 0.5, what="a move away")
    # press, hold 400 ms (a Bokeh "press"), then move to the target and release
    page.mouse.move(box["x"] + 0.25 * box["width"], y)
    page.mouse.down()
    page.wait_for_timeout(400)
    for f in (0.3, 0.4, 0.5):
        page.mouse.move(box["x"] + f * box["width"], y)
        page.wait_for_timeout(30)
    page.mouse.move(target, y)
    page.wait_for_timeout(100)
    page.mouse.up()
    wait_until(page, lambda: abs(_server_plo(page) - expected) < 6e-4,
               what=f"the point at {expected} after press-hold-move")
    # and a later plain hover does not move it
    page.mouse.move(box["x"] + 0.3 * box["width"], y)
    quiet(page)
    assert _server_plo(page) == pytest.approx(expected, abs=6e-4)



def test_served_page_names_no_cdn_even_when_the_environment_asks_for_one(tmp_path):
    import urllib.request

    served = bench_module("_served")
    llrlab = Path(sys.executable).with_name("llrlab")
    with served.Server([], llrlab=str(llrlab), env={"BOKEH_RESOURCES": "cdn"}) as srv:
        srv.wait(scaled(SERVER_START))
        with urllib.request.urlopen(srv.url, timeout=scaled(PAGE_LOAD)) as r:
            html = r.read().decode()
    urls = {u for u in re.findall(r"https?://[^\"'\s)]+", html) if "127.0.0.1" not in u}
    assert urls == set()
    assert "static/js/bokeh.min.js" in html
