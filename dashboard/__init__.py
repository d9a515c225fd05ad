"""llrlab.dashboard: the interactive Panel/Bokeh front end of llrlab.

``llrlab serve [FILES...]`` (see :mod:`llrlab.dashboard.cli`) or
``llrlab.dashboard.app.create_app()``.  The state (:mod:`llrlab.dashboard.state`) and the heavy
computations (:mod:`llrlab.dashboard.compute`) import neither Panel nor Bokeh; every number
comes from :mod:`llrlab.core`.
"""

__all__ = ["DashboardState"]


def __getattr__(name):
    if name == "DashboardState":
        from .state import DashboardState

        return DashboardState
    raise AttributeError(name)
