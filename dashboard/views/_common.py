"""Shared look of the dashboard's Bokeh figures: colours, fonts, presentation style."""

from __future__ import annotations

import functools
import logging
from typing import ClassVar

import numpy as np
from bokeh import events
from bokeh.models import BoxZoomTool, ColumnDataSource, CustomJS, GlyphRenderer
from bokeh.plotting import figure

__all__ = ["COLORS", "CONDITION_COLORS", "Styler", "connect_drag", "finite", "isolated",
           "new_figure"]

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


def connect_drag(fig, callback, *, js_code="", js_args=None):
    """Call ``callback(x, y)`` (data coordinates) on clicks and drags on ``fig``.

    The figure has no active drag tool (see :func:`new_figure`), so a drag does not pan the
    plot.  Bokeh's ``Tap``/``PanStart``/``Pan``/``PanEnd`` UI events run a CustomJS callback
    in the browser which (unless the user has switched the box-zoom tool on) runs
    ``js_code`` at once, for immediate feedback (``cb_obj`` is the event), and writes the
    position into a one-row ColumnDataSource, ``<figure name>_drag``.  That change is synced
    to the server, where ``callback`` runs.  Returns the source (setting its ``data`` from
    Python triggers the callback too, which is how the unit tests drag).
    """
    zoom = fig.select_one({"type": BoxZoomTool})
    channel = ColumnDataSource({"x": [np.nan], "y": [np.nan]}, name=f"{fig.name}_drag")

    def on_change(_attr, _old, new):
        x, y = new["x"][0], new["y"][0]
        if x is not None and y is not None and np.isfinite(x) and np.isfinite(y):
            callback(float(x), float(y))

    channel.on_change("data", on_change)
    js = CustomJS(args=dict(zoom=zoom, channel=channel, **(js_args or {})), code="""
        if (zoom != null && zoom.active) { return; }
        if (cb_obj.x == null || cb_obj.y == null) { return; }
        """ + js_code + """
        channel.data = {x: [cb_obj.x], y: [cb_obj.y]};
    """)
    for ev in (events.Tap, events.PanStart, events.Pan, events.PanEnd):
        fig.js_on_event(ev, js)
    return channel


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
        for r in self.fig.renderers:
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
