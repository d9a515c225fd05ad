"""llrlab.core: evaluation and calibration of binary-detector scores (numpy/scipy/h5py only).

The public API; every measure accepts ``(tar, non)`` arrays or a :class:`Trials` object.
Definitions follow ../shared/CONVENTIONS.md; theory in the seeds cited by each docstring.
"""

from .analysis import DEFAULT_PLO, Analysis, OperatingPoint, analyze, analyze_transformed
from .ape import APECurves, ECECurves, ape_curves, ece_curves
from .cllr import cllr, cross_entropy, min_cllr, min_cross_entropy
from .conditions import (
    ConditionAnalysis,
    ConditionWeights,
    by_condition,
    condition_weights,
    parse_condition_weights,
)
from .dcf import DCFResult, act_dcf, bayes_error, min_dcf
from .det import DETCurve, decimate, det_curve, det_dr30, probit
from .epc import EPC, epc, epc_many
from .errors import DataError, FileFormatError, LlrlabError, LlrlabWarning, SeparableDataWarning
from .nber import DR30, NBERCurves, dr30, nber_curves
from .operating_point import (
    bayes_threshold,
    effective_prior,
    plo_from_costs,
    plo_from_prior,
    prior_from_plo,
)
from .pav import PAVFit, pav
from .rocch import ROC, ROCCH, prbep, rocch, rocch_eer, steppy_roc, uer
from .significance import McNemarResult, ZTestResult, mcnemar_test, paired_trials, z_test
from .synthetic import GaussianModel, gaussian_trials
from .trials import IdCodes, Scores, Trials, trial_codes
from .uncertainty import (
    BootstrapCI,
    BootstrapWarning,
    DCFInterval,
    Interval,
    OperatingPointCI,
    ProportionCI,
    bootstrap_ci,
    operating_point_ci,
    proportion_ci,
)

__all__ = [
    "DEFAULT_PLO",
    "DR30",
    "EPC",
    "ROC",
    "ROCCH",
    "APECurves",
    "Analysis",
    "BootstrapCI",
    "BootstrapWarning",
    "ConditionAnalysis",
    "ConditionWeights",
    "DCFInterval",
    "DCFResult",
    "DETCurve",
    "DataError",
    "ECECurves",
    "FileFormatError",
    "GaussianModel",
    "IdCodes",
    "Interval",
    "LlrlabError",
    "LlrlabWarning",
    "McNemarResult",
    "NBERCurves",
    "OperatingPoint",
    "OperatingPointCI",
    "PAVFit",
    "ProportionCI",
    "Scores",
    "SeparableDataWarning",
    "Trials",
    "ZTestResult",
    "act_dcf",
    "analyze",
    "analyze_transformed",
    "ape_curves",
    "bayes_error",
    "bayes_threshold",
    "bootstrap_ci",
    "by_condition",
    "cllr",
    "condition_weights",
    "cross_entropy",
    "decimate",
    "det_curve",
    "det_dr30",
    "dr30",
    "ece_curves",
    "effective_prior",
    "epc",
    "epc_many",
    "gaussian_trials",
    "mcnemar_test",
    "min_cllr",
    "min_cross_entropy",
    "min_dcf",
    "nber_curves",
    "operating_point_ci",
    "paired_trials",
    "parse_condition_weights",
    "pav",
    "plo_from_costs",
    "plo_from_prior",
    "prbep",
    "prior_from_plo",
    "probit",
    "proportion_ci",
    "rocch",
    "rocch_eer",
    "steppy_roc",
    "trial_codes",
    "uer",
    "z_test",
]
