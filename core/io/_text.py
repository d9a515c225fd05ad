"""Vectorized parsing of whitespace-, tab- and comma-separated text tables.

Private helpers of :mod:`llrlab.core.io`.  A text file is read as bytes and checked in bulk:

* UTF-8 validity (``bytes.isascii`` first, a full decode only for non-ASCII files), with the
  line number of the first bad byte;
* no control characters other than ASCII whitespace (``\\t \\n \\v \\f \\r``);
* the number of fields on every line, from the token start positions and the newline
  positions (``numpy.flatnonzero`` and ``numpy.searchsorted`` on the byte array), so that a
  line with a missing or extra field is found without a Python loop over the lines.

The fields themselves come from one ``bytes.split()`` of the whole file; numbers are converted
with one ``numpy.array(tokens, dtype=float64)`` call and labels through a lookup of the few
distinct label words.  Only when a conversion fails does a Python loop look for the first bad
field, to report its line.

Fields are separated by runs of ASCII whitespace (a tab-separated file is therefore read like a
whitespace-separated one).  In a comma-separated file commas and double quotes are separators
too, so fields may be quoted but cannot contain whitespace, commas or quotes; an empty field
(``a,,b``) shows up as a line with too few fields.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, FileFormatError

__all__ = [
    "LABEL_WORDS",
    "TextTable",
    "check_utf8",
    "choose_delimiter",
    "encode_ids",
    "line_text",
    "parse_labels",
    "parse_numbers",
    "path_name",
    "read_bytes",
    "split_table",
]

TARGET_WORDS = ("target", "tgt", "tar", "true", "1")
NONTARGET_WORDS = ("nontarget", "non-target", "non", "imp", "impostor", "false", "0")
LABEL_WORDS = {**{w: True for w in TARGET_WORDS}, **{w: False for w in NONTARGET_WORDS}}
LABEL_HELP = "target or nontarget (also tgt/non, tar/imp, true/false, 1/0, any case)"

_ASCII_WS = b" \t\n\r\x0b\x0c"
_CSV_TABLE = bytes.maketrans(b',"', b"  ")
_UTF8_BOM = b"\xef\xbb\xbf"


def path_name(path):
    """``os.fspath(path)``, or a DataError saying that a file name is needed."""
    try:
        return os.fspath(path)
    except TypeError:
        raise DataError(f"a file name is needed, got {type(path).__name__}") from None


def read_bytes(path):
    """The content of ``path``; every operating-system error becomes a FileFormatError."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileFormatError(path, "file not found") from None
    except IsADirectoryError:
        raise FileFormatError(path, "is a directory, not a file") from None
    except PermissionError:
        raise FileFormatError(path, "permission denied") from None
    except OSError as exc:
        raise FileFormatError(path, f"cannot be read ({exc.strerror or exc})") from None
    except (TypeError, ValueError) as exc:  # e.g. an embedded NUL in the name, or not a path
        raise FileFormatError(str(path), f"is not a valid file name ({exc})") from None


def _newlines(data):
    return np.flatnonzero(np.frombuffer(data, np.uint8) == 10)


def line_text(data, line, newlines=None):
    """The text of 1-based line ``line`` of ``data`` (undecodable bytes replaced)."""
    nl = _newlines(data) if newlines is None else newlines
    start = 0 if line <= 1 else int(nl[line - 2]) + 1
    end = int(nl[line - 1]) if line - 1 < nl.size else len(data)
    return data[start:end].decode("utf-8", "replace").rstrip("\r\n")


def check_utf8(data, path):
    """Raise FileFormatError at the line of the first byte that is not UTF-8."""
    if data.isascii():
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        hint = ""
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            hint = " (the file looks like UTF-16; save it as UTF-8)"
        raise FileFormatError(
            path,
            f"is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded{hint}",
            line=line,
            text=line_text(data, line),
        ) from None


_WS_CODES = np.frombuffer(_ASCII_WS, np.uint8)
_CHUNK = 1 << 18  # bytes per scan step: temporaries stay in cache


def _scan(work, data, path):
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
                line = int(np.count_nonzero(newlines < i)) + 1
                hint = " (is it a binary or UTF-16 file?)" if b[i] == 0 else ""
                raise FileFormatError(path, f"contains the control character 0x{b[i]:02x}{hint}",
                                      line=line, text=line_text(data, line))
        solid = c > 32
        st = np.flatnonzero(solid[1:] > solid[:-1]) + (off + 1)
        if solid[0] and not prev_solid:
            st = np.concatenate(([off], st))
        prev_solid = bool(solid[-1])
        sts.append(st)
    if not nls:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    return np.concatenate(nls), np.concatenate(sts)


def choose_delimiter(path, data, field_counts=None):
    """``","`` for a comma-separated file, ``None`` for whitespace (spaces or tabs).

    A ``.csv`` extension means commas, ``.tsv`` means tabs (whitespace).  Otherwise the first
    non-blank line decides: it is comma-separated if it contains a comma and either splitting it
    on whitespace does not give one of ``field_counts`` or every whitespace-separated field but
    the last ends with a comma (``a, b, c``).
    """
    ext = os.path.splitext(os.fspath(path))[1].lower() if _is_pathlike(path) else ""
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


def _is_pathlike(path):
    return isinstance(path, (str, bytes, os.PathLike))


