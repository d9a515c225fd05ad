"""The dashboard application: :func:`create_app` builds one session's page.

``llrlab serve`` calls :func:`create_app` once per browser session (see ``cli.py``); ``panel
serve dashboard/app.py`` works too (the module marks the page servable when Panel runs it).

Layout (BootstrapTemplate, no external resources): the sidebar holds data loading,
calibration, operating point, display options, exports, teaching mode, lessons and presenter
mode; the main area (``layout.py``) shows the NBER and DET plots side by side on a wide
screen and one under the other on a narrow one (a projector's 1280 x 720), the metrics table
and the calibration likewise, and the score histograms; in presenter mode or a lesson, the
chosen plots fill the screen.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources

import panel as pn
from panel.io.state import set_curdoc

from llrlab.dashboard.controls import (
    DEFAULT_MAX_UPLOAD_MB,
    UploadPanel,
    calibration_controls,
    condition_controls,
    display_controls,
    operating_point_controls,
    presenter_controls,
    teaching_controls,
    uncertainty_controls,
)
from llrlab.dashboard.layout import SHRINK_CSS, MainArea, PageControl
from llrlab.dashboard.notebook import load_extensions
from llrlab.dashboard.page_bundle import without_mathjax
from llrlab.dashboard.page_pool import before_browser, premaking, settled_when
from llrlab.dashboard.safe import html_text, md_text
from llrlab.dashboard.session import end_with_session, quiet_closed_connections
from llrlab.dashboard.state import DashboardState, SyncRunner, user_message
from llrlab.dashboard.state.data import load_with_notes
from llrlab.dashboard.state.shared import SHARED
from llrlab.dashboard.url import POINT_NAMES, Debounced, keep_lesson_in_address, sync_url
from llrlab.dashboard.views import (
    CalibrationView,
    DETView,
    ExportView,
    ForensicView,
    HistogramView,
    MetricsView,
    NBERView,
)
from llrlab.dashboard.views.compare import CompareView
from llrlab.dashboard.views.op_grid import OpGrid

__all__ = ["DEMO_FILES", "FileSpec", "ThreadRunner", "create_app", "demo_specs"]

log = logging.getLogger(__name__)

#: Query parameters that reproduce a view (``pn.state.location.sync``): per part of the
#: state, its parameter -> the query parameter (names kept stable: links must keep working).
URL_PARAMS = {
    "point": {"p_target": "p_target", "c_miss": "c_miss", "c_fa": "c_fa"},
    "calibration": {"method": "cal", "train_prior": "prior", "fusion": "fusion"},
    "data": {"system": "system"},
    "display": {"nber_range": "range", "det_kind": "det", "show_contributions": "parts",
                "show_dev": "dev", "presentation": "present", "svg": "svg",
                "llr_unit": "unit", "reliability": "rel", "reliability_bins": "rel_bins"},
    "teaching": {"enabled": "teach", "mu_tar": "mu_tar", "sigma_tar": "sd_tar",
                 "mu_non": "mu_non", "sigma_non": "sd_non", "n_tar": "n_tar",
                 "n_non": "n_non", "seed": "seed", "scale": "scale", "shift": "shift",
                 "references": "refs"},
    "conditions": {"weighting": "weights", "custom_weights": "custom",
                   "show_curves": "cond_curves"},
    "uncertainty": {"ci_method": "ci", "ci_level": "level"},
    "compare": {"role": "cmp"},
    "presenter": {"enabled": "presenter", "panels": "panels"},
    "lesson": {"lesson": "lesson", "step": "step"},
}

#: Seconds a drag must pause before the sidebar's operating point and the address follow.
POINT_DELAY = 0.2

_EXECUTOR = ThreadPoolExecutor(max_workers=2, thread_name_prefix="llrlab-dashboard")


@dataclass(frozen=True)
class FileSpec:
    """A server-side file named on the command line: which system and role it feeds."""

    system: str
    role: str
    scores: str
    key: str | None = None


#: The demo data shipped in ``llrlab.assets``: (system, role, scores file, key file).
DEMO_FILES = (
    ("system A", "dev", "demo_A_dev_scores.h5", "demo_dev_key.h5"),
    ("system A", "eval", "demo_A_eval_scores.h5", "demo_eval_key.h5"),
    ("system B", "dev", "demo_B_dev_scores.h5", "demo_dev_key.h5"),
    ("system B", "eval", "demo_B_eval_scores.h5", "demo_eval_key.h5"),
)


def _assets_root():
    try:
        return resources.files("llrlab.assets")
    except ModuleNotFoundError:  # a source checkout installed before assets/ was mapped
        return resources.files("llrlab.dashboard").joinpath("..", "assets")


def demo_specs():
    """FileSpecs of the demo data (paths inside the installed package)."""
    root = _assets_root()
    out = []
    for system, role, scores, key in DEMO_FILES:
        out.append(FileSpec(system, role, str(root / scores),
                            None if key is None else str(root / key)))
    return out


def _no_hold(_doc):
    return contextlib.nullcontext()


class ThreadRunner:
    """Runs heavy jobs in a worker thread and applies their results on the event loop.

    Bokeh documents may only be changed on their event loop: results, errors and progress are
    handed back with ``Document.add_next_tick_callback`` (thread-safe), inside which Panel's
    current document is set and held, so that everything a result changes in the page
    reaches the browser as one message.  An exception
    raised while a result is applied is logged with its traceback and handed to
    ``on_failure`` (the page shows one line), never swallowed.
    """

    def __init__(self, doc, executor=_EXECUTOR, on_failure=None):
        self.doc = doc
        self.executor = executor
        self.on_failure = on_failure

    def _schedule(self, fn, *args):
        doc = self.doc
        held = pn.io.hold if getattr(doc, "session_context", None) else _no_hold

        def cb():
            with set_curdoc(doc), held(doc):
                try:
                    fn(*args)
                except Exception as exc:  # never let a callback kill the session
                    log.error("dashboard callback failed", exc_info=exc)
                    if self.on_failure is not None:
                        try:
                            self.on_failure(exc)
                        except Exception as again:
                            log.error("could not show an error in the page", exc_info=again)

        try:
            doc.add_next_tick_callback(cb)
        except Exception:  # the session has gone
            log.debug("session closed before a result arrived")

    def follow(self, future, on_done, on_error):
        """Hand the result (or the exception) of ``future``, computed elsewhere, to
        ``on_done`` (``on_error``) on the event loop."""
        def finished(f):
            exc = f.exception()
            if exc is not None:
                self._schedule(on_error, exc)
            else:
                self._schedule(on_done, f.result())

        future.add_done_callback(finished)

    def run(self, job, on_done, on_error, on_progress):
        # progress: only the latest value matters; at most one update waits on the loop
        latest = {"value": None, "queued": False, "finished": False}
        lock = threading.Lock()

        def deliver():
            with lock:
                value, latest["queued"] = latest["value"], False
                finished = latest["finished"]
            if value is not None and not finished:
                on_progress(*value)

        def progress(fraction, message=""):
            with lock:
                latest["value"] = (fraction, message)
                if latest["queued"]:
                    return
                latest["queued"] = True
            self._schedule(deliver)

        def finish(fn, arg):
            with lock:
                latest["finished"] = True
            fn(arg)

        def work():
            try:
                result = job(progress)
            except Exception as exc:
                self._schedule(finish, on_error, exc)
            else:
                self._schedule(finish, on_done, result)

        self.executor.submit(work)


# -------------------------------------------------------------------------------- loading

_FILE_CACHE: dict = {}
#: How the server-side files are read (``llrlab serve FILE --distance --llr-unit log10
#: --columns ...``): keyword arguments of :func:`read_options`, set once by the server
#: before any session starts.
READ_OPTIONS: dict = {}


def read_options(*, higher_is_target=True, unit="ln", columns=None, fta_as_error=False):
    """The context in which a server-side file is read (see ``llrlab.core.io``)."""
    from contextlib import ExitStack

    from llrlab.core.io import failures_to_acquire, score_orientation
    from llrlab.core.io.labelled import column_names

    stack = ExitStack()
    stack.enter_context(score_orientation(higher_is_target=higher_is_target, unit=unit))
    stack.enter_context(column_names(columns))
    stack.enter_context(failures_to_acquire(as_error=fta_as_error))
    return stack


def _stamp(path):
    """A server-side file as it is now: (absolute path, modification time)."""
    return None if path is None else (os.path.abspath(path), os.path.getmtime(path))


def _cached_loader(scores, key, progress):
    """Load a server-side file once per (path, key, modification time) for all sessions:
    ``(trials, notes)`` (see :func:`~llrlab.dashboard.state.data.load_with_notes`)."""
    try:
        k = (_stamp(scores), _stamp(key))
    except OSError:
        k = None
    if k is not None and k in _FILE_CACHE:
        progress(1.0, "")
        return _FILE_CACHE[k]
    with read_options(**READ_OPTIONS):
        out = load_with_notes(scores, key, progress)
    if k is not None:
        _FILE_CACHE[k] = out
    return out


def load_specs(state: DashboardState, specs, *, replace=True, interactive=False,
               dask=False):
    """Load server-side files (command-line paths or the demo) into a session's state.

    ``interactive`` (a button press) leaves teaching mode and shows the loaded system; at
    start-up the choices restored from the URL are kept.  With ``dask`` the files are read
    lazily as sets larger than memory (:mod:`llrlab.dashboard.scaled`).
    """
    items = [(s.system, s.role, s.scores, s.key) for s in specs]
    if dask:
        from .scaled import load_scaled

        state.data.load_files(items, display={}, replace=replace, loader=load_scaled,
                              interactive=interactive)
        return
    display = {s.scores: os.path.basename(s.scores) for s in specs}
    display.update({s.key: os.path.basename(s.key) for s in specs if s.key})
    try:  # the same files give every session the same results: they are shared
        origin = tuple((s.system, s.role, _stamp(s.scores), _stamp(s.key)) for s in specs)
    except OSError:  # (the load reports it)
        origin = None
    state.data.load_files(items, display=display, replace=replace, loader=_cached_loader,
                          interactive=interactive, origin=origin)


# -------------------------------------------------------------------------------- the page


def _status(state):
    status = state.status
    bar = pn.indicators.Progress(value=-1, active=False, visible=False, max=100,
                                 sizing_mode="stretch_width", bar_color="primary",
                                 name="progress")
    text = pn.pane.Markdown("", margin=(0, 10), name="status")

    def update(*_):
        bar.visible = status.busy
        if status.progress is None:
            bar.value, bar.active = -1, status.busy
        else:
            bar.value, bar.active = int(100 * status.progress), False
        text.object = f"*{md_text(status.message)}…*" if status.busy and status.message else ""

    status.param.watch(update, ["busy", "progress", "message"])
    update()
    return pn.Column(text, bar, sizing_mode="stretch_width")


def _alerts(state):
    status = state.status
    error = pn.pane.Alert("", alert_type="danger", visible=False, name="error_alert",
                          sizing_mode="stretch_width")
    dismiss = pn.widgets.Button(name="Dismiss", button_type="light", visible=False,
                                width=90)
    notice = pn.pane.Alert("", alert_type="info", visible=False, sizing_mode="stretch_width")
    data_notice = pn.pane.Alert("", alert_type="warning", visible=False, name="data_notice",
                                sizing_mode="stretch_width")

    def on_error(*_):
        msg = status.error
        error.object = md_text(msg)
        error.visible = dismiss.visible = bool(msg)
        if msg and pn.state.notifications is not None:
            pn.state.notifications.error(html_text(msg), duration=8000)

    def on_notice(*_):
        notice.object = md_text(status.notice)
        notice.visible = bool(status.notice)

    def on_data_notes(*_):
        text = state.data.notes_text()
        data_notice.object = md_text(text)
        data_notice.visible = bool(text)

    state.data.param.watch(on_data_notes, ["notes"])
    on_data_notes()
    dismiss.on_click(lambda _e: status.clear_error())
    status.param.watch(on_error, ["error"])
    status.param.watch(on_notice, ["notice"])
    on_error()
    on_notice()
    return pn.Column(pn.Row(error, dismiss, sizing_mode="stretch_width"), notice,
                     data_notice, sizing_mode="stretch_width")


def _data_summary(state):
    md = pn.pane.Markdown("", margin=(0, 5), name="data_summary")

    def update(*_):
        if state.teaching.enabled:
            md.object = "**Teaching mode**: synthetic Gaussian scores."
            return
        if not state.data.systems:
            md.object = "No data loaded."
            return
        lines = []
        for name, sd in state.data.systems.items():
            parts = [f"{role} {len(t):,} trials" for role, t in (("dev", sd.dev),
                                                                 ("eval", sd.eval))
                     if t is not None]
            lines.append(f"- **{md_text(name)}**: " + ", ".join(parts))
        md.object = "\n".join(lines)

    state.data.param.watch(update, ["systems"])
    state.teaching.param.watch(update, ["enabled"])
    update()
    return md


def _show_failure(state, exc):
    """An unexpected error while the page was updated: one line in the page."""
    state.status.error = f"the page could not be updated: {user_message(exc)}"


#: The state of each served page, by its document (a weak reference both ways: a closed
#: session's state stays collectable), so that an error in any of its callbacks reaches it.
_PAGE_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _exception_handler(exc):
    """Any error in a callback: one line in the page's error bar (where it stays until
    dismissed; a page without one gets a notification), the traceback in the server log."""
    log.error("error in a dashboard callback", exc_info=exc)
    doc = pn.state.curdoc
    ref = _PAGE_STATES.get(doc) if doc is not None else None
    state = ref() if ref is not None else None
    if state is not None:
        try:
            _show_failure(state, exc)
            return
        except Exception as again:  # the error bar itself failed: fall back to a toast
            log.error("could not show an error in the page", exc_info=again)
    if pn.state.notifications is not None:
        pn.state.notifications.error(html_text(user_message(exc)), duration=8000)


def no_delay(doc):
    """Send the session's websocket messages at once: switch off Nagle's algorithm on its
    connections (neither Bokeh nor Panel does).  A Bokeh message is three or more small
    websocket frames; with Nagle the later frames wait for the browser's delayed
    acknowledgement of the first (about 40 ms on Linux), on every update."""
    session = getattr(doc.session_context, "_session", None)
    for conn in list(getattr(session, "_subscribed_connections", ())):
        sock = getattr(conn, "_socket", None)
        try:
            sock.set_nodelay(True)
        except Exception:  # not a tornado websocket, or already closed
            log.debug("could not switch Nagle's algorithm off", exc_info=True)


#: On a page that opens on a stage (a lesson's link, presenter mode), the folded sidebar is
#: made this long after the stage (ms), or at once when it is unfolded.
SIDEBAR_DELAY = 4000
#: How long the page's body waits for the browser to report the main area's size (ms).
SIZE_WAIT = 500
#: ms after the body is sent before a lazy main area makes the views of the panels not
#: shown yet (one every :data:`PANELS_APART` ms; made, not sent: a step that shows one
#: soon after the page opened then only sends it).
VIEWS_DELAY = 800
#: ms after the body is sent before a lazy main area sends the panels not shown yet.
PANELS_DELAY = 2500
#: ms between two of those panels.
PANELS_APART = 200


def _fill_when_ready(side, body, page=None, area=None):
    """Empty stand-ins for the page's sidebar and body, filled once the browser's websocket
    is open (``pn.state.onload``, before any other load-time work): the first response then
    builds only the frame of the page, so that it is fast even while the server is busy (a
    browser or a health check waiting for it gives up after a few seconds), and the
    page's ~700 models follow in one message.

    When the page opens with its sidebar folded (``page.collapsed``: a lesson's link, a
    stage), the body comes alone and the sidebar's ~150 models (a quarter of the server's
    time to make the page, and of the browser's to draw it) follow when the sidebar is
    unfolded or :data:`SIDEBAR_DELAY` ms later, whichever is first: the step on the stage is
    complete sooner.  ``side`` may then be a function that makes the sidebar, called when
    it is sent (the page's first response does not wait for its widgets).

    The page's control (``page``, a PageControl) is in the frame: drawn with it, it reports
    the main area's size at once, and the body waits for that report (at most
    :data:`SIZE_WAIT` ms) so that its first layout is already the window's (before, the
    body came laid out for a 1280 x 720 window and was laid out again when the size
    arrived: a round trip and a second drawing).

    A lazy main area (``area``, a :class:`~.layout.MainArea`) sends the panels its first
    layout shows with the body, and the others (a lesson's step 1 shows one or two of five:
    some 300 of the body's models) from :data:`PANELS_DELAY` ms later, one every
    :data:`PANELS_APART` ms, or when a step shows them, whichever is first; their views
    are made (not sent) from :data:`VIEWS_DELAY` ms on, so that an early step only sends
    them.

    A page made before a browser asks for it (``llrlab serve --class``, :mod:`.page_pool`)
    gets all of it at once, the sidebar and every panel, when it is made."""
    # (a slot may shrink below its content's width, as the areas do: see layout.SHRINK_CSS)
    slots = [pn.Column(sizing_mode="stretch_width", stylesheets=[SHRINK_CSS]) for _ in (0, 1)]
    slots[-1].append(pn.indicators.LoadingSpinner(value=True, size=40, name="Loading…",
                                                  margin=20))

    def sidebar():
        return side() if callable(side) else side

    def fill_side(*_):
        if not slots[0].objects:
            with pn.io.hold():
                slots[0].objects = [sidebar()]

    def unfolded(event):
        if not event.new:
            fill_side()

    filled = []

    def fill(*_, follow=True):
        if filled:
            return
        filled.append(True)
        with pn.io.hold():
            if area is not None:
                area.sent()
            slots[1].objects = [body]
            if not (page is not None and page.collapsed) and not slots[0].objects:
                slots[0].objects = [sidebar()]
        if follow:
            what_follows()

    def what_follows():
        # what a page sends after its body: a lazy area's other panels, a folded sidebar
        later = page is not None and page.collapsed
        doc = pn.state.curdoc
        served = doc is not None and doc.session_context is not None
        if area is not None and served:
            def one_at_a_time(step, delay):
                # one view or panel at a time (each ~0.1 s of the event loop, not ~0.3 s
                # for all: a key press meanwhile waits less), until ``step`` says none is
                # left
                def run():
                    with pn.io.hold():
                        more = step()
                    if more:
                        doc.add_timeout_callback(_in_doc(doc, run), PANELS_APART)

                doc.add_timeout_callback(_in_doc(doc, run), delay)

            one_at_a_time(area.make_next, VIEWS_DELAY)
            one_at_a_time(area.attach_next, PANELS_DELAY)
        if later:
            page.param.watch(unfolded, ["collapsed"])
            if served:
                doc.add_timeout_callback(_in_doc(doc, fill_side), SIDEBAR_DELAY)

    def ready():
        # the page's control is in the frame: it reports the main area's size as soon as
        # the frame is drawn, and the body is laid out for that size at once (filled on the
        # report, or SIZE_WAIT ms after the websocket opened)
        doc = pn.state.curdoc
        if page is None or page.main_width > 0 or doc is None or doc.session_context is None:
            fill()
            return

        go = _in_doc(doc, fill)
        page.param.watch(lambda _e: doc.add_next_tick_callback(go), ["main_width"])
        doc.add_timeout_callback(go, SIZE_WAIT)

    doc = pn.state.curdoc
    if premaking():
        # made before a browser asks (page_pool): everything now, with the lazy area's
        # other panels and a folded sidebar, for the page costs its server nothing more
        # when taken (sent later, each cost ~0.1-0.5 s of the event loop per page: forty
        # lesson pages taken at once queued a minute for them)
        def whole():
            fill(follow=False)
            with pn.io.hold():
                while area is not None and area.attach_next():
                    pass
            fill_side()

        before_browser(doc, whole)
    else:
        pn.state.onload(ready)
    if page is not None:
        return slots[0], pn.Column(page, slots[1], sizing_mode="stretch_width",
                                   stylesheets=[SHRINK_CSS])
    return slots


def _in_doc(doc, fn):
    """``fn`` as a callback of ``doc``'s event loop, run with ``doc`` as Panel's current
    document (a timeout or next-tick callback has none of its own)."""
    def run():
        with set_curdoc(doc):
            fn()

    return run


def _when_first_shown(tabs, index, make, made):
    """Tab ``index`` of ``tabs`` (an empty column) gets its view, ``make()``, the first time
    it is shown; the view then follows the tab (``view.follow_tab``: it computes only while
    shown).  A page that never shows the tab neither builds nor sends it: a lesson's page
    opens without the comparison's and the forensic views' figures and widgets.  ``made``
    (a dict) gets the view under ``index``."""
    slot = tabs.objects[index]

    def shown(*_):
        if tabs.active == index and not slot.objects:
            view = made[index] = make()
            view.follow_tab(tabs, index)
            slot.objects = [view]

    tabs.param.watch(shown, ["active"])
    shown()


def _arg(args, name):
    """The first value of the query parameter ``name`` as text ('' when absent)."""
    value = (args.get(name) or [b""])[0]
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _link_style_wins(state, args):
    """A link that names the style (``present=``) shows it, also when it opens a lesson or
    presenter mode (which turn presentation style on): the student sees the lecturer's
    page."""
    value = _arg(args, "present")
    if value in ("true", "false"):
        state.display.presentation = value == "true"


def _no_delay_here():
    no_delay(pn.state.curdoc)


def create_app(specs=None, *, demo=True, max_upload_mb=DEFAULT_MAX_UPLOAD_MB, threaded=True,
               lessons=None, lesson=None, dask=False):
    """Build the dashboard page for one session.

    Parameters
    ----------
    specs : list of FileSpec, optional
        Server-side files to load (command-line paths).  The only server-side files the
        page can read.
    demo : bool
        Load the built-in demo data when no ``specs`` are given.
    max_upload_mb : float
        Largest file accepted by the upload widgets.
    threaded : bool
        Run heavy work in a worker thread (when served); False runs it inline.
    lessons : dict of str to Lesson, optional
        The lessons the page offers (default: the built-in ones).
    lesson : str, optional
        The id of a lesson to open at its first step (``llrlab serve --lesson``), unless the
        link names a lesson.
    dask : bool
        Read ``specs`` as sets larger than memory and compute on Dask
        (``llrlab serve --dask``; :mod:`llrlab.dashboard.scaled`).

    Returns
    -------
    panel.template.BootstrapTemplate
    """
    load_extensions()
    without_mathjax()  # (served pages: llrlab typesets no formula with MathJax)
    pn.config.exception_handler = _exception_handler
    args = pn.state.session_args or {}
    if _arg(args, "view") == "speaker":  # the lecturer's second window (speaker.py)
        from llrlab.dashboard.lessons import builtin_lessons
        from llrlab.dashboard.speaker import speaker_page

        return speaker_page(_arg(args, "channel"),
                            builtin_lessons() if lessons is None else lessons)
    pn.config.disconnect_notification = ("Connection to the llrlab server lost: restart "
                                         "`llrlab serve` and reload the page.")
    doc = pn.state.curdoc
    runner = (ThreadRunner(doc) if threaded and doc is not None and doc.session_context
              else SyncRunner())
    state = DashboardState(runner=runner, lessons=lessons, shared=SHARED)
    if isinstance(runner, ThreadRunner):  # a step, a view, a result: one message each
        state.batch = lambda: pn.io.hold(doc)
    if isinstance(runner, ThreadRunner):
        quiet_closed_connections()  # a closed page ends without noise in the server's log
        pn.state.onload(_no_delay_here)  # (no reference to doc: Panel keys onload by it)
        runner.on_failure = lambda exc: _show_failure(state, exc)
        _PAGE_STATES[doc] = weakref.ref(state)

    # served: the sidebar's operating point and the address follow a drag when it pauses
    point_view = (Debounced(state.point, POINT_NAMES, doc=doc, delay=POINT_DELAY)
                  if isinstance(runner, ThreadRunner) else None)

    # the page's first state (a link's choices, a lesson's step) before its views: the
    # main area makes and lays out the views that state shows (a lesson's step: its own)
    if pn.state.location is not None:
        with state.hold():  # a link's choices: one computation
            # the operating point reaches the address only when a drag pauses or ends
            sync_url(pn.state.location, state, URL_PARAMS,
                     mirrors={"point": point_view} if point_view is not None else None)
            if lesson and not state.lesson.lesson and "lesson" not in (
                    pn.state.session_args or {}):
                state.lesson.open(lesson)
                keep_lesson_in_address(pn.state.location, state.lesson, doc)
            _link_style_wins(state, pn.state.session_args or {})
    elif lesson:
        state.lesson.open(lesson)

    # the drag on the NBER and DET plots is computed in the page, on the exact grid
    op_grid = OpGrid(state=state)
    if point_view is not None:  # (a point the in-page drag sends is a pause already)
        op_grid.mirrors.append(point_view)
    # the main area's views, each made when first needed on a served page (MainArea.view:
    # a lesson's link makes the views of its step before the page's first response, the
    # others after it), at once otherwise
    makers = {"nber": lambda: NBERView(state=state, op_grid=op_grid),
              "det": lambda: DETView(state=state, op_grid=op_grid),
              "metrics": lambda: MetricsView(state=state, op_grid=op_grid),
              "calibration": lambda: CalibrationView(state=state),
              "histogram": lambda: HistogramView(state=state)}
    uploads = UploadPanel(state, max_upload_mb=max_upload_mb)

    def make_side():
        demo_button = pn.widgets.Button(name="Load demo data", button_type="success",
                                        sizing_mode="stretch_width")
        demo_button.on_click(lambda _e: load_specs(state, demo_specs(), interactive=True))
        system = pn.widgets.Select.from_param(state.data.param.system, name="Shown system",
                                              sizing_mode="stretch_width")
        card = dict(sizing_mode="stretch_width")
        return pn.Column(
            _status(state),
            pn.Card(_data_summary(state), demo_button, system, title="Data", **card),
            pn.Card(uploads.layout, title="Upload files", collapsed=True, **card),
            pn.Card(calibration_controls(state), title="Calibration / fusion", **card),
            pn.Card(operating_point_controls(state, point_view), title="Operating point",
                    **card),
            pn.Card(condition_controls(state), title="Conditions", collapsed=False, **card),
            pn.Card(uncertainty_controls(state), title="Uncertainty", collapsed=True, **card),
            pn.Card(display_controls(state), title="Display", collapsed=False, **card),
            pn.Card(teaching_controls(state), title="Teaching mode", collapsed=True, **card),
            pn.Card(presenter_controls(state), title="Lessons, presenter, saved views",
                    collapsed=lesson is None, **card),
            pn.Card(ExportView(state=state), title="Export", **card),
            sizing_mode="stretch_width")

    # the "Operating point" tab: its panels laid out for the screen, or a stage (layout.py)
    page = PageControl(name="page_control")
    area = MainArea(state=state, page=page, lazy=isinstance(runner, ThreadRunner),
                    makers=makers)
    # tabs below the alerts: the views above, then the comparison of all systems and the
    # forensic views (each made when its tab is first shown, computed only while it is)
    tabs = pn.Tabs(("Operating point", area),
                   ("Compare systems", pn.Column(sizing_mode="stretch_width")),
                   ("Forensic", pn.Column(sizing_mode="stretch_width")),
                   sizing_mode="stretch_width", name="tabs")
    tab_views = {}  # index -> the view, once made
    _when_first_shown(tabs, 1, lambda: CompareView(state=state), tab_views)
    _when_first_shown(tabs, 2, lambda: ForensicView(state=state), tab_views)
    area.attach_tabs(tabs)
    if isinstance(runner, ThreadRunner):
        body = pn.Column(_alerts(state), tabs, sizing_mode="stretch_width",
                         stylesheets=[SHRINK_CSS])
        # a page that opens with its sidebar folded (a lesson's link) makes the sidebar's
        # ~150 widgets and cards when it sends them (_fill_when_ready), not before its
        # first response
        side, body = _fill_when_ready(make_side if page.collapsed else make_side(), body,
                                      page, area)
    else:
        side = make_side()
        body = pn.Column(_alerts(state), page, tabs, sizing_mode="stretch_width",
                         stylesheets=[SHRINK_CSS])
    # one root per area: Bokeh recomputes the document's models for every root added
    template = pn.template.BootstrapTemplate(
        title="llrlab: detector scores, calibration and DCF",
        sidebar=[side], main=[body], sidebar_width=360, header_background="#2b4a6f",
        # Panel's header spinner turns on and off around every browser event Panel handles
        # (two messages each); the sidebar's progress bar shows the page's own work
        busy_indicator=None)

    if pn.state.location is not None:
        pn.state.location.sync(tabs, {"active": "tab"})
    initial = specs or (demo_specs() if demo else None)
    if initial:
        if isinstance(runner, ThreadRunner):
            # load once the page is shown: its progress bar is then visible, and the
            # first render does not compete with the loading thread (a page made in
            # advance loads at once: page_pool)
            def load():
                load_specs(state, initial, dask=dask and bool(specs))

            if premaking():
                before_browser(doc, load)
            else:
                pn.state.onload(load)
        else:
            load_specs(state, initial, dask=dask and bool(specs))
    if isinstance(runner, ThreadRunner):
        end_with_session(doc, state)  # a closed page frees its memory
        if premaking():
            settled_when(doc, lambda: not state.status.busy and (
                state.status.error or (op_grid.settled
                                       and (not initial or state.results is not None))))
    template.state = state  # for tests and notebooks
    template.uploads = uploads
    template.page_control = page
    template.main_area = area
    template.tabs, template.tab_views = tabs, tab_views
    return template


# `panel serve dashboard/app.py` runs this file as a script (hence the absolute imports above)
if __name__.startswith("bokeh_app"):
    create_app().servable()
