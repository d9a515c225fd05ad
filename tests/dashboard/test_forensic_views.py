"""The forensic views (Tippett plot, reliability diagram), the LLR unit option and the export
of the interactive HTML report: figures built once, sources following the state, numbers
equal to llrlab.core's."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit

from llrlab.core import llr_to_unit, reliability, tippett
from llrlab.dashboard.views import CalibrationView, ExportView, ReliabilityView, TippettView


@pytest.fixture
def display(state):
    return state.display


@pytest.fixture
def point(state):
    return state.point


@pytest.fixture
def views(state):
    return {"tippett": TippettView(state=state), "reliability": ReliabilityView(state=state),
            "cal": CalibrationView(state=state)}


def _data(src):
    return {k: np.asarray(v) for k, v in src.data.items()}


def test_tippett_curves_and_markers_follow_the_state(state, views, display, point):
    tv = views["tippett"]
    ev = state.results.datasets["eval"]
    ref = tippett(ev.llr, max_points=2000)
    d = _data(tv.sources[("eval", "tar")])
    assert_array_equal(d["y"], ref.tar_ge)
    assert_allclose(d["x"], np.clip(ref.tar_llr, *_range(tv)), rtol=0)  # natural log
    assert tv.figure.xaxis[0].axis_label == "LLR (natural log)"
    # the threshold and the markers at the Bayes threshold: 1 - Pmiss and Pfa
    point.plo = -2.5
    op = state.op["eval"]
    assert tv.threshold.location == 2.5
    pts = _data(tv.points)
    y = pts["y"][pts["role"] == "eval"]
    assert_allclose(y, [1 - float(op.act.p_miss), float(op.act.p_fa)], rtol=0)
    s = ev.llr.sorted  # the Tippett curves' values at the threshold, by definition
    assert y[0] == pytest.approx(np.mean(s.tar >= 2.5), abs=1e-15)
    assert y[1] == np.mean(s.non >= 2.5)
    # log10: the x column is rescaled, the axis says so, nothing is recomputed
    sources = {id(s) for s in tv.sources.values()}
    display.llr_unit = "log10"
    assert tv.figure.xaxis[0].axis_label == "log10(LR)"
    assert_allclose(_data(tv.sources[("eval", "tar")])["x"], d["x"] / np.log(10), rtol=1e-15)
    assert tv.threshold.location == pytest.approx(2.5 / np.log(10), rel=1e-15)
    assert {id(s) for s in tv.sources.values()} == sources
    assert "Misleading evidence" in tv.note.object
    assert f"{100 * ref.rme_tar:.3f} %" in tv.note.object


def _range(tv):
    lo, hi = tv.figure.x_range.start, tv.figure.x_range.end
    return lo, hi


def test_a_drag_on_the_tippett_plot_moves_the_operating_point(state, views, display, point):
    tv = views["tippett"]
    display.llr_unit = "log10"
    tv.drag.data = {"x": [0.5], "y": [0.3]}  # what the browser sends
    assert point.plo == pytest.approx(-0.5 * np.log(10), rel=1e-15)
    display.llr_unit = "bits"
    tv.drag.data = {"x": [-1.0], "y": [0.3]}
    assert point.plo == pytest.approx(np.log(2), rel=1e-15)


def test_reliability_pav_follows_the_prior_and_bins_are_recomputed(state, views, display,
                                                                   point):
    rv = views["reliability"]
    ev = state.results.datasets["eval"]
    pav = reliability(ev.llr, method="pav", max_points=1000)
    for plo in (-4.0, 0.0, 1.5):
        point.plo = plo
        d = _data(rv.lines["eval"])
        assert_array_equal(d["x"], expit(pav.llr + plo))
        assert_array_equal(d["y"], expit(pav.pav_llr + plo))
        assert "P̃ = " in rv.figure.title.text
    assert rv.renderers["eval"]["pav"].visible and not rv.renderers["eval"]["bins"].visible
    display.reliability = "bins"
    display.reliability_bins = 7
    ref = reliability(ev.llr, plo=1.5, method="bins", bins=7)
    b = _data(rv.bins["eval"])
    assert_array_equal(b["x"], ref.predicted)
    assert_array_equal(b["y"], ref.empirical)
    assert_array_equal(b["n"], ref.n_tar + ref.n_non)
    assert rv.renderers["eval"]["bins"].visible and not rv.renderers["eval"]["pav"].visible
    point.plo = -1.0  # moves with the operating point
    assert_array_equal(_data(rv.bins["eval"])["x"],
                       reliability(ev.llr, plo=-1.0, method="bins", bins=7).predicted)
    display.show_dev = False
    assert not rv.renderers["dev"]["bins"].visible


def test_the_calibration_map_honours_the_unit(state, views, display, point):
    cv = views["cal"]
    state.calibration.method = "affine"
    llr = _data(cv.source)["llr"]
    display.llr_unit = "log10"
    assert_allclose(_data(cv.source)["llr"], llr_to_unit(llr, "log10"), rtol=1e-15)
    assert cv.figure.yaxis[0].axis_label == "log10(LR)"
    assert cv.hline.location == pytest.approx(-point.plo / np.log(10), rel=1e-15)


def test_views_build_their_figures_once(state, views, display, point):
    figures = {k: id(v.figure) for k, v in views.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. Bokeh's "columns of unequal length"
        state.calibration.method = "pav"
        display.param.update(llr_unit="bits", reliability="bins", presentation=True,
                                   svg=True, show_dev=False)
        state.teaching.enabled = True
        point.plo = 1.0
        state.teaching.enabled = False
    assert {k: id(v.figure) for k, v in views.items()} == figures
    assert views["tippett"].figure.output_backend == "svg"


def test_export_interactive_html(state, display, point):
    state.calibration.method = "affine"
    point.p_target = 0.05
    display.llr_unit = "log10"
    html = ExportView(state=state).report_html()
    assert "log10(LR)" in html and "Calibration: affine (trained on dev)" in html
    for j, role in enumerate(state.results.datasets):
        act = re.search(rf'id="llrlab-v-act_dcf-{j}"[^>]*>([^<]*)<', html).group(1)
        assert act == f"{state.op[role].act_dcf:.4f}"
    assert not re.search(r"<script[^>]*\bsrc=", html)


def test_the_forensic_tab_computes_only_while_shown(state, monkeypatch):
    import panel as pn

    from llrlab.dashboard.views import ForensicView
    from llrlab.dashboard.views import reliability as rel_module
    from llrlab.dashboard.views import tippett as tip_module

    from .conftest import count_calls

    calls = count_calls(monkeypatch, tip_module, ["tippett"])
    count_calls(monkeypatch, rel_module, ["reliability"], calls)
    fv = ForensicView(state=state)
    tabs = fv.follow_tab(pn.Tabs(("a", pn.pane.Markdown("a")), ("b", pn.pane.Markdown("b")),
                                 ("Forensic", fv)), 2)
    calls.clear()
    assert not fv.tippett.active  # the first tab is shown
    state.calibration.method = "affine"
    state.point.plo = -1.0
    assert calls == []  # nothing computed for a hidden tab
    tabs.active = 2
    assert calls.count("tippett") == 2  # eval and dev, once each
    ev = state.results.datasets["eval"]
    assert_array_equal(_data(fv.tippett.sources[("eval", "tar")])["y"],
                       tippett(ev.llr, max_points=2000).tar_ge)
    assert_array_equal(_data(fv.reliability.lines["eval"])["x"], expit(
        reliability(ev.llr, method="pav", max_points=1000).llr - 1.0))


def test_the_forensic_figures_join_the_page_when_first_shown(state):
    import panel as pn

    from llrlab.dashboard.views import ForensicView

    fv = ForensicView(state=state)
    tabs = fv.follow_tab(pn.Tabs(("a", pn.pane.Markdown("a")), ("Forensic", fv)), 1)
    assert len(fv._layout.objects) == 1  # the explanation only
    tabs.active = 1
    assert fv._plots in fv._layout.objects
    tabs.active = 0
    tabs.active = 1
    assert fv._layout.objects.count(fv._plots) == 1


def test_a_role_curves_view_must_say_how_to_compute_and_draw():
    import pytest

    from llrlab.dashboard.views._shown import RoleCurvesView

    with pytest.raises(TypeError, match="Half must define _redraw"):
        type("Half", (RoleCurvesView,), {"_curve": lambda self, llr: llr})


# ---------------------------------------------------------------- the look (issue 19's bar)

def _entries(view):
    """``(label, signature, colour)`` of each shown legend entry: the signature is what
    tells an entry apart without hue (glyph, dash pattern, marker, hatch)."""
    out = []
    for item in view.legend.items:
        rs = [r for r in item.renderers if r.visible]
        if not item.visible or not rs:
            continue
        sig = tuple((type(r.glyph).__name__, tuple(r.glyph.line_dash),
                     getattr(r.glyph, "marker", None)) for r in rs)
        g = rs[0].glyph
        color = g.fill_color if type(g).__name__ == "Scatter" else g.line_color
        out.append((item.label.value if hasattr(item.label, "value") else item.label["value"],
                    sig, color))
    return out


def _forensic_views(state):
    from llrlab.dashboard.views.ece import ECEView

    return {"tippett": TippettView(state=state), "ece": ECEView(state=state),
            "reliability": ReliabilityView(state=state)}


@pytest.mark.parametrize("method", ["pav", "bins"])
def test_legend_entries_never_differ_by_hue_alone(state, display, method):
    from llrlab.core.palette import contrast_ratio

    display.reliability = method
    for name, view in _forensic_views(state).items():
        entries = _entries(view)
        assert len(entries) >= 2, name
        for i, (la, sa, ca) in enumerate(entries):
            for lb, sb, cb in entries[i + 1:]:
                assert sa != sb or contrast_ratio(ca, cb) >= 3, (name, la, lb)


def test_curves_are_opaque_and_stand_out_on_white(state, display):
    from bokeh.models import GlyphRenderer

    from llrlab.core.palette import MIN_CONTRAST, contrast_ratio

    display.reliability = "bins"
    for name, view in _forensic_views(state).items():
        for r in view.figure.renderers:
            if not isinstance(r, GlyphRenderer):
                continue
            g = r.glyph
            assert g.line_alpha == 1.0, (name, r)
            if type(g).__name__ == "Line":
                assert contrast_ratio(g.line_color) >= MIN_CONTRAST, (name, g.line_color)


def test_presentation_style_at_the_stage_scale(state, display):
    from bokeh.models import Span

    from llrlab.dashboard.state.display import LINE_MIN

    views = _forensic_views(state)
    display.param.update(presentation=True, scale=1.5)
    for name, view in views.items():
        view.resize(600, 560)
        fig = view.figure
        assert fig.title.text_font_size == "33px", name  # 22 px times the scale
        assert view.legend.label_text_font_size == "27px", name
        for r in fig.renderers:
            lw = getattr(r.glyph, "line_width", None)
            if type(r.glyph).__name__ == "Line":
                assert lw >= LINE_MIN * 1.5, (name, r.glyph)
        for span in fig.select({"type": Span}):
            assert span.line_width >= LINE_MIN * 1.5, (name, span.name)
    display.presentation = False  # the screen keeps the sizes the figures were built with
    tv = views["tippett"]
    assert tv.figure.title.text_font_size == "17.33px"
    assert tv.threshold.line_width == 2.5 and tv.lr1.line_width == 1.5


def test_the_tippett_note_fits_below_the_figure_on_a_stage(state, display):
    from llrlab.dashboard.text_fit import text_height
    from llrlab.dashboard.views._common import PANE_MARGIN
    from llrlab.dashboard.views._common import stage_min as figure_min

    tv = TippettView(state=state)
    display.param.update(presentation=True, scale=1.0)
    text = tv.note.object
    assert "Misleading evidence" in text
    tv.resize(480, 600)
    note_h = text_height(text, 18.0, 480 - 40) + 8
    assert tv.note.styles["font-size"] == "18px"
    assert tv.note.height == note_h and tv.note.width == 480 - 20
    assert "overflow-y" not in tv.note.styles  # sized for its text: nothing scrolls
    assert tv.figure.height == 600 - note_h - 2 * PANE_MARGIN[0]
    # the stage plans the room of the figure, its legend and its note
    w, h = tv.stage_min(1.5)
    fw, fh = figure_min(tv.legend, 1.5)
    assert (w, h) == (fw, fh + text_height(text, 27.0, fw - 40) + 8)
    # back on the page: the note stretches with the figure, at the page's type
    display.presentation = False
    tv.resize(900, None)
    assert tv.note.sizing_mode == "stretch_width" and tv.note.height is None
    assert tv.note.styles["font-size"] == "90%"
