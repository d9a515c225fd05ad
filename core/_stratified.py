"""The variance of a weighted error rate: stratified and linearised (Cochran 1977).

A weighted error rate ``p = sum_i w_i e_i / W`` (``e_i`` 1 for an error, ``W = sum_i w_i``) is a
ratio of two weighted totals.  Its variance is estimated by the Taylor linearisation of the
ratio (Cochran 1977, ch. 6): with ``z_i = w_i (e_i - p) / W``,

    V(p) = sum_h sum_{i in h} (z_i - zbar_h)^2,         zbar_h = mean of z_i over stratum h,

summed over the strata ``h`` (the conditions of condition-weighted trials; Cochran 1977,
sec. 5.3 for the stratified sum, and ch. 6 for the combined ratio estimate in stratified
sampling).  Two cases make it familiar:

* condition weights (van Leeuwen 2008, eq. 12) are constant in each condition ``h`` of a
  class: ``w_i = b_h``, and ``V(p) = sum_h (W_h / W)^2 p_h (1 - p_h) / n_h`` with ``W_h =
  n_h b_h`` -- the variance of a stratified proportion, each condition's binomial variance
  with its own rate ``p_h`` times its squared share of the weight;
* per-trial weights without conditions (one stratum): ``zbar = 0`` and
  ``V(p) = sum_i w_i^2 (e_i - p)^2 / W^2``.

Equal weights in one stratum give the binomial ``p (1 - p) / n``.  Kish's effective number
``n_eff = W^2 / sum w^2`` with the pooled rate, ``p (1 - p) / n_eff``, agrees with ``V(p)``
only when every trial has the same error probability; when the conditions' rates differ it
is too small (llrlab used it before; tests/core/test_weighted_variance.py shows the
difference).  The estimator is the plug-in one (no ``n_h / (n_h - 1)`` factor), so that the
unweighted case stays the binomial variance of Bengio & Mariéthoz (2004).

:class:`PrefixVariance` gives ``V`` for every threshold at once: with the trials in score
order, the errors at a threshold are a prefix (misses) or a suffix (false alarms, a prefix
of the reversed order), and ``V`` of a prefix is a function of five running sums.

References: W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley, 1977, sec. 5.3 and ch. 6;
L. Kish, *Survey Sampling*, Wiley, 1965 (effective sample size).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PrefixVariance", "difference_variance", "rate_variance"]


def _strata_codes(strata, n):
    """Dense stratum codes ``0..H-1`` (one stratum when ``strata`` is None) and ``H``, in
    the smallest unsigned integer type (numpy sorts 8- and 16-bit keys by radix: ``O(n)``).

    Non-negative integer codes below ``2 n + 1024`` (condition codes) are made dense by a
    look-up table; other labels by :func:`numpy.unique`."""
    if strata is None:
        return np.zeros(n, dtype=np.uint8), 1
    codes = np.asarray(strata)
    if codes.dtype.kind in "iu" and (codes.size == 0 or (codes.min() >= 0 and
                                                         codes.max() < 2 * n + 1024)):
        present = np.bincount(codes) > 0 if codes.size else np.zeros(0, dtype=bool)
        table = np.cumsum(present) - 1
        dense, h = table[codes], int(present.sum())
    else:
        _, dense = np.unique(codes, return_inverse=True)
        dense = dense.ravel()
        h = int(dense.max()) + 1 if dense.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32):
        if h <= np.iinfo(dtype).max:
            return dense.astype(dtype, copy=False), h
    return dense, h


def rate_variance(errors, weights, strata=None):
    """A weighted error rate and its stratified linearised variance (module docstring).

    Parameters
    ----------
    errors : ndarray of bool, shape (n,)
        ``e_i``: the trial is an error.
    weights : ndarray of float, shape (n,)
        ``w_i >= 0``, with a positive sum.
    strata : ndarray, shape (n,), optional
        The stratum (condition) of each trial, e.g. non-negative integer codes; None: one
        stratum.

    Returns
    -------
    p, variance : float
    """
    w = np.asarray(weights, dtype=np.float64)
    e = np.asarray(errors, dtype=bool)
    total = float(w.sum())
    p = min(float(w[e].sum()) / total, 1.0)
    a = w * (e - p)
    if strata is None:  # one stratum: the mean of a is 0 (p is the weighted mean of e)
        r = a - a.mean()
    else:  # codes that are not dense leave empty strata, which add nothing
        codes = np.asarray(strata)
        if codes.dtype.kind not in "iu" or (codes.size and codes.min() < 0):
            codes = _strata_codes(codes, w.size)[0]
        counts = np.bincount(codes)
        mean = np.bincount(codes, weights=a) / np.maximum(counts, 1)
        r = a - mean[codes]
    return p, float(np.dot(r, r)) / (total * total)


def difference_variance(errors_a, errors_b, weights):
    """Variance of the difference of two paired weighted error rates under the null hypothesis
    that they are equal in every stratum: ``sum_i w_i^2 (e_Ai - e_Bi)^2 / W^2``.

    Within a stratum ``h`` whose two rates are equal, ``e_A - e_B`` has mean 0 and variance
    ``P(A and B disagree) = Var(e_A) + Var(e_B) - 2 Cov(e_A, e_B)``: the trials on which the
    systems disagree carry the covariance of their errors (Bengio & Mariéthoz 2004, the
    dependent case).  Centred at the null mean 0 the sum needs no stratum means, so the strata
    drop out; with equal weights it is ``(m_AB + m_BA) / T^2``.
    """
    w = np.asarray(weights, dtype=np.float64)
    total = float(w.sum())
    d = w[np.asarray(errors_a, dtype=bool) != np.asarray(errors_b, dtype=bool)]
    return float(np.dot(d, d)) / (total * total)


class PrefixVariance:
    """``V(p)`` (module docstring) of the rate of the first ``j`` trials of a fixed order, and
    its effective degrees of freedom, for any number of ``j`` at once.

    Parameters
    ----------
    weights : ndarray of float, shape (n,)
        The trials' weights in the order (e.g. ascending score).
    strata : ndarray of int, shape (n,), optional
        Their strata in the same order; None: one stratum.

    Notes
    -----
    The trials are grouped by stratum once (a stable sort of the codes keeps their order in
    each stratum), with running sums of ``w``, ``w^2`` and ``w (w - wbar_h)`` in each group.
    With ``e_i = 1`` for the first ``j`` trials, stratum ``h`` (``n_h`` trials, mean weight
    ``wbar_h``) has ``m_h`` of them, found by one binary search per stratum, and its sums
    over them ``C_h``, ``S_h``, ``U_h`` give its share of the variance

        W^2 v_h = sum_{i in h} (a_i - abar_h)^2 = S_h - C_h^2 / n_h - 2 p U_h + p^2 E_h,

    ``a_i = w_i (e_i - p)``, ``E_h = sum_{i in h} (w_i - wbar_h)^2``, ``p = sum_h C_h / W``; for
    condition weights (constant in each stratum) ``U_h = E_h = 0`` and ``v_h = (W_h / W)^2
    p_h (1 - p_h) / n_h``.  ``V = sum_h v_h``, and its effective degrees of freedom are
    Satterthwaite's ``V^2 / sum_h v_h^2 / (n_h - 1)`` (Cochran 1977, sec. 5.4): few when one
    small stratum carries most of the variance.  Cost per ``j``: ``O(H log n)`` for ``H``
    strata.
    """

    #: at most this many (threshold, stratum) pairs are evaluated at once (memory bound)
    BLOCK = 1 << 20

    def __init__(self, weights, strata=None):
        w = np.asarray(weights, dtype=np.float64)
        codes, h = _strata_codes(strata, w.size)
        n = w.size
        order = np.argsort(codes, kind="stable")
        g = codes[order]
        self.key = g.astype(np.int64) * (n + 1) + order  # ascending: by stratum, then position
        self.start = np.zeros(h + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes, minlength=h), out=self.start[1:])
        self.n_h = np.diff(self.start).astype(np.float64)
        wg = w[order]
        wbar = np.add.reduceat(wg, self.start[:-1]) / self.n_h if h else np.zeros(0)
        dev = wg - np.repeat(wbar, np.diff(self.start))
        self.c, self.s, self.u = _running(wg), _running(wg * wg), _running(wg * dev)
        self.e_h = np.add.reduceat(dev * dev, self.start[:-1]) if h else np.zeros(0)
        self.total = float(w.sum())
        self.n_positive = int(np.count_nonzero(w > 0))
        self.h = h
        self.n = n

    def __call__(self, j, p=None):
        """``(V, df)`` of the first ``j`` trials (ints, any shape); ``p`` their rate if known
        more precisely than from the sums here (e.g. summed from the other end).  A rate of
        0 or 1 has ``V = 0`` and ``df = inf``."""
        j = np.asarray(j)
        shape = j.shape
        flat = j.ravel().astype(np.int64)
        pf = None if p is None else np.broadcast_to(np.asarray(p, np.float64), shape).ravel()
        v, df = np.empty(flat.size), np.empty(flat.size)
        step = max(1, self.BLOCK // max(self.h, 1))
        for a in range(0, flat.size, step):
            sl = slice(a, a + step)
            v[sl], df[sl] = self._block(flat[sl], None if pf is None else pf[sl])
        return v.reshape(shape), df.reshape(shape)

    def _block(self, j, p):
        hs = np.arange(self.h, dtype=np.int64)
        at = np.searchsorted(self.key, hs[None, :] * (self.n + 1) + j[:, None], side="left")
        lo = self.start[:-1][None, :]
        c = self.c[at] - self.c[lo]
        s = self.s[at] - self.s[lo]
        u = self.u[at] - self.u[lo]
        if p is None:  # (all trials: 1 exactly, not the rounding of a sum of sums)
            p = np.where(j >= self.n, 1.0, np.minimum(c.sum(axis=1) / self.total, 1.0))
        pc = p[:, None]
        part = np.maximum(s - c * c / self.n_h - 2.0 * pc * u + pc * pc * self.e_h, 0.0)
        # a stratum wholly outside (inside) the prefix: a_i = -p w_i (resp. (1 - p) w_i),
        # whose spread is p^2 E_h (resp. (1 - p)^2 E_h) -- exactly 0 for constant weights
        m = at - lo
        part = np.where(m == 0, pc * pc * self.e_h, part)
        part = np.where(m == self.n_h, (1.0 - pc) ** 2 * self.e_h, part)
        inner = (p > 0.0) & (p < 1.0)  # a rate of 0 or 1 has no variance (exactly)
        t2 = self.total * self.total
        v = np.where(inner, part.sum(axis=1), 0.0) / t2
        with np.errstate(divide="ignore", invalid="ignore"):
            q = (part * part / np.maximum(self.n_h - 1.0, 1.0))[:, self.n_h > 1].sum(axis=1)
            df = np.where(inner & (q > 0), np.maximum((v * t2) ** 2 / q, 1.0), np.inf)
        return v, df


def _running(x):
    """``[0, x_0, x_0 + x_1, ...]``."""
    out = np.empty(x.size + 1)
    out[0] = 0.0
    np.cumsum(x, out=out[1:])
    return out

