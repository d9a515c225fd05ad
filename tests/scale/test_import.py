"""The core import loads none of the scale extra's packages."""

from __future__ import annotations

from .._subprocess import loaded_by, python_prints


def test_core_import_loads_no_dask_distributed_or_pyarrow():
    code = ("import llrlab.core, llrlab.core.cli, llrlab.core.io, llrlab.core.calibration, "
            "llrlab.core.scale")
    assert loaded_by(code, ("dask", "distributed", "pyarrow", "pandas")) == []


def test_cli_parser_builds_without_dask():
    code = ("import sys; from llrlab.core.cli import build_parser; "
            "a = build_parser().parse_args(['eval', 's.parquet', '--dask', 'tcp://h:8786']); "
            "print(a.dask, 'dask' in sys.modules)")
    assert python_prints(code) == "tcp://h:8786 False"


def test_reprs_are_one_short_line():
    import dask.array as da
    import numpy as np

    from llrlab.core.scale import analyze_dask

    rng = np.random.default_rng(0)
    a = analyze_dask(da.from_array(rng.normal(2, 1, 3000), chunks=1000),
                     da.from_array(rng.normal(0, 1, 30000), chunks=10000))
    for obj in (a, a.sorted):
        text = repr(obj)
        assert "\n" not in text and len(text) < 300, text
    assert repr(a).startswith("DaskAnalysis(n_tar=3000, n_non=30000, eer=")
