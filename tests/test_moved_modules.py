"""Modules that moved keep their old import paths (issue 33 item 4): :func:`irtbridge._moved.moved_modules`.

The mechanism is tested on old paths made up for the test (``irtbridge._old_irt`` for the package
``irtbridge.irt``, ...), removed again after each test, so it is checked apart from the package's own
table; the package's table (:data:`irtbridge._moved.MODULES`) is checked entry by entry below.
"""

from __future__ import annotations

import importlib
import pickle
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge import _moved

_TABLE = {
    "irtbridge._old_ties": "irtbridge._ties",  # a module, renamed
    "irtbridge._old_irt": "irtbridge.irt",  # a whole package: its submodules follow
    "irtbridge._old_irt.items": "irtbridge.irt.bank",  # a submodule of the moved package, renamed too
}


@pytest.fixture
def moved():
    _moved.moved_modules(_TABLE)
    yield
    _moved.forget_moved_modules(_TABLE)


def _deprecations(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]


def test_an_old_module_path_warns_once_with_the_new_path_and_removal_and_is_the_same_module(moved):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import irtbridge._old_ties as old
    assert _deprecations(caught) == [
        f"irtbridge._old_ties was renamed irtbridge._ties; import it from there (irtbridge._old_ties will be "
        f"removed in irtbridge {_moved.REMOVAL})"]
    assert caught[0].filename == __file__  # the warning points at the importing line, not at importlib
    import irtbridge._ties as new

    assert old is new and sys.modules["irtbridge._old_ties"] is new
    assert old.__name__ == "irtbridge._ties" and old.__spec__.name == "irtbridge._ties"  # the new module untouched
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        importlib.import_module("irtbridge._old_ties")
    assert _deprecations(again) == []  # once, as any import


def test_a_moved_package_and_its_submodules_are_the_new_ones(moved):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import irtbridge._old_irt.bank
    # one warning: the package's, which names where its submodules went too
    assert _deprecations(caught) == [
        f"irtbridge._old_irt was renamed irtbridge.irt; import it from there (irtbridge._old_irt will be "
        f"removed in irtbridge {_moved.REMOVAL})"]
    import irtbridge.irt
    import irtbridge.irt.bank

    assert irtbridge._old_irt is irtbridge.irt
    assert irtbridge._old_irt.bank is irtbridge.irt.bank
    assert irtbridge._old_irt.bank.ItemBank is irtbridge.irt.bank.ItemBank


def test_from_an_old_package_import_a_submodule_and_a_renamed_submodule(moved):
    from irtbridge.irt import bank

    with pytest.warns(DeprecationWarning, match=r"irtbridge\._old_irt\.items was renamed irtbridge\.irt\.bank;"):
        from irtbridge._old_irt import functions, items
    assert items is bank
    assert functions is importlib.import_module("irtbridge.irt.functions")


def test_from_an_existing_package_import_an_old_module(moved):
    with pytest.warns(DeprecationWarning, match=r"irtbridge\._old_ties was renamed irtbridge\._ties"):
        from irtbridge import _old_ties
    assert _old_ties is importlib.import_module("irtbridge._ties")


def test_a_pickle_made_under_the_old_module_path_loads_as_the_new_class(moved):
    from irtbridge.irt.bank import ItemBank, as_item_bank

    bank = as_item_bank(pd.DataFrame({"a": [1.2, 0.8], "b": [-0.5, 0.4]}, index=["i1", "i2"]), "2PL")
    data = pickle.dumps(bank, protocol=2)  # protocol 2 names a class as "module\nqualname\n"
    assert b"irtbridge.irt.bank\n" in data
    made_before = data.replace(b"irtbridge.irt.bank\n", b"irtbridge._old_irt.bank\n")
    with pytest.warns(DeprecationWarning, match=r"irtbridge\._old_irt was renamed irtbridge\.irt"):
        loaded = pickle.loads(made_before)
    assert type(loaded) is ItemBank
    np.testing.assert_array_equal(loaded.a, bank.a)
    np.testing.assert_array_equal(loaded.b, bank.b)


def test_forgetting_the_test_table_leaves_no_old_path_behind(moved):
    with pytest.warns(DeprecationWarning):
        importlib.import_module("irtbridge._old_irt.bank")
    _moved.forget_moved_modules(_TABLE)
    assert not any(m.startswith(("irtbridge._old_irt", "irtbridge._old_ties")) for m in sys.modules)
    assert "_old_irt" not in vars(irtbridge) and "items" not in vars(importlib.import_module("irtbridge.irt"))
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("irtbridge._old_ties")


