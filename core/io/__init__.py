"""Reading and writing score, key, index and condition files.

Formats (all read and written):

* **BOSARIS text**: a score file (``model segment score``) plus a key file
  (``model segment target|nontarget``), joined on the trial id (model, segment);
  an index file (``model segment``).  See :mod:`llrlab.core.io.bosaris_text`.
* **One labelled text file**: ``score label`` or ``model segment score label`` per line, or
  any order of named columns under a header line; whitespace, tab or comma separated.
  See :mod:`llrlab.core.io.labelled`.
* **BOSARIS HDF5** (Brümmer & de Villiers 2011, sec. 4.6) as the MATLAB toolkit writes it, and
  SIDEKIT's variant: score, key (current and old layout) and index files.  See
  :mod:`llrlab.core.io.hdf5` for the layouts and the matrix orientation rule.
* **The peers' files** (:mod:`llrlab.core.io.peers`): bob.measure 2-column ``label score``,
  bob.bio 4- and 5-column score files (NaN scores are failures to acquire, see
  :func:`failures_to_acquire`), read as labelled files; pyeer's genuine and impostor files
  (one score per line) with :func:`load_genuine_impostor`.
* **Condition files** ``model segment condition``, joined into ``Trials.conditions``.
* **A score file to be calibrated**, in any of the formats above that hold scores:
  :func:`read_score_file` returns it with its :class:`ScoreFormat`, and
  :func:`write_score_file` writes new scores in that same format.  See
  :mod:`llrlab.core.io.scorefile`.

The format of a file being read is detected from its content, in one place: the registry of
formats (:mod:`llrlab.core.io._formats`), which reads the start of each file once and picks
the reader for what the caller needs.  HDF5 is told by its signature bytes, gzip by its magic
bytes (text files may be gzip-compressed, with or without a ``.gz`` name), anything else is
text.  ``-`` names standard input wherever one file is read.  The format of
a file being written follows its extension (``.h5``, ``.hdf5``, ``.hdf``: HDF5) unless
``format`` is given.

Large files: text is streamed in blocks (the pandas C parser reads it when it can vouch for
the result, llrlab's line-by-line reader otherwise and for every error message), so a load
takes about the memory of its result; HDF5 matrices are read by blocks of rows.  The loaded
trials keep their ids as integer codes (:class:`~llrlab.core.trials.IdCodes`); the string
arrays are built only when asked for.  ``max_trials`` and ``max_bytes`` bound what a file may
make a loader allocate (default: the memory available), and ``limits`` (a :class:`Limits`)
what it may read from standard input (default 1 GB), what a gzip file may inflate to
(default 4 GB) and how long a load may take; an HDF5 file that would read anything outside
itself is refused (see :mod:`llrlab.core.io.hdf5`).

Every problem with a file raises :class:`~llrlab.core.errors.FileFormatError` (file name,
1-based line number and the offending text where they apply, echoed values shortened) or
:class:`~llrlab.core.errors.DataError`; trials present in only one of two joined files are
reported with a :class:`~llrlab.core.errors.LlrlabWarning` and in a :class:`JoinReport`.

Examples
--------
>>> import os, tempfile
>>> from llrlab.core import Trials
>>> from llrlab.core.io import load_trials, write_trials
>>> t = Trials([2.5, -1.0, 0.125], [True, False, False],
...            model_ids=["m1", "m1", "m2"], segment_ids=["s1", "s2", "s1"])
>>> path = os.path.join(tempfile.mkdtemp(), "trials.txt")
>>> write_trials(path, t)
>>> back = load_trials(path)
>>> back.scores, back.labels
(array([ 2.5  , -1.   ,  0.125]), array([ True, False, False]))
"""

from __future__ import annotations

import os
import warnings

from ..errors import DataError, FileFormatError, LlrlabWarning
from ..trials import Scores, Trials, shared_vocab_indexes
from ._formats import read_as
from ._source import STDIN, Limits, default_limits, make_limits, path_name
from .bosaris_text import (
    JoinReport,
    Key,
    Ndx,
    as_source,
    joined_trials,
    write_key_text,
    write_ndx_text,
    write_score_text,
)
from .conditions import attach_conditions_with_report
from .frame import as_labels, trials_from_frame
from .hdf5 import (
    is_hdf5,
    write_key_hdf5,
    write_ndx_hdf5,
    write_scores_hdf5,
)
from .labelled import write_labelled
from .orientation import oriented, score_orientation
from .peers import failures_to_acquire, load_genuine_impostor
from .scorefile import (
    HDF5_EXTENSIONS,
    ScoreFormat,
    _scores_from_table,
    check_extension,
    read_score_file,
    write_score_file,
)

