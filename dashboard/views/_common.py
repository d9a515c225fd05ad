"""Shared look of the dashboard's Bokeh figures: colours, fonts, presentation style.

The colours are those of Okabe & Ito's colour-blind-safe palette (Okabe & Ito 2008, "Color
Universal Design"), one meaning per colour: every pair that must be told apart (actual vs
minimum DCF, the two DR30 markers, steppy vs ROCCH, targets vs non-targets) stays distinct
for the common forms of colour blindness, on a projector too.
"""

from __future__ import annotations

import functools
import logging
from typing import ClassVar

import numpy as np
from bokeh import events
from bokeh.models import (
    BoxZoomTool,
    ColumnDataSource,
    CustomJS,
    GlyphRenderer,
    LegendItem,
    NoOverlap,
    SaveTool,
    Scatter,
)
from bokeh.plotting import figure

__all__ = ["COLORS", "CONDITION_COLORS", "Styler", "add_condition_slots", "apply_held",
           "connect_drag", "finite",
           "fit_figure", "isolated", "new_figure", "resend", "save_name", "set_data",
           "set_save_name"]

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

#: One meaning per colour across the dashboard (Okabe-Ito palette, see the module docstring).
COLORS = {
    "act": "#D55E00",        # actual DCF (NBER): vermillion
    "min": "#000000",        # minimum DCF (NBER): black
    "miss": "#0072B2",       # misses' contribution: blue
    "fa": "#E69F00",         # false alarms' contribution: orange
    "true": "#009E73",       # teaching mode: true LLR, bluish green
    "op": "#CC79A7",         # operating point: reddish purple (magenta in BOSARIS)
    "dr30_fa": "#D55E00",    # DR30 marker where false alarms run out
    "dr30_miss": "#56B4E9",  # DR30 marker where misses run out: sky blue
    "steppy": "#0072B2",     # DET steppy curve
    "rocch": "#D55E00",      # DET ROCCH curve
    "tar": "#E69F00",        # histogram targets
    "non": "#0072B2",        # histogram non-targets
    "default": "#7f7f7f",
    "unreliable": "#9e9e9e",
    "map": "#0072B2",        # calibration map
}
#: Teaching mode's reference miscalibrations (dash-dotted, behind the main curves): none in
#: the true LLR's green, each at least 4:1 against white (WCAG non-text contrast is 3:1).
REF_COLORS = ("#4477AA", "#8C510A", "#6A3D9A", "#8A7B00")
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
        ax.major_label_policy = NoOverlap()  # narrow plots and large fonts: no collisions
    fig.title.text_font_style = "bold"
    set_save_name(fig, svg=False)
    return fig


def save_name(fig, svg):
    """The file name the save tool of ``fig`` gives its image: ``llrlab-<figure name>.png``
    (or ``.svg`` with SVG output), so a save neither asks for a name nor offers
    ``bokeh_plot``."""
    return f"llrlab-{fig.name or 'plot'}.{'svg' if svg else 'png'}"


def set_save_name(fig, svg):
    """Set the save tool's file name of ``fig`` (see :func:`save_name`).  The tool is looked
    for in the toolbar, not by ``fig.select``, which walks every model of the figure (its
    data sources too): 10 ms per call, on every results and style change of every plot."""
    name = save_name(fig, svg)
    for tool in fig.toolbar.tools:
        if isinstance(tool, SaveTool) and tool.filename != name:
            tool.filename = name


def _label_text(label):
    """The text of a legend item's label (a string or a ``value(...)``)."""
    if isinstance(label, str):
        return label
    if isinstance(label, dict):
        return str(label.get("value", ""))
    return str(getattr(label, "value", "") or "")


def fit_figure(fig, styler, width=None, height=None, *, default_height):
    """Give ``fig`` a fixed ``width`` x ``height`` (a stage), or let it stretch across the
    page at its default height (``height`` None; ``width`` is then the layout's estimate,
    used for the legend's columns)."""
    styler.width = width
    if styler.min_width is None:
        styler.min_width = fig.min_width
    if height is None:
        fig.update(sizing_mode="stretch_width", height=default_height,
                   min_width=styler.min_width)
    else:
        fig.update(sizing_mode="fixed", width=max(int(width), 200),
                   height=max(int(height), 200), min_width=200)


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


