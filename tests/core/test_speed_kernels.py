"""The fast kernels of issue 20 against the plain constructions they replace.

Each fast path must give bitwise the result of the plain one where the computation is the
same (PAV blocks, Cllr sums, the (score, code) sort, factorize); the one-system affine fit
from sorted classes sums in another order and agrees with the general fit to 1e-12.
"""

from __future__ import annotations

import contextlib
import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import llrlab.core._sorting as sorting
import llrlab.core.trials as trials_mod
from llrlab.core import DataError, Trials, analyze
from llrlab.core.calibration._logreg import fit_linear, fit_sorted

cllr_mod = importlib.import_module("llrlab.core.cllr")  # the package exports cllr()

# few distinct values (ties everywhere), some of them within a few ulps of each other
_BASE = [-3.0, -1.0, -0.0, 0.0, 0.25, 1.0, 2.5]
_NEAR = [1.0 + k * 2.0 ** -52 for k in range(-3, 4)]
tie_values = st.sampled_from(_BASE + _NEAR)
scores = st.lists(tie_values, min_size=1, max_size=120).map(np.array)
weights = st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5]), min_size=1, max_size=120)


def _blocks(tar, non, tw=None, nw=None):
    s = sorting.sort_scores(tar, non, tar_weights=tw, non_weights=nw)
    b = sorting.pooled_blocks(s)
    return b.lower, b.upper, b.tar, b.non, b.llr


def _with_rounds(rounds, fn):
    saved = sorting._ROUNDS, sorting._ROUNDS_MIN
    sorting._ROUNDS, sorting._ROUNDS_MIN = rounds, 2  # the rounds on every size, or none
    try:
        return fn()
    finally:
        sorting._ROUNDS, sorting._ROUNDS_MIN = saved


@settings(max_examples=300, deadline=None)
@given(scores, scores, st.booleans(), weights, weights)
def test_pav_rounds_give_the_blocks_of_scipys_pav_alone(tar, non, weighted, tw, nw):
    tw = np.resize(np.array(tw), tar.size) if weighted else None
    nw = np.resize(np.array(nw), non.size) if weighted else None
    if weighted and not (tw.sum() > 0 and nw.sum() > 0):
        return
    fast = _with_rounds(16, lambda: _blocks(tar, non, tw, nw))
    plain = _with_rounds(0, lambda: _blocks(tar, non, tw, nw))  # scipy's PAV alone
    for a, b in zip(fast, plain, strict=True):
        assert_array_equal(a, b)


def test_pav_rounds_shrink_a_large_problem_exactly():
    rng = np.random.default_rng(3)
    tar = np.round(rng.normal(1.0, 1.0, 20_000), 3)
    non = np.round(rng.normal(-1.0, 1.0, 200_000), 3)
    s = sorting.sort_scores(tar, non)
    *_, t, n, kept = sorting._elementary_masses(s)
    if kept is not None:
        t, n = t[kept], n[kept]
    starts, _, _ = sorting._merge_violators(t, n)
    assert starts is not None and starts.size < t.size // 10
    # every pooled block of the rounds lies inside one block of the full PAV
    full = sorting._pool(t, n)
    assert np.isin(full, starts).all()


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3000), st.sampled_from([1.0, -1.0]), st.sampled_from([0.0, 1.5]),
       st.integers(0, 2**31))
