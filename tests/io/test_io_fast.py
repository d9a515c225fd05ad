"""The pandas fast path gives exactly what the line-by-line reader gives, or gives way to it.

Every text is read twice, once by each reader: either both raise the same error, or both
return the same trials (scores bit for bit, labels, ids, conditions, weights).
"""

from __future__ import annotations

import os
import tempfile
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llrlab.core import LlrlabError
from llrlab.core.io import _fast
from llrlab.core.io.bosaris_text import read_key_text, read_ndx_text, read_score_text
from llrlab.core.io.conditions import read_condition_table
from llrlab.core.io.labelled import read_labelled


@pytest.fixture(autouse=True)
def fast_for_small_files(monkeypatch):
    monkeypatch.setattr(_fast, "SMALL", 0)


def _table_summary(t):
    out = {"n": len(t), "models": t.model_ids().tolist(), "segments": t.segment_ids().tolist()}
    for k, v in t.values.items():
        if hasattr(v, "vocab"):
            out[k] = v.vocab[v.codes].tolist()
        elif v.dtype.kind == "f":
            out[k] = v.view(np.int64).tolist()  # bit for bit
        else:
            out[k] = v.tolist()
    return out


def _trials_summary(t):
    trials, n_dup = t
    out = {"n": len(trials), "dup": n_dup, "scores": trials.scores.view(np.int64).tolist(),
           "labels": trials.labels.tolist()}
    for name in ("model_ids", "segment_ids", "conditions"):
        v = getattr(trials, name)
        out[name] = None if v is None else v.tolist()
    out["weights"] = None if trials.weights is None else trials.weights.view(np.int64).tolist()
    return out


READERS = {
    "scores": (lambda p, fast: read_score_text(p, allow_bare=True, fast=fast),
               lambda r: (r.scores.view(np.int64).tolist() if hasattr(r, "scores")
                          and not hasattr(r, "values") else _table_summary(r))),
    "key": (lambda p, fast: read_key_text(p, fast=fast), _table_summary),
    "ndx": (lambda p, fast: read_ndx_text(p, fast=fast), _table_summary),
    "conditions": (lambda p, fast: read_condition_table(p, fast=fast), _table_summary),
    "labelled": (lambda p, fast: read_labelled(p, fast=fast, require_both=False),
                 _trials_summary),
}


def outcome(reader, path, fast):
    read, summary = READERS[reader]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", summary(read(path, fast))
    except LlrlabError as exc:
        return type(exc).__name__, str(exc)


def same_both_ways(reader, content, name="t.txt"):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(content)
        exact = outcome(reader, p, False)
        fast = outcome(reader, p, True)
    assert fast == exact, (content, exact, fast)
    return exact


def fast_path_used(monkeypatch, reader, content, name="t.txt"):
    """True when the pandas reader produced the result (it did not give way)."""
    used = []
    real = _fast.read_fast

    def spy(*a, **kw):
        got = real(*a, **kw)
        used.append(got is not None)
        return got

    monkeypatch.setattr(_fast, "read_fast", spy)
    same_both_ways(reader, content, name)
    return used == [True]


@pytest.mark.parametrize(("reader", "content", "name"), [
    ("scores", b"m1 s1 1.5\nm1 s2 -2e-3\n\n  m2\ts1   7\n", "t.txt"),
    ("scores", b"\xef\xbb\xbfm1 s1 1.5\r\nm1 s2 2\r\n", "t.txt"),
    ("scores", b"m1,s1,1.5\nm1, s2, 2\n", "t.csv"),
    ("scores", "sp\u00e9aker\u00a0x s1 0.1\n".encode(), "t.txt"),
    ("key", b"m1 s1 target\nm1 s2 NON\nm2 s1 1\nm2 s2 0\n", "t.txt"),
    ("labelled", b"Score Label Weight Cond Model Test\n1 tgt 0.5 a m s\n2 imp 1 b m t\n",
     "t.txt"),
    ("labelled", b"1.5 target\n-1 nontarget\n", "t.txt"),
    ("conditions", b"m1 s1 tel\nm1 s2 mic\n", "t.txt"),
    ("ndx", b"m1 s1\nm2 s2\n", "t.txt"),
    ("key", b"007 0012 target\n1 2 nontarget\n1 0012 1\n", "t.txt"),  # ids that look numeric
])
def test_the_fast_path_reads_ordinary_files(monkeypatch, reader, content, name):
    assert fast_path_used(monkeypatch, reader, content, name)


