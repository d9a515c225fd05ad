"""The comparison of all loaded systems: per system its APE and ECE curves (with the Cllr
decomposition) and EPC, and significance tests against a reference system.

Each system's results are :func:`~.build.compute_results` under the current calibration choice
(its calibration is trained on its own dev set); the fused system reuses the main view's fusion
results.  The significance tests (:func:`llrlab.core.significance.z_test` and
:func:`~llrlab.core.significance.mcnemar_test`) pass over every paired trial.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from llrlab.core import LlrlabError, Trials
from llrlab.core.ape import ape_curves, ece_curves
from llrlab.core.epc import epc
from llrlab.core.significance import mcnemar_test, paired_trials, z_test

from .build import compute_results
from .results import Results, SystemData

__all__ = ["APE_PLO", "EPC_ALPHA", "FUSION", "Comparison", "SignificanceRow",
           "SystemComparison", "compare_systems", "compute_system", "significance",
           "system_inputs"]

#: Prior log-odds of the APE and ECE curves.
APE_PLO = np.linspace(-10.0, 10.0, 401)
#: Trade-offs of the EPC.
EPC_ALPHA = np.linspace(0.0, 1.0, 201)
#: Name of the fused system.
FUSION = "fusion"


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
    results: Results
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


def system_inputs(data: SystemData):
    """``{role: (Trials,)}`` of one loaded system (see :attr:`SystemComparison.inputs`)."""
    return {r: (t,) for r, t in (("dev", data.dev), ("eval", data.eval)) if t is not None}


def compute_system(name, results: Results, inputs, *, fused=False) -> SystemComparison:
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


def compare_systems(todo, systems, *, calibration, train_prior, conditions=None,
                    fusion=None, raw_cache=None, progress=None):
    """The comparison results of the systems in ``todo``, and of the fusion.

    Parameters
    ----------
    todo : dict of str to Results or None
        The systems to compare, with their results when known (the main view's), else None
        (computed here under the calibration choice).
    systems : dict of str to SystemData
        Every loaded system (the inputs of the fusion).
    calibration, train_prior, conditions, raw_cache
        As in :func:`~.build.compute_results`.
    fusion : Results or None
        The main view's fusion of all systems, compared as :data:`FUSION`.

    Returns
    -------
    (dict of str to SystemComparison, SystemComparison or None, list of str)
        The compared systems, the fused system, and a note per system that could not be
        compared (e.g. calibration without a dev set).
    """
    progress = progress or (lambda *_: None)
    extra = {} if conditions is None else {"conditions": conditions}
    out, notes = {}, []
    for i, (name, res) in enumerate(todo.items()):
        progress(i / max(len(todo), 1), f"comparing: {name}")
        try:
            if res is None:
                res = compute_results(("compare", name), systems=systems, system=name,
                                      calibration=calibration, train_prior=train_prior,
                                      raw_cache=raw_cache, **extra)
            out[name] = compute_system(name, res, system_inputs(systems[name]))
        except LlrlabError as exc:
            notes.append(f"{name}: {exc}")
    fused = None
    if fusion is not None:
        inputs = {r: tuple(getattr(d, r) for d in systems.values()) for r in fusion.datasets}
        fused = compute_system(FUSION, fusion, inputs, fused=True)
    return out, fused, notes


def significance(comp: Comparison, reference, role, plo, alpha, paired):
    """``{name: SignificanceRow}``: every other system of ``comp`` against ``reference`` on
    its ``role`` set at prior log-odds ``plo`` (z-test of the DCF difference and McNemar on
    the paired decisions, level ``alpha``).

    ``paired`` caches the trials paired by id, per ``(role, reference, name)``: the tests
    then pair them by position (no second id match).
    """
    def pair(name):
        pkey = (role, reference, name)
        if pkey not in paired:
            a, b = comp.systems[name], comp.systems[reference]
            ta, tb = a.llr_trials(role), b.llr_trials(role)
            if ta is None or tb is None:
                raise LlrlabError(f"no {role} set")
            pa, pb = paired_trials(ta, tb)
            paired[pkey] = (Trials(pa.scores, pa.labels), Trials(pb.scores, pb.labels))
        return paired[pkey]

    rows = {}
    for name in comp.systems:
        if name == reference:
            continue
        try:
            pa, pb = pair(name)
            kw = dict(names=(_short(name), _short(reference)), alpha=alpha)
            rows[name] = SignificanceRow(z_test(pa, pb, plo, **kw),
                                         mcnemar_test(pa, pb, plo, **kw))
        except LlrlabError as exc:
            rows[name] = SignificanceRow(error=str(exc))
    return rows