__all__ = [
    "JoinReport",
    "Key",
    "Limits",
    "Ndx",
    "ScoreFormat",
    "as_labels",
    "attach_conditions",
    "attach_conditions_with_report",
    "check_extension",
    "default_limits",
    "failures_to_acquire",
    "is_hdf5",
    "load_genuine_impostor",
    "load_scores",
    "load_trials",
    "load_trials_with_report",
    "read_key",
    "read_ndx",
    "read_score_file",
    "score_orientation",
    "trials_from_frame",
    "write_key",
    "write_ndx",
    "write_score_file",
    "write_scores",
    "write_trials",
]

_HDF5_EXTENSIONS = HDF5_EXTENSIONS


class _Stage:
    """Map the progress of one step onto ``[lo, hi]`` of the whole task."""

    def __init__(self, progress, lo, hi):
        self.progress, self.lo, self.hi = progress, lo, hi

    def __call__(self, fraction, message=""):
        self.progress(self.lo + (self.hi - self.lo) * fraction, message)


def _stage(progress, lo, hi):
    return None if progress is None else _Stage(progress, lo, hi)


def _read(src, role, progress=None, limits=None, like=None):
    """``src`` read for ``role`` by the format the registry picks (see
    :mod:`llrlab.core.io._formats`)."""
    return read_as(src, role, progress=progress, limits=limits, like=like)[0]


def _guard_memory(name, call):
    """``call()``, with a MemoryError turned into a FileFormatError naming the file."""
    try:
        return call()
    except MemoryError:
        raise FileFormatError(name, "cannot be loaded: not enough memory (load a smaller "
                                    "file, or free memory)") from None


def load_trials_with_report(scores_path, key_path=None, *, progress=None, max_trials=None,
                            max_bytes=None, limits=None):
    """Labelled trials from a score file and a key, and a report of the join.

    Parameters
    ----------
    scores_path : str or path-like
        A score file (BOSARIS text ``model segment score`` or BOSARIS/SIDEKIT HDF5) when
        ``key_path`` is given; otherwise one labelled text file.  ``-`` reads standard input;
        gzip-compressed text (a ``.gz`` file, or any file starting with the gzip magic
        bytes) is read transparently.
    key_path : str or path-like, optional
        A key file (BOSARIS text ``model segment target|nontarget`` or HDF5).
    progress : callable, optional
        Called as ``progress(fraction, message)`` with ``fraction`` rising from 0 to 1 while
        the files are read (the command line prints it, the dashboard shows it).
    max_trials : int, optional
        The most trials a file may hold (text lines; HDF5 trial cells); beyond it the load
        stops with a FileFormatError naming the file.  Default: no fixed cap.
    max_bytes : int, optional
        The most memory the loaded data may take, as the files declare it (HDF5 dataset
        shapes) or as it grows while a text file is read; checked before the memory is
        allocated.  Default: the memory available when the load starts.  A server that
        accepts uploads passes its own caps here.
    limits : Limits, optional
        Every limit of the load (:class:`Limits`: also the bytes read from standard input,
        what a gzip file may inflate to, the wall time); ``max_trials`` and ``max_bytes``,
        when given, replace its own.  Default: the :func:`default_limits` in force, else
        ``Limits()`` (standard input up to 1 GB, gzip files inflating to at most 4 GB).

    Returns
    -------
    trials : Trials
        The trials present in both files, in the order of the score file (model-major for an
        HDF5 score file), with their ids (as integer codes; see
        :class:`~llrlab.core.trials.IdCodes`).
    report : JoinReport
        Counts of the trials only in the score file (left) or only in the key (right), with
        an example of each, and of the repeated lines ignored.  For one labelled file the
        right side is empty and only duplicates can be reported.

    Raises
    ------
    FileFormatError
        An unreadable or malformed file (with file, line and text), no trial that joins, a
        limit exceeded or not enough memory.  Common mistakes get a message saying what to
        do: the two files swapped, a header line in a BOSARIS file, a key forgotten, a key
        given with a labelled file.
    DataError
        No target or no non-target trial in the result.

    Warns
    -----
    LlrlabWarning
        When trials are in only one of the two files (both counts and an example of each), or
        a trial is repeated with an identical value.
    """
    name = path_name(scores_path)
    limits = make_limits(max_trials, max_bytes, limits)
    if key_path is None:
        src = as_source(name, limits)
        if src.is_hdf5:
            raise DataError(f"{src.name} is an HDF5 file; give its key file too (an HDF5 "
                            f"score file holds no labels)")
        from ._hints import labelled_hint

        try:
            trials, n_dup = _guard_memory(src.name, lambda: _read(
                src, "labelled", progress, limits))
        except FileFormatError as exc:
            raise labelled_hint(src, exc) from None
        return oriented(trials), JoinReport(src.name, "", len(trials), 0, 0, None, None,
                                            n_dup, 0)
    key_name = path_name(key_path)
    if name == STDIN and key_name == STDIN:
        raise DataError("standard input ('-') can stand for only one of the two files")
    key_src = as_source(key_name, limits)  # before spending time on the score file
    src = as_source(name, limits)
    from ._hints import key_hint, score_hint
    from .peers import genuine_impostor, is_bare_scores

    if is_bare_scores(src) and is_bare_scores(key_src):
        # pyeer's genuine and impostor files, given as the two files of a score file and key
        # (the command line's SCORES KEY, a FILE spec of llrlab serve, the upload's two files)
        warnings.warn(LlrlabWarning(
            f"{src.name} and {key_src.name} hold one score per line each: read as genuine "
            f"(target) scores and impostor (non-target) scores, in that order (pyeer's "
            f"files)"), stacklevel=2)
        trials = _guard_memory(src.name, lambda: genuine_impostor(
            src, key_src, progress=progress, limits=limits))
        return oriented(trials), JoinReport(src.name, key_src.name, len(trials), 0, 0, None,
                                            None, 0, 0)

    try:
        scores = _guard_memory(src.name, lambda: _read(
            src, "scores", _stage(progress, 0.0, 0.55), limits))
    except FileFormatError as exc:
        raise score_hint(src, key_src, exc) from None
    # the key's ids are numbered after the score file's (hashed once, in the score file's
    # hash table, which the join then uses again)
    with shared_vocab_indexes():
        try:
            key = _guard_memory(key_src.name, lambda: _read(
                key_src, "key", _stage(progress, 0.55, 0.9), limits, like=scores))
        except FileFormatError as exc:
            raise key_hint(src, key_src, exc) from None
        if progress:
            progress(0.9, f"joining {src.name} and {key_src.name}")
        trials, report = _guard_memory(src.name, lambda: joined_trials(scores, key))
    if progress:
        progress(1.0, f"{len(trials)} trials")
    return oriented(trials), report


