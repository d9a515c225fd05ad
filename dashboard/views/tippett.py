"""Tippett plot: for targets and non-targets, the proportion of LLRs at or above ``x``.

The forensic view of a score set (Meuwly, Ramos & Haraksim 2017): ``x`` is the LLR in the
display unit (``state.display.llr_unit``: natural log, ``log10`` -- the forensic convention --
or bits; the axis label says which).  Targets (H1 true) are vermillion, non-targets (H2 true)
blue, and each curve has its own dash pattern (:data:`~.palette.PAIR_DASHES`): eval targets
solid and non-targets long dashes, dev targets dashed and non-targets dot-dashed.  The dotted
grey line marks LR = 1; the dashed purple one is the Bayes threshold ``-plo``, its markers
where it crosses the curves, at ``1 - Pmiss`` (targets) and ``Pfa`` (non-targets).  Dragging
or clicking on the plot moves the threshold, hence the operating point.  Below the plot: the
rates of misleading evidence (LR on the wrong side of 1), at the running text's size on a
stage.

The curves come from :func:`llrlab.core.tippett` once per result (binary searches on the
sort); a change of unit rescales their ``x`` column, a move of the operating point moves
the line and two markers per set.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, LegendItem, Range1d, Span

from llrlab.core import llr_from_unit, llr_label, llr_to_unit, tippett
from llrlab.core.palette import PAIR_DASHES

from ._common import COLORS, CURVE_DASHES, connect_drag, isolated, line_dash, new_figure
from ._shown import UnitCurvesView, when_shown

__all__ = ["TIPPETT_POINTS", "TippettView"]

#: Corners per Tippett curve sent to the browser.
TIPPETT_POINTS = 2000
_CLASSES = (("tar", "targets (H1)"), ("non", "non-targets (H2)"))


def _empty():
    e = np.empty(0)
    return {"x": e, "y": e}


class TippettView(UnitCurvesView):
    """The Tippett plot of a :class:`DashboardState` (figure and sources built once); per
    set, its :class:`~llrlab.core.TippettCurves` are kept (``_per_role``, :meth:`curves`)."""

    NOTE = "tippett_note"  # the rates of misleading evidence

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        self.display, self.point = st.display, st.point
        unit = self.display.llr_unit
        fig = new_figure("tippett", x_range=Range1d(-1, 1), y_range=Range1d(0, 1.02),
                         title="Tippett plot", x_axis_label=llr_label(unit),
                         y_axis_label="proportion of LRs ≥ x", min_width=360,
                         height=self.HEIGHT)
        self.lr1 = Span(location=0.0, dimension="height", line_color=COLORS["default"],
                        line_width=1.5, line_dash=line_dash(CURVE_DASHES["default"]),
                        name="tippett_lr1")
        fig.add_layout(self.lr1)
        self.sources, self.renderers, items = {}, {}, []
        for role in self.ROLES:
            for (cls, what), dash in zip(_CLASSES, PAIR_DASHES[role], strict=True):
                src = ColumnDataSource(_empty(), name=f"tippett_{cls}_{role}")
                r = fig.line("x", "y", source=src, line_color=COLORS[cls], line_width=2,
                             line_dash=line_dash(dash))
                self.sources[(role, cls)] = src
                self.renderers[(role, cls)] = r
                items.append(LegendItem(label=f"{role} {what}", renderers=[r]))
        self.threshold = Span(location=0.0, dimension="height", line_color=COLORS["op"],
                              line_dash="dashed", line_width=2.5, name="tippett_threshold")
        fig.add_layout(self.threshold)
        self.points = ColumnDataSource({"x": [], "y": [], "color": [], "role": []},
                                       name="tippett_points")
        fig.scatter("x", "y", source=self.points, size=9, fill_color="color",
                    line_color="black")
        self.drag = connect_drag(fig, self._on_drag, js_args=dict(span=self.threshold),
                                 js_code="span.location = cb_obj.x;",
                                 echo=[(self.threshold, "location")])
        self._finish(fig, items, lines=[(self.lr1, 1.5, CURVE_DASHES["default"]),
                                        (self.threshold, 2.5, "dashed")])

    @property
    def unit(self):
        return self.display.llr_unit

    def _on_drag(self, x, _y):
        self.point.set_plo(-float(llr_from_unit(x, self.unit)))

    def _curve(self, llr):
        return tippett(llr, max_points=TIPPETT_POINTS)

    def _redraw(self):
        """(Re)draw the curves in the display unit, with an x range holding every finite
        corner and LR = 1 (infinite LLRs of pure PAV blocks are drawn at the ends)."""
        unit = self.unit
        finite = [c[np.isfinite(c)] for cv in self._per_role.values()
                  for c in (cv.tar_llr, cv.non_llr)]
        allx = np.concatenate([*finite, [0.0]])
        lo, hi = float(allx.min()), float(allx.max())
        pad = 0.03 * max(hi - lo, 1e-9)
        lo, hi = lo - pad, hi + pad
        with pn.io.hold():
            for (role, cls), src in self.sources.items():
                c = self._per_role.get(role)
                if c is None:
                    src.data = _empty()
                    continue
                x, y = (c.tar_llr, c.tar_ge) if cls == "tar" else (c.non_llr, c.non_ge)
                src.data = {"x": llr_to_unit(np.clip(x, lo, hi), unit), "y": y}
            ulo, uhi = sorted(float(v) for v in llr_to_unit([lo, hi], unit))
            self.figure.x_range.start, self.figure.x_range.end = ulo, uhi
            self.figure.xaxis[0].axis_label = llr_label(unit)
            self._set_note(self._note_text())
            self._on_op()
            self._on_options()

    def _note_text(self):
        parts = [f"{role}: targets {100 * c.rme_tar:.3f} %, non-targets "
                 f"{100 * c.rme_non:.3f} %" for role, c in self._per_role.items()]
        if not parts:
            return ""
        return ("Misleading evidence (LR < 1 for targets, LR > 1 for non-targets) — "
                + "; ".join(parts) + ".")

    @param.depends("state.op", watch=True)
    @isolated
    @when_shown
    def _on_op(self):
        st = self.state
        thr = float(llr_to_unit(-self.point.plo, self.unit))
        x, y, color, roles = [], [], [], []
        for role, o in (st.op or {}).items():
            if role not in self._per_role or (role == "dev" and not self.display.show_dev):
                continue
            x += [thr, thr]
            y += [1.0 - float(o.act.p_miss), float(o.act.p_fa)]
            color += [COLORS["tar"], COLORS["non"]]
            roles += [role, role]
        with pn.io.hold():
            self.threshold.location = thr
            self.points.data = {"x": x, "y": y, "color": color, "role": roles}