def test_cllr_sum_in_pieces_is_numpys_pairwise_sum(n, sign, shift, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_cauchy(n) * 3.0
    if n > 3:
        x[:3] = [np.inf, -np.inf, -0.0]
    old = cllr_mod._PIECE
    cllr_mod._PIECE = 64  # many pieces and recursion levels on small arrays
    try:
        got = cllr_mod._pairwise_terms_sum(x, sign, shift)
    finally:
        cllr_mod._PIECE = old
    want = float(cllr_mod.softplus_terms(x, sign=sign, shift=shift).sum()) if n else 0.0
    assert got == want


@contextlib.contextmanager
def tagged_sort(on=True):
    """cosort_codes on its two-sort path (the tagged copy and near ties), as for scores
    whose exponents span too many binades for the one-sort keys."""
    base = sorting._exponent_base
    if on:
        sorting._exponent_base = lambda x, bits: None
    try:
        yield
    finally:
        sorting._exponent_base = base


def _pairs_sorted(x, c):
    return sorted(zip((x + 0.0).tolist(), c.tolist(), strict=True))


def _as_pairs(xs, cs):
    assert not np.signbit(xs[xs == 0]).any()  # a zero score comes out as +0.0
    return list(zip(xs.tolist(), cs.tolist(), strict=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(tie_values, st.integers(0, 10)), min_size=1, max_size=200),
       st.booleans())
def test_cosort_is_the_sort_of_the_pairs(pairs, keys):
    # both paths: one sort of exact keys (these scores span few binades), and the two
    # float sorts with their near ties
    x = np.array([p[0] for p in pairs])
    c = np.array([p[1] for p in pairs])
    assert sorting._exponent_base(x, 4) is not None  # 0.25 ... 3: the keys hold them
    with tagged_sort(not keys):
        xs, cs = sorting.cosort_codes(x, c, 4)
    assert_array_equal(xs, np.sort(x))
    assert _as_pairs(xs, cs) == _pairs_sorted(x, c)


# any finite float64: zeros of both signs, subnormals, neighbours a few ulps apart, and
# magnitudes from 1e-300 to 1e300 (most draws span too many binades for the keys)
_ANY_FLOAT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1.0, -1.0, 1.0 + 2.0 ** -52,
                     -1.0 - 2.0 ** -52, 1.0 - 2.0 ** -53]),
    st.integers(-40, 40).map(lambda e: 1.5 * 2.0 ** e),
    st.integers(-40, 40).map(lambda e: -(2.0 ** e)))


@settings(max_examples=600, deadline=None)
@given(st.integers(1, 9).flatmap(lambda b: st.tuples(
    st.just(b), st.lists(st.tuples(_ANY_FLOAT, st.integers(0, (1 << b) - 1)),
                         min_size=1, max_size=150))),
       st.booleans())
def test_cosort_keys_are_exact_on_any_finite_scores(drawn, overwrite):
    # the one-sort keys where the exponents fit (else the two sorts), in place or not: the
    # sort of the (score, code) pairs, bit for bit, and the near ties never need original()
    bits, pairs = drawn
    x = np.array([p[0] for p in pairs])
    c = np.array([p[1] for p in pairs], dtype=np.uint8 if bits <= 8 else np.intp)
    nz = np.abs(x[x != 0]).view(np.int64) >> 52
    fits = nz.size == 0 or int(nz.max() - nz.min()) + 1 <= (1 << (11 - bits)) - 2
    assert (sorting._exponent_base(x, bits) is not None) == fits
    calls = []

    def original():
        calls.append(1)
        return x.copy()

    done = sorting.cosort_codes(x.copy(), c, bits, overwrite=overwrite, original=original)
    if done is None:  # only the two-sort path declines (a negative subnormal near zero)
        assert not fits
        return
    xs, cs = done
    assert cs.dtype == c.dtype
    assert _as_pairs(xs, cs) == _pairs_sorted(x, c)
    assert_array_equal(xs.view(np.int64), np.sort(x + 0.0).view(np.int64))
    if fits:
        assert calls == []


@pytest.mark.parametrize("bits", [1, 4, 6, 8, 9])
def test_cosort_keys_at_the_edge_of_the_exponent_span(bits):
    # 2**(11 - bits) - 2 binades of non-zero scores fit in the keys; one more does not
    span = (1 << (11 - bits)) - 2
    rng = np.random.default_rng(bits)
    for e_lo, width in ((-1022, span), (-60, span), (1023 - span + 1, span), (-30, span + 1)):
        e = rng.integers(e_lo, e_lo + width, 500)
        x = rng.choice([-1.0, 1.0], 500) * rng.uniform(1.0, 2.0, 500) * np.exp2(e)
        x[::11] = 0.0
        x[1::7] = x[:-1:7]  # ties
        x[2], x[4] = -(2.0 ** e_lo), 1.75 * 2.0 ** (e_lo + width - 1)  # the span's ends
        c = rng.integers(0, 1 << bits, 500).astype(np.uint8 if bits <= 8 else np.intp)
        base = sorting._exponent_base(x, bits)
        assert (base is not None) == (width <= span)
        done = sorting.cosort_codes(x.copy(), c, bits, overwrite=True,
                                    original=lambda x=x: x.copy())
        assert done is not None
        assert _as_pairs(*done) == _pairs_sorted(x, c)


