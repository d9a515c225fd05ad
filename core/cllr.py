"""Proper-scoring-rule measures of LLRs: Cllr, minimum Cllr and prior-weighted cross-entropy.

References: Brümmer & de Villiers (2011), sec. 2.5.3; Brümmer (2010) chapter 7 (Cllr, APE) and
appendix C (PAV); docs/conventions.md.
"""

from __future__ import annotations

import threading

import numpy as np
from scipy.special import logit

from ._parallel import map_chunks
from ._sorting import PooledBlocks, SortedScores, pooled_blocks, sorted_input
from ._validate import as_scores, as_weights
from .errors import DataError

__all__ = ["cllr", "cross_entropy", "min_cllr", "min_cross_entropy", "softplus_sum"]

_LN2 = np.log(2.0)


def softplus_sum(x, *, sign=1.0, shift=0.0, weights=None, scale=1.0):
    """``sum_i w_i * log(1 + exp(sign*(x_i + shift)))``, in chunks (bounded extra memory);
    with ``scale``, of ``sign*(scale*x_i + shift)`` (the LLRs of an affine map, never
    stored).

    Each term is ``max(z, 0) + log1p(exp(-|z|))``, the value of ``np.logaddexp(0, z)``
    (no overflow of ``exp`` for any input, +-inf included) at about two thirds of its cost.
    Long arrays are summed in parallel chunks whose partial sums are added in order, so the
    result does not depend on the number of cores (see ``llrlab.core._parallel``).  Without
    weights, a chunk's terms are computed and summed in pieces that stay in the core's
    cache, and the pieces' sums combined in the order of numpy's pairwise summation: the
    sum is bitwise ``softplus_terms(chunk).sum()``.  A trial of weight 0 adds nothing, also
    when its term is infinite (an LLR of -inf for a target).  Integer ``weights`` (counts,
    e.g. 1-byte codes) are converted to float64 chunk by chunk: the same sum as of their
    float64 copy.
    """

    scratch = thread_scratch(3)

    def part(sl):
        if weights is None:
            return _pairwise_terms_sum(x[sl], sign, shift, scale)
        xs = x[sl]
        b, t, w = scratch(xs.size)
        if weights.dtype == np.float64:
            w = weights[sl]
        else:
            np.copyto(w, weights[sl])
        b = _terms_into(xs, sign, shift, b, t, scale)
        with np.errstate(invalid="ignore"):
            total = float(np.einsum("i,i->", b, w))  # no BLAS thread team per chunk
        if total != total:  # inf * 0: leave out the trials of weight 0
            live = w > 0
            total = float(np.einsum("i,i->", b[live], w[live]))
        return total

    total = 0.0
    for v in map_chunks(part, x.size):
        total += v
    return total


def thread_scratch(k):
    """``get(n)``: ``k`` float64 scratch arrays of length ``n`` of the calling thread, made
    on its first call and reused by its later ones (one call of :func:`softplus_sum` hands
    its chunks to a few threads).  New arrays of a chunk's size for every chunk would be
    fresh memory mappings, whose pages the kernel zeroes on first touch: reusing them
    takes about 40 % off a weighted :func:`softplus_sum` of 10^7 scores."""
    local = threading.local()

    def get(n):
        bufs = getattr(local, "bufs", None)
        if bufs is None or bufs[0].size < n:
            bufs = local.bufs = [np.empty(n) for _ in range(k)]
        return [b[:n] for b in bufs]

    return get


#: Terms per cached piece of :func:`softplus_sum` (two float64 buffers of 128 KiB).
_PIECE = 1 << 14


def _pairwise_terms_sum(x, sign, shift, scale=1.0):
    """``float(softplus_terms(x, sign=sign, shift=shift).sum())``, bitwise, computed in
    pieces of at most ``_PIECE`` terms: numpy sums ``n > 128`` contiguous float64 as the sum
    of its two halves (the first ``n // 2`` rounded down to a multiple of 8) recursively,
    so summing the pieces that recursion reaches and adding them up the same tree gives
    the same rounding."""
    b = np.empty(min(x.size, _PIECE))
    t = np.empty_like(b)

    def tree(lo, n):
        if n <= _PIECE:
            return float(_terms_into(x[lo:lo + n], sign, shift, b[:n], t[:n], scale).sum())
        n2 = n // 2
        n2 -= n2 % 8
        return tree(lo, n2) + tree(lo + n2, n - n2)

    return tree(0, x.size) if x.size else 0.0


