"""The exact grid of operating points behind the offline HTML report: every grid point
reproduces ``Analysis.at`` bit for bit (counts, rates, DCFs, DR30), with and without ties,
weights and infinite LLRs; the snapping rule picks the nearest grid point."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.core import (
    GRID_STEP,
    DataError,
    analyze,
    gaussian_trials,
    grid_plo,
    operating_point_grid,
)


def assert_grid_equals_at(a, g, idx):
    for i in idx:
        op = a.at(g.plo[i])
        row = g.row(i)
        assert row["plo"] == op.plo
        assert row["act_dcf"] == op.act_dcf
        assert row["min_dcf"] == op.min_dcf
        assert row["p_miss"] == float(op.act.p_miss)
        assert row["p_fa"] == float(op.act.p_fa)
        assert row["misses"] == int(op.act.misses)
        assert row["false_alarms"] == int(op.act.false_alarms)
        assert row["min_p_miss"] == float(op.min.p_miss)
        assert row["min_p_fa"] == float(op.min.p_fa)
        assert row["min_misses"] == int(op.min.misses)
        assert row["min_false_alarms"] == int(op.min.false_alarms)
        assert row["dr30_safe"] == op.dr30_safe
        assert row["effective_prior"] == op.effective_prior


def test_default_grid_is_dyadic_and_exact():
    g = grid_plo()
    assert g.size == 20481 and g[0] == -20.0 and g[-1] == 20.0
    assert GRID_STEP == 2.0 ** -9
    assert np.all(np.diff(g) == GRID_STEP)  # exact spacing: every value representable
    assert np.all(g * 512 == np.round(g * 512))
    h = grid_plo(include=[-4.59511985013459, 0.0])
    assert h.size == 20482 and -4.59511985013459 in h


def test_every_grid_point_equals_analysis_at():
    t = gaussian_trials(3000, 20_000, seed=4)
    a = analyze(t)
    g = operating_point_grid(a, include=[-4.59511985013459])
    assert_grid_equals_at(a, g, range(0, len(g), 7))
    i = int(np.flatnonzero(g.plo == -4.59511985013459)[0])
    assert_grid_equals_at(a, g, [i])
    assert np.array_equal(g.act_dcf(), a.curves(g.plo)[0].dcf)
    assert np.array_equal(g.min_dcf(), a.curves(g.plo)[1].dcf)


def test_unweighted_rates_are_the_counts_divided_by_the_class_sizes():
    # what the page computes from the stored counts: one IEEE division
    t = gaussian_trials(777, 1234, seed=1)
    g = operating_point_grid(analyze(t))
    assert not g.weighted
    assert np.array_equal(g.p_miss, g.misses / g.n_tar)
    assert np.array_equal(g.p_fa, g.false_alarms / g.n_non)
    assert np.array_equal(g.vertex_p_miss, g.vertex_misses / g.n_tar)
    assert np.array_equal(g.vertex_p_fa, g.vertex_false_alarms / g.n_non)


def test_only_the_vertices_used_on_the_grid_are_kept():
    t = gaussian_trials(20_000, 20_000, seed=2)
    a = analyze(t)
    g = operating_point_grid(a)
    assert g.vertex_p_miss.size == np.unique(g.vertex).size
    assert g.vertex_p_miss.size <= a.blocks.n_blocks + 1
    # higher plo: lower Bayes threshold, an earlier vertex (fewer misses)
    assert np.all(np.diff(g.vertex_p_miss) > 0) and np.all(np.diff(g.vertex) <= 0)


def test_ties_weights_and_infinite_llrs():
    rng = np.random.default_rng(0)
    tar = rng.integers(-4, 6, 300).astype(float)
    non = rng.integers(-6, 4, 500).astype(float)
    tar[:3], non[:2] = np.inf, -np.inf
    a = analyze(tar, non, tar_weights=rng.uniform(0.1, 3, 300),
                non_weights=rng.uniform(0.1, 3, 500))
    g = operating_point_grid(a, np.linspace(-8, 8, 161))
    assert g.weighted
    assert_grid_equals_at(a, g, range(len(g)))


def test_snapping_picks_the_nearest_grid_point():
    a = analyze([1.0, 2.0], [0.0, -1.0])
    g = operating_point_grid(a, [-1.0, 0.0, 0.5, 2.0])
    assert g.index(-5.0) == 0 and g.index(9.0) == 3
    assert g.index(0.2) == 1 and g.index(0.3) == 2
    assert g.index(0.25) == 1  # an exact tie goes to the lower point
    assert g.index(1.25) == 2 and g.index(1.26) == 3
    assert np.array_equal(g.index([-1.0, 0.0, 0.5, 2.0]), [0, 1, 2, 3])
    one = operating_point_grid(a, [0.0])
    assert one.index(3.0) == 0


def test_bad_grids():
    a = analyze([1.0], [0.0])
    with pytest.raises(DataError, match="non-empty and finite"):
        operating_point_grid(a, [np.inf])
    with pytest.raises(DataError, match="positive, finite"):
        grid_plo(step=0.0)
    with pytest.raises(DataError, match="too fine"):
        grid_plo(step=1e-9)
    with pytest.raises(DataError, match="must be finite"):
        grid_plo(include=[np.nan])
    with pytest.raises(TypeError, match="takes an Analysis"):
        operating_point_grid([1.0, 2.0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-8, 8), min_size=1, max_size=30),
       st.lists(st.integers(-8, 8), min_size=1, max_size=30),
       st.lists(st.floats(-12, 12), min_size=1, max_size=10))
def test_grid_equals_at_on_small_sets(t, n, plo):
    a = analyze(np.array(t, float) / 2, np.array(n, float) / 2)
    g = operating_point_grid(a, plo)
    assert_grid_equals_at(a, g, range(len(g)))
