"""The data model: the one type every loader produces and every measure consumes.

A :class:`Trials` holds one score per trial, its label (target or non-target), and optionally
a weight, a condition label and the (model, segment) ids that name the trial.  A
:class:`Scores` is the same without labels (scores to be calibrated or fused, an "Ndx" with
scores).  Both are immutable; selecting or re-scoring returns a new object.

Ids and conditions are held as :class:`IdCodes`: an integer code per trial into a vocabulary
of the distinct strings.  The loaders produce them that way, and joins, pairing, duplicate
checks and writing work on the integer codes; the per-trial string arrays
(``t.model_ids``, ``t.segment_ids``, ``t.conditions``) are built only when asked for (once,
then cached, read-only).  Ids given as strings are encoded on demand the other way round.
"""

from __future__ import annotations

import contextlib
import contextvars
import weakref
from dataclasses import FrozenInstanceError

import numpy as np

from ._parallel import map_chunks
from ._validate import as_scores, as_weights
from .errors import DataError

__all__ = ["IdCodes", "Scores", "Trials", "factorize", "trial_codes", "trial_keys"]


# --------------------------------------------------------------------------------------------
# Ids as integer codes


#: With more values than this, :meth:`IdCodes.encode` hashes with pandas (if installed).
_PANDAS_ENCODE = 1 << 16


class IdCodes:
    """Per-trial strings (ids, conditions) as integer codes into a vocabulary.

    ``vocab[codes]`` gives the strings back.  The vocabulary holds distinct strings; it may
    hold strings that no trial uses (after a selection), and its order is not significant.

    Parameters
    ----------
    codes : array of int, shape (n,)
        Each trial's index into ``vocab``.
    vocab : array or sequence of str, shape (k,)
        The distinct strings.

    Attributes
    ----------
    codes : ndarray of int32 or int64, shape (n,)
    vocab : ndarray of object (str), shape (k,)

    Examples
    --------
    >>> ids = IdCodes.encode(["spk2", "spk1", "spk2"])
    >>> ids.codes.tolist(), ids.vocab.tolist()
    ([0, 1, 0], ['spk2', 'spk1'])
    >>> ids.strings().tolist()
    ['spk2', 'spk1', 'spk2']
    """

    __slots__ = ("_codes", "_make", "_n", "vocab")

    def __init__(self, codes, vocab):
        c = np.asarray(codes)
        if c.ndim != 1 or (c.size and c.dtype.kind not in "iu"):
            raise DataError(f"id codes must be a 1-D integer array, got {c.dtype} of shape "
                            f"{c.shape}")
        v = _object_strings(vocab, "the id vocabulary")
        if c.size and (int(c.min()) < 0 or int(c.max()) >= v.size):
            raise DataError(f"id codes must lie in [0, {v.size}) to index a vocabulary of "
                            f"{v.size} ids")
        if len(set(v.tolist())) != v.size:
            raise DataError("the id vocabulary must hold distinct strings")
        self._set(_small_codes(c, v.size), v, None, c.size)

    def _set(self, codes, vocab, make, n):
        object.__setattr__(self, "_codes", codes)
        object.__setattr__(self, "vocab", vocab)
        object.__setattr__(self, "_make", make)
        object.__setattr__(self, "_n", n)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    @property
    def codes(self):
        """Each trial's index into ``vocab`` (int32 unless the vocabulary is huge)."""
        if self._codes is None:
            codes = self._make()
            object.__setattr__(self, "_codes", codes)
            object.__setattr__(self, "_make", None)
        return self._codes

    @classmethod
    def trusted(cls, codes, vocab):
        """Wrap codes and a vocabulary known to be valid (no checks; for the loaders)."""
        out = cls.__new__(cls)
        out._set(codes, vocab, None, codes.size)
        return out

    @classmethod
    def deferred(cls, n, vocab, make):
        """Codes computed by ``make()`` when first needed (e.g. the row index of every cell
        of a full matrix); ``n`` is their number.  No checks (for the loaders)."""
        out = cls.__new__(cls)
        out._set(None, vocab, make, int(n))
        return out

    @classmethod
    def encode(cls, strings):
        """The codes of an array of strings, the vocabulary in order of first appearance."""
        a = np.asarray(strings)
        if a.ndim != 1:
            a = a.reshape(-1)
        if a.dtype.kind not in "UO":
            a = a.astype(str)
        codes, uniques = _encode(a)
        if a.dtype == object and not (all(isinstance(u, str) for u in uniques)
                                      and (codes.size == 0 or int(codes.min()) >= 0)):
            codes, uniques = _encode(a.astype(str))  # None, numbers...: as their text
        vocab = np.empty(len(uniques), dtype=object)
        vocab[:] = uniques
        return cls.trusted(_small_codes(codes, vocab.size), vocab)

    def __len__(self):
        return self._n

    def __reduce__(self):
        return (IdCodes.trusted, (self.codes, self.vocab))

    def __repr__(self):
        return f"IdCodes(n={self._n}, distinct={self.vocab.size})"

    def strings(self):
        """The per-trial strings, ``vocab[codes]`` (an object array)."""
        return self.vocab[self.codes]

    def take(self, index):
        """The codes of the selected trials (the same vocabulary)."""
        return IdCodes.trusted(self.codes[index], self.vocab)

    def compact(self):
        """``(codes, vocab)`` with only the strings in use, in order of first appearance.

        Examples
        --------
        >>> c, v = IdCodes([2, 2, 0], ["a", "b", "c"]).compact()
        >>> c.tolist(), v.tolist()
        ([0, 0, 1], ['c', 'a'])
        """
        k = self.vocab.size
        first = np.full(k, self.codes.size, dtype=np.int64)
        np.minimum.at(first, self.codes, np.arange(self.codes.size, dtype=np.int64))
        used = np.flatnonzero(first < self.codes.size)
        order = used[np.argsort(first[used], kind="stable")]
        remap = np.zeros(k, dtype=np.int64)
        remap[order] = np.arange(order.size)
        return _small_codes(remap[self.codes], order.size), self.vocab[order]


