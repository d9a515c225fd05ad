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

Each name is imported from its submodule on first use (:mod:`llrlab.dashboard._lazy`),
so that importing one submodule (e.g. for checking a lesson file) imports no other.
"""

from .._lazy import lazy_exports

#: public name -> the submodule that defines it
_EXPORTS = {
    "compute_results": "build",
    "APE_PLO": "compare",
    "EPC_ALPHA": "compare",
    "FUSION": "compare",
    "Comparison": "compare",
    "SignificanceRow": "compare",
    "SystemComparison": "compare",
    "compare_systems": "compare",
    "compute_system": "compare",
    "significance": "compare",
    "MAX_CONDITIONS": "conditions",
    "ConditionSpec": "conditions",
    "HIST_BINS": "datasets",
    "hist_range": "datasets",
    "histogram": "datasets",
    "DET_POINTS": "results",
    "ConditionCurve": "results",
    "DatasetResult": "results",
    "Histogram": "results",
    "Results": "results",
    "SystemData": "results",
    "TEACHING_REFERENCES": "teaching",
    "TeachingSpec": "teaching",
    "CI_METHODS": "uncertainty",
    "bootstrap": "uncertainty",
    "op_interval": "uncertainty",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
