"""BOSARIS text score, key and index files, and the trial-id join shared by every format.

Formats (one trial per line, fields separated by whitespace -- or by commas in a ``.csv``
file or when the first line is evidently comma-separated; Brümmer & de Villiers (2011), sec. 4.1
describes the three objects):

* score file: ``model segment score``
* key file: ``model segment target|nontarget`` (see :data:`LABEL_HELP` for the accepted words)
* index (Ndx) file: ``model segment``

A score file and a key file are joined on the trial id (model, segment).  Trials found in only
one of the two files are counted and reported (never silently dropped, never fatal unless no
trial joins); a trial listed twice with the same value is kept once with a warning, listed
twice with different values it is an error.

Every parsed file becomes a :class:`Table`: integer codes into the distinct model and segment
ids plus value columns.  The join works on those codes (a lookup array over the model x
segment grid, or sorting and ``searchsorted``), and the joined :class:`Trials` keep them, so
that no per-trial string is built unless asked for.

Reading streams the file in blocks (see :mod:`llrlab.core.io._columns`): the pandas C parser
reads it when pandas can vouch for the result, llrlab's own line-by-line reader otherwise
and whenever a line is wrong, so that every error names the file, the line and its text.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError, FileFormatError, LlrlabWarning
from ..trials import IdCodes, Scores, Trials, extend_vocab
from ._columns import ID, LABEL, NUMBER, Col, first_row, read_columns
from ._source import Source, open_source
from ._text import (
    LABEL_HELP,
    choose_delimiter,
    shorten,
    show,
)

__all__ = [
    "LABEL_HELP",
    "JoinReport",
    "Key",
    "Ndx",
    "Table",
    "join_tables",
    "read_key_text",
    "read_ndx_text",
    "read_score_text",
    "write_key_text",
    "write_ndx_text",
    "write_score_text",
]


# --------------------------------------------------------------------------------------------
# Key and index objects


@dataclass(frozen=True, eq=False)
class Key:
    """The answers of a trial list: which (model, segment) trials are targets.

    Attributes
    ----------
    model_ids, segment_ids : ndarray of str (object dtype), shape (n,)
    labels : ndarray of bool, shape (n,)
        True for a target trial.
    source : str
        The file it was read from.

    Examples
    --------
    >>> k = Key(["m1", "m1"], ["s1", "s2"], [True, False])
    >>> k.n_tar, k.n_non
    (1, 1)
    """

    model_ids: np.ndarray
    segment_ids: np.ndarray
    labels: np.ndarray
    source: str = ""

    def __post_init__(self):
        m, s = _ids_pair(self.model_ids, self.segment_ids)
        lab = np.asarray(self.labels, dtype=bool)
        if lab.shape != m.shape:
            raise DataError(f"a key needs one label per trial: {lab.size} labels for "
                            f"{m.size} trials")
        object.__setattr__(self, "model_ids", m)
        object.__setattr__(self, "segment_ids", s)
        object.__setattr__(self, "labels", lab)

    def __len__(self):
        return self.labels.size

    @property
    def n_tar(self):
        return int(np.count_nonzero(self.labels))

    @property
    def n_non(self):
        return int(self.labels.size - np.count_nonzero(self.labels))


@dataclass(frozen=True, eq=False)
class Ndx:
    """An index (BOSARIS "Ndx"): the list of (model, segment) trials, without answers.

    Attributes
    ----------
    model_ids, segment_ids : ndarray of str (object dtype), shape (n,)
    source : str
    """

    model_ids: np.ndarray
    segment_ids: np.ndarray
    source: str = ""

    def __post_init__(self):
        m, s = _ids_pair(self.model_ids, self.segment_ids)
        object.__setattr__(self, "model_ids", m)
        object.__setattr__(self, "segment_ids", s)

    def __len__(self):
        return self.model_ids.size


def _ids_pair(m, s):
    m = _as_object_ids(m)
    s = _as_object_ids(s)
    if m.ndim != 1 or m.shape != s.shape:
        raise DataError(f"model ids (shape {m.shape}) and segment ids (shape {s.shape}) must be "
                        f"1-D and of equal length")
    return m, s


def _as_object_ids(x):
    a = np.asarray(x)
    if a.dtype == object:
        return a
    out = np.empty(a.shape, dtype=object)
    out[...] = a.astype(str).tolist() if a.ndim else str(a)
    return out


# --------------------------------------------------------------------------------------------
# Tables and the join


@dataclass(eq=False)
class Table:
    """Trials of one file as codes into the distinct ids, plus value columns (private).

    ``models`` and ``segs`` are IdCodes: ``model_vocab[model_codes[i]]`` is the model id of
    trial ``i``.  ``values`` maps a column name (``"scores"``, ``"labels"``, ``"weights"``)
    to an array of shape (n,), or ``"conditions"`` to IdCodes.  ``locator`` finds the line of
    a row of a text file for messages (None for HDF5); ``unique`` says the trials are known
    to be distinct (cells of a matrix), which saves the duplicate check.  A matrix file also
    gives ``cells``: the sorted cell ``model * n_segments + segment`` of every trial (an
    array, or a function computing it), and ``full`` when every cell is a trial.
    """

    source: str
    models: IdCodes
    segs: IdCodes
    values: dict = field(default_factory=dict)
    locator: object = None
    unique: bool = False
    cells: object = None
    full: bool = False

    def __len__(self):
        return len(self.models)

    @property
    def model_codes(self):
        return self.models.codes

    @property
    def model_vocab(self):
        return self.models.vocab

    @property
    def seg_codes(self):
        return self.segs.codes

    @property
    def seg_vocab(self):
        return self.segs.vocab

    def cell_codes(self):
        """The matrix cell of every trial (HDF5 tables), or None."""
        if callable(self.cells):
            self.cells = self.cells()
        return self.cells

    def model_ids(self, index=slice(None)):
        return self.model_vocab[self.model_codes[index]]

    def segment_ids(self, index=slice(None)):
        return self.seg_vocab[self.seg_codes[index]]

    def model_idcodes(self, index=None):
        return self.models if index is None else self.models.take(index)

    def segment_idcodes(self, index=None):
        return self.segs if index is None else self.segs.take(index)

    def trial_name(self, i):
        """``'model segment'`` of row ``i``, shortened for messages (without quotes)."""
        m = str(self.model_vocab[self.model_codes[i]])
        s = str(self.seg_vocab[self.seg_codes[i]])
        return f"{shorten(m, 60)} {shorten(s, 60)}"

    def where(self, i):
        return "" if self.locator is None else self.locator.where(i)

    def error(self, i, message):
        if self.locator is not None:
            return self.locator.error(i, message)
        return FileFormatError(self.source, message)

    def subset(self, index):
        values = {k: (v.take(index) if isinstance(v, IdCodes) else v[index])
                  for k, v in self.values.items()}
        cells = self.cell_codes()
        return Table(self.source, self.models.take(index), self.segs.take(index), values,
                     None, self.unique, None if cells is None else cells[index])


def table_from_ids(source, model_ids, segment_ids, values=None):
    """A Table from per-trial ids: string arrays or IdCodes (e.g. of a Trials object)."""
    m = model_ids if isinstance(model_ids, IdCodes) else IdCodes.encode(model_ids)
    s = segment_ids if isinstance(segment_ids, IdCodes) else IdCodes.encode(segment_ids)
    return Table(source, m, s, dict(values or {}))


def table_of(obj, source=None):
    """A Table of the ids of Trials, Scores, a Key or an Ndx (their codes when they have
    them)."""
    m = getattr(obj, "model_codes", None)
    s = getattr(obj, "segment_codes", None)
    if m is None or s is None:
        m, s = obj.model_ids, obj.segment_ids
    return table_from_ids(getattr(obj, "source", "") if source is None else source, m, s)


@dataclass(frozen=True)
class JoinReport:
    """What happened when two files were joined on the trial id (model, segment).

    For :func:`~llrlab.core.io.load_trials` the left file is the score file and the right file
    the key; for :func:`~llrlab.core.io.attach_conditions` the left side is the trials and the
    right side the condition file.

    Attributes
    ----------
    left, right : str
        The two sources.
    n_joined : int
        Trials present in both (the trials returned).
    n_left_only, n_right_only : int
        Distinct trials present only in the left / only in the right source.
    left_only_example, right_only_example : str or None
        The first such trial (in file order) as ``"model segment"`` (shortened when long),
        or None.
    n_left_duplicates, n_right_duplicates : int
        Repeated lines with an identical value, ignored.

    Examples
    --------
    >>> r = JoinReport("scores.txt", "key.txt", 10, 2, 0, "m1 s9", None)
    >>> r.complete
    False
    """

    left: str
    right: str
    n_joined: int
    n_left_only: int
    n_right_only: int
    left_only_example: str | None = None
    right_only_example: str | None = None
    n_left_duplicates: int = 0
    n_right_duplicates: int = 0

    @property
    def complete(self):
        """True when every trial of both sources was joined."""
        return self.n_left_only == 0 and self.n_right_only == 0

    def describe(self, left_role="scored", right_role="key"):
        """One sentence with both counts and an example of each, for a warning."""
        def part(n, role, here, there, example):
            role = f"{role} " if role else ""
            if n == 0:
                return f"all {self.n_joined} {role}trials of {here} are in {there}"
            return f"{n} {role}trial(s) of {here} are not in {there} (e.g. {example!r})"
        first = part(self.n_left_only, left_role, self.left, self.right,
                     self.left_only_example)
        second = part(self.n_right_only, right_role, self.right, self.left,
                      self.right_only_example)
        return (f"{first}; {second}; "
                f"the {self.n_joined} trials in both are used")


def _vocab_map(left_vocab, right_vocab):
    """The right ids' codes in the left numbering (extended), and its size."""
    rmap, merged = extend_vocab(left_vocab, right_vocab)
    return rmap, merged.size


