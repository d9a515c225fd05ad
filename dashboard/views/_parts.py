"""Where a view finds the state's display options and operating point.

The dashboard's state keeps them either on itself (``state.plo``, ``state.show_dev``) or, split
by concern, in parts (``state.point.plo``, ``state.display.show_dev``).  The views written
with these helpers (Tippett, reliability, export) read and watch the right object either way.
"""

from __future__ import annotations

import functools

__all__ = ["part", "watch", "when_shown"]


def part(state, name):
    """``state.<name>`` (``"display"``, ``"point"``) when the state has that part, else the
    state itself, which then holds the part's parameters."""
    p = getattr(state, name, None)
    return state if p is None or not hasattr(p, "param") else p


def watch(obj, names, fn):
    """Call ``fn()`` when any of the parameters ``names`` of ``obj`` changes."""
    obj.param.watch(lambda *_: fn(), list(names))


def when_shown(method):
    """Run a view's update only while the view is shown (its ``active`` parameter); when it
    is hidden, remember that it is stale (``_stale``), to refresh it when shown again."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        if not self.active:
            self._stale = True
            return None
        return method(self, *args, **kwargs)

    return run
