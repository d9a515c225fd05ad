"""BOSARIS HDF5 (MATLAB toolkit layout, old key layout) and SIDEKIT's variant.

The files here are made with h5py exactly as the writers lay them out (Brümmer & de Villiers 2011,
sec. 4.6): the BOSARIS Toolkit writes with ``hdf5write(..., 'V71Dimensions', true)``, so a models x
segments matrix appears in h5py with shape (models, segments); a plain column-major MATLAB write
(``h5write``) appears transposed, shape (segments, models); SIDEKIT writes (models, segments) with
``modelset``/``segset`` (older versions: ``segest``).
"""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabWarning, Scores, Trials
from llrlab.core.io import (
    Key,
    Ndx,
    is_hdf5,
    load_scores,
    load_trials,
    load_trials_with_report,
    read_key,
    read_ndx,
    write_key,
    write_ndx,
    write_scores,
)
from llrlab.core.io import hdf5 as h5mod

MODELS = ["m1", "m2"]
SEGS = ["s1", "s2", "s3"]
# models x segments; NaN where there is no trial (must be ignored)
SCORES = np.array([[1.5, -2.0, np.nan], [0.25, np.nan, 3.0]])
SMASK = np.array([[1, 1, 0], [1, 0, 1]], dtype=np.uint8)
# +1 target, -1 non-target, 0 no trial
TMASK = np.array([[1, -1, -1], [-1, 1, 1]], dtype=np.int8)
# expected trials, model-major (the order of numpy.nonzero)
EXP_M = ["m1", "m1", "m2", "m2"]
EXP_S = ["s1", "s2", "s1", "s3"]
EXP_X = [1.5, -2.0, 0.25, 3.0]
EXP_L = [True, False, False, True]


def ids(names, kind="fixed"):
    if kind == "fixed":
        return np.array([n.encode() for n in names], dtype="S")
    if kind == "vlen":
        return np.array(names, dtype=h5py.string_dtype("utf-8"))
    if kind == "column":  # an (n, 1) cell column, as MATLAB may leave it
        return np.array([n.encode() for n in names], dtype="S").reshape(-1, 1)
    raise AssertionError(kind)


def bosaris_scores(path, *, transpose=False, id_kind="fixed", sidekit=None):
    with h5py.File(path, "w") as f:
        mat, mask = (SCORES.T, SMASK.T) if transpose else (SCORES, SMASK)
        f["scores"] = mat
        f["score_mask"] = mask
        if sidekit:
            f["modelset"] = ids(MODELS, id_kind)
            f[sidekit] = ids(SEGS, id_kind)
        else:
            f["ID/row_ids"] = ids(MODELS, id_kind)
            f["ID/column_ids"] = ids(SEGS, id_kind)
    return path


def bosaris_key(path, *, layout="2.0", transpose=False, id_kind="fixed"):
    with h5py.File(path, "w") as f:
        m = TMASK.T if transpose else TMASK
        if layout == "2.0":
            f["trial_mask"] = m
            f["file_format"] = np.bytes_(b"2.0")
        elif layout == "old":
            f["target_mask"] = (m > 0).astype(np.uint8)
            f["nontarget_mask"] = (m < 0).astype(np.uint8)
        elif layout == "sidekit-tar-non":
            f["tar"] = m > 0
            f["non"] = m < 0
        elif layout == "sidekit-trial-mask":
            f["trial_mask"] = m
        if layout.startswith("sidekit"):
            f["modelset"] = ids(MODELS, id_kind)
            f["segset"] = ids(SEGS, id_kind)
        else:
            f["ID/row_ids"] = ids(MODELS, id_kind)
            f["ID/column_ids"] = ids(SEGS, id_kind)
    return path


def check(t, labels=True):
    assert t.model_ids.tolist() == EXP_M
    assert t.segment_ids.tolist() == EXP_S
    np.testing.assert_array_equal(t.scores, EXP_X)
    if labels:
        np.testing.assert_array_equal(t.labels, EXP_L)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("id_kind", ["fixed", "vlen", "column"])
def test_matlab_layout_scores_and_key(tmp_path, transpose, id_kind):
    s = bosaris_scores(tmp_path / "s.h5", transpose=transpose, id_kind=id_kind)
    k = bosaris_key(tmp_path / "k.h5", transpose=transpose, id_kind=id_kind)
    assert is_hdf5(s) and is_hdf5(k)
    with pytest.warns(LlrlabWarning, match=r"2 key trial\(s\).*'m1 s3'"):
        t, report = load_trials_with_report(s, k)
    check(t)
    assert (report.n_joined, report.n_left_only, report.n_right_only) == (4, 0, 2)