def _pair_codes(left, right):
    """Trial codes of both tables in one (model, segment) numbering, and its size."""
    mmap, n_model = _vocab_map(left.model_vocab, right.model_vocab)
    smap, n_seg = _vocab_map(left.seg_vocab, right.seg_vocab)
    n_seg = max(n_seg, 1)
    same = (n_seg == left.seg_vocab.size == right.seg_vocab.size
            and n_model == left.model_vocab.size == right.model_vocab.size
            and np.array_equal(mmap, np.arange(n_model))
            and np.array_equal(smap, np.arange(n_seg)))
    cells = max(n_model, 1) * n_seg
    if same and left.full and right.full:
        return None, None, cells  # two full matrices over the same ids: the same trials
    if same and left.cells is not None and right.cells is not None:
        return left.cell_codes(), right.cell_codes(), cells
    pl = pair_codes(left, n_seg)
    if same:
        pr = pair_codes(right, n_seg)
    else:
        pr = mmap[right.model_codes] * n_seg
        pr += smap[right.seg_codes]
    return pl, pr, cells


#: The dense join is used when the (model x segment) grid has at most this many cells per trial
#: (plus DENSE_MIN_CELLS); it costs 4 bytes per cell.
DENSE_CELLS_PER_TRIAL = 8
DENSE_MIN_CELLS = 1 << 22