def test_cosort_keys_sort_in_place_without_a_second_array():
    # with overwrite, the keys are the scores' own memory: the codes (1 byte a score) and
    # cached pieces are all that is allocated
    import tracemalloc

    rng = np.random.default_rng(3)
    n = 1_000_000
    x = rng.normal(size=n)
    c = rng.integers(0, 11, n).astype(np.uint8)
    want = np.lexsort((c, x))
    tracemalloc.start()
    try:
        xs, cs = sorting.cosort_codes(x, c, 4, overwrite=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert xs is x
    assert peak < 3 * n  # a float64 copy would be 8 n
    assert_array_equal(cs, c[want])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(tie_values, st.integers(0, 10)), min_size=1, max_size=200))
def test_cosort_in_place_takes_near_ties_from_the_original(pairs):
    # the two-sort path: sorted in place, the scores' first order is gone, so the near-tie
    # groups are re-sorted from original() (a fresh gather), with the pairs sort's result;
    # without it, None
    x = np.array([p[0] for p in pairs])
    c = np.array([p[1] for p in pairs])
    want = sorted(zip((x + 0.0).tolist(), c.tolist(), strict=True))
    calls = []

    def original():
        calls.append(1)
        return x.copy()

    with tagged_sort():
        xs, cs = sorting.cosort_codes(x.copy(), c, 4, overwrite=True, original=original)
    assert list(zip(xs.tolist(), cs.tolist(), strict=True)) == want
    hi = np.sort(x + 0.0).view(np.int64) >> 4
    bits = np.sort(x + 0.0).view(np.int64)
    near = bool(((hi[1:] == hi[:-1]) & (bits[1:] != bits[:-1])).any())
    assert calls == ([1] if near else [])
    if near:
        with tagged_sort():
            assert sorting.cosort_codes(x.copy(), c, 4, overwrite=True) is None
        # the keys need no original()
        assert _as_pairs(*sorting.cosort_codes(x.copy(), c, 4, overwrite=True)) == want


@pytest.mark.parametrize("keys", [True, False])
def test_one_near_tie_keeps_the_in_place_sorts_of_trials(monkeypatch, keys):
    # one pair of scores 2 ulps apart among 10^5 (about what 10^7 Gaussian scores hold):
    # the condition sort and the count-weight sort stay in place, on the one-sort keys or
    # on the tagged sort (no pairs sort), and give the pairs sort's result
    with tagged_sort(not keys):
        _one_near_tie(monkeypatch)


def _one_near_tie(monkeypatch):
    rng = np.random.default_rng(11)
    n = 100_000
    x = rng.normal(size=n)
    lab = np.zeros(n, dtype=bool)
    lab[::5] = True
    x[1], x[6] = 0.75, 0.75 + 2 * 2.0 ** -53  # two non-targets 2 ulps apart
    cond = np.array(["a", "b/c", "dd"])[np.arange(n) % 3]
    cond[1], cond[6] = "dd", "a"  # the higher score has the lower code
    w = rng.integers(1, 11, n).astype(np.float64)
    w[1], w[6] = 9.0, 2.0
    real = sorting.cosort_codes
    seen = []

    def spy(*a, **k):
        out = real(*a, **k)
        seen.append(out is not None)
        return out

    monkeypatch.setattr(sorting, "cosort_codes", spy)
    t = Trials(x, lab, conditions=cond)
    tar, tar_c, non, non_c = t.condition_sorted()
    s = Trials(x, lab, weights=w).sorted()
    assert seen == [True] * 4
    _, codes = t.condition_index()
    for m, got_x, got_c, ws in ((lab, tar, tar_c, s.tar_w), (~lab, non, non_c, s.non_w)):
        for key, got in ((codes, got_c), (w, ws)):
            pairs = np.empty(int(m.sum()), dtype=np.complex128)
            pairs.real, pairs.imag = x[m], key[m]
            pairs.sort()
            assert_array_equal(got_x, pairs.real)
            assert_array_equal(got, pairs.imag.astype(got.dtype))
    assert list(non_c[np.searchsorted(non, 0.75):][:2]) == [2, 0]  # by score, not code
    assert_array_equal(t.scores, x)


def test_cosort_declines_infinite_scores_and_weights_fall_back_to_pairs():
    x = np.array([1.0, np.inf, -2.0])
    assert sorting.cosort_codes(x, np.array([1, 2, 3]), 2) is None
    xs, _, ws, _ = sorting._sort_with_weights(x, np.array([1.0, 2.0, 3.0]))
    assert_array_equal(xs, [-2.0, 1.0, np.inf])
    assert_array_equal(ws, [3.0, 1.0, 2.0])


