"""One ``pn.viewable.Viewer`` per plot or table; each builds its Bokeh figure and sources once."""

from .calibration import CalibrationView
from .det import DETView
from .export import ExportView
from .forensic import ForensicView
from .histogram import HistogramView
from .metrics import MetricsView
from .nber import NBERView
from .reliability import ReliabilityView
from .tippett import TippettView

__all__ = ["CalibrationView", "DETView", "ExportView", "ForensicView", "HistogramView",
           "MetricsView", "NBERView", "ReliabilityView", "TippettView"]
