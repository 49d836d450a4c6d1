"""The public surface: a small top level with a map, and every older top-level name still importable."""

from __future__ import annotations

import importlib
import pydoc
import subprocess
import sys
import warnings

import pytest

import irtbridge


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
    home = irtbridge._MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"irtbridge.{name} moved to {home}.{name}"):
        value = getattr(irtbridge, name)
    assert value is getattr(importlib.import_module(home), name)


def test_subpackages_are_attributes_and_unknown_names_are_attribute_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert irtbridge.rankstats.friedman is importlib.import_module("irtbridge.rankstats").friedman
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        irtbridge.nope  # noqa: B018


def test_import_stays_r_free_and_light():
    code = "import sys, irtbridge; irtbridge.calibrate; assert 'rpy2' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
