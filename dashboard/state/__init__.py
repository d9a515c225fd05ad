"""The dashboard's state, split by concern; no Panel import.

One ``param.Parameterized`` per card or concern, and one class that wires them together:

* :class:`DataState` (``data.py``) -- loaded systems and the jobs that load files;
  :func:`systems_from_objects` (``objects.py``) -- the systems of scores held in Python
  objects (arrays, Trials, DataFrames: a notebook's);
* :class:`OperatingPointState` (``operating_point.py``) -- costs, priors and prior log-odds,
  linked both ways;
* :class:`CalibrationState` (``calibration.py``) -- calibration method, training prior,
  fusion;
* :class:`ConditionsState` (``conditions.py``) -- condition weighting and selection;
* :class:`UncertaintyState` (``uncertainty.py``) -- binomial and bootstrap intervals;
* :class:`DisplayState` (``display.py``) -- what the plots show and how;
* :class:`TeachingState` (``teaching.py``) -- teaching mode's synthetic data;
* :class:`PresenterState` (``presenter.py``) -- presenter mode, its panels and highlights,
  the saved views;
* :class:`LessonState` (``lesson.py``) -- the open guided lesson and its step;
* :class:`CompareState` (``compare.py``) -- the comparison of all systems;
* :class:`ExportState` (``export.py``) -- tables and downloads;
* :class:`StatusState` (``status.py``) -- background work, errors and notices;
* :class:`DashboardState` (``dashboard.py``) -- the wiring: the parts, the results cache,
  the job runner, the derived outputs, snapshots.

Jobs, runners and small caches are in ``jobs.py``.

Each name is imported from its submodule on first use (:mod:`llrlab.dashboard._lazy`),
so that importing one submodule (e.g. for checking a lesson file) imports no other.
"""

from .._lazy import lazy_exports

#: public name -> the submodule that defines it
_EXPORTS = {
    "CalibrationState": "calibration",
    "FUSION": "compare",
    "FUSION_COLOR": "compare",
    "PALETTE": "compare",
    "CompareState": "compare",
    "WEIGHTINGS": "conditions",
    "ConditionsState": "conditions",
    "NBER_POINTS": "dashboard",
    "PARTS": "dashboard",
    "DashboardState": "dashboard",
    "NBERData": "dashboard",
    "check_snapshot": "dashboard",
    "DataState": "data",
    "DisplayState": "display",
    "ExportState": "export",
    "Jobs": "jobs",
    "SyncRunner": "jobs",
    "user_message": "jobs",
    "LessonState": "lesson",
    "systems_from_objects": "objects",
    "PLO_LIMIT": "operating_point",
    "OperatingPointState": "operating_point",
    "HIGHLIGHTS": "presenter",
    "MAX_PANELS": "presenter",
    "PANELS": "presenter",
    "PresenterState": "presenter",
    "StatusState": "status",
    "TeachingState": "teaching",
    "CI_CHOICES": "uncertainty",
    "UncertaintyState": "uncertainty",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
