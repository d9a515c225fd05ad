"""The served benchmarks' pure helpers: the light client reads Bokeh's messages as Bokeh
writes them (``bench/_served.py``: :func:`column_lengths`, which tells when the drag's grid
has arrived), and ``bench/bench_browser.py`` pairs each mouse move with its table update
(:func:`pair_latencies`)."""

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


@pytest.fixture(scope="module")
def browser_bench():
    path = _PATH.parent / "bench_browser.py"
    spec = importlib.util.spec_from_file_location("_bench_browser_pairs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pair_latencies_by_hand(browser_bench):
    # moves at 10, 20, 30, 40 (their input events made at 9, 19, 28, 40); the table updated
    # at 12 and 13 (after the first move), 25, and 45: the move at 30 has no update before
    # the next move
    created, dispatched, missed = browser_bench.pair_latencies(
        [10, 20, 30, 40], [9, 19, 28, 40], [12, 13, 25, 45])
    assert created == [3.0, 6.0, 5.0]
    assert dispatched == [2.0, 5.0, 5.0]
    assert missed == 1


def test_pair_latencies_without_updates_or_moves(browser_bench):
    assert browser_bench.pair_latencies([10.0], [9.0], []) == ([], [], 1)
    assert browser_bench.pair_latencies([], [], [1.0]) == ([], [], 0)
    # an update stamped with its move's time counts (the handler runs within the move)
    assert browser_bench.pair_latencies([5.0], [4.0], [5.0]) == ([1.0], [0.0], 0)


def test_a_source_defined_with_its_data_is_recorded(served):
    """A plot put in the page after its grid was filled brings the grid's source defined
    with its data (no change of that data follows): the light client records its lengths,
    as for a change, so that the grid counts as arrived."""
    from bokeh.document import Document
    from bokeh.models import ColumnDataSource, CustomJS

    doc = Document()
    grid = ColumnDataSource({"plo": np.linspace(-20, 20, 101)}, name="op_grid")
    doc.add_root(CustomJS(args={"grid": grid}, code=""))
    content = json.loads(json.dumps({"doc": doc.to_json(deferred=False)}))  # (as a reply)
    found, texts, defined = {}, [], {}
    served._walk_models(content, found, texts, defined)
    assert defined[found["op_grid"]] == {"plo": 101}
    found2, texts2 = {}, []
    served._walk_models(content, found2, texts2)  # (without ``data``: names only)
    assert found2 == found
