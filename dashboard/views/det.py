"""DET plot: probit axes labelled in percent, steppy and ROCCH curves, EER, DR30, operating point.

Coordinates are ``probit(Pfa)``, ``probit(Pmiss)`` (Brümmer & de Villiers 2011, sec. 2.6; Martin et
al. 1997).  Ticks are fixed probabilities (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 40 % ...) placed at
their probits with ``FixedTicker`` and labelled with ``major_label_overrides``.  For each dataset
the actual operating point (error rates at the Bayes threshold ``-plo``, circle) and the
minimum-DCF point (square) are drawn, and the FMR100 and FMR1000 points of the steppy curve
(FNMR at FMR <= 1 %, 0.1 %; stars, labelled); a click or drag on the plot moves the operating
point to the plo whose minimum-DCF point is nearest (``DashboardState.pick_det``).
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.core.properties import value
from bokeh.models import (
    ColumnDataSource,
    CustomJSTickFormatter,
    FixedTicker,
    Label,
    Legend,
    LegendItem,
    Range1d,
    TeeHead,
    Whisker,
)

from llrlab.core import fmr_label, probit
from llrlab.core.det import DET_TICKS, det_axis_start, det_ticks

from ..compute.results import DET_FMR
from ..state import DashboardState
from ._common import (
    COLORS,
    CURVE_DASHES,
    DASH,
    Styler,
    add_condition_slots,
    condition_roles,
    connect_drag,
    dr30_data,
    finite,
    fit_figure,
    isolated,
    line_dash,
    new_figure,
    set_data,
    stage_min,
)
from .op_grid import OpGrid

__all__ = ["P_TICKS", "DETView", "choose_ticks", "probit_axes", "tick_labels"]

#: Probabilities with a tick on the DET axes (:data:`llrlab.core.det.DET_TICKS`).
P_TICKS = DET_TICKS
_P_HI = 0.6


def tick_labels():
    """``{probit(p): "p in %"}`` for the fixed ticks."""
    return {float(probit(p)): f"{100 * p:g}" for p in P_TICKS}


def probit_axes(fig):
    """Put the fixed probit ticks, labelled in %, on both axes and grids of ``fig``; return
    the shared ``FixedTicker`` (its ``ticks`` are thinned with :func:`choose_ticks` when the
    ranges or font sizes change)."""
    labels = tick_labels()
    ticker = FixedTicker(ticks=sorted(labels), minor_ticks=[])
    formatter = CustomJSTickFormatter(
        args=dict(xs=list(labels), labels=list(labels.values())), code="""
            for (let i = 0; i < xs.length; i++) {
                if (Math.abs(xs[i] - tick) < 1e-6) { return labels[i]; }
            }
            return "";
        """)
    for ax in (fig.xaxis[0], fig.yaxis[0]):
        ax.ticker, ax.formatter = ticker, formatter
    fig.xgrid.ticker = fig.ygrid.ticker = ticker
    return ticker


#: Tick positions (probits) inside ``[lo, hi]`` at least ``min_gap`` apart, decades first
#: (:func:`llrlab.core.det.det_ticks`): labels never overlap whatever the range and font.
choose_ticks = det_ticks


def _xy(p_fa, p_miss):
    return finite(probit(np.asarray(p_fa, float))), finite(probit(np.asarray(p_miss, float)))


#: Probit drawn for a probability of 0 or 1 (beyond any axis range; the whisker runs to the
#: edge of the plot).
_EDGE = 9.0


def _edge_probit(p):
    return np.clip(probit(np.asarray(p, float)), -_EDGE, _EDGE)


def _empty_ci():
    return {"x": [], "y": [], "x_lo": [], "x_hi": [], "y_lo": [], "y_hi": [], "alpha": []}


#: Height of the figure in the page.
HEIGHT = 560


def _clamp_point(x, y, xr, yr):
    """``(x, y, angle, off)``: a point moved onto the plot's edge when it lies outside the
    ranges (or at an infinite probit: an error rate of 0 or 1), with the angle of a triangle
    pointing towards where it really is; ``off`` says whether it was moved."""
    inset = 0.015
    dx = dy = 0
    cx, cy = x, y
    for v, rng, axis in ((x, xr, "x"), (y, yr, "y")):
        lo, hi = rng
        pad = inset * (hi - lo)
        if v != v:  # NaN: not drawn
            return x, y, 0.0, False
        if v < lo:
            c, d = lo + pad, -1
        elif v > hi:
            c, d = hi - pad, 1
        else:
            continue
        if axis == "x":
            cx, dx = c, d
        else:
            cy, dy = c, d
    if dx == 0 and dy == 0:
        return x, y, 0.0, False
    return cx, cy, float(np.arctan2(dy, dx) - np.pi / 2), True


def _empty_xy():
    return {"x": np.empty(0), "y": np.empty(0)}


def _fmr_data(points):
    """Source data of the FMR100 / FMR1000 markers (:data:`DET_FMR`) from a
    ``ThresholdCounts`` (NaN, not drawn, when None)."""
    text = [fmr_label(x) for x in DET_FMR]
    if points is None:
        return {"x": [np.nan] * len(text), "y": [np.nan] * len(text), "text": text}
    x, y = _xy(points.p_fa, points.p_miss)
    return {"x": list(map(float, x)), "y": list(map(float, y)), "text": text}


class DETView(pn.viewable.Viewer):
    """The DET plot of a :class:`DashboardState` (figure and sources built once)."""

    state = param.ClassSelector(class_=DashboardState)
    #: The in-page drag's grid (served dashboard); None: every drag position goes to the
    #: server.
    op_grid = param.ClassSelector(class_=OpGrid, default=None)

    def __init__(self, **params):
        super().__init__(**params)
        lo, hi = float(probit(0.001)), float(probit(_P_HI))
        fig = new_figure("det", x_range=Range1d(lo, hi), y_range=Range1d(lo, hi),
                         title="DET", x_axis_label="false-alarm probability (%)",
                         y_axis_label="miss probability (%)", min_width=360, height=HEIGHT)
        self.figure = fig
        fig.min_border_left = 56
        fig.min_border_bottom = 40
        self.ticker = probit_axes(fig)

        items = []
        fig.line([-9.0, 9.0], [-9.0, 9.0], line_color=COLORS["default"], line_width=1.25,
                 line_dash=line_dash(CURVE_DASHES["default"]))
        self.curve_sources, self.renderers = {}, {}
        self.eer_sources, self.dr30_sources, self.op_sources = {}, {}, {}
        self.fmr_sources = {}
        for role in ("eval", "dev"):
            i = ("eval", "dev").index(role)
            r = {}
            self.curve_sources[role] = {}
            for kind in ("steppy", "rocch"):
                src = ColumnDataSource({"x": np.empty(0), "y": np.empty(0)},
                                       name=f"det_{kind}_{role}")
                self.curve_sources[role][kind] = src
                r[kind] = fig.line("x", "y", source=src, line_color=COLORS[kind],
                                   line_width=2 if kind == "rocch" else 1.5,
                                   line_dash=line_dash(CURVE_DASHES["rocch"][i]
                                                       if kind == "rocch" else DASH[role]))
                items.append(LegendItem(label=f"{role} {'ROCCH' if kind == 'rocch' else kind}",
                                        renderers=[r[kind]]))
            src = ColumnDataSource({"x": [np.nan], "y": [np.nan]}, name=f"det_eer_{role}")
            self.eer_sources[role] = src
            r["eer"] = fig.scatter("x", "y", source=src, marker="diamond", size=12,
                                   fill_color="white" if role == "dev" else "black",
                                   line_color="black")
            src = ColumnDataSource(dr30_data(), name=f"det_dr30_{role}")
            self.dr30_sources[role] = src
            r["dr30"] = fig.scatter("x", "y", source=src, marker="marker", size=12,
                                    fill_color="color", line_color="black",
                                    fill_alpha=1.0 if role == "eval" else 0.35)
            # FMR100, FMR1000: the steppy curve's points at FMR <= 1 %, 0.1 %
            src = ColumnDataSource(_fmr_data(None), name=f"det_fmr_{role}")
            self.fmr_sources[role] = src
            r["fmr"] = fig.scatter("x", "y", source=src, marker="star", size=13,
                                   fill_color="black" if role == "eval" else "white",
                                   line_color="black")
            src = ColumnDataSource(self._op_data(), name=f"det_op_{role}")
            self.op_sources[role] = src
            # on the overlay canvas, which a drag's move repaints alone (see NBERView)
            r["op"] = fig.scatter("x", "y", source=src, marker="marker", size=11,
                                  fill_color="color" if role == "eval" else "white",
                                  line_color="color", line_width=2, angle="angle",
                                  level="overlay")
            self.renderers[role] = r
            if role == "eval":
                items += [LegendItem(label="EER", renderers=[r["eer"]]),
                          LegendItem(label="DR30 false alarms", renderers=[r["dr30"]],
                                     index=0),
                          LegendItem(label="DR30 misses", renderers=[r["dr30"]], index=1),
                          LegendItem(label="FMR100, FMR1000",
                                     renderers=[r["fmr"]]),
                          LegendItem(label="actual op. point", renderers=[r["op"]],
                                     index=0),
                          LegendItem(label="min-DCF point", renderers=[r["op"]], index=1)]
        # per-condition curves: a slot's models are built the first time that many
        # conditions are drawn (:meth:`_condition_slots`)
        self._conditions_drawn = None
        self.condition_sources = {"eval": [], "dev": []}
        self.condition_renderers = []
        self.condition_items = []

        # confidence intervals of (Pfa, Pmiss) at the actual operating point: a crosshair
        self.ci_source = ColumnDataSource(_empty_ci(), name="det_ci_source")
        head = dict(size=10, line_color=COLORS["op"], line_width=2)
        self.ci_x = Whisker(source=self.ci_source, base="y", lower="x_lo", upper="x_hi",
                            dimension="width", line_color=COLORS["op"], line_width=2,
                            line_alpha="alpha", name="det_ci_x", visible=False,
                            lower_head=TeeHead(**head), upper_head=TeeHead(**head))
        self.ci_y = Whisker(source=self.ci_source, base="x", lower="y_lo", upper="y_hi",
                            dimension="height", line_color=COLORS["op"], line_width=2,
                            line_alpha="alpha", name="det_ci_y", visible=False,
                            lower_head=TeeHead(**head), upper_head=TeeHead(**head))
        fig.add_layout(self.ci_x)
        fig.add_layout(self.ci_y)

        self.legend = Legend(items=items, click_policy="hide", ncols=3,
                             label_text_font_size="9pt", spacing=0, padding=4, margin=4,
                             border_line_alpha=0, name="det_legend")
        fig.add_layout(self.legend, "below")

        # an actual operating point off the plot (an error rate of 0 or 1, or beyond the
        # axes) is drawn on the edge as a triangle pointing towards it, and named here
        self.off_label = Label(x=lo, y=lo, x_offset=6, y_offset=6, text="", visible=False,
                               text_font_size="9pt", text_color=COLORS["op"],
                               background_fill_color="white", background_fill_alpha=0.85,
                               name="det_off_label")
        fig.add_layout(self.off_label)
        # "FMR100", "FMR1000" beside the eval markers (the dev ones, white, sit near them):
        # one Label each, placed by _place_fmr_labels
        self.fmr_labels = [Label(x=lo, y=lo, x_offset=7, y_offset=2, text=fmr_label(x),
                                 visible=False, text_font_size="9pt", text_color="#222222",
                                 name=f"det_fmr_label_{j}")
                           for j, x in enumerate(DET_FMR)]
        for label in self.fmr_labels:
            fig.add_layout(label)

        if self.op_grid is not None:
            self.op_grid.echo += [(src, "data") for src in self.op_sources.values()]
        self.drag = connect_drag(fig, self._on_drag, grid=self.op_grid, mode="det")

        self.styler = Styler(fig, legend_cols=3, display=self.state.display)
        self.styler.capture()
        self.styler.add_text(self.off_label, "9pt")
        for label in self.fmr_labels:
            self.styler.add_text(label, "9pt")
        for whisker in (self.ci_x, self.ci_y):
            self.styler.add_line(whisker, 2)
        self._pane = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        self._on_results()
        self._on_op()

    @staticmethod
    def _op_data(x=(np.nan, np.nan), y=(np.nan, np.nan), angle=(0.0, 0.0), off=(False, False)):
        return {"x": list(x), "y": list(y),
                "marker": ["triangle_dot" if off[0] else "circle",
                           "triangle_dot" if off[1] else "square"],
                "color": [COLORS["op"], COLORS["min"]], "angle": list(angle)}

    def stage_min(self, scale=1.0):
        """The least room of the figure on a stage (see ``_common.stage_min``)."""
        return stage_min(self.legend, scale)

    def resize(self, width=None, height=None):
        """A fixed size on the stage, or the page's width (see ``fit_figure``)."""
        fit_figure(self.figure, self.styler, width, height, default_height=HEIGHT)
        self._on_options()

    def _lit(self):
        names = self.state.presenter.lit("det")
        return [r[k] for r in self.renderers.values() for k in ("steppy", "rocch", "eer",
                                                                  "dr30", "fmr", "op")
                if k in names]

    def __panel__(self):
        return self._pane

    def _on_drag(self, x, y):
        self.state.pick_det(x, y)

    @param.depends("state.results", watch=True)
    @isolated
    def _on_results(self):
        res = self.state.results
        datasets = {} if res is None else res.datasets
        with pn.io.hold():
            for role in ("eval", "dev"):
                d = datasets.get(role)
                for kind, src in self.curve_sources[role].items():
                    if d is None:
                        src.data = {"x": np.empty(0), "y": np.empty(0)}
                    else:
                        c = d.det(kind)
                        src.data = {"x": finite(c.x), "y": finite(c.y)}
                if d is None:
                    self.eer_sources[role].data = {"x": [np.nan], "y": [np.nan]}
                else:
                    e = finite(probit(d.llr.eer))
                    self.eer_sources[role].data = {"x": [float(e)], "y": [float(e)]}
                self.fmr_sources[role].data = _fmr_data(None if d is None else d.fmr_points())
            self._update_dr30()
            prim = None if res is None else res.primary
            if prim is not None:
                hi = float(probit(_P_HI))
                for rng, n in ((self.figure.x_range, prim.llr.n_non),
                               (self.figure.y_range, prim.llr.n_tar)):
                    rng.start, rng.end = float(probit(det_axis_start(n))), hi
            self._on_options()
            self._on_op()  # placed again within the new ranges

    def _place_fmr_labels(self):
        """The labels beside the eval FMR markers: at each marker drawn, hidden otherwise
        (no eval set, a marker off the axes' range of numbers, e.g. FNMR 100 %)."""
        data = self.fmr_sources["eval"].data
        shown = self.renderers["eval"]["fmr"].visible
        for label, x, y in zip(self.fmr_labels, data["x"], data["y"], strict=True):
            drawn = bool(shown and np.isfinite(x) and np.isfinite(y))
            label.update(visible=drawn, **({"x": float(x), "y": float(y)} if drawn else {}))

    def _update_dr30(self):
        res = self.state.results
        kind = "steppy" if self.state.display.det_kind == "steppy" else "rocch"
        for role, src in self.dr30_sources.items():
            d = None if res is None else res.datasets.get(role)
            if d is None:
                x = y = np.array([np.nan, np.nan])
            else:
                fa, miss = d.det_dr30(kind)
                x, y = _xy([fa[0], miss[0]], [fa[1], miss[1]])
            src.data = dr30_data(x, y)

    def _condition_slots(self, n):
        """Build condition slots until there are ``n`` (at most MAX_CONDITIONS)."""
        def glyphs(src, role, color, dash):
            return {role: self.figure.line(
                "x", "y", source=src, line_color=color, line_width=1.6,
                line_alpha=1.0 if role == "eval" else 0.5, line_dash=line_dash(dash),
                visible=False)}

        if add_condition_slots(self, n, prefix="det", empty=_empty_xy, glyphs=glyphs):
            self._conditions_drawn = None  # the new slots need their curves

    def _update_conditions(self):
        st = self.state
        res = st.results
        if res is not None and st.conditions.show_curves:
            self._condition_slots(max((len(d.conditions) for d in res.datasets.values()),
                                      default=0))
        kind = "steppy" if st.display.det_kind == "steppy" else "rocch"
        drawn = self._conditions_drawn
        if drawn is not None and drawn[0] is res and drawn[1] == kind:
            return
        self._conditions_drawn = (res, kind)
        for role, sources in self.condition_sources.items():
            d = None if res is None else res.datasets.get(role)
            curves = () if d is None else d.conditions
            for k, src in enumerate(sources):
                if k < len(curves):
                    c = curves[k].det(kind)
                    src.data = {"x": finite(c.x), "y": finite(c.y)}
                else:
                    src.data = _empty_xy()
        prim = None if res is None else res.primary
        curves = () if prim is None else prim.conditions
        for k, item in enumerate(self.condition_items):
            if k < len(curves):
                item.label = value(curves[k].name)  # a bare string names a column

    def _ci_data(self):
        st = self.state
        ci = st.op_ci or {}
        roles = [r for r in ("eval", "dev")
                 if r in ci and (r == "eval" or st.display.show_dev)]
        out = _empty_ci()
        for r in roles:
            c = ci[r]
            out["x"].append(float(_edge_probit(c.p_fa.estimate)))
            out["y"].append(float(_edge_probit(c.p_miss.estimate)))
            out["x_lo"].append(float(_edge_probit(c.p_fa.lower)))
            out["x_hi"].append(float(_edge_probit(c.p_fa.upper)))
            out["y_lo"].append(float(_edge_probit(c.p_miss.lower)))
            out["y_hi"].append(float(_edge_probit(c.p_miss.upper)))
            out["alpha"].append(1.0 if r == "eval" else 0.5)
        return out

    @param.depends("state.op", "state.op_ci", watch=True)
    @isolated
    def _on_op(self):
        st = self.state
        op = st.op or {}
        xr, yr = self.figure.x_range, self.figure.y_range
        ranges = ((xr.start, xr.end), (yr.start, yr.end))
        off_text = []
        with pn.io.hold():
            set_data(self.ci_source, self._ci_data())
            self.ci_x.visible = self.ci_y.visible = bool(st.op_ci)
            for role, src in self.op_sources.items():
                o = op.get(role)
                if o is None:
                    set_data(src, self._op_data())
                    continue
                pts = [(float(probit(o.act.p_fa)), float(probit(o.act.p_miss))),
                       (float(probit(o.min.p_fa)), float(probit(o.min.p_miss)))]
                placed = [_clamp_point(px, py, *ranges) for px, py in pts]
                set_data(src, self._op_data([p[0] for p in placed], [p[1] for p in placed],
                                            [p[2] for p in placed], [p[3] for p in placed]))
                shown = role == "eval" or st.display.show_dev
                if placed[0][3] and shown:
                    off_text.append(f"{role}: Pmiss {100 * o.act.p_miss:.3g} %, "
                                    f"Pfa {100 * o.act.p_fa:.3g} %")
            self.off_label.update(
                x=xr.start, y=yr.start, visible=bool(off_text),
                text=("actual operating point off the plot (▲ on the edge)\n"
                      + "\n".join(off_text)) if off_text else "")

    @param.depends("state.presenter.highlight", watch=True)
    @isolated
    def _on_highlight(self):  # (separate: see MetricsView._on_op)
        self._on_options()

    @param.depends("state.display.det_kind", "state.display.show_dev",
                   "state.display.presentation", "state.display.svg",
                   "state.conditions.show_curves", watch=True)
    def _on_options(self):
        """Restyle now, or once at the end of a held change (see
        ``DashboardState.when_settled``)."""
        self.state.when_settled(self._restyle)

    @isolated
    def _restyle(self):
        st = self.state
        res = st.results
        with pn.io.hold():
            self._update_dr30()
            self._update_conditions()
            n_cond = {role: (len(res.datasets[role].conditions)
                             if res is not None and role in res.datasets else 0)
                      for role in ("eval", "dev")}
            roles = condition_roles(res, st.display)
            for k, slot in enumerate(self.condition_renderers):
                for role, r in slot.items():
                    r.visible = (st.conditions.show_curves and k < n_cond[role]
                                 and role in roles)
            self.ci_source.data = self._ci_data()
            for role, r in self.renderers.items():
                have = res is not None and role in res.datasets
                shown = have and (role == "eval" or st.display.show_dev)
                for kind in ("steppy", "rocch"):
                    r[kind].visible = shown and st.display.det_kind in (kind, "both")
                for k in ("eer", "dr30", "fmr", "op"):
                    r[k].visible = shown
            self._place_fmr_labels()
            for item in self.legend.items:  # no legend entry for what is not drawn
                item.visible = any(r.visible for r in item.renderers)
            self.styler.apply(st.display.presentation, st.display.svg, self._lit())
            xr, yr = self.figure.x_range, self.figure.y_range
            gap = 0.42 if st.display.presentation else 0.26
            self.ticker.ticks = choose_ticks(min(xr.start, yr.start), max(xr.end, yr.end), gap)
