"""Sphinx configuration of irtbridge's reference site (``make docs``; CI builds it with warnings as errors).

The API pages are generated from the numpydoc docstrings (``autosummary``), the guides are this folder's
Markdown files (MyST) and each vignette is shown as its source.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.abspath(".."))
import irtbridge  # noqa: E402  (after the path: the checkout's package, not an installed one)

project = "irtbridge"
author = "the irtbridge developers"
copyright = "the irtbridge developers, GPL-3.0-or-later"
version = release = irtbridge.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "migration", "api/generated/*.examples"]
templates_path: list[str] = []

autosummary_generate = True
autosummary_imported_members = False
# each object is documented once, on the page of the module that defines it (a package page does not repeat
# what its __all__ re-exports)
# a class's page shows the methods it inherits from irtbridge's own bases and mixins (a result's shared
# methods, Calibration's scoring and JSON methods), not those of Python's or another package's classes
autodoc_default_options = {"members": True, "inherited-members": True, "show-inheritance": False,
                           "ignore-module-all": True}
autodoc_typehints = "none"  # numpydoc's Parameters section says the types; signatures stay readable
# numpydoc: one page per function or class, no separate member tables (autosummary lists them)
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# the docs' own headings are linked from other pages by their anchors
myst_heading_anchors = 3
# guides link to repository files (../irtbridge/..., vignettes/...) that are not pages of this site
suppress_warnings = ["myst.xref_missing", "myst.header"]

html_theme = "sphinx_rtd_theme"
html_title = f"irtbridge {release}"
html_static_path: list[str] = []


def _skip_foreign(app, what, name, obj, skip, options):
    """Leave out a member that a class inherits from outside irtbridge (Exception's, a dataclass's, ...)."""
    if what not in ("class", "exception"):
        return None
    owner = getattr(obj, "__objclass__", None)  # a method or attribute of a class written in C
    if owner is not None:
        module = getattr(owner, "__module__", None)
    else:
        module = getattr(obj, "__module__", None) or getattr(getattr(obj, "fget", None), "__module__", None)
    return True if isinstance(module, str) and not module.startswith("irtbridge") else None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign)
