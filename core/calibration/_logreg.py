"""Prior-weighted logistic regression: the kernel of affine calibration and linear fusion.

Given features ``x_t`` (one row of K scores per trial), labels and a training prior ``p``,
find the weights ``w`` (K) and offset ``b`` of ``llr_t = w . x_t + b`` that minimize the
prior-weighted cross-entropy

    Ce(p) = p * sum_{t in tar} c_t softplus(-(llr_t + logit p))
          + (1-p) * sum_{t in non} c_t softplus(llr_t + logit p),

where ``softplus(z) = log(1 + exp(z))`` and ``c_t`` are the trial weights normalized to sum
to 1 within each class (1/T and 1/N without weights), so each class counts by its prior, not
by its number of trials (Brümmer 2010, eq. 8.17; Brümmer & de Villiers 2011, eq. 30 without quality
terms).

Method
------
1. **Whitening.** Each system's scores are centred on their class-balanced mean and scaled
   to unit variance; these standardised scores are rotated onto their principal
   directions ``v_j`` and each direction divided by its spread ``sigma_j`` (a singular
   value of the class-weighted standardised scores).  Newton's method then works on a
   problem whose Hessian is close to a multiple of the identity, whatever the scale of the
   scores.  A system whose spread is within ``ROUNDING_MARGIN`` (1000) times the rounding
   error of its scores is constant; a direction with ``sigma_j <= 1e-10 sigma_max``, or
   within 1000 times its rounding error, is dropped: a constant system, or one that is an
   affine function of the others, has no identifiable weight, and the minimum-norm
   solution (zero weight in the dropped directions) is returned with a warning naming the
   combination left out and why.  Deciding on standardised scores keeps two nearly equal
   systems whose difference still carries information (a correlation of ``1 - 1e-12``
   leaves a spread of ``1.4e-6``: far above rounding, and used).
2. **Separability.**  ``Ce`` has no finite minimizer exactly when there is a direction
   ``v`` (in whitened features plus offset) with ``y_t v . z_t >= 0`` for every trial and
   ``> 0`` for some (``y = +1`` for targets, ``-1`` for non-targets): moving along ``v``
   lowers every loss term.  With one feature this is ``max(non) <= min(tar)`` (or the
   mirror image); with several it is decided exactly by a linear programme (HiGHS) solved
   by constraint generation: on a sample of ~256 trials first, adding every trial the
   candidate direction misclassifies until the direction is confirmed on all trials or
   none exists.  Separable (or quasi-separable: ties on the boundary) data get a
   :class:`~llrlab.core.errors.SeparableDataWarning` and the penalty
   ``SEPARABLE_L2 / 2 * |beta|^2`` on the whitened weights ``beta`` (not on the offset).
   Because the penalty acts on whitened features it is invariant to any affine change of
   the input scores; with 1e-4 the LLRs stay within a few tens of nats: finite, but their
   size reflects the penalty, not the data.  With one system the order of the scores is
   kept (every positive scale does); with several, the penalised direction is a compromise
   close to the maximum-margin separator, so dev trials within a small margin of the
   separating boundary may come out on the wrong side of it.
3. **Trust-region Newton** (``scipy.optimize.minimize(method="trust-exact")``; Brümmer & de
   Villiers 2011, sec. 3.3 and its reference [21]) with the analytic gradient and Hessian
   computed in one pass over the trials, started from the linear-discriminant solution
   (exact for Gaussian classes with a shared variance).  One system's sorted classes of at
   least ``SUMMARY_MIN`` trials are first summarized: each class cut into ``SAMPLE_BLOCKS``
   blocks of consecutive scores (half of them where the classes overlap; half of equal
   counts, half of equal widths), each block replaced by two points at its mean plus and
   minus its standard deviation with half its weight (two-node Gauss quadrature: weight,
   mean and variance of every block kept); the same problem solved on these points, from the
   linear-discriminant start, starts Newton on all the trials within the stopping criterion
   at once (one pass over the trials instead of three to five).  The blocks' sums and
   spreads also give the classes' moments for step 1.  Newton stops once the Newton
   decrement ``g' H^-1 g / 2`` -- the predicted remaining decrease of the objective -- is
   below ``1e-12`` of the objective (when trust-exact stops short of that on its own
   gradient test, up to three plain Newton steps follow, each kept only if it lowers the
   decrement); then one plain Newton step is taken (the trust region's ratio test cannot
   judge steps whose decrease is below the objective's rounding), which brings the
   parameters to about ``1e-12`` relative accuracy; so close to the optimum the quadratic
   model is exact to far below rounding, and the objective at the end of the step is taken
   from it rather than from another pass over the trials.  If the decrement is not below
   ``1e-12`` of the objective, a :class:`ConvergenceWarning` is issued.

References
----------
Brümmer & de Villiers (2011), sec. 2.7.2 and 3.3, eq. 30; Brümmer (2010), sec. 8.3.1,
eqs. 8.16-8.17; docs/conventions.md.
"""

from __future__ import annotations

import bisect
import math
import threading
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog, minimize
from scipy.special import logit

from .._parallel import PARALLEL_MIN, chunk_slices, map_ordered
from .._repr import summary_repr
from .._validate import as_number
from ..errors import DataError, LlrlabWarning, SeparableDataWarning

__all__ = ["SEPARABLE_L2", "ConvergenceWarning", "LinearFit", "class_weights", "fit_linear"]

#: L2 penalty on the whitened weights, used only when the classes are (quasi-)separable.
SEPARABLE_L2 = 1e-4
#: Required Newton decrement relative to the objective (predicted remaining decrease).
DECREMENT_RTOL = 1e-12
#: Below this relative decrement (float64 resolution of the parameters) polishing stops.
DECREMENT_FLOOR = 1e-30
#: Directions of the standardised scores whose spread (singular value) is at most this
#: fraction of the largest are dropped (see ``_whitening``).
RANK_RTOL = 1e-10
#: A spread within this many times the rounding error of the scores counts as zero.
ROUNDING_MARGIN = 1e3
#: Trials in the first linear programme of the separability test.
LP_SAMPLE = 256


