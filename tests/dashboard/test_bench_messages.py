"""The benchmarks' light client reads Bokeh's messages as Bokeh writes them
(``bench/_served.py``: :func:`column_lengths`, which tells when the drag's grid has arrived)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from bokeh.core.serialization import Serializer

_PATH = Path(__file__).resolve().parents[2] / "bench" / "_served.py"


@pytest.fixture(scope="module")
def served():
    spec = importlib.util.spec_from_file_location("_bench_served_messages", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wire(data):
    """``data`` as a client receives it: Bokeh's encoding, through JSON."""
    return json.loads(json.dumps(Serializer(deferred=False).encode(data)))


def test_column_lengths_of_arrays_and_lists(served):
    got = served.column_lengths(_wire({"plo": np.linspace(-20, 20, 10241), "x": [1.0, 2.0],
                                       "m0": np.zeros(10241, np.int32)}))
    assert got == {"plo": 10241, "x": 2, "m0": 10241}


def test_column_lengths_of_an_emptied_source(served):
    assert served.column_lengths(_wire({"plo": np.empty(0)})) == {"plo": 0}
    assert served.column_lengths(_wire({"role": [], "T": []})) == {"role": 0, "T": 0}


@pytest.mark.parametrize("value", [None, 3, "x", [], {"type": "object"}, {"type": "map"},
                                   {"type": "map", "entries": [["a"], [1, [2]], "ab"]}])
def test_column_lengths_of_anything_else(served, value):
    assert served.column_lengths(value) == {}
