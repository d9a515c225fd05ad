"""What a figure function takes: one score set or several named systems, as Analyses.

Every figure of :mod:`llrlab.core.plot` takes its data as the measures of
:mod:`llrlab.core` do -- target and non-target scores ``(tar, non)``, a
:class:`~llrlab.core.Trials` or an :class:`~llrlab.core.Analysis` -- or several systems as
a mapping ``{name: data}`` (each value any of these, or a ``(tar, non)`` tuple).  Each set
is analysed once (:func:`~llrlab.core.analyze`: one sort); an ``Analysis`` is used as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..analysis import Analysis, analyze
from ..errors import DataError
from ..palette import COLORS, system_style
from ..trials import Trials

__all__ = ["System", "pairs", "systems"]


@dataclass(frozen=True)
class System:
    """One system of a figure.

    Attributes
    ----------
    name : str or None
        Its legend name (None: an unnamed single set).
    analysis : Analysis
    color, marker : str
        Its colour and marker glyph (:func:`llrlab.core.palette.system_style`), used when
        several systems share a plot.
    """

    name: str | None
    analysis: Analysis
    color: str
    marker: str


def _analysis(value, name):
    if isinstance(value, Analysis):
        return value
    if isinstance(value, Trials):
        return analyze(value, plo=[])
    if isinstance(value, tuple) and len(value) == 2 and not np.isscalar(value[0]):
        return analyze(value[0], value[1], plo=[])
    what = f"system {name!r}" if name is not None else "the data"
    raise DataError(f"{what}: give (tar, non) scores, a Trials or an Analysis, got "
                    f"{type(value).__name__}")


def _named(data):
    if not isinstance(data, Mapping):
        return None
    if not data:
        raise DataError("no system to draw: the mapping of systems is empty")
    return [(str(k), v) for k, v in data.items()]


def systems(data, non=None):
    """The systems of a figure, in order (see the module docstring)."""
    if non is not None:
        items = [(None, analyze(data, non, plo=[]))]
    else:
        named = _named(data)
        items = ([(None, _analysis(data, None))] if named is None
                 else [(k, _analysis(v, k)) for k, v in named])
    out = []
    for i, (name, a) in enumerate(items):
        style = system_style(i)
        out.append(System(name, a, style.color, style.marker))
    return out


def pairs(data):
    """``[(name, value)]`` of a figure of pairs (EPC: ``(dev, eval)`` per system), with
    ``name`` None for a single unnamed value."""
    named = _named(data)
    return [(None, data)] if named is None else named


def single_color(role):
    """The colour of ``role`` in a plot of one system (the dashboard's meaning)."""
    return COLORS[role]
