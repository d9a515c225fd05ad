"""The registry of input formats: one place that tells what a file is and who reads it.

Private helper of :mod:`llrlab.core.io`.  Every load goes the same way:

1. :func:`~llrlab.core.io._source.open_source` opens the input once (a name, ``-``, gzip or
   not) and reads its first bytes (HDF5 signature, gzip magic);
2. its :class:`Head` -- created once per source and kept on it (``src.sniffed``) -- reads the
   start of the content once and answers every question about it from that: the first
   non-blank line split for a given set of field counts (:meth:`Head.first_row`, memoized),
   the layout of an HDF5 file (:meth:`Head.hdf5_kind`, memoized);
3. :func:`read_as` asks the registry which :class:`Format` reads the source for what the
   caller needs (its *role*: ``"scores"`` for a score file joined with a key, ``"key"``,
   ``"ndx"``, ``"labelled"``, ``"conditions"``, ``"unlabelled"`` for scores to calibrate,
   ``"score-file"`` for any file holding scores) and calls that format's reader with the
   already-opened, already-sniffed source;
4. when the reader refuses the file, :mod:`llrlab.core.io._hints` says what the file was
   recognised as (:func:`detect`, from the same head: nothing is read again) and what to do.

A :class:`Format` is one small entry: a name, the roles it serves, ``sniff(head)`` (does the
file look like this format: strict, from the head only), ``claims(head)`` (is this format
the one to report the file's errors when nothing sniffs: lenient, by field count; default:
``sniff``), ``read(src, role, progress, limits)``, an optional ``write``, and ``describe``:
the phrase of a "detected as ..." message.  For a role, the first format in
:data:`REGISTRY` that serves it and sniffs the file reads it; failing that, the first that
claims it (its reader then reports the first bad line).

Design note: the next formats are one entry each, e.g.

* bob.measure 2-column ``label score``: ``sniff`` a label word then a number (the llrlab
  labelled 2-column file is ``score label``: the two sniffs never both match), serves
  ``labelled``, reads through :func:`~llrlab.core.io._columns.read_columns` with the columns
  swapped; bob.bio 4- and 5-column files likewise (``claimed_id [model] real_id test
  score``, a target where the claimed and real ids agree);
* pyeer's one-score-per-line genuine and impostor files: the ``bare-scores`` sniff, a role
  for each of the two files, labels from the role;
* NIST SRE TSV with a header: ``sniff`` the header words (``modelid segmentid side ...``),
  placed before the labelled header entry;
* labelled CSV with mapped columns: ``sniff`` the header with the caller's column map;
* Parquet in memory: ``sniff`` the raw magic ``PAR1`` (``head.magic``, the stored bytes),
  placed before the text entries.

A refused file's message can then say what was recognised (``describe`` of :func:`detect`)
and what to do (the role's own hint), without reading the file again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import FileFormatError, LlrlabError
from ._columns import first_row_in
from ._source import iter_blocks
from ._text import choose_delimiter, label_value

__all__ = ["REGISTRY", "Format", "Head", "detect", "format_for", "format_named", "head_of",
           "read_as"]

#: Field counts under which a text head is looked at when its format is not yet known.
ANY_COUNT = (2, 3, 4, 5, 6)


class Head:
    """The start of one source, read once: every sniff is answered from it.

    Attributes
    ----------
    src : Source
    magic : bytes
        The first 8 stored bytes (before decompression), for binary signatures.
    """

    def __init__(self, src):
        self.src = src
        self._blocks = []  # the content's first blocks, as read (usually one)
        self._done = False  # every block has been read
        self._rows = {}
        self._hdf5 = None
        self._magic = None

    @property
    def magic(self):
        if self._magic is None:
            with self.src.raw() as f:
                self._magic = f.read(8)
        return self._magic

    def blocks(self):
        """The content's blocks of whole lines ``(bytes, first line)``, those already read
        replayed from memory (the head of a file is read from it once)."""
        yield from self._blocks
        if self._done:
            return
        with self.src.open() as f:
            for i, item in enumerate(iter_blocks(f)):
                if i < len(self._blocks):
                    continue  # read before (a block past the head is seldom needed)
                self._blocks.append(item)
                yield item
        self._done = True

    def first_row(self, field_counts):
        """The first non-blank line, split with the delimiter chosen for ``field_counts``
        (a FirstRow; memoized: errors are raised again as they were)."""
        key = tuple(field_counts)
        if key not in self._rows:
            blocks = self.blocks()
            try:
                self._rows[key] = first_row_in(self.src.name, blocks, choose_delimiter, key)
            except LlrlabError as exc:
                self._rows[key] = exc
            finally:
                blocks.close()  # closes the file; no block past the first non-blank is read
        got = self._rows[key]
        if isinstance(got, LlrlabError):
            raise got
        return got

    def peek(self, field_counts=ANY_COUNT):
        """:meth:`first_row`, or None for HDF5 and unreadable text."""
        if self.src.is_hdf5:
            return None
        try:
            return self.first_row(field_counts)
        except LlrlabError:
            return None

    def hdf5_kind(self):
        """The layout of an HDF5 source (``"scores"``, ``"key"``, ``"key-old"``, ``"mask"``),
        or None when it is not HDF5 or cannot be read (memoized)."""
        if self._hdf5 is None:
            self._hdf5 = _hdf5_layout(self.src) if self.src.is_hdf5 else ""
        return self._hdf5 or None


def _hdf5_layout(src):
    from . import hdf5

    try:
        with hdf5._open(src) as f:
            tree = hdf5._Tree(f, src.name)
            return hdf5._layout(set(tree.datasets), src.name)[0]
    except (LlrlabError, OSError, KeyError, RuntimeError, TypeError, ValueError):
        return ""


def head_of(src):
    """The :class:`Head` of a source (made once, kept on it)."""
    head = getattr(src, "sniffed", None)
    if head is None:
        head = src.sniffed = Head(src)
    return head


# --------------------------------------------------------------------------------------------
# What a first line looks like


def is_number(tok):
    """True for a field ``float()`` reads, without digit-group underscores."""
    try:
        float(tok)
    except ValueError:
        return False
    return b"_" not in tok if isinstance(tok, bytes) else "_" not in tok


def is_label(tok):
    return label_value(tok) is not None and not is_number(tok)


def _row(head):
    return head.peek(ANY_COUNT)


def _shape_is(*shapes):
    def sniff(head):
        fr = _row(head)
        return fr is not None and _headerless_shape(fr) in shapes
    return sniff


def _headerless_shape(fr):
    """'score', 'key', 'labelled' or None: what a headerless first line looks like."""
    t = fr.tokens
    if len(t) == 3 and is_number(t[2]) and not is_number(t[0]):
        return "score"
    if len(t) == 3 and is_label(t[2]):
        return "key"
    if len(t) == 4 and is_number(t[2]) and label_value(t[3]) is not None:
        return "labelled"
    if len(t) == 2 and is_number(t[0]) and label_value(t[1]) is not None:
        return "labelled"
    return None


def labelled_header(fr):
    """The column roles of a labelled header line, or None (not a valid one)."""
    from .labelled import header_roles

    try:
        return header_roles(fr)
    except LlrlabError:
        return None


def _header_like(fr):
    """True when the line is taken for a labelled header (valid or not: the labelled reader
    then reports what is wrong with it)."""
    from .labelled import header_roles

    try:
        return header_roles(fr) is not None
    except LlrlabError:
        return True


def _has_labelled_header(head):
    fr = _row(head)
    return fr is not None and labelled_header(fr) is not None


#: Lines of the head looked at to tell a bob.measure ``label score`` file from llrlab's
#: ``score label`` (both columns of ``1 0`` could be either).
_ORDER_LINES = 2000


def _two_column_order(head):
    """``"label score"`` when, on the first lines of a 2-column headerless file, the first
    column holds only label values and the second does not (a bob.measure file); else
    ``"score label"`` or None (not such a file)."""
    fr = _row(head)
    if fr is None or fr.ncols != 2 or not _label_or_number(fr.tokens[0]) \
            or not _label_or_number(fr.tokens[1]) or _header_like(fr):
        return None
    blocks = head.blocks()
    try:
        block = next(blocks, (b"", 1))[0]
    finally:
        blocks.close()  # closes the file
    lines = block[:1 << 16].split(b"\n", _ORDER_LINES)[:_ORDER_LINES]
    if len(lines) > 1 and len(block) > 1 << 16:
        lines = lines[:-1]  # cut inside a line
    if fr.delimiter == ",":
        from ._text import CSV_TABLE

        lines = [ln.translate(CSV_TABLE) for ln in lines]
    rows = [t for t in (ln.split() for ln in lines[fr.line - 1:]) if len(t) == 2]
    first = all(label_value(t[0]) is not None for t in rows)
    second = all(label_value(t[1]) is not None for t in rows)
    return "label score" if first and not second and is_number(fr.tokens[1]) else \
        "score label"


def _label_or_number(tok):
    return label_value(tok) is not None or is_number(tok)


def _is_bob_measure(head):
    return _two_column_order(head) == "label score"


def _is_bob_bio(head):
    """4 fields ``claimed real test score`` or 5 ``claimed model real test score``: a
    number last, and not llrlab's ``model segment score label`` (a number then a label)."""
    fr = _row(head)
    if fr is None or fr.ncols not in (4, 5) or _header_like(fr):
        return False
    t = fr.tokens
    # the test label is a file name or path in bob.bio (never a number); the ids may be
    # subject numbers
    if not is_number(t[-1]) or is_number(t[-2]) or any(
            is_number(x) and not _is_int(x) for x in t[:-2]):
        return False
    return not (fr.ncols == 4 and _headerless_shape(fr) == "labelled")