def _terms_into(x, sign, shift, b, t, scale=1.0):
    """:func:`softplus_terms` of ``x`` written to ``b`` (returned), ``t`` as scratch.

    ``z = sign * (x + shift)``, formed in one step for the common shift 0 (equal values;
    only the sign of a zero ``z`` may differ, and ``log1p(exp(-|z|))`` is then added); with
    ``scale``, ``z = sign * (scale * x + shift)``."""
    if scale != 1.0:
        z = np.multiply(x, scale, out=b)
        z += shift
        if sign != 1.0:
            np.multiply(z, sign, out=z)
    elif shift == 0.0 and sign in (1.0, -1.0):
        z = x if sign == 1.0 else np.negative(x, out=b)
    else:
        z = np.add(x, shift, out=b)
        if sign != 1.0:
            np.multiply(b, sign, out=b)
    np.abs(z, out=t)
    np.negative(t, out=t)
    np.exp(t, out=t)
    np.log1p(t, out=t)
    np.maximum(z, 0.0, out=b)
    b += t
    return b


def softplus_terms(x, *, sign=1.0, shift=0.0, out=None, scratch=None):
    """The terms ``log(1 + exp(sign*(x_i + shift)))`` of :func:`softplus_sum`, computed by
    the same operations, so that sums of them are bitwise those of :func:`softplus_sum`
    when added in its order.  Written to ``out`` (returned; a new array by default), with
    ``scratch`` (an array of ``x``'s shape, overwritten) as working space when given, e.g.
    the reused buffers of :func:`thread_scratch`."""
    shape = np.shape(x)
    return _terms_into(x, sign, shift, np.empty(shape) if out is None else out,
                       np.empty(shape) if scratch is None else scratch)


def _check_prior(p):
    p = float(p)
    if not 0.0 < p < 1.0:
        raise DataError(f"the prior must lie strictly between 0 and 1, got {p!r}")
    return p


def _ce_parts(tar, non, plo, tw, nw):
    """Mean target and non-target log-losses (nats) at prior log-odds ``plo``."""
    nt = tar.size if tw is None else tw.sum()
    nn = non.size if nw is None else nw.sum()
    ct = softplus_sum(tar, sign=-1.0, shift=plo, weights=tw) / nt
    cn = softplus_sum(non, sign=1.0, shift=plo, weights=nw) / nn
    return ct, cn


def _validated(tar, non, tar_weights, non_weights, *, scan=True):
    """``(tar, non, tar_weights, non_weights)`` of a Trials or of arrays, checked; with
    ``scan=False`` the scores are not scanned for NaN (the caller sorts them with
    ``_sorting.sort_scores``, which finds NaN at the end of the sort)."""
    from .trials import Trials

    if isinstance(tar, Trials):
        if non is not None:
            raise TypeError("pass either a Trials object or tar and non arrays, not both")
        t = tar.require_both_classes()
        return t.tar, t.non, t.tar_weights, t.non_weights
    if non is None:
        raise TypeError("non-target scores are missing: pass tar and non, or a Trials object")
    tar = as_scores(tar, "target scores", allow_inf=True, scan=scan)
    non = as_scores(non, "non-target scores", allow_inf=True, scan=scan)
    tw = as_weights(tar_weights, tar.size, "target weights")
    nw = as_weights(non_weights, non.size, "non-target weights")
    return tar, non, tw, nw


def cross_entropy(tar, non=None, prior=0.5, *, tar_weights=None, non_weights=None,
                  normalize=False):
    """Prior-weighted cross-entropy ``Ce(p)`` of LLRs, in nats.

    Parameters
    ----------
    tar, non : array_like or Trials
        Target and non-target LLRs (natural log).  Infinite LLRs are allowed.
    prior : float
        The prior ``p`` in (0, 1).
    normalize : bool
        Divide by the cross-entropy of the default system (LLR 0), the prior's entropy
        ``-p log p - (1-p) log(1-p)``, so that the default system scores 1.

    Notes
    -----
    ``Ce(p) = p * mean(log(1+exp(-(tar+logit p)))) + (1-p) * mean(log(1+exp(non+logit p)))``,
    with weighted means when weights are given.  ``Ce(0.5) / ln 2 = Cllr``.

    References
    ----------
    Brümmer (2010), ch. 7 (ECE); docs/conventions.md.

    Examples
    --------
    >>> round(float(cross_entropy([0.0], [0.0], 0.5) / np.log(2)), 12)
    1.0
    """
    p = _check_prior(prior)
    tar, non, tw, nw = _validated(tar, non, tar_weights, non_weights)
    ct, cn = _ce_parts(tar, non, logit(p), tw, nw)
    ce = p * ct + (1 - p) * cn
    if normalize:
        ce /= -(p * np.log(p) + (1 - p) * np.log1p(-p))
    return float(ce)


