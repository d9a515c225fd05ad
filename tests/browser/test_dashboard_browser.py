"""The dashboard in a real browser: rendering, dragging, calibration toggle, uploads."""

from __future__ import annotations

import pytest

from llrlab.core.io import write_trials
from llrlab.dashboard.app import create_app

from ..dashboard.conftest import make_trials
from .conftest import PAGE_LOAD, model_value, mouse_drag, quiet, screenshot, settle, wait_until

pytestmark = pytest.mark.browser


def _open(page, serve=None, factory=create_app, *, query="", served=None):
    """Open the app (a new server, or ``served = (url, sessions)``); its session's page."""
    url, sessions = served or serve(factory)
    n = len(sessions)
    page.goto(url + query)
    wait_until(page, lambda: len(sessions) > n and sessions[n].state.results is not None
               and sessions[n].state.results.datasets and not sessions[n].state.status.busy,
               timeout=PAGE_LOAD, what="the demo data")
    wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 4, timeout=PAGE_LOAD,
               what="4 plots")
    # the server has its results before the page does: wait for them in the page before
    # reading or touching it (under load the page lagged by seconds)
    state = sessions[n].state
    wait_until(page, lambda: _act_dcf_shown(page).startswith(
        f"{state.op['eval'].act_dcf:.4f}"), what="the results in the page")
    return sessions[n]




def _table(page, role):
    """The rendered metrics column of ``role`` (rows in views.metrics.MEASURES order)."""
    return page.locator(f'td[data-role="{role}"]').all_inner_texts()


def _act_dcf_shown(page, role="eval"):
    return _table(page, role)[5]  # row "act DCF" (see views.metrics.MEASURES)


def _canvas_boxes(page):
    boxes = [page.locator(".bk-Canvas").nth(i).bounding_box()
             for i in range(page.locator(".bk-Canvas").count())]
    return sorted((b for b in boxes if b), key=lambda b: (round(b["y"] / 50), b["x"]))


def test_demo_renders_without_console_errors(page, serve):
    state = _open(page, serve).state
    assert page.locator(".bk-Canvas").count() >= 4
    assert model_value(page, "nber", "title.text") == "Normalized Bayes error rate"
    assert model_value(page, "det", "title.text") == "DET"
    wait_until(page, lambda: _act_dcf_shown(page) == f"{state.op['eval'].act_dcf:.4f}",
               what="the metrics table")
    settle(page)
    screenshot(page, "01_demo")
    assert page.console_errors == []
    assert page.external_requests == []


def test_dragging_on_the_nber_plot_moves_the_operating_point(page, serve):
    state = _open(page, serve).state
    plo0 = state.point.plo
    table0 = _table(page, "eval")
    nber = _canvas_boxes(page)[0]
    x = nber["x"] + 0.45 * nber["width"]
    y = nber["y"] + 0.5 * nber["height"]
    mouse_drag(page, x, y, 120, 0)
    wait_until(page, lambda: abs(state.point.plo - plo0) > 0.5,
               what="the drag to reach the server")
    assert state.point.plo > plo0  # dragged to the right
    wait_until(page, lambda: abs(model_value(page, "op_span", "location") - state.point.plo) < 1e-9,
               what="the operating-point line")
    wait_until(page, lambda: _act_dcf_shown(page) == f"{state.op['eval'].act_dcf:.4f}",
               what="the metrics table to follow the drag")
    assert _table(page, "eval") != table0  # min DCF, misses, false alarms moved
    # the histogram threshold moved with it
    wait_until(page, lambda: abs(model_value(page, "hist_threshold", "location")
                                 - state.results.threshold_score(state.point.plo)) < 1e-9,
               what="the histogram threshold")
    screenshot(page, "02_after_drag")
    # with the box-zoom tool active, a drag zooms and leaves the operating point alone
    plo1 = state.point.plo
    page.locator(".bk-tool-icon-box-zoom").first.click()
    page.mouse.move(x - 100, y - 60)
    page.mouse.down()
    for dx in range(0, 81, 10):
        page.mouse.move(x - 100 + dx, y - 60 + dx, steps=2)
    page.mouse.up()
    wait_until(page, lambda: model_value(page, "nber", "x_range.start") > -6.9, what="the zoom")
    quiet(page)  # whatever the drag sent has reached the server, and its answer the page
    assert state.point.plo == plo1
    assert page.console_errors == []


