"""The "Compare systems" tab's state and heavy results (no Panel or Bokeh import).

:class:`CompareState` follows a :class:`~llrlab.dashboard.state.DashboardState` and holds what
the comparison views draw for *all* loaded systems under the current calibration choice (each
system's calibration is trained on its own dev set and applied to its dev and eval sets):

* ``comparison`` -- the heavy part (:class:`Comparison`): per system and dataset the
  :class:`~llrlab.core.Analysis` (the same :class:`~llrlab.dashboard.compute.Results` the main
  view computes, reused from its cache when it holds them), APE and ECE curves with the Cllr
  decomposition, and the EPC (dev thresholds applied to eval) of systems with both sets.  It is
  computed only while the tab is shown (``active``), in the background runner, and cached per
  system and per (data, calibration) choice.  With fusion on, the fused LLRs of the main
  results are one more system.
* ``op`` -- ``Analysis.at(plo)`` per system and dataset: all that moves with the operating
  point (binary searches).
* ``nber`` -- actual and minimum DCF on the NBER x range (binary searches).
* ``tests`` -- significance against the ``reference`` system at the operating point:
  :func:`~llrlab.core.significance.z_test` and
  :func:`~llrlab.core.significance.mcnemar_test` on the paired trials.  Both pass over every
  trial, so they run in the background, on request (:meth:`CompareState.request_tests`: the
  views call it when the tab is shown and, through ``defer``, once a drag has come to rest),
  cached per (comparison, dataset, plo, reference).  The trials are paired by id once per
  pair of systems.

Colours are assigned per system name (:attr:`CompareState.colors`), in load order from
:data:`PALETTE`, and kept for as long as the system stays loaded.  Every number comes from
``llrlab.core``.
"""

from __future__ import annotations

import csv
import io
import logging
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import param

from llrlab.core import LlrlabError, LlrlabWarning, Trials
from llrlab.core.ape import ape_curves, ece_curves
from llrlab.core.epc import epc
from llrlab.core.significance import mcnemar_test, paired_trials, z_test

from . import compute
from .state import DashboardState, user_message

__all__ = ["APE_PLO", "EPC_ALPHA", "FUSION", "FUSION_COLOR", "PALETTE", "CompareState",
           "Comparison", "SignificanceRow", "SystemComparison", "compute_system"]

log = logging.getLogger(__name__)

#: System colours, in load order (no red, black or magenta: those mean act DCF, min DCF and
#: the operating point in the main view).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22",
           "#393b79")
#: Name and colour of the fused system.
FUSION = "fusion"
FUSION_COLOR = "#333333"
#: Prior log-odds of the APE and ECE curves.
APE_PLO = np.linspace(-10.0, 10.0, 401)
#: Trade-offs of the EPC.
EPC_ALPHA = np.linspace(0.0, 1.0, 201)
#: How many per-system results / comparisons / significance results a session keeps.
SYSTEM_CACHE = 12
COMPARISON_CACHE = 4
TESTS_CACHE = 32
ROLES = ("dev", "eval")


@dataclass(frozen=True, eq=False)
class SystemComparison:
    """One system's heavy comparison results.

    Attributes
    ----------
    name : str
    results : llrlab.dashboard.compute.Results
        Its datasets (``dev`` and / or ``eval``) with the Analysis of the evaluated LLRs, and
        its calibration (None when uncalibrated).
    ape, ece : dict of str to APECurves / ECECurves
        Per dataset, on :data:`APE_PLO`.
    epc : llrlab.core.epc.EPC or None
        Thresholds from dev, HTER on eval, on :data:`EPC_ALPHA`; None without both sets.
    inputs : dict of str to tuple of Trials
        The raw trials per dataset (one set, or one per fused system), from which
        :meth:`llr_trials` rebuilds the LLRs of every trial for the significance tests.
    fused : bool
    """

    name: str
    results: compute.Results
    ape: dict
    ece: dict
    epc: object | None
    inputs: dict
    fused: bool = False

    def analysis(self, role):
        d = self.results.datasets.get(role)
        return None if d is None else d.llr

    def dataset(self, role):
        return self.results.datasets.get(role)

    def llr_trials(self, role) -> Trials | None:
        """The dataset's trials with the evaluated LLRs as scores, in file order."""
        sets = self.inputs.get(role)
        if not sets:
            return None
        cal = self.results.calibration
        if cal is None:
            return sets[0]
        if self.fused:
            return cal.apply_systems(list(sets))
        return sets[0].with_scores(cal.apply(sets[0].scores))


@dataclass(frozen=True, eq=False)
class Comparison:
    """The heavy results of every compared system, in load order (fusion last).

    ``systems`` maps a name to its :class:`SystemComparison`; ``notes`` says which systems
    could not be compared and why.
    """

    key: tuple
    systems: dict
    notes: list = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class SignificanceRow:
    """Significance of one system against the reference (``z`` / ``mcnemar`` None on error)."""

    z: object | None = None
    mcnemar: object | None = None
    error: str = ""


