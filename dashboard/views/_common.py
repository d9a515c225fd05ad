"""Shared look of the dashboard's Bokeh figures: colours, fonts, presentation style."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from bokeh import events
from bokeh.models import BoxZoomTool, ColumnDataSource, CustomJS, GlyphRenderer
from bokeh.plotting import figure

__all__ = ["COLORS", "CONDITION_COLORS", "Styler", "apply_held", "connect_drag", "finite",
           "new_figure", "resend", "set_data"]

#: One meaning per colour across the dashboard.
COLORS = {
    "act": "#d62728",        # actual DCF (NBER)
    "min": "#222222",        # minimum DCF (NBER)
    "miss": "#1f77b4",       # misses' contribution
    "fa": "#ff7f0e",         # false alarms' contribution
    "true": "#2ca02c",       # teaching mode: true LLR
    "op": "#c51b8a",         # operating point (magenta, as in BOSARIS)
    "dr30_fa": "#d62728",    # DR30 marker where false alarms run out
    "dr30_miss": "#2ca02c",  # DR30 marker where misses run out
    "steppy": "#1f77b4",     # DET steppy curve
    "rocch": "#d62728",      # DET ROCCH curve
    "tar": "#ff7f0e",        # histogram targets
    "non": "#1f77b4",        # histogram non-targets
    "default": "#7f7f7f",
    "unreliable": "#9e9e9e",
    "map": "#6a3d9a",        # calibration map
}
REF_COLORS = ("#9467bd", "#8c564b", "#17becf", "#bcbd22")
#: Muted colours of per-condition curves (distinct from the act/min/op colours above).
CONDITION_COLORS = ("#4e79a7", "#59a14f", "#b07aa1", "#e6a23c", "#76b7b2", "#9c755f",
                    "#ff9da7", "#8cd17d", "#a0cbe8", "#bab0ac")
DASH = {"eval": "solid", "dev": "dashed", "true": "solid"}


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
    fig.title.text_font_style = "bold"
    return fig


def connect_drag(fig, callback, *, js_code="", js_args=None, echo=()):
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
    ends where the numbers are, even after a stale update had moved it.
    """
    zoom = fig.select_one({"type": BoxZoomTool})
    channel = ColumnDataSource({"x": [np.nan], "y": [np.nan]}, name=f"{fig.name}_drag")
    latest = {"xy": None}

    def apply():
        xy, latest["xy"] = latest["xy"], None
        if xy is not None:
            apply_held(channel.document, moved, *xy)

    def moved(x, y):
        callback(x, y)
        for model, attr in echo:
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


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:  # not numbers (e.g. colours, markers)
        return bool(np.array_equal(a, b))


def set_data(source, data):
    """``source.data = data`` unless every column is already equal (NaN equal to NaN):
    an unchanged source sends nothing to the browser (a plain assignment always does).
    Returns True when the data changed."""
    old = source.data
    if old.keys() == data.keys() and all(_same(old[k], v) for k, v in data.items()):
        return False
    source.data = data
    return True


class Styler:
    """Switches a figure between screen and presentation style, and canvas/SVG output.

    Line widths and marker sizes are remembered when the figure is finished (call
    :meth:`capture`) and scaled from there, so switching back and forth is exact.
    """

    FONTS: ClassVar[dict] = {False: ("13pt", "11pt", "9pt", "9pt"),
                             True: ("20pt", "17pt", "14pt", "14pt")}

    def __init__(self, fig):
        self.fig = fig
        self.base = []

    def capture(self):
        self.add(self.fig.renderers)

    def add(self, renderers):
        """Remember the widths and sizes of ``renderers`` added after :meth:`capture`."""
        for r in renderers:
            if not isinstance(r, GlyphRenderer):
                continue
            g = r.glyph
            lw = getattr(g, "line_width", None)
            size = getattr(g, "size", None)
            self.base.append((g, lw if isinstance(lw, (int, float)) else None,
                              size if isinstance(size, (int, float)) else None))

    def apply(self, presentation, svg):
        fig = self.fig
        title, label, ticks, legend = self.FONTS[bool(presentation)]
        fig.title.text_font_size = title
        for ax in fig.axis:
            ax.axis_label_text_font_size = label
            ax.major_label_text_font_size = ticks
        for leg in fig.legend:
            leg.label_text_font_size = legend
            leg.glyph_width = 30 if presentation else 20
        k = 2.0 if presentation else 1.0
        for g, lw, size in self.base:
            if lw is not None:
                g.line_width = lw * k
            if size is not None:
                g.size = size * (1.6 if presentation else 1.0)
        fig.toolbar.autohide = bool(presentation)
        backend = "svg" if svg else "canvas"
        if fig.output_backend != backend:
            fig.output_backend = backend