@pytest.mark.parametrize(("reader", "content"), [
    ("scores", b"m1 s1 True\nm1 s2 False\n"),      # pandas reads a column of bool words
    ("scores", b"m1 s1 1\rm1 s2 2\r"),             # a lone CR ends a line only for pandas
    ("scores", b"m1\x00x s1 1\n"),                 # NUL would cut the id in the C parser
    ("scores", b"m1\x0bs1 1\n"),                   # vertical tab: a separator for llrlab
    ("scores", b"m1 s1 1_000\n"),                  # underscores in numbers
    ("scores", b"m1 s1 nan\n"),
    ("scores", b"m1 s1 inf\n"),
    ("scores", b'"m1 s1" 1 2\n'),                  # quotes are ordinary characters
    ("scores", b'm1 "s1 1\n'),
    ("scores", b"m1 s1 1\nm1 s2 2 3\n"),
    ("scores", b"m1 s1 1\nm1 s2\n"),
    ("scores", b"m1 s\xe9 1\n"),                   # not UTF-8
    ("key", b"m1 s1 target\nm1 s2 maybe\n"),
    ("key", b"m1 s1 +0\nm1 s2 0\n"),             # pandas 3.1 reads '+0' as 0 in a category
    ("key", b"m1 s1 00\nm1 s2 1\n"),
    ("key", b"m1 s1 target\nm1 s2\n"),
    ("labelled", b"score label\n1 target\n2\n"),
    ("conditions", b"m1 s1 tel\nm1 s2\n"),
])
def test_the_fast_path_gives_way_where_it_differs(monkeypatch, reader, content):
    assert not fast_path_used(monkeypatch, reader, content)


def test_a_zero_one_column_is_read_exactly(monkeypatch):
    # all-0/1 numbers may be bool words for pandas: the exact reader reads them
    assert same_both_ways("scores", b"m1 s1 1\nm1 s2 0\n")[0] == "ok"


_ID = st.text(alphabet=st.sampled_from([*"ab1_-.\u00e9\u00a0\"',", "\x0b", "\x00", "\x7f",
                                        "\x1f"]), min_size=0, max_size=4)
_NUM = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(width=32).map(lambda x: f"{x:.9g}"),
    st.sampled_from(["1", "-2.5", "1e3", "1_000", "nan", "inf", "-Infinity", "True", "False",
                     "0", ".5", "5.", "+1", "0x10", "1e", "1.7976931348623157e308", "2e308",
                     "4.9e-324", "abc", "", "00012", "1,5", "-0"]))
_LABEL = st.sampled_from(["target", "nontarget", "TGT", "imp", "1", "0", "true", "maybe", "",
                          "tar get", "+1", "00", "1.0", "True", "-0"])
_SEP = st.sampled_from([" ", "\t", "  ", ",", " \x0c"])
_END = st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\n \t\n"])
# valid fields: ordinary ids, numbers in every spelling Python reads, label words
_GOOD = {
    "id": st.text(alphabet="ab1_-.\u00e9\u4e2d", min_size=1, max_size=5),
    "num": st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr),
                     st.floats(allow_nan=False, allow_infinity=False, width=32).map(
                         lambda x: f"{x:.6e}"),
                     st.integers(-10**20, 10**20).map(str),
                     st.sampled_from([".5", "5.", "+1", "-0", "00012", "1E-3", "-.25e+2"])),
    "label": st.sampled_from(["target", "nontarget", "TGT", "Imp", "1", "0", "true", "FALSE",
                              "non-target", "impostor"]),
}
_BAD = {"id": _ID, "num": _NUM, "label": _LABEL}


@st.composite
def texts(draw, kinds, hostile=True):
    field = {k: (st.one_of(_GOOD[k], _BAD[k]) if hostile else _GOOD[k]) for k in kinds}
    rows = draw(st.lists(st.tuples(*[field[k] for k in kinds]), min_size=1, max_size=8))
    sep = draw(_SEP if hostile else st.sampled_from([" ", "\t", "  ", " \t "]))
    lines = []
    for i, row in enumerate(rows):
        fields = list(row)
        if not hostile and kinds[0] == "id":
            fields[0] += f"~{i}"  # distinct trials (repeats are tested elsewhere)
        if hostile and draw(st.integers(0, 9)) == 0:
            fields = fields[:-1]  # a missing field now and then
        lines.append(sep.join(fields) + draw(_END if hostile else
                                              st.sampled_from(["\n", "\r\n", "\n \n"])))
    head = "\ufeff" if draw(st.booleans()) else ""
    return (head + "".join(lines)).encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(("id", "id", "num")), st.sampled_from(["t.txt", "t.csv"]))
