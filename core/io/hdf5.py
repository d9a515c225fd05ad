"""BOSARIS HDF5 score, key and index files (and SIDEKIT's variant of them).

The binary format of the BOSARIS Toolkit (seed 000 section 4.6) stores a trial list as two id
lists and dense matrices of size (number of models) x (number of test segments): element
(i, j) belongs to the trial of model i and segment j.

=============  ===============================================================================
object         datasets
=============  ===============================================================================
Scores         ``/scores`` (float64), ``/score_mask`` (uint8, 1 = the trial has a score),
               ``/ID/row_ids`` (model ids), ``/ID/column_ids`` (segment ids)
Key            ``/trial_mask`` (int8: +1 target, -1 non-target, 0 no trial),
               ``/file_format`` = "2.0", ``/ID/row_ids``, ``/ID/column_ids``
Key (old)      ``/target_mask`` and ``/nontarget_mask`` (logical) + ``/ID/...``
Ndx (index)    ``/trial_mask`` (uint8, 1 = trial) + ``/ID/...``
SIDEKIT        ``modelset``, ``segset`` (older versions: ``segest``), ``scores``,
               ``score_mask``; key ``tar`` and ``non`` masks or an int8 ``trial_mask``
Conditions     optional in a score or key file (an llrlab extension, ignored by other
               readers): ``/conditions``, a models x segments matrix of strings (UTF-8) with
               the condition of every trial (other cells empty); read into
               ``Trials.conditions`` for condition-weighted pooling (seed 001)
=============  ===============================================================================

Ids may be fixed-length or variable-length strings; they are decoded as UTF-8 (trailing NUL
padding, and space padding of space-padded string types, is removed).

Matrix orientation
------------------
MATLAB stores arrays column-major; ``h5write`` (and ``hdf5write`` with its default
``'V71Dimensions', false``) therefore writes a models x segments matrix so that h5py sees it
transposed, with shape (segments, models).  The BOSARIS Toolkit, however, writes and reads
every dataset with ``hdf5write/hdf5read(..., 'V71Dimensions', true)``, which permutes the
first two dimensions; its files therefore appear in h5py with shape (models, segments) and
``a[i, j]`` is MATLAB's ``A(i, j)``.  This is also the layout that the Python ports use:
SIDEKIT's ``Scores.read_matlab``/``write_matlab`` and hyperion's ``TrialNdx.load_h5`` read and
write BOSARIS files with ``shape == (len(row_ids), len(column_ids))``.

Reading rule: a matrix whose h5py shape is ``(len(row_ids), len(column_ids))`` is used as is;
one whose shape is ``(len(column_ids), len(row_ids))`` is transposed (a file written by a
column-major writer without the permutation); any other shape is an error.  When the two
lengths are equal the orientation cannot be told from the shapes, and the matrix is taken as
(models, segments) -- the layout the BOSARIS Toolkit and its Python ports write.

Writing rule: matrices are written C-ordered with shape (models, segments), the layout of the
BOSARIS Toolkit's own files, which its ``read_hdf5`` (``hdf5read`` with ``'V71Dimensions',
true``) reads back as the models x segments matrix, and which SIDEKIT and hyperion read
unchanged.  Ids are written as fixed-length, NUL-terminated strings (UTF-8 when needed), like
SIDEKIT's ``astype('S')`` but always with a terminating NUL for C and MATLAB readers.

Reading is vectorized: ``numpy.nonzero`` on the mask gives the trial coordinates (in model-major
order) and fancy indexing gives the scores, so 10^7-trial matrices load in seconds.

References
----------
.. [1] N. Brümmer and E. de Villiers, "The BOSARIS Toolkit: Theory, Algorithms and Code for
   Surviving the New DCF" (2011), seed 000 section 4.6 (file format) and 4.1 (data objects).
.. [2] BOSARIS Toolkit MATLAB sources ``@Scores/save_hdf5.m``, ``@Key/save_hdf5.m``,
   ``@Ndx/save_hdf5.m`` and their ``read_hdf5.m``: ``hdf5write``/``hdf5read`` with
   ``'V71Dimensions', true``; MATLAB's ``hdf5write`` documentation for that option.
.. [3] SIDEKIT ``bosaris/scores.py`` (``read_matlab``, ``write_matlab``, ``segest``) and
   ``bosaris/key.py``; hyperion ``TrialNdx.load_h5``.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import DataError, FileFormatError
from .bosaris_text import Table, pair_codes, table_from_ids

__all__ = [
    "HDF5_SIGNATURE",
    "is_hdf5",
    "read_hdf5_table",
    "write_key_hdf5",
    "write_ndx_hdf5",
    "write_scores_hdf5",
]

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"

#: Largest dense matrix written (cells); beyond it the trial list is too sparse for the format.
MAX_CELLS = 2**31


def is_hdf5(path):
    """True if ``path`` starts with the HDF5 signature (at offset 0 or a user-block offset).

    Examples
    --------
    >>> is_hdf5("no-such-file.h5")
    False
    """
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            offset = 0
            while offset + 8 <= size:
                f.seek(offset)
                if f.read(8) == HDF5_SIGNATURE:
                    return True
                offset = 512 if offset == 0 else 2 * offset
    except (OSError, TypeError, ValueError):
        return False
    return False


def _h5py():
    import h5py  # imported lazily: `import llrlab.core` stays light

    return h5py


def _open(path):
    h5py = _h5py()
    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileFormatError(name, "file not found")
    if os.path.isdir(name):
        raise FileFormatError(name, "is a directory, not a file")
    try:
        return h5py.File(name, "r")
    except OSError as exc:
        raise FileFormatError(name, f"cannot be opened as an HDF5 file ({exc})") from None


def _dataset_names(f):
    h5py = _h5py()
    names = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            names.append(name)

    f.visititems(visit)
    return names


_EXPECTED = (
    "expected /scores + /score_mask (scores), /trial_mask + /file_format (key), "
    "/target_mask + /nontarget_mask (old key) or /trial_mask (index), each with /ID/row_ids + "
    "/ID/column_ids; or SIDEKIT's modelset + segset with scores + score_mask, tar + non or "
    "trial_mask"
)


def _found(names):
    shown = ", ".join("/" + n for n in sorted(names)[:20])
    more = f" and {len(names) - 20} more" if len(names) > 20 else ""
    return f"found {shown or 'no datasets'}{more}"


def _layout(f, path):
    """(kind, datasets) of an open file; kind in scores, key, key-old, key-sidekit, mask."""
    names = set(_dataset_names(f))

    def has(*n):
        return all(x in names for x in n)

    if has("ID/row_ids", "ID/column_ids"):
        ids = {"rows": "ID/row_ids", "cols": "ID/column_ids"}
    elif has("modelset") and (has("segset") or has("segest")):
        ids = {"rows": "modelset", "cols": "segset" if has("segset") else "segest"}
    else:
        ids = None
    if has("scores", "score_mask"):
        kind, data = "scores", {"scores": "scores", "mask": "score_mask"}
    elif has("target_mask", "nontarget_mask"):
        kind, data = "key-old", {"tar": "target_mask", "non": "nontarget_mask"}
    elif has("tar", "non"):
        kind, data = "key-old", {"tar": "tar", "non": "non"}
    elif has("trial_mask"):
        kind, data = ("key" if has("file_format") else "mask"), {"mask": "trial_mask"}
    else:
        kind = data = None
    if ids is None or kind is None:
        raise FileFormatError(path, f"is not a BOSARIS or SIDEKIT HDF5 score, key or index "
                                    f"file: {_found(names)}; {_EXPECTED}")
    return kind, {**ids, **data}, names


def _decode_ids(f, name, path):
    h5py = _h5py()
    ds = f[name]
    shape = ds.shape
    if ds.ndim == 2 and 1 in shape:
        n = shape[0] * shape[1]
    elif ds.ndim == 1:
        n = shape[0]
    else:
        raise FileFormatError(path, f"/{name} should be a list of ids, found shape {shape}")
    if ds.dtype.kind not in "SOU":
        raise FileFormatError(path, f"/{name} should hold strings, found {ds.dtype}")
    space_padded = False
    try:
        tid = ds.id.get_type()
        space_padded = (tid.get_class() == h5py.h5t.STRING and not tid.is_variable_str()
                        and tid.get_strpad() == h5py.h5t.STR_SPACEPAD)
    except (AttributeError, ValueError):  # pragma: no cover - exotic types
        pass
    raw = ds[()].reshape(n).tolist()
    out = np.empty(n, dtype=object)
    for i, v in enumerate(raw):
        if isinstance(v, bytes):
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                raise FileFormatError(path, f"/{name} entry {i} is not UTF-8: {v[:40]!r}") \
                    from None
        elif not isinstance(v, str):
            raise FileFormatError(path, f"/{name} entry {i} is not a string: {v!r}")
        v = v.rstrip("\x00")
        out[i] = v.rstrip(" ") if space_padded else v
    return out


def _check_distinct(ids, name, path):
    if len(set(ids.tolist())) != ids.size:
        seen = set()
        for i, s in enumerate(ids.tolist()):
            if s in seen:
                raise FileFormatError(path, f"the id {s!r} appears twice in /{name} "
                                            f"(entry {i})")
            seen.add(s)


def _matrix(f, name, n_rows, n_cols, ids, path):
    """Dataset ``name`` as an (n_rows, n_cols) array (a view, transposed if needed)."""
    ds = f[name]
    if ds.ndim != 2:
        raise FileFormatError(path, f"/{name} should be a 2-D matrix, found shape {ds.shape}")
    if ds.shape == (n_rows, n_cols):
        return ds[()]
    if ds.shape == (n_cols, n_rows):
        return ds[()].T
    raise FileFormatError(path, f"/{name} has shape {ds.shape}, but /{ids['rows']} lists "
                                f"{n_rows} models and /{ids['cols']} {n_cols} segments")


def read_hdf5_table(path, want, *, progress=None):
    """Read a BOSARIS/SIDEKIT HDF5 file as a Table.

    Parameters
    ----------
    path : str or path-like
    want : {"scores", "key", "ndx"}
        What the caller needs; a score file cannot serve as a key, an index cannot serve as
        scores or a key.  A key is accepted where an index is wanted.
    progress : callable, optional
        ``progress(fraction, message)``.

    Returns
    -------
    Table
        Values ``"scores"`` (float64) or ``"labels"`` (bool), none for an index.
    """
    name = os.fspath(path)
    try:
        return _read_table(name, want, progress)
    except (OSError, KeyError, RuntimeError, TypeError) as exc:
        # h5py's errors from inside a damaged file (bad chunk, broken link, odd type)
        raise FileFormatError(name, f"cannot be read as a BOSARIS HDF5 file "
                                    f"({type(exc).__name__}: {exc})") from None


def _read_table(name, want, progress):
    with _open(name) as f:
        kind, ds, names = _layout(f, name)
        if progress:
            progress(0.1, f"reading {name}")
        if want == "scores" and kind != "scores":
            raise FileFormatError(name, f"is an HDF5 {_what(kind)} file, not a score file: "
                                        f"{_found(names)}; expected /scores + /score_mask")
        if want == "key" and kind == "scores":
            raise FileFormatError(name, f"is an HDF5 score file, not a key: {_found(names)}; "
                                        f"expected /trial_mask + /file_format (or "
                                        f"/target_mask + /nontarget_mask)")
        rows = _decode_ids(f, ds["rows"], name)
        cols = _decode_ids(f, ds["cols"], name)
        _check_distinct(rows, ds["rows"], name)
        _check_distinct(cols, ds["cols"], name)
        nr, nc = rows.size, cols.size
        values = {}
        if kind == "scores":
            mask = _matrix(f, ds["mask"], nr, nc, ds, name) != 0
            r, c = np.nonzero(mask)
            del mask
            if progress:
                progress(0.5, f"reading {name}")
            values["scores"] = np.asarray(_matrix(f, ds["scores"], nr, nc, ds, name)[r, c],
                                          dtype=np.float64)
        elif kind == "key-old":
            tar = _matrix(f, ds["tar"], nr, nc, ds, name) != 0
            non = _matrix(f, ds["non"], nr, nc, ds, name) != 0
            both = tar & non
            if both.any():
                i, j = (int(v[0]) for v in np.nonzero(both))
                raise FileFormatError(name, f"trial {rows[i]} {cols[j]!s} is marked both target "
                                            f"(/{ds['tar']}) and non-target (/{ds['non']})")
            r, c = np.nonzero(tar | non)
            values["labels"] = tar[r, c]
        else:
            m = _matrix(f, ds["mask"], nr, nc, ds, name)
            if m.dtype.kind not in "iub":
                m = np.asarray(m, dtype=np.float64)
                m = np.where(m > 0.5, 1, np.where(m < -0.5, -1, 0)).astype(np.int8)
            is_key = kind == "key" or (m.dtype.kind == "i" and (m < 0).any())
            if want == "key" and not is_key:
                raise FileFormatError(name, f"is an HDF5 index (Ndx) without target/non-target "
                                            f"labels: /{ds['mask']} has no -1 entries and there "
                                            f"is no /file_format; {_found(names)}")
            r, c = np.nonzero(m)
            if want == "key":
                values["labels"] = m[r, c] > 0
        if "conditions" in names and want != "ndx":
            values["conditions"] = _conditions(f, nr, nc, ds, name, r, c, rows, cols)
    if want == "scores":
        bad = ~np.isfinite(values["scores"])
        if bad.any():
            i = int(np.argmax(bad))
            v = float(values["scores"][i])
            raise FileFormatError(name, f"the score of trial {rows[r[i]]} {cols[c[i]]} is "
                                        f"{'NaN' if np.isnan(v) else 'infinite'} ({v!r}); "
                                        f"{int(bad.sum())} such value(s), scores must be "
                                        f"finite")
    if r.size == 0:
        raise FileFormatError(name, f"contains no trials (the {_what(kind)} mask is all zero)")
    return Table(name, r, rows, c, cols, values, unique=True)


def _conditions(f, n_rows, n_cols, ids, path, r, c, rows, cols):
    """The ``/conditions`` string matrix at the trial cells ``(r, c)``, as str."""
    if f["conditions"].dtype.kind not in "SOU":
        raise FileFormatError(path, f"/conditions should hold strings, found "
                                    f"{f['conditions'].dtype}")
    cells = _matrix(f, "conditions", n_rows, n_cols, ids, path)[r, c]
    out = np.empty(cells.size, dtype=object)
    for i, v in enumerate(cells.tolist()):
        if isinstance(v, bytes):
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                raise FileFormatError(path, f"/conditions of trial {rows[r[i]]} {cols[c[i]]} "
                                            f"is not UTF-8: {v[:40]!r}") from None
        v = str(v).rstrip("\x00")
        if not v:
            raise FileFormatError(path, f"trial {rows[r[i]]} {cols[c[i]]} has no condition "
                                        f"in /conditions (an empty string)")
        out[i] = v
    return out.astype(str)


def _what(kind):
    return {"scores": "score", "key": "key", "key-old": "key", "mask": "index"}[kind]


# --------------------------------------------------------------------------------------------
# Writing


def _dense(table, what):
    """Id lists (in order of first appearance) and the matrix cell of every trial.

    Keeping the order of appearance makes a write/read round trip of a model-major trial list
    return the trials in their original order.
    """
    pairs = pair_codes(table)
    if np.unique(pairs).size != pairs.size:
        raise DataError(f"{table.source or 'the trials'} list a (model, segment) trial twice; "
                        f"a {what} matrix has one cell per trial")
    rows, cols = table.model_vocab, table.seg_vocab
    cells = rows.size * cols.size
    if cells > MAX_CELLS:
        raise DataError(f"a BOSARIS HDF5 {what} file stores a dense {rows.size} x {cols.size} "
                        f"matrix ({cells:,} cells) for these {pairs.size:,} trials; that is too "
                        f"sparse for the format -- write a text file instead")
    return rows, cols, table.model_codes, table.seg_codes


def _write_ids(f, name, ids):
    h5py = _h5py()
    enc = [str(s).encode("utf-8") for s in ids.tolist()]
    width = max(len(e) for e in enc) + 1  # always room for the terminating NUL
    arr = np.array(enc, dtype=f"S{width}")
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(width)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    tid.set_cset(h5py.h5t.CSET_ASCII if all(e.isascii() for e in enc) else h5py.h5t.CSET_UTF8)
    group, _, leaf = name.rpartition("/")
    parent = f.require_group(group) if group else f
    space = h5py.h5s.create_simple((arr.size,))
    dsid = h5py.h5d.create(parent.id, leaf.encode(), tid, space)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, arr, mtype=tid)


def _write(path, fill):
    h5py = _h5py()
    name = os.fspath(path)
    try:
        with h5py.File(name, "w") as f:
            fill(f)
    except OSError as exc:
        raise FileFormatError(name, f"cannot be written as HDF5 ({exc})") from None


def _table(obj, what):
    if getattr(obj, "model_ids", None) is None:
        raise DataError(f"{getattr(obj, 'source', '') or 'the data'} has no (model, segment) "
                        f"ids, which a BOSARIS HDF5 {what} file needs")
    values = {}
    if getattr(obj, "scores", None) is not None:
        values["scores"] = np.asarray(obj.scores, dtype=np.float64)
    if getattr(obj, "labels", None) is not None:
        values["labels"] = np.asarray(obj.labels, dtype=bool)
    if getattr(obj, "conditions", None) is not None:
        values["conditions"] = np.asarray(obj.conditions, dtype=str)
    return table_from_ids(getattr(obj, "source", ""), obj.model_ids, obj.segment_ids, values)


def _condition_matrix(t, rows, cols, r, c):
    """``/conditions`` for a table with conditions (None without): '' where no trial."""
    if "conditions" not in t.values:
        return None
    mat = np.full((rows.size, cols.size), "", dtype=object)
    mat[r, c] = t.values["conditions"]
    return mat


def _write_conditions(f, mat):
    if mat is not None:
        f.create_dataset("conditions", data=mat, dtype=_h5py().string_dtype("utf-8"))


def write_scores_hdf5(path, scores):
    """Write Scores (or Trials) as BOSARIS HDF5 ``/scores``, ``/score_mask`` and ``/ID/...``.

    Conditions, when the trials have them, go to ``/conditions`` (see the module docstring).
    """
    t = _table(scores, "score")
    rows, cols, r, c = _dense(t, "score")
    mat = np.zeros((rows.size, cols.size), dtype=np.float64)
    mask = np.zeros((rows.size, cols.size), dtype=np.uint8)
    mat[r, c] = t.values["scores"]
    mask[r, c] = 1
    cond = _condition_matrix(t, rows, cols, r, c)

    def fill(f):
        f.create_dataset("scores", data=mat)
        f.create_dataset("score_mask", data=mask)
        _write_ids(f, "ID/row_ids", rows)
        _write_ids(f, "ID/column_ids", cols)
        _write_conditions(f, cond)

    _write(path, fill)


def write_key_hdf5(path, key):
    """Write a Key (or Trials) as BOSARIS HDF5 ``/trial_mask`` (int8), ``/file_format``.

    Conditions of Trials go to ``/conditions`` (see the module docstring).
    """
    t = _table(key, "key")
    rows, cols, r, c = _dense(t, "key")
    mask = np.zeros((rows.size, cols.size), dtype=np.int8)
    mask[r, c] = np.where(t.values["labels"], 1, -1)
    cond = _condition_matrix(t, rows, cols, r, c)

    def fill(f):
        f.create_dataset("trial_mask", data=mask)
        f.create_dataset("file_format", data=np.bytes_(b"2.0"))
        _write_ids(f, "ID/row_ids", rows)
        _write_ids(f, "ID/column_ids", cols)
        _write_conditions(f, cond)

    _write(path, fill)


def write_ndx_hdf5(path, ndx):
    """Write an Ndx (or anything with ids) as BOSARIS HDF5 ``/trial_mask`` (uint8)."""
    t = _table(ndx, "index")
    t.values.clear()
    rows, cols, r, c = _dense(t, "index")
    mask = np.zeros((rows.size, cols.size), dtype=np.uint8)
    mask[r, c] = 1

    def fill(f):
        f.create_dataset("trial_mask", data=mask)
        _write_ids(f, "ID/row_ids", rows)
        _write_ids(f, "ID/column_ids", cols)

    _write(path, fill)
