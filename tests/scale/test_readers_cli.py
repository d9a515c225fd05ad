"""Inputs that scale (Parquet file and directory, chunked BOSARIS HDF5 with key masks) and
``llrlab eval --dask``, whose output equals ``llrlab eval --json``."""

from __future__ import annotations

import io
import json

import h5py
import numpy as np
import pytest

from llrlab.core import analyze
from llrlab.core.cli import run
from llrlab.core.errors import DataError, FileFormatError
from llrlab.core.io import load_trials, write_key_hdf5, write_scores_hdf5
from llrlab.core.scale import analyze_dask, open_scores, read_hdf5

from ._data import grid_trials, write_parquet


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def h5pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("h5")
    t = grid_trials(conditions=True)
    write_scores_hdf5(d / "scores.h5", t)
    # the key lists the models in another order and one trial fewer (a key mask of 0)
    order = np.argsort(-np.char.str_len(t.model_ids.astype(str)) * 1000
                       + np.arange(len(t)) % 97, kind="stable")
    key = t.subset(order[1:])
    write_key_hdf5(d / "key.h5", key)
    return d / "scores.h5", d / "key.h5"


def _same(a, b, rtol=1e-12):
    assert set(a) == set(b)
    for k in a:
        if isinstance(a[k], dict):
            _same(a[k], b[k], rtol)
        elif isinstance(a[k], (int, float)):
            assert a[k] == pytest.approx(b[k], rel=rtol, abs=0), k
        else:
            assert a[k] == b[k], k


def test_hdf5_blocks_read_the_same_trials_as_the_in_memory_loader(h5pair):
    s, k = h5pair
    with pytest.warns(UserWarning):  # one scored trial is not in the key
        mem = load_trials(s, k)
    ds = read_hdf5(s, k, block_cells=7_000)  # blocks of 14 rows of 500 segments
    assert ds.frame.npartitions == 5
    df = ds.frame.compute(scheduler="threads")
    assert len(df) == len(mem) == len(ds)
    assert sorted(df["score"][df["label"]]) == sorted(mem.tar.tolist())
    assert sorted(df["score"][~df["label"]]) == sorted(mem.non.tolist())
    assert sorted(zip(df["score"], df["condition"], strict=True)) == sorted(
        zip(mem.scores, mem.conditions, strict=True))


def test_cli_dask_output_equals_the_json_output(h5pair):
    s, k = h5pair
    base = ["eval", str(s), str(k), "--json", "--p-target", "0.05"]
    c1, o1, _ = _run(base)
    c2, o2, e2 = _run([*base, "--dask"])
    assert (c1, c2) == (0, 0), e2
    _same(json.loads(o2), json.loads(o1))


@pytest.mark.parametrize("options", [["--distance"], ["--llr-unit", "log10"],
                                     ["--higher-is-target", "false", "--llr-unit", "bits"]])
def test_cli_dask_reads_distances_and_llr_units_as_in_memory(h5pair, options):
    """``--distance`` and ``--llr-unit`` with ``--dask``: the same JSON as in memory (the
    scores negated and converted as they are read), and not the JSON without them."""
    s, k = h5pair
    base = ["eval", str(s), str(k), "--json", "--p-target", "0.05", *options]
    c1, o1, e1 = _run(base)
    c2, o2, e2 = _run([*base, "--dask"])
    assert (c1, c2) == (0, 0), e1 + e2
    _same(json.loads(o2), json.loads(o1))
    plain = json.loads(_run(base[:6])[1])
    assert json.loads(o2)["cllr"] != pytest.approx(plain["cllr"])


def test_cli_dask_condition_weights_and_calibration_equal_the_json_output(h5pair, tmp_path):
    s, k = h5pair
    base = ["eval", str(s), str(k), "--json", "--condition-weights", "tel=2,mic=1,far=1",
            "--calibrate-on", str(s), str(k), "--method", "pav"]
    c1, o1, _ = _run(base)
    c2, o2, e2 = _run([*base, "--dask"])
    assert (c1, c2) == (0, 0), e2
    a, b = json.loads(o2), json.loads(o1)
    _same(a["raw"], b["raw"])
    _same(a["calibrated"], b["calibrated"])
    assert a["calibration"]["method"] == b["calibration"]["method"] == "pav"


def test_cli_dask_text_table_says_how_it_was_computed(h5pair):
    s, k = h5pair
    code, out, err = _run(["eval", str(s), str(k), "--dask", "local"])
    assert code == 0, err
    assert "computed on Dask (local scheduler" in out and "EER (ROCCH)" in out


