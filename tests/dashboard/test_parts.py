"""The state's parts and their wiring: snapshots of every choice as a plain dict, restoring
them (whole or a few, e.g. a lesson step) with one computation, batched changes, and the
query parameters of links."""

from __future__ import annotations

import json
import math

import pytest
from scipy.special import logit

from llrlab.core import DataError
from llrlab.dashboard.state import PARTS, DashboardState

from .conftest import count_heavy, state_of

#: Every choice set away from its default (plo and the effective prior follow p_target).
CHOICES = {
    "calibration": {"method": "pav", "train_prior": 0.2},
    "point": {"p_target": 0.05, "c_miss": 2.0, "c_fa": 3.0},
    "display": {"nber_range": [-9.0, 4.0], "det_kind": "rocch", "show_dev": False,
                "presentation": True},
    "uncertainty": {"ci_method": "exact", "ci_level": 0.9, "boot_by": "speaker",
                    "boot_n": 100},
    "conditions": {"show_curves": True},
    "compare": {"role": "dev", "significance_level": 0.01},
}


def test_a_snapshot_is_every_choice_as_plain_json(state):
    snap = state.snapshot()
    assert list(snap) == list(PARTS)
    assert json.loads(json.dumps(snap)) == snap  # plain JSON values only
    assert snap["data"] == {"system": "A"}  # which system, not the data
    assert set(snap["point"]) == {"p_target", "c_miss", "c_fa"}  # the rest is derived
    assert "enabled" in snap["teaching"] and "references" in snap["teaching"]
    assert snap["compare"] == {"role": "eval", "reference": "A", "significance_level": 0.05}
    for part in snap.values():  # no outputs
        assert not {"results", "boot", "available", "error", "busy", "active"} & set(part)


def test_restore_reproduces_the_view_in_another_session(dev, eval_):
    one = state_of(dev, eval_)
    one.restore(CHOICES)
    assert one.status.error == ""
    snap = json.loads(json.dumps(one.snapshot()))
    two = state_of(dev, eval_)
    two.restore(snap)
    assert two.snapshot() == one.snapshot()
    assert two.results_key == one.results_key
    assert two.point.plo == pytest.approx(logit(0.05) + math.log(2.0 / 3.0), rel=1e-12)
    assert two.export.metrics_rows() == one.export.metrics_rows()
    assert tuple(two.display.nber_range) == (-9.0, 4.0)


def test_restore_computes_once_and_a_few_choices_keep_the_rest(state, monkeypatch):
    calls = count_heavy(monkeypatch, ("compute_results",))
    state.restore({"calibration": {"method": "affine", "train_prior": 0.3},
                   "conditions": {"weighting": "equal per condition"},
                   "point": {"plo": -2.0}})  # a lesson step may give the derived plo
    assert calls == ["compute_results"]
    assert state.calibration.method == "affine" and state.point.plo == -2.0
    assert (state.point.c_miss, state.point.c_fa) == (1.0, 1.0)  # the costs are kept
    ref = state.results.datasets["eval"].llr.at(-2.0)
    assert state.op["eval"].act_dcf == ref.act_dcf
    assert state.display.nber_range == (-7.0, 3.0)  # untouched
    # the same choices again: served from the cache
    state.restore({"calibration": {"method": "none"}})
    state.restore({"calibration": {"method": "affine"}})
    assert calls == ["compute_results"] * 2


@pytest.mark.parametrize("bad, message", [
    ({"nonsense": {}}, "unknown part of the dashboard: 'nonsense'"),
    ({"calibration": {"methd": "pav"}}, "unknown setting of 'calibration': 'methd'"),
    ({"calibration": {"method": "isotonic"}}, "dashboard setting 'calibration'"),
    ({"point": {"p_target": 2.0}}, "dashboard setting 'point'"),
    ({"display": "presentation"}, "takes a mapping of parameters"),
    ({"point": {"x" * 5000: 1}}, "unknown setting of 'point'"),
])
def test_a_bad_snapshot_is_refused_and_changes_nothing(state, bad, message):
    before = state.snapshot()
    results = state.results
    good = {"calibration": {"method": "affine"}} if "calibration" not in bad else {}
    with pytest.raises(DataError, match=message.replace("(", r"\(")) as err:
        state.restore({**good, **bad})
    assert len(str(err.value)) < 300  # echoed names are shortened
    assert state.snapshot() == before
    assert state.results is results


