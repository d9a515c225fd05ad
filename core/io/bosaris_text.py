"""BOSARIS text score, key and index files, and the trial-id join shared by every format.

Formats (one trial per line, fields separated by whitespace -- or by commas in a ``.csv``
file or when the first line is evidently comma-separated; seed 000 section 4.1 describes the
three objects):

* score file: ``model segment score``
* key file: ``model segment target|nontarget`` (see :data:`LABEL_HELP` for the accepted words)
* index (Ndx) file: ``model segment``

A score file and a key file are joined on the trial id (model, segment).  Trials found in only
one of the two files are counted and reported (never silently dropped, never fatal unless no
trial joins); a trial listed twice with the same value is kept once with a warning, listed
twice with different values it is an error.

Every parsed file becomes a :class:`Table`: integer codes into the distinct model and segment
ids plus value columns.  The join works on those codes with sorting and ``searchsorted``, so
the only per-trial Python work is one dictionary lookup per id while parsing.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError, FileFormatError, LlrlabWarning
from ..trials import Scores, Trials
from ._text import (
    LABEL_HELP,
    choose_delimiter,
    encode_ids,
    parse_labels,
    parse_numbers,
    read_bytes,
    split_table,
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

    ``model_vocab[model_codes[i]]`` is the model id of trial ``i``.  ``values`` maps a column
    name (``"scores"``, ``"labels"``, ``"conditions"``, ``"weights"``) to an array of shape
    (n,).  ``text`` (a TextTable) gives line numbers for messages; ``unique`` says the trials
    are known to be distinct (cells of a matrix), which saves the duplicate check.
    """

    source: str
    model_codes: np.ndarray
    model_vocab: np.ndarray
    seg_codes: np.ndarray
    seg_vocab: np.ndarray
    values: dict = field(default_factory=dict)
    text: object = None
    unique: bool = False

    def __len__(self):
        return self.model_codes.size

    def model_ids(self, index=slice(None)):
        return self.model_vocab[self.model_codes[index]]

    def segment_ids(self, index=slice(None)):
        return self.seg_vocab[self.seg_codes[index]]

    def trial_name(self, i):
        return f"{self.model_vocab[self.model_codes[i]]} {self.seg_vocab[self.seg_codes[i]]}"

    def where(self, i):
        return "" if self.text is None else f"line {int(self.text.lines[i])}"

    def error(self, i, message):
        if self.text is not None:
            return self.text.error(i, message)
        return FileFormatError(self.source, message)

    def subset(self, index):
        return Table(self.source, self.model_codes[index], self.model_vocab,
                     self.seg_codes[index], self.seg_vocab,
                     {k: v[index] for k, v in self.values.items()}, None, self.unique)


def table_from_ids(source, model_ids, segment_ids, values=None):
    """A Table from per-trial id arrays (e.g. of a Trials object)."""
    mc, mv = encode_ids(np.asarray(model_ids).tolist())
    sc, sv = encode_ids(np.asarray(segment_ids).tolist())
    return Table(source, mc, mv, sc, sv, dict(values or {}))


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
        The first such trial (in file order) as ``"model segment"``, or None.
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
    d = {s: i for i, s in enumerate(left_vocab.tolist())}
    rmap = np.array([d.setdefault(s, len(d)) for s in right_vocab.tolist()], dtype=np.int64)
    return rmap, len(d)


