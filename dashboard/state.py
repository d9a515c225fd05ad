"""The dashboard's state: one ``param.Parameterized``, no Panel import.

:class:`DashboardState` holds what the user chose (data, calibration, operating point, display
options, teaching-mode parameters) and what the views draw:

* ``results`` -- the heavy part (:class:`~llrlab.dashboard.compute.Results`), recomputed only
  when the data or the calibration change, and cached per (data, calibration) key;
* ``nber`` -- the NBER curves on the current x range (binary searches in ``results``);
* ``op`` -- the measures at the operating point, ``Analysis.at(plo)`` per dataset: the only
  thing recomputed while the user drags the operating point.

The operating point is linked both ways: ``(p_target, c_miss, c_fa)`` determine the effective
prior and the prior log-odds ``plo``; setting ``effective_prior`` or ``plo`` (a drag on a
plot) keeps the costs and moves ``p_target``.  Heavy work goes through a *runner*: the default
runs it inline (tests, benchmarks); the app installs one that runs it in a thread and applies
the result on the Bokeh event loop.
"""

from __future__ import annotations

import contextlib
import csv
import io
import logging
import math
import os
import shutil
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import param
from scipy.special import expit, logit

from llrlab.core import LlrlabError, LlrlabWarning, Trials, plo_from_costs

from . import compute
from .compute import SystemData, TeachingSpec

__all__ = ["PLO_LIMIT", "DashboardState", "NBERData", "SyncRunner", "user_message"]

log = logging.getLogger(__name__)

#: The operating point is kept within +-PLO_LIMIT prior log-odds.
PLO_LIMIT = 20.0
#: Number of prior log-odds at which the NBER curves are drawn.
NBER_POINTS = 601
#: How many heavy results a session keeps.
CACHE_SIZE = 6

_TEACHING_PARAMS = ("t_mu_tar", "t_sigma_tar", "t_mu_non", "t_sigma_non", "t_n_tar", "t_n_non",
                    "t_seed", "t_scale", "t_shift")
_CHOICE_PARAMS = ("system", "fusion", "calibration", "train_prior", "teaching",
                  *_TEACHING_PARAMS, "weighting", "custom_weights", "conditions_selected")
#: The UI's condition weightings -> ``ConditionSpec.weights``.
WEIGHTINGS = {"pooled trials": "pooled", "equal per condition": "equal", "custom": "custom"}
CI_CHOICES = ("off", "normal", "wilson", "exact")