def load_trials(scores_path, key_path=None, *, progress=None, max_trials=None,
                max_bytes=None, limits=None):
    """Labelled trials from a score file and a key file, or from one labelled file.

    Same as :func:`load_trials_with_report` without the report (mismatches between the two
    files are still reported with a :class:`~llrlab.core.errors.LlrlabWarning`).

    Examples
    --------
    >>> import os, tempfile, warnings
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "s.txt"), "w") as f:
    ...     _ = f.write("m1 s1 1.5\\nm1 s2 -0.5\\nm2 s1 0.25\\n")
    >>> with open(os.path.join(d, "k.txt"), "w") as f:
    ...     _ = f.write("m1 s1 target\\nm1 s2 nontarget\\nm2 s1 nontarget\\n")
    >>> t = load_trials(os.path.join(d, "s.txt"), os.path.join(d, "k.txt"))
    >>> t.tar, t.non
    (array([1.5]), array([-0.5 ,  0.25]))
    """
    return load_trials_with_report(scores_path, key_path, progress=progress,
                                   max_trials=max_trials, max_bytes=max_bytes,
                                   limits=limits)[0]


def load_scores(path, *, progress=None, max_trials=None, max_bytes=None, limits=None):
    """Unlabelled scores (e.g. evaluation scores to calibrate), with their ids.

    Parameters
    ----------
    path : str or path-like
        BOSARIS text ``model segment score`` (or one score per line, without ids) or a
        BOSARIS/SIDEKIT HDF5 score file; ``-`` reads standard input, gzip text is read
        transparently.
    progress : callable, optional
        ``progress(fraction, message)``.
    max_trials, max_bytes : int, optional
    limits : Limits, optional
        Limits of the load (see :func:`load_trials_with_report`).

    Returns
    -------
    Scores
        In file order (model-major for HDF5).  A trial listed twice with the same score is
        kept once (with a LlrlabWarning); with two different scores it is an error.
    """
    limits = make_limits(max_trials, max_bytes, limits)
    src = as_source(path, limits)

    def load():
        table = _read(src, "unlabelled", progress, limits)
        if isinstance(table, Scores):
            return table
        return _scores_from_table(src.name, table)

    return _guard_memory(src.name, load)


def read_key(path, *, max_trials=None, max_bytes=None, limits=None):
    """A key file (BOSARIS text or HDF5, current or old layout, or SIDEKIT) as a :class:`Key`.

    ``max_trials``, ``max_bytes``, ``limits``: limits of the load (see
    :func:`load_trials_with_report`).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "key.txt")
    >>> with open(p, "w") as f:
    ...     _ = f.write("m1 s1 TGT\\nm1 s2 imp\\n")
    >>> read_key(p).labels
    array([ True, False])
    """
    from .bosaris_text import deduplicate

    limits = make_limits(max_trials, max_bytes, limits)
    src = as_source(path, limits)
    table = _guard_memory(src.name, lambda: _read(src, "key", limits=limits))
    keep, _ = deduplicate(table, ("labels",), "labels")
    if keep is not None:
        table = table.subset(keep)
    return Key(table.model_ids(), table.segment_ids(), table.values["labels"],
               source=src.name)


