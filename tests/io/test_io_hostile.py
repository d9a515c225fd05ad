"""Hostile files: nothing read outside the file, declared sizes not trusted, wrong numbers
refused, echoed values shortened; every one a one-line LlrlabError naming the file.

Each HDF5 layout is built with h5py inside the test.
"""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from llrlab.core import FileFormatError, LlrlabError, Trials
from llrlab.core.io import (
    attach_conditions,
    load_scores,
    load_trials,
    read_key,
    read_ndx,
    read_score_file,
)
from llrlab.core.io import hdf5 as h5mod

from ._files import huge_declared_matrix, write

MODELS = [b"m1", b"m2"]
SEGS = [b"s1", b"s2", b"s3"]


def ids(f):
    f["ID/row_ids"] = np.array(MODELS)
    f["ID/column_ids"] = np.array(SEGS)


def score_file(path, *, scores=None, mask=None, extra=None):
    with h5py.File(path, "w") as f:
        f["scores"] = np.arange(6.0).reshape(2, 3) if scores is None else scores
        f["score_mask"] = np.ones((2, 3), np.uint8) if mask is None else mask
        ids(f)
        if extra:
            extra(f)
    return path


def key_file(path, extra=None):
    with h5py.File(path, "w") as f:
        f["trial_mask"] = np.array([[1, -1, -1], [-1, 1, -1]], np.int8)
        f["file_format"] = np.bytes_(b"2.0")
        ids(f)
        if extra:
            extra(f)
    return path


def one_line_error(call, *parts):
    """Run ``call``; it must raise an LlrlabError whose message is one line holding
    ``parts``; return the message."""
    with pytest.raises(LlrlabError) as exc:
        call()
    msg = str(exc.value)
    assert "\n" not in msg and len(msg) < 600, msg
    for p in parts:
        assert p in msg, msg
    return msg


# --------------------------------------------------------------------------------------------
# Nothing outside the file


SECRET = b"secret-content-of-another-file\n" * 8