def user_message(exc: BaseException) -> str:
    """One sentence for the page: the LlrlabError message, never a traceback."""
    if isinstance(exc, LlrlabError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return "not enough memory for this data set"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


class SyncRunner:
    """Runs heavy jobs inline (tests, benchmarks, notebooks)."""

    def run(self, job, on_done, on_error, on_progress):
        try:
            result = job(on_progress)
        except Exception as exc:  # reported in the page, see DashboardState._fail
            on_error(exc)
        else:
            on_done(result)


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


class DashboardState(param.Parameterized):
    """Everything the dashboard shows, as parameters (see the module docstring)."""

    # ---- data and calibration
    systems = param.Dict(default={}, precedence=-1, doc="""
        Loaded systems: name -> SystemData(dev, eval).""")
    system = param.Selector(default=None, objects=[], allow_None=True, doc="""
        The system shown when fusion is off.""")
    fusion = param.Boolean(default=False, label="Fuse all systems", doc="""
        Linear logistic-regression fusion of all loaded systems, trained on dev.""")
    calibration = param.Selector(default="none", objects=["none", "affine", "pav"], doc="""
        Calibration trained on dev and applied to dev and eval.""")
    train_prior = param.Number(default=0.5, bounds=(0.001, 0.999), step=0.01,
                               label="Training prior", doc="""
        Prior at which the affine calibration / fusion minimizes cross-entropy.""")

    # ---- operating point (linked both ways)
    p_target = param.Number(default=0.01, bounds=(0.0, 1.0),
                            inclusive_bounds=(False, False), label="P(target)")
    c_miss = param.Number(default=1.0, bounds=(0.0, None), inclusive_bounds=(False, True),
                          label="C(miss)")
    c_fa = param.Number(default=1.0, bounds=(0.0, None), inclusive_bounds=(False, True),
                        label="C(false alarm)")
    effective_prior = param.Number(default=0.01, bounds=(0.0, 1.0),
                                   inclusive_bounds=(False, False), label="Effective prior")
    plo = param.Number(default=float(logit(0.01)), bounds=(-PLO_LIMIT, PLO_LIMIT), step=0.01,
                       label="Prior log-odds")

    # ---- display
    nber_range = param.Range(default=(-7.0, 3.0), bounds=(-PLO_LIMIT, PLO_LIMIT),
                             label="NBER x range")
    det_kind = param.Selector(default="both", objects=["steppy", "rocch", "both"],
                              label="DET curves")
    show_contributions = param.Boolean(default=False, label="Miss / FA contributions")
    show_dev = param.Boolean(default=True, label="Show dev")
    presentation = param.Boolean(default=False, label="Presentation style")
    svg = param.Boolean(default=False, label="SVG output")
    llr_unit = param.Selector(default="ln", objects=["ln", "log10", "bits"], label="LLR unit",
                              doc="""
        Unit of the LLR axes (Tippett plot, calibration map): natural log, log10 (the forensic
        convention) or bits; llrlab.core.llr_to_unit.""")
    reliability = param.Selector(default="pav", objects=["pav", "bins"],
                                 label="Reliability diagram", doc="""
        The empirical posterior of the reliability diagram: PAV-recalibrated, or per bin.""")
    reliability_bins = param.Integer(default=10, bounds=(2, 50), label="Reliability bins")

    # ---- teaching mode (seed 000 figure 1)
    teaching = param.Boolean(default=False, label="Teaching mode")
    t_mu_tar = param.Number(default=3.0, bounds=(-10.0, 10.0), step=0.1, label="target mean")
    t_sigma_tar = param.Number(default=2.0, bounds=(0.1, 10.0), step=0.1,
                               label="target sigma")
    t_mu_non = param.Number(default=0.0, bounds=(-10.0, 10.0), step=0.1,
                            label="non-target mean")
    t_sigma_non = param.Number(default=1.0, bounds=(0.1, 10.0), step=0.1,
                               label="non-target sigma")
    t_n_tar = param.Integer(default=10_000, bounds=(30, 1_000_000), step=1000,
                            label="targets")
    t_n_non = param.Integer(default=100_000, bounds=(30, 3_000_000), step=10_000,
                            label="non-targets")
    t_seed = param.Integer(default=0, bounds=(0, 2**31 - 1), label="seed")
    t_scale = param.Number(default=1.0, bounds=(0.05, 5.0), step=0.05,
                           label="LLR scale (miscalibration)")
    t_shift = param.Number(default=0.0, bounds=(-8.0, 8.0), step=0.1,
                           label="LLR shift (miscalibration)")
    t_references = param.Boolean(default=True, label="Reference miscalibrations")

    # ---- conditions (seed 001 condition-weighted pooling)
    weighting = param.Selector(default="pooled trials", objects=list(WEIGHTINGS),
                               label="Condition weighting", doc="""
        How the conditions of the trials are pooled: every trial once, every condition
        equally, or custom weights (``custom_weights``).""")
    custom_weights = param.String(default="", label="Custom weights", doc="""
        Condition weights as NAME=W, e.g. 'tel=2, mic=1' (normalized to sum to 1).""")
    conditions_selected = param.ListSelector(default=[], objects=[],
                                             label="Pooled conditions", doc="""
        The conditions pooled (all of ``conditions_available`` when new data arrive).""")
    show_conditions = param.Boolean(default=False, label="Per-condition curves")

    # ---- uncertainty
    ci_method = param.Selector(default="off", objects=list(CI_CHOICES),
                               label="Confidence intervals", doc="""
        Binomial intervals of Pmiss, Pfa and act DCF at the operating point (normal per
        seed 002, Wilson, or Clopper-Pearson 'exact').""")
    ci_level = param.Number(default=0.95, bounds=(0.5, 0.999), step=0.01,
                            label="Confidence level")
    boot_by = param.Selector(default="trial", objects=["trial", "speaker"],
                             label="Bootstrap by")
    boot_n = param.Integer(default=200, bounds=(20, 5000), step=50,
                           label="Bootstrap replicates")

    # ---- outputs (read by the views)
    results = param.Parameter(default=None, precedence=-1)
    nber = param.Parameter(default=None, precedence=-1)
    op = param.Parameter(default=None, precedence=-1)
    error = param.String(default="", precedence=-1)
    notice = param.String(default="", precedence=-1)
    busy = param.Boolean(default=False, precedence=-1)
    progress = param.Number(default=None, allow_None=True, bounds=(0.0, 1.0), precedence=-1)
    status = param.String(default="", precedence=-1)
    conditions_available = param.List(default=[], precedence=-1, doc="""
        Conditions of the shown data (empty: the trials carry none).""")
    op_ci = param.Parameter(default=None, precedence=-1, doc="""
        role -> OperatingPointCI at the operating point (None when ``ci_method`` is off).""")
    cond_op = param.Parameter(default=None, precedence=-1, doc="""
        role -> list of OperatingPoint, one per drawn condition (when ``show_conditions``).""")
    boot = param.Parameter(default=None, precedence=-1, doc="""
        role -> BootstrapCI of the shown results and bootstrap settings, or None.""")

    def __init__(self, runner=None, **params):
        self._linking = False
        self._active = 0
        self._pending = None
        self._gen = 0
        self._data_version = 0
        self._cache = OrderedDict()
        self._raw_cache = {}
        self._boot_cache = OrderedDict()
        self._last_good = None
        self.runner = runner or SyncRunner()
        super().__init__(**params)
        self._set_op(float(plo_from_costs(self.p_target, self.c_miss, self.c_fa)),
                     keep_costs=False)
        self._last_good = self._choices()
        self.refresh()

    # ------------------------------------------------------------------ operating point

    @contextlib.contextmanager
    def _guard(self):
        old, self._linking = self._linking, True
        try:
            yield
        finally:
            self._linking = old

    def _set_op(self, plo, *, keep_costs=True):
        """Move the operating point to ``plo``; keep the costs and adjust ``p_target``."""
        plo = float(np.clip(plo, -PLO_LIMIT, PLO_LIMIT))
        updates = {"plo": plo, "effective_prior": float(expit(plo))}
        if keep_costs:
            p = float(expit(plo - math.log(self.c_miss / self.c_fa)))
            updates["p_target"] = min(max(p, 1e-15), 1.0 - 1e-15)
        with self._guard():
            self.param.update(**updates)
        self._update_op()

    @param.depends("p_target", "c_miss", "c_fa", watch=True)
    def _costs_changed(self):
        if self._linking:
            return
        try:
            plo = float(plo_from_costs(self.p_target, self.c_miss, self.c_fa))
        except LlrlabError as exc:
            self.error = str(exc)
            return
        self._set_op(plo, keep_costs=False)

    @param.depends("effective_prior", watch=True)
    def _prior_changed(self):
        if not self._linking:
            self._set_op(float(logit(self.effective_prior)))

    @param.depends("plo", watch=True)
    def _plo_changed(self):
        if not self._linking:
            self._set_op(self.plo)

    def set_plo(self, plo):
        """Move the operating point (a drag on the NBER plot)."""
        if plo is not None and np.isfinite(plo):
            self._set_op(float(plo))

    def set_threshold_score(self, score):
        """Move the operating point so that the Bayes threshold falls at ``score``
        (a drag on the histogram, in its score domain)."""
        res = self.results
        if res is None or score is None or not np.isfinite(score):
            return
        self._set_op(res.plo_of_score(score))

    def pick_det(self, x, y):
        """Move the operating point to the min-DCF point nearest to ``(x, y)`` (probit
        coordinates of the DET plot), on the eval curve (dev when there is no eval)."""
        res = self.results
        d = None if res is None else res.primary
        if d is None or d.pick_x.size == 0 or x is None or y is None:
            return
        i = int(np.argmin((d.pick_x - x) ** 2 + (d.pick_y - y) ** 2))
        self._set_op(float(d.pick_plo[i]))

    def _update_op(self):
        res = self.results
        if res is None:
            self.param.update(op={}, op_ci=None, cond_op=None)
            return
        op = {role: d.llr.at(self.plo) for role, d in res.datasets.items()}
        self.param.update(op=op, **self._op_extras(res))

    def _op_extras(self, res):
        """Look-ups that follow the operating point: binomial intervals (from the counts at
        the Bayes threshold) and the per-condition measures; a few binary searches each."""
        plo = self.plo
        op_ci = None
        if self.ci_method != "off":
            try:
                op_ci = {role: compute.op_interval(d.llr, plo, method=self.ci_method,
                                                   confidence=self.ci_level)
                         for role, d in res.datasets.items()}
            except LlrlabError as exc:  # never break a drag: no intervals, one message
                self.error = f"no confidence intervals here: {exc}"
        cond_op = None
        if self.show_conditions:
            cond_op = {role: [c.llr.at(plo) for c in d.conditions]
                       for role, d in res.datasets.items() if d.conditions}
        return {"op_ci": op_ci, "cond_op": cond_op}

    @param.depends("ci_method", "ci_level", "show_conditions", watch=True)
    def _extras_changed(self):
        if self.results is not None:
            self.param.update(**self._op_extras(self.results))

    # ------------------------------------------------------------------ NBER range

    def _nber_data(self, res):
        lo, hi = self.nber_range
        grid = np.linspace(lo, hi, NBER_POINTS)
        sets = {role: d.llr.curves(grid) for role, d in res.datasets.items()}
        refs = [(label, a.curves(grid)[0]) for label, a in res.references]
        conds = {role: [(c.name, *c.llr.curves(grid)) for c in d.conditions]
                 for role, d in res.datasets.items() if d.conditions}
        return NBERData(grid, sets, refs, conds)

    @param.depends("nber_range", watch=True)
    def _range_changed(self):
        if self.results is not None:
            self.nber = self._nber_data(self.results)

    # ------------------------------------------------------------------ heavy results

    def _choices(self):
        return {p: getattr(self, p) for p in _CHOICE_PARAMS}

    def teaching_spec(self) -> TeachingSpec:
        return TeachingSpec(self.t_mu_tar, self.t_sigma_tar, self.t_mu_non, self.t_sigma_non,
                            self.t_n_tar, self.t_n_non, self.t_seed, self.t_scale,
                            self.t_shift)

    def condition_spec(self):
        """How the conditions are pooled (``compute.ConditionSpec``); the selection is None
        when it holds every available condition, and the custom text only counts for
        custom weights (so neither changes the cache key needlessly)."""
        weights = WEIGHTINGS[self.weighting]
        sel = self.conditions_selected or []
        avail = set(self.conditions_available)
        select = None if not avail or set(sel) >= avail else tuple(sorted(sel))
        text = " ".join(self.custom_weights.split()) if weights == "custom" else ""
        return compute.ConditionSpec(weights, text, select)

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
        """Raw analyses of the loaded trials (by Trials identity), shared with other views
        of this session so that no set is sorted twice."""
        return self._raw_cache

    def _key(self):
        prior = None if self.calibration == "none" else round(self.train_prior, 12)
        if self.teaching:
            return ("teaching", self.teaching_spec(), self.calibration, prior)
        cond = self.condition_spec()
        if self.fusion and len(self.systems) > 1:
            return ("fusion", self._data_version, round(self.train_prior, 12), cond)
        return ("data", self._data_version, self.system, self.calibration, prior, cond)

    @param.depends(*_CHOICE_PARAMS, watch=True)
    def _choice_changed(self):
        if not self._linking:
            self.refresh()

    def refresh(self):
        """Bring ``results`` up to date with the choices (cache hit, or a heavy job)."""
        key = self._key()
        if key == self._pending:  # the newest job already computes this
            return
        hit = self._cache.get(key)
        self._gen += 1
        gen = self._gen
        self._pending = None
        if hit is not None:
            self._cache.move_to_end(key)
            self._last_good = self._choices()
            self._apply(hit)
            return
        kwargs = dict(systems=dict(self.systems), system=self.system,
                      fusion=self.fusion and len(self.systems) > 1,
                      calibration=self.calibration, train_prior=self.train_prior,
                      teaching=self.teaching_spec() if self.teaching else None,
                      conditions=None if self.teaching else self.condition_spec(),
                      raw_cache=self._raw_cache)
        choices = self._choices()

        def job(progress):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", LlrlabWarning)
                res = compute.compute_results(key, progress=progress, **kwargs)
            notes = [str(w.message) for w in caught if issubclass(w.category, LlrlabWarning)]
            return res, notes

        def done(out):
            res, notes = out
            self._end_busy()
            self._store(key, res)
            if gen != self._gen:
                return
            self._pending = None
            self._last_good = choices
            self._apply(res)
            self.notice = " ".join([*res.notes, *notes])

        self._pending = key
        self._begin_busy("computing")
        self.runner.run(job, done, lambda exc: self._fail(gen, exc), self._on_progress)

    def _store(self, key, res):
        self._cache[key] = res
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        live = {id(t) for s in self.systems.values() for t in (s.dev, s.eval) if t is not None}
        for k in [k for k in list(self._raw_cache)
                  if (k[0] if isinstance(k, tuple) else k) not in live]:
            self._raw_cache.pop(k, None)

    def _apply(self, res):
        op = {role: d.llr.at(self.plo) for role, d in res.datasets.items()}
        self._sync_conditions(res)
        self.param.update(results=res, nber=self._nber_data(res), op=op,
                          boot=self._boot_cache.get(self._boot_key(res)),
                          **self._op_extras(res))

    def _reset_conditions(self):
        """New data: the conditions are known again when their results arrive."""
        self.param.update(conditions_selected=[], conditions_available=[])
        self.param.conditions_selected.objects = []

    def _sync_conditions(self, res):
        """Offer the conditions of the shown data (new conditions are all selected)."""
        names = list(res.all_conditions)
        if names == list(self.conditions_available):
            return
        keep = [c for c in self.conditions_selected or [] if c in names]
        with self._guard():  # the results already match: no new computation
            self.param.conditions_selected.objects = names
            self.param.update(conditions_available=names,
                              conditions_selected=keep if keep else list(names))
            if self.custom_weights.strip() == "" and names:
                self.custom_weights = ", ".join(f"{c}=1" for c in names)

    def _fail(self, gen, exc):
        if not isinstance(exc, LlrlabError):
            log.error("dashboard computation failed", exc_info=exc)
        self._end_busy()
        if gen != self._gen:
            return
        self._pending = None
        self.error = user_message(exc)
        good = self._last_good
        if good is not None and good != self._choices():
            with self._guard():
                self.param.update(**good)
            self.refresh()

    def _begin_busy(self, status):
        self._active += 1
        self.param.update(busy=True, status=status, progress=None)

    def _end_busy(self):
        self._active = max(self._active - 1, 0)
        if self._active == 0:
            self.param.update(busy=False, status="", progress=None)

    def _on_progress(self, fraction, message=""):
        self.param.update(progress=float(min(max(fraction, 0.0), 1.0)),
                          status=str(message))

    # ------------------------------------------------------------------ loading data

    def set_trials(self, system, role, trials: Trials):
        """Add (or replace) the dev or eval trials of a system."""
        if role not in ("dev", "eval"):
            raise ValueError(f"role must be 'dev' or 'eval', got {role!r}")
        system = (system or "system").strip() or "system"
        systems = dict(self.systems)
        systems[system] = systems.get(system, SystemData()).replace(role, trials)
        self._set_systems(systems, show=system)

    def set_systems(self, systems, *, show=None):
        """Replace all loaded data: ``{name: SystemData}``."""
        self._set_systems(dict(systems), show=show)

    def _set_systems(self, systems, show=None, leave_teaching=True):
        self._data_version += 1
        names = list(systems)
        current = show if show in systems else (self.system if self.system in systems
                                                 else (names[0] if names else None))
        with self._guard():  # widgets following `objects` must not start a computation
            self.param.system.objects = names
            self.param.update(systems=systems, system=current,
                              teaching=self.teaching and not leave_teaching,
                              fusion=self.fusion and len(systems) > 1, error="")
            self._reset_conditions()
        self.refresh()

    def load_files(self, items, *, display=None, replace=False, loader=None, cleanup=None,
                   interactive=True):
        """Load files (in the background when the runner is threaded) and add them.

        Parameters
        ----------
        items : list of (system, role, scores_path, key_path or None)
        display : dict, optional
            Maps a path to the name shown in messages (uploads kept in temporary files).
        replace : bool
            Replace all loaded data instead of adding to it.
        loader : callable, optional
            ``loader(scores_path, key_path, progress) -> Trials``; default
            ``llrlab.core.io.load_trials``.
        cleanup : str, optional
            A temporary directory removed once the files are read.
        interactive : bool
            A user's request: leave teaching mode and show the loaded system.  False (data
            loaded at start-up) keeps the choices, e.g. those restored from the URL.

        A file that cannot be read sets ``error`` (its message names the file) and leaves
        the loaded data as they were.
        """
        if loader is None:
            from llrlab.core.io import load_trials

            def loader(scores, key, progress):
                return load_trials(scores, key, progress=progress)

        display = {str(k): v for k, v in (display or {}).items()}
        items = list(items)

        def shown(text):
            for path, name in display.items():
                text = text.replace(path, name)
            return text

        def job(progress):
            try:
                out = []
                for i, (system, role, scores, key) in enumerate(items):
                    name = display.get(str(scores), os.path.basename(str(scores)))

                    def prog(fraction, message="", i=i, name=name):
                        progress((i + min(max(fraction, 0.0), 1.0)) / len(items),
                                 f"loading {name}")

                    t = loader(scores, key, prog)
                    if str(scores) in display:
                        t = _with_source(t, display[str(scores)])
                    out.append((system, role, t.require_both_classes()))
                return out
            finally:
                if cleanup:
                    shutil.rmtree(cleanup, ignore_errors=True)

        def done(out):
            self._end_busy()
            systems = {} if replace else dict(self.systems)
            for system, role, t in out:
                systems[system] = systems.get(system, SystemData()).replace(role, t)
            self._set_systems(systems, show=out[-1][0] if out and interactive else None,
                              leave_teaching=interactive)

        def fail(exc):
            if not isinstance(exc, LlrlabError):
                log.error("loading failed", exc_info=exc)
            self._end_busy()
            self.error = shown(user_message(exc))

        self._begin_busy("loading")
        self.runner.run(job, done, fail, self._on_progress)

    def clear_error(self):
        self.error = ""

    # ------------------------------------------------------------------ bootstrap

    def _boot_key(self, res):
        return (res.key, self.boot_by, int(self.boot_n), round(float(self.ci_level), 12))

    @param.depends("boot_by", "boot_n", "ci_level", watch=True)
    def _boot_settings_changed(self):
        if self.results is not None:
            self.boot = self._boot_cache.get(self._boot_key(self.results))

    def boot_current(self, role):
        """``(BootstrapCI or None, fresh)``: the bootstrap of ``role`` for the shown results
        and settings; ``fresh`` is False when its DCFs are for another operating point."""
        b = (self.boot or {}).get(role)
        return b, b is not None and b.plo == self.plo

    def run_bootstrap(self):
        """Bootstrap intervals of Cllr, minDCF (at the operating point) and EER of every
        shown dataset, in the background (cached per results and settings)."""
        res = self.results
        if res is None or not res.datasets:
            self.error = "load data before asking for bootstrap intervals"
            return
        key = self._boot_key(res)
        hit = self._boot_cache.get(key)
        if hit is not None and all(b.plo == self.plo for b in hit.values()):
            self.boot = hit
            return
        plo, n, level, by = self.plo, int(self.boot_n), float(self.ci_level), self.boot_by
        datasets = dict(res.datasets)

        def job(progress):
            out = {}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", LlrlabWarning)
                for i, (role, d) in enumerate(datasets.items()):
                    progress(i / len(datasets), f"bootstrap of {d.label} ({n} replicates, "
                                                f"by {by})")
                    out[role] = compute.bootstrap(d, plo, n_boot=n, confidence=level, by=by)
            notes = [str(w.message) for w in caught if issubclass(w.category, LlrlabWarning)]
            return out, notes

        def done(result):
            out, notes = result
            self._end_busy()
            self._boot_cache[key] = out
            self._boot_cache.move_to_end(key)
            while len(self._boot_cache) > CACHE_SIZE:
                self._boot_cache.popitem(last=False)
            if self.results is not None and self._boot_key(self.results) == key:
                self.boot = out
            if notes:
                self.notice = " ".join(notes)

        def fail(exc):
            if not isinstance(exc, LlrlabError):
                log.error("bootstrap failed", exc_info=exc)
            self._end_busy()
            self.error = user_message(exc)

        self._begin_busy("bootstrap")
        self.runner.run(job, done, fail, self._on_progress)

    # ------------------------------------------------------------------ tables and exports

    def metrics_rows(self):
        """One dict per dataset with the headline measures at the operating point."""
        res, op = self.results, self.op or {}
        if res is None:
            return []
        rows = []
        for role, d in res.datasets.items():
            a, o = d.llr, op.get(role)
            if o is None:
                continue
            rows.append({
                "role": role,
                "dataset": d.label,
                "n_tar": a.n_tar,
                "n_non": a.n_non,
                "cllr": float(a.cllr),
                "min_cllr": float(a.min_cllr),
                "eer": float(a.eer),
                "act_dcf": o.act_dcf,
                "min_dcf": o.min_dcf,
                "misses": int(o.act.misses),
                "false_alarms": int(o.act.false_alarms),
                "dr30_safe": bool(o.dr30_safe),
                "p_miss": float(o.act.p_miss),
                "p_fa": float(o.act.p_fa),
            })
            if res.condition_spec is not None:
                rows[-1]["weighting"] = self.weighting_text()
            ci = (self.op_ci or {}).get(role)
            if ci is not None:
                rows[-1].update({
                    "ci": f"{ci.method} {ci.confidence:g}",
                    "p_miss_lo": float(ci.p_miss.lower), "p_miss_hi": float(ci.p_miss.upper),
                    "p_fa_lo": float(ci.p_fa.lower), "p_fa_hi": float(ci.p_fa.upper),
                    "act_dcf_lo": float(ci.dcf.lower), "act_dcf_hi": float(ci.dcf.upper)})
            b, fresh = self.boot_current(role)
            if b is not None:
                rows[-1].update({
                    "bootstrap": f"{b.n_used} by {b.by} {b.confidence:g}",
                    "cllr_lo": b.cllr.lower, "cllr_hi": b.cllr.upper,
                    "eer_lo": b.eer.lower, "eer_hi": b.eer.upper,
                    "min_dcf_lo": b.min_dcf.lower if fresh else None,
                    "min_dcf_hi": b.min_dcf.upper if fresh else None})
        return rows

    def weighting_text(self):
        """The condition weighting in words (for the page and the CSV)."""
        res = self.results
        spec = None if res is None else res.condition_spec
        if spec is None:
            return ""
        what = {"pooled": "pooled trials", "equal": "equal per condition",
                "custom": f"custom ({spec.text})"}[spec.weights]
        sel = "all conditions" if spec.select is None else ", ".join(spec.select)
        return f"{what}; {sel}"

    def condition_rows(self, role="eval"):
        """One dict per drawn condition of ``role`` (eval, else dev): its weight and
        measures at the operating point."""
        res = self.results
        if res is None or not res.datasets:
            return []
        d = res.datasets.get(role) or res.primary
        if d is None or not d.conditions:
            return []
        ops = (self.cond_op or {}).get(d.role) or [c.llr.at(self.plo) for c in d.conditions]
        return [{"role": d.role, "condition": c.name, "w_tar": c.w_tar, "w_non": c.w_non,
                 "n_tar": c.llr.n_tar, "n_non": c.llr.n_non, "act_dcf": o.act_dcf,
                 "min_dcf": o.min_dcf, "eer": float(c.llr.eer), "cllr": float(c.llr.cllr),
                 "dr30_safe": bool(o.dr30_safe)}
                for c, o in zip(d.conditions, ops, strict=True)]

    def conditions_note(self):
        """A short explanation for the condition controls."""
        if self.teaching:
            return "Teaching mode has no conditions."
        if not self.conditions_available:
            return ("The loaded trials carry no conditions (an HDF5 `/conditions` matrix or "
                    "a condition column), so every trial counts once.")
        return ("Pooled measures weight each condition's miss and false-alarm rates "
                "(van Leeuwen 2008, eq. 12). Calibration is trained on the dev trials "
                "weighted the same way; fusion on unweighted dev trials.")

    def metrics_csv(self):
        """The metrics table as CSV text (with the operating point in the first columns)."""
        buf = io.StringIO()
        rows = self.metrics_rows()
        fields = ["p_target", "c_miss", "c_fa", "effective_prior", "plo",
                  *(rows[0].keys() if rows else ["dataset"])]
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({"p_target": repr(self.p_target), "c_miss": repr(self.c_miss),
                        "c_fa": repr(self.c_fa), "effective_prior": repr(self.effective_prior),
                        "plo": repr(self.plo),
                        **{k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()}})
        return buf.getvalue()

    def dr30_warning(self):
        """Text explaining which datasets are outside the DR30-safe region, or ''."""
        res, op = self.results, self.op or {}
        if res is None:
            return ""
        parts = []
        for role, o in op.items():
            if o.dr30_safe:
                continue
            d = res.datasets[role].llr.dr30
            why = ("fewer than 30 false alarms" if o.plo < d.plo_fa
                   else "fewer than 30 misses")
            parts.append(f"{res.datasets[role].label} ({why})")
        if not parts:
            return ""
        return (f"The operating point (prior log-odds {self.plo:.2f}) is outside the DR30-safe "
                f"region for {', '.join(parts)}: error rates there rest on too few errors.")

    def calibration_dict(self):
        """The trained calibration / fusion parameters as a JSON-able dict (or None).

        The calibrator's report: its training prior is there when the method has one (PAV
        does not depend on a prior).
        """
        res = self.results
        if res is None or res.calibration is None:
            return None
        return dict(res.calibration.report())

    def calibrated_eval(self) -> Trials | None:
        """The eval trials with calibrated (or fused) scores, in file order."""
        res = self.results
        if res is None or res.calibration is None or self.teaching:
            return None
        if self.fusion and len(self.systems) > 1:
            sets = [s.eval for s in self.systems.values()]
            if any(t is None for t in sets):
                return None
            return res.calibration.apply_systems(sets)
        data = self.systems.get(self.system)
        if data is None or data.eval is None:
            return None
        return data.eval.with_scores(res.calibration.apply(data.eval.scores))


def _with_source(t: Trials, source):
    return Trials(t.scores, t.labels, t.weights, t.conditions, t.model_ids, t.segment_ids,
                  source)
