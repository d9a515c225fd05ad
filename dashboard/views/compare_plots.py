"""The comparison plots: every compared system overlaid, one colour per system.

Each plot is a ``pn.viewable.Viewer`` over a :class:`~llrlab.dashboard.state.CompareState`
that builds its figure once.  Curves of all systems share one ``multi_line`` renderer per line
style (a row per system, with its colour from ``CompareState.color``), so any number of systems
is drawn without adding renderers; sources are replaced whole, inside ``pn.io.hold()``.  The
legend lists the systems (a field legend on the solid lines) and the line styles (grey
samples).

* :class:`CompareNBERView` -- normalized actual (solid) and minimum (dashed) DCF; the
  operating-point line follows ``state.point.plo`` and a drag on the plot moves it.
* :class:`CompareDETView` -- DET curves (ROCCH and / or steppy per ``state.display.det_kind``), with
  each system's actual operating point.
* :class:`CompareEPCView` -- EPC: test HTER against the trade-off ``alpha`` (dev thresholds).
* :class:`CompareAPEView` -- un-normalized Bayes error rate: actual, minimum and default.
* :class:`CompareECEView` -- empirical cross-entropy in bits: actual, PAV minimum, default.
* :class:`CllrBarsView` -- Cllr as stacked bars: discrimination loss (minCllr) and
  calibration loss (Cllr - minCllr).
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.core.property.vectorization import field
from bokeh.models import (
    ColumnDataSource,
    FactorRange,
    Label,
    LabelSet,
    Legend,
    LegendItem,
    Range1d,
    Span,
)

from llrlab.core import probit

from ..compute import APE_PLO, EPC_ALPHA
from ..state import CompareState
from ._common import COLORS, Styler, connect_drag, finite, isolated, new_figure
from .det import choose_ticks, probit_axes

__all__ = ["CllrBarsView", "CompareAPEView", "CompareDETView", "CompareECEView",
           "CompareEPCView", "CompareNBERView"]

_HEIGHT = 400
_LN2 = float(np.log(2.0))


def _lines(rows=()):
    """Multi-line source data: ``rows`` of (name, colour, x, y)."""
    rows = list(rows)
    return {"xs": [finite(r[2]) for r in rows], "ys": [finite(r[3]) for r in rows],
            "name": [r[0] for r in rows], "color": [r[1] for r in rows]}


def _points(rows=()):
    rows = list(rows)
    return {"x": [float(r[2]) for r in rows], "y": [float(r[3]) for r in rows],
            "name": [r[0] for r in rows], "color": [r[1] for r in rows]}


class _ComparePlot(pn.viewable.Viewer):
    """Common part: figure, multi-line renderers per style, legend, styler, op line."""

    cstate = param.ClassSelector(class_=CompareState)

    def _build(self, fig, styles, *, op_line=False, legend_loc="top_right"):
        """``styles``: ``{key: (legend label or None, line_dash, line_width, alpha)}``; the
        first style's renderer carries the system legend."""
        self.figure = fig
        self.sources, self.renderers = {}, {}
        items = []
        for i, (key, (_label, dash, width, alpha)) in enumerate(styles.items()):
            src = ColumnDataSource(_lines(), name=f"{fig.name}_{key}")
            r = fig.multi_line("xs", "ys", source=src, line_color="color", line_dash=dash,
                               line_width=width, line_alpha=alpha)
            self.sources[key], self.renderers[key] = src, r
            if i == 0:
                items.append(LegendItem(label=field("name"), renderers=[r]))
        for key, (label, dash, width, _) in styles.items():
            if label is not None:  # a grey sample of the line style
                # one NaN point: nothing drawn, but the legend shows the style
                sample = fig.line([np.nan], [np.nan], line_color="#555555", line_dash=dash,
                                  line_width=width)
                items.append(LegendItem(label=label, renderers=[sample]))
                self.renderers[f"{key}_sample"] = sample
        self.op_span = None
        if op_line:
            st = self.cstate.state
            self.op_span = Span(location=st.point.plo, dimension="height",
                                line_color=COLORS["op"], line_dash="dashed", line_width=2,
                                name=f"{fig.name}_op")
            fig.add_layout(self.op_span)
        self.legend = Legend(items=items, location=legend_loc, background_fill_alpha=0.75,
                             label_text_font_size="9pt", spacing=0, padding=5,
                             click_policy="none")
        fig.add_layout(self.legend)
        self.styler = Styler(fig)
        self._pane = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        self.cstate.state.display.param.watch(self._on_style, ["presentation", "svg"])

    def _finish(self):
        self.styler.capture()
        self._on_style()

    def __panel__(self):
        return self._pane

    def _on_style(self, *_):
        st = self.cstate.state
        self.styler.apply(st.display.presentation, st.display.svg)

    def _systems(self):
        comp = self.cstate.comparison
        return {} if comp is None else comp.systems

    def _move_op(self):
        if self.op_span is not None:
            self.op_span.location = float(self.cstate.state.point.plo)