def test_score_files_read_the_same_both_ways(content, name):
    same_both_ways("scores", content, name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(("id", "id", "num"), hostile=False))
def test_valid_score_files_read_the_same_both_ways(content):
    assert same_both_ways("scores", content)[0] == "ok"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(("id", "id", "label"), hostile=False))
def test_valid_key_files_read_the_same_both_ways(content):
    assert same_both_ways("key", content)[0] == "ok"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(("id", "id", "num", "label"), hostile=False))
def test_valid_labelled_files_read_the_same_both_ways(content):
    assert same_both_ways("labelled", content)[0] == "ok"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(("id", "id", "label")))
def test_key_files_read_the_same_both_ways(content):
    same_both_ways("key", content)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(texts(("num", "label")), texts(("id", "id", "num", "label"))))
def test_labelled_files_read_the_same_both_ways(content):
    same_both_ways("labelled", content)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(("id", "id", "id")))
def test_condition_files_read_the_same_both_ways(content):
    same_both_ways("conditions", content)


def test_many_blocks_read_the_same_both_ways(monkeypatch):
    from llrlab.core.io import _source

    monkeypatch.setattr(_source, "BLOCK", 1000)
    monkeypatch.setattr(_fast, "CHUNK_ROWS", 7)
    rng = np.random.default_rng(5)
    x = rng.normal(size=3000) * 10.0 ** rng.integers(-30, 30, 3000)
    lines = "".join(f"m{i % 13} s{i % 101}_{i} {v!r}\n" for i, v in enumerate(x.tolist()))
    result = same_both_ways("scores", lines.encode())
    assert result[0] == "ok"
    assert np.array_equal(np.array(result[1]["scores"]).view(np.float64), x)
    head = "Model Test Score Label\n" + "".join(
        f"m{i % 13} s{i} {v!r} {'target' if i % 4 else 'imp'}\n" for i, v in enumerate(x.tolist()))
    assert same_both_ways("labelled", head.encode())[0] == "ok"


# --------------------------------------------------------------------------------------------
# Whole loads on the shapes users have: the fast path (ids numbered per column, vocabularies
# merged hash-based) gives the trials and the report the exact reader gives


def _load_both_ways(monkeypatch, scores, key):
    from llrlab.core.io import load_trials_with_report

    def run(fast):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(_fast, "read_fast", lambda *a, **kw: None)
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    t, report = load_trials_with_report(scores, key)
            except LlrlabError as exc:
                return "error", str(exc)
        return ("ok", t.scores.view(np.int64).tolist(), t.labels.tolist(),
                t.model_ids.tolist(), t.segment_ids.tolist(), report,
                sorted(str(w.message) for w in caught))

    return run(True), run(False)


_SHAPE_IDS = {
    "short": (lambda i: f"m{i:04d}", lambda j: f"s{j:06d}"),
    "long": (lambda i: f"id{10000 + i % 13}/{i * 2654435761 % 10**9:x}/{i:05d}.wav",
             lambda j: f"id{10270 + j % 7}/5r0d{j * 40503 % 10**7:x}Wxy/{j:05d}.wav"),
}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(n_models=st.integers(1, 30), n_segs=st.integers(1, 40),
       ids=st.sampled_from(["short", "long"]), unique=st.booleans(),
       seed=st.integers(0, 2**16), extra=st.integers(0, 20),
       missing=st.integers(0, 20), dup=st.integers(0, 3), conflict=st.booleans(),
       id_chunks=st.sampled_from(["head", "category", "numbered", "raw"]))
