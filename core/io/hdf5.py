"""BOSARIS HDF5 score, key and index files (and SIDEKIT's variant of them).

The binary format of the BOSARIS Toolkit (Brümmer & de Villiers 2011, sec. 4.6) stores a trial list
as two id lists and dense matrices of size (number of models) x (number of test segments): element
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
               ``Trials.conditions`` for condition-weighted pooling (van Leeuwen 2008)
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

Reading is vectorized and streams the matrices in blocks of rows: ``numpy.flatnonzero`` on a
block of the mask gives the trial cells (in model-major order) and fancy indexing the scores,
so that memory follows the number of trials, not the declared size of the matrix.  A full
mask (every cell a trial, as in most evaluations) is read straight into the score array, and
the ids of its trials are computed only if asked for, so a 10^7-trial score and key pair
loads in a few times the time of the raw reads.

Hostile files
-------------
Nothing is read before the whole object tree has been checked; the file is refused, with a
message naming it and the object, when anything in it would read outside the file or run
code:

* external links (``h5py.ExternalLink``), user-defined links, soft links that lead outside
  the tree or nowhere (a soft link to an object of the file is followed);
* datasets with external storage (``dset.external``: raw data kept in other files) or a
  virtual layout (``dset.is_virtual``: data mapped from other HDF5 files);
* datasets compressed with a filter other than those built into HDF5 and h5py (gzip,
  shuffle, fletcher32, szip, nbit, scaleoffset, lzf): HDF5 would look for any other filter
  as a plugin library to load, i.e. run code chosen by the file.  Files written with
  Blosc, Zstandard or LZ4 compression (``hdf5plugin``) must be rewritten with gzip first.

Declared sizes are not trusted either: the ids and matrices must have the shapes the format
requires (checked against each other before any read), the declared bytes of every dataset
read and the memory of the trials found are checked against the limits of the load (by
default the memory available, see :func:`~llrlab.core.io.load_trials`), and the matrices
are read block by block.  Scores must be real numbers (integers or floats: booleans,
strings, complex numbers and compound types are refused) and finite; masks must hold finite
numbers.



References
----------
.. [1] N. Brümmer and E. de Villiers, "The BOSARIS Toolkit: Theory, Algorithms and Code for
   Surviving the New DCF" (2011), Brümmer & de Villiers (2011), sec. 4.6 (file format) and 4.1
   (data objects).
.. [2] BOSARIS Toolkit MATLAB sources ``@Scores/save_hdf5.m``, ``@Key/save_hdf5.m``,
   ``@Ndx/save_hdf5.m`` and their ``read_hdf5.m``: ``hdf5write``/``hdf5read`` with
   ``'V71Dimensions', true``; MATLAB's ``hdf5write`` documentation for that option.
.. [3] SIDEKIT ``bosaris/scores.py`` (``read_matlab``, ``write_matlab``, ``segest``) and
   ``bosaris/key.py``; hyperion ``TrialNdx.load_h5``.
"""

from __future__ import annotations

import io
import os

import numpy as np

from ..errors import DataError, FileFormatError, LlrlabError
from ..trials import IdCodes
from ._source import HDF5_SIGNATURE, Source, hdf5_at, make_limits, open_source, path_name
from ._text import shorten, show
from .bosaris_text import Table, id_column

__all__ = [
    "HDF5_SIGNATURE",
    "is_hdf5",
    "read_hdf5_table",
    "write_key_hdf5",
    "write_ndx_hdf5",
    "write_scores_hdf5",
]

#: Largest dense matrix written or read (cells); beyond it the trial list is too sparse for
#: the format.
MAX_CELLS = 2**31
#: Objects (links) in a file beyond which it is refused without further look.
MAX_OBJECTS = 4096
#: Group nesting beyond which a file is refused.
MAX_DEPTH = 32
#: Cells of a matrix read per block.
BLOCK_CELLS = 1 << 22
#: Filters HDF5 applies without loading a plugin: deflate (gzip), shuffle, fletcher32, szip,
#: nbit, scaleoffset (built into HDF5) and lzf (registered by h5py itself).
SAFE_FILTERS = {1: "gzip", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit",
                6: "scaleoffset", 32000: "lzf"}
