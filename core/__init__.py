"""llrlab.core: evaluation and calibration of binary-detector scores (numpy/scipy/h5py only).

The public API; every measure accepts ``(tar, non)`` arrays or a :class:`Trials` object.  The
definitions llrlab follows are in ``docs/conventions.md``; each docstring gives its formula
and the published source it comes from.

Submodules are imported on first use (PEP 562), so that ``import llrlab.core`` and the
command line's ``-h`` stay fast; ``from llrlab.core import analyze`` works as usual.
"""

from __future__ import annotations

import importlib
import sys
import types

#: public name -> the submodule that defines it
_EXPORTS = {
    "DEFAULT_PLO": "analysis",
    "Analysis": "analysis",
    "OperatingPoint": "analysis",
    "analyze": "analysis",
    "analyze_transformed": "analysis",
    "APECurves": "ape",
    "AUCResult": "auc",
    "auc": "auc",
    "ECECurves": "ape",
    "ape_curves": "ape",
    "ece_curves": "ape",
    "cllr": "cllr",
    "cross_entropy": "cllr",
    "min_cllr": "cllr",
    "min_cross_entropy": "cllr",
    "ConditionAnalysis": "conditions",
    "ConditionWeights": "conditions",
    "by_condition": "conditions",
    "condition_weights": "conditions",
    "parse_condition_weights": "conditions",
    "DCFResult": "dcf",
    "act_dcf": "dcf",
    "bayes_error": "dcf",
    "min_dcf": "dcf",
    "DETCurve": "det",
    "decimate": "det",
    "det_curve": "det",
    "det_dr30": "det",
    "probit": "det",
    "EPC": "epc",
    "epc": "epc",
    "epc_many": "epc",
    "DataError": "errors",
    "FileFormatError": "errors",
    "LlrlabError": "errors",
    "LlrlabWarning": "errors",
    "UnknownNameError": "errors",
    "SeparableDataWarning": "errors",
    "DR30": "nber",
    "NBERCurves": "nber",
    "dr30": "nber",
    "nber_curves": "nber",
    "bayes_threshold": "operating_point",
    "effective_prior": "operating_point",
    "plo_from_costs": "operating_point",
    "plo_from_prior": "operating_point",
    "prior_from_plo": "operating_point",
    "GRID_STEP": "op_grid",
    "OperatingPointGrid": "op_grid",
    "grid_plo": "op_grid",
    "operating_point_grid": "op_grid",
    "PAVFit": "pav",
    "pav": "pav",
    "ROC": "rocch",
    "ROCCH": "rocch",
    "prbep": "rocch",
    "rocch": "rocch",
    "rocch_eer": "rocch",
    "steppy_roc": "rocch",
    "uer": "rocch",
    "McNemarResult": "significance",
    "ZTestResult": "significance",
    "mcnemar_test": "significance",
    "opposite_verdicts": "significance",
    "p_value_text": "significance",
    "paired_trials": "significance",
    "z_test": "significance",
    "LLR_UNITS": "forensic",
    "ReliabilityDiagram": "forensic",
    "TippettCurves": "forensic",
    "llr_from_unit": "forensic",
    "llr_label": "forensic",
    "llr_to_unit": "forensic",
    "reliability": "forensic",
    "tippett": "forensic",
    "GaussianModel": "synthetic",
    "gaussian_trials": "synthetic",
    "miscalibration_warning": "llr_check",
    "EER_RULES": "threshold",
    "HTERResult": "threshold",
    "ThresholdCounts": "threshold",
    "ThresholdCurve": "threshold",
    "ThresholdEER": "threshold",
    "ThresholdSummary": "threshold",
    "counts_at": "threshold",
    "fmr_at_fnmr": "threshold",
    "fmr_label": "threshold",
    "fnmr_at_fmr": "threshold",
    "hter": "threshold",
    "roc_curve": "threshold",
    "threshold_eer": "threshold",
    "threshold_summary": "threshold",
    "zero_fmr": "threshold",
    "zero_fnmr": "threshold",
    "IdCodes": "trials",
    "Scores": "trials",
    "Trials": "trials",
    "trial_codes": "trials",
    "BootstrapCI": "uncertainty",
    "BootstrapWarning": "uncertainty",
    "DCFInterval": "uncertainty",
    "Interval": "uncertainty",
    "OperatingPointCI": "uncertainty",
    "ProportionCI": "uncertainty",
    "bootstrap_ci": "uncertainty",
    "operating_point_ci": "uncertainty",
    "proportion_ci": "uncertainty",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name):
    if name == "__version__":
        from ._version import __version__

        return __version__
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'llrlab.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


class _Package(types.ModuleType):
    """This package's module type.  Importing a submodule binds it as an attribute of the
    package; where the submodule is named like the function it exports (``cllr``, ``pav``,
    ``rocch``, ``epc``), the function keeps the name, as with eager imports."""

    def __setattr__(self, name, value):
        if (isinstance(value, types.ModuleType) and _EXPORTS.get(name) == name
                and value.__name__ == f"{__name__}.{name}"):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__():
    return sorted(set(globals()) | set(__all__))