def _encode(a):
    """``(codes, uniques)`` of a 1-D str or object array, uniques in order of appearance."""
    if a.size >= _PANDAS_ENCODE:
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas comes with bokeh
            pd = None
        if pd is not None:
            codes, uniques = pd.factorize(a.astype(object, copy=False), sort=False,
                                          use_na_sentinel=True)
            return codes, [str(u) if isinstance(u, np.str_) else u
                           for u in np.asarray(uniques, dtype=object).tolist()]
    d = {}
    codes = np.fromiter((d.setdefault(x, len(d)) for x in a.tolist()), dtype=np.int64,
                        count=a.size)
    return codes, [str(x) if isinstance(x, np.str_) else x for x in d]


def _small_codes(codes, k):
    """Codes as int32 when the vocabulary allows (halves the memory of 10^7 trials)."""
    dt = np.int32 if k < 2**31 else np.int64
    return np.ascontiguousarray(codes, dtype=dt)


def _object_strings(x, name):
    a = np.asarray(x)
    if a.ndim != 1:
        raise DataError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype == object:
        if not all(isinstance(s, str) for s in a.tolist()):
            raise DataError(f"{name} must hold strings")
        return a
    out = np.empty(a.size, dtype=object)
    out[:] = a.astype(str).tolist()
    return out


# Materialized string arrays remember the codes they came from, so that a Trials built from
# another's ``model_ids`` (e.g. ``Trials(t.scores, t.labels, ..., t.model_ids, ...)``) reuses
# its codes instead of encoding the strings again.  The arrays are read-only, so their content
# cannot drift from the codes.
_CODES_OF = {}


def _remember(strings, codes):
    key = id(strings)
    _CODES_OF[key] = (weakref.ref(strings, lambda _r, key=key: _CODES_OF.pop(key, None)), codes)


def _known_codes(x):
    entry = _CODES_OF.get(id(x))
    if entry is not None and entry[0]() is x:
        return entry[1]
    return None


class _IdColumn:
    """One id or condition column: strings, codes, or both (each built from the other)."""

    __slots__ = ("_codes", "_strings")

    def __init__(self, strings=None, codes=None):
        self._strings, self._codes = strings, codes

    @classmethod
    def make(cls, x, n, name):
        if x is None:
            return None
        if isinstance(x, _IdColumn):
            if len(x) != n:
                raise DataError(f"{name} has {len(x)} entries for {n} trials")
            return x
        if isinstance(x, IdCodes):
            if len(x) != n:
                raise DataError(f"{name} has {len(x)} entries for {n} trials")
            return cls(codes=x)
        if isinstance(x, np.ndarray):
            known = _known_codes(x)
            if known is not None and len(known) == n:
                return cls(strings=x, codes=known)
        a = np.asarray(x)
        if a.dtype.kind not in "UO":
            a = a.astype(str)
        if a.shape != (n,):
            raise DataError(f"{name} has {a.size} entries for {n} trials")
        return cls(strings=a)

    def __len__(self):
        return (self._codes if self._strings is None else self._strings).__len__()

    @property
    def strings(self):
        if self._strings is None:
            s = self._codes.strings()
            s.flags.writeable = False
            _remember(s, self._codes)
            self._strings = s
        return self._strings

    @property
    def codes(self):
        if self._codes is None:
            self._codes = IdCodes.encode(self._strings)
        return self._codes

    def take(self, index):
        if self._codes is not None:
            return _IdColumn(codes=self._codes.take(index))
        return _IdColumn(strings=self._strings[index])


def trial_keys(model_ids, segment_ids):
    """One string per trial, ``model + '\\x1f' + segment``, used to join files on trial id.

    The unit separator (U+001F) cannot occur in whitespace-separated ids, so distinct
    (model, segment) pairs give distinct keys.  :func:`trial_codes` does the same job on
    integers, much faster.
    """
    return np.char.add(np.char.add(np.asarray(model_ids, dtype=str), "\x1f"),
                       np.asarray(segment_ids, dtype=str))


def _unify(columns):
    """Codes of several IdCodes in one numbering (the first one's, extended); its size."""
    base = columns[0]
    out = [base.codes.astype(np.int64)]
    vocab = base.vocab
    for col in columns[1:]:
        remap, vocab = extend_vocab(vocab, col.vocab)
        out.append(remap[col.codes])
    return out, max(vocab.size, 1)


#: Vocabularies up to this size are merged with a dictionary (no pandas import).
_SMALL_VOCAB = 4096


def extend_vocab(base, other):
    """``other``'s ids in ``base``'s numbering, ids new to ``base`` appended in their order.

    Parameters
    ----------
    base, other : ndarray of object (str), distinct strings each

    Returns
    -------
    remap : ndarray of int64, shape (other.size,)
        The code of ``other[i]`` in the merged numbering.
    merged : ndarray of object
        ``base`` followed by the ids of ``other`` that it lacks (``base`` itself when there
        are none, or when ``other`` is ``base``).

    Hash-based (``pandas.Index.get_indexer``) for large vocabularies: no Python operation
    per id.

    Examples
    --------
    >>> remap, merged = extend_vocab(np.array(["a", "b"], dtype=object),
    ...                              np.array(["c", "a"], dtype=object))
    >>> remap.tolist(), merged.tolist()
    ([2, 0], ['a', 'b', 'c'])
    """
    if other is base or (other.size == base.size and np.array_equal(other, base)):
        return np.arange(base.size, dtype=np.int64), base
    if other.size > base.size > _SMALL_VOCAB and np.array_equal(other[:base.size], base):
        # ``other`` is ``base`` extended (a key numbered after its score file's ids, see
        # llrlab.core.io._fast); its ids being distinct, the rest are new to ``base``
        return np.arange(other.size, dtype=np.int64), other
    if base.size + other.size <= _SMALL_VOCAB:
        d = {s: i for i, s in enumerate(base.tolist())}
        remap = np.fromiter((d.setdefault(s, len(d)) for s in other.tolist()),
                            dtype=np.int64, count=other.size)
        new = other[remap >= base.size]
    else:
        import pandas as pd

        remap = vocab_index(base).get_indexer(
            pd.Index(other, dtype=object, copy=False)).astype(np.int64, copy=False)
        missing = np.flatnonzero(remap < 0)
        remap[missing] = base.size + np.arange(missing.size)
        new = other[missing]
    return remap, (np.concatenate([base, new]) if new.size else base)


