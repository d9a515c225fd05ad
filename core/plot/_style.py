"""matplotlib, imported on first use, and the look of llrlab's figures: sizes, fonts, output.

``import llrlab.core`` (and ``import llrlab.core.plot``) never imports matplotlib; the
first figure does, and without the ``plot`` extra it raises one clear
:class:`~llrlab.core.errors.LlrlabError` saying what to install.

Output choices (:data:`OUTPUT_RC`):

* PDF: fonts embedded as TrueType (``pdf.fonttype`` 42), never as Type 3 fonts, which
  publishers refuse and which viewers draw poorly; the text stays searchable.
* SVG: text kept as ``<text>`` elements (``svg.fonttype`` ``"none"``): a journal's
  production or a co-author can still edit a label in Inkscape or Illustrator, screen readers
  and searches see the words, and the file is several times smaller than with every glyph
  drawn as a path.  The font is named (DejaVu Sans, then any sans-serif), so a viewer
  without it uses a similar one; the PDF is the format with the exact glyphs.
* PNG at ``dpi`` dots per inch (300 by default), for slides and the web.

Every format is written deterministically: no creation date, fixed SVG ids, so the same
data give the same bytes (a figure under version control changes only when it changes).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

from ..errors import LlrlabError

__all__ = ["FORMATS", "OUTPUT_RC", "SIZES", "FigureSize", "drawing", "figure_size",
           "matplotlib", "new_axes", "output_format", "save", "style"]

INSTALL = "pip install \"llrlab[plot]\""

#: Output formats by file extension.
FORMATS = {".pdf": "pdf", ".svg": "svg", ".png": "png"}
#: The default resolution of PNG output (dots per inch).
DEFAULT_DPI = 300


def matplotlib():
    """The ``matplotlib`` module, or an :class:`LlrlabError` saying how to install it."""
    try:
        import matplotlib as mpl
    except ImportError:
        raise LlrlabError(f"figures need matplotlib, which is not installed: "
                          f"{INSTALL}") from None
    return mpl


@dataclass(frozen=True)
class FigureSize:
    """A figure's size and type sizes.

    Attributes
    ----------
    name : str
    width, height : float
        Inches; ``height`` is that of the curve plots.  A DET plot (equal probit scales on
        both axes) is ``width`` by ``det_height``.
    det_height : float
    font : float
        Points: axis labels; tick labels are 7/8 of it, the legend 4/5.
    line : float
        Width of a curve in points.
    """

    name: str
    width: float
    height: float
    det_height: float
    font: float
    line: float


#: Presets: one column of a two-column paper (IEEE, Interspeech, ICASSP: 3.5 in), the full
#: text width of such a paper (7 in), a slide (8 x 5 in with 16 pt type).
SIZES = {
    "column": FigureSize("column", 3.5, 2.6, 3.3, 8.0, 1.25),
    "double": FigureSize("double", 7.0, 3.6, 4.6, 9.0, 1.5),
    "slide": FigureSize("slide", 8.0, 5.0, 5.0, 16.0, 2.5),
}


def figure_size(size):
    """A :class:`FigureSize` from a preset name, a ``"WxH"`` string (inches) or a
    ``(width, height)`` pair; custom sizes get the type of the nearest preset by width.

    >>> figure_size("3x2.5")
    FigureSize(name='3x2.5', width=3.0, height=2.5, det_height=2.5, font=8.0, line=1.25)
    """
    if isinstance(size, FigureSize):
        return size
    if isinstance(size, str) and size in SIZES:
        return SIZES[size]
    try:
        if isinstance(size, str):
            w, h = (float(v) for v in size.lower().split("x"))
        else:
            w, h = (float(v) for v in size)
    except (TypeError, ValueError):
        raise LlrlabError(f"unknown figure size {size!r}; give one of {', '.join(SIZES)} or "
                          f"WIDTHxHEIGHT in inches (e.g. 3.5x2.6)") from None
    if not (0.5 <= w <= 50 and 0.5 <= h <= 50):
        raise LlrlabError(f"figure size {w:g} x {h:g} in: give widths and heights from 0.5 "
                          f"to 50 inches")
    near = min(SIZES.values(), key=lambda s: abs(s.width - w))
    name = size if isinstance(size, str) else f"{w:g}x{h:g}"
    return FigureSize(name, w, h, h, near.font, near.line)


#: rcParams of the output files (see the module docstring).
OUTPUT_RC = {
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "svg.hashsalt": "llrlab",
    "pdf.compression": 6,
    "savefig.dpi": DEFAULT_DPI,
    "savefig.facecolor": "white",
    "savefig.edgecolor": "white",
}


def style(size="column"):
    """rcParams of llrlab's figures at ``size`` (a dict for ``matplotlib.rc_context``).

    DejaVu Sans (matplotlib's own font, so it is always there to embed) for text and
    mathematics, type sizes of the preset, thin axes and a light grid, and
    :data:`OUTPUT_RC`.

    Examples
    --------
    >>> rc = style("slide")
    >>> rc["font.size"], rc["pdf.fonttype"], rc["svg.fonttype"]
    (16.0, 42, 'none')
    """
    s = figure_size(size)
    k = s.font / 8.0
    return {
        **OUTPUT_RC,
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "mathtext.fontset": "dejavusans",
        "font.size": s.font,
        "axes.labelsize": s.font,
        "axes.titlesize": s.font,
        "xtick.labelsize": 0.875 * s.font,
        "ytick.labelsize": 0.875 * s.font,
        "legend.fontsize": 0.8 * s.font,
        "legend.title_fontsize": 0.8 * s.font,
        "legend.frameon": True,
        "legend.framealpha": 0.9,
        "legend.edgecolor": "#CCCCCC",
        "legend.fancybox": False,
        "legend.handlelength": 2.6,
        "legend.borderaxespad": 0.4,
        "lines.linewidth": s.line,
        "lines.markersize": 4.5 * k,
        "lines.markeredgewidth": 0.6 * k,
        "axes.linewidth": 0.6 * k,
        "axes.grid": True,
        "axes.axisbelow": True,
        "grid.color": "#DDDDDD",
        "grid.linewidth": 0.5 * k,
        "xtick.major.width": 0.6 * k,
        "ytick.major.width": 0.6 * k,
        "xtick.major.size": 3.0 * k,
        "ytick.major.size": 3.0 * k,
        "figure.dpi": 100,
        "figure.figsize": (s.width, s.height),
    }


def new_axes(size="column", *, det=False, pyplot=False, rows=1):
    """A new figure at ``size`` (constrained layout) and its Axes (a list when ``rows`` >
    1, one per row).  ``pyplot``: through ``matplotlib.pyplot`` (shown in notebooks and
    GUIs); otherwise a bare ``Figure`` that needs no display backend."""
    mpl = matplotlib()
    s = figure_size(size)
    h = s.det_height if det else s.height
    if rows > 1:  # stacked plots, each a little flatter
        h *= 0.7
    with mpl.rc_context(style(s)):
        if pyplot:
            import matplotlib.pyplot as plt

            fig, axes = plt.subplots(rows, 1, figsize=(s.width, h * rows), layout="constrained",
                                     squeeze=False)
        else:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(s.width, h * rows), layout="constrained")
            axes = fig.subplots(rows, 1, squeeze=False)
    axes = list(axes[:, 0])
    return axes if rows > 1 else axes[0]


@contextlib.contextmanager
def drawing(ax, size, *, det=False):
    """The Axes to draw on (``ax``, or a new pyplot figure at ``size``) within the rcParams
    of the drawing: llrlab's style for a new figure, the caller's otherwise.  Dash patterns
    are given in points (never scaled again by the line width)."""
    mpl = matplotlib()
    rc = {"lines.scale_dashes": False}
    if ax is None:
        ax = new_axes(size, det=det, pyplot=True)
        rc = {**style(size), **rc}
    with mpl.rc_context(rc):
        yield ax
        # the first tick of each axis is made now, in these rcParams: the ticks added when
        # the figure is drawn (later, maybe outside them) copy its fonts and sizes
        ax.xaxis.get_major_ticks()
        ax.yaxis.get_major_ticks()


def output_format(path):
    """The output format of ``path`` from its extension, or an error naming the choices."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in FORMATS:
        got = f"'{ext}'" if ext else "no extension"
        raise LlrlabError(f"{os.fspath(path)}: unknown figure format ({got}); give the file "
                          f"a .pdf, .svg or .png name")
    return FORMATS[ext]


def save(fig, path, *, dpi=None, format=None, title=None):
    """Write ``fig`` (a Figure, or an Axes of it) as PDF, SVG or PNG (from ``path``'s
    extension unless ``format`` is given), with llrlab's output settings (embedded TrueType
    fonts, SVG text, no dates: see the module docstring) whatever the global rcParams.

    Parameters
    ----------
    fig : matplotlib Figure or Axes
    path : str or path-like
    dpi : float, optional
        PNG resolution (default 300 dots per inch); vector formats ignore it.
    format : {"pdf", "svg", "png"}, optional
    title : str, optional
        The document title stored in the file's metadata.
    """
    mpl = matplotlib()
    fig = getattr(fig, "figure", fig)
    fmt = format or output_format(path)
    from .._version import __version__

    creator = f"llrlab {__version__} (matplotlib {mpl.__version__})"
    meta = {"pdf": {"Creator": creator, "CreationDate": None, "Title": title},
            "svg": {"Creator": creator, "Date": None, "Title": title},
            "png": {"Software": creator, "Title": title}}[fmt]
    meta = {k: v for k, v in meta.items() if v is not None or k in ("CreationDate", "Date")}
    with mpl.rc_context(OUTPUT_RC):
        fig.savefig(path, format=fmt, dpi=DEFAULT_DPI if dpi is None else dpi, metadata=meta)
