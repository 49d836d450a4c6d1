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

__all__ = ["single_axes", "panel_axes", "grid_axes", "figure_of", "close"]


def _is_axes(obj: Any) -> bool:
    return hasattr(obj, "plot") and hasattr(obj, "figure") and hasattr(obj, "set_title")


def single_axes(ax: Any = None, figsize: tuple[float, float] = (6.0, 4.0)):
    """``ax`` checked, or the Axes of a new figure of ``figsize`` inches."""
    if ax is None:
        import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

        return plt.subplots(figsize=figsize)[1]
    if not _is_axes(ax):
        raise ValidationError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def panel_axes(ax: Any, n: int, figsize: tuple[float, float] | None = None, *, column: bool = False,
               **subplot_kw: Any) -> np.ndarray:
    """``n`` Axes as a 1-D array: those given in ``ax``, or a new figure with ``n`` panels in a row
    (in a column with ``column=True``)."""
    if ax is None:
        import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

        size = figsize or ((4.2, 3.8 * n) if column else (4.2 * n, 3.8))
        shape = (n, 1) if column else (1, n)
        made = plt.subplots(*shape, figsize=size, squeeze=False, **subplot_kw)[1]
        return np.asarray(made.ravel(), dtype=object)
    axes = np.asarray([ax] if _is_axes(ax) else list(ax), dtype=object).reshape(-1)
    if axes.size != n or not all(_is_axes(a) for a in axes):
        raise ValidationError(f"ax must be {n} matplotlib Axes for this figure of {n} panel(s), got {axes.size}")
    return axes


def grid_axes(ax: Any, n: int, ncols: int, width: float = 2.6, height: float = 2.4, **subplot_kw: Any) -> np.ndarray:
    """``n`` facet Axes: those given in ``ax``, or a new grid of ``ncols`` columns (unused cells hidden)."""
    if ax is not None:
        return panel_axes(ax, n)
    import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    made = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **subplot_kw)[1].ravel()
    for extra in made[n:]:
        extra.set_visible(False)
    return np.asarray(made[:n], dtype=object)


def edge_of_grid(ax: Any) -> tuple[bool, bool]:
    """(in the last row, in the first column) of its grid; (True, True) for an Axes outside any grid."""
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    return (True, True) if spec is None else (spec.is_last_row(), spec.is_first_col())


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


def close(fig: Any) -> None:
    """Release a figure made through pyplot (a no-op for one pyplot does not know)."""
    import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

    plt.close(fig)
