"""Teaching mode: synthetic Gaussian scores whose true LLR is known, miscalibrated on purpose
(Brümmer & de Villiers 2011, fig. 1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import param

if TYPE_CHECKING:  # imported where used: checking a lesson imports no numerics
    from ..compute import TeachingSpec

__all__ = ["TeachingState"]


class TeachingState(param.Parameterized):
    """The synthetic data of teaching mode (they replace the loaded systems while enabled)."""

    #: Parameters that change the heavy results (all but the reference curves).
    result_params = ("enabled", "mu_tar", "sigma_tar", "mu_non", "sigma_non", "n_tar",
                     "n_non", "seed", "scale", "shift")

    enabled = param.Boolean(default=False, label="Teaching mode")
    mu_tar = param.Number(default=3.0, bounds=(-10.0, 10.0), step=0.1, label="target mean")
    sigma_tar = param.Number(default=2.0, bounds=(0.1, 10.0), step=0.1, label="target sigma")
    mu_non = param.Number(default=0.0, bounds=(-10.0, 10.0), step=0.1,
                          label="non-target mean")
    sigma_non = param.Number(default=1.0, bounds=(0.1, 10.0), step=0.1,
                             label="non-target sigma")
    n_tar = param.Integer(default=10_000, bounds=(30, 1_000_000), step=1000, label="targets")
    n_non = param.Integer(default=100_000, bounds=(30, 3_000_000), step=10_000,
                          label="non-targets")
    seed = param.Integer(default=0, bounds=(0, 2**31 - 1), label="seed")
    scale = param.Number(default=1.0, bounds=(0.05, 5.0), step=0.05,
                         label="LLR scale (miscalibration)")
    shift = param.Number(default=0.0, bounds=(-8.0, 8.0), step=0.1,
                         label="LLR shift (miscalibration)")
    references = param.Boolean(default=True, label="Reference miscalibrations")

    def spec(self) -> TeachingSpec:
        from ..compute import TeachingSpec

        return TeachingSpec(self.mu_tar, self.sigma_tar, self.mu_non, self.sigma_non,
                            self.n_tar, self.n_non, self.seed, self.scale, self.shift)