@pytest.mark.parametrize("layout", ["old", "sidekit-tar-non", "sidekit-trial-mask"])
def test_other_key_layouts(tmp_path, layout):
    k = read_key(bosaris_key(tmp_path / "k.h5", layout=layout))
    assert len(k) == 6 and (k.n_tar, k.n_non) == (3, 3)
    assert k.model_ids.tolist() == ["m1"] * 3 + ["m2"] * 3
    np.testing.assert_array_equal(k.labels, [True, False, False, False, True, True])


@pytest.mark.parametrize("segname", ["segset", "segest"])
def test_sidekit_scores(tmp_path, segname):
    s = bosaris_scores(tmp_path / "s.h5", sidekit=segname)
    sc = load_scores(s)
    assert isinstance(sc, Scores)
    assert sc.model_ids.tolist() == EXP_M and sc.segment_ids.tolist() == EXP_S
    np.testing.assert_array_equal(sc.scores, EXP_X)


def test_square_matrix_is_read_as_models_by_segments(tmp_path):
    # 2 models x 2 segments: the shapes cannot tell; the BOSARIS (models, segments) rule holds
    with h5py.File(tmp_path / "sq.h5", "w") as f:
        f["scores"] = np.array([[1.0, 2.0], [3.0, 4.0]])
        f["score_mask"] = np.ones((2, 2), np.uint8)
        f["ID/row_ids"] = ids(["a", "b"])
        f["ID/column_ids"] = ids(["x", "y"])
    s = load_scores(tmp_path / "sq.h5")
    got = {(m, g): v for m, g, v in zip(s.model_ids, s.segment_ids, s.scores, strict=True)}
    assert got == {("a", "x"): 1.0, ("a", "y"): 2.0, ("b", "x"): 3.0, ("b", "y"): 4.0}


def test_written_layout_is_the_matlab_toolkit_layout(tmp_path):
    t = Trials(EXP_X, EXP_L, model_ids=EXP_M, segment_ids=EXP_S)
    write_scores(tmp_path / "s.h5", t)
    write_key(tmp_path / "k.h5", t)
    write_ndx(tmp_path / "n.h5", t)
    with h5py.File(tmp_path / "s.h5") as f:
        assert sorted(f) == ["ID", "score_mask", "scores"]
        assert f["scores"].shape == (2, 3) and f["scores"].dtype == np.float64
        assert f["score_mask"].dtype == np.uint8
        np.testing.assert_array_equal(f["score_mask"][()], [[1, 1, 0], [1, 0, 1]])
        np.testing.assert_array_equal(f["scores"][()], [[1.5, -2.0, 0], [0.25, 0, 3.0]])
        assert f["ID/row_ids"][()].tolist() == [b"m1", b"m2"]
        assert f["ID/column_ids"][()].tolist() == [b"s1", b"s2", b"s3"]
        tid = f["ID/row_ids"].id.get_type()
        assert tid.get_strpad() == h5py.h5t.STR_NULLTERM
    with h5py.File(tmp_path / "k.h5") as f:
        assert f["trial_mask"].dtype == np.int8
        np.testing.assert_array_equal(f["trial_mask"][()], [[1, -1, 0], [-1, 0, 1]])
        assert f["file_format"][()] == b"2.0"
    with h5py.File(tmp_path / "n.h5") as f:
        assert f["trial_mask"].dtype == np.uint8 and "file_format" not in f
        np.testing.assert_array_equal(f["trial_mask"][()], [[1, 1, 0], [1, 0, 1]])


