"""APE and ECE curves, and the decomposition of Cllr into discrimination and calibration loss.

* APE plot (applied probability of error, Brümmer 2010, sec. 7.7.4): the un-normalized Bayes
  error rate of the LLRs, its minimum over monotone recalibrations (ROCCH / PAV) and the
  default system's ``min(pt, 1-pt)``, against prior log-odds.
* ECE plot (empirical cross-entropy, same section): the prior-weighted cross-entropy
  ``Ce(p)`` of the LLRs, of the PAV-calibrated LLRs and of the default system (the prior's
  entropy), against prior log-odds.
* ``Cllr = minCllr + (Cllr - minCllr)``: discrimination loss plus calibration loss (bits).

Everything comes from one sort (:func:`~llrlab.core.analysis.analyze`, or an ``Analysis``
passed in).  The Bayes-error curves are binary searches; the minimum cross-entropy needs only
the PAV blocks.  The cross-entropy of the actual LLRs at ``P`` priors would naively cost
``n*P`` soft-plus evaluations; here it costs about ``8n + 16*B*P`` (``B`` = occupied bins of
width 1/16, typically a few hundred): the sorted LLRs are grouped in such bins and each
bin's sum is a Taylor series around its centre whose moments are computed once (see
:func:`_softplus_sums`), exact to rounding (relative error ~1e-15).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np
from scipy.special import expit

from ._repr import summary_repr
from ._sorting import PooledBlocks, SortedScores
from .analysis import DEFAULT_PLO, Analysis, analyze
from .cllr import softplus_sum
from .dcf import _act_dcf, _min_dcf
from .errors import DataError

__all__ = ["APECurves", "ECECurves", "ape_curves", "ece_curves"]

_LN2 = np.log(2.0)

# Taylor scheme of _softplus_sums: bins of width _H (|offset| <= 1/32 from the centre) and
# _K terms.  softplus is analytic within distance pi of the real axis, so the remainder is
# about (1/32 / pi)^_K ~ 1e-16 relative.
_H = 1.0 / 16.0
_K = 8
_BLOCK = 1 << 18  # elements of a (priors x bins) work array


def _sigmoid_polys(n_terms):
    """Coefficients (ascending powers of s) of P_n with ``sigma^(n)(y) = P_n(sigma(y))``."""
    pp = np.polynomial.polynomial
    polys = [np.array([0.0, 1.0])]
    for _ in range(n_terms - 2):  # P_{n+1}(s) = P_n'(s) * s * (1 - s); integer coefficients
        polys.append(pp.polymul(pp.polyder(polys[-1]), [0.0, 1.0, -1.0]))
    return polys


_POLYS = _sigmoid_polys(_K)


def _softplus_derivatives(y):
    """``[f(y), f'(y), ..., f^(K-1)(y)]`` for ``f = softplus``, each accurate to rounding.

    ``f' = sigma`` and ``f^(n+1) = sigma^(n) = P_n(sigma)``.  The polynomials are evaluated at
    ``s = sigma(-|y|) <= 1/2`` (no cancellation for large ``|y|``), using
    ``sigma^(n)(y) = (-1)^(n+1) sigma^(n)(-y)`` for ``y >= 0`` and ``n >= 1``.
    """
    e = np.exp(-np.abs(y))
    s = e / (1.0 + e)
    pos = y >= 0
    out = [np.maximum(y, 0.0) + np.log1p(e), np.where(pos, 1.0 - s, s)]
    for n in range(1, _K - 1):
        c = _POLYS[n]
        v = np.full_like(s, c[-1])
        for coef in c[-2::-1]:
            v *= s
            v += coef
        out.append(np.where(pos, -v, v) if n % 2 == 0 else v)
    return out


def _softplus_sums(u, w, shifts, method=None):
    """``sum_i w_i * softplus(u_i + c)`` for every ``c`` in ``shifts`` (nats).

    Parameters
    ----------
    u : ndarray, shape (n,)
        Sorted ascending; may hold ``+-inf``.
    w : ndarray, shape (n,), or None
        Weights (None: all 1).
    shifts : ndarray, shape (P,)
        Finite shifts.
    method : {None, 'taylor', 'direct'}
        None chooses: the Taylor scheme when it is cheaper (at least ``_K`` shifts and at
        least 8 values per occupied bin), else one exact pass per shift.

    Notes
    -----
    Group the values in bins of width ``h = 1/16`` around centres ``m_b`` (multiples of
    ``h``), with offsets ``d_i = u_i - m_b``, ``|d_i| <= h/2``.  Then, exactly up to the
    Taylor remainder,
    ``sum_i w_i f(u_i + c) = sum_b sum_{k<K} f^(k)(m_b + c) * M_bk``, with the moments
    ``M_bk = sum_{i in b} w_i d_i^k / k!`` computed once for all shifts.
    """
    n = u.size
    lo = int(np.searchsorted(u, -np.inf, side="right"))  # -inf: softplus(-inf) = 0
    hi = int(np.searchsorted(u, np.inf, side="left"))
    if hi < n and (w is None or np.any(w[hi:] > 0)):
        return np.full(shifts.shape, np.inf)  # an LLR of +-inf on the wrong side
    x = u[lo:hi]
    wx = None if w is None else w[lo:hi]
    if x.size == 0:
        return np.zeros(shifts.shape)
    # Bin centres; beyond 2^48 every float is already a multiple of 1/16 (and *16 could
    # overflow), so the value is its own centre.
    big = np.abs(x) >= 2.0 ** 48
    if big.any():
        centre = np.where(big, x, np.rint(np.where(big, 0.0, x) * (1.0 / _H)) * _H)
    else:
        centre = np.rint(x * (1.0 / _H)) * _H
    starts = np.flatnonzero(np.concatenate([[True], centre[1:] != centre[:-1]]))
    n_bins = starts.size
    if method is None:
        method = "taylor" if (shifts.size >= _K and 8 * n_bins <= x.size) else "direct"
    if method == "direct":
        return np.array([softplus_sum(x, shift=float(c), weights=wx) for c in shifts])
    m = centre[starts]
    d = x - centre  # exact: x and its centre are within 1/32 of each other
    moments = np.empty((_K, n_bins))
    if wx is None:
        moments[0] = np.diff(np.append(starts, x.size))  # bin counts
        p = d.copy()  # updated in place below
    else:
        moments[0] = np.add.reduceat(wx, starts)
        p = wx * d
    for k in range(1, _K):
        moments[k] = np.add.reduceat(p, starts) / factorial(k)
        if k < _K - 1:
            p *= d
    out = np.empty(shifts.shape)
    step = max(1, _BLOCK // n_bins)
    for i in range(0, shifts.size, step):
        y = shifts[i:i + step, None] + m[None, :]
        total = np.zeros(y.shape[0])
        for k, dk in enumerate(_softplus_derivatives(y)):
            total += dk @ moments[k]
        out[i:i + step] = total
    return out


def _class_sums(s: SortedScores):
    """``(u_tar, w_tar, u_non, w_non)``: ``-tar`` and ``non``, each ascending, with weights."""
    tw = None if s.tar_w is None else s.tar_w[::-1]
    return -s.tar[::-1], tw, s.non, s.non_w


def _ce_curve(s: SortedScores, plo, method=None):
    """``Ce(p)`` (nats) of the sorted LLRs at every prior log-odds in ``plo``."""
    ut, wt, un, wn = _class_sums(s)
    ct = _softplus_sums(ut, wt, -plo, method) / s.n_tar
    cn = _softplus_sums(un, wn, plo, method) / s.n_non
    return _mix(plo, ct, cn)


def _mix(plo, ct, cn):
    """``p*ct + (1-p)*cn`` with ``p = sigmoid(plo)``; a zero weight times inf counts as 0."""
    p, q = expit(plo), expit(-plo)
    with np.errstate(invalid="ignore"):
        return np.where(ct == 0, 0.0, p * ct) + np.where(cn == 0, 0.0, q * cn)


def _min_ce_curve(blocks: PooledBlocks, plo):
    """``Ce(p)`` (nats) of the PAV LLRs at every prior log-odds in ``plo``."""
    ct = np.empty(plo.shape)
    cn = np.empty(plo.shape)
    step = max(1, _BLOCK // blocks.n_blocks)
    for i in range(0, plo.size, step):
        z = blocks.llr[None, :] + plo[i:i + step, None]
        # A pure block has an infinite LLR but no trial of the class it would penalise.
        lt = np.where(blocks.tar > 0, np.logaddexp(0.0, -z), 0.0)
        ln = np.where(blocks.non > 0, np.logaddexp(0.0, z), 0.0)
        ct[i:i + step] = lt @ blocks.tar
        cn[i:i + step] = ln @ blocks.non
    return _mix(plo, ct / blocks.n_tar, cn / blocks.n_non)


def _prior_entropy(plo):
    """``H(p) = -p log p - (1-p) log(1-p)`` (nats) at ``p = sigmoid(plo)``."""
    return expit(plo) * np.logaddexp(0.0, -plo) + expit(-plo) * np.logaddexp(0.0, plo)


def _as_grid(plo):
    a = DEFAULT_PLO if plo is None else np.atleast_1d(np.asarray(plo, dtype=np.float64))
    if a.ndim != 1:
        raise DataError(f"prior log-odds must be a scalar or a 1-D array, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise DataError("prior log-odds must be finite (no NaN or inf)")
    return a


def _analysis(tar, non, tar_weights, non_weights) -> Analysis:
    if isinstance(tar, Analysis):
        if non is not None or tar_weights is not None or non_weights is not None:
            raise TypeError("pass either an Analysis or the scores, not both")
        return tar
    return analyze(tar, non, plo=[], tar_weights=tar_weights, non_weights=non_weights)


@dataclass(frozen=True, eq=False)
class _Losses:
    cllr: float
    min_cllr: float

    @property
    def discrimination_loss(self):
        """``minCllr`` in bits: the loss no monotone recalibration can remove."""
        return self.min_cllr

    @property
    def calibration_loss(self):
        """``Cllr - minCllr`` in bits: the loss a monotone recalibration can remove."""
        return self.cllr - self.min_cllr


@summary_repr("cllr", "min_cllr", "eer", "plo")
@dataclass(frozen=True, eq=False)
class APECurves(_Losses):
    """APE-plot data: Bayes error rates against prior log-odds, and the Cllr decomposition.

    Element ``i`` of every array belongs to ``plo[i]``.

    Attributes
    ----------
    plo : ndarray, shape (P,)
        Prior log-odds ``logit(pt)`` (the Bayes threshold is ``-plo``).
    bayes_error : ndarray, shape (P,)
        Un-normalized Bayes error rate of the LLRs, ``pt*Pmiss(-plo) + (1-pt)*Pfa(-plo)``.
    min_bayes_error : ndarray, shape (P,)
        Its minimum over thresholds (ROCCH vertices), equal to the Bayes error of the
        PAV-calibrated LLRs.
    default : ndarray, shape (P,)
        The default system (LLR 0): ``min(pt, 1-pt)``.
    cllr, min_cllr : float
        In bits; ``discrimination_loss`` and ``calibration_loss`` are properties.
    eer : float
        ROCCH-EER, the maximum of ``min_bayes_error`` over all ``plo``.
    """

    plo: np.ndarray
    bayes_error: np.ndarray
    min_bayes_error: np.ndarray
    default: np.ndarray
    eer: float


@summary_repr("cllr", "min_cllr", "plo")
@dataclass(frozen=True, eq=False)
class ECECurves(_Losses):
    """ECE-plot data: prior-weighted cross-entropies (nats) against prior log-odds.

    Element ``i`` of every array belongs to ``plo[i]``; divide by ``ln 2`` for bits.

    Attributes
    ----------
    plo : ndarray, shape (P,)
        Prior log-odds ``logit(p)``.
    ce : ndarray, shape (P,)
        ``Ce(p)`` of the LLRs.
    min_ce : ndarray, shape (P,)
        ``Ce(p)`` of the PAV-calibrated LLRs (the minimum over monotone recalibrations).
    default : ndarray, shape (P,)
        ``Ce(p)`` of the default system (LLR 0): the prior's entropy
        ``-p log p - (1-p) log(1-p)``.
    cllr, min_cllr : float
        In bits (``ce`` and ``min_ce`` at ``plo = 0``, divided by ``ln 2``);
        ``discrimination_loss`` and ``calibration_loss`` are properties.
    """

    plo: np.ndarray
    ce: np.ndarray
    min_ce: np.ndarray
    default: np.ndarray


def ape_curves(tar, non=None, plo=None, *, tar_weights=None, non_weights=None) -> APECurves:
    """APE-plot data: actual, minimum and default Bayes error rates over prior log-odds.

    Parameters
    ----------
    tar, non : array_like, Trials or Analysis
        Target and non-target LLRs (natural log), or one ``Trials``, or an existing
        :class:`~llrlab.core.analysis.Analysis` (its sort and PAV are reused) as ``tar``.
    plo : array_like, optional
        Finite prior log-odds (default :data:`~llrlab.core.analysis.DEFAULT_PLO`).
    tar_weights, non_weights : array_like, optional
        Per-trial weights.

    Returns
    -------
    APECurves

    Notes
    -----
    With ``pt = sigmoid(plo)``, ``Pmiss(t) = #(tar < t)/T`` and ``Pfa(t) = #(non >= t)/N``
    (Brümmer 2010, eqs. 7.18-7.19)::

        E(pt)     = pt*Pmiss(-plo) + (1-pt)*Pfa(-plo)
        Emin(pt)  = min_t [pt*Pmiss(t) + (1-pt)*Pfa(t)]      (ROCCH vertices)
        default   = min(pt, 1-pt)

    The APE plot's scalar summary is the decomposition ``Cllr = minCllr + (Cllr - minCllr)``
    (discrimination plus calibration loss).  The integrals over all prior log-odds are
    (Brümmer 2010, sec. 7.7.4, with the factor 2 that the printed identity lacks)::

        integral E(sigmoid(h)) dh    = 2 ln2 * Cllr
        integral Emin(sigmoid(h)) dh = 2 ln2 * minCllr
        integral min(pt, 1-pt) dh    = 2 ln2            (the default system, Cllr = 1)

    since each target trial with LLR ``w`` contributes ``integral_{-inf}^{-w} sigmoid(h) dh
    = log(1 + exp(-w))`` and each non-target ``log(1 + exp(w))``.

    References
    ----------
    Brümmer (2010), sec. 7.3.1 (eqs. 7.18-7.20), 7.4 (eq. 7.33)
    and 7.7.4 ("APE curves"); docs/conventions.md.

    Examples
    --------
    >>> from llrlab.core.ape import ape_curves
    >>> c = ape_curves([2.0, 0.5, -1.0], [-2.0, 1.0, -3.0, -0.5], plo=[-1.0, 0.0, 1.0])
    >>> c.bayes_error                     # at plo 0: (Pmiss + Pfa)/2 = (1/3 + 1/4)/2
    array([0.36205893, 0.29166667, 0.13447071])
    >>> c.min_bayes_error
    array([0.17929428, 0.25      , 0.13447071])
    >>> round(c.cllr, 6), round(c.discrimination_loss, 6), round(c.calibration_loss, 6)
    (0.814259, 0.574716, 0.239542)
    """
    a = _analysis(tar, non, tar_weights, non_weights)
    grid = _as_grid(plo)
    return APECurves(
        cllr=a.cllr,
        min_cllr=a.min_cllr,
        plo=grid,
        bayes_error=_act_dcf(a.sorted, grid, normalized=False).dcf,
        min_bayes_error=_min_dcf(a.sorted, a.blocks, grid, normalized=False).dcf,
        default=expit(-np.abs(grid)),
        eer=a.eer,
    )


def ece_curves(tar, non=None, plo=None, *, tar_weights=None, non_weights=None) -> ECECurves:
    """ECE-plot data: cross-entropy of the LLRs, of the PAV LLRs and of the prior, in nats.

    Parameters
    ----------
    tar, non : array_like, Trials or Analysis
        As in :func:`ape_curves`.
    plo : array_like, optional
        Finite prior log-odds (default :data:`~llrlab.core.analysis.DEFAULT_PLO`).
    tar_weights, non_weights : array_like, optional
        Per-trial weights.

    Returns
    -------
    ECECurves

    Notes
    -----
    With ``p = sigmoid(plo)`` (Brümmer 2010, sec. 7.4.3, "empirical cross-entropy")::

        Ce(p) = p * mean(log(1 + exp(-(tar + plo)))) + (1-p) * mean(log(1 + exp(non + plo)))

    ``min_ce`` is ``Ce`` of the PAV LLRs ``log(b_tar/b_non) - log(T/N)`` of each block
    (independent of the prior, Brümmer 2010, eq. 7.50), so the minimum over monotone
    recalibrations at every prior comes from the same blocks.  ``default`` is
    ``H(p) = p*log(1 + exp(-plo)) + (1-p)*log(1 + exp(plo))``.  ``Ce(1/2) = ln2 * Cllr``.

    Cost: the PAV blocks give ``min_ce`` in ``O(B*P)``.  ``ce`` uses a Taylor expansion of
    the soft-plus around bins of width 1/16 of the sorted LLRs (offsets at most 1/32, 8
    terms; remainder ~1e-16 relative, since soft-plus is analytic in a strip of half-width
    pi): ``O(8n)`` to compute the bin moments once, ``O(8*B*P)`` for the priors.  When the
    LLRs are spread too thinly for bins to pay off, one exact pass per prior is used.

    References
    ----------
    Brümmer (2010), sec. 7.4.3, 7.7.3 (eq. 7.50) and 7.7.4
    ("ECE curves"); docs/conventions.md.

    Examples
    --------
    >>> import numpy as np
    >>> from llrlab.core.ape import ece_curves
    >>> c = ece_curves([2.0, 0.5, -1.0], [-2.0, 1.0, -3.0, -0.5], plo=[-2.0, 0.0, 2.0])
    >>> c.ce
    array([0.30810648, 0.5644012 , 0.29200928])
    >>> bool(np.all(c.min_ce <= c.ce)), bool(np.all(c.ce < c.default))
    (True, True)
    >>> round(float(c.ce[1] / np.log(2)), 6) == round(c.cllr, 6)
    True
    """
    a = _analysis(tar, non, tar_weights, non_weights)
    grid = _as_grid(plo)
    return ECECurves(
        cllr=a.cllr,
        min_cllr=a.min_cllr,
        plo=grid,
        ce=_ce_curve(a.sorted, grid),
        min_ce=_min_ce_curve(a.blocks, grid),
        default=_prior_entropy(grid),
    )
