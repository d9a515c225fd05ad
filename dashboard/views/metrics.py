"""The metrics table: dev and eval measures at the operating point, with the DR30 warning.

Rows are measures, columns datasets; values come from ``DashboardState.metrics_rows`` (i.e. from
``Analysis`` and ``Analysis.at``).  The table is an HTML pane regenerated whole on every update
(a dozen cells): Bokeh 3.9's ``DataTable`` does not repaint when its source data are replaced
(bokeh/bokeh#15328), so it is not used here.  ``MetricsView.data`` holds the formatted columns.
"""

from __future__ import annotations

import html
import io

import panel as pn
import param

from ..state import DashboardState

__all__ = ["MEASURES", "MetricsView", "table_data", "table_html"]

#: (key in metrics_rows, row label, formatter)
MEASURES = (
    ("n_tar", "targets", "{:,}".format),
    ("n_non", "non-targets", "{:,}".format),
    ("cllr", "Cllr (bits)", "{:.4f}".format),
    ("min_cllr", "min Cllr (bits)", "{:.4f}".format),
    ("eer", "EER (%)", lambda v: f"{100 * v:.3f}"),
    ("act_dcf", "act DCF", "{:.4f}".format),
    ("min_dcf", "min DCF", "{:.4f}".format),
    ("misses", "misses (act)", "{:,}".format),
    ("false_alarms", "false alarms (act)", "{:,}".format),
    ("dr30_safe", "DR30-safe", lambda v: "yes" if v else "NO"),
)
_ROLES = ("dev", "eval", "true")


def table_data(state: DashboardState):
    """The table's columns: ``measure`` plus, per role, the formatted value and its colour."""
    rows = {r: None for r in _ROLES}
    for row in state.metrics_rows():
        rows[row["role"]] = row
    data = {"measure": [label for _, label, _ in MEASURES]}
    for role in _ROLES:
        row = rows[role]
        vals, colors, styles = [], [], []
        for key, _, fmt in MEASURES:
            if row is None:
                vals.append("")
                colors.append("#222222")
                styles.append("normal")
                continue
            v = row[key]
            vals.append(fmt(v))
            bad = key == "dr30_safe" and not v
            colors.append("#c62828" if bad else "#222222")
            styles.append("bold" if bad or key in ("act_dcf", "min_dcf") else "normal")
        data[role] = vals
        data[f"{role}_color"] = colors
        data[f"{role}_style"] = styles
    return data


_CSS = """
<style>
table.llrlab-metrics { border-collapse: collapse; font-size: %(size)s; min-width: 420px; }
table.llrlab-metrics th, table.llrlab-metrics td { padding: 3px 12px;
    border-bottom: 1px solid #e3e3e3; }
table.llrlab-metrics th { text-align: right; border-bottom: 2px solid #999; }
table.llrlab-metrics th:first-child, table.llrlab-metrics td:first-child { text-align: left;
    font-weight: bold; }
table.llrlab-metrics td { text-align: right; font-variant-numeric: tabular-nums; }
table.llrlab-metrics tr:nth-child(even) td { background: #f6f7f9; }
</style>
"""


def table_html(data, roles, presentation=False):
    """The HTML of the table for the given dataset columns (see :func:`table_data`)."""
    titles = {"dev": "dev", "eval": "eval", "true": "true LLR"}
    out = [_CSS % {"size": "19px" if presentation else "14px"},
           '<table class="llrlab-metrics"><thead><tr><th>measure</th>']
    out += [f"<th>{titles[r]}</th>" for r in roles]
    out.append("</tr></thead><tbody>")
    for i, (key, label, _) in enumerate(MEASURES):
        out.append(f"<tr><td>{html.escape(label)}</td>")
        for r in roles:
            style = (f"color:{data[f'{r}_color'][i]};"
                     f"font-weight:{data[f'{r}_style'][i]}")
            out.append(f'<td data-role="{r}" data-key="{key}" style="{style}">'
                       f"{html.escape(data[r][i])}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
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
        self.download = pn.widgets.FileDownload(
            callback=self._csv, filename="llrlab_metrics.csv", label="Metrics (CSV)",
            button_type="light", width=180)
        self._layout = pn.Column(
            pn.pane.Markdown("### Metrics at the operating point", margin=(0, 10)),
            self.header, self.table, self.warning, self.download,
            sizing_mode="stretch_width")
        self._on_op()

    def __panel__(self):
        return self._layout

    def _csv(self):
        return io.StringIO(self.state.metrics_csv())

    def roles(self):
        res = self.state.results
        have = [] if res is None else list(res.datasets)
        return have or ["dev", "eval"]

    @param.depends("state.op", "state.presentation", watch=True)
    def _on_op(self):
        st = self.state
        self.data = table_data(st)
        self.table.object = table_html(self.data, self.roles(), st.presentation)
        self.header.object = (
            f"P(target) = {st.p_target:.4g}, C(miss) = {st.c_miss:g}, C(fa) = {st.c_fa:g} "
            f"→ effective prior {st.effective_prior:.4g}, prior log-odds **{st.plo:.3f}**, "
            f"Bayes threshold on LLRs {-st.plo:.3f}")
        text = st.dr30_warning()
        self.warning.object = text
        self.warning.visible = bool(text)
