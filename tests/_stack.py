"""Where a warning points: the helper of the stack-level tests (tests/test_warning_levels.py and
tests/calibration/test_stack_level.py)."""

from __future__ import annotations

import warnings


def assert_points_here(call, category) -> None:
    """Run ``call`` (a lambda whose first line calls the front door): every warning of ``category`` it raises
    points at that line of the file the lambda is written in; at least one is raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    hits = [(w.filename, w.lineno) for w in caught if issubclass(w.category, category)]
    where = (call.__code__.co_filename, call.__code__.co_firstlineno)
    assert hits and all(hit == where for hit in hits), (hits, where)
