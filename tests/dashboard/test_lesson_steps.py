"""A lesson's steps computed once per process and shown complete (issue 19, items 1 and 8):
the shared results cache (one computation however many sessions ask, urgent requests first,
bounded memory, failures not kept), a step set at once when its results are known and
otherwise announced as coming, every step of an opened lesson prepared in the background,
and results of the server's own files shared and those of uploads not."""

from __future__ import annotations

import threading
import time

import pytest

from llrlab.dashboard.state import DashboardState, SyncRunner
from llrlab.dashboard.state.shared import SharedResults, results_bytes

from .conftest import make_trials


def _state(shared=None, **kw):
    return DashboardState(runner=SyncRunner(), shared=shared, **kw)


class _Deferred:
    """A runner whose ``follow`` waits for the test to deliver (a page's event loop)."""

    def __init__(self):
        self.waiting = []

    def run(self, job, on_done, on_error, on_progress):
        SyncRunner().run(job, on_done, on_error, on_progress)

    def follow(self, future, on_done, on_error):
        self.waiting.append((future, on_done, on_error))

    def deliver(self):
        waiting, self.waiting = self.waiting, []
        for future, on_done, on_error in waiting:
            exc = future.exception(timeout=60)
            on_error(exc) if exc is not None else on_done(future.result())


# ------------------------------------------------------------------------ the shared cache


def test_forty_sessions_asking_at_once_compute_once():
    shared = SharedResults()
    calls = []
    gate = threading.Event()

    def compute():
        calls.append(1)
        gate.wait(5)
        return "result"

    futures = []
    threads = [threading.Thread(target=lambda: futures.append(
        shared.submit("k", compute))) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gate.set()
    assert {f.result(timeout=5) for f in futures} == {"result"}
    assert len(calls) == 1 and shared.computed == 1
    assert shared.get("k") == "result" and "k" in shared
    assert shared.submit("k", compute).result(timeout=1) == "result" and len(calls) == 1


def test_an_urgent_request_goes_before_queued_preparation():
    shared = SharedResults()
    order, gate = [], threading.Event()

    def job(name, wait=False):
        def fn():
            if wait:
                gate.wait(5)
            order.append(name)
            return name
        return fn

    first = shared.submit("busy", job("busy", wait=True), urgent=False)
    time.sleep(0.05)  # the worker holds "busy"
    later = [shared.submit(f"b{i}", job(f"b{i}"), urgent=False) for i in range(3)]
    urgent = shared.submit("b2", job("b2-again"))  # queued as background: moved ahead
    now = shared.submit("u", job("u"))
    gate.set()
    for f in (first, *later, urgent, now):
        f.result(timeout=5)
    assert order == ["busy", "b2", "u", "b0", "b1"]
    assert urgent is later[2]  # one task, not two


def test_a_failed_computation_is_reported_and_not_kept():
    shared = SharedResults()

    def boom():
        raise ValueError("no")

    with pytest.raises(ValueError):
        shared.submit("k", boom).result(timeout=5)
    assert shared.get("k") is None and not shared.pending("k")
    assert shared.submit("k", lambda: 3).result(timeout=5) == 3


def test_the_cache_is_bounded_by_entries_and_by_memory():
    shared = SharedResults(max_entries=3)
    for i in range(5):
        shared.submit(i, lambda i=i: i).result(timeout=5)
    assert [shared.get(i) for i in range(5)] == [None, None, 2, 3, 4]
    # memory: teaching mode's default results (3 sets of 110,000 trials and 4 references)
    st = _state(shared=SharedResults())
    st.teaching.enabled = True
    size = results_bytes(st.results)
    assert 10e6 < size < 40e6
    small = SharedResults(max_bytes=int(2.5 * size))
    for i in range(4):
        small.submit(i, lambda: (st.results, [])).result(timeout=5)
    assert [i in small for i in range(4)] == [False, False, True, True]


# ------------------------------------------------------------------------ the steps


def test_every_session_shows_the_same_step_from_one_computation():
    shared = SharedResults()
    one, two = _state(shared), _state(shared)
    one.lesson.open("calibration", 3)
    n = shared.computed
    two.lesson.open("calibration", 3)
    assert two.results is one.results  # the same object: computed once
    two.goto_step(4)  # step 4 has step 3's data: no computation
    one.goto_step(4)
    assert one.results is two.results
    # the lesson was prepared when it opened: every teaching step is known by now
    keys = {one._step_key(s) for s in one.lesson.current().steps}
    deadline = time.monotonic() + 120
    while any(k[0] == "teaching" and k not in shared for k in keys):
        assert time.monotonic() < deadline, "the lesson was not prepared"
        time.sleep(0.1)
    done = shared.computed
    assert done >= n and done <= len({k for k in keys if k[0] == "teaching"})
    for k in range(1, 11):
        one.goto_step(k)
        assert one.coming == 0 and one.lesson.step == k and one.status.error == ""
    assert shared.computed == done


def test_a_step_not_ready_is_announced_and_then_shown_complete():
    shared = SharedResults()
    runner = _Deferred()
    st = DashboardState(runner=runner, shared=shared)
    st.lesson.open("calibration", 1)
    runner.deliver()
    before = st.results
    gate = threading.Event()
    real = st._job_for

    def slow(key, progress):
        fn = real(key, progress)
        return lambda: (gate.wait(10), fn())[1]

    st._job_for = slow
    shared.clear()
    assert st.goto_step(6)  # PAV on 300 targets: not computed yet
    # nothing of step 6 is shown while it is coming: the step, the panels, the data
    assert (st.coming, st.lesson.step, st.results) == (6, 1, before)
    assert st.presenter.panels == ["histogram"]  # step 1's (step 6: calibration, metrics)
    st.navigate(1)  # a press while it comes: counted from the step coming
    assert st.coming == 7
    gate.set()
    runner.deliver()
    runner.deliver()
    assert (st.coming, st.lesson.step) == (0, 7)
    assert st.teaching.scale == 2 and st.results is not before
    assert st.presenter.panels == ["nber"]


def test_the_results_of_the_servers_files_are_shared_and_of_uploads_not(dev, eval_):
    from llrlab.dashboard.compute import SystemData

    shared = SharedResults()
    one, two = _state(shared), _state(shared)
    for st in (one, two):
        st.data.set_systems({"A": SystemData(dev, eval_)}, origin=("files", 1))
    assert one.results is two.results and one.results_key[1] == ("files", ("files", 1))
    three = _state(shared)
    three.data.set_systems({"A": SystemData(dev, eval_)})  # an upload
    assert three.results is not one.results and three.results_key not in shared
    three.data.set_trials("A", "eval", make_trials(5_000, seed=9))
    assert three.data.origin is None
