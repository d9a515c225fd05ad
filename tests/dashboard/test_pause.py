"""What a drag's pause costs the server (issue 20, item 3): with the grid in the page, the
point the page sends is a pause, and everything that follows it (the sidebar's widgets and
the address, through the :class:`~llrlab.dashboard.url.Debounced` copy) goes in the same
message, with no timer; the metrics panes send their new text alone, the operating-point
widgets their new value alone (:mod:`llrlab.dashboard.views._lean`)."""

from __future__ import annotations

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import ColumnDataSource, Span
from bokeh.plotting import figure

from llrlab.dashboard.url import POINT_NAMES, Debounced
from llrlab.dashboard.views._common import connect_drag
from llrlab.dashboard.views._lean import LeanFloatInput, TextAlert, TextHTML, TextMarkdown
from llrlab.dashboard.views.op_grid import OpGrid

from .test_drag_batch import _Served


def _paused_drag(state):
    """A served document with an in-page drag on the grid of ``state``'s analyses, and the
    Debounced copy of the point behind the sidebar and the address."""
    doc = _Served()
    grid = OpGrid(state=state)  # (not served when made: filled at once)
    copy = Debounced(state.point, POINT_NAMES, doc=doc, delay=0.2)
    grid.mirrors.append(copy)
    fig = figure(name="nber", tools="box_zoom")
    channel = connect_drag(fig, lambda x, _y: state.point.set_plo(x), grid=grid, mode="nber")
    doc.add_root(fig)
    return doc, grid, copy, channel


def test_a_pause_sent_by_the_page_moves_the_copy_at_once(state):
    doc, grid, copy, channel = _paused_drag(state)
    assert grid.in_page
    channel.data = {"x": [-1.5], "y": [0.5], "n": [1]}
    doc.run_ticks()
    assert state.point.plo == -1.5
    # the widgets and the address follow in the same held change: no timer, no second message
    assert copy.plo == -1.5 and copy.p_target == state.point.p_target
    assert copy.effective_prior == state.point.effective_prior
    assert doc.timeouts == []
    # the same point again: nothing changes, nothing is scheduled
    channel.data = {"x": [-1.5], "y": [0.5], "n": [2]}
    doc.run_ticks()
    assert copy.plo == -1.5 and doc.timeouts == []


def test_without_the_grid_in_the_page_the_copy_waits_for_the_pause(state):
    # (the page then sends every move: the copy follows once they stop, as before)
    doc, grid, copy, channel = _paused_drag(state)
    start = copy.plo
    grid.grid.data = {"plo": np.empty(0)}
    assert not grid.in_page
    channel.data = {"x": [-2.0], "y": [0.5], "n": [1]}
    doc.run_ticks()
    assert state.point.plo == -2.0 and copy.plo == start
    assert [ms for _, ms in doc.timeouts] == [200]
    doc.timeouts[0][0]()
    assert copy.plo == -2.0


def test_at_once_cancels_a_copy_waiting_for_its_timer(state, monkeypatch):
    import llrlab.dashboard.url as url

    held = []
    monkeypatch.setattr(url, "apply_held", lambda _doc, fn, *args: held.append(fn))
    doc = _Served()
    copy = Debounced(state.point, POINT_NAMES, doc=doc, delay=0.2)
    state.point.set_plo(-3.0)  # a fallback move: the copy waits
    with copy.at_once():  # then a pause
        state.point.set_plo(-1.0)
    assert copy.plo == -1.0 and len(doc.timeouts) == 1
    doc.timeouts[0][0]()  # the first move's timer: its turn has passed, no held change
    assert held == [] and copy.plo == -1.0


def _model(pane):
    doc = Document()
    model = pane.get_root(doc)
    doc.add_root(model)
    events = []
    doc.on_change(events.append)
    return model, events


@pytest.mark.parametrize(("lean", "plain", "text"), [
    (TextHTML, pn.pane.HTML, "<table><tr><td data-key='a'>1 &amp; 2</td></tr></table>"),
    (TextMarkdown, pn.pane.Markdown, "prior log-odds **-2.500**, threshold 2.50  \nnext"),
    (TextAlert, pn.pane.Alert, "Fewer than 30 **false alarms** at this threshold"),
])
def test_a_text_pane_sends_its_new_text_alone_and_the_same_text(lean, plain, text):
    kw = {"margin": (0, 10), "css_classes": ["llrlab-op-table"],
          "stylesheets": [":host { color: red; }"]}
    pane, ref = lean("old", **kw), plain("old", **kw)
    model, events = _model(pane)
    ref_model, _ = _model(ref)
    pane.object, ref.object = text, text
    assert [(e.model, e.attr) for e in events] == [(model, "text")]
    assert model.text == ref_model.text
    assert model.css_classes == ref_model.css_classes
    pane.styles = {"font-size": "20px"}  # other parameters: as in Panel
    assert model.styles == {"font-size": "20px"}


