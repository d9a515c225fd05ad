"""A score file to be calibrated: read it, remember its layout, write new scores the same way.

``llrlab calibrate --apply SCORES --out FILE`` writes the calibrated scores in the format of
its input.  :func:`read_score_file` detects that format from the file's content and returns it
as a :class:`ScoreFormat` along with the data; :func:`write_score_file` writes new scores (for
example calibrated LLRs, via ``data.with_scores(llr)``) in that format; :func:`check_extension`
tells, before any work is done, whether the output name suits the format.

Formats (``ScoreFormat.kind``):

=============  ==============================================================================
kind           content
=============  ==============================================================================
``hdf5``       BOSARIS/SIDEKIT HDF5 score file (see :mod:`llrlab.core.io.hdf5`)
``bosaris``    text ``model segment score`` (see :mod:`llrlab.core.io.bosaris_text`)
``bare``       text, one score per line, no ids
``labelled``   one labelled text file (see :mod:`llrlab.core.io.labelled`): ``score label``,
               ``model segment score label``, or named columns under a header line
=============  ==============================================================================

Detection (by the registry of :mod:`llrlab.core.io._formats`, from the head of the file read
once): a file with the HDF5 signature is ``hdf5``.  Otherwise the first non-blank line
decides: a labelled header line, or 2 or 4 fields, mean ``labelled``; 3 fields ``bosaris``;
1 field ``bare``.  The delimiter is found as the readers find it (a ``.csv`` name or an
evidently comma-separated first line mean commas); a whitespace-separated file whose first
line contains a tab is written back with tabs, otherwise with single spaces.

Writing keeps the delimiter, the header words as spelled, the column order, the ids, the
conditions and the weights; scores and weights are written with the shortest decimal that
reads back to the same float64 (``repr``), labels as ``target``/``nontarget``.  The output is
therefore byte-identical to the input, apart from the new scores, when the input used these
spellings and single delimiters (no quotes, no padding, no blank lines, ``\\n`` line ends).

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> src = os.path.join(d, "eval.csv")
>>> with open(src, "w") as f:
...     _ = f.write("LLR,Class\\n1.5,tgt\\n-0.25,imp\\n")
>>> trials, fmt = read_score_file(src)
>>> fmt.describe()
'labelled CSV file with a header'
>>> out = os.path.join(d, "calibrated.csv")
>>> check_extension(out, fmt)
>>> write_score_file(out, trials.with_scores(2 * trials.scores + 1), fmt)
>>> with open(out) as f:
...     print(f.read(), end="")
LLR,Class
4.0,target
0.5,nontarget
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..errors import DataError
from ..trials import Scores, Trials
from ._formats import ANY_COUNT, format_for, format_named, head_of, labelled_header
from ._source import make_limits, path_name
from .bosaris_text import (
    as_source,
    deduplicate,
    format_rows,
    write_chunks,
    write_ids_text,
)
from .labelled import HEADERLESS_ROLES, ROLES, labelled_chunks

__all__ = [
    "HDF5_EXTENSIONS",
    "ScoreFormat",
    "check_extension",
    "read_score_file",
    "write_score_file",
]

#: File name extensions that mean HDF5 (compared case-insensitively).
HDF5_EXTENSIONS = (".h5", ".hdf5", ".hdf", ".he5")

KINDS = ("hdf5", "bosaris", "bare", "labelled")
DELIMITERS = (" ", "\t", ",")
_DELIMITER_WORDS = {" ": "space-separated", "\t": "tab-separated", ",": "comma-separated"}


@dataclass(frozen=True)
class ScoreFormat:
    """How a score file is laid out, so that new scores can be written the same way.

    Attributes
    ----------
    kind : {"hdf5", "bosaris", "bare", "labelled"}
        BOSARIS/SIDEKIT HDF5 score file; text ``model segment score``; text with one score per
        line; one labelled text file.
    delimiter : {" ", "\\t", ","} or None
        The field separator of a ``bosaris`` or ``labelled`` file; None for ``hdf5`` and
        ``bare`` (one field per line).
    header : bool
        ``labelled`` only: the file starts with a header line naming the columns.
    columns : tuple of str or None
        ``labelled`` only: the column roles in file order, among ``model``, ``segment``,
        ``score``, ``label``, ``condition``, ``weight``.  Without a header it is
        ``("score", "label")`` or ``("model", "segment", "score", "label")``.
    names : tuple of str or None
        ``labelled`` with a header: the header words as the file spells them, one per column
        (default: the roles); None without a header.

    Examples
    --------
    >>> ScoreFormat("bosaris", "\\t").describe()
    'tab-separated BOSARIS text score file'
    >>> fmt = ScoreFormat("labelled", ",", header=True, columns=("score", "label"))
    >>> fmt.names, fmt.describe()
    (('score', 'label'), 'labelled CSV file with a header')
    """

    kind: str
    delimiter: str | None = None
    header: bool = False
    columns: tuple | None = None
    names: tuple | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise DataError(f"unknown score file kind {self.kind!r}; known: {', '.join(KINDS)}")
        if self.kind in ("bosaris", "labelled"):
            if self.delimiter not in DELIMITERS:
                raise DataError(f"a {self.kind} score file needs a delimiter among "
                                f"{DELIMITERS!r}, got {self.delimiter!r}")
        elif self.delimiter is not None:
            raise DataError(f"a {self.kind} score file has no delimiter, got {self.delimiter!r}")
        if self.kind == "labelled":
            self._check_columns()
        elif self.header or self.columns is not None or self.names is not None:
            raise DataError(f"only a labelled file has a header and named columns, not a "
                            f"{self.kind} score file")

    def _check_columns(self):
        cols = tuple(self.columns or ())
        unknown = [c for c in cols if c not in ROLES]
        if unknown:
            raise DataError(f"unknown column role {unknown[0]!r}; known: {', '.join(ROLES)}")
        if len(set(cols)) != len(cols) or "score" not in cols or "label" not in cols \
                or ("model" in cols) != ("segment" in cols):
            raise DataError(f"labelled columns {cols!r} must be distinct and include score, "
                            f"label, and model and segment together or neither")
        object.__setattr__(self, "columns", cols)
        header = bool(self.header)
        object.__setattr__(self, "header", header)
        if not header:
            if self.names is not None:
                raise DataError("header names are given but header is False")
            if cols not in HEADERLESS_ROLES.values():
                raise DataError(f"columns {' '.join(cols)} need a header line; without one a "
                                f"labelled file holds score label or model segment score label")
            return
        names = cols if self.names is None else tuple(str(n) for n in self.names)
        if len(names) != len(cols):
            raise DataError(f"{len(names)} header names for {len(cols)} columns")
        bad = [n for n in names if not n or re.search(r'[\x00-\x20\x7f,"]', n)]
        if bad:
            raise DataError(f"the header name {bad[0]!r} cannot be written as one field")
        object.__setattr__(self, "names", names)

    @property
    def is_text(self):
        """True for the text kinds (everything but ``hdf5``)."""
        return self.kind != "hdf5"

    def describe(self):
        """A short phrase naming the format, for messages (see the class examples)."""
        if self.kind == "hdf5":
            return "BOSARIS HDF5 score file"
        if self.kind == "bare":
            return "text file with one score per line"
        sep = _DELIMITER_WORDS[self.delimiter]
        if self.kind == "bosaris":
            return f"{sep} BOSARIS text score file"
        what = "CSV" if self.delimiter == "," else f"{sep} text"
        return f"labelled {what} file {'with' if self.header else 'without'} a header"


def _scores_from_table(name, table):
    """Scores of a score Table, a repeated trial kept once (shared with ``load_scores``)."""
    keep, _ = deduplicate(table, ("scores",), "scores")
    if keep is not None:
        table = table.subset(keep)
    return Scores(table.values["scores"], table.model_idcodes(), table.segment_idcodes(),
                  source=name)


def _score_format(head, fmt):
    """The ScoreFormat of a file read as ``fmt`` (a registry Format), from its head."""
    if fmt.name == "hdf5":
        return ScoreFormat("hdf5")
    fr = head.first_row(ANY_COUNT)
    roles = labelled_header(fr)
    delim = fr.delimiter
    if delim is None:
        delim = "\t" if "\t" in fr.text.strip() else " "
    if roles is not None:
        names = tuple(t.decode("utf-8") for t in fr.tokens)
        columns = tuple(sorted(roles, key=roles.get))
        return ScoreFormat("labelled", delim, header=True, columns=columns, names=names)
    if fmt.name == "labelled":
        return ScoreFormat("labelled", delim, columns=HEADERLESS_ROLES[fr.ncols])
    if fmt.name == "bosaris-scores":
        return ScoreFormat("bosaris", delim)
    return ScoreFormat("bare")


def read_score_file(path, *, progress=None, max_trials=None, max_bytes=None, limits=None):
    """Read a score file of any supported format and tell which format it is.

    Parameters
    ----------
    path : str or path-like
        A BOSARIS/SIDEKIT HDF5 score file, a BOSARIS text score file ``model segment score``,
        a text file with one score per line, or one labelled text file (see
        :func:`~llrlab.core.io.load_trials`); the format is detected from the content.
        ``-`` reads standard input; gzip-compressed text is read transparently.
    progress : callable, optional
        ``progress(fraction, message)``.
    max_trials, max_bytes : int, optional
    limits : Limits, optional
        Limits of the load (see :func:`~llrlab.core.io.load_trials_with_report`).

    Returns
    -------
    data : Scores or Trials
        Scores for ``hdf5``, ``bosaris`` and ``bare`` (as
        :func:`~llrlab.core.io.load_scores` returns them); Trials for ``labelled``, which may
        hold one class only.  In file order (model-major for HDF5); a trial repeated with the
        same values is kept once (with a LlrlabWarning).
    fmt : ScoreFormat
        The layout, for :func:`write_score_file`.

    Raises
    ------
    FileFormatError
        Unreadable, empty or malformed file (with the file name, and the line and its text
        where one line is at fault).
    DataError
        Data that the file's format allows but no trial set can hold.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "scores.txt")
    >>> with open(p, "w") as f:
    ...     _ = f.write("m1\\ts1\\t1.5\\nm1\\ts2\\t-0.5\\n")
    >>> scores, fmt = read_score_file(p)
    >>> fmt
    ScoreFormat(kind='bosaris', delimiter='\\t', header=False, columns=None, names=None)
    >>> scores.segment_ids.tolist(), scores.scores
    (['s1', 's2'], array([ 1.5, -0.5]))
    """
    limits = make_limits(max_trials, max_bytes, limits)
    src = as_source(path, limits)
    head = head_of(src)
    fmt = format_for(head, "score-file")
    data = fmt.read(src, "score-file", progress, limits)
    layout = _score_format(head, fmt)
    if layout.kind == "labelled":
        return data[0], layout
    if isinstance(data, Scores):
        return data, layout
    return _scores_from_table(src.name, data), layout


def check_extension(path, fmt):
    """Raise DataError if the name ``path`` contradicts the format ``fmt`` of the output.

    An HDF5 format needs an HDF5 name (``.h5``, ``.hdf5``, ``.hdf``, ``.he5``); a text format
    needs any other name, and a comma-separated one no ``.tsv`` name, a space- or
    tab-separated one no ``.csv`` name (the readers take those extensions at their word).
    Cheap: call it before any work.

    Examples
    --------
    >>> check_extension("calibrated.h5", ScoreFormat("hdf5"))
    >>> try:
    ...     check_extension("calibrated.txt", ScoreFormat("hdf5"))
    ... except DataError as exc:
    ...     print(exc)
    calibrated.txt: the scores are written as a BOSARIS HDF5 score file (the format of the
    input); give the output a .h5 name
    """
    name = path_name(path)
    if not isinstance(fmt, ScoreFormat):
        raise DataError(f"a ScoreFormat is needed, got {type(fmt).__name__}")
    ext = os.path.splitext(name)[1].lower()
    if fmt.kind == "hdf5":
        want = None if ext in HDF5_EXTENSIONS else ".h5"
    elif ext in HDF5_EXTENSIONS:
        want = ".csv" if fmt.delimiter == "," else ".txt"
    elif ext == ".csv" and fmt.delimiter in (" ", "\t"):
        want = ".txt"
    elif ext == ".tsv" and fmt.delimiter == ",":
        want = ".csv"
    else:
        want = None
    if want is not None:
        raise DataError(f"{name}: the scores are written as a {fmt.describe()} (the format of "
                        f"the input); give the output a {want} name")


def _check_data(data, fmt):
    """Raise DataError unless ``data`` can be written in ``fmt`` without losing anything."""
    if not isinstance(fmt, ScoreFormat):
        raise DataError(f"a ScoreFormat is needed, got {type(fmt).__name__}")
    if not isinstance(data, (Scores, Trials)):
        raise DataError(f"scores to write must be Scores or Trials, got {type(data).__name__}")
    where = data.source or "the scores"
    if fmt.kind in ("hdf5", "bosaris") and not data.has_ids:
        raise DataError(f"{where} have no (model, segment) ids, which a {fmt.describe()} "
                        f"needs; write them as a text file of bare scores instead")
    if fmt.kind != "labelled":
        return
    if not isinstance(data, Trials):
        raise DataError(f"{where} have no labels, which a {fmt.describe()} needs (only "
                        f"labelled Trials can be written in it)")
    have = {"model": data.has_ids, "condition": data.has_conditions,
            "weight": data.weights is not None}
    what = {"model": "(model, segment) ids", "condition": "conditions", "weight": "weights"}
    for role, present in have.items():
        if present != (role in fmt.columns):
            why = "the format has no column for them" if present else "they are missing"
            raise DataError(f"{where} cannot be written as a {fmt.describe()} with columns "
                            f"{' '.join(fmt.columns)}: {why} ({what[role]})")


def write_score_file(path, data, fmt):
    """Write scores in the format ``fmt`` of the file they were read from.

    Parameters
    ----------
    path : str or path-like
        The output file (see :func:`check_extension` to vet the name first).
    data : Scores or Trials
        Typically what :func:`read_score_file` returned, with new scores
        (``data.with_scores(...)``).  ``hdf5`` and ``bosaris`` need (model, segment) ids;
        ``labelled`` needs Trials with exactly the optional columns of ``fmt`` (ids,
        conditions, weights).  The score formats hold the scores and ids only (labels,
        weights and conditions of Trials are not written).
    fmt : ScoreFormat

    Raises
    ------
    DataError
        The data cannot be written in that format (the message says why), or an id,
        condition or header word cannot be written as one field.
    FileFormatError
        The file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "calibrated.txt")
    >>> write_score_file(p, Scores([0.1, -3.0], ["m1", "m2"], ["s1", "s1"]),
    ...                  ScoreFormat("bosaris", ","))
    >>> with open(p) as f:
    ...     print(f.read(), end="")
    m1,s1,0.1
    m2,s1,-3.0
    """
    name = path_name(path)
    _check_data(data, fmt)
    format_named(_FORMAT_OF_KIND[fmt.kind]).write(name, data, fmt)


#: The registry Format that writes each ScoreFormat kind.
_FORMAT_OF_KIND = {"hdf5": "hdf5", "bosaris": "bosaris-scores", "bare": "bare-scores",
                   "labelled": "labelled"}


def write_text_score_file(name, data, fmt):
    """Write checked data in a text ScoreFormat (the registry's text writer)."""
    if fmt.kind == "bare":
        write_chunks(name, format_rows([data.scores], " "))
    elif fmt.kind == "bosaris":
        write_ids_text(name, data, data.scores, sep=fmt.delimiter)
    else:
        write_chunks(name, labelled_chunks(data, fmt.columns, sep=fmt.delimiter,
                                           names=fmt.names if fmt.header else None))