class CompareNBERView(_ComparePlot):
    """Normalized DCF of every system on the NBER x range; drag to move the operating point."""

    def __init__(self, **params):
        super().__init__(**params)
        lo, hi = self.cstate.state.display.nber_range
        fig = new_figure("cmp_nber", x_range=Range1d(lo, hi), y_range=Range1d(0, 1.2),
                         title="Normalized Bayes error rate",
                         x_axis_label="prior log-odds  logit(P̃)",
                         y_axis_label="normalized DCF", height=_HEIGHT, min_width=380)
        fig.line([-40.0, 40.0], [1.0, 1.0], line_color=COLORS["default"], line_width=1,
                 line_dash="dotted")
        self._build(fig, {"act": ("actual DCF", "solid", 2.0, 1.0),
                          "min": ("minimum DCF", "dashed", 2.0, 0.9)}, op_line=True)
        self.points = ColumnDataSource(_points(), name="cmp_nber_points")
        fig.scatter("x", "y", source=self.points, size=8, fill_color="color",
                    line_color="white")
        self.drag = connect_drag(fig, lambda x, _y: self.cstate.state.point.set_plo(x),
                                 js_args=dict(span=self.op_span),
                                 js_code="span.location = cb_obj.x;",
                                 echo=[(self.op_span, "location")])
        self._finish()
        self._on_curves()
        self._on_op()

    @param.depends("cstate.nber", "cstate.role", watch=True)
    @isolated
    def _on_curves(self):
        cs = self.cstate
        nb = cs.nber
        role = cs.role
        act, mn = [], []
        ymax = 1.2
        if nb is not None:
            grid, sets = nb
            for name, per in sets.items():
                if role in per:
                    a, m = per[role]
                    act.append((name, cs.color(name), grid, a.dcf))
                    mn.append((name, cs.color(name), grid, m.dcf))
                    vals = a.dcf[np.isfinite(a.dcf)]
                    if vals.size:
                        ymax = max(ymax, min(2.0, 1.08 * float(vals.max())))
        with pn.io.hold():
            self.sources["act"].data = _lines(act)
            self.sources["min"].data = _lines(mn)
            self.figure.title.text = f"Normalized Bayes error rate ({role})"
            self.figure.x_range.start, self.figure.x_range.end = cs.state.display.nber_range
            self.figure.y_range.end = ymax
            self._on_op()

    @param.depends("cstate.op", watch=True)
    @isolated
    def _on_op(self):
        cs = self.cstate
        op = cs.op or {}
        rows = [(n, cs.color(n), o[cs.role].plo, o[cs.role].act_dcf)
                for n, o in op.items() if cs.role in o]
        with pn.io.hold():
            self._move_op()
            self.points.data = _points(rows)


class CompareDETView(_ComparePlot):
    """DET curves of every system (ROCCH and / or steppy), with the actual operating points."""

    def __init__(self, **params):
        super().__init__(**params)
        lo, hi = float(probit(0.001)), float(probit(0.6))
        fig = new_figure("cmp_det", x_range=Range1d(lo, hi), y_range=Range1d(lo, hi),
                         title="DET", x_axis_label="false-alarm probability (%)",
                         y_axis_label="miss probability (%)", height=_HEIGHT, min_width=380)
        self.ticker = probit_axes(fig)
        fig.line([-9.0, 9.0], [-9.0, 9.0], line_color=COLORS["default"], line_width=1,
                 line_dash="dotted")
        self._build(fig, {"rocch": ("ROCCH", "solid", 2.0, 1.0),
                          "steppy": ("steppy", "solid", 1.0, 0.55)})
        self.points = ColumnDataSource(_points(), name="cmp_det_points")
        fig.scatter("x", "y", source=self.points, size=9, fill_color="color",
                    line_color="black")
        self.cstate.state.display.param.watch(self._on_curves, ["det_kind"])
        self._finish()
        self._on_curves()

    @param.depends("cstate.comparison", "cstate.role", watch=True)
    @isolated
    def _on_curves(self, *_):
        cs = self.cstate
        kind = cs.state.display.det_kind
        rows = {"rocch": [], "steppy": []}
        n_min = None
        for name, sc in self._systems().items():
            d = sc.dataset(cs.role)
            if d is None:
                continue
            n_min = min(n_min or np.inf, d.llr.n_tar, d.llr.n_non)
            for k in rows:
                if kind in (k, "both"):
                    c = d.det(k)
                    rows[k].append((name, cs.color(name), c.x, c.y))
        with pn.io.hold():
            for k, src in self.sources.items():
                src.data = _lines(rows[k])
            self.renderers["rocch_sample"].visible = kind in ("rocch", "both")
            self.renderers["steppy_sample"].visible = kind in ("steppy", "both")
            for item in self.legend.items[1:]:
                item.visible = any(r.visible for r in item.renderers)
            self.figure.title.text = f"DET ({cs.role})"
            if n_min:
                p = min(max(1.0 / n_min, 1e-4), 0.01)
                start = float(probit(p))
                for rng in (self.figure.x_range, self.figure.y_range):
                    rng.start = start
            self._ticks()
            self._on_op()

    def _ticks(self):
        xr, yr = self.figure.x_range, self.figure.y_range
        gap = 0.42 if self.cstate.state.display.presentation else 0.26
        self.ticker.ticks = choose_ticks(min(xr.start, yr.start), max(xr.end, yr.end), gap)

    def _on_style(self, *_):
        super()._on_style()
        self._ticks()

    @param.depends("cstate.op", watch=True)
    @isolated
    def _on_op(self):
        cs = self.cstate
        rows = []
        for n, o in (cs.op or {}).items():
            if cs.role in o:
                a = o[cs.role].act
                rows.append((n, cs.color(n), finite(probit(float(a.p_fa))),
                             finite(probit(float(a.p_miss)))))
        self.points.data = _points(rows)


