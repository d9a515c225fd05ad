"""The single-pass weighted analysis of integer weights (issue 20, item 2) against the plain
constructions: the general sort of (score, weight) pairs, the trials repeated by their weights,
and the code path of the previous implementation (the class arrays in file order).

Where the computation is the same the numbers are bitwise equal; against the repeated trials
(a different sum of the same terms) Cllr agrees to rounding and every count-based measure
exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import llrlab.core._parallel as parallel
import llrlab.core._sorting as sorting
import llrlab.core.trials as trials_mod
from llrlab.core import Trials, analyze
from llrlab.core.cllr import cllr

_VALUES = [-3.0, -1.0, -0.0, 0.0, 0.25, 1.0, 2.5, 1.0 + 2.0 ** -52, 7.0]
trial = st.tuples(st.sampled_from(_VALUES) | st.floats(-20, 20), st.booleans(),
                  st.integers(0, 10))
_GRID = np.linspace(-6.0, 6.0, 41)


def _fields(a):
    return (a.cllr, a.min_cllr, a.eer, a.prbep, a.act.dcf, a.min.dcf, a.act.p_miss,
            a.act.p_fa, a.min.p_miss, a.min.p_fa, a.blocks.llr, a.blocks.tar, a.blocks.non,
            a.dr30.plo_fa, a.dr30.plo_miss, a.dr30.dcf_fa, a.dr30.dcf_miss)


def _assert_same(a, b):
    for x, y in zip(_fields(a), _fields(b), strict=True):
        assert_array_equal(np.asarray(x), np.asarray(y))


def _split(x, lab, w):
    return x[lab], x[~lab], w[lab], w[~lab]


def _arrays(rows):
    """Scores, labels and integer weights of drawn trials (a draw without weight in a class
    is discarded)."""
    x = np.array([r[0] for r in rows])
    lab = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], dtype=np.int64)
    assume(w[lab].sum() > 0 and w[~lab].sum() > 0)
    return x, lab, w


@settings(max_examples=200, deadline=None)
@given(st.lists(trial, min_size=2, max_size=150))
def test_integer_weights_analyse_as_the_pairs_sort_bitwise(rows):
    x, lab, w = _arrays(rows)
    w = w.astype(np.float64)
    tar, non, tw, nw = _split(x, lab, w)
    t = Trials(x, lab, weights=w)
    got = analyze(t, plo=_GRID)
    # the arrays go through the general sort of (score, weight) pairs and Cllr in file order
    want = analyze(tar, non, tar_weights=tw, non_weights=nw, plo=_GRID)
    _assert_same(got, want)
    assert got.cllr == cllr(tar, non, tar_weights=tw, non_weights=nw)


@settings(max_examples=100, deadline=None)
@given(st.lists(trial, min_size=2, max_size=80))
def test_integer_weights_count_as_repeated_trials(rows):
    x, lab, w = _arrays(rows)
    got = analyze(Trials(x, lab, weights=w.astype(np.float64)), plo=_GRID)
    xr, lr = np.repeat(x, w), np.repeat(lab, w)
    want = analyze(xr[lr], xr[~lr], plo=_GRID)
    # every rate is a count over the repeated trials, exactly (integer sums)
    for f in ("p_miss", "p_fa", "dcf"):
        assert_array_equal(getattr(got.act, f), getattr(want.act, f))
    assert_array_equal(got.blocks.tar, want.blocks.tar)
    assert_array_equal(got.blocks.non, want.blocks.non)
    assert_array_equal(got.blocks.llr, want.blocks.llr)
    assert got.eer == want.eer
    assert_array_equal(got.min.dcf, want.min.dcf)
    # the same terms summed in another order
    assert got.cllr == pytest.approx(want.cllr, rel=1e-12, abs=1e-15)
    assert got.min_cllr == pytest.approx(want.min_cllr, rel=1e-12, abs=1e-15)


def test_analyse_takes_cllr_from_the_sorted_gathers():
    rng = np.random.default_rng(3)
    n = 50_000
    lab = rng.random(n) < 0.1
    x = np.where(lab, 2.0, -2.0) + rng.normal(size=n)
    w = rng.integers(0, 11, n).astype(np.float64)
    t = Trials(x, lab, weights=w)
    a = analyze(t)
    assert "cllr_parts" in t._cache  # the sort and Cllr came from one gather per class
    assert t.sorted().exact_cw
    assert a.cllr == cllr(x[lab], x[~lab], tar_weights=w[lab], non_weights=w[~lab])
    # the scores of the trials are untouched (the gathers were sorted, not the scores)
    assert_array_equal(t.scores, x)


def test_other_weights_keep_the_general_path():
    x = np.array([0.5, -1.0, 2.0, 0.0])
    lab = np.array([True, False, True, False])
    t = Trials(x, lab, weights=[0.5, 1.0, 2.0, 1.5])
    a = analyze(t)
    assert "cllr_parts" not in t._cache and not t.sorted().exact_cw
    assert a.cllr == cllr(x[lab], x[~lab], tar_weights=[0.5, 2.0], non_weights=[1.0, 1.5])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=200), st.booleans())
def test_exact_cumulative_weights_give_the_sums_from_the_top(ws, with_strata):
    w = np.array(ws, dtype=np.float64)
    if not w.sum() > 0:
        return
    x = np.arange(w.size, dtype=np.float64)
    strata = (np.arange(w.size) % 3) if with_strata else None
    s = sorting.presorted(x[:1], x, np.ones(1), w, None if strata is None else strata[:1],
                          strata, integer_weights=True)
    assert s.exact_cw
    plain = sorting.presorted(x[:1], x, np.ones(1), w)
    assert not plain.exact_cw
    # the reverse cumulative sum of the general path, bitwise
    assert_array_equal(s.non_cw_above, plain.non_cw_above)
    i = np.arange(w.size + 1)
    fresh = sorting.presorted(x[:1], x, np.ones(1), w, integer_weights=True)
    assert_array_equal(fresh.non_weight_from(i), plain.non_cw_above)
    t = np.concatenate([x - 0.5, x, [np.inf, -np.inf]])
    for a, b in zip(fresh.rates(t), plain.rates(t), strict=True):
        assert_array_equal(a, b)


def test_exact_cumulative_weights_need_sums_below_2_to_the_53():
    w = np.array([2.0 ** 52, 2.0 ** 52, 1.0])
    s = sorting.presorted(np.zeros(1), np.arange(3.0), np.ones(1), w, integer_weights=True)
    assert not s.exact_cw


def test_sorts_in_two_threads_give_the_sorts_of_one():
    rng = np.random.default_rng(5)
    n = parallel.PARALLEL_MIN + 1001
    x = rng.normal(size=n)
    x[::97] = x[1::97]  # ties
    codes = rng.integers(0, 11, n).astype(np.uint8)
    saved = parallel._WORKERS
    try:
        parallel.set_threads(2)
        xs2, c2 = sorting.cosort_codes(x, codes, 4)
        parallel.set_threads(1)
        xs1, c1 = sorting.cosort_codes(x, codes, 4)
    finally:
        parallel.set_threads(saved)
    assert_array_equal(xs1, xs2)
    assert_array_equal(c1, c2)
    order = np.lexsort((codes, x))
    assert_array_equal(xs1, x[order])
    assert_array_equal(c1, codes[order])


def test_run_pair_runs_both_and_raises_the_first_s_error():
    saved = parallel._WORKERS
    done = []
    try:
        for k in (1, 2):
            parallel.set_threads(k)
            assert parallel.run_pair(lambda: 1, lambda: 2) == (1, 2)

            def boom():
                raise ValueError("first")

            with pytest.raises(ValueError, match="first"):
                parallel.run_pair(boom, lambda k=k: done.append(k))
    finally:
        parallel.set_threads(saved)
    assert done == [2]  # in a pool thread, the first failed while the second ran


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=3000))
def test_first_positions_are_those_of_numpy_unique(values):
    v = np.array(values)
    _, codes = np.unique(v, return_inverse=True)
    codes = codes.ravel()
    u, first = np.unique(codes, return_index=True)
    assert_array_equal(trials_mod._first_positions(codes, u.size), first)


def test_a_digest_collision_falls_back_to_comparing():
    # two labels of two 8-byte words whose digests sum_j mult_j * word_j (mod 2**64) are
    # equal: the check against the first label of each digest finds it
    m = ((np.arange(1, 3, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
         | np.uint64(1))
    a = np.array([0x4142434445464748, 0x4142434445464748], dtype=np.uint64)
    with np.errstate(over="ignore"):
        b = np.array([a[0] + m[1], a[1] - m[0]], dtype=np.uint64)
        assert (a * m).sum() == (b * m).sum()
    labels = np.concatenate([a.view("S16"), b.view("S16"), a.view("S16")])
    assert labels[0] != labels[1]
    old = trials_mod._FACTORIZE_HASH
    trials_mod._FACTORIZE_HASH = 1
    try:
        rows = trials_mod._row_words(labels)
        assert trials_mod._hash_factorize(labels, None) is None  # the collision is seen
        names, codes = trials_mod.factorize(labels)
    finally:
        trials_mod._FACTORIZE_HASH = old
    assert rows.shape == (3, 2)
    want_names, want_codes = np.unique(labels, return_inverse=True)
    assert_array_equal(names, want_names)
    assert_array_equal(codes, want_codes.ravel())


def test_a_negative_denormal_score_keeps_its_weight():
    # -5e-324 with the largest code of its class was tagged -0.0 and read back as code 0
    # (hypothesis: rows=[(-3.0, False, 4), (-5e-324, True, 1)])
    t = Trials(np.array([-3.0, -5e-324]), np.array([False, True]), weights=np.array([4.0, 1.0]))
    s = analyze(t, plo=_GRID).sorted
    assert s.tar_w.tolist() == [1.0] and s.n_tar == 1.0
    x = np.array([-5e-324, -1e-323, 0.0, 2.0])
    assert sorting.cosort_codes(x, np.array([1, 1, 0, 1], dtype=np.uint8), 1) is None
