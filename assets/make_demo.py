"""Generate the dashboard's demo data (BOSARIS HDF5 score and key files).

Two synthetic speaker-verification "systems" scored on the same trials, with a dev set (to
train calibration and fusion) and an eval set of different speakers.  Each set has 30
speakers, 5 enrollment models per speaker and 400 test segments: 150 x 400 = 60,000 trials
with a target rate of 1/30 (3.3 %).  Scores are built from a shared latent discriminant
(targets N(+2, 1), non-targets N(-2, 1)) plus per-model and per-segment random effects, so
errors cluster on some speakers as in real data:

* system A: cosine-like raw scores, ``0.12 * x + 0.35`` (uncalibrated: far from LLRs);
* system B: PLDA-like raw scores, ``1.5 * x - 4`` with more noise and different segment
  effects (fusing A and B helps);
* eval is mildly miscalibrated relative to dev: its latent scores are shifted by +0.35 and
  spread by 10 %, so a calibration trained on dev leaves a small calibration loss on eval;
* every test segment has a recording channel, stored as the key files' ``/conditions``
  (condition-weighted pooling, van Leeuwen 2008): the 60 % of segments whose combined segment
  effects (``v + w``, seen by both systems) are in the middle are ``tel``, the lowest 28 % ``mic``
  and the highest 12 % ``far``.  The channels therefore differ in size and in score shift, so that
  pooling all trials and weighting the channels equally give different numbers.  They are derived
  from effects already drawn, so the scores are those of the files without conditions (no random
  number is drawn for them).

Run ``python assets/make_demo.py`` from the repository root; the output is deterministic.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from llrlab.core import Scores, Trials
from llrlab.core.io import write_key, write_scores

N_SPEAKERS = 30
MODELS_PER_SPEAKER = 5
SEGMENTS = 400
HERE = os.path.dirname(os.path.abspath(__file__))


def make_set(rng, prefix, *, shift=0.0, spread=1.0):
    """Model/segment ids, labels, channel conditions and the raw scores of systems A and B
    for one set."""
    n_models = N_SPEAKERS * MODELS_PER_SPEAKER
    model_spk = np.repeat(np.arange(N_SPEAKERS), MODELS_PER_SPEAKER)
    seg_spk = rng.integers(0, N_SPEAKERS, SEGMENTS)
    mi, sj = np.meshgrid(np.arange(n_models), np.arange(SEGMENTS), indexing="ij")
    mi, sj = mi.ravel(), sj.ravel()
    labels = model_spk[mi] == seg_spk[sj]
    u = rng.normal(0.0, 0.35, n_models)      # model (enrollment quality) effects
    v = rng.normal(0.0, 0.35, SEGMENTS)      # segment (duration, channel) effects
    w = rng.normal(0.0, 0.35, SEGMENTS)      # segment effects seen only by system B
    c = np.where(labels, 2.0, -2.0) + rng.normal(0.0, 1.0, labels.size)
    x_a = c + u[mi] + v[sj] + rng.normal(0.0, 0.6, labels.size)
    x_b = c + 0.5 * u[mi] + w[sj] + rng.normal(0.0, 0.9, labels.size)
    x_a = spread * x_a + shift
    x_b = spread * x_b + shift
    models = np.array([f"{prefix}spk{model_spk[m]:02d}_m{m % MODELS_PER_SPEAKER}"
                       for m in range(n_models)])
    segments = np.array([f"{prefix}seg{j:04d}" for j in range(SEGMENTS)])
    ids = (models[mi], segments[sj])
    rank = np.argsort(np.argsort(v + w, kind="stable"), kind="stable") / SEGMENTS
    channel = np.where(rank < 0.28, "mic", np.where(rank < 0.88, "tel", "far"))
    return ids, labels, channel[sj], {"A": 0.12 * x_a + 0.35, "B": 1.5 * x_b - 4.0}


def _compact_conditions(path):
    """Store ``/conditions`` as compressed fixed-length UTF-8 bytes (readers decode them):
    2.4 MB of variable-length strings become a few kB.  HDF5 does not reclaim the space of
    a deleted dataset, so the file is copied without it."""
    import h5py

    tmp = path + ".tmp"
    with h5py.File(path, "r") as src, h5py.File(tmp, "w") as dst:
        for name in src:
            if name != "conditions":
                src.copy(src[name], dst, name=name)
        mat = src["conditions"].asstr()[()].astype("S")
        dst.create_dataset("conditions", data=mat, compression="gzip", compression_opts=9,
                           shuffle=True)
    os.replace(tmp, path)


def main(out=HERE):
    rng = np.random.default_rng(20110101)
    sets = {"dev": make_set(rng, "d"), "eval": make_set(rng, "e", shift=0.35, spread=1.1)}
    for role, (ids, labels, channel, raw) in sets.items():
        key = Trials(np.zeros(labels.size), labels, conditions=channel, model_ids=ids[0],
                     segment_ids=ids[1], source=f"demo {role} key")
        key_path = os.path.join(out, f"demo_{role}_key.h5")
        write_key(key_path, key)
        _compact_conditions(key_path)
        for system, scores in raw.items():
            s = Scores(scores, ids[0], ids[1], source=f"demo {system} {role}")
            write_scores(os.path.join(out, f"demo_{system}_{role}_scores.h5"), s)
        counts = ", ".join(
            f"{c} {int((channel == c).sum())} ({int((labels & (channel == c)).sum())} targets)"
            for c in ("tel", "mic", "far"))
        print(f"{role}: {labels.size} trials, {int(labels.sum())} targets; {counts}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
