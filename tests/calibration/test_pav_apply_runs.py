"""PAVCalibrator.apply on sorted scores by runs of equal blocks: bit for bit the per-score
formula (the scores of a block get its constant by one repeat, the scores between blocks are
interpolated as before)."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import DataError, Trials
from llrlab.core.calibration import PAVCalibrator
from llrlab.core.calibration.base import TrainingReport


def per_score(cal, x):
    """The map of the class docstring, one score at a time (block by binary search)."""
    x = np.asarray(x, dtype=np.float64)
    lo, hi, v = cal.lower, cal.upper, cal.llr
    nxt = np.minimum(np.arange(1, v.size + 1), v.size - 1)
    gap = lo[nxt] - hi
    gap[-1] = 1.0
    i = np.maximum(np.searchsorted(lo, x, side="right") - 1, 0)
    with np.errstate(over="ignore", invalid="ignore"):
        t = np.clip((x - hi[i]) / gap[i], 0.0, 1.0)
        return np.minimum(t * (v[nxt][i] - v[i]) + v[i], v[nxt][i])


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def probes(cal, rng, n=200_000):
    """Sorted scores that hit every case: random and tied scores inside and outside the dev
    range, every knot and its floating-point neighbours, +-0 and +-inf; long enough to span
    several chunks of the apply."""
    knots = np.r_[cal.lower, cal.upper]
    near = np.r_[knots, np.nextafter(knots, -np.inf), np.nextafter(knots, np.inf)]
    mid = 0.5 * (cal.upper[:-1] + cal.lower[1:])  # in the gaps
    span = cal.upper[-1] - cal.lower[0]
    x = np.r_[rng.uniform(cal.lower[0] - span, cal.upper[-1] + span, n),
              np.round(rng.normal(0.0, 1.0, n), 2), near, mid, -np.inf, np.inf, 0.0, -0.0,
              np.full(1000, cal.lower[0]), np.full(1000, cal.upper[-1])]
    return np.sort(x)


def model(lower, upper, llr):
    report = TrainingReport(source="t", n_tar=1.0, n_non=1.0, weighted=False, cllr_raw=(1.0,),
                            cllr=1.0, min_cllr=1.0, score_range=((lower[0], upper[-1]),))
    return PAVCalibrator(np.asarray(lower, float), np.asarray(upper, float),
                         np.asarray(llr, float), (False, False), report)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("decimals", [1, 3, None])
def test_sorted_runs_equal_the_per_score_formula(seed, decimals):
    rng = np.random.default_rng(seed)
    tar, non = rng.normal(1.5, 1.0, 3000), rng.normal(-1.0, 1.2, 30_000)
    if decimals is not None:  # ties, and blocks of several tied scores
        tar, non = np.round(tar, decimals), np.round(non, decimals)
    cal = PAVCalibrator.fit(Trials.from_tar_non(tar, non))
    assert cal._runs and cal.n_blocks > 5
    x = probes(cal, rng)
    got = cal(x)
    assert same_bits(got, per_score(cal, x))
    # and as the unsorted path gives them (a binary search per score)
    order = rng.permutation(x.size)
    back = np.empty_like(got)
    back[order] = cal(x[order])
    assert same_bits(got, back)


def test_runs_with_many_blocks_per_chunk_and_one_block():
    rng = np.random.default_rng(5)
    lo = np.sort(rng.choice(10**6, 150_000, replace=False)).astype(float)
    hi = lo + rng.integers(0, 2, lo.size) * 0.5
    v = np.sort(rng.normal(0.0, 3.0, lo.size))
    v[10:20] = 0.0  # +0: the constant of a zero-LLR block is +0 whatever the zero of t
    cal = model(lo, hi, v)
    assert cal._runs
    x = np.sort(np.r_[rng.uniform(-10, 10**6 + 10, 300_000), lo, hi, hi + 0.25])
    assert same_bits(cal(x), per_score(cal, x))
    one = model([2.0], [3.0], [0.7])
    x = np.array([-np.inf, -5.0, 2.0, 2.5, 3.0, 4.0, np.inf] * 20)
    x.sort()
    assert same_bits(one(x), per_score(one, x))


@pytest.mark.parametrize("llr", [[-0.0, 1.0, 2.0], [-1.0, -0.0, 2.0], [-1.0, 0.5, -0.0]])
def test_a_negative_zero_llr_takes_the_per_score_path(llr):
    """``-0.0 + 0.0`` is ``+0.0``: where an LLR is -0.0 the constant is not the same for every
    score of its block, so such a model (only a hand-made one) is mapped score by score."""
    cal = model([0.0, 2.0, 4.0], [1.0, 3.0, 5.0], llr)
    assert not cal._runs
    x = np.sort(np.r_[np.linspace(-2.0, 7.0, 2001), -np.inf, np.inf])
    assert same_bits(cal(x), per_score(cal, x))


@pytest.mark.parametrize("where", [0, 7, 70_000, -1])
def test_nan_is_refused_with_the_first_index_wherever_it_is(where):
    """NaN is looked for chunk by chunk (a sorted chunk has none): the error is the one of
    the whole-array scan, naming the count and the first NaN."""
    cal = PAVCalibrator.fit(Trials.from_tar_non([1.0, 2.5, 3.0], [0.0, 1.5, 2.0]))
    x = np.linspace(-1.0, 4.0, 100_000)
    x[where] = np.nan
    x[where - 3] = np.nan
    first = sorted(i % x.size for i in (where, where - 3))[0]
    with pytest.raises(DataError, match=rf"2 NaN value\(s\); the first .* at index {first}"):
        cal(x)
    with pytest.raises(DataError, match="index 0"):
        cal([np.nan])


def test_an_overflowing_model_is_refused_on_sorted_and_unsorted_scores():
    cal = model([0.0, 1.0], [0.5, 2.0], [-1e308, 1e308])
    x = np.sort(np.r_[np.linspace(-1.0, 3.0, 1000), 0.75])
    with np.errstate(over="ignore"):
        assert not np.isfinite(per_score(cal, x)).all()
    with pytest.raises(DataError, match="overflow"):
        cal(x)
    with pytest.raises(DataError, match="overflow"):
        cal(x[::-1])
