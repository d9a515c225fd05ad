"""Score histograms of targets and non-targets with the Bayes threshold.

Eval is drawn as filled bars, dev as step outlines (densities per class, binned on the server:
at most a few hundred numbers go to the browser whatever the number of trials).  The vertical
line is the Bayes decision threshold: ``-plo`` when the scores are read as LLRs, otherwise the
score that the calibration maps to ``-plo``.  Dragging or clicking on the plot moves the
threshold, hence the operating point (``DashboardState.set_threshold_score``).
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, Legend, LegendItem, Range1d, Span

from ..state import DashboardState
from ._common import (
    COLORS,
    Styler,
    connect_drag,
    fit_figure,
    isolated,
    new_figure,
    stage_min,
)
from .note import FigureNote

__all__ = ["HistogramView", "outside_note"]

#: Height of the figure in the page (the legend is below the plot).
HEIGHT = 380


def _empty_bars():
    e = np.empty(0)
    return {"left": e, "right": e, "tar": e, "non": e}


def _empty_steps():
    e = np.empty(0)
    return {"x": e, "tar": e, "non": e}


#: Share of a class outside the histogram's range from which the page says so (the default
#: range leaves out 0.1 % per tail; teaching mode's 2 %).
NOTE_FROM = 0.005


def outside_note(d):
    """'' or a sentence: how many scores of the dataset result ``d`` lie outside the
    histogram's range (when a class has :data:`NOTE_FROM` or more outside)."""
    if d is None or d.hist is None:
        return ""
    s = d.raw.sorted
    totals = (s.tar_below(np.array([np.inf]))[0], s.non_below(np.array([np.inf]))[0])
    shares = [(k / total, what) for k, total, what in
              zip(d.hist.outside, totals, ("targets", "non-targets"), strict=True) if total > 0]
    if not any(f >= NOTE_FROM for f, _ in shares):
        return ""
    e = d.hist.edges
    out = " and ".join(f"{100 * f:.1f} % of the {what}" for f, what in shares if f > 0)
    return (f"Shown: scores from {e[0]:.3g} to {e[-1]:.3g}; {out} ({d.role}) lie outside "
            f"(zoom out with the wheel to see them).")


