"""At 10^6 trials the Dask path equals the in-memory ``analyze`` on every measure (1e-12
relative), on Dask's local scheduler and on a distributed.LocalCluster with 2 workers."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

from llrlab.core import analyze
from llrlab.core.scale import analyze_dask

RTOL = 1e-12
PLO = np.linspace(-8, 8, 81)


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(13)
    # scores rounded to 1e-3: many ties, some of them across partition bounds
    tar = np.round(rng.normal(2.0, 1.2, 100_000), 3)
    non = np.round(rng.normal(0.0, 1.0, 900_000), 3)
    return tar, non


def _close(a, b, what):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=0, err_msg=what)


def assert_same(d, m):
    """Every measure of the in-memory Analysis ``m`` equals the Dask one ``d``."""
    assert (d.n_tar, d.n_non) == (m.n_tar, m.n_non)
    for k in ("eer", "cllr", "min_cllr", "prbep"):
        _close(getattr(d, k), getattr(m, k), k)
    for which in ("act", "min"):
        x, y = getattr(d, which), getattr(m, which)
        for f in ("dcf", "p_miss", "p_fa", "threshold"):
            _close(getattr(x, f), getattr(y, f), f"{which}.{f}")
        np.testing.assert_array_equal(x.misses, y.misses)
        np.testing.assert_array_equal(x.false_alarms, y.false_alarms)
    for f in ("lower", "upper", "tar", "non", "llr"):
        _close(getattr(d.blocks, f), getattr(m.blocks, f), f"blocks.{f}")
    for f in ("plo_fa", "plo_miss", "dcf_fa", "dcf_miss"):
        _close(getattr(d.dr30, f), getattr(m.dr30, f), f"dr30.{f}")
    for kind in ("steppy", "rocch"):
        _close(np.array(d.det_dr30(kind)), np.array(m.det_dr30(kind)), f"det_dr30 {kind}")
    r1, r2 = d.det("rocch", 3000), m.det("rocch", 3000)
    _close(r1.p_fa, r2.p_fa, "rocch DET")
    _close(r1.p_miss, r2.p_miss, "rocch DET")
    # tabulated operating points, and others (typical p_target values, a random one)
    for plo in (-6.0, -2.197, 0.0, 1.5, 4.0, -4.59511985013459, -6.906754778648554,
                -2.9444389791664403, 0.123456789):
        a, b = d.at(plo), m.at(plo)
        assert a.plo == plo
        _close([a.act_dcf, a.min_dcf], [b.act_dcf, b.min_dcf], f"at({plo})")
        assert a.dr30_safe == b.dr30_safe
    _close(d.cross_entropy_min(0.3), m.cross_entropy_min(0.3), "min Ce")
    assert d.summary() == pytest.approx(m.summary(), rel=RTOL)


def test_local_scheduler_equals_in_memory(scores):
    tar, non = scores
    m = analyze(tar, non, plo=PLO)
    d = analyze_dask(da.from_array(tar, chunks=40_000), da.from_array(non, chunks=150_000),
                     plo=PLO, partition_rows=120_000)
    assert d.info["partitions"] > 5
    assert d.info["scheduler"] == "local"
    assert_same(d, m)


def test_distributed_cluster_equals_in_memory(scores, cluster_client):
    tar, non = scores
    m = analyze(tar, non, plo=PLO)
    d = analyze_dask(da.from_array(tar, chunks=40_000), da.from_array(non, chunks=150_000),
                     plo=PLO, partition_rows=200_000, client=cluster_client)
    assert d.info["scheduler"].startswith("distributed")
    assert d.info["shuffle"] == "p2p"
    assert_same(d, m)


def test_weighted_trials_equal_in_memory(scores):
    tar, non = scores[0][:20_000], scores[1][:200_000]
    rng = np.random.default_rng(2)
    tw, nw = rng.choice([0.5, 1.0, 3.0], tar.size), rng.choice([0.25, 1.0, 2.0], non.size)
    m = analyze(tar, non, plo=PLO, tar_weights=tw, non_weights=nw)
    d = analyze_dask(da.from_array(tar, chunks=7_000), da.from_array(non, chunks=50_000),
                     tar_weights=da.from_array(tw, chunks=7_000),
                     non_weights=da.from_array(nw, chunks=50_000), plo=PLO,
                     partition_rows=30_000)
    assert_same(d, m)


def test_results_do_not_depend_on_the_partitioning(scores):
    tar, non = scores[0][:30_000], scores[1][:100_000]
    a, b = (analyze_dask(da.from_array(tar, chunks=c), da.from_array(non, chunks=c), plo=PLO,
                         partition_rows=r) for c, r in ((7_000, 9_000), (50_000, 1 << 20)))
    assert b.info["partitions"] == 1 < a.info["partitions"]
    assert_same(a, b)


def test_a_plo_between_tabulated_thresholds_is_exact(scores):
    tar, non = scores[0][:5_000], np.random.default_rng(1).normal(0, 1, 50_000)
    d = analyze_dask(da.from_array(tar, chunks=5_000), da.from_array(non, chunks=10_000),
                     plo=[0.0], partition_rows=12_000)
    m = analyze(tar, non)
    assert not d.sorted.covers(1.23456789)  # not tabulated: the sorted partitions answer
    op, ref = d.at(-1.23456789), m.at(-1.23456789)
    assert op.plo == -1.23456789
    assert (op.act_dcf, op.min_dcf) == (ref.act_dcf, ref.min_dcf)
    assert (int(op.act.misses), int(op.act.false_alarms)) == (int(ref.act.misses),
                                                             int(ref.act.false_alarms))
    grid = [-1.23456789, 0.0, 2.0 ** -20]
    for x, y in zip(d.curves(grid), m.curves(grid), strict=True):
        np.testing.assert_array_equal(x.plo, grid)
        np.testing.assert_array_equal(x.dcf, y.dcf)


def test_steppy_det_points_lie_on_the_in_memory_curve(scores):
    tar, non = scores[0][:20_000], scores[1][:100_000]
    d = analyze_dask(da.from_array(tar, chunks=10_000), da.from_array(non, chunks=25_000),
                     partition_rows=20_000)
    m = analyze(tar, non)
    got = d.det("steppy", max_points=10**9)
    # every kept point is the exact ROC point of some threshold between distinct scores
    thr = np.append(np.unique(np.concatenate([tar, non])), np.inf)
    p_miss, p_fa = m.sorted.rates(thr)
    pts = set(zip(p_fa.tolist(), p_miss.tolist(), strict=True)) | {(1.0, 0.0)}
    assert all((f, p) in pts for f, p in zip(got.p_fa.tolist(), got.p_miss.tolist(), strict=True))
    assert 500 < got.p_fa.size < thr.size
    assert got.p_fa[0] == 1.0 and got.p_miss[-1] == 1.0


@pytest.mark.parametrize("tar,non", [
    (np.zeros(50), np.zeros(70)),  # one score: one partition, one block
    (np.full(40, 1.0), np.r_[np.zeros(500), np.ones(300), np.full(200, 2.0)]),
    (np.array([np.inf, 1.0, 2.0]), np.array([-np.inf, 0.0, 1.0])),  # infinite LLRs
])
def test_degenerate_sets_equal_in_memory(tar, non):
    a = analyze_dask(da.from_array(tar, chunks=20), da.from_array(non, chunks=100),
                     partition_rows=100)
    m = analyze(tar, non)
    for k in ("eer", "cllr", "min_cllr", "prbep"):
        assert getattr(a, k) == pytest.approx(getattr(m, k), rel=1e-12), k
    np.testing.assert_allclose(a.act.dcf, m.act.dcf, rtol=1e-12)
    np.testing.assert_allclose(a.min.dcf, m.min.dcf, rtol=1e-12)


def test_empty_input_partitions_and_a_class_in_one_partition():
    import dask
    import dask.dataframe as dd
    import pandas as pd

    rng = np.random.default_rng(8)
    non = rng.normal(0, 1, 30_000)
    tar = rng.uniform(0.2, 0.21, 300)  # every target inside one sorted partition
    empty = pd.DataFrame({"score": np.empty(0), "label": np.empty(0, bool)})
    blocks = [empty, pd.DataFrame({"score": non[:20_000], "label": False}), empty,
              pd.DataFrame({"score": np.r_[non[20_000:], tar],
                            "label": np.r_[np.zeros(10_000, bool), np.ones(300, bool)]}),
              empty]
    frame = dd.from_delayed([dask.delayed(b) for b in blocks], meta=empty)
    a = analyze_dask(frame, plo=PLO, partition_rows=3_000)
    assert a.info["partitions"] >= 8
    lo, hi = a.info["divisions"][0], a.info["divisions"][-1]
    assert lo < 0.2 < 0.21 < hi
    m = analyze(tar, non, plo=PLO)
    assert_same(a, m)
