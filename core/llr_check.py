"""Do the scores behave like calibrated log-likelihood ratios?

Actual DCF, Cllr and the tests of :mod:`llrlab.core.significance` judge the decisions a
system makes at the Bayes threshold ``-plo``, which is right only for calibrated LLRs.  Raw
scores (cosine similarities, PLDA scores before calibration, ...) give actual DCFs near 1 and
Cllrs near or above 1 bit, which read like a broken system.  :func:`miscalibration_warning`
says so in one sentence, so that the command line and the dashboard can point users to
calibration.

The rule: Cllr splits into the discrimination loss ``minCllr`` and the calibration loss
``Cllr - minCllr`` (Brümmer & du Preez 2006; Brümmer 2010, ch. 7).  Of the
``1 - minCllr`` bits that the scores could deliver (against the default system's 1 bit),
calibration throws away more than three quarters, or Cllr exceeds 1 bit (worse than no system).  A
scale or shift miscalibration of a few tenths of a nat stays below the rule; uncalibrated raw
scores are far above it.
"""

from __future__ import annotations

__all__ = ["miscalibration_warning"]


def miscalibration_warning(analysis, name="the scores"):
    """One sentence when ``analysis``'s scores do not look like calibrated LLRs, else ``""``.

    Parameters
    ----------
    analysis : Analysis
        From :func:`llrlab.core.analyze` (its ``cllr`` and ``min_cllr`` are used).
    name : str
        How the sentence names the scores (a file or system name).

    Examples
    --------
    >>> from llrlab.core import analyze, gaussian_trials
    >>> miscalibration_warning(analyze(gaussian_trials(1000, 10000, seed=1)))
    ''
    >>> shifted = gaussian_trials(1000, 10000, seed=1, shift=-3)
    >>> print(miscalibration_warning(analyze(shifted)))
    the scores do not look like calibrated LLRs: Cllr 1.06 bits against min Cllr 0.498
    (miscalibration costs 0.558 bits); actual DCF and Cllr judge decisions at the Bayes
    threshold, so calibrate the scores first (llrlab calibrate, or eval --calibrate-on) or
    read only min DCF, min Cllr and EER
    """
    cllr, min_cllr = float(analysis.cllr), float(analysis.min_cllr)
    loss, room = cllr - min_cllr, 1.0 - min_cllr
    if not (cllr > 1.0 or loss > 0.75 * room):
        return ""
    return (f"{name} do not look like calibrated LLRs: Cllr {cllr:.3g} bits against min Cllr "
            f"{min_cllr:.3g} (miscalibration costs {loss:.3g} bits); actual DCF and Cllr judge "
            f"decisions at the Bayes threshold, so calibrate the scores first (llrlab "
            f"calibrate, or eval --calibrate-on) or read only min DCF, min Cllr and EER")
