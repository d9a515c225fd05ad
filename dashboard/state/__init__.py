"""The dashboard's state, split by concern; no Panel import.

One ``param.Parameterized`` per card or concern, and one class that wires them together:

* :class:`DataState` (``data.py``) -- loaded systems and the jobs that load files;
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
"""

from .calibration import CalibrationState
from .compare import FUSION, FUSION_COLOR, PALETTE, CompareState
from .conditions import WEIGHTINGS, ConditionsState
from .dashboard import NBER_POINTS, PARTS, DashboardState, NBERData, check_snapshot
from .data import DataState
from .display import DisplayState
from .export import ExportState
from .jobs import Jobs, SyncRunner, user_message
from .lesson import LessonState
from .operating_point import PLO_LIMIT, OperatingPointState
from .presenter import HIGHLIGHTS, MAX_PANELS, PANELS, PresenterState
from .status import StatusState
from .teaching import TeachingState
from .uncertainty import CI_CHOICES, UncertaintyState

__all__ = [
    "CI_CHOICES",
    "FUSION",
    "FUSION_COLOR",
    "HIGHLIGHTS",
    "MAX_PANELS",
    "NBER_POINTS",
    "PALETTE",
    "PANELS",
    "PARTS",
    "PLO_LIMIT",
    "WEIGHTINGS",
    "CalibrationState",
    "CompareState",
    "ConditionsState",
    "DashboardState",
    "DataState",
    "DisplayState",
    "ExportState",
    "Jobs",
    "LessonState",
    "NBERData",
    "OperatingPointState",
    "PresenterState",
    "StatusState",
    "SyncRunner",
    "TeachingState",
    "UncertaintyState",
    "check_snapshot",
    "user_message",
]
