"""Where a stage's panels and a lesson's text go: :func:`plan_stage`.

A stage (presenter mode, an open lesson) shows one to three panels side by side, sized to fill
the room below the stage's bar, and a lesson step's text either beside them (a column on the
right) or above them (a band across the whole width).  Each panel says the least room it
needs at the current type size (a plot: its title, axes and legend and a readable frame; the
metrics table: its rows and columns; a histogram: its caption too), the text's height is
estimated for each candidate width (:mod:`.text_fit`), and the arrangement is chosen that
fits everything with the largest plots; when nothing fits, the one that comes closest.

The room is that of a window: :func:`stage_scale` is 1 for a 1280 x 720 window (a
projector's) and grows with a larger one, so that at 1920 x 1080 the picture is the same,
1.5 times larger.  All sizes here are CSS pixels.

This module imports neither Panel nor Bokeh.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .text_fit import plain_text, text_height, text_lines

__all__ = ["BASE", "GAP", "PLOT_MIN", "StagePlan", "lesson_text_height", "plan_stage",
           "stage_scale", "text_widths"]

#: The main area of a 1280 x 720 window (the page's header above it): scale 1.
BASE = (1280, 656)
#: Space between the panels, and between the text and the panels, at scale 1.
GAP = 12
#: The least room of a plot at scale 1 (width, height): its title, axes, a legend of a few
#: rows and a frame of about 220 x 150 px.
PLOT_MIN = (330, 330)
#: Width of a lesson's text column beside the panels: at least, at most (at scale 1), and
#: at most this fraction of the row.
TEXT_MIN, TEXT_MAX, TEXT_FRACTION = 300, 620, 0.45
#: Height lost where the row wraps below a text band (margins of the wrapped line).
_WRAP = 12
#: Line height of the lesson's running text, relative to its size.
LINE = 1.45
#: Padding inside the text's box (left border and margins, top and bottom), at scale 1.
TEXT_PAD_W, TEXT_PAD_H = 36, 28


@dataclass(frozen=True)
class StagePlan:
    """A stage's arrangement: each panel's ``(width, height)``, the text's box (or None)
    and whether it is above the panels; ``fits`` is False when some panel or the text gets
    less than it needs (the closest arrangement was chosen)."""

    panels: dict
    text: tuple | None = None
    above: bool = False
    fits: bool = True
    score: float = field(default=0.0, compare=False)
    #: A panel in the text's column, under the text (the metrics table on a crowded stage).
    below_text: str | None = None
    #: How comfortably the tightest panel (or the text) has its least room (1: just so).
    ease: float = field(default=0.0, compare=False)


def stage_scale(width, height):
    """The type and line scale of a stage in a main area of ``width`` x ``height`` px: 1 up
    to :data:`BASE`, growing with the smaller of the two ratios (in steps of 0.05), at most
    3."""
    if width <= 0 or height <= 0:
        return 1.0
    s = min(width / BASE[0], height / BASE[1])
    return max(1.0, min(3.0, math.floor(s * 20) / 20))


def text_widths(width, scale):
    """The widths of a lesson text's box that :func:`plan_stage` weighs in a row ``width``
    px wide: the columns beside the panels (narrowest first, every 10 px, and the widest
    allowed) and the band above them (the whole row).  The page measures the text at exactly
    these widths (:mod:`.text_probe`), so that a step's first layout is its last."""
    lo = int(TEXT_MIN * scale)
    hi = int(max(lo, min(TEXT_MAX * scale, TEXT_FRACTION * width)))
    columns = list(range(lo, hi + 1, 10))
    if columns[-1] != hi:
        columns.append(hi)
    return columns, int(width)


def lesson_text_height(heading, caption, text, width, *, text_px, heading_px):
    """Height in px of a lesson step's box ``width`` px wide: the lesson's title
    (``caption``, one line or more), the step's title (``heading``) and its text, with the
    box's padding."""
    inner = max(width - TEXT_PAD_W * text_px / 18, 60)
    h = lines(caption, text_px, inner) * text_px * 1.35
    h += lines(heading, heading_px, inner, "bold") * heading_px * 1.25 + 0.5 * text_px
    h += text_height(text, text_px, inner)
    # a margin for the greedy wrap's luck in a narrow column: one line and 5 % (the browser
    # measures the text it drew and the layout takes that instead, see dashboard.layout)
    h = 1.05 * h + LINE * text_px
    return math.ceil(h + TEXT_PAD_H * text_px / 18)


def lines(text, px, width, weight="normal"):
    text = plain_text(text).strip()
    return text_lines(text, px, width, weight) if text else 0


