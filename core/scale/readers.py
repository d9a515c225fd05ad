"""Lazy readers of score sets larger than memory: Parquet tables and chunked BOSARIS HDF5.

Each returns a :class:`~llrlab.core.scale.ScoreSet` whose Dask DataFrame reads the files
block by block when it is computed (on the local scheduler or on a cluster's workers, which
open the files themselves).

* **Parquet** (:func:`read_parquet`): a file or a directory of ``*.parquet`` files with the
  columns ``score`` and ``label`` (bool, 0/1 or target/nontarget), and optionally ``model``,
  ``segment``, ``condition`` and ``weight``.
* **BOSARIS/SIDEKIT HDF5** (:func:`read_hdf5`): a score file (``/scores`` + ``/score_mask``)
  and a key (``/trial_mask``, or ``/target_mask`` + ``/nontarget_mask``, or SIDEKIT's
  ``tar`` + ``non``), read in 2-D blocks of at most ``block_cells`` cells.  The trials are
  the cells that have a score and a label (the key's models and segments are matched by id,
  in any order), as :func:`llrlab.core.io.load_trials` joins them; an optional
  ``/conditions`` string matrix in either file gives each trial its condition.

Safety: nothing outside the given files is read.  The object tree of an HDF5 file is
checked as :mod:`llrlab.core.io` checks it (external links, external storage, virtual
datasets, soft links leaving the file and plugin filters are refused), and a dataset that
declares far more cells than its stored bytes can hold (unallocated chunks read as fill
values, or a compression ratio beyond what deflate reaches) is refused before any block is
scheduled, so no work is sized by what a file merely declares.  Parquet row groups larger
than ``MAX_GROUP_ROWS`` are refused (a task reads one row group at a time).
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import DataError, FileFormatError
from ._dask import dask_modules
from ._frame import ScoreSet, is_float

__all__ = ["MAX_GROUP_ROWS", "check_hdf5_file", "open_scores", "read_hdf5", "read_parquet"]

#: Largest Parquet row group read by one task (about 300 MB per float64 column).
MAX_GROUP_ROWS = 1 << 25
#: Largest ratio of declared to stored bytes of a compressed HDF5 dataset (deflate's
#: maximum is about 1032:1).
MAX_EXPANSION = 1100
#: Cells of the score matrix read by one task.
BLOCK_CELLS = 1 << 24


def open_scores(path, key=None, **kw):
    """A labelled score set from a path: an HDF5 score file with its ``key``, a Parquet
    file, or a directory of Parquet files (see the module docstring).  Under
    :func:`~llrlab.core.io.score_orientation` (``--distance``, ``--llr-unit``) its scores
    are negated and converted as the in-memory loaders do
    (:func:`~llrlab.core.io.orientation.oriented`)."""
    from ..io.orientation import score_factor

    out = _open_scores(path, key, **kw)
    factor = score_factor()
    if factor == 1.0:
        return out
    return out.with_frame(out.frame.assign(score=out.frame["score"] * factor))


def _open_scores(path, key=None, **kw):
    from ..io.hdf5 import is_hdf5

    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileFormatError(name, "file not found")
    if os.path.isfile(name) and is_hdf5(name):
        if key is None:
            raise DataError(f"{name} is an HDF5 score file; give its key file too")
        return read_hdf5(name, key, **kw)
    if (os.path.isfile(name) and not name.lower().endswith((".parquet", ".parq", ".pq"))
            and not _is_parquet(name)):
        raise DataError(f"{name} is neither a Parquet nor an HDF5 file: --dask reads Parquet "
                        f"tables (score, label[, condition, weight]) and BOSARIS HDF5 score "
                        f"files with their keys; text files are read in memory, without "
                        f"--dask")
    if key is not None:
        raise DataError(f"{name}: a Parquet table carries its labels; give no key file")
    return read_parquet(name, **kw)


def _is_parquet(name):
    """Whether a file starts and ends with Parquet's magic bytes ``PAR1``."""
    try:
        with open(name, "rb") as f:
            head = f.read(4)
            f.seek(-4, os.SEEK_END)
            return head == b"PAR1" and f.read(4) == b"PAR1"
    except OSError:
        return False


# --------------------------------------------------------------------------------- Parquet


def _parquet_files(name):
    if os.path.isdir(name):
        files = sorted(os.path.join(root, f) for root, _, fs in os.walk(name) for f in fs
                       if f.endswith(".parquet") and not f.startswith((".", "_")))
        if not files:
            raise FileFormatError(name, "is a directory without *.parquet files")
        return files
    return [name]