def _is_int(tok):
    """Ids may be integers (subject numbers); a score is taken for a float."""
    return tok.lstrip(b"+-" if isinstance(tok, bytes) else "+-").isdigit()


def _ncols(head):
    fr = _row(head)
    return None if fr is None else fr.ncols


def _is_text(head):
    return not head.src.is_hdf5


# --------------------------------------------------------------------------------------------
# Readers (each gets the opened, sniffed source)


def _read_hdf5(src, role, progress, limits):
    from .hdf5 import read_hdf5_table

    want = {"key": "key", "ndx": "ndx"}.get(role, "scores")
    return read_hdf5_table(src, want, progress=progress, limits=limits)


def _read_scores_text(src, role, progress, limits):
    from .bosaris_text import read_score_text

    return read_score_text(src, allow_bare=role in ("unlabelled", "score-file"),
                           progress=progress, limits=limits)


def _read_key_text(src, role, progress, limits, like=None):
    from .bosaris_text import read_key_text, read_ndx_text

    if role == "ndx":
        return read_ndx_text(src, limits=limits)
    return read_key_text(src, progress=progress, limits=limits, like=like)


def _read_labelled(src, role, progress, limits):
    from .labelled import read_labelled

    return read_labelled(src, progress=progress, require_both=role != "score-file",
                         limits=limits)