def _split(names, room, mins, gap):
    """Widths of ``names`` side by side in ``room`` px: equal shares, a panel with a larger
    least width getting it and the others sharing the rest."""
    widths = dict.fromkeys(names, 0)
    free = list(names)
    avail = room - gap * (len(names) - 1)
    while free:
        share = avail / len(free)
        big = [n for n in free if mins[n][0] > share]
        if not big:
            for n in free:
                widths[n] = int(share)
            break
        for n in big:
            widths[n] = int(mins[n][0])
            avail -= mins[n][0]
            free.remove(n)
    total = sum(widths.values())
    room_left = room - gap * (len(names) - 1)
    if total > room_left:  # the least widths do not fit: all shrink alike (it will not fit)
        widths = {n: int(w * room_left / total) for n, w in widths.items()}
    return widths


def plan_stage(width, height, panels, *, mins=None, scale=1.0, text_height_at=None,
               shares=None):
    """The arrangement of ``panels`` in a row ``width`` x ``height`` px.

    Parameters
    ----------
    width, height : int
        The room below the stage's bar.
    panels : sequence of str
        The panels shown, in order.
    mins : dict, optional
        ``{panel: (width, height)}``, the least room of a panel at this scale (default:
        :data:`PLOT_MIN` times ``scale``).
    scale : float
        The stage's scale (:func:`stage_scale`).
    text_height_at : callable, optional
        ``text_height_at(width) -> height`` of the lesson text's box at a width; None when
        no lesson is open.
    shares : dict, optional
        ``{panel: least(width) -> (least width, height at width)}``: a panel that can share
        the text's column, under the text, with less room than its own least (the metrics
        table, leaving out rows).  Weighed only when three panels do not fit beside or
        under the text.

    Returns
    -------
    StagePlan
    """
    names = list(panels)
    gap = round(GAP * scale)
    plot_min = (PLOT_MIN[0] * scale, PLOT_MIN[1] * scale)
    need = {n: (mins or {}).get(n, plot_min) for n in names}
    candidates = []

    def place(room_w, room_h):
        widths = _split(names, room_w, need, gap)
        sizes = {n: (max(int(widths[n]), 120), max(int(room_h), 120)) for n in names}
        # how comfortably each panel has its least room (1: just so)
        ease = min(min(w / need[n][0], h / need[n][1]) for n, (w, h) in sizes.items())
        area = sum(math.sqrt(w * h) for w, h in sizes.values())
        return sizes, ease, area

    if text_height_at is None:
        sizes, ease, area = place(width, height)
        return StagePlan(sizes, None, False, ease >= 1.0, area, ease=ease)

    # beside: the narrowest column the text fits in (or the widest allowed)
    columns, band_width = text_widths(width, scale)
    tw = next((w for w in columns if text_height_at(w) <= height), columns[-1])
    sizes, ease, area = place(width - tw - gap, height)
    text_ease = min(1.0, height / max(text_height_at(tw), 1))
    text_fits = text_ease >= 1.0
    candidates.append(StagePlan(sizes, (tw, height), False, ease >= 1.0 and text_fits,
                                area - (0 if text_fits else 1e6 * (1 + text_height_at(tw))),
                                ease=min(ease, text_ease)))
    # above: a band across the row, as high as the text
    band = text_height_at(band_width)
    # (a band wraps the row: the panels' line starts a row gap and a little more below it)
    sizes, ease, area = place(width, height - band - gap - _WRAP)
    candidates.append(StagePlan(sizes, (width, band), True, ease >= 1.0,
                                area - (0 if ease >= 1.0 else 1e5 * (1.0 - ease)), ease=ease))
    fitting = [c for c in candidates if c.fits]
    if fitting:
        return max(fitting, key=lambda c: c.score)
    closest = max(candidates, key=lambda c: c.score)
    shared = [n for n in names if n in (shares or {})]
    if len(names) == 3 and shared:
        stacked = _stacked(width, height, names, shared[0], shares[shared[0]], columns,
                           text_height_at, need, gap)
        if stacked is not None and stacked.ease > closest.ease:
            return stacked
    return closest


def _stacked(width, height, names, name, least, columns, text_height_at, need, gap):
    """The text and panel ``name`` in one column (the text above), the other panels beside
    it: the narrowest of ``columns`` at least as wide as the panel's least width in which
    its least height there (``least(width) -> (least width, height at width)``) fits under
    the text, with the rest of the column's height; None if there is none."""
    w_min = least(0)[0]
    for cw in columns:
        if cw < w_min:
            continue
        th = text_height_at(cw)
        if th + gap + least(cw)[1] <= height:
            break
    else:
        return None
    others = [n for n in names if n != name]
    widths = _split(others, width - cw - gap, need, gap)
    sizes = {n: (max(int(widths[n]), 120), int(height)) for n in others}
    ease = min(min(w / need[n][0], h / need[n][1]) for n, (w, h) in sizes.items())
    sizes[name] = (cw, int(height - th - gap))
    area = sum(math.sqrt(w * h) for w, h in sizes.values())
    return StagePlan({n: sizes[n] for n in names}, (cw, th), False, ease >= 1.0, area,
                     below_text=name, ease=min(ease, 1.0))


