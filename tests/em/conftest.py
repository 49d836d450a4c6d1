"""One local Dask cluster (two worker processes) for the tests of tests/em that compare a distributed fit with
the single process: a cluster costs about 3.5 CPU-seconds to start and stop, and a worker keeps no state a
fit depends on. The tests using it carry ``@pytest.mark.xdist_group("dask")``, so under xdist they share one
pytest worker and one cluster.

The cluster is closed as soon as the next test of the run does not use it: an idle cluster is not free
(measured: its scheduler, client and two workers take 3.9 CPU-seconds every 30 s doing nothing, ~80 CPU-s
over the rest of a ``make test`` run had it lived to the end of the session)."""

from __future__ import annotations

import contextlib

import pytest

_open = contextlib.ExitStack()
_client = None


@pytest.fixture
def dask_client():
    global _client
    if _client is None:
        from distributed import Client, LocalCluster

        cluster = _open.enter_context(LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                                   dashboard_address=None))
        _client = _open.enter_context(Client(cluster))
    return _client


def pytest_runtest_teardown(item, nextitem):
    """Close the cluster after the last test in a row that uses it (it is started again if a later test asks)."""
    global _client
    if _client is not None and "dask_client" not in getattr(nextitem, "fixturenames", ()):
        _client = None
        _open.close()
