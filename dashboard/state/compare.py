"""The "Compare systems" tab's state: every loaded system under the current calibration choice.

:class:`CompareState` follows a :class:`~.dashboard.DashboardState` and holds what the
comparison views draw (each system's calibration is trained on its own dev set and applied to
its dev and eval sets):

* ``comparison`` -- the heavy part (:class:`~llrlab.dashboard.compute.Comparison`, from
  :func:`~llrlab.dashboard.compute.compare_systems`): per system and dataset the Analysis (the
  main view's Results reused from its cache when they are that system's), APE and ECE curves
  with the Cllr decomposition, and the EPC of systems with both sets.  It is computed only
  while the tab is shown (``active``), in the background runner, and cached per system and
  per (data, calibration) choice.  With fusion on, the fused LLRs of the main results are one
  more system.
* ``op`` -- ``Analysis.at(plo)`` per system and dataset: all that moves with the operating
  point (binary searches; the main view's own look-ups are reused).
* ``nber`` -- actual and minimum DCF on the NBER x range (binary searches).
* ``tests`` -- significance against the ``reference`` system at the operating point
  (:func:`~llrlab.dashboard.compute.significance`).  Both tests pass over every trial, so they
  run in the background, on request (:meth:`CompareState.request_tests`: the views call it
  when the tab is shown and, through ``defer``, once a drag has come to rest), cached per
  (comparison, dataset, plo, reference).  The trials are paired by id once per pair of
  systems.

Colours are assigned per system name (:attr:`CompareState.colors`), in load order from
:data:`PALETTE`, and kept for as long as the system stays loaded.  Every number comes from
``llrlab.core``.
"""

from __future__ import annotations

import numpy as np
import param

from .. import compute
from ..compute import FUSION
from .export import csv_with_operating_point
from .jobs import LRU, with_notes

__all__ = ["FUSION", "FUSION_COLOR", "PALETTE", "CompareState"]

#: System colours, in load order (no red, black or magenta: those mean act DCF, min DCF and
#: the operating point in the main view).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22",
           "#393b79")
#: Names of teaching mode's two systems: the synthetic (miscalibrated) one and its true LLR.
TEACHING_SYSTEM, TEACHING_TRUE = "synthetic system", "true LLR"
#: Colour of the fused system.
FUSION_COLOR = "#333333"
#: How many per-system results / comparisons / significance results a session keeps.
SYSTEM_CACHE = 12
COMPARISON_CACHE = 4
TESTS_CACHE = 32
ROLES = ("dev", "eval")
#: Columns of the comparison CSV (after the operating point's).
CSV_FIELDS = ("system", "role", "n_tar", "n_non", "cllr", "min_cllr", "calibration_loss",
              "eer", "act_dcf", "min_dcf", "reference", "z_statistic", "z_p_value",
              "z_verdict", "mcnemar_p_value", "mcnemar_discordant", "mcnemar_verdict")