def _dense_join(left, right, pl, pr, cells):
    """Join through a lookup array over the (model, segment) grid: O(n), no sorting.

    Used when the grid is small compared to the trial count (trial lists are usually dense
    matrices, as the BOSARIS HDF5 format assumes).  Returns None when the grid is too large
    or a table repeats a trial; the sorting join then handles the repeats.
    """
    if pl is None:  # two full matrices over the same ids
        every = np.arange(len(left))
        none = np.zeros(0, dtype=np.intp)
        return every, every, none, none
    n_l, n_r = pl.size, pr.size
    if cells > DENSE_CELLS_PER_TRIAL * (n_l + n_r) + DENSE_MIN_CELLS or max(n_l, n_r) >= 2**31:
        return None
    if left.unique and right.unique and n_l == n_r and np.array_equal(pl, pr):
        every = np.arange(n_l)  # the same trials in the same order (e.g. two HDF5 matrices)
        none = np.zeros(0, dtype=np.intp)
        return every, every, none, none
    slot = np.full(cells, -1, dtype=np.int32)
    rows_l = np.arange(n_l, dtype=np.int32)
    if not left.unique and not _increasing(pl):
        slot[pl] = rows_l
        if not np.array_equal(slot[pl], rows_l):
            return None
        slot[pl] = -1
    rows_r = np.arange(n_r, dtype=np.int32)
    slot[pr] = rows_r
    if not right.unique and not _increasing(pr) and not np.array_equal(slot[pr], rows_r):
        return None
    partner = slot[pl]
    del slot
    left_index = np.flatnonzero(partner >= 0)
    if left_index.size == n_l:
        right_index = partner
        only_l = np.zeros(0, dtype=np.intp)
    else:
        right_index = partner[left_index]
        only_l = np.flatnonzero(partner < 0)
    if right_index.size == n_r:
        only_r = np.zeros(0, dtype=np.intp)
    else:
        matched = np.zeros(n_r, dtype=bool)
        matched[right_index] = True
        only_r = np.flatnonzero(~matched)
    return left_index, right_index, only_l, only_r