_INDEXES = contextvars.ContextVar("llrlab_vocab_indexes", default=None)


@contextlib.contextmanager
def shared_vocab_indexes():
    """Within the block, :func:`vocab_index` builds the hash table of a vocabulary once (a key
    read after its score file looks its ids up in the score file's vocabulary, and the join
    looks up the same vocabulary again); they are dropped when the block ends."""
    token = _INDEXES.set({})
    try:
        yield
    finally:
        _INDEXES.reset(token)


def vocab_index(vocab):
    """A ``pandas.Index`` over ``vocab`` (an object array of distinct str): the same one
    within a :func:`shared_vocab_indexes` block, a new one otherwise.

    Examples
    --------
    >>> v = np.array(["a", "b"], dtype=object)
    >>> vocab_index(v).get_indexer(["b", "c"]).tolist()
    [1, -1]
    >>> with shared_vocab_indexes():
    ...     vocab_index(v) is vocab_index(v)
    True
    """
    import pandas as pd

    kept = _INDEXES.get()
    if kept is not None:
        entry = kept.get(id(vocab))
        if entry is not None and entry[0] is vocab:
            return entry[1]
    index = pd.Index(vocab, dtype=object, copy=False)
    if kept is not None:
        kept[id(vocab)] = (vocab, index)
    return index


def trial_codes(*sets):
    """One int64 per trial of each set, equal exactly when the (model, segment) ids are equal.

    The integer counterpart of :func:`trial_keys` for joining several score sets: the model
    and segment vocabularies are merged once (a dictionary lookup per distinct id, not per
    trial) and each trial gets ``model * n_segments + segment``.

    Parameters
    ----------
    *sets : Trials or Scores
        Each with (model, segment) ids.

    Returns
    -------
    list of ndarray of int64
        One array per set, of its length.

    Examples
    --------
    >>> a = Trials([1.0, 2.0], [True, False], model_ids=["m1", "m2"], segment_ids=["s", "s"])
    >>> b = Scores([0.5, 0.1], model_ids=["m2", "m1"], segment_ids=["s", "s"])
    >>> ca, cb = trial_codes(a, b)
    >>> (ca[0] == cb[1], ca[1] == cb[0], ca[0] == cb[0])
    (np.True_, np.True_, np.False_)
    """
    for s in sets:
        if not s.has_ids:
            raise DataError(f"{s.source or 'a score set'} has no (model, segment) ids")
    models, _ = _unify([s.model_codes for s in sets])
    segs, n_seg = _unify([s.segment_codes for s in sets])
    return [m * n_seg + g for m, g in zip(models, segs, strict=True)]


#: With more distinct values than this, :func:`factorize` sorts instead of comparing.
_FACTORIZE_SCAN = 32


def _packed(values):
    """The labels as one uint64 each, when that is exact: strings of at most 8 characters,
    each below U+0100 (``U`` dtype), or of at most 8 bytes (``S`` dtype); else None.

    Equal labels give equal numbers and different labels different numbers (numpy compares
    strings without their trailing NULs, and the padding is NUL), so the labels can be
    compared as integers, about 10 times faster than as strings."""
    kind, n = values.dtype.kind, values.size
    if kind == "U" and 0 < values.dtype.itemsize <= 32:
        width = values.dtype.itemsize // 4
        chars = np.ascontiguousarray(values.reshape(-1)).view(np.uint32).reshape(n, width)
        packed = np.zeros(n, dtype=np.dtype({"names": ["a"], "formats": [f"V{width}"],
                                             "itemsize": 8}))
        field = packed["a"]

        def piece(sl):
            # each label's characters as bytes (exact: every one is below 256), copied into
            # 8-byte records as one ``V<width>`` field: one copy of a few bytes per label,
            # about three times faster than a strided 2-D assignment (pieces in llrlab's
            # chunk threads)
            ch = chars[sl]
            if int(ch.max()) > 0xFF:
                return False
            field[sl] = ch.astype(np.uint8).view(f"V{width}").reshape(-1)
            return True

        return packed.view(np.uint64) if all(map_chunks(piece, n)) else None
    if kind == "S" and 0 < values.dtype.itemsize <= 8:
        return np.ascontiguousarray(values.reshape(-1), dtype="S8").view(np.uint64)
    return None


#: From this many labels on, :func:`factorize` hashes (pandas) instead of comparing.
_FACTORIZE_HASH = 1 << 16
_HASH_PIECE = 1 << 14


def _row_words(flat):
    """The labels' bytes as rows of unsigned words (a view, no copy), or None."""
    if flat.dtype.kind not in "US" or flat.dtype.itemsize == 0:
        return None
    size = flat.dtype.itemsize
    for word in (np.uint64, np.uint32, np.uint16, np.uint8):
        if size % np.dtype(word).itemsize == 0:
            return np.ascontiguousarray(flat).view(word).reshape(flat.size, -1)
    return None  # pragma: no cover - every size is a multiple of a byte


