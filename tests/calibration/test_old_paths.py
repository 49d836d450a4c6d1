"""``calibration/`` grouped by role (issue 33 item 3): the listing, the same public names, the old paths.

The modules moved into role folders (``fit/``, ``engines/``, ``results/``, ``inputs/``, ``analysis/``) with
no file left at their old place; every old module path still imports, as the very module of its new path,
with a DeprecationWarning naming that path and the removal version (:func:`irtbridge._moved.moved_modules`);
and results pickled before the move load as the classes of the new modules.

``data/pickled_before_grouping.pkl`` was written by irtbridge at commit 05c3b23 (the last one before the
move, its ``irtbridge/`` extracted with ``git archive 05c3b23 irtbridge``): 300 simulated answers to 5
items, fitted by ``calibrate(y, "2PL", engine="native")``, ``calibrate(y, "2PL", engine="mirt",
se=True)`` and ``calibrate_groups(y, ["g1"] * 150 + ["g2"] * 150, "2PL")``, each pickled (protocol 4;
the classes named ``irtbridge.calibration.result.Calibration`` and
``irtbridge.calibration.group_result.GroupCalibration``), beside a ``ModelSpec`` and a ``Prior``
(``irtbridge.calibration.spec``, ``irtbridge.calibration.priors``). The same code wrote each fit's item
table and log-likelihood as plain JSON (``pickled_before_grouping.json``), which the loaded pickles must
match exactly.
"""

from __future__ import annotations

import importlib
import json
import pickle
import pickletools
import warnings
from pathlib import Path

import pandas as pd
import pytest

import irtbridge
from irtbridge import _moved

PACKAGE = Path(irtbridge.__file__).parent / "calibration"
DATA = Path(__file__).parent / "data"
ROLES = {"fit", "engines", "results", "inputs", "analysis", "shared"}  # shared: issue 41 item 2
#: ``irtbridge.calibration.__all__`` before the move (commit 05c3b23), written out
PUBLIC = ["calibrate", "Calibration", "MODELS", "ENGINES", "compare", "Prior", "ModelSpec", "parameter_table",
          "calibrate_groups", "dif", "GroupCalibration", "score_key", "simulate", "sibtest", "calibrate_bifactor",
          "calibrate_classes", "class_parameter_table", "ClassCalibration", "calibrate_fixed", "calibrate_mixed",
          "MixedCalibration"]
#: the 26 modules of calibration/ before the move (its folder listing at 05c3b23, engines/ aside)
OLD = ["_base", "_pickle", "_se", "_stored", "bifactor", "checks", "classes", "diagnostics", "explanatory",
       "fitreport", "fitting", "flags", "functioning", "group_result", "groups", "inference", "itemtypes", "keys",
       "latent", "options", "plots", "priors", "result", "scoring", "simulation", "spec"]


def _old_paths() -> dict[str, str]:
    # the paths of modules that lived in calibration/ itself (a module moved from one role to another since,
    # issue 41 item 2, has an old path two levels down)
    return {old: new for old, new in _moved.MODULES.items() if old.startswith("irtbridge.calibration.")
            and old.count(".") == 2}


def test_the_listing_is_the_roles_and_no_module_stays_at_its_old_place():
    listing = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert listing == {"__init__.py", *ROLES}
    for role in ROLES:
        doc = importlib.import_module(f"irtbridge.calibration.{role}").__doc__
        assert doc and len(doc.split()) > 20, f"calibration/{role}/__init__.py says what its role is"


def test_every_old_module_has_an_entry_whose_new_path_is_a_file_of_a_role_folder():
    table = _old_paths()
    assert sorted(old.rsplit(".", 1)[1] for old in table) == sorted(OLD)
    for old, new in table.items():
        role, name = new.split(".")[2:]
        assert role in ROLES and (PACKAGE / role / f"{name}.py").is_file(), new
        assert not (PACKAGE / f"{old.rsplit('.', 1)[1]}.py").exists(), old
    assert table["irtbridge.calibration.scoring"] == "irtbridge.calibration.analysis.fscores"  # CHANGELOG's plan
    # the inference methods moved from analysis/ to the results they are mixed into (issue 41 item 2)
    assert table["irtbridge.calibration.inference"] == _moved.MODULES["irtbridge.calibration.analysis.inference"]


def test_the_public_names_are_the_same_objects_as_their_modules_define():
    import irtbridge.calibration as calibration

    assert calibration.__all__ == PUBLIC
    for name in PUBLIC:
        value = getattr(calibration, name)
        if hasattr(value, "__module__") and not isinstance(value, dict):
            assert value.__module__.split(".")[2] in ROLES, (name, value.__module__)
    assert calibration.calibrate is irtbridge.calibrate


