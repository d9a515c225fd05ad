"""Display options: what the plots show and how (no effect on any number), and the type
scale of the two styles.

Presentation style (presenter mode and lessons turn it on; the "Presentation style" switch
turns it off) sets every text to at least 18 px and every line to at least 2.5 px in a window
of 1280 x 720, a projector's, and scales both with the window beyond it (:attr:`scale`, set
by the page's layout), as a slide does: at 1920 x 1080 the picture is the same, 1.5 times
larger.
"""

from __future__ import annotations

import param

from .operating_point import PLO_LIMIT

__all__ = ["LINE_MIN", "TYPE_SCALE", "DisplayState"]

#: Font sizes in CSS pixels, (screen, presentation style at scale 1), by kind of text: plot
#: titles, axis labels, tick labels, legends, labels drawn in a plot, HTML text (a lesson's
#: text, tables, notes and captions), a lesson step's heading, the stage's bar.  The screen
#: sizes are those of the ordinary page (13, 11 and 9 pt in the plots).
TYPE_SCALE = {
    "title": (17.33, 22.0),
    "axis": (14.67, 20.0),
    "ticks": (12.0, 18.0),
    "legend": (12.0, 18.0),
    "annotation": (12.0, 18.0),
    "text": (14.0, 18.0),
    "heading": (17.0, 24.0),
    "bar": (14.0, 18.0),
}
#: Thinnest line of a curve, a reference line or a marker's stem in presentation style, in
#: pixels at scale 1 (lines are twice as thick as on a screen, and at least this).
LINE_MIN = 2.5


class DisplayState(param.Parameterized):
    """Ranges, curve kinds, shown sets and the presentation style of the plots."""

    nber_range = param.Range(default=(-7.0, 3.0), bounds=(-PLO_LIMIT, PLO_LIMIT),
                             label="NBER x range")
    det_kind = param.Selector(default="both", objects=["steppy", "rocch", "both"],
                              label="DET curves")
    show_contributions = param.Boolean(default=False, label="Miss / FA contributions")
    show_dev = param.Boolean(default=True, label="Show dev")
    presentation = param.Boolean(default=False, label="Presentation style", doc="""
        Large type and thick lines for a projector (see the module docstring).  Presenter
        mode and lessons turn it on; it can be turned off during them.""")
    svg = param.Boolean(default=False, label="SVG output", doc="""
        The plots' save tools save SVG files (vector drawings) instead of PNG images.""")
    llr_unit = param.Selector(default="ln", objects=["ln", "log10", "bits"], label="LLR unit",
                              doc="""
        Unit of the LLR axes (Tippett plot, calibration map): natural log, log10 (the forensic
        convention, Meuwly et al. 2017) or bits.""")
    reliability = param.Selector(default="pav", objects=["pav", "bins"],
                                 label="Reliability diagram", doc="""
        The empirical posterior of the reliability diagram: PAV-recalibrated, or per bin.""")
    reliability_bins = param.Integer(default=10, bounds=(2, 50), label="Reliability bins")
    scale = param.Number(default=1.0, bounds=(1.0, 3.0), precedence=-1, doc="""
        Size factor of presentation style's type and lines: 1 in a 1280 x 720 window, larger
        in a larger one (set by the page's layout on a stage; not a user choice).""")

    def px(self, kind):
        """The font size in pixels of text of ``kind`` (a key of :data:`TYPE_SCALE`) in the
        current style."""
        screen, big = TYPE_SCALE[kind]
        return round(big * self.scale, 1) if self.presentation else screen

    def font(self, kind):
        """:meth:`px` as a CSS size (``"18px"``)."""
        return f"{self.px(kind):g}px"

    def line_width(self, base):
        """The width of a line drawn ``base`` px wide on a screen, in the current style:
        twice as thick in presentation style, at least :data:`LINE_MIN`, times the scale."""
        if not self.presentation:
            return base
        return max(2.0 * base, LINE_MIN) * self.scale