def _sorted_join(left, right, codes, compare_left, compare_right, left_what, right_what):
    """Join by sorting both sides (this also finds and handles repeated trials).

    ``codes``: the list ``[left pair codes, right pair codes]``, emptied as they are sorted
    (the unsorted codes are not kept beside the sorted ones: a third less peak memory).
    """
    ul, il, dup_l = _sorted_distinct(left, codes.pop(0), compare_left, left_what)
    ur, ir, dup_r = _sorted_distinct(right, codes.pop(0), compare_right, right_what)
    # each temporary is dropped as soon as it has served (n x 8 bytes each)
    if ur.size:
        pos = np.searchsorted(ur, ul)
        np.minimum(pos, ur.size - 1, out=pos)
        found = ur[pos] == ul
    else:
        pos = np.zeros(ul.size, dtype=np.intp)
        found = np.zeros(ul.size, dtype=bool)
    n_right = ur.size
    del ul, ur
    hit = pos[found]  # sorted right position of each matched left code
    del pos
    partner = np.full(len(left), -1, dtype=np.intp)  # right row of each left row, or -1
    partner[il[found]] = ir[hit]
    only_l = np.sort(il[~found])
    del il, found
    matched = np.zeros(n_right, dtype=bool)
    matched[hit] = True
    del hit
    only_r = np.sort(ir[~matched])
    del ir, matched
    left_index = np.flatnonzero(partner >= 0)
    right_index = partner[left_index]
    return left_index, right_index, only_l, only_r, dup_l, dup_r


def pair_codes(table, n_seg=None):
    """One int64 per trial, equal for equal (model, segment) within ``table``."""
    if table.cells is not None and n_seg in (None, table.seg_vocab.size):
        return table.cell_codes()
    n_seg = max(table.seg_vocab.size, 1) if n_seg is None else n_seg
    small = max(table.model_vocab.size, 1) * n_seg < 2**31
    out = np.multiply(table.model_codes, n_seg, dtype=np.int32 if small else np.int64)
    out += table.seg_codes
    return out


def _increasing(codes):
    """True when ``codes`` strictly increase (so they are distinct): one sequential pass."""
    return codes.size < 2 or bool(np.all(codes[1:] > codes[:-1]))


def _differ(a, b):
    return (a.codes != b.codes) if isinstance(a, IdCodes) else (a != b)


def _sorted_distinct(table, pair, compare, what):
    """The distinct trial codes of ``table`` in sorted order, with the row of each.

    Repeats with the same values in the ``compare`` columns are dropped (the first occurrence
    in file order is kept) with a LlrlabWarning giving their number; repeats with different
    values raise FileFormatError at the line of the first conflicting repeat.

    Returns
    -------
    codes : ndarray of int64, sorted, distinct
    rows : ndarray of intp
        The row of ``table`` holding each code.
    n_duplicates : int
    """
    n = pair.size
    order = np.argsort(pair)  # quicksort: about 2.5x faster than a stable sort
    ps = pair[order]
    new_group = np.ones(n, dtype=bool)
    np.not_equal(ps[1:], ps[:-1], out=new_group[1:])
    if table.unique or new_group.all():
        return ps, order, 0
    order = np.argsort(pair, kind="stable")  # repeats: the first in file order must lead
    ps = pair[order]
    dup = ~new_group[1:]
    starts = np.flatnonzero(new_group)
    rep = order[starts[np.cumsum(new_group) - 1]]  # first occurrence for each sorted position
    later = order[1:][dup]
    first = rep[1:][dup]
    conflict = np.zeros(later.size, dtype=bool)
    for name in compare:
        v = table.values[name]
        if isinstance(v, IdCodes):
            conflict |= v.codes[later] != v.codes[first]
        else:
            conflict |= v[later] != v[first]
    if conflict.any():
        j = int(np.argmin(np.where(conflict, later, n)))
        a, b = int(first[j]), int(later[j])
        if table.locator is not None:
            table.locator.find([a, b])
        shown = "; ".join(f"{_value(table, c, a)}{_at(table, a)} and "
                          f"{_value(table, c, b)}{_at(table, b)}" for c in compare)
        raise table.error(b, f"trial {table.trial_name(b)!r} appears twice with "
                             f"different {what}: {shown}")
    j = int(np.argmin(later))
    a, b = int(first[j]), int(later[j])
    if table.locator is not None:
        table.locator.find([a, b])
    lines = (f" ({table.where(a)} and {table.where(b)})" if table.locator is not None
             else "")
    warnings.warn(f"{table.source}: {later.size} duplicate trial(s) with identical {what} were "
                  f"ignored; the first is {table.trial_name(b)!r}{lines}",
                  LlrlabWarning, stacklevel=4)
    return ps[starts], order[starts], int(later.size)


