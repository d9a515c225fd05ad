"""The one place where llrlab checks numeric input.

Every public measure passes its arrays through these functions, so that bad input always
produces the same precise :class:`~llrlab.core.errors.DataError`.
"""

from __future__ import annotations

import numpy as np

from ._parallel import map_chunks
from .errors import DataError, UnknownNameError

__all__ = ["as_number", "as_plo", "as_scores", "as_tar_non", "as_weights", "check_sorted",
           "choose"]


def as_scores(x, name="scores", *, allow_empty=False, allow_inf=False, scan=True):
    """Return ``x`` as a 1-D float64 array after checking it is finite and non-empty.

    With ``scan=False`` the values are not looked at (no pass over them): for a caller that
    sorts them next and checks the sorted ends with :func:`check_sorted` (NaN sorts last,
    infinities first and last), which raises the same error as the scan.
    """
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name} must be numbers: {exc}") from None
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise DataError(f"{name} must be a 1-D array, got shape {a.shape}")
    if a.size == 0 and not allow_empty:
        raise DataError(f"{name} is empty: at least one trial is needed")
    if not scan or _none_in_chunks(np.isnan if allow_inf else _not_finite, a):
        return a
    bad = np.isnan(a) if allow_inf else ~np.isfinite(a)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        what = "NaN" if allow_inf else "NaN or infinite"
        raise DataError(
            f"{name} has {int(bad.sum())} {what} value(s); the first is {a[i]!r} at index {i}"
        )
    return a


def _not_finite(a):
    return ~np.isfinite(a)


def _none_in_chunks(test, a):
    """True when no element of ``a`` passes ``test`` (an elementwise boolean function),
    checked chunk by chunk in llrlab's threads while each chunk is in cache (no boolean
    array of ``a``'s length)."""
    return not any(map_chunks(lambda sl: bool(test(a[sl]).any()), a.size))


def check_sorted(sorted_x, x, name="scores", *, allow_inf=False):
    """After ``sorted_x = numpy.sort(x)`` of scores taken with ``as_scores(..., scan=False)``:
    raise the error of :func:`as_scores` if ``x`` holds NaN (numpy sorts NaN last) or, unless
    ``allow_inf``, an infinite value (sorted first or last).  O(1) when the scores are good."""
    if sorted_x.size == 0:
        return
    lo, hi = sorted_x[0], sorted_x[-1]
    if np.isnan(hi) or (not allow_inf and (np.isinf(lo) or np.isinf(hi))):
        as_scores(x, name, allow_empty=True, allow_inf=allow_inf)


def as_tar_non(tar, non, *, allow_inf=False, scan=True):
    """Validate a pair of target / non-target score arrays (both classes must be present);
    ``scan`` as in :func:`as_scores`."""
    return (
        as_scores(tar, "target scores", allow_inf=allow_inf, scan=scan),
        as_scores(non, "non-target scores", allow_inf=allow_inf, scan=scan),
    )


def as_weights(w, n, name="weights"):
    """Return per-trial weights as float64 of length ``n`` (``None`` stays ``None``)."""
    if w is None:
        return None
    a = as_scores(w, name, allow_empty=(n == 0))
    if a.shape != (n,):
        raise DataError(f"{name} has {a.size} values for {n} trials")
    if not _none_in_chunks(lambda v: v < 0, a):
        i = int(np.flatnonzero(a < 0)[0])
        raise DataError(f"{name} must be >= 0; found {a[i]!r} at index {i}")
    # finite, non-negative weights sum to more than 0 exactly when one is positive
    if _none_in_chunks(lambda v: v > 0, a):
        raise DataError(f"{name} sum to zero: no trial would count")
    return a


def as_plo(plo, name="prior log-odds"):
    """Prior log-odds as a float64 array (scalar input gives a 0-d array); NaN is refused."""
    try:
        a = np.asarray(plo, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(f"{name} must be numbers, got {_brief(plo)}") from None
    if np.isnan(a).any():
        raise DataError(f"{name} must not be NaN")
    return a


def as_number(x, name):
    """``x`` as a Python float, or a :class:`DataError` naming the argument ``name``."""
    try:
        return float(x)
    except (TypeError, ValueError):
        raise DataError(f"{name} must be a number, got {_brief(x)}") from None


def _normal(text):
    return "".join(c for c in text.lower() if c not in "_- ")


def choose(value, choices, what):
    """The entry of ``choices`` that ``value`` names, ignoring case, ``_``, ``-`` and spaces
    ("EER", "minDCF" and "min-dcf" name "eer" and "min_dcf"); else an
    :class:`~llrlab.core.errors.UnknownNameError` that lists the valid names.

    Examples
    --------
    >>> choose("minDCF", ("cllr", "min_dcf", "act_dcf", "eer"), "measure")
    'min_dcf'
    >>> try:
    ...     choose("dcf", ("cllr", "min_dcf"), "measure")
    ... except KeyError as exc:  # an UnknownNameError: a DataError and a KeyError
    ...     print(exc)
    unknown measure 'dcf'; choose one of 'cllr', 'min_dcf'
    """
    if isinstance(value, str):
        hits = [c for c in choices if _normal(c) == _normal(value)]
        if len(hits) == 1:
            return hits[0]
    raise UnknownNameError(f"unknown {what} {_brief(value)}; choose one of "
                           + ", ".join(repr(c) for c in choices))


def _brief(v):
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."
