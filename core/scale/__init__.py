"""llrlab.core.scale: exact evaluation of score sets larger than memory, on Dask.

Install with ``pip install 'llrlab[scale]'`` (Dask, ``distributed``, pyarrow); ``import
llrlab.core`` never imports them, and neither does importing this package: Dask is loaded on
first use.

* :func:`analyze_dask` -- every measure of :func:`llrlab.core.analyze`, from a Dask
  collection, a Parquet file or directory, or BOSARIS/SIDEKIT HDF5 score and key files, on
  Dask's local scheduler (out of core) or a ``dask.distributed`` cluster;
* :func:`open_scores`, :func:`read_parquet`, :func:`read_hdf5` -- lazy readers;
* :func:`condition_weights_dask` -- condition-weighted pooling (van Leeuwen 2008);
* :func:`fit_calibrator_dask`, :func:`write_calibrated` -- calibration trained out of core
  and applied chunk by chunk.
"""

from ._frame import ScoreSet
from .analysis import DaskAnalysis, analyze_dask
from .calibration import fit_calibrator_dask, write_calibrated
from .conditions import DaskConditionWeights, condition_weights_dask
from .readers import open_scores, read_hdf5, read_parquet

__all__ = [
    "DaskAnalysis",
    "DaskConditionWeights",
    "ScoreSet",
    "analyze_dask",
    "condition_weights_dask",
    "fit_calibrator_dask",
    "open_scores",
    "read_hdf5",
    "read_parquet",
    "write_calibrated",
]
