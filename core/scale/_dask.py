"""Dask, imported only when the out-of-core path is used (``import llrlab.core`` never loads
it), and the two choices that depend on the scheduler."""

from __future__ import annotations

from ..errors import LlrlabError

__all__ = ["compute", "dask_modules", "shuffle_method"]

_INSTALL = "pip install 'llrlab[scale]'"


def dask_modules():
    """``(dask, dask.dataframe)``, or a clear error when the ``scale`` extra is missing."""
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise LlrlabError(f"the out-of-core path needs Dask ({exc.name} is missing): "
                          f"{_INSTALL}") from None
    return dask, dd


def compute(objs, scheduler):
    """``dask.compute(*objs)`` on ``scheduler`` ("threads" or a distributed Client), as a
    list."""
    dask, _ = dask_modules()
    if scheduler == "threads":
        return list(dask.compute(*objs, scheduler="threads"))
    return list(scheduler.compute(list(objs), sync=True))


def shuffle_method(scheduler):
    """Dask's disk-based shuffle on the local scheduler (out of core), its peer-to-peer
    shuffle on a distributed cluster (workers spill to disk)."""
    return "disk" if scheduler == "threads" else "p2p"