def test_cli_dask_refuses_options_it_cannot_honour(h5pair):
    s, k = h5pair
    code, _, err = _run(["eval", str(s), str(k), "--dask", "--bootstrap", "10"])
    assert code == 2 and "--bootstrap is not available with --dask" in err
    code, _, err = _run(["eval", str(s), "--dask"])
    assert code == 2 and "give its key file too" in err


def test_parquet_file_and_directory(tmp_path):
    t = grid_trials(20, 300, seed=3)
    f = write_parquet(tmp_path / "t.parquet", t)
    d = write_parquet(tmp_path / "parts", t, rows_per_file=1000)
    m = analyze(t, plo=[0.0, -2.0])
    for path in (f, d):
        a = analyze_dask(open_scores(path), plo=[0.0, -2.0], partition_rows=1500)
        for key in ("eer", "cllr", "min_cllr", "prbep"):
            assert getattr(a, key) == pytest.approx(getattr(m, key), rel=1e-12)
        np.testing.assert_allclose(a.act.dcf, m.act.dcf, rtol=1e-12)
    assert open_scores(d).frame.npartitions == 6


def test_parquet_directory_on_the_cluster(tmp_path, cluster_client):
    t = grid_trials(20, 300, seed=4)
    d = write_parquet(tmp_path / "parts", t, rows_per_file=1000)
    a = analyze_dask(open_scores(d), plo=[0.0], partition_rows=1500, client=cluster_client)
    m = analyze(t, plo=[0.0])
    assert a.info["shuffle"] == "p2p"
    for key in ("eer", "cllr", "min_cllr", "prbep"):
        assert getattr(a, key) == pytest.approx(getattr(m, key), rel=1e-12)


def test_parquet_labels_as_words_and_weights(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    s = rng.normal(0, 1, 2000)
    lab = rng.random(2000) < 0.3
    w = rng.choice([0.5, 2.0], 2000)
    pq.write_table(pa.table({"llr": s, "kind": np.where(lab, "target", "nontarget"),
                             "weight": w}), tmp_path / "w.parquet")
    from llrlab.core.scale import read_parquet

    a = analyze_dask(read_parquet(tmp_path / "w.parquet",
                                  columns={"score": "llr", "label": "kind"}))
    m = analyze(s[lab], s[~lab], tar_weights=w[lab], non_weights=w[~lab])
    assert a.min_cllr == pytest.approx(m.min_cllr, rel=1e-12)
    assert a.cllr == pytest.approx(m.cllr, rel=1e-12)


def test_parquet_errors(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"score": [1.0, 2.0]}), tmp_path / "nolabel.parquet")
    with pytest.raises(FileFormatError, match="has no column label"):
        open_scores(tmp_path / "nolabel.parquet")
    pq.write_table(pa.table({"score": [1.0, 2.0], "label": [2, 0]}), tmp_path / "bad.parquet")
    with pytest.raises(DataError, match="labels must be True/False or 1/0; found 2"):
        analyze_dask(open_scores(tmp_path / "bad.parquet"))
    pq.write_table(pa.table({"score": [1.0, np.nan, 0.0], "label": [True, False, False]}),
                   tmp_path / "nan.parquet")
    with pytest.raises(DataError, match=r"1 score\(s\) are NaN"):
        analyze_dask(open_scores(tmp_path / "nan.parquet"))
    pq.write_table(pa.table({"score": [1.0, 2.0], "label": [True, True]}),
                   tmp_path / "one.parquet")
    with pytest.raises(DataError, match="no non-target trials"):
        analyze_dask(open_scores(tmp_path / "one.parquet"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileFormatError, match=r"without \*\.parquet files"):
        open_scores(tmp_path / "empty")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(FileFormatError, match="cannot be read as Parquet"):
        open_scores(tmp_path / "junk.parquet")


def test_parquet_scores_that_are_strings_are_refused_in_one_line(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"score": ["1.5", "-0.25", "2"], "label": [True, False, False]}),
                   tmp_path / "text.parquet")
    code, out, err = _run(["eval", str(tmp_path / "text.parquet"), "--dask"])
    assert (code, out) == (2, "")
    assert err == (f"llrlab eval: error: {tmp_path / 'text.parquet'}: the column 'score' "
                   f"holds string values; write the scores as numbers (float or integer "
                   f"columns)\n")
    # one file of a directory, and a weight column
    d = tmp_path / "parts"
    d.mkdir()
    pq.write_table(pa.table({"score": [1.0, 0.0], "label": [True, False]}), d / "a.parquet")
    pq.write_table(pa.table({"score": ["1.0", "0.0"], "label": [True, False]}),
                   d / "b.parquet")
    with pytest.raises(FileFormatError, match=r"b\.parquet: the column 'score' holds string"):
        open_scores(d)
    pq.write_table(pa.table({"score": [1.0, 0.0], "label": [True, False],
                             "weight": ["1", "2"]}), tmp_path / "w.parquet")
    with pytest.raises(FileFormatError, match="the column 'weight' holds string values"):
        open_scores(tmp_path / "w.parquet")
    # integer scores are numbers
    pq.write_table(pa.table({"score": [3, -1, 0], "label": [True, False, False]}),
                   tmp_path / "int.parquet")
    assert analyze_dask(open_scores(tmp_path / "int.parquet")).eer == 0.0


