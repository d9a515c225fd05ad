"""Vectorized splitting and checking of whitespace-, tab- and comma-separated text.

Private helpers of :mod:`llrlab.core.io`; the exact, line-numbered reader of
:mod:`llrlab.core.io._columns` runs them on each block of whole lines.  A block is checked in
bulk:

* UTF-8 validity (``bytes.isascii`` first, a full decode only for non-ASCII text), with the
  line number of the first bad byte;
* no control characters other than ASCII whitespace (``\\t \\n \\v \\f \\r``);
* the number of fields on every line, from the token start positions and the newline
  positions (``numpy.flatnonzero`` and ``numpy.searchsorted`` on the byte array), so that a
  line with a missing or extra field is found without a Python loop over the lines.

The fields themselves come from one ``bytes.split()`` of the block; numbers are converted
with one ``numpy.array(tokens, dtype=float64)`` call and labels through a lookup of the few
distinct label words.  Only when a conversion fails does a Python loop look for the first bad
field, to report its line.

Fields are separated by runs of ASCII whitespace (a tab-separated file is therefore read like a
whitespace-separated one).  In a comma-separated file commas and double quotes are separators
too, so fields may be quoted but cannot contain whitespace, commas or quotes; an empty field
(``a,,b``) shows up as a line with too few fields.

A number is what Python's ``float()`` reads, except that digit-group underscores
(``1_000``) are refused: no score file writes them, and reading ``1_000`` as 1000 would hide
a damaged or misread file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import FileFormatError
from ._source import path_name, strip_gz

__all__ = [
    "LABEL_HELP",
    "LABEL_WORDS",
    "TextTable",
    "check_utf8",
    "choose_delimiter",
    "line_text",
    "parse_labels",
    "parse_numbers",
    "path_name",
    "shorten",
    "show",
    "split_table",
]

TARGET_WORDS = ("target", "tgt", "tar", "genuine", "gen", "true", "1", "+1")
NONTARGET_WORDS = ("nontarget", "non-target", "non", "imp", "impostor", "false", "0", "-1")
LABEL_WORDS = {**{w: True for w in TARGET_WORDS}, **{w: False for w in NONTARGET_WORDS}}
LABEL_HELP = ("target or nontarget (also tgt/non, tar/imp, genuine/impostor, true/false, 1/0, "
              "+1/-1, any case)")

_ASCII_WS = b" \t\n\r\x0b\x0c"
CSV_TABLE = bytes.maketrans(b',"', b"  ")
UTF8_BOM = b"\xef\xbb\xbf"


def _as_text(value):
    """A user value as text (bytes decoded as UTF-8, undecodable bytes replaced)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes | bytearray) else \
        str(value)


def shorten(value, width=40):
    """A user value as text (bytes decoded), cut to about ``width`` characters when longer.

    Every value a message echoes goes through here (or :func:`show`), so that a 1 MB id
    cannot make a 1 MB message.

    Examples
    --------
    >>> shorten("spk" * 100)
    'spkspkspkspkspkspkspkspkspkspkspkspks... (300 characters)'
    >>> shorten(b"abc")
    'abc'
    """
    s = _as_text(value)
    if len(s) <= width:
        return s
    return f"{s[:width - 3]}... ({len(s):,} characters)"


def show(value, width=40):
    """``repr`` of a user value (bytes decoded), shortened to about ``width`` characters.

    Examples
    --------
    >>> show("spk" * 100)
    "'spkspkspkspkspkspkspkspkspkspkspkspks...' (300 characters)"
    >>> show(b"abc")
    "'abc'"
    """
    s = _as_text(value)
    if len(s) <= width:
        return repr(s)
    return f"{s[:width - 3]!r}"[:-1] + f"...' ({len(s):,} characters)"


def _newlines(data):
    return np.flatnonzero(np.frombuffer(data, np.uint8) == 10)


def line_text(data, line, newlines=None, first_line=1):
    """The text of line ``line`` of ``data`` (whose first line is ``first_line``), with
    undecodable bytes replaced; at most a few hundred characters are decoded."""
    nl = _newlines(data) if newlines is None else newlines
    k = line - first_line  # 0-based line within data
    start = 0 if k <= 0 else int(nl[k - 1]) + 1
    end = int(nl[k]) if k < nl.size else len(data)
    end = min(end, start + 400)
    return data[start:end].decode("utf-8", "replace").rstrip("\r\n")


def check_utf8(data, path, first_line=1):
    """Raise FileFormatError at the line of the first byte that is not UTF-8."""
    if data.isascii():
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + first_line
        hint = ""
        if data[:2] in (b"\xff\xfe", b"\xfe\xff") and first_line == 1:
            hint = " (the file looks like UTF-16; save it as UTF-8)"
        raise FileFormatError(
            path,
            f"is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded{hint}",
            line=line,
            text=line_text(data, line, first_line=first_line),
        ) from None