def cllr(tar, non=None, *, tar_weights=None, non_weights=None):
    """Log-likelihood-ratio cost ``Cllr``, in bits.

    Notes
    -----
    ``Cllr = 1/(2 ln 2) * [mean(log(1+exp(-tar))) + mean(log(1+exp(non)))]``; 1 for the
    default system (all LLRs 0), 0 for a perfect one.  Computed with ``logaddexp``, so no
    finite input overflows; weighted means with per-trial weights (van Leeuwen 2008, eq. 13).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.5.3; Brümmer (2010), sec. 7.3; docs/conventions.md.

    Examples
    --------
    >>> round(cllr([0.0], [0.0]), 12)
    1.0
    >>> round(cllr([2.0, 4.0], [-2.0]), 6)
    0.143885
    """
    tar, non, tw, nw = _validated(tar, non, tar_weights, non_weights)
    ct, cn = _ce_parts(tar, non, 0.0, tw, nw)
    return float((ct + cn) / (2 * _LN2))


def _block_ce(blocks: PooledBlocks, plo, llr=None):
    """Mean target and non-target log-losses (nats) when every trial of PAV block ``i`` gets
    the LLR ``llr[i]`` (default: the blocks' PAV LLRs)."""
    llr = blocks.llr if llr is None else llr
    # A pure block has an infinite LLR but no trial of the class it would penalise.
    with np.errstate(invalid="ignore"):
        lt = np.where(blocks.tar > 0, np.logaddexp(0.0, -(llr + plo)), 0.0)
        ln = np.where(blocks.non > 0, np.logaddexp(0.0, llr + plo), 0.0)
    return float(blocks.tar @ lt) / blocks.n_tar, float(blocks.non @ ln) / blocks.n_non


def _min_cllr(blocks: PooledBlocks, llr=None):
    """Cllr (bits) of block LLRs ``llr``; with the PAV LLRs (default), the minimum Cllr."""
    ct, cn = _block_ce(blocks, 0.0, llr)
    return (ct + cn) / (2 * _LN2)


def min_cllr(tar, non=None, *, tar_weights=None, non_weights=None):
    """Minimum Cllr: the Cllr of the PAV-calibrated LLRs of the same trials, in bits.

    Notes
    -----
    PAV maps the scores to the monotone LLRs that are optimal for every proper scoring rule
    on these trials (Brümmer 2010, app. C), so ``min_cllr <= cllr`` and the difference is the
    calibration loss.  Pure PAV blocks get infinite LLRs but add nothing to the cost.
    With weights, the weighted PAV of van Leeuwen (2008) (eq. 12) is used.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.7.1 and 3.2; Brümmer (2010), sec. 7.3.3 and appendix C;
    docs/conventions.md.

    Examples
    --------
    >>> min_cllr([3.0, 4.0], [1.0, 2.0])     # separable: perfect after PAV
    0.0
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return float(_min_cllr(pooled_blocks(s)))


def min_cross_entropy(tar, non=None, prior=0.5, *, tar_weights=None, non_weights=None,
                      normalize=False):
    """``Ce(p)`` of the PAV-calibrated LLRs (the minimum over monotone calibrations), nats."""
    p = _check_prior(prior)
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    ce = float(_min_ce_sorted(s, pooled_blocks(s), p))
    if normalize:
        ce /= -(p * np.log(p) + (1 - p) * np.log1p(-p))
    return ce


def _min_ce_sorted(s: SortedScores, blocks: PooledBlocks, p):
    ct, cn = _block_ce(blocks, logit(p))
    return p * ct + (1 - p) * cn
