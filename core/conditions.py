"""Condition-weighted pooling of trials (van Leeuwen 2008).

An evaluation often mixes conditions (telephone and microphone trials, female and male
speakers, languages) in very unequal numbers, and the plain pool of all trials is dominated by
the largest condition.  van Leeuwen (2008) gives every condition ``alpha`` an externally chosen
weight ``w_alpha`` (summing to one) and defines the pooled error rates as weighted averages of the
per-condition ones (van Leeuwen 2008, sec. 3, eq. 1-4):

    Pmiss(t) = sum_alpha w_alpha * Pmiss_alpha(t),    Pfa(t) = sum_alpha w_alpha * Pfa_alpha(t).

The same numbers come from one pass over all trials when trial ``i`` of class ``c``
(target or non-target) in condition ``alpha`` carries the weight (van Leeuwen 2008, sec. 3.4,
eq. 12)

    beta_c^alpha = w_alpha / (N_c^alpha / N_c),

so that ``Pmiss(t) = (1/N_tar) sum_tar beta * [s < t]`` and ``Pfa(t) = (1/N_non) sum_non beta *
[s >= t]`` (section 3.5, eq. 13; appendix A, eq. 14-22).  The weights are per condition *and*
per class: each condition's miss rate counts ``w_alpha`` in the pooled miss rate and its
false-alarm rate ``w_alpha`` in the pooled false-alarm rate, whatever its numbers of targets
and non-targets.  Because ``sum_tar beta = N_tar`` and ``sum_non beta = N_non``, the weighted
trials keep the class totals of the plain pool, and every measure of :mod:`llrlab.core` that
accepts per-trial weights computes the condition-weighted measure -- the same sort, PAV and
ROCCH kernels, nothing re-implemented.

:func:`condition_weights` computes the weights and the weighted :class:`~llrlab.core.Trials`;
:func:`by_condition` adds the analysis of every condition and of the weighted pool.
Definitions of the measures: docs/conventions.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._parallel import map_chunks, take_in_chunks
from ._per_condition import _grouped, condition_measures
from ._repr import summary_repr
from ._sorting import presorted
from ._validate import as_number, choose
from .analysis import Analysis, analyze
from .cllr import softplus_terms, thread_scratch
from .errors import DataError
from .operating_point import prior_from_plo
from .trials import Trials

__all__ = [
    "ConditionAnalysis",
    "ConditionWeights",
    "by_condition",
    "condition_subset",
    "condition_weights",
    "parse_condition_weights",
    "prepare_pooling",
]

#: Relative spread below which per-trial weights count as equal (rounding of ``w*N/N_alpha``).
_EQUAL_RTOL = 8 * np.finfo(np.float64).eps


@dataclass(frozen=True, eq=False)
class _ConditionTable:
    """The per-condition weights and counts shared by :class:`ConditionWeights` and its
    out-of-core twin (``llrlab.core.scale.DaskConditionWeights``); see the former for the
    meaning of each field."""

    conditions: np.ndarray
    w_tar: np.ndarray
    w_non: np.ndarray
    n_tar: np.ndarray
    n_non: np.ndarray
    beta_tar: np.ndarray
    beta_non: np.ndarray

    @property
    def n_conditions(self):
        return self.conditions.size


@summary_repr("spec", "conditions", "w_tar", "w_non", "reweighted")
@dataclass(frozen=True, eq=False)
class ConditionWeights(_ConditionTable):
    """Condition weights and the per-trial weights ``beta`` that implement them.

    Attributes
    ----------
    conditions : ndarray of str, shape (C,)
        The pooled conditions, sorted; conditions left out (``select``) or given weight 0
        are not listed.
    w_tar, w_non : ndarray of float64, shape (C,)
        The weight of each condition's miss rate in the pooled miss rate, and of its
        false-alarm rate in the pooled false-alarm rate; each sums to 1.  Equal to each other
        (``w_alpha`` normalized) for ``"equal"`` and custom weights; for ``"pooled"`` they are
        the condition's share of the targets, resp. of the non-targets.
    n_tar, n_non : ndarray of int64, shape (C,)
        Numbers of target and non-target trials of each condition.
    beta_tar, beta_non : ndarray of float64, shape (C,)
        Per-trial weight of a target, resp. non-target, trial of each condition (van Leeuwen 2008,
        eq. 12): ``w_c / (N_c^alpha / N_c)``.  All 1 for ``"pooled"``.
    trials : Trials
        The trials of the pooled conditions (in their original order) with per-trial
        weights ``beta`` (times the trials' own weights, if they had any).  When ``beta`` is
        the same for every trial of a class the weights change no measure, and are left as
        they were (None for unweighted trials), so that the results are bitwise those of the
        plain pool.
    spec : str
        ``"equal"``, ``"pooled"`` or ``"custom"``.
    reweighted : bool
        False when ``trials`` keeps the trials' own weights (``"pooled"``, or ``beta``
        constant in each class): then every measure equals that of the plain pool, bitwise.
    """

    trials: Trials
    spec: str
    reweighted: bool


def parse_condition_weights(text):
    """Parse a condition-weight specification as given on the command line.

    Parameters
    ----------
    text : str
        ``"equal"``, ``"pooled"``, or ``"NAME=W,NAME=W,..."`` with non-negative numbers ``W``
        (a name may contain ``=``; the number follows the last one).

    Returns
    -------
    str or dict
        ``"equal"``, ``"pooled"`` or ``{name: weight}``, as :func:`condition_weights` takes.

    Examples
    --------
    >>> from llrlab.core.conditions import parse_condition_weights
    >>> parse_condition_weights("tel=2,mic=1")
    {'tel': 2.0, 'mic': 1.0}
    >>> parse_condition_weights("equal")
    'equal'
    """
    text = str(text).strip()
    if text in ("equal", "pooled"):
        return text
    out = {}
    for item in text.split(","):
        name, eq, value = item.strip().rpartition("=")
        if not eq or not name:
            raise DataError(f"condition weights must be 'equal', 'pooled' or NAME=W,...; "
                            f"cannot read {item.strip()!r}")
        try:
            w = float(value)
        except ValueError:
            raise DataError(f"the weight of condition {name!r} is not a number: "
                            f"{value!r}") from None
        if name in out:
            raise DataError(f"condition {name!r} is given two weights")
        out[name] = w
    return out


def _where(trials):
    return f"{trials.source}: " if trials.source else ""


def _names(values):
    shown = ", ".join(repr(str(v)) for v in values[:10])
    return shown + (f" and {len(values) - 10} more" if len(values) > 10 else "")


def _check_weight_map(weights, selected, all_names, where):
    known = set(all_names.tolist())
    chosen = set(selected.tolist())
    unknown = [k for k in weights if str(k) not in known]
    if unknown:
        raise DataError(f"{where}condition weights name {_names(unknown)}, which no trial has; "
                        f"the conditions are {_names(all_names.tolist())}")
    outside = [k for k in weights if str(k) not in chosen]
    if outside:
        raise DataError(f"{where}condition weights name {_names(outside)}, which the "
                        f"selection leaves out")
    missing = [c for c in selected.tolist() if c not in {str(k) for k in weights}]
    if missing:
        raise DataError(f"{where}no weight for condition(s) {_names(missing)}; give every "
                        f"pooled condition a weight (0 leaves one out), or select the "
                        f"conditions to pool")
    w = np.empty(selected.size)
    given = {str(k): v for k, v in weights.items()}
    for i, c in enumerate(selected.tolist()):
        v = given[c]
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise DataError(f"{where}the weight of condition {c!r} is not a number: "
                            f"{v!r}") from None
        if not math.isfinite(v) or v < 0:
            raise DataError(f"{where}the weight of condition {c!r} must be a finite number "
                            f">= 0, got {v!r}")
        w[i] = v
    if not w.sum() > 0:
        raise DataError(f"{where}every condition weight is 0: no trial would count")
    return w


def _equal(b):
    return b.size == 0 or (b.max() - b.min()) <= _EQUAL_RTOL * b.max()


def condition_weights(trials, weights="equal", *, select=None) -> ConditionWeights:
    """Per-trial weights that pool conditions with given weights (van Leeuwen 2008, eq. 12).

    Parameters
    ----------
    trials : Trials
        With a condition per trial (``Trials.conditions``).
    weights : {"equal", "pooled"} or mapping of str to float, default "equal"
        ``"equal"``: every pooled condition has weight ``1/C``.  ``"pooled"``: every trial
        has weight 1 (the plain pool of the selected trials).  A mapping ``{condition: w}``
        gives each selected condition a weight ``w >= 0`` (normalized to sum to 1); a
        condition with weight 0 is left out of the pool (van Leeuwen 2008, sec. 3, suggests this
        for conditions outside the analysis).
    select : iterable of str, optional
        Pool only these conditions (default: all conditions of the trials).

    Returns
    -------
    ConditionWeights
        ``.trials`` is what every measure of :mod:`llrlab.core` takes.

    Raises
    ------
    DataError
        Trials without conditions; a weight or a selection naming a condition that no trial
        has; a mapping that misses a selected condition; a negative, NaN or infinite weight;
        all weights 0; a pooled condition (weight > 0) with no target or no non-target trial.

    Notes
    -----
    With normalized weights ``w_alpha`` and ``N_c^alpha`` trials of class ``c`` in condition
    ``alpha`` (``N_c`` over the pooled conditions), a trial of class ``c`` in condition
    ``alpha`` gets (van Leeuwen 2008, eq. 12)

        beta_c^alpha = w_alpha * N_c / N_c^alpha,

    so that ``sum_c beta = N_c`` and the weighted rates are (eq. 13-15)

        Pmiss(t) = (1/N_tar) sum_tar beta * [s < t] = sum_alpha w_alpha Pmiss_alpha(t),
        Pfa(t)   = (1/N_non) sum_non beta * [s >= t] = sum_alpha w_alpha Pfa_alpha(t).

    A class needs its own ``beta`` because the conditions' shares of targets and of
    non-targets differ; with one weight per condition only one of the two rates could be the
    ``w``-average.  Trials that already carry weights ``u`` keep them as a factor: ``N`` are
    then sums of ``u`` and the trial weight is ``u * beta``.  For ``"pooled"``,
    ``beta = 1`` and ``w_tar``/``w_non`` report each condition's share of the class.

    References
    ----------
    van Leeuwen (2008), section 3 (eq. 1-4), section 3.4 (eq. 12), section 3.5
    (eq. 13) and appendix A (eq. 14-22); docs/conventions.md.

    Examples
    --------
    >>> from llrlab.core import Trials
    >>> from llrlab.core.conditions import condition_weights
    >>> t = Trials([2.0, 1.0, -1.0, 0.5, 3.0, -2.0], [1, 0, 0, 0, 1, 0],
    ...            conditions=["a", "a", "a", "a", "b", "b"])
    >>> cw = condition_weights(t)
    >>> cw.conditions.tolist(), cw.beta_tar.tolist(), cw.beta_non.tolist()
    (['a', 'b'], [1.0, 1.0], [0.6666666666666666, 2.0])
    >>> cw.trials.weights.tolist()
    [1.0, 0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 1.0, 2.0]
    """
    if not isinstance(trials, Trials):
        raise DataError(f"condition weights need Trials, got {type(trials).__name__}")
    where = _where(trials)
    if not trials.has_conditions:
        raise DataError(f"{where}the trials have no conditions; attach a condition file "
                        f"(llrlab.core.io.attach_conditions) or read a labelled file with a "
                        f"condition column")
    all_names, inv = trials.condition_index()
    n_all = all_names.size
    spec, w = _condition_weight_table(all_names, weights, select, where)
    keep_cond = w > 0
    key, counts = _class_codes(trials)
    count_non, count_tar = counts[0::2], counts[1::2]
    if trials.weights is None:
        mass_non, mass_tar = count_non.astype(np.float64), count_tar.astype(np.float64)
    else:
        mass = np.bincount(key, weights=trials.weights, minlength=2 * n_all)
        mass_non, mass_tar = mass[0::2], mass[1::2]
    if spec != "pooled":
        _check_rates_defined(all_names, keep_cond, mass_tar, mass_non,
                             count_tar + count_non, where)
    names = all_names[keep_cond]
    ct, cn = count_tar[keep_cond], count_non[keep_cond]
    mt, mn = mass_tar[keep_cond], mass_non[keep_cond]
    if keep_cond.all():
        in_pool, sub = None, trials
    else:
        in_pool = keep_cond[inv]
        sub = trials.subset(in_pool)
    if not (sub.n_tar and sub.n_non):
        raise DataError(f"{where}the pooled conditions {_names(names.tolist())} have no "
                        f"{'target' if not sub.n_tar else 'non-target'} trials")
    # the order of the pool's scores, from one sort of (score, condition) pairs shared by
    # every pool of these trials (Trials.condition_sorted): when it is there already, or
    # when the pool holds most trials (it costs the sort the pool would take anyway)
    shared_sort = trials.weights is None and (
        "condition_sorted" in trials._cache or 2 * (ct.sum() + cn.sum()) >= inv.size)
    if spec == "pooled":
        beta_t, beta_n = np.ones(names.size), np.ones(names.size)
        w_t, w_n = mt / mt.sum(), mn / mn.sum()
        if shared_sort and "sorted" not in sub._cache:
            sub._with_sorted(_pool_sorted(trials, keep_cond))
        return ConditionWeights(names, w_t, w_n, ct, cn, beta_t, beta_n, sub, spec, False)
    wn, beta_t, beta_n, reweight = _betas(w[keep_cond], mt, mn)
    weighted = sub  # beta constant in each class changes no measure (see Notes)
    if reweight:
        # beta of every (condition, class) code, looked up in one gather
        table = np.zeros(2 * n_all)
        table[0::2][keep_cond], table[1::2][keep_cond] = beta_n, beta_t
        beta = take_in_chunks(table, key if sub is trials else key[in_pool])
        # beta is finite and positive on every pooled trial (checked masses): no new check
        weighted = (sub._with_checked_weights(beta) if sub.weights is None
                    else sub.with_weights(beta * sub.weights))
        if shared_sort:
            weighted._with_sorted(_pool_sorted(trials, keep_cond, table),
                              _pool_cllr_parts(trials, keep_cond, table))
    elif shared_sort and "sorted" not in sub._cache:
        sub._with_sorted(_pool_sorted(trials, keep_cond))
    return ConditionWeights(names, wn, wn.copy(), ct, cn, beta_t, beta_n, weighted, spec,
                            reweight)


def _condition_weight_table(all_names, weights, select, where):
    """``(spec, w)``: ``"equal"``, ``"pooled"`` or ``"custom"``, and the weight of each of
    ``all_names`` (sorted distinct conditions) given ``weights`` and ``select`` as
    :func:`condition_weights` takes them (0 outside the selection), checked; ``where``
    prefixes the messages."""
    if select is None:
        chosen = np.ones(all_names.size, dtype=bool)
    else:
        sel = np.unique(np.asarray(list([select] if isinstance(select, str) else select),
                                   dtype=str))
        if sel.size == 0:
            raise DataError(f"{where}the selection of conditions is empty")
        bad = sel[~np.isin(sel, all_names)]
        if bad.size:
            raise DataError(f"{where}selected condition(s) {_names(bad.tolist())} not found; "
                            f"the conditions are {_names(all_names.tolist())}")
        chosen = np.isin(all_names, sel)
    if isinstance(weights, str):
        if weights not in ("equal", "pooled"):
            raise DataError(f"{where}condition weights must be 'equal', 'pooled' or a mapping "
                            f"{{condition: weight}}, got {weights!r}")
        return weights, np.where(chosen, 1.0, 0.0)
    if isinstance(weights, Mapping):
        w = np.zeros(all_names.size)
        w[chosen] = _check_weight_map(weights, all_names[chosen], all_names, where)
        return "custom", w
    raise DataError(f"{where}condition weights must be 'equal', 'pooled' or a mapping "
                    f"{{condition: weight}}, got {type(weights).__name__}")


def prepare_pooling(trials):
    """Compute once, e.g. in a worker thread when the trials are loaded, what every later
    condition pool of unweighted ``trials`` shares (:meth:`Trials.condition_sorted`, the
    (condition, class) codes and the per-condition sums of Cllr's log-losses): afterwards
    :func:`condition_weights` with any weights or selection sorts nothing and makes a few
    passes over the trials.  Returns ``trials``; trials with weights or without conditions
    are returned as they are."""
    if trials.has_conditions and trials.weights is None:
        trials.condition_sorted()
        _class_codes(trials)
        _condition_log_losses(trials)
    return trials


def _class_codes(trials):
    """``(key, counts)``: one code per trial for its (condition, class), ``2 * condition +
    is_target``, and the number of trials of each code (cached in the trials)."""
    if "class_codes" not in trials._cache:
        names, inv = trials.condition_index()
        key = np.empty(inv.size, dtype=np.intp)
        m = 2 * len(names)

        def piece(sl):  # the codes and their counts, piece by piece (integer sums)
            k = np.multiply(inv[sl], 2, out=key[sl])
            k += trials.labels[sl]
            return np.bincount(k, minlength=m)

        counts = np.zeros(m, dtype=np.intp)
        for c in map_chunks(piece, inv.size):
            counts += c
        trials._cache["class_codes"] = (key, counts)
    return trials._cache["class_codes"]


def _check_rates_defined(names, keep, mass_tar, mass_non, counts, where):
    """Raise DataError naming the first pooled condition (``keep``) whose targets, or
    non-targets, weigh nothing: its miss, or false-alarm, rate is undefined."""
    for mass, what in ((mass_tar, "target"), (mass_non, "non-target")):
        empty = keep & ~(mass > 0)
        if empty.any():
            i = int(np.flatnonzero(empty)[0])
            raise DataError(
                f"{where}condition {str(names[i])!r} has no {what} trials (of its "
                f"{int(counts[i])} trials), so its "
                f"{'miss' if what == 'target' else 'false-alarm'} rate is undefined; "
                f"give it weight 0 or leave it out of the selection")


def _betas(w, mass_tar, mass_non):
    """``(w_normalized, beta_tar, beta_non, reweighted)`` of the pooled conditions' weights
    ``w`` and class masses: ``beta_c = w_c * N_class / N_class_c`` (van Leeuwen 2008,
    eq. 12); ``reweighted`` False when beta is the same for every condition of each class
    (then the weights change no measure)."""
    wn = w / w.sum()
    beta_t = wn * (mass_tar.sum() / mass_tar)
    beta_n = wn * (mass_non.sum() / mass_non)
    return wn, beta_t, beta_n, not (_equal(beta_t) and _equal(beta_n))


def _pool_sorted(trials, keep, table=None):
    """The sorted scores of the pooled conditions (``keep``: one bool per condition) of
    unweighted ``trials``, weighted by ``table[2 * condition + is_target]`` (None:
    unweighted), taken from :meth:`Trials.condition_sorted` (a mask keeps the order; the
    weights are a look-up): no sort."""
    tar, tar_c, non, non_c = trials.condition_sorted()
    if not keep.all():
        kt, kn = keep[tar_c], keep[non_c]
        tar, tar_c, non, non_c = tar[kt], tar_c[kt], non[kn], non_c[kn]
    if table is None:
        return presorted(tar, non)
    return presorted(tar, non, take_in_chunks(table[1::2], tar_c),
                     take_in_chunks(table[0::2], non_c), tar_c, non_c)


def _condition_log_losses(trials):
    """Per condition, the sums over its target and its non-target trials of the log-losses
    of Cllr at prior log-odds 0 (``log(1 + exp(-s))``, ``log(1 + exp(s))``) of unweighted
    ``trials``, and the numbers of those trials (cached in the trials): a weighting that is
    constant per condition and class gives Cllr from these numbers (the weights of eq. 12
    of van Leeuwen 2008 are constant in each block)."""
    if "condition_log_losses" not in trials._cache:
        tar, tar_c, non, non_c = trials.condition_sorted()
        c = len(trials.condition_index()[0])

        def sums(x, codes, sign):
            scratch = thread_scratch(2)  # each thread's buffers, reused chunk after chunk

            def piece(sl):
                b, t = scratch(sl.stop - sl.start)
                terms = softplus_terms(x[sl], sign=sign, out=b, scratch=t)
                return np.bincount(codes[sl], weights=terms, minlength=c)

            out = np.zeros(c)
            for v in map_chunks(piece, x.size):
                out += v
            return out

        counts = _class_codes(trials)[1]  # the trials of each (condition, class): no pass
        trials._cache["condition_log_losses"] = (
            sums(tar, tar_c, -1.0), sums(non, non_c, 1.0), counts[1::2], counts[0::2])
    return trials._cache["condition_log_losses"]


def _pool_cllr_parts(trials, keep, table=None):
    """Mean target and non-target log-losses (nats, prior log-odds 0) of the pool that
    :func:`_pool_sorted` sorts, from :func:`_condition_log_losses`."""
    lt, ln, nt, nn = _condition_log_losses(trials)
    k = keep.astype(np.float64)
    bt, bn = (k, k) if table is None else (table[1::2] * k, table[0::2] * k)
    return float(bt @ lt) / float(bt @ nt), float(bn @ ln) / float(bn @ nn)


def condition_subset(trials, k):
    """The trials of the condition ``condition_index()[0][k]``, whose sort (when the trials
    are unweighted and their :meth:`Trials.condition_sorted` is there) is taken from it."""
    names, inv = trials.condition_index()
    sub = trials.subset(inv == k)
    if trials.weights is None and "condition_sorted" in trials._cache:
        keep = np.zeros(len(names), dtype=bool)
        keep[k] = True
        if sub.n_tar and sub.n_non:
            sub._with_sorted(_pool_sorted(trials, keep))
    return sub


@summary_repr("conditions", "plo", "act_dcf", "eer", "cllr")
@dataclass(frozen=True, eq=False)
class ConditionAnalysis:
    """Measures of every condition and of their weighted pool (see :func:`by_condition`).

    Every array has shape (C,), one entry per condition of ``weights.conditions``; the
    headline numbers are at the operating point ``plo``.

    Attributes
    ----------
    weights : ConditionWeights
    plo : float
        Prior log-odds of the operating point of the headline numbers.
    per_condition : sequence of Analysis, length C
        Each condition's trials alone (their own weights, if any; no ``beta``), analysed
        when first looked up.
    weighted : Analysis
        The condition-weighted pool: the analysis of ``weights.trials``.
    unweighted : Analysis
        The plain pool of the same trials (van Leeuwen 2008, table 2, "pooled trials").
    n_tar, n_non : ndarray of int64
    p_miss, p_fa : ndarray of float64
        Actual miss and false-alarm rates at the Bayes threshold ``-plo``.
    act_dcf, min_dcf : ndarray of float64
        Normalized actual and minimum DCF at ``plo``.
    eer, cllr, min_cllr : ndarray of float64
        ROCCH-EER; Cllr and minimum Cllr in bits.
    """

    weights: ConditionWeights
    plo: float
    per_condition: Sequence
    weighted: Analysis
    unweighted: Analysis
    n_tar: np.ndarray
    n_non: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray
    act_dcf: np.ndarray
    min_dcf: np.ndarray
    eer: np.ndarray
    cllr: np.ndarray
    min_cllr: np.ndarray

    @property
    def conditions(self):
        return self.weights.conditions

    def average(self, values, cls="both"):
        """``sum_alpha w_alpha * values[alpha]``, the weighted average of a per-condition array.

        ``cls`` selects ``w_tar`` ("tar"), ``w_non`` ("non"); "both" needs them equal (not
        ``"pooled"`` weights).  For Pmiss use "tar", for Pfa "non".
        """
        cls = choose(cls, ("tar", "non", "both"), "class for the average")
        w = {"tar": self.weights.w_tar, "non": self.weights.w_non}.get(cls)
        if w is None:
            if not np.array_equal(self.weights.w_tar, self.weights.w_non):
                raise DataError("the target and non-target condition weights differ "
                                "('pooled'); average with cls='tar' or cls='non'")
            w = self.weights.w_tar
        return float(np.dot(w, np.asarray(values, dtype=np.float64)))

    def pooled_summary(self, which="weighted"):
        """Headline numbers of the ``"weighted"`` or ``"unweighted"`` pool, as a plain dict."""
        which = choose(which, ("weighted", "unweighted"), "pool")
        a = self.weighted if which == "weighted" else self.unweighted
        return _headline(a, self.plo)

    def summary(self):
        """Everything as plain Python types (for JSON): weights, per-condition and pools."""
        per = {}
        for k, c in enumerate(self.conditions.tolist()):
            per[c] = {
                "w_tar": float(self.weights.w_tar[k]), "w_non": float(self.weights.w_non[k]),
                "beta_tar": float(self.weights.beta_tar[k]),
                "beta_non": float(self.weights.beta_non[k]),
                **{key: _plain(getattr(self, key)[k]) for key in _HEADLINE},
            }
        return {"condition_weights": self.weights.spec, "plo": self.plo,
                "effective_prior": float(prior_from_plo(self.plo)), "conditions": per,
                "weighted": self.pooled_summary("weighted"),
                "unweighted": self.pooled_summary("unweighted")}


#: The per-condition measures of :class:`ConditionAnalysis` (arrays) and of its summaries.
_HEADLINE = ("n_tar", "n_non", "p_miss", "p_fa", "act_dcf", "min_dcf", "eer", "cllr",
             "min_cllr")


def _plain(v):
    return int(v) if isinstance(v, np.integer) else float(v)


class _PerCondition(Sequence):
    """The :class:`~llrlab.core.analysis.Analysis` of each condition alone, built when first
    looked up (``O(n_k log n_k)`` each: the trials are grouped by condition once)."""

    def __init__(self, trials, codes, n_cond, grid):
        self._trials, self._grid = trials, grid
        self._order, self._starts, self._sizes = _grouped(codes, n_cond)
        self._done = {}

    def __len__(self):
        return self._sizes.size

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        k = range(len(self))[k]  # IndexError outside, negative indices from the end
        if k not in self._done:
            a = self._starts[k]
            rows = self._order[a:a + self._sizes[k]]  # ascending: the trials' own order
            self._done[k] = analyze(self._trials.subset(rows), plo=self._grid)
        return self._done[k]

    def __repr__(self):
        return f"<{len(self)} Analysis, one per condition, built on first access>"


def _headline(a: Analysis, plo):
    op = a.at(plo)
    return {"n_tar": a.n_tar, "n_non": a.n_non, "p_miss": float(op.act.p_miss),
            "p_fa": float(op.act.p_fa), "act_dcf": op.act_dcf, "min_dcf": op.min_dcf,
            "eer": float(a.eer), "cllr": float(a.cllr), "min_cllr": float(a.min_cllr)}


def by_condition(trials, weights="equal", *, select=None, plo=0.0,
                 grid=None) -> ConditionAnalysis:
    """Measures per condition and of the condition-weighted pool (van Leeuwen 2008).

    Parameters
    ----------
    trials : Trials
        With conditions; LLRs for the calibration-sensitive measures (actual DCF, Cllr).
    weights : {"equal", "pooled"} or mapping, default "equal"
        See :func:`condition_weights`.
    select : iterable of str, optional
        Pool only these conditions.
    plo : float, default 0.0
        Prior log-odds of the operating point of the headline numbers
        (:func:`~llrlab.core.operating_point.plo_from_costs`).
    grid : array_like, optional
        Prior log-odds grid of the :class:`~llrlab.core.analysis.Analysis` objects
        (default :data:`~llrlab.core.analysis.DEFAULT_PLO`).

    Returns
    -------
    ConditionAnalysis

    Raises
    ------
    DataError
        As :func:`condition_weights`; also, since every condition is analysed alone, a
        pooled condition without targets or non-targets even for ``"pooled"``.

    Notes
    -----
    With condition weights ``w_alpha`` (``"equal"`` or a mapping), the weighted pool is the
    ``w``-average of the conditions for every quantity that is linear in the error counts or
    losses at a fixed threshold:

    - ``Pmiss(t) = sum_alpha w_alpha Pmiss_alpha(t)`` and the same for ``Pfa(t)``, at every
      threshold ``t`` (van Leeuwen 2008, sec. 3, eq. 3-4; section 3.5, eq. 13), hence the DET
      curve is the pointwise average *at equal threshold*;
    - ``actDCF(plo) = sum_alpha w_alpha actDCF_alpha(plo)``: the Bayes threshold ``-plo`` is
      the same in every condition (section 3.1, eq. 5-6 and 20);
    - ``Cllr = sum_alpha w_alpha Cllr_alpha`` (section 3.3, eq. 11 and 21-22).

    It is *not* an average for quantities that optimize one threshold or one monotone map
    over the pool:

    - ``minDCF = min_t sum_alpha w_alpha DCF_alpha(t) >= sum_alpha w_alpha minDCF_alpha``
      (one threshold for all conditions; section 3.2, appendix A eq. 18);
    - EER: the point ``Pmiss = Pfa`` of the hull of the averaged ROC, no closed form in the
      per-condition EERs (section 3.2, eq. 16-17);
    - ``minCllr`` comes from one weighted PAV over all trials with weights ``beta`` (section
      3.4, eq. 12): ``minCllr >= sum_alpha w_alpha minCllr_alpha``.  Averaging the
      per-condition values would let every condition have its own calibration.

    With ``"pooled"`` the target and non-target averages use different weights (each
    condition's share of the class), so only ``Pmiss`` and ``Pfa`` themselves are averages.
    PRBEP of the weighted pool is in units of trials (``sum beta`` equals the class counts).

    Cost: the two pools are analysed once each; the per-condition arrays come from one sort
    of all trials by (condition, score) and vectorized passes over its segments, so the
    work is linear in trials and conditions (``O(n log n + C)``; 5 x 10^5 conditions of 2
    trials take seconds).  Each condition's full :class:`~llrlab.core.analysis.Analysis`
    (curves, DET) is built when ``per_condition[k]`` is first looked up.  Without trial
    weights the arrays are bitwise the numbers of ``analyze`` on the condition alone, min
    Cllr to rounding (see ``llrlab.core._per_condition``).

    References
    ----------
    van Leeuwen (2008), sections 3.1-3.5, eq. 1-13, appendix A eq. 14-22;
    docs/conventions.md.

    Examples
    --------
    >>> from llrlab.core import Trials
    >>> from llrlab.core.conditions import by_condition
    >>> t = Trials([1.0, 3.0, -2.0, 0.5, -1.0, -3.0, 0.2, -0.5, -0.7, 1.5, 0.0, -1.5],
    ...            [1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0], conditions=["A"] * 6 + ["B"] * 6)
    >>> r = by_condition(t, plo=0.0)
    >>> r.p_miss.tolist(), r.p_fa.tolist(), r.act_dcf.tolist()
    ([0.0, 0.5], [0.25, 0.5], [0.25, 1.0])
    >>> s = r.pooled_summary()
    >>> s["p_miss"], s["p_fa"], s["act_dcf"], s["min_dcf"], s["eer"], s["min_cllr"]
    (0.25, 0.375, 0.625, 0.375, 0.1875, 0.375)
    """
    cw = condition_weights(trials, weights, select=select)
    plo = as_number(plo, "plo")
    where = _where(trials)
    sub = cw.trials
    plain = sub
    if cw.reweighted:  # the same trials with their own weights (None if they had none)
        own = trials.weights
        if own is not None and sub.conditions.size != len(trials):
            own = own[np.isin(trials.conditions, cw.conditions)]
        plain = sub.with_weights(own)
    names, codes = sub.condition_index()  # the pooled conditions: cw.conditions
    n_cond = names.size
    lab = plain.labels
    for mass, what in ((np.bincount(codes[lab], plain.tar_weights, minlength=n_cond),
                        "target"),
                       (np.bincount(codes[~lab], plain.non_weights, minlength=n_cond),
                        "non-target")):
        empty = np.flatnonzero(~(mass > 0))
        if empty.size:
            raise DataError(f"{where}condition {str(names[empty[0]])!r} has no {what} trials"
                            f"{' of positive weight' if plain.weights is not None else ''}, "
                            f"so it cannot be analysed alone; leave it out of the selection")
    per = _PerCondition(plain, codes, n_cond, grid)
    weighted = analyze(sub, plo=grid)
    unweighted = analyze(plain, plo=grid) if cw.reweighted else weighted
    m = condition_measures(plain.scores, lab, plain.weights, codes, n_cond, plo)
    return ConditionAnalysis(cw, plo, per, weighted, unweighted, *(m[k] for k in _HEADLINE))
