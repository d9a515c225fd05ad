"""Threshold measures against bob.measure's and pyeer's expected values on their own data.

* **bob.measure** (Idiap; BSD 3-clause): its test data are vendored in
  ``tests/data/bob_measure`` (README and LICENSE there).  The values below marked
  "test_error.py::NAME" are asserted by that test of bob.measure 6.1.1's suite
  (``tests/test_error.py``); the others are what bob.measure 6.1.1 computes on the same files,
  printed by ``tests/data/bob_measure/reference_values.py`` (bob.measure pins numpy 1.26, so it
  is not a test dependency).
* **pyeer** 0.5.6 (MIT; a test dependency): its repository has no test suite, so llrlab is
  compared live with ``pyeer.eer_info.get_eer_stats`` on the example score files it ships
  (``pyeer/example_files``), the data of its README.

Where the conventions differ, the tests show how: bob.measure's and pyeer's choices are
reproduced from llrlab's own results (the same rates at another threshold of the sweep).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from llrlab.core import (
    auc,
    counts_at,
    fmr_at_fnmr,
    fnmr_at_fmr,
    hter,
    min_dcf,
    roc_curve,
    rocch,
    rocch_eer,
    threshold_eer,
    zero_fmr,
    zero_fnmr,
)
from llrlab.core.det import probit

BOB = Path(__file__).parents[1] / "data" / "bob_measure"


def _array(name):
    """One of bob.measure's HDF5 arrays, vendored as text (README there): 1-d, or a 2-d
    array of rows as columns."""
    return np.loadtxt(BOB / f"{name}.txt").T


def _set(name):
    """``(positives, negatives)`` = llrlab's ``(tar, non)``."""
    return _array(f"{name}-positives"), _array(f"{name}-negatives")


def _labelled(name):
    a = np.loadtxt(BOB / name)
    a = a[~np.isnan(a[:, 1])]  # bob measure metrics drops NaN scores (with a warning)
    return a[a[:, 0] > 0, 1], a[a[:, 0] < 0, 1]


# ------------------------------------------------------------------------- bob.measure


def test_bob_eer_threshold_linsep_and_nonsep():
    # test_error.py::test_thresholding: "the result here is 3.2 (which is what is expect)",
    # and min_hter_threshold is 3.2 too
    tar, non = _set("linsep")
    e = threshold_eer(tar, non, rule="closest")
    assert e.threshold == 3.2 and e.eer == 0.0
    assert threshold_eer(tar, non).threshold == 3.2
    # nonsep: "ccp - ccn <= 1" at eer_threshold; bob.measure 6.1.1 gives 5.45, eer 0.11
    tar, non = _set("nonsep")
    e = threshold_eer(tar, non, rule="closest")
    assert (e.threshold, e.eer) == (5.45, 0.11)
    assert (float(e.at.p_fa), float(e.at.p_miss)) == (0.1, 0.12)
    assert abs((50 - int(e.at.misses)) - (50 - int(e.at.false_alarms))) <= 1
    assert threshold_eer(tar, non).eer == 0.11  # the FVC rule picks the same point here


def test_bob_roc_for_far_nonsep():
    # test_error.py::test_plots: roc_for_far(negatives, positives, [0.01, 0.1, 1]) gives
    # FPR [0.0, 0.1, 1] and FNR [0.48, 0.12, 0]
    tar, non = _set("nonsep")
    r = fnmr_at_fmr(tar, non, [0.01, 0.1, 1])
    assert_array_equal(r.p_fa, [0.0, 0.1, 1])
    assert_array_equal(r.p_miss, [0.48, 0.12, 0])


def test_bob_roc_auc_score_nonsep():
    # test_error.py::test_roc_auc_score: oracle 0.9326 (scikit-learn's roc_auc_score)
    assert auc(*_set("nonsep")).auc == pytest.approx(0.9326, abs=1e-15)