def test_paths_that_did_not_move_are_left_to_the_other_finders(moved):
    assert _moved._FINDER.find_spec("irtbridge.irt.bank") is None
    assert _moved._FINDER.find_spec("irtbridge._old_irtx") is None  # a prefix of a name is not its package
    assert _moved._FINDER.find_spec("numpy") is None
    assert sys.meta_path[0] is _moved._FINDER and sys.meta_path.count(_moved._FINDER) == 1


def test_the_package_hands_its_table_to_the_finder():
    # irtbridge/__init__.py registers MODULES when the package is imported (the tests above forget theirs)
    assert _moved.moved_module_table() == _moved.MODULES


def test_every_old_module_path_of_the_package_is_its_new_module():
    for old, new in sorted(_moved.MODULES.items()):
        _moved.forget_moved_modules([old])  # a fresh import, whatever an earlier test imported
        _moved.moved_modules({old: new})
        with pytest.warns(DeprecationWarning, match=rf"{old} (moved to|was renamed) {new}; .*removed in irtbridge "
                          rf"{_moved.REMOVAL}"):
            module = importlib.import_module(old)
        assert module is importlib.import_module(new), old


@pytest.fixture
def fresh():
    """The package's old module paths, not yet imported in this process (so each warns again)."""
    _moved.forget_moved_modules(list(_moved.MODULES))
    _moved.moved_modules(_moved.MODULES)
    yield


def test_the_benchmark_package_is_decodirt_with_its_submodules_and_old_names(fresh):
    import irtbridge.decodirt as decodirt
    import irtbridge.decodirt.modes
    import irtbridge.pipeline

    with pytest.warns(DeprecationWarning, match=r"irtbridge\.benchmark was renamed irtbridge\.decodirt; .*removed in "
                      rf"irtbridge {_moved.REMOVAL}"):
        import irtbridge.benchmark.modes
    assert irtbridge.benchmark is decodirt and irtbridge.benchmark.modes is irtbridge.decodirt.modes
    assert irtbridge.benchmark.modes.CalibrationMode is decodirt.CalibrationMode
    with pytest.warns(DeprecationWarning, match=r"irtbridge\.benchmark\.data was renamed "
                      r"irtbridge\.decodirt\.classification_data"):
        from irtbridge.benchmark import data
    assert data is importlib.import_module("irtbridge.decodirt.classification_data")
    with pytest.warns(DeprecationWarning, match=r"irtbridge\.benchmark\.run_benchmark moved to "
                      r"irtbridge\.pipeline\.run_benchmark"):
        assert irtbridge.benchmark.run_benchmark is irtbridge.pipeline.run_benchmark
    assert irtbridge.benchmark.evaluate_dataset is decodirt.evaluate_dataset  # the package's own names


def test_the_old_top_level_attribute_of_a_moved_package_warns_and_is_the_new_one(fresh):
    with pytest.warns(DeprecationWarning, match=r"irtbridge\.benchmark was renamed irtbridge\.decodirt") as caught:
        old = irtbridge.__getattr__("benchmark")
    assert old is importlib.import_module("irtbridge.decodirt")
    assert caught[0].filename == __file__
    assert "benchmark" not in dir(irtbridge) and "decodirt" in dir(irtbridge)
    with pytest.warns(DeprecationWarning, match=r"irtbridge\.datasets was renamed irtbridge\.example_data"):
        from irtbridge import datasets
    assert datasets is importlib.import_module("irtbridge.example_data")
    assert datasets.response_dataset is importlib.import_module("irtbridge.example_data").response_dataset
    assert "datasets" not in dir(irtbridge) and "example_data" in dir(irtbridge)


def test_pickles_made_when_the_classes_lived_at_the_old_paths_load(fresh):
    from irtbridge.decodirt.classification_data import DatasetInfo
    from irtbridge.decodirt.records import StageWarning

    objects = [StageWarning("calibration", "RWarning", "slow"),
               DatasetInfo(name="iris", source="sklearn", n_classes=3, cost=1, provenance="scikit-learn")]
    data = pickle.dumps(objects, protocol=2)
    made_before = (data.replace(b"irtbridge.decodirt.records\n", b"irtbridge.benchmark.records\n")
                   .replace(b"irtbridge.decodirt.classification_data\n", b"irtbridge.benchmark.data\n"))
    assert b"irtbridge.decodirt" not in made_before
    with pytest.warns(DeprecationWarning):
        loaded = pickle.loads(made_before)
    assert [type(o) for o in loaded] == [StageWarning, DatasetInfo] and loaded == objects
