"""The score-sorted partitions of an out-of-core analysis, kept for look-ups at any threshold.

The summaries of :mod:`._kernel` hold exact counts at the thresholds fixed before the
shuffle (a grid of operating points, the ROCCH vertices, the DR30 scores).  The counts at any
other threshold ``t`` are sums over the partitions too: a partition whose scores all lie
below ``t`` counts whole, one whose scores all lie at or above it not at all, and only a
partition whose score range ``(lo, hi]`` holds ``t`` is searched (a binary search in each
class).  So :meth:`~llrlab.core.scale.DaskAnalysis.at` is exact at every prior log-odds if
the sorted partitions are kept.  Where they are kept depends on the scheduler:

* :class:`DiskStore` (Dask's local scheduler): each summary task writes its partition's
  sorted scores as ``.npy`` files into a private folder under Dask's ``temporary-directory``
  (8 bytes per trial; 16 with weights: the targets' weight below each score, the
  non-targets' weight at or above it).  A look-up memory-maps the files of the partitions it
  needs and reads ``O(log n)`` pages of each.
* :class:`WorkerStore` (a ``dask.distributed`` cluster): the sorted partitions stay on the
  workers, held as futures (``distributed`` spills them to its workers' disks under memory
  pressure); a look-up is one small task per searched partition, run where it lives.

Either is deleted with its analysis (``weakref.finalize``, also at interpreter exit) or
at once by ``release()``.  Scores are never gathered onto one machine.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref

import numpy as np

from ..errors import DataError
from ._kernel import Queries, SortedPart

__all__ = ["DiskStore", "Released", "WorkerStore", "save_part"]


class Released(DataError):
    """A look-up after the sorted partitions were released."""


_RELEASED = ("the sorted scores of this analysis were released; run analyze_dask again to "
             "evaluate thresholds that were not tabulated")


def _path(folder, k, name):
    return os.path.join(folder, f"part-{k:06d}.{name}.npy")


def save_part(folder, k, part: SortedPart):
    """Write partition ``k`` into ``folder`` (run inside the summary task)."""
    try:
        for name, a in part.arrays().items():
            np.save(_path(folder, k, name), np.ascontiguousarray(a, dtype=np.float64))
    except OSError as exc:
        raise DataError(f"cannot keep the sorted scores in {folder}: "
                        f"{exc.strerror or exc}; free disk space there, point Dask's "
                        f"temporary-directory elsewhere, or pass keep_sorted=False") from None


class DiskStore:
    """Sorted partitions as memory-mapped ``.npy`` files (see the module docstring)."""

    kind = "disk"

    def __init__(self, folder):
        self.folder = folder
        self._parts = {}
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, shutil.rmtree, folder, True)

    @classmethod
    def create(cls):
        """A new private folder under Dask's ``temporary-directory`` (else the system's)."""
        import dask

        base = dask.config.get("temporary-directory", None) or None
        try:
            folder = tempfile.mkdtemp(prefix="llrlab-sorted-", dir=base)
        except OSError as exc:
            raise DataError(f"cannot create a folder for the sorted scores in "
                            f"{base or tempfile.gettempdir()}: {exc.strerror or exc}") from None
        return cls(folder)

    @property
    def released(self):
        return not self._finalizer.alive

    def _part(self, k):
        with self._lock:
            if self.released:
                raise Released(_RELEASED)
            part = self._parts.get(k)
            if part is None:
                names = ("tar", "non", "tar_cw", "non_above")
                arrays = {n: np.load(_path(self.folder, k, n), mmap_mode="r")
                          for n in names if os.path.exists(_path(self.folder, k, n))}
                part = self._parts[k] = SortedPart.from_arrays(arrays)
            return part

    def query(self, requests):
        """``[Queries]`` (local counts) for ``[(partition, thresholds), ...]``."""
        return [self._part(k).counts(t) for k, t in requests]

    def release(self):
        """Delete the files now."""
        with self._lock:
            self._parts.clear()
            self._finalizer()

    def describe(self):
        return f"kept on disk in {self.folder}"


def _count(part: SortedPart, t) -> Queries:
    return part.counts(t)


class WorkerStore:
    """Sorted partitions held on a ``dask.distributed`` cluster (see the module docstring).

    Parameters
    ----------
    client : distributed.Client
    futures : list of distributed.Future
        One :class:`~._kernel.SortedPart` per partition, in partition order.
    """

    kind = "workers"

    def __init__(self, client, futures):
        self.client = client
        self._futures = list(futures)
        self._lock = threading.Lock()

    @property
    def released(self):
        return self._futures is None

    def query(self, requests):
        with self._lock:
            if self._futures is None:
                raise Released(_RELEASED)
            futures = self._futures
        tasks = [self.client.submit(_count, futures[k], np.asarray(t, dtype=np.float64),
                                    pure=False) for k, t in requests]
        try:
            return self.client.gather(tasks)
        except Exception as exc:  # lost workers, a closed client: one clear message
            raise DataError(f"the sorted scores kept on the Dask cluster cannot be read "
                            f"({type(exc).__name__}: {str(exc)[:200]}); run analyze_dask "
                            f"again") from None

    def release(self):
        """Let the workers drop the partitions now."""
        with self._lock:
            futures, self._futures = self._futures, None
        for f in futures or ():
            f.release()

    def describe(self):
        return "kept on the cluster's workers"