class ConvergenceWarning(LlrlabWarning):
    """The optimizer stopped before the objective met its convergence criterion."""


@summary_repr("weights", "offset", "objective", "separable", "rank")
@dataclass(frozen=True, eq=False)
class LinearFit:
    """The optimum of the prior-weighted cross-entropy (see the module docstring).

    Attributes
    ----------
    weights : ndarray, shape (K,)
        One weight per feature (system).
    offset : float
    objective : float
        ``Ce(prior)`` of the training LLRs, in nats, without the penalty.
    separable : bool
        The classes are (quasi-)separable; the penalty ``SEPARABLE_L2`` was applied.
    rank : int
        Number of identifiable feature directions (K unless some are constant or
        collinear).
    iterations : int
        Trust-region iterations (not counting the final Newton step).
    decrement : float
        Newton decrement ``g' H^-1 g / 2`` at the last point evaluated, before the final
        Newton step (nats): a bound on the decrease that step predicted.
    """

    weights: np.ndarray
    offset: float
    objective: float
    separable: bool
    rank: int
    iterations: int
    decrement: float


#: Largest score magnitude the fit takes: second moments (whitening, Hessian) must not overflow.
_MAX_SCORE = 1e150


def class_weights(labels, prior, weights=None, *, what="the training trials"):
    """Weights ``c_t`` of ``Ce(prior)`` per class: ``p w_t / W_tar`` and ``(1-p) w_t / W_non``.

    Returns ``(c_tar, c_non)``: floats (``p / T``, ``(1-p) / N``) without weights, arrays
    with.  Raises :class:`DataError` when a class is missing or has zero total weight.
    """
    lab = np.asarray(labels, dtype=bool)
    if weights is None:
        nt = np.count_nonzero(lab)
        return _split_class_weights(float(nt), float(lab.size - nt), prior, False, what)
    w = np.asarray(weights, dtype=np.float64)
    return _split_class_weights(w[lab], w[~lab], prior, True, what)


def check_classes(labels, prior, *, what="the training trials"):
    """The checks of :func:`class_weights` that need no weights (a prior in (0, 1), trials
    of both classes), before a caller sorts the trials: no gather of the classes.  The
    classes' total weights are checked by :func:`fit_sorted`.  Raises :class:`DataError`."""
    lab = np.asarray(labels, dtype=bool)
    nt = np.count_nonzero(lab)
    _checked_prior(prior, float(nt), float(lab.size - nt), False, what)


def _checked_prior(prior, wt, wn, weighted, what):
    """The training prior as a float, after checking it and the classes' totals ``wt``,
    ``wn`` (weights, or numbers of trials when not ``weighted``)."""
    p = as_number(prior, "the training prior")
    if not 0.0 < p < 1.0:
        raise DataError(f"the training prior must lie strictly between 0 and 1, got {prior!r}")
    for total, cls in ((wt, "target"), (wn, "non-target")):
        if not total > 0:
            raise DataError(f"{what} have no {cls} trials" +
                            (" with positive weight" if weighted else "") +
                            "; calibration needs both targets and non-targets")
    return p


def _split_class_weights(tw, nw, prior, weighted, what):
    """:func:`class_weights` from each class's weights ``tw``, ``nw`` (arrays), or from
    their numbers of trials (floats) when not ``weighted``."""
    wt, wn = (float(tw.sum()), float(nw.sum())) if weighted else (tw, nw)
    p = _checked_prior(prior, wt, wn, weighted, what)
    if not weighted:
        return p / wt, (1.0 - p) / wn
    return tw * (p / wt), nw * ((1.0 - p) / wn)


def _dot(a, b):
    """``sum(a * b)`` of two vectors without BLAS (numpy's own summation loop).

    The objective is evaluated on thousands of cache-sized pieces; a BLAS dot of each piece
    may start a thread team per call, and with the cores busy (other processes, or the
    BLAS threads of a caller) the teams wait for each other: a 10^7-trial fit measured 5x
    slower with the default BLAS threads than with one.  numpy's loop does not thread.
    """
    return float(np.einsum("i,i->", a, b))


class _Class:
    """The whitened features ``z`` (n_k, r) of one class, its weights ``c`` and its sign.

    The loss of trial t is ``softplus(s_t)`` with ``s_t = sign * (z_t . beta + b + logit p)``
    (``sign = -1`` for targets, ``+1`` for non-targets).  The features are kept as ``r``
    contiguous columns: the linear predictor is a sum of scaled columns and the gradient
    and Hessian entries are dot products, all computed elementwise without BLAS (see
    :func:`_dot`), in scratch buffers shared by the pieces (no temporaries).
    """

    def __init__(self, z, c, sign):
        self.cols = [np.ascontiguousarray(z[:, j]) for j in range(z.shape[1])]
        self.c, self.sign = c, sign
        self.n = z.shape[0]
        self.uniform = np.ndim(c) == 0

    def evaluate(self, beta, b, scratch):
        """Loss sum, gradient (r + 1,) and Hessian (r + 1, r + 1) in one pass.

        ``scratch``: four float64 buffers of at least ``n`` elements each.
        """
        n, r = self.n, len(self.cols)
        s, e, t, u = (x[:n] for x in scratch)
        s.fill(self.sign * b)
        for col, bj in zip(self.cols, beta, strict=True):
            np.multiply(col, self.sign * bj, out=t)
            s += t
        np.abs(s, out=e)
        np.negative(e, out=e)
        np.exp(e, out=e)  # exp(-|s|)
        np.log1p(e, out=t)
        np.maximum(s, 0.0, out=u)
        t += u  # softplus(s) = max(s, 0) + log1p(exp(-|s|))
        f = self._wsum(t)
        inv = u
        np.add(e, 1.0, out=inv)
        np.reciprocal(inv, out=inv)
        # sigmoid(s) = d loss / d s: inv for s >= 0, 1 - inv below (absolute error ~1e-16)
        sig = t
        np.subtract(inv, 0.5, out=sig)
        np.copysign(sig, s, out=sig)
        sig += 0.5
        if not self.uniform:
            sig *= self.c
        g = np.empty(r + 1)
        for j, col in enumerate(self.cols):
            g[j] = _dot(col, sig)
        g[r] = float(sig.sum())
        h = s  # sigmoid(s) sigmoid(-s) = d2 loss / d s2
        np.multiply(e, inv, out=h)
        h *= inv
        if not self.uniform:
            h *= self.c
        hess = np.empty((r + 1, r + 1))
        w = e
        for j, cj in enumerate(self.cols):
            np.multiply(h, cj, out=w)
            for i in range(j + 1):
                hess[i, j] = hess[j, i] = _dot(self.cols[i], w)
            hess[r, j] = hess[j, r] = float(w.sum())
        hess[r, r] = float(h.sum())
        if self.uniform:
            return f, self.sign * self.c * g, self.c * hess
        return f, self.sign * g, hess

    def _wsum(self, v):
        return self.c * float(v.sum()) if self.uniform else _dot(self.c, v)


