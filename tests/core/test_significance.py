"""Tests of significance between two systems (llrlab.core.significance).

Reference values: the published XM2VTS and NIST 2000 examples of Bengio & Mariéthoz (2004),
hand-computed McNemar counts and p-values (scipy.stats.binomtest / chi2), and the false-positive
rate of both tests on many simulated pairs of systems with the same score distribution.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, chi2, norm

from llrlab.core import DataError, LlrlabWarning, Trials
from llrlab.core.significance import EXACT_BELOW, mcnemar_test, paired_trials, z_test


def _system(n_tar, misses, n_non, fas, source=""):
    """Trials with scores +-1 giving exactly ``misses`` and ``fas`` at threshold 0."""
    lab = np.r_[np.ones(n_tar, bool), np.zeros(n_non, bool)]
    s = np.where(lab, 1.0, -1.0)
    s[:misses] = -1.0
    s[n_tar:n_tar + fas] = 1.0
    return Trials(s, lab, source=source)


# --------------------------------------------------------------------------- z-test


def test_z_test_reproduces_the_published_xm2vts_example():
    # XM2VTS models A and B (Bengio & Mariéthoz 2004): FAR 1.15 / 1.95 % of 112000, FRR 2.50 / 2.75
    # % of 400.
    a = _system(400, 10, 112000, 1288)
    b = _system(400, 11, 112000, 2184)
    r = z_test(a, b, normalize=False)
    assert r.std == pytest.approx(0.0057, abs=5e-5)
    assert r.delta == pytest.approx(0.647, abs=5e-4)
    assert r.dcf_a == pytest.approx((0.025 + 0.0115) / 2)
    assert not r.significant and r.variance == "independent"
    # the independent-errors variance written out
    var = (0.0115 * 0.9885 + 0.0195 * 0.9805) / (4 * 112000) + \
          (0.025 * 0.975 + 0.0275 * 0.9725) / (4 * 400)
    assert r.std == pytest.approx(np.sqrt(var), rel=1e-12)
    assert r.p_value == pytest.approx(2 * norm.sf(abs(r.dcf_a - r.dcf_b) / np.sqrt(var)))


def test_z_test_reproduces_the_published_nist_2000_example_independent_case():
    # NIST 2000 models C and D (Bengio & Mariéthoz 2004): FAR 13.1 / 15.8 % of 57748, FRR 9.6 / 7.8
    # % of 5825.
    c = _system(5825, 559, 57748, 7565)
    d = _system(5825, 454, 57748, 9124)
    r = z_test(c, d, normalize=False)
    assert r.std == pytest.approx(0.0028, abs=5e-5)
    assert r.delta == pytest.approx(0.891, abs=0.01)  # table rounded to 0.1 %


def test_z_test_dependent_variance_is_eq_3_33_by_hand():
    lab = np.array([True] * 4 + [False] * 6)
    a = Trials([1, 1, -1, -1, -1, -1, -1, 1, 1, -1], lab)  # misses {2,3}, fas {7,8}
    b = Trials([1, -1, 1, -1, -1, 1, -1, -1, -1, -1], lab)  # misses {1,3}, fas {5}
    r = z_test(a, b, variance="dependent", normalize=False)
    # discordant: misses {1, 2} of T=4, false alarms {5, 7, 8} of N=6; HTER weights 1/2
    var = 0.25 * 2 / 16 + 0.25 * 3 / 36
    assert r.std == pytest.approx(np.sqrt(var))
    diff = (0.5 * 2 / 4 + 0.5 * 2 / 6) - (0.5 * 2 / 4 + 0.5 * 1 / 6)
    assert r.difference == pytest.approx(diff)
    assert r.statistic == pytest.approx(diff / np.sqrt(var))


def test_z_test_verdict_names_the_better_system():
    a = _system(1000, 50, 10000, 100, source="a.txt")
    b = _system(1000, 120, 10000, 400, source="b.txt")
    r = z_test(b, a, names=("b.txt", "a.txt"))
    assert r.significant and r.p_value < 1e-6
    assert r.verdict.startswith("system a.txt has significantly lower DCF than system b.txt "
                                "at the 5% level (p = ")
    r = z_test(a, a, alpha=0.01)
    assert r.p_value == 1.0
    assert r.verdict == ("no significant difference in DCF between system A and system B at "
                         "the 1% level (p = 1.000)")


def test_z_test_zero_variance():
    a = _system(10, 0, 10, 0)
    b = _system(10, 10, 10, 10)  # every decision wrong: rates 1, variance 0
    with pytest.warns(LlrlabWarning, match="zero estimated variance"):
        r = z_test(a, b)
    assert np.isnan(r.p_value) and not r.significant


def test_thresholds_per_system_and_llr_threshold():
    rng = np.random.default_rng(0)
    lab = np.r_[np.ones(300, bool), np.zeros(3000, bool)]
    s = np.where(lab, 2.0, -2.0) + rng.normal(0, 1.5, lab.size)
    a, b = Trials(s, lab), Trials(s + 3.0, lab)
    r = z_test(a, b, threshold=(0.0, 3.0))  # the same decisions
    assert r.difference == 0.0 and r.p_value == 1.0
    r2 = z_test(a, Trials(s, lab), plo=-1.0)
    assert r2.dcf_a == r2.dcf_b
    m = mcnemar_test(a, b, threshold=(0.0, 3.0))
    assert m.n_discordant == 0 and m.p_value == 1.0


# ------------------------------------------------------------------------- McNemar


def _paired(n_both_right, a_only, b_only, n_both_wrong):
    """Target trials only... plus one non-target each, with the given discordant counts."""
    n = n_both_right + a_only + b_only + n_both_wrong
    lab = np.r_[np.ones(n, bool), False]
    sa = np.r_[np.ones(n_both_right + a_only), -np.ones(b_only + n_both_wrong), -1.0]
    sb = np.r_[np.ones(n_both_right), -np.ones(a_only), np.ones(b_only),
               -np.ones(n_both_wrong), -1.0]
    return Trials(sa, lab), Trials(sb, lab)


@pytest.mark.parametrize("b, c", [(0, 0), (1, 0), (5, 0), (3, 9), (12, 12), (20, 4)])
def test_mcnemar_exact_equals_binomtest(b, c):
    a_, b_ = _paired(30, b, c, 7)
    r = mcnemar_test(a_, b_, trials="target")
    assert (r.only_b_wrong, r.only_a_wrong, r.both_right, r.both_wrong) == (b, c, 30, 7)
    assert r.method == "exact"
    want = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5).pvalue
    assert r.p_value == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("b, c", [(10, 15), (40, 20), (100, 70), (30, 30)])
def test_mcnemar_chi_square_with_continuity_correction_by_hand(b, c):
    a_, b_ = _paired(50, b, c, 3)
    r = mcnemar_test(a_, b_, trials="target")
    assert r.method == "chi-square"
    stat = (abs(b - c) - 1) ** 2 / (b + c) if b != c else 0.0
    assert r.statistic == pytest.approx(stat)
    assert r.p_value == pytest.approx(chi2.sf(stat, 1), rel=1e-12)


def test_mcnemar_switch_rule_and_override():
    assert EXACT_BELOW == 25
    a_, b_ = _paired(10, 16, 8, 0)  # 24 discordant: exact
    assert mcnemar_test(a_, b_).method == "exact"
    a_, b_ = _paired(10, 17, 8, 0)  # 25 discordant: chi-square
    r = mcnemar_test(a_, b_)
    assert r.method == "chi-square"
    assert mcnemar_test(a_, b_, exact=True).p_value == pytest.approx(
        binomtest(17, 25, 0.5).pvalue)
    # hand value: (|17-8|-1)^2/25 = 2.56, p = 0.10960
    assert (r.statistic, round(r.p_value, 5)) == (2.56, 0.1096)


def test_mcnemar_by_class_and_verdicts():
    lab = np.r_[np.ones(40, bool), np.zeros(400, bool)]
    sa = np.where(lab, 1.0, -1.0)
    sb = sa.copy()
    sb[:12] = -1.0          # B misses 12 targets that A accepts
    sb[40:70] = 1.0         # B false-alarms on 30 non-targets
    sa[70:73] = 1.0         # A false-alarms on 3 others
    a, b = Trials(sa, lab), Trials(sb, lab)
    m = mcnemar_test(a, b, trials="target", names=("A.txt", "B.txt"))
    assert (m.only_b_wrong, m.only_a_wrong) == (12, 0)
    assert m.verdict.startswith("system A.txt makes significantly fewer misses than system "
                                "B.txt on the target trials at the 5% level (p = ")
    f = mcnemar_test(b, a, trials="non-target")
    assert (f.only_b_wrong, f.only_a_wrong) == (3, 30) and f.significant
    assert "system B makes significantly fewer false alarms than system A" in f.verdict
    n = mcnemar_test(a, b, trials="all", alpha=1e-20)
    assert n.verdict.startswith("no significant difference in errors")


# ---------------------------------------------------------------- false-positive rate


@pytest.fixture(scope="module")
def null_results():
    """Two systems with the same score distribution, scored independently, on 1000 sets."""
    rng = np.random.default_rng(99)
    n_sets, n_tar, n_non = 1000, 200, 1000
    lab = np.r_[np.ones(n_tar, bool), np.zeros(n_non, bool)]
    p = np.empty((3, n_sets))
    for i in range(n_sets):
        mu = np.where(lab, 1.5, -1.5)
        a = Trials(mu + rng.normal(0, 1.0, lab.size), lab)
        b = Trials(mu + rng.normal(0, 1.0, lab.size), lab)
        p[0, i] = z_test(a, b, plo=0.0).p_value
        p[1, i] = z_test(a, b, plo=0.0, variance="dependent").p_value
        p[2, i] = mcnemar_test(a, b, plo=0.0).p_value
    return p


def test_false_positive_rate_near_nominal_level(null_results):
    # 1000 sets: the rejection rate at 5 % has binomial sd 0.0069; allow 3 sd.
    z_indep, z_dep, mcnemar = null_results
    tol = 3 * np.sqrt(0.05 * 0.95 / z_indep.size)
    assert abs(np.mean(z_indep < 0.05) - 0.05) < tol, np.mean(z_indep < 0.05)
    assert abs(np.mean(z_dep < 0.05) - 0.05) < tol, np.mean(z_dep < 0.05)
    # p-values roughly uniform under the null
    assert abs(np.mean(z_indep < 0.5) - 0.5) < 0.06
    # McNemar with continuity correction is known to be conservative (about 150 discordant
    # trials here): never above the level, and not absurdly below it.
    rate = np.mean(mcnemar < 0.05)
    assert 0.05 - 2 * tol < rate < 0.05 + tol, rate


# ------------------------------------------------------------------------- pairing


def _with_ids(t, order=None):
    n = len(t)
    order = np.arange(n) if order is None else order
    models = np.array([f"m{i % 5}" for i in range(n)])
    segs = np.array([f"s{i}" for i in range(n)])
    return Trials(t.scores[order], t.labels[order], model_ids=models[order],
                  segment_ids=segs[order], source=t.source)


def test_pairing_by_id_ignores_order():
    a = _system(50, 5, 200, 20)
    b = _system(50, 9, 200, 31)
    ref = z_test(a, b)
    perm = np.random.default_rng(1).permutation(len(b))
    r = z_test(_with_ids(a), _with_ids(b, perm))
    assert (r.statistic, r.p_value) == (ref.statistic, ref.p_value)
    m_ref = mcnemar_test(a, b)
    m = mcnemar_test(_with_ids(a), _with_ids(b, perm))
    assert (m.only_b_wrong, m.only_a_wrong, m.p_value) == (
        m_ref.only_b_wrong, m_ref.only_a_wrong, m_ref.p_value)


def test_pairing_errors():
    a = _system(5, 1, 5, 1, source="a.txt")
    b = _system(5, 1, 6, 1, source="b.txt")
    with pytest.raises(DataError, match="equal lengths"):
        z_test(a, b)
    with pytest.raises(DataError, match="has no \\(model, segment\\) ids"):
        mcnemar_test(_with_ids(a), _system(5, 1, 5, 1, source="c.txt"))
    flipped = Trials(a.scores, ~a.labels, source="d.txt")
    with pytest.raises(DataError, match=r"labelled differently in a\.txt and d\.txt"):
        paired_trials(a, flipped)
    with pytest.raises(DataError, match="per-trial weights"):
        z_test(a.with_weights(np.ones(10)), a)
    with pytest.raises(DataError, match="must be labelled Trials"):
        z_test(a.scores, a)
    with pytest.raises(DataError, match="variance must be"):
        z_test(a, a, variance="paired")
    with pytest.raises(DataError, match="trials must be"):
        mcnemar_test(a, a, trials="targets")
    with pytest.raises(DataError, match="significance level"):
        mcnemar_test(a, a, alpha=5)


def test_pairing_by_id_warns_about_left_out_trials():
    a = _with_ids(_system(20, 2, 80, 8, source="a.txt"))
    b = a.subset(np.arange(1, 100))
    with pytest.warns(LlrlabWarning, match="left out"):
        pa, pb = paired_trials(a, b)
    assert len(pa) == len(pb) == 99


def test_a_pair_is_joined_once(monkeypatch):
    from llrlab.core.calibration import fusion

    rng = np.random.default_rng(3)
    lab = rng.random(200) < 0.3
    ids = {"model_ids": [f"m{i % 7}" for i in range(200)],
           "segment_ids": [f"s{i}" for i in range(200)]}
    a = Trials(rng.normal(size=200), lab, **ids)
    b = Trials(rng.normal(size=200), lab, **ids)
    calls = []
    real = fusion.align_systems
    monkeypatch.setattr(fusion, "align_systems",
                        lambda *x, **kw: calls.append(1) or real(*x, **kw))
    pa, pb = paired_trials(a, b)
    assert paired_trials(pa, pb) == (pa, pb)
    z_test(pa, pb, 0.0)
    mcnemar_test(pa, pb, 0.0)
    assert len(calls) == 1
    assert paired_trials(pb, pa) == (pb, pa)  # the same pair, either way round
    assert len(calls) == 1
    c = Trials(rng.normal(size=200), lab, **ids)
    paired_trials(pa, c)  # another pair is joined
    assert len(calls) == 2
    assert z_test(pa, pb, 0.5).p_value == z_test(a, b, 0.5).p_value


# ------------------------------------------------------------------ weighted trials
#
# Hand-computed case.  Targets (T = 4, trials 0-3) with weights 1, 1, 2, 2; non-targets
# (N = 6, trials 4-9) with weights 1, 1, 1, 1, 2, 2; no conditions (one stratum).
# Kish: T_eff = 6^2 / (1+1+4+4) = 3.6, N_eff = 8^2 / (1+1+1+1+4+4) = 16/3.
#   A misses targets {2, 3} (weights 2, 2), false alarms on non-targets {7, 8} (weights 1, 2)
#   B misses targets {1, 3} (weights 1, 2), false alarm on non-target {5} (weight 1)
#   Pm_A = 4/6, Pm_B = 3/6, Pf_A = 3/8, Pf_B = 1/8.
# HTER weights cm = cf = 1/2: difference 1/2 (1/6) + 1/2 (2/8) = 5/24.
# Linearised variance sum w^2 (e - p)^2 / W^2 of each rate:
#   Pm_A: w (e - 2/3) = -2/3, -2/3, 2/3, 2/3 -> (16/9) / 36 = 4/81
#   Pm_B: w (e - 1/2) = -1/2, 1/2, -1, 1 -> (5/2) / 36 = 5/72
#   Pf_A: w (e - 3/8) = -3/8 (x3), 5/8, 10/8, -6/8 -> (188/64) / 64 = 47/1024
#   Pf_B: w (e - 1/8) = -1/8, 7/8, -1/8, -1/8, -2/8, -2/8 -> (60/64) / 64 = 15/1024
#   independent: s^2 = 1/4 (4/81 + 5/72) + 1/4 (47/1024 + 15/1024)
#   dependent: discordant targets {1, 2} (w 1, 2): (1 + 4) / 36; discordant non-targets
#   {5, 7, 8} (w 1, 1, 2): (1 + 1 + 4) / 64; s^2 = 1/4 (5/36) + 1/4 (6/64)
WLAB = np.array([True] * 4 + [False] * 6)
W = np.array([1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0])
WA = Trials([1, 1, -1, -1, -1, -1, -1, 1, 1, -1], WLAB, weights=W)
WB = Trials([1, -1, 1, -1, -1, 1, -1, -1, -1, -1], WLAB, weights=W)


def test_weighted_z_test_by_hand():
    r = z_test(WA, WB, normalize=False)
    assert r.weighted and (r.n_tar, r.n_non) == (4, 6)
    assert r.n_tar_effective == pytest.approx(3.6, rel=1e-15)
    assert r.n_non_effective == pytest.approx(16 / 3, rel=1e-15)
    assert r.p_miss_a == pytest.approx(2 / 3, rel=1e-15)
    assert (r.p_miss_b, r.p_fa_a, r.p_fa_b) == (0.5, 0.375, 0.125)
    assert r.difference == pytest.approx(5 / 24, rel=1e-14)
    assert r.estimator == "linearised"
    var = 0.25 * (4 / 81 + 5 / 72) + 0.25 * (47 / 1024 + 15 / 1024)
    assert r.std == pytest.approx(np.sqrt(var), rel=1e-14)
    assert r.p_value == pytest.approx(2 * norm.sf(5 / 24 / np.sqrt(var)), rel=1e-13)
    d = z_test(WA, WB, variance="dependent", normalize=False)
    var = 0.25 * 5 / 36 + 0.25 * 6 / 64
    assert d.std == pytest.approx(np.sqrt(var), rel=1e-14)
    # unweighted, the same trials give other rates (A: 2/4 misses, 2/6 false alarms)
    u = z_test(WA.with_weights(None), WB.with_weights(None), normalize=False)
    assert not u.weighted and u.p_fa_a == pytest.approx(2 / 6)


def test_weighted_mcnemar_by_hand():
    # all trials: only B errs on {1 (w 1), 5 (w 1)}, only A errs on {2 (w 2), 7 (w 1),
    # 8 (w 2)}: W_b = 2, W_c = 5; n_eff = 7^2 / (1+1+4+1+4) = 49/11;
    # b = 49/11 * 2/7 = 14/11, c = 35/11.  Exact on round(b) = 1 of round(n) = 4.
    r = mcnemar_test(WA, WB)
    assert r.weighted and (r.only_b_wrong, r.only_a_wrong) == (2, 3)
    assert (r.only_b_wrong_weight, r.only_a_wrong_weight) == (2.0, 5.0)
    assert r.n_effective == pytest.approx(49 / 11, rel=1e-15)
    assert r.method == "exact"
    assert r.p_value == pytest.approx(binomtest(1, 4, 0.5).pvalue, rel=1e-15)
    assert "system A makes significantly" not in r.verdict  # p = 0.625
    c = mcnemar_test(WA, WB, exact=False)
    assert c.method == "chi-square"
    assert c.statistic == pytest.approx(100 / (11 * 49), rel=1e-13)
    assert c.p_value == pytest.approx(chi2.sf(100 / (11 * 49), 1), rel=1e-13)
    # non-target trials only: only A errs on {7 (w 1), 8 (w 2)}, only B on {5 (w 1)}
    nt = mcnemar_test(WA, WB, trials="non-target", exact=False)
    assert (nt.only_b_wrong_weight, nt.only_a_wrong_weight) == (1.0, 3.0)
    assert nt.n_effective == pytest.approx(16 / 6, rel=1e-15)
    kb = 16 / 6 * 1 / 4
    assert nt.statistic == pytest.approx(max(abs(kb - (16 / 6 - kb)) - 1, 0) ** 2 / (16 / 6),
                                         rel=1e-13)


@pytest.mark.parametrize("seed", range(6))
def test_equal_weights_give_the_unweighted_tests(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 400))
    lab = rng.random(n) < rng.uniform(0.1, 0.6)
    lab[:2] = [True, False]
    sa = np.where(lab, 1.0, -1.0) + rng.normal(0, 1.5, n)
    sb = sa + rng.normal(0, rng.uniform(0.2, 2.0), n)
    a, b = Trials(sa, lab), Trials(sb, lab)
    for c in (1.0, 0.37, 3.0):
        wa, wb = a.with_weights(np.full(n, c)), b.with_weights(np.full(n, c))
        for plo in (-1.0, 0.0, 2.0):
            for var in ("independent", "dependent"):
                u, w = z_test(a, b, plo, variance=var), z_test(wa, wb, plo, variance=var)
                for k in ("statistic", "p_value", "dcf_a", "dcf_b", "std", "p_miss_a",
                          "p_fa_b"):
                    assert getattr(w, k) == pytest.approx(getattr(u, k), rel=1e-12,
                                                          abs=1e-15), (k, c, plo, var)
                assert w.verdict == u.verdict
            for cls in ("all", "target", "non-target"):
                for exact in (None, True, False):
                    u = mcnemar_test(a, b, plo, trials=cls, exact=exact)
                    w = mcnemar_test(wa, wb, plo, trials=cls, exact=exact)
                    assert (w.only_b_wrong, w.only_a_wrong, w.method) == (
                        u.only_b_wrong, u.only_a_wrong, u.method)
                    assert w.n_effective == pytest.approx(u.n_effective, rel=1e-12)
                    assert w.statistic == pytest.approx(u.statistic, rel=1e-12, abs=1e-15)
                    assert w.p_value == pytest.approx(u.p_value, rel=1e-12)


def test_condition_weighted_pool_is_tested_as_it_is_measured():
    from llrlab.core import analyze, condition_weights

    rng = np.random.default_rng(4)
    n = 3000
    cond = rng.choice(["tel", "mic", "far"], n, p=[0.7, 0.2, 0.1])
    lab = rng.random(n) < np.where(cond == "tel", 0.1, 0.4)
    sa = np.where(lab, 1.5, -1.5) + rng.normal(size=n) + (cond == "far")
    sb = sa + rng.normal(0, 0.8, n)
    wa = condition_weights(Trials(sa, lab, conditions=cond)).trials
    wb = condition_weights(Trials(sb, lab, conditions=cond)).trials
    r = z_test(wa, wb, plo=0.5)
    op_a, op_b = analyze(wa).at(0.5), analyze(wb).at(0.5)
    assert r.dcf_a == pytest.approx(op_a.act_dcf, rel=1e-12)
    assert r.dcf_b == pytest.approx(op_b.act_dcf, rel=1e-12)
    assert r.n_tar_effective < r.n_tar  # unequal condition weights: fewer effective trials


def test_weights_must_match_on_paired_trials():
    a = _system(5, 1, 5, 1, source="a.txt")
    b = _system(5, 2, 5, 1, source="b.txt")
    w = np.arange(1.0, 11.0)
    with pytest.raises(DataError, match=r"a\.txt carries per-trial weights and b\.txt does not"):
        z_test(a.with_weights(w), b)
    with pytest.raises(DataError, match=r"trial weights of a\.txt and b\.txt differ.*position 3"):
        mcnemar_test(a.with_weights(w), b.with_weights(np.where(w == 4.0, 4.5, w)))
    assert z_test(a.with_weights(w), b.with_weights(w * (1 + 1e-15))).weighted


def _errs(n_tar, n_non, misses, fas):
    """Scores +-1 with the first ``misses`` targets and ``fas`` non-targets wrong at 0."""
    lab = np.r_[np.ones(n_tar, bool), np.zeros(n_non, bool)]
    s = np.where(lab, 1.0, -1.0)
    s[:misses] = -1.0
    s[n_tar:n_tar + fas] = 1.0
    return Trials(s, lab)


def test_p_value_text_writes_an_underflow_as_below_1e300():
    from llrlab.core import p_value_text
    from llrlab.core.significance import _p

    assert [p_value_text(p) for p in (0.0, 1e-301, 2.5e-300, 0.0004567, 0.0123, 1.0)] == [
        "< 1e-300", "< 1e-300", "2.5e-300", "0.00046", "0.012", "1.000"]
    assert p_value_text(float("nan")) == "nan"
    assert _p(0.0) == "p < 1e-300" and _p(0.0123) == "p = 0.012"


def test_opposite_verdicts_explains_lower_dcf_against_fewer_errors():
    from llrlab.core import opposite_verdicts

    # A: no miss, 500 false alarms (Pfa 5 %); B: 50 misses (Pmiss 50 %), no false alarm.
    # At plo 0 the DCF weighs the rates equally: A costs less; McNemar: B errs less often.
    a, b = _errs(100, 10_000, 0, 500), _errs(100, 10_000, 50, 0)
    z, m = z_test(a, b, 0.0), mcnemar_test(a, b, 0.0)
    assert z.significant and m.significant and z.dcf_a < z.dcf_b
    assert m.only_a_wrong > m.only_b_wrong
    note = opposite_verdicts(m, z)
    assert note.endswith("so A can cost less while B makes fewer errors")
    # same system better on both: no note; the note needs both tests significant
    c = _errs(100, 10_000, 40, 600)
    assert opposite_verdicts(mcnemar_test(a, c, 0.0), z_test(a, c, 0.0)) == ""
    # equal DCF (Pmiss 5 % + Pfa 0 against Pmiss 0 + Pfa 5 %): McNemar alone is significant
    d = _errs(100, 10_000, 5, 0)
    zd, md = z_test(a, d, 0.0), mcnemar_test(a, d, 0.0)
    assert not zd.significant and md.significant
    assert opposite_verdicts(md, zd) == ""
