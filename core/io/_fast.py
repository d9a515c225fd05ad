"""The fast text reader: the pandas C parser, fed blocks that llrlab has checked.

Private helper of :mod:`llrlab.core.io._columns`.  pandas (installed with the dashboard's
Bokeh) tokenizes and converts about ten times faster than Python code can.  Its grammar is
wider than llrlab's in a few places, so this reader accepts a file only when the result is
certainly the one the exact reader would give, and otherwise gives up (returns None) so that
the exact reader runs and reports the first problem with its line:

* each block is checked before pandas sees it: no control character but tab, newline and
  carriage return (the C parser would cut a field at a NUL; vertical tab and form feed
  separate fields for llrlab, not for pandas; the others are errors), no carriage return
  other than in ``\\r\\n`` (pandas ends a line there, llrlab does not), valid UTF-8;
  comma-separated text is translated exactly as the exact reader does;
* quotes are ordinary characters (``QUOTE_NONE``), no value is read as missing
  (``na_filter=False``), and the first line's field count fixes the columns: a line with
  more fields is a parser error, one with fewer leaves an empty last field, which no column
  accepts;
* ids and labels are read as strings (``dtype=object``; a ``category`` dtype would let
  pandas 3.1 and later read ``+1`` or ``007`` as numbers) and numbered by llrlab, hash-based
  (see :class:`_ChunkIds`); ids may not be empty;
* numbers must be finite (pandas reads ``nan`` as an error, ``inf`` as infinite), and a
  chunk of numbers that are all 0 or 1 is re-read exactly (pandas reads a column of only
  ``True``/``False`` words as 1/0);
* labels must be label words.

The numbers are bit-identical to Python's ``float()``: pandas 3.1 and later convert with
``fast_float``, which rounds correctly; older versions are asked for their round-trip
converter.  Neither accepts ``1_000``.
"""

from __future__ import annotations

import csv
import re
import sys

import numpy as np

from ..errors import LlrlabError
from ..trials import IdCodes
from ._columns import (
    ID,
    NUMBER,
    Builders,
    blank_bom,
    drop_through,
    expected_rows,
)
from ._source import ReadOnlyRaw, iter_blocks
from ._text import CSV_TABLE, label_value

__all__ = ["read_fast"]

#: Rows per chunk handed back by pandas (bounds the temporaries: the parser's buffers of a
#: chunk are a good part of the peak memory of a load of 10^6 lines; the time is the same).
CHUNK_ROWS = 1 << 16
#: Control characters other than tab, newline and carriage return: a NUL would cut a field
#: in the C parser; vertical tab and form feed separate fields for llrlab, not for pandas;
#: the others are errors for the exact reader.
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r")


class _GiveUp(Exception):
    """The fast reader cannot vouch for the result; the exact reader takes over."""


#: Below this many bytes a file is read by the exact reader unless pandas is imported already
#: (importing pandas takes longer than reading a small file).
SMALL = 8 << 20


def _pandas(src):
    if src.size is not None and src.size < SMALL and src.kind != "gzip" \
            and "pandas" not in sys.modules:
        return None, {}
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas comes with bokeh
        return None, {}
    major, minor = (int(v) for v in re.findall(r"\d+", pd.__version__)[:2])
    extra = {} if (major, minor) >= (3, 1) else {"float_precision": "round_trip"}
    return pd, extra


class _Feed(ReadOnlyRaw):
    """The checked blocks of a source, as a binary file object for pandas."""

    def __init__(self, src, delimiter, skip_line, progress, first):
        super().__init__()
        self._f = src.open()
        self._blocks = iter_blocks(self._f, count_until=skip_line or 0)
        self._src, self._delim, self._skip = src, delimiter, skip_line
        self._progress, self._done = progress, 0
        self.first = first  # called with the first non-empty block

    def read(self, n=-1):
        for block, line0 in self._blocks:
            self._done += len(block)
            if line0 is not None:
                block = blank_bom(block, line0)
                block, line0 = drop_through(block, line0, self._skip)
            if not block:
                continue
            if len(block.translate(None, _CONTROL)) != len(block):
                raise _GiveUp("control character")  # NUL, or a field separator for llrlab
            if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
                raise _GiveUp("CR")
            if not block.isascii():
                try:
                    block.decode("utf-8")
                except UnicodeDecodeError:
                    raise _GiveUp("UTF-8") from None
            if self._delim is not None:
                block = block.translate(CSV_TABLE)
            if self.first is not None:
                self.first(block)
                self.first = None
            if self._progress and self._src.size:
                self._progress(min(self._done / self._src.size, 1.0),
                               f"reading {self._src.name}")
            return block
        return b""

    def close(self):
        try:
            self._f.close()
        finally:
            super().close()