def _read_conditions(src, role, progress, limits):
    from .conditions import read_condition_table

    return read_condition_table(src, limits=limits)


def _read_bob_measure(src, role, progress, limits):
    from .peers import read_bob_measure

    return read_bob_measure(src, progress=progress, require_both=role != "score-file",
                            limits=limits)


def _read_bob_bio(src, role, progress, limits):
    from .peers import read_bob_bio

    return read_bob_bio(src, progress=progress, require_both=role != "score-file",
                        limits=limits)


def _read_parquet(src, role, progress, limits):
    from .parquet import read_parquet_trials

    return read_parquet_trials(src, progress=progress, require_both=role != "score-file",
                               limits=limits)


def _sre_roles(head):
    from .sre import sre_columns

    fr = _row(head)
    return None if fr is None else sre_columns(fr)


def _sre_description(head):
    roles = _sre_roles(head) or {}
    what = ("LLR and targettype" if "score" in roles and "label" in roles else
            "LLR" if "score" in roles else "targettype")
    kind = "trial key" if what == "targettype" else "score file"
    return f"a NIST SRE {kind} with a header (modelid segmentid [side] {what})"


def _read_sre(src, role, progress, limits):
    from .sre import read_sre

    if role == "score-file":  # a labelled SRE file, or a score file (without its key)
        from .sre import sre_columns

        role = "labelled" if "label" in sre_columns(head_of(src).first_row(ANY_COUNT)) \
            else "scores"
    return read_sre(src, role, progress=progress, limits=limits, require_both=False)