def _pair_codes(left, right):
    """Trial codes of both tables in one (model, segment) numbering, and its size."""
    if left.model_vocab is right.model_vocab and left.seg_vocab is right.seg_vocab:
        pl = pair_codes(left)
        return pl, pair_codes(right), max(left.model_vocab.size, 1) * max(left.seg_vocab.size, 1)
    mmap, n_model = _vocab_map(left.model_vocab, right.model_vocab)
    smap, n_seg = _vocab_map(left.seg_vocab, right.seg_vocab)
    n_seg = max(n_seg, 1)
    pl = left.model_codes.astype(np.int64) * n_seg + left.seg_codes
    pr = mmap[right.model_codes] * n_seg + smap[right.seg_codes]
    return pl, pr, max(n_model, 1) * n_seg


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
    n_l, n_r = pl.size, pr.size
    if cells > DENSE_CELLS_PER_TRIAL * (n_l + n_r) + DENSE_MIN_CELLS or max(n_l, n_r) >= 2**31:
        return None
    slot = np.full(cells, -1, dtype=np.int32)
    rows_l = np.arange(n_l, dtype=np.int32)
    if not left.unique:
        slot[pl] = rows_l
        if not np.array_equal(slot[pl], rows_l):
            return None
        slot[pl] = -1
    rows_r = np.arange(n_r, dtype=np.int32)
    slot[pr] = rows_r
    if not right.unique and not np.array_equal(slot[pr], rows_r):
        return None
    partner = slot[pl]
    left_index = np.flatnonzero(partner >= 0)
    right_index = partner[left_index].astype(np.intp)
    matched = np.zeros(n_r, dtype=bool)
    matched[right_index] = True
    return left_index, right_index, np.flatnonzero(partner < 0), np.flatnonzero(~matched)


def _sorted_join(left, right, pl, pr, compare_left, compare_right, left_what, right_what):
    """Join by sorting both sides (this also finds and handles repeated trials)."""
    ul, il, dup_l = _sorted_distinct(left, pl, compare_left, left_what)
    ur, ir, dup_r = _sorted_distinct(right, pr, compare_right, right_what)
    if ur.size:
        pos = np.minimum(np.searchsorted(ur, ul), ur.size - 1)
        found = ur[pos] == ul
    else:
        pos = np.zeros(ul.size, dtype=np.intp)
        found = np.zeros(ul.size, dtype=bool)
    partner = np.full(len(left), -1, dtype=np.intp)  # right row of each left row, or -1
    partner[il[found]] = ir[pos[found]]
    left_index = np.flatnonzero(partner >= 0)
    right_index = partner[left_index]
    matched = np.zeros(ur.size, dtype=bool)
    matched[pos[found]] = True
    return left_index, right_index, np.sort(il[~found]), np.sort(ir[~matched]), dup_l, dup_r


def pair_codes(table):
    """One int64 per trial, equal for equal (model, segment) within ``table``."""
    return table.model_codes.astype(np.int64) * max(table.seg_vocab.size, 1) + table.seg_codes


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
        conflict |= v[later] != v[first]
    if conflict.any():
        j = int(np.argmin(np.where(conflict, later, n)))
        a, b = int(first[j]), int(later[j])
        shown = "; ".join(f"{_value(table, c, a)}{_at(table, a)} and "
                          f"{_value(table, c, b)}{_at(table, b)}" for c in compare)
        raise table.error(b, f"trial {table.trial_name(b)!r} appears twice with different "
                             f"{what}: {shown}")
    j = int(np.argmin(later))
    a, b = int(first[j]), int(later[j])
    lines = f" ({table.where(a)} and {table.where(b)})" if table.text is not None else ""
    warnings.warn(f"{table.source}: {later.size} duplicate trial(s) with identical {what} were "
                  f"ignored; the first is {table.trial_name(b)!r}{lines}",
                  LlrlabWarning, stacklevel=4)
    return ps[starts], order[starts], int(later.size)


def deduplicate(table, compare, what):
    """Rows (ascending) of the first occurrence of every distinct trial, and the repeat count.

    See :func:`_sorted_distinct` for the handling of repeats.
    """
    if table.unique:
        return np.arange(len(table)), 0
    _, rows, n_dup = _sorted_distinct(table, pair_codes(table), compare, what)
    return (np.sort(rows) if n_dup else np.arange(len(table))), n_dup


def _value(table, name, i):
    v = table.values[name][i]
    return repr(v.item() if isinstance(v, np.generic) else v)


