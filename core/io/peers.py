"""The score files of peer toolkits, read as they are: bob.measure, bob.bio and pyeer.

* **bob.measure 2-column** ``label score``: the label first, as ``1``/``+1`` (positive,
  target) or ``-1``/``0`` (negative, non-target), or any label word (see
  :data:`~llrlab.core.io._text.LABEL_HELP`).  llrlab's own 2-column file is ``score label``;
  a file is taken as bob.measure's when its first column holds only label values and its
  second does not (judged on the first block of the file).  With a header line naming the
  columns (``label score``), the labelled reader reads it (see
  :mod:`llrlab.core.io.labelled`).
* **bob.bio 4-column** ``claimed_id real_id test_label score`` and **5-column**
  ``claimed_id model_label real_id test_label score`` (the score files of bob.bio.base): a
  trial is a target when the claimed identity is the real one.  The model id is
  ``claimed_id`` (4 columns) or ``model_label`` (5 columns), the segment id ``test_label``.
* **pyeer** genuine / impostor files, one score per line: read with
  :func:`~llrlab.core.io.load_genuine_impostor`, the label coming from which file it is.

Failures to acquire
-------------------
In bob.measure and bob.bio files a score of ``nan`` marks a failure to acquire (FTA): no
comparison score could be produced.  ISO/IEC 19795-1:2006 (sec. 4.6, 4.7) keeps FTA apart
from the matching errors and defines the system-level rates

.. math::

    \\mathrm{FAR} = \\mathrm{FMR}\\,(1 - \\mathrm{FTA}),\\qquad
    \\mathrm{FRR} = \\mathrm{FTA} + \\mathrm{FNMR}\\,(1 - \\mathrm{FTA}),

which bob.measure and bob.bio report (``bob bio metrics``: "FAR = FMR * (1 - FtA), FRR =
FtA + FNMR * (1 - FtA)"): a failed acquisition of a genuine attempt is a false rejection, of
an impostor attempt a correct rejection.  By default llrlab counts the FTA (reported in a
:class:`~llrlab.core.errors.LlrlabWarning`, ``llrlab eval --json`` gives
``failures_to_acquire``) and leaves those trials out of every measure.  Under
:func:`failures_to_acquire` with ``as_error=True`` (``--fta-as-error``) the trials are kept
with a score below every other score of the file (minimum minus one), so that they are
rejected at every threshold that accepts any acquired trial: per class, the miss and false
alarm rates are then exactly ISO's FRR and FAR (with the FTA rate of each class, where
bob.measure pools one FTA rate over both classes).  Measures of the score values
themselves (Cllr, actual DCF) then see that substitute score.
"""

from __future__ import annotations

import contextvars
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ..errors import FileFormatError, LlrlabWarning
from ..trials import IdCodes
from ._columns import ID, LABEL, NUMBER, Col, read_columns

__all__ = ["FtaRecord", "failures_to_acquire", "load_genuine_impostor", "read_bob_bio",
           "read_bob_measure"]


@dataclass
class FtaRecord:
    """What :func:`failures_to_acquire` collected: the policy and, per file read under it,
    ``(source, n_target_fta, n_nontarget_fta)``."""

    as_error: bool = False
    files: list = field(default_factory=list)

    @property
    def total(self):
        """The failures to acquire of every file read."""
        return sum(t + n for _, t, n in self.files)


_POLICY = contextvars.ContextVar("llrlab_fta", default=None)


@contextmanager
def failures_to_acquire(*, as_error=False):
    """Within the block, the NaN scores (failures to acquire) of bob.measure and bob.bio
    files are counted into the yielded :class:`FtaRecord` and, with ``as_error``, counted
    as errors (see the module docstring)."""
    record = FtaRecord(as_error)
    token = _POLICY.set(record)
    try:
        yield record
    finally:
        _POLICY.reset(token)


def _resolve_fta(name, col):
    """``col`` (role -> column) with the NaN-scored trials left out, or given a score
    below every other (see the module docstring); reported in a warning."""
    scores = col["score"]
    fta = np.isnan(scores)
    if not fta.any():
        return col
    record = _POLICY.get()
    as_error = record is not None and record.as_error
    labels = col["label"]
    n_tar = int(np.count_nonzero(labels[fta]))
    n_non = int(fta.sum()) - n_tar
    if fta.all():
        raise FileFormatError(name, f"every score is NaN ({fta.size} failures to acquire): "
                                    f"there is no comparison score to evaluate")
    if record is not None:
        record.files.append((name, n_tar, n_non))
    what = (f"{name}: {n_tar + n_non} failure(s) to acquire (NaN scores: {n_tar} target, "
            f"{n_non} non-target)")
    if as_error:
        scores = scores.copy()
        scores[fta] = np.min(scores[~fta]) - 1.0
        warnings.warn(f"{what} counted as errors (ISO/IEC 19795-1): a target one as a miss, "
                      f"a non-target one as a correct rejection", LlrlabWarning, stacklevel=2)
        return {**col, "score": scores}
    warnings.warn(f"{what} left out of the error rates; --fta-as-error counts them as "
                  f"errors", LlrlabWarning, stacklevel=2)
    keep = np.flatnonzero(~fta)
    return {r: (v.take(keep) if isinstance(v, IdCodes) else v[keep]) for r, v in col.items()}


