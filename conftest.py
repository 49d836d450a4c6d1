"""Configuration shared by the test suite and the docstring examples (``--doctest-modules`` on irtbridge).

Docstring examples follow three rules, enforced here:

* **An example that needs R carries ``# doctest: +R``** on any one of its lines. The whole docstring is
  then an R-backed test: it gets the ``r`` marker, so it runs wherever the suite's R tests run (always
  in CI) and ``pytest -m "not r"`` leaves it out. Keep it cheap (a few seconds: small data, one fit).
* **Examples never write outside a temporary folder**: each docstring runs with a fresh temporary
  folder as its working directory, so a relative path (``res.save("out")``) lands there; name an
  explicit folder with ``tempfile.mkdtemp()``.
* Figures use the non-interactive Agg backend, and every test and example ends with no figure left
  open (so a test that counts pyplot's figures does not depend on which tests ran before it).

``# doctest: +SKIP`` remains for an example that cannot run at all (a placeholder, a download, a run of
minutes).
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import sys

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

# property tests: random examples on a developer's machine (they find new cases), the same examples in CI
# (a run on a fresh machine passes or fails as the last one did); set before the test modules build their
# own settings, which inherit this profile
if importlib.util.find_spec("hypothesis") is not None:
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, database=None)
    if os.environ.get("CI"):
        settings.load_profile("ci")

#: ``# doctest: +R``: the docstring needs R (see the module docstring)
NEEDS_R = doctest.register_optionflag("R")

# without rpy2 the R bridge cannot even be imported; its docstrings are R-backed by nature
collect_ignore_glob = [] if importlib.util.find_spec("rpy2") is not None else ["irtbridge/_r/*"]


def _needs_r(item: pytest.Item) -> bool:
    test = getattr(item, "dtest", None)
    return test is not None and any(ex.options.get(NEEDS_R) for ex in test.examples)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _needs_r(item):
            item.add_marker(pytest.mark.r)
            item.add_marker(pytest.mark.doctest_r)


@pytest.fixture(autouse=True)
def _doctest_in_a_temporary_folder(request: pytest.FixtureRequest, tmp_path, monkeypatch) -> None:
    if getattr(request.node, "dtest", None) is not None:
        monkeypatch.chdir(tmp_path)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