def test_a_frame_whose_scores_are_strings_is_refused():
    import dask.dataframe as dd
    import pandas as pd

    df = dd.from_pandas(pd.DataFrame({"score": pd.array(["1", "2"], dtype="string"),
                                      "label": [True, False]}), npartitions=1)
    with pytest.raises(DataError, match="the score column must be floating point, got "
                                        "string"):
        analyze_dask(df)


def _hdf5_scores(path, **create):
    rows, cols = ["a", "b"], ["x", "y", "z"]
    with h5py.File(path, "w") as f:
        f.create_dataset("scores", data=np.arange(6.0).reshape(2, 3), **create)
        f.create_dataset("score_mask", data=np.ones((2, 3), np.uint8))
        f.create_dataset("ID/row_ids", data=np.array(rows, dtype="S"))
        f.create_dataset("ID/column_ids", data=np.array(cols, dtype="S"))
    return path


def test_hdf5_refuses_external_storage_links_virtual_and_unstored_data(h5pair, tmp_path):
    _, key = h5pair
    outside = tmp_path / "outside.bin"
    outside.write_bytes(np.arange(6.0).tobytes())
    p = tmp_path / "ext.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("scores", shape=(2, 3), dtype="f8", external=[(str(outside), 0, 48)])
        f.create_dataset("score_mask", data=np.ones((2, 3), np.uint8))
        f.create_dataset("ID/row_ids", data=np.array(["a", "b"], dtype="S"))
        f.create_dataset("ID/column_ids", data=np.array(["x", "y", "z"], dtype="S"))
    with pytest.raises(FileFormatError, match="external files"):
        read_hdf5(p, key)
    p2 = _hdf5_scores(tmp_path / "link.h5")
    with h5py.File(p2, "a") as f:
        f["elsewhere"] = h5py.ExternalLink(str(tmp_path / "other.h5"), "/data")
    with pytest.raises(FileFormatError, match="external link"):
        read_hdf5(p2, key)
    p3 = tmp_path / "virtual.h5"
    src = _hdf5_scores(tmp_path / "src.h5")
    with h5py.File(p3, "w") as f:
        layout = h5py.VirtualLayout(shape=(2, 3), dtype="f8")
        layout[:] = h5py.VirtualSource(str(src), "scores", shape=(2, 3))
        f.create_virtual_dataset("scores", layout)
        f.create_dataset("score_mask", data=np.ones((2, 3), np.uint8))
        f.create_dataset("ID/row_ids", data=np.array(["a", "b"], dtype="S"))
        f.create_dataset("ID/column_ids", data=np.array(["x", "y", "z"], dtype="S"))
    with pytest.raises(FileFormatError, match="virtual dataset"):
        read_hdf5(p3, key)
    p4 = tmp_path / "huge.h5"
    with h5py.File(p4, "w") as f:  # declares 10^10 cells, stores none of them
        f.create_dataset("scores", shape=(100_000, 100_000), dtype="f8", chunks=(100, 100))
        f.create_dataset("score_mask", shape=(100_000, 100_000), dtype="u1",
                         chunks=(100, 100))
        f.create_dataset("ID/row_ids", data=np.array([f"m{i}" for i in range(100_000)],
                                                     dtype="S"))
        f.create_dataset("ID/column_ids", data=np.array([f"s{i}" for i in range(100_000)],
                                                        dtype="S"))
    with pytest.raises(FileFormatError, match=r"declares .* but stores 0 bytes"):
        read_hdf5(p4, key)
