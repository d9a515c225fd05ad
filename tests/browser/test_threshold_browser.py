"""The threshold measures in a real browser: the DET plot's FMR100 / FMR1000 markers drawn
where ``fnmr_at_fmr`` puts them (black stars, labelled, inside the plotting frame), and the
metrics table's score threshold of the actual decision following a drag, with a calibration
(the raw threshold through its inverse) and with the error counts it decides."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from llrlab.core import fnmr_at_fmr, probit
from llrlab.dashboard.compute.results import DET_FMR

from .conftest import model_value, mouse_drag, screen_point, settle, source_data, wait_until
from .test_dashboard_browser import _canvas_boxes, _open

pytestmark = pytest.mark.browser

#: How dark the centre of a black star is at least (largest RGB channel; the steppy curve
#: under it is #0072B2, a white (dev) star or the background white).
_DARK = 90


def _cell(page, key, role="eval"):
    return page.locator(f'td[data-role="{role}"][data-key="{key}"]').first.inner_text()


def _frame_box(page, fig):
    """The plotting frame of figure ``fig`` in viewport coordinates."""
    return page.evaluate("""(name) => {
        const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name(name));
        const r = v.canvas_view.el.getBoundingClientRect(), b = v.frame.bbox;
        return {x: r.x + b.x, y: r.y + b.y, r: r.x + b.x + b.width,
                b: r.y + b.y + b.height}; }""", fig)


def _centre(page, x, y):
    """The largest RGB channel of the mean colour of the 3 x 3 pixels around (x, y) (inside
    a star of size 13, within its fill: its outline is further out)."""
    png = page.screenshot(clip={"x": x - 1.5, "y": y - 1.5, "width": 3, "height": 3})
    px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    return float(px.reshape(-1, 3).mean(axis=0).max())


def test_det_fmr_markers_and_the_score_threshold(page, serve):
    # dev hidden (its white stars could sit on the eval ones), an affine calibration on
    state = _open(page, serve, query="?dev=false&cal=affine").state
    wait_until(page, lambda: state.results.calibration is not None and not state.status.busy,
               what="the affine calibration")
    settle(page)
    # the FMR100 / FMR1000 markers in the page: where fnmr_at_fmr puts them on eval
    want = fnmr_at_fmr(state.results.datasets["eval"].raw, fmr=DET_FMR)
    data = source_data(page, "det_fmr_eval")
    assert data["text"] == ["FMR100", "FMR1000"]
    np.testing.assert_allclose(data["x"], probit(want.p_fa), rtol=1e-12)
    np.testing.assert_allclose(data["y"], probit(want.p_miss), rtol=1e-12)
    for j, name in enumerate(data["text"]):  # their names, one label each, at the markers
        assert model_value(page, f"det_fmr_label_{j}", "text") == name
        assert model_value(page, f"det_fmr_label_{j}", "visible") is True
        assert model_value(page, f"det_fmr_label_{j}", "x") == data["x"][j]
    frame = _frame_box(page, "det")
    for x, y in zip(data["x"], data["y"], strict=True):
        sx, sy = screen_point(page, "det", x, y)
        # inside the frame with room for the star and its label (7 px right, 9 pt text)
        assert frame["x"] + 6 < sx < frame["r"] - 60 and frame["y"] + 12 < sy < frame["b"] - 6
        assert _centre(page, sx, sy) < _DARK, "no black star drawn at the FMR marker"
    # the score threshold of the actual decision, on the raw scores, follows a drag
    plo0 = state.point.plo
    nber = _canvas_boxes(page)[0]
    x, y = nber["x"] + 0.4 * nber["width"], nber["y"] + 0.5 * nber["height"]
    mouse_drag(page, x, y, 120, 0)
    wait_until(page, lambda: abs(state.point.plo - plo0) > 0.5 and not state.status.busy,
               what="the drag to reach the server")
    res, ev = state.results, state.results.datasets["eval"].raw.sorted
    t = res.score_threshold(state.point.plo)
    assert t == float(res.calibration.inverse(-state.point.plo))
    wait_until(page, lambda: _cell(page, "threshold") == f"{t:.6g}",
               what="the score threshold to follow the drag")
    # the counts shown are those of accepting raw score >= the threshold shown
    shown = float(_cell(page, "threshold"))
    assert _cell(page, "misses") == f"{int((ev.tar < t).sum()):,}"
    assert _cell(page, "false_alarms") == f"{int((ev.non >= t).sum()):,}"
    assert abs(shown - t) <= 1e-5 * max(1.0, abs(t))
    assert page.console_errors == []
