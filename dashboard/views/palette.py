"""The dashboard's colours and line patterns, and the contrast rule they are checked against.

Colours: Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008) where its
colours stand out on a white plot (black, vermillion, blue, bluish green, reddish purple),
completed with Tol's wine (Tol 2021, "Colour schemes", muted scheme) instead of Okabe-Ito's
orange, sky blue and yellow, which are too light for a projector (2.3:1, 2.3:1 and 1.3:1 on
white).  Every colour of a curve, marker or line has a contrast ratio of at least
:data:`MIN_CONTRAST` (3:1, WCAG 2.1 success criterion 1.4.11 for graphical objects) on the
plot's white background; the tests compute it (:func:`contrast_ratio`) over the colours the
plots actually draw.

Colour is never the only cue (WCAG 2.1 success criterion 1.4.1): two curves of one plot
differ in their dash pattern, or in their marker, or their colours differ in lightness by at
least 3:1 between themselves (WCAG technique G183; e.g. vermillion act DCF against black min
DCF, 5.4:1).  The dev set is dashed and eval solid; the four reference miscalibrations of
teaching mode have a pattern each; each per-condition curve has its own pattern.
"""

from __future__ import annotations

__all__ = ["COLORS", "CONDITION_COLORS", "CONDITION_DASHES", "CURVE_DASHES", "DASH",
           "DASH_PATTERNS", "MIN_CONTRAST", "REF_COLORS", "REF_DASHES", "contrast_ratio",
           "dash_array", "dash_name", "line_dash",
           "relative_luminance"]

#: The least contrast ratio of a curve's colour on the plot's background (WCAG 2.1, 1.4.11).
MIN_CONTRAST = 3.0

#: One meaning per colour across the dashboard (contrast on white in the comments).
COLORS = {
    "act": "#D55E00",        # actual DCF (NBER): vermillion, 3.9:1
    "min": "#000000",        # minimum DCF (NBER): black, 21:1
    "miss": "#0072B2",       # misses' contribution: blue, 5.2:1
    "fa": "#882255",         # false alarms' contribution: wine, 8.7:1
    "true": "#009E73",       # teaching mode: true LLR, bluish green, 3.4:1
    "op": "#CC79A7",         # operating point: reddish purple (magenta in BOSARIS), 3.1:1
    "dr30_fa": "#882255",    # DR30 marker where false alarms run out (the false-alarm colour)
    "dr30_miss": "#0072B2",  # DR30 marker where misses run out (the miss colour)
    "steppy": "#0072B2",     # DET steppy curve
    "rocch": "#D55E00",      # DET ROCCH curve
    "tar": "#D55E00",        # histogram targets
    "non": "#0072B2",        # histogram non-targets
    "default": "#767676",    # reference lines (the default system, the DET diagonal): 4.5:1
    "unreliable": "#9e9e9e",  # shading outside DR30 (a background, not a curve)
    "map": "#0072B2",        # calibration map
}
#: Teaching mode's reference miscalibrations (2 x LLR, 0.5 x LLR, LLR + 2, LLR - 2): the
#: scales blue, the shifts wine, each with its own dash pattern (:data:`REF_DASHES`).
REF_COLORS = ("#0072B2", "#0072B2", "#882255", "#882255")
REF_DASHES = ("longdash", "shortdash", "longdashdot", "dashdotdot")
#: Per-condition curves: ten dark colours (each at least 4:1 on white), and a dash pattern
#: each for their act DCF (the min DCF is dotted).
CONDITION_COLORS = ("#4477AA", "#228833", "#AA3377", "#8B6914", "#6A3D9A", "#B15928",
                    "#2B8A7E", "#5D6D2E", "#5B5EA6", "#0F6E8C")
CONDITION_DASHES = ("shortdash", "dotdash", "dashdotdot", "longshort", "dotdotdash",
                    "sparsedot", "longdashdot", "shortdash", "dotdash", "dashdotdot")
#: Dash pattern per dataset role.
DASH = {"eval": "solid", "dev": "dashed", "true": "solid"}
#: Dash patterns of the other curves: NBER's default system and true LLR, the contributions
#: of misses and false alarms (eval, dev), DET's ROCCH (eval, dev), reference diagonals.
CURVE_DASHES = {
    "default": "dotted",
    "true": "dashdot",
    "miss": ("dotdash", "dotdotdash"),
    "fa": ("longshort", "sparsedot"),
    "rocch": ("longdash", "dashdot"),
}
#: The dash patterns, as on-off lengths in pixels for a line 1 px wide (Bokeh's own named
#: patterns, "dashed" [6], "dotted" [2, 4], stay as they are on a screen; a thicker line
#: scales them, :func:`dash_array`, so that a 4 px line keeps the look of its pattern).
DASH_PATTERNS = {
    "solid": (),
    "dashed": (6, 4),
    "dotted": (2, 3),
    "dashdot": (6, 3, 2, 3),
    "dotdash": (2, 3, 6, 3),
    "longdash": (12, 4),
    "longdashdot": (12, 3, 2, 3),
    "dashdotdot": (6, 3, 2, 3, 2, 3),
    "shortdash": (3, 3),
    "longshort": (12, 3, 4, 3),
    "dotdotdash": (2, 3, 2, 3, 8, 3),
    "sparsedot": (2, 7),
}
_BY_PATTERN = {v: k for k, v in DASH_PATTERNS.items() if v}


def dash_array(name, width=1.0):
    """The on-off lengths (pixels) of the dash pattern ``name`` for a line ``width`` px
    wide: the pattern grows with the line, more slowly (as the square root of its width
    over 1.5 px), so that dots stay dots, gaps stay open and a legend's sample still shows
    a period of it."""
    pattern = DASH_PATTERNS[name]
    k = max(1.0, float(width) / 1.5) ** 0.5
    return [max(1, round(v * k)) for v in pattern]


def line_dash(name):
    """The ``line_dash`` value of the pattern ``name`` for a new glyph (1 px wide; the
    style scales it, see :class:`~.styler.Styler`)."""
    return dash_array(name, 1.0)


def dash_name(dash):
    """The name of a glyph's ``line_dash`` (a name or the on-off lengths of
    :func:`line_dash`), or None for another pattern."""
    if isinstance(dash, str):
        return dash if dash in DASH_PATTERNS else None
    try:
        key = tuple(int(v) for v in dash)
    except (TypeError, ValueError):
        return None
    return _BY_PATTERN.get(key)


def _channel(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(color):
    """WCAG 2.1 relative luminance of a ``#rrggbb`` colour (0 black, 1 white).

    ``L = 0.2126 R + 0.7152 G + 0.0722 B`` of the linearized sRGB channels (W3C, WCAG 2.1,
    definition "relative luminance").

    >>> relative_luminance("#ffffff"), relative_luminance("#000000")
    (1.0, 0.0)
    """
    text = str(color).strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    if len(text) != 6:
        raise ValueError(f"not a #rrggbb colour: {color!r}")
    r, g, b = (_channel(int(text[i:i + 2], 16) / 255.0) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b="#ffffff"):
    """WCAG 2.1 contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` of two colours (L1 the
    lighter), from 1 (equal) to 21 (black on white).

    >>> round(contrast_ratio("#F0E442"), 2)  # Okabe-Ito yellow on white
    1.32
    >>> round(contrast_ratio("#000000"), 1)
    21.0
    """
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