def _read(src, cols, progress, limits):
    from ._formats import ANY_COUNT, head_of

    fr = head_of(src).first_row(ANY_COUNT)
    return read_columns(src, cols, delimiter=fr.delimiter, describe="", first_line=fr.line,
                        progress=progress, limits=limits)


def read_bob_measure(src, *, progress=None, require_both=True, limits=None):
    """A bob.measure 2-column ``label score`` file as ``(trials, 0)`` (NaN scores: see
    :func:`failures_to_acquire`)."""
    from .labelled import trials_from_columns

    got = _read(src, [Col(LABEL), Col(NUMBER, "score", nan=True)], progress, limits)
    col = _resolve_fta(src.name, {"label": got.values[0], "score": got.values[1]})
    return trials_from_columns(src.name, col, got.locator, progress=progress,
                               require_both=require_both)


def _same_identity(claimed, real):
    """Per row, True where the claimed id equals the real id (two IdCodes of their own
    numbering, compared through the distinct ids only)."""
    index = {v: i for i, v in enumerate(claimed.vocab)}
    real_as_claimed = np.fromiter((index.get(v, -1) for v in real.vocab), dtype=np.int64,
                                  count=len(real.vocab))
    return real_as_claimed[real.codes] == claimed.codes


def read_bob_bio(src, *, progress=None, require_both=True, limits=None):
    """A bob.bio 4-column ``claimed_id real_id test_label score`` or 5-column ``claimed_id
    model_label real_id test_label score`` file as ``(trials, n_duplicates)``: a target
    where ``claimed_id == real_id``; model ``claimed_id`` (4) or ``model_label`` (5),
    segment ``test_label``."""
    from ._formats import ANY_COUNT, head_of
    from .labelled import trials_from_columns

    n = head_of(src).first_row(ANY_COUNT).ncols
    names = (("claimed id", "real id", "test label") if n == 4 else
             ("claimed id", "model label", "real id", "test label"))
    got = _read(src, [Col(ID, w) for w in names] + [Col(NUMBER, "score", nan=True)],
                progress, limits)
    v = got.values
    claimed, real = v[0], v[n - 3]
    col = {"label": _same_identity(claimed, real), "score": v[-1],
           "model": v[0] if n == 4 else v[1], "segment": v[-2]}
    col = _resolve_fta(src.name, col)
    return trials_from_columns(src.name, col, got.locator, progress=progress,
                               require_both=require_both)


def load_genuine_impostor(tar_path, non_path, *, progress=None, limits=None):
    """Labelled trials from two files of one score per line (pyeer's genuine and impostor
    score files): every score of ``tar_path`` a target, every one of ``non_path`` a
    non-target.

    Raises
    ------
    FileFormatError
        A file that is not one score per line (saying what it was detected as), or a bad
        line.
    """
    from ._formats import detect, head_of
    from ._source import make_limits, path_name
    from .bosaris_text import as_source

    limits = make_limits(None, None, limits)
    srcs = []
    for path, option in ((tar_path, "--tar"), (non_path, "--non")):
        src = as_source(path_name(path), limits)
        if not is_bare_scores(src):
            fmt = detect(head_of(src))
            what = fmt.description(head_of(src)) if fmt is not None else \
                "not a file of one score per line"
            raise FileFormatError(src.name, f"detected as {what}; {option} takes a file of "
                                            f"one score per line (pyeer's genuine or impostor "
                                            f"scores)")
        srcs.append(src)
    from .orientation import oriented

    return oriented(genuine_impostor(*srcs, progress=progress, limits=limits))


def is_bare_scores(src):
    """True when the opened source ``src`` is a text file of one score per line."""
    from ._formats import detect, head_of

    if src.is_hdf5:
        return False
    fmt = detect(head_of(src))
    return fmt is not None and fmt.name == "bare-scores"


def genuine_impostor(tar_src, non_src, *, progress=None, limits=None):
    """Trials (not yet oriented) from two opened sources of one score per line: every
    score of ``tar_src`` a target, every one of ``non_src`` a non-target."""
    from ..trials import Trials
    from ._formats import read_as

    parts = []
    for src in (tar_src, non_src):
        data, _ = read_as(src, "unlabelled", progress=progress, limits=limits)
        parts.append(np.asarray(data.scores, dtype=np.float64))
    labels = np.concatenate([np.ones(parts[0].size, bool), np.zeros(parts[1].size, bool)])
    return Trials(np.concatenate(parts), labels, source=f"{tar_src.name} + {non_src.name}")