def _check_numeric(schema, column, path, what):
    """Refuse a score or weight column that does not hold numbers (strings, booleans,
    decimals, dates...): one line naming the file, the column and its type."""
    import pyarrow as pa

    typ = schema.field(column).type
    if not (pa.types.is_floating(typ) or pa.types.is_integer(typ)):
        raise FileFormatError(path, f"the column {column!r} holds {typ} values; write the "
                                    f"{what} as numbers (float or integer columns)")


def read_parquet(path, *, columns=None):
    """A :class:`ScoreSet` from a Parquet file or a directory of Parquet files.

    Parameters
    ----------
    path : str or path-like
    columns : dict, optional
        Names of the columns in the files, e.g. ``{"score": "llr", "label": "is_target"}``
        (keys ``score``, ``label``, ``weight``, ``condition``).
    """
    import pyarrow.parquet as pq

    _, dd = dask_modules()
    name = os.fspath(path)
    names = {"score": "score", "label": "label", "weight": "weight", "condition": "condition"}
    names.update(columns or {})
    schema = None
    for f in _parquet_files(name):
        try:
            pf = pq.ParquetFile(f)
            meta, arrow = pf.metadata, pf.schema_arrow
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise FileFormatError(f, f"cannot be read as Parquet ({type(exc).__name__}: "
                                     f"{str(exc)[:200]})") from None
        for g in range(meta.num_row_groups):
            rows = meta.row_group(g).num_rows
            if rows > MAX_GROUP_ROWS:
                raise FileFormatError(f, f"row group {g} declares {rows:,} rows; at most "
                                         f"{MAX_GROUP_ROWS:,} per row group are read (rewrite "
                                         f"the file with smaller row groups)")
        cols = set(meta.schema.names)
        missing = [names[c] for c in ("score", "label") if names[c] not in cols]
        if missing:
            raise FileFormatError(f, f"has no column {', '.join(missing)}; the columns are "
                                     f"{', '.join(sorted(cols)[:20])}")
        _check_numeric(arrow, names["score"], f, "scores")
        if names["weight"] in cols:
            _check_numeric(arrow, names["weight"], f, "weights")
        schema = cols if schema is None else schema & cols
    want = [names[c] for c in ("score", "label", "weight", "condition") if names[c] in schema]
    files = _parquet_files(name)
    df = dd.read_parquet(files if len(files) > 1 else files[0], columns=want,
                         split_row_groups=True)
    df = df.rename(columns={v: k for k, v in names.items() if v in want})
    if not is_float(df["score"].dtype):  # integers, checked above
        df = df.assign(score=df["score"].astype(np.float64))
    from ._frame import as_frame

    frame, _ = as_frame(df, source=name)
    return ScoreSet(frame, name)


# ------------------------------------------------------------------------------------ HDF5


def _h5py():
    import h5py

    return h5py


def _check_stored(tree, path):
    """Refuse datasets that declare more cells than they store (unallocated chunks read as
    fill values, or a compression ratio beyond what deflate reaches): out of core, the
    matrices may exceed memory, so the in-memory loader's size limits do not apply, but no
    work is scheduled for cells a file merely declares."""
    for n, ds in tree.datasets.items():
        declared = int(np.prod(ds.shape or (0,), dtype=np.float64)) * ds.dtype.itemsize
        if declared == 0:
            continue
        stored = int(ds.id.get_storage_size())
        filtered = ds.id.get_create_plist().get_nfilters() > 0
        limit = declared / MAX_EXPANSION if filtered else declared
        if stored < limit or stored == 0:
            raise FileFormatError(path, f"/{n} declares {ds.shape} cells ({declared:,} bytes) "
                                        f"but stores {stored:,} bytes; refusing to read "
                                        f"unstored or implausibly compressed data")


def check_hdf5_file(f, path):
    """The checked datasets of an open HDF5 file: ``llrlab.core.io``'s checks of the object
    tree (no external links or storage, no virtual datasets, no links leaving the file, no
    plugin filters) and :func:`_check_stored`.  Returns ``{path: dataset}``."""
    from ..io.hdf5 import _Tree

    tree = _Tree(f, path)
    _check_stored(tree, path)
    return tree.datasets


def _open_checked(path):
    """``(file, datasets)`` of a checked HDF5 file."""
    from ..io._source import open_source
    from ..io.hdf5 import _open

    f = _open(open_source(path))
    try:
        return f, check_hdf5_file(f, path)
    except Exception:
        f.close()
        raise


def _ids(datasets, name, path):
    from ..io._source import make_limits
    from ..io.hdf5 import _check_distinct, _decode_ids

    ids = _decode_ids(datasets[name], name, path, make_limits())
    _check_distinct(ids, name, path)
    return ids


