"""The operating point: costs and prior, linked both ways with the prior log-odds.

``(p_target, c_miss, c_fa)`` determine the effective prior and the prior log-odds ``plo``
(``plo = logit(p_target) + log(c_miss / c_fa)``, CONVENTIONS "Symbols"); setting
``effective_prior`` or ``plo`` (a drag on a plot) keeps the costs and moves ``p_target``.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import param
from scipy.special import expit, logit

from llrlab.core import LlrlabError, plo_from_costs

__all__ = ["PLO_LIMIT", "OperatingPointState"]

#: The operating point is kept within +-PLO_LIMIT prior log-odds.
PLO_LIMIT = 20.0


class OperatingPointState(param.Parameterized):
    """Where decisions are made: costs, priors and the prior log-odds, kept consistent."""

    #: Parameters set as a consequence of the others (not part of a snapshot).
    derived = ("effective_prior", "plo")

    p_target = param.Number(default=0.01, bounds=(0.0, 1.0),
                            inclusive_bounds=(False, False), label="P(target)")
    c_miss = param.Number(default=1.0, bounds=(0.0, None), inclusive_bounds=(False, True),
                          label="C(miss)")
    c_fa = param.Number(default=1.0, bounds=(0.0, None), inclusive_bounds=(False, True),
                        label="C(false alarm)")
    effective_prior = param.Number(default=0.01, bounds=(0.0, 1.0),
                                   inclusive_bounds=(False, False), label="Effective prior")
    plo = param.Number(default=float(logit(0.01)), bounds=(-PLO_LIMIT, PLO_LIMIT), step=0.01,
                       label="Prior log-odds")
    error = param.String(default="", precedence=-1, doc="""
        Why the last costs could not be used ('' when they could).""")

    def __init__(self, **params):
        self._linking = False
        super().__init__(**params)
        self._move(float(plo_from_costs(self.p_target, self.c_miss, self.c_fa)),
                   keep_costs=False)

    @contextlib.contextmanager
    def _guard(self):
        old, self._linking = self._linking, True
        try:
            yield
        finally:
            self._linking = old

    def _move(self, plo, *, keep_costs=True):
        """Move to ``plo`` (clipped to +-PLO_LIMIT): one update of ``plo``, the effective
        prior and, keeping the costs, ``p_target``."""
        plo = float(np.clip(plo, -PLO_LIMIT, PLO_LIMIT))
        updates = {"plo": plo, "effective_prior": float(expit(plo))}
        if keep_costs:
            p = float(expit(plo - math.log(self.c_miss / self.c_fa)))
            updates["p_target"] = min(max(p, 1e-15), 1.0 - 1e-15)
        with self._guard():
            self.param.update(**updates)

    def set_plo(self, plo):
        """Move the operating point (a drag on a plot); None or a non-finite value is
        ignored."""
        if plo is not None and np.isfinite(plo):
            self._move(float(plo))

    @param.depends("p_target", "c_miss", "c_fa", watch=True)
    def _costs_changed(self):
        if self._linking:
            return
        try:
            plo = float(plo_from_costs(self.p_target, self.c_miss, self.c_fa))
        except LlrlabError as exc:
            self.error = str(exc)
            return
        self.error = ""
        self._move(plo, keep_costs=False)

    @param.depends("effective_prior", watch=True)
    def _prior_changed(self):
        if not self._linking:
            self._move(float(logit(self.effective_prior)))

    @param.depends("plo", watch=True)
    def _plo_changed(self):
        if not self._linking:
            self._move(self.plo)
