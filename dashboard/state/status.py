"""The session's status: what runs in the background, its progress, and the messages shown
above the plots."""

from __future__ import annotations

import param

__all__ = ["StatusState"]


class StatusState(param.Parameterized):
    """Busy flag, progress, error and notice of one session (outputs only: set by the other
    parts, read by the page)."""

    busy = param.Boolean(default=False, precedence=-1, doc="""
        A tracked background job is running.""")
    progress = param.Number(default=None, allow_None=True, bounds=(0.0, 1.0), precedence=-1,
                            doc="Its progress (None: unknown).")
    message = param.String(default="", precedence=-1, doc="""
        What it does (e.g. 'loading demo_A_eval_scores.h5').""")
    error = param.String(default="", precedence=-1, doc="""
        One line about the last failure ('' when dismissed or after new data).""")
    notice = param.String(default="", precedence=-1, doc="""
        Things the user should know about the shown results (warnings of the core, notes).""")

    def __init__(self, **params):
        super().__init__(**params)
        self._active = 0

    def begin(self, what):
        """A job starts (jobs may overlap: busy until the last one ends)."""
        self._active += 1
        self.param.update(busy=True, message=what, progress=None)

    def end(self):
        self._active = max(self._active - 1, 0)
        if self._active == 0:
            self.param.update(busy=False, message="", progress=None)

    def step(self, fraction, message=""):
        """Progress of the running job."""
        self.param.update(progress=float(min(max(fraction, 0.0), 1.0)), message=str(message))

    def clear_error(self):
        self.error = ""
