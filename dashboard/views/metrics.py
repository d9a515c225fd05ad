"""The metrics table: dev and eval measures at the operating point, with the DR30 warning.

A Bokeh ``DataTable`` over one ColumnDataSource (rows: measures, columns: datasets), updated
whole when the operating point or the results change; values come from
``DashboardState.metrics_rows`` (i.e. from ``Analysis`` and ``Analysis.at``).
"""

from __future__ import annotations

import io

import panel as pn
import param
from bokeh.core.properties import field
from bokeh.models import ColumnDataSource, DataTable, StringFormatter, TableColumn

from ..state import DashboardState

__all__ = ["MEASURES", "MetricsView", "table_data"]

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


class MetricsView(pn.viewable.Viewer):
    """Metrics table, DR30 warning and CSV download of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        self.source = ColumnDataSource(table_data(self.state), name="metrics")
        cols = [TableColumn(field="measure", title="measure", width=150,
                            formatter=StringFormatter(font_style="bold"))]
        self.columns = {}
        for role in _ROLES:
            c = TableColumn(field=role, title=role if role != "true" else "true LLR",
                            width=110,
                            formatter=StringFormatter(text_color=field(f"{role}_color"),
                                                      font_style=field(f"{role}_style"),
                                                      text_align="right"))
            self.columns[role] = c
            cols.append(c)
        self.table = DataTable(source=self.source, columns=cols, index_position=None,
                               sortable=False, reorderable=False, selectable=False,
                               height=30 + 26 * len(MEASURES), row_height=26,
                               width=500, name="metrics_table")
        self.header = pn.pane.Markdown("", margin=(0, 10), name="op_summary")
        self.warning = pn.pane.Alert("", alert_type="warning", visible=False,
                                     name="dr30_warning", margin=(5, 10))
        self.download = pn.widgets.FileDownload(
            callback=self._csv, filename="llrlab_metrics.csv", label="Metrics (CSV)",
            button_type="light", width=180)
        self._layout = pn.Column(
            pn.pane.Markdown("### Metrics at the operating point", margin=(0, 10)),
            self.header, pn.pane.Bokeh(self.table), self.warning, self.download,
            sizing_mode="stretch_width")
        self._on_results()

    def __panel__(self):
        return self._layout

    def _csv(self):
        return io.StringIO(self.state.metrics_csv())

    @param.depends("state.results", watch=True)
    def _on_results(self):
        self._on_op()
        # after the data: a DataTable re-rendered for new columns must see the new rows
        res = self.state.results
        have = set() if res is None else set(res.datasets)
        for role, c in self.columns.items():
            shown = role in have or (role != "true" and not have)
            if c.visible != shown:
                c.visible = shown

    @param.depends("state.op", watch=True)
    def _on_op(self):
        st = self.state
        self.source.data = table_data(st)
        self.header.object = (
            f"P(target) = {st.p_target:.4g}, C(miss) = {st.c_miss:g}, C(fa) = {st.c_fa:g} "
            f"→ effective prior {st.effective_prior:.4g}, prior log-odds **{st.plo:.3f}**, "
            f"Bayes threshold on LLRs {-st.plo:.3f}")
        text = st.dr30_warning()
        self.warning.object = text
        self.warning.visible = bool(text)
