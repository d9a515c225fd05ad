"""The per-partition kernel alone (no Dask): any cut of sorted trials into partitions --
through runs of tied scores, with empty partitions, with a class inside one partition --
merges into the in-memory PAV blocks and exact counts."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.core._sorting import pooled_blocks, sort_scores
from llrlab.core.scale import _kernel


def _cut(scores, labels, weights, cuts):
    order = np.argsort(scores, kind="stable")
    s, lab = scores[order], labels[order]
    w = None if weights is None else weights[order]
    bounds = np.concatenate([[0], np.sort(cuts), [s.size]])
    return [(s[a:b], lab[a:b], None if w is None else w[a:b])
            for a, b in itertools.pairwise(bounds)]


def _draw_tied(data, n_min, n_max, span, max_cuts):
    """``(n, scores, labels, cuts)`` drawn by hypothesis: ``n`` in [n_min, n_max] trials
    with integer scores in [-span, span] (many ties), random labels, and up to ``max_cuts``
    partition cuts in [0, n] (repeats give empty partitions)."""
    n = data.draw(st.integers(n_min, n_max))
    scores = np.array(data.draw(st.lists(st.integers(-span, span), min_size=n, max_size=n)),
                      dtype=np.float64)
    labels = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    cuts = np.array(data.draw(st.lists(st.integers(0, n), max_size=max_cuts)), dtype=np.int64)
    return n, scores, labels, cuts


def _merged(parts, table):
    sums = [_kernel.summarize(s, lab, w, table=table) for s, lab, w in parts]
    n_tar = sum(x.weight_tar for x in sums)
    n_non = sum(x.weight_non for x in sums)
    return sums, _kernel.merge_blocks(sums, n_tar, n_non)


def _check(scores, labels, weights, cuts):
    table = np.unique(np.concatenate([scores, scores + 0.25, [-9.0, 9.0]]))
    parts = _cut(scores, labels, weights, cuts)
    sums, (blocks, below_t, below_n, _, _) = _merged(parts, table)
    tw = None if weights is None else weights[labels]
    nw = None if weights is None else weights[~labels]
    s = sort_scores(scores[labels], scores[~labels], tar_weights=tw, non_weights=nw)
    ref = pooled_blocks(s)
    np.testing.assert_array_equal(blocks.lower, ref.lower)
    np.testing.assert_array_equal(blocks.upper, ref.upper)
    np.testing.assert_allclose(blocks.tar, ref.tar, rtol=1e-12)
    np.testing.assert_allclose(blocks.non, ref.non, rtol=1e-12)
    np.testing.assert_allclose(blocks.llr, ref.llr, rtol=1e-12)
    m, f = s.miss_fa_counts(blocks.lower)
    np.testing.assert_array_equal(below_t, m)
    np.testing.assert_array_equal(s.count_non - below_n, f)
    c_t, c_n, w_t, w_n = _kernel.merge_counts(sums, table, lambda x: x.table)
    m, f = s.miss_fa_counts(table)
    np.testing.assert_array_equal(c_t, m)
    np.testing.assert_array_equal(s.count_non - c_n, f)
    p_m, p_f = s.rates(table)
    np.testing.assert_allclose(w_t / s.n_tar, p_m, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.where(c_n == 0, 1.0, w_n / s.n_non), p_f, rtol=1e-12,
                               atol=1e-15)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_cut_of_tied_scores_merges_to_the_in_memory_pav(data):
    n, scores, labels, cuts = _draw_tied(data, 2, 60, 4, 6)
    labels[0], labels[-1] = True, False  # both classes present
    weighted = data.draw(st.booleans())
    weights = None
    if weighted:
        weights = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]),
                                              min_size=n, max_size=n)))
    _check(scores, labels, weights, cuts)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_cut_with_trials_of_weight_zero_merges_to_the_in_memory_pav(data):
    """Trials of weight 0 anywhere (at the ends, in runs of ties, whole partitions of them):
    the blocks are those of the trials of positive weight, in memory and merged alike, and
    the counts below each block count every trial."""
    n, scores, labels, cuts = _draw_tied(data, 2, 60, 4, 6)
    labels[0], labels[-1] = True, False
    weights = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0]),
                                          min_size=n, max_size=n)))
    weights[0] = weights[-1] = 1.0  # some weight in each class
    _check(scores, labels, weights, cuts)
    pos = weights > 0
    ref = pooled_blocks(sort_scores(scores[labels & pos], scores[~labels & pos],
                                    tar_weights=weights[labels & pos],
                                    non_weights=weights[~labels & pos]))
    _, (blocks, *_) = _merged(_cut(scores, labels, weights, cuts), np.empty(0))
    np.testing.assert_array_equal(blocks.lower, ref.lower)
    np.testing.assert_array_equal(blocks.upper, ref.upper)


def test_zero_weight_trials_below_a_partitions_first_block_are_counted_below_it():
    # the second partition (1, 3, 4, 5) holds a non-target of weight 0 at 3 below its first
    # block of positive weight (the target at 4, a ROCCH vertex): the number of non-targets
    # below 4 counts it
    scores = np.array([0.0, 0.0, 1.0, 3.0, 4.0, 5.0])
    labels = np.array([1, 0, 0, 0, 1, 0], dtype=bool)
    weights = np.array([1.0, 1.0, 1.0, 0.0, 1.0, 1.0])
    _check(scores, labels, weights, np.array([2]))


def test_ties_spanning_several_partitions_and_empty_partitions():
    # value 1.0 is split over three partitions (one made only of it), two partitions empty
    scores = np.array([0.0, 0.5, 1, 1, 1, 1, 1, 1, 1, 2.0, 3.0, 3.0])
    labels = np.array([0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1], dtype=bool)
    _check(scores, labels, None, np.array([0, 3, 3, 5, 7, 12]))


def test_a_class_inside_one_partition():
    rng = np.random.default_rng(4)
    non = rng.normal(0, 1, 500)
    tar = rng.uniform(0.1, 0.2, 40)  # every target falls in one partition
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(40, bool), np.zeros(500, bool)])
    order = np.sort(scores)
    cuts = np.searchsorted(order, [-1.0, 0.0, 0.05, 0.3, 1.0])
    _check(scores, labels, None, cuts)


def test_an_empty_partition_summary_is_neutral():
    s = _kernel.summarize(np.empty(0), np.empty(0, bool), table=np.array([0.0]))
    assert s.count_tar == s.count_non == 0
    assert s.blocks["lower"].size == 0


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_counts_at_the_dr30_scores_with_ties_cut_by_partitions(data):
    from llrlab.core.scale.analysis import _count_at, _extremes

    _, scores, labels, cuts = _draw_tied(data, 70, 160, 3, 8)
    labels[:35], labels[-35:] = True, False  # at least 30 of each class
    sums = [_kernel.summarize(s, lab, w) for s, lab, w in _cut(scores, labels, None, cuts)]
    v, w = _extremes(sums)
    tar, non = np.sort(scores[labels]), np.sort(scores[~labels])
    assert v == tar[29] and w == non[non.size - 30]
    t = np.nextafter(v, np.inf)
    got = _count_at(sums, t, lambda s: s.low_tar, lambda s: s.low_tar_q, "after")
    assert got[:2] == (np.sum(tar < t), np.sum(non < t))
    got = _count_at(sums, w, lambda s: s.high_non, lambda s: s.high_non_q, "at")
    assert got[:2] == (np.sum(tar < w), np.sum(non < w))
    assert got[3] == np.sum(non >= w)
