"""The "Export interactive HTML" button: the offline report of what the dashboard shows.

The download is :func:`llrlab.dashboard.report.report_from_results` of the shown results (the
core analyses of dev and eval, and the trained calibration), opening at the dashboard's
operating point and in its LLR unit: one HTML file that works with no server and no network,
in which the operating point can still be dragged (see :mod:`llrlab.dashboard.report`).
"""

from __future__ import annotations

import io

import panel as pn
import param

from ..state import DashboardState

__all__ = ["ExportView"]


class ExportView(pn.viewable.Viewer):
    """The export button of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        self.button = pn.widgets.FileDownload(
            callback=self._file, filename="llrlab_report.html",
            label="Export interactive HTML", button_type="primary",
            sizing_mode="stretch_width", name="export_html")
        self.note = pn.pane.Markdown(
            "One HTML file of the plots and the metrics table that works offline, with no "
            "server: the operating point can still be dragged there.", margin=(0, 5),
            styles={"color": "#555555", "font-size": "90%"})
        self._layout = pn.Column(self.button, self.note, sizing_mode="stretch_width")
        self._on_results()

    def __panel__(self):
        return self._layout

    @param.depends("state.results", watch=True)
    def _on_results(self):
        res = self.state.results
        self.button.disabled = res is None or not res.datasets

    def report_html(self):
        """The report of the shown results, at the operating point and in the LLR unit of
        the dashboard."""
        st = self.state
        point, display = st.point, st.display
        res = st.results
        system = st.data.system
        what = ", ".join(f"{d.label} {d.llr.n_tar + d.llr.n_non:,} trials"
                         for d in ([] if res is None else res.datasets.values()))
        cal = None if res is None or res.calibration is None else res.calibration.kind
        subtitle = what + (f"; {cal} calibration trained on dev" if cal else "")
        title = "llrlab report" + (f": {system}" if system else "")
        from ..report import report_from_results  # (report imports the views' helpers)

        return report_from_results(res, p_target=point.p_target, c_miss=point.c_miss,
                                   c_fa=point.c_fa, llr_unit=display.llr_unit, title=title,
                                   subtitle=subtitle)

    def _file(self):
        return io.BytesIO(self.report_html().encode("utf-8"))
