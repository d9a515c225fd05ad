"""The look of a figure in the two styles: :class:`Styler`.

On a screen a figure keeps the sizes it was built with.  In presentation style (presenter
mode, lessons; see :mod:`llrlab.dashboard.state.display`) its type follows the type scale in
pixels (titles 22, axis labels 20, tick labels, legends and labels 18 at scale 1), every line
is twice as thick and at least 2.5 px, markers are 1.6 times larger (their outlines stay thin,
so that a marker keeps its fill colour), dash patterns grow with their lines, legends have
larger samples, and all of it grows with the window's scale.  A title too long for a narrow
plot is wrapped onto two lines; a legend that would take too much of a short plot's height
moves to its right side.
"""

from __future__ import annotations

import textwrap
from typing import ClassVar

from bokeh.models import GlyphRenderer, SaveTool, Scatter

from llrlab.core.palette import dash_array, dash_name

from ..state.display import LINE_MIN, TYPE_SCALE
from ..text_fit import CHAR_EM, text_width
from ._models import same_models

__all__ = ["Styler", "save_name", "set_save_name"]

#: Width of a figure's toolbar above the plot (four tools and the menu).
TOOLBAR_W = 130


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


def _px(kind, big, scale):
    screen, large = TYPE_SCALE[kind]
    return round(large * scale, 1) if big else screen


def _css(px):
    return f"{px:g}px"


def _prop(model, name):
    """``model``'s property ``name``, or None when its class has none (Bokeh answers a
    missing attribute with an error whose spelling suggestions cost ~0.3 ms: 40 of them
    per lesson step)."""
    return getattr(model, name) if name in type(model).properties() else None


