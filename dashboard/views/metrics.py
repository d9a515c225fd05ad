"""The metrics table: dev and eval measures at the operating point, with the DR30 warning.

Rows are measures, columns datasets; values come from ``ExportState.metrics_rows`` (i.e. from
``Analysis`` and ``Analysis.at``).  Confidence intervals, when asked for, sit under their value
in small grey type: binomial ones (Pmiss, Pfa, act DCF; recomputed as the operating point
moves) and bootstrap ones (Cllr, min DCF, EER; on demand).  The last row is the threshold on
the scores that the actual decision uses (``Results.score_threshold``: on the raw scores
through the calibration's inverse).  With per-condition curves on, a second table lists every
condition's weight and measures.

The table is an HTML pane regenerated whole on every update (a dozen cells): Bokeh 3.9's
``DataTable`` does not repaint when its source data are replaced (bokeh/bokeh#15328), so it
is not used here.  ``MetricsView.data`` holds the formatted columns.
"""

from __future__ import annotations

import html
import io

import panel as pn
import param

from ..safe import MAX_SHOWN, html_text, md_text
from ..state import DashboardState
from ..table_css import METRICS_TABLE_CSS
from ._common import isolated

__all__ = ["MEASURES", "MetricsView", "table_data", "table_html"]


def _threshold_text(v):
    """A score threshold for the table: '−∞ (accept all)', '+∞ (reject all)' or '—' (no
    single threshold: a decreasing calibration)."""
    if v is None:
        return "—"
    if v == float("inf"):
        return "+∞ (reject all)"
    if v == float("-inf"):
        return "−∞ (accept all)"
    return f"{v:.6g}"


#: (key in metrics_rows, row label, formatter)
MEASURES = (
    ("n_tar", "targets", "{:,}".format),
    ("n_non", "non-targets", "{:,}".format),
    ("cllr", "Cllr (bits)", "{:.4f}".format),
    ("min_cllr", "min Cllr (bits)", "{:.4f}".format),
    ("eer", "EER (%)", lambda v: f"{100 * v:.3f}"),
    ("act_dcf", "act DCF", "{:.4f}".format),
    ("min_dcf", "min DCF", "{:.4f}".format),
    # judged at the minimum-DCF threshold (both of its error counts >= 30), so it sits under
    # min DCF, not among the rows of the actual threshold below
    ("dr30_safe", "DR30-safe (min DCF)", lambda v: "yes" if v else "NO"),
    ("misses", "misses (act)", "{:,}".format),
    ("false_alarms", "false alarms (act)", "{:,}".format),
    ("p_miss", "Pmiss (act, %)", lambda v: f"{100 * v:.3f}"),
    ("p_fa", "Pfa (act, %)", lambda v: f"{100 * v:.3f}"),
    # the threshold on the scores of the histogram (raw scores; fused LLRs for a fusion)
    # that the actual decision uses: accept when score >= it
    ("threshold", "score threshold (act)", _threshold_text),
)

_ROLES = ("dev", "eval", "true")
#: Measures with an interval: key -> display scale (percent rows are multiplied by 100).
_INTERVALS = {"cllr": 1.0, "eer": 100.0, "act_dcf": 1.0, "min_dcf": 1.0, "p_miss": 100.0,
              "p_fa": 100.0}


def _interval(row, key):
    """``"[lo, hi]"`` under a value, a hint when the bootstrap is for another operating
    point, or ''."""
    lo, hi = row.get(f"{key}_lo", "absent"), row.get(f"{key}_hi")
    if lo == "absent":
        return ""
    if lo is None:
        return "bootstrap: other op. point"
    k = _INTERVALS[key]
    digits = 3 if k == 100.0 else 4
    return f"[{k * lo:.{digits}f}, {k * hi:.{digits}f}]"


def table_data(state: DashboardState):
    """The table's columns: ``measure`` plus, per role, the formatted value and its colour."""
    rows = {r: None for r in _ROLES}
    for row in state.export.metrics_rows():
        rows[row["role"]] = row
    data = {"measure": [label for _, label, _ in MEASURES]}
    for role in _ROLES:
        row = rows[role]
        vals, colors, styles, cis = [], [], [], []
        for key, _, fmt in MEASURES:
            if row is None:
                vals.append("")
                colors.append("#222222")
                styles.append("normal")
                cis.append("")
                continue
            v = row[key]
            vals.append(fmt(v))
            cis.append(_interval(row, key) if key in _INTERVALS else "")
            bad = key == "dr30_safe" and not v
            colors.append("#c62828" if bad else "#222222")
            styles.append("bold" if bad or key in ("act_dcf", "min_dcf") else "normal")
        data[role] = vals
        data[f"{role}_ci"] = cis
        data[f"{role}_color"] = colors
        data[f"{role}_style"] = styles
    return data