_WS_CODES = np.frombuffer(_ASCII_WS, np.uint8)
_CHUNK = 1 << 18  # bytes per scan step: temporaries stay in cache


def _scan(work, data, path, first_line=1):
    """Newline offsets and token start offsets of ``work``, checking for control characters.

    The bytes are scanned in chunks so that the boolean temporaries stay small and in cache.
    Only ASCII whitespace may occur below 0x20 (a NUL byte suggests a binary or UTF-16 file).
    """
    b = np.frombuffer(work, np.uint8)
    nls, sts = [], []
    prev_solid = False
    for off in range(0, b.size, _CHUNK):
        c = b[off:off + _CHUNK]
        nl = np.flatnonzero(c == 10)
        nls.append(nl + off)
        if np.count_nonzero(c < 32) != nl.size:
            low = np.flatnonzero(c < 32)
            bad = ~np.isin(c[low], _WS_CODES)
            if bad.any():
                i = off + int(low[np.argmax(bad)])
                newlines = np.concatenate(nls)
                line = int(np.count_nonzero(newlines < i)) + first_line
                hint = " (is it a binary or UTF-16 file?)" if b[i] == 0 else ""
                raise FileFormatError(path, f"contains the control character 0x{b[i]:02x}{hint}",
                                      line=line, text=line_text(data, line,
                                                                first_line=first_line))
        solid = c > 32
        st = np.flatnonzero(solid[1:] > solid[:-1]) + (off + 1)
        if solid[0] and not prev_solid:
            st = np.concatenate(([off], st))
        prev_solid = bool(solid[-1])
        sts.append(st)
    if not nls:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    return np.concatenate(nls), np.concatenate(sts)


def _extension(path):
    name = strip_gz(os.fspath(path)) if isinstance(path, str | bytes | os.PathLike) else ""
    return os.path.splitext(name)[1].lower()


def choose_delimiter(path, data, field_counts=None):
    """``","`` for a comma-separated file, ``None`` for whitespace (spaces or tabs).

    A ``.csv`` extension means commas, ``.tsv`` means tabs (whitespace), also before
    ``.gz``.  Otherwise the first non-blank line of ``data`` decides: it is comma-separated
    if it contains a comma and either splitting it on whitespace does not give one of
    ``field_counts`` or every whitespace-separated field but the last ends with a comma
    (``a, b, c``).
    """
    ext = _extension(path)
    if ext == ".csv":
        return ","
    if ext == ".tsv":
        return None
    first = b""
    for line in data[:65536].split(b"\n"):
        if line.strip():
            first = line
            break
    if b"," not in first:
        return None
    fields = first.split()
    if field_counts is not None and len(fields) not in field_counts:
        return ","
    if len(fields) > 1 and all(f.endswith(b",") for f in fields[:-1]):
        return ","
    return None


@dataclass(eq=False)
class TextTable:
    """The data rows of a block of text, split into fields.

    Attributes
    ----------
    path : str
        The file, for messages.
    data : bytes
        The block (for quoting a line in a message).
    tokens : list of bytes
        All fields of the data rows, row after row (``ncols`` per row).
    ncols : int
        Fields per row.
    lines : ndarray of int, shape (n_rows,)
        Line number (1-based, in the file) of each data row (blank lines are skipped).
    newlines : ndarray of int
        Byte offsets of the newline characters (to quote lines quickly).
    first_line : int
        The line number of the block's first line.
    """

    path: str
    data: bytes
    tokens: list
    ncols: int
    lines: np.ndarray
    newlines: np.ndarray
    first_line: int = 1

    @property
    def n_rows(self):
        return self.lines.size

    def column(self, j):
        """Field ``j`` of every row, as a list of bytes."""
        return self.tokens[j :: self.ncols]

    def line_text(self, row):
        """The text of data row ``row`` (0-based), for messages."""
        return line_text(self.data, int(self.lines[row]), self.newlines, self.first_line)

    def error(self, row, message):
        """A FileFormatError pointing at data row ``row``."""
        return FileFormatError(self.path, message, line=int(self.lines[row]),
                               text=self.line_text(row))

    def drop_first_row(self):
        """The same table without its first row (a header)."""
        return TextTable(self.path, self.data, self.tokens[self.ncols:], self.ncols,
                         self.lines[1:], self.newlines, self.first_line)


