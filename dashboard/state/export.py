"""What the tables show and the files a user takes away: metrics rows and their CSV, the
per-condition rows, the DR30 warning, the trained calibration and the calibrated eval scores.

Everything here is read from a :class:`~.dashboard.DashboardState` (its outputs and parts);
nothing is computed but formatting and look-ups already made.
"""

from __future__ import annotations

import csv
import io

import param

from llrlab.core import Trials, miscalibration_warning

from ..safe import md_text

__all__ = ["ExportState", "csv_with_operating_point"]

#: The operating point's columns, first in every CSV.
POINT_FIELDS = ("p_target", "c_miss", "c_fa", "effective_prior", "plo")


def csv_with_operating_point(point, fields, rows):
    """CSV text of ``rows`` (dicts) under the columns ``fields``, each row preceded by the
    operating point of ``point`` (an OperatingPointState); floats in full precision
    (``repr``), missing values empty."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=[*POINT_FIELDS, *fields], lineterminator="\n")
    w.writeheader()
    where = {k: repr(getattr(point, k)) for k in POINT_FIELDS}
    for r in rows:
        w.writerow({**where, **{k: (repr(v) if isinstance(v, float) else v)
                                for k, v in r.items() if k in fields}})
    return buf.getvalue()


class ExportState(param.Parameterized):
    """Tables and downloads of a dashboard (see the module docstring)."""

    state = param.Parameter(default=None, precedence=-1, doc="""
        The DashboardState whose results are exported.""")

    # ------------------------------------------------------------------ metrics

    def metrics_rows(self):
        """One dict per dataset with the headline measures at the operating point."""
        st = self.state
        res, op = st.results, st.op or {}
        if res is None:
            return []
        plo = st.point.plo
        system, calibration = self.system_name(), self.calibration_name()
        threshold = res.score_threshold(plo)
        rows = []
        for role, d in res.datasets.items():
            a, o = d.llr, op.get(role)
            if o is None:
                continue
            row = {
                "system": system,
                "calibration": calibration,
                "role": role,
                "dataset": d.label,
                "n_tar": a.n_tar,
                "n_non": a.n_non,
                "cllr": float(a.cllr),
                "min_cllr": float(a.min_cllr),
                "eer": float(a.eer),
                "act_dcf": o.act_dcf,
                "min_dcf": o.min_dcf,
                "misses": int(o.act.misses),
                "false_alarms": int(o.act.false_alarms),
                "dr30_safe": bool(o.dr30_safe),
                "p_miss": float(o.act.p_miss),
                "p_fa": float(o.act.p_fa),
                # the true LLR of teaching mode is judged at the Bayes threshold itself
                "threshold": -float(plo) if role == "true" else threshold,
            }
            if res.condition_spec is not None:
                row["weighting"] = self.weighting_text()
            ci = (st.op_ci or {}).get(role)
            if ci is not None:
                row.update({
                    "ci": f"{ci.method} {ci.confidence:g}", "ci_variance": ci.variance,
                    "p_miss_lo": float(ci.p_miss.lower), "p_miss_hi": float(ci.p_miss.upper),
                    "p_fa_lo": float(ci.p_fa.lower), "p_fa_hi": float(ci.p_fa.upper),
                    "act_dcf_lo": float(ci.dcf.lower), "act_dcf_hi": float(ci.dcf.upper)})
            b, fresh = st.uncertainty.current(role, plo)
            if b is not None:
                row.update({
                    "bootstrap": f"{b.method} {b.n_used} by {b.by} {b.confidence:g}",
                    "cllr_lo": b.cllr.lower, "cllr_hi": b.cllr.upper,
                    "eer_lo": b.eer.lower, "eer_hi": b.eer.upper,
                    "min_dcf_lo": b.min_dcf.lower if fresh else None,
                    "min_dcf_hi": b.min_dcf.upper if fresh else None})
            rows.append(row)
        return rows

    def system_name(self):
        """The name of the shown system (its results' source): a loaded system, the fusion
        of all, or teaching mode's synthetic data."""
        st = self.state
        res = st.results
        if res is not None and res.teaching:
            return "synthetic (teaching mode)"
        if res is not None and res.key and res.key[0] == "fusion":
            return "fusion"
        return st.data.system or ""

    def calibration_name(self):
        """How the shown LLRs were made: ``none``, or the trained calibration's kind and
        training prior (e.g. ``affine, prior 0.5``; ``pav``)."""
        res = self.state.results
        cal = None if res is None else res.calibration
        if cal is None:
            return "none"
        prior = cal.report().get("prior")
        return cal.kind if prior is None else f"{cal.kind}, prior {float(prior):g}"

    def calibration_warning(self):
        """Why act DCF and Cllr are poor when uncalibrated scores do not look like LLRs (the
        sentence ``llrlab eval`` prints, :func:`llrlab.core.miscalibration_warning`), and
        what to do in the page; '' otherwise (also in teaching mode, where the
        miscalibration is chosen)."""
        st = self.state
        res = st.results
        if res is None or res.calibration is not None or res.teaching or not res.datasets:
            return ""
        d = res.datasets.get("eval") or res.primary
        if d is None:
            return ""
        text = miscalibration_warning(d.llr, f"The {d.role} scores of {self.system_name()}")
        if not text:
            return ""
        # the sentence names the system (user text): escaped for the Markdown pane
        return (f"{md_text(text)}. In this page: choose **affine** or **pav** under "
                f"Calibration / fusion (trained on the dev set).")

    def metrics_csv(self):
        """The metrics table as CSV text (with the operating point in the first columns)."""
        rows = self.metrics_rows()
        fields = list(rows[0].keys()) if rows else ["dataset"]
        return csv_with_operating_point(self.state.point, fields, rows)

    def weighting_text(self):
        """The condition weighting of the shown results in words (for the page and the
        CSV); '' without conditions."""
        res = self.state.results
        return self.state.conditions.describe(None if res is None else res.condition_spec)

    def condition_rows(self, role="eval"):
        """One dict per drawn condition of ``role`` (eval, else dev): its weight and
        measures at the operating point."""
        st = self.state
        res = st.results
        if res is None or not res.datasets:
            return []
        d = res.datasets.get(role) or res.primary
        if d is None or not d.conditions:
            return []
        ops = ((st.cond_op or {}).get(d.role)
               or [c.llr.at(st.point.plo) for c in d.conditions])
        return [{"role": d.role, "condition": c.name, "w_tar": c.w_tar, "w_non": c.w_non,
                 "n_tar": c.llr.n_tar, "n_non": c.llr.n_non, "act_dcf": o.act_dcf,
                 "min_dcf": o.min_dcf, "eer": float(c.llr.eer), "cllr": float(c.llr.cllr),
                 "dr30_safe": bool(o.dr30_safe)}
                for c, o in zip(d.conditions, ops, strict=True)]

    def dr30_warning(self, short=False):
        """Text explaining which datasets are outside the DR30-safe region, or ''
        (``short``: one line, for a stage)."""
        st = self.state
        res, op = st.results, st.op or {}
        if res is None:
            return ""
        parts = []
        for role, o in op.items():
            if o.dr30_safe:
                continue
            d = res.datasets[role].llr.dr30
            why = ("fewer than 30 false alarms" if o.plo < d.plo_fa
                   else "fewer than 30 misses")
            parts.append(f"{res.datasets[role].label} ({why})")
        if not parts:
            return ""
        if short:
            return f"Outside DR30 here: {', '.join(parts)}."
        return (f"The operating point (prior log-odds {st.point.plo:.2f}) is outside the "
                f"DR30-safe region for {', '.join(parts)}: error rates there rest on too few "
                f"errors.")

    # ------------------------------------------------------------------ calibration

    def calibration_dict(self):
        """The trained calibration / fusion parameters as a JSON-able dict (or None).

        The calibrator's report: its training prior is there when the method has one (PAV
        does not depend on a prior).
        """
        res = self.state.results
        if res is None or res.calibration is None:
            return None
        return dict(res.calibration.report())

    def calibrated_eval(self) -> Trials | None:
        """The eval trials with calibrated (or fused) scores, in file order."""
        st = self.state
        res = st.results
        if res is None or res.calibration is None or st.teaching.enabled:
            return None
        systems = st.data.systems
        if st.calibration.fusion and len(systems) > 1:
            sets = [s.eval for s in systems.values()]
            if any(t is None for t in sets):
                return None
            return res.calibration.apply_systems(sets)
        data = systems.get(st.data.system)
        if data is None or data.eval is None:
            return None
        return data.eval.with_scores(res.calibration.apply(data.eval.scores))