def _orientation(datasets, name, nr, nc, rows_name, cols_name, path):
    shape = datasets[name].shape
    if len(shape) != 2:
        raise FileFormatError(path, f"/{name} should be a 2-D matrix, found shape {shape}")
    if shape == (nr, nc):
        return False
    if shape == (nc, nr):
        return True
    raise FileFormatError(path, f"/{name} has shape {shape}, but /{rows_name} lists {nr} "
                                f"models and /{cols_name} {nc} segments")


def _layout_of(path, want):
    from ..io.hdf5 import _layout

    f, dsets = _open_checked(path)
    with f:
        names = set(dsets)
        kind, ds = _layout(names, path)
        if want == "scores" and kind != "scores":
            raise FileFormatError(path, "is not an HDF5 score file: expected /scores + "
                                        "/score_mask")
        if want == "key" and kind not in ("key", "key-old", "mask"):
            raise FileFormatError(path, "is not an HDF5 key: expected /trial_mask (or "
                                        "/target_mask + /nontarget_mask)")
        rows, cols = _ids(dsets, ds["rows"], path), _ids(dsets, ds["cols"], path)
        mats = [v for k, v in ds.items() if k not in ("rows", "cols")]
        flips = {m: _orientation(dsets, m, rows.size, cols.size, ds["rows"], ds["cols"], path)
                 for m in mats}
        cond = None
        if "conditions" in names:
            if dsets["conditions"].dtype.kind not in "SOU":
                raise FileFormatError(path, f"/conditions should hold strings, found "
                                            f"{dsets['conditions'].dtype}")
            cond = _orientation(dsets, "conditions", rows.size, cols.size, ds["rows"],
                                ds["cols"], path)
        if kind == "mask" and dsets[ds["mask"]].dtype.kind != "i":
            raise FileFormatError(path, "is an HDF5 index (Ndx) without target/non-target "
                                        "labels")
    return {"kind": kind, "ds": ds, "rows": rows, "cols": cols, "flip": flips, "cond": cond}


def _read(f, name, flip, r, c):
    """Block ``[r, c]`` (slices or increasing index arrays) of a models x segments matrix."""
    ds = f[name]
    if isinstance(r, np.ndarray) and isinstance(c, np.ndarray):
        # h5py takes one index list per read: rows first, then columns in memory
        block = ds[:, r] if flip else ds[r, :]
        return block.T[:, c] if flip else block[:, c]
    return ds[c, r].T if flip else ds[r, c]


def _decode(cells, path):
    out = np.empty(cells.shape, dtype=object)
    flat = cells.ravel().tolist()
    for i, v in enumerate(flat):
        if isinstance(v, bytes):
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                raise FileFormatError(path, "/conditions holds a string that is not "
                                            "UTF-8") from None
        v = str(v).rstrip("\x00")
        if not v:
            raise FileFormatError(path, "a trial has no condition in /conditions (an "
                                        "empty string)")
        out.ravel()[i] = v
    return out


def _hdf5_block(spath, kpath, sl, kl, r0, r1, c0, c1, key_rows, key_cols):
    """The trials of score-matrix block ``[r0:r1, c0:c1]`` as a DataFrame."""
    try:
        return _hdf5_block_read(spath, kpath, sl, kl, r0, r1, c0, c1, key_rows, key_cols)
    except (OSError, KeyError, RuntimeError, TypeError) as exc:
        # h5py's errors from inside a damaged file (bad chunk, broken link, odd type)
        raise FileFormatError(spath, f"cannot read rows {r0}-{r1 - 1} with {kpath} "
                                     f"({type(exc).__name__}: {str(exc)[:200]})") from None


