"""One local Dask cluster (two worker processes) for the tests of tests/em that compare a distributed fit with
the single process: a cluster costs about 3.5 CPU-seconds to start and stop, and a worker keeps no state a
fit depends on. The tests using it carry ``@pytest.mark.xdist_group("dask")``, so under xdist they share one
pytest worker and one cluster."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dask_client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client
