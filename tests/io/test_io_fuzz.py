"""Fuzzing the loaders: random bytes and random small HDF5 trees give an LlrlabError or a
valid result, never another exception."""

from __future__ import annotations

import os
import tempfile
import warnings

import h5py
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llrlab.core import LlrlabError, Scores, Trials
from llrlab.core.io import (
    _fast,
    attach_conditions,
    load_scores,
    load_trials,
    read_key,
    read_ndx,
    read_score_file,
)

KEY = b"m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n"
SCORES = b"m1 s1 1\nm1 s2 2\nm2 s1 3\n"
TRIALS = Trials([1.0, 2.0], [True, False], model_ids=["m1", "m1"], segment_ids=["s1", "s2"])


def _valid(result):
    """A loader's result is a Trials/Scores/Key/Ndx (or a pair with one) of sane arrays."""
    if isinstance(result, tuple):
        result = result[0]
    if isinstance(result, Trials | Scores):
        assert np.isfinite(result.scores).all()
        if result.has_ids:
            assert len(result.model_ids) == len(result)
    else:
        assert len(result) >= 0


def _calls(p, k, s):
    return [lambda: load_trials(p), lambda: load_trials(p, k), lambda: load_trials(s, p),
            lambda: load_scores(p), lambda: read_key(p), lambda: read_ndx(p),
            lambda: read_score_file(p), lambda: attach_conditions(TRIALS, p)]


def _run_all(p, k, s, more=()):
    """Every loader call of ``_calls`` and ``more`` gives a valid result or a one-line
    LlrlabError."""
    for call in [*_calls(p, k, s), *more]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                _valid(call())
            except LlrlabError as exc:
                assert str(exc) and "\n" not in str(exc)


def _with_files(content, name, fn):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(content)
        k = os.path.join(d, "key.txt")
        with open(k, "wb") as f:
            f.write(KEY)
        s = os.path.join(d, "scores.txt")
        with open(s, "wb") as f:
            f.write(SCORES)
        fn(p, k, s)


_LINEISH = st.lists(st.sampled_from([b"m1", b"s1", b"1.5", b"target", b" ", b"\t", b"\n", b",",
                                     b"\r", b"\x00", b"nan", b"\xff", b"model", b"score",
                                     b"label", b'"', b"1_0", b"\x1f\x8b", b"\xef\xbb\xbf"]),
                    max_size=40).map(b"".join)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=200), _LINEISH),
       st.sampled_from(["x.txt", "x.csv", "x.h5", "x.gz"]), st.booleans())
def test_random_bytes_to_the_text_loaders(content, name, fast):
    old = _fast.SMALL
    _fast.SMALL = 0 if fast else 1 << 40
    try:
        _with_files(content, name, _run_all)
    finally:
        _fast.SMALL = old


_NAMES = ["scores", "score_mask", "trial_mask", "file_format", "ID/row_ids", "ID/column_ids",
          "modelset", "segset", "tar", "non", "target_mask", "nontarget_mask", "conditions",
          "other/x"]
_DTYPES = ["f8", "f4", "i1", "u1", "bool", "S3", "vlen", "c16", "i8"]


@st.composite
def hdf5_trees(draw):
    items = []
    for name in draw(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=8, unique=True)):
        kind = draw(st.sampled_from(["data", "data", "data", "soft", "group"]))
        if kind == "soft":
            items.append((name, "soft", draw(st.sampled_from(["/" + n for n in _NAMES]
                                                             + ["/missing", "rel/x"]))))
            continue
        if kind == "group":
            items.append((name, "group", None))
            continue
        ndim = draw(st.integers(0, 2))
        shape = tuple(draw(st.integers(0, 3)) for _ in range(ndim))
        dtype = draw(st.sampled_from(_DTYPES))
        n = int(np.prod(shape)) if shape else 1
        raw = draw(st.lists(st.one_of(st.integers(-2, 2), st.sampled_from([0.5, np.nan, np.inf])),
                            min_size=n, max_size=n))
        items.append((name, "data", (shape, dtype, raw)))
    return items


def _build(path, items):
    with h5py.File(path, "w") as f:
        for name, kind, spec in items:
            try:
                if kind == "soft":
                    f[name] = h5py.SoftLink(spec)
                elif kind == "group":
                    f.require_group(name)
                else:
                    shape, dtype, raw = spec
                    a = np.array(raw, dtype=float).reshape(shape)
                    if dtype == "vlen":
                        data = np.array([str(v) for v in a.ravel()], dtype=object).reshape(shape)
                        f.create_dataset(name, data=data, dtype=h5py.string_dtype())
                    elif dtype == "S3":
                        f[name] = np.array([f"{v:.1f}"[:3].encode() for v in a.ravel()],
                                           dtype="S3").reshape(shape)
                    elif dtype in ("i1", "u1", "i8", "bool"):
                        f[name] = np.nan_to_num(a, nan=0, posinf=1).astype(dtype)
                    else:
                        f[name] = a.astype(dtype)
            except (ValueError, TypeError, KeyError, OSError):
                pass  # a name clash between a group and a dataset: skip it


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hdf5_trees())
def test_random_hdf5_trees_to_the_loaders(items):
    def run(p, k, s):
        _build(p, items)
        key = os.path.join(os.path.dirname(p), "k2.h5")
        _build(key, items)
        _run_all(p, k, s, more=[lambda: load_trials(p, key)])

    _with_files(b"", "x.h5", run)


def test_a_valid_random_tree_loads():
    # the generator can produce loadable files: check one by hand
    items = [("scores", "data", ((1, 2), "f8", [0.5, 1])),
             ("score_mask", "data", ((1, 2), "u1", [1, 1])),
             ("ID/row_ids", "data", ((1,), "S3", [1])),
             ("ID/column_ids", "data", ((2,), "S3", [1, 2]))]
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "x.h5")
        _build(p, items)
        assert load_scores(p).scores.tolist() == [0.5, 1.0]