def add_condition_slots(view, n, *, prefix, empty, glyphs):
    """Build ``view``'s condition slots until there are ``n`` (at most MAX_CONDITIONS):
    slot ``k`` has a hidden source per set (``f"{prefix}_condition_{role}_{k}"``, columns
    ``empty()``), the renderers ``glyphs(src, role, color)`` gives (a dict), and a hidden
    legend item "condition k+1"; the renderers follow the presentation style.  Returns True
    when some were built (their curves then need data).

    ``view`` has ``figure``, ``legend``, ``styler`` and the lists ``condition_renderers``,
    ``condition_items`` and ``condition_sources[role]``."""
    from ..compute import MAX_CONDITIONS

    n = min(n, MAX_CONDITIONS)
    built = len(view.condition_renderers)
    for k in range(built, n):
        color = CONDITION_COLORS[k % len(CONDITION_COLORS)]
        slot = {}
        for role in ("eval", "dev"):
            src = ColumnDataSource(empty(), name=f"{prefix}_condition_{role}_{k}")
            view.condition_sources[role].append(src)
            slot.update(glyphs(src, role, color))
        view.condition_renderers.append(slot)
        item = LegendItem(label=f"condition {k + 1}", renderers=list(slot.values()),
                          visible=False)
        view.condition_items.append(item)
        view.legend.items.append(item)
        view.styler.add(slot.values())
    return n > built


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
    :meth:`capture`) and scaled from there, so switching back and forth is exact.  In
    presentation style fonts are larger, lines twice as thick and markers 1.6 times larger
    (their outlines stay thin, so that a marker keeps its fill colour), legends have larger
    samples and fewer columns.  Text annotations (labels) registered with :meth:`add_text`
    follow the font sizes too.  Highlighted renderers (a lesson step's ``highlight``) are
    drawn thicker still.
    """

    FONTS: ClassVar[dict] = {False: ("13pt", "11pt", "9pt", "9pt"),
                             True: ("20pt", "17pt", "14pt", "14pt")}
    #: Legend sample (glyph) width and height in pixels.
    GLYPH: ClassVar[dict] = {False: (20, 20), True: (34, 28)}
    #: Extra factor of highlighted lines and markers.
    HIGHLIGHT = 1.8

    #: Font size in pixels of legend labels, and a label character's width relative to it.
    _LEGEND_PX: ClassVar[dict] = {False: 12.0, True: 18.7}
    _CHAR = 0.56

    def __init__(self, fig, *, legend_cols=None):
        self.fig = fig
        self.base = []
        self.texts = []
        #: Most columns of a legend placed below the plot (None: its ``ncols`` is left as is);
        #: the columns actually used are as many as fit in :attr:`width`.
        self.legend_cols = legend_cols
        #: The figure's width in pixels when known (set by the layout), else None.
        self.width = None
        #: The figure's own minimum width (kept while it is on a stage).
        self.min_width = None

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
            self.base.append((r, g, lw if isinstance(lw, (int, float)) else None,
                              size if isinstance(size, (int, float)) else None,
                              isinstance(g, Scatter)))

    def _columns(self, legend, big):
        """As many legend columns as fit in the figure's width (at most ``legend_cols``),
        from the longest shown label."""
        labels = [_label_text(i.label) for i in legend.items if i.visible] or [""]
        px = self._LEGEND_PX[big]
        text = int(self._CHAR * px * max(len(t) for t in labels)) + 4
        # every column as wide as the longest label (Bokeh sizes columns from measured
        # text, which let long labels run into the next column)
        legend.label_width = text
        col = self.GLYPH[big][0] + legend.label_standoff + legend.spacing + 12 + text
        width = self.width or 560  # the narrowest width the page gives a plot
        avail = width - 2 * (legend.padding + legend.margin) - 16
        return int(max(1, min(self.legend_cols, avail // col)))

    def add_text(self, model, screen="9pt", presentation="14pt", prop="text_font_size"):
        """Let ``model.<prop>`` (a label's font size) follow the style."""
        self.texts.append((model, prop, screen, presentation))

    def apply(self, presentation, svg, highlight=()):
        fig = self.fig
        big = bool(presentation)
        title, label, ticks, legend = self.FONTS[big]
        fig.title.text_font_size = title
        for ax in fig.axis:
            ax.axis_label_text_font_size = label
            ax.major_label_text_font_size = ticks
        gw, gh = self.GLYPH[big]
        for leg in fig.legend:
            leg.label_text_font_size = legend
            leg.glyph_width, leg.glyph_height = gw, gh
            leg.label_height = gh
            if self.legend_cols is not None:
                leg.ncols = self._columns(leg, big)
        for model, prop, screen, large in self.texts:
            setattr(model, prop, large if big else screen)
        k = 2.0 if big else 1.0
        lit = set(highlight)
        for r, g, lw, size, marker in self.base:
            h = self.HIGHLIGHT if r in lit else 1.0
            if lw is not None:
                # marker outlines stay thin (a thick outline hides a small marker's fill)
                g.line_width = lw * (1.25 if big else 1.0) * min(h, 1.5) if marker \
                    else lw * k * h
            if size is not None:
                g.size = size * (1.6 if big else 1.0) * h
        fig.toolbar.autohide = False
        # the save tool exports what the figure draws: an SVG file needs the SVG backend
        backend = "svg" if svg else "canvas"
        if fig.output_backend != backend:
            fig.output_backend = backend
        set_save_name(fig, svg)