@pytest.fixture
def secret(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_bytes(SECRET)
    return p


def _readers(path, key):
    return [("load_scores", lambda: load_scores(path)),
            ("load_trials scores", lambda: load_trials(path, key)),
            ("read_score_file", lambda: read_score_file(path)),
            ("load_trials key", lambda: load_trials(score_file(key.parent / "ok.h5"), path)),
            ("read_key", lambda: read_key(path)),
            ("read_ndx", lambda: read_ndx(path))]


def test_external_storage_of_ids_is_refused(tmp_path, secret):
    p = tmp_path / "ext_ids.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = np.zeros((2, 3))
        f["score_mask"] = np.ones((2, 3), np.uint8)
        f.create_dataset("ID/row_ids", shape=(2,), dtype="S48",
                         external=[(str(secret), 0, 96)])
        f["ID/column_ids"] = np.array(SEGS)
    key = key_file(tmp_path / "k.h5")
    for _, call in _readers(p, key):
        msg = one_line_error(call, str(p), "/ID/row_ids", "external storage")
        assert "secret-content" not in msg


def test_external_storage_of_scores_is_refused(tmp_path, secret):
    p = tmp_path / "ext_scores.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("scores", shape=(2, 3), dtype="f8", external=[(str(secret), 0, 48)])
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    msg = one_line_error(lambda: load_trials(p, key_file(tmp_path / "k.h5")), str(p),
                         "/scores", "external storage")
    assert "secret" not in msg


def test_virtual_dataset_is_refused(tmp_path):
    src = tmp_path / "other.h5"
    with h5py.File(src, "w") as f:
        f["x"] = np.arange(6.0).reshape(2, 3)
    layout = h5py.VirtualLayout(shape=(2, 3), dtype="f8")
    layout[:] = h5py.VirtualSource(str(src), "x", shape=(2, 3))
    p = tmp_path / "virtual.h5"
    with h5py.File(p, "w") as f:
        f.create_virtual_dataset("scores", layout)
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    for _, call in _readers(p, key_file(tmp_path / "k.h5")):
        one_line_error(call, str(p), "/scores", "virtual dataset")


def test_virtual_dataset_with_a_missing_source_is_refused(tmp_path):
    layout = h5py.VirtualLayout(shape=(2, 3), dtype="f8")
    layout[:] = h5py.VirtualSource(str(tmp_path / "gone.h5"), "x", shape=(2, 3))
    p = tmp_path / "virtual.h5"
    with h5py.File(p, "w") as f:
        f.create_virtual_dataset("scores", layout, fillvalue=0)
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    one_line_error(lambda: load_scores(p), "/scores", "virtual dataset")


def test_external_link_is_refused(tmp_path):
    other = score_file(tmp_path / "other.h5")
    p = tmp_path / "elink.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = h5py.ExternalLink(str(other), "/scores")
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    for _, call in _readers(p, key_file(tmp_path / "k.h5")):
        one_line_error(call, str(p), "/scores", "external link")


def test_external_link_to_a_group_is_refused(tmp_path):
    other = score_file(tmp_path / "other.h5")
    p = tmp_path / "elink_group.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = np.zeros((2, 3))
        f["score_mask"] = np.ones((2, 3), np.uint8)
        f["ID"] = h5py.ExternalLink(str(other), "/ID")
    one_line_error(lambda: load_scores(p), "/ID", "external link")


def test_soft_link_to_a_missing_object_is_refused(tmp_path):
    p = tmp_path / "dangling.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = h5py.SoftLink("/nowhere/scores")
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    one_line_error(lambda: load_scores(p), str(p), "/scores", "does not exist")


def test_soft_link_through_an_external_link_is_refused(tmp_path):
    other = score_file(tmp_path / "other.h5")
    p = tmp_path / "soft_out.h5"
    with h5py.File(p, "w") as f:
        f["away"] = h5py.ExternalLink(str(other), "/")
        f["scores"] = h5py.SoftLink("/away/scores")
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    one_line_error(lambda: load_scores(p), str(p), "link")


def test_soft_link_inside_the_file_is_followed(tmp_path):
    p = tmp_path / "soft_in.h5"
    with h5py.File(p, "w") as f:
        f["data/matrix"] = np.arange(6.0).reshape(2, 3)
        f["scores"] = h5py.SoftLink("/data/matrix")
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    np.testing.assert_array_equal(load_scores(p).scores, np.arange(6.0))


def test_hard_link_cycle_terminates(tmp_path):
    p = score_file(tmp_path / "cycle.h5", extra=lambda f: f["ID"].__setitem__("loop", f["ID"]))
    assert len(load_scores(p)) == 6


def test_plugin_filter_is_refused(tmp_path):
    p = tmp_path / "plugin.h5"
    with h5py.File(p, "w") as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((2, 3))
        dcpl.set_filter(32123, h5py.h5z.FLAG_OPTIONAL)
        dsid = h5py.h5d.create(f.id, b"scores", h5py.h5t.IEEE_F64LE,
                               h5py.h5s.create_simple((2, 3)), dcpl=dcpl)
        dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ones((2, 3)))
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    one_line_error(lambda: load_scores(p), str(p), "/scores", "filter 32123", "plugin")


def test_built_in_filters_are_read(tmp_path):
    p = tmp_path / "gzip.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("scores", data=np.arange(6.0).reshape(2, 3), compression="gzip",
                         shuffle=True, fletcher32=True)
        f.create_dataset("score_mask", data=np.ones((2, 3), np.uint8), compression="lzf")
        ids(f)
    np.testing.assert_array_equal(load_scores(p).scores, np.arange(6.0))


def test_too_many_objects_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(h5mod, "MAX_OBJECTS", 10)
    p = score_file(tmp_path / "crowded.h5",
                   extra=lambda f: [f.create_group(f"g{i}") for i in range(20)])
    one_line_error(lambda: load_scores(p), "more than 10 objects")


# --------------------------------------------------------------------------------------------
# Declared sizes


def test_a_small_file_declaring_a_huge_matrix_gives_one_line(tmp_path):
    p = huge_declared_matrix(tmp_path / "huge.h5")
    assert p.stat().st_size < 2_000_000
    msg = one_line_error(lambda: load_scores(p, max_bytes=2 * 10**9), str(p),
                         "not enough memory")
    assert "/scores" in msg and "40000 x 40000" in msg


def test_declared_trials_beyond_max_trials(tmp_path):
    p = score_file(tmp_path / "s.h5")
    one_line_error(lambda: load_scores(p, max_trials=5), str(p), "more than 5 trials")
    assert len(load_scores(p, max_trials=6)) == 6


def test_declared_ids_beyond_max_bytes(tmp_path):
    p = tmp_path / "wide_ids.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = np.zeros((2, 3))
        f["score_mask"] = np.ones((2, 3), np.uint8)
        f.create_dataset("ID/row_ids", shape=(2,), dtype="S100000")
        f["ID/column_ids"] = np.array(SEGS)
    one_line_error(lambda: load_scores(p, max_bytes=100_000), str(p), "/ID/row_ids",
                   "not enough memory")