def test_bob_bosaris_rocch_nonsep_and_linsep():
    # test_error.py::no_test_rocch ("References obtained using Bosaris 1.06"; disabled in
    # bob.measure 6.1.1, whose rocch is not implemented): the ROCCH vertices and EER
    h = rocch(*_set("nonsep"))
    assert_allclose(h.p_fa, [1.0, 0.68, 0.28, 0.1, 0.06, 0.0, 0.0], atol=1e-15)
    assert_allclose(h.p_miss, [0, 0, 0.08, 0.12, 0.22, 0.48, 1.0], atol=1e-15)
    assert rocch_eer(*_set("nonsep")) == pytest.approx(0.116363636363636, abs=1e-4)
    assert rocch_eer(*_set("nonsep")) == pytest.approx(0.64 / 5.5, abs=1e-15)
    h = rocch(*_set("linsep"))
    assert_allclose(np.c_[h.p_fa, h.p_miss].T, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert rocch_eer(*_set("linsep")) == 0.0


def test_bob_uncomputable_thresholds():
    # test_error.py::test_for_uncomputable_thresholds, with bob's far_threshold as the
    # point's upper end (the lowest accepted score) and frr_threshold likewise
    pos = [0.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    neg = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0]
    assert float(fnmr_at_fmr(pos, neg, 0.5).upper) == 1.0
    assert float(fmr_at_fnmr(pos, neg, 0.5).upper) == pytest.approx(0.1)
    assert float(fnmr_at_fmr(pos, neg, 0.4).upper) > neg[-1]
    assert float(fmr_at_fnmr(pos, neg, 0.4).upper) >= pos[0]
    pos = [0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    neg = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0]
    assert float(fnmr_at_fmr(pos, neg, 0.5).upper) == 1.0
    assert float(fmr_at_fnmr(pos, neg, 0.51).upper) == pytest.approx(0.1)
    assert float(fnmr_at_fmr(pos, neg, 0.49).upper) > neg[-1]
    assert float(fmr_at_fnmr(pos, neg, 0.49).upper) >= pos[0]
    pos = neg = np.arange(10, dtype=float)
    assert float(fnmr_at_fmr(pos, neg, 0.09).upper) > neg[-1]
    assert float(fmr_at_fnmr(pos, neg, 0.09).upper) >= pos[0]
    assert float(fnmr_at_fmr(pos, neg, 0.11).upper) == 9.0
    assert float(fnmr_at_fmr(pos, neg, 0.91).upper) == 1.0
    assert float(fnmr_at_fmr(pos, neg, 1).upper) <= 0.0
    assert float(fmr_at_fnmr(pos, neg, 0.11).upper) == pytest.approx(1.0)
    assert float(fmr_at_fnmr(pos, neg, 0.91).upper) == pytest.approx(9.0)


def test_bob_obvious_thresholds():
    # test_error.py::test_obvious_thresholds: with 10 negatives 0..9 and 10 positives
    # 10..19, the FPR at the far threshold is floor(far * 10) / 10 (likewise the FNR)
    M = 10
    neg, pos = np.arange(M, dtype=float), np.arange(M, 2 * M, dtype=float)
    for x in np.arange(0, 2 * M + 1, dtype=float) / M / 2:
        x, expected = round(x, 2), math.floor(x * 10) / 10
        r = fnmr_at_fmr(pos, neg, x)
        got = counts_at(pos, neg, r.threshold)
        assert float(got.p_fa) <= x and float(got.p_fa) == expected
        r = fmr_at_fnmr(pos, neg, x)
        got = counts_at(pos, neg, r.threshold)
        assert float(got.p_miss) <= x and float(got.p_miss) == expected


def test_bob_basic_ratios_linsep():
    # test_error.py::test_basic_ratios: farfrr(negatives, positives, t) is (1, 0) below every
    # score, (0, 1) above every score, and (0, 0) at 3.0 (the separable set)
    tar, non = _set("linsep")
    lo = min(tar.min(), non.min()) - 0.1
    hi = max(tar.max(), non.max()) + 0.1
    c = counts_at(tar, non, [lo, hi, 3.0])
    assert_array_equal(c.p_fa, [1.0, 0.0, 0.0])
    assert_array_equal(c.p_miss, [0.0, 1.0, 0.0])


def test_bob_far_frr_thresholds_within_a_tenth_nonsep():
    # test_error.py::test_thresholding: for each t, the FPR at far_threshold(negatives, [], t)
    # and the FNR at frr_threshold([], positives, t) are at most t and within 0.1 of it;
    # llrlab's thresholds decide the same as its reported rates say
    tar, non = _set("nonsep")
    t = np.array([0, 0.001, 0.1, 0.5, 0.9, 0.999, 1])
    r = fnmr_at_fmr(tar, non, t)
    assert np.all(r.p_fa <= t) and np.all(t - r.p_fa <= 0.1)
    assert_array_equal(counts_at(tar, non, r.threshold).p_fa, r.p_fa)
    r = fmr_at_fnmr(tar, non, t)
    assert np.all(r.p_miss <= t) and np.all(t - r.p_miss <= 0.1)
    assert_array_equal(counts_at(tar, non, r.threshold).p_miss, r.p_miss)


def test_bob_min_weighted_error_rate_with_an_outlier():
    # test_error.py::test_mindcf: negatives [-3, -2, -1, -0.5, 4] (an outlier at 4),
    # positives [0.5, 3], cost 0.99: the least 0.99 FPR + 0.01 FNR is at most 1 %.  In
    # llrlab's terms the unnormalized minimum DCF at P_target = 0.01
    neg, pos = [-3, -2, -1, -0.5, 4], [0.5, 3]
    r = min_dcf(pos, neg, plo=math.log(0.01 / 0.99), normalize=False)
    assert r.dcf <= 0.01 + 1e-12
    c = roc_curve(pos, neg)  # by brute force over every threshold of the sweep
    assert r.dcf == pytest.approx(float(np.min(0.99 * c.p_fa + 0.01 * c.p_miss)), abs=1e-15)


# bob.measure 6.1.1's (FPR, FNR) at far_threshold(negatives, positives, x) and at
# frr_threshold(negatives, positives, x), printed by reference_values.py
_FMR = [0.0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]
_BOB_FAR = {
    "linsep": [(0.0, 0.0)] * 4 + [(0.04, 0.0), (0.04, 0.0), (0.12, 0.0), (0.26, 0.0),
                                  (0.26, 0.0), (0.52, 0.0), (0.78, 0.0), (1.0, 0.0)],
    "nonsep": [(0.0, 0.48), (0.0, 0.48), (0.0, 0.48), (0.02, 0.42), (0.02, 0.42),
               (0.1, 0.12), (0.2, 0.1), (0.28, 0.08), (0.44, 0.06), (0.68, 0.0),
               (0.9, 0.0), (1.0, 0.0)],
}
_BOB_FRR = {
    "linsep": [(0.0, 0.0)] * 4 + [(0.0, 0.02), (0.0, 0.06), (0.0, 0.12), (0.0, 0.18),
                                  (0.0, 0.44), (0.0, 0.62), (0.0, 0.9), (0.0, 1.0)],
    "nonsep": [(0.68, 0.0)] * 4 + [(0.6, 0.02), (0.2, 0.1), (0.1, 0.12), (0.06, 0.22),
                                   (0.0, 0.48), (0.0, 0.68), (0.0, 0.84), (0.0, 1.0)],
}


@pytest.mark.parametrize("name", ["linsep", "nonsep"])
def test_bob_far_threshold_values(name):
    """FNMR at FMR <= x: the same FMR as bob.measure's far_threshold; here the same FNMR
    too (no target lies between the deciding non-target scores)."""
    r = fnmr_at_fmr(*_set(name), _FMR)
    assert_array_equal(np.c_[r.p_fa, r.p_miss], _BOB_FAR[name])


@pytest.mark.parametrize("name", ["linsep", "nonsep"])
def test_bob_frr_threshold_values(name):
    """FMR at FNMR <= x.  bob.measure's frr_threshold counts a run of tied target scores as
    rejected before its threshold passes them, so on these tied scores it can stop below the
    FNMR allowed; llrlab takes the highest threshold whose FNMR is at most x, so its FNMR is
    at least bob's and its FMR at most bob's, and equal where no tie is in the way."""
    r = fmr_at_fnmr(*_set(name), _FMR)
    bob = np.array(_BOB_FRR[name])
    assert np.all(r.p_miss <= np.array(_FMR) + 1e-15)
    assert np.all(r.p_miss >= bob[:, 1]) and np.all(r.p_fa <= bob[:, 0])
    same = r.p_miss == bob[:, 1]
    assert_array_equal(r.p_fa[same], bob[same, 0])
    assert same.sum() >= 8


def test_bob_frr_threshold_ties_at_the_bottom():
    # bob.measure 6.1.1: frr_threshold(neg, pos, 0.0) on test_for_uncomputable_thresholds'
    # first case returns 5e-324, where FNR is 4/9 > 0; llrlab's ZeroFNMR threshold keeps
    # every target (FNMR 0)
    pos = [0.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    neg = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0]
    assert float(counts_at(pos, neg, 5e-324).p_miss) == 4 / 9
    z = zero_fnmr(pos, neg)
    assert (float(z.p_miss), float(z.p_fa), float(z.upper)) == (0.0, 1.0, 0.0)


def test_bob_roc_and_det_points_lie_on_the_sweep():
    # nonsep-roc / nonsep-det (HDF5 in bob.measure): its roc(negatives, positives, 100) and
    # its det (the same points through NIST's ppndf); every point is a row of llrlab's table
    c = roc_curve(*_set("nonsep"))
    rows = set(zip(c.p_fa.tolist(), c.p_miss.tolist(), strict=True))
    ref = _array("nonsep-roc")
    assert all((fa, fr) in rows for fa, fr in ref.T.tolist())
    det = _array("nonsep-det")
    inside = (ref > 0) & (ref < 1)
    assert_allclose(probit(ref[inside]), det[inside], atol=2e-7)


def test_bob_metrics_hter_dev_eval():
    """``bob measure metrics -e dev-1.txt test-1.txt``: the threshold at dev's EER (bob
    6.1.1: -8.025286e-03) applied to eval; values printed by reference_values.py."""
    dev, ev = _labelled("dev-1.txt"), _labelled("test-1.txt")
    r = hter(dev, ev, rule="closest")
    assert r.threshold == -0.008025286119635155
    assert (float(r.dev.p_fa), float(r.dev.p_miss)) == (0.06262626262626263,
                                                        0.06208425720620843)
    assert (float(r.eval.p_fa), float(r.eval.p_miss)) == (0.05636743215031315,
                                                          0.0613107822410148)
    assert r.hter == pytest.approx((0.05636743215031315 + 0.0613107822410148) / 2)


def test_bob_metrics_far_criterion():
    """``bob measure metrics -e -c far -f X``: the same dev FMR as bob's far_threshold.  At
    0.1 no dev target lies between bob's threshold (-0.04375812081600161, a non-target
    score) and the midpoint llrlab uses, and eval agrees too; at 0.01 dev targets lie
    between, so llrlab's dev FNMR is lower (0.7073 < bob's 0.7450)."""
    dev, ev = _labelled("dev-1.txt"), _labelled("test-1.txt")
    r = hter(dev, ev, criterion="fmr", fmr=0.1)
    assert float(r.dev.upper) == -0.04375812081600161
    assert (float(r.dev.p_fa), float(r.dev.p_miss)) == (0.09898989898989899,
                                                        0.057649667405764965)
    assert (float(r.eval.p_fa), float(r.eval.p_miss)) == (0.08768267223382047,
                                                          0.05708245243128964)
    r = hter(dev, ev, criterion="fmr", fmr=0.01)
    assert float(r.dev.p_fa) == 0.00808080808080808
    assert float(r.dev.p_miss) < 0.7450110864745011
    bob = counts_at(*dev, 0.7628012955668297)
    assert (float(bob.p_fa), float(bob.p_miss)) == (0.00808080808080808, 0.7450110864745011)


# ------------------------------------------------------------------------- pyeer

pyeer = pytest.importorskip("pyeer")


def _pyeer_files():
    root = Path(pyeer.__file__).parent / "example_files" / "non_hist"
    return [(root / f"exp{i}_true.txt", root / f"exp{i}_false.txt") for i in (1, 2, 3)]


def _last_column(path):
    return np.array([float(line.split()[-1]) for line in path.read_text().splitlines()
                     if line.strip()])


@pytest.mark.parametrize("exp", [0, 1, 2], ids=["exp1", "exp2", "exp3"])
def test_pyeer_example_files(exp):
    from pyeer.eer_info import get_eer_stats

    gen_file, imp_file = _pyeer_files()[exp]
    tar, non = _last_column(gen_file), _last_column(imp_file)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = get_eer_stats(tar, non)
    # the sweep: pyeer's thresholds, FMR and FNMR are llrlab's rows (without +inf)
    c = roc_curve(tar, non)
    assert_array_equal(c.threshold[:-1], s.thrs)
    assert_array_equal(c.p_fa[:-1], s.fmr)
    assert_array_equal(c.p_miss[:-1], s.fnmr)
    # EER: FVC2000's rule; pyeer's threshold is the upper end of llrlab's interval
    e = threshold_eer(tar, non)
    assert (e.eer, e.eer_low, e.eer_high) == pytest.approx((s.eer, s.eer_low, s.eer_high),
                                                           abs=1e-15)
    assert float(e.at.upper) == s.eer_th
    # ZeroFNMR: the same point
    z = zero_fnmr(tar, non)
    assert (float(z.p_fa), float(z.upper)) == (s.fnmr0, s.fnmr0_th)
    # ZeroFMR: the same point when a threshold of pyeer's sweep reaches FMR 0
    if s.fmr[-1] == 0:
        z = zero_fmr(tar, non)
        assert (float(z.p_miss), float(z.upper)) == (s.fmr0, s.fmr0_th)
    # FMR100 ... FMR10: pyeer takes the FMR nearest to x (maybe above x); llrlab the
    # largest one not above x.  Equal when the nearest is not above x; pyeer's choice is
    # reproduced from llrlab's table either way.
    for x, value, th in ((0.001, s.fmr1000, s.fmr1000_th), (0.01, s.fmr100, s.fmr100_th),
                         (0.05, s.fmr20, s.fmr20_th), (0.1, s.fmr10, s.fmr10_th)):
        k = int(np.argmin(np.abs(c.p_fa[:-1] - x)))
        assert (c.p_miss[k], c.threshold[k]) == (value, th)
        r = fnmr_at_fmr(tar, non, x)
        if c.p_fa[k] <= x:
            assert (float(r.p_miss), float(r.upper)) == (value, th)
        else:
            assert float(r.p_fa) < x < c.p_fa[k] and float(r.p_miss) >= value
    # AUC: pyeer's trapezoid over its rows equals the exact AUC when its last row has
    # FMR 0 (no final segment is missing)
    if s.fmr[-1] == 0:
        assert auc(tar, non).auc == pytest.approx(s.auc, abs=1e-12)


def test_pyeer_histogram_format():
    """pyeer's histogram format (impostor score counts per integer score): the same EER as
    the expanded scores."""
    from pyeer.eer_info import get_eer_stats

    root = Path(pyeer.__file__).parent / "example_files" / "hist"
    tar = _last_column(root / "exp1_true.txt")
    counts = _last_column(root / "exp1_false.txt").astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = get_eer_stats(tar, counts, hformat=True)
    non = np.repeat(np.arange(counts.size, dtype=float), counts)
    e = threshold_eer(tar, non)
    assert (e.eer, e.eer_low, e.eer_high) == pytest.approx((s.eer, s.eer_low, s.eer_high),
                                                           abs=1e-15)
    assert float(zero_fnmr(tar, non).p_fa) == s.fnmr0
