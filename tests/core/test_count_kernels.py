"""Kernels that run in pieces in llrlab's chunk threads: the same numbers, bit for bit, as the
plain passes (cumulative counts, byte codes, tagged keys, segment sums, searches), on arrays
long enough to be cut into pieces, with one thread and with two."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import llrlab.core._parallel as par
import llrlab.core._sorting as sorting

LONG = par.PARALLEL_MIN + 12_345  # cut into pieces, in threads when there are threads


@pytest.fixture(params=[1, 2], ids=["one-thread", "two-threads"])
def threads(request):
    par.set_threads(request.param)
    yield request.param
    par.set_threads()


def test_cumulative_counts_are_numpys_cumsum(threads):
    w = np.random.default_rng(1).integers(0, 256, LONG).astype(np.float64)
    got = sorting._cumulative_counts(w)
    assert got.tobytes() == sorting._cumulative(w).tobytes()
    short = np.array([3.0, 0.0, 7.0])
    assert_array_equal(sorting._cumulative_counts(short), [0.0, 3.0, 3.0, 10.0])
    assert_array_equal(sorting._cumulative_counts(np.zeros(0)), [0.0])


def test_cumulative_counts_decline_a_total_of_2_to_the_53():
    assert sorting._cumulative_counts(np.array([2.0 ** 52, 2.0 ** 52])) is None
    assert sorting._cumulative_counts(np.array([2.0 ** 52, 2.0 ** 52 - 1])) is not None


@pytest.mark.parametrize("spoil", [None, 0.5, np.nan, 256.0, -1.0, np.inf])
def test_small_codes_in_pieces(threads, spoil):
    w = np.random.default_rng(2).integers(0, 256, LONG).astype(np.float64)
    if spoil is None:
        assert_array_equal(sorting.small_codes(w), w.astype(np.uint8))
        assert sorting.small_codes(w).dtype == np.uint8
        return
    w[LONG - 3] = spoil  # in the last piece only
    assert sorting.small_codes(w) is None


def _pairs_codes(x, codes):
    order = np.lexsort((codes, x + 0.0))
    return np.sort(x), codes[order]


@pytest.mark.parametrize("shape", ["ties", "near-ties", "mixed-signs"])
def test_cosort_in_pieces_is_the_sort_of_the_pairs(threads, shape):
    rng = np.random.default_rng(3)
    if shape == "ties":
        x = np.round(rng.normal(size=LONG), 2)
    elif shape == "near-ties":  # scores a few units in the last place apart
        x = rng.normal(size=LONG)
        x[:300] = np.nextafter(0.75, 1.0) + np.arange(300) % 5 * 2.0 ** -52
    else:
        x = rng.normal(size=LONG) * 1e-3
        x[::7] = 0.0
        x[1::7] = -0.0
    codes = rng.integers(0, 16, LONG).astype(np.uint8)
    xs, cs = sorting.cosort_codes(x.copy(), codes, 4)
    ref_x, ref_c = _pairs_codes(x, codes)
    assert_array_equal(xs, ref_x)
    assert_array_equal(cs, ref_c)


def test_weighted_analysis_is_the_same_with_one_or_two_threads():
    from llrlab.core import Trials, analyze

    rng = np.random.default_rng(4)
    s = np.round(rng.normal(size=LONG), 3)
    lab = rng.random(LONG) < 0.1
    w = rng.integers(0, 11, LONG).astype(np.float64)
    out = []
    for n in (1, 2):
        par.set_threads(n)
        a = analyze(Trials(s, lab, weights=w))
        out.append((a.sorted.tar_cw, a.sorted.non_cw, a.blocks.tar, a.blocks.non, a.act.dcf,
                    a.min.dcf, a.cllr))
    par.set_threads()
    for x, y in zip(*out, strict=True):
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.booleans(), st.integers(0, 5)),
                min_size=2, max_size=40))
def test_block_masses_of_counts_are_the_sums_of_the_weights(rows):
    x = np.array([r[0] for r in rows], dtype=np.float64) / 2
    lab = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], dtype=np.float64)
    tw, nw = w[lab], w[~lab]
    if not (tw.sum() > 0 and nw.sum() > 0):
        return
    o_t, o_n = np.argsort(x[lab], kind="stable"), np.argsort(x[~lab], kind="stable")
    s = sorting.presorted(x[lab][o_t], x[~lab][o_n], tw[o_t], nw[o_n], integer_weights=True)
    assert s.exact_cw
    _, _, tb, nb, tar, non, _ = sorting._elementary_masses(s)
    twp, nwp = sorting._positive(s.tar, s.tar_w)[1], sorting._positive(s.non, s.non_w)[1]
    assert tar.tobytes() == sorting._segment_sums(twp, tb).tobytes()
    assert non.tobytes() == sorting._segment_sums(nwp, nb).tobytes()


def test_a_pass_started_inside_a_pool_thread_runs_there():
    par.set_threads(2)
    try:
        def outer(sl):
            me = threading.current_thread().name
            names = par.map_chunks(lambda _: threading.current_thread().name, LONG)
            return me, set(names)

        seen = [(me, inner) for me, inner in par.map_chunks(outer, LONG)
                if me.startswith("llrlab-chunks")]  # the caller's share may use the pool
        assert seen
        for me, inner in seen:
            assert inner == {me}
    finally:
        par.set_threads()


@pytest.mark.parametrize("segment", [1, 3, 1000, par.CHUNK + 7])
def test_segment_sums_in_pieces_are_reduceat(threads, segment):
    rng = np.random.default_rng(5)
    w = rng.random(LONG) * rng.choice([1e-9, 1.0, 1e9], LONG)  # rounding shows order
    starts = np.unique(np.concatenate([[0], rng.integers(0, LONG, LONG // segment), [LONG]]))
    starts = np.sort(np.concatenate([starts, starts[::5]]))  # empty segments too
    got = sorting._segment_sums(w, starts)
    ref = np.zeros(starts.size - 1)
    ne = starts[1:] > starts[:-1]
    ref[ne] = np.add.reduceat(w, starts[:-1][ne])
    assert got.tobytes() == ref.tobytes()


def test_segment_sums_of_one_element_each_are_the_weights(threads):
    # every segment of one element or empty (the targets of the elementary blocks when no
    # two target scores are equal): the sums are the weights themselves
    rng = np.random.default_rng(8)
    w = rng.random(LONG)
    starts = np.sort(np.concatenate([np.arange(LONG + 1), [0, 0, 7, LONG]]))
    got = sorting._segment_sums(w, starts)
    ref = np.zeros(starts.size - 1)
    ne = starts[1:] > starts[:-1]
    ref[ne] = np.add.reduceat(w, starts[:-1][ne])
    assert got.tobytes() == ref.tobytes()


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("shape", ["same", "wide", "short"])
def test_searches_in_pieces_are_searchsorted(threads, side, shape):
    rng = np.random.default_rng(6)
    a = np.sort(np.round(rng.normal(size=LONG), 3))
    n_v, spread = {"same": (LONG, 1.0), "wide": (LONG // 3, 5.0), "short": (40_000, 1.0)}[shape]
    v = np.sort(np.round(spread * rng.normal(size=n_v), 3))
    assert_array_equal(sorting._search_in_pieces(a, v, side), np.searchsorted(a, v, side=side))


def test_labels_packed_in_pieces(threads):
    from llrlab.core.trials import _packed, _unpacked

    rng = np.random.default_rng(7)
    labels = np.array(["tel", "mic", "été", "cond0001", ""])[rng.integers(0, 5, LONG)]
    keys = _packed(labels)
    assert_array_equal(_unpacked(keys, labels.dtype), labels)
    labels[LONG - 2] = "\u0100"  # a wide character in the last piece: compared as strings
    assert _packed(labels) is None


def test_coded_conditions_indexed_in_pieces(threads):
    from llrlab.core import IdCodes, Trials

    rng = np.random.default_rng(8)
    vocab = np.array(["z/long/name", "a", "unused", "m"])
    codes = rng.choice([0, 1, 3], LONG).astype(np.uint8)
    t = Trials(rng.normal(size=LONG), rng.random(LONG) < 0.5, conditions=IdCodes(codes, vocab))
    names, index = t.condition_index()
    ref_names, ref_index = np.unique(vocab[codes], return_inverse=True)
    assert_array_equal(names, ref_names)
    assert_array_equal(index, ref_index)
    assert index.dtype == np.intp


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["vox2/dev/aac/id10270/5r0d/cond00", "b/c", "", "x" * 37,
                                 "Ω/long/name/with/slashes", "vox2/dev/aac/id10270/5r0d/cond01",
                                 "aaaaaaaaaaaa"]), min_size=1, max_size=60),
       st.integers(1, 8))
def test_candidate_factorize_is_numpy_unique_or_declines(labels, prefix):
    import llrlab.core.trials as tr

    v = np.array(labels)
    old = tr._CANDIDATE_PREFIX
    tr._CANDIDATE_PREFIX = prefix  # labels out of the sample: declined, never wrong
    try:
        done = tr._candidate_factorize(v, tr._row_words(v))
    finally:
        tr._CANDIDATE_PREFIX = old
    want_names, want_codes = np.unique(v, return_inverse=True)
    tr._CANDIDATE_PREFIX = prefix
    try:
        sample = set(tr._candidate_sample(v).tolist())
    finally:
        tr._CANDIDATE_PREFIX = old
    assert set(labels[:prefix]) <= sample
    if set(labels) - sample:
        assert done is None
    if done is not None:
        assert_array_equal(done[0], want_names)
        assert_array_equal(done[1], want_codes.ravel())


@pytest.mark.parametrize("long", [False, True])
def test_labels_grouped_by_condition_take_the_candidate_pass(long, monkeypatch):
    # a trial list sorted by condition: the first labels hold one condition only, the
    # sample over the whole list holds them all (no hash table); a condition of fewer
    # trials than a step may be missed: then the hash table, with the same result
    import llrlab.core.trials as tr

    # (12 long names: no one byte tells them apart, a pair of bytes does; 10 short ones:
    # their last byte does)
    names = np.array([("vox2/dev/aac/id1%04d/5r0dWxy17C8/c%02d" if long else "c%02d")
                      % ((k, k) if long else k) for k in range(12 if long else 10)])
    sizes = np.arange(1, names.size + 1) * 4000
    v = np.repeat(names, sizes)
    monkeypatch.setattr(tr, "_FACTORIZE_HASH", 1)
    monkeypatch.setattr(tr, "_hash_factorize", lambda *a: pytest.fail("hash table"))
    got_names, got_codes = tr.factorize(v)
    want_names, want_codes = np.unique(v, return_inverse=True)
    assert_array_equal(got_names, want_names)
    assert_array_equal(got_codes, want_codes.ravel())
    monkeypatch.undo()
    small = np.concatenate([v, names[:1], np.repeat(np.array(["zz"]), 3), v[:10]])
    got_names, got_codes = tr.factorize(small)  # "zz": 3 trials between two samples
    want_names, want_codes = np.unique(small, return_inverse=True)
    assert_array_equal(got_names, want_names)
    assert_array_equal(got_codes, want_codes.ravel())


def test_candidate_factorize_declines_labels_no_two_bytes_tell_apart():
    import llrlab.core.trials as tr

    # each byte takes 2 values, so a pair of bytes tells 4 labels apart at most
    words = ["".join(w) for w in itertools.product("ab", repeat=3)]
    v = np.array(words * 3)
    assert tr._candidate_factorize(v, tr._row_words(v)) is None
    names, codes = tr.factorize(np.repeat(v, 20_000))  # the hashed route instead
    assert_array_equal(names, sorted(words))
    assert_array_equal(codes[::20_000], list(range(8)) * 3)
    # four of them: a pair of bytes picks each (no one byte does) when they are longer
    # than 8 characters (shorter ones go to the hash table of their packed form)
    four = np.array(["aaaa", "aabb", "bbaa", "bbbb"] * 3)
    assert tr._candidate_factorize(four, tr._row_words(four)) is None
    four = np.array(["aaaa", "aabb", "bbaa", "bbbb"] * 3, dtype="U9")
    names, codes = tr._candidate_factorize(four, tr._row_words(four))
    assert_array_equal(names, ["aaaa", "aabb", "bbaa", "bbbb"])
    assert_array_equal(codes, [0, 1, 2, 3] * 3)


@pytest.mark.parametrize("long", [True, False], ids=["long", "short"])
def test_labels_factorized_in_one_pass_in_pieces(threads, long):
    import llrlab.core.trials as tr

    rng = np.random.default_rng(9)
    vocab = np.array([f"vox2/dev/aac/id1{k:04d}/{'5r0dWxy17C8'[:k + 1]}/cond{k:02d}"
                      if long else f"cond{k:02d}" for k in range(10)])
    v = vocab[rng.integers(0, 10, LONG)]
    assert tr._candidate_factorize(v, tr._row_words(v)) is not None
    names, codes = tr.factorize(v)
    assert_array_equal(names, vocab)
    assert_array_equal(vocab[codes], v)
    new = "a new label at the very end"[:v.dtype.itemsize // 4]  # as the array holds it
    v[LONG - 1] = new
    names, codes = tr.factorize(v)
    assert names.size == 11 and str(names[codes[-1]]) == new


@pytest.mark.parametrize("at", [4_097, 20_000, LONG - 1])
@pytest.mark.parametrize("kind", ["U", "S"])
def test_candidate_factorize_compares_every_sub_piece(threads, at, kind):
    """A label that differs from a candidate only away from the byte that picks the
    candidate (same last byte, a different first one), in a later sub-piece of the
    comparison: the candidates are declined, and factorize is still numpy.unique."""
    import llrlab.core.trials as tr

    rng = np.random.default_rng(10)
    vocab = np.array(["cond00", "cond01", "cond02"])
    v = vocab[rng.integers(0, 3, LONG)].astype(kind)
    step = -(-LONG // tr._CANDIDATE_PREFIX)
    at = max(at, tr._CANDIDATE_PREFIX + 1)  # out of the candidates' sample
    at += at % step == 0
    v[at] = "xond01" if kind == "U" else b"xond01"
    assert tr._candidate_factorize(v, tr._row_words(v)) is None
    names, codes = tr.factorize(v)
    want_names, want_codes = np.unique(v, return_inverse=True)
    assert_array_equal(names, want_names)
    assert_array_equal(codes, want_codes.ravel())