@dataclass(eq=False)
class TextTable:
    """The data rows of a text file, split into fields.

    Attributes
    ----------
    path : str
        The file, for messages.
    data : bytes
        The file content (for quoting a line in a message).
    tokens : list of bytes
        All fields of the data rows, row after row (``ncols`` per row).
    ncols : int
        Fields per row.
    lines : ndarray of int, shape (n_rows,)
        1-based line number of each data row (blank lines are skipped).
    newlines : ndarray of int
        Byte offsets of the newline characters (to quote lines quickly).
    """

    path: str
    data: bytes
    tokens: list
    ncols: int
    lines: np.ndarray
    newlines: np.ndarray

    @property
    def n_rows(self):
        return self.lines.size

    def column(self, j):
        """Field ``j`` of every row, as a list of bytes."""
        return self.tokens[j :: self.ncols]

    def line_text(self, row):
        """The text of data row ``row`` (0-based), for messages."""
        return line_text(self.data, int(self.lines[row]), self.newlines)

    def error(self, row, message):
        """A FileFormatError pointing at data row ``row``."""
        return FileFormatError(self.path, message, line=int(self.lines[row]),
                               text=self.line_text(row))

    def drop_first_row(self):
        """The same table without its first row (a header)."""
        return TextTable(self.path, self.data, self.tokens[self.ncols:], self.ncols,
                         self.lines[1:], self.newlines)


def split_table(path, data, *, ncols=None, describe="", delimiter=None):
    """Split a text file into rows of an equal number of fields, checking every line.

    Parameters
    ----------
    path : str
        The file name, for messages.
    data : bytes
        The file content.
    ncols : tuple of int, optional
        The allowed numbers of fields per row; default: any, as long as every row has as many
        fields as the first non-blank row.
    describe : str or dict, optional
        What the columns are, for messages (e.g. ``"model segment score"``); a dict maps a
        field count to its description.
    delimiter : {None, ","}
        None: fields are separated by whitespace; ",": by commas (and whitespace).

    Returns
    -------
    TextTable

    Raises
    ------
    FileFormatError
        Empty file, bytes that are not UTF-8, control characters, or a line with a different
        number of fields (the message gives the first such line, 1-based, and its text).
    """
    path = os.fspath(path) if _is_pathlike(path) else str(path)
    if data.startswith(_UTF8_BOM):
        data = b"   " + data[3:]  # keep byte offsets (and so line numbers) unchanged
    check_utf8(data, path)
    work = data if delimiter is None else data.translate(_CSV_TABLE)
    newlines, starts = _scan(work, data, path)
    if starts.size == 0:
        raise FileFormatError(path, "is empty: it contains no trials")
    # Fields per line (line i ends at newlines[i]; the last line may lack a newline).
    bounds = np.searchsorted(starts, newlines)
    counts = np.diff(bounds, prepend=0, append=starts.size)
    rows = np.flatnonzero(counts)
    first = int(rows[0])
    k = int(counts[first])

    def describe_for(n):
        d = describe.get(n, "") if isinstance(describe, dict) else describe
        return f" ({d})" if d else ""

    def error_at(line0, message):
        return FileFormatError(path, message, line=line0 + 1,
                               text=line_text(data, line0 + 1, newlines))

    if ncols is not None and k not in ncols:
        want = " or ".join(f"{n} fields{describe_for(n)}" for n in ncols)
        raise error_at(first, f"expected {want} per line, found {k}")
    bad = counts[rows] != k
    if bad.any():
        line0 = int(rows[np.argmax(bad)])
        raise error_at(line0, f"expected {k} fields{describe_for(k)} like line {first + 1}, "
                              f"found {int(counts[line0])}")
    tokens = work.split()
    if len(tokens) != starts.size:  # pragma: no cover - same whitespace set by construction
        raise FileFormatError(path, "could not be split into fields consistently")
    return TextTable(path, data, tokens, k, rows + 1, newlines)


def parse_numbers(table, j, what="score", *, finite=True):
    """Column ``j`` of ``table`` as float64, with the line of the first bad value on error."""
    col = table.column(j)
    try:
        x = np.array(col, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        for i, tok in enumerate(col):
            try:
                float(tok)
            except (ValueError, TypeError, OverflowError):
                raise table.error(i, f"the {what} {_show(tok)} is not a number") from None
        raise  # pragma: no cover - numpy and float() disagree
    if finite:
        bad = ~np.isfinite(x)
        if bad.any():
            i = int(np.argmax(bad))
            kind = "NaN" if np.isnan(x[i]) else "infinite"
            raise table.error(i, f"the {what} is {kind} ({_show(col[i])}); "
                                 f"{int(bad.sum())} such value(s) in the file, {what}s must be "
                                 f"finite")
    return x


def parse_labels(table, j):
    """Column ``j`` of ``table`` as booleans (True = target), see ``LABEL_WORDS``."""
    col = table.column(j)
    lut = {}
    unknown = []
    for word in set(col):
        value = LABEL_WORDS.get(word.decode("utf-8", "replace").lower())
        if value is None:
            unknown.append(word)
        else:
            lut[word] = value
    if unknown:
        i = min(col.index(w) for w in unknown)
        raise table.error(i, f"unknown label {_show(col[i])}; expected {LABEL_HELP}")
    return np.fromiter(map(lut.__getitem__, col), dtype=bool, count=len(col))


def encode_ids(col):
    """Integer codes of a list of ids and the distinct ids (decoded), in order of appearance.

    Returns
    -------
    codes : ndarray of intp, shape (n,)
    vocab : ndarray of object (str), shape (n_distinct,)
        ``vocab[codes]`` gives the ids back.
    """
    d = {}
    codes = np.array([d.setdefault(x, len(d)) for x in col], dtype=np.intp)
    vocab = np.empty(len(d), dtype=object)
    vocab[:] = [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in d]
    return codes, vocab


def _show(tok):
    s = tok.decode("utf-8", "replace") if isinstance(tok, bytes) else str(tok)
    return repr(s if len(s) <= 40 else s[:37] + "...")
