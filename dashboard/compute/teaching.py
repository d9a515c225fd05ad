"""Teaching mode's results: synthetic Gaussian scores whose true LLR is known, miscalibrated by
a scale and a shift (Brümmer & de Villiers 2011, fig. 1), with reference miscalibrations of the
true LLR."""

from __future__ import annotations

from dataclasses import dataclass

from llrlab.core import GaussianModel, analyze, analyze_transformed, gaussian_trials
from llrlab.core.calibration import fit_calibrator

from .datasets import TEACHING_TAIL, bin_edges, hist_range, make_dataset, transformed
from .results import Results

__all__ = ["TEACHING_REFERENCES", "TeachingSpec", "teaching_results"]

#: Reference miscalibrations drawn in teaching mode (Brümmer & de Villiers 2011, fig. 1):
#: (label, scale, shift).
TEACHING_REFERENCES = (("2 × LLR", 2.0, 0.0), ("0.5 × LLR", 0.5, 0.0),
                       ("LLR + 2", 1.0, 2.0), ("LLR − 2", 1.0, -2.0))


@dataclass(frozen=True)
class TeachingSpec:
    """Parameters of the synthetic Gaussian data of teaching mode (Brümmer & de Villiers 2011,
    fig. 1)."""

    mu_tar: float = 3.0
    sigma_tar: float = 2.0
    mu_non: float = 0.0
    sigma_non: float = 1.0
    n_tar: int = 10_000
    n_non: int = 100_000
    seed: int = 0
    scale: float = 1.0
    shift: float = 0.0


def _affine(a, b):
    def f(x):
        return a * x + b
    return f


def teaching_results(key, spec: TeachingSpec, *, calibration, train_prior, progress) -> Results:
    """Results of the synthetic data of ``spec`` (see :func:`~.build.compute_results`)."""
    model = GaussianModel(spec.mu_tar, spec.sigma_tar, spec.mu_non, spec.sigma_non)
    progress(0.1, "sampling synthetic scores")
    common = dict(model=model, scale=spec.scale, shift=spec.shift)
    dev = gaussian_trials(spec.n_tar, spec.n_non, seed=spec.seed + 1, **common)
    ev = gaussian_trials(spec.n_tar, spec.n_non, seed=spec.seed, **common)
    true = gaussian_trials(spec.n_tar, spec.n_non, model=model, seed=spec.seed)
    raw = {"dev": analyze(dev), "eval": analyze(ev)}
    true_a = analyze(true)
    cal = None
    if calibration != "none":
        cal = fit_calibrator(dev, method=calibration, prior=train_prior)
    llrs = {r: (a if cal is None else transformed(a, cal)) for r, a in raw.items()}
    # the central 96 % of each class (the target tail of the true LLR is long: TEACHING_TAIL)
    lo, hi = hist_range([*raw.values(), true_a], TEACHING_TAIL)
    edges = bin_edges(lo, hi)
    exact = spec.scale == 1.0 and spec.shift == 0.0
    miscal = ("true LLR" if exact else
              f"{spec.scale:g} × LLR {'+' if spec.shift >= 0 else '−'} {abs(spec.shift):g}")
    same = cal is None or cal.strictly_increasing
    apply = None if cal is None else cal.apply
    datasets = {
        "dev": make_dataset("dev", f"dev: {miscal}", raw["dev"], llrs["dev"], edges, same,
                            trials=dev, transform=apply),
        "eval": make_dataset("eval", f"eval: {miscal}", raw["eval"], llrs["eval"], edges, same,
                             trials=ev, transform=apply),
        "true": make_dataset("true", "true LLR (eval)", true_a, true_a, edges, trials=true),
    }
    refs = [(label, analyze_transformed(true_a, _affine(a, b)))
            for label, a, b in TEACHING_REFERENCES]
    mapping = None if cal is None else cal.curve(lo, hi)
    progress(1.0, "done")
    label = ("system output (the true LLR: scale 1, shift 0)" if exact else
             f"system output (miscalibrated LLR: {miscal})")
    return Results(key, datasets, cal, label, mapping,
                   references=refs, teaching=True)
