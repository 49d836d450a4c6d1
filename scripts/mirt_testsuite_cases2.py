"""The registry of mirt test-suite cases, files test-07 to test-19 (see mirt_testsuite_cases.py)."""

from __future__ import annotations