def test_dragging_on_the_det_plot_moves_the_operating_point(page, serve):
    state = _open(page, serve).state
    plo0 = state.point.plo
    det = _canvas_boxes(page)[1]
    # a drag towards the lower right of the DET plot: fewer misses, more false alarms,
    # i.e. a larger prior log-odds
    x, y = det["x"] + 0.45 * det["width"], det["y"] + 0.35 * det["height"]
    mouse_drag(page, x, y, 100, 100)
    wait_until(page, lambda: state.point.plo > plo0 + 0.5,
               what="the DET drag to reach the server")
    # the operating point sits on the eval min-DCF point nearest to where the mouse stopped
    d = state.results.datasets["eval"]
    i = int(abs(d.pick_plo - state.point.plo).argmin())
    assert d.pick_plo[i] == state.point.plo
    wait_until(page, lambda: abs(model_value(page, "op_span", "location") - state.point.plo) < 1e-9,
               what="the NBER line to follow")
    assert page.console_errors == []


def test_calibration_toggle_changes_eval_act_dcf(page, serve):
    state = _open(page, serve).state
    before = _act_dcf_shown(page)
    page.locator(".bk-btn", has_text="affine").first.click()
    wait_until(page, lambda: state.calibration.method == "affine" and not state.status.busy
               and state.results.calibration is not None, what="the affine calibration")
    wait_until(page, lambda: _act_dcf_shown(page) == f"{state.op['eval'].act_dcf:.4f}",
               what="the table to show calibrated values")
    assert _act_dcf_shown(page) != before
    wait_until(page, lambda: "affine" in model_value(page, "calibration", "title.text"),
               what="the calibration map")
    assert "cal=affine" in page.url
    screenshot(page, "03_affine")
    page.locator(".bk-btn", has_text="pav").first.click()
    wait_until(page, lambda: state.calibration.method == "pav" and not state.status.busy
               and state.results.calibration is not None
               and state.results.calibration.kind == "pav", what="PAV")
    wait_until(page, lambda: _act_dcf_shown(page) == f"{state.op['eval'].act_dcf:.4f}",
               what="the table to show PAV values")
    assert page.console_errors == []


def test_upload_valid_then_broken_file(page, serve, tmp_path):
    served = serve(create_app)
    session = _open(page, served=served)
    state, uploads = session.state, session.uploads
    # a second browser session on the same server, which the errors below must not reach
    other_page = page.context.new_page()
    other = _open(other_page, served=served).state
    page.bring_to_front()  # a background tab's uploads are throttled
    good = tmp_path / "good_trials.txt"
    write_trials(str(good), make_trials(3000, seed=11, ids=True))
    bad = tmp_path / "broken_trials.txt"
    bad.write_text("model segment score label\nm1 s1 0.5 target\nm1 s2 abc nontarget\n")

    page.get_by_text("Upload files").first.click()
    inputs = page.locator("input[type=file]")
    wait_until(page, lambda: inputs.count() >= 2, what="the upload widgets")
    inputs.nth(0).set_input_files(str(good))
    wait_until(page, lambda: "good_trials.txt" in uploads.scores.files,
               what="the upload to arrive")
    page.locator(".bk-btn", has_text="Load uploaded file").first.click()
    wait_until(page, lambda: "uploaded" in state.data.systems and not state.status.busy,
               what="the uploaded system")
    assert len(state.data.systems["uploaded"].eval) == 3000
    assert state.data.system == "uploaded"
    assert state.status.error == ""
    wait_until(page, lambda: (_table(page, "eval")[0]
                              == f"{state.data.systems['uploaded'].eval.n_tar:,}"),
               what="the table to show the uploaded set")
    screenshot(page, "04_upload_ok")

    inputs.nth(0).set_input_files(str(bad))
    wait_until(page, lambda: "broken_trials.txt" in uploads.scores.files,
               what="the broken upload to arrive")
    page.locator(".bk-btn", has_text="Load uploaded file").first.click()
    wait_until(page, lambda: "broken_trials.txt" in state.status.error, what="the error message")
    alert = page.locator(".alert-danger", has_text="broken_trials.txt")
    wait_until(page, lambda: alert.count() > 0 and alert.first.is_visible(),
               what="the error shown in the page")
    assert "Traceback" not in alert.first.inner_text()
    assert "uploaded" in state.data.systems  # previous data kept
    assert len(state.data.systems["uploaded"].eval) == 3000
    screenshot(page, "05_upload_broken")
    # the other session is untouched
    assert other.status.error == "" and "uploaded" not in other.data.systems
    assert other_page.locator(".alert-danger", has_text="broken_trials.txt").count() == 0

    # the page keeps working
    plo0 = state.point.plo
    nber = _canvas_boxes(page)[0]
    # (at 0.6 of the canvas: far from the demo's plo -4.6, whatever the plot's width; 0.3
    # fell within 0.1 of it once the DET plot shared the row)
    page.mouse.click(nber["x"] + 0.6 * nber["width"], nber["y"] + 0.5 * nber["height"])
    wait_until(page, lambda: abs(state.point.plo - plo0) > 0.1, what="a click after the error")
    assert page.console_errors == []


