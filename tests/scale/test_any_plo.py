"""``DaskAnalysis.at`` and ``curves`` are exact at every operating point, not only on a grid:
random data (ties or not, unweighted, weighted or with trials of weight 0), random input
chunks, random sorted partitions and random prior log-odds (among them those of the usual
p_target values) give the numbers of the in-memory ``analyze`` to 1e-12, and the same
trial counts and thresholds; those agree with a brute-force sweep over every threshold."""

from __future__ import annotations

import gc
import math
import os

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.core import analyze, operating_point_grid
from llrlab.core.op_grid import grid_plo
from llrlab.core.operating_point import plo_from_costs
from llrlab.core.scale import analyze_dask
from llrlab.core.scale._counts import NotTabulated
from llrlab.core.scale._store import Released

RTOL = 1e-12


def _logit(p):
    return math.log(p / (1 - p))


#: The operating points users type most: p_target 0.01, 0.001, 0.05, and with costs.
TYPICAL = [_logit(0.01), _logit(0.001), _logit(0.05), float(plo_from_costs(0.01, 10, 1)),
           float(plo_from_costs(0.001, 1, 10))]


def _brute(tar, non, tw, nw, plo):
    """Actual and minimum normalized DCF from the definitions (docs/conventions.md): counts
    at the Bayes threshold, and the minimum over every threshold between distinct scores."""
    tw = np.ones(tar.size) if tw is None else tw
    nw = np.ones(non.size) if nw is None else nw
    T, N = tw.sum(), nw.sum()

    def dcf(t):
        p_miss, p_fa = tw[tar < t].sum() / T, nw[non >= t].sum() / N
        return (p_miss + math.exp(-plo) * p_fa if plo < 0
                else math.exp(plo) * p_miss + p_fa)

    thresholds = np.append(np.unique(np.concatenate([tar, non])), np.inf)
    return dcf(-plo), min(dcf(t) for t in thresholds)


def _brute_min_vertex(tar, non, tw, nw, op):
    """The minimum-DCF threshold ``t`` and its counts from the definitions
    (docs/conventions.md, "Trials of weight 0"): ``t`` is a score of positive weight (or
    ``+inf``), the largest threshold with its error rates (a trial of positive weight is
    rejected just above it), and the counts are numbers of trials (of weight 0 too)."""
    tw = np.ones(tar.size) if tw is None else tw
    nw = np.ones(non.size) if nw is None else nw
    t = float(op.min.threshold)
    assert t == np.inf or t in np.concatenate([tar[tw > 0], non[nw > 0]])
    if t < np.inf:
        up = np.nextafter(t, np.inf)
        assert tw[(tar >= t) & (tar < up)].sum() + nw[(non >= t) & (non < up)].sum() > 0
    p_miss, p_fa = tw[tar < t].sum() / tw.sum(), nw[non >= t].sum() / nw.sum()
    np.testing.assert_allclose([op.min.p_miss, op.min.p_fa], [p_miss, p_fa], rtol=RTOL,
                               atol=1e-15)
    assert (int(op.min.misses), int(op.min.false_alarms)) == (int(np.sum(tar < t)),
                                                             int(np.sum(non >= t)))
    assert (int(op.act.misses), int(op.act.false_alarms)) == (int(np.sum(tar < -op.plo)),
                                                             int(np.sum(non >= -op.plo)))
    # DR30 (docs/conventions.md): safe where both counts at the minimizing threshold are >= 30
    assert op.dr30_safe == (op.min.misses >= 30 and op.min.false_alarms >= 30)


def _same_op(a, b):
    assert a.plo == b.plo
    np.testing.assert_allclose([a.act_dcf, a.min_dcf, a.act.p_miss, a.act.p_fa,
                                a.min.p_miss, a.min.p_fa],
                               [b.act_dcf, b.min_dcf, b.act.p_miss, b.act.p_fa,
                                b.min.p_miss, b.min.p_fa], rtol=RTOL, atol=1e-300)
    assert (int(a.act.misses), int(a.act.false_alarms)) == (int(b.act.misses),
                                                           int(b.act.false_alarms))
    assert (int(a.min.misses), int(a.min.false_alarms)) == (int(b.min.misses),
                                                           int(b.min.false_alarms))
    assert a.dr30_safe == b.dr30_safe
    assert float(a.min.threshold) == float(b.min.threshold)