#: Bytes a decoded id takes in memory beyond its characters (a Python str object).
_ID_OVERHEAD = 64


def is_hdf5(path):
    """True if ``path`` starts with the HDF5 signature (at offset 0 or a user-block offset).

    Examples
    --------
    >>> is_hdf5("no-such-file.h5")
    False
    """
    try:
        name = path_name(path)
        if name == "-":
            return False
        with open(name, "rb") as f:
            return hdf5_at(f, os.fstat(f.fileno()).st_size)
    except (OSError, TypeError, ValueError, DataError):
        return False


def _h5py():
    import h5py  # imported lazily: `import llrlab.core` stays light

    return h5py


def _open(src):
    h5py = _h5py()
    target = io.BytesIO(src.data) if src.data is not None else src.path
    try:
        return h5py.File(target, "r")
    except OSError as exc:
        raise FileFormatError(src.name, f"cannot be opened as an HDF5 file ({exc})") from None


# --------------------------------------------------------------------------------------------
# Checking the object tree before any read


class _Tree:
    """Every dataset of a file reachable through its own links, each checked."""

    def __init__(self, f, name):
        self.f, self.name = f, name
        self.datasets = {}  # path without the leading "/" -> h5py Dataset
        self._seen = set()
        self._count = 0
        self._walk(f, "", 0)

    def _refuse(self, path, why):
        return FileFormatError(self.name, f"/{path} {why}; llrlab reads nothing outside the "
                                          f"file it is given and refuses the file")

    def _walk(self, group, prefix, depth):
        h5py = _h5py()
        if depth > MAX_DEPTH:
            raise FileFormatError(self.name, f"nests groups more than {MAX_DEPTH} deep; it is "
                                             f"not a BOSARIS file")
        names = []
        group.id.links.iterate(names.append)
        for raw in names:
            self._count += 1
            if self._count > MAX_OBJECTS:
                raise FileFormatError(self.name, f"holds more than {MAX_OBJECTS} objects; it "
                                                 f"is not a BOSARIS file")
            text = raw.decode("utf-8", "replace")
            path = f"{prefix}{text}"
            kind = group.id.links.get_info(raw).type
            if kind == h5py.h5l.TYPE_HARD:
                self._object(group, raw, path, depth)
            elif kind == h5py.h5l.TYPE_SOFT:
                target = group.id.links.get_val(raw)
                obj = self._resolve(group, target, path, 0)
                if isinstance(obj, h5py.Dataset):
                    self._dataset(obj, path)
            elif kind == h5py.h5l.TYPE_EXTERNAL:
                file, _ = group.id.links.get_val(raw)
                raise self._refuse(path, f"is an external link to "
                                         f"{show(file.decode('utf-8', 'replace'))}")
            else:
                raise self._refuse(path, "is a user-defined link")

    def _object(self, group, raw, path, depth):
        h5py = _h5py()
        obj = group[raw]
        if isinstance(obj, h5py.Group):
            if obj.id in self._seen:
                return
            self._seen.add(obj.id)
            self._walk(obj, f"{path}/", depth + 1)
        elif isinstance(obj, h5py.Dataset):
            self._dataset(obj, path)

    def _resolve(self, group, target, path, hops):
        """The object a soft link leads to, following only links inside the file."""
        h5py = _h5py()
        if hops > 8:
            raise self._refuse(path, "is a chain of more than 8 soft links")
        where = self.f if target.startswith(b"/") else group
        parts = [p for p in target.split(b"/") if p and p != b"."]
        obj = where
        for i, part in enumerate(parts):
            if not isinstance(obj, h5py.Group):
                raise self._refuse(path, f"is a soft link to "
                                         f"{show(target.decode('utf-8', 'replace'))}, which "
                                         f"does not exist")
            if part == b"..":
                raise self._refuse(path, "is a soft link with '..' in its path")
            if not obj.id.links.exists(part):
                raise self._refuse(path, f"is a soft link to "
                                         f"{show(target.decode('utf-8', 'replace'))}, which "
                                         f"does not exist")
            kind = obj.id.links.get_info(part).type
            if kind == h5py.h5l.TYPE_HARD:
                obj = obj[part]
            elif kind == h5py.h5l.TYPE_SOFT:
                obj = self._resolve(obj, obj.id.links.get_val(part), path, hops + 1)
            else:
                raise self._refuse(path, f"is a soft link through "
                                         f"/{b'/'.join(parts[:i + 1]).decode('utf-8', 'replace')}"
                                         f", a link to another file")
        return obj

    def _dataset(self, ds, path):
        h5py = _h5py()
        dcpl = ds.id.get_create_plist()
        if dcpl.get_layout() == h5py.h5d.VIRTUAL:
            raise self._refuse(path, "is a virtual dataset (its data are mapped from other "
                                     "files)")
        if dcpl.get_external_count() > 0:
            raise self._refuse(path, "keeps its data in external files (external storage)")
        for i in range(dcpl.get_nfilters()):
            code = dcpl.get_filter(i)[0]
            if code not in SAFE_FILTERS:
                raise FileFormatError(
                    self.name, f"/{path} is compressed with the HDF5 filter {code}, which HDF5 "
                               f"would load as a plugin library; llrlab reads only the filters "
                               f"built into HDF5 and h5py ({', '.join(SAFE_FILTERS.values())}): "
                               f"rewrite the file with gzip compression")
        self.datasets[path] = ds


