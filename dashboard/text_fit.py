"""How much room a text takes, estimated before the browser draws it.

The stage's layout (:mod:`.stage_geometry`) sizes its panels on the server, before the
browser has drawn a word: a lesson's text, a caption or a table must get the room they need
at the presentation style's type size, or they would be cut or scroll.  These estimates
wrap the words greedily with a generous average advance per character (the widths of DejaVu
Sans, chromium's default sans-serif on Linux, wider than Arial or Helvetica), so that an
estimate errs on the side of room; the browser tests check the real boxes.

This module imports neither Panel nor Bokeh.
"""

from __future__ import annotations

import math
import re

__all__ = ["CHAR_EM", "LINE_HEIGHT", "plain_text", "text_height", "text_lines", "text_width"]

#: Average advance of a character relative to the font size, regular and bold: DejaVu Sans
#: averages 0.50 and 0.56 em over the built-in lesson's text, digits 0.56 and 0.62 em,
#: monospace (code) 0.60 em; these are a little wider, so that an estimate errs on the side
#: of room.
CHAR_EM = {"normal": 0.55, "bold": 0.63}
#: Line height of running text, relative to the font size.
LINE_HEIGHT = 1.45

_MARKUP = re.compile(r"(\*\*|__|`|\$\$?|\\\(|\\\)|\\\[|\\\]|^#+\s*|^\s*[-*+]\s+|^\s*\d+\.\s+)",
                     re.MULTILINE)


_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
#: TeX commands that draw nothing themselves (a fraction draws its parts one above the other,
#: fonts and sizes change the look only)
_SILENT = re.compile(r"\\(frac|dfrac|tfrac|mathrm|mathbf|mathit|mathcal|mathbb|text|textrm|"
                     r"operatorname|left|right|big|Big|bigl|bigr|displaystyle|,|;|!|:|quad|"
                     r"qquad)(?![a-zA-Z])")


def _math_text(match):
    """What a formula shows, about as many characters wide: commands that draw a symbol count
    as one character, those that draw nothing, braces and script marks as none; a fraction's
    numerator and denominator stand one above the other (counted side by side: errs wide)."""
    tex = next(g for g in match.groups() if g is not None)
    tex = _SILENT.sub("", tex)
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)
    tex = re.sub(r"[{}^_\\]", "", tex)
    tex = tex.replace(" ", "")
    return f"$${tex}$$" if match.group(0).startswith(("$$", "\\[")) else tex


def plain_text(markdown):
    """The words of a Markdown text, without its markup characters (emphasis, code and
    maths delimiters, heading and list marks; a formula as about as many characters as it
    shows); paragraphs separated by blank lines."""
    return _MARKUP.sub("", _MATH.sub(_math_text, markdown or ""))


def text_width(text, px, weight="normal"):
    """Estimated width in pixels of one line of ``text`` at ``px`` pixels."""
    return len(text) * px * CHAR_EM[weight]


def text_lines(text, px, width, weight="normal"):
    """Lines that ``text`` (plain; its own line breaks kept) takes in a box ``width`` px
    wide at ``px`` pixels, the words wrapped greedily."""
    space = px * CHAR_EM[weight]
    n = 0
    for line in str(text).split("\n"):
        words = line.split()
        if not words:
            n += 1 if line == "" else 0
            continue
        n += 1
        used = 0.0
        for w in words:
            ww = text_width(w, px, weight)
            if used and used + space + ww > width:
                n += 1
                used = 0.0
            # a word wider than the box is broken (or overflows): as many lines as it takes
            if ww > width:
                extra = math.ceil(ww / max(width, 1.0)) - 1
                n += extra
                used = ww - extra * width
            else:
                used += (space if used else 0.0) + ww
    return n


_NEW_LINE = re.compile(r"\n(?!\s*\n|\s*([-*+]|\d+\.)\s|\s*[|#>]|\s*\$\$)")


def _joined(markdown):
    """Markdown's soft line breaks as the spaces they render as (a line that starts a list
    item, a table row, a heading, a quote or a displayed formula, or a blank line, still
    starts a new line)."""
    return _NEW_LINE.sub(" ", markdown or "")


def text_height(text, px, width, weight="normal", line_height=LINE_HEIGHT):
    """Height in pixels of a Markdown ``text`` wrapped in a box ``width`` px wide at
    ``px`` pixels: its lines, and half a line between paragraphs."""
    paragraphs = [p for p in re.split(r"\n\s*\n", plain_text(_joined(text)).strip())
                  if p.strip()]
    if not paragraphs:
        return 0
    lines = sum(text_lines(p.strip(), px, width, weight) for p in paragraphs)
    # a displayed formula stands on its own lines, taller than text (fractions, sums)
    lines += 2.5 * len(re.findall(r"\$\$|\\\[", text or "")) / 2
    # inline formulas with fractions or scripts raise their lines
    lines += 0.3 * len(re.findall(r"\\frac|\^|_", text or ""))
    return math.ceil((lines * line_height + 0.6 * (len(paragraphs) - 1)) * px)
