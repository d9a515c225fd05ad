"""Views: figures and sources are built once and updated whole, in step with the state."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from llrlab.core import probit
from llrlab.dashboard.views import (
    CalibrationView,
    DETView,
    HistogramView,
    MetricsView,
    NBERView,
)
from llrlab.dashboard.views.det import choose_ticks, tick_labels
from llrlab.dashboard.views.metrics import MEASURES

from .._subprocess import loaded_by


@pytest.fixture
def views(state):
    return {"nber": NBERView(state=state), "det": DETView(state=state),
            "hist": HistogramView(state=state), "metrics": MetricsView(state=state),
            "cal": CalibrationView(state=state)}


def _models(views):
    out = {}
    for name, v in views.items():
        if hasattr(v, "figure"):
            out[name] = v.figure
    out["metrics_table"] = views["metrics"].table
    return out


def test_views_build_their_figures_once(state, views):
    models = _models(views)
    sources = {id(s) for v in views.values() for s in _sources(v)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. Bokeh's "columns of unequal length"
        state.point.p_target = 0.001
        state.calibration.method = "affine"
        state.display.nber_range = (-9.0, 4.0)
        state.display.param.update(presentation=True, svg=True, show_contributions=True,
                                   det_kind="rocch", show_dev=False)
        state.calibration.method = "pav"
        state.teaching.enabled = True
        state.teaching.scale = 2.0
        state.teaching.enabled = False
    assert _models(views) == models
    assert {id(s) for v in views.values() for s in _sources(v)} == sources
    assert views["nber"].figure.output_backend == "svg"


def _sources(view):
    from bokeh.models import ColumnDataSource

    fig = getattr(view, "figure", None)
    if fig is None:
        return []
    return [s for s in fig.select(type=ColumnDataSource)]


def test_p_target_updates_the_sources(state, views):
    nber, det, hist, metrics = views["nber"], views["det"], views["hist"], views["metrics"]
    old_det = dict(det.op_sources["eval"].data)
    old_table = list(metrics.data["eval"])
    state.point.p_target = 0.001
    plo = state.point.plo
    assert nber.op_span.location == plo
    assert hist.threshold.location == -plo  # uncalibrated: the threshold is -plo
    op = state.op["eval"]
    x = det.op_sources["eval"].data["x"]
    # the actual point lies left of the plot (Pfa below the axis): it is drawn on the left
    # edge as a triangle pointing left, and named in the plot
    xr = det.figure.x_range
    assert probit(op.act.p_fa) < xr.start < x[0] < xr.start + 0.02 * (xr.end - xr.start)
    assert det.op_sources["eval"].data["marker"][0] == "triangle_dot"  # (DR30: "triangle")
    up = probit(op.act.p_miss) > det.figure.y_range.end  # also above the plot: up-left
    assert_allclose(det.op_sources["eval"].data["angle"][0], np.pi / 4 if up else np.pi / 2)
    assert det.off_label.visible
    assert f"eval: Pmiss {100 * op.act.p_miss:.3g} %, Pfa {100 * op.act.p_fa:.3g} %" \
        in det.off_label.text
    edge = xr.start + 0.015 * (xr.end - xr.start)  # (the min-DCF point may be off too)
    assert_allclose(x[1], max(probit(op.min.p_fa), edge))
    assert not np.array_equal(x, old_det["x"], equal_nan=True)
    # back on the plot: drawn where it is, as a circle, and no label
    state.point.p_target = 0.2
    op = state.op["eval"]
    data = det.op_sources["eval"].data
    assert_allclose(data["x"][0], probit(op.act.p_fa))
    assert_allclose(data["y"][0], probit(op.act.p_miss))
    assert data["marker"] == ["circle", "square"] and not det.off_label.visible
    state.point.p_target = 0.001
    op = state.op["eval"]
    rows = [label for _, label, _ in MEASURES]
    table = dict(zip(rows, metrics.data["eval"], strict=True))
    assert table["act DCF"] == f"{op.act_dcf:.4f}"
    assert table["min DCF"] == f"{op.min_dcf:.4f}"
    assert metrics.data["eval"] != old_table
    assert f'data-key="act_dcf" style="color:#222222;font-weight:bold">{op.act_dcf:.4f}<' \
        in metrics.table.object
    assert f"{plo:.3f}" in metrics.header.object


def test_nber_sources_follow_results_and_range(state, views):
    nber = views["nber"]
    src = nber.sources["eval"]
    act, mn = state.nber.sets["eval"]
    assert_allclose(src.data["act"], act.dcf)
    assert_allclose(src.data["min"], mn.dcf)
    state.display.nber_range = (-3.0, 1.0)
    assert nber.sources["eval"].data["plo"][0] == -3.0
    assert (nber.figure.x_range.start, nber.figure.x_range.end) == (-3.0, 1.0)
    d = state.results.datasets["eval"].llr.dr30
    assert_allclose(nber.dr30_sources["eval"].data["x"][0], d.plo_fa)


def test_calibration_view_shows_the_map(state, views):
    cal = views["cal"]
    assert "No calibration" in cal.params.object
    assert cal.download_params.disabled
    state.calibration.method = "affine"
    _, llr = state.results.mapping
    assert_allclose(cal.source.data["llr"], llr)
    assert "scale" in cal.params.object or "affine" in cal.params.object
    assert not cal.download_params.disabled
    text = cal._params_json().getvalue()
    # the download is the versioned model: it loads and reproduces the dashboard's map
    from llrlab.core.calibration import from_dict

    model = from_dict(json.loads(text))
    s, llr = state.results.mapping
    assert model.kind == "affine" and np.array_equal(model(s), llr)
    assert_allclose(views["hist"].threshold.location,
                    state.results.threshold_score(state.point.plo))


def test_histograms_are_binned(state, views):
    hist = views["hist"]
    data = hist.bars.data
    assert len(data["left"]) < 200
    edges = np.append(data["left"], data["right"][-1])
    # densities of the eval non-targets integrate to the fraction inside the range
    assert 0.99 < float(np.sum(data["non"] * np.diff(edges))) <= 1.0 + 1e-12


def test_det_ticks_never_collide():
    labels = tick_labels()
    assert labels[float(probit(0.01))] == "1"
    assert labels[float(probit(0.001))] == "0.1"
    assert labels[float(probit(0.4))] == "40"
    for gap in (0.2, 0.26, 0.42):
        ticks = choose_ticks(float(probit(1e-4)), float(probit(0.6)), gap)
        assert np.all(np.diff(ticks) >= gap - 1e-12)
        assert float(probit(0.01)) in ticks


def test_core_does_not_import_panel_or_bokeh():
    code = "import llrlab.core, llrlab.dashboard.state, llrlab.dashboard.compute"
    assert loaded_by(code, ("panel", "bokeh")) == []


def test_drag_channels_move_the_operating_point(state, views):
    """What the browser's CustomJS writes into the drag sources moves the state."""
    views["nber"].drag.data = {"x": [-2.5], "y": [0.4]}
    assert state.point.plo == -2.5
    assert views["nber"].op_span.location == -2.5
    views["hist"].drag.data = {"x": [1.75], "y": [0.1]}
    assert state.point.plo == -1.75  # uncalibrated: threshold -plo
    d = state.results.datasets["eval"]
    i = d.pick_x.size // 2
    views["det"].drag.data = {"x": [float(d.pick_x[i])], "y": [float(d.pick_y[i])]}
    assert state.point.plo == d.pick_plo[i]
    views["nber"].drag.data = {"x": [float("nan")], "y": [0.0]}  # ignored
    assert state.point.plo == d.pick_plo[i]