_EXPECTED = (
    "expected /scores + /score_mask (scores), /trial_mask + /file_format (key), "
    "/target_mask + /nontarget_mask (old key) or /trial_mask (index), each with /ID/row_ids + "
    "/ID/column_ids; or SIDEKIT's modelset + segset with scores + score_mask, tar + non or "
    "trial_mask"
)


def _found(names):
    names = sorted(names)
    shown = ", ".join(show("/" + n, 60)[1:-1] for n in names[:20])
    more = f" and {len(names) - 20} more" if len(names) > 20 else ""
    return f"found {shown or 'no datasets'}{more}"


def _layout(names, path):
    """(kind, datasets) of a file; kind in scores, key, key-old, mask."""

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
    return kind, {**ids, **data}


# --------------------------------------------------------------------------------------------
# Ids


def _id_count(ds, name, path):
    shape = ds.shape
    if shape is None:
        raise FileFormatError(path, f"/{name} should be a list of ids, found an empty dataspace")
    if len(shape) == 2 and 1 in shape:
        return shape[0] * shape[1]
    if len(shape) == 1:
        return shape[0]
    raise FileFormatError(path, f"/{name} should be a list of ids, found shape {shape}")


def _decode_ids(ds, name, path, limits):
    h5py = _h5py()
    n = _id_count(ds, name, path)
    if ds.dtype.kind not in "SOU" or (ds.dtype.kind == "O" and
                                      h5py.check_string_dtype(ds.dtype) is None):
        raise FileFormatError(path, f"/{name} should hold strings, found {ds.dtype}")
    limits.check_bytes(path, n * (ds.dtype.itemsize + _ID_OVERHEAD),
                       f"/{name} declares {n:,} ids of {ds.dtype.itemsize} bytes, which")
    space_padded = False
    try:
        tid = ds.id.get_type()
        space_padded = (tid.get_class() == h5py.h5t.STRING and not tid.is_variable_str()
                        and tid.get_strpad() == h5py.h5t.STR_SPACEPAD)
    except (AttributeError, ValueError):  # pragma: no cover - exotic types
        pass
    raw = ds[()].reshape(n).tolist()
    out = np.empty(n, dtype=object)
    if n and (ds.dtype.kind == "S" or all(isinstance(v, bytes) for v in raw)):
        joined = b"\n".join(raw)
        if joined.count(b"\n") == n - 1:  # no newline inside an id: decode all at once
            try:
                text = joined.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None:
                out[:] = [v.rstrip("\x00").rstrip(" ") if space_padded else v.rstrip("\x00")
                          for v in text.split("\n")]
                return out
    for i, v in enumerate(raw):
        if isinstance(v, bytes):
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                raise FileFormatError(path, f"/{name} entry {i} is not UTF-8: {show(v)}") \
                    from None
        elif not isinstance(v, str):
            raise FileFormatError(path, f"/{name} entry {i} is not a string: {show(repr(v))}")
        v = v.rstrip("\x00")
        out[i] = v.rstrip(" ") if space_padded else v
    return out


