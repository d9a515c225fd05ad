"""llrlab.dashboard: the interactive Panel/Bokeh front end of llrlab.

``llrlab serve [FILES...]`` (see :mod:`llrlab.dashboard.cli`),
``llrlab.dashboard.app.create_app()``, or in a notebook ``Dashboard(data)`` on scores held
in Python objects (see :mod:`llrlab.dashboard.notebook`).  The state
(:mod:`llrlab.dashboard.state`) and the heavy computations (:mod:`llrlab.dashboard.compute`)
import neither Panel nor Bokeh; every number comes from :mod:`llrlab.core`.
"""

__all__ = ["Dashboard", "DashboardState"]


def __getattr__(name):
    if name == "DashboardState":
        from .state import DashboardState

        return DashboardState
    if name == "Dashboard":
        from .notebook import Dashboard

        return Dashboard
    raise AttributeError(name)
