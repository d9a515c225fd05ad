"""One labelled text file: a score and a label per line, optionally ids and a condition.

Without a header line the columns are ``score label`` or ``model segment score label``.  With
a header line the columns may come in any order and are named (case-insensitive):

=============  ====================================================
column         accepted names
=============  ====================================================
score          ``score``, ``scores``, ``llr``
label          ``label``, ``labels``, ``class``, ``key``, ``target``
model          ``model``, ``enroll``, ``enrollment``
segment        ``segment``, ``seg``, ``test``
condition      ``condition``, ``cond`` (optional)
weight         ``weight`` (optional, non-negative)
=============  ====================================================

Score and label are required; model and segment come together or not at all.  An unknown
column name is an error.  The first non-blank line is a header when none of its fields is a
number and at least one is a column name.  Fields are separated by whitespace or tabs, or by
commas in a ``.csv`` file (or when the first line is evidently comma-separated).  Labels are
``target``/``nontarget`` or ``tgt``/``non``, ``tar``/``imp``, ``true``/``false``, ``1``/``0``
in any case.
"""

from __future__ import annotations

import contextvars
import os
from contextlib import contextmanager

import numpy as np

from ..errors import DataError, FileFormatError
from ..trials import IdCodes, Trials
from ._columns import ID, LABEL, NUMBER, Col, first_row, read_columns
from ._text import choose_delimiter, show
from .bosaris_text import (
    Table,
    as_source,
    check_text_ids,
    deduplicate,
    format_rows,
    id_column,
    require_both_classes,
    write_chunks,
)

__all__ = [
    "COLUMN_NAMES",
    "HEADERLESS_ROLES",
    "ROLES",
    "column_names",
    "detect_columns",
    "format_labelled",
    "header_roles",
    "labelled_chunks",
    "mapped_columns",
    "read_labelled",
    "trials_from_columns",
    "write_labelled",
]

COLUMN_NAMES = {
    "score": "score", "scores": "score", "llr": "score",
    "label": "label", "labels": "label", "class": "label", "key": "label", "target": "label",
    "model": "model", "enroll": "model", "enrollment": "model",
    "segment": "segment", "seg": "segment", "test": "segment",
    "condition": "condition", "cond": "condition",
    "weight": "weight",
}

#: The column roles (the values of :data:`COLUMN_NAMES`), in the order :func:`write_labelled`
#: writes them.
ROLES = ("model", "segment", "score", "label", "condition", "weight")

#: The column roles of a file without a header line, by number of fields.
HEADERLESS_ROLES = {2: ("score", "label"), 4: ("model", "segment", "score", "label")}


_MAPPED = contextvars.ContextVar("llrlab_column_names", default=None)


@contextmanager
def column_names(mapping):
    """Within the block, a labelled file's header (and a Parquet table's columns) may name
    its columns as ``mapping`` says (role -> the file's column name, e.g. ``{"score":
    "cos", "label": "is_same"}``, roles as in :data:`ROLES`); the file's other columns are
    then ignored instead of refused (``llrlab CMD --columns score=cos,label=is_same``)."""
    mapping = dict(mapping or {})
    for role, name in mapping.items():
        if role not in ROLES:
            raise DataError(f"unknown column role {show(role)} in the column names; known: "
                            f"{', '.join(ROLES)}")
        if not isinstance(name, str) or not name.strip():
            raise DataError(f"the column name of {role} is empty")
    token = _MAPPED.set({name.lower(): role for role, name in mapping.items()} or None)
    try:
        yield
    finally:
        _MAPPED.reset(token)


def mapped_columns():
    """``{lowercased file column name: role}`` of the :func:`column_names` in force, or
    None."""
    return _MAPPED.get()


def _is_number(tok):
    try:
        float(tok)
    except ValueError:
        return False
    return True