#: Trials per piece of a class: the four scratch buffers of a pass over a piece (2 MiB)
#: stay in cache at this size.
_PIECE = 1 << 16


def _chunked(z, c, sign):
    """One class's trials as :class:`_Class` pieces of fixed length, evaluated one after the
    other with their sums added in order: the buffers of a piece stay in cache (15 %
    faster at 10^6 trials than one pass over the class; threads gain nothing here, the GIL
    being taken by each of the many short numpy calls)."""
    return [_Class(z[sl], c if np.ndim(c) == 0 else c[sl], sign)
            for sl in chunk_slices(z.shape[0], _PIECE) or [slice(0, 0)]]


class _SortedPiece:
    """A piece of one class of one system's sorted scores, whitened on the fly.

    The loss of a trial is ``softplus(s)`` with ``s = sign * (beta z + b + logit p)`` and
    ``z = (x - m) a`` (``a`` the whitening scale).  The scores ``x`` ascend, and rounding is
    monotone, so ``z`` and ``s`` are monotone along the piece: ``s < 0`` on one contiguous
    part and ``s >= 0`` on the other, found by a binary search.  On each part
    ``softplus(s) = log1p(e)`` (+ ``s`` where ``s >= 0``) with ``e = exp(-|s|)`` taken
    without ``abs``, and ``sigmoid(s)`` is ``e / (1 + e)`` or ``1 / (1 + e)``: the pass has
    fewer steps than the general one (:class:`_Class`), its buffers stay in cache, and the
    whitened scores are never stored.
    """

    def __init__(self, x, c, sign, m, a):
        self.x, self.c, self.sign, self.m, self.a = x, c, sign, m, a
        self.n = x.size
        self.uniform = np.ndim(c) == 0

    def evaluate(self, beta, b, scratch):
        """Loss sum, gradient (2,) and Hessian (2, 2) in one pass (``scratch``: five float64
        buffers of at least ``n`` elements)."""
        n, c = self.n, self.c
        z, s, e, t, u = (x[:n] for x in scratch)
        np.subtract(self.x, self.m, out=z)
        z *= self.a
        slope = self.sign * float(beta[0])
        np.multiply(z, slope, out=s)
        s += self.sign * b
        # the part where s < 0 (rising s: its start; falling s: its end)
        if slope * self.a >= 0:
            k = int(np.searchsorted(s, 0.0, side="left"))
            neg, pos = slice(0, k), slice(k, n)
        else:  # a binary search of the falling s (numpy's would copy the reversed view)
            k = bisect.bisect_left(range(n), True, key=lambda i: s[i] < 0.0)
            neg, pos = slice(k, n), slice(0, k)
        np.exp(s[neg], out=e[neg])
        np.negative(s[pos], out=e[pos])
        np.exp(e[pos], out=e[pos])  # e = exp(-|s|)
        np.log1p(e, out=t)
        if self.uniform:
            f = c * (float(t.sum()) + float(s[pos].sum()))
        else:
            f = _dot(c, t) + _dot(c[pos], s[pos])
        np.add(e, 1.0, out=t)
        np.reciprocal(t, out=t)  # 1 / (1 + e)
        np.multiply(e, t, out=u)  # e / (1 + e)
        np.multiply(u, t, out=e)  # sigmoid(s) sigmoid(-s) = d2 loss / d s2
        t[neg] = u[neg]  # sigmoid(s) = d loss / d s
        sig, h = t, e
        if not self.uniform:
            sig *= c
            h *= c
        np.multiply(z, h, out=u)
        g = np.array([_dot(z, sig), float(sig.sum())])
        zh = float(u.sum())
        hess = np.array([[_dot(z, u), zh], [zh, float(h.sum())]])
        if self.uniform:
            return f, self.sign * c * g, c * hess
        return f, self.sign * g, hess


#: Trials per :class:`_SortedPiece`: its five buffers and its scores (768 KiB) stay in the
#: core's cache.
_SORTED_PIECE = 1 << 14


def _sorted_pieces(x, c, sign, m, a):
    """One class of sorted scores as :class:`_SortedPiece` of ``_SORTED_PIECE`` trials."""
    return [_SortedPiece(x[sl], c if np.ndim(c) == 0 else c[sl], sign, m, a)
            for sl in chunk_slices(x.size, _SORTED_PIECE)]


#: Blocks per class of the summary that :func:`_sample_start` fits first (at most; see
#: :func:`_block_starts`).  With blocks of equal counts alone, 3 of 8 draws of 10^7 trials
#: (skewed gamma classes at the prior 0.01, and Gaussian ones at 1:10) left the summary's
#: optimum at a relative decrement of 1e-12 to 1.3e-11 on all the trials, one Newton pass
#: more than the criterion, with 2^16 blocks and still with 2^18; half of them of equal
#: widths bring it below 1e-25 in 32 of 32 draws (the summary's Newton costs ~1 % of a pass
#: over 10^7 trials).
SAMPLE_BLOCKS = 1 << 16
#: Classes of at least this many trials (together) are summarized (see :class:`_Summary`).
SUMMARY_MIN = 1 << 18