class Styler:
    """Switches a figure between screen and presentation style, and canvas/SVG output (see
    the module docstring).

    Line widths, marker sizes and dash patterns are remembered when the figure is finished
    (call :meth:`capture`, and :meth:`add` for renderers made later) and scaled from there,
    so switching back and forth is exact.  Lines that are not glyphs (spans, whiskers) are
    registered with :meth:`add_line`, labels with :meth:`add_text`.  Highlighted renderers
    and lines (a lesson step's ``highlight``) are drawn thicker still.

    ``display`` (a :class:`~llrlab.dashboard.state.display.DisplayState`) gives the scale of
    presentation style when :meth:`apply` is not given one.
    """

    #: Legend sample (glyph) width and height in pixels, at scale 1.
    GLYPH: ClassVar[dict] = {False: (20, 20), True: (36, 26)}
    #: Extra factor of highlighted lines and markers (on a screen; in presentation style,
    #: whose lines are already thick, :attr:`HIGHLIGHT_BIG`).
    HIGHLIGHT = 1.8
    HIGHLIGHT_BIG = 1.5

    def __init__(self, fig, *, legend_cols=None, display=None):
        self.fig = fig
        self.display = display
        self.base = []
        self.texts = []
        self.lines = []
        #: Most columns of a legend placed below the plot (None: its ``ncols`` is left as is);
        #: the columns actually used are as many as fit in :attr:`width`.
        self.legend_cols = legend_cols
        #: The figure's width and height in pixels when fixed (a stage), else None (the
        #: width is then the layout's estimate, used for the legend's columns).
        self.width = None
        self.height = None
        #: The figure's own minimum width (kept while it is on a stage).
        self.min_width = None
        self._title = None
        self._axis_labels = {}
        self._applied = None

    def capture(self):
        self.add(self.fig.renderers)

    def add(self, renderers):
        """Remember the widths, sizes and dash patterns of ``renderers``."""
        for r in renderers:
            if not isinstance(r, GlyphRenderer):
                continue
            g = r.glyph
            lw = _prop(g, "line_width")
            size = _prop(g, "size")
            self.base.append((r, g, lw if isinstance(lw, (int, float)) else None,
                              size if isinstance(size, (int, float)) else None,
                              isinstance(g, Scatter), dash_name(_prop(g, "line_dash"))))

    def add_line(self, model, width, dash=None):
        """Let the line of ``model`` (a Span, a Whisker and its heads) follow the style:
        ``width`` px on a screen, its dash pattern ``dash`` (a key of DASH_PATTERNS)."""
        self.lines.append((model, float(width), dash_name(dash)))

    def add_text(self, model, screen="9pt", presentation=None, prop="text_font_size"):
        """Let ``model.<prop>`` (a label's font size) follow the style: ``screen`` on a
        screen, the type scale's size of labels in presentation style (``presentation``
        is accepted for compatibility and never makes it smaller)."""
        self.texts.append((model, prop, screen, presentation))

    # ------------------------------------------------------------------ the style

    def scale_for(self, scale):
        if scale is not None:
            return float(scale)
        return float(getattr(self.display, "scale", 1.0) or 1.0)

    def _columns(self, legend, big, scale, px):
        """As many legend columns as fit in the figure's width (at most ``legend_cols``),
        from the longest shown label."""
        labels = [_label_text(i.label) for i in legend.items if i.visible] or [""]
        text = int(text_width(max(labels, key=len), px)) + 4
        # every column as wide as the longest label (Bokeh sizes columns from measured
        # text, which let long labels run into the next column)
        legend.label_width = text
        col = self.GLYPH[big][0] * scale + legend.label_standoff + legend.spacing + 12 + text
        width = self.width or 560  # the narrowest width the page gives a plot
        avail = width - 2 * (legend.padding + legend.margin) - 16
        return int(max(1, min(self.legend_cols, avail // col))), col

    def _place_legend(self, legend, big, scale, px):
        """Below the plot, in as many columns as fit; on a short, wide stage figure whose
        legend would take more than a quarter of its height below, on its right side."""
        fig = self.fig
        ncols, col = self._columns(legend, big, scale, px)
        shown = sum(1 for i in legend.items if i.visible)
        row = max(self.GLYPH[big][1] * scale, 1.3 * px) + legend.spacing
        right = False
        if self.height is not None and self.width is not None and big:
            below_h = -(-shown // ncols) * row + 2 * (legend.padding + legend.margin)
            right_h = shown * row + 2 * (legend.padding + legend.margin)
            right = (below_h > 0.25 * self.height and right_h < 0.7 * self.height
                     and self.width > 1.2 * self.height and col < 0.4 * self.width)
        # the legend joins its new side before it leaves the old one: in between, the
        # browser's plot would have no view for it ("cannot find a view for Legend")
        legend.ncols = 1 if right else ncols
        to, off = ("right", "below") if right else ("below", "right")
        if legend not in getattr(fig, to):
            with same_models(fig.document, legend):
                setattr(fig, to, [*getattr(fig, to), legend])
                setattr(fig, off, [m for m in getattr(fig, off) if m is not legend])

    def _wrap_title(self, big, px):
        """The title on as many lines as the figure's width needs (presentation style on a
        stage); the view's own text otherwise."""
        fig = self.fig
        text = fig.title.text or ""
        if self._title is None or text != self._wrapped:
            self._title = text.replace("\n", " ")  # a new title from the view
        own = self._title
        room = (self.width or 0) - TOOLBAR_W - 10
        out = own
        if big and self.width is not None and text_width(own, px, "bold") > room > 0:
            chars = max(8, int(room / (px * CHAR_EM["bold"])))
            out = "\n".join(textwrap.wrap(own, chars, break_long_words=False) or [own])
        self._wrapped = out
        if fig.title.text != out:
            fig.title.text = out

    _wrapped = None

    def _wrap_axis_label(self, ax, big, px):
        """An axis label on two lines when it is longer than its side of a stage figure."""
        own, wrapped = self._axis_labels.get(ax.id, (None, None))
        text = ax.axis_label or ""
        if own is None or text != wrapped:  # a new label from the view
            own = text.replace("\n", " ")
        vertical = ax in self.fig.left or ax in self.fig.right
        side = self.height if vertical else self.width
        room = (side or 0) - (80 if vertical else 90)
        out = own
        if big and side is not None and text_width(own, px) > room > 0:
            chars = max(8, int(room / (px * CHAR_EM["normal"])))
            out = "\n".join(textwrap.wrap(own, chars, break_long_words=False) or [own])
        self._axis_labels[ax.id] = (own, out)
        if ax.axis_label != out:
            ax.axis_label = out

    def _inputs(self, big, s, svg, highlight):
        """Everything :meth:`apply` reads: the style, the sizes, what is highlighted, the
        texts it wraps (as the figure shows them), the legends' shown labels and what is
        registered.  Equal before a call to what they were after the last one: the figure
        already has that style (a lesson step re-applied it ~10 times, ~2 ms each)."""
        fig = self.fig
        return (big, s, bool(svg), frozenset(map(id, highlight)), self.width, self.height,
                self.legend_cols, fig.title.text, tuple(ax.axis_label for ax in fig.axis),
                tuple(tuple((_label_text(i.label), bool(i.visible)) for i in leg.items)
                      for leg in fig.legend),
                len(self.base), len(self.lines), len(self.texts))

    def apply(self, presentation, svg, highlight=(), scale=None):
        """Put the figure in screen (``presentation`` False) or presentation style at
        ``scale`` (default: the display's), with SVG or canvas output, and ``highlight``
        (renderers and registered lines) drawn thicker.  Nothing is set when none of what
        it depends on has changed since the last call (see :meth:`_inputs`)."""
        big = bool(presentation)
        s = self.scale_for(scale) if big else 1.0
        highlight = tuple(highlight)
        if self._applied is not None and self._applied == self._inputs(big, s, svg,
                                                                        highlight):
            return
        self._apply(big, s, svg, highlight)
        self._applied = self._inputs(big, s, svg, highlight)

    def _apply(self, big, s, svg, highlight):
        fig = self.fig
        fig.title.text_font_size = _css(_px("title", big, s))
        self._wrap_title(big, _px("title", big, s))
        for ax in fig.axis:
            ax.axis_label_text_font_size = _css(_px("axis", big, s))
            ax.major_label_text_font_size = _css(_px("ticks", big, s))
            ax.axis_line_width = ax.major_tick_line_width = 2 * s if big else 1
            self._wrap_axis_label(ax, big, _px("axis", big, s))
        gw, gh = self.GLYPH[big]
        legend_px = _px("legend", big, s)
        for leg in fig.legend:
            leg.label_text_font_size = _css(legend_px)
            leg.glyph_width, leg.glyph_height = round(gw * s), round(gh * s)
            leg.label_height = round(max(gh * s, 1.3 * legend_px))
            if self.legend_cols is not None:
                self._place_legend(leg, big, s, legend_px)
        label_px = _px("annotation", big, s)
        for model, prop, screen, _ in self.texts:
            setattr(model, prop, _css(label_px) if big else screen)
        lit = set(highlight)
        glow = self.HIGHLIGHT_BIG if big else self.HIGHLIGHT

        def width(base, h):
            return (max(2.0 * base, LINE_MIN) * s if big else base) * h

        for r, g, lw, size, marker, dash in self.base:
            h = glow if r in lit else 1.0
            if lw is not None:
                # marker outlines stay thin (a thick outline hides a small marker's fill)
                g.line_width = (lw * (1.25 * s if big else 1.0) * min(h, 1.5) if marker
                                else width(lw, h))
                if dash is not None:
                    g.line_dash = dash_array(dash, g.line_width)
            if size is not None:
                g.size = size * (1.6 * s if big else 1.0) * h
        for model, lw, dash in self.lines:
            w = width(lw, glow if model in lit else 1.0)
            for m in (model, _prop(model, "lower_head"), _prop(model, "upper_head")):
                if m is not None:
                    m.line_width = w
            if dash is not None:
                model.line_dash = dash_array(dash, w)
        fig.toolbar.autohide = False
        # the save tool exports what the figure draws: an SVG file needs the SVG backend
        backend = "svg" if svg else "canvas"
        if fig.output_backend != backend:
            fig.output_backend = backend
        set_save_name(fig, svg)
