"""Shared parts of the dashboard's Bokeh figures: the figure defaults, dragging the
operating point, batched updates.

The colours and dash patterns are in :mod:`llrlab.core.palette` (shared with the figures of
:mod:`llrlab.core.plot`), the two styles (screen, presentation) in :mod:`.styler`; both are
re-exported here.
"""

from __future__ import annotations

import contextlib
import functools
import logging

import numpy as np
from bokeh import events
from bokeh.models import (
    BoxZoomTool,
    ColumnDataSource,
    CustomJS,
    LegendItem,
    NoOverlap,
)
from bokeh.plotting import figure

from llrlab.core.palette import (
    COLORS,
    CONDITION_COLORS,
    CONDITION_DASHES,
    CURVE_DASHES,
    DASH,
    REF_COLORS,
    REF_DASHES,
    line_dash,
)

from ._models import frozen
from .styler import Styler, save_name, set_save_name

__all__ = ["COLORS", "CONDITION_COLORS", "CONDITION_DASHES", "CURVE_DASHES", "DASH",
           "REF_COLORS", "REF_DASHES", "Styler", "add_condition_slots", "apply_held",
           "condition_roles", "connect_drag", "dr30_data", "finite", "fit_figure", "isolated",
           "line_dash", "new_figure", "resend", "save_name", "set_data", "set_save_name",
           "stage_min"]

log = logging.getLogger(__name__)


def isolated(method):
    """Run a view's update method so that its failure stays its own.

    The state's changes reach the views through ``param`` watchers called one after the other
    in one batch: an exception in one would stop the batch and leave every later view showing
    the previous numbers (e.g. the metrics table keeping one system's numbers after the
    fusion).  Here the error is logged with its traceback and shown in the page's status
    line instead (``state.jobs.report``), and the other views are updated.
    """

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # one view must not leave the others stale
            what = f"updating the {type(self).__name__} ({method.__name__})"
            state = getattr(self, "state", None)
            jobs = getattr(state, "jobs", None)
            if jobs is not None:
                jobs.report(exc, what, lambda text: f"the page could not be updated: {text}")
            else:
                log.error("%s failed", what, exc_info=exc)
            return None

    return run

def finite(a):
    """Float array with +-inf replaced by NaN (Bokeh draws nothing there)."""
    a = np.asarray(a, dtype=np.float64)
    return np.where(np.isfinite(a), a, np.nan)


def new_figure(name, **kw):
    """A figure with the dashboard's defaults: no active drag tool (drags move the
    operating point), PNG save tool, sizes that stretch with the page."""
    kw.setdefault("tools", "save,reset,wheel_zoom,box_zoom")
    kw.setdefault("toolbar_location", "above")
    kw.setdefault("sizing_mode", "stretch_width")
    kw.setdefault("height", 400)
    fig = figure(name=name, **kw)
    fig.toolbar.active_drag = None
    fig.toolbar.active_scroll = None
    fig.toolbar.logo = None
    for ax in fig.axis:
        ax.axis_label_text_font_style = "normal"
        ax.major_label_policy = NoOverlap()  # narrow plots and large fonts: no collisions
    fig.title.text_font_style = "bold"
    set_save_name(fig, svg=False)
    # the save tool exports through the canvas the plot was first drawn on, made with the
    # output backend of that moment; a later change (the "SVG output" option ticked in the
    # page) must reach it, or the tool saves PNG data under the name ".svg"
    fig.js_on_change("output_backend", CustomJS(code=_BACKEND_JS))
    return fig


_BACKEND_JS = """
const views = Bokeh.index.find(cb_obj);
for (const view of views) {
  if (view.canvas_view != null) { view.canvas_view.model.output_backend = cb_obj.output_backend; }
}
"""


#: The margins of a figure's pane (Panel's default: 5 px above and below, 10 px each side).
PANE_MARGIN = (5, 10)


def fit_figure(fig, styler, width=None, height=None, *, default_height):
    """Give ``fig`` a fixed size within a stage's panel of ``width`` x ``height`` (less its
    pane's margins), or let it stretch across the page at its default height (``height``
    None; ``width`` is then the layout's estimate, used for the legend's columns)."""
    if height is not None:
        width, height = width - 2 * PANE_MARGIN[1], height - 2 * PANE_MARGIN[0]
    styler.width = width
    styler.height = height
    if styler.min_width is None:
        styler.min_width = fig.min_width
    if height is None:
        fig.update(sizing_mode="stretch_width", height=default_height,
                   min_width=styler.min_width)
    else:
        fig.update(sizing_mode="fixed", width=max(int(width), 200),
                   height=max(int(height), 200), min_width=200)