def test_matrix_larger_than_the_format_allows(tmp_path, monkeypatch):
    monkeypatch.setattr(h5mod, "MAX_CELLS", 5)
    p = score_file(tmp_path / "s.h5")
    one_line_error(lambda: load_scores(p), "6 cells", "more than the 5")


def test_text_beyond_max_trials(tmp_path):
    s = write(tmp_path / "s.txt", "".join(f"m s{i} {i}\n" for i in range(50)))
    one_line_error(lambda: load_scores(s, max_trials=20), str(s), "more than 20 trials")
    assert len(load_scores(s, max_trials=50)) == 50


def test_text_beyond_max_bytes(tmp_path):
    s = write(tmp_path / "s.txt", "".join(f"m s{i} {i}\n" for i in range(500)))
    one_line_error(lambda: load_scores(s, max_bytes=1000), str(s), "not enough memory")


def test_bad_limits_are_refused(tmp_path):
    s = write(tmp_path / "s.txt", "m s 1\n")
    for kw in ({"max_trials": -1}, {"max_bytes": "10"}, {"max_trials": True}):
        with pytest.raises(LlrlabError, match="must be a non-negative number"):
            load_scores(s, **kw)


def test_memory_error_names_the_file(tmp_path, monkeypatch):
    from llrlab.core.io import bosaris_text

    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 2\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 nontarget\n")

    def boom(*a, **kw):
        raise MemoryError

    monkeypatch.setattr(bosaris_text, "read_score_text", boom)  # the registry's reader
    one_line_error(lambda: load_trials(s, k), str(s), "not enough memory")
    one_line_error(lambda: load_scores(s), str(s), "not enough memory")


# --------------------------------------------------------------------------------------------
# Wrong numbers


@pytest.mark.parametrize(("values", "found"), [
    (np.ones((2, 3), bool), "booleans"),
    (np.array([[b"1", b"2", b"3"], [b"4", b"5", b"6"]]), "strings"),
    (np.array([["1", "2", "abc"], ["4", "5", "6"]], dtype=object), "strings"),
    (np.ones((2, 3)) * (1 + 2j), "complex"),
])
def test_scores_that_are_not_real_numbers_are_refused(tmp_path, values, found):
    p = tmp_path / "bad.h5"
    with h5py.File(p, "w") as f:
        if values.dtype == object:
            f.create_dataset("scores", data=values.astype(bytes).astype(object),
                             dtype=h5py.string_dtype())
        else:
            f["scores"] = values
        f["score_mask"] = np.ones((2, 3), np.uint8)
        ids(f)
    key = key_file(tmp_path / "k.h5")
    for call in (lambda: load_scores(p), lambda: load_trials(p, key),
                 lambda: read_score_file(p)):  # read_score_file: calibrate --apply
        one_line_error(call, str(p), "/scores should hold numbers", found)


def test_compound_scores_are_refused(tmp_path):
    p = tmp_path / "compound.h5"
    dt = np.dtype([("a", "f8"), ("b", "f8")])
    score_file(p, scores=np.zeros((2, 3), dt))
    one_line_error(lambda: load_scores(p), "/scores should hold numbers")


def test_integer_scores_are_read_as_numbers(tmp_path):
    p = score_file(tmp_path / "int.h5", scores=np.arange(6, dtype=np.int32).reshape(2, 3))
    np.testing.assert_array_equal(load_scores(p).scores, np.arange(6.0))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_cells_of_a_float_mask_are_refused(tmp_path, bad):
    mask = np.array([[1.0, 0.0, bad], [1.0, 1.0, 0.0]])
    p = score_file(tmp_path / "nanmask.h5", mask=mask)
    one_line_error(lambda: load_scores(p), str(p), "/score_mask", "non-finite")


def test_non_finite_cells_of_a_float_trial_mask_are_refused(tmp_path):
    p = tmp_path / "k.h5"
    with h5py.File(p, "w") as f:
        f["trial_mask"] = np.array([[1.0, -1.0, np.nan], [-1.0, 1.0, -1.0]])
        f["file_format"] = np.bytes_(b"2.0")
        ids(f)
    one_line_error(lambda: read_key(p), str(p), "/trial_mask", "non-finite")


