"""Is system A better than system B?  Tests of significance on the same trials.

Two tests at one operating point (each system thresholded at its Bayes threshold ``-plo`` on
LLRs, or at given score thresholds):

* :func:`z_test` -- the test of two proportions of Bengio & Mariéthoz (2004),
  extended from the HTER to the DCF: the DCF difference over its normal standard deviation, with
  the variance that treats the two systems' error rates as independent, or the one computed
  from the trials on which the systems disagree (dependent).
* :func:`mcnemar_test` -- McNemar's test on the paired decisions: only the trials on which
  exactly one system errs carry information; under the null hypothesis each such trial is
  equally likely to favour either system (exact binomial test for few discordant trials,
  chi-square with continuity correction otherwise).

The two systems' trials are paired by (model, segment) id when both carry ids
(:func:`llrlab.core.calibration.fusion.align_systems`), else by position.

With weighted trials (e.g. condition weights) the z-tests use the variance of each weighted
rate per condition (Cochran 1977; :func:`z_test`), and McNemar's test the weighted
discordant trials.

References: Bengio & Mariéthoz (2004); Q. McNemar, Psychometrika
12:153-157 (1947); W. G. Cochran, Sampling Techniques (1977); docs/conventions.md.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest, chi2, norm

from ._interval_kinds import VARIANCE_TEXT
from ._repr import summary_repr
from ._stratified import difference_variance, rate_variance
from ._validate import as_number, as_plo
from .dcf import _combine, _weights
from .errors import DataError, LlrlabWarning
from .trials import Trials

__all__ = ["EXACT_BELOW", "McNemarResult", "ZTestResult", "mcnemar_test", "opposite_verdicts",
           "p_value_text", "paired_trials", "z_test"]

#: McNemar's test is exact (binomial) when fewer than this many trials are discordant.
EXACT_BELOW = 25


def _check_alpha(alpha):
    a = as_number(alpha, "the significance level alpha")
    if not 0.0 < a < 1.0:
        raise DataError(f"the significance level must lie strictly between 0 and 1 "
                        f"(e.g. 0.05), got {alpha!r}")
    return a


def _name(t, default):
    return t.source or default


def paired_trials(a, b):
    """The trials of two systems matched one to one, with equal labels.

    Parameters
    ----------
    a, b : Trials
        The same evaluation trials scored by two systems.

    Returns
    -------
    a, b : Trials
        Restricted to the common trials (by (model, segment) id when both carry ids, with a
        :class:`~llrlab.core.errors.LlrlabWarning` for trials left out), in the same order.

    Raises
    ------
    DataError
        Not Trials; per-trial weights on one set only, or different weights on the two;
        only one set with ids; no common trial; different lengths without ids; a trial
        labelled target in one set and non-target in the other.

    Notes
    -----
    Weighted trials (e.g. condition-weighted pools, :func:`~llrlab.core.condition_weights`)
    are paired too; both systems must then carry the same weight on every paired trial
    (to a relative ``1e-12``): a trial's weight belongs to the trial, not to a system.

    Examples
    --------
    >>> from llrlab.core.trials import Trials
    >>> from llrlab.core.significance import paired_trials
    >>> a = Trials([1.0, -1.0], [True, False], model_ids=["m", "m"], segment_ids=["s1", "s2"])
    >>> b = Trials([-0.5, 2.0], [False, True], model_ids=["m", "m"], segment_ids=["s2", "s1"])
    >>> pa, pb = paired_trials(a, b)
    >>> pb.scores.tolist()
    [2.0, -0.5]
    """
    from .calibration.fusion import align_systems

    partner = a._cache.get("paired_with") if isinstance(a, Trials) else None
    if partner is not None and partner() is b:
        return a, b  # already the output of paired_trials (Trials are immutable)
    for t, who in ((a, "A"), (b, "B")):
        if not isinstance(t, Trials):
            raise DataError(f"system {who} must be labelled Trials, got {type(t).__name__}")
    if (a.weights is None) != (b.weights is None):
        has, lacks = (a, b) if b.weights is None else (b, a)
        raise DataError(f"comparison: {_name(has, 'one system')} carries per-trial weights and "
                        f"{_name(lacks, 'the other')} does not; weight both systems' trials "
                        f"alike (e.g. the same condition weights) or neither")
    (pa, pb), _ = align_systems([a, b], what="comparison")
    if pa.weights is not None and not np.allclose(pa.weights, pb.weights, rtol=1e-12,
                                                   atol=0.0):
        i = int(np.flatnonzero(~np.isclose(pa.weights, pb.weights, rtol=1e-12, atol=0.0))[0])
        where = (f"{pa.model_ids[i]} {pa.segment_ids[i]}" if pa.has_ids else f"position {i}")
        raise DataError(f"comparison: the trial weights of {_name(a, 'system A')} and "
                        f"{_name(b, 'system B')} differ (e.g. {pa.weights[i]!r} and "
                        f"{pb.weights[i]!r} at {where}); weight the paired trials alike, e.g. "
                        f"with condition weights computed on the paired trials")
    differ = pa.labels != pb.labels
    if differ.any():
        i = int(np.flatnonzero(differ)[0])
        where = (f"{pa.model_ids[i]} {pa.segment_ids[i]}" if pa.has_ids else f"position {i}")
        raise DataError(f"comparison: {int(differ.sum())} trial(s) are labelled differently "
                        f"in {_name(a, 'system A')} and {_name(b, 'system B')} (e.g. {where}); "
                        f"both systems must be scored against the same key")
    pa.require_both_classes()
    # remember the pairing: the tests called on the pair (z-tests, McNemar on each class)
    # then skip the id join, which costs more than the tests themselves
    # (weak references: no cycle keeps two large trial sets alive)
    pa._cache["paired_with"], pb._cache["paired_with"] = weakref.ref(pb), weakref.ref(pa)
    return pa, pb


def _thresholds(plo, threshold):
    if threshold is None:
        return -plo, -plo
    t = np.broadcast_to(as_plo(threshold, "thresholds"), (2,))  # NaN refused
    return float(t[0]), float(t[1])


def _paired_decisions(a, b, plo, threshold, alpha, names):
    """Checked arguments and the paired decisions of two systems:
    ``(alpha, plo, names, labels, accept_a, accept_b, weights, (pa, pb))`` (weights None when
    the trials carry none; ``pa``, ``pb`` the paired trials)."""
    alpha = _check_alpha(alpha)
    plo = float(as_plo(plo))
    pa, pb = paired_trials(a, b)
    names = tuple(names) if names is not None else ("A", "B")
    ta, tb = _thresholds(plo, threshold)
    return (alpha, plo, names, pa.labels, pa.scores >= ta, pb.scores >= tb, pa.weights,
            (pa, pb))


def _strata(a, b, pair):
    """The condition code of each paired trial (the strata of the weighted rates), or None
    when neither system's trials carry conditions.

    Raises
    ------
    DataError
        Both carry conditions and they differ on a paired trial.
    """
    pa, pb = pair
    with_conditions = [t for t in (pa, pb) if t.has_conditions]
    if not with_conditions:
        return None
    if len(with_conditions) == 2:
        ca, cb = pa.conditions, pb.conditions
        if not np.array_equal(ca, cb):
            i = int(np.flatnonzero(ca != cb)[0])
            where = (f"{pa.model_ids[i]} {pa.segment_ids[i]}" if pa.has_ids
                     else f"position {i}")
            raise DataError(f"comparison: the conditions of {_name(a, 'system A')} and "
                            f"{_name(b, 'system B')} differ (e.g. {str(ca[i])!r} and "
                            f"{str(cb[i])!r} at {where}); a trial's condition belongs to the "
                            f"trial: give both systems the same conditions, or one of them")
    return with_conditions[0].condition_index()[1]


def _kish(w):
    """Kish's effective number of trials ``(sum w)^2 / sum w^2`` (0 for no weight)."""
    total = float(w.sum())
    return total * total / float(np.dot(w, w)) if total > 0 else 0.0


