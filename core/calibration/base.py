"""What every calibrator shares: the training report, application, and the JSON model format.

A calibrator maps scores to calibrated log-likelihood-ratios (natural log).  It is trained on
labelled dev trials with ``Kind.fit(dev, ...)`` and applied by calling it:

* ``cal(array)`` -> array of LLRs (shape (n,); shape (n, K) input for a K-system fusion);
* ``cal(scores)`` with a :class:`~llrlab.core.trials.Scores` or
  :class:`~llrlab.core.trials.Trials` -> the same object with the LLRs as its scores
  (a list of K of them for a fusion, aligned by trial id).

``to_dict()`` gives a JSON-serialisable, versioned description from which
:func:`from_dict` rebuilds an identical calibrator (floats survive JSON exactly);
:func:`save_calibrator` / :func:`load_calibrator` write and read it as a file.

Model format, version 1::

    {"llrlab_calibrator": 1, "kind": "affine" | "pav" | "fusion",
     "params": {...kind-specific...}, "training": {...TrainingReport...}}

References: Brümmer & de Villiers (2011), sec. 2.7 and 4.3-4.4 (train on dev, apply to eval or to
the same set).
"""

from __future__ import annotations

import json
import math
import os
import reprlib
import warnings
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields

import numpy as np

from .._repr import summary_repr
from .._validate import as_scores
from ..errors import DataError, FileFormatError, LlrlabWarning
from ..trials import Scores, Trials

__all__ = ["FORMAT_VERSION", "Calibrator", "TrainingReport", "from_dict", "load_calibrator",
           "noting_warnings", "save_calibrator", "training_report"]

#: Version of the JSON model format written by :meth:`Calibrator.to_dict`.
FORMAT_VERSION = 1

_KINDS: dict[str, type] = {}


@summary_repr("source", "n_tar", "n_non", "cllr", "min_cllr")
@dataclass(frozen=True)
class TrainingReport:
    """What a calibrator was trained on, and how it did there.

    Attributes
    ----------
    source : str
        The dev set(s) it was trained on (file names), for messages and reports.
    n_tar, n_non : int
        Number of target and non-target training trials.
    weighted : bool
        The trials carried weights (counts and Cllr are then weighted).
    cllr_raw : tuple of float
        Cllr (bits) of each input system's raw training scores read as LLRs.
    cllr : float
        Cllr (bits) of the calibrated training LLRs.
    min_cllr : float
        Minimum Cllr (bits) of the calibrated training LLRs: their discrimination loss.
        ``cllr - min_cllr`` is what calibration left of the calibration loss.
    score_range : tuple of (float, float)
        Smallest and largest training score of each system; outside it the map
        extrapolates (affine) or saturates (PAV).
    notes : tuple of str
        Warnings raised while training (separable data, collinear systems, trials missing
        from a system, ...).
    """

    source: str
    n_tar: int
    n_non: int
    weighted: bool
    cllr_raw: tuple
    cllr: float
    min_cllr: float
    score_range: tuple
    notes: tuple = ()

    def to_dict(self):
        d = asdict(self)
        d["cllr_raw"] = list(self.cllr_raw)
        d["score_range"] = [list(r) for r in self.score_range]
        d["notes"] = list(self.notes)
        return d

    @classmethod
    def from_dict(cls, d):
        _require_keys(d, [f.name for f in fields(cls)], "training")
        ranges = d["score_range"]
        if not isinstance(ranges, list) or not all(
                isinstance(r, list) and len(r) == 2 for r in ranges):
            raise ValueError("training.score_range must be a list of [low, high] pairs")
        rep = cls(
            source=_str(d["source"], "training.source"),
            n_tar=_count(d["n_tar"], "training.n_tar"),
            n_non=_count(d["n_non"], "training.n_non"),
            weighted=_bool(d["weighted"], "training.weighted"),
            cllr_raw=tuple(_number(v, "training.cllr_raw") for v in _list(d["cllr_raw"],
                                                                          "training.cllr_raw")),
            cllr=_number(d["cllr"], "training.cllr"),
            min_cllr=_number(d["min_cllr"], "training.min_cllr"),
            score_range=tuple((_number(lo, "training.score_range"),
                               _number(hi, "training.score_range")) for lo, hi in ranges),
            notes=tuple(_str(v, "training.notes") for v in _list(d["notes"], "training.notes")),
        )
        if any(lo > hi for lo, hi in rep.score_range):
            raise ValueError("training.score_range has a low end above its high end")
        return rep

    def lines(self):
        """Human-readable lines (for the command line)."""
        out = [f"trained on {self.source or 'the dev trials'}: {self.n_tar} target and "
               f"{self.n_non} non-target trials" + (" (weighted)" if self.weighted else "")]
        raw = ", ".join(f"{c:.6g}" for c in self.cllr_raw)
        out.append(f"train Cllr: {raw} before, {self.cllr:.6g} after "
                   f"(min Cllr {self.min_cllr:.6g}) [bits]")
        out += [f"note: {n}" for n in self.notes]
        return out


