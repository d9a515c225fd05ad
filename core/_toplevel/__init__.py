"""llrlab: analyse and calibrate the scores of binary detectors.

* :mod:`llrlab.core` -- the numeric library (numpy, scipy and h5py only): DCF, Cllr, EER,
  NBER and DET curves, calibration and fusion, file formats, the ``llrlab`` command line.
* :mod:`llrlab.dashboard` -- the interactive Panel dashboard (``llrlab serve``).

This file is the installed ``llrlab/__init__.py``; in the repository it lives in
``core/_toplevel/`` (pyproject.toml maps it), since the repository's top level holds only
``core/`` and ``dashboard/``.
"""

__all__ = ["__version__"]


def __getattr__(name):
    if name == "__version__":
        from llrlab.core._version import __version__

        return __version__
    raise AttributeError(f"module 'llrlab' has no attribute {name!r}")
