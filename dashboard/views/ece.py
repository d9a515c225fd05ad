"""ECE plot of the shown system: empirical cross-entropy against the prior log-odds.

The forensic view of calibration (Ramos & González-Rodríguez 2013; Brümmer 2010, sec. 7.4.3):
for each prior log-odds ``h`` on the x axis, in the LLR unit of ``state.display.llr_unit``,

* the cross-entropy of the LLRs (vermillion), ``Ce(sigmoid(h))`` in bits;
* the same after the PAV recalibration (blue): the minimum over monotone maps of the
  scores, the information the scores hold;
* the neutral reference (dotted grey), every LR equal to 1: the prior's entropy.

At ``h = 0`` the first two are Cllr and min Cllr; the gap between them is the calibration
loss at every prior.  Each curve has its own dash pattern (:data:`~.palette.PAIR_DASHES`):
eval LRs solid and after PAV long dashes, dev LRs dashed and after PAV dot-dashed; the
vertical line (dashed, purple) is the operating point.  The curves come from
:func:`llrlab.core.ece_curves` once per result, on the grid of the comparison's ECE plot
(:data:`~llrlab.dashboard.compute.APE_PLO`); a change of unit rescales the x column, a move
of the operating point moves the line.  Shown on a lesson's or presenter mode's stage (the
"Compare systems" tab overlays the ECE of every system).
"""

from __future__ import annotations

import math

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, LegendItem, Range1d, Span

from llrlab.core import ece_curves, llr_label, llr_to_unit
from llrlab.core.palette import PAIR_DASHES

from ..compute import APE_PLO
from ._common import COLORS, CURVE_DASHES, isolated, line_dash, new_figure
from ._shown import UnitCurvesView, when_shown

__all__ = ["ECEView"]

_LN2 = math.log(2.0)
#: The two curves of a set: the LRs' cross-entropy, the same after PAV.
_CURVES = (("ce", COLORS["act"], "LRs"), ("min", COLORS["map"], "after PAV"))


def _empty():
    e = np.empty(0)
    return {"x": e, "y": e}


class ECEView(UnitCurvesView):
    """The ECE plot of a :class:`DashboardState` (figure and sources built once); per set,
    its :class:`~llrlab.core.ECECurves` are kept (``_per_role``, :meth:`curves`)."""

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        self.display, self.point = st.display, st.point
        unit = self.display.llr_unit
        fig = new_figure("ece", x_range=Range1d(-1, 1), y_range=Range1d(0, 1.05),
                         title="ECE: empirical cross-entropy",
                         x_axis_label=llr_label(unit, "prior odds"),
                         y_axis_label="empirical cross-entropy (bits)", min_width=360,
                         height=self.HEIGHT)
        self.default_source = ColumnDataSource(_empty(), name="ece_default")
        default = fig.line("x", "y", source=self.default_source, line_color=COLORS["default"],
                           line_width=2, line_dash=line_dash(CURVE_DASHES["default"]))
        items = [LegendItem(label="neutral (LR = 1)", renderers=[default])]
        self.sources, self.renderers = {}, {}
        for role in self.ROLES:
            for (kind, color, what), dash in zip(_CURVES, PAIR_DASHES[role], strict=True):
                src = ColumnDataSource(_empty(), name=f"ece_{kind}_{role}")
                r = fig.line("x", "y", source=src, line_color=color, line_width=2.5,
                             line_dash=line_dash(dash))
                self.sources[(role, kind)], self.renderers[(role, kind)] = src, r
                items.append(LegendItem(label=f"{role} {what}", renderers=[r]))
        self.op_span = Span(location=0.0, dimension="height", line_color=COLORS["op"],
                            line_dash="dashed", line_width=2.5, name="ece_op")
        fig.add_layout(self.op_span)
        self._finish(fig, items, lines=[(self.op_span, 2.5, "dashed")])

    def _curve(self, llr):
        return ece_curves(llr, plo=APE_PLO)

    def _redraw(self):
        """(Re)draw the curves with x in the display unit, y in bits."""
        unit = self.display.llr_unit
        x = llr_to_unit(APE_PLO, unit)
        top = 1.0
        with pn.io.hold():
            for (role, kind), src in self.sources.items():
                c = self._per_role.get(role)
                if c is None:
                    src.data = _empty()
                    continue
                y = (c.ce if kind == "ce" else c.min_ce) / _LN2
                src.data = {"x": x, "y": y}
                top = max(top, float(np.nanmax(np.where(np.isfinite(y), y, 0.0))))
            any_curve = next(iter(self._per_role.values()), None)
            self.default_source.data = (_empty() if any_curve is None else
                                        {"x": x, "y": any_curve.default / _LN2})
            self.figure.x_range.start, self.figure.x_range.end = float(x[0]), float(x[-1])
            self.figure.y_range.end = min(1.05 * top, 3.0)
            self.figure.xaxis[0].axis_label = llr_label(unit, "prior odds")
            self._on_op()
            self._on_options()

    @param.depends("state.op", watch=True)
    @isolated
    @when_shown
    def _on_op(self):
        self.op_span.location = float(llr_to_unit(self.point.plo, self.display.llr_unit))
