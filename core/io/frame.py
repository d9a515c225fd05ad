"""Trials from a data frame or from arrays held in memory (a notebook's scores).

:func:`trials_from_frame` turns a pandas DataFrame (or any frame with ``to_pandas()``, such as
a polars DataFrame or a pyarrow Table) into the :class:`~llrlab.core.Trials` that a labelled
text file with the same columns gives: the columns are found by the names a labelled file's
header may use (:data:`~llrlab.core.io.labelled.COLUMN_NAMES`, any case) or named by the
caller; a trial (model, segment) listed twice with the same score and label is kept once
(with a :class:`~llrlab.core.errors.LlrlabWarning`), with different ones it is an error.
:func:`as_labels` reads a label column or array: booleans, 0/1, -1/+1, or the label words of
labelled files (``target``/``nontarget``, ``tgt``/``non``, ``tar``/``imp``, ``true``/``false``,
any case).

Every problem raises one :class:`~llrlab.core.errors.DataError` line that says what was found
(the frame's columns, the unknown label values, the index of the first missing value) and
what to do.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError, FileFormatError
from ..trials import IdCodes, Trials
from ._text import LABEL_WORDS, shorten
from .bosaris_text import deduplicate, table_from_ids
from .labelled import COLUMN_NAMES, _check_class_weights

__all__ = ["FRAME_ROLES", "as_labels", "frame_columns", "trials_from_frame"]

#: The columns :func:`trials_from_frame` reads, by role (``score`` and ``label`` required).
FRAME_ROLES = ("score", "label", "model", "segment", "condition", "weight")

_LABEL_TEXT = ("booleans, 0/1, -1/+1, or the words target/nontarget (also tgt/non, tar/imp, "
               "true/false, any case)")


def _brief(values, limit=5):
    """Up to ``limit`` values, quoted and shortened, for a message."""
    shown = [repr(shorten(str(v), 40)) for v in list(values)[:limit]]
    more = len(values) - limit
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _is_missing(a):
    """Missing entries of an object array (None, NaN, pandas.NA, NaT)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return np.array([v is None or (isinstance(v, float) and v != v) for v in a.tolist()])
    return np.asarray(pd.isna(a), dtype=bool)


def as_labels(values, where="the labels", *, index=None):
    """Target (True) / non-target (False) labels from booleans, numbers or words.

    Parameters
    ----------
    values : array-like, shape (n,)
        Booleans; numbers that are all 0/1 or all -1/+1 (1 is a target, 0 and -1 are
        non-targets); or strings among the label words of labelled files
        (``target``/``nontarget``, ``tgt``/``non``, ``tar``/``imp``, ``impostor``,
        ``true``/``false``, ``1``/``0``, any case, surrounding spaces ignored).
        A pandas Series, Categorical or nullable array works too.
    where : str
        What the values are, for messages (e.g. ``"column 'label' of the frame"``).
    index : sequence, optional
        The row labels (a frame's index), to name the row of a missing value.

    Returns
    -------
    ndarray of bool, shape (n,)

    Raises
    ------
    DataError
        Missing values (with the first row), values that are not labels (with the values
        found), or numbers that mix 0 with -1.

    Examples
    --------
    >>> as_labels([1, -1, -1]).tolist()
    [True, False, False]
    >>> as_labels(["target", "NonTarget", "imp"]).tolist()
    [True, False, False]
    >>> try:
    ...     as_labels([0, 1, 2])
    ... except ValueError as exc:  # a DataError
    ...     print(str(exc).split(";")[0])
    the labels: 2 is not a label
    """
    a = np.asarray(values.to_numpy(dtype=object) if _is_pandas(values) else values)
    if a.ndim != 1:
        raise DataError(f"{where} must be one label per trial (1-D), got shape {a.shape}")
    if a.dtype == bool:
        return a
    if a.dtype.kind in "iuf" or (a.dtype == object and a.size and all(
            isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))
            for v in a.tolist())):
        return _numeric_labels(a, where, index)
    if a.dtype.kind not in "UOS":
        raise DataError(f"{where} must be labels ({_LABEL_TEXT}), got values of type "
                        f"{a.dtype}")
    missing = _is_missing(a) if a.dtype == object else np.zeros(a.size, bool)
    _refuse_missing(missing, where, index)
    words, inverse = np.unique(np.char.strip(np.char.lower(a.astype(str))),
                               return_inverse=True)
    lut = [LABEL_WORDS.get(w) for w in words.tolist()]
    unknown = [w for w, v in zip(words.tolist(), lut, strict=True) if v is None]
    if unknown:
        raise DataError(f"{where}: {_brief(unknown)} {_are(unknown)} not a label; labels "
                        f"are {_LABEL_TEXT}")
    return np.asarray(lut, dtype=bool)[inverse.reshape(-1)]


