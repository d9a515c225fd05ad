"""Packages whose public names are imported on first use (PEP 562).

``llrlab serve --lesson FILE`` checks the lesson file against the dashboard's state classes
before anything heavy is imported (SciPy's statistics, the calibration code, Panel): a bad
file gets its one-line error at once.  The state and compute packages therefore import their
submodules only when one of their names is first used; ``from .state import DashboardState``
works as before.
"""

from __future__ import annotations

import importlib

__all__ = ["lazy_exports"]


def lazy_exports(package, exports):
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``) with ``exports``, a
    mapping of public name -> submodule (relative, without the dot) that defines it.  A name
    is imported on first use and then kept in the package's namespace; a submodule is
    reached as an attribute too (``compute.conditions``), as after eager imports."""
    module = importlib.import_module(package)

    def __getattr__(name):
        sub = exports.get(name)
        if sub is None:
            if not name.startswith("__"):
                try:
                    return importlib.import_module(f".{name}", package)
                except ModuleNotFoundError as exc:
                    if exc.name != f"{package}.{name}":
                        raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{sub}", package), name)
        setattr(module, name, value)  # later look-ups skip this function
        return value

    def __dir__():
        return sorted(set(vars(module)) | set(exports))

    return __getattr__, __dir__
