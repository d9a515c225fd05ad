"""Normalized Bayes error-rate (NBER) plot with a draggable operating point.

x: prior log-odds, y: normalized DCF (Brümmer & de Villiers 2011, sec. 2.5.4, figs. 1-3). Actual
DCF (red) and minimum DCF (black) for dev (dashed) and eval (solid), optionally the contributions
of misses and false alarms to the actual DCF, the default system at 1, DR30 triangles, and the
regions outside DR30 shaded as unreliable.  The operating point is a vertical line: a drag (or a
click) anywhere on the plot moves it.  The drag uses Bokeh's ``PanStart``/``Pan``/``Tap`` UI events
with no active drag tool: a CustomJS callback moves the line in the browser at once, and a Python
callback sets ``state.point.plo``, which updates every other view.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.core.properties import value
from bokeh.models import (
    BoxAnnotation,
    ColumnDataSource,
    Label,
    Legend,
    LegendItem,
    Range1d,
    Span,
    TeeHead,
    Whisker,
)

from llrlab.core.palette import FILLS

from ..compute import TEACHING_REFERENCES
from ..state import DashboardState
from ._common import (
    COLORS,
    CURVE_DASHES,
    DASH,
    REF_COLORS,
    REF_DASHES,
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

__all__ = ["NBERView"]

_Y_MAX = 2.0
#: Height of the figure in the page (the legend is below the plot).
HEIGHT = 580
#: What ``presenter.highlight`` can name in this plot -> the renderers' keys (see
#: ``NBERView._lit``).
_HIGHLIGHT = ("act", "min", "op", "dr30", "unreliable", "true", "references", "contributions")


def _empty_curves():
    e = np.empty(0)
    return {"plo": e, "act": e, "min": e, "act_miss": e, "act_fa": e}


def _empty_condition():
    e = np.empty(0)
    return {"plo": e, "act": e, "min": e}


def _empty_ci():
    return {"x": [], "y": [], "lower": [], "upper": [], "alpha": []}


class NBERView(pn.viewable.Viewer):
    """The NBER plot of a :class:`DashboardState` (figure and sources built once)."""

    state = param.ClassSelector(class_=DashboardState)
    #: The in-page drag's grid (served dashboard); None: every drag position goes to the
    #: server.
    op_grid = param.ClassSelector(class_=OpGrid, default=None)

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        lo, hi = st.display.nber_range
        fig = new_figure("nber", x_range=Range1d(lo, hi), y_range=Range1d(0, 1.2),
                         title="Normalized Bayes error rate",
                         x_axis_label="prior log-odds  logit(P̃)",
                         y_axis_label="normalized DCF", min_width=380, height=HEIGHT)
        self.figure = fig

        # unreliable regions (outside DR30), behind everything
        style = dict(fill_color=FILLS["unreliable"], fill_alpha=0.15, line_alpha=0,
                     level="underlay")
        self.box_fa = BoxAnnotation(right=0.0, visible=False, **style)
        self.box_miss = BoxAnnotation(left=0.0, visible=False, **style)
        # the labels sit in the plot's corners (inside the frame whatever the width),
        # on the side of their shaded region
        lab = dict(text_font_size="9pt", text_color="#555555", y=6, y_units="screen",
                   visible=False, text_line_height=1.1, name="nber_unreliable_label")
        self.label_fa = Label(x=lo, text="unreliable:\n< 30 false alarms",
                              text_align="left", x_offset=4, **lab)
        self.label_miss = Label(x=hi, text="unreliable:\n< 30 misses", text_align="right",
                                x_offset=-4, **lab)
        for m in (self.box_fa, self.box_miss, self.label_fa, self.label_miss):
            fig.add_layout(m)

        items = []
        default = fig.line([-40.0, 40.0], [1.0, 1.0], line_color=COLORS["default"],
                           line_width=1.5, line_dash=line_dash(CURVE_DASHES["default"]))
        items.append(LegendItem(label="default (LLR = 0)", renderers=[default]))

        self.sources = {}
        self.renderers = {}
        for role in ("eval", "dev"):
            src = ColumnDataSource(_empty_curves(), name=f"nber_{role}")
            dash, i = DASH[role], ("eval", "dev").index(role)
            r = {
                "act": fig.line("plo", "act", source=src, line_color=COLORS["act"],
                                line_width=2, line_dash=line_dash(dash)),
                "min": fig.line("plo", "min", source=src, line_color=COLORS["min"],
                                line_width=2.5, line_dash=line_dash(dash)),
                "miss": fig.line("plo", "act_miss", source=src, line_color=COLORS["miss"],
                                 line_width=1.5, line_dash=line_dash(CURVE_DASHES["miss"][i]),
                                 visible=False),
                "fa": fig.line("plo", "act_fa", source=src, line_color=COLORS["fa"],
                               line_width=1.5, line_dash=line_dash(CURVE_DASHES["fa"][i]),
                               visible=False),
            }
            self.sources[role] = src
            self.renderers[role] = r
            items += [
                LegendItem(label=f"{role} act DCF", renderers=[r["act"]]),
                LegendItem(label=f"{role} min DCF", renderers=[r["min"]]),
                LegendItem(label=f"{role} misses (act)", renderers=[r["miss"]], visible=False),
                LegendItem(label=f"{role} false alarms (act)", renderers=[r["fa"]],
                           visible=False),
            ]

        # teaching mode: the true LLR and reference miscalibrations
        self.true_source = ColumnDataSource({"plo": np.empty(0), "act": np.empty(0)},
                                            name="nber_true")
        self.true_renderer = fig.line("plo", "act", source=self.true_source,
                                      line_color=COLORS["true"], line_width=2.5,
                                      line_dash=line_dash(CURVE_DASHES["true"]), visible=False)
        items.append(LegendItem(label="true LLR act DCF", renderers=[self.true_renderer],
                                visible=False))
        self.ref_source = ColumnDataSource(self._empty_refs(), name="nber_refs")
        self.ref_renderers = []
        for i, (label, _, _) in enumerate(TEACHING_REFERENCES):
            rr = fig.line("plo", f"r{i}", source=self.ref_source, line_color=REF_COLORS[i],
                          line_width=1.5, line_dash=line_dash(REF_DASHES[i]), visible=False)
            self.ref_renderers.append(rr)
            items.append(LegendItem(label=label, renderers=[rr], visible=False))

        # per-condition curves: act solid, min dotted; a slot's models are built the first
        # time that many conditions are drawn (:meth:`_condition_slots`), not before: a page
        # without conditions does not carry (and re-send) their hidden renderers
        self.condition_sources = {"eval": [], "dev": []}
        self.condition_renderers = []
        self.condition_items = []
        # DR30 triangles, on the min DCF curves (false alarms: pointing up, misses: down)
        self.dr30_sources = {}
        for role in ("eval", "dev"):
            src = ColumnDataSource(dr30_data(), name=f"nber_dr30_{role}")
            r = fig.scatter("x", "y", source=src, marker="marker", size=13,
                            fill_color="color", line_color="black",
                            fill_alpha=1.0 if role == "eval" else 0.35)
            self.dr30_sources[role] = src
            self.renderers[role]["dr30"] = r
            if role == "eval":
                items += [LegendItem(label="DR30: 30 false alarms", renderers=[r], index=0),
                          LegendItem(label="DR30: 30 misses", renderers=[r], index=1)]

        # the operating point, on the plot's overlay canvas: a drag moves it alone, and
        # BokehJS then repaints that canvas alone (:data:`..op_grid_script.PAGE_FIXES`)
        plo = st.point.plo
        self.op_span = Span(location=plo, dimension="height", line_color=COLORS["op"],
                            line_dash="dashed", line_width=2.5, name="op_span",
                            level="overlay")
        self.op_label = Label(x=plo, y=1.17, x_offset=4, text="", text_baseline="top",
                              text_color=COLORS["op"], text_font_size="10pt",
                              text_font_style="bold", name="op_label", level="overlay")
        fig.add_layout(self.op_span)
        fig.add_layout(self.op_label)

        # confidence interval of the actual DCF at the operating point (one per dataset)
        self.ci_source = ColumnDataSource(_empty_ci(), name="nber_ci_source")
        self.ci_whisker = Whisker(
            source=self.ci_source, base="x", lower="lower", upper="upper",
            dimension="height", line_color=COLORS["op"], line_width=2.5, name="nber_ci",
            line_alpha="alpha", visible=False,
            lower_head=TeeHead(size=14, line_color=COLORS["op"], line_width=2.5),
            upper_head=TeeHead(size=14, line_color=COLORS["op"], line_width=2.5))
        fig.add_layout(self.ci_whisker)
        self.ci_points = fig.scatter("x", "y", source=self.ci_source, marker="circle",
                                     size=8, fill_color="white", line_color=COLORS["op"],
                                     line_width=2, line_alpha="alpha", visible=False)

        self.legend = Legend(items=items, click_policy="hide", ncols=4,
                             label_text_font_size="9pt", spacing=0, padding=4, margin=4,
                             border_line_alpha=0, name="nber_legend")
        fig.add_layout(self.legend, "below")

        # dragging / clicking moves the operating point
        args = dict(span=self.op_span, label=self.op_label, xr=fig.x_range)
        echo = [(self.op_span, "location")] + [(self.op_label, a) for a in
                                                ("x", "text_align", "x_offset")]
        if self.op_grid is not None:  # the grid lists every view's echo (sent once)
            self.op_grid.echo += echo
        self.drag = connect_drag(fig, self._on_drag, js_args=args,
                                 echo=echo if self.op_grid is None else (),
                                 grid=self.op_grid, mode="nber", js_code="""
            span.location = cb_obj.x;
            label.x = cb_obj.x;
            const right = cb_obj.x > 0.5 * (xr.start + xr.end);
            label.text_align = right ? "right" : "left";
            label.x_offset = right ? -4 : 4;
        """)

        self.styler = Styler(fig, legend_cols=4, display=st.display)
        self.styler.capture()
        self.styler.add_text(self.op_label, "10pt")
        self.styler.add_text(self.label_fa, "9pt")
        self.styler.add_text(self.label_miss, "9pt")
        self.styler.add_line(self.op_span, 2.5, "dashed")
        self.styler.add_line(self.ci_whisker, 2.5)
        self._pane = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        self._on_options()
        self._on_curves()
        self._on_op()

    def stage_min(self, scale=1.0):
        """The least room of the figure on a stage (see ``_common.stage_min``)."""
        return stage_min(self.legend, scale)

    def resize(self, width=None, height=None):
        """A fixed size on the stage, or the page's width (see ``fit_figure``)."""
        fit_figure(self.figure, self.styler, width, height, default_height=HEIGHT)
        self._on_options()

    def _lit(self):
        """The renderers to draw thicker for the highlighted elements of this plot."""
        names = self.state.presenter.lit("nber")
        out = []
        for r in self.renderers.values():
            if "act" in names:
                out.append(r["act"])
            if "min" in names:
                out.append(r["min"])
            if "dr30" in names:
                out.append(r["dr30"])
            if "contributions" in names:
                out += [r["miss"], r["fa"]]
        if "true" in names:
            out.append(self.true_renderer)
        if "references" in names:
            out += self.ref_renderers
        return out, names

    def _condition_slots(self, n):
        """Build condition slots until there are ``n`` (at most MAX_CONDITIONS); True when
        some were built (their curves then need data)."""
        def glyphs(src, role, color, dash):
            alpha = 1.0 if role == "eval" else 0.5
            return {(role, "act"): self.figure.line(
                        "plo", "act", source=src, line_color=color, line_width=1.6,
                        line_alpha=alpha, line_dash=line_dash(dash), visible=False),
                    (role, "min"): self.figure.line(
                        "plo", "min", source=src, line_color=color, line_width=1.6,
                        line_alpha=alpha, line_dash="dotted", visible=False)}

        return add_condition_slots(self, n, prefix="nber", empty=_empty_condition,
                                   glyphs=glyphs)

    def _needed_slots(self):
        """How many condition slots the shown results draw (0 with the curves off)."""
        st, res = self.state, self.state.results
        if res is None or not st.conditions.show_curves:
            return 0
        return max((len(d.conditions) for d in res.datasets.values()), default=0)

    def _fill_conditions(self):
        nb = self.state.nber
        conds = {} if nb is None else nb.conditions
        for role, sources in self.condition_sources.items():
            curves = conds.get(role, [])
            for k, src in enumerate(sources):
                if k < len(curves):
                    _, act, mn = curves[k]
                    src.data = {"plo": nb.plo, "act": finite(act.dcf),
                                "min": finite(mn.dcf)}
                else:
                    src.data = _empty_condition()
        self._label_conditions(self.state.results)

    @staticmethod
    def _empty_refs():
        d = {"plo": np.empty(0)}
        for i in range(len(TEACHING_REFERENCES)):
            d[f"r{i}"] = np.empty(0)
        return d

    def __panel__(self):
        return self._pane

    # ---------------------------------------------------------------- callbacks

    def _on_drag(self, x, _y):
        self.state.point.set_plo(x)

    @param.depends("state.nber", "state.results", watch=True)
    @isolated
    def _on_curves(self):
        st = self.state
        nb, res = st.nber, st.results
        sets = {} if nb is None else nb.sets
        ymax = 1.2
        with pn.io.hold():
            for role, src in self.sources.items():
                if role in sets:
                    act, mn = sets[role]
                    src.data = {"plo": nb.plo, "act": finite(act.dcf), "min": finite(mn.dcf),
                                "act_miss": finite(act.miss_part),
                                "act_fa": finite(act.fa_part)}
                    vals = np.concatenate([act.dcf, mn.dcf])
                    vals = vals[np.isfinite(vals)]
                    if vals.size:
                        ymax = max(ymax, min(_Y_MAX, 1.08 * float(vals.max())))
                else:
                    src.data = _empty_curves()
            if "true" in sets:
                act, _ = sets["true"]
                self.true_source.data = {"plo": nb.plo, "act": finite(act.dcf)}
            else:
                self.true_source.data = {"plo": np.empty(0), "act": np.empty(0)}
            refs = self._empty_refs()
            if nb is not None and nb.references:
                refs = {"plo": nb.plo}
                for i, (_, act) in enumerate(nb.references):
                    refs[f"r{i}"] = finite(act.dcf)
            self.ref_source.data = refs
            self._condition_slots(self._needed_slots())
            self._fill_conditions()
            for role, src in self.dr30_sources.items():
                d = None if res is None or role not in res.datasets else \
                    res.datasets[role].llr.dr30
                src.data = dr30_data() if d is None else dr30_data(
                    finite([d.plo_fa, d.plo_miss]), finite([d.dcf_fa, d.dcf_miss]))
            self._shade(res)
            self.figure.y_range.end = ymax
            self.op_label.y = 0.975 * ymax
            self.figure.y_range.start = 0.0
            self.figure.x_range.start, self.figure.x_range.end = st.display.nber_range
            self._on_options()

    def _label_conditions(self, res):
        d = None if res is None else res.primary
        curves = () if d is None else d.conditions
        for k, item in enumerate(self.condition_items):
            if k < len(curves):
                c = curves[k]
                w = (f"w {c.w_tar:.2f}" if abs(c.w_tar - c.w_non) < 1e-12
                     else f"w {c.w_tar:.2f}/{c.w_non:.2f}")
                item.label = value(f"{c.name} ({w})")  # a bare string names a column

    def _shade(self, res):
        d = None if res is None or res.primary is None else res.primary.llr.dr30
        lo, hi = self.state.display.nber_range
        fa_ok = d is not None and np.isfinite(d.plo_fa)
        miss_ok = d is not None and np.isfinite(d.plo_miss)
        if fa_ok:
            self.box_fa.right = float(d.plo_fa)
        if miss_ok:
            self.box_miss.left = float(d.plo_miss)
        self.label_fa.x, self.label_miss.x = lo, hi
        self.box_fa.visible = fa_ok
        self.box_miss.visible = miss_ok
        # a label only where its region is in view (the label itself is in the corner)
        self.label_fa.visible = fa_ok and d.plo_fa > lo
        self.label_miss.visible = miss_ok and d.plo_miss < hi

    @param.depends("state.op", "state.op_ci", watch=True)
    @isolated
    def _on_op(self):
        st = self.state
        plo = st.point.plo
        lo, hi = st.display.nber_range
        right = plo > 0.5 * (lo + hi)
        with pn.io.hold():
            self.op_span.location = plo
            self.op_label.update(x=plo, text=f"plo = {plo:.2f}",
                                 text_align="right" if right else "left",
                                 x_offset=-4 if right else 4)
            set_data(self.ci_source, self._ci_data())
            shown = bool(st.op_ci)
            self.ci_whisker.visible = self.ci_points.visible = shown

    def _ci_data(self):
        """The act DCF interval of each shown dataset, side by side around the line."""
        st = self.state
        ci = st.op_ci or {}
        roles = [r for r in ("eval", "dev")
                 if r in ci and (r == "eval" or st.display.show_dev)]
        if not roles:
            return _empty_ci()
        lo, hi = st.display.nber_range
        step = 0.012 * (hi - lo)  # dev beside eval, a little to the left
        xs = [st.point.plo - step * i for i in range(len(roles))]
        return {"x": xs, "y": [float(ci[r].dcf.estimate) for r in roles],
                "lower": [float(ci[r].dcf.lower) for r in roles],
                "upper": [float(ci[r].dcf.upper) for r in roles],
                "alpha": [1.0 if r == "eval" else 0.5 for r in roles]}

    @param.depends("state.presenter.highlight", watch=True)
    @isolated
    def _on_highlight(self):  # (separate: see MetricsView._on_op)
        self._on_options()

    @param.depends("state.display.show_contributions", "state.display.show_dev",
                   "state.display.presentation", "state.display.svg", "state.display.nber_range",
                   "state.teaching.enabled", "state.teaching.references",
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
            for role, r in self.renderers.items():
                shown = role == "eval" or st.display.show_dev
                have = res is not None and role in res.datasets
                for k in ("act", "min", "dr30"):
                    r[k].visible = shown and have
                for k in ("miss", "fa"):
                    r[k].visible = shown and have and st.display.show_contributions
            if self._condition_slots(self._needed_slots()):
                self._fill_conditions()
            n_cond = {role: (len(res.datasets[role].conditions)
                             if res is not None and role in res.datasets else 0)
                      for role in ("eval", "dev")}
            roles = condition_roles(res, st.display)
            for k, slot in enumerate(self.condition_renderers):
                for (role, _), r in slot.items():
                    r.visible = (st.conditions.show_curves and k < n_cond[role]
                                 and role in roles)
            self.ci_source.data = self._ci_data()
            teach = res is not None and res.teaching
            self.true_renderer.visible = teach
            for rr in self.ref_renderers:
                rr.visible = teach and st.teaching.references
            lo, hi = st.display.nber_range
            self.figure.x_range.start, self.figure.x_range.end = lo, hi
            self._shade(res)
            for item in self.legend.items:  # no legend entry for what is not drawn
                item.visible = any(r.visible for r in item.renderers)
            lit, names = self._lit()
            if "op" in names:
                lit.append(self.op_span)
            self.styler.apply(st.display.presentation, st.display.svg, lit)
            shade = 0.3 if "unreliable" in names else 0.15
            self.box_fa.fill_alpha = self.box_miss.fill_alpha = shade