def test_a_link_reproduces_the_view(page, serve):
    served = serve(create_app)
    query = ("?p_target=0.05&c_fa=2.0&cal=pav&det=rocch&range=%5B-5.0%2C2.0%5D&present=true"
             "&weights=equal+per+condition&cond_curves=true&ci=wilson&level=0.9")
    state = _open(page, served=served, query=query).state
    wait_until(page, lambda: state.results.calibration is not None, what="the PAV results")
    assert state.point.p_target == 0.05 and state.point.c_fa == 2.0
    assert state.calibration.method == "pav" and state.display.det_kind == "rocch"
    assert state.display.presentation
    assert tuple(state.display.nber_range) == (-5.0, 2.0)
    assert state.conditions.weighting == "equal per condition" and state.conditions.show_curves
    assert state.uncertainty.ci_method == "wilson" and state.uncertainty.ci_level == 0.9
    wait_until(page, lambda: state.results.key is not None and "equal" in str(state.results.key),
               what="the condition-weighted results")
    # a change in the page is written back to the address bar ...
    nber = _canvas_boxes(page)[0]
    # (inside the plot frame: in presentation style the legend takes the right part)
    page.mouse.click(nber["x"] + 0.45 * nber["width"], nber["y"] + 0.5 * nber["height"])
    wait_until(page, lambda: abs(state.point.p_target - 0.05) > 1e-3,
               what="a click on the NBER plot")
    wait_until(page, lambda: f"p_target={state.point.p_target!r}" in page.url.replace("%2E", "."),
               what="the address bar to follow")
    # ... so that the same link opens the same view in another session (on the comparison
    # tab, whose choice of dataset is part of the link too)
    page.locator(".bk-tab", has_text="Compare systems").click()
    wait_until(page, lambda: "tab=1" in page.url, what="the tab in the address bar")
    again_page = page.context.new_page()
    again = _open(again_page, served=served, query="?" + page.url.split("?")[1])
    wait_until(page, lambda: again.state.results.calibration is not None, what="the copy")
    assert again.state.point.p_target == state.point.p_target
    # the link stores p_target, from which the prior log-odds is recomputed (to rounding):
    # the page shows the same numbers
    assert again.state.point.plo == pytest.approx(state.point.plo, rel=1e-12)
    wait_until(again_page, lambda: _table(again_page, "eval") == _table(page, "eval"),
               what="the same metrics in both sessions")
    assert again.state.calibration.method == "pav"
    assert tuple(again.state.display.nber_range) == (-5.0, 2.0)
    assert again.state.conditions.weighting == "equal per condition"
    assert again.state.uncertainty.ci_method == "wilson"
    wait_until(again_page, lambda: again_page.locator("tr[data-system]").count() == 2,
               what="the comparison tab open in the copy")
    assert page.console_errors == []