def deduplicate(table, compare, what):
    """Rows (ascending) of the first occurrence of every distinct trial (None when every
    row is distinct), and the repeat count.

    Distinct trials are recognised in O(n) through a lookup array over the (model x
    segment) grid when it is small enough; otherwise, and to handle repeats, by sorting (see
    :func:`_sorted_distinct`).
    """
    if table.unique:
        return None, 0
    pair = pair_codes(table)
    if _increasing(pair):  # e.g. a model-major trial list
        return None, 0
    cells = max(table.model_vocab.size, 1) * max(table.seg_vocab.size, 1)
    n = pair.size
    if cells <= DENSE_CELLS_PER_TRIAL * n + DENSE_MIN_CELLS and n < 2**31:
        slot = np.full(cells, -1, dtype=np.int32)
        rows = np.arange(n, dtype=np.int32)
        slot[pair] = rows
        if np.array_equal(slot[pair], rows):
            return None, 0
        del slot, rows
    _, rows, n_dup = _sorted_distinct(table, pair, compare, what)
    return (np.sort(rows) if n_dup else None), n_dup


def _value(table, name, i):
    v = table.values[name]
    if isinstance(v, IdCodes):
        return show(v.vocab[v.codes[i]])
    v = v[i]
    return show(repr(v.item() if isinstance(v, np.generic) else v))[1:-1]


def _at(table, i):
    return f" on {table.where(i)}" if table.locator is not None else ""


def join_tables(left, right, *, compare_left=(), compare_right=(), left_what="scores",
                right_what="labels", left_role="scored", right_role="key", warn=True):
    """Match the trials of two tables on (model, segment).

    Each trial gets one integer code, ``model * n_segments + segment`` over the union of the
    ids of both tables.  When the (model x segment) grid is small compared with the number of
    trials (the usual dense trial list) the codes index a lookup array: O(n), no sorting.
    Otherwise, or when a table repeats a trial, both sides are sorted by code once (which
    finds the repeats) and the sorted left codes are located in the sorted right codes with
    one ``searchsorted``.

    Returns
    -------
    left_index, right_index : ndarray of intp
        Matching rows, in the file order of ``left``.
    report : JoinReport

    Raises
    ------
    FileFormatError
        No trial joins (the message names both files), or a conflicting repeated trial.
    """
    left_role = f"{left_role} " if left_role else ""
    right_role = f"{right_role} " if right_role else ""
    pl, pr, cells = _pair_codes(left, right)
    dense = _dense_join(left, right, pl, pr, cells)
    if dense is not None:
        left_index, right_index, only_l, only_r = dense
        dup_l = dup_r = 0
        n_l, n_r = len(left), len(right)
    else:
        codes = [pl, pr]  # handed over, so that each is freed once it is sorted
        del pl, pr
        left_index, right_index, only_l, only_r, dup_l, dup_r = _sorted_join(
            left, right, codes, compare_left, compare_right, left_what, right_what)
        n_l = left_index.size + only_l.size
        n_r = right_index.size + only_r.size
    report = JoinReport(
        left.source, right.source, int(left_index.size), int(only_l.size), int(only_r.size),
        left.trial_name(int(only_l.min())) if only_l.size else None,
        right.trial_name(int(only_r.min())) if only_r.size else None,
        dup_l, dup_r,
    )
    if report.n_joined == 0:
        raise FileFormatError(
            left.source,
            f"no trial joins with {right.source}: none of the {n_l} {left_role}trials "
            f"(e.g. {report.left_only_example!r}) is among the {n_r} {right_role}"
            f"trials (e.g. {report.right_only_example!r}); do the model and segment "
            f"ids match?")
    if warn and not report.complete:
        warnings.warn(report.describe(left_role.strip(), right_role.strip()), LlrlabWarning,
                      stacklevel=3)
    return left_index, right_index, report


