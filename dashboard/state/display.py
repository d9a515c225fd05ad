"""Display options: what the plots show and how (no effect on any number)."""

from __future__ import annotations

import param

from .operating_point import PLO_LIMIT

__all__ = ["DisplayState"]


class DisplayState(param.Parameterized):
    """Ranges, curve kinds, shown sets and the presentation style of the plots."""

    nber_range = param.Range(default=(-7.0, 3.0), bounds=(-PLO_LIMIT, PLO_LIMIT),
                             label="NBER x range")
    det_kind = param.Selector(default="both", objects=["steppy", "rocch", "both"],
                              label="DET curves")
    show_contributions = param.Boolean(default=False, label="Miss / FA contributions")
    show_dev = param.Boolean(default=True, label="Show dev")
    presentation = param.Boolean(default=False, label="Presentation style")
    svg = param.Boolean(default=False, label="SVG output")