def _numeric_labels(a, where, index):
    x = a.astype(np.float64)
    _refuse_missing(np.isnan(x), where, index)
    found = np.unique(x)
    if np.isin(found, (0.0, 1.0)).all():
        return x == 1.0
    if np.isin(found, (-1.0, 1.0)).all():
        return x == 1.0
    bad = found[~np.isin(found, (-1.0, 0.0, 1.0))]
    if bad.size:
        shown = ", ".join(f"{v:g}" for v in bad[:5].tolist())
        more = f" and {bad.size - 5} more" if bad.size > 5 else ""
        raise DataError(f"{where}: {shown}{more} {_are(bad)} not a label; labels are "
                        f"{_LABEL_TEXT}")
    raise DataError(f"{where}: 0 and -1 both appear (0/1 or -1/+1 labels?); map them to "
                    f"booleans (True = target) first")


def _are(values):
    return "is" if len(values) == 1 else "are each"


def _refuse_missing(missing, where, index):
    if missing.any():
        i = int(np.argmax(missing))
        at = f"row {i}" if index is None else f"index {_row(index, i)}"
        raise DataError(f"{where}: {int(missing.sum())} missing value(s), the first at "
                        f"{at}; drop those trials or fill in their labels")


def _row(index, i):
    label = index[i]
    return repr(label.item() if isinstance(label, np.generic) else label)


def _is_pandas(x):
    return hasattr(x, "to_numpy") and hasattr(x, "dtype") and not isinstance(x, np.ndarray)


def _as_pandas(frame):
    """A pandas DataFrame from ``frame`` (a pandas one as is; one with ``to_pandas()``,
    e.g. polars or pyarrow, converted)."""
    import pandas as pd

    if isinstance(frame, pd.DataFrame):
        return frame
    if hasattr(frame, "to_pandas"):
        out = frame.to_pandas()
        if isinstance(out, pd.DataFrame):
            return out
    raise DataError(f"expected a pandas DataFrame (or a frame with to_pandas()), got "
                    f"{type(frame).__name__}")


def frame_columns(frame, names, *, known=None, required=("score", "label"), what="the frame"):
    """Which column of ``frame`` holds each role.

    Parameters
    ----------
    frame : pandas.DataFrame
    names : dict
        Role -> the column the caller named (None: find it by its name).
    known : dict, optional
        Lower-case column name -> role, for roles found by name (default: the names of a
        labelled file's header, :data:`~llrlab.core.io.labelled.COLUMN_NAMES`).
    required : tuple of str
        Roles that must be found.
    what : str
        The frame, for messages.

    Returns
    -------
    dict
        Role -> column label, for the roles found.

    Raises
    ------
    DataError
        A named column that is not in the frame, two columns that could hold one role, or a
        required role not found (the messages list the frame's columns).
    """
    known = COLUMN_NAMES if known is None else known
    columns = list(frame.columns)
    listing = _brief(columns, limit=12)
    out = {}
    for role, name in names.items():
        if name is None:
            continue
        if name not in columns:
            raise DataError(f"{what} has no column {name!r} (given as {role}=); its columns "
                            f"are {listing}")
        out[role] = name
    taken = set(out.values())
    for role in names:
        if role in out:
            continue
        hits = [c for c in columns if c not in taken
                and known.get(str(c).strip().lower()) == role]
        if len(hits) > 1:
            raise DataError(f"{what} has two columns that could hold the {role}: "
                            f"{_brief(hits)}; choose one with {role}=")
        if hits:
            out[role] = hits[0]
    missing = [r for r in required if r not in out]
    if missing:
        need = " and ".join(missing)
        how = ", ".join(f"{r}='...'" for r in missing)
        raise DataError(f"{what} has no {need} column (its columns are {listing}); name "
                        f"{'it' if len(missing) == 1 else 'them'} with {how}")
    return out


def _finite_column(frame, col, what, *, allow_empty=False):
    """A numeric column as float64, or a DataError naming its first bad row."""
    import pandas as pd

    s = frame[col]
    if not (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)):
        try:
            values = pd.to_numeric(s, errors="raise")
        except (TypeError, ValueError):
            bad = pd.to_numeric(s, errors="coerce").isna() & s.notna()
            i = int(np.argmax(bad.to_numpy()))
            raise DataError(f"column {col!r} of {what} must hold numbers; index "
                            f"{_row(frame.index, i)} has {shorten(str(s.iloc[i]), 40)!r}"
                            ) from None
        s = values
    x = s.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.argmax(bad))
        raise DataError(f"column {col!r} of {what} has {int(bad.sum())} value(s) that are "
                        f"missing (NaN) or infinite; the first, {float(x[i])!r}, at index "
                        f"{_row(frame.index, i)}: drop those trials or fill them in")
    if not x.size and not allow_empty:
        raise DataError(f"{what} has no rows: at least one trial is needed")
    return x