def test_loads_of_every_shape_are_the_same_both_ways(monkeypatch, tmp_path_factory, n_models,
                                                     n_segs, ids, unique, seed, extra, missing,
                                                     dup, conflict, id_chunks):
    from llrlab.core.io import _source

    monkeypatch.setattr(_source, "BLOCK", 512)  # many blocks
    monkeypatch.setattr(_fast, "CHUNK_ROWS", 5)  # many chunks, ids repeating across them
    # each way the fast reader can take an id column: as the head of the file decides, as
    # categories, as str chunks numbered one by one, as str chunks kept as they are
    if id_chunks != "head":
        monkeypatch.setattr(_fast, "CATEGORY_BELOW", 2.0 if id_chunks == "category" else 0.0)
        monkeypatch.setattr(_fast, "RAW_ABOVE", -1.0 if id_chunks == "raw" else 2.0)
    rng = np.random.default_rng(seed)
    m_name, s_name = _SHAPE_IDS[ids]
    if unique:  # each segment against a few models
        pairs = [(int(rng.integers(n_models)), j) for j in range(n_segs) for _ in range(2)]
        pairs = list(dict.fromkeys(pairs))
    else:
        pairs = [(i, j) for i in range(n_models) for j in range(n_segs)]
    x = rng.normal(size=len(pairs)) * 10.0 ** rng.integers(-5, 5, len(pairs))
    lab = rng.random(len(pairs)) < 0.3
    lab[0], lab[-1] = True, False
    score_lines = [f"{m_name(i)} {s_name(j)} {v!r}\n" for (i, j), v in zip(pairs, x.tolist(),
                                                                         strict=True)]
    score_lines += [score_lines[int(k)] for k in rng.integers(len(pairs), size=dup)]
    if conflict and dup:
        score_lines.append(score_lines[-1].rsplit(" ", 1)[0] + " 12345.5\n")
    key_pairs = pairs[missing:] + [(n_models + k, k) for k in range(extra)]
    key_lab = np.concatenate([lab[missing:], np.zeros(extra, bool)])
    order = rng.permutation(len(key_pairs))
    key_lines = [f"{m_name(key_pairs[k][0])} {s_name(key_pairs[k][1])} "
                 f"{'target' if key_lab[k] else 'nontarget'}\n" for k in order.tolist()]
    d = tmp_path_factory.mktemp("shape")
    s, k = d / "s.txt", d / "k.txt"
    s.write_text("".join(score_lines))
    k.write_text("".join(key_lines))
    fast, exact = _load_both_ways(monkeypatch, s, k)
    assert fast == exact


def test_a_key_is_numbered_after_its_score_file(tmp_path, monkeypatch):
    """Read with the score file's Table as ``like``, the key's ids found there are coded by
    their place in it (the very same str objects: the key's own copies are not kept), the
    others follow; a whole load gives what the exact reader gives."""
    from llrlab.core.io import _source
    from llrlab.core.io._formats import read_as
    from llrlab.core.io._source import open_source

    monkeypatch.setattr(_fast, "CHUNK_ROWS", 701)  # many chunks
    monkeypatch.setattr(_source, "BLOCK", 1 << 14)
    rng = np.random.default_rng(3)
    n = 9000  # segment vocabulary beyond extend_vocab's dictionary size
    models = rng.integers(0, 50, n)
    lab = rng.random(n) < 0.2
    s, k = tmp_path / "s.txt", tmp_path / "k.txt"
    s.write_text("".join(f"m{m} id{10270 + j % 7}/x{j}/{j:05d}.wav {j / 7!r}\n"
                         for j, m in enumerate(models.tolist())))
    key = [f"m{m} id{10270 + j % 7}/x{j}/{j:05d}.wav {'target' if t else 'nontarget'}\n"
           for j, (m, t) in enumerate(zip(models.tolist(), lab.tolist(), strict=True))]
    key = key[20:] + [f"m1 extra{j} nontarget\n" for j in range(30)]  # 20 missing, 30 extra
    k.write_text("".join(key[i] for i in rng.permutation(len(key)).tolist()))
    scores = read_as(open_source(str(s)), "scores")[0]
    alone = read_as(open_source(str(k)), "key")[0]
    numbered = read_as(open_source(str(k)), "key", like=scores)[0]
    nv = scores.seg_vocab.size
    assert numbered.seg_vocab.size == nv + 30
    assert all(a is b for a, b in zip(numbered.seg_vocab[:nv].tolist(),
                                      scores.seg_vocab.tolist(), strict=True))
    assert numbered.segment_ids().tolist() == alone.segment_ids().tolist()
    assert numbered.model_ids().tolist() == alone.model_ids().tolist()
    assert np.array_equal(numbered.values["labels"], alone.values["labels"])
    fast, exact = _load_both_ways(monkeypatch, s, k)
    assert fast == exact and fast[0] == "ok"