class CompareEPCView(_ComparePlot):
    """EPC: HTER on eval with thresholds chosen on dev, against the trade-off alpha."""

    def __init__(self, **params):
        super().__init__(**params)
        fig = new_figure("cmp_epc", x_range=Range1d(0.0, 1.0),
                         title="Expected performance curve (dev thresholds, eval HTER)",
                         x_axis_label="α  (weight of false alarms on dev)",
                         y_axis_label="eval HTER (%)", height=_HEIGHT, min_width=380)
        fig.y_range.start = 0.0
        self._build(fig, {"hter": (None, "solid", 2.0, 1.0)}, legend_loc="top_center")
        self.empty = Label(x=0.5, y=0.5, x_units="data", y_units="data", text="",
                           text_align="center", text_color="#777777", text_font_size="10pt")
        fig.add_layout(self.empty)
        self._finish()
        self._on_curves()

    @param.depends("cstate.comparison", watch=True)
    @isolated
    def _on_curves(self):
        cs = self.cstate
        rows = [(n, cs.color(n), EPC_ALPHA, 100.0 * sc.epc.hter)
                for n, sc in self._systems().items() if sc.epc is not None]
        with pn.io.hold():
            self.sources["hter"].data = _lines(rows)
            self.empty.text = ("" if rows or cs.comparison is None
                               else "no system has both dev and eval sets")


class _PloCurvesView(_ComparePlot):
    """Curves against prior log-odds on APE_PLO: actual, minimum, default (subclasses say
    which attributes of which core result, and the unit)."""

    _name = _title = _ylabel = ""
    _curves = ""                        # attribute of SystemComparison: "ape" or "ece"
    _attrs = ("", "", "")               # actual, minimum, default arrays of the result
    _scale = 1.0                        # display unit

    def __init__(self, **params):
        super().__init__(**params)
        fig = new_figure(self._name, x_range=Range1d(APE_PLO[0], APE_PLO[-1]),
                         title=self._title, x_axis_label="prior log-odds  logit(P̃)",
                         y_axis_label=self._ylabel, height=_HEIGHT, min_width=380)
        fig.y_range.start = 0.0
        self.default_source = ColumnDataSource({"x": np.empty(0), "y": np.empty(0)},
                                               name=f"{self._name}_default")
        default = fig.line("x", "y", source=self.default_source,
                           line_color=COLORS["default"], line_width=1.5, line_dash="dotted")
        self._build(fig, {"act": ("actual", "solid", 2.0, 1.0),
                          "min": ("minimum (PAV)", "dashed", 2.0, 0.9)}, op_line=True)
        self.legend.items.append(LegendItem(label="default (LLR = 0)", renderers=[default]))
        self._finish()
        self._on_curves()
        self.cstate.param.watch(lambda *_: self._move_op(), ["op"])

    @param.depends("cstate.comparison", "cstate.role", watch=True)
    @isolated
    def _on_curves(self):
        cs = self.cstate
        act, mn, default = [], [], None
        a_act, a_min, a_def = self._attrs
        for n, sc in self._systems().items():
            c = getattr(sc, self._curves).get(cs.role)
            if c is not None:
                act.append((n, cs.color(n), c.plo, getattr(c, a_act) * self._scale))
                mn.append((n, cs.color(n), c.plo, getattr(c, a_min) * self._scale))
                default = c
        with pn.io.hold():
            self.sources["act"].data = _lines(act)
            self.sources["min"].data = _lines(mn)
            self.default_source.data = (
                {"x": np.empty(0), "y": np.empty(0)} if default is None
                else {"x": default.plo, "y": getattr(default, a_def) * self._scale})
            self.figure.title.text = f"{self._title} ({cs.role})"
            self._move_op()


