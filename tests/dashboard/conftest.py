"""Fixtures of the dashboard unit tests (no browser, no server)."""

from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest

from llrlab.core import Trials
from llrlab.dashboard.state import DashboardState


def make_trials(n, *, seed, scale=1.0, shift=0.0, p_tar=0.05, ids=False):
    """Gaussian LLR-like scores: targets N(2, 1.5^2), non-targets N(-2, 1.5^2), then
    ``scale * s + shift`` (a miscalibration)."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < p_tar
    s = np.where(labels, rng.normal(2.0, 1.5, n), rng.normal(-2.0, 1.5, n))
    kw = {}
    if ids:
        kw = {"model_ids": [f"m{i % 50}" for i in range(n)],
              "segment_ids": [f"s{i // 50}" for i in range(n)]}
    return Trials(scale * s + shift, labels, source=f"synthetic {seed}", **kw)


@pytest.fixture
def dev():
    return make_trials(20_000, seed=1, scale=0.5, shift=1.0)


@pytest.fixture
def eval_():
    return make_trials(30_000, seed=2, scale=0.5, shift=1.3)


def state_of(dev, eval_):
    """A DashboardState with system "A" made of these dev and eval trials."""
    st = DashboardState()
    st.data.set_trials("A", "dev", dev)
    st.data.set_trials("A", "eval", eval_)
    assert st.status.error == ""
    return st


@pytest.fixture
def state(dev, eval_):
    return state_of(dev, eval_)


@pytest.fixture(autouse=True)
def _reset_panel():
    yield
    import panel as pn

    pn.state.reset()


def count_calls(monkeypatch, module, names, calls=None):
    """Wrap ``module.<name>`` for each name so that every call appends the name to
    ``calls`` (a new list unless given); return ``calls``."""
    calls = [] if calls is None else calls
    for name in names:
        fn = getattr(module, name)

        def wrapper(*a, _fn=fn, _name=name, **kw):
            calls.append(_name)
            return _fn(*a, **kw)

        monkeypatch.setattr(module, name, wrapper)
    return calls



#: The heavy computations: sorting scores, training a calibration, pooling conditions,
#: sampling synthetic data, resampling, passes over every trial (comparison curves and
#: significance tests), and the dashboard's functions that call them.
HEAVY = ("analyze", "analyze_transformed", "fit_calibrator", "condition_weights",
         "gaussian_trials", "compute_results", "compare_systems", "compute_system",
         "ape_curves", "ece_curves", "epc", "bootstrap", "bootstrap_ci", "significance",
         "paired_trials", "z_test", "mcnemar_test")


def count_heavy(monkeypatch, names=HEAVY, calls=None):
    """:func:`count_calls` for every function named in ``names`` in every loaded
    ``llrlab.dashboard`` module (wherever the dashboard keeps or imports it): each call
    appends its name once to the returned list."""
    calls = [] if calls is None else calls
    for modname, module in list(sys.modules.items()):
        if module is None or not modname.startswith("llrlab.dashboard"):
            continue
        have = [n for n in names if inspect.isfunction(getattr(module, n, None))]
        if have:
            count_calls(monkeypatch, module, have, calls)
    return calls