def split_table(path, data, *, ncols=None, describe="", delimiter=None, first_line=1,
                like_line=None, allow_empty=False):
    """Split text into rows of an equal number of fields, checking every line.

    Parameters
    ----------
    path : str
        The file name, for messages.
    data : bytes
        Whole lines of the file.
    ncols : tuple of int, optional
        The allowed numbers of fields per row; default: any, as long as every row has as many
        fields as the first non-blank row.
    describe : str or dict, optional
        What the columns are, for messages (e.g. ``"model segment score"``); a dict maps a
        field count to its description.
    delimiter : {None, ","}
        None: fields are separated by whitespace; ",": by commas (and whitespace).
    first_line : int
        The line number of the first line of ``data`` in the file.
    like_line : int, optional
        The line of the file's first data row, when ``data`` is a later block: every row
        must then have ``ncols[0]`` fields, like that line.
    allow_empty : bool
        Return an empty table for blank text instead of raising.

    Returns
    -------
    TextTable

    Raises
    ------
    FileFormatError
        Empty text, bytes that are not UTF-8, control characters, or a line with a different
        number of fields (the message gives the first such line, 1-based, and its text).
    """
    path = path_name(path)
    if data.startswith(UTF8_BOM) and first_line == 1:
        data = b"   " + data[3:]  # keep byte offsets (and so line numbers) unchanged
    check_utf8(data, path, first_line)
    work = data if delimiter is None else data.translate(CSV_TABLE)
    newlines, starts = _scan(work, data, path, first_line)
    if starts.size == 0:
        if allow_empty:
            return TextTable(path, data, [], ncols[0] if ncols else 0,
                             np.zeros(0, np.int64), newlines, first_line)
        raise FileFormatError(path, "is empty: it contains no trials")
    # Fields per line (line i ends at newlines[i]; the last line may lack a newline).
    bounds = np.searchsorted(starts, newlines)
    counts = np.diff(bounds, prepend=0, append=starts.size)
    rows = np.flatnonzero(counts)
    first = int(rows[0])

    def describe_for(n):
        d = describe.get(n, "") if isinstance(describe, dict) else describe
        return f" ({d})" if d else ""

    def error_at(line0, message):
        line = line0 + first_line
        return FileFormatError(path, message, line=line,
                               text=line_text(data, line, newlines, first_line))

    if like_line is None:
        k = int(counts[first])
        if ncols is not None and k not in ncols:
            want = " or ".join(f"{n} fields{describe_for(n)}" for n in ncols)
            raise error_at(first, f"expected {want} per line, found {k}")
        like_line = first + first_line
    else:
        k = ncols[0]
    bad = counts[rows] != k
    if bad.any():
        line0 = int(rows[np.argmax(bad)])
        raise error_at(line0, f"expected {k} fields{describe_for(k)} like line {like_line}, "
                              f"found {int(counts[line0])}")
    tokens = work.split()
    if len(tokens) != starts.size:  # pragma: no cover - same whitespace set by construction
        raise FileFormatError(path, "could not be split into fields consistently")
    return TextTable(path, data, tokens, k, rows + first_line, newlines, first_line)


def parse_numbers(table, j, what="score", *, finite=True):
    """Column ``j`` of ``table`` as float64, with the line of the first bad value on error.

    A value is what ``float()`` reads, without digit-group underscores (``1_000`` is
    refused).
    """
    col = table.column(j)
    try:
        x = np.array(col, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        x = None
    if x is None or any(b"_" in tok for tok in col):
        for i, tok in enumerate(col):
            try:
                if b"_" in tok:
                    raise ValueError(tok)
                float(tok)
            except (ValueError, TypeError, OverflowError):
                hint = " (digit-group underscores are not accepted)" if b"_" in tok else ""
                raise table.error(i, f"the {what} {show(tok)} is not a number{hint}") \
                    from None
        raise AssertionError("numpy and float() disagree")  # pragma: no cover
    if finite:
        bad = ~np.isfinite(x)
        if bad.any():
            i = int(np.argmax(bad))
            kind = "NaN" if np.isnan(x[i]) else "infinite"
            raise table.error(i, f"the {what} is {kind} ({show(col[i])}); "
                                 f"{int(bad.sum())} such value(s) in this part of the file, "
                                 f"{what}s must be finite")
    return x


def label_value(word):
    """True / False for a label word (bytes or str, any case), None if it is not one."""
    s = word.decode("utf-8", "replace") if isinstance(word, bytes) else str(word)
    return LABEL_WORDS.get(s.lower())


def parse_labels(table, j):
    """Column ``j`` of ``table`` as booleans (True = target), see ``LABEL_WORDS``."""
    col = table.column(j)
    lut = {}
    unknown = []
    for word in set(col):
        value = label_value(word)
        if value is None:
            unknown.append(word)
        else:
            lut[word] = value
    if unknown:
        i = min(col.index(w) for w in unknown)
        raise table.error(i, f"unknown label {show(col[i])}; expected {LABEL_HELP}")
    return np.fromiter(map(lut.__getitem__, col), dtype=bool, count=len(col))