def header_roles(tt):
    """Column roles from the first row of a TextTable if it is a header, else None.

    Returns
    -------
    dict or None
        ``{role: column index}`` (roles as in :data:`ROLES`) when the first row is a header:
        none of its fields is a number and at least one is a column name.

    Raises
    ------
    FileFormatError
        A header with an unknown or repeated column, without a score or label column, or with
        only one of model and segment (at line and text of the header).
    """
    first = [t.decode("utf-8") for t in tt.tokens[: tt.ncols]]
    lowered = [t.lower() for t in first]
    mapped = _MAPPED.get()
    names = COLUMN_NAMES if mapped is None else {
        **{k: v for k, v in COLUMN_NAMES.items() if v not in mapped.values()}, **mapped}
    if any(_is_number(t) for t in first):
        return None
    if mapped is not None:
        absent = [n for n in mapped if n not in lowered]
        if absent:
            raise tt.error(0, f"the header has no column {show(absent[0])} (named by "
                              f"--columns); its columns are {show(' '.join(first), 120)}")
    if not any(t in names for t in lowered):
        return None
    roles = {}
    for j, (name, low) in enumerate(zip(first, lowered, strict=True)):
        role = names.get(low)
        if role is None and mapped is not None:
            continue  # a column the mapping does not use
        if role is None:
            raise tt.error(0, f"unknown column {show(name)} in the header; known columns: "
                              f"score, label (or class/key/target), model, segment (or test), "
                              f"condition, weight")
        if role in roles:
            raise tt.error(0, f"two header columns mean {role}: "
                              f"{show(first[roles[role]])} and {show(name)}")
        roles[role] = j
    missing = [r for r in ("score", "label") if r not in roles]
    if missing:
        raise tt.error(0, f"the header has no {' and no '.join(missing)} column")
    if ("model" in roles) != ("segment" in roles):
        have, lack = ("model", "segment") if "model" in roles else ("segment", "model")
        raise tt.error(0, f"the header has a {have} column but no {lack} column")
    return roles


HEADER_HINT = ("with other columns, start the file with a header line naming them "
               "(score, label, model, segment, condition, weight)")

_KINDS = {"model": Col(ID, "model id"), "segment": Col(ID, "segment id"),
          "score": Col(NUMBER, "score"), "label": Col(LABEL), "condition": Col(ID, "condition"),
          "weight": Col(NUMBER, "weight")}


def detect_columns(src):
    """``(roles, header_line, first_row)`` of a labelled file from its first non-blank line.

    ``roles`` maps each role to its column; ``header_line`` is the line of the header, or
    None when the file has none.
    """
    fr = first_row(src, choose_delimiter, (2, 3, 4, 5, 6))
    roles = header_roles(fr)
    if roles is not None:
        return roles, fr.line, fr
    if fr.ncols not in HEADERLESS_ROLES and not any(_is_number(t) for t in fr.tokens):
        raise fr.error(0, "this looks like a header line whose column names llrlab does not "
                          "know; name the columns with --columns (e.g. --columns score=cos,"
                          "label=is_same,model=enroll,segment=test)")
    if fr.ncols not in HEADERLESS_ROLES:
        raise fr.error(0, f"expected 2 fields (score label) or 4 (model segment score label) "
                          f"per line, found {fr.ncols}; {HEADER_HINT}")
    return {r: j for j, r in enumerate(HEADERLESS_ROLES[fr.ncols])}, None, fr