def test_round_trip_scores_key_ndx(tmp_path):
    rng = np.random.default_rng(2)
    nm, ns = 13, 29
    keep = rng.random((nm, ns)) < 0.7
    r, c = np.nonzero(keep)
    m = np.array([f"model-{i}" for i in range(nm)])[r]
    s = np.array([f"séance_{j:03d}" for j in range(ns)])[c]  # non-ASCII ids
    x = rng.normal(size=r.size) * 10.0 ** rng.integers(-200, 200, r.size)
    lab = rng.random(r.size) < 0.2
    t = Trials(x, lab, model_ids=m, segment_ids=s)
    write_scores(tmp_path / "s.hdf5", t)
    write_key(tmp_path / "k.hdf5", t)
    write_ndx(tmp_path / "n.hdf5", Ndx(m, s))
    back = load_trials(tmp_path / "s.hdf5", tmp_path / "k.hdf5")
    # model-major order over the id lists (kept in order of first appearance)
    want = {(a, b): (v, w) for a, b, v, w in zip(m, s, x.view(np.int64), lab, strict=True)}
    got = {(a, b): (v, w) for a, b, v, w in zip(back.model_ids, back.segment_ids,
                                                 back.scores.view(np.int64), back.labels,
                                                 strict=True)}
    assert got == want  # every bit of every score kept
    assert back.model_ids.tolist() == sorted(back.model_ids.tolist(), key=m.tolist().index)
    ndx = read_ndx(tmp_path / "n.hdf5")
    assert set(zip(ndx.model_ids, ndx.segment_ids, strict=True)) == set(want)
    assert len(read_ndx(tmp_path / "k.hdf5")) == len(want)
    key = read_key(tmp_path / "k.hdf5")
    assert isinstance(key, Key) and key.n_tar == lab.sum()


def test_format_keyword_and_extensions(tmp_path):
    t = Trials([1.0, 2.0], [True, False], model_ids=["a", "a"], segment_ids=["x", "y"])
    write_scores(tmp_path / "s.bin", t, format="hdf5")
    assert is_hdf5(tmp_path / "s.bin")
    write_scores(tmp_path / "s.h5", t, format="text")
    assert not is_hdf5(tmp_path / "s.h5")
    np.testing.assert_array_equal(load_scores(tmp_path / "s.h5").scores, [1.0, 2.0])
    np.testing.assert_array_equal(load_scores(tmp_path / "s.bin").scores, [1.0, 2.0])


def test_scores_hdf5_with_a_text_key(tmp_path):
    s = bosaris_scores(tmp_path / "s.h5")
    k = tmp_path / "k.txt"
    k.write_text("m1 s1 target\nm1 s2 nontarget\nm2 s3 target\nm9 s9 nontarget\n")
    with pytest.warns(LlrlabWarning) as rec:
        t, report = load_trials_with_report(s, k)
    msg = str(rec[0].message)
    assert "1 scored trial(s)" in msg and "'m2 s1'" in msg
    assert "1 key trial(s)" in msg and "'m9 s9'" in msg
    assert (report.n_joined, report.n_left_only, report.n_right_only) == (3, 1, 1)
    np.testing.assert_array_equal(t.scores, [1.5, -2.0, 3.0])
    np.testing.assert_array_equal(t.labels, [True, False, True])


def test_text_scores_with_an_hdf5_key(tmp_path):
    s = tmp_path / "s.txt"
    s.write_text("m2 s3 3\nm1 s1 1.5\nm1 s2 -2\n")
    with pytest.warns(LlrlabWarning, match=r"3 key trial\(s\)"):
        t = load_trials(s, bosaris_key(tmp_path / "k.h5"))
    np.testing.assert_array_equal(t.labels, [True, True, False])


def test_large_matrix_read(tmp_path):
    nm, ns = 100, 1000  # 10^5 trials
    rng = np.random.default_rng(0)
    mat = rng.normal(size=(nm, ns))
    mask = rng.random((nm, ns)) < 0.999
    tm = np.where(rng.random((nm, ns)) < 0.05, 1, -1).astype(np.int8)
    rows = [f"model{i}" for i in range(nm)]
    cols = [f"segment{j}" for j in range(ns)]
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f["scores"] = mat.T  # column-major writer: (segments, models)
        f["score_mask"] = mask.T.astype(np.uint8)
        f["ID/row_ids"] = ids(rows)
        f["ID/column_ids"] = ids(cols)
    with h5py.File(tmp_path / "k.h5", "w") as f:
        f["trial_mask"] = tm
        f["file_format"] = np.bytes_(b"2.0")
        f["ID/row_ids"] = ids(rows)
        f["ID/column_ids"] = ids(cols)
    with pytest.warns(LlrlabWarning, match="key trial"):
        t = load_trials(tmp_path / "s.h5", tmp_path / "k.h5")
    r, c = np.nonzero(mask)
    assert len(t) == r.size
    np.testing.assert_array_equal(t.scores, mat[r, c])
    np.testing.assert_array_equal(t.labels, tm[r, c] > 0)
    assert t.model_ids[12345] == rows[r[12345]] and t.segment_ids[12345] == cols[c[12345]]


def test_ndx_is_not_a_key(tmp_path):
    write_ndx(tmp_path / "n.h5", Ndx(["a", "b"], ["x", "y"]))
    with pytest.raises(FileFormatError, match=r"index \(Ndx\) without target/non-target"):
        read_key(tmp_path / "n.h5")


