"""The "Export interactive HTML" button: the offline report of what the dashboard shows;
and, while a lesson is open, the "Lecture file" button: the whole lesson as one offline page.

The report is :func:`llrlab.dashboard.report.report_from_results` of the shown results (the
core analyses of dev and eval, and the trained calibration), opening at the dashboard's
operating point and in its LLR unit: one HTML file that works with no server and no network,
in which the operating point can still be dragged (see :mod:`llrlab.dashboard.report`).

The lecture file (:func:`llrlab.dashboard.lecture.lecture_bytes`, what ``llrlab report
--lesson`` writes) computes every step of the lesson: it is made by the session's runner in a
worker thread (never on the event loop) when "Lecture file" is pressed, once per lesson and
server process, and then offered by a download button with its size.
"""

from __future__ import annotations

import copy
import io
from concurrent.futures import ThreadPoolExecutor

import panel as pn
import param

from ..safe import html_text
from ..state import DashboardState
from ._common import isolated

__all__ = ["ExportView"]

#: The thread that makes lecture files (one at a time; the dashboard's job threads stay free
#: for the sessions' results).
_LECTURE_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llrlab-lecture")


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
        self.lecture = pn.widgets.Button(
            name="Lecture file", button_type="default", sizing_mode="stretch_width",
            description="The open lesson as one HTML file for the class: every step, its "
                        "plots and table, stepped with the lesson's keys, offline")
        self.lecture_download = pn.widgets.FileDownload(
            filename="lecture.html", label="Download the lecture file", button_type="success",
            sizing_mode="stretch_width", visible=False, name="lecture_download")
        self.lecture_note = pn.pane.Markdown("", margin=(0, 5), styles={"color": "#555555",
                                                                       "font-size": "90%"})
        self.lecture.on_click(self._make_lecture)
        self._layout = pn.Column(self.button, self.note, self.lecture, self.lecture_download,
                                 self.lecture_note, sizing_mode="stretch_width")
        self._made = None  # the lesson whose lecture file is offered
        self._on_results()
        self._on_lesson()

    def __panel__(self):
        return self._layout

    @param.depends("state.results", watch=True)
    @isolated
    def _on_results(self):
        res = self.state.results
        self.button.disabled = res is None or not res.datasets

    @param.depends("state.lesson.lesson", watch=True)
    @isolated
    def _on_lesson(self):
        lesson = self.state.lesson.current()
        self.lecture.visible = lesson is not None
        if lesson is not self._made:
            self.lecture_download.visible = False
            self.lecture_download.file = None
            self.lecture.disabled = False
            self.lecture.name = "Lecture file"
            self.lecture_note.object = ""

    def _make_lecture(self, _event=None):
        """Make the open lesson's lecture file in the session's worker thread; the download
        button appears when it is ready."""
        from ..lecture import lecture_bytes

        lesson = self.state.lesson.current()
        if lesson is None:
            return
        self.lecture.disabled = True
        self.lecture.name = "Lecture file: preparing…"
        self.lecture_note.object = ""

        def job(progress):
            return lecture_bytes(lesson, progress)

        def done(data):
            if self.state.lesson.current() is not lesson:
                return  # another lesson was opened meanwhile
            self._made = lesson
            self.lecture_download.filename = f"{lesson.id}-lecture.html"
            self.lecture_download.file = io.BytesIO(data)
            self.lecture_download.label = (f"Download the lecture file "
                                           f"({len(data) / 1e6:.1f} MB)")
            self.lecture_download.visible = True
            self.lecture.name = "Lecture file"
            self.lecture.disabled = False

        def failed(exc):
            self.lecture.name = "Lecture file"
            self.lecture.disabled = False
            self.lecture_note.object = html_text(f"The lecture file could not be made: {exc}",
                                                 300)

        def progress(fraction, message=""):
            self.lecture.name = f"Lecture file: {round(100 * fraction)} %…"

        runner = self.state.runner
        if hasattr(runner, "executor"):  # a thread of its own: the session's jobs go on
            runner = copy.copy(runner)
            runner.executor = _LECTURE_EXECUTOR
        runner.run(job, done, failed, progress)

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
