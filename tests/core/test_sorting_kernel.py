"""The private sort kernel (``llrlab.core._sorting``): its fast paths against the plain
constructions they replace, on data with many ties."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from llrlab.core import Trials, analyze
from llrlab.core._sorting import _elementary_bounds, _run_starts, _sort_with_weights

# few distinct values, so that runs of ties are common; infinities are legitimate LLRs
values = st.sampled_from([-np.inf, -2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf])
sorted_scores = st.lists(values, min_size=1, max_size=40).map(lambda v: np.sort(np.array(v)))


def _bounds_by_unique(tar, non):
    """``_elementary_bounds`` as first written, with ``numpy.unique`` (the reference)."""
    T, N = tar.size, non.size
    if T <= N:
        v = np.unique(tar)
        tb = np.concatenate([[0], np.searchsorted(tar, v, side="left"), [T]])
        nb = np.concatenate([[0], np.searchsorted(non, v, side="left"), [N]])
        lower = np.concatenate([[non[0]], v])
        upper = np.where(nb[1:] > nb[:-1], non[np.maximum(nb[1:] - 1, 0)], lower)
    else:
        w = np.unique(non)
        tb = np.concatenate([[0], np.searchsorted(tar, w, side="right"), [T]])
        nb = np.concatenate([np.searchsorted(non, w, side="left"), [N, N]])
        upper = np.concatenate([w, [tar[-1]]])
        lower = np.where(tb[1:] > tb[:-1], tar[np.minimum(tb[:-1], T - 1)], upper)
    return tb, nb, lower, upper


@settings(max_examples=300, deadline=None)
@given(sorted_scores, sorted_scores)
def test_elementary_bounds_equal_the_unique_construction(tar, non):
    got = _elementary_bounds(tar, non)
    want = _bounds_by_unique(tar, non)
    for g, w in zip(got, want, strict=True):
        assert_array_equal(g, w)
        assert g.dtype.kind == w.dtype.kind


@given(sorted_scores)
def test_run_starts_are_the_searchsorted_of_the_unique_values(x):
    first = _run_starts(x)
    assert_array_equal(x[first], np.unique(x))
    assert_array_equal(first, np.searchsorted(x, np.unique(x), side="left"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(values, st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0])),
                min_size=1, max_size=50))
def test_weighted_sort_pairs_each_score_with_its_own_weight(pairs):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    xs, cw, ws, none = _sort_with_weights(x, w)
    assert none is None
    assert_array_equal(xs, np.sort(x))
    # with strata (condition codes): the same order, each code with its own pair
    codes = np.arange(x.size) % 3
    xs2, cw2, ws2, cs = _sort_with_weights(x, w, codes)
    assert_array_equal(xs2, xs) and assert_array_equal(ws2, ws) and assert_array_equal(cw2, cw)
    assert sorted(zip(x.tolist(), w.tolist(), codes.tolist(), strict=True)) == sorted(
        zip(xs2.tolist(), ws2.tolist(), cs.tolist(), strict=True))
    # the same (score, weight) pairs, ordered by score and then by weight
    assert sorted(zip(xs.tolist(), ws.tolist(), strict=True)) == list(
        zip(xs.tolist(), ws.tolist(), strict=True))
    assert sorted(zip(x.tolist(), w.tolist(), strict=True)) == list(
        zip(xs.tolist(), ws.tolist(), strict=True))
    assert cw[0] == 0.0 and cw.size == x.size + 1
    assert_array_equal(cw[1:], np.cumsum(ws))
    assert xs.flags.c_contiguous and ws.flags.c_contiguous


def test_weighted_measures_do_not_depend_on_the_order_of_the_trials():
    # ties between trials of different weight: the pair sort orders them canonically, so a
    # shuffled copy of the trials gives bitwise the same weighted measures
    rng = np.random.default_rng(5)
    n = 3000
    lab = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n) + lab, 1)
    w = rng.choice([0.3, 1.0, 2.7], n)
    a = analyze(Trials(s, lab, weights=w))
    p = rng.permutation(n)
    b = analyze(Trials(s[p], lab[p], weights=w[p]))
    for k in ("eer", "min_cllr", "prbep"):
        assert getattr(a, k) == getattr(b, k), k
    assert_array_equal(a.min.dcf, b.min.dcf)
    assert_array_equal(a.act.dcf, b.act.dcf)


scored = st.lists(st.tuples(values, st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0])), max_size=30)


@settings(max_examples=300, deadline=None)
@given(scored, scored, values, values)
def test_trials_of_weight_zero_take_no_part_in_pav(tar, non, t1, n1):
    """docs/conventions.md, "Trials of weight 0": the PAV blocks (ROCCH, its vertex
    thresholds) are those of the trials of positive weight, whichever class has more trials;
    the counts at the thresholds count every trial."""
    tar, non = [(t1, 1.0), *tar], [(n1, 1.0), *non]  # some weight in each class
    ts, tw = (np.array(c) for c in zip(*tar, strict=True))
    ns, nw = (np.array(c) for c in zip(*non, strict=True))
    a = analyze(ts, ns, tar_weights=tw, non_weights=nw, plo=np.linspace(-5, 5, 41))
    b = analyze(ts[tw > 0], ns[nw > 0], tar_weights=tw[tw > 0], non_weights=nw[nw > 0],
                plo=a.plo)
    for f in ("lower", "upper", "tar", "non", "llr"):
        assert_array_equal(getattr(a.blocks, f), getattr(b.blocks, f), err_msg=f)
    assert_array_equal(a.min.dcf, b.min.dcf)
    assert_array_equal(a.min.threshold, b.min.threshold)
    thr = a.min.threshold[:, None]
    assert_array_equal(a.min.misses, np.sum(ts < thr, axis=1))
    assert_array_equal(a.min.false_alarms, np.sum(ns >= thr, axis=1))
    assert (a.eer, a.min_cllr, a.prbep) == (b.eer, b.min_cllr, b.prbep)