def test_text_panes_are_not_chosen_for_objects():
    assert type(pn.panel("<b>x</b>")) is not TextHTML
    assert type(pn.panel("**x**")) is pn.pane.Markdown


def test_a_lean_widget_skips_the_design_unless_its_stylesheets_change(monkeypatch):
    widget = LeanFloatInput(value=1.0, design=pn.theme.Bootstrap)
    model, events = _model(widget)
    calls = []
    design = type(widget._design)
    plain = design.params
    monkeypatch.setattr(design, "params", lambda self, *a, **k: calls.append(1) or plain(
        self, *a, **k))
    widget.value = 2.5
    assert model.value == 2.5 and calls == []
    assert [(e.model, e.attr) for e in events] == [(model, "value")]
    # Panel's own widget recomputes the design for a new value (what the lean one saves)
    ref = pn.widgets.FloatInput(value=1.0, design=pn.theme.Bootstrap)
    ref_model, _ = _model(ref)
    calls.clear()
    ref.value = 2.5
    assert len(calls) == 1
    # a change of stylesheets goes through Panel's code: the design's sheets come first
    calls.clear()
    widget.stylesheets = [":host { color: red; }"]
    assert len(calls) == 1
    ref.stylesheets = [":host { color: red; }"]
    assert len(model.stylesheets) == len(ref_model.stylesheets) > 1


def test_what_the_pause_changed_is_sent_once_and_the_rest_again(monkeypatch):
    # without Panel's hold (which would combine some of them): the document's events
    import llrlab.dashboard.views._common as common

    monkeypatch.setattr(common, "apply_held", lambda doc, fn, *args: fn(*args))
    fig = figure(name="plot", tools="box_zoom")
    moved, still = Span(location=0.0, name="moved"), Span(location=0.0, name="still")
    src = ColumnDataSource({"x": [0.0, 1.0]}, name="markers")
    for span in (moved, still):
        fig.add_layout(span)

    def callback(x, _y):
        moved.location = x
        src.data = {"x": [x, 1.0]}

    channel = connect_drag(fig, callback, echo=[(moved, "location"), (still, "location"),
                                                (src, "data")])
    doc = _Served()
    doc.add_root(fig)
    doc.add_root(src)
    events = []
    doc.on_change(events.append)
    channel.data = {"x": [0.7], "y": [1.0]}
    events.clear()
    doc.run_ticks()
    sent = [(e.model.name, getattr(e, "attr", None)) for e in events
            if getattr(e, "model", None) in (moved, still, src)]
    # the data once (a ColumnDataChanged; a second, whole copy used to follow), the moved
    # line once, and the line the pause did not move again (the page may have moved it)
    assert sorted(sent) == [("markers", "data"), ("moved", "location"), ("still", "location")]


def test_a_pause_resends_each_moved_model_once(state, monkeypatch):
    # the NBER and DET views list what the page moves in the grid's echo, once: a pause
    # sends each pair again at most once (the NBER line was listed twice before)
    import llrlab.dashboard.views._common as common
    from llrlab.dashboard.views import DETView, NBERView

    doc = _Served()
    grid = OpGrid(state=state)
    nber, det = NBERView(state=state, op_grid=grid), DETView(state=state, op_grid=grid)
    doc.add_root(nber.figure)
    doc.add_root(det.figure)
    assert grid.in_page
    sent = []
    real = common.resend
    monkeypatch.setattr(common, "resend", lambda m, a: sent.append((id(m), a)) or real(m, a))
    nber.drag.data = {"x": [-1.5], "y": [0.5], "n": [1]}
    doc.run_ticks()
    assert state.point.plo == -1.5
    sent.clear()
    nber.drag.data = {"x": [-1.5], "y": [0.5], "n": [2]}  # the same point: all sent again
    doc.run_ticks()
    assert (id(nber.op_span), "location") in sent
    assert (id(det.op_sources["eval"]), "data") in sent
    assert len(sent) == len(set(sent))