def _join_same(left, right):
    """True when two tables are full matrices over the same ids (then the same trials in
    the same order): no index array is needed."""
    return (left.full and right.full and len(left) == len(right)
            and np.array_equal(left.model_vocab, right.model_vocab)
            and np.array_equal(left.seg_vocab, right.seg_vocab))


# --------------------------------------------------------------------------------------------
# Reading


def as_source(path, limits=None):
    """A :class:`~llrlab.core.io._source.Source` (opened from a name if need be)."""
    return path if isinstance(path, Source) else open_source(path, limits=limits)


def _describe(counts):
    return " or ".join(f"{n} field{'s' if n != 1 else ''} ({d})" for n, d in counts)


def read_text_table(path, fields, values, *, progress=None, limits=None, fast=True,
                    comma_counts=None, bare=None, like=None):
    """Read a text trial list whose first two fields are the model and segment ids.

    ``fields``: the allowed ``(count, description)`` pairs, e.g. ``((3, "model segment
    score"),)``; ``values``: the Col of each field after the ids, by count, with its value
    name, e.g. ``{3: [("scores", Col(NUMBER, "score"))]}``.  ``bare``: the field count of a
    file without ids (returned as a plain dict of values), if accepted.  ``like``: a Table
    read already (the score file of this key) whose ids number this file's where they are
    the same (see :func:`~llrlab.core.io._columns.read_columns`).
    """
    src = as_source(path, limits)
    if progress:
        progress(0.0, f"reading {src.name}")
    fr = first_row(src, choose_delimiter, comma_counts or tuple(n for n, _ in fields))
    counts = dict(fields)
    if fr.ncols not in counts:
        raise fr.error(0, f"expected {_describe(fields)} per line, found {fr.ncols}")
    extra = values[fr.ncols]
    ids = [] if fr.ncols == bare else [Col(ID, "model id"), Col(ID, "segment id")]
    cols = ids + [c for _, c in extra]
    known = None
    if like is not None and ids:
        known = {j: v for j, v in enumerate((like.model_vocab, like.seg_vocab))
                 if isinstance(v, np.ndarray) and v.dtype == object and v.size}
    got = read_columns(src, cols, delimiter=fr.delimiter, describe=counts[fr.ncols],
                       first_line=fr.line, progress=progress, limits=limits, fast=fast,
                       known=known)
    vals = {name: got.values[len(ids) + j] for j, (name, _) in enumerate(extra)}
    if progress:
        progress(1.0, f"read {src.name}")
    if fr.ncols == bare:
        return {**vals, "source": src.name}
    return Table(src.name, got.values[0], got.values[1], vals, got.locator)


def read_score_text(path, *, allow_bare=False, progress=None, limits=None, fast=True):
    """A BOSARIS score file ``model segment score`` as a Table.

    With ``allow_bare`` a file with one score per line is accepted too; it is returned as a
    :class:`~llrlab.core.trials.Scores` without ids.
    """
    fields = ((3, "model segment score"),) + (((1, "score"),) if allow_bare else ())
    score = [("scores", Col(NUMBER, "score"))]
    # a bare score never contains a comma: a comma in the first line means a comma-separated
    # 'model,segment,score' file even though it is one whitespace-separated field
    got = read_text_table(path, fields, {3: score, 1: score}, progress=progress,
                          limits=limits, fast=fast, comma_counts=(3,),
                          bare=1 if allow_bare else None)
    if isinstance(got, dict):
        return Scores(got["scores"], source=got["source"])
    return got


