"""Short ``repr`` for result objects: one line with the key numbers, never the arrays.

A result of llrlab may hold arrays of 10^7 sorted scores; its dataclass ``repr`` printed
thousands of numbers when a user typed the variable in a REPL.  :func:`summary_repr` gives a
class a ``repr`` that names only the chosen fields, each formatted briefly: numbers with 6
significant digits, arrays as their length and first and last values, nested results by
their own short ``repr``.

Examples
--------
>>> from dataclasses import dataclass
>>> import numpy as np
>>> @summary_repr("eer", "grid")
... @dataclass
... class R:
...     eer: float
...     grid: np.ndarray
...     big: np.ndarray
>>> R(0.1234567891, np.linspace(-10, 10, 1001), np.zeros(10**6))
R(eer=0.123457, grid=<1001 values -10..10>)
"""

from __future__ import annotations

import numpy as np

__all__ = ["brief", "summary_repr"]

#: Nested objects whose repr is longer than this are shown by their class name only.
_NESTED = 120


def brief(v):
    """``v`` formatted in a few characters (see the module docstring)."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, str):
        return repr(v if len(v) <= 40 else v[:37] + "...")
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return brief(v[()])
        if v.ndim == 1:
            if v.size <= 3:
                return "[" + ", ".join(brief(x) for x in v.tolist()) + "]"
            return f"<{v.size} values {brief(v[0])}..{brief(v[-1])}>"
        return f"<array of shape {v.shape}>"
    if isinstance(v, (tuple, list)):
        if len(v) <= 3 and all(not isinstance(x, (tuple, list)) for x in v):
            inner = ", ".join(brief(x) for x in v)
            if len(inner) <= _NESTED:
                return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
        kinds = sorted({type(x).__name__ for x in v})
        return f"<{len(v)} {kinds[0] if len(kinds) == 1 else 'items'}>"
    if v is None:
        return "None"
    text = repr(v)
    return text if len(text) <= _NESTED else f"{type(v).__name__}(...)"


def summary_repr(*names):
    """Class decorator: ``repr`` shows only the fields or properties ``names`` (apply it
    above ``@dataclass``, which would otherwise write its own)."""

    def decorate(cls):
        def __repr__(self):
            parts = ", ".join(f"{n}={brief(getattr(self, n))}" for n in names)
            return f"{type(self).__name__}({parts})"

        cls.__repr__ = __repr__
        return cls

    return decorate
