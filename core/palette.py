"""llrlab's colours and dash patterns, for every plot it draws (dashboard and figures).

No plotting library is imported here: colours are ``#RRGGBB`` strings and dash patterns are
on-off lengths, which Bokeh (``line_dash``) and matplotlib (``linestyle=(0, lengths)``) both
take.

Colours come from Okabe & Ito's colour-blind-safe palette where its colours stand out on a
white plot -- black, vermillion ``#D55E00``, blue ``#0072B2``, bluish green ``#009E73``,
reddish purple ``#CC79A7`` -- completed with Tol's wine ``#882255`` (Tol 2021, muted
scheme).  Okabe-Ito's orange ``#E69F00``, sky blue ``#56B4E9`` and yellow ``#F0E442`` are
left out: on white their contrast ratio is 2.3:1, 2.3:1 and 1.3:1, too light for a line on a
projector or a printout.  Every colour drawn as a curve, a marker or a line has a contrast
ratio of at least :data:`MIN_CONTRAST` (3:1, the WCAG 2.1 success criterion 1.4.11 for
graphical objects) on white (:func:`contrast_ratio`; the tests check each one).

Colour is never the only cue (WCAG 2.1 success criterion 1.4.1): curves that must be told
apart differ in their dash pattern or their marker too, or their colours differ in lightness
by at least 3:1 between themselves (WCAG technique G183; e.g. vermillion actual DCF against
black minimum DCF, 5.4:1), so that a figure also reads in greyscale.  The dev set is dashed
and eval solid; a dashboard plot with two curves per set whose colours differ by hue only
(the Tippett plot's targets and non-targets, the ECE plot's LRs and the same after PAV)
gives its second curve a pattern per set (:data:`PAIR_DASHES`); the four reference
miscalibrations of teaching mode have a pattern each; each per-condition curve has its own
pattern.

* :data:`COLORS` -- one meaning per colour (actual DCF vermillion, minimum DCF black, the
  operating point reddish purple, ...): the plots of one system.
* :data:`SYSTEM_COLORS` and :data:`SYSTEM_MARKERS` -- one colour and one marker glyph per
  system when several systems are compared (:func:`system_style`).
* :data:`DASH_PATTERNS` -- named dash patterns as on-off lengths for a line one unit wide
  (pixels in Bokeh, points in matplotlib); :func:`dash_array` scales them for thicker lines.
  :data:`DASH` (per dataset role), :data:`CURVE_DASHES`, :data:`REF_DASHES` and
  :data:`CONDITION_DASHES` name the pattern of each kind of curve; :func:`line_dash` is a
  pattern for a new line and :func:`dash_name` the name of a line's pattern.

References
----------
M. Okabe and K. Ito (2008), "Color Universal Design (CUD): how to make figures and
presentations that are friendly to colorblind people", https://jfly.uni-koeln.de/color/;
P. Tol (2021), "Colour schemes", SRON technical note SRON/EPS/TN/09-002, issue 3.2;
W3C (2018), Web Content Accessibility Guidelines (WCAG) 2.1: "contrast ratio", "relative
luminance", success criteria 1.4.1 and 1.4.11.

Examples
--------
>>> round(contrast_ratio(COLORS["act"]), 2)           # vermillion on white
3.87
>>> system_style(6)                            # the 7th system: the colours cycle
SystemStyle(color='#0072B2', marker='1')
>>> dash_array("dashed"), dash_array("dashed", 6.0)    # longer dashes on thicker lines
([6, 4], [12, 8])
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "COLORS",
    "CONDITION_COLORS",
    "CONDITION_DASHES",
    "CURVE_DASHES",
    "DASH",
    "DASH_PATTERNS",
    "FILLS",
    "MIN_CONTRAST",
    "OKABE_ITO",
    "PAIR_DASHES",
    "REF_COLORS",
    "REF_DASHES",
    "SYSTEM_COLORS",
    "SYSTEM_MARKERS",
    "SystemStyle",
    "contrast_ratio",
    "dash_array",
    "dash_name",
    "line_dash",
    "relative_luminance",
    "system_style",
]

#: The least contrast ratio of a line's or a marker's colour on the white background
#: (WCAG 2.1, success criterion 1.4.11, non-text contrast).
MIN_CONTRAST = 3.0

#: Okabe & Ito's eight colours (2008), by name; the light ones (orange, sky blue, yellow)
#: are not used for lines (see the module docstring).
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
_WINE = "#882255"  # Tol (2021), muted scheme; 8.7:1 on white

#: One meaning per colour (contrast on white in the comments).
COLORS = {
    "act": "#D55E00",        # actual DCF (NBER), actual Bayes error (APE): vermillion, 3.9:1
    "min": "#000000",        # minimum DCF / Bayes error / cross-entropy: black, 21:1
    "miss": "#0072B2",       # the misses' contribution to the actual DCF: blue, 5.2:1
    "fa": _WINE,             # the false alarms' contribution: wine, 8.7:1
    "true": "#009E73",       # teaching mode: the true LLR, bluish green, 3.4:1
    "op": "#CC79A7",         # the operating point: reddish purple (magenta in BOSARIS), 3.1:1
    "dr30_fa": _WINE,        # DR30 marker where false alarms run out (the false-alarm colour)
    "dr30_miss": "#0072B2",  # DR30 marker where misses run out (the miss colour)
    "steppy": "#0072B2",     # DET: the steppy curve
    "rocch": "#D55E00",      # DET: the ROCCH curve
    "eer": "#000000",        # DET: the EER point
    "tar": "#D55E00",        # targets (histograms, Tippett plots)
    "non": "#0072B2",        # non-targets
    "default": "#767676",    # reference lines (default system, DET diagonal): grey, 4.5:1
    "map": "#0072B2",        # the calibration map
}
#: Colours drawn as areas behind the curves (not lines, so not held to MIN_CONTRAST).
FILLS = {
    "unreliable": "#9E9E9E",  # the regions outside DR30, drawn translucent
}
#: One colour per compared system, in order (each at least 3:1 on white).  The operating
#: point's reddish purple comes last, black before it (black is also the minimum DCF's
#: colour in one-system plots, where systems have no colours).
SYSTEM_COLORS = ("#0072B2", "#D55E00", "#009E73", _WINE, "#000000", "#CC79A7")
#: One marker glyph per compared system (matplotlib names), drawn along its curves.  Seven
#: glyphs against six colours: the first 42 systems differ in their (colour, glyph) pair.
#: None of them is a marker with a meaning (circle: actual operating point, square:
#: minimum-DCF point, triangles: DR30, diamond: EER).
SYSTEM_MARKERS = ("x", "+", "*", "X", "P", "|", "1")

#: Teaching mode's reference miscalibrations (2 x LLR, 0.5 x LLR, LLR + 2, LLR - 2): the
#: scales blue, the shifts wine, each with its own dash pattern (:data:`REF_DASHES`).
REF_COLORS = ("#0072B2", "#0072B2", _WINE, _WINE)
REF_DASHES = ("longdash", "shortdash", "longdashdot", "dashdotdot")
#: Per-condition curves: ten dark colours (each at least 4:1 on white) and a dash pattern
#: each.
CONDITION_COLORS = ("#4477AA", "#228833", "#AA3377", "#8B6914", "#6A3D9A", "#B15928",
                    "#2B8A7E", "#5D6D2E", "#5B5EA6", "#0F6E8C")
CONDITION_DASHES = ("shortdash", "dotdash", "dashdotdot", "longshort", "dotdotdash",
                    "sparsedot", "longdashdot", "shortdash", "dotdash", "dashdotdot")
#: Dash pattern per dataset role.
DASH = {"eval": "solid", "dev": "dashed", "true": "solid"}
#: Plots that draw two curves per set in two colours that differ by hue only (the
#: dashboard's Tippett plot: targets vermillion, non-targets blue; its ECE plot: the LRs and
#: the same after PAV): per set, the first curve's pattern (that of :data:`DASH`) and the
#: second's, so that no two of the four differ by colour alone.
PAIR_DASHES = {"eval": ("solid", "longdash"), "dev": ("dashed", "dotdash")}
#: Dash patterns of the other curves: the default system and the true LLR, the contributions
#: of misses and false alarms (eval, dev), the DET's ROCCH (eval, dev); the minimum-DCF
#: curve, the non-target class and the DET's steppy curve when several systems share a
#: plot (the actual DCF, the targets and the ROCCH are then solid).
CURVE_DASHES = {
    "default": "dotted",
    "true": "dashdot",
    "miss": ("dotdash", "dotdotdash"),
    "fa": ("longshort", "sparsedot"),
    "rocch": ("longdash", "dashdot"),
    "min": "dashed",
    "non": "dashed",
    "steppy": "dotted",
}
#: Named dash patterns: on-off lengths for a line 1 unit wide (``()``: solid).
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


class SystemStyle(NamedTuple):
    """The colour and marker glyph of a compared system."""

    color: str
    marker: str


def system_style(i):
    """The style of the ``i``-th compared system (0-based): colours and glyphs cycle
    independently, so that the first ``6 * 7 = 42`` systems all differ."""
    i = int(i)
    if i < 0:
        raise ValueError(f"a system's index is at least 0, got {i}")
    return SystemStyle(SYSTEM_COLORS[i % len(SYSTEM_COLORS)],
                       SYSTEM_MARKERS[i % len(SYSTEM_MARKERS)])


def dash_array(name, width=1.0):
    """The on-off lengths of the dash pattern ``name`` for a line ``width`` units wide.

    The pattern grows with the line, more slowly (as the square root of its width over 1.5
    units), so that dots stay dots, gaps stay open and a legend's sample still shows a
    period of it.  ``[]`` for a solid line.
    """
    try:
        pattern = DASH_PATTERNS[name]
    except KeyError:
        raise ValueError(f"unknown dash pattern {name!r}; use one of "
                         f"{', '.join(DASH_PATTERNS)}") from None
    k = max(1.0, float(width) / 1.5) ** 0.5
    return [max(1, round(v * k)) for v in pattern]


def line_dash(name):
    """The on-off lengths of the pattern ``name`` for a new line one unit wide (a Bokeh
    glyph's ``line_dash`` before the dashboard's style scales it to the line's width).

    >>> line_dash("dotdash")
    [2, 3, 6, 3]
    """
    return dash_array(name, 1.0)


#: The names of the patterns by their on-off lengths (one unit wide).
_BY_PATTERN = {v: k for k, v in DASH_PATTERNS.items() if v}


def dash_name(dash):
    """The name of a line's dash pattern, given as a name or as the on-off lengths of
    :func:`line_dash`; None for another pattern (or none).

    >>> dash_name([6, 4]), dash_name("dotted"), dash_name([1, 1])
    ('dashed', 'dotted', None)
    """
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
    """WCAG 2.1 relative luminance of a ``#rrggbb`` (or ``#rgb``) colour: 0 black, 1 white.

    ``L = 0.2126 R + 0.7152 G + 0.0722 B`` of the linearized sRGB channels
    (``c / 12.92`` up to 0.04045, else ``((c + 0.055) / 1.055) ** 2.4``; W3C, WCAG 2.1,
    definition "relative luminance").

    >>> relative_luminance("#ffffff"), relative_luminance("#000")
    (1.0, 0.0)
    """
    text = str(color).strip().removeprefix("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    try:
        if len(text) != 6:
            raise ValueError
        r, g, b = (_channel(int(text[i:i + 2], 16) / 255.0) for i in (0, 2, 4))
    except ValueError:
        raise ValueError(f"not a #rrggbb colour: {color!r}") from None
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b="#ffffff"):
    """WCAG 2.1 contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` of two colours, ``L1`` the
    lighter one's relative luminance: from 1 (equal) to 21 (black on white).

    >>> round(contrast_ratio(OKABE_ITO["yellow"]), 2)
    1.32
    >>> round(contrast_ratio("#000000"), 1)
    21.0
    """
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
