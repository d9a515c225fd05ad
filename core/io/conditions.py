"""Condition files: ``model segment condition`` per line, joined into ``Trials.conditions``.

A condition (e.g. "tel-tel", "mic-tel", a language, a duration bin) labels each trial so that
measures can pool conditions with equal weight (van Leeuwen 2008).  The file is
joined to the trials on (model, segment) like a key to a score file: trials without a
condition, and condition lines without a trial, are counted and reported with a
:class:`~llrlab.core.errors.LlrlabWarning` and in the :class:`JoinReport`; only the trials
that have a condition are kept.
"""

from __future__ import annotations

from ..errors import DataError
from ..trials import Trials
from ._columns import ID, Col
from ._formats import read_as
from ._source import Source, make_limits, path_name
from .bosaris_text import (
    as_source,
    join_tables,
    read_text_table,
    require_both_classes,
    table_of,
)

__all__ = ["attach_conditions_with_report", "read_condition_table"]


def read_condition_table(path, data=None, *, limits=None, fast=True):
    """A condition file as a Table with the value column ``"conditions"`` (IdCodes).

    ``data``: the content, if already read (``path`` then only names it).
    """
    src = (Source(path_name(path), None, data, "text", len(data)) if data is not None
           else as_source(path, limits))
    return read_text_table(src, ((3, "model segment condition"),),
                           {3: [("conditions", Col(ID, "condition"))]}, limits=limits,
                           fast=fast)


def attach_conditions_with_report(trials, path, *, progress=None, max_trials=None,
                                  max_bytes=None, limits=None):
    """Trials with the conditions of a condition file, and the JoinReport.

    See :func:`llrlab.core.io.attach_conditions`.
    """
    if not isinstance(trials, Trials):
        raise DataError(f"attach_conditions needs Trials, got {type(trials).__name__}")
    if not trials.has_ids:
        raise DataError(f"{trials.source or 'the trials'} have no (model, segment) ids, so "
                        f"conditions cannot be joined to them")
    limits = make_limits(max_trials, max_bytes, limits)
    src = as_source(path, limits)
    if progress:
        progress(0.0, f"reading {src.name}")
    cond = read_as(src, "conditions", limits=limits)[0]
    if progress:
        progress(0.5, f"joining {src.name}")
    left = table_of(trials, trials.source or "the trials")
    li, ri, report = join_tables(left, cond, compare_right=("conditions",),
                                 left_what="ids", right_what="condition", left_role="",
                                 right_role="condition")
    out = trials.subset(li) if li.size != len(trials) else trials
    out = out.with_conditions(cond.values["conditions"].take(ri))
    if li.size != len(trials):
        require_both_classes(out)
    if progress:
        progress(1.0, f"joined {src.name}")
    return out, report
