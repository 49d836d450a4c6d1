"""The public surface: a small top level with a map, and every older top-level name still importable."""

from __future__ import annotations

import importlib
import pydoc
import warnings

import pytest

import irtbridge
from irtbridge import _moved


def test_top_level_is_small_and_resolves():
    assert len(irtbridge.__all__) <= 30
    for name in irtbridge.__all__:
        assert getattr(irtbridge, name) is not None, name


def test_first_screen_of_help_is_the_map():
    first = pydoc.render_doc(irtbridge, renderer=pydoc.plaintext).splitlines()[:40]
    screen = "\n".join(first)
    for name in irtbridge.__all__:
        if name != "__version__":
            assert name in screen, f"{name} is not on the first screen of help(irtbridge)"
    for place in irtbridge._SUBMODULES:
        if place not in ("exceptions",):
            assert f"irtbridge.{place}" in screen, place


@pytest.mark.parametrize("name", sorted(irtbridge._MOVED))
def test_moved_names_still_work_with_a_warning_naming_their_home(name):
    home, new = _moved.new_home(irtbridge._MOVED[name], name)
    verb = "moved to" if new == name else "was renamed"
    with pytest.warns(DeprecationWarning, match=f"irtbridge.{name} {verb} {home}.{new}"):
        value = getattr(irtbridge, name)
    assert value is getattr(importlib.import_module(home), new)


def test_dir_shows_the_map_and_the_subpackages_only():
    # no helper of the package's __init__ (typing's Any, importlib, warnings, the __future__ feature)
    public = {n for n in dir(irtbridge) if not n.startswith("__")}
    assert public == set(irtbridge._LAZY) | set(irtbridge._SUBMODULES)
    for helper in ("Any", "importlib", "warnings", "annotations"):
        assert helper not in dir(irtbridge), helper


def test_subpackages_are_attributes_and_unknown_names_are_attribute_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert irtbridge.rankstats.friedman is importlib.import_module("irtbridge.rankstats").friedman
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        irtbridge.nope  # noqa: B018


def test_import_stays_r_free_and_light(fresh_python):
    code = "import sys, irtbridge; irtbridge.calibrate; assert 'rpy2' not in sys.modules"
    fresh_python.run(code, check=True)


def _cheap_results():
    import numpy as np
    import pandas as pd

    from irtbridge.cat import simulate_cat
    from irtbridge.hardness import PoolHardness

    rng = np.random.default_rng(3)
    matches = pd.DataFrame({"period": [1, 1, 2, 2], "player": ["a", "b", "a", "c"], "opponent": ["b", "c", "c", "b"],
                            "score": [1.0, 0.5, 0.0, 1.0]})
    items = pd.DataFrame({"a": rng.uniform(0.8, 2, 30), "b": rng.normal(0, 1, 30), "g": 0.0, "u": 1.0})
    y = pd.Series(np.r_[np.zeros(10), np.ones(10)].astype(int))
    scores = pd.DataFrame(rng.random((3, 20)), index=["m1", "m2", "m3"])
    return {
        "EfficiencyIndices": irtbridge.efficiency_indices(tp=104, fp=188, fn=10, tn=453),
        "Glicko2Result": irtbridge.glicko2(matches),
        "CATResult": simulate_cat(items, "3PL", theta=[0.0, 1.0], random_state=1),
        "PoolHardness": PoolHardness(y, scores),
    }


def test_every_result_owns_its_headline():
    """summary() is one Summary; print shows its text and Jupyter its HTML, with the same content."""
    from irtbridge._summary import Summary

    for name, result in _cheap_results().items():
        s = result.summary()
        assert isinstance(s, Summary), name
        assert result._repr_html_() == s.as_html(), name
        text, page = s.as_text(), s.as_html()
        assert s.title in text and all(x.text in text for x in s.lines), name
        import html as _html
        assert _html.escape(s.title) in page and all(x.html in page for x in s.lines), name
        for caption, _ in s.tables:
            assert caption in text and _html.escape(caption) in page, name
        assert isinstance(s.to_dict(), dict) and set(s.to_dict()["headline"]) == {x.key for x in s.lines}, name
