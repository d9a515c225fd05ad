"""Drawing pieces shared by the figures: lines in the palette's styles, the operating point,
the regions outside DR30, legends.

One system is drawn in the dashboard's colours, one meaning per colour
(:data:`llrlab.core.palette.COLORS`); several systems get a colour and a marker glyph each
(:func:`llrlab.core.palette.system_style`, glyphs spaced along the curves) while the dash
pattern or the marker says what a curve or a point is.  Every figure therefore reads in
greyscale too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..palette import COLORS, DASH_PATTERNS, FILLS, dash_array

__all__ = ["Legend", "curve", "finish", "finite", "linestyle", "op_line", "plain", "shade"]

#: Spacing of the system glyphs along a curve, as a fraction of the Axes' diagonal.
GLYPH_STEP = 0.12


def plain(text):
    """``text`` shown as it is: matplotlib would read ``$...$`` in a name or a title as
    mathematics (and fail on a stray one)."""
    return None if text is None else str(text).replace("$", r"\$")


def finish(ax, leg, legend, title, *, xlabel, ylabel, legend_title=None, loc="best"):
    """The axis labels, the title (if any) and the legend (if ``legend``) of a plot."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(plain(title))
    if legend:
        leg.draw(ax, loc=loc, title=legend_title)


def linestyle(name, width):
    """A matplotlib line style for the palette's dash pattern ``name`` on a line ``width``
    points wide (lengths in points: draw with ``lines.scale_dashes`` off)."""
    if not DASH_PATTERNS[name]:
        return "solid"
    return (0, tuple(dash_array(name, width)))


def _width(scale):
    import matplotlib as mpl

    return float(mpl.rcParams["lines.linewidth"]) * scale


def curve(ax, x, y, *, color, dash="solid", scale=1.0, system=None, index=0, zorder=2.5,
          label=None):
    """Draw a curve; with ``system`` (several systems share the plot) its marker glyph is
    repeated along the curve, the ``index``-th system's glyphs a little further on, so that
    the glyphs of overlapping curves do not hide each other."""
    lw = _width(scale)
    kw = {}
    if system is not None:
        start = (0.03 + 0.037 * index) % GLYPH_STEP
        kw = dict(marker=system.marker, markevery=(start, GLYPH_STEP), markersize=None,
                  markerfacecolor=color, markeredgecolor=color)
    (line,) = ax.plot(x, y, color=color, linewidth=lw, linestyle=linestyle(dash, lw),
                      zorder=zorder, label=label, solid_joinstyle="round", **kw)
    return line


def op_line(ax, x, *, vertical=True):
    """The operating point as a dashed line (a vertical one at ``x``, by default)."""
    lw = _width(0.9)
    draw = ax.axvline if vertical else ax.axhline
    return draw(x, color=COLORS["op"], linewidth=lw, linestyle=linestyle("dashed", lw),
                zorder=2.2)


def shade(ax, lo, hi, *, vertical=True):
    """A band behind the curves, from ``lo`` to ``hi`` along x (``vertical``) or y: a region
    outside DR30."""
    draw = ax.axvspan if vertical else ax.axhspan
    return draw(lo, hi, facecolor=FILLS["unreliable"], alpha=0.18, linewidth=0, zorder=0.5)


def finite(a, lo, hi):
    """``a`` as floats with infinities moved just outside ``[lo, hi]`` (drawn to the edge)."""
    a = np.asarray(a, dtype=np.float64)
    span = (hi - lo) or 1.0
    return np.where(np.isposinf(a), hi + span, np.where(np.isneginf(a), lo - span, a))


@dataclass
class Legend:
    """A legend's entries in order: the systems, then what the styles and markers mean."""

    handles: list = field(default_factory=list)
    labels: list = field(default_factory=list)

    def add(self, handle, label):
        label = plain(label)
        if label not in self.labels:
            self.handles.append(handle)
            self.labels.append(label)

    def line(self, label, *, color="#333333", dash="solid", scale=1.0, system=None):
        """An entry showing a line sample (with the system's glyph, if any)."""
        from matplotlib.lines import Line2D

        lw = _width(scale)
        kw = {} if system is None else dict(marker=system.marker, markevery=[1],
                                              markerfacecolor=color, markeredgecolor=color)
        self.add(Line2D([0, 0.5, 1], [0, 0, 0], color=color, linewidth=lw,
                        linestyle=linestyle(dash, lw), **kw), label)

    def marker(self, label, marker, *, face, edge="black", size=None):
        from matplotlib.lines import Line2D

        self.add(Line2D([], [], linestyle="none", marker=marker, markerfacecolor=face,
                        markeredgecolor=edge, markersize=size), label)

    def patch(self, label, *, color, alpha):
        from matplotlib.patches import Patch

        self.add(Patch(facecolor=color, alpha=alpha, linewidth=0), label)

    def draw(self, ax, *, loc="best", outside=False, title=None):
        """Put the legend on ``ax``: inside at ``loc``, or (``outside``, when ``ax`` is
        its figure's only Axes) to the right of it, in room the layout makes for it."""
        if not self.handles:
            return None
        title = plain(title)
        fig = ax.figure
        if outside and len(fig.axes) == 1 and fig.get_layout_engine() is not None:
            return fig.legend(self.handles, self.labels, title=title,
                              loc="outside right upper")
        many = len(self.handles) > 5 and loc != "upper left"  # (a square plot: one column)
        return ax.legend(self.handles, self.labels, title=title, loc=loc,
                         ncols=2 if many else 1, columnspacing=0.8, handlelength=2.2)
