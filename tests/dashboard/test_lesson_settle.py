"""A lesson step updates each view once, from the step's final state
(:meth:`DashboardState.when_settled`), and the plots' style is not set again when nothing it
depends on changed (:class:`~llrlab.dashboard.views.styler.Styler`): a step reached with the
keys shows what the step's link shows.

Before, a step laid out the stage twice (the first time from the previous step's numbers:
steps 6 and 9 of the calibration lesson, reached going back, kept a stage planned for the
step after them), filled the metrics table three times and restyled each plot two or three
times (issue 19: instant steps)."""

from __future__ import annotations

import pytest
from bokeh.document import Document
from bokeh.models import GlyphRenderer, Legend
from bokeh.plotting import figure
from panel.io.state import set_curdoc

from llrlab.dashboard.app import create_app
from llrlab.dashboard.layout import MainArea
from llrlab.dashboard.state import DashboardState
from llrlab.dashboard.views import styler as styler_module
from llrlab.dashboard.views._models import same_models
from llrlab.dashboard.views.metrics import MetricsView
from llrlab.dashboard.views.op_grid import OpGrid

LESSON = "calibration"


# ------------------------------------------------------------------ when_settled


def test_when_settled_runs_now_outside_a_hold():
    st = DashboardState()
    calls = []
    st.when_settled(lambda: calls.append("now"))
    assert calls == ["now"]


def test_when_settled_runs_once_at_the_end_of_the_outer_hold_after_the_results():
    st = DashboardState()
    calls = []

    def layout():
        calls.append(("layout", st.point.plo))

    def table():
        calls.append(("table", st.point.plo))

    with st.hold():
        st.when_settled(table)
        with st.hold():
            st.point.set_plo(-1.0)
            st.when_settled(table)
            st.when_settled(layout, first=True)
        assert calls == []  # (the inner hold's end is not the end)
        st.point.set_plo(-2.0)
        st.when_settled(layout, first=True)
    # the layout first, each once, with the final operating point
    assert calls == [("layout", -2.0), ("table", -2.0)]
    st.when_settled(table)
    assert calls[-1] == ("table", -2.0) and len(calls) == 3


def test_what_a_settled_call_asks_for_waits_its_turn_once():
    st = DashboardState()
    calls = []

    def table():
        calls.append("table")

    def layout():
        calls.append("layout")
        st.when_settled(table)  # (a resize asks the table again)

    with st.hold():
        st.when_settled(table)
        st.when_settled(layout, first=True)
    assert calls == ["layout", "table"]


# ------------------------------------------------------------------ Styler


def _styled():
    fig = figure(width=500, height=400, title="A title long enough to be wrapped on a stage")
    r = fig.line([0, 1], [0, 1], line_width=2, legend_label="line")
    fig.add_layout(fig.legend[0], "below")
    doc = Document()
    doc.add_root(fig)
    st = styler_module.Styler(fig, legend_cols=3)
    st.capture()
    st.width, st.height = 500, 400
    events = []
    doc.on_change(events.append)
    return fig, r, st, events


def test_styler_sets_nothing_when_its_inputs_are_unchanged():
    _fig, r, st, events = _styled()
    st.apply(True, False, scale=1.2)
    assert events  # the first time: the presentation style
    width = r.glyph.line_width
    events.clear()
    st.apply(True, False, scale=1.2)
    st.apply(True, False, (), scale=1.2)
    assert events == []
    assert r.glyph.line_width == width


@pytest.mark.parametrize("change", ["scale", "style", "svg", "highlight", "size", "title",
                                    "legend", "registered"])
def test_styler_applies_again_when_an_input_changed(change):
    fig, r, st, events = _styled()
    st.apply(True, False, scale=1.2)
    before = (r.glyph.line_width, fig.title.text_font_size, fig.output_backend,
              fig.title.text, fig.legend[0].label_width, fig.legend[0].ncols)
    args = {"presentation": True, "svg": False, "highlight": (), "scale": 1.2}
    if change == "scale":
        args["scale"] = 1.5
    elif change == "style":
        args["presentation"] = False
    elif change == "svg":
        args["svg"] = True
    elif change == "highlight":
        args["highlight"] = (r,)
    elif change == "size":
        st.width = 250  # the title wraps, the legend has fewer columns
    elif change == "title":
        fig.title.text = "Another title from the view, as long, to be wrapped too"
    elif change == "legend":
        fig.legend[0].items[0].label = {"value": "a much longer label than before"}
    elif change == "registered":
        st.add(fig.renderers)  # (registered twice: the same widths, applied anew)
        fig.renderers[0].glyph.line_width = 1.0
    events.clear()
    st.apply(**args)
    after = (r.glyph.line_width, fig.title.text_font_size, fig.output_backend,
             fig.title.text, fig.legend[0].label_width, fig.legend[0].ncols)
    assert events and after != before


def _legend_below(monkeypatch):
    """A wide, short figure with six curves and its legend below it, in a document whose
    walks of its models (``recompute``) are counted: ``(fig, doc, walks)``."""
    fig = figure(width=900, height=320, title="t")
    for i in range(6):
        fig.line([0, 1], [i, i], legend_label=f"curve number {i}")
    fig.add_layout(fig.legend[0], "below")
    doc = Document()
    doc.add_root(fig)
    walks = []
    recompute = doc.models.recompute
    monkeypatch.setattr(doc.models, "recompute", lambda: (walks.append(1), recompute())[1])
    return fig, doc, walks