def _level(alpha):
    return f"{100 * alpha:g}%"


def p_value_text(p):
    """A p-value as shown in tables: ``0.012``, ``3.4e-07``; below the smallest normal
    double ``< 1e-300`` (a p-value that underflows is not zero); ``nan``.

    Examples
    --------
    >>> p_value_text(0.0123), p_value_text(3.4e-7), p_value_text(0.0), p_value_text(float("nan"))
    ('0.012', '3.4e-07', '< 1e-300', 'nan')
    """
    p = float(p)
    if not np.isfinite(p):
        return "nan"
    if p < 1e-300:
        return "< 1e-300"
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _p(p):
    """``p = 0.012``, ``p = 3.4e-07``, ``p < 1e-300`` (see :func:`p_value_text`)."""
    text = p_value_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def opposite_verdicts(m, *z):
    """Why the z-test of the DCF and McNemar's test can point at different systems, or ''.

    ``m`` is the :class:`McNemarResult` over all trials and ``z`` one or more
    :class:`ZTestResult` of the same pair (e.g. independent and dependent variance).  When a
    z-test and McNemar are both significant but one system has the lower DCF and the other
    fewer errors, the sentence says why: the DCF weighs a miss and a false alarm by the costs
    and priors of the operating point (Bengio & Mariéthoz 2004), McNemar (1947) counts every
    error once.
    """
    if not z or not m.significant or not any(r.significant for r in z):
        return ""
    names = z[0].names
    better_dcf = names[0] if z[0].dcf_a < z[0].dcf_b else names[1]
    fewer = names[0] if m.only_a_wrong < m.only_b_wrong else names[1]
    if better_dcf == fewer:
        return ""
    return (f"the DCF weighs a miss and a false alarm by the costs and priors of the operating "
            f"point, McNemar counts every error once; so {better_dcf} can cost less while "
            f"{fewer} makes fewer errors")