#: The least frame (the plotting area) of a figure on a stage, at scale 1 (width, height).
FRAME_MIN = (220, 150)


def stage_min(legend, scale=1.0, extra=0):
    """The least ``(width, height)`` in pixels of a stage figure whose ``legend`` lists its
    visible entries in one column below it (the layout moves it to the right side when
    that leaves more room): a readable frame, the title (on two lines), the axes, the
    legend's rows, and ``extra`` pixels below the figure (a caption)."""
    from ..state.display import TYPE_SCALE

    rows = sum(1 for i in legend.items if i.visible) if legend is not None else 0
    px = TYPE_SCALE["legend"][1] * scale
    height = (FRAME_MIN[1] + 2 * 1.3 * TYPE_SCALE["title"][1] + 2.6 * TYPE_SCALE["axis"][1]
              + 1.6 * TYPE_SCALE["ticks"][1]) * scale + rows * max(26 * scale, 1.3 * px)
    width = (FRAME_MIN[0] + 3 * TYPE_SCALE["ticks"][1] + 2 * TYPE_SCALE["axis"][1]) * scale
    return int(width + 20), int(height + 30 * scale + extra)


def connect_drag(fig, callback, *, js_code="", js_args=None, echo=(), grid=None, mode=None):
    """Call ``callback(x, y)`` (data coordinates) on clicks and drags on ``fig``.

    The figure has no active drag tool (see :func:`new_figure`), so a drag does not pan the
    plot.  Bokeh's ``Tap``/``PanStart``/``Pan``/``PanEnd`` UI events run a CustomJS callback
    in the browser which (unless the user has switched the box-zoom tool on) runs
    ``js_code`` at once, for immediate feedback (``cb_obj`` is the event), and writes the
    position into a one-row ColumnDataSource, ``<figure name>_drag``.  A press held still
    for 300 ms or more is a ``Press`` gesture in Bokeh, not a pan: it sets the point too,
    and the mouse moves that follow it (``MouseMove``, until ``PressUp`` or the pointer
    leaves the plot) drag as a pan does.  That change is synced to the server, where
    ``callback`` runs.  Returns the source (setting its ``data`` from Python triggers the
    callback too, which is how the unit tests drag).

    Served, positions are coalesced: a position is stored and applied on the next turn of
    the session's event loop, so that positions which arrived meanwhile are skipped and
    only the newest is applied (the last one always is), and the whole update is one held
    document change (:func:`apply_held`): one message to the browser.  ``echo`` lists the
    ``(model, attribute)`` pairs that ``js_code`` moves in the browser: after each applied
    position the server sends its values again (:func:`resend`), so that the line always
    ends where the numbers are, even after a stale update had moved it (those whose value
    the update changed are sent once, as changed).  With ``grid``, the pairs the grid lists
    (``grid.echo``, every view's) are not listed again in ``echo``.

    With ``grid`` (an :class:`.op_grid.OpGrid`) and ``mode`` (``"nber"`` or ``"det"``, how a
    position becomes a prior log-odds), the drag is computed in the page while the pointer
    moves (:data:`llrlab.dashboard.op_grid_script.SERVED_DRAG`: the line, the markers and the
    metrics table on the exact grid, nothing sent); the position goes to the server once,
    when the pointer has been still for :data:`DRAG_PAUSE_MS` or the drag ends (``Tap``,
    ``PanEnd``, ``PressUp``), and the server then sends again everything the page moved
    (``grid.moved``), and what follows the point only when a drag pauses (the sidebar's
    widgets, the address: ``grid.mirrors``) in the same message (``grid.paused``).  Until
    the grid's data are there, each position is sent as above.
    """
    # (the toolbar's own list: ``fig.select_one`` walks every model of the figure, 33 ms)
    zoom = next((t for t in fig.toolbar.tools if isinstance(t, BoxZoomTool)), None)
    channel = ColumnDataSource({"x": [np.nan], "y": [np.nan]}, name=f"{fig.name}_drag")
    latest = {"xy": None}

    def apply():
        xy, latest["xy"] = latest["xy"], None
        if xy is not None:
            apply_held(channel.document, moved, *xy)

    def moved(x, y):
        moves = [*echo, *(grid.moved() if grid is not None else ())]
        before = [getattr(model, attr) for model, attr in moves]
        with grid.paused() if grid is not None else contextlib.nullcontext():
            callback(x, y)
        for (model, attr), old in zip(moves, before, strict=True):
            if not _changed(getattr(model, attr), old):  # (a changed value is sent)
                resend(model, attr)

    def on_change(_attr, _old, new):
        x, y = new["x"][0], new["y"][0]
        if x is None or y is None or not (np.isfinite(x) and np.isfinite(y)):
            return
        doc = channel.document
        if doc is None or doc.session_context is None:  # not served: at once
            callback(float(x), float(y))
            return
        queued = latest["xy"] is not None
        latest["xy"] = (float(x), float(y))
        if not queued:
            doc.add_next_tick_callback(apply)

    channel.on_change("data", on_change)
    if grid is not None:
        _connect_in_page(fig, channel, zoom, grid, mode, js_code, js_args)
        return channel
    common = """
        if (zoom != null && zoom.active) { return; }
        if (cb_obj.x == null || cb_obj.y == null) { return; }
    """
    move = common + js_code + """
        channel.data = {x: [cb_obj.x], y: [cb_obj.y]};
    """
    js = CustomJS(args=dict(zoom=zoom, channel=channel, **(js_args or {})), code=move)
    for ev in (events.Tap, events.PanStart, events.Pan, events.PanEnd):
        fig.js_on_event(ev, js)
    # press, hold, then move: Press starts a drag that MouseMove continues until PressUp
    press = CustomJS(args=dict(zoom=zoom, channel=channel, **(js_args or {})),
                     code="channel._llrlab_pressed = true;" + move)
    held = CustomJS(args=dict(zoom=zoom, channel=channel, **(js_args or {})),
                    code="if (!channel._llrlab_pressed) { return; }" + move)
    release = CustomJS(args=dict(channel=channel), code="channel._llrlab_pressed = false;")
    fig.js_on_event(events.Press, press)
    fig.js_on_event(events.MouseMove, held)
    for ev in (events.PressUp, events.MouseLeave, events.PanStart):
        fig.js_on_event(ev, release)
    return channel


