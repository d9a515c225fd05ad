"""One ``pn.viewable.Viewer`` per plot or table; each builds its Bokeh figure and sources once."""

from .calibration import CalibrationView
from .det import DETView
from .histogram import HistogramView
from .metrics import MetricsView
from .nber import NBERView

__all__ = ["CalibrationView", "DETView", "HistogramView", "MetricsView", "NBERView"]