def test_compare_systems_tab(page, serve):
    """The demo's two systems side by side: the tab's six plots render, the table lists both
    systems with a p-value against the reference, and nothing is computed before the tab is
    opened."""
    state = _open(page, serve).state
    assert page.locator(".bk-tab", has_text="Compare systems").count() == 1
    settle(page)  # an eager comparison would have reached the page by now
    assert page.locator("tr[data-system]").count() == 0  # lazy: nothing compared yet
    page.set_viewport_size({"width": 1500, "height": 1900})
    page.locator(".bk-tab", has_text="Compare systems").click()

    def p_values():
        return page.locator('td[data-key="z_p"]').all_inner_texts()

    wait_until(page, lambda: page.locator("tr[data-system]").count() == 2,
               what="both systems in the comparison table")
    wait_until(page, lambda: len(p_values()) == 2 and p_values()[1][:1].isdigit(),
               what="a p-value against the reference")
    systems = page.locator("tr[data-system]").evaluate_all(
        "rows => rows.map(r => r.dataset.system)")
    assert systems == ["system A", "system B"]
    assert p_values()[0] == "reference"
    float(p_values()[1])
    float(page.locator('td[data-key="mcnemar_p"]').all_inner_texts()[1])
    wait_until(page, lambda: "tab=1" in page.url, what="the open tab in the link")
    def shown_canvases():
        return page.locator(".bk-Canvas").evaluate_all(
            "cs => cs.filter(c => c.checkVisibility({visibilityProperty: true})).length")

    wait_until(page, lambda: shown_canvases() == 6, what="the six comparison plots shown")
    for name in ("cmp_nber", "cmp_det", "cmp_ape", "cmp_ece", "cmp_epc", "cmp_cllr"):
        assert model_value(page, name, "title.text")
    # the curves reached the browser, one row per system
    wait_until(page, lambda: model_value(page, "cmp_nber_act", "data.name.length") == 2,
               what="the NBER curves of both systems")
    assert model_value(page, "cmp_cllr_bars", "data.name.length") == 2
    assert state.point.plo == model_value(page, "cmp_nber_op", "location")
    settle(page)
    screenshot(page, "07_compare")
    assert page.console_errors == []
    assert page.external_requests == []


def _visible_renderers(page, figure):
    return page.evaluate(
        f"() => Bokeh.documents[0].get_model_by_name({figure!r}).renderers"
        ".filter(r => r.visible).length")


def test_condition_weighting_curves_and_intervals(page, serve):
    """Equal weights per condition change the metrics; per-condition curves add renderers;
    confidence intervals draw whiskers and fill the table; bootstrap on demand."""
    state = _open(page, serve).state
    assert state.conditions.available == ["far", "mic", "tel"]  # the demo's channels
    min_dcf_before = _table(page, "eval")[6]  # row "min DCF"
    nber0, det0 = _visible_renderers(page, "nber"), _visible_renderers(page, "det")

    page.locator(".bk-btn", has_text="equal per condition").first.click()
    wait_until(page, lambda: not state.status.busy and state.results.condition_spec is not None
               and state.results.condition_spec.weights == "equal", what="equal weights")
    wait_until(page, lambda: _table(page, "eval")[6] == f"{state.op['eval'].min_dcf:.4f}",
               what="the table to show the weighted pool")
    assert _table(page, "eval")[6] != min_dcf_before
    page.locator(".bk-btn", has_text="affine").first.click()
    wait_until(page, lambda: not state.status.busy and state.results.calibration is not None,
               what="the affine calibration of the weighted pool")
    # a Bokeh checkbox's label is a sibling of its input in the widget's shadow root
    page.get_by_text("Per-condition curves").first.evaluate(
        "e => e.getRootNode().querySelector('input[type=checkbox]').click()")
    wait_until(page, lambda: state.conditions.show_curves, what="the per-condition switch")
    # act and min DCF of three conditions for eval and dev
    wait_until(page, lambda: _visible_renderers(page, "nber") == nber0 + 12,
               what="per-condition NBER curves")
    wait_until(page, lambda: _visible_renderers(page, "det") == det0 + 6,
               what="per-condition DET curves")
    rows = page.locator('table.llrlab-conditions td[data-key="act_dcf"]')
    wait_until(page, lambda: rows.count() == 3, what="the per-condition table")

    page.get_by_text("Uncertainty", exact=True).first.click()
    page.locator(".bk-btn", has_text="wilson").first.click()
    wait_until(page, lambda: state.uncertainty.ci_method == "wilson", what="Wilson intervals")
    for name in ("nber_ci", "det_ci_x", "det_ci_y"):
        wait_until(page, lambda name=name: model_value(page, name, "visible"),
                   what=f"the {name} whisker")
    ci = state.op_ci["eval"]
    wait_until(page, lambda: f"[{ci.dcf.lower:.4f}, {ci.dcf.upper:.4f}]"
               in _table(page, "eval")[5], what="the act DCF interval in the table")
    page.locator(".bk-btn", has_text="Bootstrap intervals").first.click()
    wait_until(page, lambda: state.uncertainty.boot is not None and not state.status.busy,
               timeout=60, what="the bootstrap")
    b = state.uncertainty.boot["eval"]
    wait_until(page, lambda: f"[{b.cllr.lower:.4f}, {b.cllr.upper:.4f}]"
               in _table(page, "eval")[2], what="the Cllr interval in the table")
    settle(page)
    screenshot(page, "06_conditions_ci")
    assert state.status.error == ""
    assert page.console_errors == []
    assert page.external_requests == []