class CompareAPEView(_PloCurvesView):
    """APE plot: un-normalized Bayes error rate (actual, minimum) and the default system."""

    _name, _title = "cmp_ape", "APE: Bayes error rate"
    _ylabel = "Bayes error rate (un-normalized)"
    _curves, _attrs = "ape", ("bayes_error", "min_bayes_error", "default")


class CompareECEView(_PloCurvesView):
    """ECE plot: cross-entropy (bits) of the LLRs, of their PAV recalibration, of the prior."""

    _name, _title = "cmp_ece", "ECE: empirical cross-entropy"
    _ylabel = "cross-entropy (bits)"
    _curves, _attrs = "ece", ("ce", "min_ce", "default")
    _scale = 1.0 / _LN2  # nats to bits


class CllrBarsView(pn.viewable.Viewer):
    """Cllr of every system as stacked bars: minCllr (discrimination loss, solid) plus
    Cllr - minCllr (calibration loss, hatched)."""

    cstate = param.ClassSelector(class_=CompareState)

    def __init__(self, **params):
        super().__init__(**params)
        fig = new_figure("cmp_cllr", x_range=FactorRange(factors=[]),
                         y_range=Range1d(0.0, 1.12), title="Cllr decomposition",
                         y_axis_label="bits", height=_HEIGHT,
                         min_width=380, tools="save,reset")
        fig.xgrid.grid_line_color = None
        self.figure = fig
        self.source = ColumnDataSource(self._empty(), name="cmp_cllr_bars")
        fig.line([-100, 100], [1.0, 1.0], line_color=COLORS["default"], line_width=1,
                 line_dash="dotted")
        disc = fig.vbar(x="name", top="min_cllr", bottom=0.0, width=0.6, source=self.source,
                        fill_color="color", line_color="color", fill_alpha=0.85)
        cal = fig.vbar(x="name", top="cllr", bottom="min_cllr", width=0.6,
                       source=self.source, fill_color="color", fill_alpha=0.25,
                       line_color="color", hatch_pattern="/", hatch_color="color",
                       hatch_alpha=0.8)
        self.labels = LabelSet(x="name", y="cllr", text="text", source=self.source,
                               text_align="center", y_offset=3, text_font_size="9pt",
                               text_color="#333333", background_fill_color="white",
                               background_fill_alpha=0.8)
        fig.add_layout(self.labels)
        self.legend = Legend(items=[
            LegendItem(label="discrimination loss (min Cllr)", renderers=[disc]),
            LegendItem(label="calibration loss (Cllr − min Cllr)", renderers=[cal]),
        ], orientation="horizontal", location="center", label_text_font_size="9pt",
            spacing=14, padding=2, margin=2, border_line_alpha=0)
        fig.add_layout(self.legend, "below")
        self.styler = Styler(fig)
        self.styler.capture()
        self._pane = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        self.cstate.state.display.param.watch(self._on_style, ["presentation", "svg"])
        self._on_style()
        self._on_results()

    @staticmethod
    def _empty():
        return {"name": [], "color": [], "min_cllr": [], "cllr": [], "calibration_loss": [],
                "text": []}

    def __panel__(self):
        return self._pane

    def _on_style(self, *_):
        st = self.cstate.state
        self.styler.apply(st.display.presentation, st.display.svg)
        self.labels.text_font_size = "13pt" if st.display.presentation else "9pt"

    @param.depends("cstate.comparison", "cstate.role", watch=True)
    @isolated
    def _on_results(self):
        cs = self.cstate
        comp = cs.comparison
        data = self._empty()
        if comp is not None:
            for n, sc in comp.systems.items():
                a = sc.analysis(cs.role)
                if a is None:
                    continue
                data["name"].append(n)
                data["color"].append(cs.color(n))
                data["min_cllr"].append(float(a.min_cllr))
                data["cllr"].append(float(a.cllr))
                data["calibration_loss"].append(float(a.calibration_loss))
                data["text"].append(f"{a.cllr:.3f}")
        top = max([1.0, *data["cllr"]])
        with pn.io.hold():
            self.figure.x_range.factors = list(data["name"])
            self.source.data = data
            self.figure.y_range.end = 1.12 * top if np.isfinite(top) else 1.12
            self.figure.title.text = f"Cllr decomposition ({cs.role})"