def _ranked(flat, codes, n_codes):
    """``(names, codes)`` sorted as :func:`factorize` gives them, from codes in order of
    first appearance (``0 .. n_codes - 1``)."""
    rep = _first_positions(codes, n_codes)
    names = flat[rep]
    order = np.argsort(names, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return names[order], rank[codes], rep


def _first_positions(codes, n_codes):
    """The index of the first occurrence of each code ``0 .. n_codes - 1`` (every code
    occurs): prefixes of growing length are searched until every code is found, so the cost
    is that of the prefix up to the last first appearance, not of the whole array."""
    rep = np.full(n_codes, -1, dtype=np.intp)
    missing, a, step = n_codes, 0, 1 << 14
    while missing:
        part = codes[a:a + step]
        u, i = np.unique(part, return_index=True)
        new = rep[u] < 0
        rep[u[new]] = a + i[new]
        missing -= int(np.count_nonzero(new))
        a += step
        step *= 2
    return rep


def _hash_factorize(flat, keys):
    """``(names, codes)`` of :func:`factorize` with a pandas hash table: of the packed
    labels ``keys`` when given (exact), else of a 64-bit digest of each label's bytes
    (strings of any length) followed by a check that every label equals the first label
    of its digest (a collision returns None, and the caller compares instead)."""
    import pandas as pd

    if keys is not None:
        codes, uniques = pd.factorize(keys, sort=False)
        names = _unpacked(np.asarray(uniques, dtype=np.uint64), flat.dtype)
        order = np.argsort(names, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return names[order], rank[codes]
    rows = _row_words(flat)
    if rows is None:
        return None
    n, width = rows.shape
    mult = (np.arange(1, width + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) | \
        np.uint64(1)
    # the digest: sum_j mult_j * word_j (mod 2**64), one matrix-vector product per piece of
    # rows (odd multipliers: labels that differ in one word always differ); a collision is
    # caught by the check below
    # (pieces in llrlab's chunk threads: numpy releases the GIL in both passes)
    digest = np.empty(n, dtype=np.uint64)

    def digest_piece(sl):
        with np.errstate(over="ignore"):
            np.matmul(rows[sl].astype(np.uint64, copy=False), mult, out=digest[sl])

    map_chunks(digest_piece, n, chunk=_HASH_PIECE)
    codes, uniques = pd.factorize(digest, sort=False)
    names, ranked, rep = _ranked(flat, codes, uniques.size)
    reps = rows[rep]  # each code's first label: the check gathers from a small table
    if not all(map_chunks(lambda sl: np.array_equal(rows[sl], reps[codes[sl]]), n,
                          chunk=_HASH_PIECE)):
        return None
    return names, ranked


#: :func:`_candidate_factorize` tries the distinct values of this many first labels and of
#: as many taken at even steps over all of them (see :func:`_candidate_sample`).
_CANDIDATE_PREFIX = 1 << 14
#: At most this many candidates.
_CANDIDATES = 64
#: Labels per sub-piece of :func:`_candidate_factorize`'s comparison (a few hundred KiB of
#: labels and their candidates at 40 characters).
_CANDIDATE_STEP = 1 << 12


def _candidate_sample(flat):
    """The labels whose distinct values are :func:`_candidate_factorize`'s candidates: the
    first ``_CANDIDATE_PREFIX`` and as many at even steps over the whole array, so that
    trials grouped by condition (a list sorted by condition) find every condition that
    spans more than one step (``n / _CANDIDATE_PREFIX`` trials)."""
    k = _CANDIDATE_PREFIX
    if k <= 0:
        return flat[:0]
    return np.concatenate([flat[:k], flat[::max(1, -(-flat.size // k))]])


def _candidate_factorize(flat, rows):
    """``(names, codes)`` of :func:`factorize` in one pass over the labels when every label
    is one of the distinct labels of :func:`_candidate_sample` (a few conditions over many
    trials, in any order); None when that fails (a label not in the sample, more than
    ``_CANDIDATES`` of them, or no one or two byte positions at which they all differ).

    The candidates ``names`` are sorted (so a label's index among them is its code); a byte
    position at which they all differ gives each label its candidate through a table of 256
    entries (or, when no one byte does, e.g. ``cond00`` ... ``cond11``, and the labels are
    longer than 8 characters, a pair of byte positions through a table of 65536), and each
    label is then compared with its candidate in full, piece by piece while the piece is in
    cache (pieces in llrlab's chunk threads): the codes are exact, and the labels' bytes are
    read once."""
    names = np.unique(_candidate_sample(flat))
    if not 0 < names.size <= _CANDIDATES:
        return None
    cand = _row_words(np.asarray(names, dtype=flat.dtype))
    cand_bytes = cand.view(np.uint8)
    # (labels of at most 8 characters go faster to the hash table of their packed form
    # than through a pair of bytes: one byte or the hash table)
    short = flat.dtype.itemsize <= (32 if flat.dtype.kind == "U" else 8)
    key = _telling_bytes(cand_bytes, pairs=not short)
    if key is None:
        return None
    table = np.zeros(256 ** len(key), dtype=np.intp)
    table[_byte_key(cand_bytes, key)] = np.arange(names.size)
    label_bytes = rows.view(np.uint8)
    codes = np.empty(flat.size, dtype=np.intp)
    width = rows.shape[1]

    def piece(sl):
        # the candidates' rows gathered into one buffer per piece, compared in sub-pieces
        # that stay in the core's cache: no new array per sub-piece (about 1.3-2x faster
        # than a gather and a comparison into fresh arrays)
        step = min(_CANDIDATE_STEP, sl.stop - sl.start)
        got = np.empty((step, width), dtype=rows.dtype)
        same = np.empty((step, width), dtype=bool)
        pair = np.empty(step, dtype=np.intp) if len(key) == 2 else None
        for a in range(sl.start, sl.stop, step):
            b = min(a + step, sl.stop)
            c, g, e = codes[a:b], got[:b - a], same[:b - a]
            if pair is None:
                np.take(table, label_bytes[a:b, key[0]], out=c)
            else:
                k = pair[:b - a]
                np.copyto(k, label_bytes[a:b, key[0]])
                k <<= 8
                k |= label_bytes[a:b, key[1]]
                np.take(table, k, out=c)
            np.take(cand, c, axis=0, out=g)
            np.equal(rows[a:b], g, out=e)
            if not e.all():
                return False
        return True

    if not all(map_chunks(piece, flat.size, chunk=_HASH_PIECE)):
        return None
    return names, codes


def _telling_bytes(cand_bytes, *, pairs=True):
    """``(j,)``: the last byte position at which the candidates (rows of bytes) all differ
    (labels often differ at their end), else (with ``pairs``) ``(j1, j2)``: the last pair
    of positions whose bytes together tell them all apart, else None."""
    n = cand_bytes.shape[0]
    seen = [np.unique(cand_bytes[:, j]).size for j in range(cand_bytes.shape[1])]
    varying = [j for j, k in enumerate(seen) if k > 1]
    for j in reversed(varying):
        if seen[j] == n:
            return (j,)
    for j2 in reversed(varying if pairs else []):
        for j1 in reversed([j for j in varying if j < j2]):
            if np.unique(_byte_key(cand_bytes, (j1, j2))).size == n:
                return (j1, j2)
    return None


def _byte_key(rows_bytes, key):
    """Each row's table index of the byte positions ``key`` (one or two)."""
    k = rows_bytes[:, key[0]].astype(np.intp)
    return k if len(key) == 1 else (k << 8) | rows_bytes[:, key[1]]


def _unpacked(keys, dtype):
    """The labels of :func:`_packed` keys, as an array of ``dtype``."""
    if dtype.kind == "S":
        return keys.view("S8").astype(dtype)
    width = dtype.itemsize // 4
    chars = keys.view(np.uint8).reshape(keys.size, 8)[:, :width].astype(np.uint32)
    return np.ascontiguousarray(chars).view(dtype).reshape(keys.size)


def factorize(values):
    """``(names, codes)`` of an array of labels: ``numpy.unique(values, return_inverse=True)``.

    Conditions take few distinct values over many trials.  Many labels: when the first
    ones hold every distinct label, one pass compares each label with its candidate
    (:func:`_candidate_factorize`); else a hash table (pandas) of the packed short labels
    or of a digest of long ones (:func:`_hash_factorize`).  Fewer: one vectorized
    comparison per distinct value (``O(C n)``, far cheaper than sorting ``n`` strings;
    short labels compared as integers, see :func:`_packed`); with more than a few dozen
    values ``numpy.unique``.

    Examples
    --------
    >>> names, codes = factorize(np.array(["tel", "mic", "tel", "far"]))
    >>> names.tolist(), codes.tolist()
    (['far', 'mic', 'tel'], [2, 1, 2, 0])
    """
    values = np.asarray(values)
    flat = values.reshape(-1)
    if flat.size >= _FACTORIZE_HASH:
        rows = _row_words(flat)  # a few labels over many trials: one pass, compared in full
        done = None if rows is None else _candidate_factorize(flat, rows)
        if done is not None:
            return done
    keys = _packed(flat)
    if flat.size >= _FACTORIZE_HASH:
        done = _hash_factorize(flat, keys)
        if done is not None:
            return done
    compared = flat if keys is None else keys
    codes = np.full(flat.size, -1, dtype=np.intp)
    found = []
    j = 0 if flat.size else -1  # the first trial without a code (-1: none)
    while len(found) <= _FACTORIZE_SCAN:
        if j < 0:
            names = flat[np.array(found, dtype=np.intp)] if found else flat[:0]
            order = np.argsort(names, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            return names[order], rank[codes] if codes.size else codes
        np.putmask(codes, compared == compared[j], len(found))
        found.append(j)
        open_ = codes < 0
        j = int(open_.argmax())
        if not open_[j]:
            j = -1
    names, codes = np.unique(values, return_inverse=True)
    return names, codes.ravel()


def _gather(a, mask):
    """``a[mask]`` of a boolean ``mask`` (one class's trials), by ``numpy.compress``: the
    same array, 3-4x faster than boolean indexing when the mask is random (10^7 trials, 50 %
    targets: 19 ms vs 55 ms for float64; as fast at 10 %)."""
    return np.compress(mask, a)


def _sorted_index(col):
    """``(names, codes)`` of a coded column: the distinct strings in use, sorted, and each
    trial's index into them (as :func:`factorize` gives them)."""
    ids = col.codes
    k = ids.vocab.size
    codes = ids.codes
    counts = np.zeros(k, dtype=np.intp)
    for c in map_chunks(lambda sl: np.bincount(codes[sl], minlength=k), codes.size):
        counts += c  # pieces in llrlab's chunk threads: integer counts
    used = np.flatnonzero(counts)
    names = ids.vocab[used]
    order = np.argsort(names, kind="stable")
    rank = np.zeros(k, dtype=np.intp)
    rank[used[order]] = np.arange(used.size)
    out = np.empty(codes.size, dtype=np.intp)

    def piece(sl):
        out[sl] = rank[codes[sl]]

    map_chunks(piece, codes.size)
    return names[order], out


# --------------------------------------------------------------------------------------------
# Scores and Trials


def _cut(text, width=60):
    text = str(text)
    return text if len(text) <= width else f"{text[:width - 3]}... ({len(text):,} characters)"


class _Frozen:
    """Attributes set once in ``__init__``; ``_cache`` holds derived values."""

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _ids_init(self, n, conditions, model_ids, segment_ids):
        cols = {"model": _IdColumn.make(model_ids, n, "model ids"),
                "segment": _IdColumn.make(segment_ids, n, "segment ids"),
                "condition": _IdColumn.make(conditions, n, "conditions")}
        if (cols["model"] is None) != (cols["segment"] is None):
            raise DataError("model ids and segment ids must be given together")
        object.__setattr__(self, "_cols", cols)
        object.__setattr__(self, "_cache", {})

    def _col(self, name):
        return self._cols[name]

    def _pass(self, name, index=None):
        """A column for a new object: shared as is, or the selected trials."""
        col = self._cols[name]
        if col is None or index is None:
            return col
        return col.take(index)

    @property
    def model_ids(self):
        """The model id of each trial (ndarray of str, read-only when built from codes), or
        None."""
        c = self._cols["model"]
        return None if c is None else c.strings

    @property
    def segment_ids(self):
        """The segment (test) id of each trial, or None."""
        c = self._cols["segment"]
        return None if c is None else c.strings

    @property
    def conditions(self):
        """The condition label of each trial, or None."""
        c = self._cols["condition"]
        return None if c is None else c.strings

    @property
    def model_codes(self):
        """The model ids as :class:`IdCodes` (integer codes + vocabulary), or None."""
        c = self._cols["model"]
        return None if c is None else c.codes

    @property
    def segment_codes(self):
        """The segment ids as :class:`IdCodes`, or None."""
        c = self._cols["segment"]
        return None if c is None else c.codes

    @property
    def condition_codes(self):
        """The conditions as :class:`IdCodes`, or None."""
        c = self._cols["condition"]
        return None if c is None else c.codes

    @property
    def has_ids(self):
        """True when the trials carry (model, segment) ids."""
        return self._cols["model"] is not None

    @property
    def has_conditions(self):
        """True when the trials carry a condition each."""
        return self._cols["condition"] is not None

    def trial_name(self, i):
        """``"model segment"`` of trial ``i`` for messages (each id cut to 60 characters),
        or ``"trial i"`` without ids."""
        if not self.has_ids:
            return f"trial {i}"
        m, s = self.model_codes, self.segment_codes
        return f"{_cut(m.vocab[m.codes[i]])} {_cut(s.vocab[s.codes[i]])}"


class Scores(_Frozen):
    """Unlabelled scores, optionally named by (model, segment) ids.

    Parameters
    ----------
    scores : array of float, shape (n,)
    model_ids, segment_ids : array of str, or IdCodes, shape (n,), optional
    conditions : array of str, or IdCodes, shape (n,), optional
    source : str
        Where the scores came from (a file name), for messages.

    Attributes
    ----------
    scores : ndarray of float64, shape (n,)
    model_ids, segment_ids, conditions : ndarray of str, shape (n,), or None
        Built on demand from the codes (``model_codes`` ...) when the scores were loaded.
    source : str
    """

    def __init__(self, scores, model_ids=None, segment_ids=None, conditions=None, source=""):
        object.__setattr__(self, "source", source)
        s = as_scores(scores, f"scores of {source or 'the score set'}")
        object.__setattr__(self, "scores", s)
        self._ids_init(s.size, conditions, model_ids, segment_ids)

    def __len__(self):
        return self.scores.size

    def __repr__(self):
        extras = [w for w, c in (("ids", "model"), ("conditions", "condition"))
                  if self._cols[c] is not None]
        return (f"Scores(n={self.scores.size}{''.join(', ' + e for e in extras)}, "
                f"source={self.source!r})")

    def keys(self):
        """Trial keys (see :func:`trial_keys`); raises if the scores carry no ids."""
        if not self.has_ids:
            raise DataError(f"{self.source or 'the score set'} has no (model, segment) ids")
        return trial_keys(self.model_ids, self.segment_ids)

    def with_scores(self, scores):
        """The same trials with new scores (e.g. calibrated LLRs)."""
        return Scores(scores, self._pass("model"), self._pass("segment"),
                      self._pass("condition"), self.source)

    def subset(self, index):
        """The trials selected by a boolean mask or an integer index array."""
        return Scores(self.scores[index], self._pass("model", index),
                      self._pass("segment", index), self._pass("condition", index),
                      self.source)


class Trials(_Frozen):
    """Labelled trials: a score, a target/non-target label and optional extras per trial.

    Parameters
    ----------
    scores : array of float, shape (n,)
    labels : array of bool (or 0/1), shape (n,)
    weights : array of float, shape (n,), optional
    conditions : array of str, or IdCodes, shape (n,), optional
    model_ids, segment_ids : array of str, or IdCodes, shape (n,), optional
    source : str, optional

    Attributes
    ----------
    scores : ndarray of float64, shape (n,)
        One score (larger favours target) per trial; finite.
    labels : ndarray of bool, shape (n,)
        True for a target trial, False for a non-target trial.
    weights : ndarray of float64, shape (n,), or None
        Non-negative per-trial weights; None means every trial counts once.
    conditions : ndarray of str, shape (n,), or None
        A condition label per trial (for condition-weighted pooling).
    model_ids, segment_ids : ndarray of str, shape (n,), or None
        The two sides of each trial, as in BOSARIS score and key files.  Loaded trials hold
        them as integer codes (``model_codes``, ``segment_codes``: :class:`IdCodes`); the
        string arrays are built on first access.
    source : str
        Where the trials came from, for messages.

    Examples
    --------
    >>> t = Trials.from_tar_non([2.0, 3.0], [-1.0, 0.5, 0.0])
    >>> t.n_tar, t.n_non
    (2, 3)
    >>> t.non
    array([-1. ,  0.5,  0. ])
    """

    def __init__(self, scores, labels, weights=None, conditions=None, model_ids=None,
                 segment_ids=None, source=""):
        object.__setattr__(self, "source", source)
        where = source or "the trials"
        s = as_scores(scores, f"scores of {where}", allow_empty=True)
        n = s.size
        lab = np.asarray(labels)
        if lab.dtype != bool:
            if lab.dtype.kind in "iuf" and np.isin(lab, (0, 1)).all():
                lab = lab.astype(bool)
            else:
                raise DataError(f"labels of {where} must be booleans (True = target)")
        if lab.shape != (n,):
            raise DataError(f"{where}: {lab.size} labels for {n} scores")
        object.__setattr__(self, "scores", s)
        object.__setattr__(self, "labels", lab)
        object.__setattr__(self, "weights", as_weights(weights, n, f"weights of {where}"))
        self._ids_init(n, conditions, model_ids, segment_ids)

    @classmethod
    def _checked(cls, scores, labels, *, conditions=None, model_ids=None, segment_ids=None,
                 source=""):
        """Trials from arrays a loader has checked already: float64 finite ``scores``, bool
        ``labels`` of the same length, no weights (no second pass over 10^7 scores)."""
        self = cls.__new__(cls)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "weights", None)
        self._ids_init(scores.size, conditions, model_ids, segment_ids)
        return self

    def __repr__(self):
        extras = [w for w, c in (("ids", "model"), ("conditions", "condition"))
                  if self._cols[c] is not None]
        if self.weights is not None:
            extras.append("weights")
        return (f"Trials(n_tar={self.n_tar}, n_non={self.n_non}"
                f"{''.join(', ' + e for e in extras)}, source={self.source!r})")

    @classmethod
    def from_tar_non(cls, tar, non, *, source=""):
        """Trials from separate target and non-target score arrays."""
        tar = as_scores(tar, "target scores", allow_empty=True)
        non = as_scores(non, "non-target scores", allow_empty=True)
        labels = np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)])
        return cls(np.concatenate([tar, non]), labels, source=source)

    def __len__(self):
        return self.scores.size

    def _class_masks(self):
        """``(labels, ~labels)``: the masks of the target and the non-target trials (the
        second not cached: 10 MB per 10^7 trials held for 2-3 ms of a negation)."""
        return self.labels, ~self.labels

    def _regather(self, mask):
        """A fresh gather of one class's scores, as a callable: the ``original`` order the
        in-place cosorts (``_sorting.cosort_codes``) re-sort their near ties from."""
        return lambda: _gather(self.scores, mask)

    @property
    def tar(self):
        """Target scores, in file order (cached)."""
        if "tar" not in self._cache:
            self._cache["tar"] = _gather(self.scores, self.labels)
        return self._cache["tar"]

    @property
    def non(self):
        """Non-target scores, in file order (cached)."""
        if "non" not in self._cache:
            self._cache["non"] = _gather(self.scores, ~self.labels)
        return self._cache["non"]

    def sorted(self):
        """Target and non-target scores sorted once, with cumulative weights (cached).

        The :class:`~llrlab.core._sorting.SortedScores` every order-based measure starts
        from; measures given this Trials object share it instead of sorting again.
        """
        if "sorted" not in self._cache:
            from ._sorting import presorted, sort_scores

            t = self.require_both_classes()
            if self.weights is None and "condition_sorted" in self._cache:
                tar, _, non, _ = self._cache["condition_sorted"]
                self._cache["sorted"] = presorted(tar, non)
            elif self.weights is None and "tar" not in self._cache and "non" not in self._cache:
                # each class gathered afresh and sorted in place (no copy of the gathers)
                tar_mask, non_mask = self._class_masks()
                self._cache["sorted"] = sort_scores(_gather(self.scores, tar_mask),
                                                    _gather(self.scores, non_mask),
                                                    overwrite=True)
            else:
                strata = self._strata()
                done = self._sorted_counts(strata) if self.weights is not None else None
                self._cache["sorted"] = done or sort_scores(
                    t.tar, t.non, tar_weights=t.tar_weights, non_weights=t.non_weights,
                    tar_strata=strata[0], non_strata=strata[1])
        return self._cache["sorted"]

    def _strata(self):
        """The condition codes of the target and of the non-target trials when the trials
        are weighted and have conditions (weighted error rates have a variance per
        condition, their strata), else ``(None, None)``."""
        if self.weights is not None and self.has_conditions:
            codes = self.condition_index()[1]
            tar_mask, non_mask = self._class_masks()
            return _gather(codes, tar_mask), _gather(codes, non_mask)
        return None, None

    def _sort_with_cllr(self):
        """Sort trials with integer weights (counts) and take the parts of their Cllr from
        the same gathers of each class, before they are sorted in place (no second gather
        of the scores and weights in file order): caches :meth:`sorted` and the mean target
        and non-target log-losses (nats, prior log-odds 0) that
        :func:`~llrlab.core.analysis.analyze` reads, bitwise those of the class arrays in
        file order.  Returns False (nothing cached) when it does not apply: no weights,
        other weights, a sort there already, or scores that the integer-weight sort
        declines."""
        if self.weights is None or "sorted" in self._cache:
            return False
        self.require_both_classes()
        parts = []
        done = self._sorted_counts(self._strata(), cllr_parts=parts)
        if done is None:
            return False
        self._with_sorted(done, tuple(parts))
        return True

    def _sorted_counts(self, strata, cllr_parts=None):
        """:meth:`sorted` of trials whose weights are small integers (counts, see
        ``_sorting.small_codes``): the weights turned into 1-byte codes once for all the
        trials, and each class's scores and codes gathered and sorted together, in place, by
        ``_sorting.cosort_codes`` -- no float64 gather of the weights and no copy of the
        scores' gathers, the same sorted scores and weights as
        :func:`~llrlab.core._sorting.sort_scores`, bit for bit.  None when it does not apply
        (other weights, or many scores a few units in the last place apart), for the general
        sort.  A few such near ties are re-sorted from a fresh gather of their class.
        With a list ``cllr_parts``, the mean log-loss of Cllr of each class (targets first;
        nats, prior log-odds 0) is appended to it, computed on the class's gather in file
        order before it is sorted."""
        from ._sorting import _cosort_weight_codes, presorted, small_codes
        from .cllr import softplus_sum

        codes = small_codes(self.weights)
        if codes is None:
            return None
        parts = []
        tar_mask, non_mask = self._class_masks()
        for mask, ss, sign in ((tar_mask, strata[0], -1.0), (non_mask, strata[1], 1.0)):
            # a fresh gather, sorted in place (regathered by the general sort after None)
            x, c = _gather(self.scores, mask), _gather(codes, mask)
            if cllr_parts is not None:
                # integer weights: their sum is exact in any order, as float64 weights'
                cllr_parts.append(softplus_sum(x, sign=sign, weights=c)
                                  / float(c.sum(dtype=np.int64)))
            done = _cosort_weight_codes(x, c, ss, overwrite=True,
                                        original=self._regather(mask))
            if done is None:
                return None
            parts.append(done)
        (tar, tar_w, tar_s), (non, non_w, non_s) = parts
        return presorted(tar, non, tar_w, non_w, tar_s, non_s, integer_weights=True)

    def condition_sorted(self):
        """Each class's scores sorted, with the condition of each (cached).

        ``(tar, tar_codes, non, non_codes)``: ``tar`` ascending, and ``tar_codes[i]`` the index
        into ``condition_index()[0]`` of the condition of the trial scored ``tar[i]`` (equal
        scores ordered by code); the same for ``non``.  None for trials without conditions.
        The codes are uint8 for at most 256 conditions, else intp.

        Condition pooling re-weights the same scores by a constant per condition and class
        (van Leeuwen 2008, sec. 3.4, eq. 12), so this one sort of (score, condition) pairs
        serves every pool: the unweighted pool (its :meth:`sorted` is taken from here when
        this was computed first), each condition alone (a mask keeps the order) and each
        weighting (weights looked up by code, then summed): none sorts again.
        """
        if self._cols["condition"] is None:
            return None
        if "condition_sorted" not in self._cache:
            from ._sorting import CODE_BITS, _code_bits, cosort_codes

            names, codes = self.condition_index()
            bits = _code_bits(np.array([len(names) - 1]))
            if bits <= CODE_BITS:  # small codes: smaller gathers
                codes = codes.astype(np.uint8)
            parts = []
            for mask in self._class_masks():
                c = _gather(codes, mask)
                if bits <= CODE_BITS:
                    done = cosort_codes(_gather(self.scores, mask), c, bits, overwrite=True,
                                        original=self._regather(mask))
                    if done is not None:
                        parts += list(done)
                        continue
                x = _gather(self.scores, mask)
                pairs = np.empty(x.size, dtype=np.complex128)
                pairs.real = x
                pairs.imag = c  # exact: codes < 2**53
                pairs.sort()
                parts += [np.ascontiguousarray(pairs.real),
                          pairs.imag.astype(c.dtype)]
                del pairs
            self._cache["condition_sorted"] = tuple(parts)
        return self._cache["condition_sorted"]

    def _with_sorted(self, sorted_scores, cllr_parts=None):
        """These trials, with their :meth:`sorted` given (by a caller that derived it from
        another sort of the same scores) and optionally the mean target and non-target
        log-losses of their Cllr (nats, prior log-odds 0); returns ``self``."""
        self._cache["sorted"] = sorted_scores
        if cllr_parts is not None:
            self._cache["cllr_parts"] = cllr_parts
        return self

    def condition_index(self):
        """``(names, codes)``: the distinct conditions, sorted, and each trial's index into
        them (cached; None when the trials have no conditions).  ``names[codes]`` equals
        ``conditions``, as ``numpy.unique(conditions, return_inverse=True)`` gives."""
        col = self._cols["condition"]
        if col is None:
            return None
        if "conditions" not in self._cache:
            self._cache["conditions"] = (_sorted_index(col) if col._codes is not None
                                         else factorize(col.strings))
        return self._cache["conditions"]

    @property
    def tar_weights(self):
        return None if self.weights is None else _gather(self.weights, self.labels)

    @property
    def non_weights(self):
        return None if self.weights is None else _gather(self.weights, ~self.labels)

    @property
    def n_tar(self):
        return int(np.count_nonzero(self.labels))

    @property
    def n_non(self):
        return int(self.labels.size - np.count_nonzero(self.labels))

    def require_both_classes(self):
        """Raise :class:`DataError` unless there is at least one target and one non-target."""
        where = self.source or "the trials"
        if self.n_tar == 0:
            raise DataError(f"{where} has no target trials; every measure needs both classes")
        if self.n_non == 0:
            raise DataError(f"{where} has no non-target trials; every measure needs both classes")
        return self

    def keys(self):
        """Trial keys (see :func:`trial_keys`); raises if the trials carry no ids."""
        if not self.has_ids:
            raise DataError(f"{self.source or 'the trials'} have no (model, segment) ids")
        return trial_keys(self.model_ids, self.segment_ids)

    def unlabelled(self):
        """The scores and ids without labels, as a :class:`Scores`."""
        return Scores(self.scores, self._pass("model"), self._pass("segment"),
                      self._pass("condition"), self.source)

    def with_scores(self, scores, *, source=None):
        """The same trials with new scores (e.g. calibrated LLRs)."""
        return Trials(scores, self.labels, self.weights, self._pass("condition"),
                      self._pass("model"), self._pass("segment"),
                      self.source if source is None else source)

    def with_weights(self, weights):
        """The same trials with new per-trial weights (None removes them)."""
        return Trials(self.scores, self.labels, weights, self._pass("condition"),
                      self._pass("model"), self._pass("segment"), self.source)

    def _with_checked_weights(self, weights):
        """:meth:`with_weights` for float64 weights the caller computed and knows to be
        finite and non-negative, with a positive sum in each class (no pass over the
        scores, labels or weights to check them again)."""
        out = Trials.__new__(Trials)
        for name in ("source", "scores", "labels"):
            object.__setattr__(out, name, getattr(self, name))
        object.__setattr__(out, "weights", weights)
        object.__setattr__(out, "_cols", dict(self._cols))
        object.__setattr__(out, "_cache", {})
        return out

    def with_conditions(self, conditions):
        """The same trials with new conditions (array of str or IdCodes; None removes them)."""
        return Trials(self.scores, self.labels, self.weights, conditions,
                      self._pass("model"), self._pass("segment"), self.source)

    def with_source(self, source):
        """The same trials under another name (for messages); shares every array."""
        return Trials(self.scores, self.labels, self.weights, self._pass("condition"),
                      self._pass("model"), self._pass("segment"), source)

    def subset(self, index, *, source=None):
        """The trials selected by a boolean mask or an integer index array."""
        return Trials(self.scores[index], self.labels[index],
                      None if self.weights is None else self.weights[index],
                      self._pass("condition", index), self._pass("model", index),
                      self._pass("segment", index), self.source if source is None else source)
