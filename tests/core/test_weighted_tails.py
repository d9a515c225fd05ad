"""Weighted false-alarm rates at high thresholds keep their digits.

With per-trial weights, the weight of the few highest non-targets must not be computed as the
difference of two large cumulative sums (total - weight below): that loses about
``log10(total / tail)`` digits.  Reference values are exact sums (``math.fsum``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from llrlab.core import act_dcf, analyze, det_curve
from llrlab.core._sorting import sort_scores


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    n_non, n_tar = 2_000_000, 5_000
    non = rng.normal(-2.0, 1.0, n_non)
    non[:3] = [10.0, 11.0, 12.0]  # three non-targets far above the rest
    tar = rng.normal(2.0, 1.0, n_tar)
    nw = rng.uniform(0.05, 0.15, n_non)  # condition-like weights, not representable sums
    tw = rng.uniform(0.5, 1.5, n_tar)
    return tar, non, tw, nw


def test_the_naive_difference_would_lose_digits(data):
    # the test below can fail: the old formula is off by far more than its tolerance
    tar, non, tw, nw = data
    s = sort_scores(tar, non, tar_weights=tw, non_weights=nw)
    i = np.searchsorted(s.non, 9.0)
    exact = math.fsum(nw[:3]) / math.fsum(nw)
    naive = (s.n_non - s.non_cw[i]) / s.n_non
    assert abs(naive / exact - 1) > 1e-12


def test_pfa_of_a_small_weighted_tail_is_exact(data):
    tar, non, tw, nw = data
    exact = math.fsum(nw[:3]) / math.fsum(nw)
    r = act_dcf(tar, non, plo=-9.0, tar_weights=tw, non_weights=nw)  # threshold 9
    assert float(r.p_fa) == pytest.approx(exact, rel=1e-14)
    s = sort_scores(tar, non, tar_weights=tw, non_weights=nw)
    assert float(s.rates(10.5)[1]) == pytest.approx(math.fsum(nw[1:3]) / math.fsum(nw),
                                                    rel=1e-14)


def test_rocch_vertices_of_small_weighted_tails_are_exact(data):
    tar, non, tw, nw = data
    a = analyze(tar, non, tar_weights=tw, non_weights=nw, plo=[0.0])
    p_fa, _ = a.blocks.vertices()
    total = math.fsum(nw)
    # vertex k: every trial in blocks >= k accepted, i.e. the non-targets >= lower[k]
    for k in range(a.blocks.n_blocks - 12, a.blocks.n_blocks):
        exact = math.fsum(nw[non >= a.blocks.lower[k]]) / total
        assert float(p_fa[k]) == pytest.approx(exact, rel=1e-13, abs=1e-300)
    # the block weights are sums of the trials' own weights, not differences of cumsums
    top = a.blocks.n_blocks - 1
    inside = (non >= a.blocks.lower[top]) & (non <= a.blocks.upper[top])
    assert float(a.blocks.non[top]) == pytest.approx(math.fsum(nw[inside]), rel=1e-13,
                                                    abs=1e-300)


def test_det_and_unweighted_results_are_unchanged():
    rng = np.random.default_rng(6)
    tar, non = rng.normal(1, 1, 300), rng.normal(-1, 1, 5000)
    ones = analyze(tar, non, tar_weights=np.ones(300), non_weights=np.ones(5000))
    plain = analyze(tar, non)
    assert np.array_equal(ones.act.dcf, plain.act.dcf)
    assert np.array_equal(ones.min.dcf, plain.min.dcf)
    assert ones.eer == plain.eer
    d1 = det_curve(tar, non, tar_weights=np.ones(300), non_weights=np.ones(5000))
    d0 = det_curve(tar, non)
    assert np.array_equal(d1.p_fa, d0.p_fa) and np.array_equal(d1.p_miss, d0.p_miss)


def test_weighted_rates_stay_within_0_and_1():
    rng = np.random.default_rng(7)
    for _ in range(20):
        nw = rng.uniform(0.01, 0.3, 1001)
        s = sort_scores([0.0], rng.normal(size=1001), tar_weights=[0.7], non_weights=nw)
        p_miss, p_fa = s.rates(np.array([-np.inf, np.inf]))
        assert p_fa[0] == 1.0 and p_fa[1] == 0.0
        assert p_miss[0] == 0.0 and p_miss[1] == 1.0
