"""Print the numbers bob.measure 6.1.1 computes on its own test data, which
tests/core/test_threshold_peers.py holds as reference values (see README.md).

Run in an environment with ``pip install bob.measure==6.1.1`` (it needs numpy 1.26):
``python tests/data/bob_measure/reference_values.py``.
"""

from pathlib import Path

import numpy as np
from bob import measure as bm

HERE = Path(__file__).parent
FMR = [0.0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]


def scores(name):
    """A score file (bob.measure's HDF5 data as text, see README.md)."""
    return np.loadtxt(HERE / f"{name}.txt")


def labelled(name):
    a = np.loadtxt(HERE / name)
    a = a[~np.isnan(a[:, 1])]  # bob measure metrics drops NaN scores
    return a[a[:, 0] < 0, 1], a[a[:, 0] > 0, 1]


for name in ("linsep", "nonsep"):
    neg, pos = scores(f"{name}-negatives"), scores(f"{name}-positives")
    t = bm.eer_threshold(neg, pos)
    print(name, "eer_threshold", repr(t), "eer", repr(bm.eer(neg, pos)))
    print(name, "far_threshold farfrr", [bm.farfrr(neg, pos, bm.far_threshold(neg, pos, x))
                                         for x in FMR])
    print(name, "frr_threshold farfrr", [bm.farfrr(neg, pos, bm.frr_threshold(neg, pos, x))
                                         for x in FMR])

dev_neg, dev_pos = labelled("dev-1.txt")
ev_neg, ev_pos = labelled("test-1.txt")
t = bm.eer_threshold(dev_neg, dev_pos)  # bob measure metrics -e dev-1.txt test-1.txt
print("dev-1 eer_threshold", repr(t), "dev", bm.farfrr(dev_neg, dev_pos, t), "eval",
      bm.farfrr(ev_neg, ev_pos, t))
for x in (0.1, 0.01, 0.001):  # bob measure metrics -e -c far -f X dev-1.txt test-1.txt
    t = bm.far_threshold(dev_neg, dev_pos, x)
    print("dev-1 far_threshold", x, repr(t), "dev", bm.farfrr(dev_neg, dev_pos, t), "eval",
          bm.farfrr(ev_neg, ev_pos, t))
