"""The entry point: :func:`compute_results` builds the :class:`~.results.Results` of one choice
of data and calibration (one system, the fusion of all, or teaching mode's synthetic data)."""

from __future__ import annotations

from .conditions import ConditionSpec
from .fusion import fusion_results
from .results import Results
from .system import system_results
from .teaching import teaching_results

__all__ = ["compute_results"]


def _no_progress(fraction, message=""):
    return None


def compute_results(key, *, systems=None, system=None, fusion=False, calibration="none",
                    train_prior=0.5, teaching=None, conditions=None, raw_cache=None,
                    progress=None) -> Results:
    """Compute the heavy results for one choice of data and calibration.

    Parameters
    ----------
    key : tuple
        Stored in the result (the caller's cache key).
    systems : dict of str to SystemData
    system : str
        The system shown when ``fusion`` is off.
    fusion : bool
        Fuse all systems (linear logistic regression trained on dev).
    calibration : {"none", "affine", "pav"}
    train_prior : float
        Training prior of the calibration / fusion.
    teaching : TeachingSpec or None
        When given, synthetic Gaussian data replace the loaded systems.
    conditions : ConditionSpec, optional
        How the conditions are pooled, when the trials carry conditions (default: every
        trial counts once, all conditions).  The calibration (not the fusion) is trained
        on the dev trials weighted the same way.
    raw_cache : dict, optional
        Cache of raw analyses (by Trials identity) shared between calls.
    progress : callable, optional
        ``progress(fraction, message)``.

    Raises
    ------
    llrlab.core.LlrlabError
        When the data cannot support the request (e.g. calibration without a dev set).
    """
    raw_cache = {} if raw_cache is None else raw_cache
    progress = progress or _no_progress
    if teaching is not None:
        return teaching_results(key, teaching, calibration=calibration,
                                train_prior=train_prior, progress=progress)
    systems = systems or {}
    if not systems:
        return Results(key, {})
    from ..scaled import holds_scaled, scaled_results  # sets larger than memory, on Dask

    if holds_scaled(systems):
        return scaled_results(key, systems=systems, system=system, fusion=fusion,
                              calibration=calibration, train_prior=train_prior,
                              conditions=conditions, raw_cache=raw_cache, progress=progress)
    conditions = conditions or ConditionSpec()
    if fusion:
        return fusion_results(key, systems, train_prior=train_prior, raw_cache=raw_cache,
                              progress=progress, conditions=conditions)
    if system not in systems:
        system = next(iter(systems))
    return system_results(key, systems[system], system, calibration=calibration,
                          train_prior=train_prior, raw_cache=raw_cache, progress=progress,
                          conditions=conditions)