class Calibrator(ABC):
    """Interface of every calibrator (subclasses are frozen dataclasses).

    Subclasses define ``kind``, ``n_systems``, ``fit`` (classmethod), ``apply`` (arrays),
    ``_params`` / ``_from_params`` (the ``"params"`` part of the model format) and
    ``report``.
    """

    kind: str = ""
    training: TrainingReport

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.kind:
            _KINDS[cls.kind] = cls

    # ------------------------------------------------------------------ application
    @property
    def n_systems(self):
        return 1

    @property
    def monotone(self):
        """True when the map never decreases with the score (single-system maps only)."""
        return False

    @property
    def strictly_increasing(self):
        """True when distinct scores stay distinct and ordered (order-based results kept)."""
        return False

    @abstractmethod
    def apply(self, scores):
        """LLRs of a score array (shape (n,), or (n, K) for a K-system fusion)."""

    def __call__(self, x):
        """LLRs of ``x``: an array, a Scores/Trials, or (fusion) a list of them."""
        if isinstance(x, (Scores, Trials)):
            if self.n_systems != 1:
                raise DataError(f"this {self.kind} was trained on {self.n_systems} systems; "
                                f"give a list of {self.n_systems} score sets")
            return x.with_scores(self.apply(x.scores))
        if isinstance(x, (list, tuple)) and x and isinstance(x[0], (Scores, Trials)):
            return self.apply_systems(x)
        return self.apply(x)

    def apply_systems(self, systems):
        """LLRs of a list of score sets (one per system), as the first one's type."""
        if len(systems) != 1:
            raise DataError(f"this {self.kind} calibration takes one score set, got "
                            f"{len(systems)}")
        return self(systems[0])

    def _scores(self, scores):
        return as_scores(scores, "scores to calibrate", allow_empty=True, allow_inf=True)

    def _finite(self, llr, x):
        """``llr``, or a :class:`DataError` naming the calibration when a finite score
        (a row of finite scores for a fusion) got an infinite or NaN LLR: a map whose
        parameters overflow the floating-point range, not a fault of the scores."""
        bad = ~np.isfinite(llr)
        if bad.any():
            finite_in = np.isfinite(x) if x.ndim == 1 else np.isfinite(x).all(axis=1)
            bad &= finite_in
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                score = float(x[i]) if x.ndim == 1 else [float(v) for v in x[i]]
                raise DataError(
                    f"the calibration maps the score {_show(score)} to the LLR "
                    f"{float(llr[i])!r}: its parameters overflow the floating-point range "
                    f"for these scores ({self._param_summary()}); check the model")
        return llr

    def _param_summary(self):
        """The map in a few words, for messages."""
        text = self._param_lines()[0]
        return text if len(text) <= 120 else text[:117] + "..."

    def _check_usable(self):
        """DataError unless the map gives finite LLRs at the ends and the middle of its own
        training score range (every corner of it for a fusion is bounded by the check of
        :class:`~llrlab.core.calibration.fusion.FusionCalibrator`)."""
        lo = np.array([r[0] for r in self.training.score_range])
        hi = np.array([r[1] for r in self.training.score_range])
        probe = np.stack([lo, hi, 0.5 * lo + 0.5 * hi])
        self.apply(probe if self.n_systems > 1 else probe[:, 0])

    # ------------------------------------------------------------------ serialisation
    @abstractmethod
    def _params(self):
        """The kind-specific ``"params"`` of the model format (JSON-serialisable)."""

    @classmethod
    @abstractmethod
    def _from_params(cls, params, training):
        """Rebuild from ``_params()``; raise ValueError naming a malformed field."""

    def to_dict(self):
        """A JSON-serialisable, versioned description (see the module docstring)."""
        return {"llrlab_calibrator": FORMAT_VERSION, "kind": self.kind,
                "params": self._params(), "training": self.training.to_dict()}

    def report(self):
        """Flat dict of what a user needs to judge the calibrator (JSON-serialisable)."""
        t = self.training
        d = {"method": self.kind}
        d.update(self._params())
        d.update({"train_source": t.source, "train_n_tar": t.n_tar, "train_n_non": t.n_non,
                  "train_cllr_before": t.cllr_raw[0] if len(t.cllr_raw) == 1
                  else list(t.cllr_raw),
                  "train_cllr_after": t.cllr, "train_min_cllr": t.min_cllr})
        if t.notes:
            d["notes"] = list(t.notes)
        return d

    def lines(self):
        """Human-readable description (for the command line)."""
        return self._param_lines() + self.training.lines()

    @abstractmethod
    def _param_lines(self):
        """Lines describing the parameters."""


