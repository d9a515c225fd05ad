"""Condition files: ``model segment condition`` per line, joined into ``Trials.conditions``.

A condition (e.g. "tel-tel", "mic-tel", a language, a duration bin) labels each trial so that
measures can pool conditions with equal weight (van Leeuwen 2008, seed 001).  The file is
joined to the trials on (model, segment) like a key to a score file: trials without a
condition, and condition lines without a trial, are counted and reported with a
:class:`~llrlab.core.errors.LlrlabWarning` and in the :class:`JoinReport`; only the trials
that have a condition are kept.
"""

from __future__ import annotations

import os

from ..errors import DataError
from ..trials import Trials
from ._text import choose_delimiter, encode_ids, read_bytes, split_table
from .bosaris_text import Table, join_tables, require_both_classes, table_from_ids

__all__ = ["attach_conditions_with_report", "read_condition_table"]


def read_condition_table(path, data=None):
    """A condition file as a Table with the value column ``"conditions"``."""
    name = os.fspath(path)
    if data is None:
        data = read_bytes(name)
    tt = split_table(name, data, ncols=(3,), describe="model segment condition",
                     delimiter=choose_delimiter(name, data, (3,)))
    mc, mv = encode_ids(tt.column(0))
    sc, sv = encode_ids(tt.column(1))
    cc, cv = encode_ids(tt.column(2))
    return Table(name, mc, mv, sc, sv, {"conditions": cv[cc]}, tt)


def attach_conditions_with_report(trials, path, *, progress=None):
    """Trials with the conditions of a condition file, and the JoinReport.

    See :func:`llrlab.core.io.attach_conditions`.
    """
    if not isinstance(trials, Trials):
        raise DataError(f"attach_conditions needs Trials, got {type(trials).__name__}")
    if not trials.has_ids:
        raise DataError(f"{trials.source or 'the trials'} have no (model, segment) ids, so "
                        f"conditions cannot be joined to them")
    name = os.fspath(path)
    if progress:
        progress(0.0, f"reading {name}")
    cond = read_condition_table(name)
    if progress:
        progress(0.5, f"joining {name}")
    left = table_from_ids(trials.source or "the trials", trials.model_ids, trials.segment_ids)
    li, ri, report = join_tables(left, cond, compare_right=("conditions",),
                                 left_what="ids", right_what="condition", left_role="",
                                 right_role="condition")
    out = trials.subset(li) if li.size != len(trials) else trials
    out = Trials(out.scores, out.labels, out.weights, cond.values["conditions"][ri],
                 out.model_ids, out.segment_ids, out.source)
    if li.size != len(trials):
        require_both_classes(out)
    if progress:
        progress(1.0, f"joined {name}")
    return out, report
