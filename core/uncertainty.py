"""Uncertainty of the measures: confidence intervals at an operating point, and the bootstrap.

Two kinds of interval live here.

* **Binomial intervals** at one or many operating points (:func:`proportion_ci`,
  :func:`operating_point_ci`): ``Pmiss`` and ``Pfa`` are proportions of independent trials,
  so their intervals follow from the binomial distribution -- the normal approximation of
  Bengio & Mariéthoz (2004), the Wilson score interval or the Clopper-Pearson
  exact interval.  The DCF is a positively weighted sum of the two independent proportions;
  its interval is the normal approximation of Bengio & Mariéthoz (2004) or the MOVER
  combination (Newcombe 1998; Zou & Donner 2008) of the two proportion intervals.
  Weighted trials get the variance of a weighted rate per condition (Cochran 1977) and the
  effective number of Korn & Graubard (1998) (:func:`operating_point_ci`).
* **Bootstrap intervals** (:func:`bootstrap_ci`) for Cllr, actual and minimum DCF and the
  ROCCH-EER, resampling trials (stratified by class) or whole speakers (cluster bootstrap):
  BCa (Efron 1987), which corrects the optimism of min DCF and EER, percentile or basic.
  The trials are sorted once; a replicate is a vector of integer counts per sorted trial, and
  a private kernel (:class:`_Replicates`) evaluates the weighted measures of many count
  vectors on that one sort (see the class docstring).  The kernel is tested against the
  public measures on explicit resamples.

A binomial interval assumes independent trials.  Trials that share a speaker are not
independent (the assumption of Bengio & Mariéthoz 2004); the speaker
bootstrap is the honest interval then, and it is typically wider.

References: Bengio & Mariéthoz (2004); Brümmer (2010) appendix B
(Doddington's rule of 30); Cochran (1977); Korn & Graubard (1998); Efron (1987);
docs/conventions.md.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri, stdtrit
from scipy.stats import beta

from ._interval_kinds import BOOTSTRAP_METHODS, BOOTSTRAP_TEXT, VARIANCE_TEXT
from ._parallel import map_ordered
from ._repr import summary_repr
from ._sorting import PooledBlocks, _elementary_bounds, _pool, sorted_input
from ._validate import as_plo, as_scores, as_weights, choose
from .analysis import Analysis
from .cllr import _LN2
from .dcf import _combine, _optimal_vertex, _weights
from .errors import DataError, LlrlabWarning
from .rocch import _eer
from .trials import Trials

__all__ = [
    "BOOTSTRAP_METHODS",
    "BOOTSTRAP_TEXT",
    "VARIANCE_TEXT",
    "BootstrapCI",
    "BootstrapWarning",
    "DCFInterval",
    "Interval",
    "OperatingPointCI",
    "ProportionCI",
    "bootstrap_ci",
    "operating_point_ci",
    "proportion_ci",
]

PROPORTION_METHODS = ("normal", "wilson", "clopper-pearson")
BOOTSTRAP_MEASURES = ("cllr", "min_dcf", "act_dcf", "eer")
#: Groups per class (or of clusters) of the jackknife behind BCa's acceleration.
JACKKNIFE_GROUPS = 20


class BootstrapWarning(LlrlabWarning):
    """Some bootstrap replicates were dropped (no target or no non-target trial in them)."""


def check_confidence(confidence):
    """The confidence level as a float in (0, 1), or a :class:`DataError`."""
    try:
        c = float(confidence)
    except (TypeError, ValueError):
        raise DataError(f"the confidence level must be a number, got {confidence!r}") from None
    if not 0.0 < c < 1.0:
        raise DataError(f"the confidence level must lie strictly between 0 and 1 (e.g. 0.95), "
                        f"got {confidence!r}")
    return c


def _z(confidence):
    """Two-sided standard-normal quantile ``z_{1 - alpha/2}``, ``alpha = 1 - confidence``."""
    return float(ndtri(0.5 + 0.5 * confidence))


def _check_method(method):
    if method not in PROPORTION_METHODS:
        raise DataError(f"unknown interval method {method!r}; choose one of "
                        f"{', '.join(PROPORTION_METHODS)}")
    return method


# ----------------------------------------------------------------------------- proportions


@summary_repr("estimate", "lower", "upper", "method", "confidence")
@dataclass(frozen=True, eq=False)
class ProportionCI:
    """Confidence intervals of binomial proportions; every array has one common shape.

    Attributes
    ----------
    estimate : ndarray
        The observed proportion ``k / n``.
    lower, upper : ndarray
        Interval bounds, within [0, 1].
    errors : ndarray
        ``k``, the number of errors (with weighted trials: the effective number
        ``estimate * trials``, see :func:`operating_point_ci`).
    trials : ndarray
        ``n``, the number of trials (with weighted trials: the effective number read from
        the rate's variance, see :func:`operating_point_ci`).
    confidence : float
        Two-sided confidence level, e.g. 0.95.
    method : str
        ``"normal"``, ``"wilson"`` or ``"clopper-pearson"``.
    """

    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    errors: np.ndarray
    trials: np.ndarray
    confidence: float
    method: str

    @property
    def half_width(self):
        """``(upper - lower) / 2``."""
        return 0.5 * (self.upper - self.lower)


def _proportion_bounds(k, n, confidence, method):
    p = k / n
    if method == "normal":
        half = _z(confidence) * np.sqrt(p * (1.0 - p) / n)
        return p, np.clip(p - half, 0.0, 1.0), np.clip(p + half, 0.0, 1.0)
    if method == "wilson":
        z = _z(confidence)
        z2 = z * z
        centre = (k + 0.5 * z2) / (n + z2)
        half = z / (n + z2) * np.sqrt(np.maximum(k * (n - k) / n, 0.0) + 0.25 * z2)
        return p, np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, beta.ppf(0.5 * alpha, np.maximum(k, 1e-300), n - k + 1), 0.0)
        hi = np.where(k < n, beta.ppf(1 - 0.5 * alpha, k + 1, np.maximum(n - k, 1e-300)), 1.0)
    return p, lo, hi


def proportion_ci(errors, trials, *, confidence=0.95, method="wilson") -> ProportionCI:
    """Two-sided confidence interval of a binomial proportion ``k / n``; vectorized.

    Parameters
    ----------
    errors : array_like
        ``k``, numbers of errors, ``0 <= k <= n`` (non-integer values are accepted as
        effective counts).
    trials : array_like
        ``n > 0``, numbers of trials; broadcast against ``errors``.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1).
    method : {"wilson", "normal", "clopper-pearson"}
        See Notes.

    Returns
    -------
    ProportionCI
        Arrays of the broadcast shape of ``errors`` and ``trials``.

    Notes
    -----
    With ``p = k/n``, ``alpha = 1 - confidence`` and ``z = Phi^-1(1 - alpha/2)``:

    * ``normal`` (Wald; Bengio & Mariéthoz 2004): ``p +- z sqrt(p(1-p)/n)``,
      clipped to [0, 1].  Zero width at ``k = 0`` or ``k = n``; poor coverage for small
      ``k`` (the rule of thumb of Bengio & Mariéthoz 2004 asks for ``n p (1-p) > 10``).
    * ``wilson`` (score interval; Wilson 1927): the ``p`` with ``|k/n - p| <= z sqrt(p(1-p)/n)``,
      ``(k + z^2/2)/(n + z^2) +- z/(n + z^2) sqrt(k(n-k)/n + z^2/4)``.  Coverage close to the
      nominal level even for few errors; the recommended default.
    * ``clopper-pearson`` (exact; Clopper & Pearson 1934): ``[B(alpha/2; k, n-k+1),
      B(1-alpha/2; k+1, n-k)]`` with ``B`` the beta quantile (0 for ``k = 0``, 1 for
      ``k = n``); coverage at least the nominal level, so conservative.

    Doddington's rule of 30 (Brümmer 2010, app. B) is the normal interval read relatively:
    its half-width is ``z sqrt(p(1-p)/n) = p z sqrt((1-p)/k)``, so at 90 % confidence
    (``z = 1.645``) and ``k = 30`` errors the estimate is within 30 % of ``p`` (for small p).

    References
    ----------
    Bengio & Mariéthoz (2004); Brümmer (2010), app. B (eq. B.1-B.3);
    E. B. Wilson, J. Am. Stat. Assoc. 22:209-212 (1927); C. J. Clopper and E. S. Pearson,
    Biometrika 26:404-413 (1934); A. Agresti and B. A. Coull, Am. Stat. 52:119-126 (1998).

    Examples
    --------
    >>> from llrlab.core.uncertainty import proportion_ci
    >>> ci = proportion_ci(3, 100, method="wilson")
    >>> round(float(ci.lower), 5), round(float(ci.upper), 5)
    (0.01025, 0.08452)
    >>> ci = proportion_ci([0, 30], [100, 1000], method="clopper-pearson", confidence=0.9)
    >>> ci.lower.round(5).tolist(), ci.upper.round(5).tolist()
    ([0.0, 0.02167], [0.02951, 0.04047])
    """
    confidence = check_confidence(confidence)
    _check_method(method)
    k = np.asarray(errors, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    k, n = np.broadcast_arrays(k, n)
    if np.isnan(k).any() or np.isnan(n).any():
        raise DataError("error and trial counts must not be NaN")
    if not (n > 0).all():
        raise DataError("a proportion needs at least one trial (n > 0)")
    if (k < 0).any() or (k > n).any():
        raise DataError("error counts must satisfy 0 <= errors <= trials")
    p, lo, hi = _proportion_bounds(k, n, confidence, method)
    return ProportionCI(p, lo, hi, k.copy(), n.copy(), confidence, method)


# ------------------------------------------------------------------------ operating points


@summary_repr("estimate", "lower", "upper", "method")
@dataclass(frozen=True, eq=False)
class DCFInterval:
    """Confidence interval of a DCF; arrays have the shape of the operating points.

    Attributes
    ----------
    estimate, lower, upper : ndarray
        The DCF and its interval (normalized by ``min(pt, 1-pt)`` when ``normalized``).
    confidence : float
    method : str
        ``"normal"`` (Bengio & Mariéthoz 2004) or ``"mover-wilson"`` /
        ``"mover-clopper-pearson"`` (MOVER combination of the proportion intervals).
    normalized : bool
    """

    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float
    method: str
    normalized: bool


@summary_repr("plo", "dcf", "method", "confidence")
@dataclass(frozen=True, eq=False)
class OperatingPointCI:
    """Intervals of ``Pmiss``, ``Pfa`` and the DCF at one or many operating points.

    Attributes
    ----------
    plo : ndarray
        Prior log-odds of each operating point (the DCF weights).
    threshold : ndarray
        Score threshold of each point (accept when ``score >= threshold``); ``-plo`` (the
        Bayes threshold on LLRs) unless a threshold was given.
    p_miss, p_fa : ProportionCI
        Intervals of the miss rate (``T`` target trials) and the false-alarm rate (``N``
        non-target trials).
    dcf : DCFInterval
        Interval of ``cm*Pmiss + cf*Pfa`` (actual DCF when the threshold is ``-plo``).
    confidence : float
    method : str
        The proportion method.
    variance : str
        How the variance of each rate was estimated: ``"binomial"`` (unweighted trials),
        ``"stratified"`` (weighted trials with conditions: per condition, Cochran 1977) or
        ``"linearised"`` (per-trial weights); see :data:`VARIANCE_TEXT`.
    """

    plo: np.ndarray
    threshold: np.ndarray
    p_miss: ProportionCI
    p_fa: ProportionCI
    dcf: DCFInterval
    confidence: float
    method: str
    variance: str = "binomial"


def design_effective_n(p, variance, count, kish, df=None, confidence=0.95):
    """The effective number of trials of a weighted rate ``p`` with estimated ``variance``
    (Korn & Graubard 1998); vectorized.

    ``n* = p (1 - p) / variance``, at most ``count`` (the trials: a design effect below 1 is
    not used), times ``(t_{count-1} / t_df)^2`` with ``t_d`` the two-sided Student quantile
    at ``confidence`` with ``d`` degrees of freedom (``df``: those of the variance; the factor
    is 1 for ``df = count - 1``, the simple sample's, and below 1 for fewer).  Where ``p`` is
    0 or 1 there is no variance to read it from, and Kish's ``kish`` is used.

    The binomial intervals of :func:`proportion_ci` applied to ``p`` with this ``n`` (and
    ``k = p n``) are the intervals of Korn & Graubard (1998) for a proportion estimated from
    a complex sample (Clopper-Pearson there; Wilson and normal alike here)."""
    p, variance = np.broadcast_arrays(np.asarray(p, dtype=np.float64),
                                      np.asarray(variance, dtype=np.float64))
    pq = p * (1.0 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.minimum(np.where(variance > 0, pq / variance, np.inf), float(count))
    if df is not None and count > 1:
        q = 0.5 + 0.5 * confidence
        d = np.clip(np.broadcast_to(np.asarray(df, dtype=np.float64), n.shape), 1.0,
                    count - 1.0)
        n = n * (stdtrit(count - 1.0, q) / stdtrit(d, q)) ** 2
    return np.where(pq > 0, n, float(kish))


def _scaled(c, x):
    """``c * x`` with ``0 * inf = 0`` (a rate of zero at an infinite DCF weight)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(x == 0, 0.0, c * x)


def operating_point_ci(tar, non=None, plo=0.0, *, threshold=None, confidence=0.95,
                       method="wilson", normalize=True, tar_weights=None,
                       non_weights=None) -> OperatingPointCI:
    """Confidence intervals of ``Pmiss``, ``Pfa`` and the DCF at operating point(s).

    Parameters
    ----------
    tar, non : array_like, Trials or Analysis
        Target and non-target scores (LLRs when ``threshold`` is None), or one ``Trials``,
        or an :class:`~llrlab.core.analysis.Analysis` (its sort is reused: an interval then
        costs a few binary searches, e.g. while an operating point is dragged).
    plo : float or array_like
        Prior log-odds ``logit(pt)`` of the operating point(s).
    threshold : float or array_like, optional
        Score threshold(s) (accept when ``score >= threshold``), broadcast against ``plo``;
        default the Bayes threshold ``-plo`` (actual DCF of LLRs).
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1).
    method : {"wilson", "normal", "clopper-pearson"}
        Interval of the two proportions (see :func:`proportion_ci`); the DCF interval is the
        seed's normal approximation for ``"normal"`` and the MOVER combination otherwise.
    normalize : bool, default True
        DCF divided by ``min(pt, 1-pt)``.  ``normalize=False`` at ``plo=0`` is the HTER of
        Bengio & Mariéthoz (2004), ``(Pmiss + Pfa)/2``.
    tar_weights, non_weights : array_like, optional
        Per-trial weights; the intervals then use the linearised variance of each weighted
        rate (Notes).  Pass a ``Trials`` with conditions for the variance per condition.

    Returns
    -------
    OperatingPointCI
        Arrays of the broadcast shape of ``plo`` and ``threshold``.

    Notes
    -----
    ``Pmiss = k_m/T`` and ``Pfa = k_f/N`` are independent binomial proportions (targets and
    non-targets are disjoint trials; Bengio & Mariéthoz (2004) argue this independence given the
    model and threshold).  The DCF is ``cm*Pmiss + cf*Pfa`` with ``(cm, cf) = (pt, 1-pt)``,
    divided by ``min(pt, 1-pt)`` when normalized.

    * Normal (Bengio & Mariéthoz 2004, generalized from the HTER to the DCF):
      ``DCF +- z sqrt(cm^2 Pmiss(1-Pmiss)/T + cf^2 Pfa(1-Pfa)/N)``, the lower bound clipped at
      0 and the upper at ``cm + cf``.
    * MOVER (method of variance estimates recovery; Newcombe 1998, Zou & Donner 2008): from
      the proportion intervals ``[l_m, u_m]`` and ``[l_f, u_f]``,
      ``L = DCF - sqrt((cm (Pmiss - l_m))^2 + (cf (Pfa - l_f))^2)`` and
      ``U = DCF + sqrt((cm (u_m - Pmiss))^2 + (cf (u_f - Pfa))^2)``.  Each side recovers the
      variance of each proportion from the distance of its own bound, so the interval
      inherits the Wilson interval's asymmetry near 0 and never has zero width when errors
      are rare (the normal interval collapses to a point at 0 errors).  With Clopper-Pearson
      bounds the combination is not exact, only conservative in practice.

    With weights, each rate's variance ``V`` is the linearised variance of a weighted ratio
    summed over the strata: the trials' conditions when they carry them (condition weights:
    ``V = sum_h (W_h/W)^2 p_h (1 - p_h) / n_h``), else one stratum (``V = sum w^2 (e - p)^2 /
    W^2``); Cochran (1977), sec. 5.3 and ch. 6, and ``llrlab.core._stratified``.  The
    proportion intervals then take the effective number ``n* = p (1 - p) / V`` of Korn &
    Graubard (1998) -- at most the number of trials, times ``(t_{n-1} / t_df)^2`` with
    Satterthwaite's degrees of freedom ``df`` of ``V`` (Cochran 1977, sec. 5.4), which widens
    the interval when one small condition carries most of the variance -- and ``k = p n*``;
    Kish's ``(sum w)^2 / sum w^2`` where ``p`` is 0 or 1.  The normal DCF interval uses
    ``p (1 - p) / n*`` as each rate's variance.  ``variance`` names the estimator.  Kish's
    number with the pooled rate (llrlab before) is right only when every trial has the same
    error probability; when the conditions' rates differ its intervals are too narrow
    (tests/core/test_weighted_variance.py; docs/conventions.md gives measured coverage).  On
    Dask (``llrlab.core.scale``) weighted trials have no per-condition sums: a
    :class:`DataError`.

    The interval is for a fixed threshold.  At the minimum-DCF threshold, chosen on the same
    trials, it is optimistic; use :func:`bootstrap_ci` for minimum DCF.

    References
    ----------
    Bengio & Mariéthoz (2004) (confidence intervals and the HTER test);
    R. G. Newcombe, Stat. Med. 17:873-890 (1998); G. Y. Zou and A. Donner, Stat. Med.
    27:1693-1702 (2008); W. G. Cochran, Sampling Techniques, 3rd ed. (1977), sec. 5.3-5.4
    and ch. 6; E. L. Korn and B. I. Graubard, Survey Methodology 24(2):193-201 (1998);
    L. Kish, Survey Sampling (1965) for the effective sample size.

    Examples
    --------
    >>> from llrlab.core.uncertainty import operating_point_ci
    >>> tar = [2.0] * 90 + [-1.0] * 10          # 10 misses of 100 targets at threshold 0
    >>> non = [-2.0] * 950 + [1.0] * 50         # 50 false alarms of 1000 non-targets
    >>> ci = operating_point_ci(tar, non, plo=0.0, method="normal", normalize=False)
    >>> float(ci.p_miss.estimate), round(float(ci.p_miss.lower), 4)
    (0.1, 0.0412)
    >>> round(float(ci.dcf.estimate), 3), round(float(ci.dcf.upper - ci.dcf.estimate), 4)
    (0.075, 0.0302)
    """
    confidence = check_confidence(confidence)
    _check_method(method)
    if isinstance(tar, Analysis):  # its sort is reused: binary searches only
        if non is not None:
            raise TypeError("pass either an Analysis or tar and non arrays, not both")
        s = tar.sorted
    else:
        s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    plo = as_plo(plo)
    thr = -plo if threshold is None else as_plo(threshold, "thresholds")  # NaN refused
    plo, thr = (np.array(a) for a in np.broadcast_arrays(plo, thr))
    p_m, p_f = s.rates(thr)
    if s.weighted:  # (SortedScores.rates keeps weighted rates within [0, 1])
        if not hasattr(s, "rate_variances"):
            raise DataError("binomial intervals of weighted trials need the variance of each "
                            "condition, which is computed on trials in memory, not on Dask; "
                            "load the trials without --dask for intervals")
        v_m, v_f, df_m, df_f, count_t, count_n = s.rate_variances(thr)
        kish_t, kish_n = s.n_effective
        n_t = design_effective_n(p_m, v_m, count_t, kish_t, df_m, confidence)
        n_n = design_effective_n(p_f, v_f, count_n, kish_n, df_f, confidence)
        k_m, k_f = p_m * n_t, p_f * n_n
        variance = s.variance_estimator
    else:
        n_t, n_n = s.n_effective
        k_m, k_f = (np.asarray(c, dtype=np.float64) for c in s.miss_fa_counts(thr))
        variance = "binomial"
    ci_m = proportion_ci(k_m, n_t, confidence=confidence, method=method)
    ci_f = proportion_ci(k_f, n_n, confidence=confidence, method=method)
    cm, cf = _weights(plo, normalize)
    d = _combine(plo, p_m, p_f, normalize)
    if method == "normal":
        var = (_scaled(cm * cm, p_m * (1 - p_m)) / n_t
               + _scaled(cf * cf, p_f * (1 - p_f)) / n_n)
        half = _z(confidence) * np.sqrt(var)
        lo = np.maximum(d - half, 0.0)
        with np.errstate(invalid="ignore"):
            hi = np.minimum(d + half, cm + cf)
        dmethod = "normal"
    else:
        lo = d - np.hypot(_scaled(cm, p_m - ci_m.lower), _scaled(cf, p_f - ci_f.lower))
        hi = d + np.hypot(_scaled(cm, ci_m.upper - p_m), _scaled(cf, ci_f.upper - p_f))
        lo = np.maximum(lo, 0.0)
        dmethod = f"mover-{method}"
    return OperatingPointCI(plo, thr, ci_m, ci_f,
                            DCFInterval(d, lo, hi, confidence, dmethod, bool(normalize)),
                            confidence, method, variance)


# ------------------------------------------------------------------------------- bootstrap


@summary_repr("estimate", "lower", "upper")
@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided interval (floats).

    Attributes
    ----------
    estimate : float
        The measure on the full set of trials.
    lower, upper : float
        Interval bounds (NaN when fewer than two replicates were usable).
    """

    estimate: float
    lower: float
    upper: float


@summary_repr("eer", "cllr", "min_dcf", "act_dcf", "plo", "by", "n_used")
@dataclass(frozen=True, eq=False)
class BootstrapCI:
    """Bootstrap intervals of Cllr, minimum and actual DCF and ROCCH-EER.

    Attributes
    ----------
    cllr : Interval
        Cllr in bits.
    min_dcf, act_dcf : Interval
        Normalized minimum and actual DCF at ``plo``.
    eer : Interval
        ROCCH-EER.
    plo : float
        Prior log-odds of the DCFs.
    confidence : float
    method : str
        The interval kind of the four intervals: ``"bca"`` (bias-corrected and accelerated,
        the default), ``"percentile"`` or ``"basic"`` (see :func:`bootstrap_ci`);
        :meth:`interval` gives the other kinds from the same replicates.
    by : str
        What was resampled: ``"trial"`` (stratified by class), ``"speaker"`` (model ids) or
        ``"segment"`` (segment ids).
    n_boot : int
        Replicates drawn.
    n_used, n_dropped : int
        Replicates used, and dropped for lacking a target or a non-target trial.
    replicates : ndarray, shape (n_used, 4)
        The measures of each used replicate, columns in the order of
        :data:`BOOTSTRAP_MEASURES` (``cllr, min_dcf, act_dcf, eer``).
    bias_correction, acceleration : ndarray, shape (4,)
        BCa's ``z0`` (from the replicates) and ``a`` (from a grouped jackknife) of each
        measure, in the order of :data:`BOOTSTRAP_MEASURES`.
    """

    cllr: Interval
    min_dcf: Interval
    act_dcf: Interval
    eer: Interval
    plo: float
    confidence: float
    method: str
    by: str
    n_boot: int
    n_used: int
    n_dropped: int
    replicates: np.ndarray
    bias_correction: np.ndarray = None
    acceleration: np.ndarray = None

    def interval(self, measure, method=None) -> Interval:
        """The :class:`Interval` of a measure named as in :data:`BOOTSTRAP_MEASURES`
        (``"cllr"``, ``"min_dcf"``, ``"act_dcf"``, ``"eer"``), in any case and with or
        without ``_`` (``"EER"``, ``"minDCF"``); of the kind ``method`` (one of
        :data:`BOOTSTRAP_METHODS`), default :attr:`method`, from the same replicates.

        Raises
        ------
        UnknownNameError
            An unknown name (a :class:`KeyError` too); the message lists the valid ones.
        """
        name = choose(measure, BOOTSTRAP_MEASURES, "bootstrap measure")
        if method is None or method == self.method:
            return getattr(self, name)
        method = choose(method, BOOTSTRAP_METHODS, "bootstrap interval kind")
        j = BOOTSTRAP_MEASURES.index(name)
        est = getattr(self, name).estimate
        lo, hi = _bootstrap_bounds(self.replicates[:, j:j + 1], np.array([est]),
                                   self.confidence, method, self.bias_correction[j:j + 1],
                                   self.acceleration[j:j + 1])
        return Interval(est, float(lo[0]), float(hi[0]))


class _Replicates:
    """The bootstrap kernel: the measures of many count-weighted copies of one sorted set.

    A replicate gives every trial an integer count ``c_i`` (how often it was drawn); its
    measures are the public weighted measures with weights ``c_i * w_i``.  Everything that
    depends on the order of the scores is computed once here:

    * the target and non-target scores are sorted once (stable), with their weights and
      per-trial log-losses ``log(1 + exp(-tar))``, ``log(1 + exp(non))`` (Cllr is then two dot
      products with the counts);
    * the positions of the Bayes threshold ``-plo`` in the sorted scores (actual DCF is two
      prefix sums of the counts);
    * the elementary PAV blocks of ``llrlab.core._sorting`` (built from the smaller class)
      as index ranges into the sorted scores.  Any non-negative re-weighting keeps each block
      "targets at the lowest score, then non-targets", so PAV pools every block whole for
      every replicate: a replicate's ROCCH is PAV on the block sums of its counts
      (``O(min(T, N))``), never a new sort.  Blocks whose weight is 0 in a replicate are
      dropped before PAV.  Minimum DCF and EER then use the same vertex code as
      :func:`~llrlab.core.dcf.min_dcf` and :func:`~llrlab.core.rocch.rocch_eer`.
    """

    def __init__(self, trials: Trials, plo):
        t = trials.require_both_classes()
        self.plo = float(plo)
        ot = np.argsort(t.tar, kind="stable")
        on = np.argsort(t.non, kind="stable")
        self.order_tar, self.order_non = ot, on
        tar, non = t.tar[ot], t.non[on]
        self.tar, self.non = tar, non
        self.w_tar = None if t.weights is None else t.tar_weights[ot]
        self.w_non = None if t.weights is None else t.non_weights[on]
        # softplus terms, one per trial, weighted once here
        self.loss_tar = np.logaddexp(0.0, -tar)
        self.loss_non = np.logaddexp(0.0, non)
        if self.w_tar is not None:
            self.loss_tar *= self.w_tar
            self.loss_non *= self.w_non
        self.k_tar = int(np.searchsorted(tar, -self.plo, side="left"))  # misses: tar < -plo
        self.k_non = int(np.searchsorted(non, -self.plo, side="left"))  # non below threshold
        # index ranges of the elementary blocks: any re-weighting pools each block whole
        self.tb, self.nb, self.lower, self.upper = _elementary_bounds(tar, non)

    def evaluate(self, c_tar, c_non):
        """``(cllr, min_dcf, act_dcf, eer)`` of one replicate, or None if a class is empty.

        ``c_tar``, ``c_non``: counts per sorted target and non-target trial (integer arrays,
        or any non-negative floats).
        """
        cum_t = _prefix_sums(c_tar, self.w_tar)
        cum_n = _prefix_sums(c_non, self.w_non)
        n_t, n_n = float(cum_t[-1]), float(cum_n[-1])
        if not (n_t > 0 and n_n > 0):
            return None
        cllr = (float(np.dot(c_tar, self.loss_tar)) / n_t
                + float(np.dot(c_non, self.loss_non)) / n_n) / (2 * _LN2)
        p_m = cum_t[self.k_tar] / n_t
        p_f = (n_n - cum_n[self.k_non]) / n_n
        act = float(_combine(self.plo, p_m, p_f, True))
        bt = np.diff(cum_t[self.tb]).astype(np.float64)
        bn = np.diff(cum_n[self.nb]).astype(np.float64)
        keep = (bt + bn) > 0
        bt, bn, lower, upper = bt[keep], bn[keep], self.lower[keep], self.upper[keep]
        starts = _pool(bt, bn)
        ends = np.concatenate([starts[1:], [bt.size]]) - 1
        st = np.add.reduceat(bt, starts)
        sn = np.add.reduceat(bn, starts)
        with np.errstate(divide="ignore"):
            llr = (np.log(st) - np.log(sn)) - (np.log(n_t) - np.log(n_n))
        blocks = PooledBlocks(lower[starts], upper[ends], st, sn, llr, n_t, n_n)
        p_fa_v, p_miss_v = blocks.vertices()
        k = _optimal_vertex(blocks, self.plo)
        mindcf = float(_combine(self.plo, p_miss_v[k], p_fa_v[k], True))
        return cllr, mindcf, act, float(_eer(blocks))


def _prefix_sums(counts, weights):
    """``[0, c_0 w_0, c_0 w_0 + c_1 w_1, ...]``; integer (exact, and twice as fast as a float
    cumsum) for integer counts of unweighted trials."""
    x = counts if weights is None else counts * weights
    out = np.empty(x.size + 1, dtype=x.dtype)
    out[0] = 0
    np.cumsum(x, out=out[1:])
    return out


def _as_trials(tar, non, tar_weights, non_weights):
    if isinstance(tar, Trials):
        if non is not None:
            raise TypeError("pass either a Trials object or tar and non arrays, not both")
        return tar
    if non is None:
        raise TypeError("non-target scores are missing: pass tar and non, or a Trials object")
    t = Trials.from_tar_non(as_scores(tar, "target scores"), as_scores(non, "non-target scores"))
    tw = as_weights(tar_weights, t.n_tar, "target weights")
    nw = as_weights(non_weights, t.n_non, "non-target weights")
    if tw is None and nw is None:
        return t
    tw = np.ones(t.n_tar) if tw is None else tw
    nw = np.ones(t.n_non) if nw is None else nw
    return t.with_weights(np.concatenate([tw, nw]))


def _cluster_codes(trials, kernel, by):
    ids = trials.model_ids if by == "speaker" else trials.segment_ids
    if ids is None:
        raise DataError(f"a bootstrap by {by} needs (model, segment) ids, and "
                        f"{trials.source or 'the score set'} has none (resample by trial)")
    _, codes = np.unique(ids, return_inverse=True)
    codes = codes.ravel()
    lab = trials.labels
    return (codes[lab][kernel.order_tar], codes[~lab][kernel.order_non],
            int(codes.max()) + 1)


def _run_chunk(kernel, rng, n, by, clusters):
    """``n`` replicates drawn with ``rng``: an (n, 4) array, NaN rows for dropped ones."""
    out = np.full((n, 4), np.nan)
    T, N = kernel.tar.size, kernel.non.size
    for i in range(n):
        if by == "trial":
            c_t = np.bincount(rng.integers(0, T, T), minlength=T)
            c_n = np.bincount(rng.integers(0, N, N), minlength=N)
        else:
            code_t, code_n, m = clusters
            mc = np.bincount(rng.integers(0, m, m), minlength=m)
            c_t, c_n = mc[code_t], mc[code_n]
        r = kernel.evaluate(c_t, c_n)
        if r is not None:
            out[i] = r
    return out


def _jackknife_acceleration(kernel, rng, by, clusters):
    """BCa's acceleration ``a`` of the four measures from a grouped jackknife (shape (4,)).

    The units (the trials of each class for ``by="trial"``, else the clusters) are split at
    random into :data:`JACKKNIFE_GROUPS` groups (fewer for fewer units); deleting group
    ``g`` of a sample of ``n`` units gives ``theta_(g)``, and ``L_g = (n - n/G) (mean_g
    theta_(g) - theta_(g))`` estimates the sum of the empirical influence values of its
    units (Davison & Hinkley 1997, sec. 2.7).  Then (Efron 1987; Efron & Tibshirani 1993,
    sec. 14.3; for several samples Davison & Hinkley 1997, sec. 3.2 and 5.3)

        a = sum_s n_s^-3 sum_g L_g^3 / (6 (sum_s n_s^-2 sum_g L_g^2)^(3/2)).
    """
    T, N = kernel.tar.size, kernel.non.size
    samples = []
    if by == "trial":
        for n, cls in ((T, 0), (N, 1)):
            g = min(JACKKNIFE_GROUPS, n)
            group = rng.permutation(np.arange(n) % g)
            deleted = []
            for k in range(g):
                keep = (group != k).astype(np.int64)
                c_t = keep if cls == 0 else np.ones(T, dtype=np.int64)
                c_n = keep if cls == 1 else np.ones(N, dtype=np.int64)
                deleted.append(kernel.evaluate(c_t, c_n))
            samples.append((n, g, deleted))
    else:
        code_t, code_n, m = clusters
        g = min(JACKKNIFE_GROUPS, m)
        group = rng.permutation(np.arange(m) % g)
        deleted = []
        for k in range(g):
            keep = (group != k).astype(np.int64)
            deleted.append(kernel.evaluate(keep[code_t], keep[code_n]))
        samples.append((m, g, deleted))
    num, den = np.zeros(4), np.zeros(4)
    for n, g, deleted in samples:
        theta = np.array([r for r in deleted if r is not None], dtype=np.float64)
        if theta.shape[0] < 2:
            continue
        infl = (n - n / g) * (theta.mean(axis=0) - theta)
        num += (infl ** 3).sum(axis=0) / float(n) ** 3
        den += (infl ** 2).sum(axis=0) / float(n) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        a = num / (6.0 * den ** 1.5)
    return np.where(den > 0, a, 0.0)


def _bias_correction(reps, est):
    """BCa's ``z0 = Phi^-1(#(theta* < theta) / B)``, ties counted half (the replicates of min
    DCF and EER often equal the estimate)."""
    below = (reps < est).sum(axis=0) + 0.5 * (reps == est).sum(axis=0)
    return ndtri(below / reps.shape[0])


def _bootstrap_bounds(reps, est, confidence, method, z0, a):
    """``(lower, upper)`` of each column of ``reps`` (estimates ``est``) for an interval
    kind of :data:`BOOTSTRAP_METHODS`."""
    m = reps.shape[1]
    if reps.shape[0] < 2:
        return np.full(m, np.nan), np.full(m, np.nan)
    alpha = 1.0 - confidence
    if method == "bca":
        z = ndtri(np.array([0.5 * alpha, 1.0 - 0.5 * alpha]))[:, None]
        zz = z0[None, :] + z
        with np.errstate(divide="ignore", invalid="ignore"):
            levels = ndtr(z0[None, :] + zz / (1.0 - a[None, :] * zz))
        # a denominator at or below 0 (|a| far beyond any real case) falls back to the
        # percentile levels
        bad = ~np.isfinite(levels) | (1.0 - a[None, :] * zz <= 0)
        levels = np.where(bad, np.array([0.5 * alpha, 1.0 - 0.5 * alpha])[:, None], levels)
        q = np.array([[np.quantile(reps[:, j], levels[i, j]) for j in range(m)]
                      for i in range(2)])
    else:
        q = np.quantile(reps, [0.5 * alpha, 1.0 - 0.5 * alpha], axis=0)
        if method == "basic":
            q = np.stack([2 * est - q[1], 2 * est - q[0]])
    return q[0], q[1]


_CHUNK = 25  # replicates per generator: the random streams do not depend on the threads
_THREADS_FROM = 200_000  # trials; below, two threads contend for the GIL more than they gain


def bootstrap_ci(tar, non=None, plo=0.0, *, n_boot=1000, confidence=0.95, by="trial",
                 method="bca", seed=None, tar_weights=None, non_weights=None,
                 threads=True) -> BootstrapCI:
    """Bootstrap intervals of Cllr, minimum and actual DCF and ROCCH-EER.

    Parameters
    ----------
    tar, non : array_like or Trials
        Target and non-target LLRs, or one ``Trials`` (required for ``by`` other than
        ``"trial"``: the clusters are its ids).
    plo : float
        Prior log-odds of the (normalized) DCFs.
    n_boot : int, default 1000
        Number of replicates.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1).
    by : {"trial", "speaker", "segment"}
        ``"trial"``: resample ``T`` targets from the targets and ``N`` non-targets from the
        non-targets, with replacement (stratified by class).  ``"speaker"``: cluster
        bootstrap -- resample the ``M`` distinct model ids with replacement and take all
        trials of each drawn model (as often as it was drawn).  ``"segment"``: the same with
        segment ids.
    method : {"bca", "percentile", "basic"}
        ``"bca"``: the bias-corrected and accelerated interval (Efron 1987), the quantiles
        ``[q(alpha_1), q(alpha_2)]`` at levels corrected for the median bias and the
        skewness of the estimate (Notes).  ``"percentile"``: ``[q(alpha/2), q(1-alpha/2)]``
        of the replicates.  ``"basic"`` (reverse percentile): ``[2 theta - q(1-alpha/2),
        2 theta - q(alpha/2)]``.  :meth:`BootstrapCI.interval` gives every kind from the
        same replicates.
    seed : int, numpy Generator or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same intervals (also
        with or without ``threads``).
    tar_weights, non_weights : array_like, optional
        Per-trial weights; a replicate weights trial ``i`` by ``count_i * w_i``.
    threads : bool, default True
        Evaluate blocks of replicates on llrlab's threads (``LLRLAB_THREADS``; numpy releases
        the GIL).

    Returns
    -------
    BootstrapCI

    Warns
    -----
    BootstrapWarning
        When replicates had no target or no non-target trial (possible with clusters); they
        are dropped and counted in ``n_dropped``.

    Notes
    -----
    A replicate ``b`` gives trial ``i`` the count ``c_bi`` (times drawn); its measures are
    ``Cllr = 1/(2 ln 2) [sum c_i w_i log(1+exp(-tar_i)) / sum c_i w_i + (same for non)]``
    and the PAV/ROCCH measures of the count-weighted trials -- the public weighted measures
    evaluated on one sort of the scores (see ``_Replicates``).  Cost per replicate:
    ``O(T + N)`` for the counts and prefix sums plus PAV on ``O(min(T, N))`` blocks; the
    jackknife of BCa's acceleration adds 40 such evaluations (20 by cluster), whatever the
    interval kind (:meth:`BootstrapCI.interval` gives every kind).

    BCa (Efron 1987; Efron & Tibshirani 1993, ch. 14.3): with ``z0 = Phi^-1(#(theta* <
    theta) / B)`` (ties counted half), the acceleration ``a`` from a grouped jackknife
    (``_jackknife_acceleration``: 20 random groups of each class, or of the clusters) and
    ``z_alpha = Phi^-1(alpha)``, the interval is ``[q(alpha_1), q(alpha_2)]`` with

        alpha_i = Phi(z0 + (z0 + z_i) / (1 - a (z0 + z_i))),  z_1 = z_{alpha/2}, z_2 = -z_1.

    Minimum DCF and the ROCCH-EER choose a threshold (or a hull) on the same trials, so they
    are optimistic, and so is every replicate: the percentile interval lies too low.  On
    simulated calibrated Gaussian trials (2000 trials, EER 5 %, 200 to 1000 targets), 95 %
    percentile intervals covered the true min DCF 85-91 % and the true EER 90-94 % of the
    time; BCa, whose ``z0`` measures that bias on the replicates, 91.5-94.5 % and 94-96 %
    (act DCF and Cllr 93-97 % for both).  docs/conventions.md lists the measured coverage
    of each kind; ``bench/bench_coverage.py`` reruns it.

    The binomial intervals of :func:`operating_point_ci` assume independent trials
    (Bengio & Mariéthoz 2004); trials of one speaker are correlated, and only the speaker
    bootstrap reflects that.

    References
    ----------
    B. Efron, "Better bootstrap confidence intervals", JASA 82(397):171-185 (1987) (BCa);
    B. Efron and R. J. Tibshirani, An Introduction to the Bootstrap (1993), ch. 13
    (percentile) and 14 (BCa); A. C. Davison and D. V. Hinkley, Bootstrap Methods (1997),
    sec. 5.2 (basic), 2.7 and 5.3 (influence values, BCa) and 3.8 (cluster resampling);
    Bengio & Mariéthoz (2004) (independence assumption of the binomial intervals);
    docs/conventions.md for the measures.

    Examples
    --------
    >>> from llrlab.core.synthetic import gaussian_trials
    >>> from llrlab.core.uncertainty import bootstrap_ci
    >>> t = gaussian_trials(200, 2000, seed=1)
    >>> b = bootstrap_ci(t, plo=0.0, n_boot=200, seed=7)
    >>> b.n_used, b.eer.lower < b.eer.estimate < b.eer.upper
    (200, True)
    """
    confidence = check_confidence(confidence)
    if by not in ("trial", "speaker", "segment"):
        raise DataError(f"bootstrap by must be 'trial', 'speaker' or 'segment', got {by!r}")
    if method not in BOOTSTRAP_METHODS:
        raise DataError(f"bootstrap method must be one of {', '.join(BOOTSTRAP_METHODS)}, "
                        f"got {method!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)):
        raise DataError(f"the number of bootstrap replicates n_boot must be a whole number, "
                        f"got {n_boot!r:.60}")
    n_boot = int(n_boot)
    if n_boot < 1:
        raise DataError(f"the number of bootstrap replicates must be >= 1, got {n_boot}")
    plo = float(as_plo(plo))
    trials = _as_trials(tar, non, tar_weights, non_weights)
    kernel = _Replicates(trials, plo)
    clusters = None if by == "trial" else _cluster_codes(trials, kernel, by)
    one_t = np.ones(kernel.tar.size, dtype=np.int64)
    one_n = np.ones(kernel.non.size, dtype=np.int64)
    point = kernel.evaluate(one_t, one_n)
    sizes = [min(_CHUNK, n_boot - i) for i in range(0, n_boot, _CHUNK)]
    # one stream per chunk, and the last one for the jackknife's groups (the replicates do
    # not depend on it: spawned children are numbered)
    *rngs, jack_rng = np.random.default_rng(seed).spawn(len(sizes) + 1)
    jobs = list(zip(rngs, sizes, strict=True))
    # chunks of replicates over llrlab's threads (LLRLAB_THREADS); each has its own random
    # stream, so the replicates do not depend on the threads
    parts = map_ordered(lambda j: _run_chunk(kernel, j[0], j[1], by, clusters), jobs,
                        parallel=bool(threads) and len(trials) >= _THREADS_FROM)
    reps = np.concatenate(parts)
    ok = ~np.isnan(reps[:, 0])
    reps = reps[ok]
    dropped = n_boot - reps.shape[0]
    if dropped:
        warnings.warn(BootstrapWarning(
            f"{dropped} of {n_boot} bootstrap replicates (by {by}) had no target or no "
            f"non-target trial and were dropped; {reps.shape[0]} are used"), stacklevel=2)
    est = np.asarray(point, dtype=np.float64)
    z0 = _bias_correction(reps, est) if reps.shape[0] else np.zeros(4)
    a = _jackknife_acceleration(kernel, jack_rng, by, clusters)
    lo, hi = _bootstrap_bounds(reps, est, confidence, method, z0, a)
    iv = [Interval(float(est[j]), float(lo[j]), float(hi[j])) for j in range(4)]
    return BootstrapCI(*iv, plo=plo, confidence=confidence, method=method, by=by,
                       n_boot=n_boot, n_used=int(reps.shape[0]), n_dropped=int(dropped),
                       replicates=reps, bias_correction=z0, acceleration=a)
