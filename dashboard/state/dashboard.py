"""The dashboard's state: its parts wired together in one place (no Panel import).

:class:`DashboardState` holds one small ``param.Parameterized`` per concern -- ``data``,
``point`` (operating point), ``calibration``, ``conditions``, ``uncertainty``, ``display``,
``teaching``, ``presenter``, ``lesson``, ``compare``, ``export`` and ``status`` -- and derives
from their choices what the views draw:

* ``results`` -- the heavy part (:class:`~llrlab.dashboard.compute.Results`), recomputed only
  when the data or a choice that changes them changes (each part lists those in
  ``result_params``), cached per (data, calibration, conditions) key;
* ``nber`` -- the NBER curves on the current x range (binary searches in ``results``);
* ``op``, ``op_ci``, ``cond_op`` -- the measures at the operating point (``Analysis.at(plo)``
  per dataset), their binomial intervals and the per-condition measures: the only things
  recomputed while the user drags the operating point, set in one update so that each view
  redraws once per move.

Heavy work goes through the session's :class:`~.jobs.Jobs` and its *runner*: the default runs
it inline (tests, benchmarks, notebooks); the app installs one that runs it in a thread and
applies the result on the Bokeh event loop.

The choice parts do not know each other; every link between them is made here, as
``param.depends`` watchers of :class:`DashboardState`, registered before any view or the
comparison subscribes (so that they see the outputs of a change, never a half-made one).
:meth:`DashboardState.snapshot` and :meth:`DashboardState.restore` give and take every user
choice as a plain dict; :meth:`DashboardState.hold` batches changes of several parts into one
computation.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np
import param

from llrlab.core import DataError, LlrlabError

from .. import compute
from .calibration import CalibrationState
from .compare import CompareState
from .conditions import ConditionsState
from .data import DataState
from .display import DisplayState
from .export import ExportState
from .jobs import LRU, Jobs, SyncRunner, with_notes
from .lesson import LessonState
from .operating_point import OperatingPointState
from .presenter import PresenterState, parse_views, views_json
from .status import StatusState
from .teaching import TeachingState
from .uncertainty import UncertaintyState

__all__ = ["CACHE_SIZE", "NBER_POINTS", "PARTS", "DashboardState", "NBERData",
           "check_snapshot"]

#: Number of prior log-odds at which the NBER curves are drawn.
NBER_POINTS = 601
#: How many heavy results a session keeps.
CACHE_SIZE = 6
#: The parts holding user choices, in the order a snapshot restores them.
PARTS = ("data", "teaching", "calibration", "conditions", "point", "uncertainty", "display",
         "presenter", "compare")
#: The parts whose ``result_params`` change the heavy results.
_RESULT_PARTS = ("data", "teaching", "calibration", "conditions")
_SHORT = 60


@dataclass(frozen=True, eq=False)
class NBERData:
    """NBER curves on the current x range.

    ``plo`` has shape (P,); ``sets`` maps a dataset role to ``(act, min)``
    :class:`~llrlab.core.DCFResult` on ``plo``; ``references`` lists ``(label, act)`` of the
    teaching-mode miscalibrations; ``conditions`` maps a role to ``(name, act, min)`` per
    drawn condition.
    """

    plo: np.ndarray
    sets: dict
    references: list = field(default_factory=list)
    conditions: dict = field(default_factory=dict)


def _part(cls, doc):
    return param.ClassSelector(class_=cls, constant=True, precedence=-1, doc=doc)


def _choice_names(part):
    derived = set(getattr(part, "derived", ()))
    return [p for p, obj in part.param.objects("existing").items()
            if p != "name" and p not in derived
            and (obj.precedence is None or obj.precedence >= 0)]


def _short(value):
    text = repr(value)
    return text if len(text) <= _SHORT else text[:_SHORT] + "…"


def check_snapshot(snapshot, where="snapshot"):
    """Check a (partial) snapshot without applying it: its parts and settings exist and each
    value is accepted by a fresh part (the data's system and the comparison's reference
    depend on what is loaded: they are checked when the snapshot is restored).

    Raises
    ------
    llrlab.core.DataError
        One line naming ``where``, the part and the setting.
    """
    if not isinstance(snapshot, dict):
        raise DataError(f"{where}: a dashboard state is a mapping of parts, got "
                        f"{type(snapshot).__name__}")
    fresh = {"teaching": TeachingState, "calibration": CalibrationState,
             "conditions": ConditionsState, "point": OperatingPointState,
             "uncertainty": UncertaintyState, "display": DisplayState,
             "presenter": PresenterState}
    for name, values in snapshot.items():
        if name not in PARTS:
            raise DataError(f"{where}: unknown part {_short(name)} (known: {', '.join(PARTS)})")
        if not isinstance(values, dict):
            raise DataError(f"{where}: part {name!r} takes a mapping of settings")
        if name in fresh:
            part = fresh[name]()
            settable = set(_choice_names(part)) | set(getattr(part, "derived", ()))
            for p, v in values.items():
                if p not in settable:
                    raise DataError(f"{where}: unknown setting {name}.{_short(p)} (known: "
                                    f"{', '.join(sorted(settable))})")
                try:
                    part.param.update(**{p: part.param[p].deserialize(v)})
                except (ValueError, TypeError) as exc:
                    raise DataError(f"{where}, setting {name}.{p}: "
                                    f"{_short(str(exc))}") from None
        else:
            known = {"data": ("system",),
                     "compare": ("role", "reference", "significance_level")}[name]
            for p, v in values.items():
                if p not in known:
                    raise DataError(f"{where}: unknown setting {name}.{_short(p)} (known: "
                                    f"{', '.join(known)})")
                if v is not None and not isinstance(v, (str, int, float)):
                    raise DataError(f"{where}, setting {name}.{p}: a text or a number")


class DashboardState(param.Parameterized):
    """Everything the dashboard shows: its parts and what they derive (see the module
    docstring)."""

    # ---- the parts
    data = _part(DataState, "Loaded systems and the loading jobs.")
    point = _part(OperatingPointState, "The operating point (costs, priors, prior log-odds).")
    calibration = _part(CalibrationState, "The calibration / fusion choice.")
    conditions = _part(ConditionsState, "Condition weighting and selection.")
    uncertainty = _part(UncertaintyState, "Confidence and bootstrap intervals.")
    display = _part(DisplayState, "Display options of the plots.")
    teaching = _part(TeachingState, "Teaching mode's synthetic data.")
    presenter = _part(PresenterState, "Presenter mode, its panels and the saved views.")
    lesson = _part(LessonState, "The open guided lesson and its step.")
    status = _part(StatusState, "Background work, errors and notices.")
    export = _part(ExportState, "Tables and downloads.")
    compare = _part(CompareState, "The comparison of all systems.")

    # ---- outputs (read by the views)
    results = param.Parameter(default=None, precedence=-1)
    nber = param.Parameter(default=None, precedence=-1)
    op = param.Parameter(default=None, precedence=-1)
    op_ci = param.Parameter(default=None, precedence=-1, doc="""
        role -> OperatingPointCI at the operating point (None when intervals are off).""")
    cond_op = param.Parameter(default=None, precedence=-1, doc="""
        role -> list of OperatingPoint, one per drawn condition (when their curves are
        shown).""")
    coming = param.Integer(default=0, precedence=-1, doc="""
        The lesson step being prepared, to be shown once its results are ready (0: none);
        see :meth:`goto_step`.""")

    def __init__(self, runner=None, *, snapshot=None, lessons=None, shared=None, **params):
        #: Results shared with the other sessions of the process (a
        #: :class:`~.shared.SharedResults`), or None: each session computes its own.
        self.shared = shared
        #: ``batch()``: a context in which every change of the page is sent to the browser
        #: as one update (the app sets the document's hold; by default nothing).
        self.batch = contextlib.nullcontext
        self._goto = 0
        self._holding = 0
        self._held = 0
        self._settling = False
        self._deferred = {}  # fn -> None, in the order to call them (when_settled)
        self._style_before = False
        self._was_staged = False
        self._applied = 0
        self._pending = None
        self._gen = 0
        self._cache = LRU(CACHE_SIZE)
        self._raw_cache = {}
        self._last_good = None
        status = StatusState()
        self.jobs = Jobs(runner or SyncRunner(), status)
        super().__init__(
            status=status, data=DataState(jobs=self.jobs), point=OperatingPointState(),
            calibration=CalibrationState(), conditions=ConditionsState(),
            uncertainty=UncertaintyState(jobs=self.jobs), display=DisplayState(),
            teaching=TeachingState(), presenter=PresenterState(),
            lesson=LessonState(library=lessons), **params)
        self._version = self.data.version
        # every failure is shown, the same one again too
        self.point.param.watch(self._point_error, ["error"], onlychanged=False)
        with param.edit_constant(self):  # consumers: they subscribe after the wiring
            self.export = ExportState(state=self)
            self.compare = CompareState(state=self)
        if snapshot:
            with self._quiet():  # computed once, below
                self._set_choices(snapshot)
        self._last_good = self._choices()
        self.refresh()

    @property
    def runner(self):
        """The runner of the session's heavy jobs."""
        return self.jobs.runner

    def close(self):
        """The session has ended (its page is gone): results of running jobs are dropped,
        and every cache is emptied, so that whatever may still refer to this state holds
        little memory.  The state keeps what it shows; it is not to be used any more."""
        self.jobs.close()
        self._pending = None
        self._cache.clear()
        self._raw_cache.clear()
        self.uncertainty.close()
        self.compare.close()

    # ------------------------------------------------------------------ wiring
    # Every link between the parts is one of these ``param.depends`` watchers.  They are
    # registered when the state is made, before any view or the comparison subscribes,
    # so they run first: consumers see the outputs of a change, never a half-made one.

    @param.depends("data.systems", "data.system", watch=True)
    def _data_changed(self):
        data = self.data
        if data.version != self._version:  # new data
            self._version = data.version
            with self._quiet():  # their results follow below
                self.teaching.enabled = self.teaching.enabled and not data.interactive
                self.calibration.fusion = self.calibration.fusion and len(data.systems) > 1
                self.status.error = ""
                self.conditions.reset()
        if not self._holding:
            self.refresh()
        lesson = self.lesson.current()
        if lesson is not None and data.origin is not None:  # its data steps can be shared
            self.prepare(lesson, self.lesson.step)

    @param.depends(*(f"{name}.{p}" for name, cls in (("calibration", CalibrationState),
                                                     ("teaching", TeachingState),
                                                     ("conditions", ConditionsState))
                     for p in cls.result_params), watch=True)
    def _choice_changed(self):
        if not self._holding:
            self.refresh()

    def _point_error(self, event):
        if event.new:
            self.status.error = event.new

    @contextlib.contextmanager
    def _quiet(self):
        """Changes of the parts that must not start a computation (their results are
        already known, or follow)."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1

    @contextlib.contextmanager
    def hold(self):
        """Change several parts at once: the results and the look-ups at the operating point
        follow once, at the end (e.g. a link, a snapshot or a lesson step), also when the
        block raises; then what waited for its end (:meth:`when_settled`) runs, once each."""
        self._holding += 1
        self._held += 1
        try:
            yield
        finally:
            self._holding -= 1
            try:
                if not self._holding:
                    self._catch_up()  # (what it sets off is deferred too)
            finally:
                self._held -= 1
            if not self._held and not self._settling:
                self._run_deferred()

    def _run_deferred(self):
        self._settling = True
        try:
            while self._deferred:
                fn = next(iter(self._deferred))
                del self._deferred[fn]
                fn()
        finally:
            self._settling = False

    def when_settled(self, fn, *, first=False):
        """Call ``fn()`` now, or, inside :meth:`hold`, once at its end, after the results,
        however many times it is asked for meanwhile (``first``: before what is waiting
        already).

        A view's update that several changes of one step call for (a lesson step sets
        the highlights, the panels, then the results: the layout, the metrics table and
        the plots' style were each made two or three times per step) is then made once,
        from the step's final state."""
        if not (self._held or self._settling):
            fn()
        elif fn not in self._deferred:
            if first:
                self._deferred = {fn: None, **self._deferred}
            else:
                self._deferred[fn] = None

    def _catch_up(self):
        applied = self._applied
        self.refresh()
        res = self.results
        if self._applied == applied and res is not None:  # pending or unchanged
            self.param.update(nber=self._nber_data(res), op=self._measures(res),
                              **self._extras(res))

    # ------------------------------------------------------------------ lessons, presenter

    @param.depends("lesson.lesson", "lesson.step", watch=True)
    def _lesson_moved(self):
        """A lesson step sets the dashboard: its snapshot on top of the lesson's starting
        point (the same state however the step is reached)."""
        step = self.lesson.current_step()
        if step is None:
            if self.presenter.highlight:
                self.presenter.highlight = []
            return
        try:
            self.restore(step.snapshot())
        except DataError as exc:
            lesson = self.lesson.current()
            self.status.error = (f"lesson {lesson.source}, step {self.lesson.step}: "
                                 f"{_short(str(exc))}")

    @param.depends("presenter.enabled", "lesson.lesson", watch=True)
    def _stage_toggled(self):
        """A stage (presenter mode, an open lesson) shows the plots in presentation style;
        leaving it restores the style chosen before.  The style can be turned off on the
        stage (the "Presentation style" switch): it stays off until the stage is left."""
        staged = self.staged
        if staged == self._was_staged:
            return
        self._was_staged = staged
        if staged:
            self._style_before = self.display.presentation
            self.display.presentation = True
        else:
            self.display.presentation = self._style_before

    def goto_step(self, number):
        """Show step ``number`` of the open lesson (clamped) complete, in one update.

        When the step's heavy results are known (this session's cache, or the results
        shared by the sessions of the process), the step is set at once, inside
        :attr:`batch`: its text, panels, highlights and plots reach the page together.
        Otherwise the page keeps showing the current step while ``coming`` names the one
        on its way; its results are computed in the background (once for every session
        that asks) and the step is then set the same way.  A newer request replaces one
        still on its way.  Returns False when no lesson is open or nothing changes.
        """
        lesson = self.lesson.current()
        if lesson is None:
            return False
        k = max(1, min(len(lesson), int(number)))
        if k == (self.coming or self.lesson.step):
            return False
        self._goto += 1
        gen, lesson_id = self._goto, self.lesson.lesson

        def show(*_):
            if gen != self._goto or self.lesson.lesson != lesson_id:
                return  # a newer request, or the lesson was closed
            with self.batch(), self.hold():  # (every view of the step updates once)
                self.coming = 0
                self.lesson.step = k

        key = self._step_key(lesson.step(k))
        if key is None or key in self._cache or (
                self._shareable(key) and key in self.shared):
            show()
            return True
        self.coming = k
        self._fetch(key, show)
        return True

    @param.depends("lesson.lesson", watch=True)
    def _lesson_opened(self):
        lesson = self.lesson.current()
        if lesson is not None:
            self.prepare(lesson, self.lesson.step)

    def prepare(self, lesson, start=1):
        """Compute the results of every step of ``lesson`` in the background, once for all
        the sessions of the process (the steps from ``start`` on first, then those before
        it); a step that needs this session's own data is left for when it is shown.
        Returns the number of steps sent to the worker."""
        if self.shared is None:
            return 0
        n, start = len(lesson), max(1, min(len(lesson), int(start)))
        order = [*range(start, n + 1), *range(start - 1, 0, -1)]
        sent = 0
        for k in order:
            key = self._step_key(lesson.step(k))
            if key is not None and self._shareable(key) and key not in self.shared:
                self.shared.submit(key, self._job_for(key, None), urgent=False)
                sent += 1
        return sent

    def _step_key(self, step):
        """The results key a lesson step calls for: this session's choices with the step's
        settings on top, on fresh parts (nothing is set here); None when a setting does not
        apply (setting the step then reports why)."""
        snapshot = step.snapshot()
        parts = {}
        try:
            for name in ("teaching", "calibration", "conditions"):
                mine = getattr(self, name)
                part = parts[name] = type(mine)()
                if name == "conditions":  # what the data offer decides the selection
                    part.param.selected.objects = list(mine.param.selected.objects)
                    part.param.update(available=list(mine.available), others=mine.others)
                part.param.update(**{p: getattr(mine, p) for p in mine.result_params})
                part.param.update(**{p: part.param[p].deserialize(v)
                                     for p, v in snapshot.get(name, {}).items()})
        except (ValueError, TypeError):
            return None
        return self._key(**parts)

    def _fetch(self, key, then):
        """Compute the results of ``key`` into the caches, then call ``then()`` (also when
        the computation fails: setting the step then reports the failure)."""
        shared = self._shareable(key)

        def done(out):
            if not shared:  # (shared results are read from the shared cache, with notes)
                self._store(key, out[0])
            then()

        self._compute("preparing the step", key, done, then)

    def _compute(self, what, key, done, fail):
        """Compute ``(results, notes)`` of ``key`` as job ``what``, then ``done(out)`` or
        ``fail(exc)``: in the results shared by the sessions when ``key`` is shareable
        (once for every session that asks), else in this session's own job."""
        if self._shareable(key):
            future = self.shared.submit(key, self._job_for(key, None), urgent=True)
            self.jobs.follow(what, future, done, fail)
        else:
            self.jobs.run(what, lambda progress: self._job_for(key, progress)(), done, fail)

    @property
    def staged(self):
        """True when the main area shows a stage (presenter mode or an open lesson): the
        chosen panels side by side, filling the screen."""
        return bool(self.presenter.enabled or self.lesson.lesson)

    def navigate(self, delta):
        """The arrow keys and the stage's buttons: ``delta`` steps through the open lesson
        (from the step coming, if one is), else (in presenter mode) through the saved
        views."""
        if self.lesson.lesson:
            self.goto_step((self.coming or self.lesson.step) + int(delta))
        elif self.presenter.views:
            i = self.presenter.step_index(delta if self.presenter.current >= 0 else 0)
            self.show_view(i)

    def save_view(self, name=""):
        """Save the current choices as a named view (returns its name)."""
        return self.presenter.add_view(name, self.snapshot())

    def show_view(self, index):
        """Restore saved view ``index``; an error names the view."""
        views = self.presenter.views
        if not 0 <= index < len(views):
            return
        view = views[index]
        self.presenter.current = index
        # a view sets the plots, not the mode: presenter mode and its style stay as they are
        state = {part: dict(values) for part, values in view["state"].items()}
        state.get("presenter", {}).pop("enabled", None)
        if self.presenter.enabled:
            state.get("display", {}).pop("presentation", None)
        try:
            self.restore(state)
        except DataError as exc:
            self.status.error = f"saved view {_short(view['name'])}: {_short(str(exc))}"

    def views_file(self):
        """The text of the saved-views file (``Export views``)."""
        return views_json(self.presenter.views)

    def import_views(self, data, source="views file"):
        """Append the views of a saved-views file (checked; nothing is applied).

        Raises
        ------
        llrlab.core.DataError
            One line naming the file (and the view) when it is not a valid views file.
        """
        views = parse_views(data, source, check_snapshot)
        self.presenter.views = [*self.presenter.views, *views][:200]
        return len(views)

    # ------------------------------------------------------------------ snapshots

    def snapshot(self):
        """Every user choice, as ``{part: {parameter: value}}`` of plain JSON values.

        The loaded data are not in it (only which system is shown), nor what is derived
        (the prior log-odds and effective prior follow from the costs and ``p_target``).
        """
        return {name: {p: part.param[p].serialize(getattr(part, p))
                       for p in _choice_names(part)}
                for name in PARTS for part in [getattr(self, name)]}

    def restore(self, snapshot):
        """Set the choices of ``snapshot`` (all of them, or a few: ``{"point": {"plo": -2}}``)
        in one go; the results follow once.

        Raises
        ------
        llrlab.core.DataError
            For an unknown part or parameter, or a value a parameter refuses; the choices
            are then left as they were.
        """
        before = self.snapshot()
        with self.hold():
            try:
                self._set_choices(snapshot)
            except DataError:
                self._set_choices(before)
                raise

    def _set_choices(self, snapshot):
        if not isinstance(snapshot, dict):
            raise DataError(f"a dashboard snapshot is a mapping of parts, got "
                            f"{type(snapshot).__name__}")
        unknown = [k for k in snapshot if k not in PARTS]
        if unknown:
            raise DataError(f"unknown part of the dashboard: {_short(unknown[0])} (known: "
                            f"{', '.join(PARTS)})")
        for name in PARTS:  # in this order: e.g. the data's system before its calibration
            values = snapshot.get(name)
            if not values:
                continue
            part = getattr(self, name)
            if not isinstance(values, dict):
                raise DataError(f"dashboard part {name!r} takes a mapping of parameters, got "
                                f"{type(values).__name__}")
            settable = set(_choice_names(part)) | set(getattr(part, "derived", ()))
            bad = [p for p in values if p not in settable]
            if bad:
                raise DataError(f"unknown setting of {name!r}: {_short(bad[0])} (known: "
                                f"{', '.join(sorted(settable))})")
            try:
                part.param.update(**{p: part.param[p].deserialize(v)
                                     for p, v in values.items()})
            except (ValueError, TypeError) as exc:
                raise DataError(f"dashboard setting {name!r}: {_short(str(exc))}") from None

    # ------------------------------------------------------------------ operating point

    def set_threshold_score(self, score):
        """Move the operating point so that the Bayes threshold falls at ``score``
        (a drag on the histogram, in its score domain)."""
        res = self.results
        if res is not None and score is not None and np.isfinite(score):
            self.point.set_plo(res.plo_of_score(score))

    def pick_det(self, x, y):
        """Move the operating point to the min-DCF point nearest to ``(x, y)`` (probit
        coordinates of the DET plot), on the eval curve (dev when there is no eval)."""
        if self.results is not None and x is not None and y is not None:
            self.point.set_plo(self.results.plo_of_det_point(x, y))

    @param.depends("point.plo", watch=True)
    def _op_moved(self):
        if not self._holding:
            self._update_op()

    def _update_op(self):
        res = self.results
        if res is None:
            self.param.update(op={}, op_ci=None, cond_op=None)
            return
        self.param.update(op=self._measures(res), **self._extras(res))

    def _measures(self, res):
        plo = self.point.plo
        return {role: d.llr.at(plo) for role, d in res.datasets.items()}

    def _extras(self, res):
        """Look-ups that follow the operating point besides the measures: binomial
        intervals (from the counts at the Bayes threshold) and the per-condition measures;
        a few binary searches each."""
        plo = self.point.plo
        op_ci = None
        try:
            op_ci = self.uncertainty.intervals(res, plo)
        except LlrlabError as exc:  # never break a drag: no intervals, one message
            self.status.error = f"no confidence intervals here: {exc}"
        return {"op_ci": op_ci, "cond_op": self.conditions.measures(res, plo)}

    @param.depends("uncertainty.ci_method", "uncertainty.ci_level", "conditions.show_curves",
                   watch=True)
    def _extras_changed(self):
        if self.results is not None and not self._holding:
            self.param.update(**self._extras(self.results))

    # ------------------------------------------------------------------ NBER range

    def _nber_data(self, res):
        lo, hi = self.display.nber_range
        grid = np.linspace(lo, hi, NBER_POINTS)
        sets = {role: d.llr.curves(grid) for role, d in res.datasets.items()}
        refs = [(label, a.curves(grid)[0]) for label, a in res.references]
        conds = {role: [(c.name, *c.llr.curves(grid)) for c in d.conditions]
                 for role, d in res.datasets.items() if d.conditions}
        return NBERData(grid, sets, refs, conds)

    @param.depends("display.nber_range", watch=True)
    def _range_changed(self):
        if self.results is not None and not self._holding:
            self.nber = self._nber_data(self.results)

    # ------------------------------------------------------------------ heavy results

    def _choices(self):
        """The choices that decide the heavy results (restored when a computation fails)."""
        return {name: {p: getattr(part, p) for p in part.result_params}
                for name in _RESULT_PARTS for part in [getattr(self, name)]}

    @property
    def results_key(self):
        """The cache key of the results the current choices call for."""
        return self._key()

    @property
    def computing(self):
        """True while a heavy job for the newest choices is running."""
        return self._pending is not None

    @property
    def raw_cache(self):
        """Raw analyses of the loaded trials (by Trials identity), shared with the comparison
        so that no set is sorted twice."""
        return self._raw_cache

    def _fused(self):
        return self.calibration.fusion and len(self.data.systems) > 1

    def _key(self, teaching=None, calibration=None, conditions=None):
        """The results key of the current choices (or of the given parts' choices).

        Teaching mode's results follow from their settings alone; data read from the
        server's own files are named by ``data.origin`` (the same in every session):
        such keys are shared between sessions (:meth:`_shareable`).  Other data are named
        by this session's ``data.version``."""
        cal = calibration or self.calibration
        teaching = teaching or self.teaching
        if teaching.enabled:
            return ("teaching", teaching.spec(), cal.method, cal.prior_key())
        cond = (conditions or self.conditions).spec()
        data = ("files", self.data.origin) if self.data.origin is not None \
            else self.data.version
        if cal.fusion and len(self.data.systems) > 1:
            return ("fusion", data, round(cal.train_prior, 12), cond)
        return ("data", data, self.data.system, cal.method, cal.prior_key(), cond)

    def _shareable(self, key):
        """True when the results of ``key`` are the same in every session (see
        :meth:`_key`) and a shared cache is installed."""
        if self.shared is None:
            return False
        return key[0] == "teaching" or (isinstance(key[1], tuple) and key[1][0] == "files")

    def _job_for(self, key, progress):
        """``fn()`` computing ``(results, notes)`` for ``key`` from the current data (the
        key's own settings for teaching mode; see :meth:`_key`)."""
        kind = key[0]
        teaching = key[1] if kind == "teaching" else None
        cal = self.calibration
        # ("teaching", spec, method, prior), ("data", data, system, method, prior, cond),
        # ("fusion", data, prior, cond); a prior of None: uncalibrated
        method, prior = {"teaching": key[2:4], "data": key[3:5],
                         "fusion": (cal.method, key[2])}[kind]
        prior = cal.train_prior if prior is None else prior
        kwargs = dict(systems=dict(self.data.systems),
                      system=key[2] if kind == "data" else self.data.system,
                      fusion=kind == "fusion", calibration=method, train_prior=prior,
                      teaching=teaching, conditions=None if teaching else key[-1],
                      raw_cache=self._raw_cache)

        def fn():
            return with_notes(compute.compute_results, key, progress=progress, **kwargs)

        return fn

    def refresh(self):
        """Bring ``results`` up to date with the choices (cache hit, or a heavy job)."""
        key = self._key()
        if key == self._pending:  # the newest job already computes this
            return
        hit = self._cache.get(key)
        notes = None
        if hit is None and self._shareable(key):
            shared = self.shared.get(key)
            if shared is not None:
                hit, notes = shared
                self._store(key, hit)
        self._gen += 1
        gen = self._gen
        self._pending = None
        if hit is not None:
            self._last_good = self._choices()
            self._apply(hit)
            if notes is not None:
                self.status.notice = " ".join([*hit.notes, *notes])
            return
        choices = self._choices()

        def done(out):
            res, notes = out
            self._store(key, res)
            if gen != self._gen:
                return
            self._pending = None
            self._last_good = choices
            self._apply(res)
            self.status.notice = " ".join([*res.notes, *notes])

        self._pending = key
        self._compute("computing", key, done, lambda exc: self._fail(gen, exc))

    def _store(self, key, res):
        self._cache.put(key, res)
        live = {id(t) for t in self.data.trials()}
        for k in [k for k in list(self._raw_cache)
                  if (k[0] if isinstance(k, tuple) else k) not in live]:
            self._raw_cache.pop(k, None)

    def _apply(self, res):
        self._applied += 1
        with self._quiet():  # the results already match: no new computation
            self.conditions.offer(res.condition_menu)
        if self._last_good is not None:  # what was offered is part of the good choices
            cond = self.conditions
            self._last_good = {**self._last_good,
                               "conditions": {p: getattr(cond, p) for p in cond.result_params}}
        self.param.update(results=res, nber=self._nber_data(res), op=self._measures(res),
                          **self._extras(res))
        self.uncertainty.show_for(res)

    def _fail(self, gen, exc):
        stale = gen != self._gen  # a newer request replaced it: logged, not shown
        self.jobs.report(exc, "dashboard computation", show=not stale)
        if stale:
            return
        self._pending = None
        good = self._last_good
        if good is not None and good != self._choices():
            with self._quiet():
                for name, values in good.items():
                    getattr(self, name).param.update(**values)
            self.refresh()
