"""PAV calibration: the non-parametric, monotone score-to-LLR map of the dev trials.

References: Brümmer & de Villiers (2011), sec. 2.7.1 and 3.2; Brümmer (2010), sec. 7.7 and appendix
C; docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._parallel import map_chunks
from .._repr import summary_repr
from .._sorting import pooled_blocks
from .._validate import as_scores
from ..cllr import _min_cllr
from ..errors import DataError
from ..trials import Trials
from .base import (
    Calibrator,
    TrainingReport,
    _number,
    _numbers,
    _require_keys,
    param_text,
    training_report,
)

__all__ = ["PSEUDO_COUNT", "PAVCalibrator"]

#: Pseudo-trials of each class added to a pure end block to give it a finite LLR.
PSEUDO_COUNT = 0.5
#: Scores mapped per step of PAVCalibrator.apply (bounds its temporary memory).
_CHUNK = 1 << 16


@summary_repr("n_blocks", "llr", "pure_ends")
@dataclass(frozen=True, eq=False)
class PAVCalibrator(Calibrator):
    """Monotone non-parametric calibration from the PAV solution of the dev trials.

    Attributes
    ----------
    lower, upper : ndarray, shape (B,)
        Smallest and largest dev score of each PAV block (ascending; ``upper[i] <
        lower[i+1]``; tied dev scores are never split between blocks).
    llr : ndarray, shape (B,)
        The finite LLR of each block, non-decreasing (see Notes).
    pure_ends : tuple of bool
        Whether the lowest block had no target / the highest no non-target (their PAV LLRs,
        -inf / +inf, were replaced as described in Notes).
    training : TrainingReport

    Notes
    -----
    PAV pools the sorted dev trials into blocks with increasing target proportion; block
    ``i`` with ``t_i`` targets and ``n_i`` non-targets (weighted counts with weights) gets
    ``llr_i = log(t_i / n_i) - log(T / N)`` (Brümmer 2010, eq. 7.50, appendix C).  On the dev
    trials this is optimal for every proper scoring rule and its actual DCF equals the
    minimum DCF at every prior.

    Applied to any score ``s`` (dev or unseen):

    * inside a block, ``lower[i] <= s <= upper[i]``: ``llr_i`` (a dev score gets exactly
      its PAV LLR, except in a pure end block);
    * between blocks, ``upper[i] < s < lower[i+1]``: linear interpolation from
      ``(upper[i], llr_i)`` to ``(lower[i+1], llr_{i+1})``, so the map is continuous and
      monotone;
    * below the lowest / above the highest dev score: the end block's LLR (saturation).

    **Finite saturation.**  Only the lowest block can be free of targets (LLR ``-inf``) and
    only the highest free of non-targets (``+inf``).  Such a pure end block gets
    ``log((t_i + 0.5) / (n_i + 0.5)) - log(T/N)``: half a pseudo-trial of each class
    (Krichevsky-Trofimov / Jeffreys estimate of its target proportion), so the LLR grows with
    the evidence (``log(2 t_i + 1) - log(T/N)`` for ``t_i`` targets) but stays finite; a
    pure end block whose value would cross its neighbour's is set to the neighbour's value
    (only pure end blocks are ever changed).  Eval LLRs, and
    the Cllr of any eval set, are therefore always finite.  The BOSARIS Toolkit's
    ``pav_calibration`` regularises differently (one pseudo-target below and one
    pseudo-non-target above all scores, before PAV, which can pool several low blocks);
    this choice keeps every non-pure block's LLR exactly as PAV found it.

    Use :func:`llrlab.core.pav` for the exact PAV LLRs of the dev trials themselves,
    including the infinite ones (minimum DCF at every prior, minimum Cllr).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.7.1 and 3.2; Brümmer (2010), sec. 7.7 and appendix C.

    Examples
    --------
    >>> from llrlab.core import Trials
    >>> from llrlab.core.calibration import PAVCalibrator
    >>> dev = Trials.from_tar_non([2.0, 3.0, 3.0, 5.0], [0.0, 1.0, 3.0, 4.0])
    >>> cal = PAVCalibrator.fit(dev)
    >>> cal.lower, cal.upper            # the tie at 3 (2 targets, 1 non-target) stays whole
    (array([0., 2., 5.]), array([1., 4., 5.]))
    >>> cal.llr.round(4)                # log(0.5/2.5), log(3/2) - log(4/4), log(1.5/0.5)
    array([-1.6094,  0.4055,  1.0986])
    >>> cal([-10.0, 0.5, 1.5, 3.0, 99.0]).round(4)    # saturates at both ends
    array([-1.6094, -1.6094, -0.602 ,  0.4055,  1.0986])
    """

    lower: np.ndarray
    upper: np.ndarray
    llr: np.ndarray
    pure_ends: tuple
    training: TrainingReport

    kind = "pav"

    def __post_init__(self):
        lo, hi, v = (np.array(a, dtype=np.float64) for a in (self.lower, self.upper, self.llr))
        for a in (lo, hi, v):
            a.setflags(write=False)
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)
        object.__setattr__(self, "llr", v)
        object.__setattr__(self, "_knots", np.column_stack([lo, hi]).ravel())
        # per block: the gap to the next block and the next block's LLR (the last block's
        # "next" is itself, with a dummy gap of 1 and a difference of 0)
        nxt = np.minimum(np.arange(1, v.size + 1), v.size - 1)
        gap = lo[nxt] - hi
        gap[-1] = 1.0
        object.__setattr__(self, "_gap", gap)
        object.__setattr__(self, "_next_llr", v[nxt])
        # what apply gives a score inside a block (or beyond the end blocks): its formula at
        # t = 0, which is the same for every such score unless an LLR is -0.0; the runs of
        # sorted scores take it by blocks when the blocks are ordered and disjoint
        with np.errstate(over="ignore", invalid="ignore"):
            const = np.minimum(0.0 * (v[nxt] - v) + v, v[nxt])
        object.__setattr__(self, "_const", const)
        runs = (not np.any((v == 0) & np.signbit(v)) and bool(np.all(np.isfinite(gap)))
                and bool(np.all(np.isfinite(lo))) and bool(np.all(np.isfinite(hi)))
                and bool(np.all(lo <= hi)) and bool(np.all(hi[:-1] < lo[1:])))
        object.__setattr__(self, "_runs", runs)

    @classmethod
    def fit(cls, dev: Trials):
        """Train on labelled dev trials (PAV is independent of any prior).

        Raises
        ------
        DataError
            No target or no non-target trial.
        """
        if not isinstance(dev, Trials):
            raise DataError(f"PAV calibration is trained on labelled Trials, got "
                            f"{type(dev).__name__}")
        f = pooled_blocks(dev.require_both_classes().sorted())
        llr = f.llr.copy()
        pure = ~np.isfinite(llr)
        base = np.log(f.n_tar) - np.log(f.n_non)
        llr[pure] = (np.log(f.tar[pure] + PSEUDO_COUNT) - np.log(f.non[pure] + PSEUDO_COUNT)
                     - base)
        pure_ends = (bool(f.tar[0] == 0), bool(f.non[-1] == 0))
        if llr.size > 1:  # a pure end never crosses its neighbour (only it is changed)
            if pure_ends[0]:
                llr[0] = min(llr[0], llr[1])
            if pure_ends[1]:
                llr[-1] = max(llr[-1], llr[-2])
        # every dev score lies inside its block, whose LLR it gets: the dev Cllr and minimum
        # Cllr follow from the block counts (Brümmer 2010, app. C)
        report = training_report([dev], cllr_after=_min_cllr(f, llr),
                                 min_cllr_after=_min_cllr(f))
        return cls(f.lower, f.upper, llr, pure_ends, report)

    @property
    def n_blocks(self):
        return int(self.llr.size)

    @property
    def monotone(self):
        return True

    def apply(self, scores):
        """LLRs of scores (see Notes); NaN is refused, +-inf saturates.

        Exactly non-decreasing in floating point: within a gap every operation is monotone,
        and the result is clipped to the next block's LLR.  Works in chunks of ``2**16``
        scores (bounded temporary memory; long inputs in parallel threads); a sorted chunk
        (e.g. the sorted scores of an analysis) finds where its blocks start and end by
        binary searches of the blocks' bounds, fills each block's run of scores with the
        block's LLR and interpolates only the scores between blocks, with results
        bit-identical to the score-by-score formula.
        """
        # NaN is looked for chunk by chunk (a sorted chunk has none) and the LLRs checked
        # finite from their blocks: no whole passes for either when all is well
        x = as_scores(scores, "scores to calibrate", allow_empty=True, allow_inf=True,
                      scan=False)
        out = np.empty_like(x)
        with np.errstate(over="ignore", invalid="ignore"):
            flags = map_chunks(lambda sl: self._apply_chunk(x[sl], out[sl]), x.size,
                               chunk=_CHUNK)
        if any(nan for nan, _ in flags):
            self._scores(x)  # raises the error that names the first NaN
        if all(finite for _, finite in flags):
            return out
        return self._finite(out, x)

    def _apply_chunk(self, x, out):
        """The LLRs of a chunk into ``out``: ``(has NaN, all LLRs finite)`` (a chunk with
        NaN is not mapped)."""
        if self._runs and x.size > 64 and bool(np.all(x[1:] >= x[:-1])):
            return False, self._apply_sorted(x, out)  # (sorted, hence no NaN)
        # score by score (and a hand-made model whose blocks are not ordered and disjoint
        # or hold a -0.0 LLR, sorted or not)
        if np.isnan(x).any():
            return True, True
        i = np.searchsorted(self.lower, x, side="right") - 1
        np.maximum(i, 0, out=i)  # below the first block: block 0 (t clips to 0)
        _interpolate(x, self.upper[i], self._gap[i], self.llr[i], self._next_llr[i], out)
        return False, bool(np.isfinite(out).all())

    def _apply_sorted(self, x, out):
        """:meth:`_apply_chunk` of sorted scores, by runs: the scores of a block (and those
        below the first and above the last) all get its constant ``_const``, filled by one
        ``np.repeat``; only the scores in the gaps between blocks are interpolated, by the
        same operations as one by one (bit-identical results)."""
        n, last = x.size, self.n_blocks - 1
        j0, j1 = np.searchsorted(self.lower, [x[0], x[-1]], side="right") - 1
        j0, j1 = max(int(j0), 0), max(int(j1), 0)
        starts = np.searchsorted(x, self.lower[j0:j1 + 1], side="left")
        starts[0] = 0  # below the first block: block 0
        ends = np.append(starts[1:], n)
        flat = np.searchsorted(x, self.upper[j0:j1 + 1], side="right")  # end of the block
        if j1 == last:
            flat[-1] = n  # above the last block: its constant too
        const = self._const[j0:j1 + 1]
        out[:] = np.repeat(const, ends - starts)
        finite = bool(np.isfinite(const).all())  # the constants of every block (a superset)
        gap = ends - flat
        has = np.flatnonzero(gap > 0)
        if has.size == 0:
            return finite
        lens = gap[has]
        blk = j0 + has
        # the positions of the gap scores, and each one's block
        pos = np.arange(int(lens.sum())) + np.repeat(flat[has] - np.cumsum(lens) + lens, lens)

        def per_score(a):
            return np.repeat(a[blk], lens)

        y = np.empty(pos.size)
        _interpolate(x[pos], per_score(self.upper), per_score(self._gap), per_score(self.llr),
                     per_score(self._next_llr), y)
        out[pos] = y
        return finite and bool(np.isfinite(y).all())

    def inverse(self, llr):
        """The smallest score whose LLR is at least ``llr``: the score threshold of the
        decision ``LLR >= llr`` (accept when ``score >= inverse(llr)``).

        ``-inf`` when every score is accepted (``llr`` at or below the lowest block's LLR:
        scores below the dev range saturate there), ``+inf`` when none is (above the highest
        block's).  Otherwise the map crosses ``llr`` in the gap before the first block whose
        LLR reaches it, where it is linear; the crossing is computed there and moved by a
        bisection over the floating-point numbers of that gap, so that it is exactly the
        smallest score that :meth:`apply` maps to ``llr`` or above.

        Examples
        --------
        >>> from llrlab.core import Trials
        >>> from llrlab.core.calibration import PAVCalibrator
        >>> cal = PAVCalibrator.fit(Trials.from_tar_non([2.0, 3.0, 3.0, 5.0],
        ...                                             [0.0, 1.0, 3.0, 4.0]))
        >>> float(cal.inverse(0.0)), float(cal.inverse(-5.0)), float(cal.inverse(5.0))
        (1.7988, -inf, inf)
        >>> bool(cal([cal.inverse(0.0)])[0] >= 0.0)
        True
        """
        shape = np.shape(llr)
        eta = np.ravel(np.asarray(llr, dtype=np.float64))
        v = self.llr
        i = np.searchsorted(v, eta, side="left")  # first block whose LLR reaches eta
        k = np.clip(i, 1, v.size - 1) if v.size > 1 else np.zeros_like(i)
        lo, hi = self.upper[k - 1], self.lower[k]
        # bisection over the floats between the block ends (as ordered integers): the map
        # is monotone, apply(lo) < eta <= apply(hi); at most 64 steps
        lo_k, hi_k = _ordered_key(lo), _ordered_key(hi)
        for _ in range(66):
            gap = hi_k - lo_k
            if not np.any(gap > 1):
                break
            mid_k = lo_k + gap // 2
            ok = self.apply(_from_key(mid_k)) >= eta
            step = gap > 1
            hi_k = np.where(step & ok, mid_k, hi_k)
            lo_k = np.where(step & ~ok, mid_k, lo_k)
        s = _from_key(hi_k)
        s = np.where(i == 0, -np.inf, np.where(i >= v.size, np.inf, s))
        return s.reshape(shape)

    def _check_usable(self):
        """DataError unless every block end and every gap midpoint maps to a finite LLR
        (the map is linear in between, so then it is finite everywhere)."""
        k = self._knots
        self.apply(np.concatenate([k, 0.5 * k[1:] + 0.5 * k[:-1]]))

    def curve(self, lo=None, hi=None):
        """The exact map over ``[lo, hi]`` (default: the dev score range) as plot points.

        Returns ``(scores, llrs)``: the block ends inside the range plus both ends; the map
        is linear between consecutive points (at most ``2 B + 2`` points).
        """
        lo = float(self.lower[0]) if lo is None else float(lo)
        hi = float(self.upper[-1]) if hi is None else float(hi)
        if not lo <= hi:
            raise DataError(f"the curve range [{lo}, {hi}] is empty")
        k = self._knots
        s = np.concatenate([[lo], k[(k > lo) & (k < hi)], [hi]])
        return s, self.apply(s)

    def _params(self):
        return {"lower": self.lower.tolist(), "upper": self.upper.tolist(),
                "llr": self.llr.tolist(), "pure_ends": list(self.pure_ends),
                "n_blocks": self.n_blocks, "pseudo_count": PSEUDO_COUNT}

    def report(self):
        d = super().report()
        for k in ("lower", "upper", "llr"):
            del d[k]
        d["llr_range"] = [float(self.llr[0]), float(self.llr[-1])]
        return d

    @classmethod
    def _from_params(cls, params, training):
        _require_keys(params, ["lower", "upper", "llr", "pure_ends"], "params")
        lo = _numbers(params["lower"], "params.lower")
        hi = _numbers(params["upper"], "params.upper")
        v = _numbers(params["llr"], "params.llr")
        if not lo.size or lo.shape != hi.shape or lo.shape != v.shape:
            raise ValueError("params.lower, params.upper and params.llr must be non-empty "
                             "lists of equal length")
        if np.any(lo > hi) or np.any(hi[:-1] >= lo[1:]):
            raise ValueError("the PAV blocks [lower, upper] must be ordered and disjoint")
        if np.any(np.diff(v) < 0):
            raise ValueError("params.llr must be non-decreasing")
        ends = params["pure_ends"]
        if not (isinstance(ends, list) and len(ends) == 2
                and all(isinstance(e, bool) for e in ends)):
            raise ValueError("params.pure_ends must be two booleans")
        if "pseudo_count" in params:
            _number(params["pseudo_count"], "params.pseudo_count")
        if len(training.score_range) != 1:
            raise ValueError("a PAV calibration has one system's training score range")
        return cls(lo, hi, v, tuple(ends), training)

    def _param_lines(self):
        ends = [w for w, p in zip(("lowest", "highest"), self.pure_ends, strict=True) if p]
        sat = (f"; the pure {' and '.join(ends)} block(s) saturate with pseudo-count "
               f"{PSEUDO_COUNT:g}" if ends else "")
        lo, hi = float(self.lower[0]), float(self.upper[-1])
        return [f"PAV calibration: {self.n_blocks} blocks over dev scores "
                f"[{param_text(lo)}, {param_text(hi)}], "
                f"LLRs from {self.llr[0]:.6g} to {self.llr[-1]:.6g}" + sat]


def _interpolate(x, upper, gap, v, nv, out):
    """``min(v + clip((x - upper) / gap, 0, 1) * (nv - v), nv)`` into ``out``: the LLR of
    scores ``x`` from the parameters of their blocks (one value per score)."""
    np.subtract(x, upper, out=out)
    out /= gap
    np.clip(out, 0.0, 1.0, out=out)
    out *= nv - v
    out += v
    np.minimum(out, nv, out=out)


_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


def _ordered_key(x):
    """Integers in the order of the floats ``x`` (adjacent floats: adjacent integers)."""
    b = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    return np.where(b < 0, -(b & _SIGN), b)


def _from_key(k):
    """The floats of :func:`_ordered_key` integers."""
    b = np.where(k < 0, (-k) | ~_SIGN, k)
    return np.ascontiguousarray(b, dtype=np.int64).view(np.float64)