def from_dict(d, *, source="calibration model"):
    """A calibrator from its ``to_dict()`` form.

    Raises
    ------
    FileFormatError
        Naming ``source`` and what is wrong: not an llrlab model, a newer format version,
        an unknown kind, a missing or malformed field.
    """
    try:
        if not isinstance(d, dict) or "llrlab_calibrator" not in d:
            raise ValueError("not an llrlab calibration model (no 'llrlab_calibrator' field)")
        version = d["llrlab_calibrator"]
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ValueError(f"'llrlab_calibrator' must be a format version number, got "
                             f"{_show(version)}")
        if version > FORMAT_VERSION:
            raise ValueError(f"written in model format {_show(version)} by a newer llrlab; "
                             f"this one reads format {FORMAT_VERSION}")
        _require_keys(d, ["kind", "params", "training"], "model")
        kind = d["kind"]
        cls = _KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise ValueError(f"unknown kind {_show(kind)} (known: {', '.join(sorted(_KINDS))})")
        if not isinstance(d["params"], dict) or not isinstance(d["training"], dict):
            raise ValueError("'params' and 'training' must be objects")
        training = TrainingReport.from_dict(d["training"])
        with np.errstate(over="ignore", invalid="ignore"):  # hostile numbers: checked below
            cal = cls._from_params(d["params"], training)
            cal._check_usable()
        return cal
    except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        # (DataError, a ValueError: the map overflows where _check_usable probes it)
        why = ("it is nested too deeply" if isinstance(exc, RecursionError) else
               str(exc) if isinstance(exc, (ValueError, TypeError)) else
               f"a number in it is out of range ({exc})")
        raise FileFormatError(source, f"not a valid calibration model: {why}") from None


def save_calibrator(cal, path):
    """Write ``cal.to_dict()`` as standard JSON (no NaN or infinity), indented.

    Raises
    ------
    TypeError
        ``cal`` is not a calibrator or ``path`` not a file path (naming the argument).
    FileFormatError
        The file cannot be written.
    """
    if not isinstance(cal, Calibrator):
        swapped = " (the arguments are swapped?)" if isinstance(path, Calibrator) else ""
        raise TypeError(f"save_calibrator: the first argument, cal, must be a calibrator "
                        f"(e.g. from fit_calibrator), got {type(cal).__name__}{swapped}")
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"save_calibrator: the second argument, path, must be a file path, "
                        f"got {type(path).__name__}")
    name = os.fspath(path)
    text = json.dumps(cal.to_dict(), indent=2, allow_nan=False) + "\n"
    try:
        with open(name, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise FileFormatError(name, f"cannot be written ({exc.strerror or exc})") from None


def load_calibrator(path):
    """Read a calibrator written by :func:`save_calibrator`.

    Raises
    ------
    TypeError
        ``path`` is not a file path.
    FileFormatError
        One line naming the file and what is wrong: missing or unreadable, not JSON (also:
        nested too deeply, a number with too many digits), or not a valid model (see
        :func:`from_dict`).
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"load_calibrator: path must be a file path, got {type(path).__name__}")
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as f:
            d = json.load(f)
    except FileNotFoundError:
        raise FileFormatError(name, "file not found") from None
    except OSError as exc:
        raise FileFormatError(name, f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise FileFormatError(name, "not valid JSON: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise FileFormatError(name, f"not valid JSON: {exc.msg}", line=exc.lineno) from None
    except RecursionError:
        raise FileFormatError(name, "not a calibration model: its JSON is nested too deeply") \
            from None
    except ValueError as exc:  # the integer digit limit of int() (CVE-2020-10735)
        what = ("a number in it has too many digits" if "digits" in str(exc)
                else f"not valid JSON ({_show(str(exc))})")
        raise FileFormatError(name, f"not a calibration model: {what}") from None
    return from_dict(d, source=name)


# ---------------------------------------------------------------------- field validation
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40
_REPR.maxlevel = 3


def _show(v):
    """A short repr of a value read from a file (bounded length and nesting depth)."""
    return _REPR.repr(v)


#: Significant digits of a model parameter in text meant for people (``lines()``): enough
#: to copy a formula (LLRs within ``1e-9`` relative), few enough that outputs do not differ
#: in the last digits between CPUs and BLAS builds (the optimiser's result agrees to about
#: ``1e-12``).  ``to_dict()`` and the model file keep every parameter in full.
PARAMETER_DIGITS = 10


def param_text(x):
    """A model parameter for people, to ``PARAMETER_DIGITS`` significant digits.

    >>> param_text(21.673122735293877), param_text(-7.776769511777271), param_text(-0.0)
    ('21.67312274', '-7.776769512', '0')
    >>> param_text(1.5e-12), param_text(123456789012.5)
    ('1.5e-12', '1.23456789e+11')
    """
    x = float(x)
    return "0" if x == 0 else f"{x:.{PARAMETER_DIGITS}g}"


def signed(x):
    """``"+ 1.5"`` or ``"- 1.5"`` (see :func:`param_text`), to write a sum term by term."""
    return f"- {param_text(-x)}" if x < 0 else f"+ {param_text(x)}"


def _require_keys(d, keys, where):
    missing = [k for k in keys if k not in d]
    if missing:
        raise ValueError(f"{where} is missing the field(s) {', '.join(map(repr, missing))}")


def _number(v, name):
    """``v`` as a finite float, else ValueError naming the field."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{name} must be a number, got {_show(v)}")
    try:
        f = float(v)
    except OverflowError:
        raise ValueError(f"{name} is too large for a floating-point number, got "
                         f"{_show(v)}") from None
    if not math.isfinite(f):
        raise ValueError(f"{name} must be finite, got {_show(v)}")
    return f


