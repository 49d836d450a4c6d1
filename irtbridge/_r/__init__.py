"""The only part of irtbridge that imports rpy2.

``session`` starts R lazily, serializes every call with one process-wide lock, refuses calls from a
process forked after R started, and runs each helper from ``irtbridge/_r/R/irtb_*.R`` through the R envelope that
turns R errors into :class:`~irtbridge.exceptions.RError` and R warnings into
:class:`~irtbridge.exceptions.RWarning`.
"""

from irtbridge._r.session import RObject, call, ensure_packages, r_versions, started

__all__ = ["RObject", "call", "ensure_packages", "r_versions", "started"]