# each old path in a fresh interpreter (a fork of tests/_fresh.py's helper): its first import is the one that warns
_IMPORT_OLD = """
import importlib, sys, warnings
old, new = sys.argv[1:3]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    {how}
print(module is importlib.import_module(new))
print([str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)])
"""
_HOW = {
    "import": "module = importlib.import_module(old)",
    "from": "exec(f'from {old.rsplit(\".\", 1)[0]} import {old.rsplit(\".\", 1)[1]} as module')",
    "attribute": "import irtbridge; module = eval(old)",
}


@pytest.mark.slow
@pytest.mark.parametrize("how", sorted(_HOW))
def test_an_old_module_path_is_the_new_module_with_one_warning_naming_it_and_the_removal(how, fresh_python):
    # import x.y, from x import y, and x.y read as an attribute: three ways, three old paths (one per role)
    for old in ("irtbridge.calibration.fitting", "irtbridge.calibration.result", "irtbridge.calibration.scoring"):
        new = _old_paths()[old]
        out = fresh_python.run(_IMPORT_OLD.format(how=_HOW[how]), old, new, check=True,
                               cwd=Path(irtbridge.__file__).parents[1])
        same, messages = out.stdout.splitlines()
        assert same == "True", (old, how)
        verb = "was renamed" if old.endswith("scoring") else "moved to"
        assert eval(messages) == [f"{old} {verb} {new}; import it from there ({old} will be removed in irtbridge "
                                  f"{_moved.REMOVAL})"], (old, how)


def _globals(blob: bytes) -> set[str]:
    """The irtbridge module paths a pickle names."""
    return {arg for op, arg, _ in pickletools.genops(blob)
            if isinstance(arg, str) and arg.startswith("irtbridge.")}


@pytest.fixture(scope="module")
def before() -> tuple[dict[str, bytes], dict]:
    with open(DATA / "pickled_before_grouping.pkl", "rb") as f:
        blobs = pickle.load(f)  # a dict of bytes: nothing of irtbridge is unpickled here
    return blobs, json.loads((DATA / "pickled_before_grouping.json").read_text(encoding="utf-8"))


def _table(split: dict) -> pd.DataFrame:
    return pd.DataFrame(split["data"], index=split["index"], columns=split["columns"])


def test_results_pickled_before_the_move_load_as_the_new_classes(before):
    from irtbridge.calibration import Calibration, GroupCalibration, ModelSpec, Prior

    blobs, plain = before
    assert _globals(blobs["native"]) == _globals(blobs["mirt"]) == {"irtbridge.calibration.result"}
    assert _globals(blobs["groups"]) == {"irtbridge.calibration.group_result"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old paths' warnings are tested above
        loaded = {name: pickle.loads(blob) for name, blob in blobs.items()}
    for name in ("native", "mirt"):
        fit = loaded[name]
        assert type(fit) is Calibration and fit.engine == name and fit.r_model is None
        pd.testing.assert_frame_equal(fit.items, _table(plain[name]["items"]), check_exact=True)
        assert fit.loglik == plain[name]["loglik"] and fit.n_respondents == plain[name]["n_respondents"] == 300
        assert fit.summary().data["loglik"] == fit.loglik  # a working result, not just its fields
    assert (loaded["mirt"].standard_errors[["a", "b"]] > 0).all().all()  # computed with the fit (se=True), pickled
    groups = loaded["groups"]
    assert type(groups) is GroupCalibration and groups.groups == ("g1", "g2")
    for group, split in plain["groups"]["items"].items():
        pd.testing.assert_frame_equal(groups.items[group], _table(split), check_exact=True)
    assert groups.loglik == plain["groups"]["loglik"]
    assert type(loaded["spec"]) is ModelSpec and type(loaded["prior"]) is Prior
    assert loaded["prior"] == Prior("a1", "lnorm", 0.0, 0.5)
    assert loaded["spec"] == ModelSpec({"F1": ["Item_1", "Item_2", "Item_3"], "F2": ["Item_4", "Item_5"]})


def test_a_result_pickled_now_names_the_new_module(before):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        fit = pickle.loads(before[0]["native"])
    blob = pickle.dumps(fit, protocol=4)
    assert _globals(blob) == {"irtbridge.calibration.results.result"}
    again = pickle.loads(blob)
    pd.testing.assert_frame_equal(again.items, fit.items, check_exact=True)