def _block_starts(x, start, stop, blocks):
    """The first indices of about ``blocks`` blocks of consecutive sorted scores
    ``x[start:stop]``: half of them of equal counts, half of equal widths in score, merged
    (ascending, distinct).  Equal counts alone leave the blocks wide where the scores are
    sparse (the tails of skewed classes: gamma scores, 10^7 trials, where a prior of 0.01
    puts the loss's curvature); the widths' blocks keep them narrow there, so a block's
    third-order terms stay small everywhere."""
    n = stop - start
    half = max(int(blocks) // 2, 1)
    by_count = np.arange(start, stop, -(-n // half))
    grid = np.linspace(x[start], x[stop - 1], half + 1)[1:-1]
    by_width = start + np.searchsorted(x[start:stop], grid, side="left")
    return np.union1d(by_count, by_width[by_width < stop])  # (no empty block at the end)


def _block_stats(x, c, starts, stop):
    """Blocks of consecutive scores of ``x[starts[0]:stop]``, block ``b`` starting at
    ``starts[b]``, with the weights ``c`` (a number or an array like ``x``): each block's
    total weight, its sum of weighted scores, and its weighted sum of squared deviations
    from its own mean.  In pieces of whole blocks that stay in cache (in llrlab's threads
    for long runs); the deviations are taken from the block's mean (no cancellation)."""
    n = stop - int(starts[0])
    uniform = np.ndim(c) == 0
    w, sx, ss = (np.empty(starts.size) for _ in range(3))
    per = max(1, _SORTED_PIECE * 4 * starts.size // n)  # blocks per piece (on average)

    def piece(b):
        e = min(b + per, starts.size)
        lo, hi = int(starts[b]), int(starts[e]) if e < starts.size else stop
        xs, loc = x[lo:hi], starts[b:e] - lo
        cnt = np.diff(np.append(loc, hi - lo))
        if uniform:
            bw = cnt.astype(np.float64)
            bs = np.add.reduceat(xs, loc)
        else:
            cs = c[lo:hi]
            bw = np.add.reduceat(cs, loc)
            bs = np.add.reduceat(xs * cs, loc)
        with np.errstate(invalid="ignore", divide="ignore"):
            d = xs - np.repeat(bs / bw, cnt)
        d *= d
        if not uniform:
            d *= cs
        w[b:e], sx[b:e] = bw, bs
        ss[b:e] = np.add.reduceat(d, loc)

    # each piece writes its own blocks: the same numbers whatever the threads
    map_ordered(piece, range(0, starts.size, per), parallel=n >= PARALLEL_MIN)
    if uniform:
        w *= c
        sx *= c
        ss *= c
    return w, sx, ss


class _Summary:
    """One sorted class of many trials in ``SAMPLE_BLOCKS`` blocks of consecutive scores:
    half of the blocks for the scores inside ``[lo, hi]`` (where both classes have scores
    and the loss curves), half for the rest, so that a few trials overlapping the other
    class (nearly separable scores) are kept one by one, not averaged away.

    Gives the class's weighted mean and variance (``moments``, as :func:`_sorted_moments`,
    from the blocks' sums and their within-block spreads: one pass of the scores, no
    cancellation), and ``points``, ``weights``: two points per block at its mean plus and
    minus its standard deviation, each with half its weight -- they match each block's
    weight, mean and variance, so a smooth loss summed over them differs from the loss
    summed over the trials by terms of the third order in the blocks' widths (times the
    loss's third derivative), not the second as with the blocks' means alone.
    """

    def __init__(self, x, c, lo, hi):
        i = int(np.searchsorted(x, lo, side="left"))
        j = max(int(np.searchsorted(x, hi, side="right")), i)  # i == j: no overlap
        half = SAMPLE_BLOCKS // 2
        n_out = i + (x.size - j)
        below = half * i // max(n_out, 1)
        parts = [_block_stats(x, c, _block_starts(x, a, b, k), b) for a, b, k in
                 ((0, i, below), (i, j, half), (j, x.size, half - below)) if b > a]
        w, sx, ss = (np.concatenate(v) for v in zip(*parts, strict=True))
        self.total = math.fsum(w)
        self.mean = math.fsum(sx) / self.total
        live = w > 0
        w, sx, ss = w[live], sx[live], ss[live]
        mu = sx / w
        self.var = (math.fsum(ss) + math.fsum(w * (mu - self.mean) ** 2)) / self.total
        sd = np.sqrt(np.maximum(ss / w, 0.0))
        pts = np.column_stack([mu - sd, mu + sd]).ravel()
        order = np.argsort(pts, kind="stable")  # a wide block's upper point may pass the next
        self.points = pts[order]
        self.weights = np.repeat(w / 2, 2)[order]

    def moments(self):
        """``(mean, covariance)`` of :func:`_sorted_moments` (weights normalized to 1)."""
        return np.array([self.mean]), np.array([[self.var]])


def _sample_start(st, sn, theta0, m0, a0, offset, pen):
    """The optimum of ``Ce`` on the classes' summaries (:class:`_Summary`), in the whitened
    coordinates of the full data, from the linear-discriminant start ``theta0``: a start
    from which the full data's Newton decrement is usually below ``DECREMENT_RTOL`` at once,
    so one pass over all the trials replaces three to five.  None when the summary is separable
    while the trials are not (its optimum would be far out)."""
    if not pen.any() and _separable_sorted(st.points, sn.points, st.weights, sn.weights):
        return None
    obj = _Objective([*_sorted_pieces(st.points, st.weights, -1.0, m0, a0),
                      *_sorted_pieces(sn.points, sn.weights, 1.0, m0, a0)], offset, pen,
                     scratch=5)
    theta, value, dec, _, _ = _newton(obj, theta0)
    if np.all(np.isfinite(theta)) and dec <= DECREMENT_RTOL * max(value, 1e-300):
        # one plain Newton step more (a pass over the summary), safe this close to its
        # optimum: the optimum to rounding, so that what is left on all the trials is the
        # summary's own difference from them
        try:
            theta = theta - _newton_step(obj, theta)
        except np.linalg.LinAlgError:  # pragma: no cover - the Hessian is positive definite
            pass
    return theta if np.all(np.isfinite(theta)) else None


def _separable_sorted(tar, non, ct, cn):
    """:func:`_separable` of one system's sorted classes (trials of zero weight left out):
    the extremes of the classes decide."""
    def ends(x, c):
        if np.ndim(c) == 0:
            return x[0], x[-1]
        live = np.flatnonzero(c > 0)
        return x[live[0]], x[live[-1]]

    (t0, t1), (n0, n1) = ends(tar, ct), ends(non, cn)
    return bool(n1 <= t0 or t1 <= n0)


class _Objective:
    """Penalised ``Ce`` with gradient and Hessian in whitened coordinates ``theta = (beta, b)``.

    One pass over the trials computes value, gradient and Hessian at a point (the Hessian is
    needed at nearly every point the optimizer visits, and computing it in the same pass
    keeps nothing per trial between calls).  With ``parallel``, the pieces are evaluated in
    llrlab's chunk threads (``llrlab.core._parallel``), each thread with its own scratch
    buffers; the pieces' sums are added in piece order either way.
    """

    def __init__(self, classes, offset, penalty, *, scratch=4, parallel=False):
        self.classes, self.off, self.pen = classes, offset, penalty
        self._size = max((k.n for k in classes), default=0)
        self._nbuf = scratch
        self._local = threading.local()
        self._parallel = parallel and sum(k.n for k in classes) >= PARALLEL_MIN
        self._x = None

    def _scratch(self):
        buf = getattr(self._local, "buf", None)
        if buf is None:
            buf = self._local.buf = [np.empty(self._size) for _ in range(self._nbuf)]
        return buf

    def _evaluate(self, theta):
        if self._x is None or not np.array_equal(theta, self._x):
            beta, b = theta[:-1], float(theta[-1]) + self.off
            parts = map_ordered(lambda k: k.evaluate(beta, b, self._scratch()), self.classes,
                                parallel=self._parallel)
            self._x = theta.copy()
            self.f = sum(part[0] for part in parts)
            self._g = sum(part[1] for part in parts)
            self._h = sum(part[2] for part in parts)

    def fun(self, theta):
        self._evaluate(theta)
        return self.f + 0.5 * float(self.pen @ (theta * theta)), self._g + self.pen * theta

    def hessian(self, theta):
        self._evaluate(theta)
        return self._h + np.diag(self.pen)


def _class_moments(x, c, prior):
    """Mean and covariance of one class's features, weighted by ``c / prior`` (sum 1);
    numpy's summation loops, no BLAS (see :func:`_dot`)."""
    w = c / prior
    if np.ndim(w) == 0:
        mu = w * x.sum(axis=0)
        d = x - mu
        return mu, w * np.einsum("ti,tj->ij", d, d)
    mu = np.einsum("t,ti->i", w, x)
    d = x - mu
    return mu, np.einsum("t,ti,tj->ij", w, d, d)


def _sorted_moments(x, c, prior):
    """:func:`_class_moments` of one system's scores ``x`` (n,), in pieces that stay in
    cache (no copy of the scores)."""
    w = c / prior
    uniform = np.ndim(w) == 0
    parts = [float(x[sl].sum()) if uniform else _dot(w[sl], x[sl])
             for sl in chunk_slices(x.size, _SORTED_PIECE)]
    mu = (w * math.fsum(parts)) if uniform else math.fsum(parts)
    buf = np.empty(min(x.size, _SORTED_PIECE))
    sq = []
    for sl in chunk_slices(x.size, _SORTED_PIECE):
        d = np.subtract(x[sl], mu, out=buf[:sl.stop - sl.start])
        sq.append(_dot(d, d) if uniform else _dot(w[sl] * d, d))
    var = (w * math.fsum(sq)) if uniform else math.fsum(sq)
    return np.array([mu]), np.array([[var]])


def _project(x, m, a):
    """``(x - m) @ a`` as a Fortran-ordered (n, r) array, one column at a time without
    BLAS (``a`` has few rows and columns)."""
    out = np.empty((x.shape[0], a.shape[1]), order="F")
    used = [k for k in range(a.shape[0]) if np.any(a[k] != 0)]
    for j in range(a.shape[1]):
        col = out[:, j]
        col.fill(0.0)
        for k in used:
            col += (x[:, k] - m[k]) * a[k, j]
    return out


def _combination(v, names):
    """``v`` as a readable linear combination of the named systems: ``0.7071*[a] - ...``."""
    terms = [(c, n) for c, n in zip(v.tolist(), names, strict=True) if abs(c) >= 5e-5]
    text = " ".join(f"{'-' if c < 0 else '+'} {abs(c):.4g}*[{n}]" for c, n in terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _whitening(xt, xn, ct, cn, moments, p, names):
    """Centre ``m`` and matrix ``A`` (K, r) such that ``(x - m) @ A`` has identity covariance,
    and a description of each direction left out (empty when ``r == K``).

    Mean and covariance are class-balanced (each class weighted by its prior): from the class
    moments, ``m = p mu_t + (1-p) mu_n`` and ``cov = S_w + p (1-p) d d'`` with the pooled
    within-class covariance ``S_w = p S_t + (1-p) S_n`` and ``d = mu_t - mu_n``.

    The rank is decided on the standardised scores ``u_k = (x_k - m_k) / sd_k`` (each system
    centred and scaled to unit variance), so that the units of the systems do not matter:

    1. a system whose standard deviation is within ``ROUNDING_MARGIN`` times the rounding
       error of its scores (``eps * rms``) is constant and gets weight 0;
    2. the singular values ``sigma_j`` (and right singular vectors ``v_j``) of the
       class-weighted standardised scores give the spread of each direction; a direction is
       dropped when ``sigma_j <= RANK_RTOL * sigma_max`` or when ``sigma_j`` is within
       ``ROUNDING_MARGIN`` times the rounding error of that combination of the scores.

    The singular values come from the correlation matrix when it is well conditioned
    (smallest to largest eigenvalue above ``1e-8``: its eigenvalues are then exact to
    ``1e-8`` relative), otherwise from a QR factorisation of the weighted standardised
    scores themselves, which resolves spreads down to about ``1e-16`` of the largest (the
    correlation matrix squares them and loses them below about ``1e-8``).
    """
    (mt, st), (mn, sn) = moments
    m = p * mt + (1 - p) * mn
    d = mt - mn
    cov = p * st + (1 - p) * sn + p * (1 - p) * np.outer(d, d)
    k = m.size
    eps = np.finfo(np.float64).eps
    var = np.maximum(np.diag(cov), 0.0)
    sd = np.sqrt(var)
    noise = eps * np.sqrt(var + m * m)  # rounding error of each system's scores
    live = sd > ROUNDING_MARGIN * noise
    dropped = [f"[{names[j]}] is constant" for j in np.flatnonzero(~live)]
    cols = np.flatnonzero(live)
    a = np.zeros((k, 0))
    if cols.size == 0:
        return m, a, dropped
    s = sd[cols]
    corr = cov[np.ix_(cols, cols)] / np.outer(s, s)
    lam, vec = np.linalg.eigh(corr)
    if lam[0] > 1e-8 * lam[-1]:
        sig, v = np.sqrt(lam[::-1]), vec[:, ::-1]
    else:  # nearly collinear: the spreads from the scores themselves
        rows = [np.sqrt(c)[:, None] * (x[:, cols] - m[cols]) / s if np.ndim(c) else
                np.sqrt(c) * (x[:, cols] - m[cols]) / s for x, c in ((xt, ct), (xn, cn))]
        r_ = np.linalg.qr(np.vstack(rows), mode="r")
        _, sig, vt = np.linalg.svd(r_)
        v = vt.T
    # rounding error of each direction's combination of the standardised scores
    round_err = np.sqrt((((noise[cols] / s)[:, None] * v) ** 2).sum(axis=0))
    keep = (sig > RANK_RTOL * sig[0]) & (sig > ROUNDING_MARGIN * round_err)
    live_names = [names[j] for j in cols]
    for j in np.flatnonzero(~keep):
        why = (f"below {RANK_RTOL:g} of the largest" if not sig[j] > RANK_RTOL * sig[0]
               else "within the rounding error of the scores")
        dropped.append(f"the combination {_combination(v[:, j], live_names)} of the "
                       f"standardised scores (each system centred and scaled to unit "
                       f"variance) has a spread of {sig[j] / sig[0]:.2g} of the largest "
                       f"direction's, {why}")
    a = np.zeros((k, int(keep.sum())))
    a[cols] = v[:, keep] / s[:, None] / sig[keep]
    return m, a, dropped


def _recession_direction(zt, zn, seed=0):
    """A direction ``v`` (r + 1) with ``y_t [z_t, 1] . v >= 0`` for every trial and ``> 0``
    for some (``y = +1`` targets, ``-1`` non-targets), or None if there is none.

    Linear programme: maximize the sum of ``y_t [z_t, 1] . v`` subject to every term
    ``>= 0`` and ``-1 <= v <= 1``, solved on a subset of the trials that grows by the
    trials the current candidate violates (constraint generation): a direction valid on all
    trials proves separability; none on a subset proves there is none on all trials.
    """
    rng = np.random.default_rng(seed)

    def rows(z, k):
        pick = rng.choice(z.shape[0], min(k, z.shape[0]), replace=False)
        return np.unique(np.concatenate([pick, np.argmin(z, axis=0), np.argmax(z, axis=0)]))

    share = max(1, LP_SAMPLE // 2)
    it, inn = rows(zt, share), rows(zn, share)
    d = zt.shape[1] + 1
    # tolerance for "on the boundary": rounding of z . v with |z| <= zmax and |v| <= 1
    zmax = max(float(np.abs(zt).max()), float(np.abs(zn).max()), 1.0)
    tol = 1e-9 * d * zmax
    for _ in range(50):
        u = np.vstack([np.hstack([zt[it], np.ones((it.size, 1))]),
                       -np.hstack([zn[inn], np.ones((inn.size, 1))])])
        res = linprog(-u.sum(axis=0), A_ub=-u, b_ub=np.zeros(u.shape[0]),
                      bounds=[(-1.0, 1.0)] * d, method="highs")
        if res.status != 0 or -res.fun <= tol * u.shape[0]:
            return None
        v = res.x
        mt = zt @ v[:-1] + v[-1]
        mn = -(zn @ v[:-1] + v[-1])
        bad_t, bad_n = np.flatnonzero(mt < -tol), np.flatnonzero(mn < -tol)
        if bad_t.size == 0 and bad_n.size == 0:
            return v
        it = np.union1d(it, bad_t[np.argsort(mt[bad_t])[:500]])
        inn = np.union1d(inn, bad_n[np.argsort(mn[bad_n])[:500]])
    return None  # pragma: no cover - each round adds trials; 50 rounds is far beyond need


def _separable(zt, zn, ct, cn):
    """True if the whitened features (with an offset) admit a recession direction."""
    if np.ndim(ct) != 0:  # trials of zero weight do not count
        zt, zn = zt[ct > 0], zn[cn > 0]
    r = zt.shape[1]
    if r == 0:
        return False
    if r == 1:
        return bool(zn.max() <= zt.min() or zt.max() <= zn.min())
    return _recession_direction(zt, zn) is not None


def _start(moments, m, a, p):
    """Linear-discriminant start: ``beta = S^-1 (mu_tar - mu_non)``, LLR 0 at the midpoint.

    ``S`` is the pooled within-class covariance, all in whitened coordinates (from the class
    moments of the raw features, so no further pass over the trials); for Gaussian classes
    with a shared covariance this is the exact LLR (Brümmer 2010, sec. 7.2), so Newton starts
    close to the optimum on typical scores.
    """
    r = a.shape[1]
    if r == 0:
        return np.zeros(1)
    (mt, st), (mn, sn) = moments
    zt, zn = (mt - m) @ a, (mn - m) @ a
    sw = a.T @ (p * st + (1 - p) * sn) @ a
    beta = np.linalg.solve(sw + 1e-9 * np.eye(r), zt - zn)
    if not np.all(np.isfinite(beta)) or np.abs(beta).max() > 50:  # separable: stay modest
        beta = zt - zn
    return np.r_[beta, -beta @ (zt + zn) / 2]


def fit_linear(x, labels, prior=0.5, *, weights=None, what="the training trials", names=None):
    """Minimize ``Ce(prior)`` over ``llr = x @ w + b`` (see the module docstring).

    Parameters
    ----------
    x : array_like, shape (n,) or (n, K)
        Features: the scores of K systems for n trials; finite.
    labels : array_like of bool, shape (n,)
        True for target trials.
    prior : float
        Training prior in (0, 1).
    weights : array_like, shape (n,), optional
        Non-negative per-trial weights.
    what : str
        How to name the trials in messages.
    names : list of str, optional
        How to name the K features (systems) in messages (default "system 1", ...).

    Returns
    -------
    LinearFit

    Warns
    -----
    SeparableDataWarning
        The classes are (quasi-)separable; the result is regularised.
    LlrlabWarning
        A feature is constant or an affine function of the others (minimum-norm solution).
    ConvergenceWarning
        The optimum was not reached to the stated accuracy.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    lab = np.asarray(labels, dtype=bool)
    if x.ndim != 2 or x.shape[0] != lab.size:
        raise DataError(f"{what}: {lab.size} labels for features of shape {x.shape}")
    if not np.isfinite(x).all():
        raise DataError(f"{what} have NaN or infinite scores; calibration needs finite scores")
    _check_magnitude(float(np.abs(x).max(initial=0.0)), what)
    ct, cn = class_weights(lab, prior, weights, what=what)
    return _fit(x[lab], x[~lab], ct, cn, float(prior), what, names, presorted=False)


def fit_sorted(tar, non, prior=0.5, *, tar_weights=None, non_weights=None,
               what="the training trials"):
    """:func:`fit_linear` of one system from its target and non-target scores, each sorted
    ascending (e.g. ``Trials.sorted()``), with their weights in that order.

    The same optimum (to the stated accuracy; the sums run in another order), found
    faster: the checks of finite and large scores look at the ends of the sorted classes,
    the separability test compares their extremes, long classes start from the optimum of
    their block summary (:class:`_Summary`), and the Newton passes whiten the scores piece
    by piece in cache and use their order (see :class:`_SortedPiece`), in parallel threads
    for long classes (the pieces' sums are added in order, so the result does not depend on
    the number of threads).
    """
    tar = np.asarray(tar, dtype=np.float64)
    non = np.asarray(non, dtype=np.float64)
    if tar.size == 0 or non.size == 0:
        class_weights(np.r_[np.ones(tar.size, bool), np.zeros(non.size, bool)], prior,
                      what=what)  # raises the DataError naming the missing class
    ends = np.array([tar[0], tar[-1], non[0], non[-1]])
    if not np.isfinite(ends).all():
        raise DataError(f"{what} have NaN or infinite scores; calibration needs finite scores")
    _check_magnitude(float(np.abs(ends).max()), what)
    if tar_weights is None and non_weights is None:
        ct, cn = class_weights(np.r_[True, False], prior)  # p / 1, (1 - p) / 1
        ct, cn = ct / tar.size, cn / non.size
    else:
        tw = np.ones(tar.size) if tar_weights is None else np.asarray(tar_weights, np.float64)
        nw = np.ones(non.size) if non_weights is None else np.asarray(non_weights, np.float64)
        ct, cn = _split_class_weights(tw, nw, prior, True, what)  # (no concatenation)
    return _fit(tar[:, None], non[:, None], ct, cn, float(prior), what, None, presorted=True)


def _check_magnitude(big, what):
    if big > _MAX_SCORE:
        raise DataError(f"{what} have scores up to {big:.3g} in magnitude: too large for "
                        f"logistic-regression calibration (their squares overflow); rescale "
                        f"them, e.g. divide by {10.0 ** np.floor(np.log10(big / 1e6)):.0e}")


def _fit(xt, xn, ct, cn, p, what, names, *, presorted):
    """The fit of :func:`fit_linear` from the classes' features ``xt``, ``xn`` (n_k, K) and
    their weights of ``Ce`` (see :func:`class_weights`); with ``presorted``, K == 1 and each
    class sorted ascending."""
    k = xt.shape[1]
    summ = None
    if presorted and xt.shape[0] + xn.shape[0] >= SUMMARY_MIN:
        # long classes: their summaries give the moments and then a start close to the
        # optimum (see _sample_start)
        lo, hi = max(xt[0, 0], xn[0, 0]), min(xt[-1, 0], xn[-1, 0])
        summ = (_Summary(xt[:, 0], ct, lo, hi), _Summary(xn[:, 0], cn, lo, hi))
        moments = (summ[0].moments(), summ[1].moments())
    elif presorted:
        moments = (_sorted_moments(xt[:, 0], ct, p), _sorted_moments(xn[:, 0], cn, 1.0 - p))
    else:
        moments = (_class_moments(xt, ct, p), _class_moments(xn, cn, 1.0 - p))
    if names is None:
        names = ["scores"] if k == 1 else [f"system {j + 1}" for j in range(k)]
    m, a, dropped = _whitening(xt, xn, ct, cn, moments, p, list(names))
    r = a.shape[1]
    if r < k:
        dep = ("all the scores are equal" if k == 1 else
               f"the {k} systems' scores span only {r} dimension(s): " + "; ".join(dropped))
        warnings.warn(LlrlabWarning(
            f"{what}: {dep}; the weights along the missing direction(s) are set to zero "
            f"(minimum-norm solution)"), stacklevel=4)
    fast = presorted and r == 1
    if fast:
        separable = _separable_sorted(xt[:, 0], xn[:, 0], ct, cn)
    else:
        zt, zn = _project(xt, m, a), _project(xn, m, a)
        separable = _separable(zt, zn, ct, cn)
    if separable:
        warnings.warn(SeparableDataWarning(
            f"{what} are perfectly separable (a linear score threshold makes no error, "
            f"apart from ties): the unregularised optimum is at infinity, so the fit uses an "
            f"L2 penalty {SEPARABLE_L2:g} on the whitened weights; its LLRs are finite but "
            f"their size reflects the penalty, not the data"),
            stacklevel=4)
    pen = np.r_[np.full(r, SEPARABLE_L2 if separable else 0.0), 0.0]
    if fast:
        m0, a0 = float(m[0]), float(a[0, 0])
        classes = [*_sorted_pieces(xt[:, 0], ct, -1.0, m0, a0),
                   *_sorted_pieces(xn[:, 0], cn, 1.0, m0, a0)]
        obj = _Objective(classes, float(logit(p)), pen, scratch=5, parallel=True)
    else:
        obj = _Objective([*_chunked(zt, ct, -1.0), *_chunked(zn, cn, 1.0)], float(logit(p)),
                         pen)

    theta0 = _start(moments, m, a, p)
    if fast and summ is not None:
        warm = _sample_start(*summ, theta0, m0, a0, obj.off, pen)
        theta0 = theta0 if warm is None else warm
    theta, value, dec, nit, message = _newton(obj, theta0)
    objective = obj.f
    # Finish with one plain Newton step: near the optimum the decrease of a step falls below
    # the rounding of the objective, so trust-exact's ratio test can no longer judge (and
    # rejects) the step that brings the parameters from ~1e-6 to ~1e-12 relative accuracy.
    # Once the decrement is below DECREMENT_RTOL of the objective the point is deep in the
    # region of quadratic convergence and the full step is safe; it is not followed by
    # another pass over the trials: the objective at its end is the quadratic model's
    # (exact to the cube of the step, far below rounding).
    if DECREMENT_FLOOR * value < dec <= DECREMENT_RTOL * max(value, 1e-300):
        step = -_newton_step(obj, theta)
        objective = obj.f + float(obj._g @ step) + 0.5 * float(step @ obj._h @ step)
        theta = theta + step
    if not dec <= DECREMENT_RTOL * max(value, 1e-300):
        warnings.warn(ConvergenceWarning(
            f"{what}: the optimizer stopped after {nit} iterations ({message}) with a "
            f"predicted remaining decrease of the objective of {dec:.3g} nats "
            f"(objective {value:.6g}); the result may be inaccurate"), stacklevel=4)
    w = a @ theta[:r]
    b = float(theta[r] - m @ w)
    return LinearFit(w, b, float(objective), separable, r, nit, dec)


def _newton_step(obj, theta):
    """``H^-1 g`` of the penalised objective at ``theta``: ``theta`` minus it is the plain
    Newton step (the gradient and Hessian cached when ``theta`` was the last point
    evaluated)."""
    return np.linalg.solve(obj.hessian(theta), obj.fun(theta)[1])


def _decrement(obj, theta):
    """``(value, Newton decrement)`` of the penalised objective at ``theta``."""
    value, grad = obj.fun(theta)  # cached when the optimizer evaluated it at this point
    try:
        return value, 0.5 * float(grad @ np.linalg.solve(obj.hessian(theta), grad))
    except np.linalg.LinAlgError:  # pragma: no cover - the Hessian is positive definite
        return value, float("inf")


def _newton(obj, theta0):
    """Trust-region Newton from ``theta0`` until the Newton decrement is below
    ``DECREMENT_RTOL`` of the objective: ``(theta, value, decrement, iterations, message)``
    at the last point evaluated.  A start that already meets the criterion costs one
    evaluation and no iteration."""
    value, dec = _decrement(obj, theta0)
    if dec <= DECREMENT_RTOL * max(value, 1e-300):
        return theta0, value, dec, 0, "the start met the criterion"

    def converged(intermediate_result):
        # stop as soon as the predicted remaining decrease is negligible: trust-exact's own
        # gradient test can stall on the rounding noise of the objective, each extra try
        # costing a pass over the trials
        value, dec = _decrement(obj, intermediate_result.x)
        if dec <= DECREMENT_RTOL * max(value, 1e-300):
            raise StopIteration

    with warnings.catch_warnings():
        # trust-exact may warn when the Hessian is nearly singular far out on a flat tail
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(obj.fun, theta0, jac=True, hess=obj.hessian, method="trust-exact",
                       callback=converged, options={"gtol": 1e-11, "maxiter": 200})
    theta, (value, dec) = res.x, _decrement(obj, res.x)
    # trust-exact may stop on its gradient test a little short of the criterion (a tiny
    # objective, nearly separable scores): plain Newton steps from there, while they lower
    # the decrement (each a pass over the trials; a step that does not is undone)
    for _ in range(_POLISH_STEPS):
        if dec <= DECREMENT_RTOL * max(value, 1e-300) or not np.isfinite(dec):
            break
        step = _newton_step(obj, theta)
        v2, d2 = _decrement(obj, theta - step)
        if not (d2 < dec and v2 <= value):
            _decrement(obj, theta)  # the objective's state back at theta
            break
        theta, value, dec = theta - step, v2, d2
    return theta, value, dec, int(res.nit), res.message


#: Plain Newton steps after trust-exact when it stopped short of the criterion.
_POLISH_STEPS = 3
