"""Linear fusion of K systems: ``llr = offset + sum_k weights[k] * s_k``, aligned by trial id.

References: Brümmer & de Villiers (2011), sec. 2.7.2 (eq. 30) and 4.4; Brümmer (2010), sec. 8.3.1
(eq. 8.16); docs/conventions.md.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._repr import summary_repr
from ..errors import DataError, LlrlabWarning
from ..trials import Scores, Trials, trial_codes
from ._logreg import fit_linear
from .base import (
    Calibrator,
    TrainingReport,
    _bool,
    _list,
    _number,
    _numbers,
    _prior,
    _require_keys,
    _str,
    noting_warnings,
    signed,
    training_report,
)

__all__ = ["Alignment", "FusionCalibrator", "align_systems"]


@dataclass(frozen=True)
class Alignment:
    """How K score sets were matched trial by trial.

    Attributes
    ----------
    by_id : bool
        Matched by (model, segment) id; False: by position (sets without ids).
    n_common : int
        Trials present in every set (the ones fused).
    left_out : tuple of int
        For each set, how many of its trials are missing from some other set.
    examples : tuple of str
        For each set, one left-out trial as ``"model segment"`` ('' if none).
    """

    by_id: bool
    n_common: int
    left_out: tuple
    examples: tuple


def _name(s, i):
    return s.source or f"system {i + 1}"


def _member(sorted_ref, x):
    """Boolean mask: which elements of ``x`` occur in the sorted array ``sorted_ref``."""
    if sorted_ref.size == 0:
        return np.zeros(x.size, bool)
    pos = np.minimum(np.searchsorted(sorted_ref, x), sorted_ref.size - 1)
    return sorted_ref[pos] == x


def align_systems(systems, *, what="fusion"):
    """Match K score sets (Scores or Trials) trial by trial.

    With (model, segment) ids on every set, the trials present in all of them are kept, in
    the order of the first set; each set's left-out trials are counted, and a
    :class:`~llrlab.core.errors.LlrlabWarning` names how many and one example.  Without ids
    the sets must have the same length and are matched by position.

    Returns
    -------
    aligned : list
        The K sets restricted to the common trials, in the same order.
    alignment : Alignment

    Raises
    ------
    DataError
        No set; some sets with ids and some without; a set listing a trial twice; no trial
        common to all sets; sets without ids of different lengths.
    """
    systems = list(systems)
    if not systems:
        raise DataError(f"{what} needs at least one score set")
    for i, s in enumerate(systems):
        if not isinstance(s, (Scores, Trials)):
            raise DataError(f"{what}: set {i + 1} is a {type(s).__name__}, not Scores/Trials")
    has = [s.has_ids for s in systems]
    if not any(has):
        n = len(systems[0])
        if any(len(s) != n for s in systems):
            sizes = ", ".join(f"{_name(s, i)}: {len(s)}" for i, s in enumerate(systems))
            raise DataError(f"{what}: score sets without (model, segment) ids are matched by "
                            f"position and must have equal lengths ({sizes})")
        k = len(systems)
        return systems, Alignment(False, n, (0,) * k, ("",) * k)
    if not all(has):
        i = has.index(False)
        raise DataError(f"{what}: {_name(systems[i], i)} has no (model, segment) ids, so its "
                        f"trials cannot be matched with the other sets'")
    first = systems[0]
    codes = trial_codes(*systems)  # integers, equal exactly when the (model, segment) ids are
    k = len(systems)
    if all(np.array_equal(c, codes[0]) for c in codes[1:]):
        order = np.argsort(codes[0], kind="stable")
        _check_unique(codes[0][order], order, first, 0, what)
        return systems, Alignment(True, len(first), (0,) * k, ("",) * k)
    orders = [np.argsort(c, kind="stable") for c in codes]
    sorted_codes = [c[o] for c, o in zip(codes, orders, strict=True)]
    for i, (sc, o) in enumerate(zip(sorted_codes, orders, strict=True)):
        _check_unique(sc, o, systems[i], i, what)
    common = sorted_codes[0]
    for sc in sorted_codes[1:]:
        common = common[_member(sc, common)]
    if common.size == 0:
        raise DataError(f"{what}: the score sets share no trial (model, segment) id; "
                        f"e.g. {first.trial_name(0)} of {_name(first, 0)} is not in every set")
    idx0 = np.flatnonzero(_member(common, codes[0]))
    wanted = codes[0][idx0]
    aligned, left, examples = [], [], []
    for i, (s, c, o, sc) in enumerate(zip(systems, codes, orders, sorted_codes, strict=True)):
        idx = idx0 if i == 0 else o[np.searchsorted(sc, wanted)]
        aligned.append(s.subset(idx))
        n_left = len(s) - common.size
        left.append(n_left)
        ex = ""
        if n_left:
            ex = s.trial_name(int(np.flatnonzero(~_member(common, c))[0]))
            warnings.warn(LlrlabWarning(
                f"{what}: {n_left} of the {len(s)} trials of {_name(s, i)} are not in every "
                f"score set and were left out (e.g. {ex}); {common.size} trials are used"),
                stacklevel=3)
        examples.append(ex)
    return aligned, Alignment(True, int(common.size), tuple(left), tuple(examples))


def _check_unique(sorted_codes, order, s, i, what):
    dup = np.flatnonzero(sorted_codes[1:] == sorted_codes[:-1])
    if dup.size:
        raise DataError(f"{what}: {_name(s, i)} lists the trial "
                        f"{s.trial_name(int(order[dup[0]]))} more than once ({dup.size} "
                        f"repeated trial(s))")


@summary_repr("weights", "offset", "prior", "systems", "regularised")
@dataclass(frozen=True, eq=False)
class FusionCalibrator(Calibrator):
    """``llr = offset + sum_k weights[k] * s_k``, trained by minimizing ``Ce(prior)`` on dev.

    Attributes
    ----------
    weights : ndarray, shape (K,)
        One weight per system (any sign: a system may enter with a negative weight).
    offset : float
    prior : float
        The training prior of ``Ce(prior)``.
    objective : float
        ``Ce(prior)`` of the fused dev LLRs, in nats.
    regularised : bool
        The dev trials were separable in the K-dimensional score space and the documented
        L2 penalty was used.
    systems : tuple of str
        The systems' names, in the order of ``weights``.
    training : TrainingReport
        ``cllr_raw`` has one entry per system (its raw scores read as LLRs).

    Notes
    -----
    The objective and optimizer are those of affine calibration (K = 1), see
    :mod:`llrlab.core.calibration._logreg`.  Dev and eval systems are matched by trial id
    (:func:`align_systems`).  A system that is constant, or an affine function of the
    others, has no identifiable weight: the minimum-norm solution is returned with a
    warning.  A fusion maps K scores, not one, so it has no ``curve()``; its weights and
    offset say everything.  The quality-measure term ``q' W r`` of Brümmer & de Villiers (2011),
    eq. 30 enters the same objective as extra feature columns (the products ``q_i r_j``), so it
    extends this class without changing the optimizer.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.7.2, eq. 30; Brümmer (2010), sec. 8.3.1, eq. 8.16.

    Examples
    --------
    >>> import numpy as np
    >>> from llrlab.core import Trials
    >>> from llrlab.core.calibration import FusionCalibrator
    >>> rng = np.random.default_rng(0)
    >>> lab = rng.random(4000) < 0.3
    >>> a = np.where(lab, 1.0, -1.0) + rng.normal(size=4000)
    >>> b = np.where(lab, 1.0, -1.0) + rng.normal(size=4000)
    >>> fus = FusionCalibrator.fit([Trials(a, lab, source="A"), Trials(b, lab, source="B")])
    >>> fus.weights.round(1), fus.training.cllr < min(fus.training.cllr_raw)
    (array([2., 2.]), True)
    """

    weights: np.ndarray
    offset: float
    prior: float
    objective: float
    regularised: bool
    systems: tuple
    training: TrainingReport

    kind = "fusion"

    def __post_init__(self):
        w = np.array(self.weights, dtype=np.float64).reshape(-1)
        w.setflags(write=False)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "systems", tuple(self.systems))
        if len(self.systems) != w.size:
            raise DataError(f"{w.size} fusion weights for {len(self.systems)} system names")

    @classmethod
    def fit(cls, dev, *, prior=0.5, names=None):
        """Train on K labelled dev sets (a list of Trials), matched by trial id.

        Parameters
        ----------
        dev : list of Trials
            One per system.  Their keys must agree on every common trial's label; trial
            weights, if any, must be the same in every set.
        prior : float
            Training prior in (0, 1).
        names : list of str, optional
            The systems' names (default: each set's source).

        Raises
        ------
        DataError
            Fewer than one set, no common trial, labels that disagree, different weights,
            a missing class.
        """
        dev = list(dev)
        for i, t in enumerate(dev):
            if not isinstance(t, Trials):
                raise DataError(f"fusion is trained on labelled Trials; set {i + 1} is a "
                                f"{type(t).__name__}")
        notes = []
        with noting_warnings(notes):
            al, _ = align_systems(dev, what="fusion training")
            lab = al[0].labels
            for i, t in enumerate(al[1:], start=1):
                bad = np.flatnonzero(t.labels != lab)
                if bad.size:
                    j = int(bad[0])
                    trial = (f"{t.model_ids[j]} {t.segment_ids[j]}" if t.has_ids
                             else f"number {j + 1}")
                    raise DataError(
                        f"fusion training: the labels of {_name(al[0], 0)} and "
                        f"{_name(t, i)} disagree on {bad.size} trial(s), e.g. trial {trial} "
                        f"is a {'target' if lab[j] else 'non-target'} in the first")
            weights = al[0].weights
            for i, t in enumerate(al[1:], start=1):
                if (t.weights is None) != (weights is None) or (
                        weights is not None and not np.array_equal(t.weights, weights)):
                    raise DataError(f"fusion training: {_name(al[0], 0)} and {_name(t, i)} "
                                    f"carry different trial weights")
            x = np.column_stack([t.scores for t in al])
            labels = [_name(t, i) for i, t in enumerate(al)]
            what = "the fusion dev trials (" + ", ".join(labels) + ")"
            fit = fit_linear(x, lab, prior, weights=weights, what=what,
                             names=labels if names is None else list(names))
        llr = x @ fit.weights + fit.offset
        names = [_name(t, i) for i, t in enumerate(al)] if names is None else list(names)
        return cls(fit.weights, float(fit.offset), float(prior), fit.objective, fit.separable,
                   tuple(names), training_report(al, llr, notes))

    @property
    def n_systems(self):
        return int(self.weights.size)

    def apply(self, scores):
        """Fused LLRs of a score matrix of shape (n, K): ``scores @ weights + offset``."""
        x = np.asarray(scores, dtype=np.float64)
        if x.ndim == 1 and self.n_systems == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != self.n_systems:
            raise DataError(f"the fusion takes a score matrix with {self.n_systems} columns "
                            f"(one per system), got shape {x.shape}")
        if np.isnan(x).any():
            raise DataError("scores to fuse contain NaN")
        with np.errstate(over="ignore", invalid="ignore"):
            llr = x @ self.weights + self.offset
        return self._finite(llr, x)

    def _check_usable(self):
        """DataError unless the map is finite on the whole box of training score ranges:
        its largest LLR there is bounded by ``|offset| + sum_k |w_k| max(|lo_k|, |hi_k|)``."""
        ends = np.abs(np.array(self.training.score_range, dtype=np.float64)).max(axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            bound = abs(self.offset) + float(np.abs(self.weights) @ ends)
        if not np.isfinite(bound):
            raise DataError(f"the fusion's parameters overflow the floating-point range on "
                            f"its training scores ({self._param_summary()}); check the model")

    def apply_systems(self, systems):
        """Fused LLRs of K score sets (Scores or Trials), matched by trial id.

        Returns the first set's type restricted to the common trials, in its order; trials
        missing from some set are left out with a warning (see :func:`align_systems`).
        """
        systems = list(systems)
        if len(systems) != self.n_systems:
            raise DataError(f"the fusion was trained on {self.n_systems} systems "
                            f"({', '.join(self.systems)}); got {len(systems)} score sets")
        al, _ = align_systems(systems, what="fusion")
        return al[0].with_scores(self.apply(np.column_stack([s.scores for s in al])))

    def _params(self):
        return {"weights": self.weights.tolist(), "offset": self.offset, "prior": self.prior,
                "objective": self.objective, "regularised": self.regularised,
                "systems": list(self.systems)}

    @classmethod
    def _from_params(cls, params, training):
        _require_keys(params, ["weights", "offset", "prior", "objective", "regularised",
                               "systems"], "params")
        w = _numbers(params["weights"], "params.weights")
        names = [_str(v, "params.systems") for v in _list(params["systems"], "params.systems")]
        if w.size == 0 or len(names) != w.size:
            raise ValueError("params.weights and params.systems must be non-empty lists of "
                             "equal length")
        if len(training.cllr_raw) != w.size or len(training.score_range) != w.size:
            raise ValueError("the training report must describe one entry per system")
        return cls(w, _number(params["offset"], "params.offset"), _prior(params["prior"]),
                   _number(params["objective"], "params.objective"),
                   _bool(params["regularised"], "params.regularised"), tuple(names), training)

    def _param_lines(self):
        terms = " ".join(f"{signed(w)} * [{n}]" for w, n in zip(self.weights.tolist(),
                                                                self.systems, strict=True))
        terms = terms[2:] if terms.startswith("+ ") else "-" + terms[2:]
        return [f"linear fusion of {self.n_systems} systems: llr = {terms} "
                f"{signed(self.offset)}",
                f"training prior {self.prior:g}; Ce at that prior {self.objective:.6g} nats" +
                ("; regularised (separable dev scores)" if self.regularised else "")]
