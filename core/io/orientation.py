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
from contextlib import contextmanager

__all__ = ["higher_is_target", "oriented", "score_orientation"]

_HIGHER = contextvars.ContextVar("llrlab_higher_is_target", default=True)


@contextmanager
def score_orientation(*, higher_is_target=True):
    """Within the block, the loaders negate the scores when ``higher_is_target`` is False."""
    token = _HIGHER.set(bool(higher_is_target))
    try:
        yield
    finally:
        _HIGHER.reset(token)


def higher_is_target():
    """True unless inside ``score_orientation(higher_is_target=False)``."""
    return _HIGHER.get()


def oriented(data):
    """``data`` (Trials or Scores) with its scores negated when they are distances."""
    if _HIGHER.get() or data is None or not hasattr(data, "with_scores"):
        return data
    return data.with_scores(-data.scores)