@summary_repr("statistic", "p_value", "dcf_a", "dcf_b", "variance", "weighted")
@dataclass(frozen=True, eq=False)
class ZTestResult:
    """The DCF difference of two systems and its z-test (Bengio & Mariéthoz 2004).

    Attributes
    ----------
    statistic : float
        ``z = (DCF_A - DCF_B) / std``.
    p_value : float
        Two-sided, ``2 Phi(-|z|)``; NaN when ``std`` is 0 but the DCFs differ.
    dcf_a, dcf_b : float
        The (normalized unless ``normalize=False``) DCFs at the thresholds.
    difference : float
        ``dcf_a - dcf_b``.
    std : float
        Standard deviation of the difference under the null hypothesis.
    variance : str
        ``"independent"`` or ``"dependent"`` (see :func:`z_test`).
    p_miss_a, p_fa_a, p_miss_b, p_fa_b : float
        The error rates behind the DCFs.
    n_tar, n_non : int
        Paired target and non-target trials.
    plo : float
    alpha : float
        Significance level of the verdict.
    names : tuple of str
        Names of systems A and B in the verdict.
    verdict : str
        One sentence, e.g. ``"system A has significantly lower DCF than system B at the 5%
        level (p = 0.003)"``.
    weighted : bool
        The trials carried weights (weighted rates; see ``estimator``).
    n_tar_effective, n_non_effective : float
        Kish's effective numbers of target and non-target trials, ``(sum w)^2 / sum w^2``
        (``n_tar``, ``n_non`` without weights): how much the weights cost in sample size.
        The variance does not use them (see Notes of :func:`z_test`).
    estimator : str
        How the variance of the rates was estimated: ``"binomial"`` (unweighted trials),
        ``"stratified"`` (weighted trials with conditions) or ``"linearised"`` (weighted
        trials without); :attr:`estimator_text` names it in words.
    """

    statistic: float
    p_value: float
    dcf_a: float
    dcf_b: float
    difference: float
    std: float
    variance: str
    p_miss_a: float
    p_fa_a: float
    p_miss_b: float
    p_fa_b: float
    n_tar: int
    n_non: int
    plo: float
    alpha: float
    names: tuple
    verdict: str
    weighted: bool = False
    n_tar_effective: float = float("nan")
    n_non_effective: float = float("nan")
    estimator: str = "binomial"

    @property
    def significant(self):
        """``p_value < alpha``."""
        return bool(self.p_value < self.alpha)

    @property
    def estimator_text(self):
        """The variance estimator in words, e.g. ``"variance stratified by condition
        (Cochran 1977)"``."""
        return VARIANCE_TEXT[self.estimator]

    @property
    def delta(self):
        """The confidence ``delta = 1 - p_value`` that the systems differ (Bengio &
        Mariéthoz 2004)."""
        return 1.0 - self.p_value


