"""Calibrators: affine, linear fusion and PAV, trained on dev trials and applied to scores.

Every calibrator is callable (``cal(scores) -> llrs``), serialises to a versioned JSON dict
(``to_dict`` / :func:`from_dict`) and reports what a user needs to judge it (``report``).

References: seed 000 sections 2.7, 3.2 and 3.3; seed 004 chapters 7-8 and appendix C;
../shared/CONVENTIONS.md "PAV" and "Logistic-regression calibration and fusion".
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..cllr import cllr
from ..errors import DataError, FileFormatError, LlrlabWarning
from ..pav import pav
from ..trials import Scores, Trials
from ._logreg import fit_linear

__all__ = ["AffineCalibrator", "FusionCalibrator", "PAVCalibrator", "apply_fusion",
           "fit_calibrator", "from_dict", "load_calibrator", "train_affine", "train_fusion",
           "train_pav"]

FORMAT_VERSION = 1


def _apply_to(cal, x):
    if isinstance(x, (Trials, Scores)):
        return x.with_scores(cal.apply(x.scores))
    return cal.apply(np.asarray(x, dtype=np.float64))


@dataclass(frozen=True)
class AffineCalibrator:
    """``llr = scale * score + offset``, trained by minimizing ``Ce(prior)`` on dev.

    Attributes: ``scale``, ``offset``, ``prior`` (training prior), ``cllr_before`` and
    ``cllr_after`` (train Cllr in bits), ``n_tar``, ``n_non``, ``separable``.
    """

    scale: float
    offset: float
    prior: float = 0.5
    cllr_before: float = float("nan")
    cllr_after: float = float("nan")
    n_tar: int = 0
    n_non: int = 0
    separable: bool = False

    def apply(self, scores):
        return self.scale * np.asarray(scores, dtype=np.float64) + self.offset

    __call__ = _apply_to

    def curve(self, lo, hi, n=200):
        s = np.linspace(lo, hi, n)
        return s, self.apply(s)

    def to_dict(self):
        return {"llrlab_calibrator": FORMAT_VERSION, "kind": "affine", "scale": self.scale,
                "offset": self.offset, "prior": self.prior, "cllr_before": self.cllr_before,
                "cllr_after": self.cllr_after, "n_tar": self.n_tar, "n_non": self.n_non,
                "separable": self.separable}

    def report(self):
        return {k: v for k, v in self.to_dict().items() if k != "llrlab_calibrator"}


@dataclass(frozen=True)
class FusionCalibrator:
    """``llr = offset + sum_k weights[k] * s_k`` over K aligned systems."""

    weights: tuple
    offset: float
    prior: float = 0.5
    cllr_after: float = float("nan")

    def apply_matrix(self, x):
        return np.asarray(x, dtype=np.float64) @ np.asarray(self.weights) + self.offset

    def to_dict(self):
        return {"llrlab_calibrator": FORMAT_VERSION, "kind": "fusion",
                "weights": list(self.weights), "offset": self.offset, "prior": self.prior,
                "cllr_after": self.cllr_after}

    def report(self):
        return {k: v for k, v in self.to_dict().items() if k != "llrlab_calibrator"}


@dataclass(frozen=True)
class PAVCalibrator:
    """Non-parametric monotone calibration from the PAV solution of the dev trials.

    On unseen scores the LLR is constant inside each training block and linear between the
    top of one block and the bottom of the next; below the lowest and above the highest
    training score it saturates at the end blocks' values.  Pure end blocks (LLR +-inf on
    the training set) get the finite value ``log((tar + 0.5) / (non + 0.5)) - log(T/N)``
    (half a pseudo-trial of each class), then the knot values are made non-decreasing, so
    eval LLRs -- and eval Cllr -- are always finite.
    """

    knots: tuple
    values: tuple
    n_blocks: int
    cllr_before: float = float("nan")
    min_cllr: float = float("nan")

    def apply(self, scores):
        return np.interp(np.asarray(scores, dtype=np.float64), self.knots, self.values)

    __call__ = _apply_to

    def curve(self, lo, hi, n=400):
        s = np.linspace(lo, hi, n)
        return s, self.apply(s)

    def to_dict(self):
        return {"llrlab_calibrator": FORMAT_VERSION, "kind": "pav", "knots": list(self.knots),
                "values": list(self.values), "n_blocks": self.n_blocks,
                "cllr_before": self.cllr_before, "min_cllr": self.min_cllr}

    def report(self):
        return {k: v for k, v in self.to_dict().items()
                if k not in ("llrlab_calibrator", "knots", "values")}


def train_affine(trials: Trials, *, prior=0.5) -> AffineCalibrator:
    """Affine calibration trained on dev trials at the training prior (default 0.5)."""
    t = trials.require_both_classes()
    w, _, sep = fit_linear(t.tar[:, None], t.non[:, None], prior, w_tar=t.tar_weights,
                           w_non=t.non_weights)
    a, b = float(w[0]), float(w[1])
    after = cllr(a * t.tar + b, a * t.non + b, tar_weights=t.tar_weights,
                 non_weights=t.non_weights)
    return AffineCalibrator(a, b, float(prior), cllr(t), after, t.n_tar, t.n_non, bool(sep))


def train_pav(trials: Trials) -> PAVCalibrator:
    """PAV calibration trained on dev trials (see :class:`PAVCalibrator`)."""
    t = trials.require_both_classes()
    f = pav(t.scores, t.labels, weights=t.weights)
    base = np.log(f.n_tar) - np.log(f.n_non)
    llr = f.llr.copy()
    pure = ~np.isfinite(llr)
    llr[pure] = np.log(f.tar[pure] + 0.5) - np.log(f.non[pure] + 0.5) - base
    # keep the smoothed values monotone: raise from the left, lower from the right
    llr = np.maximum.accumulate(llr)
    llr = np.minimum.accumulate(llr[::-1])[::-1]
    knots = np.column_stack([f.lower, f.upper]).ravel()
    values = np.repeat(llr, 2)
    # equal knots (single-score blocks) are fine for np.interp; make them strictly ordered
    from .._sorting import pooled_blocks, sort_scores
    from ..cllr import _min_cllr

    mc = _min_cllr(pooled_blocks(sort_scores(t.tar, t.non, tar_weights=t.tar_weights,
                                             non_weights=t.non_weights)))
    return PAVCalibrator(tuple(knots.tolist()), tuple(values.tolist()), f.n_blocks, cllr(t),
                         float(mc))


def _align(systems):
    """Align several Trials/Scores by (model, segment); report trials missing from some."""
    if not systems:
        raise DataError("fusion needs at least one system")
    if all(s.has_ids for s in systems):
        keys = [s.keys() for s in systems]
        common = keys[0]
        for k in keys[1:]:
            common = np.intersect1d(common, k)
        if common.size == 0:
            raise DataError("the systems share no trial (model, segment) ids")
        idx = []
        for i, k in enumerate(keys):
            missing = k.size - common.size
            if missing:
                import warnings

                warnings.warn(LlrlabWarning(
                    f"system {i + 1} ({systems[i].source or 'unnamed'}): {missing} trial(s) "
                    "not in every system were left out of the fusion"), stacklevel=3)
            order = np.argsort(k)
            idx.append(order[np.searchsorted(k[order], common)])
        return [s.subset(i) for s, i in zip(systems, idx, strict=True)]
    n = len(systems[0])
    if any(len(s) != n for s in systems):
        raise DataError("systems without trial ids must have the same number of trials")
    return list(systems)


def train_fusion(systems, *, prior=0.5) -> FusionCalibrator:
    """Linear fusion of K aligned dev systems (list of Trials)."""
    al = _align(systems)
    lab = al[0].labels
    for s in al[1:]:
        if not np.array_equal(s.labels, lab):
            raise DataError("the systems' keys disagree on some trial's label")
    x = np.column_stack([s.scores for s in al])
    w, _, _ = fit_linear(x[lab], x[~lab], prior)
    llr = x @ w[:-1] + w[-1]
    return FusionCalibrator(tuple(float(v) for v in w[:-1]), float(w[-1]), float(prior),
                            cllr(llr[lab], llr[~lab]))


def apply_fusion(model: FusionCalibrator, systems):
    """Fused LLRs of K aligned systems, as the first system's type (Trials or Scores)."""
    al = _align(systems)
    if len(al) != len(model.weights):
        raise DataError(f"the fusion was trained on {len(model.weights)} systems, "
                        f"got {len(al)}")
    return al[0].with_scores(model.apply_matrix(np.column_stack([s.scores for s in al])))


