"""Many condition names: the page lists the 50 largest plus one entry for the others, and
offering them on the event loop costs a few dozen items whatever the file holds (a file
with 10^6 condition names froze the server: the picker's ListSelector checked 10^6 values
against 10^6 objects on the event loop that serves every session)."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import Trials, analyze
from llrlab.core.conditions import condition_weights
from llrlab.dashboard.compute.conditions import MAX_LISTED, ConditionMenu, condition_menu
from llrlab.dashboard.state import DashboardState

#: Distinct conditions of the test data: 60 big ones (sizes 200..259 trials), then many of
#: two trials (one target, one non-target).
N_BIG, N_SMALL = 60, 20_000


def many_conditions(seed=0):
    rng = np.random.default_rng(seed)
    names, labels = [], []
    for i in range(N_BIG):  # big conditions: c00000 .. c00059, i + 200 trials each
        n = 200 + i
        names += [f"big{i:05d}"] * n
        labels += [True] * (n // 2) + [False] * (n - n // 2)
    for i in range(N_SMALL):
        names += [f"small{i:06d}"] * 2
        labels += [True, False]
    labels = np.array(labels)
    scores = np.where(labels, rng.normal(2, 1.5, len(labels)), rng.normal(-2, 1.5, len(labels)))
    return Trials(scores, labels, conditions=np.array(names), source="many.txt")


@pytest.fixture(scope="module")
def trials():
    return many_conditions()


@pytest.fixture
def state(trials):
    st = DashboardState()
    st.data.set_trials("many", "eval", trials)
    assert st.status.error == ""
    return st


def test_the_menu_lists_the_largest_and_counts_the_others(trials):
    menu = condition_menu([trials])
    assert len(menu.listed) == MAX_LISTED and list(menu.listed) == sorted(menu.listed)
    # the 50 largest: big00010 .. big00059
    assert menu.listed == tuple(f"big{i:05d}" for i in range(N_BIG - MAX_LISTED, N_BIG))
    assert menu.n_others == N_BIG - MAX_LISTED + N_SMALL
    assert menu.others_trials == sum(200 + i for i in range(N_BIG - MAX_LISTED)) + 2 * N_SMALL
    assert menu.capped and menu.others_label == f"({menu.n_others:,} other conditions)"
    # a label no listed condition has, even if a condition is named like it
    t = Trials([1.0, -1.0, 2.0, -2.0, 0.5, -0.5], [1, 0, 1, 0, 1, 0],
               conditions=["(1 other condition)"] * 4 + ["x", "x"])
    m = condition_menu([t], limit=1)
    assert m.listed == ("(1 other condition)",) and m.others_label == "((1 other condition))"
    assert condition_menu([t], limit=2) == ConditionMenu(("(1 other condition)", "x"))


def test_the_page_offers_fifty_one_entries(state, trials):
    cond = state.conditions
    assert len(cond.available) == MAX_LISTED
    assert len(cond.param.selected.objects) == MAX_LISTED + 1
    assert cond.param.selected.objects[-1] == cond.others
    assert cond.selected == cond.param.selected.objects  # all pooled
    assert cond.n_others == N_BIG - MAX_LISTED + N_SMALL
    # the custom weights start with the listed names only (a short text, not 20,000 names)
    assert cond.custom_weights.count("=1") == MAX_LISTED
    assert "20,010 other conditions" in cond.note()
    spec = cond.spec()
    assert spec.select is None and spec.exclude == () and spec.capped
    # every trial pooled: the plain pool of all trials
    assert state.op["eval"].act_dcf == analyze(trials).at(state.point.plo).act_dcf


def test_leaving_out_the_others_pools_the_listed_conditions(state, trials):
    cond = state.conditions
    cond.selected = list(cond.available)
    assert state.status.error == ""
    spec = state.results.condition_spec
    assert spec.select == tuple(cond.available)
    keep = np.isin(trials.conditions, cond.available)
    assert state.results.datasets["eval"].llr.n_tar == int(trials.labels[keep].sum())


def test_leaving_out_one_listed_condition_keeps_the_others(state, trials):
    cond = state.conditions
    cond.selected = [c for c in cond.param.selected.objects if c != "big00059"]
    assert state.status.error == ""
    spec = state.results.condition_spec
    assert spec.select is None and spec.exclude == ("big00059",)
    keep = trials.conditions != "big00059"
    assert state.results.datasets["eval"].llr.n_tar == int(trials.labels[keep].sum())
    assert "all conditions but big00059" in state.export.weighting_text()


def test_custom_weights_give_zero_to_conditions_they_do_not_name(state, trials):
    cond = state.conditions
    cond.param.update(weighting="custom", custom_weights="big00059=2, big00058=1")
    assert state.status.error == ""
    expected = condition_weights(trials, {"big00059": 2.0, "big00058": 1.0},
                                 select=["big00058", "big00059"])
    got = state.results.datasets["eval"].llr
    want = analyze(expected.trials)
    assert got.at(state.point.plo).act_dcf == pytest.approx(
        want.at(state.point.plo).act_dcf, rel=1e-12)


def test_a_few_conditions_are_all_listed():
    t = Trials([1.0, -1.0, 2.0, -2.0], [1, 0, 1, 0], conditions=["b", "b", "a", "a"])
    st = DashboardState()
    st.data.set_trials("s", "eval", t)
    assert st.conditions.available == ["a", "b"] and st.conditions.others == ""
    assert st.conditions.param.selected.objects == ["a", "b"]
    assert "other" not in st.conditions.note()


def test_custom_weights_naming_an_unknown_condition_are_refused(state):
    cond = state.conditions
    cond.param.update(weighting="custom", custom_weights="nosuch=1")
    assert "nosuch" in state.status.error and "no trial has" in state.status.error


def test_nothing_selected_is_refused(state):
    cond = state.conditions
    before = list(cond.selected)
    cond.selected = []
    assert state.status.error == "select at least one condition to pool"
    assert cond.selected == before  # the last good choice comes back
