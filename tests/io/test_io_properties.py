"""Hypothesis properties: a write/read round trip keeps every bit of every score."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.core import Scores, Trials
from llrlab.core.io import load_scores, load_trials, write_key, write_scores, write_trials

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
score_lists = st.lists(finite, min_size=1, max_size=60)


def ids(n):
    return [f"m{i % 5}" for i in range(n)], [f"s{i}" for i in range(n)]


def bits(x):
    return np.asarray(x, dtype=np.float64).view(np.int64).tolist()


@settings(max_examples=60, deadline=None)
@given(score_lists, st.sampled_from(["s.txt", "s.h5"]))
def test_scores_round_trip_bit_exact(xs, name):
    m, s = ids(len(xs))
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        write_scores(p, Scores(xs, m, s))
        back = load_scores(p)
    got = dict(zip(zip(back.model_ids, back.segment_ids, strict=True), bits(back.scores),
                   strict=True))
    assert got == dict(zip(zip(m, s, strict=True), bits(xs), strict=True))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite, st.booleans()), min_size=2, max_size=60),
       st.sampled_from(["t.txt", "t.csv", "t.tsv"]))
def test_labelled_round_trip_bit_exact(rows, name):
    xs = [r[0] for r in rows]
    labels = [r[1] for r in rows]
    labels[0], labels[1] = True, False  # both classes present
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        write_trials(p, Trials(xs, labels))
        back = load_trials(p)
    assert bits(back.scores) == bits(xs)
    assert back.labels.tolist() == labels


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(finite, st.booleans()), min_size=2, max_size=40),
       st.sampled_from([("s.txt", "k.txt"), ("s.h5", "k.h5"), ("s.h5", "k.txt")]))
def test_score_key_round_trip_bit_exact(rows, names):
    xs = [r[0] for r in rows]
    labels = [r[1] for r in rows]
    labels[0], labels[1] = True, False
    m, s = ids(len(xs))
    t = Trials(xs, labels, model_ids=m, segment_ids=s)
    with tempfile.TemporaryDirectory() as d:
        ps, pk = Path(d) / names[0], Path(d) / names[1]
        write_scores(ps, t)
        write_key(pk, t)
        back = load_trials(ps, pk)
    got = {(a, b): (v, w) for a, b, v, w in zip(back.model_ids, back.segment_ids,
                                                 bits(back.scores), back.labels.tolist(),
                                                 strict=True)}
    assert got == {(a, b): (v, w) for a, b, v, w in zip(m, s, bits(xs), labels, strict=True)}