def _short(name):
    """A name as the core's verdicts use it ("system NAME"): without a leading "system "."""
    return name[7:] if name.lower().startswith("system ") and len(name) > 7 else name


def compute_system(name, results: compute.Results, inputs, *, fused=False) -> SystemComparison:
    """APE, ECE and EPC of one system's results (llrlab.core only; O(n) per dataset)."""
    ape, ece = {}, {}
    for role, d in results.datasets.items():
        ape[role] = ape_curves(d.llr, plo=APE_PLO)
        ece[role] = ece_curves(d.llr, plo=APE_PLO)
    curve = None
    if "dev" in results.datasets and "eval" in results.datasets:
        # the analyses' sorts (and the dev PAV) are reused: nothing is sorted again
        curve = epc(results.datasets["dev"].llr, results.datasets["eval"].llr, EPC_ALPHA)
    return SystemComparison(name, results, ape, ece, curve, dict(inputs), fused)


def _inputs(data: compute.SystemData):
    return {r: (t,) for r, t in (("dev", data.dev), ("eval", data.eval)) if t is not None}


class CompareState(param.Parameterized):
    """The comparison tab's state (see the module docstring)."""

    state = param.ClassSelector(class_=DashboardState, precedence=-1)
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

    def __init__(self, runner=None, **params):
        self._runner = runner
        self._colors = {}
        self._systems_cache = OrderedDict()
        self._cache = OrderedDict()
        self._tests_cache = OrderedDict()
        self._paired = {}
        self._gen = 0
        self._tests_gen = 0
        self._stale = True
        #: ``defer(fn)``: run ``fn`` later (the views debounce drags with it); None: now.
        self.defer = None
        super().__init__(**params)
        self._names_changed()

    @property
    def runner(self):
        return self._runner or self.state.runner

    # ------------------------------------------------------------------ names and colours

    def names(self):
        """The compared systems: loaded systems in load order, then fusion when on."""
        names = list(self.state.systems)
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
        if (st.fusion and len(st.systems) > 1 and not st.teaching and res is not None
                and res.key and res.key[0] == "fusion" and res.datasets):
            return res
        return None

    @param.depends("state.systems", "state.fusion", "state.results", watch=True)
    def _names_changed(self):
        names = self.names()
        loaded = set(self.state.systems)
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
        prior = None if st.calibration == "none" else round(st.train_prior, 12)
        data = tuple((n, d.dev, d.eval) for n, d in st.systems.items())
        return (data, st.calibration, prior, self._fusion_results(), self._conditions())

    @param.depends("state.calibration", "state.train_prior", watch=True)
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

    @param.depends("state.busy", watch=True)
    def _main_idle(self):
        if not self.state.busy and self.active and self._stale:
            self.refresh()

    def _conditions(self):
        """The main view's condition weighting: every system is pooled the same way."""
        return self.state.condition_spec()

    def _main_hit(self, name):
        """The main view's Results when they are those of system ``name`` under the current
        choices (the shown system, no fusion): reused, not recomputed."""
        st = self.state
        res = st.results
        if (res is not None and not st.teaching and st.system == name and res.key
                and res.key[0] == "data" and res.key == st.results_key):
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
            self._cache.move_to_end(key)
            if hit is not self.comparison:
                self._apply(hit)
            return
        st = self.state
        systems = dict(st.systems)
        calibration, prior = st.calibration, st.train_prior
        fusion, conditions = key[3], key[4]
        extra = {} if conditions is None else {"conditions": conditions}
        raw_cache = st.raw_cache
        todo, have = {}, {}
        for name, data in systems.items():
            skey = (name, data.dev, data.eval, calibration, key[2], conditions)
            if skey in self._systems_cache:
                have[name] = self._systems_cache[skey]
            else:
                todo[name] = (skey, data, self._main_hit(name))

        def job(progress):
            out, notes = {}, []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", LlrlabWarning)
                for i, (name, (skey, data, res)) in enumerate(todo.items()):
                    progress(i / max(len(todo), 1), f"comparing: {name}")
                    try:
                        if res is None:
                            res = compute.compute_results(
                                ("compare", name), systems=systems, system=name,
                                calibration=calibration, train_prior=prior,
                                raw_cache=raw_cache, **extra)
                        out[name] = (skey, compute_system(name, res, _inputs(data)))
                    except LlrlabError as exc:
                        notes.append(f"{name}: {exc}")
                fused = None
                if fusion is not None:
                    inputs = {r: tuple(getattr(d, r) for d in systems.values())
                              for r in fusion.datasets}
                    fused = compute_system(FUSION, fusion, inputs, fused=True)
            notes += [str(w.message) for w in caught if issubclass(w.category, LlrlabWarning)]
            return out, fused, notes

        def done(result):
            out, fused, notes = result
            self.busy = False
            for skey, sc in out.values():
                self._systems_cache[skey] = sc
            while len(self._systems_cache) > SYSTEM_CACHE:
                self._systems_cache.popitem(last=False)
            comp = {}
            for name in systems:
                sc = have.get(name) or (out[name][1] if name in out else None)
                if sc is not None:
                    comp[name] = sc
            if fused is not None:
                comp[FUSION] = fused
            c = Comparison(key, comp, notes)
            self._cache[key] = c
            while len(self._cache) > COMPARISON_CACHE:
                self._cache.popitem(last=False)
            if gen == self._gen:
                self._apply(c)

        def fail(exc):
            self.busy = False
            if not isinstance(exc, LlrlabError):
                log.error("comparison failed", exc_info=exc)
            if gen == self._gen:
                self.state.error = user_message(exc)

        self.busy = True
        self.runner.run(job, done, fail, lambda *_: None)

    def _apply(self, comp: Comparison):
        self._paired = {}
        self.param.update(comparison=comp, notice=" ".join(comp.notes),
                          op=self._op(comp), nber=self._nber(comp))
        self.request_tests()

    # ------------------------------------------------------------------ cheap look-ups

    def _op(self, comp):
        if comp is None:
            return {}
        plo = self.state.plo
        return {n: {r: d.llr.at(plo) for r, d in sc.results.datasets.items()}
                for n, sc in comp.systems.items()}

    def _nber(self, comp):
        if comp is None:
            return None
        lo, hi = self.state.nber_range
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

    @param.depends("state.nber_range", watch=True)
    def _range_changed(self):
        if self.comparison is not None:
            self.nber = self._nber(self.comparison)

    # ------------------------------------------------------------------ significance

    def _tests_key(self):
        comp = self.comparison
        return (None if comp is None else comp.key, self.role, float(self.state.plo),
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
            self._tests_cache.move_to_end(key)
            self.param.update(tests=(key, hit), tests_pending=False)
            return
        role, plo, alpha = self.role, float(self.state.plo), float(self.significance_level)
        paired = self._paired
        names = list(comp.systems)

        def pair(name):
            pkey = (role, ref, name)
            if pkey not in paired:
                a, b = comp.systems[name], comp.systems[ref]
                ta, tb = a.llr_trials(role), b.llr_trials(role)
                if ta is None or tb is None:
                    raise LlrlabError(f"no {role} set")
                pa, pb = paired_trials(ta, tb)
                # paired by id once: the tests then pair by position (no second id match)
                paired[pkey] = (Trials(pa.scores, pa.labels), Trials(pb.scores, pb.labels))
            return paired[pkey]

        def job(progress):
            rows, notes = {}, []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", LlrlabWarning)
                for name in names:
                    if name == ref:
                        continue
                    try:
                        pa, pb = pair(name)
                        kw = dict(names=(_short(name), _short(ref)), alpha=alpha)
                        rows[name] = SignificanceRow(z_test(pa, pb, plo, **kw),
                                                     mcnemar_test(pa, pb, plo, **kw))
                    except LlrlabError as exc:
                        rows[name] = SignificanceRow(error=str(exc))
            notes = sorted({str(w.message) for w in caught
                            if issubclass(w.category, LlrlabWarning)})
            return rows, notes

        def done(result):
            rows, notes = result
            self._tests_cache[key] = rows
            while len(self._tests_cache) > TESTS_CACHE:
                self._tests_cache.popitem(last=False)
            if gen != self._tests_gen:
                return
            self.param.update(tests=(key, rows), tests_pending=False)
            if notes:
                self.notice = " ".join([*comp.notes, *notes])

        def fail(exc):
            if not isinstance(exc, LlrlabError):
                log.error("significance tests failed", exc_info=exc)
            if gen == self._tests_gen:
                self.tests_pending = False
                self.state.error = user_message(exc)

        self.tests_pending = True
        self.runner.run(job, done, fail, lambda *_: None)

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
        st = self.state
        fields = ["p_target", "c_miss", "c_fa", "effective_prior", "plo", "system", "role",
                  "n_tar", "n_non", "cllr", "min_cllr", "calibration_loss", "eer", "act_dcf",
                  "min_dcf", "reference", "z_statistic", "z_p_value", "z_verdict",
                  "mcnemar_p_value", "mcnemar_discordant", "mcnemar_verdict"]
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in self.table_rows():
            out = {"p_target": repr(st.p_target), "c_miss": repr(st.c_miss),
                   "c_fa": repr(st.c_fa), "effective_prior": repr(st.effective_prior),
                   "plo": repr(st.plo)}
            for k in ("system", "role", "n_tar", "n_non", "reference"):
                out[k] = r[k]
            for k in ("cllr", "min_cllr", "calibration_loss", "eer", "act_dcf", "min_dcf"):
                out[k] = repr(r[k])
            sig = r["significance"]
            if sig is not None and sig.z is not None:
                out.update(z_statistic=repr(sig.z.statistic), z_p_value=repr(sig.z.p_value),
                           z_verdict=sig.z.verdict,
                           mcnemar_p_value=repr(sig.mcnemar.p_value),
                           mcnemar_discordant=sig.mcnemar.n_discordant,
                           mcnemar_verdict=sig.mcnemar.verdict)
            elif sig is not None:
                out["z_verdict"] = out["mcnemar_verdict"] = sig.error
            w.writerow(out)
        return buf.getvalue()