#: How long (ms) the pointer stays still before an in-page drag sends its position.
DRAG_PAUSE_MS = 200


def _connect_in_page(fig, channel, zoom, grid, mode, js_code, js_args):
    """The callbacks of a drag computed in the page (see :func:`connect_drag`)."""
    from ..op_grid_script import SERVED_DRAG, served_script

    # one callback for every event (its source, the look-up's, is sent once per figure)
    code = served_script("function fallback() {" + js_code + "}\n" + _EVENT_JS + SERVED_DRAG)
    args = dict(zoom=zoom, channel=channel, mode=mode, pause=DRAG_PAUSE_MS,
                colors=[COLORS["op"], COLORS["min"]], **grid.args(), **(js_args or {}))
    js = CustomJS(args=args, code=code)
    for ev in (events.Tap, events.PanStart, events.Pan, events.PanEnd, events.Press,
               events.PressUp, events.MouseMove, events.MouseLeave):
        fig.js_on_event(ev, js)


#: What each event of an in-page drag is: ``end`` (tap, pan end, the release of a press) or
#: a move; a press held still starts a drag that mouse moves continue until the release or
#: until the pointer leaves the plot (as in :func:`connect_drag`).
_EVENT_JS = """
const event = cb_obj.event_name;
if (event === "mouseleave" || event === "panstart") { channel._llrlab_pressed = false; }
if (event === "mouseleave") { return; }
if (event === "press") { channel._llrlab_pressed = true; }
if ((event === "mousemove" || event === "pressup") && !channel._llrlab_pressed) { return; }
if (event === "pressup") { channel._llrlab_pressed = false; }
const end = event === "tap" || event === "panend" || event === "pressup";
"""


def changed_values(obj, values):
    """Those of ``values`` (a dict of parameter names and values) that differ from ``obj``'s:
    set together in one ``param.update`` they make one event per changed parameter and none
    for the rest (param compares them too, at ~30 µs a parameter)."""
    return {k: v for k, v in values.items() if getattr(obj, k) != v}