def test_underscores_in_text_numbers_are_refused(tmp_path):
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 1_000\n")
    msg = one_line_error(lambda: load_scores(s), f"{s}, line 2", "'1_000' is not a number",
                         "underscore")
    assert "1000.0" not in msg
    lab = write(tmp_path / "l.csv", "score,label,weight\n1,target,1_0\n2,nontarget,1\n")
    one_line_error(lambda: load_trials(lab), f"{lab}, line 2", "weight '1_0'")


def test_weights_of_one_class_summing_to_zero_name_the_file(tmp_path):
    p = write(tmp_path / "w.csv", "score,label,weight\n1,target,0\n2,nontarget,1\n"
                                  "0,nontarget,2\n")
    one_line_error(lambda: load_trials(p), str(p), "target trials sum to zero")


# --------------------------------------------------------------------------------------------
# Echoed values are shortened


def test_a_huge_id_does_not_make_a_huge_message(tmp_path):
    big = "x" * 1_000_000
    s = write(tmp_path / "s.txt", f"{big} s1 1\nm1 s2 2\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n")
    with pytest.warns(Warning) as rec:
        load_trials(s, write(tmp_path / "k2.txt", f"{big} s1 target\nm1 s2 nontarget\n"
                                                  f"m2 s3 nontarget\n"))
    assert all(len(str(w.message)) < 600 for w in rec)
    msg = one_line_error(lambda: load_trials(s, write(tmp_path / "k3.txt",
                                                       "a b target\nc d nontarget\n")))
    assert "characters" in msg
    one_line_error(lambda: load_trials(write(tmp_path / "s2.txt", f"m s {big}\n"), k))
    one_line_error(lambda: load_trials(s, write(tmp_path / "k4.txt",
                                                 f"m1 s1 {big}\nm1 s2 target\n")))


def test_a_huge_hdf5_id_does_not_make_a_huge_message(tmp_path):
    big = b"y" * 100_000
    p = tmp_path / "dup.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = np.zeros((2, 3))
        f["score_mask"] = np.ones((2, 3), np.uint8)
        f["ID/row_ids"] = np.array([big, big])
        f["ID/column_ids"] = np.array(SEGS)
    one_line_error(lambda: load_scores(p), "appears twice")


def test_a_huge_condition_does_not_make_a_huge_message(tmp_path):
    t = Trials([1.0, 2.0], [True, False], model_ids=["m", "m"], segment_ids=["a", "b"])
    c = write(tmp_path / "c.txt", f"m a {'z' * 100_000}\nm a other\n")
    one_line_error(lambda: attach_conditions(t, c), "appears twice")


def test_message_without_a_file_is_now_named(tmp_path):
    p = score_file(tmp_path / "s.h5", scores=np.array([[b"a", b"b", b"c"]] * 2))
    msg = one_line_error(lambda: load_scores(p), str(p))
    assert "could not convert" not in msg
    with pytest.raises(FileFormatError):
        load_scores(p)


# --------------------------------------------------------------------------------------------
# Memory of a text load follows the result, not the number of Python objects per field


@pytest.mark.parametrize("fast", [True, False])
def test_tiny_lines_load_in_bounded_memory(tmp_path, monkeypatch, fast):
    import tracemalloc

    from llrlab.core.io import _columns, _fast, _source

    monkeypatch.setattr(_source, "BLOCK", 1 << 16)
    monkeypatch.setattr(_columns, "EXACT_BLOCK", 1 << 16)
    monkeypatch.setattr(_fast, "CHUNK_ROWS", 1 << 13)
    monkeypatch.setattr(_fast, "SMALL", 0 if fast else 1 << 40)
    rng = np.random.default_rng(0)
    n = 500_000  # 'd l\n' lines: 2 MB, the shape of the 5x10^7-line file that took 20x
    buf = np.empty((n, 4), np.uint8)
    buf[:, 0] = rng.integers(0, 10, n) + ord("0")
    buf[:, 1], buf[:, 3] = ord(" "), ord("\n")
    buf[:, 2] = (rng.random(n) < 0.1) + ord("0")
    p = tmp_path / "tiny.txt"
    p.write_bytes(buf.tobytes())
    import pandas  # noqa: F401 - imported before the measurement (its import is not the load)

    tracemalloc.start()
    try:
        t = load_trials(p)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = t.scores.nbytes + t.labels.nbytes  # 9 bytes a trial: 2.25x the file
    assert len(t) == n
    assert peak <= result + 0.2 * p.stat().st_size + 600_000, peak / p.stat().st_size
