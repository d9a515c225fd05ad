"""Names of the interval kinds and variance estimators, and how text for people names them.

A light module (no scipy): the command line builds its parser from it without importing the
statistics.  :mod:`llrlab.core.uncertainty` re-exports these names.
"""

from __future__ import annotations

__all__ = ["BOOTSTRAP_METHODS", "BOOTSTRAP_TEXT", "VARIANCE_TEXT"]

#: Bootstrap interval kinds of :func:`llrlab.core.uncertainty.bootstrap_ci`.
BOOTSTRAP_METHODS = ("bca", "percentile", "basic")

#: How each bootstrap interval kind is named in text for people (CLI, dashboard).
BOOTSTRAP_TEXT = {"bca": "BCa (Efron 1987)", "percentile": "percentile",
                  "basic": "basic (reverse percentile)"}

#: How each variance estimator of an error rate is named in text for people: the binomial
#: one of unweighted trials, and the two of :mod:`llrlab.core._stratified` for weighted ones.
VARIANCE_TEXT = {
    "binomial": "binomial variance",
    "stratified": "variance stratified by condition (Cochran 1977)",
    "linearised": "linearised variance of the weighted trials (Cochran 1977)",
}