def test_a_legend_moved_beside_its_plot_walks_no_models(monkeypatch):
    # the move changes which models the figure's sides hold, not which models the
    # document holds: Bokeh's walk of them all is skipped, and the document's models are
    # still exactly those a walk finds
    fig, doc, walks = _legend_below(monkeypatch)
    st = styler_module.Styler(fig, legend_cols=2)
    st.capture()
    st.width, st.height = 900, 320
    before = {m.id for m in doc.models}
    st.apply(True, False, scale=1.0)
    assert fig.legend[0] in fig.right and fig.legend[0] not in fig.below
    assert walks == []
    assert isinstance(fig.legend[0], Legend)
    assert doc.models._freeze_count == 0
    assert {m.id for m in doc.models} == before == {m.id for m in fig.references()}
    # and back below (a narrow figure): again no walk, and later changes walk as before
    st.width = 300
    st.apply(True, False, scale=1.0)
    assert fig.legend[0] in fig.below and fig.legend[0] not in fig.right
    assert walks == []
    fig.line([0, 1], [1, 0], legend_label="new")  # a new model: Bokeh walks
    assert walks and {m.id for m in doc.models} == {m.id for m in fig.references()}


def test_a_legend_not_in_the_document_moves_with_bokeh_s_walk(monkeypatch):
    # (the shortcut only for a model the document holds: here the legend is new to it)
    fig, doc, walks = _legend_below(monkeypatch)
    fresh = Legend(items=list(fig.legend[0].items))
    with same_models(doc, fresh):
        fig.right = [*fig.right, fresh]
    assert walks == [1] and fresh.document is doc


# ------------------------------------------------------------------ a lesson's page


def _page(monkeypatch, lesson=LESSON):
    # (the drag's grid is computed and sent apart from a step when served: not here)
    monkeypatch.setattr(OpGrid, "_start", lambda self, res: None)
    doc = Document()
    with set_curdoc(doc):
        page = create_app(threaded=False, lesson=lesson)
        page.server_doc(doc)
    return doc, page


def _count(monkeypatch, cls, name, calls):
    fn = getattr(cls, name)

    def wrapper(self, *a, **kw):
        calls.append((name, id(self)))
        return fn(self, *a, **kw)

    monkeypatch.setattr(cls, name, wrapper)


@pytest.mark.slow
def test_a_lesson_step_lays_out_fills_the_table_and_styles_each_plot_once(monkeypatch):
    doc, page = _page(monkeypatch)
    st = page.state
    n = len(st.lesson.current())
    calls = []
    _count(monkeypatch, MainArea, "_lay_out", calls)
    _count(monkeypatch, MetricsView, "_show", calls)
    _count(monkeypatch, styler_module.Styler, "_apply", calls)
    with set_curdoc(doc):
        for k in [*range(2, n + 1), *range(n - 1, 0, -1)]:
            calls.clear()
            assert st.goto_step(k)
            assert st.lesson.step == k
            names = [c[0] for c in calls]
            assert names.count("_lay_out") == 1, k
            assert names.count("_show") <= 1, k
            styled = [c for c in calls if c[0] == "_apply"]
            assert len(styled) == len(set(styled)), k  # each figure at most once


def _glyph(r):
    g = r.glyph
    return {p: getattr(g, p) for p in ("line_width", "size", "line_dash")
            if p in type(g).properties()}


def _shown(page):
    """What the stage shows at the current step: the panels and their outlines, the
    shown plots' sizes, titles, axes, legends, visible lines and spans (their widths,
    sizes, dashes), the metrics panel's visible parts and size, the step's text and its
    box."""
    area = page.main_area
    show = page.state.lesson.current_step().show
    out = {"items": {n: (i.visible, list(i.css_classes)) for n, i in area.items.items()},
           "row": (list(area.row.css_classes), dict(area.row.styles))}
    for name in show:
        view = area.views[name]
        fig = getattr(view, "figure", None)
        if fig is not None:
            out[name] = {
                "size": (fig.width, fig.height, fig.sizing_mode, fig.min_width),
                "title": (fig.title.text, fig.title.text_font_size),
                "axes": [(a.axis_label, a.axis_label_text_font_size,
                          a.major_label_text_font_size) for a in fig.axis],
                "legends": [(leg in fig.right, leg.ncols, leg.label_text_font_size,
                             leg.label_width, [str(i.label) for i in leg.items if i.visible])
                            for leg in fig.legend],
                "glyphs": [_glyph(r) for r in fig.renderers
                           if isinstance(r, GlyphRenderer) and r.visible],
                "spans": [(m.location, m.line_width, m.line_dash) for m in fig.center
                          if hasattr(m, "location") and hasattr(m, "line_width")]}
    if "metrics" in show:
        m = area.views["metrics"]
        out["metrics"] = (m._layout.width, m._layout.height, [
            (p.object, dict(p.styles), tuple(p.margin)) for p in
            (m.title, m.header, m.table, m.ci_note, m.calibration_note, m.warning,
             m.condition_title, m.condition_table) if p.visible])
    t = area.lesson_text
    out["text"] = (t.text.object, dict(t.text.styles), t._layout.width, t._layout.height)
    return out


@pytest.mark.slow
def test_a_step_reached_with_the_keys_shows_what_its_link_shows(monkeypatch):
    """Forward to the end, then back: steps 2, 6 and 9 (6 and 9 kept the stage planned
    for the step after them) as a page opened at that step shows them."""
    doc, page = _page(monkeypatch)
    st = page.state
    n = len(st.lesson.current())
    reached = {}
    with set_curdoc(doc):
        for k in [*range(2, n + 1), *range(n - 1, 1, -1)]:
            st.goto_step(k)
            if k in (2, 6, 9):
                reached[k] = _shown(page)
    for k, seen in reached.items():
        other, direct = _page(monkeypatch, lesson=None)
        with set_curdoc(other):
            with direct.state.hold():  # (as a link opens it: one change)
                direct.state.lesson.open(LESSON, k)
            assert _shown(direct) == seen, k
