"""Benchmark: offering many condition names to the page, on the event loop.

When new data arrive, the state offers their conditions to the condition picker on the
Bokeh event loop (which serves every session of the server).  Before, every condition name
went into a ``param.ListSelector``, whose check of the selected values against its objects is
quadratic: 10^4 names took about a second, 10^6 froze the server.  Now the worker thread
makes a menu (the 50 conditions with the most trials, the rest counted; one ``numpy.unique``)
and the event loop offers 51 entries.

Rows: for C distinct conditions (two trials each), side by side in one run:

* ``old loop``: the former offer -- ListSelector objects and value set to the C names (only
  up to ``--old-max`` conditions: it is quadratic);
* ``new loop``: ``ConditionsState.offer(menu)``, what the event loop does now;
* ``new worker``: ``condition_menu`` in the worker thread;
* ``np.unique``: ``numpy.unique`` of the C names, for scale.

Each time is the median of ``--repeats`` runs.

Usage: python bench/bench_conditions.py [--sizes 1000,10000,20000,100000,1000000]
[--old-max 20000] [--repeats 3]
"""

from __future__ import annotations

import argparse

import numpy as np
import param
from _timing import median_time

from llrlab.core import Trials
from llrlab.dashboard.compute.conditions import condition_menu
from llrlab.dashboard.state.conditions import ConditionsState


class _Old(param.Parameterized):
    selected = param.ListSelector(default=[], objects=[])


def old_offer(names):
    """The former offer: every name an object of the picker, every name selected."""
    st = _Old()
    st.param.selected.objects = names
    st.selected = list(names)


def trials_with(c, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.tile([True, False], c)
    scores = np.where(labels, rng.normal(2, 1.5, 2 * c), rng.normal(-2, 1.5, 2 * c))
    names = np.repeat(np.array([f"c{i:07d}" for i in range(c)]), 2)
    return Trials(scores, labels, conditions=names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,20000,100000,1000000")
    ap.add_argument("--old-max", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"{'conditions':>10} {'old loop s':>11} {'new loop s':>11} {'new worker s':>13} "
          f"{'np.unique s':>12} {'old/new loop':>13}")
    for c in (int(x) for x in a.sizes.split(",")):
        t = trials_with(c)
        names = sorted(set(t.conditions.tolist()))
        raw = np.asarray(t.conditions)
        menu = condition_menu([t])
        old = (median_time(lambda n=names: old_offer(n), a.repeats) if c <= a.old_max
               else float("nan"))
        new = median_time(lambda m=menu: ConditionsState().offer(m), a.repeats)
        worker = median_time(lambda t=t: condition_menu([t]), a.repeats)
        uniq = median_time(lambda r=raw: np.unique(r), a.repeats)
        ratio = f"{old / new:13.0f}" if old == old else f"{'—':>13}"
        print(f"{c:>10,} {old:11.4f} {new:11.5f} {worker:13.4f} {uniq:12.4f} {ratio}")


if __name__ == "__main__":
    main()