def _hdf5_block_read(spath, kpath, sl, kl, r0, r1, c0, c1, key_rows, key_cols):
    import pandas as pd

    h5py = _h5py()
    with h5py.File(spath, "r") as fs, h5py.File(kpath, "r") as fk:
        d = sl["ds"]
        scores = _read(fs, d["scores"], sl["flip"][d["scores"]], slice(r0, r1), slice(c0, c1))
        smask = _read(fs, d["mask"], sl["flip"][d["mask"]], slice(r0, r1), slice(c0, c1)) != 0
        kr, kc = key_rows[r0:r1], key_cols[c0:c1]
        in_key = (kr >= 0)[:, None] & (kc >= 0)[None, :]
        lab = np.zeros(scores.shape, dtype=np.int8)
        if in_key.any():
            rsel, csel = np.flatnonzero(kr >= 0), np.flatnonzero(kc >= 0)
            ro, co = np.argsort(kr[rsel]), np.argsort(kc[csel])
            rk, ck = kr[rsel][ro], kc[csel][co]
            dk = kl["ds"]

            def key(name):
                return _read(fk, name, kl["flip"][name], rk, ck)

            if kl["kind"] == "key-old":
                t, n = key(dk["tar"]) != 0, key(dk["non"]) != 0
                if (t & n).any():
                    raise FileFormatError(kpath, "a trial is marked both target and "
                                                 "non-target")
                sub = np.where(t, 1, np.where(n, -1, 0)).astype(np.int8)
            else:
                m = key(dk["mask"])
                if m.dtype.kind not in "iub":
                    m = np.where(m > 0.5, 1, np.where(m < -0.5, -1, 0))
                sub = np.sign(m).astype(np.int8)
            tmp = np.zeros((rsel.size, csel.size), dtype=np.int8)
            tmp[np.ix_(ro, co)] = sub
            lab[np.ix_(rsel, csel)] = tmp
        sel = smask & (lab != 0)
        r, c = np.nonzero(sel)
        s = np.asarray(scores[r, c])
        if s.dtype.kind != "f":
            s = s.astype(np.float64)
        bad = ~np.isfinite(s)
        if bad.any():
            i = int(np.argmax(bad))
            raise FileFormatError(spath, f"the score of trial {sl['rows'][r0 + r[i]]} "
                                         f"{sl['cols'][c0 + c[i]]} is {s[i]!r}; scores must "
                                         f"be finite")
        cols = {"score": s, "label": lab[r, c] > 0}
        if sl["cond"] is not None or kl["cond"] is not None:
            if sl["cond"] is not None:
                cm = _read(fs, "conditions", sl["cond"], slice(r0, r1), slice(c0, c1))[r, c]
                cols["condition"] = _decode(cm, spath).astype(str)
            else:
                rr, cc = kr[r], kc[c]
                ro2, co2 = np.unique(rr), np.unique(cc)
                cm = _read(fk, "conditions", kl["cond"], ro2, co2)
                cols["condition"] = _decode(
                    cm[np.searchsorted(ro2, rr), np.searchsorted(co2, cc)], kpath).astype(str)
    return pd.DataFrame(cols)


def read_hdf5(scores, key, *, block_cells=BLOCK_CELLS):
    """A :class:`ScoreSet` from a BOSARIS/SIDEKIT HDF5 score file and its key.

    The score matrix is read in blocks of whole rows (or of row pieces, for very wide
    matrices) of at most ``block_cells`` cells; each block becomes one input partition.
    """
    dask, dd = dask_modules()
    import pandas as pd

    spath, kpath = os.fspath(scores), os.fspath(key)
    layouts = []
    for path, want in ((spath, "scores"), (kpath, "key")):
        try:
            layouts.append(_layout_of(path, want))
        except (OSError, KeyError, RuntimeError, TypeError) as exc:
            raise FileFormatError(path, f"cannot be read as a BOSARIS HDF5 file "
                                        f"({type(exc).__name__}: {str(exc)[:200]})") from None
    sl, kl = layouts
    krow = {v: i for i, v in enumerate(kl["rows"].tolist())}
    kcol = {v: i for i, v in enumerate(kl["cols"].tolist())}
    key_rows = np.array([krow.get(v, -1) for v in sl["rows"].tolist()], dtype=np.int64)
    key_cols = np.array([kcol.get(v, -1) for v in sl["cols"].tolist()], dtype=np.int64)
    if not (key_rows >= 0).any() or not (key_cols >= 0).any():
        raise FileFormatError(spath, f"no trial joins with {kpath}: no model or no segment "
                                     f"of the score file is in the key")
    nr, nc = sl["rows"].size, sl["cols"].size
    width = min(nc, max(1, int(block_cells)))
    height = max(1, int(block_cells) // width)
    with _h5py().File(spath, "r") as f:
        sdtype = np.dtype(f[sl["ds"]["scores"]].dtype)
    sdtype = sdtype if sdtype.kind == "f" else np.dtype(np.float64)
    parts = []
    shared = [dask.delayed(x, pure=True) for x in (sl, kl, key_rows, key_cols)]
    for r0 in range(0, nr, height):
        for c0 in range(0, nc, width):
            parts.append(dask.delayed(_hdf5_block)(
                spath, kpath, shared[0], shared[1], r0, min(r0 + height, nr), c0,
                min(c0 + width, nc), shared[2], shared[3]))
    meta = {"score": pd.Series(dtype=sdtype), "label": pd.Series(dtype=bool)}
    if sl["cond"] is not None or kl["cond"] is not None:
        meta["condition"] = pd.Series(dtype=object)
    frame = dd.from_delayed(parts, meta=pd.DataFrame(meta), verify_meta=False)
    return ScoreSet(frame, spath)