def test_score_file_is_not_a_key_and_key_is_not_scores(tmp_path):
    s = bosaris_scores(tmp_path / "s.h5")
    k = bosaris_key(tmp_path / "k.h5")
    with pytest.raises(FileFormatError, match=r"s.h5: is an HDF5 score file, not a key: "
                                              r"found /ID/column_ids"):
        read_key(s)
    with pytest.raises(FileFormatError, match=r"k.h5: is an HDF5 key file, not a score file"):
        load_scores(k)
    with pytest.raises(DataError, match="give its key file too"):
        load_trials(s)


def test_shape_that_fits_neither_orientation(tmp_path):
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f["scores"] = np.zeros((2, 4))
        f["score_mask"] = np.ones((2, 4), np.uint8)
        f["ID/row_ids"] = ids(MODELS)
        f["ID/column_ids"] = ids(SEGS)
    with pytest.raises(FileFormatError, match=r"/score_mask has shape \(2, 4\), but "
                                              r"/ID/row_ids lists 2 models and "
                                              r"/ID/column_ids 3 segments"):
        load_scores(tmp_path / "s.h5")


def test_non_finite_masked_score(tmp_path):
    bad = SCORES.copy()
    bad[1, 2] = np.inf
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f["scores"] = bad
        f["score_mask"] = SMASK
        f["ID/row_ids"] = ids(MODELS)
        f["ID/column_ids"] = ids(SEGS)
    with pytest.raises(FileFormatError, match=r"score of trial m2 s3 is infinite \(inf\)"):
        load_scores(tmp_path / "s.h5")


def test_duplicate_ids_and_bad_strings(tmp_path):
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f["scores"] = SCORES
        f["score_mask"] = SMASK
        f["ID/row_ids"] = ids(["m1", "m1"])
        f["ID/column_ids"] = ids(SEGS)
    with pytest.raises(FileFormatError, match="'m1' appears twice in /ID/row_ids"):
        load_scores(tmp_path / "d.h5")
    with h5py.File(tmp_path / "u.h5", "w") as f:
        f["scores"] = SCORES
        f["score_mask"] = SMASK
        f["ID/row_ids"] = np.array([b"m1", b"m\xff"])
        f["ID/column_ids"] = ids(SEGS)
    with pytest.raises(FileFormatError, match=r"/ID/row_ids entry 1 is not UTF-8"):
        load_scores(tmp_path / "u.h5")
    with h5py.File(tmp_path / "n.h5", "w") as f:
        f["scores"] = SCORES
        f["score_mask"] = SMASK
        f["ID/row_ids"] = np.array([1, 2])
        f["ID/column_ids"] = ids(SEGS)
    with pytest.raises(FileFormatError, match="/ID/row_ids should hold strings"):
        load_scores(tmp_path / "n.h5")


def test_space_padded_ids(tmp_path):
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(4)
    tid.set_strpad(h5py.h5t.STR_SPACEPAD)
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f["scores"] = SCORES
        f["score_mask"] = SMASK
        f.create_dataset("ID/row_ids", data=np.array([b"m1  ", b"m2  "]),
                         dtype=h5py.Datatype(tid))
        f["ID/column_ids"] = ids(SEGS)
    assert load_scores(tmp_path / "s.h5").model_ids.tolist() == EXP_M


def test_empty_mask(tmp_path):
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f["scores"] = SCORES
        f["score_mask"] = np.zeros_like(SMASK)
        f["ID/row_ids"] = ids(MODELS)
        f["ID/column_ids"] = ids(SEGS)
    with pytest.raises(FileFormatError, match="contains no trials"):
        load_scores(tmp_path / "s.h5")


def test_writing_needs_ids_and_a_dense_enough_list(tmp_path, monkeypatch):
    with pytest.raises(DataError, match="no \\(model, segment\\) ids"):
        write_scores(tmp_path / "s.h5", Scores([1.0, 2.0]))
    monkeypatch.setattr(h5mod, "MAX_CELLS", 3)
    s = Scores([1.0, 2.0], ["a", "b"], ["x", "y"])
    with pytest.raises(DataError, match="too sparse"):
        write_scores(tmp_path / "s.h5", s)


def test_writing_a_repeated_trial_is_refused(tmp_path):
    s = Scores([1.0, 2.0], ["a", "a"], ["x", "x"])
    with pytest.raises(DataError, match="twice"):
        write_scores(tmp_path / "s.h5", s)
