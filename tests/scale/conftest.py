"""The out-of-core tests need the ``scale`` extra (Dask, distributed, pyarrow)."""

from __future__ import annotations

import pytest

for _mod in ("dask", "dask.dataframe", "distributed", "pyarrow"):
    pytest.importorskip(_mod, reason="the 'scale' extra is not installed "
                                     "(pip install -e '.[scale]')")


@pytest.fixture(scope="module")
def cluster_client():
    """A distributed.LocalCluster with 2 worker processes, started for the tests.

    Starting it sets OMP_NUM_THREADS=1 and other variables in this process's environment
    for good (distributed's nanny does so for its workers); they are restored at once, so
    that commands run later by other tests keep their BLAS threads.
    """
    import os

    from distributed import Client, LocalCluster

    saved = dict(os.environ)
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None, memory_limit="2GiB") as cluster, \
                Client(cluster) as client:
            os.environ.clear()
            os.environ.update(saved)
            yield client
    finally:
        os.environ.clear()
        os.environ.update(saved)
