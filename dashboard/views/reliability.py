"""Reliability diagram: empirical against predicted posterior, at the operating point's prior.

The posterior a calibrated LLR predicts depends on the prior: at the operating point's
effective prior ``sigmoid(plo)`` it is ``sigmoid(llr + plo)``.  The diagram compares it with
the empirical posterior in a population with that prior (:func:`llrlab.core.reliability`):

* ``"pav"`` (default): the PAV-recalibrated posterior, a step line per set (Dimitriadis,
  Gneiting & Jordan 2021).  Its blocks do not depend on the prior, so it is computed once per
  result and moved to the new prior on every drag (a few hundred sigmoids);
* ``"bins"``: equal-width bins of the predicted posterior, one point per bin sized by its
  trials (Murphy & Winkler 1977), recomputed from the scores when the operating point
  moves (one pass over the LLRs: about 0.1 s per 10^7 trials).

Calibrated LLRs lie on the diagonal (dotted grey).  The PAV line is blue, eval solid and dev
dashed; the bins are vermillion markers with a black outline, eval circles and dev squares
(``state.display.reliability`` and ``state.display.reliability_bins`` choose the method and
the number of bins).
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, LegendItem, Range1d
from scipy.special import expit

from llrlab.core import reliability

from ._common import COLORS, CURVE_DASHES, DASH, isolated, line_dash, new_figure
from ._shown import RoleCurvesView, when_shown

__all__ = ["RELIABILITY_POINTS", "ReliabilityView"]

#: Corners per PAV curve sent to the browser.
RELIABILITY_POINTS = 1000
#: The marker of a set's bins (their colour is the same: the shape tells the sets apart).
BIN_MARKERS = {"eval": "circle", "dev": "square"}


def _empty_line():
    e = np.empty(0)
    return {"x": e, "y": e}


def _empty_bins():
    e = np.empty(0)
    return {"x": e, "y": e, "size": e, "n": e}


class ReliabilityView(RoleCurvesView):
    """The reliability diagram of a :class:`DashboardState` (figure and sources built
    once); per set, the prior-free PAV diagram is kept (``_per_role``)."""

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        self.display, self.point = st.display, st.point
        fig = new_figure("reliability", x_range=Range1d(0, 1), y_range=Range1d(0, 1),
                         title="Reliability at the prior P̃",
                         x_axis_label="predicted posterior P(target | LLR)",
                         y_axis_label="empirical posterior", min_width=360,
                         height=self.HEIGHT)
        fig.line([0, 1], [0, 1], line_color=COLORS["default"], line_width=1.5,
                 line_dash=line_dash(CURVE_DASHES["default"]))
        self.lines, self.bins, self.renderers, items = {}, {}, {}, []
        for role in self.ROLES:
            src = ColumnDataSource(_empty_line(), name=f"reliability_pav_{role}")
            line = fig.line("x", "y", source=src, line_color=COLORS["map"], line_width=2,
                            line_dash=line_dash(DASH[role]))
            bsrc = ColumnDataSource(_empty_bins(), name=f"reliability_bins_{role}")
            dots = fig.scatter("x", "y", source=bsrc, size="size", marker=BIN_MARKERS[role],
                               fill_color=COLORS["act"], fill_alpha=0.6, line_color="black")
            self.lines[role], self.bins[role] = src, bsrc
            self.renderers[role] = {"pav": line, "bins": dots}
            items += [LegendItem(label=f"{role} PAV", renderers=[line]),
                      LegendItem(label=f"{role} bins", renderers=[dots])]
        self._finish(fig, items)

    def diagram(self, role):
        """The :class:`~llrlab.core.ReliabilityDiagram` drawn for ``role`` at the current
        prior (None: not shown)."""
        st = self.state
        d = None if st.results is None else st.results.datasets.get(role)
        if d is None:
            return None
        if self.display.reliability == "pav":
            return self._per_role[role].at_plo(self.point.plo)
        return reliability(d.llr, plo=self.point.plo, method="bins",
                           bins=self.display.reliability_bins)

    def _curve(self, llr):
        return reliability(llr, method="pav", max_points=RELIABILITY_POINTS)

    def _redraw(self):
        self._on_op()

    @param.depends("state.display.reliability", "state.display.reliability_bins", watch=True)
    @isolated
    def _on_method(self):  # (a watcher of both state.x and state.part.y misses changes)
        self._on_op()

    @param.depends("state.op", watch=True)
    @isolated
    @when_shown
    def _on_op(self):
        plo = self.point.plo
        method = self.display.reliability
        with pn.io.hold():
            for role in self.ROLES:
                r = self._per_role.get(role)
                if r is None or method != "pav":
                    self.lines[role].data = _empty_line()
                else:
                    self.lines[role].data = {"x": expit(r.llr + plo),
                                             "y": expit(r.pav_llr + plo)}
                if r is None or method != "bins":
                    self.bins[role].data = _empty_bins()
                else:
                    b = self.diagram(role)
                    n = b.n_tar + b.n_non
                    size = 6 + 14 * np.sqrt(n / max(float(n.max(initial=0)), 1.0))
                    self.bins[role].data = {"x": b.predicted, "y": b.empirical,
                                            "size": size, "n": n}
            self.figure.title.text = (f"Reliability at the prior "
                                      f"P̃ = {self.point.effective_prior:.4g}")
            self._on_options()

    @param.depends("state.display.show_dev", "state.display.presentation", "state.display.svg",
                   watch=True)
    @isolated
    @when_shown
    def _on_options(self):
        d = self.display
        with pn.io.hold():
            for role, rs in self.renderers.items():
                shown = role in self._per_role and (role == "eval" or d.show_dev)
                rs["pav"].visible = shown and d.reliability == "pav"
                rs["bins"].visible = shown and d.reliability == "bins"
            self._style()