def read_key_text(path, *, progress=None, limits=None, fast=True, like=None):
    """A BOSARIS key file ``model segment target|nontarget`` as a Table.

    ``like``: the Table of the score file, read already; the key's ids are numbered after
    its ids, so that each is hashed once and the join has nothing to look up (the result is
    the same without it).
    """
    return read_text_table(path, ((3, "model segment target|nontarget"),),
                           {3: [("labels", Col(LABEL))]}, progress=progress, limits=limits,
                           fast=fast, like=like)


def read_ndx_text(path, *, limits=None, fast=True):
    """A BOSARIS index file ``model segment`` as a Table."""
    return read_text_table(path, ((2, "model segment"),), {2: []}, limits=limits, fast=fast)


# --------------------------------------------------------------------------------------------
# Writing

_BAD_TEXT_ID = re.compile(r"[\x00-\x20\x7f]")
_BAD_CSV_ID = re.compile(r'[\x00-\x20\x7f,"]')


def _used_vocab(ids):
    """The distinct strings of ids (a string array or IdCodes) that trials use."""
    if isinstance(ids, IdCodes):
        k = ids.vocab.size
        if ids.codes.size == 0:
            return []
        return ids.vocab[np.bincount(ids.codes, minlength=k) > 0].tolist()
    return set(np.asarray(ids).tolist())


def check_text_ids(ids, what, *, csv=False):
    """Raise DataError if an id cannot be written as one whitespace-free field.

    ``ids``: an array of strings or IdCodes (only the distinct ids are checked).
    """
    bad = _BAD_CSV_ID if csv else _BAD_TEXT_ID
    for s in _used_vocab(ids):
        s = str(s)
        if not s or bad.search(s):
            why = "is empty" if not s else (
                "contains whitespace, a control character" + (", a comma or a quote" if csv
                                                              else ""))
            raise DataError(f"the {what} {show(s)} {why}, so it cannot be written to a "
                            f"text file")


def _write_error(path, exc):
    return FileFormatError(os.fspath(path), f"cannot be written ({exc.strerror or exc})")


def write_text(path, text):
    """Write ``text`` as UTF-8 with ``\\n`` line ends; OS errors become FileFormatError."""
    write_chunks(path, [text])


def write_chunks(path, chunks):
    """Write the strings of ``chunks`` one after the other (UTF-8, ``\\n`` line ends)."""
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for text in chunks:
                f.write(text)
    except OSError as exc:
        raise _write_error(path, exc) from None
    except MemoryError:
        raise FileFormatError(os.fspath(path), "cannot be written: not enough memory") \
            from None


def format_scores(x):
    """Shortest round-trip text of each score (``repr`` of a Python float)."""
    return map(float.__repr__, np.asarray(x, dtype=np.float64).tolist())


#: Lines formatted per chunk when writing (bounds the memory of the text).
WRITE_CHUNK = 1 << 18


def id_column(obj, role):
    """The ``role`` ("model", "segment", "condition") ids of Trials, Scores, a Key or an Ndx
    as IdCodes (their codes when they hold them), or None."""
    codes = getattr(obj, f"{role}_codes", None)
    if codes is not None:
        return codes
    ids = getattr(obj, {"model": "model_ids", "segment": "segment_ids",
                        "condition": "conditions"}[role], None)
    return None if ids is None else IdCodes.encode(ids)


def format_rows(columns, sep):
    """Lines of text, chunk by chunk: ``columns`` are IdCodes, float arrays (full precision)
    or lists/arrays of str, all of one length."""
    n = len(columns[0])
    line = sep.join(["{}"] * len(columns)) + "\n"
    vocabs = [c.vocab if isinstance(c, IdCodes) else None for c in columns]
    for lo in range(0, n, WRITE_CHUNK):
        hi = min(n, lo + WRITE_CHUNK)
        parts = []
        for c, v in zip(columns, vocabs, strict=True):
            if v is not None:
                parts.append(v[c.codes[lo:hi]].tolist())
            elif isinstance(c, np.ndarray) and c.dtype.kind == "f":
                parts.append(format_scores(c[lo:hi]))
            else:
                parts.append(c[lo:hi] if isinstance(c, list) else c[lo:hi].tolist())
        yield "".join(map(line.format, *parts))


