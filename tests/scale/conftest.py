"""The out-of-core tests need the ``scale`` extra (Dask, distributed, pyarrow)."""

from __future__ import annotations

import pytest

for _mod in ("dask", "dask.dataframe", "distributed", "pyarrow"):
    pytest.importorskip(_mod, reason="the 'scale' extra is not installed "
                                     "(pip install -e '.[scale]')")


@pytest.fixture(scope="session")
def cluster_client():
    """A distributed.LocalCluster with 2 worker processes, started for the tests."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit="2GiB") as cluster, \
            Client(cluster) as client:
        yield client