def _refuse_score_file(src, role, progress, limits):
    fr = head_of(src).first_row(ANY_COUNT)
    raise fr.error(0, f"expected 1 field (score), 3 (model segment score), 2 (score label) or "
                      f"4 (model segment score label) per line, found {fr.ncols}; with other "
                      f"columns, start the file with a header line naming them")


@dataclass(frozen=True)
class Format:
    """One input format of the registry (see the module docstring).

    Attributes
    ----------
    name : str
    serves : tuple of str
        The roles it can be read for.
    describe : str
        What a file of this format is, for "detected as ..." messages.
    sniff : callable
        ``sniff(head) -> bool``: the file looks like this format (strict).
    read : callable
        ``read(src, role, progress, limits)``: the data, or FileFormatError at the first
        problem.
    claims : callable, optional
        ``claims(head, role) -> bool``: read the file with this format's reader (which
        then reports its first problem) when no format sniffs it; lenient, e.g. by field
        count (default: ``sniff``).
    write : callable, optional
        ``write(path, data, fmt)``: the writer of the format, where it has one.
    takes_like : bool
        ``read`` also takes ``like=``, a Table read already (the score file of a key) whose
        ids it may number the file's ids after (a hint for speed; the result is the same).
    """

    name: str
    serves: tuple
    describe: object
    sniff: object
    read: object
    claims: object = None
    write: object = field(default=None, compare=False)
    takes_like: bool = False

    def claims_file(self, head, role):
        return self.claims(head, role) if self.claims is not None else self.sniff(head)

    def description(self, head):
        """What the file was recognised as (``describe``, or ``describe(head)``)."""
        return self.describe(head) if callable(self.describe) else self.describe


def _hdf5_description(head):
    return {"scores": "a BOSARIS HDF5 score file (/scores + /score_mask)",
            "key": "a BOSARIS HDF5 key (/trial_mask + /file_format)",
            "key-old": "a BOSARIS HDF5 key (/target_mask + /nontarget_mask)",
            "mask": "a BOSARIS HDF5 index (/trial_mask)"}.get(head.hdf5_kind(),
                                                             "an HDF5 file")


def _write_hdf5(path, data, fmt):
    from .hdf5 import write_scores_hdf5

    write_scores_hdf5(path, data)


def _write_text(path, data, fmt):
    from .scorefile import write_text_score_file

    write_text_score_file(path, data, fmt)

