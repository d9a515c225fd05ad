"""``llrlab serve --class N``: pages made in advance for a class (dashboard/page_pool.py).

The installed console script in a subprocess, as a lecturer runs it; its pages opened by the
benchmarks' light websocket client (``bench/_served.py``: what a browser asks of the server)
and by chromium.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from .conftest import (
    LLRLAB,
    PAGE_LOAD,
    WAIT,
    bench_module,
    run_apart,
    scaled,
    wait_until,
)

pytestmark = pytest.mark.browser

#: A made page takes 3-5 s of the server on an idle 2-core machine.
MADE_TIMEOUT = 120.0


@pytest.fixture
def served(llrlab_serve):
    return llrlab_serve


def _in_pull(client):
    """Whether the metrics table with numbers came in the pulled document itself."""
    pull = next(m for m in client.messages if m.header["msgtype"] == "PULL-DOC-REPLY")
    return bool(client.table_updates) and client.table_updates[0] <= pull.arrived


def test_class_pages_are_whole_at_once_and_independent(served):
    """Two pages made in advance: each pulled document already holds the analysed demo (the
    metrics table with numbers and the drag's grid), each session answers its own drag
    pause and not the other's; the third page, beyond the class, is made on demand and
    works; a link with choices (a lesson) is never given a made page."""
    s = served("--class", "2")
    s.wait_line("2 pages made for a class", MADE_TIMEOUT)
    client_cls = bench_module("_served").LightClient
    base = f"http://127.0.0.1:{s.port}/"

    async def scenario():
        a, b, c = client_cls(base), client_cls(base), client_cls(base)
        for cl in (a, b, c):
            await cl.open(timeout=scaled(PAGE_LOAD))
        try:
            assert _in_pull(a) and _in_pull(b), "a made page came without its numbers"
            assert a.grid_filled() is not None and b.grid_filled() is not None
            assert not _in_pull(c), "the third page cannot be one made in advance"
            await c.wait_for(c.table_has_numbers, scaled(PAGE_LOAD))
            ids = {cl.models["op_span"] for cl in (a, b, c)}
            assert len(ids) == 3, "two clients got the same page"
            for cl, x in ((a, -1.25), (b, 0.75), (c, -3.5)):
                n = len(cl.table_updates)
                await cl.drag_to(x, n=1)
                await cl.wait_for(lambda cl=cl, x=x, n=n: (cl.change("op_span", "location")
                                                          or (0, None))[1] == x
                                  and len(cl.table_updates) > n, scaled(WAIT))
            # each session moved its own point only
            assert a.change("op_span", "location")[1] == -1.25
            assert b.change("op_span", "location")[1] == 0.75
            lesson = client_cls(base + "?lesson=calibration")
            await lesson.open(timeout=scaled(PAGE_LOAD))
            assert not _in_pull(lesson)
            await lesson.close()
        finally:
            for cl in (a, b, c):
                await cl.close()

    run_apart(scenario)


def test_a_lesson_class_page_is_whole_when_taken(served):
    """``--lesson calibration --class 1``: the made page holds every panel (step 1 shows
    the histogram alone; the metrics table, hidden, is there with its numbers) and the
    folded sidebar, so that taking it leaves the server nothing to add (a lesson's link made
    on demand sends those seconds later, each costing the event loop)."""
    s = served("--lesson", "calibration", "--class", "1")
    s.wait_line("1 page made for a class", MADE_TIMEOUT)
    # the lesson's lecture page is made in advance too: its first opening is a quick one
    s.wait_line("the lecture page /lecture/calibration made in", MADE_TIMEOUT)
    import urllib.request

    t0 = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{s.port}/lecture/calibration",
                                timeout=scaled(WAIT)) as r:
        assert r.status == 200 and b"llrlabLecture" in r.read()
    assert time.monotonic() - t0 < scaled(2.0)
    client_cls = bench_module("_served").LightClient

    async def scenario():
        cl = client_cls(f"http://127.0.0.1:{s.port}/")
        await cl.open(timeout=scaled(PAGE_LOAD))
        try:
            assert _in_pull(cl), "the lesson's made page came without its metrics table"
            pull = next(m for m in cl.messages if m.header["msgtype"] == "PULL-DOC-REPLY")
            assert "Calibration / fusion" in str(pull.content), "no sidebar in the page"
            await cl.quiet(2.0)
            later = [m for m in cl.messages if m.header["msgtype"] == "PATCH-DOC"
                     and "llrlab-metrics" in str(m.content) and m.arrived > pull.arrived]
            assert later == [], "the table was sent again after the page was taken"
        finally:
            await cl.close()

    run_apart(scenario)


def test_a_class_page_in_chromium_with_the_access_token(served, page):
    """``--class 1 --token``: a request without the token is refused and takes no page; the
    link with the token opens the made page in chromium, whole, and its calibration toggle
    is answered by the server (the session is live, not a copy)."""
    import urllib.error
    import urllib.request

    s = served("--class", "1", "--token", env={"LLRLAB_TOKEN": "class-room-2026"})
    s.wait_line("1 page made for a class", MADE_TIMEOUT)
    base = f"http://127.0.0.1:{s.port}/"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base, timeout=scaled(WAIT))
    assert refused.value.code == 403
    t0 = time.monotonic()
    page.goto(base + "?token=class-room-2026")
    wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 4, timeout=PAGE_LOAD,
               what="4 plots")
    cells = page.locator('td[data-role="eval"]')
    wait_until(page, lambda: cells.count() > 5 and re.fullmatch(r"\d\.\d{4}.*",
                                                               cells.nth(5).inner_text()),
               what="the eval act. DCF")
    opened = time.monotonic() - t0
    before = cells.nth(5).inner_text()
    page.locator(".bk-btn", has_text="affine").first.click()
    wait_until(page, lambda: cells.nth(5).inner_text() != before and "cal=affine" in page.url,
               what="the affine calibration's act. DCF")
    assert page.console_errors == [], (page.console_errors[:3], page.external_requests[:5])
    assert opened < scaled(PAGE_LOAD)


def test_class_size_is_checked():
    for bad, says in (("-1", "give 0 to"), ("201", "give 0 to"), ("forty", "not a whole")):
        out = subprocess.run([str(LLRLAB), "serve", "--no-show", "--class", bad],
                             capture_output=True, text=True, timeout=scaled(WAIT))
        assert out.returncode == 2
        last = out.stderr.strip().splitlines()[-1]
        assert "--class" in last and says in last, out.stderr
        assert "Traceback" not in out.stderr
