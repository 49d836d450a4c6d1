"""The one plotting convention of irtbridge, shared by every ``<domain>/plots.py``.

Every ``plot_*`` function accepts ``ax=`` and returns what it drew on:

* a one-panel figure takes an Axes (default: a new figure) and **returns that Axes**;
* a figure of ``n`` panels takes a sequence of ``n`` Axes (default: a new figure, panels in a row) and
  **returns a 1-D numpy array of Axes**, as ``plt.subplots`` does.

``ax.figure`` reaches the Figure (to save it); :func:`figure_of` does so for either return value.
pyplot is imported here only, and only when a figure is made, so importing a domain package stays light.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irtbridge.exceptions import ValidationError

__all__ = ["single_axes", "panel_axes", "figure_of"]


def _is_axes(obj: Any) -> bool:
    return hasattr(obj, "plot") and hasattr(obj, "figure") and hasattr(obj, "set_title")


def single_axes(ax: Any = None, figsize: tuple[float, float] = (6.0, 4.0)):
    """``ax`` checked, or the Axes of a new figure of ``figsize`` inches."""
    if ax is None:
        import matplotlib.pyplot as plt

        return plt.subplots(figsize=figsize)[1]
    if not _is_axes(ax):
        raise ValidationError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def panel_axes(ax: Any, n: int, figsize: tuple[float, float] | None = None, **subplot_kw: Any) -> np.ndarray:
    """``n`` Axes as a 1-D array: those given in ``ax``, or a new figure with ``n`` panels in a row."""
    if ax is None:
        import matplotlib.pyplot as plt

        size = figsize or (4.2 * n, 3.8)
        return np.asarray(plt.subplots(1, n, figsize=size, squeeze=False, **subplot_kw)[1][0], dtype=object)
    axes = np.asarray([ax] if _is_axes(ax) else list(ax), dtype=object).reshape(-1)
    if axes.size != n or not all(_is_axes(a) for a in axes):
        raise ValidationError(f"ax must be {n} matplotlib Axes for this figure of {n} panel(s), got {axes.size}")
    return axes


def figure_of(drawn: Any):
    """The Figure behind what a ``plot_*`` function returned (an Axes, an array of Axes or a Figure)."""
    if hasattr(drawn, "savefig"):
        return drawn
    if _is_axes(drawn):
        return drawn.figure
    first = np.asarray(drawn, dtype=object).reshape(-1)
    if first.size and _is_axes(first[0]):
        return first[0].figure
    raise ValidationError(f"expected a matplotlib Axes, an array of Axes or a Figure, got {type(drawn).__name__}")
