"""Fixtures of the dashboard unit tests (no browser, no server)."""

from __future__ import annotations

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
    st.set_trials("A", "dev", dev)
    st.set_trials("A", "eval", eval_)
    assert st.error == ""
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

