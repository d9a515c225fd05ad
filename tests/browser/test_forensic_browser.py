"""The dashboard's forensic tab in chromium: Tippett and reliability plots of a small,
hand-computed score set; a drag on the Tippett plot; the log10 unit; and the "Export
interactive HTML" download opened offline."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from llrlab.core import Trials
from llrlab.core.io import write_trials
from llrlab.dashboard.app import FileSpec, create_app

from .conftest import screen_point, screenshot, settle, source_data, wait_until

pytestmark = pytest.mark.browser

LN10 = np.log(10.0)
# natural-log LLRs: targets -1, 2, 2; non-targets -3, 0, 1, 5
TAR, NON = [-1.0, 2.0, 2.0], [-3.0, 0.0, 1.0, 5.0]






@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.txt"
    write_trials(path, Trials(np.array(TAR + NON), np.array([1, 1, 1, 0, 0, 0, 0], bool)))
    return path


def test_forensic_tab_hand_computed_and_export(page, serve, small, tmp_path):
    url, sessions = serve(lambda: create_app([FileSpec("small", "eval", str(small))]))
    page.set_viewport_size({"width": 1500, "height": 1500})
    page.goto(url)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None
               and sessions[0].state.results.datasets
               and not sessions[0].state.status.busy,
               what="the small score set")
    state = sessions[0].state
    point, display = state.point, state.display
    page.locator(".bk-tab", has_text="Forensic").click()
    wait_until(page, lambda: page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('tippett_tar_eval') != null && "
        "Bokeh.documents[0].get_model_by_name('tippett_tar_eval').data.x.length == 4"),
        what="the Tippett curves")

    # Tippett corners, natural log: P(tar >= x) and P(non >= x)
    t = source_data(page, "tippett_tar_eval")
    assert t["x"] == [-1.0, -1.0, 2.0, 2.0]
    assert t["y"] == pytest.approx([1.0, 2 / 3, 2 / 3, 0.0], rel=1e-15)
    n = source_data(page, "tippett_non_eval")
    assert n["x"] == [-3.0, -3.0, 0.0, 0.0, 1.0, 1.0, 5.0, 5.0]
    assert n["y"] == pytest.approx([1, 0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 0], rel=1e-15)

    # log10 (the Display card's LLR unit): the page's axis and columns change
    page.locator(".bk-btn", has_text="log10").click()
    wait_until(page, lambda: display.llr_unit == "log10", what="the unit on the server")
    wait_until(page, lambda: source_data(page, "tippett_tar_eval")["x"][0] == pytest.approx(
        -1 / LN10, rel=1e-15), what="the log10 axis")
    assert page.evaluate("() => Bokeh.documents[0].get_model_by_name('tippett')"
                         ".below[0].axis_label") == "log10(LR)"

    # drag the threshold to log10 LR = 0.25 (LLR 0.576, between the scores 0 and 1)
    sx, sy = screen_point(page, "tippett", -point.plo / LN10, 0.5)
    ex, ey = screen_point(page, "tippett", 0.25, 0.5)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(ex, ey, steps=8)
    page.mouse.up()
    wait_until(page, lambda: abs(point.plo + 0.25 * LN10) < 0.05,
               what="the drag to reach the server")
    plo = point.plo
    # hand-computed markers: P(tar >= 0.576) = 2/3, P(non >= 0.576) = 1/2
    wait_until(page, lambda: source_data(page, "tippett_points")["x"][:1] == pytest.approx(
        [-plo / LN10], rel=1e-12), what="the threshold markers")
    pts = source_data(page, "tippett_points")
    assert pts["role"] == ["eval", "eval"]
    assert pts["y"] == pytest.approx([2 / 3, 0.5], rel=1e-15)
    assert state.op["eval"].act.misses == 1 and state.op["eval"].act.false_alarms == 2

    # the PAV reliability diagram at this prior: blocks {-3}, {-1, 0, 1}, {2, 2, 5} with
    # PAV LLRs -inf, log(2/3), log(8/3)
    rel = source_data(page, "reliability_pav_eval")
    llr = np.array([-3, -3, -1, 1, 2, 5], float)
    pav = np.array([-np.inf, -np.inf, np.log(2 / 3), np.log(2 / 3), np.log(8 / 3),
                    np.log(8 / 3)])
    assert rel["x"] == pytest.approx(expit(llr + plo), rel=1e-14)
    assert rel["y"] == pytest.approx(expit(pav + plo), rel=1e-14, abs=1e-300)
    settle(page)
    screenshot(page, "forensic_tab_small")

    # Export interactive HTML: the download is the offline report of what is shown
    with page.expect_download() as dl:
        page.locator("button", has_text="Export interactive HTML").click()
    path = tmp_path / "export.html"
    dl.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert "log10(LR)" in html and "<script src" not in html
    report = page.context.new_page()
    report.route("**/*", lambda r: r.continue_() if r.request.url == path.as_uri()
                 else r.abort())
    report.goto(path.as_uri())
    report.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0 && "
                             "document.getElementById('llrlab-op-header').textContent != ''")
    op = report.evaluate("() => Array.from(Bokeh.documents[0].get_model_by_name("
                         "'report_op').data.act_dcf)")
    want = state.results.datasets["eval"].llr.at(
        report.evaluate("() => Bokeh.documents[0].get_model_by_name('report_op')"
                        ".data.plo[0]")).act_dcf
    assert op[0] == pytest.approx(want, rel=1e-12)
    report.close()
    assert page.console_errors == []
    assert page.external_requests == []
