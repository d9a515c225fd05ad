"""Calibration of score sets larger than memory: trained out of core, applied chunk by chunk.

* **PAV** is trained on the **full set**: the pooled blocks of :func:`analyze_dask` are the
  PAV solution of all trials (exact, see :mod:`llrlab.core.scale._kernel`), turned into a
  :class:`~llrlab.core.calibration.PAVCalibrator` exactly as ``PAVCalibrator.fit`` does.
* **Affine** calibration is trained on a **uniform random sample** of at most
  ``sample_size`` trials per class (the whole class when it has fewer): the sample is drawn
  in one pass, then :class:`~llrlab.core.calibration.AffineCalibrator` is fitted in memory.
  Two parameters are estimated from millions of trials, so the sample's statistical error
  is far below what any evaluation resolves; when both classes fit in the sample the
  calibration is the in-memory one exactly.
* :func:`write_calibrated` applies any calibrator partition by partition and writes the
  calibrated LLRs as a Parquet dataset (one file per partition), never holding more than
  one partition per task in memory.
"""

from __future__ import annotations

import os

import numpy as np

from ..calibration import AffineCalibrator, PAVCalibrator, TrainingReport
from ..calibration.isotonic import PSEUDO_COUNT
from ..cllr import _min_cllr
from ..errors import DataError
from ..trials import Trials
from ._dask import compute, dask_modules, scheduler_of
from ._frame import as_frame

__all__ = ["SAMPLE_SIZE", "fit_calibrator_dask", "write_calibrated"]

#: Largest number of trials per class in the training sample of the affine calibration.
SAMPLE_SIZE = 10_000_000


def _pav_from_analysis(a, source):
    """``PAVCalibrator.fit`` on the blocks of a (Dask) analysis."""
    f = a.blocks
    llr = f.llr.copy()
    pure = ~np.isfinite(llr)
    base = np.log(f.n_tar) - np.log(f.n_non)
    llr[pure] = np.log(f.tar[pure] + PSEUDO_COUNT) - np.log(f.non[pure] + PSEUDO_COUNT) - base
    pure_ends = (bool(f.tar[0] == 0), bool(f.non[-1] == 0))
    if llr.size > 1:
        if pure_ends[0]:
            llr[0] = min(llr[0], llr[1])
        if pure_ends[1]:
            llr[-1] = max(llr[-1], llr[-2])
    report = TrainingReport(source=source, n_tar=a.n_tar, n_non=a.n_non,
                            weighted=bool(a.sorted.weighted), cllr_raw=(float(a.cllr),),
                            cllr=float(_min_cllr(f, llr)), min_cllr=float(_min_cllr(f)),
                            score_range=((float(f.lower[0]), float(f.upper[-1])),),
                            notes=("trained out of core on all trials (Dask)",))
    return PAVCalibrator(f.lower, f.upper, llr, pure_ends, report)


def _sample_part(pdf, rates, seed, index):
    rng = np.random.default_rng([seed, index])
    lab = pdf["label"].to_numpy(dtype=bool)
    p = np.where(lab, rates[0], rates[1])
    keep = p >= 1.0
    keep |= rng.random(lab.size) < p
    cols = ["score", "label"] + (["weight"] if "weight" in pdf.columns else [])
    return pdf[cols][keep]


def _counts_part(pdf):
    lab = pdf["label"].to_numpy(dtype=bool)
    return int(lab.sum()), int(lab.size - lab.sum())


