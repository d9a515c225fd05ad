"""The whole analysis of a score set from a single sort, with cheap look-ups afterwards.

:func:`analyze` sorts the target and non-target scores once, runs PAV once on the compressed
blocks (see ``llrlab.core._sorting``), and derives every measure from these: actual and
minimum DCF on a grid of operating points, Cllr, minimum Cllr, ROCCH-EER, PRBEP, DR30 markers,
and (on demand, cached) DET curves.  :meth:`Analysis.at` evaluates one operating point by
binary search only -- what an interactive plot needs while the user drags.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ._parallel import CHUNK, map_chunks
from ._repr import summary_repr
from ._sorting import PooledBlocks, SortedScores, pooled_blocks, sort_scores
from ._validate import as_number, as_plo
from .cllr import _LN2, _ce_parts, _min_ce_sorted, _min_cllr, _validated
from .dcf import DCFResult, _act_dcf, _min_dcf
from .det import DETCurve, _det, _det_dr30
from .nber import DR30, _dr30
from .operating_point import effective_prior, plo_from_costs, prior_from_plo
from .rocch import ROCCH, _eer, _prbep
from .trials import Trials

__all__ = ["DEFAULT_PLO", "Analysis", "OperatingPoint", "analyze"]

#: Default grid of prior log-odds: 1001 points from -10 to 10.
DEFAULT_PLO = np.linspace(-10.0, 10.0, 1001)


@summary_repr("plo", "effective_prior", "act_dcf", "min_dcf", "dr30_safe")
@dataclass(frozen=True, eq=False)
class OperatingPoint:
    """All measures at one operating point (scalars).

    ``act`` / ``min`` are 0-d :class:`~llrlab.core.dcf.DCFResult`; ``dr30_safe`` says
    whether both minimum-DCF error counts are at least 30.
    """

    plo: float
    effective_prior: float
    act: DCFResult
    min: DCFResult
    dr30_safe: bool

    @property
    def act_dcf(self):
        return float(self.act.dcf)

    @property
    def min_dcf(self):
        return float(self.min.dcf)


@summary_repr("n_tar", "n_non", "eer", "cllr", "min_cllr", "prbep", "plo")
@dataclass(frozen=True, eq=False)
class Analysis:
    """Every evaluation measure of one score set (see :func:`analyze`).

    Attributes
    ----------
    sorted : SortedScores
        The sorted scores the analysis was computed from (kept for look-ups).
    blocks : PooledBlocks
        The PAV solution (ROCCH).
    plo : ndarray, shape (P,)
        Grid of prior log-odds.
    act, min : DCFResult
        Normalized actual and minimum DCF on the grid.
    cllr, min_cllr : float
        In bits.
    eer : float
        ROCCH-EER.
    prbep : float
        Precision-recall break-even point, as a number of errors.
    dr30 : DR30
        NBER rule-of-30 markers.
    n_tar, n_non : int
        Numbers of target and non-target trials.
    """

    sorted: SortedScores
    blocks: PooledBlocks
    plo: np.ndarray
    act: DCFResult
    min: DCFResult
    cllr: float
    min_cllr: float
    eer: float
    prbep: float
    dr30: DR30
    n_tar: int
    n_non: int
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def rocch(self) -> ROCCH:
        return ROCCH.from_blocks(self.blocks)

    @property
    def in_memory(self) -> bool:
        """True when the sorted scores are in memory (every look-up by score possible);
        False for an analysis out of core (:class:`~llrlab.core.scale.DaskAnalysis`, whose
        ``sorted`` holds counts per threshold)."""
        return isinstance(self.sorted, SortedScores)

    @property
    def calibration_loss(self):
        """``Cllr - minCllr`` in bits (Brümmer 2010, sec. 7.3.3)."""
        return self.cllr - self.min_cllr

    def at(self, plo) -> OperatingPoint:
        """Measures at one prior log-odds, by binary search only (no sort, no PAV)."""
        plo = as_number(plo, "plo")
        act = _act_dcf(self.sorted, plo)
        mn = _min_dcf(self.sorted, self.blocks, plo)
        return OperatingPoint(plo, float(prior_from_plo(plo)), act, mn,
                              bool(self.dr30.is_safe(plo)))

    def curves(self, plo):
        """Actual and minimum DCF on another grid (binary searches only)."""
        plo = as_plo(plo)
        return _act_dcf(self.sorted, plo), _min_dcf(self.sorted, self.blocks, plo)

    def det(self, kind="steppy", max_points=5000) -> DETCurve:
        """DET curve (cached per kind and size)."""
        key = ("det", kind, max_points)
        if key not in self._cache:
            self._cache[key] = _det(self.sorted, kind, max_points, self.blocks)
        return self._cache[key]

    def det_dr30(self, kind="steppy"):
        """DR30 points ``(p_fa, p_miss)`` on the DET curve (see ``det.det_dr30``)."""
        key = ("dr30", kind)
        if key not in self._cache:
            self._cache[key] = _det_dr30(self.sorted, kind, self.blocks)
        return self._cache[key]

    def cross_entropy_min(self, prior):
        """Prior-weighted cross-entropy of the PAV LLRs at ``prior`` (nats)."""
        return _min_ce_sorted(self.sorted, self.blocks, prior)

    def summary(self, p_target=0.01, c_miss=1.0, c_fa=1.0):
        """The headline numbers at one operating point, as a plain dict (CLI / JSON)."""
        plo = float(plo_from_costs(p_target, c_miss, c_fa))
        op = self.at(plo)
        return {
            "n_tar": self.n_tar,
            "n_non": self.n_non,
            "eer": self.eer,
            "cllr": self.cllr,
            "min_cllr": self.min_cllr,
            "act_dcf": op.act_dcf,
            "min_dcf": op.min_dcf,
            "prbep": self.prbep,
            "effective_prior": float(effective_prior(p_target, c_miss, c_fa)),
        }


def analyze(tar, non=None, *, plo=None, tar_weights=None, non_weights=None,
            threads=True) -> Analysis:
    """Analyse a score set: every measure, from one sort.

    Parameters
    ----------
    tar, non : array_like or Trials
        Target and non-target scores (LLRs for the calibration-sensitive measures), or one
        ``Trials`` as ``tar``.
    plo : array_like, optional
        Grid of prior log-odds for the DCF curves (default :data:`DEFAULT_PLO`).
    tar_weights, non_weights : array_like, optional
        Per-trial weights.
    threads : bool, default True
        Compute the Cllr sums in a second thread while the scores are sorted (numpy releases
        the GIL in both); the numbers are identical either way.

    Returns
    -------
    Analysis

    Notes
    -----
    Cost: one sort of the target and one of the non-target scores, one pass of ``logaddexp``
    for Cllr, binary searches for the DCF grid (``O(P log n)``) and PAV on ``O(min(T, N))``
    elementary blocks.  Measures and their formulas: :mod:`llrlab.core.dcf`,
    :mod:`llrlab.core.cllr`, :mod:`llrlab.core.rocch`, :mod:`llrlab.core.nber`.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.5-2.6 and 3.1-3.2; docs/conventions.md.

    Examples
    --------
    >>> a = analyze([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0], plo=[0.0])
    >>> round(a.eer, 4), float(a.min.dcf[0]), float(a.act.dcf[0])
    (0.1429, 0.25, 0.5833333333333333)
    """
    trials = tar if isinstance(tar, Trials) else None
    if trials is not None and non is None:
        # integer weights: Cllr from the gathers that are sorted (no file-order copies)
        trials._sort_with_cllr()
    if trials is not None and non is None and "cllr_parts" in trials._cache:
        # a condition-weighted pool: its sort and Cllr were taken from its trials' shared
        # sort (llrlab.core.conditions), so the classes are not copied out in file order
        s = trials.sorted()
        tar, non, tw, nw = s.tar, s.non, s.tar_w, s.non_w
    else:
        # NaN is found by the sort (at its end), not by a pass of its own
        tar, non, tw, nw = _validated(tar, non, tar_weights, non_weights, scan=False)
    plo = DEFAULT_PLO if plo is None else as_plo(plo)

    def cllr_parts():
        if trials is not None and "cllr_parts" in trials._cache:
            return trials._cache["cllr_parts"]
        return _ce_parts(tar, non, 0.0, tw, nw)

    def sort():  # a Trials object keeps its sort for every later measure
        if trials is not None:
            return trials.sorted()
        return sort_scores(tar, non, tar_weights=tw, non_weights=nw)

    if threads and tar.size + non.size > 200_000:
        with ThreadPoolExecutor(max_workers=1) as pool:
            fut = pool.submit(cllr_parts)
            s = sort()
            ct, cn = fut.result()
    else:
        s = sort()
        ct, cn = cllr_parts()
    return _from_sorted(s, plo, float((ct + cn) / (2 * _LN2)))


def _from_sorted(s: SortedScores, plo, cllr_value) -> Analysis:
    blocks = pooled_blocks(s)
    return Analysis(
        sorted=s,
        blocks=blocks,
        plo=plo,
        act=_act_dcf(s, plo),
        min=_min_dcf(s, blocks, plo),
        cllr=cllr_value,
        min_cllr=float(_min_cllr(blocks)),
        eer=float(_eer(blocks)),
        prbep=float(_prbep(blocks)),
        dr30=_dr30(s, blocks),
        n_tar=s.count_tar,
        n_non=s.count_non,
    )


def analyze_transformed(base: Analysis, transform, *, plo=None) -> Analysis:
    """Analysis of ``transform(scores)`` for a non-decreasing ``transform``, without sorting.

    A monotone (non-decreasing) map -- an affine calibration with positive scale, a PAV
    calibration -- keeps sorted scores sorted, so the sort of ``base`` is reused: the cost is
    one pass of ``transform`` and one of ``logaddexp`` (Cllr) over the scores.  This is what
    makes a calibration toggle in the dashboard cheap.

    Parameters
    ----------
    base : Analysis
        Analysis of the raw scores.
    transform : callable
        Elementwise, vectorized map from scores to LLRs (applied chunk by chunk, in
        parallel threads for long arrays).
    plo : array_like, optional
        Grid of prior log-odds (default: the grid of ``base``).

    Raises
    ------
    ValueError
        If ``transform`` is not non-decreasing on the scores (then call :func:`analyze`).

    Examples
    --------
    >>> a = analyze([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0], plo=[0.0])
    >>> b = analyze_transformed(a, lambda s: 2 * s - 1)
    >>> float(b.act.dcf[0]) == float(analyze([1.0, 3.0, -2.0], [-5.0, 0.0, -3.0, -7.0],
    ...                                     plo=[0.0]).act.dcf[0])
    True
    """
    s = base.sorted
    tar = _transform_sorted(transform, s.tar, "target")
    non = _transform_sorted(transform, s.non, "non-target")
    t = SortedScores(tar, non, s.tar_cw, s.non_cw, s.n_tar, s.n_non, s.tar_w, s.non_w,
                     s.tar_strata, s.non_strata, s.exact_cw)
    ct, cn = _ce_parts(tar, non, 0.0, s.tar_w, s.non_w)
    return _from_sorted(t, base.plo if plo is None else as_plo(plo),
                        float((ct + cn) / (2 * _LN2)))


def _transform_sorted(transform, x, name):
    """``transform(x)`` for sorted ``x``, checked to be non-decreasing and free of NaN.

    Chunk by chunk (see ``llrlab.core._parallel``): each chunk is mapped and checked while it
    is in cache; the chunk boundaries are checked afterwards.
    """
    out = np.empty_like(x)

    def part(sl):
        y = out[sl] = np.asarray(transform(x[sl]), dtype=np.float64)
        if y.size < 2:
            return bool(np.isnan(y).any())
        # one comparison finds both: NaN compares false, as does a decrease
        return not bool(np.all(y[1:] >= y[:-1]))

    bad = any(map_chunks(part, x.size))
    starts = np.arange(CHUNK, x.size, CHUNK)
    if bad or np.any(out[starts] < out[starts - 1]):
        raise ValueError(f"the transform is not non-decreasing on the {name} scores")
    return out
