"""The names of the Efficiency Index family: its indices and its interval methods.

The computations are in :mod:`irtbridge.efficiency.indices` (the public functions); the formulas are in the
package docstring of :mod:`irtbridge.efficiency`.
"""

from __future__ import annotations

__all__ = ["INDICES", "CI_METHODS"]

#: The eight indices, in the order every table and JSON object lists them.
INDICES = ("acc", "inacc", "ei", "ini", "bei", "blei", "qei", "uei")

#: Accepted values of ``ci_method``.
CI_METHODS = ("logit", "bootstrap", "larner2023")
