"""The sort of (score, real weight) pairs by tagged indices (``_sorting.pair_order``, issue 20
item 2) against the sort of the pairs as complex numbers ``score + 1j*weight`` that it
replaces: the same sorted scores and weights bit for bit (zeros as ``+0.0``), whatever the
order of the trials; and the affine fit on real weights gives bitwise the same parameters
for shuffled trials."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import llrlab.core._sorting as sorting
from llrlab.core import Trials
from llrlab.core.calibration import AffineCalibrator


def _complex_sort(x, w):
    """The reference: numpy's sort of complex pairs (real part, then imaginary part)."""
    pairs = np.empty(x.size, dtype=np.complex128)
    pairs.real = x
    pairs.imag = w
    pairs.sort()
    return pairs.real + 0.0, pairs.imag.copy()


_SCORES = [-3.0, -1.0, -0.0, 0.0, 5e-324, -5e-324, 1.0, 1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53]
pair = st.tuples(st.sampled_from(_SCORES) | st.floats(-1e3, 1e3),
                 st.sampled_from([0.0, 0.5, 1.0, 2.5]) | st.floats(0, 10))


@settings(max_examples=300, deadline=None)
@given(st.lists(pair, min_size=1, max_size=200), st.randoms(use_true_random=False))
def test_pairs_sort_as_complex_numbers_bitwise_in_any_order(rows, rnd):
    x, w = (np.array(v, dtype=np.float64) for v in zip(*rows, strict=True))
    xs, cw, ws, _ = sorting._sort_with_weights(x, w)
    rx, rw = _complex_sort(x, w)
    assert_array_equal(xs, rx)
    assert_array_equal(ws, rw)
    assert not np.signbit(xs[xs == 0]).any()  # -0.0 comes out as +0.0
    perm = list(range(x.size))
    rnd.shuffle(perm)
    xs2, cw2, ws2, _ = sorting._sort_with_weights(x[perm], w[perm])
    assert_array_equal(ws2, ws)
    assert_array_equal(xs2, xs)
    assert_array_equal(cw2, cw)


def test_near_ties_are_resorted_exactly():
    # 10^5 scores in 2**38 units in the last place: some within the 2**17 units of the tag
    # of their neighbours (the tagged sort alone would order those by index), some equal
    rng = np.random.default_rng(0)
    n = 100_000
    x = 1.0 + rng.integers(0, 2 ** 38, n) * 2.0 ** -52
    x[: n // 10] *= -1.0
    x[-1000:] = x[:1000]
    w = rng.uniform(0.0, 10.0, n)
    order = sorting.pair_order(x, w)
    assert order is not None
    tags = (x.view(np.int64) >> 17)[order]
    assert (tags[1:] == tags[:-1]).sum() > 1000  # many near ties
    rx, rw = _complex_sort(x, w)
    assert_array_equal(x[order], rx)
    assert_array_equal(w[order], rw)


def test_declines_non_finite_scores_and_mostly_ties():
    w = np.arange(4.0) + 0.5
    assert sorting.pair_order(np.array([1.0, np.inf, 0.0, 2.0]), w) is None
    assert sorting.pair_order(np.array([1.0, -np.inf, 0.0, 2.0]), w) is None
    assert sorting.pair_order(np.array([1.0, np.nan, 0.0, 2.0]), w) is None
    assert sorting.pair_order(np.array([1.0, 1.0, 1.0, 2.0]), w) is None  # 3 of 4 tied
    # the fallback (the complex pairs) gives the same sort
    x = np.array([1.0, -np.inf, 1.0, np.inf])
    xs, _, ws, _ = sorting._sort_with_weights(x, w)
    rx, rw = _complex_sort(x, w)
    assert_array_equal(xs, rx)
    assert_array_equal(ws, rw)


@pytest.mark.parametrize("prior", [0.5, 0.01])
def test_affine_fit_on_real_weights_does_not_depend_on_the_order(prior):
    # long enough for the block summary start (SUMMARY_MIN trials), with tied scores
    rng = np.random.default_rng(3)
    n = 300_000
    lab = rng.random(n) < 0.5
    s = np.round(100.0 * (np.where(lab, 1.0, -1.0) + rng.normal(size=n)) + 500.0, 1)
    w = rng.uniform(0.0, 10.0, n)
    first = AffineCalibrator.fit(Trials(s, lab, weights=w), prior=prior)
    perm = rng.permutation(n)
    again = AffineCalibrator.fit(Trials(s[perm], lab[perm], weights=w[perm]), prior=prior)
    assert (first.scale, first.offset, first.objective) == \
        (again.scale, again.offset, again.objective)
    assert first.training == again.training