def read_ndx(path, *, max_trials=None, max_bytes=None, limits=None):
    """An index file (BOSARIS text ``model segment`` or HDF5 ``/trial_mask``) as an :class:`Ndx`.

    A key file is accepted too (its trials, without the labels).  ``max_trials``,
    ``max_bytes``, ``limits``: limits of the load (see :func:`load_trials_with_report`).
    """
    from .bosaris_text import deduplicate

    limits = make_limits(max_trials, max_bytes, limits)
    src = as_source(path, limits)
    table = _guard_memory(src.name, lambda: _read(src, "ndx", limits=limits))
    keep, _ = deduplicate(table, (), "ids")
    if keep is not None:
        table = table.subset(keep)
    return Ndx(table.model_ids(), table.segment_ids(), source=src.name)


def _format(path, format):
    if format is None:
        ext = os.path.splitext(path)[1].lower()
        return "hdf5" if ext in _HDF5_EXTENSIONS else "text"
    if format not in ("text", "hdf5"):
        raise DataError(f"format must be 'text' or 'hdf5', got {format!r}")
    return format


def write_scores(path, scores, *, format=None):
    """Write scores as a BOSARIS text or HDF5 score file (full precision).

    Parameters
    ----------
    path : str or path-like
    scores : Scores or Trials
        Trials are written without their labels.  HDF5 needs (model, segment) ids; text
        without ids gets one score per line.
    format : {None, "text", "hdf5"}
        None: HDF5 for a ``.h5``/``.hdf5`` name, text otherwise.  Text holds the shortest
        decimal that reads back to the same float64 (``repr``), so a round trip keeps every
        bit; HDF5 stores float64.
    """
    name = path_name(path)
    if isinstance(scores, Trials):
        scores = scores.unlabelled()
    if not isinstance(scores, Scores):
        raise DataError(f"write_scores needs Scores or Trials, got {type(scores).__name__}")
    if _format(name, format) == "hdf5":
        write_scores_hdf5(name, scores)
    else:
        write_score_text(name, scores)


def write_trials(path, trials, *, header=True):
    """Write trials as one labelled text file (see :func:`load_trials` with no key).

    Columns ``model segment score label`` (ids only if the trials have them), plus
    ``condition`` and ``weight`` when present; comma-separated for ``.csv``, tab-separated for
    ``.tsv``, space-separated otherwise; scores in full precision.
    """
    if not isinstance(trials, Trials):
        raise DataError(f"write_trials needs Trials, got {type(trials).__name__}")
    write_labelled(path_name(path), trials, header=header)


def write_key(path, key, *, format=None):
    """Write a key (from a :class:`Key` or labelled :class:`Trials` with ids).

    Text: ``model segment target|nontarget`` lines.  HDF5: the BOSARIS layout ``/trial_mask``
    (int8, +1/-1/0, models x segments), ``/file_format`` "2.0", ``/ID/row_ids``,
    ``/ID/column_ids``.
    """
    name = path_name(path)
    if not isinstance(key, (Key, Trials)):
        raise DataError(f"write_key needs a Key or Trials, got {type(key).__name__}")
    if _format(name, format) == "hdf5":
        write_key_hdf5(name, key)
    else:
        write_key_text(name, key)


def write_ndx(path, ndx, *, format=None):
    """Write an index (the trials of an :class:`Ndx`, :class:`Key`, Scores or Trials).

    Text: ``model segment`` lines.  HDF5: ``/trial_mask`` (uint8) and ``/ID/...``.
    """
    name = path_name(path)
    if _format(name, format) == "hdf5":
        write_ndx_hdf5(name, ndx)
    else:
        write_ndx_text(name, ndx)


def attach_conditions(trials, path, *, progress=None, max_trials=None, max_bytes=None,
                      limits=None):
    """The trials with a condition per trial from a ``model segment condition`` file.

    Parameters
    ----------
    trials : Trials
        With (model, segment) ids.
    path : str or path-like
        Condition file: whitespace- or comma-separated ``model segment condition`` lines.
    progress : callable, optional
    max_trials, max_bytes : int, optional
    limits : Limits, optional
        Limits of the load (see :func:`load_trials_with_report`).

    Returns
    -------
    Trials
        Only the trials that have a condition, in their original order, with ``conditions``
        set.  Trials without a condition and condition lines without a trial are counted in
        a LlrlabWarning (use :func:`attach_conditions_with_report` to get the counts).
    """
    return attach_conditions_with_report(trials, path, progress=progress,
                                         max_trials=max_trials, max_bytes=max_bytes,
                                         limits=limits)[0]
