"""Chunked parallel passes give the serial loop's results bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from llrlab.core import _parallel, analyze, analyze_transformed
from llrlab.core.cllr import softplus_sum

from .._time_scale import scaled


def test_map_ordered_keeps_the_order_of_the_items():
    out = _parallel.map_ordered(lambda x: x * x, range(37))
    assert out == [x * x for x in range(37)]


def test_chunk_slices_cover_the_range_once():
    sl = _parallel.chunk_slices(10, 4)
    assert [(s.start, s.stop) for s in sl] == [(0, 4), (4, 8), (8, 10)]
    assert _parallel.chunk_slices(0) == []


def _softplus_reference(x, sign, shift, w):
    # the definition, summed chunk by chunk in order like the serial loop
    total = 0.0
    for sl in _parallel.chunk_slices(x.size):
        t = np.logaddexp(0.0, sign * (x[sl] + shift))
        total += float(t.sum()) if w is None else float(t @ w[sl])
    return total


@pytest.mark.parametrize("weighted", [False, True])
def test_softplus_sum_is_the_same_in_parallel_and_serial(weighted, monkeypatch):
    rng = np.random.default_rng(0)
    n = _parallel.PARALLEL_MIN + 12_345  # long enough for the pool
    x = rng.normal(0, 30, n)
    w = rng.random(n) if weighted else None
    par = softplus_sum(x, sign=-1.0, shift=0.7, weights=w)
    monkeypatch.setattr(_parallel, "_POOL", None)
    ser = softplus_sum(x, sign=-1.0, shift=0.7, weights=w)
    assert par == ser
    assert par == pytest.approx(_softplus_reference(x, -1.0, 0.7, w), rel=1e-13)


def test_analyze_transformed_is_the_same_in_parallel_and_serial(monkeypatch):
    rng = np.random.default_rng(1)
    n = _parallel.PARALLEL_MIN + 999
    a = analyze(rng.normal(1, 1, n // 10), rng.normal(-1, 1, n))
    par = analyze_transformed(a, lambda s: np.tanh(s) * 3 + 0.5)
    monkeypatch.setattr(_parallel, "_POOL", None)
    ser = analyze_transformed(a, lambda s: np.tanh(s) * 3 + 0.5)
    assert_array_equal(par.sorted.non, ser.sorted.non)
    assert par.cllr == ser.cllr
    assert_array_equal(par.act.dcf, ser.act.dcf)


def test_a_decrease_at_a_chunk_boundary_is_caught():
    n = 3 * _parallel.CHUNK
    a = analyze(np.linspace(0, 1, 100), np.linspace(-1, 0.5, n))
    b = _parallel.CHUNK  # index of the first score of the second chunk of non-targets
    cut = a.sorted.non[b]

    def step_down(s):  # non-decreasing inside each chunk, one drop between chunks
        return np.where(s >= cut, s - 10.0, s)

    with pytest.raises(ValueError, match="non-target"):
        analyze_transformed(a, step_down)


def test_set_threads_follows_the_environment(monkeypatch):
    try:
        monkeypatch.setenv("LLRLAB_THREADS", "1")
        _parallel.set_threads()
        assert _parallel._POOL is None
        one = softplus_sum(np.linspace(-50, 50, _parallel.PARALLEL_MIN + 5))
        _parallel.set_threads(3)
        assert _parallel._WORKERS == 3
        assert softplus_sum(np.linspace(-50, 50, _parallel.PARALLEL_MIN + 5)) == one
    finally:
        monkeypatch.delenv("LLRLAB_THREADS")
        _parallel.set_threads()


def _child_sum(q):
    q.put(softplus_sum(np.linspace(-50, 50, _parallel.PARALLEL_MIN + 5)))


def test_a_forked_child_gets_a_working_pool():
    import multiprocessing as mp

    x = np.linspace(-50, 50, _parallel.PARALLEL_MIN + 5)
    expected = softplus_sum(x)  # the parent's pool threads are running now
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_sum, args=(q,))
    p.start()
    try:
        assert q.get(timeout=scaled(20)) == expected
    finally:
        p.join(timeout=scaled(60))
        if p.is_alive():
            p.kill()
    assert p.exitcode == 0


def test_thread_scratch_reuses_a_threads_buffers():
    from llrlab.core.cllr import thread_scratch

    get = thread_scratch(2)
    a, b = get(100)
    a2, b2 = get(60)
    assert a2.base is a.base and b2.base is b.base and a2.size == 60
    assert get(200)[0].size == 200  # larger: new buffers


def test_take_in_chunks_is_the_fancy_index():
    rng = np.random.default_rng(4)
    n = _parallel.PARALLEL_MIN + 7
    codes = rng.integers(0, 200, n).astype(np.uint8)
    table = rng.random(400)[::2]  # a strided table, as the conditions' weight tables
    assert_array_equal(_parallel.take_in_chunks(table, codes), table[codes])


@pytest.mark.parametrize("sign, shift", [(1.0, 0.0), (-1.0, 0.0), (-1.0, 2.5)])
def test_softplus_terms_into_given_buffers_are_the_new_array_terms(sign, shift):
    # the in-place form (out, scratch: a thread's reused buffers) computes the same terms
    from llrlab.core.cllr import softplus_terms

    x = np.random.default_rng(8).normal(scale=30, size=5000)
    x[:4] = [0.0, -0.0, np.inf, -np.inf]
    want = softplus_terms(x, sign=sign, shift=shift)
    out, scratch = np.full(x.size, np.nan), np.full(x.size, np.nan)
    got = softplus_terms(x, sign=sign, shift=shift, out=out, scratch=scratch)
    assert got is out
    assert got.tobytes() == want.tobytes()
    np.testing.assert_allclose(want[4:], np.logaddexp(0.0, sign * (x[4:] + shift)), rtol=1e-15)
