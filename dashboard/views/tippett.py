"""Tippett plot: for targets and non-targets, the proportion of LLRs at or above ``x``.

The forensic view of a score set (Meuwly, Ramos & Haraksim 2017): ``x`` is the LLR in the
display unit (``state.display.llr_unit``: natural log, ``log10`` -- the forensic convention --
or bits; the axis label says which).  Eval is drawn solid, dev dashed; targets (H1 true)
orange, non-targets (H2 true) blue.  The vertical line is the Bayes threshold ``-plo``; its
markers sit where it crosses the curves, at ``1 - Pmiss`` (targets) and ``Pfa``
(non-targets).  Dragging or clicking on the plot moves the threshold, hence the operating
point.  Below the plot: the rates of misleading evidence (LR on the wrong side of 1).

The curves come from :func:`llrlab.core.tippett` once per result (binary searches on the
sort); a change of unit rescales their ``x`` column, a move of the operating point moves
the line and two markers per set.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, Legend, LegendItem, Range1d, Span

from llrlab.core import llr_from_unit, llr_label, llr_to_unit, tippett

from ._common import COLORS, DASH, connect_drag, isolated, new_figure
from ._shown import RoleCurvesView, when_shown

__all__ = ["TIPPETT_POINTS", "TippettView"]

#: Corners per Tippett curve sent to the browser.
TIPPETT_POINTS = 2000
_CLASSES = (("tar", "targets (H1)"), ("non", "non-targets (H2)"))


def _empty():
    e = np.empty(0)
    return {"x": e, "y": e}


class TippettView(RoleCurvesView):
    """The Tippett plot of a :class:`DashboardState` (figure and sources built once); per
    set, its :class:`~llrlab.core.TippettCurves` are kept (``_per_role``, :meth:`curves`)."""

    BELOW = 76  # the rates of misleading evidence: up to four lines beside a lesson's text

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        self.display, self.point = st.display, st.point
        unit = self.display.llr_unit
        fig = new_figure("tippett", x_range=Range1d(-1, 1), y_range=Range1d(0, 1.02),
                         title="Tippett plot", x_axis_label=llr_label(unit),
                         y_axis_label="proportion of LRs ≥ x", min_width=360, height=400)
        fig.add_layout(Span(location=0.0, dimension="height", line_color=COLORS["default"],
                            line_width=1, line_dash="dotted"))  # LR = 1
        self.sources, self.renderers, items = {}, {}, []
        for role in self.ROLES:
            for cls, what in _CLASSES:
                src = ColumnDataSource(_empty(), name=f"tippett_{cls}_{role}")
                r = fig.line("x", "y", source=src, line_color=COLORS[cls], line_width=2,
                             line_dash=DASH[role], line_alpha=1.0 if role == "eval" else 0.6)
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
        self.legend = Legend(items=items, click_policy="hide", location="top_right",
                             background_fill_alpha=0.75, label_text_font_size="9pt",
                             spacing=0, padding=6)
        fig.add_layout(self.legend)
        self.drag = connect_drag(fig, self._on_drag, js_args=dict(span=self.threshold),
                                 js_code="span.location = cb_obj.x;",
                                 echo=[(self.threshold, "location")])
        self.note = pn.pane.Markdown("", name="tippett_note", margin=(0, 10),
                                     styles={"color": "#555555", "font-size": "90%"})
        self._finish(fig, self.note)

    @property
    def unit(self):
        return self.display.llr_unit

    def _on_drag(self, x, _y):
        self.point.set_plo(-float(llr_from_unit(x, self.unit)))

    def _curve(self, llr):
        return tippett(llr, max_points=TIPPETT_POINTS)

    def _redraw(self):
        self._on_unit()

    @param.depends("state.display.llr_unit", watch=True)
    @isolated
    @when_shown
    def _on_unit(self):
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
            self.note.object = self._note()
            self._on_op()
            self._on_options()

    def _note(self):
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