#: Largest count of trials a model may declare.
_MAX_COUNT = 2 ** 53


def _count(v, name):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _MAX_COUNT:
        raise ValueError(f"{name} must be a non-negative whole number (of trials, at most "
                         f"2^53), got {_show(v)}")
    return v


def _of_type(kind, what):
    """A validator: ``v`` if it is a ``kind``, else ValueError '<name> must be <what>'."""
    def check(v, name):
        if not isinstance(v, kind):
            raise ValueError(f"{name} must be {what}, got {_show(v)}")
        return v
    return check


_bool = _of_type(bool, "true or false")
_str = _of_type(str, "a string")
_list = _of_type(list, "a list")


def _numbers(v, name):
    """A list of finite numbers as a float64 array."""
    return np.array([_number(x, name) for x in _list(v, name)], dtype=np.float64)


def _prior(v, name="params.prior"):
    p = _number(v, name)
    if not 0.0 < p < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {_show(p)}")
    return p


# ---------------------------------------------------------------------- training helpers
@contextmanager
def noting_warnings(notes):
    """Record the messages of LlrlabWarnings raised inside into ``notes``, then re-issue them.

    Every warning is passed on unchanged (so filters and ``pytest.warns`` still see it);
    llrlab's own are also kept in the calibrator's training report.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        if issubclass(w.category, LlrlabWarning):
            notes.append(str(w.message))
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def training_report(systems, llr=None, notes=(), *, cllr_after=None, min_cllr_after=None,
                    source=None, cllr_raw=None, score_range=None):
    """The :class:`TrainingReport` of a calibrator trained on the aligned dev ``systems``.

    ``llr`` are the calibrated dev LLRs; a calibrator that knows their Cllr or minimum Cllr
    more cheaply (PAV from its blocks, an increasing affine map from the raw scores' cached
    sort) passes ``cllr_after`` / ``min_cllr_after`` instead, and likewise the systems' raw
    Cllr (``cllr_raw``, one per system) and score ranges (``score_range``).
    """
    from ..cllr import cllr, min_cllr

    t0 = systems[0]
    if llr is not None:
        tw, nw = t0.tar_weights, t0.non_weights
        lt, ln = llr[t0.labels], llr[~t0.labels]
        if cllr_after is None:
            cllr_after = cllr(lt, ln, tar_weights=tw, non_weights=nw)
        if min_cllr_after is None:
            min_cllr_after = min_cllr(lt, ln, tar_weights=tw, non_weights=nw)
    if cllr_raw is None:
        cllr_raw = [cllr(s) for s in systems]
    if score_range is None:
        score_range = [(float(s.scores.min()), float(s.scores.max())) for s in systems]
    return TrainingReport(
        source=source if source is not None else " + ".join(s.source or "dev" for s in systems),
        n_tar=t0.n_tar, n_non=t0.n_non, weighted=t0.weights is not None,
        cllr_raw=tuple(float(c) for c in cllr_raw),
        cllr=float(cllr_after), min_cllr=float(min_cllr_after),
        score_range=tuple((float(lo), float(hi)) for lo, hi in score_range),
        notes=tuple(notes))
