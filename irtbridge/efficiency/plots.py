"""Figure of the Efficiency Index family against the cut-off (Larner (2023), Figure 2)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Flag, constraints
from irtbridge._plotting import single_axes
from irtbridge._validation import check_choice
from irtbridge.exceptions import ValidationError
from irtbridge.efficiency.core import INDICES

__all__ = ["plot_efficiency_by_cutoff"]

_MARKERS = {"ei": "D", "bei": "^", "blei": "x", "qei": "*", "uei": "o", "acc": "s", "inacc": "v", "ini": "P"}
_LABELS = {"ei": "EI", "bei": "BEI", "blei": "BLEI", "qei": "QEI", "uei": "UEI", "acc": "Acc", "inacc": "Inacc", "ini": "InI"}


@constraints(bands=Flag(), logy=Flag())
def plot_efficiency_by_cutoff(
    table: pd.DataFrame,
    *,
    indices: Sequence[str] = ("ei", "bei", "blei", "qei", "uei"),
    ax: Any = None,
    bands: bool = False,
    logy: bool = False,
):
    """Plot indices against the cut-off, like Figure 2 of Larner (2023).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`efficiency_by_cutoff` (index = cut-off).
    indices : sequence of str
        Which columns to draw; default the five EI variants.
    ax : matplotlib Axes, optional
        Draw into this Axes; default a new figure.
    bands : bool, default False
        Shade the confidence bands (needs ``intervals=True`` in the table).
    logy : bool, default False
        Log scale for the y axis (EI and its variants are ratios).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from irtbridge.efficiency import efficiency_by_cutoff
    >>> t = efficiency_by_cutoff([0, 0, 1, 1, 0, 1], [1, 2, 3, 4, 5, 6])
    >>> ax = plot_efficiency_by_cutoff(t)
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['EI', 'BEI']
    """
    if not isinstance(table, pd.DataFrame):
        raise ValidationError(f"table must be a DataFrame from efficiency_by_cutoff, got {type(table).__name__}")
    indices = [check_choice(k, "indices", INDICES) for k in ([indices] if isinstance(indices, str) else indices)]
    missing = [k for k in indices if k not in table.columns]
    if missing:
        raise ValidationError(f"table has no column(s) {', '.join(map(repr, missing))}; pass a table from efficiency_by_cutoff")
    if bands:
        missing = [f"{k}_lower" for k in indices if f"{k}_lower" not in table.columns]
        if missing:
            raise ValidationError(
                "bands=True needs interval columns; build the table with efficiency_by_cutoff(..., intervals=True)"
            )
    ax = single_axes(ax, (7, 4.5))
    x = np.asarray(table.index, dtype=float)
    order = np.argsort(x)
    for k in indices:
        y = np.asarray(table[k], dtype=float)[order]
        (line,) = ax.plot(x[order], np.where(np.isfinite(y), y, np.nan), marker=_MARKERS[k], label=_LABELS[k])
        if bands:
            lo = np.asarray(table[f"{k}_lower"], dtype=float)[order]
            hi = np.asarray(table[f"{k}_upper"], dtype=float)[order]
            ax.fill_between(x[order], lo, np.where(np.isfinite(hi), hi, np.nan), color=line.get_color(), alpha=0.15, linewidth=0)
    ax.axhline(1.0, color="0.6", linewidth=0.8, linestyle=":")
    if logy:
        ax.set_yscale("log")
    if pd.api.types.is_integer_dtype(table.index):
        from matplotlib.ticker import MaxNLocator  # matplotlib only once a figure is drawn

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(str(table.index.name or "cut-off"))
    ax.set_ylabel("index value")
    ax.legend(frameon=False)
    return ax