class _ChunkIds:
    """One id column read chunk by chunk, numbered once at the end.

    The chunks' columns of ids (str objects: the parser makes one object per distinct
    string of a chunk) are kept as they come, and :meth:`result` numbers their
    concatenation with one hash-based ``pandas.factorize``: one hash lookup per row in C, no
    Python operation per row or per id, and no second numbering per chunk (which would
    double the work when ids are unique).  The numbering is in order of first appearance in
    the file, as the exact reader numbers the ids.  Memory: one pointer per row until the
    end, besides the ids themselves.
    """

    def __init__(self, capacity):
        self.parts = []
        self.n = 0

    def add(self, ids):
        self.parts.append(ids)
        self.n += ids.size

    def result(self):
        """IdCodes of the column; gives up on an empty id (a line with a missing field:
        the exact reader then reports it)."""
        import pandas as pd

        allu = np.concatenate(self.parts) if len(self.parts) != 1 else self.parts[0]
        self.parts = []
        codes, vocab = pd.factorize(allu, sort=False)
        del allu
        vocab = np.asarray(vocab, dtype=object)
        if (vocab == "").any():
            raise _GiveUp("empty id")
        dt = np.int32 if vocab.size < 2**31 else np.int64
        return IdCodes.trusted(codes.astype(dt), vocab)


def read_fast(src, cols, delimiter, skip_line, progress, limits):
    """``(n, values)`` as the exact reader would return them, or None (see the module
    docstring); limit errors and read errors of the source are raised."""
    pd, extra = _pandas(src)
    if pd is None:
        return None
    names = [f"c{j}" for j in range(len(cols))]
    # ids and labels as str objects (the parser reuses one object per distinct string of a
    # chunk), numbered here: a category dtype would let pandas (3.1 and later) read '+1' or
    # '007' as a number
    dtype = {nm: (np.float64 if c.kind == NUMBER else object)
             for nm, c in zip(names, cols, strict=True)}
    state = {}
    seen = {}

    def first(block):
        rows = expected_rows(src, block.count(b"\n") or 1, len(block))
        state["b"] = Builders(src, cols, rows, limits, ids=_ChunkIds)

    feed = _Feed(src, delimiter, skip_line, progress, first)
    try:
        # No ParserWarning/DtypeWarning can arise: every column has a dtype, the first line
        # fixes the column count, and low_memory is off.  (warnings.catch_warnings is not
        # used: it is process-wide, and a server loads files in threads.)
        reader = pd.read_csv(feed, sep=r"\s+", header=None, names=names, dtype=dtype,
                             quoting=csv.QUOTE_NONE, na_filter=False, engine="c",
                             encoding="utf-8", chunksize=CHUNK_ROWS, low_memory=False, **extra)
        with reader:
            for chunk in reader:
                _add_chunk(pd, state["b"], cols, names, chunk, seen)
    except LlrlabError:
        raise
    except MemoryError:
        raise
    except Exception:  # any pandas complaint: the exact reader decides
        return None
    finally:
        feed.close()
    b = state.get("b")
    if b is None or b.n == 0:
        return None
    try:
        return b.n, b.values()
    except _GiveUp:
        return None


def _add_chunk(pd, b, cols, names, chunk, seen):
    """Append a chunk's columns; ``seen`` maps a label column to its last categories and
    their values (consecutive chunks mostly share their categories)."""
    rows = len(chunk)
    b.grow(rows)
    for j, (c, nm, out) in enumerate(zip(cols, names, b.out, strict=True)):
        s = chunk[nm]
        if c.kind == NUMBER:
            x = s.to_numpy(dtype=np.float64)
            if not np.isfinite(x).all():
                raise _GiveUp("not finite")
            if rows and x.min() >= 0 and x.max() <= 1 and ((x == 0) | (x == 1)).all():
                raise _GiveUp("0/1")  # perhaps True/False words
            out.append(x)
            continue
        values = s.to_numpy(dtype=object)
        if c.kind == ID:
            out.add(values)
            continue
        codes, uniques = pd.factorize(values, sort=False)
        if codes.size and int(codes.min()) < 0:
            raise _GiveUp("missing")
        words = uniques.tolist()
        last = seen.get(j)
        if last is None or last[0] != words:
            lut = [label_value(w) if isinstance(w, str) else None for w in words]
            if any(v is None for v in lut):
                raise _GiveUp("label")
            last = seen[j] = (words, np.array(lut, dtype=bool))
        out.append(last[1][codes] if codes.size else np.zeros(0, bool))
