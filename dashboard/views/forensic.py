"""The forensic tab: the Tippett plot beside the reliability diagram.

Both follow the operating point (the Tippett threshold, the reliability diagram's prior) and
the LLR unit; they compute only while their tab is shown, and their figures join the page the
first time it is (:meth:`ForensicView.follow_tab`): a page that never shows them does not
load them.
"""

from __future__ import annotations

import panel as pn
import param

from ..state import DashboardState
from .reliability import ReliabilityView
from .tippett import TippettView

__all__ = ["ForensicView"]

_ABOUT = (
    "**Tippett plot**: for targets (H1 true) and non-targets (H2 true), the proportion of "
    "LRs at or above *x*; the dashed purple line is the Bayes threshold of the operating point "
    "(drag it). Forensic reports use log10(LR) (Meuwly, Ramos & Haraksim 2017): choose the "
    "LLR unit under Display. **Reliability diagram**: the empirical posterior of a target "
    "against the posterior the LLRs predict at the operating point's prior, PAV-recalibrated "
    "(Dimitriadis, Gneiting & Jordan 2021) or in bins (Murphy & Winkler 1977); calibrated "
    "LLRs lie on the diagonal.")


class ForensicView(pn.viewable.Viewer):
    """Tippett plot and reliability diagram of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        self.tippett = TippettView(state=self.state)
        self.reliability = ReliabilityView(state=self.state)
        self._plots = pn.Row(pn.Column(self.tippett, sizing_mode="stretch_width"),
                             pn.Column(self.reliability, sizing_mode="stretch_width"),
                             sizing_mode="stretch_width")
        self._layout = pn.Column(
            pn.pane.Markdown(_ABOUT, margin=(0, 10), styles={"font-size": "95%"}),
            self._plots, sizing_mode="stretch_width")

    def __panel__(self):
        return self._layout

    def follow_tab(self, tabs, index):
        """Compute and draw only while tab ``index`` of ``tabs`` is shown."""
        self._layout.objects = self._layout.objects[:1]  # the figures join when first shown

        def update(*_):
            shown = tabs.active == index
            if shown and self._plots not in self._layout.objects:
                self._layout.append(self._plots)
            self.tippett.active = self.reliability.active = shown
        tabs.param.watch(update, ["active"])
        update()
        return tabs