def _data_error(fn, *args):
    """``fn(*args)``, its FileFormatError (the file readers' checks, reused here) raised as a
    DataError with the same message (a frame is no file)."""
    try:
        return fn(*args)
    except FileFormatError as exc:
        raise DataError(str(exc)) from None


def _id_codes(frame, col, what):
    """A text column (ids, conditions) as IdCodes; a DataError at a missing value."""
    s = frame[col]
    a = s.to_numpy(dtype=object)
    missing = _is_missing(a)
    if missing.any():
        i = int(np.argmax(missing))
        raise DataError(f"column {col!r} of {what} has {int(missing.sum())} missing "
                        f"value(s); the first at index {_row(frame.index, i)}: drop those "
                        f"trials or fill them in")
    return IdCodes.encode(a)


def trials_from_frame(frame, *, score=None, label=None, model=None, segment=None,
                      condition=None, weight=None, source="the DataFrame"):
    """Trials from the columns of a data frame.

    Parameters
    ----------
    frame : pandas.DataFrame, or a frame with ``to_pandas()`` (polars, pyarrow)
        One row per trial.
    score, label, model, segment, condition, weight : str, optional
        The column of each role.  Unnamed roles are found by the column names of a labelled
        file's header, in any case: ``score``/``scores``/``llr``;
        ``label``/``labels``/``class``/``key``/``target``; ``model``/``enroll``/
        ``enrollment``; ``segment``/``seg``/``test``; ``condition``/``cond``; ``weight``.
        Score and label are required; model and segment come together or not at all; other
        columns are ignored.
    source : str
        The trials' name in messages.

    Returns
    -------
    Trials
        In row order.  Labels are read by :func:`as_labels`; conditions and ids are read as
        text.  With ids, a trial repeated with the same score and label is kept once (a
        :class:`~llrlab.core.errors.LlrlabWarning` says how many were dropped), as when a
        labelled file is read.

    Raises
    ------
    DataError
        A missing or ambiguous column, a score that is missing, infinite or not a number, a
        label that is not one, a missing id or condition, a negative weight (each message
        names the column and the index of the first bad row), a trial repeated with
        another score or label.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"llr": [2.5, -1.0, 0.5], "class": ["target", "nontarget", "imp"]})
    >>> t = trials_from_frame(df)
    >>> t.scores.tolist(), t.labels.tolist()
    ([2.5, -1.0, 0.5], [True, False, False])
    """
    frame = _as_pandas(frame)
    what = source or "the DataFrame"
    cols = frame_columns(frame, {"score": score, "label": label, "model": model,
                                 "segment": segment, "condition": condition, "weight": weight},
                         what=what)
    if ("model" in cols) != ("segment" in cols):
        have, lack = ("model", "segment") if "model" in cols else ("segment", "model")
        raise DataError(f"{what} has a {have} column ({cols[have]!r}) but no {lack} column: "
                        f"name both (model=, segment=) or neither")
    scores = _finite_column(frame, cols["score"], what)
    labels = as_labels(frame[cols["label"]], f"column {cols['label']!r} of {what}",
                       index=frame.index)
    values = {"scores": scores, "labels": labels}
    if "weight" in cols:
        w = _finite_column(frame, cols["weight"], what)
        if (w < 0).any():
            i = int(np.argmax(w < 0))
            raise DataError(f"column {cols['weight']!r} of {what} has negative weights; the "
                            f"first is {float(w[i])!r} at index {_row(frame.index, i)}")
        values["weights"] = w
        _data_error(_check_class_weights, what, w, labels)
    if "condition" in cols:
        values["conditions"] = _id_codes(frame, cols["condition"], what)
    model_ids = segment_ids = None
    if "model" in cols:
        table = table_from_ids(what, _id_codes(frame, cols["model"], what),
                               _id_codes(frame, cols["segment"], what), values)
        keep, _ = _data_error(deduplicate, table, ("scores", "labels"), "score and label")
        if keep is not None:
            table = table.subset(keep)
        values = table.values
        model_ids, segment_ids = table.model_idcodes(), table.segment_idcodes()
    return Trials(values["scores"], values["labels"], values.get("weights"),
                  values.get("conditions"), model_ids, segment_ids, source=what)