_CSS = """
<style>
div.llrlab-scroll { max-width: 100%%; overflow-x: auto; }
table.llrlab-metrics { border-collapse: collapse; font-size: %(size)s; }
""" + METRICS_TABLE_CSS + """\
table.llrlab-metrics tr.lit td { background: #f9e3ef; }
table.llrlab-metrics tr.lit td:first-child { box-shadow: inset 5px 0 0 #CC79A7; }
table.llrlab-metrics .llrlab-ci { display: block; font-size: 80%%; color: #6b6b6b;
    font-weight: normal; white-space: nowrap; }
table.llrlab-metrics .llrlab-swatch { display: inline-block; width: 18px; height: 3px;
    margin: 0 6px 3px 0; vertical-align: middle; }
</style>
"""


def table_html(data, roles, presentation=False, highlight=()):
    """The HTML of the table for the given dataset columns (see :func:`table_data`);
    the rows of the measures in ``highlight`` (keys of MEASURES) are marked."""
    titles = {"dev": "dev", "eval": "eval", "true": "true LLR"}
    out = [_CSS % {"size": "19px" if presentation else "14px"},
           '<div class="llrlab-scroll"><table class="llrlab-metrics"><thead><tr>'
           '<th>measure</th>']
    out += [f"<th>{titles[r]}</th>" for r in roles]
    out.append("</tr></thead><tbody>")
    for i, (key, label, _) in enumerate(MEASURES):
        lit = ' class="lit"' if key in highlight else ""
        out.append(f'<tr data-key="{key}"{lit}><td>{html.escape(label)}</td>')
        for r in roles:
            style = (f"color:{data[f'{r}_color'][i]};"
                     f"font-weight:{data[f'{r}_style'][i]}")
            ci = data.get(f"{r}_ci", [""] * len(MEASURES))[i]
            extra = f'<span class="llrlab-ci">{html.escape(ci)}</span>' if ci else ""
            out.append(f'<td data-role="{r}" data-key="{key}" style="{style}">'
                       f"{html.escape(data[r][i])}{extra}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


#: (key in condition_rows, column title, formatter)
CONDITION_COLUMNS = (
    ("weight", "weight", None),
    ("n_tar", "targets", "{:,}".format),
    ("n_non", "non-targets", "{:,}".format),
    ("act_dcf", "act DCF", "{:.4f}".format),
    ("min_dcf", "min DCF", "{:.4f}".format),
    ("eer", "EER (%)", lambda v: f"{100 * v:.3f}"),
    ("cllr", "Cllr (bits)", "{:.4f}".format),
    ("dr30_safe", "DR30-safe", lambda v: "yes" if v else "NO"),
)


def condition_table_html(rows, presentation=False):
    """HTML of the per-condition table (see ``ExportState.condition_rows``)."""
    from ._common import CONDITION_COLORS

    if not rows:
        return ""
    out = [_CSS % {"size": "19px" if presentation else "14px"},
           '<div class="llrlab-scroll"><table class="llrlab-metrics llrlab-conditions"><thead>'
           '<tr><th>condition</th>']
    out += [f"<th>{html.escape(t)}</th>" for _, t, _ in CONDITION_COLUMNS]
    out.append("</tr></thead><tbody>")
    for k, row in enumerate(rows):
        color = CONDITION_COLORS[k % len(CONDITION_COLORS)]
        out.append(f'<tr><td><span class="llrlab-swatch" style="background:{color}"></span>'
                   f"{html_text(row['condition'], MAX_SHOWN)}</td>")
        for key, _, fmt in CONDITION_COLUMNS:
            if key == "weight":
                w_t, w_n = row["w_tar"], row["w_non"]
                text = f"{w_t:.3f}" if abs(w_t - w_n) < 1e-12 else f"{w_t:.3f} / {w_n:.3f}"
                style = ""
            else:
                text = fmt(row[key])
                style = ' style="color:#c62828;font-weight:bold"' if (
                    key == "dr30_safe" and not row[key]) else ""
            out.append(f'<td data-condition="{html_text(row["condition"], MAX_SHOWN)}" '
                       f'data-key="{key}"{style}>{html.escape(text)}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


class MetricsView(pn.viewable.Viewer):
    """Metrics table, DR30 warning and CSV download of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        self.data = table_data(self.state)
        self.table = pn.pane.HTML("", name="metrics_table", margin=(0, 10))
        self.header = pn.pane.Markdown("", margin=(0, 10), name="op_summary")
        self.warning = pn.pane.Alert("", alert_type="warning", visible=False,
                                     name="dr30_warning", margin=(5, 10))
        # why act DCF and Cllr are poor when the scores are not LLRs (e.g. the demo's raw
        # scores): the sentence llrlab eval prints, and where to calibrate in this page
        self.calibration_note = pn.pane.Alert("", alert_type="info", visible=False,
                                              name="calibration_note", margin=(5, 10))
        self.download = pn.widgets.FileDownload(
            callback=self._csv, filename="llrlab_metrics.csv", label="Metrics (CSV)",
            button_type="light", width=180)
        self.ci_note = pn.pane.Markdown("", margin=(0, 10), name="ci_note",
                                        styles={"color": "#555555", "font-size": "90%"})
        self.condition_title = pn.pane.Markdown("", margin=(10, 10, 0, 10),
                                                name="condition_title")
        self.condition_table = pn.pane.HTML("", name="condition_table", margin=(0, 10))
        self.title = pn.pane.Markdown("### Metrics at the operating point", margin=(0, 10))
        self._layout = pn.Column(
            self.title, self.header, self.table, self.ci_note, self.calibration_note,
            self.warning, self.condition_title, self.condition_table, self.download,
            sizing_mode="stretch_width", name="metrics")
        self._on_op()

    def resize(self, width=None, height=None):
        """On the stage: a fixed panel that scrolls when the table is taller."""
        if height is None:
            self._layout.param.update(sizing_mode="stretch_width", height=None, scroll=False)
        else:
            self._layout.param.update(sizing_mode="fixed", width=int(width),
                                      height=int(height), scroll=True)

    def __panel__(self):
        return self._layout

    def _ci_text(self):
        st = self.state
        parts = []
        ci = next(iter((st.op_ci or {}).values()), None)
        if ci is not None:
            name = {"normal": "normal (Bengio & Mariéthoz 2004)", "wilson": "Wilson",
                    "clopper-pearson": "Clopper-Pearson"}.get(ci.method, ci.method)
            parts.append(f"Grey: {100 * ci.confidence:g} % {name} intervals of Pmiss, Pfa and "
                         f"act DCF at this threshold (independent trials).")
        boot = st.uncertainty.boot or {}
        b = next(iter(boot.values()), None)
        if b is not None:
            fresh = all(st.uncertainty.current(r, st.point.plo)[1] for r in boot)
            parts.append(f"Cllr, EER{', min DCF' if fresh else ''}: {b.n_used} bootstrap "
                         f"replicates by {b.by}"
                         + ("." if fresh else "; min DCF was for another operating point "
                            "(press Bootstrap intervals again)."))
        return " ".join(parts)

    def _csv(self):
        return io.StringIO(self.state.export.metrics_csv())

    def roles(self):
        res = self.state.results
        have = [] if res is None else list(res.datasets)
        return have or ["dev", "eval"]

    @param.depends("state.uncertainty.boot", "state.display.presentation",
                   "state.presenter.highlight", watch=True)
    @isolated
    def _on_boot_or_style(self):
        self._on_op()

    # (separate from the watcher above: for a method that also depends on "state.part.x",
    # param 2.4 may skip a change of "state.op" whose old and new values have equal
    # attributes "x")
    @param.depends("state.op", "state.op_ci", "state.cond_op", watch=True)
    @isolated
    def _on_op(self):
        st, pt = self.state, self.state.point
        big = st.display.presentation
        self.data = table_data(st)
        lit = st.presenter.lit("metrics")
        self.table.object = table_html(self.data, self.roles(), big, lit)
        size = {"font-size": "140%" if big else "100%"}
        for pane in (self.header, self.condition_title, self.calibration_note, self.warning):
            pane.styles = size
        self.ci_note.styles = {"color": "#555555", "font-size": "125%" if big else "90%"}
        self.title.styles = {"font-size": "130%" if big else "100%"}
        header = (
            f"P(target) = {pt.p_target:.4g}, C(miss) = {pt.c_miss:g}, C(fa) = {pt.c_fa:g} "
            f"→ effective prior {pt.effective_prior:.4g}, prior log-odds **{pt.plo:.3f}**, "
            f"Bayes threshold on LLRs {-pt.plo:.3f}")
        weighting = st.export.weighting_text()
        if weighting:
            header += f"  \nConditions: {md_text(weighting)}"
        self.header.object = header
        self.ci_note.object = self._ci_text()
        rows = st.export.condition_rows() if st.conditions.show_curves else []
        self.condition_title.object = (
            f"**Per condition ({rows[0]['role']})** at the operating point" if rows else "")
        self.condition_table.object = condition_table_html(rows, st.display.presentation)
        self.condition_title.visible = self.condition_table.visible = bool(rows)
        text = st.export.dr30_warning()
        self.warning.object = md_text(text)
        self.warning.visible = bool(text)
        note = st.export.calibration_warning()
        self.calibration_note.object = note
        self.calibration_note.visible = bool(note)
