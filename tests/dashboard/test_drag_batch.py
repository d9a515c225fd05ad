"""A drag on a served page: positions coalesced to the newest, the final one always applied,
line positions re-sent, and the Debounced copy behind the sidebar widgets and the address.

A served Bokeh document is stood in for by a real ``Document`` whose session context is a
plain object and whose loop callbacks are recorded (run by the test when it wants).
"""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.models import Span
from bokeh.plotting import figure

from llrlab.dashboard.state import OperatingPointState
from llrlab.dashboard.url import Debounced
from llrlab.dashboard.views._common import connect_drag


class _Served(Document):
    """A document that looks served: next-tick and timeout callbacks are recorded."""

    def __init__(self):
        super().__init__()
        context = object()
        self._session_context = lambda: context
        self.ticks, self.timeouts = [], []

    def add_next_tick_callback(self, callback):
        self.ticks.append(callback)

    def add_timeout_callback(self, callback, timeout_milliseconds):
        self.timeouts.append((callback, timeout_milliseconds))

    def run_ticks(self):
        while self.ticks:
            self.ticks.pop(0)()


def _drag_setup():
    fig = figure(name="plot", tools="box_zoom")
    span = Span(location=0.0, dimension="height", name="line")
    fig.add_layout(span)
    seen = []
    channel = connect_drag(fig, lambda x, y: seen.append((x, y)),
                           js_args=dict(span=span), js_code="span.location = cb_obj.x;",
                           echo=[(span, "location")])
    doc = _Served()
    doc.add_root(fig)
    return doc, channel, span, seen


def test_positions_that_arrive_while_busy_are_coalesced_to_the_newest():
    doc, channel, _, seen = _drag_setup()
    for x in (0.1, 0.2, 0.3, 0.4):  # four updates from the browser before the loop turns
        channel.data = {"x": [x], "y": [1.0]}
    assert seen == [] and len(doc.ticks) == 1  # one application queued
    doc.run_ticks()
    assert seen == [(0.4, 1.0)]  # only the newest, and it is applied
    channel.data = {"x": [0.5], "y": [1.0]}
    channel.data = {"x": [np.nan], "y": [1.0]}  # ignored
    doc.run_ticks()
    assert seen == [(0.4, 1.0), (0.5, 1.0)]


def test_the_line_is_sent_again_after_each_applied_position(monkeypatch):
    # without Panel's hold (which keeps the events for the websocket): the document's
    # change events themselves (the hold is covered by the browser test's message count)
    import llrlab.dashboard.views._common as common

    monkeypatch.setattr(common, "apply_held", lambda doc, fn, *args: fn(*args))
    doc, channel, span, seen = _drag_setup()
    events = []
    doc.on_change(lambda event: events.append(event))
    channel.data = {"x": [0.7], "y": [1.0]}
    events.clear()
    doc.run_ticks()
    # the callback did not move the span, yet its value is sent to the browser
    sent = [e for e in events if getattr(e, "model", None) is span]
    assert [e.attr for e in sent] == ["location"] and seen == [(0.7, 1.0)]


def test_unserved_drags_apply_at_once():
    fig = figure(name="plot", tools="box_zoom")
    seen = []
    channel = connect_drag(fig, lambda x, y: seen.append(x))
    channel.data = {"x": [1.5], "y": [0.0]}
    assert seen == [1.5]


def test_press_hold_and_mouse_moves_are_connected():
    fig = figure(name="plot", tools="box_zoom")
    connect_drag(fig, lambda x, y: None)
    kinds = set(fig.js_event_callbacks)
    assert {"tap", "panstart", "pan", "panend", "press", "pressup", "mousemove",
            "mouseleave"} <= kinds


def test_debounced_copy_follows_only_when_still():
    point = OperatingPointState()
    doc = _Served()
    copy = Debounced(point, ("p_target", "plo"), doc=doc, delay=0.25)
    start = copy.plo
    point.set_plo(-1.0)
    point.set_plo(-2.0)
    assert copy.plo == start  # not yet
    assert [ms for _, ms in doc.timeouts] == [250, 250]
    first, last = doc.timeouts[0][0], doc.timeouts[1][0]
    first()  # a timer of a position since moved on: nothing
    assert copy.plo == start
    last()
    assert copy.plo == -2.0 and copy.p_target == point.p_target


def test_debounced_copy_sets_what_is_typed_at_once_and_only_that():
    point = OperatingPointState()
    doc = _Served()
    copy = Debounced(point, ("p_target", "c_miss", "plo"), doc=doc)
    point.set_plo(-3.0)  # the copy is late: its p_target and plo are stale
    copy.c_miss = 10.0  # typed into a widget
    assert point.c_miss == 10.0
    # the stale p_target of the copy was not pushed back: the point stayed at plo -3
    # (a cost change keeps p_target and moves plo by log(10))
    assert point.plo == pytest.approx(-3.0 + np.log(10.0), abs=1e-12)


def test_debounced_copy_without_a_served_document_is_immediate():
    point = OperatingPointState()
    copy = Debounced(point, ("plo",))
    point.set_plo(1.25)
    assert copy.plo == 1.25
    copy.plo = -0.5
    assert point.plo == -0.5


def test_an_unchanged_source_is_not_sent_again():
    from bokeh.models import ColumnDataSource

    from llrlab.dashboard.views._common import set_data

    src = ColumnDataSource({"x": [np.nan, 1.0], "c": ["a", "b"]})
    doc = Document()
    doc.add_root(src)
    events = []
    doc.on_change(lambda event: events.append(event))
    assert not set_data(src, {"x": np.array([np.nan, 1.0]), "c": ["a", "b"]})
    assert events == []
    assert set_data(src, {"x": [np.nan, 2.0], "c": ["a", "b"]})
    assert set_data(src, {"x": [np.nan], "c": ["a"]})  # another length
    assert set_data(src, {"y": [1.0]})  # other columns
    assert len(events) == 3 and list(src.data) == ["y"]
