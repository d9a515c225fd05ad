"""Calibration and fusion: affine and PAV calibrators and linear fusion, trained on dev.

References: seed 000 sections 2.7, 3.2, 3.3; seed 004 chapters 7-8.
"""

from .models import (
    AffineCalibrator,
    FusionCalibrator,
    PAVCalibrator,
    apply_fusion,
    fit_calibrator,
    from_dict,
    load_calibrator,
    train_affine,
    train_fusion,
    train_pav,
)

__all__ = [
    "AffineCalibrator",
    "FusionCalibrator",
    "PAVCalibrator",
    "apply_fusion",
    "fit_calibrator",
    "from_dict",
    "load_calibrator",
    "train_affine",
    "train_fusion",
    "train_pav",
]
