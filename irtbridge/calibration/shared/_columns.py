"""The naming rule's deprecated column names: a table whose renamed columns still read by their old names.

The rule itself (``p_adjusted_<stat>``, ``theta``, ...) is written in
:mod:`irtbridge.calibration.results._base`; the tables are built here, below both the results and the
analyses that make them (:mod:`irtbridge.calibration.analysis.diagnostics` adds the adjusted p-values of
``item_fit``).
"""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from irtbridge._moved import deprecated_form, warn_form

__all__ = ["ADJUSTED", "RenamedColumns", "renamed_columns", "with_adjusted"]

# the deprecated form of item_fit's adjusted p-values (irtbridge._moved; CHANGELOG.md lists it)
ADJUSTED = deprecated_form('item_fit()["p.<stat>.adjusted"]', 'item_fit()["p_adjusted_<stat>"]')


class RenamedColumns(pd.DataFrame):
    """A DataFrame some of whose columns were renamed: the old names still read (``table[old]``), with the
    deprecation warning of the form it was built with; anything computed from it is a plain DataFrame.
    ``item_fit()``'s ``p.<stat>.adjusted`` (now ``p_adjusted_<stat>``) and a one-factor fit's
    ``plausible_values()`` column named after the factor (now ``theta``)."""

    _metadata = ["_old_names", "_form"]

    @property
    def _constructor(self) -> type:
        return pd.DataFrame

    def __getitem__(self, key: Any) -> Any:
        old_names = getattr(self, "_old_names", {})
        keys = [key] if isinstance(key, str) else key if isinstance(key, list) else []
        if any(k in old_names and k not in self.columns for k in keys):
            warn_form(self._form)
            renamed = [old_names.get(k, k) if k not in self.columns else k for k in keys]
            key = renamed[0] if isinstance(key, str) else renamed
        return super().__getitem__(key)


def renamed_columns(frame: pd.DataFrame, old_names: Mapping[str, str], form: str) -> RenamedColumns:
    """``frame`` whose columns named by ``old_names`` (old -> new) still read by their old names, warning
    ``form`` (a :func:`irtbridge._moved.deprecated_form`)."""
    out = RenamedColumns(frame)
    out.attrs.update(frame.attrs)
    out._old_names, out._form = dict(old_names), form
    return out


def with_adjusted(table: pd.DataFrame, adjust: Any) -> RenamedColumns:
    """``table`` with ``p_adjusted_<stat>`` after mirt's columns, one per p-value column ``p.<stat>``:
    ``adjust(column)`` gives the adjusted values (``p.<stat>.adjusted``, the name before, still reads)."""
    out = table.copy()
    old = {}
    for col in [c for c in out.columns if str(c).startswith("p.")]:
        out["p_adjusted_" + str(col)[2:]] = adjust(out[col])
        old[f"{col}.adjusted"] = "p_adjusted_" + str(col)[2:]
    return renamed_columns(out, old, ADJUSTED)
