"""Values a result computes on demand (mirt's M2, reliability), kept on the result once computed.

``summary()`` and ``_repr_html_`` show what a result holds and never call R: a fit statistic appears
there once it has been computed (``fit.global_fit()``, ``fit.reliability()``), never because the result
was displayed. The values live in the instance's ``__dict__`` (results are frozen dataclasses; this is
not a field: it is neither compared nor pickled).
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["remember", "stored"]

_KEY = "_computed"


def remember(result: Any, key: str, value: Any) -> Any:
    """Keep ``value`` under ``key`` on ``result`` and return it."""
    result.__dict__.setdefault(_KEY, {})[key] = value
    return value


def stored(result: Any) -> Mapping[str, Any]:
    """What ``result`` has computed so far (key -> value); empty when nothing."""
    return result.__dict__.get(_KEY, {})