def read_labelled(path, data=None, *, progress=None, require_both=True, limits=None,
                  fast=True):
    """Read one labelled text file as Trials.

    Parameters
    ----------
    path : str, path-like or Source
        A file name, ``-`` for standard input; gzip files are read transparently.
    data : bytes, optional
        The content, if already read (then ``path`` only names it in messages).
    progress : callable, optional
        ``progress(fraction, message)``.
    require_both : bool, default True
        Require at least one target and one non-target trial (every measure needs both).
        False accepts a file of one class only, e.g. trials whose scores are to be calibrated.
    limits : Limits, optional
        See :func:`~llrlab.core.io.load_trials` (``max_trials``, ``max_bytes``).
    fast : bool
        Let the pandas parser read the file when it can vouch for the result.

    Returns
    -------
    trials : Trials
        In file order; with ids, conditions and weights when the file has those columns.
        A trial (model, segment) listed twice with the same score and label is kept once
        (with a LlrlabWarning); with different values it is an error.
    n_duplicates : int
        The number of repeated lines ignored.

    Raises
    ------
    FileFormatError
        Unreadable file, bad header, wrong number of fields, non-number or non-finite score,
        unknown label (with the line number and text); weights of one class that sum to
        zero.
    DataError
        No target or no non-target trial (with ``require_both``).
    """
    if data is not None:
        from ._source import Source

        src = Source(str(path), None, data, "text", len(data))
    else:
        src = as_source(path, limits)
    name = src.name
    if progress:
        progress(0.0, f"reading {name}")
    roles, header, fr = detect_columns(src)
    role_of = {j: r for r, j in roles.items()}
    cols = [_KINDS[role_of[j]] if j in role_of else Col(ID, "column")
            for j in range(fr.ncols)]
    got = read_columns(src, cols, delimiter=fr.delimiter, describe="",
                       first_line=fr.line, skip_line=header, progress=progress, limits=limits,
                       fast=fast)
    col = {r: got.values[j] for r, j in roles.items()}
    return trials_from_columns(name, col, got.locator, progress=progress,
                               require_both=require_both)


def trials_from_columns(name, col, locator, *, progress=None, require_both=True):
    """``(trials, n_duplicates)`` from the columns of a labelled file (``col``: role ->
    array or IdCodes, see :data:`ROLES`; ``locator`` finds a row's line for messages), as
    :func:`read_labelled` returns them.  Shared by every reader of a file holding its own
    labels (see :mod:`llrlab.core.io.peers`)."""
    values = {"scores": col["score"], "labels": col["label"]}
    if "weight" in col:
        w = col["weight"]
        if (w < 0).any():
            i = int(np.argmax(w < 0))
            what = f"the weight {float(w[i])!r} is negative"
            raise locator.error(i, what) if locator is not None else \
                FileFormatError(name, f"row {i + 1}: {what}")
        values["weights"] = w
    if "condition" in col:
        values["conditions"] = col["condition"]
    if "model" in col:
        m, sg = col["model"], col["segment"]
        table = Table(name, m, sg, values, locator)
        keep, n_dup = deduplicate(table, ("scores", "labels"), "score and label")
        if keep is not None:
            table = table.subset(keep)
        values = table.values
        model_ids, segment_ids = table.model_idcodes(), table.segment_idcodes()
    else:
        model_ids = segment_ids = None
        n_dup = 0
    if "weights" in values:
        _check_class_weights(name, values["weights"], values["labels"])
    if "weights" not in values:  # the readers checked the scores: no second pass
        trials = Trials._checked(values["scores"], values["labels"],
                                 conditions=values.get("conditions"), model_ids=model_ids,
                                 segment_ids=segment_ids, source=name)
    else:
        try:
            trials = Trials(values["scores"], values["labels"], weights=values["weights"],
                            conditions=values.get("conditions"), model_ids=model_ids,
                            segment_ids=segment_ids, source=name)
        except DataError as exc:  # e.g. weights that sum to zero
            raise FileFormatError(name, str(exc)) from None
    if progress:
        progress(1.0, f"read {name}")
    return (require_both_classes(trials) if require_both else trials), n_dup


def _check_class_weights(name, w, labels):
    """FileFormatError when the weights of the targets or of the non-targets sum to zero
    (every measure divides by those sums)."""
    for cls, what in ((True, "target"), (False, "non-target")):
        sel = labels == cls
        if sel.any() and not w[sel].sum() > 0:
            raise FileFormatError(name, f"the weights of the {int(sel.sum())} {what} trials "
                                        f"sum to zero, so no {what} trial would count; give "
                                        f"some of them a positive weight")


