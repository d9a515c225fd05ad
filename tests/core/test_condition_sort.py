"""The shared sort of (score, condition) pairs (Trials.condition_sorted) from which condition
pools, single conditions and every condition weighting take their sort without sorting again:
their measures must equal those of the same trials sorted afresh."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from llrlab.core import Trials, analyze
from llrlab.core._sorting import sort_scores
from llrlab.core.conditions import _equal, condition_subset, condition_weights

_COUNTING = ("n_tar", "n_non", "eer", "min_cllr", "act_dcf", "min_dcf", "prbep")


def _trials(seed, n=400, k=4, ties=True):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.3
    labels[:k] = True
    labels[k:2 * k] = False
    cond = np.concatenate([np.arange(k), np.arange(k), rng.integers(0, k, n - 2 * k)])
    s = rng.normal(size=n) + 1.5 * labels + 0.3 * cond
    if ties:
        s = np.round(s, 1)  # many ties, across conditions and classes
    return Trials(s, labels, conditions=np.array([f"c{c}" for c in cond]))


def _fresh(t):
    """The same trials with nothing cached (sorted afresh when analysed)."""
    return Trials(t.scores.copy(), t.labels.copy(),
                  None if t.weights is None else t.weights.copy())


def _same(a, b, cllr_rel=0.0):
    sa, sb = a.summary(0.05), b.summary(0.05)
    for k in _COUNTING:
        assert sa[k] == sb[k], k
    assert_array_equal(a.act.dcf, b.act.dcf)
    assert_array_equal(a.min.dcf, b.min.dcf)
    assert sa["cllr"] == pytest.approx(sb["cllr"], rel=cllr_rel, abs=0)


def test_condition_sorted_is_each_class_sorted_with_its_conditions():
    t = Trials([3.0, 1.0, 2.0, 1.0, 0.5, 2.0], [1, 1, 0, 0, 1, 0],
               conditions=["b", "a", "a", "b", "b", "a"])
    tar, tar_c, non, non_c = t.condition_sorted()
    assert tar.tolist() == [0.5, 1.0, 3.0] and tar_c.tolist() == [1, 0, 1]
    assert non.tolist() == [1.0, 2.0, 2.0] and non_c.tolist() == [1, 0, 0]
    assert Trials([1.0, 0.0], [1, 0]).condition_sorted() is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ties=st.booleans())
def test_the_plain_pool_takes_its_sort_from_the_shared_one(seed, ties):
    t = _trials(seed, ties=ties)
    t.condition_sorted()
    s, ref = t.sorted(), sort_scores(t.tar, t.non)
    assert_array_equal(s.tar, ref.tar)
    assert_array_equal(s.non, ref.non)
    _same(analyze(t), analyze(_fresh(t)))  # Cllr too: summed in file order as before


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ties=st.booleans(),
       weights=st.sampled_from(["equal", "custom", "select"]))
@example(seed=207886, ties=False, weights="select")  # c1 and c3 of equal sizes
def test_a_weighted_pool_equals_the_same_weights_sorted_afresh(seed, ties, weights):
    t = _trials(seed, ties=ties)
    t.condition_sorted()
    if weights == "custom":
        cw = condition_weights(t, {"c0": 3.0, "c1": 0.5, "c2": 0.0, "c3": 1.0})
    elif weights == "select":
        cw = condition_weights(t, "equal", select=["c1", "c3"])
    else:
        cw = condition_weights(t, "equal")
    # two selected conditions of equal sizes give one beta per class: nothing to re-weight
    # (a constant beta changes no measure), which the pool must say rather than re-weight
    same_beta = _equal(cw.beta_tar) and _equal(cw.beta_non)
    assert cw.reweighted != same_beta
    assert "sorted" in cw.trials._cache  # taken from the shared sort, not sorted again
    got, ref = analyze(cw.trials), analyze(_fresh(cw.trials))
    # weights summed in another order inside runs of tied scores: last bits only
    for k in _COUNTING:
        assert got.summary(0.05)[k] == pytest.approx(ref.summary(0.05)[k], rel=1e-14,
                                                     abs=1e-15), k
    np.testing.assert_allclose(got.act.dcf, ref.act.dcf, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(got.min.dcf, ref.min.dcf, rtol=1e-14, atol=1e-15)
    # Cllr from the per-condition sums of log-losses
    assert got.cllr == pytest.approx(ref.cllr, rel=1e-13)


def test_every_later_weighting_reuses_the_sort(monkeypatch):
    t = _trials(7, n=2000)
    analyze(condition_weights(t, "equal").trials)
    import llrlab.core._sorting as sorting

    def refuse(*a, **k):
        raise AssertionError("sorted again")

    monkeypatch.setattr(sorting, "_sort_with_weights", refuse)
    monkeypatch.setattr(sorting, "sort_scores", refuse)
    for w in ({"c0": 2.0, "c1": 1.0, "c2": 1.0, "c3": 1.0}, "pooled"):
        analyze(condition_weights(t, w).trials)
    analyze(condition_weights(t, "pooled", select=["c2"]).trials)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_one_condition_equals_its_subset_sorted_afresh(k):
    t = _trials(3, ties=True)
    t.condition_sorted()
    _, inv = t.condition_index()
    sub = condition_subset(t, k)
    assert "sorted" in sub._cache
    _same(analyze(sub), analyze(_fresh(t.subset(inv == k))))


def test_weighted_trials_keep_their_own_sort():
    t = _trials(5)
    w = Trials(t.scores, t.labels, np.linspace(0.5, 2.0, len(t)), conditions=t.conditions)
    cw = condition_weights(w, "equal")
    np.testing.assert_allclose(analyze(cw.trials).cllr, analyze(_fresh(cw.trials)).cllr,
                               rtol=0, atol=0)