def _check_distinct(ids, name, path):
    if len(set(ids.tolist())) != ids.size:
        seen = set()
        for i, s in enumerate(ids.tolist()):
            if s in seen:
                raise FileFormatError(path, f"the id {show(s)} appears twice in /{name} "
                                            f"(entry {i})")
            seen.add(s)


# --------------------------------------------------------------------------------------------
# Matrices, read in blocks of rows


class _Matrix:
    """A models x segments dataset of the file (possibly stored transposed), read by rows."""

    def __init__(self, ds, name, n_rows, n_cols, ids, path):
        self.ds, self.name, self.path = ds, name, path
        shape = ds.shape
        if shape is None or len(shape) != 2:
            raise FileFormatError(path, f"/{name} should be a 2-D matrix, found shape {shape}")
        if shape == (n_rows, n_cols):
            self.transposed = False
        elif shape == (n_cols, n_rows):
            self.transposed = True
        else:
            raise FileFormatError(path, f"/{name} has shape {shape}, but /{ids['rows']} lists "
                                        f"{n_rows} models and /{ids['cols']} {n_cols} segments")
        self.n_rows, self.n_cols = n_rows, n_cols
        self.step = max(1, BLOCK_CELLS // max(n_cols, 1))

    def kind(self, allowed, what):
        """Check the element type: ``allowed`` numpy kinds (``"iuf"``, ``"b"``...).

        Enumerated types other than HDF5's boolean are refused where booleans are.
        """
        h5py = _h5py()
        dt = self.ds.dtype
        enum = h5py.check_enum_dtype(dt) is not None
        if dt.kind in allowed and not (enum and "b" not in allowed):
            return dt
        names = {"b": "booleans", "S": "strings", "U": "strings", "O": "strings or objects",
                 "c": "complex numbers", "V": "compound or opaque values"}
        found = "enumerated values" if enum and dt.kind in allowed else \
            names.get(dt.kind, str(dt))
        raise FileFormatError(self.path, f"/{self.name} should hold {what}, found {found} "
                                         f"({dt})")

    def blocks(self):
        for i0 in range(0, self.n_rows, self.step):
            yield i0, min(self.n_rows, i0 + self.step)

    def read(self, i0, i1):
        """Rows ``i0:i1`` (of the models x segments matrix), C-contiguous."""
        if self.transposed:
            return np.ascontiguousarray(self.ds[:, i0:i1].T)
        if i0 == 0 and i1 == self.n_rows:
            return self.ds[()]
        return self.ds[i0:i1]


def _finite_mask(block, m):
    """``block != 0``, refusing NaN and infinite cells of a float mask."""
    if block.dtype.kind == "f":
        bad = ~np.isfinite(block)
        if bad.any():
            i, j = (int(v[0]) for v in np.nonzero(bad))
            raise FileFormatError(m.path, f"/{m.name} holds a non-finite value "
                                          f"({float(block[i, j])!r}); a mask holds 0 or 1")
    return block != 0


class _Cells:
    """The trial cells found block by block: a list of (first row, end row, flat indices of
    the trials in the block, or None when every cell of the block is a trial)."""

    def __init__(self, n_cols):
        self.n_cols = n_cols
        self.parts = []
        self.n = 0

    def add(self, i0, i1, where):
        cells = (i1 - i0) * self.n_cols
        count = int(np.count_nonzero(where))
        idx = None if count == cells else np.flatnonzero(where)
        self.parts.append((i0, i1, idx))
        self.n += count
        return idx

    @property
    def full(self):
        return all(idx is None for _, _, idx in self.parts)

    def cell_codes(self):
        out = np.empty(self.n, dtype=np.int64)
        k = 0
        for i0, i1, idx in self.parts:
            base = i0 * self.n_cols
            if idx is None:
                m = (i1 - i0) * self.n_cols
                out[k:k + m] = np.arange(base, base + m)
            else:
                m = idx.size
                out[k:k + m] = idx + base
            k += m
        return out

    def gather(self, m, check=None):
        """The values of matrix ``m`` at the trial cells (in order) as float64; ``check``
        is called on the values of each block."""
        out = np.empty(self.n, dtype=np.float64)
        k = 0
        for i0, i1, idx in self.parts:
            if idx is not None and idx.size == 0:
                continue
            size = (i1 - i0) * self.n_cols if idx is None else idx.size
            dest = out[k:k + size]
            if idx is None and not m.transposed:
                m.ds.read_direct(dest.reshape(i1 - i0, self.n_cols), np.s_[i0:i1])
            else:
                flat = m.read(i0, i1).reshape(-1)
                dest[:] = flat if idx is None else flat[idx]
            if check is not None:
                check(dest, i0, idx)
            k += size
        return out


def _find_cells(m, limits, path, what, extra_bytes, test=None, collect=None):
    """The trial cells of mask ``m`` (``test(block)`` gives the trials of a block; default
    ``block != 0``), checking the trial count against the limits as it grows.

    ``collect(block, idx)``: values taken from each block at its trials (idx None: all), which
    are returned concatenated (None without ``collect``).
    """
    cells = _Cells(m.n_cols)
    got = []
    for i0, i1 in m.blocks():
        block = m.read(i0, i1)
        where = test(block) if test is not None else _finite_mask(block, m)
        idx = cells.add(i0, i1, where)
        _check_found(cells, limits, path, what, extra_bytes)
        if collect is not None:
            got.append(collect(block, idx))
    return cells, (np.concatenate(got) if collect is not None and got else None)


def _check_found(cells, limits, path, what, extra_bytes):
    limits.check_trials(path, cells.n)
    if not limits.fits(cells.n * extra_bytes):
        raise FileFormatError(path, f"holds at least {cells.n:,} {what} trials, which would not "
                                    f"fit in {limits.budget()}; not enough memory to load it")


def _declared(ds, name, path, limits):
    n = int(np.prod(ds.shape or (0,), dtype=np.float64))
    if n > MAX_CELLS:
        raise FileFormatError(path, f"/{name} declares {' x '.join(map(str, ds.shape))} = "
                                    f"{n:,} cells, more than the {MAX_CELLS:,} a BOSARIS "
                                    f"matrix may have")
    limits.check_bytes(path, n * ds.dtype.itemsize,
                       f"/{name} declares {' x '.join(map(str, ds.shape))} {ds.dtype} cells, "
                       f"which")


# --------------------------------------------------------------------------------------------
# Reading


def read_hdf5_table(path, want, *, progress=None, limits=None):
    """Read a BOSARIS/SIDEKIT HDF5 file as a Table.

    Parameters
    ----------
    path : str, path-like or Source
    want : {"scores", "key", "ndx"}
        What the caller needs; a score file cannot serve as a key, an index cannot serve as
        scores or a key.  A key is accepted where an index is wanted.
    progress : callable, optional
        ``progress(fraction, message)``.
    limits : Limits, optional
        See :func:`~llrlab.core.io.load_trials`; default: the memory available.

    Returns
    -------
    Table
        Values ``"scores"`` (float64) or ``"labels"`` (bool), none for an index, and
        ``"conditions"`` (IdCodes) when the file has ``/conditions``.
    """
    limits = make_limits() if limits is None else limits
    src = path if isinstance(path, Source) else open_source(path, limits=limits)
    name = src.name
    try:
        return _read_table(src, want, progress, limits)
    except LlrlabError:
        raise
    except MemoryError:
        raise FileFormatError(name, "cannot be read: not enough memory") from None
    except (OSError, KeyError, RuntimeError, TypeError, ValueError, IndexError) as exc:
        # h5py's errors from inside a damaged file (bad chunk, broken link, odd type)
        raise FileFormatError(name, f"cannot be read as a BOSARIS HDF5 file "
                                    f"({type(exc).__name__}: {show(str(exc), 200)[1:-1]})") \
            from None


def _read_table(src, want, progress, limits):
    name = src.name
    with _open(src) as f:
        tree = _Tree(f, name)
        names = set(tree.datasets)
        kind, ds = _layout(names, name)
        if progress:
            progress(0.1, f"reading {name}")
        if want == "scores" and kind != "scores":
            raise FileFormatError(name, f"is an HDF5 {_what(kind)} file, not a score file: "
                                        f"{_found(names)}; expected /scores + /score_mask")
        if want == "key" and kind == "scores":
            raise FileFormatError(name, f"is an HDF5 score file, not a key: {_found(names)}; "
                                        f"expected /trial_mask + /file_format (or "
                                        f"/target_mask + /nontarget_mask)")
        get = tree.datasets
        rows = _decode_ids(get[ds["rows"]], ds["rows"], name, limits)
        cols = _decode_ids(get[ds["cols"]], ds["cols"], name, limits)
        _check_distinct(rows, ds["rows"], name)
        _check_distinct(cols, ds["cols"], name)
        nr, nc = rows.size, cols.size

        def matrix(key):
            m = _Matrix(get[ds[key]], ds[key], nr, nc, ds, name)
            _declared(m.ds, m.name, name, limits)
            return m

        values = {}
        if kind == "scores":
            mask, sm = matrix("mask"), matrix("scores")
            mask.kind("iufb", "0/1 mask values")
            sm.kind("iuf", "numbers (integers or floats)")
            cells, _ = _find_cells(mask, limits, name, "scored", 8 + 8)
            if progress:
                progress(0.5, f"reading {name}")
            values["scores"] = cells.gather(sm, _finite_scores(name, rows, cols, nc))
        elif kind == "key-old":
            tm, nm = matrix("tar"), matrix("non")
            tm.kind("iufb", "0/1 mask values")
            nm.kind("iufb", "0/1 mask values")
            cells = _Cells(nc)
            for i0, i1 in tm.blocks():
                tar, non = _finite_mask(tm.read(i0, i1), tm), _finite_mask(nm.read(i0, i1), nm)
                both = tar & non
                if both.any():
                    i, j = (int(v[0]) for v in np.nonzero(both))
                    raise FileFormatError(name, f"trial {shorten(rows[i0 + i])} "
                                                f"{shorten(cols[j])} is marked both target "
                                                f"(/{ds['tar']}) and non-target "
                                                f"(/{ds['non']})")
                cells.add(i0, i1, tar | non)
                _check_found(cells, limits, name, "key", 1 + 8)
            values["labels"] = _labels_at(cells, tm)
        else:
            mm = matrix("mask")
            mm.kind("iufb", "mask values (1 target, -1 non-target, 0 no trial)")
            is_key = kind == "key" or (mm.ds.dtype.kind in "if" and _has_negative(mm))
            if want == "key" and not is_key:
                raise FileFormatError(name, f"is an HDF5 index (Ndx) without target/non-target "
                                            f"labels: /{ds['mask']} has no -1 entries and there "
                                            f"is no /file_format; {_found(names)}")
            cells, labels = _find_cells(
                mm, limits, name, "listed", 1 + 8, test=lambda b: _trial_values(b, mm) != 0,
                collect=None if want != "key" else lambda b, idx: _values_at(
                    _trial_values(b, mm) > 0, idx))
            if want == "key":
                values["labels"] = labels
        if "conditions" in names and want != "ndx":
            values["conditions"] = _conditions(get["conditions"], nr, nc, ds, name, cells,
                                               rows, cols, limits)
    if cells.n == 0:
        raise FileFormatError(name, f"contains no trials (the {_what(kind)} mask is all zero)")
    return _table(name, rows, cols, cells, values)


def _values_at(block, idx):
    """The cells ``idx`` of a fresh block (all of them when ``idx`` is None)."""
    flat = block.reshape(-1)
    return flat if idx is None else flat[idx]


def _labels_at(cells, tm):
    """The target mask at the trial cells (old key layout)."""
    parts = [_values_at(_finite_mask(tm.read(i0, i1), tm), idx)
             for i0, i1, idx in cells.parts if idx is None or idx.size]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _finite_scores(name, rows, cols, nc):
    """A check of each block of scores: finite, or an error naming the first bad trial."""
    def check(values, i0, idx):
        bad = ~np.isfinite(values)
        if bad.any():
            j = int(np.argmax(bad))
            cell = i0 * nc + (j if idx is None else int(idx[j]))
            v = float(values[j])
            raise FileFormatError(name, f"the score of trial {shorten(rows[cell // nc])} "
                                        f"{shorten(cols[cell % nc])} is "
                                        f"{'NaN' if np.isnan(v) else 'infinite'} ({v!r}); "
                                        f"scores must be finite")
    return check


def _has_negative(m):
    for i0, i1 in m.blocks():
        if (_trial_values(m.read(i0, i1), m) < 0).any():
            return True
    return False


def _trial_values(block, m):
    """A trial mask block as int8: +1 target, -1 non-target, 0 no trial (floats rounded)."""
    if block.dtype.kind in "iub":
        return block
    if not np.isfinite(block).all():
        _finite_mask(block, m)
    return np.where(block > 0.5, 1, np.where(block < -0.5, -1, 0)).astype(np.int8)


def _table(name, rows, cols, cells, values):
    nr, nc = rows.size, cols.size
    n = cells.n
    if cells.full:
        models = IdCodes.deferred(n, rows, lambda: np.repeat(np.arange(nr, dtype=np.int32), nc))
        segs = IdCodes.deferred(n, cols, lambda: np.tile(np.arange(nc, dtype=np.int32), nr))
        return Table(name, models, segs, values, unique=True,
                     cells=lambda: np.arange(n, dtype=np.int64), full=True)
    flat = cells.cell_codes()
    models = IdCodes.deferred(n, rows, lambda: (flat // nc).astype(np.int32))
    segs = IdCodes.deferred(n, cols, lambda: (flat % nc).astype(np.int32))
    return Table(name, models, segs, values, unique=True, cells=flat)


def _conditions(ds, n_rows, n_cols, ids, path, cells, rows, cols, limits):
    """``/conditions`` (a string matrix) at the trial cells, as IdCodes."""
    h5py = _h5py()
    m = _Matrix(ds, "conditions", n_rows, n_cols, ids, path)
    if ds.dtype.kind not in "SOU" or (ds.dtype.kind == "O" and
                                      h5py.check_string_dtype(ds.dtype) is None):
        raise FileFormatError(path, f"/conditions should hold strings, found {ds.dtype}")
    _declared(ds, "conditions", path, limits)
    index = {}
    codes = np.empty(cells.n, dtype=np.int32)
    k = 0
    for i0, i1, idx in cells.parts:
        if idx is not None and idx.size == 0:
            continue
        flat = m.read(i0, i1).reshape(-1)
        vals = flat if idx is None else flat[idx]
        uniq, inv = np.unique(vals, return_inverse=True)
        remap = np.empty(uniq.size, dtype=np.int32)
        for u, v in enumerate(uniq.tolist()):
            if isinstance(v, bytes):
                try:
                    v = v.decode("utf-8")
                except UnicodeDecodeError:
                    j = int(np.flatnonzero(inv.ravel() == u)[0])
                    cell = (i0 * n_cols + (j if idx is None else int(idx[j])))
                    raise FileFormatError(path, f"/conditions of trial "
                                                f"{shorten(rows[cell // n_cols])} "
                                                f"{shorten(cols[cell % n_cols])} is not UTF-8: "
                                                f"{show(v)}") from None
            v = str(v).rstrip("\x00")
            if not v:
                j = int(np.flatnonzero(inv.ravel() == u)[0])
                cell = (i0 * n_cols + (j if idx is None else int(idx[j])))
                raise FileFormatError(path, f"trial {shorten(rows[cell // n_cols])} "
                                            f"{shorten(cols[cell % n_cols])} has no condition in "
                                            f"/conditions (an empty string)")
            remap[u] = index.setdefault(v, len(index))
        codes[k:k + vals.size] = remap[inv.ravel()]
        k += vals.size
    vocab = np.empty(len(index), dtype=object)
    vocab[:] = list(index)
    return IdCodes.trusted(codes, vocab)


def _what(kind):
    return {"scores": "score", "key": "key", "key-old": "key", "mask": "index"}[kind]


# --------------------------------------------------------------------------------------------
# Writing


def _dense(obj, what):
    """Id lists (in order of first appearance), the matrix cell of every trial and the
    number of cells.

    Keeping the order of appearance makes a write/read round trip of a model-major trial list
    return the trials in their original order.
    """
    if not getattr(obj, "has_ids", getattr(obj, "model_ids", None) is not None):
        raise DataError(f"{getattr(obj, 'source', '') or 'the data'} has no (model, segment) "
                        f"ids, which a BOSARIS HDF5 {what} file needs")
    r, rows = id_column(obj, "model").compact()
    c, cols = id_column(obj, "segment").compact()
    cells = rows.size * cols.size
    if cells > MAX_CELLS:
        raise DataError(f"a BOSARIS HDF5 {what} file stores a dense {rows.size} x {cols.size} "
                        f"matrix ({cells:,} cells) for these {r.size:,} trials; that is too "
                        f"sparse for the format -- write a text file instead")
    return rows, cols, r, c


def _check_once(mask, n, obj, what):
    if int(np.count_nonzero(mask)) != n:
        raise DataError(f"{getattr(obj, 'source', '') or 'the trials'} list a (model, segment) "
                        f"trial twice; a {what} matrix has one cell per trial")


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
    except MemoryError:
        raise FileFormatError(name, "cannot be written: not enough memory") from None


def _condition_matrix(obj, rows, cols, r, c):
    """``/conditions`` for trials with conditions (None without): '' where no trial."""
    if not getattr(obj, "has_conditions", False):
        return None
    cond = id_column(obj, "condition")
    mat = np.full((rows.size, cols.size), "", dtype=object)
    mat[r, c] = cond.vocab[cond.codes]
    return mat


def _write_conditions(f, mat):
    if mat is not None:
        f.create_dataset("conditions", data=mat, dtype=_h5py().string_dtype("utf-8"))


def _is_grid(r, c, n_rows, n_cols):
    """True when the trials are every cell of the matrix, in model-major order."""
    if r.size != n_rows * n_cols:
        return False
    return bool(np.array_equal(r, np.repeat(np.arange(n_rows, dtype=r.dtype), n_cols))
                and np.array_equal(c, np.tile(np.arange(n_cols, dtype=c.dtype), n_rows)))


def write_scores_hdf5(path, scores):
    """Write Scores (or Trials) as BOSARIS HDF5 ``/scores``, ``/score_mask`` and ``/ID/...``.

    Conditions, when the trials have them, go to ``/conditions`` (see the module docstring).
    """
    rows, cols, r, c = _dense(scores, "score")
    x = np.asarray(scores.scores, dtype=np.float64)
    if _is_grid(r, c, rows.size, cols.size):
        mat = x.reshape(rows.size, cols.size)
        mask = np.ones((rows.size, cols.size), dtype=np.uint8)
    else:
        mat = np.zeros((rows.size, cols.size), dtype=np.float64)
        mask = np.zeros((rows.size, cols.size), dtype=np.uint8)
        mask[r, c] = 1
        _check_once(mask, r.size, scores, "score")
        mat[r, c] = x
    cond = _condition_matrix(scores, rows, cols, r, c)

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
    rows, cols, r, c = _dense(key, "key")
    mask = np.zeros((rows.size, cols.size), dtype=np.int8)
    mask[r, c] = 1
    _check_once(mask, r.size, key, "key")
    mask[r, c] = np.where(np.asarray(key.labels, dtype=bool), 1, -1)
    cond = _condition_matrix(key, rows, cols, r, c)

    def fill(f):
        f.create_dataset("trial_mask", data=mask)
        f.create_dataset("file_format", data=np.bytes_(b"2.0"))
        _write_ids(f, "ID/row_ids", rows)
        _write_ids(f, "ID/column_ids", cols)
        _write_conditions(f, cond)

    _write(path, fill)


def write_ndx_hdf5(path, ndx):
    """Write an Ndx (or anything with ids) as BOSARIS HDF5 ``/trial_mask`` (uint8)."""
    rows, cols, r, c = _dense(ndx, "index")
    mask = np.zeros((rows.size, cols.size), dtype=np.uint8)
    mask[r, c] = 1
    _check_once(mask, r.size, ndx, "index")

    def fill(f):
        f.create_dataset("trial_mask", data=mask)
        _write_ids(f, "ID/row_ids", rows)
        _write_ids(f, "ID/column_ids", cols)

    _write(path, fill)
