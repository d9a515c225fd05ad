"""The fast text reader: the pandas C parser, fed blocks that llrlab has checked.

Private helper of :mod:`llrlab.core.io._columns`.  pandas (installed with the dashboard's
Bokeh) tokenizes and converts about ten times faster than Python code can.  Its grammar is
wider than llrlab's in a few places, so this reader accepts a file only when the result is
certainly the one the exact reader would give, and otherwise gives up (returns None) so that
the exact reader runs and reports the first problem with its line:

* each block is checked before pandas sees it: no NUL byte (the C parser would cut a field
  there), no carriage return other than in ``\\r\\n`` (pandas ends a line there, llrlab does
  not), valid UTF-8; comma-separated text is translated exactly as the exact reader does;
* quotes are ordinary characters (``QUOTE_NONE``), no value is read as missing
  (``na_filter=False``), and the first line's field count fixes the columns: a line with
  more fields is a parser error, one with fewer leaves an empty last field, which no column
  accepts;
* ids may not be empty or hold a control character (vertical tab and form feed separate
  fields for llrlab, not for pandas);
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

#: Rows per chunk handed back by pandas (bounds the temporaries).
CHUNK_ROWS = 1 << 18
_BAD_ID = re.compile(r"[\x00-\x1f]")


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
            if b"\x00" in block:
                raise _GiveUp("NUL")
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


def _check_new_ids(names):
    for s in names:
        if not s or _BAD_ID.search(s):
            raise _GiveUp("id")


def read_fast(src, cols, delimiter, skip_line, progress, limits):
    """``(n, values)`` as the exact reader would return them, or None (see the module
    docstring); limit errors and read errors of the source are raised."""
    pd, extra = _pandas(src)
    if pd is None:
        return None
    names = [f"c{j}" for j in range(len(cols))]
    dtype = {nm: (np.float64 if c.kind == NUMBER else "category")
             for nm, c in zip(names, cols, strict=True)}
    state = {}
    seen = {}

    def first(block):
        rows = block.count(b"\n") or 1
        state["b"] = Builders(src, cols, expected_rows(src, rows, len(block)), limits)

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
                _add_chunk(state["b"], cols, names, chunk, seen)
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
    return b.n, b.values()


def _add_chunk(b, cols, names, chunk, seen):
    """Append a chunk's columns; ``seen`` maps a column to its last categories and their
    codes in the global numbering (consecutive chunks mostly share their categories)."""
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
        cat = s.cat
        cats = cat.categories.tolist()
        codes = np.asarray(cat.codes.to_numpy())
        if codes.size and int(codes.min()) < 0:
            raise _GiveUp("missing")
        last = seen.get(j)
        if c.kind == ID:
            if last is not None and last[0] == cats:
                out.codes.append(last[1][codes])
                continue
            _check_new_ids([x for x in cats if x not in out.index])
            remap = out.remap(cats)
            seen[j] = (cats, remap)
            out.codes.append(remap[codes])
        else:
            if last is None or last[0] != cats:
                lut = [label_value(w) for w in cats]
                if any(v is None for v in lut):
                    raise _GiveUp("label")
                last = seen[j] = (cats, np.array(lut, dtype=bool))
            out.append(last[1][codes] if codes.size else np.zeros(0, bool))
