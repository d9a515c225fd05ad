"""Conditions: how the trials' conditions are pooled (van Leeuwen 2008, eq. 12), which are
pooled, and whether each is drawn."""

from __future__ import annotations

import param

from ..compute import ConditionSpec

__all__ = ["WEIGHTINGS", "ConditionsState"]

#: The UI's condition weightings -> ``ConditionSpec.weights``.
WEIGHTINGS = {"pooled trials": "pooled", "equal per condition": "equal", "custom": "custom"}


class ConditionsState(param.Parameterized):
    """Condition weighting and selection (seed 001), and the conditions the data offer."""

    #: Parameters that change the heavy results.
    result_params = ("weighting", "custom_weights", "selected")

    weighting = param.Selector(default="pooled trials", objects=list(WEIGHTINGS),
                               label="Condition weighting", doc="""
        How the conditions of the trials are pooled: every trial once, every condition
        equally, or custom weights (``custom_weights``).""")
    custom_weights = param.String(default="", label="Custom weights", doc="""
        Condition weights as NAME=W, e.g. 'tel=2, mic=1' (normalized to sum to 1).""")
    selected = param.ListSelector(default=[], objects=[], label="Pooled conditions", doc="""
        The conditions pooled (all of ``available`` when new data arrive).""")
    show_curves = param.Boolean(default=False, label="Per-condition curves")
    available = param.List(default=[], precedence=-1, doc="""
        Conditions of the shown data (empty: the trials carry none).""")

    def spec(self) -> ConditionSpec:
        """How the conditions are pooled; the selection is None when it holds every
        available condition, and the custom text only counts for custom weights (so neither
        changes the cache key needlessly)."""
        weights = WEIGHTINGS[self.weighting]
        sel = self.selected or []
        avail = set(self.available)
        select = None if not avail or set(sel) >= avail else tuple(sorted(sel))
        text = " ".join(self.custom_weights.split()) if weights == "custom" else ""
        return ConditionSpec(weights, text, select)

    def reset(self):
        """New data: the conditions are known again when their results arrive."""
        self.param.update(selected=[], available=[])
        self.param.selected.objects = []

    def offer(self, names):
        """Offer the conditions of the shown data (new conditions are all selected)."""
        names = list(names)
        if names == list(self.available):
            return
        keep = [c for c in self.selected or [] if c in names]
        self.param.selected.objects = names
        self.param.update(available=names, selected=keep if keep else list(names))
        if self.custom_weights.strip() == "" and names:
            self.custom_weights = ", ".join(f"{c}=1" for c in names)

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
        sel = "all conditions" if spec.select is None else ", ".join(spec.select)
        return f"{what}; {sel}"

    def note(self, teaching=False):
        """A short explanation for the condition controls."""
        if teaching:
            return "Teaching mode has no conditions."
        if not self.available:
            return ("The loaded trials carry no conditions (an HDF5 `/conditions` matrix or "
                    "a condition column), so every trial counts once.")
        return ("Pooled measures weight each condition's miss and false-alarm rates "
                "(van Leeuwen 2008, eq. 12). Calibration is trained on the dev trials "
                "weighted the same way; fusion on unweighted dev trials.")