def z_test(a, b, plo=0.0, *, threshold=None, variance="independent", alpha=0.05,
           normalize=True, names=None) -> ZTestResult:
    """Test whether two systems' DCFs differ on the same trials (the HTER test of Bengio &
    Mariéthoz 2004).

    Parameters
    ----------
    a, b : Trials
        The same trials scored by systems A and B (paired as in :func:`paired_trials`).
    plo : float
        Prior log-odds of the operating point (the DCF weights).
    threshold : float or (float, float), optional
        Score threshold(s) of A and B (accept when ``score >= threshold``); default the
        Bayes threshold ``-plo`` for both (the scores are LLRs: actual DCF).
    variance : {"independent", "dependent"}
        Variance of the difference: independent or dependent errors (see Notes).
    alpha : float, default 0.05
        Significance level of the verdict.
    normalize : bool, default True
        Normalized DCF; ``normalize=False`` at ``plo=0`` is the HTER test of Bengio & Mariéthoz
        (2004).
    names : (str, str), optional
        Names in the verdict (default the trials' sources, else "A" and "B").

    Returns
    -------
    ZTestResult

    Notes
    -----
    ``DCF = cm Pmiss + cf Pfa`` (``cm = cf = 1/2`` for HTER).  Under the null hypothesis
    ``DCF_A - DCF_B ~ N(0, s^2)`` and ``z = (DCF_A - DCF_B)/s``, ``p = 2 Phi(-|z|)``:

    * independent (with the DCF's weights ``cm``, ``cf``):
      ``s^2 = cm^2 [Pm_A(1-Pm_A) + Pm_B(1-Pm_B)]/T + cf^2 [Pf_A(1-Pf_A) + Pf_B(1-Pf_B)]/N``.
      It treats the two systems' error rates as independent, which they are not on the same
      trials (Bengio & Mariéthoz 2004 say so themselves): the test ignores the positive correlation
      of two systems' errors on the same hard trials, and is then conservative.
    * dependent: ``s^2 = cm^2 (m_AB + m_BA)/T^2 + cf^2 (f_AB + f_BA)/N^2``, where
      ``m_AB`` counts the target trials accepted by A and missed by B (``f_AB``: non-targets
      rejected by A and accepted by B).  Bengio & Mariéthoz note that two very similar systems make
      this variance small, so it can be over-confident.

    Bengio & Mariéthoz recommend requiring both to agree before calling a difference significant.

    With per-trial weights ``w`` (the same on both systems, e.g. condition weights), the
    rates are weighted proportions, ``Pm = sum_tar w [miss] / sum_tar w``, and each rate's
    variance is the linearised variance of a ratio summed over the strata -- the trials'
    conditions when they carry them (Cochran 1977, sec. 5.3 and ch. 6;
    ``llrlab.core._stratified``):

    * independent: ``Var(Pm) = sum_h sum_{i in h} (a_i - abar_h)^2 / W^2`` with ``a_i = w_i
      (e_i - Pm)``; for condition weights (constant in each condition) this is
      ``sum_h (W_h / W)^2 p_h (1 - p_h) / n_h``, each condition's binomial variance at its own
      rate; without conditions ``sum_i w_i^2 (e_i - Pm)^2 / W^2``;
    * dependent: ``cm^2 sum_tar w^2 [A and B disagree] / W_tar^2 + cf^2 (the same for the
      non-targets)``: within each condition, under the null hypothesis that the two systems'
      rates are equal there, ``e_A - e_B`` has mean 0 and variance ``P(disagree) = Var(e_A) +
      Var(e_B) - 2 Cov(e_A, e_B)``.

    Kish's effective number with the pooled rate, the variance ``p (1 - p) sum w^2 /
    (sum w)^2`` that llrlab used before, is right only when every trial has the same error
    probability; when the conditions' rates differ (the usual reason to weight them) it is
    too small and the test rejects a true null hypothesis too often
    (tests/core/test_weighted_variance.py).
    The reference distribution stays the normal one.  Equal weights in one condition give
    the unweighted test; :attr:`ZTestResult.estimator` names the variance used.

    References
    ----------
    Bengio & Mariéthoz (2004); W. G. Cochran, Sampling Techniques, 3rd ed., Wiley (1977),
    sec. 5.3 (stratified sampling) and ch. 6 (ratio estimates).

    Examples
    --------
    >>> import numpy as np
    >>> from llrlab.core.trials import Trials
    >>> from llrlab.core.significance import z_test
    >>> lab = np.r_[np.ones(400, bool), np.zeros(112000, bool)]
    >>> def system(misses, fas):   # scores +-1 with the given error counts at threshold 0
    ...     s = np.where(lab, 1.0, -1.0)
    ...     s[:misses] = -1.0
    ...     s[400:400 + fas] = 1.0
    ...     return Trials(s, lab)
    >>> r = z_test(system(10, 1288), system(11, 2184), normalize=False)  # Bengio & Mariéthoz (2004)
    >>> round(r.std, 4), round(r.delta, 3)
    (0.0057, 0.647)
    >>> r.verdict
    'no significant difference in DCF between system A and system B at the 5% level (p = 0.353)'
    """
    if variance not in ("independent", "dependent"):
        raise DataError(f"variance must be 'independent' or 'dependent', got {variance!r}")
    alpha, plo, names, lab, acc_a, acc_b, w, pair = _paired_decisions(a, b, plo, threshold,
                                                                      alpha, names)
    T, N = int(lab.sum()), int(lab.size - lab.sum())
    miss_a, miss_b = lab & ~acc_a, lab & ~acc_b
    fa_a, fa_b = ~lab & acc_a, ~lab & acc_b
    cm, cf = (float(c) for c in _weights(plo, normalize))
    if w is None:
        estimator = "binomial"
        t_eff, n_eff = float(T), float(N)
        pm_a, pm_b = miss_a.sum() / T, miss_b.sum() / T
        pf_a, pf_b = fa_a.sum() / N, fa_b.sum() / N
        if variance == "independent":
            var = (cm ** 2 * (pm_a * (1 - pm_a) + pm_b * (1 - pm_b)) / T
                   + cf ** 2 * (pf_a * (1 - pf_a) + pf_b * (1 - pf_b)) / N)
        else:
            m_disc = int(np.count_nonzero(miss_a != miss_b))
            f_disc = int(np.count_nonzero(fa_a != fa_b))
            var = cm ** 2 * m_disc / T ** 2 + cf ** 2 * f_disc / N ** 2
    else:
        wt, wn = w[lab], w[~lab]
        t_eff, n_eff = _kish(wt), _kish(wn)
        if not (t_eff > 0 and n_eff > 0):
            raise DataError(f"comparison: the {'target' if not t_eff > 0 else 'non-target'} "
                            f"trials of {_name(a, 'system A')} have zero total weight")
        strata = _strata(a, b, pair)
        estimator = "linearised" if strata is None else "stratified"
        st, sn = (None, None) if strata is None else (strata[lab], strata[~lab])
        (pm_a, vm_a), (pm_b, vm_b) = (rate_variance(m[lab], wt, st) for m in (miss_a, miss_b))
        (pf_a, vf_a), (pf_b, vf_b) = (rate_variance(f[~lab], wn, sn) for f in (fa_a, fa_b))
        if variance == "independent":
            var = cm ** 2 * (vm_a + vm_b) + cf ** 2 * (vf_a + vf_b)
        else:
            var = (cm ** 2 * difference_variance(miss_a[lab], miss_b[lab], wt)
                   + cf ** 2 * difference_variance(fa_a[~lab], fa_b[~lab], wn))
    d_a = float(_combine(plo, pm_a, pf_a, normalize))
    d_b = float(_combine(plo, pm_b, pf_b, normalize))
    std = float(np.sqrt(var))
    diff = d_a - d_b
    if std > 0:
        z = diff / std
        p = float(2 * norm.sf(abs(z)))
    elif diff == 0:
        z, p = 0.0, 1.0
    else:
        import warnings

        warnings.warn(LlrlabWarning(
            "z-test: the DCF difference has zero estimated variance (every error rate is 0 "
            "or 1) but is not zero; the p-value is undefined (use mcnemar_test)"),
            stacklevel=2)
        z, p = float(np.sign(diff) * np.inf), float("nan")
    if p < alpha:
        better, worse = (names[0], names[1]) if diff < 0 else (names[1], names[0])
        verdict = (f"system {better} has significantly lower DCF than system {worse} at the "
                   f"{_level(alpha)} level ({_p(p)})")
    else:
        verdict = (f"no significant difference in DCF between system {names[0]} and system "
                   f"{names[1]} at the {_level(alpha)} level ({_p(p)})")
    return ZTestResult(float(z), p, d_a, d_b, diff, std, variance, float(pm_a), float(pf_a),
                       float(pm_b), float(pf_b), T, N, plo, alpha, names, verdict,
                       w is not None, t_eff, n_eff, estimator)


