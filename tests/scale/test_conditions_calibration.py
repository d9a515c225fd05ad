"""Out-of-core condition weighting (van Leeuwen 2008) and calibration, against the in-memory
path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llrlab.core import analyze
from llrlab.core.calibration import AffineCalibrator, PAVCalibrator, fit_calibrator
from llrlab.core.conditions import condition_weights
from llrlab.core.errors import DataError
from llrlab.core.scale import (
    analyze_dask,
    condition_weights_dask,
    fit_calibrator_dask,
    open_scores,
    write_calibrated,
)
from llrlab.core.scale.calibration import sample_trials

from ._data import grid_trials, write_parquet


@pytest.fixture(scope="module")
def cond_set(tmp_path_factory):
    t = grid_trials(40, 600, seed=7, conditions=True)
    path = write_parquet(tmp_path_factory.mktemp("c") / "parts", t, rows_per_file=3000)
    return t, open_scores(path)


@pytest.mark.parametrize("spec,select", [("equal", None), ({"tel": 3, "mic": 1, "far": 0},
                                                           None), ("equal", ["tel", "far"]),
                                         ("pooled", ["mic"])])
def test_condition_weighted_analysis_equals_in_memory(cond_set, spec, select):
    t, ds = cond_set
    mem = condition_weights(t, spec, select=select)
    got = condition_weights_dask(ds, spec, select=select)
    np.testing.assert_array_equal(got.conditions, mem.conditions)
    for f in ("w_tar", "w_non", "beta_tar", "beta_non"):
        np.testing.assert_allclose(getattr(got, f), getattr(mem, f), rtol=1e-14)
    np.testing.assert_array_equal(got.n_tar, mem.n_tar)
    assert got.reweighted == mem.reweighted
    a = analyze_dask(got.scores, plo=[-2.0, 0.0], partition_rows=4000)
    m = analyze(mem.trials, plo=[-2.0, 0.0])
    for k in ("eer", "cllr", "min_cllr", "prbep"):
        assert getattr(a, k) == pytest.approx(getattr(m, k), rel=1e-12), k
    np.testing.assert_allclose(a.act.dcf, m.act.dcf, rtol=1e-12)
    np.testing.assert_allclose(a.min.dcf, m.min.dcf, rtol=1e-12)


def test_condition_weighting_errors(cond_set):
    t, ds = cond_set
    with pytest.raises(DataError, match="no weight for condition"):
        condition_weights_dask(ds, {"tel": 1})
    with pytest.raises(DataError, match="not found"):
        condition_weights_dask(ds, select=["studio"])
    plain = open_scores(write_parquet(
        __import__("pathlib").Path(ds.source).parent / "plain.parquet", t.with_weights(None)
        .subset(np.arange(100)).__class__(t.scores, t.labels, model_ids=t.model_ids,
                                           segment_ids=t.segment_ids)))
    with pytest.raises(DataError, match="have no conditions"):
        condition_weights_dask(plain)


def test_pav_calibration_is_trained_on_every_trial_and_equals_in_memory(cond_set):
    t, ds = cond_set
    got = fit_calibrator_dask(ds, method="pav")
    mem = PAVCalibrator.fit(t)
    for f in ("lower", "upper", "llr"):
        np.testing.assert_allclose(getattr(got, f), getattr(mem, f), rtol=1e-12)
    assert got.pure_ends == mem.pure_ends
    assert got.training.min_cllr == pytest.approx(mem.training.min_cllr, rel=1e-12)
    x = np.linspace(-4, 6, 101)
    np.testing.assert_allclose(got.apply(x), mem.apply(x), rtol=1e-12)


def test_pav_calibration_with_trials_of_weight_zero_equals_in_memory(tmp_path):
    """Trials of weight 0 take no part in PAV, in memory and on Dask alike: the same
    blocks' ranges (the map's knots), whatever the partitions and which class is larger."""
    t = grid_trials(20, 100, seed=3)
    w = np.random.default_rng(3).choice([0.0, 0.0, 0.5, 1.0, 2.0], len(t))
    w[np.flatnonzero(t.labels)[0]] = 1.0
    ds = open_scores(write_parquet(tmp_path / "zeros", t, rows_per_file=300, weights=w))
    got = fit_calibrator_dask(ds, method="pav")
    mem = PAVCalibrator.fit(t.with_weights(w))
    np.testing.assert_array_equal(got.lower, mem.lower)
    np.testing.assert_array_equal(got.upper, mem.upper)
    np.testing.assert_allclose(got.llr, mem.llr, rtol=1e-12)
    assert got.pure_ends == mem.pure_ends
    x = np.linspace(-4, 6, 1001)
    np.testing.assert_allclose(got.apply(x), mem.apply(x), rtol=1e-12)


def test_affine_calibration_on_the_full_set_when_it_fits_the_sample(cond_set):
    t, ds = cond_set
    got = fit_calibrator_dask(ds, method="affine", prior=0.3)
    mem = fit_calibrator(t, method="affine", prior=0.3)
    assert got.scale == pytest.approx(mem.scale, rel=1e-9)
    assert got.offset == pytest.approx(mem.offset, rel=1e-9, abs=1e-12)
    assert "trained out of core on all trials" in got.training.notes


def test_affine_calibration_on_a_sample(cond_set):
    t, ds = cond_set
    sample, (n_tar, n_non), _ = sample_trials(ds, 1000, seed=1)
    assert (n_tar, n_non) == (t.n_tar, t.n_non)
    assert 800 < sample.n_tar < 1200 and 800 < sample.n_non < 1200
    got = fit_calibrator_dask(ds, method="affine", sample_size=1000)
    assert isinstance(got, AffineCalibrator)
    assert any("uniform random sample" in n for n in got.training.notes)
    mem = fit_calibrator(t, method="affine")
    assert got.scale == pytest.approx(mem.scale, rel=0.2)


def test_write_calibrated_applies_the_map_chunk_by_chunk(cond_set, tmp_path):
    t, ds = cond_set
    cal = fit_calibrator(t, method="affine")
    n = write_calibrated(ds, cal, tmp_path / "out")
    assert n == len(t)
    files = sorted((tmp_path / "out").glob("*.parquet"))
    assert len(files) > 1
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    np.testing.assert_allclose(np.sort(df["score"]), np.sort(cal.apply(t.scores)), rtol=1e-15)
    a = analyze_dask(open_scores(tmp_path / "out"))
    assert a.cllr == pytest.approx(analyze(cal(t)).cllr, rel=1e-12)
    with pytest.raises(DataError, match="exists"):
        write_calibrated(ds, cal, tmp_path / "out")


def test_analysis_of_transformed_scores_equals_in_memory(cond_set):
    t, ds = cond_set
    cal = fit_calibrator(t, method="pav")
    a = analyze_dask(ds, transform=cal.apply)
    m = analyze(cal(t))
    for k in ("eer", "cllr", "min_cllr", "prbep"):
        assert getattr(a, k) == pytest.approx(getattr(m, k), rel=1e-12), k


def test_a_condition_without_one_class_is_refused_as_in_memory(tmp_path):
    """Equal weights need each pooled condition's miss and false-alarm rate: a condition
    without targets, or without non-targets, is named with the same message as in memory;
    pooled trials, or the condition left out, are fine."""
    from llrlab.core import Trials

    t = grid_trials(6, 30, seed=3, conditions=True)
    # the targets of "far" become a condition of their own: "far" has no targets left and
    # "studio" has no non-targets
    cond = np.where(t.labels & (t.conditions == "far"), "studio", t.conditions)
    t = Trials(t.scores, t.labels, conditions=cond, model_ids=t.model_ids,
               segment_ids=t.segment_ids)
    ds = open_scores(write_parquet(tmp_path / "s.parquet", t))
    for select, expected in ((None, "condition 'far' has no target trials"),
                             (["tel", "mic", "studio"],
                              "condition 'studio' has no non-target trials")):
        with pytest.raises(DataError) as mem:
            condition_weights(t, "equal", select=select)
        with pytest.raises(DataError) as got:
            condition_weights_dask(ds, "equal", select=select)
        assert expected in str(got.value) and "give it weight 0" in str(got.value)
        assert str(got.value) == f"{ds.source}: {mem.value}"  # the same, naming the file
    assert condition_weights_dask(ds, "pooled").n_conditions == 4
    kept = condition_weights_dask(ds, "equal", select=["tel", "mic"])
    assert kept.conditions.tolist() == ["mic", "tel"]


def test_weighted_binomial_intervals_need_the_trials_in_memory(cond_set):
    # the variance of a condition-weighted rate is summed per condition, which the reduced
    # counts of a Dask analysis do not hold: one clear error, not Kish's too-narrow interval
    from llrlab.core.uncertainty import operating_point_ci

    t, ds = cond_set
    a = analyze_dask(condition_weights_dask(ds, "equal").scores, plo=[0.0],
                     partition_rows=4000)
    with pytest.raises(DataError, match=r"variance of each condition.*without --dask"):
        operating_point_ci(a, plo=0.0)
    plain = analyze_dask(ds, plo=[0.0], partition_rows=4000)  # unweighted: binomial, as before
    ci = operating_point_ci(plain, plo=0.0)
    assert ci.variance == "binomial"
    ref = operating_point_ci(t, plo=0.0)
    assert float(ci.p_miss.upper) == pytest.approx(float(ref.p_miss.upper), rel=1e-12)
