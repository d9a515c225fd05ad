"""Views that compute only while they are shown (e.g. in a tab that is not open)."""

from __future__ import annotations

import functools

__all__ = ["when_shown"]


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
