"""Linear fusion: agreement with scikit-learn, held-out gain, alignment by trial id, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logit

from llrlab.core import DataError, LlrlabWarning, Scores, SeparableDataWarning, Trials, cllr
from llrlab.core.calibration import AffineCalibrator, FusionCalibrator, align_systems


def systems(n, seed, *, k=2, rho=0.5, prevalence=0.2):
    """K correlated Gaussian systems on the same n trials (with ids), as Trials."""
    r = np.random.default_rng(seed)
    lab = r.random(n) < prevalence
    base = np.where(lab, 1.5, -1.5)
    common = r.normal(0, 1, n)
    out = []
    for i in range(k):
        noise = rho * common + np.sqrt(1 - rho**2) * r.normal(0, 1, n)
        s = (0.5 + 0.5 * i) * base + (1 + i) * noise + 3 * i  # different scales and offsets
        out.append(Trials(s, lab, model_ids=np.array([f"m{j % 97}" for j in range(n)]),
                          segment_ids=np.array([f"s{j}" for j in range(n)]),
                          source=f"sys{i}"))
    return out


def test_fusion_of_correlated_systems_beats_each_alone_on_held_out_data():
    dev, ev = systems(20_000, 1), systems(20_000, 2)
    fus = FusionCalibrator.fit(dev)
    fused = fus(ev)
    alone = [cllr(AffineCalibrator.fit(d)(e)) for d, e in zip(dev, ev, strict=True)]
    assert cllr(fused) < min(alone) - 0.02
    assert fus.training.cllr < min(fus.training.cllr_raw)
    assert np.array_equal(fused.labels, ev[0].labels)


@pytest.mark.parametrize("p", [0.5, 0.05])
def test_matches_sklearn_with_prior_weights(p):
    from sklearn.linear_model import LogisticRegression

    dev = systems(5000, 3, k=3)
    fus = FusionCalibrator.fit(dev, prior=p)
    x = np.column_stack([t.scores for t in dev])
    y = dev[0].labels
    n_t, n_n = y.sum(), (~y).sum()
    w = np.where(y, p / n_t, (1 - p) / n_n) * y.size
    lr = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(x, y, sample_weight=w)
    # agreement limited by sklearn's stopping rule (see test_affine)
    assert_allclose(fus.weights, lr.coef_[0], rtol=1e-7)
    assert fus.offset + logit(p) == pytest.approx(lr.intercept_[0], rel=1e-7)


def test_one_system_fusion_is_affine_calibration():
    (dev,) = systems(3000, 4, k=1)
    fus = FusionCalibrator.fit([dev], prior=0.3)
    aff = AffineCalibrator.fit(dev, prior=0.3)
    assert_allclose([fus.weights[0], fus.offset], [aff.scale, aff.offset], rtol=1e-12)
    assert fus.objective == pytest.approx(aff.objective, rel=1e-14)


def test_negative_weights_are_allowed():
    a, b = systems(4000, 5)
    flipped = Trials(-b.scores, b.labels, model_ids=b.model_ids, segment_ids=b.segment_ids)
    w_pos = FusionCalibrator.fit([a, b]).weights
    w_neg = FusionCalibrator.fit([a, flipped]).weights
    assert w_neg[1] < 0 and w_neg[1] == pytest.approx(-w_pos[1], rel=1e-9)


def test_alignment_by_id_in_any_order():
    a, b = systems(3000, 6)
    perm = np.random.default_rng(0).permutation(len(b))
    fus = FusionCalibrator.fit([a, b])
    shuffled = FusionCalibrator.fit([a, b.subset(perm)])
    assert_allclose(shuffled.weights, fus.weights, rtol=1e-12)
    # applied to unlabelled scores in another order: output in the first set's order
    out = fus([a.unlabelled(), b.unlabelled().subset(perm)])
    assert isinstance(out, Scores)
    assert np.array_equal(out.model_ids, a.model_ids)
    assert_allclose(out.scores, np.column_stack([a.scores, b.scores]) @ fus.weights
                    + fus.offset, rtol=1e-15)


def test_trials_missing_from_a_system_are_reported_and_left_out():
    a, b = systems(1000, 7)
    drop_b = b.subset(np.arange(10, len(b)))         # 10 trials missing from b
    with pytest.warns(LlrlabWarning, match="10 of the 1000 trials of sys0 are not in every"):
        al, rep = align_systems([a, drop_b])
    assert rep.by_id and rep.n_common == 990 and rep.left_out == (10, 0)
    assert rep.examples[0] == "m0 s0" and rep.examples[1] == ""
    assert len(al[0]) == len(al[1]) == 990
    assert np.array_equal(al[0].keys(), al[1].keys())
    with pytest.warns(LlrlabWarning, match="left out") as rec:
        fus = FusionCalibrator.fit([a, drop_b])
    assert len(rec) == 1
    assert fus.training.n_tar + fus.training.n_non == 990
    assert any("10 of the 1000" in n for n in fus.training.notes)


def test_systems_without_ids_are_matched_by_position():
    lab = np.array([True, False, True, False, False])
    a = Trials([2.0, 0.0, 1.0, -1.0, 0.5], lab)
    b = Trials([1.0, 0.5, 2.0, 0.0, -0.5], lab)
    _al, rep = align_systems([a, b])
    assert not rep.by_id and rep.n_common == 5
    with pytest.raises(DataError, match="equal lengths"):
        align_systems([a, b.subset(np.arange(4))])


@pytest.mark.parametrize("case, match", [
    ("no common trial", "share no trial"),
    ("duplicate", "lists the trial m1 s1 more than once"),
    ("labels disagree", "disagree on 1 trial"),
    ("mixed ids", "has no \\(model, segment\\) ids"),
    ("weights differ", "different trial weights"),
    ("empty", "at least one"),
    ("unlabelled", "labelled Trials"),
])
def test_bad_fusion_input(case, match):
    lab = np.array([True, False, False])
    ids = dict(model_ids=["m1", "m1", "m2"], segment_ids=["s1", "s2", "s1"])
    a = Trials([1.0, 0.0, -1.0], lab, **ids, source="a")
    b = Trials([2.0, 0.5, 0.0], lab, **ids, source="b")
    if case == "no common trial":
        b = Trials([2.0, 0.5, 0.0], lab, model_ids=["x", "y", "z"], segment_ids=["s"] * 3)
    elif case == "duplicate":
        b = Trials([2.0, 0.5, 0.0], lab, model_ids=["m1", "m1", "m2"],
                   segment_ids=["s1", "s1", "s1"])
    elif case == "labels disagree":
        b = Trials([2.0, 0.5, 0.0], [True, True, False], **ids, source="b")
    elif case == "mixed ids":
        b = Trials([2.0, 0.5, 0.0], lab)
    elif case == "weights differ":
        b = b.with_weights([1.0, 2.0, 1.0])
    systems_ = [] if case == "empty" else [a, b]
    if case == "unlabelled":
        systems_ = [a, b.unlabelled()]
    with pytest.raises(DataError, match=match):
        FusionCalibrator.fit(systems_)


def test_labels_disagreement_names_the_trial():
    lab = np.array([True, False, False])
    ids = dict(model_ids=["m1", "m1", "m2"], segment_ids=["s1", "s2", "s1"])
    a = Trials([1.0, 0.0, -1.0], lab, **ids, source="a.txt")
    b = Trials([2.0, 0.5, 0.0], [True, True, False], **ids, source="b.txt")
    with pytest.raises(DataError, match=r"a\.txt and b\.txt disagree on 1 trial.*m1 s2"):
        FusionCalibrator.fit([a, b])


def test_collinear_systems_get_the_minimum_norm_solution():
    a, _ = systems(3000, 8)
    twin = Trials(2 * a.scores + 1, a.labels, model_ids=a.model_ids, segment_ids=a.segment_ids)
    with pytest.warns(LlrlabWarning, match="span only 1 dimension"):
        fus = FusionCalibrator.fit([a, twin])
    aff = AffineCalibrator.fit(a)
    # the fused LLRs are those of the affine calibration of either system
    assert_allclose(fus(np.column_stack([a.scores, twin.scores])), aff(a.scores), rtol=1e-9,
                    atol=1e-9)
    assert fus.training.cllr == pytest.approx(aff.training.cllr, rel=1e-10)


def _nearly_equal_systems(n=20_000, seed=1):
    """Two systems on a 1e6 scale whose correlation is 1 - 1.8e-12: the first carries a weak
    cue ``u``, the second adds a small multiple of a strong, independent cue ``v``, so their
    difference (a spread of 1.4e-6 of theirs, far above rounding) is informative."""
    r = np.random.default_rng(seed)
    lab = r.random(n) < 0.3
    u = np.where(lab, 0.3, -0.3) + r.normal(size=n)
    v = np.where(lab, 1.0, -1.0) + r.normal(size=n)
    a, b = 1e6 * u, 1e6 * (u + 1.47e-6 * v)
    assert 1 - np.corrcoef(a, b)[0, 1] == pytest.approx(1.8e-12, rel=0.01)
    return Trials(a, lab, source="a"), Trials(b, lab, source="b")


def test_nearly_equal_systems_keep_their_informative_difference():
    # Regression: the rank was decided on the eigenvalues of the raw covariance at 1e-12
    # (the square of the spread): the difference direction (eigenvalue ratio 9e-13) was
    # dropped with a warning claiming one dimension, and the fused dev Cllr was 0.94
    # against the optimum 0.496 that scikit-learn and scipy both reach.
    from scipy.optimize import minimize
    from sklearn.linear_model import LogisticRegression

    a, b = _nearly_equal_systems()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fus = FusionCalibrator.fit([a, b])
    x = np.column_stack([a.scores, b.scores])
    y = a.labels
    w = np.where(y, 0.5 / y.sum(), 0.5 / (~y).sum()) * y.size
    lr = LogisticRegression(C=np.inf, tol=1e-14, max_iter=100_000).fit(x, y, sample_weight=w)
    want = cllr(x[y] @ lr.coef_[0] + lr.intercept_[0], x[~y] @ lr.coef_[0] + lr.intercept_[0])
    # scipy, in the coordinates (a, b - a) rescaled, where the problem is well conditioned
    z = np.column_stack([a.scores / 1e6, (b.scores - a.scores) / 1.47])

    def obj(t):
        llr = z @ t[:2] + t[2]
        return cllr(llr[y], llr[~y])

    ref = minimize(obj, np.zeros(3), method="BFGS", options={"gtol": 1e-12})
    assert want == pytest.approx(ref.fun, rel=1e-8)
    assert fus.training.cllr == pytest.approx(want, rel=1e-9)
    assert fus.training.cllr < 0.5 < min(fus.training.cllr_raw)


def test_the_dropped_direction_is_named_with_its_reason():
    a, _ = systems(3000, 8)
    lab = a.labels
    const = Trials(np.full(len(a), 3.0), lab, source="flat")
    twin = Trials(2 * a.scores + 1, lab, source="twin")
    with pytest.warns(LlrlabWarning) as rec:
        fus = FusionCalibrator.fit([Trials(a.scores, lab, source="sys0"), twin, const])
    (msg,) = [str(w.message) for w in rec]
    assert "span only 1 dimension" in msg and "[flat] is constant" in msg
    assert "0.7071*[sys0] - 0.7071*[twin]" in msg or "-0.7071*[sys0] + 0.7071*[twin]" in msg
    assert "below 1e-10 of the largest" in msg
    assert fus.weights[2] == 0.0
    # a large common offset: the twin is an affine function of sys0 up to the rounding of
    # scores near 1e6, which the warning says
    big = [Trials(a.scores + 1e6, lab, source="sys0"),
           Trials(2 * a.scores + 1e6, lab, source="twin")]
    with pytest.warns(LlrlabWarning, match="within the rounding error of the scores"):
        FusionCalibrator.fit(big)


def test_separable_in_two_dimensions_only():
    """Each system alone overlaps, but their sum separates the classes: the LP finds it."""
    r = np.random.default_rng(9)
    n = 4000
    u, v = r.normal(size=n), r.normal(size=n)
    lab = u + v > 0
    a, b = Trials(u, lab), Trials(v, lab)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AffineCalibrator.fit(a)  # overlapping alone: no warning
    with pytest.warns(SeparableDataWarning, match="separable"):
        fus = FusionCalibrator.fit([a, b])
    assert fus.regularised
    llr = fus(np.column_stack([u, v]))
    # finite; the penalised direction is close to the separator (1, 1), so only trials
    # within a tiny margin of the boundary u + v = 0 can fall on the wrong side
    assert np.all(np.isfinite(llr)) and np.abs(llr).max() < 100
    assert fus.weights[0] == pytest.approx(fus.weights[1], rel=0.05)
    wrong = (llr > 0) != lab
    assert wrong.sum() <= 10 and np.abs(u + v)[wrong].max() < 0.02
    # one trial on the wrong side of every line through the cloud: no longer separable
    lab2 = lab.copy()
    far = np.argmax(u + v)
    lab2[far] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fus2 = FusionCalibrator.fit([Trials(u, lab2), Trials(v, lab2)])
    assert not fus2.regularised


def test_apply_checks_its_input():
    dev = systems(500, 10)
    fus = FusionCalibrator.fit(dev, names=["A", "B"])
    assert fus.systems == ("A", "B") and fus.n_systems == 2 and not fus.monotone
    with pytest.raises(DataError, match="2 columns"):
        fus(np.zeros((3, 3)))
    with pytest.raises(DataError, match="NaN"):
        fus(np.array([[0.0, np.nan]]))
    with pytest.raises(DataError, match="got 1 score sets"):
        fus.apply_systems([dev[0]])
    with pytest.raises(DataError, match="give a list of 2"):
        fus(dev[0])
    rep = fus.report()
    assert rep["method"] == "fusion" and rep["systems"] == ["A", "B"]
    assert rep["train_cllr_before"] == list(fus.training.cllr_raw)
    assert "- " in fus.lines()[0] or "+ " in fus.lines()[0]