def _need_ids(obj, what):
    if getattr(obj, "model_ids", None) is None:
        src = getattr(obj, "source", "") or "the data"
        raise DataError(f"{src} has no (model, segment) ids, which a {what} needs")


def write_ids_text(path, obj, last=None, *, sep=" ", what="score file"):
    """Write ``model segment [last]`` lines (``last``: a float array or a list of str)."""
    _need_ids(obj, what)
    m, s = id_column(obj, "model"), id_column(obj, "segment")
    check_text_ids(m, "model id", csv=sep == ",")
    check_text_ids(s, "segment id", csv=sep == ",")
    write_chunks(path, format_rows([m, s] + ([] if last is None else [last]), sep))


def write_score_text(path, scores):
    """Write ``model segment score`` lines (full precision); bare scores without ids."""
    if scores.model_ids is None:
        write_chunks(path, format_rows([np.asarray(scores.scores, dtype=np.float64)], " "))
    else:
        write_ids_text(path, scores, np.asarray(scores.scores, dtype=np.float64))


def write_key_text(path, key):
    """Write ``model segment target|nontarget`` lines from a Key or Trials."""
    _need_ids(key, "key file")
    labels = np.asarray(key.labels, dtype=bool)
    write_ids_text(path, key, IdCodes.trusted(labels.astype(np.int32),
                                              np.array(["nontarget", "target"], dtype=object)),
                   what="key file")


def write_ndx_text(path, ndx):
    """Write ``model segment`` lines from an Ndx, Key, Scores or Trials."""
    write_ids_text(path, ndx, what="index file")


def joined_trials(scores, key, *, source=None):
    """Join a score Table and a key Table into Trials (and the JoinReport)."""
    if _join_same(scores, key):  # e.g. an HDF5 score matrix and its key over the same ids
        li = ri = None
        report = JoinReport(scores.source, key.source, len(scores), 0, 0)
    else:
        li, ri, report = join_tables(scores, key, compare_left=("scores",),
                                     compare_right=("labels",))
        if li.size == len(scores) and ri.size == len(key) and _is_identity(ri):
            li = ri = None
    x = scores.values["scores"] if li is None else scores.values["scores"][li]
    lab = key.values["labels"] if ri is None else key.values["labels"][ri]
    trials = Trials._checked(x, lab, conditions=_joined_conditions(scores, key, li, ri),
                             model_ids=scores.model_idcodes(li),
                             segment_ids=scores.segment_idcodes(li),
                             source=source or f"{scores.source} (key {key.source})")
    require_both_classes(trials)
    return trials, report


def _is_identity(index):
    """True when ``index`` is ``0, 1, ..., n-1`` (one pass, no temporary array)."""
    n = index.size
    return n == 0 or (int(index[0]) == 0 and int(index[-1]) == n - 1
                      and bool(np.all(index[1:] > index[:-1])))


def _joined_conditions(scores, key, li, ri):
    """Conditions of the joined trials, from the key or the score file (HDF5 /conditions);
    a trial whose two files give different conditions is an error."""
    cs = scores.values.get("conditions")
    ck = key.values.get("conditions")
    if cs is None and ck is None:
        return None
    def take(v, index):
        return v if index is None else v.take(index)

    if cs is None or ck is None:
        return take(ck, ri) if cs is None else take(cs, li)
    a, b = take(cs, li), take(ck, ri)
    mmap, _ = _vocab_map(b.vocab, a.vocab)
    bad = np.flatnonzero(mmap[a.codes] != b.codes)
    if bad.size:
        i = int(bad[0])
        raise FileFormatError(key.source, f"trial "
                                          f"{scores.trial_name(i if li is None else int(li[i]))} "
                                          f"has condition {show(b.vocab[b.codes[i]])} here but "
                                          f"{show(a.vocab[a.codes[i]])} in {scores.source}")
    return b


def require_both_classes(trials):
    """DataError naming the file(s) when the trials lack targets or non-targets."""
    where = trials.source or "the trials"
    for n, what in ((trials.n_tar, "target"), (trials.n_non, "non-target")):
        if n == 0:
            raise DataError(f"{where}: no {what} trials among the {len(trials)} trials read; "
                            f"every measure needs both targets and non-targets")
    return trials