def _at(table, i):
    return f" on {table.where(i)}" if table.text is not None else ""


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
        n_l, n_r = pl.size, pr.size
    else:
        left_index, right_index, only_l, only_r, dup_l, dup_r = _sorted_join(
            left, right, pl, pr, compare_left, compare_right, left_what, right_what)
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
            f"(e.g. {report.left_only_example!r}) is among the {n_r} {right_role}trials "
            f"(e.g. {report.right_only_example!r}); do the model and segment ids match?")
    if warn and not report.complete:
        warnings.warn(report.describe(left_role.strip(), right_role.strip()), LlrlabWarning,
                      stacklevel=3)
    return left_index, right_index, report


# --------------------------------------------------------------------------------------------
# Reading


def _text_table(path, data, ncols, describe, progress, comma_counts=None):
    name = os.fspath(path)
    if progress:
        progress(0.0, f"reading {name}")
    if data is None:
        data = read_bytes(name)
    if progress:
        progress(0.1, f"splitting {name}")
    tt = split_table(name, data, ncols=ncols, describe=describe,
                     delimiter=choose_delimiter(name, data, comma_counts or ncols))
    if progress:
        progress(0.35, f"parsing {name}")
    return tt


def _ids_table(tt, values, progress, like=None):
    if progress:
        progress(0.7, f"indexing the ids of {tt.path}")
    m, s = tt.column(0), tt.column(1)
    if like is not None and like.text is not None and len(like) == len(m) \
            and like.text.column(0) == m and like.text.column(1) == s:
        # Same trials in the same order as `like` (typical of a score file and its key):
        # reuse its codes instead of looking every id up again.
        mc, mv, sc, sv = like.model_codes, like.model_vocab, like.seg_codes, like.seg_vocab
    else:
        mc, mv = encode_ids(m)
        sc, sv = encode_ids(s)
    if progress:
        progress(1.0, f"read {tt.path}")
    return Table(tt.path, mc, mv, sc, sv, values, tt)


def read_score_text(path, data=None, *, allow_bare=False, progress=None):
    """A BOSARIS score file ``model segment score`` as a Table.

    With ``allow_bare`` a file with one score per line is accepted too; it is returned as a
    :class:`~llrlab.core.trials.Scores` without ids.
    """
    ncols = (3, 1) if allow_bare else (3,)
    # a bare score never contains a comma: a comma in the first line means a comma-separated
    # 'model,segment,score' file even though it is one whitespace-separated field
    tt = _text_table(path, data, ncols, {3: "model segment score", 1: "score"}, progress,
                     comma_counts=(3,))
    if tt.ncols == 1:
        return Scores(parse_numbers(tt, 0), source=tt.path)
    return _ids_table(tt, {"scores": parse_numbers(tt, 2)}, progress)


def read_key_text(path, data=None, *, progress=None, like=None):
    """A BOSARIS key file ``model segment target|nontarget`` as a Table.

    ``like``: a score Table read from text; if the key lists the same trials in the same
    order, its id codes are reused (a fast path, same result).
    """
    tt = _text_table(path, data, (3,), "model segment target|nontarget", progress)
    return _ids_table(tt, {"labels": parse_labels(tt, 2)}, progress, like)


def read_ndx_text(path, data=None):
    """A BOSARIS index file ``model segment`` as a Table."""
    tt = _text_table(path, data, (2,), "model segment", None)
    return _ids_table(tt, {}, None)


# --------------------------------------------------------------------------------------------
# Writing

_BAD_TEXT_ID = re.compile(r"[\x00-\x20\x7f]")
_BAD_CSV_ID = re.compile(r'[\x00-\x20\x7f,"]')


def check_text_ids(ids, what, *, csv=False):
    """Raise DataError if an id cannot be written as one whitespace-free field."""
    bad = _BAD_CSV_ID if csv else _BAD_TEXT_ID
    for s in set(np.asarray(ids).tolist()):
        s = str(s)
        if not s or bad.search(s):
            why = "is empty" if not s else (
                "contains whitespace, a control character" + (", a comma or a quote" if csv
                                                              else ""))
            raise DataError(f"the {what} {s!r} {why}, so it cannot be written to a text file")