def test_the_table_follows_the_operating_point_after_other_changes(state, views):
    metrics = views["metrics"]
    state.display.presentation = True
    state.uncertainty.ci_method = "wilson"
    state.point.plo = -1.5
    assert f"{state.op['eval'].act_dcf:.4f}" in metrics.table.object
    assert "font-size: 18px" in metrics.table.object  # presentation fonts
    state.point.plo = -3.0
    assert f"{state.op['eval'].act_dcf:.4f}" in metrics.table.object
    assert "-3.000" in metrics.header.object



def test_every_save_has_a_file_name_and_svg_output_saves_svg(state, views):
    from bokeh.models import SaveTool

    figs = {v.figure.name: v.figure for v in views.values() if hasattr(v, "figure")}
    assert set(figs) == {"nber", "det", "histogram", "calibration"}

    def names():
        out = {}
        for name, fig in figs.items():
            (tool,) = fig.select({"type": SaveTool})
            out[name] = (tool.filename, fig.output_backend)
        return out

    assert names() == {n: (f"llrlab-{n}.png", "canvas") for n in figs}
    state.display.svg = True
    assert names() == {n: (f"llrlab-{n}.svg", "svg") for n in figs}
    state.display.svg = False
    assert names() == {n: (f"llrlab-{n}.png", "canvas") for n in figs}


