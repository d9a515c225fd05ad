"""Uncertainty of the shown measures: binomial intervals at the operating point (a few binary
searches: they follow a drag) and bootstrap intervals (a pass per replicate: on request)."""

from __future__ import annotations

from llrlab.core import Analysis, DataError
from llrlab.core.uncertainty import bootstrap_ci, operating_point_ci

from .results import DatasetResult

__all__ = ["CI_METHODS", "bootstrap", "op_interval"]

#: Interval methods of the UI -> ``llrlab.core.uncertainty`` method names.
CI_METHODS = {"normal": "normal", "wilson": "wilson", "exact": "clopper-pearson"}


def op_interval(a: Analysis, plo, *, method="wilson", confidence=0.95):
    """Binomial intervals of Pmiss, Pfa and the actual DCF of ``a`` at ``plo``
    (:func:`llrlab.core.uncertainty.operating_point_ci`; ``method`` as in
    :data:`CI_METHODS`).  With condition weights the variance of each rate is summed over
    the conditions (``OperatingPointCI.variance`` names it); weighted trials on Dask raise a
    :class:`~llrlab.core.DataError` (that variance needs the trials in memory)."""
    return operating_point_ci(a, plo=float(plo), confidence=confidence,
                              method=CI_METHODS[method])


def bootstrap(d: DatasetResult, plo, *, n_boot=200, confidence=0.95, by="trial", seed=0):
    """Bootstrap intervals of Cllr, min/act DCF at ``plo`` and EER of one dataset's LLRs
    (:func:`llrlab.core.uncertainty.bootstrap_ci`, BCa intervals; ``by`` "trial" or
    "speaker"); the condition weights of the pool, if any, weight every replicate."""
    t = d.llr_trials()
    if t is None:
        raise DataError(f"{d.label}: no trials to resample")
    return bootstrap_ci(t, plo=float(plo), n_boot=int(n_boot), confidence=confidence, by=by,
                        seed=seed)
