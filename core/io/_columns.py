"""Reading the columns of a text trial list in bounded memory, fast or line by line.

Private helpers of :mod:`llrlab.core.io`.  :func:`read_columns` reads a text file (or
standard input, or a gzip file) whose rows have a known number of fields and turns each
column into an array: ids into :class:`~llrlab.core.trials.IdCodes` (integer codes and the
distinct ids), numbers into float64, labels into booleans.  The file is streamed in blocks of
whole lines and the arrays grow in place, so that the memory a load takes is that of its
result plus one block.

Two readers produce the same columns:

* the fast reader (:mod:`llrlab.core.io._fast`) hands the blocks to the pandas C parser; it
  gives up -- without a message -- at anything it cannot vouch for (an odd byte, a value that
  is not a finite number, an unknown label...);
* the exact reader, used when the fast one gives up or pandas is missing, splits and checks
  every block with :mod:`llrlab.core.io._text` and reports the first problem with its file,
  line number and text.

Messages about a row found later (a repeated trial with two different scores) find its line
again with :class:`RowLocator`, which re-reads the file only then.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FileFormatError
from ..trials import IdCodes
from ._source import iter_blocks
from ._text import (
    CSV_TABLE,
    UTF8_BOM,
    _scan,
    line_text,
    parse_labels,
    parse_numbers,
    split_table,
)

__all__ = ["ID", "LABEL", "NUMBER", "Col", "Columns", "RowLocator", "first_row",
           "read_columns"]

ID, NUMBER, LABEL = "id", "number", "label"
#: Bytes per block of the exact reader (its Python objects per field cost ~20x the bytes).
EXACT_BLOCK = 1 << 20
_ITEMSIZE = {ID: 4, NUMBER: 8, LABEL: 1}


@dataclass(frozen=True)
class Col:
    """One column to read: its kind (``ID``, ``NUMBER``, ``LABEL``) and what it holds, for
    messages (e.g. ``"score"``, ``"weight"``)."""

    kind: str
    what: str = ""
    #: A ``NUMBER`` column that may hold NaN (a failure to acquire in a biometric score
    #: file); infinite values are refused all the same.
    nan: bool = False


@dataclass(frozen=True)
class FirstRow:
    """The first non-blank line of a file: its fields, line number and the delimiter."""

    path: str
    tokens: list
    line: int
    delimiter: str | None
    text: str

    @property
    def ncols(self):
        return len(self.tokens)

    def error(self, row, message):
        """A FileFormatError at this line (``row`` is 0, as for a TextTable)."""
        return FileFormatError(self.path, message, line=self.line, text=self.text)


def blank_bom(block, line0):
    """Blank out a UTF-8 byte-order mark at the start of the file (offsets unchanged)."""
    if line0 == 1 and block.startswith(UTF8_BOM):
        return b"   " + block[3:]
    return block


def first_row(src, choose_delimiter, field_counts):
    """The first non-blank line of ``src`` (checked like every line), or an 'empty' error.

    ``choose_delimiter(name, data, field_counts)`` decides the delimiter from the first block.
    The start of the file is read once per source, whatever the number of questions asked
    about it (see :class:`~llrlab.core.io._formats.Head`).
    """
    from ._formats import head_of

    return head_of(src).first_row(field_counts)


def first_row_in(name, blocks, choose_delimiter, field_counts):
    """:func:`first_row` from the blocks ``(bytes, first line)`` of a file named ``name``."""
    for block, line0 in blocks:
        block = blank_bom(block, line0)
        delim = choose_delimiter(name, block, field_counts)
        work = block if delim is None else block.translate(CSV_TABLE)
        i = 0
        while i < len(work) and work[i] in b" \t\n\r\x0b\x0c":
            i += 1
        if i == len(work):
            continue
        line = line0 + block.count(b"\n", 0, i)
        start = block.rfind(b"\n", 0, i) + 1
        end = block.find(b"\n", i)
        end = len(block) if end < 0 else end + 1
        tt = split_table(name, block[start:end], delimiter=delim, first_line=line)
        return FirstRow(name, tt.tokens, line, delim, tt.line_text(0))
    raise FileFormatError(name, "is empty: it contains no trials")


def drop_through(block, line0, skip_line):
    """The part of ``block`` (starting at line ``line0``) after line ``skip_line``."""
    if skip_line is None or skip_line < line0:
        return block, line0
    pos = 0
    for _ in range(skip_line - line0 + 1):
        nl = block.find(b"\n", pos)
        if nl < 0:
            return b"", skip_line + 1
        pos = nl + 1
    return block[pos:], skip_line + 1


class Grow:
    """A 1-D array that grows in place (``realloc``: large arrays are remapped, not copied)."""

    def __init__(self, dtype, capacity):
        self.a = np.empty(max(int(capacity), 16), dtype=dtype)
        self.n = 0

    def reserve(self, need):
        if need > self.a.size:
            self.a.resize(max(need, int(self.a.size * 1.5)), refcheck=False)

    def append(self, x):
        need = self.n + x.size
        self.reserve(need)
        self.a[self.n:need] = x
        self.n = need

    def result(self):
        self.a.resize(self.n, refcheck=False)
        return self.a


class IdEncoder:
    """Codes of ids in one numbering across blocks (a dict from id to code)."""

    def __init__(self, capacity):
        self.index = {}
        self.codes = Grow(np.int32, capacity)

    def add_tokens(self, tokens):
        d = self.index
        self.codes.append(np.fromiter((d.setdefault(t, len(d)) for t in tokens),
                                      dtype=np.int64, count=len(tokens)))

    def result(self):
        vocab = np.empty(len(self.index), dtype=object)
        vocab[:] = [k.decode("utf-8") if isinstance(k, bytes) else k for k in self.index]
        codes = self.codes.result()
        if vocab.size >= 2**31:  # pragma: no cover - 2^31 distinct ids
            codes = codes.astype(np.int64)
        return IdCodes.trusted(codes, vocab)


class Columns:
    """The parsed columns of a text file.

    Attributes
    ----------
    n : int
        Data rows read.
    values : list
        Per column: IdCodes (ids), float64 (numbers) or bool (labels), of length ``n``.
    locator : RowLocator
        Finds the line of a data row again, for messages.
    """

    def __init__(self, n, values, locator):
        self.n, self.values, self.locator = n, values, locator


class Builders:
    """The growing output arrays of the columns, with the limits checked as they grow
    (``ids(capacity, j)``: the builder of the id column ``j``, default :class:`IdEncoder`)."""

    def __init__(self, src, cols, capacity, limits, *, ids=None):
        self.src, self.cols, self.limits = src, cols, limits
        self.row_bytes = sum(_ITEMSIZE[c.kind] for c in cols)
        self.n = 0
        self.out = [(ids(capacity, j) if ids else IdEncoder(capacity)) if c.kind == ID else
                    Grow(np.float64 if c.kind == NUMBER else bool, capacity)
                    for j, c in enumerate(cols)]

    def grow(self, rows):
        """Check the limits for ``rows`` more rows (before they are parsed)."""
        n = self.n + rows
        if self.limits is not None:
            self.limits.check_trials(self.src.name, n)
            if not self.limits.fits(n * self.row_bytes):
                raise FileFormatError(self.src.name, f"holds at least {n:,} trials, which would "
                                                     f"not fit in {self.limits.budget()}; not "
                                                     f"enough memory to load it")
        self.n = n

    def values(self):
        return [o.result() for o in self.out]


def expected_rows(src, sample_rows, sample_bytes):
    """Rows expected, from the first block: exact for plain text, a guess for gzip."""
    if sample_rows == 0 or sample_bytes == 0:
        return 1024
    total = src.size if src.kind != "gzip" else 4 * src.size
    return int(sample_rows * (total / sample_bytes) * 1.02) + 1024


def read_columns(src, cols, *, delimiter, describe, first_line, skip_line=None,
                 progress=None, limits=None, fast=True, known=None):
    """Read the columns ``cols`` (one :class:`Col` per field) of every data row of ``src``.

    Parameters
    ----------
    src : Source
    cols : sequence of Col
        One per field; every row must have ``len(cols)`` fields.
    delimiter : {None, ","}
    describe : str
        The columns, for messages (e.g. ``"model segment score"``).
    first_line : int
        The line of the first data row (found by :func:`first_row`), quoted in messages
        about a row with another number of fields.
    skip_line : int, optional
        A header line to skip (with every line before it).
    progress : callable, optional
        ``progress(fraction, message)`` as the bytes are read.
    limits : Limits, optional
    fast : bool
        Try the pandas reader first.
    known : dict, optional
        For id columns (by index): the distinct ids (object array of str) of another file
        read already, e.g. the score file of this key.  The fast reader numbers the ids it
        finds there by their position in them (the vocabulary starts with them), so that
        they are hashed once and the join has nothing to look up; a hint only.

    Returns
    -------
    Columns

    Raises
    ------
    FileFormatError
        The first bad line (file, line number, text), no data row, or a limit exceeded.
    """
    locator = RowLocator(src, delimiter, skip_line)
    if fast:
        from ._fast import read_fast

        got = read_fast(src, cols, delimiter, skip_line, progress, limits, known)
        if got is not None:
            n, values = got
            return Columns(n, values, locator)
    n, values = _read_exact(src, cols, delimiter, describe, first_line, skip_line, progress,
                            limits)
    return Columns(n, values, locator)


def _read_exact(src, cols, delimiter, describe, first_line, skip_line, progress, limits):
    k = len(cols)
    builders = None
    done = 0
    with src.open() as f:
        for block, line0 in iter_blocks(f, EXACT_BLOCK):
            done += len(block)
            block = blank_bom(block, line0)
            block, line0 = drop_through(block, line0, skip_line)
            tt = split_table(src.name, block, ncols=(k,), describe=describe,
                             delimiter=delimiter, first_line=line0, like_line=first_line,
                             allow_empty=True)
            if builders is None:
                rows = expected_rows(src, tt.n_rows, len(block))
                builders = Builders(src, cols, rows, limits)
            builders.grow(tt.n_rows)
            for j, (c, out) in enumerate(zip(cols, builders.out, strict=True)):
                if c.kind == ID:
                    out.add_tokens(tt.column(j))
                elif c.kind == NUMBER:
                    out.append(parse_numbers(tt, j, c.what, finite=not c.nan) if not c.nan
                               else _numbers_or_nan(tt, j, c.what))
                else:
                    out.append(parse_labels(tt, j))
            if progress and src.size:
                progress(min(done / max(src.size, 1), 1.0), f"reading {src.name}")
    if builders is None or builders.n == 0:
        raise FileFormatError(src.name, "has a header line but no trials" if skip_line
                              else "is empty: it contains no trials")
    return builders.n, builders.values()


def _numbers_or_nan(tt, j, what):
    """Column ``j`` as float64 where NaN is allowed and an infinite value is an error."""
    x = parse_numbers(tt, j, what, finite=False)
    bad = np.isinf(x)
    if bad.any():
        i = int(np.argmax(bad))
        raise tt.error(i, f"the {what} is infinite ({float(x[i])!r}); {what}s must be finite "
                          f"numbers, or NaN for a failure to acquire")
    return x


class RowLocator:
    """Finds the line number and text of data rows by reading the file again (for messages).

    Data rows are the non-blank lines after the header line (if any), counted from 0.
    """

    def __init__(self, src, delimiter, skip_line):
        self.src, self.delimiter, self.skip_line = src, delimiter, skip_line
        self._found = {}

    def find(self, rows):
        """Look up several rows at once (one pass over the file)."""
        want = sorted({int(r) for r in rows} - set(self._found))
        if not want:
            return
        seen = 0
        i = 0
        with self.src.open() as f:
            for block, line0 in iter_blocks(f):
                block = blank_bom(block, line0)
                block, line0 = drop_through(block, line0, self.skip_line)
                work = block if self.delimiter is None else block.translate(CSV_TABLE)
                try:
                    newlines, starts = _scan(work, block, self.src.name, line0)
                except FileFormatError:  # pragma: no cover - checked when the file was read
                    return
                bounds = np.searchsorted(starts, newlines)
                counts = np.diff(bounds, prepend=0, append=starts.size)
                data_lines = np.flatnonzero(counts)
                while i < len(want) and want[i] < seen + data_lines.size:
                    j = int(data_lines[want[i] - seen])
                    self._found[want[i]] = (line0 + j,
                                            line_text(block, line0 + j, newlines, line0))
                    i += 1
                seen += data_lines.size
                if i == len(want):
                    return

    def line(self, row):
        """``(line number, text)`` of data row ``row`` (``(None, None)`` if not found)."""
        self.find([row])
        return self._found.get(int(row), (None, None))

    def where(self, row):
        line, _ = self.line(row)
        return f"line {line}" if line is not None else f"data row {int(row) + 1}"

    def error(self, row, message):
        line, text = self.line(row)
        return FileFormatError(self.src.name, message, line=line, text=text)