#: The formats, in the order in which they are tried.
REGISTRY = (
    # HDF5 by its signature (the layout, read with the file's tree, decides the rest; the
    # reader checks it, so the tree is walked once per load)
    Format("hdf5", ("scores", "key", "ndx", "unlabelled", "score-file"), _hdf5_description,
           lambda head: head.src.is_hdf5, _read_hdf5, write=_write_hdf5),
    # Parquet by its magic bytes (the raw ones: a gzip-compressed Parquet file is not one)
    Format("parquet", ("labelled",), "a Parquet table (score, label[, model, segment, "
           "condition, weight])", lambda head: head.magic[:4] == b"PAR1", _read_parquet),
    # NIST SRE by its header words, before llrlab's labelled header (which would refuse them)
    Format("nist-sre", ("scores", "key", "labelled", "score-file"), _sre_description,
           lambda head: _sre_roles(head) is not None, _read_sre),
    Format("labelled-header", ("labelled", "score-file"),
           "a labelled text file with a header line naming its columns",
           _has_labelled_header, _read_labelled, write=_write_text,
           claims=lambda head, role: _is_text(head) and (fr := _row(head)) is not None
           and _header_like(fr)),
    Format("bosaris-scores", ("scores", "unlabelled", "score-file"),
           "a BOSARIS score file (model segment score)", _shape_is("score"),
           _read_scores_text, write=_write_text,
           claims=lambda head, role: _is_text(head) and (role != "score-file"
                                                         or _ncols(head) == 3)),
    Format("bosaris-key", ("key", "ndx"), "a BOSARIS key file (model segment target|nontarget)",
           _shape_is("key"), _read_key_text, claims=lambda head, role: _is_text(head),
           takes_like=True),
    # the peers' files before llrlab's own labelled file (their sniffs exclude its shapes)
    Format("bob-measure", ("labelled", "score-file"), "a bob.measure 2-column label-score file "
           "(label first: 1/-1 or 1/0)", _is_bob_measure, _read_bob_measure),
    Format("bob-bio", ("labelled", "score-file"),
           lambda head: f"a bob.bio {_ncols(head)}-column score file ("
           + ("claimed_id real_id test_label score" if _ncols(head) == 4 else
              "claimed_id model_label real_id test_label score") + ")",
           _is_bob_bio, _read_bob_bio),
    Format("labelled", ("labelled", "score-file"),
           "a labelled file (score label, or model segment score label)",
           _shape_is("labelled"), _read_labelled, write=_write_text,
           claims=lambda head, role: _is_text(head) and (role != "score-file"
                                                         or _ncols(head) in (2, 4))),
    Format("bare-scores", ("unlabelled", "score-file"), "a text file with one score per line",
           lambda head: (fr := _row(head)) is not None and fr.ncols == 1
           and is_number(fr.tokens[0]), _read_scores_text, write=_write_text,
           claims=lambda head, role: _ncols(head) == 1),
    Format("conditions", ("conditions",), "a condition file (model segment condition)",
           lambda head: (fr := _row(head)) is not None and fr.ncols == 3
           and not is_number(fr.tokens[2]) and label_value(fr.tokens[2]) is None
           and not _header_like(fr), _read_conditions, claims=lambda head, role: True),
    # a score file in none of the formats above: one line saying which it could be
    Format("other", ("score-file",), "", lambda head: False, _refuse_score_file,
           claims=lambda head, role: _is_text(head)),
)


def detect(head):
    """The Format the file looks like (the first whose ``sniff`` accepts it), or None."""
    for fmt in REGISTRY:
        if fmt.describe and fmt.sniff(head):
            return fmt
    return None


def format_for(head, role):
    """The Format that reads ``head``'s file for ``role`` (see the module docstring)."""
    serving = [f for f in REGISTRY if role in f.serves]
    for fmt in serving:
        if fmt.sniff(head):
            return fmt
    for fmt in serving:
        if fmt.claims_file(head, role):
            return fmt
    raise FileFormatError(head.src.name, f"cannot be read as a {role} file")  # pragma: no cover


def format_named(name):
    """The Format of the registry called ``name``."""
    return next(f for f in REGISTRY if f.name == name)


def read_as(src, role, *, progress=None, limits=None, like=None):
    """``(data, format)``: the source read for ``role`` by the format the registry picks
    (``like``: a Table read already whose ids the reader may number the file's ids after,
    see :attr:`Format.takes_like`)."""
    fmt = format_for(head_of(src), role)
    if like is not None and fmt.takes_like:
        return fmt.read(src, role, progress, limits, like=like), fmt
    return fmt.read(src, role, progress, limits), fmt
