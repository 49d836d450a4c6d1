"""Old names keep working (issue 33 item 4): served from their new home with a DeprecationWarning that names
the home and the version that removes them (:mod:`irtbridge._moved`)."""

from __future__ import annotations

import importlib

import pytest

from irtbridge import _moved


@pytest.mark.parametrize("name", ["run_benchmark", "BenchmarkResult"])
def test_the_benchmark_runner_names_still_work_from_the_benchmark_package(name):
    # the package's old path (irtbridge.benchmark, now irtbridge.decodirt) keeps its old names too
    import irtbridge.pipeline as pipeline

    _moved.forget_moved_modules(["irtbridge.benchmark"])
    _moved.moved_modules(_moved.MODULES)
    with pytest.warns(DeprecationWarning, match=r"irtbridge\.benchmark was renamed irtbridge\.decodirt"):
        import irtbridge.benchmark as benchmark

    with pytest.warns(DeprecationWarning, match=rf"irtbridge\.benchmark\.{name} moved to irtbridge\.pipeline\.{name}; "
                      rf".*removed in irtbridge {_moved.REMOVAL}"):
        value = getattr(benchmark, name)
    assert value is getattr(pipeline, name)


def test_from_import_of_an_old_name_works_and_an_unknown_name_is_an_attribute_error():
    with pytest.warns(DeprecationWarning):
        from irtbridge.benchmark import run_benchmark
    assert run_benchmark is importlib.import_module("irtbridge.pipeline").run_benchmark
    with pytest.raises(AttributeError, match="irtbridge.benchmark' has no attribute 'nope'"):
        importlib.import_module("irtbridge.benchmark").nope  # noqa: B018


def test_a_renamed_name_warns_with_its_new_name_and_points_at_the_callers_line():
    getattr_ = _moved.moved_names("example.place", {"old": "math:sqrt", "pi": "math"})
    with pytest.warns(DeprecationWarning, match=r"example\.place\.old was renamed math\.sqrt") as caught:
        assert getattr_("old") is importlib.import_module("math").sqrt
    assert caught[0].filename.endswith("test_moved.py")
    with pytest.warns(DeprecationWarning, match=r"example\.place\.pi moved to math\.pi"):
        assert getattr_("pi") == pytest.approx(3.141592653589793)
    assert _moved.new_home("math:sqrt", "old") == ("math", "sqrt") and _moved.new_home("math", "pi") == ("math", "pi")


@pytest.mark.parametrize("place", ["irtbridge.pipeline", "irtbridge.pipeline.across"])
def test_the_pipelines_dataset_diagnostics_is_renamed_ranked_dataset_diagnostics(place):
    # two functions were named dataset_diagnostics: the benchmark's table keeps the name
    from irtbridge.decodirt import dataset_diagnostics
    from irtbridge.pipeline import ranked_dataset_diagnostics

    renamed = rf"{place}\.dataset_diagnostics was renamed .*ranked_dataset_diagnostics"
    with pytest.warns(DeprecationWarning, match=renamed):
        old = getattr(importlib.import_module(place), "dataset_diagnostics")
    assert old is ranked_dataset_diagnostics is not dataset_diagnostics


@pytest.mark.parametrize("place", ["irtbridge", "irtbridge.portfolio"])
def test_portfolio_dataset_is_renamed_airt_performance(place):
    # airt's example performance matrices: one name that says what they are (not a dataset of the benchmark)
    from irtbridge.portfolio import airt_performance

    with pytest.warns(DeprecationWarning, match=rf"{place}\.portfolio_dataset was renamed "
                      r"irtbridge\.portfolio\.airt_performance; .*removed in irtbridge 0\.3\.0"):
        old = getattr(importlib.import_module(place), "portfolio_dataset")
    assert old is airt_performance
