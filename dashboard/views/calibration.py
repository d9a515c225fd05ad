"""Calibration view: the score -> LLR map trained on dev, its parameters and downloads.

The map is sampled on the histogram's score range (``Results.mapping``); the horizontal line is
the Bayes threshold ``-plo`` on the LLR axis and the vertical line the score it corresponds to.
Without calibration the scores are read as LLRs (identity map).  The trained parameters (from
the calibration's ``to_dict()``) are shown and downloadable as JSON; the calibrated eval scores
are downloadable as a score file.
"""

from __future__ import annotations

import io
import json
import os
import tempfile

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, Range1d, Span

from llrlab.core import llr_label, llr_to_unit

from ..safe import MAX_SHOWN, md_text
from ..state import DashboardState
from ._common import COLORS, Styler, finite, fit_figure, isolated, new_figure

__all__ = ["CalibrationView", "describe"]

#: Height of the figure in the page.
HEIGHT = 340


#: Readable labels of the keys of a calibrator's ``report()`` (unknown keys are shown with
#: their underscores as spaces).
LABELS = {
    "method": "method",
    "scale": "scale a  (LLR = a·score + b)",
    "offset": "offset b",
    "weights": "weights a_k  (LLR = Σ a_k·s_k + b)",
    "systems": "fused systems",
    "prior": "training prior",
    "objective": "cross-entropy at the training prior (nats)",
    "regularised": "regularised",
    "n_blocks": "PAV blocks",
    "pure_ends": "pure end blocks (lowest, highest)",
    "pseudo_count": "pseudo-count added to pure end blocks",
    "llr_range": "LLR range",
    "train_source": "trained on",
    "train_n_tar": "dev targets",
    "train_n_non": "dev non-targets",
    "train_cllr_before": "dev Cllr before (bits)",
    "train_cllr_after": "dev Cllr after (bits)",
    "train_min_cllr": "dev min Cllr (bits)",
    "notes": "notes",
}


def _fmt(v):
    if isinstance(v, bool) or v is None:
        return {True: "yes", False: "no", None: "—"}[v]
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple, np.ndarray)):
        seq = list(v)
        if len(seq) <= 6 and all(not isinstance(x, (list, tuple, dict)) for x in seq):
            return ", ".join(_fmt(x) for x in seq)
        return f"[{len(seq)} values]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_fmt(x)}" for k, x in list(v.items())[:6]) + "}"
    return str(v)


def describe(d):
    """A Markdown table of a calibration's ``report()`` with readable labels (values from
    files, e.g. the training source, shown literally)."""
    if not d:
        return "No calibration: the scores are read as LLRs."
    lines = ["| parameter | value |", "|---|---|"]
    for k, v in d.items():
        # our own labels as written; any other key, and the values (which may come from
        # files), escaped
        label = LABELS[k] if k in LABELS else md_text(str(k).replace("_", " "), MAX_SHOWN)
        lines.append(f"| {label} | {md_text(_fmt(v), MAX_SHOWN)} |")
    return "\n".join(lines)