def apply_held(doc, fn, *args):
    """Run ``fn(*args)`` on a served document as one batched change: Panel's document hold
    (events on the same property combined, sent as one PATCH-DOC message).  (Panel's
    ``freeze=True`` was measured slower here: it recomputes the whole model graph on exit.)"""
    import panel as pn
    from panel.io.state import set_curdoc

    if doc is None or doc.session_context is None:
        fn(*args)
        return
    with set_curdoc(doc), pn.io.hold(doc):
        fn(*args)


def resend(model, attr):
    """Send ``model.attr`` to the browser even when the server's value did not change: a
    CustomJS drag moves a line in the browser, and a stale server update may have moved it
    back since; the server's position is the one that counts."""
    if model.document is not None:
        v = getattr(model, attr)
        model.trigger(attr, v, v)


def _changed(new, old):
    """Whether a Bokeh property's value was set to a new one: Bokeh stores a value only
    when it differs from the old one (``matches``), so an unchanged property gives back
    the same object; equal numbers or strings count as unchanged (a property never set
    may give an equal default)."""
    if new is old:
        return False
    return not (isinstance(new, (int, float, str)) and new == old)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:  # not numbers (e.g. colours, markers)
        return bool(np.array_equal(a, b))


def add_condition_slots(view, n, *, prefix, empty, glyphs):
    """Build ``view``'s condition slots until there are ``n`` (at most MAX_CONDITIONS):
    slot ``k`` has a hidden source per set (``f"{prefix}_condition_{role}_{k}"``, columns
    ``empty()``), the renderers ``glyphs(src, role, color, dash)`` gives (a dict; ``dash``
    is the slot's own dash pattern, :data:`llrlab.core.palette.CONDITION_DASHES`), and a
    hidden legend item "condition k+1"; the renderers follow the presentation style.  Returns True
    when some were built (their curves then need data).

    ``view`` has ``figure``, ``legend``, ``styler`` and the lists ``condition_renderers``,
    ``condition_items`` and ``condition_sources[role]``."""
    from ..compute import MAX_CONDITIONS

    n = min(n, MAX_CONDITIONS)
    built = len(view.condition_renderers)
    if n <= built:
        return False
    # served: the document's model graph is recomputed once, not once per new model
    with frozen(view.figure.document):
        for k in range(built, n):
            _add_condition_slot(view, k, prefix, empty, glyphs)
    return True


def _add_condition_slot(view, k, prefix, empty, glyphs):
    color = CONDITION_COLORS[k % len(CONDITION_COLORS)]
    dash = CONDITION_DASHES[k % len(CONDITION_DASHES)]
    slot = {}
    for role in ("eval", "dev"):
        src = ColumnDataSource(empty(), name=f"{prefix}_condition_{role}_{k}")
        view.condition_sources[role].append(src)
        slot.update(glyphs(src, role, color, dash))
    view.condition_renderers.append(slot)
    item = LegendItem(label=f"condition {k + 1}", renderers=list(slot.values()),
                      visible=False)
    view.condition_items.append(item)
    view.legend.items.append(item)
    view.styler.add(slot.values())


def condition_roles(res, display):
    """The sets whose per-condition curves are drawn: eval (or the only set), and dev too
    when it is shown -- except in presentation style, where the primary set's alone are
    (every condition twice is more than a projected plot can show legibly)."""
    if res is None or res.primary is None:
        return set()
    roles = {res.primary.role}
    if display.show_dev and not display.presentation:
        roles |= set(res.datasets)
    return roles


def dr30_data(x=(np.nan, np.nan), y=(np.nan, np.nan)):
    """The columns of the two DR30 markers of a plot: where false alarms run out (a
    triangle, the false-alarm colour) and where misses do (an inverted triangle, the miss
    colour)."""
    return {"x": list(x), "y": list(y), "color": [COLORS["dr30_fa"], COLORS["dr30_miss"]],
            "marker": ["triangle", "inverted_triangle"]}


def set_data(source, data):
    """``source.data = data`` unless every column is already equal (NaN equal to NaN):
    an unchanged source sends nothing to the browser (a plain assignment always does).
    Returns True when the data changed."""
    old = source.data
    if old.keys() == data.keys() and all(_same(old[k], v) for k, v in data.items()):
        return False
    source.data = data
    return True
