"""EPC (Bengio, Mariéthoz & Keller 2005): hand-computed tables with ties, a brute-force threshold
sweep,
agreement with minimum DCF, weights, several systems, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logit

from llrlab.core import DataError, Trials, min_dcf
from llrlab.core.epc import EPC, epc, epc_many


def brute_force(dev, test, alpha):
    """Every candidate threshold (-inf, each midpoint of adjacent distinct dev scores, +inf),
    every alpha: the lowest threshold of minimum dev cost, applied to test."""
    (dt, dn), (tt, tn) = (np.asarray(x, float) for x in dev), (np.asarray(x, float)
                                                              for x in test)
    u = np.unique(np.concatenate([dt, dn]))
    mid = 0.5 * u[:-1] + 0.5 * u[1:]
    mid = np.where(mid > u[:-1], mid, u[1:])
    cand = np.concatenate([[-np.inf], mid, [np.inf]])
    pm = (dt[None, :] < cand[:, None]).sum(1) / dt.size
    pf = (dn[None, :] >= cand[:, None]).sum(1) / dn.size
    rows = []
    for a in alpha:
        cost = a * pf + (1 - a) * pm
        j = np.flatnonzero(cost <= cost.min() * (1 + 1e-12))[0]
        t = cand[j]
        tpm = np.mean(tt < t)
        tpf = np.mean(tn >= t)
        rows.append((t, pm[j], pf[j], cost[j], tpm, tpf))
    return np.array(rows).T


def test_hand_computed_table_with_ties():
    # dev pooled and sorted: 0 n | 1 t, 1 n (tie) | 1.5 n | 2 t | 3 t ; T = N = 3
    # thresholds between distinct scores and their (Pmiss, Pfa):
    #   -inf (0, 1)   0.5 (0, 2/3)   1.25 (1/3, 1/3)   1.75 (1/3, 0)   2.5 (2/3, 0)   inf (1, 0)
    dev = ([1.0, 2.0, 3.0], [0.0, 1.0, 1.5])
    test = ([0.8, 2.5, 3.0], [1.2, 0.5, 2.0])
    c = epc(dev, test, alpha=[0.0, 0.25, 0.5, 0.75, 1.0])
    # alpha=0: cost Pmiss, zero at -inf and 0.5 -> lowest, -inf.
    # alpha=.25: .25, 1/6, 1/3, 1/4, 1/2, 3/4 -> 0.5.   alpha=.5: 1/2, 1/3, 1/3, 1/6 -> 1.75.
    # alpha=.75: 3/4, 1/2, 1/3, 1/12, 1/6, 1/4 -> 1.75. alpha=1: cost Pfa, 0 from 1.75 on.
    assert_array_equal(c.threshold, [-np.inf, 0.5, 1.75, 1.75, 1.75])
    assert_allclose(c.dev_p_miss, [0, 0, 1 / 3, 1 / 3, 1 / 3], rtol=1e-15)
    assert_allclose(c.dev_p_fa, [1, 2 / 3, 0, 0, 0], rtol=1e-15)
    assert_allclose(c.dev_wer, [0, 1 / 6, 1 / 6, 1 / 12, 0], rtol=1e-15, atol=0)
    # test at 0.5: tar all accepted, non 1.2, 0.5, 2.0 all accepted.
    # test at 1.75: tar 0.8 missed; non 2.0 accepted.
    assert_allclose(c.p_miss, [0, 0, 1 / 3, 1 / 3, 1 / 3], rtol=1e-15)
    assert_allclose(c.p_fa, [1, 1, 1 / 3, 1 / 3, 1 / 3], rtol=1e-15)
    assert_allclose(c.hter, [0.5, 0.5, 1 / 3, 1 / 3, 1 / 3], rtol=1e-15)
    assert_allclose(c.wer, [0, 0.25, 1 / 3, 1 / 3, 1 / 3], rtol=1e-15, atol=0)


def test_exact_tie_between_two_vertices_takes_the_lower_threshold():
    # dev: non 0, tar 1, non 2, tar 3.  At alpha = 0.5 the costs of -inf, 0.5, 1.5, 2.5, inf
    # are 1/2, 1/4, 1/2, 1/4, 1/2: 0.5 (Pmiss 0, Pfa 1/2) and 2.5 (1/2, 0) tie.
    c = epc(([1.0, 3.0], [0.0, 2.0]), ([1.0, 3.0], [0.0, 2.0]), alpha=0.5)
    assert float(c.threshold[0]) == 0.5
    assert float(c.dev_wer[0]) == 0.25


def test_separable_dev_and_the_ends():
    c = epc(([2.0, 3.0], [0.0, 1.0]), ([2.5, 0.5], [1.5, -1.0]), alpha=[0.0, 0.5, 1.0])
    assert_array_equal(c.threshold, [-np.inf, 1.5, 1.5])
    assert_array_equal(c.dev_wer, [0.0, 0.0, 0.0])
    assert_allclose(c.hter, [0.5, 0.5, 0.5])


def test_all_targets_below_all_non_targets_rejects_everything_at_alpha_one():
    c = epc(([0.0, 1.0], [2.0, 3.0]), ([0.0, 5.0], [1.0, 2.0]), alpha=[0.0, 0.4, 0.6, 1.0])
    # The ROC is the anti-diagonal's worst case: accept-all is optimal for alpha < 1/2 and
    # reject-all for alpha > 1/2; at alpha = 1 only t > 3 has Pfa = 0, so +inf.
    assert_array_equal(c.threshold, [-np.inf, -np.inf, np.inf, np.inf])
    assert_allclose(c.p_miss, [0, 0, 1, 1])
    assert_allclose(c.p_fa, [1, 1, 0, 0])


@pytest.mark.parametrize("seed", range(12))
def test_against_brute_force_sweep(seed):
    rng = np.random.default_rng(seed)
    nt, nn = rng.integers(1, 25, size=2)
    rnd = 1 if seed % 2 else 4  # coarse rounding: many ties within and across classes
    dev = (np.round(rng.normal(1, 1.5, nt), rnd), np.round(rng.normal(-1, 1.5, nn), rnd))
    test = (np.round(rng.normal(0.8, 1.5, nt + 3), rnd),
            np.round(rng.normal(-1, 1.5, nn + 2), rnd))
    alpha = np.concatenate([np.linspace(0, 1, 101), rng.uniform(0, 1, 50)])
    c = epc(dev, test, alpha)
    t, dpm, dpf, dcost, tpm, tpf = brute_force(dev, test, alpha)
    assert_array_equal(c.threshold, t)
    assert_array_equal(c.dev_p_miss, dpm)
    assert_array_equal(c.dev_p_fa, dpf)
    assert_allclose(c.dev_wer, dcost, rtol=1e-14, atol=1e-16)
    assert_array_equal(c.p_miss, tpm)
    assert_array_equal(c.p_fa, tpf)
    assert_allclose(c.hter, (tpm + tpf) / 2, rtol=1e-15)


def test_dev_cost_is_minimum_dcf_and_self_test_reproduces_it():
    rng = np.random.default_rng(7)
    tar, non = rng.normal(2, 1, 300), rng.normal(0, 1, 2000)
    alpha = np.linspace(0.01, 0.99, 99)
    c = epc((tar, non), (tar, non), alpha)
    md = min_dcf(tar, non, logit(1 - alpha), normalize=False)
    assert_allclose(c.dev_wer, md.dcf, rtol=1e-12)
    assert_allclose(c.wer, c.dev_wer, rtol=1e-12)
    assert np.all(np.diff(c.threshold) >= 0)  # more weight on Pfa: stricter threshold


def test_weights_equal_duplication():
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(0, 1, 40), 1)
    lab = rng.random(40) < 0.4
    w = rng.integers(1, 4, 40).astype(float)
    dev = Trials(s, lab, weights=w)
    dup = Trials(np.repeat(s, w.astype(int)), np.repeat(lab, w.astype(int)))
    test = (rng.normal(0.5, 1, 30), rng.normal(-0.5, 1, 50))
    a = np.linspace(0, 1, 41)
    c1, c2 = epc(dev, test, a), epc(dup, test, a)
    assert_array_equal(c1.threshold, c2.threshold)
    assert_allclose(c1.dev_wer, c2.dev_wer, rtol=1e-13, atol=1e-16)
    assert_array_equal(c1.hter, c2.hter)


def test_many_systems_share_the_grid():
    rng = np.random.default_rng(4)
    systems = [((rng.normal(m, 1, 50), rng.normal(0, 1, 80)),
                (rng.normal(m, 1, 60), rng.normal(0, 1, 70))) for m in (1.0, 2.0, 3.0)]
    cs = epc_many(systems, np.linspace(0, 1, 11))
    assert len(cs) == 3 and all(isinstance(c, EPC) for c in cs)
    for c, (d, t) in zip(cs, systems, strict=True):
        assert_array_equal(c.hter, epc(d, t, np.linspace(0, 1, 11)).hter)
    assert cs[2].hter[5] < cs[0].hter[5]


def test_default_grid_and_shapes():
    c = epc(([1.0, 2.0], [0.0, 1.5]), ([1.0], [0.0]))
    assert c.alpha.shape == (101,) and c.alpha[0] == 0 and c.alpha[-1] == 1
    for name in ("threshold", "dev_p_miss", "dev_p_fa", "dev_wer", "p_miss", "p_fa", "wer",
                 "hter"):
        assert getattr(c, name).shape == (101,)


@pytest.mark.parametrize("alpha", [-0.1, 1.5, np.nan, [[0.5]]])
def test_bad_alpha(alpha):
    with pytest.raises(DataError, match="alpha"):
        epc(([1.0], [0.0]), ([1.0], [0.0]), alpha)


def test_bad_sets_are_named():
    with pytest.raises(DataError, match=r"^dev: .*empty"):
        epc(([], [0.0]), ([1.0], [0.0]))
    with pytest.raises(DataError, match=r"^test: .*NaN"):
        epc(([1.0], [0.0]), ([np.nan], [0.0]))
    with pytest.raises(DataError, match="no target"):
        epc(Trials([1.0, 2.0], [False, False], source="dev.txt"), ([1.0], [0.0]))
    with pytest.raises(TypeError, match="dev must be"):
        epc(np.zeros(3), ([1.0], [0.0]))
    with pytest.raises(TypeError, match="system 0"):
        epc_many([([1.0], [0.0], [1.0])])


def test_an_analysis_is_used_without_sorting_again(monkeypatch):
    import importlib

    from llrlab.core import analyze
    from llrlab.core import epc as epc_fn

    epc_module = importlib.import_module("llrlab.core.epc")

    rng = np.random.default_rng(8)
    dev = (rng.normal(1, 1, 300), rng.normal(-1, 1, 900))
    test = (rng.normal(1, 1.2, 250), rng.normal(-1, 1, 800))
    ref = epc_fn(dev, test)
    da, ta = analyze(*dev), analyze(*test)

    def no_sort(*a, **kw):
        raise AssertionError("sorted again")

    monkeypatch.setattr(epc_module, "sort_scores", no_sort)
    monkeypatch.setattr(epc_module, "pooled_blocks", no_sort)
    got = epc_fn(da, ta)
    for f in ("threshold", "dev_p_miss", "dev_p_fa", "p_miss", "p_fa", "hter"):
        np.testing.assert_array_equal(getattr(got, f), getattr(ref, f))