def test_integer_weights_sort_like_pairs_on_many_near_ties():
    rng = np.random.default_rng(7)
    x = rng.choice(_NEAR + _BASE, 100_000) * (1 + rng.integers(-2, 3, 100_000) * 2.0 ** -52)
    w = rng.integers(0, 11, x.size).astype(np.float64)
    xs, _, ws, _ = sorting._sort_with_weights(x, w)
    pairs = np.empty(x.size, dtype=np.complex128)
    pairs.real, pairs.imag = x + 0.0, w
    pairs.sort()
    assert_array_equal(xs, pairs.real)
    assert_array_equal(ws, pairs.imag)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["a", "b/c", "", "x" * 37, "é", "Ω/long/name/with/slashes",
                                 "b", "abcdefgh", "zz"]), min_size=1, max_size=300),
       st.booleans())
def test_hashed_factorize_is_numpy_unique(labels, as_bytes):
    v = np.array(labels)
    if as_bytes:
        v = np.array([s.encode("utf-8") for s in labels])
    old = trials_mod._FACTORIZE_HASH, trials_mod._CANDIDATE_PREFIX
    trials_mod._FACTORIZE_HASH = 1
    trials_mod._CANDIDATE_PREFIX = 0  # no candidates: the hash table's route
    try:
        names, codes = trials_mod.factorize(v)
    finally:
        trials_mod._FACTORIZE_HASH, trials_mod._CANDIDATE_PREFIX = old
    want_names, want_codes = np.unique(v, return_inverse=True)
    assert_array_equal(names, want_names)
    assert names.dtype == want_names.dtype
    assert_array_equal(codes, want_codes.ravel())


def test_nan_scores_are_found_by_the_sort_with_the_scan_s_message():
    with pytest.raises(DataError, match=r"target scores has 1 NaN value\(s\); the first is "
                                        r".*nan\) at index 1"):
        analyze([1.0, np.nan], [0.0])
    with pytest.raises(DataError, match=r"non-target scores has 2 NaN value\(s\)"):
        analyze([1.0], [0.0, np.nan, np.nan])


def test_sorting_a_trials_leaves_its_scores_in_file_order():
    s = np.array([3.0, -1.0, 2.0, 0.5, -2.0])
    t = Trials(s.copy(), [True, False, True, False, False])
    t.sorted()
    assert_array_equal(t.scores, s)
    assert_array_equal(t.tar, [3.0, 2.0])
    assert_array_equal(t.sorted().tar, [2.0, 3.0])


@pytest.mark.parametrize("prior", [0.5, 0.01, 0.9])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_from_sorted_classes_agrees_with_the_general_fit(prior, weighted):
    rng = np.random.default_rng(11)
    n = 30_000
    lab = rng.random(n) < 0.1
    x = 3.0 * (np.where(lab, 1.0, -1.0) + rng.normal(size=n)) + 7.0
    w = rng.integers(0, 4, n).astype(np.float64) if weighted else None
    ref = fit_linear(x, lab, prior, weights=w)
    t = Trials(x, lab, weights=w)
    s = t.sorted()
    got = fit_sorted(s.tar, s.non, prior, tar_weights=s.tar_w, non_weights=s.non_w)
    assert got.weights[0] == pytest.approx(ref.weights[0], rel=1e-11)
    assert got.offset == pytest.approx(ref.offset, rel=1e-11, abs=1e-12)
    assert got.objective == pytest.approx(ref.objective, rel=1e-13)
    assert got.separable == ref.separable and got.rank == ref.rank


def test_fit_from_sorted_classes_detects_separable_and_constant_scores():
    tar, non = np.array([2.0, 3.0, 5.0]), np.array([-1.0, 0.0, 2.0])
    with pytest.warns(Warning, match="separable"):
        assert fit_sorted(tar, non).separable
    with pytest.warns(Warning, match="all the scores are equal"):
        f = fit_sorted(np.array([1.0, 1.0]), np.array([1.0, 1.0, 1.0]))
    assert f.rank == 0
    with pytest.raises(DataError, match="no target trials"):
        fit_sorted(np.array([]), np.array([1.0]))