class CompareState(param.Parameterized):
    """The comparison tab's state (see the module docstring)."""

    state = param.Parameter(default=None, precedence=-1, doc="""
        The DashboardState compared (its data, calibration choice and operating point).""")
    active = param.Boolean(default=False, precedence=-1, doc="""
        The tab is shown: only then are heavy comparison results computed.""")
    role = param.Selector(default="eval", objects=list(ROLES), label="Dataset", doc="""
        The dataset of the table, the DET plot, the Cllr bars and the significance tests.""")
    reference = param.Selector(default=None, objects=[], allow_None=True,
                               label="Reference system", doc="""
        The system every other one is tested against.""")
    significance_level = param.Number(default=0.05, bounds=(0.001, 0.2), step=0.01,
                                      label="Significance level")

    # ---- outputs
    comparison = param.Parameter(default=None, precedence=-1)
    op = param.Parameter(default=None, precedence=-1)
    nber = param.Parameter(default=None, precedence=-1)
    tests = param.Parameter(default=None, precedence=-1)
    tests_pending = param.Boolean(default=False, precedence=-1)
    busy = param.Boolean(default=False, precedence=-1)
    notice = param.String(default="", precedence=-1)

    def __init__(self, **params):
        self._colors = {}
        self._systems_cache = LRU(SYSTEM_CACHE)
        self._teaching_systems = None
        self._cache = LRU(COMPARISON_CACHE)
        self._tests_cache = LRU(TESTS_CACHE)
        self._paired = {}
        self._gen = 0
        self._tests_gen = 0
        self._stale = True
        #: ``defer(fn)``: run ``fn`` later (the views debounce drags with it); None: now.
        self.defer = None
        super().__init__(**params)
        self._names_changed()

    @property
    def jobs(self):
        return self.state.jobs

    # ------------------------------------------------------------------ names and colours

    def systems(self):
        """``{name: SystemData}`` of the compared systems: the loaded ones, or in teaching
        mode the synthetic system (its dev and eval sets) and the true LLR of the same eval
        trials (the loaded data are not what the page shows then)."""
        st = self.state
        if not st.teaching.enabled:
            return st.data.systems
        res = st.results
        if res is None or not res.teaching:
            return {}
        hit = self._teaching_systems
        if hit is not None and hit[0] is res:
            return hit[1]
        ds, t = res.datasets, st.teaching
        dev = ds["dev"].trials
        out = {TEACHING_SYSTEM: compute.SystemData(dev, ds["eval"].trials)}
        if "true" in ds:
            # the dev set's true LLR: its scores are scale × LLR + shift (scale > 0)
            true_dev = dev.with_scores((dev.scores - t.shift) / t.scale)
            out[TEACHING_TRUE] = compute.SystemData(true_dev, ds["true"].trials)
        self._teaching_systems = (res, out)
        return out

    def names(self):
        """The compared systems: loaded systems in load order, then fusion when on."""
        names = list(self.systems())
        if self._fusion_results() is not None:
            names.append(FUSION)
        return names

    @property
    def colors(self):
        """``{name: colour}`` of the compared systems (stable while a system stays loaded)."""
        return {n: self.color(n) for n in self.names()}

    def color(self, name):
        if name == FUSION:
            return FUSION_COLOR
        if name not in self._colors:
            used = set(self._colors.values())
            free = [c for c in PALETTE if c not in used]
            self._colors[name] = free[0] if free else PALETTE[len(self._colors) % len(PALETTE)]
        return self._colors[name]

    def _fusion_results(self):
        st = self.state
        res = st.results
        if (st.calibration.fusion and len(st.data.systems) > 1 and not st.teaching.enabled
                and res is not None and res.key and res.key[0] == "fusion" and res.datasets):
            return res
        return None

    @param.depends("state.results", watch=True)
    def _results_changed(self):
        self._names_changed()

    # (not in one watcher with "state.results": for a method that also depends on
    # "state.data.x", param 2.4 skips a change of "state.results" when the old and new
    # values have equal attributes "x", i.e. always)
    @param.depends("state.data.systems", "state.calibration.fusion", watch=True)
    def _names_changed(self):
        names = self.names()
        loaded = set(self.systems())
        for n in [n for n in self._colors if n not in loaded]:
            del self._colors[n]
        for n in names:
            self.color(n)
        ref = self.reference if self.reference in names else (names[0] if names else None)
        self.param.reference.objects = names
        self.reference = ref
        self._inputs_changed()

    # ------------------------------------------------------------------ heavy results

    def _key(self):
        st = self.state
        data = tuple((n, d.dev, d.eval) for n, d in self.systems().items())
        return (data, st.calibration.method, st.calibration.prior_key(),
                self._fusion_results(), st.conditions.spec())

    @param.depends("state.calibration.method", "state.calibration.train_prior", watch=True)
    def _inputs_changed(self):
        if self.active:
            self.refresh()
        else:
            self._stale = True

    @param.depends("active", watch=True)
    def _active_changed(self):
        if self.active:
            self.refresh()
            self.request_tests()

    @param.depends("state.status.busy", watch=True)
    def _main_idle(self):
        if not self.state.status.busy and self.active and self._stale:
            self.refresh()

    def _main_hit(self, name):
        """The main view's Results when they are those of system ``name`` under the current
        choices (the shown system, no fusion): reused, not recomputed."""
        st = self.state
        res = st.results
        if (res is not None and not st.teaching.enabled and st.data.system == name
                and res.key and res.key[0] == "data" and res.key == st.results_key):
            return res
        return None

    def refresh(self):
        """Bring ``comparison`` up to date (cache hit, or a background job).

        While the main view computes (its results are then those of the newest choices, or
        the fusion this comparison includes), the comparison waits for it and reuses them.
        """
        if self.state.computing:
            self._stale = True
            return
        self._stale = False
        key = self._key()
        hit = self._cache.get(key)
        self._gen += 1
        gen = self._gen
        if hit is not None:
            if hit is not self.comparison:
                self._apply(hit)
            return
        st = self.state
        systems = dict(self.systems())
        method, prior, fusion, conditions = key[1], st.calibration.train_prior, key[3], key[4]
        raw_cache = st.raw_cache
        todo, have = {}, {}
        for name, data in systems.items():
            skey = (name, data.dev, data.eval, method, key[2], conditions)
            sc = self._systems_cache.get(skey)
            if sc is not None:
                have[name] = sc
            else:
                todo[name] = (skey, self._main_hit(name))

        def job(progress):
            return with_notes(compute.compare_systems,
                              {name: res for name, (_, res) in todo.items()}, systems,
                              calibration=method, train_prior=prior, conditions=conditions,
                              fusion=fusion, raw_cache=raw_cache, progress=progress)

        def done(result):
            (out, fused, notes), warned = result
            self.busy = False
            for name, sc in out.items():
                self._systems_cache.put(todo[name][0], sc)
            comp = {}
            for name in systems:
                sc = have.get(name) or out.get(name)
                if sc is not None:
                    comp[name] = sc
            if fused is not None:
                comp[FUSION] = fused
            c = compute.Comparison(key, comp, [*notes, *warned])
            self._cache.put(key, c)
            if gen == self._gen:
                self._apply(c)

        def fail(exc):
            self.busy = False
            if gen == self._gen:
                self.jobs.report(exc, "comparison")

        self.busy = True
        self.jobs.run("comparing", job, done, fail, track=False)

    def _apply(self, comp):
        self._paired = {}
        self.param.update(comparison=comp, notice=" ".join(comp.notes),
                          op=self._op(comp), nber=self._nber(comp))
        self.request_tests()

    # ------------------------------------------------------------------ cheap look-ups

    def _op(self, comp):
        if comp is None:
            return {}
        st = self.state
        plo, main, main_op = st.point.plo, st.results, st.op or {}

        def at(sc, role, d):
            o = main_op.get(role) if sc.results is main else None
            # the main view has looked its own results up at this operating point already
            return o if o is not None and o.plo == plo else d.llr.at(plo)

        return {n: {r: at(sc, r, d) for r, d in sc.results.datasets.items()}
                for n, sc in comp.systems.items()}

    def _nber(self, comp):
        if comp is None:
            return None
        lo, hi = self.state.display.nber_range
        grid = np.linspace(lo, hi, 401)
        return grid, {n: {r: d.llr.curves(grid) for r, d in sc.results.datasets.items()}
                      for n, sc in comp.systems.items()}

    @param.depends("state.op", watch=True)
    def _op_changed(self):
        if self.comparison is None:
            return
        self.op = self._op(self.comparison)
        if self.active:
            if self.defer is not None:
                self.defer(self.request_tests)
            else:
                self.request_tests()

    @param.depends("state.display.nber_range", watch=True)
    def _range_changed(self):
        if self.comparison is not None:
            self.nber = self._nber(self.comparison)

    # ------------------------------------------------------------------ significance

    def _tests_key(self):
        comp = self.comparison
        return (None if comp is None else comp.key, self.role, float(self.state.point.plo),
                self.reference, float(self.significance_level))

    @param.depends("role", "reference", "significance_level", watch=True)
    def _tests_inputs_changed(self):
        if self.active:
            self.request_tests()

    def tests_current(self):
        """``tests`` if they belong to the current operating point and choices, else None."""
        t = self.tests
        return t[1] if t is not None and t[0] == self._tests_key() else None

    def request_tests(self):
        """Run the significance tests at the current operating point (background, cached)."""
        comp, ref = self.comparison, self.reference
        if comp is None or ref not in comp.systems:
            self.tests_pending = False
            return
        key = self._tests_key()
        hit = self._tests_cache.get(key)
        self._tests_gen += 1
        gen = self._tests_gen
        if hit is not None:
            self.param.update(tests=(key, hit), tests_pending=False)
            return
        role, plo, alpha = self.role, float(self.state.point.plo), float(self.significance_level)
        paired = self._paired

        def job(progress):
            return with_notes(compute.significance, comp, ref, role, plo, alpha, paired)

        def done(result):
            rows, notes = result
            self._tests_cache.put(key, rows)
            if gen != self._tests_gen:
                return
            self.param.update(tests=(key, rows), tests_pending=False)
            if notes:
                self.notice = " ".join([*comp.notes, *sorted(set(notes))])

        def fail(exc):
            if gen == self._tests_gen:
                self.tests_pending = False
                self.jobs.report(exc, "significance tests")

        self.tests_pending = True
        self.jobs.run("testing", job, done, fail, track=False)

    # ------------------------------------------------------------------ table and CSV

    def table_rows(self):
        """One dict per compared system (``role`` dataset) with its measures at the
        operating point and its significance against the reference (None when pending)."""
        comp, op = self.comparison, self.op or {}
        if comp is None:
            return []
        tests = self.tests_current()
        rows = []
        for name, sc in comp.systems.items():
            a, o = sc.analysis(self.role), op.get(name, {}).get(self.role)
            if a is None or o is None:
                continue
            row = {"system": name, "color": self.color(name), "role": self.role,
                   "n_tar": a.n_tar, "n_non": a.n_non, "cllr": float(a.cllr),
                   "min_cllr": float(a.min_cllr), "calibration_loss": float(a.calibration_loss),
                   "eer": float(a.eer), "act_dcf": o.act_dcf, "min_dcf": o.min_dcf,
                   "reference": self.reference, "is_reference": name == self.reference,
                   "significance": None if tests is None else tests.get(name)}
            rows.append(row)
        return rows

    def table_csv(self):
        """The comparison table as CSV text (full precision), operating point first."""
        out = []
        for r in self.table_rows():
            row = {k: r[k] for k in ("system", "role", "n_tar", "n_non", "reference", "cllr",
                                     "min_cllr", "calibration_loss", "eer", "act_dcf",
                                     "min_dcf")}
            for k in ("cllr", "min_cllr", "calibration_loss", "eer", "act_dcf", "min_dcf"):
                row[k] = float(row[k])
            sig = r["significance"]
            if sig is not None and sig.z is not None:
                row.update(z_statistic=float(sig.z.statistic), z_p_value=float(sig.z.p_value),
                           z_verdict=sig.z.verdict,
                           mcnemar_p_value=float(sig.mcnemar.p_value),
                           mcnemar_discordant=sig.mcnemar.n_discordant,
                           mcnemar_verdict=sig.mcnemar.verdict)
            elif sig is not None:
                row["z_verdict"] = row["mcnemar_verdict"] = sig.error
            out.append(row)
        return csv_with_operating_point(self.state.point, CSV_FIELDS, out)
