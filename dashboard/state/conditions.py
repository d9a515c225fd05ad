"""Conditions: how the trials' conditions are pooled (van Leeuwen 2008, eq. 12), which are
pooled, and whether each is drawn.

The page lists at most ``MAX_LISTED`` conditions by name (those with the most trials; the
list is made in the worker thread, :func:`~llrlab.dashboard.compute.conditions.
condition_menu`); the others are one entry of the picker.  Offering new conditions is then a
few dozen items whatever the file holds: a file with 10^6 condition names no longer stalls
the event loop that serves every session (a ``ListSelector`` checks its value against its
objects in quadratic time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import param

if TYPE_CHECKING:  # imported where used: checking a lesson imports no numerics
    from ..compute.conditions import ConditionMenu, ConditionSpec

__all__ = ["WEIGHTINGS", "ConditionsState"]

#: The UI's condition weightings -> ``ConditionSpec.weights``.
WEIGHTINGS = {"pooled trials": "pooled", "equal per condition": "equal", "custom": "custom"}


class ConditionsState(param.Parameterized):
    """Condition weighting and selection (van Leeuwen 2008), and the conditions the data offer."""

    #: Parameters that change the heavy results.
    result_params = ("weighting", "custom_weights", "selected")

    weighting = param.Selector(default="pooled trials", objects=list(WEIGHTINGS),
                               label="Condition weighting", doc="""
        How the conditions of the trials are pooled: every trial once, every condition
        equally (van Leeuwen 2008, eq. 12-13), or the custom weights typed below.""")
    custom_weights = param.String(default="", label="Custom weights", doc="""
        Condition weights as NAME=W, e.g. 'tel=2, mic=1' (normalized to sum to 1).""")
    selected = param.ListSelector(default=[], objects=[], label="Pooled conditions", doc="""
        The conditions pooled (all the conditions of the data when new data arrive).""")
    show_curves = param.Boolean(default=False, label="Per-condition curves")
    available = param.List(default=[], precedence=-1, doc="""
        Conditions of the shown data listed by name (empty: the trials carry none).""")
    others = param.String(default="", precedence=-1, doc="""
        The picker's entry for the conditions not listed ('' when all are listed).""")
    n_others = param.Integer(default=0, precedence=-1, doc="""
        How many conditions that entry stands for.""")
    others_trials = param.Integer(default=0, precedence=-1, doc="""
        How many trials they hold.""")

    def spec(self) -> ConditionSpec:
        """How the conditions are pooled; the selection is None when it holds every
        available condition, and the custom text only counts for custom weights (so neither
        changes the cache key needlessly)."""
        from ..compute.conditions import ConditionSpec

        weights = WEIGHTINGS[self.weighting]
        sel = set(self.selected or [])
        avail = set(self.available)
        text = " ".join(self.custom_weights.split()) if weights == "custom" else ""
        if not self.others:
            select = None if not avail or sel >= avail else tuple(sorted(sel))
            return ConditionSpec(weights, text, select)
        if self.others in sel:  # everything but the listed conditions left out
            return ConditionSpec(weights, text, None, tuple(sorted(avail - sel)), capped=True)
        return ConditionSpec(weights, text, tuple(sorted(sel & avail)), capped=True)

    def reset(self):
        """New data: the conditions are known again when their results arrive."""
        self.param.update(selected=[], available=[], others="", n_others=0, others_trials=0)
        self.param.selected.objects = []

    def offer(self, menu: ConditionMenu | None):
        """Offer the conditions of the shown data (a
        :class:`~llrlab.dashboard.compute.conditions.ConditionMenu`, or None without
        conditions); new conditions are all selected."""
        from ..compute.conditions import ConditionMenu

        menu = menu or ConditionMenu()
        listed = list(menu.listed)
        entries = listed + ([menu.others_label] if menu.capped else [])
        if entries == list(self.param.selected.objects) and listed == list(self.available):
            return
        keep = [c for c in self.selected or [] if c in entries]
        self.param.selected.objects = entries
        self.param.update(available=listed, others=menu.others_label if menu.capped else "",
                          n_others=menu.n_others, others_trials=menu.others_trials,
                          selected=keep if keep else list(entries))
        if self.custom_weights.strip() == "" and listed:
            self.custom_weights = ", ".join(f"{c}=1" for c in listed)

    def measures(self, results, plo):
        """``{role: [OperatingPoint per drawn condition]}`` at ``plo`` when the curves are
        shown, else None (a binary search per condition)."""
        if not self.show_curves:
            return None
        return {role: [c.llr.at(plo) for c in d.conditions]
                for role, d in results.datasets.items() if d.conditions}

    @staticmethod
    def describe(spec: ConditionSpec | None):
        """A weighting in words (for the page and the CSV); '' without conditions."""
        if spec is None:
            return ""
        what = {"pooled": "pooled trials", "equal": "equal per condition",
                "custom": f"custom ({spec.text})"}[spec.weights]
        if spec.select is not None:
            sel = ", ".join(spec.select)
        elif spec.exclude:
            sel = "all conditions but " + ", ".join(spec.exclude)
        else:
            sel = "all conditions"
        return f"{what}; {sel}"

    def note(self, teaching=False):
        """A short explanation for the condition controls."""
        if teaching:
            return "Teaching mode has no conditions."
        if not self.available:
            return ("The loaded trials carry no conditions (an HDF5 `/conditions` matrix or "
                    "a condition column), so every trial counts once.")
        text = ("Pooled measures weight each condition's miss and false-alarm rates "
                "(van Leeuwen 2008, eq. 12). Calibration is trained on the dev trials "
                "weighted the same way; fusion on unweighted dev trials.")
        if self.others:
            n = len(self.available) + self.n_others
            text += (f" The data hold {n:,} conditions: the {len(self.available)} with the "
                     f"most trials are listed by name, the entry '{self.others}' stands for "
                     f"the other {self.n_others:,} ({self.others_trials:,} trials). Custom "
                     f"weights give weight 0 to the conditions they do not name.")
        return text