def test_widget_tooltips_are_plain_sentences():
    """The docs of the parameters shown as widgets are their tooltips: no ``markup``, no
    internal names, no source-document numbers."""
    import re

    import param

    from llrlab.dashboard.state import DashboardState

    st, seen, shown = DashboardState(), set(), 0
    for name in st.param:
        part = getattr(st, name)
        if not isinstance(part, param.Parameterized) or id(part) in seen:
            continue
        seen.add(id(part))
        if type(part).__name__ in ("PresenterState", "LessonState"):
            continue  # presenter mode and lessons: another branch's
        for pname, p in part.param.objects().items():
            if pname == "name" or (p.precedence is not None and p.precedence < 0):
                continue
            doc = " ".join((p.doc or "").split())
            shown += bool(doc)
            assert "``" not in doc and "seed" not in doc.lower(), (pname, doc)
            assert "llrlab." not in doc and "/" not in doc.replace("/ fusion", ""), (pname, doc)
            assert not re.search(r"\b[a-z]+_[a-z_]+\b", doc), (pname, doc)
    assert shown >= 8


def test_presentation_style_enlarges_every_text(state, views):
    """Labels on the plots, the metrics header and alerts, the parameter table and its title,
    the Compare table (issue 14.6); legend markers keep their fill (thin outlines)."""
    from bokeh.models import Scatter

    from llrlab.dashboard.views.compare import table_html

    nber, det, metrics, cal = views["nber"], views["det"], views["metrics"], views["cal"]
    small = (nber.op_label.text_font_size, nber.label_fa.text_font_size,
             det.off_label.text_font_size)
    state.display.presentation = True
    big = (nber.op_label.text_font_size, nber.label_fa.text_font_size,
           det.off_label.text_font_size)
    px = {"pt": 4 / 3, "px": 1.0}  # CSS units in pixels
    assert all(float(b[:-2]) * px[b[-2:]] > float(s[:-2]) * px[s[-2:]]
               for s, b in zip(small, big, strict=True))
    assert all(b == "18px" for b in big)  # the type scale's labels at scale 1
    assert nber.label_miss.text_font_size == nber.label_fa.text_font_size
    for pane in (metrics.header, metrics.warning, metrics.calibration_note):
        assert pane.styles["font-size"] == "18px"
    for pane in (cal.params, cal.title):
        assert pane.styles["font-size"] == "18px"
    assert "18px" in table_html([], presentation=True)
    for fig in (nber.figure, det.figure):
        for r in fig.renderers:
            g = getattr(r, "glyph", None)
            if isinstance(g, Scatter) and g.line_color == "black":  # an outline framing a fill
                assert g.line_width <= 1.5 and g.size >= 16, (fig.name, g.marker)
    state.display.presentation = False
    assert (nber.op_label.text_font_size, nber.label_fa.text_font_size,
            det.off_label.text_font_size) == small
    assert cal.title.styles["font-size"] == "100%"


def test_trained_parameters_have_readable_names(state, views):
    """No raw keys (train_cllr_before, pure_ends) in the parameter table (issue 14.7)."""
    import re

    for method in ("affine", "pav"):
        state.calibration.method = method
        text = views["cal"].params.object
        assert "dev Cllr before (bits)" in text and "trained on" in text
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), text
    assert "pure end blocks" in views["cal"].params.object


def test_the_demo_says_why_act_dcf_is_1_and_how_to_calibrate():
    """The demo's raw scores are not LLRs: act DCF is 1.0000 everywhere; the page says why
    with core's sentence and where to calibrate, and says nothing once calibrated."""
    from llrlab.core import miscalibration_warning
    from llrlab.dashboard.app import demo_specs, load_specs
    from llrlab.dashboard.state import DashboardState

    st = DashboardState()
    load_specs(st, demo_specs())
    metrics = MetricsView(state=st)
    assert f"{st.op['eval'].act_dcf:.4f}" == "1.0000"
    ev = st.results.datasets["eval"]
    core = miscalibration_warning(ev.llr, f"The eval scores of {st.data.system}")
    assert core and metrics.calibration_note.visible
    assert "choose **affine** or **pav**" in metrics.calibration_note.object
    assert "Calibration / fusion" in metrics.calibration_note.object
    st.calibration.method = "affine"
    assert not metrics.calibration_note.visible


def test_metrics_csv_names_system_and_calibration(state, views):
    import csv
    import io

    state.calibration.method = "affine"
    rows = list(csv.DictReader(io.StringIO(state.export.metrics_csv())))
    assert [r["role"] for r in rows] == ["dev", "eval"]
    assert {r["system"] for r in rows} == {state.data.system}
    assert {r["calibration"] for r in rows} == {"affine, prior 0.5"}
    header = list(rows[0])
    assert header.index("system") < header.index("role") < header.index("cllr")


def test_a_highlighted_row_of_the_metrics_table_wins_over_the_row_stripes():
    """Both rules are equally specific, so the later one paints: a highlighted even row
    must be pink, not striped grey (the highlight rule once came first)."""
    from llrlab.dashboard.views.metrics import _css

    css = _css("14px")
    assert css.index("tr.lit td {") > css.index("tr:nth-child(even) td {")
