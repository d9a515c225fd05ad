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
    llr_unit = param.Selector(default="ln", objects=["ln", "log10", "bits"], label="LLR unit",
                              doc="""
        Unit of the LLR axes (Tippett plot, calibration map): natural log, log10 (the forensic
        convention, Meuwly et al. 2017) or bits.""")
    reliability = param.Selector(default="pav", objects=["pav", "bins"],
                                 label="Reliability diagram", doc="""
        The empirical posterior of the reliability diagram: PAV-recalibrated, or per bin.""")
    reliability_bins = param.Integer(default=10, bounds=(2, 50), label="Reliability bins")
