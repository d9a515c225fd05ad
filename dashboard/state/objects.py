"""Scores held in Python objects (a notebook's arrays and frames) as the dashboard's systems.

:func:`systems_from_objects` recognises what a notebook holds and turns it into
``{system name: SystemData(dev, eval)}``, the form :meth:`.data.DataState.set_systems` takes,
through the constructors a loaded file goes through (:class:`~llrlab.core.Trials`,
:func:`~llrlab.core.io.trials_from_frame`, :func:`~llrlab.core.io.as_labels`), so that arrays
become the same ``Trials`` a file with the same trials would.

One set of scores is any of:

* ``(tar, non)``: target and non-target scores, two arrays;
* ``(scores, labels)``: two arrays of one length, the second of labels -- booleans, 0/1,
  -1/+1 or label words such as ``target``/``nontarget`` (a pair of equal length whose second
  array holds only 0 and 1, or only -1 and +1, is read as scores and labels);
* a :class:`~llrlab.core.Trials`;
* a pandas DataFrame (or a frame with ``to_pandas()``) with a score and a label column,
  optionally model, segment, condition and weight columns (see
  :func:`~llrlab.core.io.trials_from_frame`).

The data of the dashboard are one set (the eval set of one system; ``dev=`` adds its dev
set), a DataFrame whose ``system`` and/or ``role`` columns (``dev``/``eval``) split it into
systems and sets, ``{"dev": set, "eval": set}`` (one system), or a dict of systems
``{name: set}`` (eval sets) or ``{name: {"dev": set, "eval": set}}``.  Every problem raises
one :class:`~llrlab.core.DataError` line naming the system and set, what was recognised and
what to do.  No Panel import here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from llrlab.core import DataError, Trials
from llrlab.core.io import as_labels, trials_from_frame
from llrlab.core.io.frame import frame_columns

from ..compute import SystemData

__all__ = ["MAX_SYSTEMS", "ROLES", "systems_from_objects"]

#: The sets of a system.
ROLES = ("dev", "eval")
#: Most systems one dashboard takes (a wrong ``system`` column would make thousands).
MAX_SYSTEMS = 50
#: Default system name of data that name none.
DEFAULT_NAME = "system"

_FORMS = ("(tar, non) arrays, (scores, labels) arrays, a Trials, a pandas DataFrame, or a "
          "dict of systems ({name: data} or {name: {'dev': data, 'eval': data}})")
_SPLIT = {"system": "system", "role": "role"}


def _is_frame(x):
    if hasattr(x, "columns") and (hasattr(x, "to_pandas") or hasattr(x, "iloc")):
        return True
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(x, pd.DataFrame)


def _kind(x):
    text = type(x).__name__
    if isinstance(x, (tuple, list)):
        text += f" of {len(x)}"
    return text


def _array(x):
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        return np.asarray(x.to_numpy(dtype=object))
    return np.asarray(x)


def _labels_like(b, n):
    """True when ``b`` (an array) holds labels for ``n`` scores rather than scores."""
    if b.ndim != 1:
        return False
    if b.dtype == bool or b.dtype.kind in "US":
        return True
    if b.dtype == object:
        return not all(isinstance(v, (int, float, np.integer, np.floating))
                       and not isinstance(v, (bool, np.bool_)) for v in b.tolist()) \
            or _labels_like(b.astype(np.float64), n)
    if b.dtype.kind not in "iuf" or b.size != n:
        return False
    found = np.unique(b[np.isfinite(b)]) if b.dtype.kind == "f" else np.unique(b)
    return bool(found.size) and (np.isin(found, (0, 1)).all() or np.isin(found, (-1, 1)).all())


def _one_set(x, where, columns):
    """A Trials from one set of scores (see the module docstring), named ``where``."""
    try:
        if isinstance(x, Trials):
            t = x if x.source else x.with_source(where)
        elif _is_frame(x):
            t = trials_from_frame(x, source=where, **columns)
        elif isinstance(x, (tuple, list)) and len(x) == 2:
            t = _pair(x[0], x[1], where)
        else:
            raise DataError(f"cannot read a {_kind(x)} as scores; give {_FORMS}")
        return t.require_both_classes()
    except DataError as exc:
        text = str(exc)
        raise DataError(text if where in text else f"{where}: {text}") from None


def _pair(a, b, where):
    """``(tar, non)`` or ``(scores, labels)`` (see the module docstring)."""
    a, b_arr = _array(a), _array(b)
    n = a.size if a.ndim == 1 else -1
    if _labels_like(b_arr, n):
        if b_arr.size != n:
            raise DataError(f"read as (scores, labels), but there are {a.size} scores and "
                            f"{b_arr.size} labels; give one label per score")
        return Trials(a, as_labels(b_arr, "the labels"), source=where)
    return Trials.from_tar_non(a, b_arr, source=where)


def _roles(value, system, columns):
    """SystemData of one system: ``{"dev": set, "eval": set}``, a frame with a role column,
    or one set (its eval set)."""
    if isinstance(value, Mapping):
        bad = [k for k in value if k not in ROLES]
        if bad or not value:
            raise DataError(f"system {system!r}: a dict of sets takes the keys 'dev' and "
                            f"'eval', got {', '.join(repr(k) for k in value) or 'none'}")
        return SystemData(**{r: _one_set(v, f"system {system!r} {r}", columns)
                             for r, v in value.items() if v is not None})
    if _is_frame(value):
        return _frame_systems(value, columns, system=system)[system]
    return SystemData(eval=_one_set(value, f"system {system!r} eval", columns))


def _text_values(frame, col, what):
    """A system or role column as stripped text (a DataError at a missing value)."""
    s = frame[col]
    missing = s.isna().to_numpy()
    if missing.any():
        i = int(np.argmax(missing))
        raise DataError(f"column {col!r} of {what} has {int(missing.sum())} missing "
                        f"value(s); the first at index {frame.index[i]!r}")
    return s.astype(str).str.strip()


def _frame_systems(frame, columns, *, system=None, name=DEFAULT_NAME):
    """Systems of a frame, split by its system and role columns.

    ``system`` given: the frame is that system's (a value of a dict of systems) and has no
    system column of its own; ``columns`` holds the column names given by the caller
    (``system=`` and ``role=`` among them).
    """
    from llrlab.core.io.frame import _as_pandas

    frame = _as_pandas(frame)
    what = "the DataFrame" if system is None else f"the DataFrame of system {system!r}"
    names = {"role": columns.get("role")}
    if system is None:
        names["system"] = columns.get("system")
    elif columns.get("system") is not None:
        raise DataError(f"system {system!r}: system= names a column of a DataFrame given "
                        f"alone; in a dict of systems the keys name the systems")
    split = frame_columns(frame, names, known=_SPLIT, required=(), what=what)
    read = {k: v for k, v in columns.items() if k not in _SPLIT}
    keys = _text_values(frame, split["system"], what) if "system" in split else None
    role_values = None
    if "role" in split:
        role_values = _text_values(frame, split["role"], what).str.lower()
        bad = sorted(set(role_values.unique()) - set(ROLES))
        if bad:
            raise DataError(f"column {split['role']!r} of {what} holds the sets: 'dev' or "
                            f"'eval', found {', '.join(repr(b) for b in bad[:5])}")
    if keys is not None:
        distinct = list(dict.fromkeys(keys.tolist()))
        if len(distinct) > MAX_SYSTEMS:
            raise DataError(f"column {split['system']!r} of {what} names {len(distinct):,} "
                            f"systems (at most {MAX_SYSTEMS}); name the system column with "
                            f"system=")
    else:
        distinct = [system if system is not None else name]
    out = {}
    for s in distinct:
        rows = np.ones(len(frame), bool) if keys is None else (keys == s).to_numpy()
        sets = {}
        for r in ROLES:
            if role_values is None:
                if r == "dev":
                    continue
                sel = rows
            else:
                sel = rows & (role_values == r).to_numpy()
                if not sel.any():
                    continue
            where = f"system {s!r} {r}"
            if keys is not None or role_values is not None:
                where += " (rows of the DataFrame)"
            sets[r] = _one_set(frame[sel], where, read)
        out[s] = SystemData(**sets)
    return out


def systems_from_objects(data, *, dev=None, name=None, score=None, label=None, model=None,
                         segment=None, condition=None, weight=None, system=None, role=None):
    """``{system name: SystemData}`` of the scores a notebook holds (see the module
    docstring).

    Parameters
    ----------
    data
        One set of scores, ``{"dev": set, "eval": set}``, a dict of systems, or a DataFrame
        (split by its system and role columns when it has them).
    dev : optional
        The dev set of the system of ``data`` (one set only).
    name : str, optional
        The name of the system when the data name none (default ``"system"``).
    score, label, model, segment, condition, weight : str, optional
        The columns of DataFrames (found by name when not given: see
        :func:`~llrlab.core.io.trials_from_frame`).
    system, role : str, optional
        The columns of a DataFrame that name each trial's system and set (``dev`` or
        ``eval``); found by the names ``system`` and ``role`` when not given.

    Raises
    ------
    llrlab.core.DataError
        One line naming the system and set, what was recognised and what to do.

    Examples
    --------
    >>> systems = systems_from_objects(([2.0, 1.5, -0.5], [0.0, -1.0, -2.0, 1.0]))
    >>> list(systems), systems["system"].eval
    (['system'], Trials(n_tar=3, n_non=4, source="system 'system' eval"))
    >>> systems = systems_from_objects(([0.3, -1.2, 2.0], ["target", "nontarget", "tgt"]))
    >>> systems["system"].eval.labels.tolist()
    [True, False, True]
    """
    columns = {"score": score, "label": label, "model": model, "segment": segment,
               "condition": condition, "weight": weight, "system": system, "role": role}
    one = DEFAULT_NAME if name is None else str(name).strip() or DEFAULT_NAME
    if data is None:
        raise DataError(f"no scores given; give {_FORMS}")
    if isinstance(data, Mapping):
        if dev is not None:
            raise DataError("dev= adds the dev set of one set of scores; in a dict give each "
                            "system's {'dev': ..., 'eval': ...}")
        if not data:
            raise DataError(f"the dict of systems is empty; give {_FORMS}")
        if all(k in ROLES for k in data) and not any(isinstance(v, Mapping)
                                                      for v in data.values()):
            return {one: _roles(dict(data), one, columns)}
        if len(data) > MAX_SYSTEMS:
            raise DataError(f"{len(data):,} systems given; a dashboard takes at most "
                            f"{MAX_SYSTEMS}")
        out = {}
        for key, value in data.items():
            sname = str(key).strip()
            if not sname:
                raise DataError("a system name (a key of the dict) is empty")
            if sname in out:
                raise DataError(f"two systems are named {sname!r}")
            out[sname] = _roles(value, sname, columns)
        return out
    if _is_frame(data):
        if dev is not None:
            dev_set = _one_set(dev, f"system {one!r} dev",
                               {k: v for k, v in columns.items() if k not in _SPLIT})
            got = _frame_systems(data, columns, name=one)
            if len(got) != 1 or next(iter(got.values())).dev is not None:
                raise DataError("dev= adds the dev set of one set of scores; this DataFrame "
                                "has its own system or role column")
            ((sname, sd),) = got.items()
            return {sname: SystemData(dev=dev_set, eval=sd.eval)}
        return _frame_systems(data, columns, name=one)
    read = {k: v for k, v in columns.items() if k not in _SPLIT}
    sets = {"eval": _one_set(data, f"system {one!r} eval", read)}
    if dev is not None:
        sets["dev"] = _one_set(dev, f"system {one!r} dev", read)
    return {one: SystemData(**sets)}