def format_labelled(trials, columns, *, sep=" ", names=None):
    """The text of a labelled file: the given columns of ``trials``, one trial per line.

    Parameters
    ----------
    trials : Trials
    columns : sequence of str
        Column roles (see :data:`ROLES`) in the order to write them.
    sep : {" ", "\\t", ","}
        Field separator.
    names : sequence of str, optional
        Header words, one per column; None writes no header line.

    Returns
    -------
    str
        Scores and weights in full precision (shortest round-trip repr), labels as
        ``target``/``nontarget``, every line ending with ``\\n``.

    Raises
    ------
    DataError
        A column the trials do not have (ids, conditions or weights), or an id or condition
        that cannot be written as one field.

    Examples
    --------
    >>> t = Trials([0.1, -2.0], [True, False], weights=[1.0, 0.5])
    >>> print(format_labelled(t, ("weight", "score", "label"), sep=",",
    ...                       names=("w", "LLR", "class")), end="")
    w,LLR,class
    1.0,0.1,target
    0.5,-2.0,nontarget
    """
    return "".join(labelled_chunks(trials, columns, sep=sep, names=names))


def labelled_chunks(trials, columns, *, sep=" ", names=None):
    """The text of :func:`format_labelled`, as a sequence of chunks of lines (for writing a
    large file in bounded memory).  The columns are checked before the first chunk."""
    csv = sep == ","
    where = trials.source or "the trials"
    cols = []
    for role in columns:
        if role in ("model", "segment"):
            if not trials.has_ids:
                raise DataError(f"{where} have no (model, segment) ids for the {role} column")
            ids = id_column(trials, role)
            check_text_ids(ids, f"{role} id", csv=csv)
            cols.append(ids)
        elif role == "score":
            cols.append(trials.scores)
        elif role == "label":
            cols.append(IdCodes.trusted(trials.labels.astype(np.int32),
                                        np.array(["nontarget", "target"], dtype=object)))
        elif role == "condition":
            if not trials.has_conditions:
                raise DataError(f"{where} have no conditions for the condition column")
            cond = id_column(trials, "condition")
            check_text_ids(cond, "condition", csv=csv)
            cols.append(cond)
        elif role == "weight":
            if trials.weights is None:
                raise DataError(f"{where} have no weights for the weight column")
            cols.append(trials.weights)
        else:
            raise DataError(f"unknown column role {show(role)}; known: {', '.join(ROLES)}")
    if names is not None:
        yield sep.join(names) + "\n"
    if len(trials):
        yield from format_rows(cols, sep)


def write_labelled(path, trials, *, header=True):
    """Write Trials as one labelled text file (full-precision scores).

    Columns: ``model segment score label`` (ids only when the trials have them), then
    ``condition`` and ``weight`` when present.  Fields are separated by commas for a ``.csv``
    name, by tabs for ``.tsv``, otherwise by one space.  Labels are written as ``target`` /
    ``nontarget``.

    Parameters
    ----------
    path : str or path-like
    trials : Trials
    header : bool, default True
        Start with a header line naming the columns.  Without a header the file can only
        hold ``score label`` or ``model segment score label``.
    """
    name = os.fspath(path)
    ext = os.path.splitext(name)[1].lower()
    sep = {".csv": ",", ".tsv": "\t"}.get(ext, " ")
    present = {"model": trials.has_ids, "segment": trials.has_ids,
               "condition": trials.has_conditions, "weight": trials.weights is not None}
    columns = tuple(r for r in ROLES if present.get(r, True))
    if not header and columns not in HEADERLESS_ROLES.values():
        raise DataError(f"columns {' '.join(columns)} need a header line; call with header=True")
    write_chunks(name, labelled_chunks(trials, columns, sep=sep,
                                       names=columns if header else None))