def test_condition_sort_with_near_ties_is_the_sort_of_the_pairs():
    # scores a few ulps apart in different conditions: the in-place (score, code) sort
    # gives way to the pairs sort, with the same result
    rng = np.random.default_rng(2)
    n = 20_000
    x = rng.choice(_NEAR + _BASE, n) * (1 + rng.integers(-2, 3, n) * 2.0 ** -52)
    lab = rng.random(n) < 0.3
    cond = rng.choice(["a", "bb", "c/d"], n)
    t = Trials(x, lab, conditions=cond)
    tar, tar_c, non, non_c = t.condition_sorted()
    _, codes = t.condition_index()
    for m, s, c in ((lab, tar, tar_c), (~lab, non, non_c)):
        pairs = np.empty(int(m.sum()), dtype=np.complex128)
        pairs.real, pairs.imag = x[m] + 0.0, codes[m]
        pairs.sort()
        assert_array_equal(s, pairs.real)
        assert_array_equal(c, pairs.imag.astype(np.intp))
    assert_array_equal(t.scores, x)  # the trials' own scores are not sorted in place


@pytest.mark.parametrize("n_strata", [1, 3, 16, 40])
def test_integer_weights_with_strata_sort_like_the_pairs(n_strata):
    # counts 1-10 and condition codes in one tag when they fit in CODE_BITS (3 strata:
    # 6 bits; 16: 8 bits), else the argsort of the pairs (40 strata): the same scores and
    # weights as the pairs sort, each stratum with its own (score, weight)
    rng = np.random.default_rng(n_strata)
    n = 30_000
    x = np.round(rng.normal(size=n), 3)  # many exact ties
    x[:50] = _NEAR[0] * (1 + np.arange(50) % 3 * 2.0 ** -52)  # a few near ties
    w = rng.integers(1, 11, n).astype(np.float64)
    s = rng.integers(0, n_strata, n)
    xs, cw, ws, ss = sorting._sort_with_weights(x, w, s)
    pairs = np.empty(n, dtype=np.complex128)
    pairs.real, pairs.imag = x + 0.0, w
    pairs.sort()
    assert_array_equal(xs, pairs.real)
    assert_array_equal(ws, pairs.imag)
    assert_array_equal(cw[1:], np.cumsum(ws))
    assert ss.dtype == s.dtype
    assert sorted(zip(xs.tolist(), ws.tolist(), ss.tolist(), strict=True)) == sorted(
        zip((x + 0.0).tolist(), w.tolist(), s.tolist(), strict=True))


@pytest.mark.parametrize("with_conditions", [False, True])
@pytest.mark.parametrize("kind", ["counts", "half", "near"])
def test_count_weights_sorted_from_byte_codes_as_sort_scores(monkeypatch, with_conditions,
                                                             kind):
    # integer weights (counts): Trials.sorted codes the weights once and gathers bytes, with
    # the same sorted scores, weights and sums as sort_scores, bit for bit; one weight of
    # 0.5, or scores a few ulps apart (the in-place sort gives way), take the general sort
    rng = np.random.default_rng(5)
    n = 20_000
    x = np.round(rng.normal(size=n), 2)
    if kind == "near":
        x[:60] = np.array(_NEAR)[np.arange(60) % len(_NEAR)]
    lab = rng.random(n) < 0.2
    w = rng.integers(0, 11, n).astype(np.float64)
    if kind == "half":
        w[7] = 0.5
    cond = rng.choice(["a", "b/c", "dd"], n) if with_conditions else None
    t = Trials(x, lab, weights=w, conditions=cond)
    if kind == "counts":
        monkeypatch.setattr(Trials, "tar_weights", property(lambda self: pytest.fail("gather")))
    s = t.sorted()
    monkeypatch.undo()
    codes = t.condition_index()[1] if with_conditions else None
    ref = sorting.sort_scores(
        x[lab], x[~lab], tar_weights=w[lab], non_weights=w[~lab],
        tar_strata=None if codes is None else codes[lab],
        non_strata=None if codes is None else codes[~lab])
    for f in ("tar", "non", "tar_w", "non_w", "tar_cw", "non_cw"):
        assert_array_equal(getattr(s, f), getattr(ref, f))
    assert (s.n_tar, s.n_non) == (ref.n_tar, ref.n_non)
    if with_conditions:
        for a, b, ws, cs in ((s.tar, ref.tar, s.tar_w, s.tar_strata),
                             (s.non, ref.non, s.non_w, s.non_strata)):
            ref_s = ref.tar_strata if b is ref.tar else ref.non_strata
            assert sorted(zip(a.tolist(), ws.tolist(), cs.tolist(), strict=True)) == sorted(
                zip(b.tolist(), ws.tolist(), ref_s.tolist(), strict=True))
    else:
        assert s.tar_strata is None and s.non_strata is None
