"""The user-facing API: short reprs of results, errors that name the argument, measure names
that list the valid ones."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import (
    DataError,
    Trials,
    analyze,
    ape_curves,
    bootstrap_ci,
    by_condition,
    condition_weights,
    det_curve,
    ece_curves,
    epc,
    gaussian_trials,
    mcnemar_test,
    nber_curves,
    operating_point_ci,
    pav,
    proportion_ci,
    rocch,
    steppy_roc,
    uer,
    z_test,
)
from llrlab.core._repr import brief
from llrlab.core.calibration import (
    AffineCalibrator,
    FusionCalibrator,
    PAVCalibrator,
    _logreg,
)
from llrlab.core.errors import UnknownNameError


@pytest.fixture(scope="module")
def big():
    """10^5 trials: large enough that a dataclass repr of the arrays would run to pages."""
    rng = np.random.default_rng(0)
    n = 100_000
    lab = rng.random(n) < 0.1
    s = np.where(lab, 2.0, -2.0) + rng.normal(size=n)
    cond = np.where(rng.random(n) < 0.3, "mic", "tel")
    return Trials(s, lab, conditions=cond, source="big.txt")


def _results(t):
    a = analyze(t)
    b = Trials(t.scores + np.random.default_rng(1).normal(size=len(t)), t.labels)
    return {
        "Analysis": a, "OperatingPoint": a.at(0.0), "DCFResult": a.act,
        "SortedScores": a.sorted, "PooledBlocks": a.blocks, "ROCCH": rocch(t),
        "ROC": steppy_roc(t), "DETCurve": det_curve(t), "DR30": a.dr30,
        "NBERCurves": nber_curves(t), "APECurves": ape_curves(t), "ECECurves": ece_curves(t),
        "EPC": epc(t, b), "PAVFit": pav(t.scores, t.labels),
        "ZTestResult": z_test(t.with_weights(None), b),
        "McNemarResult": mcnemar_test(t.with_weights(None), b),
        "ProportionCI": proportion_ci([3, 4, 5, 6], 100),
        "OperatingPointCI": operating_point_ci(t, plo=np.linspace(-3, 3, 50)),
        "BootstrapCI": bootstrap_ci(t, n_boot=20, seed=1),
        "AffineCalibrator": AffineCalibrator.fit(t),
        "PAVCalibrator": PAVCalibrator.fit(t),
        "FusionCalibrator": FusionCalibrator.fit([t.with_weights(None), b]),
        "ConditionWeights": condition_weights(t),
        "ConditionAnalysis": by_condition(t),
        "LinearFit": _logreg.fit_linear(t.scores, t.labels),
    }


def test_results_have_short_one_line_reprs(big):
    # Regression: repr(analyze(t)) was 23,794 characters at 10^4 trials (every array)
    for name, obj in _results(big).items():
        text = repr(obj)
        assert text.startswith(f"{name}("), text
        assert "\n" not in text and len(text) <= 320, (name, len(text), text)
        assert "..." not in text.replace("(...)", ""), text  # no numpy summarised arrays


def test_reprs_show_the_key_numbers(big):
    a = analyze(big)
    text = repr(a)
    for key in ("n_tar", "n_non", "eer", "cllr", "min_cllr"):
        assert f"{key}={brief(getattr(a, key))}" in text
    assert "plo=<1001 values -10..10>" in text
    op = a.at(1.5)
    assert repr(op) == (f"OperatingPoint(plo=1.5, effective_prior={op.effective_prior:.6g}, "
                        f"act_dcf={op.act_dcf:.6g}, min_dcf={op.min_dcf:.6g}, "
                        f"dr30_safe={op.dr30_safe})")
    cal = AffineCalibrator.fit(big)
    assert repr(cal) == (f"AffineCalibrator(scale={cal.scale:.6g}, offset={cal.offset:.6g}, "
                         f"prior=0.5, regularised=False)")


def test_brief_formats():
    assert brief(np.float64(0.1234567891)) == "0.123457"
    assert brief(np.arange(10.0)) == "<10 values 0..9>"
    assert brief(np.array([1.0, 2.0])) == "[1, 2]"
    assert brief(np.zeros((3, 4))) == "<array of shape (3, 4)>"
    assert brief("x" * 100) == repr("x" * 37 + "...")
    assert brief((True, False)) == "(True, False)"
    assert brief(tuple(range(10))) == "<10 int>"


@pytest.mark.parametrize("name, want", [("eer", "eer"), ("EER", "eer"), ("minDCF", "min_dcf"),
                                        ("min-dcf", "min_dcf"), ("Act_DCF", "act_dcf"),
                                        ("CLLR", "cllr")])
def test_bootstrap_interval_names_ignore_case(name, want):
    b = bootstrap_ci(gaussian_trials(100, 1000, seed=2), n_boot=20, seed=3)
    assert b.interval(name) is getattr(b, want)


def test_unknown_measure_name_lists_the_valid_ones():
    # Regression: bs.interval("DCF") raised a bare KeyError: 'DCF'
    b = bootstrap_ci(gaussian_trials(100, 1000, seed=2), n_boot=20, seed=3)
    for bad in ("DCF", "min_cllr", 3):
        with pytest.raises(UnknownNameError) as info:
            b.interval(bad)
        assert str(info.value) == (f"unknown bootstrap measure {bad!r}; choose one of 'cllr', "
                                   f"'min_dcf', 'act_dcf', 'eer'")
        assert isinstance(info.value, KeyError) and isinstance(info.value, DataError)
    r = by_condition(Trials([1.0, 0.0, 2.0, -1.0], [1, 0, 1, 0], conditions=list("aabb")))
    with pytest.raises(UnknownNameError, match="unknown pool 'pooled'; choose one of "
                                               "'weighted', 'unweighted'"):
        r.pooled_summary("pooled")  # was silently the unweighted pool
    assert r.pooled_summary("Unweighted") == r.pooled_summary("unweighted")
    with pytest.raises(UnknownNameError, match="choose one of 'tar', 'non', 'both'"):
        r.average(r.p_miss, "target")  # was silently "both"


@pytest.mark.parametrize("call, match", [
    (lambda t: analyze(t, plo="low"), "prior log-odds must be numbers, got 'low'"),
    (lambda t: analyze(t).at("x"), "plo must be a number, got 'x'"),
    (lambda t: uer(t, r="one"), "the UER ratio r must be a number"),
    (lambda t: z_test(t, t, alpha="5%"), "the significance level alpha must be a number"),
    (lambda t: z_test(t, t, threshold="a"), "thresholds must be numbers"),
    (lambda t: mcnemar_test(t, t, threshold=float("nan")), "thresholds must not be NaN"),
    (lambda t: operating_point_ci(t, threshold=[0, "b"]), "thresholds must be numbers"),
    (lambda t: bootstrap_ci(t, n_boot="100"), "n_boot must be a whole number, got '100'"),
    (lambda t: bootstrap_ci(t, n_boot=2.5), "n_boot must be a whole number, got 2.5"),
    (lambda t: AffineCalibrator.fit(t, prior="even"), "the training prior must be a number"),
    (lambda t: by_condition(t.with_weights(None), plo=None), "plo must be a number"),
])
def test_argument_errors_name_the_argument(call, match):
    t = Trials([1.0, 0.5, -1.0, 0.0], [1, 1, 0, 0], conditions=list("abab"))
    with pytest.raises(DataError, match=match):
        call(t)
