"""Test configuration.

Tests that need R carry ``@pytest.mark.r``. CI (``CI=true``) always runs them: there a missing R is
a failure, never a skip. Elsewhere, ``pytest -m "not r"`` runs the pure-Python tiers.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_display(monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