@summary_repr("statistic", "p_value", "only_a_wrong", "only_b_wrong", "method", "trials",
              "weighted")
@dataclass(frozen=True, eq=False)
class McNemarResult:
    """McNemar's test on the paired decisions of two systems.

    Attributes
    ----------
    statistic : float
        Chi-square method: ``(|b - c| - 1)^2 / (b + c)``; exact method: ``min(b, c)``.
    p_value : float
        Two-sided.
    only_b_wrong : int
        ``b``: trials where only system B errs (A is right, B wrong).
    only_a_wrong : int
        ``c``: trials where only system A errs (B is right, A wrong).
    both_right, both_wrong : int
        The concordant trials (they do not enter the test).
    method : str
        ``"exact"`` (binomial) or ``"chi-square"`` (with continuity correction).
    trials : str
        Which trials were tested: ``"all"`` (errors = misses + false alarms),
        ``"target"`` (misses) or ``"non-target"`` (false alarms).
    plo : float
    alpha : float
    names : tuple of str
    verdict : str
        One sentence.
    weighted : bool
        The trials carried weights: the test is on the weighted discordant trials (Notes of
        :func:`mcnemar_test`).
    only_b_wrong_weight, only_a_wrong_weight : float
        Total weight of the ``only_b_wrong`` and ``only_a_wrong`` trials (their counts
        without weights).
    n_effective : float
        Kish's effective number of discordant trials, ``(sum w)^2 / sum w^2`` over them
        (``only_b_wrong + only_a_wrong`` without weights).
    """

    statistic: float
    p_value: float
    only_b_wrong: int
    only_a_wrong: int
    both_right: int
    both_wrong: int
    method: str
    trials: str
    plo: float
    alpha: float
    names: tuple
    verdict: str
    weighted: bool = False
    only_b_wrong_weight: float = float("nan")
    only_a_wrong_weight: float = float("nan")
    n_effective: float = float("nan")

    @property
    def n_discordant(self):
        return self.only_b_wrong + self.only_a_wrong

    @property
    def significant(self):
        return bool(self.p_value < self.alpha)


