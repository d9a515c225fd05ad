"""The fast text reader: the pandas C parser, fed blocks that llrlab has checked.

Private helper of :mod:`llrlab.core.io._columns`.  pandas (installed with the dashboard's
Bokeh) tokenizes and converts about ten times faster than Python code can.  Its grammar is
wider than llrlab's in a few places, so this reader accepts a file only when the result is
certainly the one the exact reader would give, and otherwise gives up (returns None) so that
the exact reader runs and reports the first problem with its line:

* each block is checked before pandas sees it: no NUL byte (the C parser would cut a field
  there), no carriage return other than in ``\\r\\n`` (pandas ends a line there, llrlab
  does not), valid UTF-8; comma-separated text is translated exactly as the exact reader
  does;
* quotes are ordinary characters (``QUOTE_NONE``), no value is read as missing
  (``na_filter=False``), and the first line's field count fixes the columns: a line with
  more fields is a parser error, one with fewer leaves an empty last field, which no column
  accepts;
* labels are read as categories, or as strings when one looks like a number in the head of
  the file (a category would let pandas 3.1 and later read ``+1`` or ``00`` as numbers; a
  chunk whose categories come back as numbers gives up); ids likewise when they repeat, as
  strings otherwise; ids are numbered by llrlab, hash-based (see :class:`_ChunkIds`), and
  may not be empty or hold a control character (vertical tab and form feed separate fields
  for llrlab, not for pandas);
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
from ..trials import IdCodes, vocab_index
from ._columns import (
    ID,
    NUMBER,
    Builders,
    Grow,
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
#: Control characters in an id: vertical tab and form feed separate fields for llrlab, not
#: for pandas; the others are errors for the exact reader (numbers and labels holding one
#: are not read by pandas either).
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
                raise _GiveUp("NUL")  # the C parser would cut a field there
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


#: A chunk of str ids with more than this share of distinct ids is kept as it is, and so are
#: the chunks after it (numbering each chunk first would only hash every id once more).
RAW_ABOVE = 0.9


class _ChunkIds:
    """One id column read chunk by chunk, numbered once at the end.

    A chunk hands in either its column of str objects (``dtype=object``: the parser makes one
    object per distinct string of a chunk) or its categories and codes (``category``: the
    parser hashes the bytes in C and makes objects only for the distinct ids).  A column of
    str objects is numbered within the chunk (hash-based ``pandas.factorize``) and only its
    distinct ids are kept -- unless the chunks' ids are nearly all distinct, when numbering
    them twice would gain nothing and the chunk is kept as it is.  The row keeps its position
    in the concatenation of what the chunks handed in, and :meth:`result` numbers that
    concatenation with one hash-based ``pandas.factorize``: no Python operation per row or
    per id.  Consecutive chunks with the same distinct ids (a model's trials against the same
    segments) share one copy, so with repeating ids the concatenation is small.  Memory: the
    positions (4 bytes a row) until the end, besides the ids themselves.
    """

    def __init__(self, capacity, known=None):
        self.parts = []
        self.codes = Grow(np.int32, capacity)
        self.size = 0  # entries in the concatenation
        self._last = None  # (distinct ids, their codes) of the previous chunk
        self._raw = False  # chunks kept as they are (their ids are nearly all distinct)
        # ids known already (the score file's, when this is its key): an id found there is
        # coded by its position in them, and only the others are kept
        self._known = known
        self._base = 0 if known is None else known.size

    def _place(self, ids):
        """The codes of ``ids`` (str objects): their position in the known ids, else
        ``base +`` their position in the concatenation of the parts (where they are added)."""
        if self._known is None:
            pos = np.arange(self.size, self.size + ids.size, dtype=np.int64)
            new = None
        else:
            pos = vocab_index(self._known).get_indexer(ids).astype(np.int64, copy=False)
            new = np.flatnonzero(pos < 0)
            if new.size == 0:
                return pos
            ids = ids[new]
        if self._base + self.size + ids.size >= 2**31:
            raise _GiveUp("more than 2^31 ids")  # pragma: no cover - 2^31 rows
        if new is None:
            pos += self._base
        else:
            pos[new] = np.arange(self._base + self.size, self._base + self.size + ids.size)
        self.size += ids.size
        self.parts.append(ids)
        return pos

    def add(self, ids):
        """A chunk's ids as str objects, numbered within the chunk at once (hash-based
        ``pandas.factorize``): only the chunk's distinct ids are kept, not a pointer per row,
        and the final numbering hashes fewer entries."""
        if self._raw:  # ids seen so far nearly all distinct: numbering a chunk saves nothing
            self._last = None
            self.codes.append(self._place(ids).astype(np.int32))
            return
        import pandas as pd

        codes, uniques = pd.factorize(ids, sort=False)
        self._raw = len(uniques) > RAW_ABOVE * len(ids)
        self.add_distinct(uniques, codes)

    def add_distinct(self, uniques, codes):
        """A chunk's distinct ids (str objects) and each row's code into them."""
        last = self._last
        if last is not None and len(last[0]) == len(uniques) and np.array_equal(last[0], uniques):
            lut = last[1]
        else:
            lut = self._place(uniques).astype(np.int32)
            self._last = (uniques, lut)
        self.codes.append(lut[codes])

    def add_categories(self, cats, codes):
        """A chunk's categories (an Index of str) and each row's code into them."""
        self.add_distinct(cats.to_numpy(dtype=object), codes)

    def result(self):
        """IdCodes of the column; gives up on an empty id (a line with a missing field) or
        one holding a control character (the exact reader then reports or splits it)."""
        import pandas as pd

        if self.parts:
            allu = np.concatenate(self.parts) if len(self.parts) != 1 else self.parts[0]
            self.parts = []
            gcodes, vocab = pd.factorize(allu, sort=False)
            del allu
            vocab = np.asarray(vocab, dtype=object)
            if (vocab == "").any() or _BAD_ID.search("".join(vocab.tolist())):
                raise _GiveUp("empty id, or a control character")
        else:
            gcodes, vocab = np.zeros(0, np.intp), np.zeros(0, dtype=object)
        if self._base:  # the known ids first, as they are, then the new ones
            gcodes = np.concatenate([np.arange(self._base), gcodes + self._base])
            vocab = np.concatenate([self._known, vocab]) if vocab.size else self._known
        dt = np.int32 if vocab.size < 2**31 else np.int64
        return IdCodes.trusted(gcodes.astype(dt, copy=False)[self.codes.result()], vocab)


#: Below this share of distinct values in the head of a file, an id column is read as a
#: category (the parser hashes the bytes, and makes a str object only per distinct id);
#: above it, as str objects.  A category costs much more per distinct id of a chunk (pandas
#: sorts the chunk's categories, converts them from Arrow strings and recodes the rows): with
#: one id in three distinct (a segment against 3 models) str objects read ~1.4x faster,
#: with one in ten (a model-major list of 4,000 segments) categories read ~1.2x faster.
CATEGORY_BELOW = 0.2
#: Bytes of the head looked at to choose.
SAMPLE_BYTES = 1 << 20


def _text_dtypes(src, cols, delimiter, skip_line):
    """``"category"`` or ``object`` for each column of ids or labels, from the head of the
    file (read already): categories for labels and for ids that repeat, unless a value looks
    like a number (pandas 3.1 and later read categories that are all numbers as numbers)."""
    from ._formats import head_of, is_number

    blocks = head_of(src)._blocks
    data = blocks[0][0][:SAMPLE_BYTES] if blocks else b""
    data = data[:data.rfind(b"\n") + 1]
    if delimiter is not None:
        data = data.translate(CSV_TABLE)
    rows = [r for r in (line.split() for line in data.split(b"\n")[1 if skip_line else 0:])
            if len(r) == len(cols)]
    out = {}
    for j, c in enumerate(cols):
        if c.kind == NUMBER:
            continue
        values = [r[j] for r in rows]
        distinct = set(values)
        repeating = c.kind != ID or (bool(values) and len(distinct) < CATEGORY_BELOW * len(values))
        out[j] = "category" if repeating and not any(map(is_number, distinct)) else object
    return out


def read_fast(src, cols, delimiter, skip_line, progress, limits, known=None):
    """``(n, values)`` as the exact reader would return them, or None (see the module
    docstring); limit errors and read errors of the source are raised.  ``known``: for some
    id columns (by index), distinct ids known already (an object array of str) which number
    the column's ids where they are the same (see :class:`_ChunkIds`)."""
    pd, extra = _pandas(src)
    if pd is None:
        return None
    names = [f"c{j}" for j in range(len(cols))]
    # ids as categories or str objects (see _id_dtypes), labels as str objects, numbered
    # here: a category dtype would let pandas (3.1 and later) read '+1' or '007' as a number
    text = _text_dtypes(src, cols, delimiter, skip_line)
    dtype = {nm: (np.float64 if c.kind == NUMBER else text[j])
             for j, (nm, c) in enumerate(zip(names, cols, strict=True))}
    state = {}
    seen = {}

    def first(block):
        rows = expected_rows(src, block.count(b"\n") or 1, len(block))
        state["b"] = Builders(src, cols, rows, limits,
                              ids=lambda cap, j: _ChunkIds(cap, (known or {}).get(j)))

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
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            if not (cats.dtype == object or isinstance(cats.dtype, pd.StringDtype)):
                raise _GiveUp("read as numbers")  # a chunk of only numeric-looking values
            codes = np.asarray(s.cat.codes.to_numpy())
            if c.kind == ID:
                if codes.size and int(codes.min()) < 0:
                    raise _GiveUp("missing")
                out.add_categories(cats, codes)
                continue
            uniques = cats.to_numpy(dtype=object)
        else:
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
