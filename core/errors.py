"""Exceptions and warnings raised by llrlab.

Every problem with user input is reported by raising a subclass of :class:`LlrlabError`
(itself a :class:`ValueError`), with a message that says which file, which line and what is
wrong, so that the command line and the dashboard can show it as one clear sentence instead
of a traceback.  Results that are mathematically undefined (for example an EER with no
non-targets) are reported with :class:`LlrlabWarning`.
"""

from __future__ import annotations

__all__ = [
    "DataError",
    "FileFormatError",
    "LlrlabError",
    "LlrlabWarning",
    "SeparableDataWarning",
    "UnknownNameError",
]


class LlrlabError(ValueError):
    """Base class of every input error that llrlab reports to the user."""


class DataError(LlrlabError):
    """Scores, labels or weights that no measure can be computed from.

    Examples: NaN or infinite scores, an empty class, labels and scores of different lengths.
    """


class UnknownNameError(DataError, KeyError):
    """A measure, method or option named by a string that is not one of the valid names.

    The message lists the valid names.  Also a :class:`KeyError`, for code that looks a
    measure up by name and catches that (its message is printed as written, unquoted).
    """

    __str__ = DataError.__str__


class FileFormatError(LlrlabError):
    """A score, key or model file that cannot be read.

    Parameters
    ----------
    path : str
        The file (as the user named it).
    message : str
        What is wrong, in one sentence.
    line : int, optional
        The 1-based line number in a text file, when the problem is on one line.
    text : str, optional
        The offending text (shortened to 80 characters).
    """

    def __init__(self, path, message, *, line=None, text=None):
        self.path = str(path)
        self.line = line
        self.text = text
        self.reason = message
        where = self.path if line is None else f"{self.path}, line {line}"
        full = f"{where}: {message}"
        if text is not None:
            shown = text if len(text) <= 80 else text[:77] + "..."
            full += f": {shown!r}"
        super().__init__(full)


class LlrlabWarning(UserWarning):
    """A result is undefined or unreliable (it is returned as NaN or flagged)."""


class SeparableDataWarning(LlrlabWarning):
    """Calibration data are perfectly separable: the unregularised optimum is at infinity."""