@st.composite
def cases(draw):
    """Scores (integer-valued with many ties, or continuous), no weights, positive weights or
    weights with zeros, input chunk sizes, rows per sorted partition, and prior log-odds:
    the typical ones, random ones, and ones whose Bayes threshold is a score or the next
    float after it."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_tar, n_non = draw(st.integers(1, 80)), draw(st.integers(1, 300))
    if draw(st.booleans()):
        tar = rng.integers(-4, 7, n_tar).astype(np.float64)
        non = rng.integers(-6, 5, n_non).astype(np.float64)
    else:
        tar, non = rng.normal(1.5, 1.5, n_tar), rng.normal(-1.0, 1.5, n_non)
    tw = nw = None
    weights = draw(st.sampled_from(["none", "positive", "zeros"]))
    if weights == "positive":
        tw = rng.choice([0.5, 1.0, 3.0], n_tar)
        nw = rng.choice([0.25, 1.0, 2.0], n_non)
    elif weights == "zeros":  # trials of weight 0 (some weight in each class)
        tw = rng.choice([0.0, 0.5, 1.0, 3.0], n_tar)
        nw = rng.choice([0.0, 0.0, 0.25, 1.0, 2.0], n_non)
        tw[rng.integers(n_tar)] = 1.0
        nw[rng.integers(n_non)] = 1.0
    chunks = (draw(st.integers(1, n_tar)), draw(st.integers(1, n_non)))
    rows = draw(st.integers(4, 400))
    both = np.concatenate([tar, non])
    on_score = -float(rng.choice(both))
    plo = [*TYPICAL, *rng.uniform(-8, 8, 3).tolist(), on_score,
           float(np.nextafter(on_score, -np.inf))]
    return tar, non, tw, nw, chunks, rows, plo


def _dask(tar, non, tw, nw, chunks, rows, **kw):
    ct, cn = chunks
    return analyze_dask(da.from_array(tar, chunks=ct), da.from_array(non, chunks=cn),
                        tar_weights=None if tw is None else da.from_array(tw, chunks=ct),
                        non_weights=None if nw is None else da.from_array(nw, chunks=cn),
                        partition_rows=rows, **kw)


@settings(max_examples=40, deadline=None)
@given(cases())
def test_at_any_plo_equals_in_memory_and_brute_force(case):
    tar, non, tw, nw, chunks, rows, plo = case
    m = analyze(tar, non, tar_weights=tw, non_weights=nw)
    d = _dask(tar, non, tw, nw, chunks, rows)
    for x in plo:
        a = d.at(x)
        _same_op(a, m.at(x))
        np.testing.assert_allclose([a.act_dcf, a.min_dcf], _brute(tar, non, tw, nw, x),
                                   rtol=RTOL, atol=1e-15)
        _brute_min_vertex(tar, non, tw, nw, a)
    np.testing.assert_array_equal(d.blocks.lower, m.blocks.lower)
    np.testing.assert_array_equal(d.blocks.upper, m.blocks.upper)
    assert (d.dr30.plo_fa, d.dr30.plo_miss) == (m.dr30.plo_fa, m.dr30.plo_miss)
    for x, y in zip(d.curves(plo), m.curves(plo), strict=True):
        np.testing.assert_array_equal(x.plo, y.plo)
        np.testing.assert_allclose(x.dcf, y.dcf, rtol=RTOL)
        np.testing.assert_array_equal(x.misses, y.misses)
        np.testing.assert_array_equal(x.false_alarms, y.false_alarms)


@pytest.fixture(scope="module")
def continuous():
    rng = np.random.default_rng(21)
    return rng.normal(2.0, 1.0, 4_000), rng.normal(0.0, 1.0, 40_000)


def test_unweighted_counts_at_any_plo_are_bit_exact(continuous):
    tar, non = continuous
    m = analyze(tar, non)
    d = _dask(tar, non, None, None, (1_000, 7_000), 9_000)
    assert d.info["partitions"] >= 4
    plo = np.random.default_rng(3).uniform(-7, 7, 300)
    assert not d.sorted.covers(-plo).all()  # most are looked up in the partitions
    for x in [*TYPICAL, *plo.tolist()]:
        a, b = d.at(x), m.at(x)
        assert (a.act_dcf, a.min_dcf, a.dr30_safe) == (b.act_dcf, b.min_dcf, b.dr30_safe)


def test_the_report_grid_is_tabulated_and_op_grid_equals_in_memory(continuous):
    tar, non = continuous
    m = analyze(tar, non)
    d = _dask(tar, non, None, None, (1_000, 7_000), 9_000)
    assert d.sorted.covers(-grid_plo()).all()
    g0, h0 = operating_point_grid(d, include=TYPICAL), operating_point_grid(m, include=TYPICAL)
    d.release()  # no partition is searched for the grid: the table answers it
    g, h = operating_point_grid(d), operating_point_grid(m)
    for f in ("plo", "misses", "false_alarms", "vertex"):
        np.testing.assert_array_equal(getattr(g0, f), getattr(h0, f), err_msg=f)
    for f in ("plo", "misses", "false_alarms", "p_miss", "p_fa", "vertex_p_miss",
              "vertex_p_fa", "vertex_misses", "vertex_false_alarms", "dr30_safe"):
        np.testing.assert_array_equal(getattr(g, f), getattr(h, f), err_msg=f)


def test_release_deletes_the_sorted_partitions(continuous):
    tar, non = continuous
    d = _dask(tar[:500], non[:5_000], None, None, (100, 1_000), 1_500)
    folder = d.sorted.store.folder
    assert d.info["sorted"] == f"kept on disk in {folder}"
    assert any(f.endswith(".npy") for f in os.listdir(folder))
    at_score = [-float(tar[7]), -float(non[11])]  # thresholds on scores: never tabulated
    assert not d.sorted.covers([-x for x in at_score]).any()
    d.at(at_score[0])
    d.release()
    assert not os.path.exists(folder)
    d.at(0.0)  # tabulated: still answered
    d.at(at_score[0])  # looked up before: remembered
    with pytest.raises(Released, match="were released"):
        d.at(at_score[1])
    e = _dask(tar[:500], non[:5_000], None, None, (100, 1_000), 1_500)
    folder = e.sorted.store.folder
    del e
    gc.collect()
    assert not os.path.exists(folder)  # with the analysis


def test_without_kept_partitions_an_untabulated_plo_is_refused(continuous):
    tar, non = continuous
    m = analyze(tar, non)
    d = _dask(tar, non, None, None, (1_000, 7_000), 9_000, plo=[TYPICAL[0]],
              keep_sorted=False)
    assert d.info["sorted"] == "not kept" and d.sorted.store is None
    _same_op(d.at(TYPICAL[0]), m.at(TYPICAL[0]))
    _same_op(d.at(-1.0), m.at(-1.0))  # on the report's grid
    with pytest.raises(NotTabulated, match="keep_sorted=False"):
        d.at(-float(tar[0]))


def test_weighted_counts_on_the_cluster_at_any_plo(continuous, cluster_client):
    tar, non = continuous[0][:3_000], continuous[1][:20_000]
    rng = np.random.default_rng(5)
    tw, nw = rng.choice([0.5, 1.0, 3.0], tar.size), rng.choice([0.25, 1.0, 2.0], non.size)
    m = analyze(tar, non, tar_weights=tw, non_weights=nw)
    d = _dask(tar, non, tw, nw, (800, 6_000), 12_000, client=cluster_client)
    assert d.info["sorted"] == "kept on the cluster's workers"
    for x in [*TYPICAL, *rng.uniform(-6, 6, 20).tolist()]:
        _same_op(d.at(x), m.at(x))
    d.release()
    with pytest.raises(Released):
        d.at(-float(tar[0]))


def test_zero_weight_trials_at_the_min_dcf_vertex():
    """A target of weight 0 between the non-target and the other target: the vertex that
    accepts both targets is the one whose threshold is the target of positive weight (1.69),
    in memory (where it was the target of weight 0 when the targets outnumber the
    non-targets) and on Dask alike; the target of weight 0 below it is a miss."""
    tar, non = np.array([1.68859533, 1.30184271]), np.array([-0.03936602])
    tw, nw = np.array([1.0, 0.0]), np.array([1.0])
    m = analyze(tar, non, tar_weights=tw, non_weights=nw)
    d = _dask(tar, non, tw, nw, (1, 1), 100)
    for r in (m, d):
        np.testing.assert_array_equal(r.blocks.lower, [-0.03936602, 1.68859533])
        op = r.at(0.0)
        assert (op.min_dcf, float(op.min.threshold)) == (0.0, 1.68859533)
        assert (int(op.min.misses), int(op.min.false_alarms)) == (1, 0)
        _brute_min_vertex(tar, non, tw, nw, op)
    # the same with more non-targets than targets (the other construction of the blocks)
    non2, nw2 = np.array([-0.03936602, -5.0, -6.0]), np.array([1.0, 0.0, 0.0])
    m2 = analyze(tar, non2, tar_weights=tw, non_weights=nw2)
    np.testing.assert_array_equal(m2.blocks.lower, m.blocks.lower)
    _same_op(m2.at(0.0), m.at(0.0))