def write_text(path, text):
    """Write ``text`` as UTF-8 with ``\\n`` line ends; OS errors become FileFormatError."""
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as exc:
        raise FileFormatError(os.fspath(path), f"cannot be written ({exc.strerror or exc})") \
            from None


def format_scores(x):
    """Shortest round-trip text of each score (``repr`` of a Python float)."""
    return map(float.__repr__, np.asarray(x, dtype=np.float64).tolist())


def _need_ids(obj, what):
    if getattr(obj, "model_ids", None) is None:
        src = getattr(obj, "source", "") or "the data"
        raise DataError(f"{src} has no (model, segment) ids, which a {what} needs")


def write_score_text(path, scores):
    """Write ``model segment score`` lines (full precision); bare scores without ids."""
    if scores.model_ids is None:
        body = "".join(s + "\n" for s in format_scores(scores.scores))
    else:
        check_text_ids(scores.model_ids, "model id")
        check_text_ids(scores.segment_ids, "segment id")
        body = "".join(map("{} {} {}\n".format, scores.model_ids.tolist(),
                           scores.segment_ids.tolist(), format_scores(scores.scores)))
    write_text(path, body)


def write_key_text(path, key):
    """Write ``model segment target|nontarget`` lines from a Key or Trials."""
    _need_ids(key, "key file")
    check_text_ids(key.model_ids, "model id")
    check_text_ids(key.segment_ids, "segment id")
    words = np.where(np.asarray(key.labels, dtype=bool), "target", "nontarget").tolist()
    write_text(path, "".join(map("{} {} {}\n".format, key.model_ids.tolist(),
                                 key.segment_ids.tolist(), words)))


def write_ndx_text(path, ndx):
    """Write ``model segment`` lines from an Ndx, Key, Scores or Trials."""
    _need_ids(ndx, "index file")
    check_text_ids(ndx.model_ids, "model id")
    check_text_ids(ndx.segment_ids, "segment id")
    write_text(path, "".join(map("{} {}\n".format, ndx.model_ids.tolist(),
                                 ndx.segment_ids.tolist())))


def joined_trials(scores, key, *, source=None):
    """Join a score Table and a key Table into Trials (and the JoinReport)."""
    li, ri, report = join_tables(scores, key, compare_left=("scores",),
                                 compare_right=("labels",))
    trials = Trials(scores.values["scores"][li], key.values["labels"][ri],
                    conditions=_joined_conditions(scores, key, li, ri),
                    model_ids=scores.model_ids(li), segment_ids=scores.segment_ids(li),
                    source=source or f"{scores.source} (key {key.source})")
    require_both_classes(trials)
    return trials, report


def _joined_conditions(scores, key, li, ri):
    """Conditions of the joined trials, from the key or the score file (HDF5 /conditions);
    a trial whose two files give different conditions is an error."""
    cs = scores.values.get("conditions")
    ck = key.values.get("conditions")
    if cs is None and ck is None:
        return None
    if cs is None or ck is None:
        return ck[ri] if cs is None else cs[li]
    a, b = cs[li], ck[ri]
    bad = np.flatnonzero(a != b)
    if bad.size:
        i = int(bad[0])
        raise FileFormatError(key.source, f"trial {scores.trial_name(int(li[i]))} has "
                                          f"condition {str(b[i])!r} here but {str(a[i])!r} in "
                                          f"{scores.source}")
    return b


def require_both_classes(trials):
    """DataError naming the file(s) when the trials lack targets or non-targets."""
    where = trials.source or "the trials"
    for n, what in ((trials.n_tar, "target"), (trials.n_non, "non-target")):
        if n == 0:
            raise DataError(f"{where}: no {what} trials among the {len(trials)} trials read; "
                            f"every measure needs both targets and non-targets")
    return trials