_ERRORS = {"all": "errors", "target": "misses", "non-target": "false alarms"}


def mcnemar_test(a, b, plo=0.0, *, threshold=None, trials="all", exact=None, alpha=0.05,
                 names=None) -> McNemarResult:
    """McNemar's test of two systems' paired decisions at one operating point.

    Parameters
    ----------
    a, b : Trials
        The same trials scored by systems A and B (paired as in :func:`paired_trials`).
    plo : float
        Prior log-odds; the Bayes threshold ``-plo`` decides unless ``threshold`` is given.
    threshold : float or (float, float), optional
        Score threshold(s) of A and B (accept when ``score >= threshold``).
    trials : {"all", "target", "non-target"}
        Test the errors on all trials, the misses (target trials) or the false alarms
        (non-target trials).  On all trials the test compares numbers of errors, every
        trial counting once -- not the DCF, which weighs misses and false alarms by the
        costs and priors (use :func:`z_test`, or test the two classes separately).
    exact : bool, optional
        Exact binomial test (True) or chi-square with continuity correction (False); default
        exact when fewer than :data:`EXACT_BELOW` (25) trials are discordant.
    alpha : float, default 0.05
        Significance level of the verdict.
    names : (str, str), optional
        Names in the verdict (default "A" and "B").

    Returns
    -------
    McNemarResult

    Notes
    -----
    With ``b`` trials on which only B errs and ``c`` on which only A errs, under the null
    hypothesis (equal error probabilities) ``b ~ Binomial(b + c, 1/2)``.  Exact:
    ``p = binomtest(b, b + c, 0.5).pvalue`` (two-sided).  Chi-square:
    ``X^2 = (|b - c| - 1)^2 / (b + c)``, ``p = P(chi2_1 > X^2)``.  The switch at
    ``b + c < 25`` follows the usual advice that the chi-square approximation needs about 25
    discordant pairs (e.g. Fagerland, Lydersen & Laake 2013); the exact test is slightly
    conservative.  With no discordant trial ``p = 1``.  It is close to the dependent-case
    test of Bengio & Mariéthoz (2004).

    With per-trial weights ``w`` (the same on both systems, e.g. condition weights), the
    discordant trials count by weight: with ``W_b``, ``W_c`` the total weights of the two
    kinds and ``n = (sum w)^2 / sum w^2`` Kish's effective number of discordant trials, the
    test runs on the effective counts ``b = n W_b / (W_b + W_c)`` and ``c = n - b``:
    chi-square with ``X^2 = max(|b - c| - 1, 0)^2 / n``, or exact on ``b`` and ``n`` rounded
    to whole numbers (used when ``n < 25``).  Without the continuity correction ``X^2 =
    (W_b - W_c)^2 / sum w^2``: given the discordant trials, McNemar's null hypothesis makes
    each equally likely to favour either system, so ``W_b - W_c = sum w_i s_i`` with
    independent fair signs ``s_i`` and variance exactly ``sum w_i^2``, whatever the
    conditions' error rates (McNemar's conditional argument, weighted).  Unlike the z-test's,
    this variance needs no strata; the seeded simulation in
    tests/core/test_weighted_variance.py checks its level when the rates differ between
    conditions.  Equal weights give the unweighted test.

    References
    ----------
    Bengio & Mariéthoz (2004); Q. McNemar, Psychometrika 12:153-157 (1947);
    M. W. Fagerland, S. Lydersen and P. Laake, BMC Med. Res. Methodol. 13:91 (2013);
    L. Kish, Survey Sampling (1965) for the effective number.

    Examples
    --------
    >>> from llrlab.core.trials import Trials
    >>> from llrlab.core.significance import mcnemar_test
    >>> lab = [True] * 6 + [False] * 6
    >>> a = Trials([1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, 1], lab)  # 2 errors
    >>> b = Trials([-1, -1, -1, 1, 1, -1, 1, 1, -1, -1, -1, 1], lab)  # 7 errors
    >>> r = mcnemar_test(a, b)
    >>> r.only_b_wrong, r.only_a_wrong, r.method, round(r.p_value, 4)
    (5, 0, 'exact', 0.0625)
    """
    if trials not in _ERRORS:
        raise DataError(f"trials must be 'all', 'target' or 'non-target', got {trials!r}")
    alpha, plo, names, lab, acc_a, acc_b, w, _ = _paired_decisions(a, b, plo, threshold,
                                                                   alpha, names)
    err_a, err_b = acc_a != lab, acc_b != lab
    if trials != "all":
        sel = lab if trials == "target" else ~lab
        err_a, err_b = err_a[sel], err_b[sel]
        w = None if w is None else w[sel]
    only_b, only_a = ~err_a & err_b, err_a & ~err_b
    b_ = int(np.count_nonzero(only_b))
    c_ = int(np.count_nonzero(only_a))
    both_wrong = int(np.count_nonzero(err_a & err_b))
    both_right = err_a.size - b_ - c_ - both_wrong
    if w is None:
        wb, wc, n_eff = float(b_), float(c_), float(b_ + c_)
        n, kb, kc = b_ + c_, b_, c_  # the counts the test runs on
    else:
        wb, wc = float(w[only_b].sum()), float(w[only_a].sum())
        n_eff = _kish(w[only_a | only_b])
        kb = n_eff * wb / (wb + wc) if n_eff > 0 else 0.0
        n, kc = n_eff, n_eff - kb
    use_exact = n < EXACT_BELOW if exact is None else bool(exact)
    if not n > 0:
        stat, p = 0.0, 1.0
    elif use_exact:
        ni, ki = (n, kb) if w is None else (round(n), round(kb))
        stat, p = float(min(ki, ni - ki)), float(binomtest(ki, ni, 0.5).pvalue)
    else:
        stat = max(abs(kb - kc) - 1.0, 0.0) ** 2 / n
        p = float(chi2.sf(stat, 1))
    what = _ERRORS[trials]
    on = {"all": "", "target": " on the target trials",
          "non-target": " on the non-target trials"}[trials]
    if p < alpha:
        better, worse = (names[0], names[1]) if wc < wb else (names[1], names[0])
        verdict = (f"system {better} makes significantly fewer {what} than system {worse}"
                   f"{on} at the {_level(alpha)} level ({_p(p)}, McNemar)")
    else:
        verdict = (f"no significant difference in {what} between system {names[0]} and "
                   f"system {names[1]}{on} at the {_level(alpha)} level ({_p(p)}, McNemar)")
    return McNemarResult(float(stat), p, b_, c_, both_right, both_wrong,
                         "exact" if use_exact and n else "chi-square" if n else "exact",
                         trials, plo, alpha, names, verdict, w is not None, wb, wc, n_eff)