class CalibrationView(pn.viewable.Viewer):
    """Calibration map, parameters and downloads of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        fig = new_figure("calibration", x_range=Range1d(-1, 1), y_range=Range1d(-1, 1),
                         title="Calibration (trained on dev)", x_axis_label="score",
                         y_axis_label="LLR", min_width=320, height=HEIGHT)
        self.figure = fig
        self.source = ColumnDataSource({"score": np.empty(0), "llr": np.empty(0)},
                                       name="calibration_map")
        self.map_renderer = fig.line("score", "llr", source=self.source,
                                     line_color=COLORS["map"], line_width=2.5)
        self.hline = Span(location=0.0, dimension="width", line_color=COLORS["op"],
                          line_dash="dashed", line_width=2, name="cal_llr_threshold")
        self.vline = Span(location=0.0, dimension="height", line_color=COLORS["op"],
                          line_dash="dotted", line_width=2, name="cal_score_threshold")
        fig.add_layout(self.hline)
        fig.add_layout(self.vline)
        self.styler = Styler(fig, display=self.state.display)
        self.styler.capture()
        self.styler.add_line(self.hline, 2, "dashed")
        self.styler.add_line(self.vline, 2, "dotted")
        self.params = pn.pane.Markdown("", name="calibration_params", margin=(0, 10))
        self.note = pn.pane.Markdown("", margin=(0, 10))
        self.download_params = pn.widgets.FileDownload(
            callback=self._params_json, filename="llrlab_calibration.json",
            label="Model (JSON)", button_type="light", width=180,
            disabled=True)
        self.download_scores = pn.widgets.FileDownload(
            callback=self._scores_file, filename="llrlab_calibrated_eval.txt",
            label="Calibrated eval scores", button_type="light",
            width=200, disabled=True)
        self._pane = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        self.title = pn.pane.Markdown("### Trained parameters", margin=(0, 10))
        self.details = pn.Column(
            self.title,
            self.note, self.params,
            pn.Row(self.download_params, self.download_scores),
            sizing_mode="stretch_width")
        self._layout = pn.Column(self._pane, self.details, sizing_mode="stretch_width")
        self._on_results()

    def resize(self, width=None, height=None):
        """On the stage the map alone fills the panel (the parameters are in the page)."""
        fit_figure(self.figure, self.styler, width, height, default_height=HEIGHT)
        self.details.visible = height is None
        self._on_style()

    def __panel__(self):
        return self._layout

    # ---------------------------------------------------------------- downloads

    def _params_json(self):
        """The trained model in llrlab's versioned format (``llrlab apply`` re-applies it)."""
        res = self.state.results
        cal = None if res is None else res.calibration
        d = {} if cal is None else cal.to_dict()
        return io.StringIO(json.dumps(d, indent=2, allow_nan=False))

    def _scores_file(self):
        t = self.state.export.calibrated_eval()
        if t is None:
            return io.StringIO("")
        from llrlab.core.io import write_scores

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "calibrated_eval.txt")
            write_scores(path, t)
            with open(path, "rb") as f:
                return io.BytesIO(f.read())

    # ---------------------------------------------------------------- updates

    @param.depends("state.display.llr_unit", watch=True)
    @isolated
    def _on_unit(self):  # (a watcher of both state.x and state.part.y misses changes)
        self._on_results()

    @param.depends("state.results", watch=True)
    @isolated
    def _on_results(self):
        st = self.state
        res = st.results
        with pn.io.hold():
            cal = None if res is None else res.calibration
            fused = cal is not None and res.mapping is None
            # the figure's own property: setting the Panel pane's ``visible`` made Panel
            # re-apply the figure's stylesheets and fail (TypeError, ImportedStyleSheet)
            self.figure.visible = not fused
            if res is not None and res.primary is not None and res.primary.hist is not None:
                e = res.primary.hist.edges
                lo, hi = float(e[0]), float(e[-1])
            else:
                lo, hi = -1.0, 1.0
            if res is not None and res.mapping is not None:
                s, llr = res.mapping
                llr = finite(llr)
                self.figure.title.text = f"Calibration: {cal.kind} (trained on dev)"
            else:
                s = llr = np.linspace(lo, hi, 2)
                self.figure.title.text = "No calibration: scores read as LLRs"
            unit = st.display.llr_unit  # the LLR axis in the display unit
            self.source.data = {"score": s, "llr": llr_to_unit(llr, unit)}
            self.figure.yaxis[0].axis_label = llr_label(unit)
            y = self.source.data["llr"]
            y = y[np.isfinite(y)]
            ylo, yhi = (float(y.min()), float(y.max())) if y.size else (-1.0, 1.0)
            pad = 0.05 * max(yhi - ylo, 1e-9)
            self.figure.x_range.start, self.figure.x_range.end = lo, hi
            self.figure.y_range.start, self.figure.y_range.end = ylo - pad, yhi + pad
            d = st.export.calibration_dict()
            self.params.object = describe(d)
            self.note.object = md_text(" ".join(res.notes)) if res is not None else ""
            self.download_params.disabled = d is None
            self.download_scores.disabled = d is None or st.teaching.enabled
            self._on_op()
            self._on_style()

    @param.depends("state.op", watch=True)
    @isolated
    def _on_op(self):
        st = self.state
        res = st.results
        self.hline.location = float(llr_to_unit(-st.point.plo, st.display.llr_unit))
        if res is not None:
            self.vline.location = res.threshold_score(st.point.plo)

    @param.depends("state.display.presentation", "state.display.svg",
                   "state.presenter.highlight", watch=True)
    def _on_style(self):
        """Restyle now, or once at the end of a held change (see
        ``DashboardState.when_settled``)."""
        self.state.when_settled(self._restyle)

    @isolated
    def _restyle(self):
        st = self.state
        lit = st.presenter.highlight or ()
        self.styler.apply(st.display.presentation, st.display.svg,
                          ([self.map_renderer] if "calibration.map" in lit else [])
                          + ([self.hline, self.vline] if "calibration.threshold" in lit
                             else []))
        size = st.display.font("text") if st.display.presentation else "100%"
        for pane in (self.params, self.note, self.title):
            pane.styles = {"font-size": size}

