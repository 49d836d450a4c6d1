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
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": False,
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
