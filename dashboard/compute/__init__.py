"""The dashboard's heavy results: everything drawn, computed from llrlab.core only.

This package imports neither Panel nor Bokeh.  :func:`compute_results` turns the loaded data
and the calibration choice into a frozen :class:`Results` (one :class:`DatasetResult` per
dev / eval set); it is the only place where the dashboard sorts scores, through
:func:`llrlab.core.analyze`, or trains a calibration.  Everything the plots need when the
operating point moves is then a look-up (:meth:`llrlab.core.Analysis.at`).

Modules, one per concern:

* ``results`` -- the frozen records (:class:`Results`, :class:`DatasetResult`, ...);
* ``datasets`` -- analyses, histogram bins, display ranges and DET pick points of a dataset;
* ``conditions`` -- condition-weighted pooling (:class:`ConditionSpec`);
* ``system``, ``fusion``, ``teaching`` -- the results of one system, of the fusion of all,
  and of teaching mode's synthetic data; ``build`` chooses between them
  (:func:`compute_results`);
* ``uncertainty`` -- binomial intervals at the operating point and bootstrap intervals;
* ``compare`` -- the comparison of all systems (APE, ECE, EPC, significance tests).

The dashboard's state calls these functions through this package's names.
"""

from .build import compute_results
from .compare import (
    APE_PLO,
    EPC_ALPHA,
    FUSION,
    Comparison,
    SignificanceRow,
    SystemComparison,
    compare_systems,
    compute_system,
    significance,
)
from .conditions import MAX_CONDITIONS, ConditionSpec
from .datasets import HIST_BINS, hist_range, histogram
from .results import (
    DET_POINTS,
    ConditionCurve,
    DatasetResult,
    Histogram,
    Results,
    SystemData,
)
from .teaching import TEACHING_REFERENCES, TeachingSpec
from .uncertainty import CI_METHODS, bootstrap, op_interval

__all__ = [
    "APE_PLO",
    "CI_METHODS",
    "DET_POINTS",
    "EPC_ALPHA",
    "FUSION",
    "HIST_BINS",
    "MAX_CONDITIONS",
    "TEACHING_REFERENCES",
    "Comparison",
    "ConditionCurve",
    "ConditionSpec",
    "DatasetResult",
    "Histogram",
    "Results",
    "SignificanceRow",
    "SystemComparison",
    "SystemData",
    "TeachingSpec",
    "bootstrap",
    "compare_systems",
    "compute_results",
    "compute_system",
    "hist_range",
    "histogram",
    "op_interval",
    "significance",
]