def sample_trials(data, sample_size=SAMPLE_SIZE, *, seed=0, client=None):
    """A uniform random sample of at most about ``sample_size`` trials per class, as
    in-memory :class:`~llrlab.core.Trials` (every trial of a class with fewer)."""
    import pandas as pd

    dask, _ = dask_modules()
    frame, where = as_frame(data)
    scheduler, _ = scheduler_of(client)
    parts = frame.to_delayed()
    counts = compute([dask.delayed(_counts_part)(p) for p in parts], scheduler)
    n_tar, n_non = (sum(c[i] for c in counts) for i in (0, 1))
    if n_tar == 0 or n_non == 0:
        raise DataError(f"{where} has no {'target' if n_tar == 0 else 'non-target'} trials; "
                        f"calibration needs both classes")
    rates = (min(1.0, sample_size / n_tar), min(1.0, sample_size / n_non))
    got = compute([dask.delayed(_sample_part)(p, rates, seed, i)
                   for i, p in enumerate(parts)], scheduler)
    df = pd.concat(got, ignore_index=True)
    w = df["weight"].to_numpy(np.float64) if "weight" in df.columns else None
    t = Trials(df["score"].to_numpy(np.float64), df["label"].to_numpy(bool), w,
               source=getattr(data, "source", "") or where)
    return t, (n_tar, n_non), rates


def fit_calibrator_dask(data, *, method="affine", prior=0.5, client=None,
                        sample_size=SAMPLE_SIZE, seed=0):
    """Train a calibrator on an out-of-core dev set.

    Parameters
    ----------
    data
        What :func:`~llrlab.core.scale.analyze_dask` takes.
    method : {"affine", "pav"}
        ``"pav"``: trained on every trial (exact); ``"affine"``: on a uniform random sample
        of at most ``sample_size`` trials per class (see the module docstring).
    prior : float
        Training prior of the affine calibration.
    client
        As in :func:`~llrlab.core.scale.analyze_dask`.

    Returns
    -------
    llrlab.core.calibration.Calibrator
    """
    from .analysis import analyze_dask

    source = getattr(data, "source", "") or "the dev set"
    if method == "pav":
        return _pav_from_analysis(analyze_dask(data, plo=[0.0], client=client), source)
    if method != "affine":
        raise DataError(f"out of core, the calibration method must be 'affine' or 'pav', "
                        f"got {method!r} (fusion needs trial ids matched across systems)")
    trials, (n_tar, n_non), rates = sample_trials(data, sample_size, seed=seed, client=client)
    cal = AffineCalibrator.fit(trials, prior=prior)
    if rates == (1.0, 1.0):
        note = "trained out of core on all trials"
    else:
        note = (f"trained on a uniform random sample of {trials.n_tar:,} of {n_tar:,} targets "
                f"and {trials.n_non:,} of {n_non:,} non-targets")
    tr = cal.training
    report = TrainingReport(tr.source, tr.n_tar, tr.n_non, tr.weighted, tr.cllr_raw, tr.cllr,
                            tr.min_cllr, tr.score_range, (*tr.notes, note))
    return AffineCalibrator(cal.scale, cal.offset, cal.prior, cal.objective, cal.regularised,
                            report)


def _apply_part(pdf, cal):
    s = pdf["score"].to_numpy(dtype=np.float64)
    return pdf.assign(score=np.asarray(cal.apply(s), dtype=np.float64))


def write_calibrated(data, calibrator, path, *, client=None):
    """Apply ``calibrator`` to every trial and write the calibrated set as Parquet.

    Each partition is read, calibrated and written by one task, as ``path/part.N.parquet``
    with the columns of the input (``score`` now the calibrated LLR, float64).  Returns the
    number of trials written.

    Raises
    ------
    DataError
        ``path`` exists and is not an empty directory (nothing is overwritten).
    """
    frame, _ = as_frame(data)
    if calibrator.n_systems != 1:
        raise DataError(f"a fusion of {calibrator.n_systems} systems cannot calibrate one "
                        f"score set")
    name = os.fspath(path)
    if os.path.exists(name) and (not os.path.isdir(name) or os.listdir(name)):
        raise DataError(f"{name} exists; write the calibrated scores to a new directory")
    scheduler, _ = scheduler_of(client)
    meta = frame._meta.assign(score=frame._meta["score"].astype(np.float64))
    out = frame.map_partitions(_apply_part, calibrator, meta=meta)
    task = out.to_parquet(name, compute=False, write_index=False)
    # one graph: the input partitions are read once for both
    _, n = compute([task, frame.map_partitions(len).sum()], scheduler)
    return int(n)