class HistogramView(pn.viewable.Viewer):
    """Histograms of a :class:`DashboardState` (figure and sources built once)."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        fig = new_figure("histogram", x_range=Range1d(-1, 1), y_range=Range1d(0, 1),
                         title="Score distributions", x_axis_label="score",
                         y_axis_label="density (per class)", min_width=360, height=HEIGHT)
        self.figure = fig
        self.bars = ColumnDataSource(_empty_bars(), name="hist_eval")
        self.steps = ColumnDataSource(_empty_steps(), name="hist_dev")
        items = []
        r_non = fig.quad(left="left", right="right", bottom=0, top="non", source=self.bars,
                         fill_color=COLORS["non"], fill_alpha=0.35, line_color=COLORS["non"],
                         line_alpha=1.0, line_width=1)
        # targets hatched: the two classes differ by more than their colours
        r_tar = fig.quad(left="left", right="right", bottom=0, top="tar", source=self.bars,
                         fill_color=COLORS["tar"], fill_alpha=0.35, line_color=COLORS["tar"],
                         line_alpha=1.0, line_width=1, hatch_pattern="/",
                         hatch_color=COLORS["tar"], hatch_alpha=0.5)
        s_non = fig.step("x", "non", source=self.steps, mode="after", line_color=COLORS["non"],
                         line_dash="dashed", line_width=1.5)
        s_tar = fig.step("x", "tar", source=self.steps, mode="after", line_color=COLORS["tar"],
                         line_dash="dotted", line_width=1.5)
        self.renderers = {"eval": [r_non, r_tar], "dev": [s_non, s_tar]}
        items += [LegendItem(label="eval non-targets", renderers=[r_non]),
                  LegendItem(label="eval targets", renderers=[r_tar]),
                  LegendItem(label="dev non-targets", renderers=[s_non]),
                  LegendItem(label="dev targets", renderers=[s_tar])]
        self.threshold = Span(location=0.0, dimension="height", line_color=COLORS["op"],
                              line_dash="dashed", line_width=2.5, name="hist_threshold")
        fig.add_layout(self.threshold)
        self.legend = Legend(items=items, click_policy="hide", ncols=4,
                             label_text_font_size="9pt", spacing=0, padding=4, margin=4,
                             border_line_alpha=0, name="hist_legend")
        fig.add_layout(self.legend, "below")
        self.drag = connect_drag(fig, self._on_drag, js_args=dict(span=self.threshold),
                                 js_code="span.location = cb_obj.x;",
                                 echo=[(self.threshold, "location")])
        self.styler = Styler(fig, legend_cols=4, display=self.state.display)
        self.styler.capture()
        self.styler.add_line(self.threshold, 2.5, "dashed")
        self._pane = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        # what the range leaves out (teaching mode shows the central 96 % of each class)
        self._note = FigureNote("hist_note", self.state.display, visible=False)
        self.note = self._note.pane
        self._layout = pn.Column(self._pane, self.note, sizing_mode="stretch_width")
        self._on_results()
        self._on_op()

    def __panel__(self):
        return self._layout

    def _on_drag(self, x, _y):
        self.state.set_threshold_score(x)

    def resize(self, width=None, height=None):
        """A fixed size on the stage (the figure and the note below it within ``width`` x
        ``height``), or the page's width (see ``fit_figure``)."""
        self._size = (width, height)
        self._fit()
        self._on_options()

    _size = (None, None)

    def _fit(self):
        """The figure and the note in the panel's size: on a stage, the note as high as its
        text (it wraps within the figure's width: a long one widened the panel) and the
        figure the rest."""
        width, height = self._size
        note_h = 0 if height is None else self._note.height(width)
        fit_figure(self.figure, self.styler, width,
                   None if height is None else height - note_h, default_height=HEIGHT)
        self._note.fit(width, None if height is None else note_h)

    def stage_min(self, scale=1.0):
        """The least room on a stage: the figure's and its note's at that width."""
        w, h = stage_min(self.legend, scale)
        return w, h + self._note.stage_height(w, scale)

    @param.depends("state.results", watch=True)
    @isolated
    def _on_results(self):
        res = self.state.results
        ds = {} if res is None else res.datasets
        with pn.io.hold():
            ymax = 0.0
            ev = ds.get("eval")
            if ev is not None and ev.hist is not None:
                h = ev.hist
                self.bars.data = {"left": h.edges[:-1], "right": h.edges[1:], "tar": h.tar,
                                  "non": h.non}
                ymax = max(ymax, float(h.tar.max(initial=0)), float(h.non.max(initial=0)))
            else:
                self.bars.data = _empty_bars()
            dv = ds.get("dev")
            if dv is not None and dv.hist is not None:
                h = dv.hist
                self.steps.data = {"x": h.edges, "tar": np.append(h.tar, h.tar[-1:]),
                                   "non": np.append(h.non, h.non[-1:])}
                ymax = max(ymax, float(h.tar.max(initial=0)), float(h.non.max(initial=0)))
            else:
                self.steps.data = _empty_steps()
            some = ev if ev is not None else dv
            if some is not None and some.hist is not None:
                e = some.hist.edges
                self.figure.x_range.start, self.figure.x_range.end = float(e[0]), float(e[-1])
                self.figure.y_range.start, self.figure.y_range.end = 0.0, 1.08 * (ymax or 1.0)
            self.figure.xaxis[0].axis_label = res.score_label if res is not None else "score"
            self.note.object = outside_note(ev if ev is not None else dv)
            self.note.visible = bool(self.note.object)
            if self._size[1] is not None:  # on a stage: the figure makes room for the note
                self._fit()
            self._on_op()
            self._on_options()

    @param.depends("state.op", watch=True)
    @isolated
    def _on_op(self):
        res = self.state.results
        if res is None:
            return
        self.threshold.location = res.threshold_score(self.state.point.plo)

    @param.depends("state.presenter.highlight", watch=True)
    @isolated
    def _on_highlight(self):  # (separate: see MetricsView._on_op)
        self._on_options()

    @param.depends("state.display.show_dev", "state.display.presentation", "state.display.svg",
                   watch=True)
    def _on_options(self):
        """Restyle now, or once at the end of a held change (see
        ``DashboardState.when_settled``)."""
        self.state.when_settled(self._restyle)

    @isolated
    def _restyle(self):
        st = self.state
        res = st.results
        with pn.io.hold():
            for role, rs in self.renderers.items():
                have = res is not None and role in res.datasets
                vis = have and (role == "eval" or st.display.show_dev)
                for r in rs:
                    r.visible = vis
            for item in self.legend.items:  # no legend entry for what is not drawn
                item.visible = any(r.visible for r in item.renderers)
            lit = [self.threshold] if "threshold" in st.presenter.lit("histogram") else []
            self.styler.apply(st.display.presentation, st.display.svg, lit)
            self._note.style()
