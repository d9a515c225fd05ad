"""Which way the scores point: larger favours the target (similarities, LLRs) or the
non-target (distances).

Every measure of llrlab takes a larger score as more in favour of the target.  Scores that
are distances (cosine or Euclidean distances, Hamming distances of iris codes) point the
other way; under :func:`score_orientation` with ``higher_is_target=False`` every loader of
:mod:`llrlab.core.io` (:func:`~llrlab.core.io.load_trials`,
:func:`~llrlab.core.io.read_score_file`, :func:`~llrlab.core.io.load_genuine_impostor`)
returns the scores negated, so that every command, measure and plot sees similarities
(``llrlab CMD --distance`` or ``--higher-is-target false``).  Negation is the
order-reversing map that keeps differences: EER, min DCF, min Cllr and the DET curve of
``-d`` are those of the distances read the right way round (bob.measure and pyeer ask for
the same convention: "higher scores are more likely genuine").
"""

from __future__ import annotations

import contextvars
import math
from contextlib import contextmanager

__all__ = ["LLR_UNITS", "higher_is_target", "in_llr_unit", "llr_unit", "oriented",
           "score_factor", "score_orientation"]

_HIGHER = contextvars.ContextVar("llrlab_higher_is_target", default=True)
_UNIT = contextvars.ContextVar("llrlab_llr_unit", default="ln")

#: The logarithms an LLR may be given in, as the factor that turns it into natural log:
#: ``ln`` (nats, llrlab's own unit), ``log10`` (bans; forensic reports quote log10 LRs) and
#: ``bits`` (log2).  ``llr_nats = factor * llr_in_unit``.
LLR_UNITS = {"ln": 1.0, "log10": math.log(10.0), "bits": math.log(2.0)}


@contextmanager
def score_orientation(*, higher_is_target=True, unit="ln"):
    """Within the block, the loaders negate the scores when ``higher_is_target`` is False,
    and read LLRs given in ``unit`` (see :data:`LLR_UNITS`) as natural-log LLRs;
    :func:`in_llr_unit` writes them back in that unit."""
    if unit not in LLR_UNITS:
        from ..errors import DataError

        raise DataError(f"unknown LLR unit {unit!r}; known: {', '.join(LLR_UNITS)}")
    tokens = (_HIGHER.set(bool(higher_is_target)), _UNIT.set(unit))
    try:
        yield
    finally:
        _UNIT.reset(tokens[1])
        _HIGHER.reset(tokens[0])


def llr_unit():
    """The LLR unit in force (``"ln"`` unless inside ``score_orientation(unit=...)``)."""
    return _UNIT.get()


def in_llr_unit(data):
    """``data`` (Trials or Scores) holding natural-log LLRs, with them in the unit in force
    (for writing)."""
    factor = LLR_UNITS[_UNIT.get()]
    return data if factor == 1.0 else data.with_scores(data.scores / factor)


def higher_is_target():
    """True unless inside ``score_orientation(higher_is_target=False)``."""
    return _HIGHER.get()


def score_factor():
    """What a score read is multiplied by under the orientation and unit in force: -1 for
    distances, times the unit's factor to natural log (1.0 for llrlab's own scores)."""
    return LLR_UNITS[_UNIT.get()] * (1.0 if _HIGHER.get() else -1.0)


def oriented(data):
    """``data`` (Trials or Scores) as read: its scores negated when they are distances, and
    turned into natural-log LLRs from the unit in force."""
    factor = score_factor()
    if factor == 1.0 or data is None or not hasattr(data, "with_scores"):
        return data
    return data.with_scores(factor * data.scores)
