"""The data model: the one type every loader produces and every measure consumes.

A :class:`Trials` holds one score per trial, its label (target or non-target), and optionally
a weight, a condition label and the (model, segment) ids that name the trial.  A
:class:`Scores` is the same without labels (scores to be calibrated or fused, an "Ndx" with
scores).  Both are frozen; selecting or re-scoring returns a new object.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validate import as_scores, as_weights
from .errors import DataError

__all__ = ["Scores", "Trials", "factorize", "trial_keys"]


def _as_ids(x, n, name):
    if x is None:
        return None
    a = np.asarray(x)
    if a.dtype.kind not in "UO":
        a = a.astype(str)
    if a.shape != (n,):
        raise DataError(f"{name} has {a.size} entries for {n} trials")
    return a


def trial_keys(model_ids, segment_ids):
    """One string per trial, ``model + '\\x1f' + segment``, used to join files on trial id.

    The unit separator (U+001F) cannot occur in whitespace-separated ids, so distinct
    (model, segment) pairs give distinct keys.
    """
    return np.char.add(np.char.add(np.asarray(model_ids, dtype=str), "\x1f"),
                       np.asarray(segment_ids, dtype=str))


#: With more distinct values than this, :func:`factorize` sorts instead of comparing.
_FACTORIZE_SCAN = 32


def factorize(values):
    """``(names, codes)`` of an array of labels: ``numpy.unique(values, return_inverse=True)``.

    Conditions take few distinct values over many trials: one vectorized comparison per
    distinct value (``O(C n)``) is then far cheaper than sorting ``n`` strings; with more
    than a few dozen values it falls back to ``numpy.unique``.

    Examples
    --------
    >>> names, codes = factorize(np.array(["tel", "mic", "tel", "far"]))
    >>> names.tolist(), codes.tolist()
    (['far', 'mic', 'tel'], [2, 1, 2, 0])
    """
    values = np.asarray(values)
    codes = np.full(values.size, -1, dtype=np.intp)
    found = []
    while len(found) <= _FACTORIZE_SCAN:
        todo = np.flatnonzero(codes < 0)[:1]
        if todo.size == 0:
            names = np.array(found, dtype=values.dtype) if found else values[:0]
            order = np.argsort(names, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            return names[order], rank[codes] if codes.size else codes
        v = values[todo[0]]
        codes[values == v] = len(found)
        found.append(v)
    names, codes = np.unique(values, return_inverse=True)
    return names, codes.ravel()


@dataclass(frozen=True, eq=False)
class Scores:
    """Unlabelled scores, optionally named by (model, segment) ids.

    Attributes
    ----------
    scores : ndarray of float64, shape (n,)
    model_ids, segment_ids : ndarray of str, shape (n,), or None
    conditions : ndarray of str, shape (n,), or None
    source : str
        Where the scores came from (a file name), for messages.
    """

    scores: np.ndarray
    model_ids: np.ndarray | None = None
    segment_ids: np.ndarray | None = None
    conditions: np.ndarray | None = None
    source: str = ""

    def __post_init__(self):
        s = as_scores(self.scores, f"scores of {self.source or 'the score set'}")
        n = s.size
        object.__setattr__(self, "scores", s)
        object.__setattr__(self, "model_ids", _as_ids(self.model_ids, n, "model ids"))
        object.__setattr__(self, "segment_ids", _as_ids(self.segment_ids, n, "segment ids"))
        object.__setattr__(self, "conditions", _as_ids(self.conditions, n, "conditions"))
        if (self.model_ids is None) != (self.segment_ids is None):
            raise DataError("model ids and segment ids must be given together")

    def __len__(self):
        return self.scores.size

    @property
    def has_ids(self):
        return self.model_ids is not None

    def keys(self):
        """Trial keys (see :func:`trial_keys`); raises if the scores carry no ids."""
        if not self.has_ids:
            raise DataError(f"{self.source or 'the score set'} has no (model, segment) ids")
        return trial_keys(self.model_ids, self.segment_ids)

    def with_scores(self, scores):
        """The same trials with new scores (e.g. calibrated LLRs)."""
        return Scores(scores, self.model_ids, self.segment_ids, self.conditions, self.source)

    def subset(self, index):
        """The trials selected by a boolean mask or an integer index array."""
        def pick(a):
            return (None if a is None else a[index])
        return Scores(self.scores[index], pick(self.model_ids), pick(self.segment_ids),
                      pick(self.conditions), self.source)


@dataclass(frozen=True, eq=False)
class Trials:
    """Labelled trials: a score, a target/non-target label and optional extras per trial.

    Attributes
    ----------
    scores : ndarray of float64, shape (n,)
        One score (larger favours target) per trial; finite.
    labels : ndarray of bool, shape (n,)
        True for a target trial, False for a non-target trial.
    weights : ndarray of float64, shape (n,), or None
        Non-negative per-trial weights; None means every trial counts once.
    conditions : ndarray of str, shape (n,), or None
        A condition label per trial (for condition-weighted pooling).
    model_ids, segment_ids : ndarray of str, shape (n,), or None
        The two sides of each trial, as in BOSARIS score and key files.
    source : str
        Where the trials came from, for messages.

    Examples
    --------
    >>> t = Trials.from_tar_non([2.0, 3.0], [-1.0, 0.5, 0.0])
    >>> t.n_tar, t.n_non
    (2, 3)
    >>> t.non
    array([-1. ,  0.5,  0. ])
    """

    scores: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None = None
    conditions: np.ndarray | None = None
    model_ids: np.ndarray | None = None
    segment_ids: np.ndarray | None = None
    source: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        where = self.source or "the trials"
        s = as_scores(self.scores, f"scores of {where}", allow_empty=True)
        n = s.size
        lab = np.asarray(self.labels)
        if lab.dtype != bool:
            if lab.dtype.kind in "iuf" and np.isin(lab, (0, 1)).all():
                lab = lab.astype(bool)
            else:
                raise DataError(f"labels of {where} must be booleans (True = target)")
        if lab.shape != (n,):
            raise DataError(f"{where}: {lab.size} labels for {n} scores")
        object.__setattr__(self, "scores", s)
        object.__setattr__(self, "labels", lab)
        object.__setattr__(self, "weights", as_weights(self.weights, n, f"weights of {where}"))
        object.__setattr__(self, "conditions", _as_ids(self.conditions, n, "conditions"))
        object.__setattr__(self, "model_ids", _as_ids(self.model_ids, n, "model ids"))
        object.__setattr__(self, "segment_ids", _as_ids(self.segment_ids, n, "segment ids"))
        if (self.model_ids is None) != (self.segment_ids is None):
            raise DataError("model ids and segment ids must be given together")

    @classmethod
    def from_tar_non(cls, tar, non, *, source=""):
        """Trials from separate target and non-target score arrays."""
        tar = as_scores(tar, "target scores", allow_empty=True)
        non = as_scores(non, "non-target scores", allow_empty=True)
        labels = np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)])
        return cls(np.concatenate([tar, non]), labels, source=source)

    def __len__(self):
        return self.scores.size

    @property
    def tar(self):
        """Target scores, in file order (cached)."""
        if "tar" not in self._cache:
            self._cache["tar"] = self.scores[self.labels]
        return self._cache["tar"]

    @property
    def non(self):
        """Non-target scores, in file order (cached)."""
        if "non" not in self._cache:
            self._cache["non"] = self.scores[~self.labels]
        return self._cache["non"]

    def sorted(self):
        """Target and non-target scores sorted once, with cumulative weights (cached).

        The :class:`~llrlab.core._sorting.SortedScores` every order-based measure starts
        from; measures given this Trials object share it instead of sorting again.
        """
        if "sorted" not in self._cache:
            from ._sorting import sort_scores

            t = self.require_both_classes()
            self._cache["sorted"] = sort_scores(t.tar, t.non, tar_weights=t.tar_weights,
                                                non_weights=t.non_weights)
        return self._cache["sorted"]

    def condition_index(self):
        """``(names, codes)``: the distinct conditions, sorted, and each trial's index into
        them (cached; None when the trials have no conditions).  ``names[codes]`` equals
        ``conditions``, as ``numpy.unique(conditions, return_inverse=True)`` gives."""
        if self.conditions is None:
            return None
        if "conditions" not in self._cache:
            self._cache["conditions"] = factorize(self.conditions)
        return self._cache["conditions"]

    @property
    def tar_weights(self):
        return None if self.weights is None else self.weights[self.labels]

    @property
    def non_weights(self):
        return None if self.weights is None else self.weights[~self.labels]

    @property
    def n_tar(self):
        return int(np.count_nonzero(self.labels))

    @property
    def n_non(self):
        return int(self.labels.size - np.count_nonzero(self.labels))

    @property
    def has_ids(self):
        return self.model_ids is not None

    def require_both_classes(self):
        """Raise :class:`DataError` unless there is at least one target and one non-target."""
        where = self.source or "the trials"
        if self.n_tar == 0:
            raise DataError(f"{where} has no target trials; every measure needs both classes")
        if self.n_non == 0:
            raise DataError(f"{where} has no non-target trials; every measure needs both classes")
        return self

    def keys(self):
        """Trial keys (see :func:`trial_keys`); raises if the trials carry no ids."""
        if not self.has_ids:
            raise DataError(f"{self.source or 'the trials'} have no (model, segment) ids")
        return trial_keys(self.model_ids, self.segment_ids)

    def unlabelled(self):
        """The scores and ids without labels, as a :class:`Scores`."""
        return Scores(self.scores, self.model_ids, self.segment_ids, self.conditions,
                      self.source)

    def with_scores(self, scores, *, source=None):
        """The same trials with new scores (e.g. calibrated LLRs)."""
        return Trials(scores, self.labels, self.weights, self.conditions, self.model_ids,
                      self.segment_ids, self.source if source is None else source)

    def with_weights(self, weights):
        """The same trials with new per-trial weights (None removes them)."""
        return Trials(self.scores, self.labels, weights, self.conditions, self.model_ids,
                      self.segment_ids, self.source)

    def subset(self, index, *, source=None):
        """The trials selected by a boolean mask or an integer index array."""
        def pick(a):
            return (None if a is None else a[index])
        return Trials(self.scores[index], self.labels[index], pick(self.weights),
                      pick(self.conditions), pick(self.model_ids), pick(self.segment_ids),
                      self.source if source is None else source)