def fit_calibrator(trials: Trials, *, method="affine", prior=0.5):
    """Train ``method`` ("affine" or "pav") on dev trials."""
    if method == "affine":
        return train_affine(trials, prior=prior)
    if method == "pav":
        return train_pav(trials)
    raise DataError(f"unknown calibration method {method!r} (use 'affine' or 'pav')")


def from_dict(d, *, source="calibration"):
    """A calibrator from its ``to_dict()`` form; raises FileFormatError when malformed."""
    try:
        if d.get("llrlab_calibrator") != FORMAT_VERSION:
            raise ValueError(f"not an llrlab calibrator of format {FORMAT_VERSION}")
        kind = d["kind"]
        if kind == "affine":
            return AffineCalibrator(float(d["scale"]), float(d["offset"]), float(d["prior"]),
                                    float(d["cllr_before"]), float(d["cllr_after"]),
                                    int(d["n_tar"]), int(d["n_non"]), bool(d["separable"]))
        if kind == "pav":
            knots = np.asarray(d["knots"], dtype=float)
            values = np.asarray(d["values"], dtype=float)
            if knots.shape != values.shape or knots.size == 0 or np.any(np.diff(knots) < 0):
                raise ValueError("knots and values must be non-empty, equal-length, sorted")
            return PAVCalibrator(tuple(knots), tuple(values), int(d["n_blocks"]),
                                 float(d["cllr_before"]), float(d["min_cllr"]))
        if kind == "fusion":
            return FusionCalibrator(tuple(float(v) for v in d["weights"]), float(d["offset"]),
                                    float(d["prior"]), float(d["cllr_after"]))
        raise ValueError(f"unknown kind {kind!r}")
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise FileFormatError(source, f"not a valid calibration model: {what}") from None


def load_calibrator(path):
    """Read a calibrator saved as JSON (``json.dump(cal.to_dict(), f)``)."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except OSError as exc:
        raise FileFormatError(path, f"cannot read: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FileFormatError(path, f"not valid JSON: {exc}") from None
    return from_dict(d, source=path)