def test_hold_batches_changes_of_several_parts(state, monkeypatch):
    calls = count_heavy(monkeypatch, ("compute_results",))
    with state.hold():
        state.calibration.method = "pav"
        state.conditions.weighting = "equal per condition"
        state.point.plo = -1.5
        state.display.nber_range = (-4.0, 2.0)
        assert calls == [] and state.results.calibration is None  # nothing yet
    assert calls == ["compute_results"]
    assert state.results.calibration.kind == "pav"
    assert state.op["eval"].plo == -1.5
    assert state.nber.plo[0] == -4.0


def test_new_data_reset_what_belongs_to_the_old(state, eval_):
    state.restore({"teaching": {"enabled": True}, "calibration": {"fusion": False}})
    assert state.results.teaching
    state.data.set_trials("B", "eval", eval_)  # a user's request: leave teaching mode
    assert not state.teaching.enabled and state.data.system == "B"
    assert set(state.results.datasets) == {"eval"}
    state.teaching.enabled = True
    state.data.set_systems(state.data.systems, interactive=False)  # data loaded at start-up
    assert state.teaching.enabled and state.results.teaching


def test_costs_that_cannot_be_used_are_reported_every_time(state):
    for c_miss in (1.0, 5.0):
        state.point.c_miss = c_miss
        plo = state.point.plo
        state.point.c_miss = float("inf")
        assert "costs must be positive and finite" in state.status.error
        assert state.point.plo == plo  # kept
        state.status.clear_error()


def test_url_parameters_keep_their_names():
    """Links users already have must open the same view: every query parameter name of the
    first release is still synced, each to an existing parameter of its part."""
    from llrlab.dashboard.app import URL_PARAMS

    names = {q for part in URL_PARAMS.values() for q in part.values()}
    assert names - {"unit", "rel", "rel_bins"} == {  # later: the forensic display options
        "p_target", "c_miss", "c_fa", "cal", "prior", "fusion", "system", "range", "det",
        "parts", "dev", "present", "svg", "teach", "mu_tar", "sd_tar", "mu_non", "sd_non",
        "n_tar", "n_non", "seed", "scale", "shift", "refs", "weights", "custom",
        "cond_curves", "ci", "level", "cmp",
        # presenter mode and lessons (the step is part of the link)
        "presenter", "panels", "lesson", "step"}
    st = DashboardState()
    for part, params in URL_PARAMS.items():
        assert part in (*PARTS, "lesson")
        for p in params:
            assert p in getattr(st, part).param, f"{part}.{p}"


def test_the_parts_import_no_panel():
    from .._subprocess import loaded_by

    code = ("import llrlab.dashboard.state, llrlab.dashboard.compute; "
            "from llrlab.dashboard.state import DashboardState; DashboardState()")
    assert loaded_by(code, ("panel", "bokeh")) == []


def _watching_methods():
    import importlib
    import pkgutil

    import param

    import llrlab.dashboard as dash

    for info in pkgutil.walk_packages(dash.__path__, "llrlab.dashboard."):
        if info.name.endswith((".app", ".cli")):
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if (isinstance(cls, type) and issubclass(cls, param.Parameterized)
                    and cls.__module__ == module.__name__):
                for name, member in vars(cls).items():
                    dinfo = getattr(member, "_dinfo", None)
                    if dinfo and dinfo.get("watch"):
                        yield f"{cls.__name__}.{name}", [
                            d for d in dinfo["dependencies"] if isinstance(d, str)]


def test_no_watcher_mixes_an_object_and_its_parts():
    """A method that depends on both ``state.x`` and ``state.part.y`` misses changes of
    ``x`` in param 2.4 (it skips them when the old and new values of ``x`` have equal
    attributes ``y``: a comparison opened from a link never computed).  Such dependencies go
    to separate methods."""
    methods = dict(_watching_methods())
    assert {"MetricsView._on_op", "CompareState._names_changed",
            "DashboardState._op_moved"} <= set(methods)
    bad = []
    for name, deps in methods.items():
        depth = {}
        for d in deps:
            head, _, rest = d.partition(".")
            if rest:
                depth.setdefault(head, set()).add(min(rest.count(".") + 1, 2))
        bad += [f"{name}: {head}" for head, ds in depth.items() if ds == {1, 2}]
    assert bad == []
