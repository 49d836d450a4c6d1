"""Plots of a calibration, after mirt's ``plot(mod, type = ...)`` and ``itemplot(mod, item, type = ...)``.

Every function returns the matplotlib Axes it drew on and accepts ``ax=`` to draw into an existing one.
Curves come from the native kernel (:mod:`irtbridge.irt`) evaluated on a grid of abilities, so they work
for any calibration, including one restored from JSON.

* ``"trace"``: trace lines, P(X = k | theta) of every item (``plot(mod, type = "trace")``);
* ``"info"``: the test information (``type = "info"``: TEST information, as in mirt, on every result);
  ``"infotrace"``: item information curves (``type = "infotrace"``; ``itemplot(mod, item, type = "info")``
  is :func:`plot_item`'s ``"info"``); ``"infoSE"``: test information with the standard error of
  measurement on a second axis (``type = "infoSE"``);
* ``"score"``: the expected test score (``type = "score"``); ``"itemscore"``: expected item scores.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from irtbridge._validation import check_choice
from irtbridge.exceptions import ValidationError
from irtbridge.irt import category_probabilities, expected_score, item_information, sem, test_information

__all__ = ["PLOT_KINDS", "ITEM_PLOT_KINDS", "GROUP_PLOT_KINDS", "plot_calibration", "plot_item", "plot_groups"]

PLOT_KINDS = ("score", "info", "infoSE", "infotrace", "trace", "itemscore")
ITEM_PLOT_KINDS = ("trace", "info", "score")


def _axes(ax: Any):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

    return plt.subplots(figsize=(6.4, 4.2))[1]


def _grid(theta: Any) -> np.ndarray:
    return np.linspace(-6, 6, 241) if theta is None else np.asarray(theta, dtype=float).ravel()


def _items(fit: Any, items: Sequence[str] | None) -> list[str]:
    names = list(fit.items.index)
    if items is None:
        return names
    unknown = [i for i in items if i not in names]
    if unknown:
        raise ValidationError(f"unknown item(s) {unknown[:5]}; the calibration has {len(names)} items")
    return list(items)


def _trace(fit: Any, names: list[str], grid: np.ndarray, ax: Any) -> None:
    probs = category_probabilities(grid, fit.items.loc[names], fit.model)  # (theta, items, categories)
    probs = np.asarray(probs)
    for j, name in enumerate(names):
        if probs.shape[-1] == 2:
            ax.plot(grid, probs[:, j, 1], label=name)
        else:
            for k in range(probs.shape[-1]):
                if np.isfinite(probs[:, j, k]).all() and probs[:, j, k].max() > 0:
                    ax.plot(grid, probs[:, j, k], label=f"{name}: {k}")
    ax.set_ylabel("P(X = k | θ)" if probs.shape[-1] > 2 else "P(correct | θ)")
    ax.set_ylim(-0.02, 1.02)


def plot_calibration(fit: Any, kind: str = "score", *, items: Sequence[str] | None = None, theta: Any = None,
                     ax: Any = None, legend: bool | None = None):
    """Draw one of mirt's whole-test plot types for ``fit`` (see the module docstring); return the Axes.

    Parameters
    ----------
    fit : Calibration or ItemBank
        What to draw.
    kind : {"score", "info", "infoSE", "infotrace", "trace", "itemscore"}, default "score"
        The plot type (see the module docstring).
    items : sequence of str, optional
        The items of the per-item kinds (default all).
    theta : array-like, optional
        Abilities; default 241 points on [-6, 6].
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    legend : bool, optional
        Draw a legend; default when there are at most 12 lines (never for the whole-test kinds).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.

    Examples
    --------
    >>> import pandas as pd, matplotlib
    >>> matplotlib.use("Agg")
    >>> items = pd.DataFrame({"a": [1.0, 2.0], "b": [-1.0, 0.5], "g": 0.0, "u": 1.0}, index=["x", "y"])
    >>> from irtbridge.irt import as_item_bank
    >>> ax = plot_calibration(as_item_bank(items, "2PL"), "infoSE")
    >>> len(ax.get_lines())
    1
    """
    kind = check_choice(kind, "kind", PLOT_KINDS)
    ax = _axes(ax)
    grid = _grid(theta)
    names = _items(fit, items)
    if kind == "trace":
        _trace(fit, names, grid, ax)
        ax.set_title("Trace lines")
    elif kind == "info":
        ax.plot(grid, np.asarray(test_information(grid, fit)), label="test information")
        ax.set_ylabel("test information I(θ)")
        ax.set_title("Test information")
        legend = False
    elif kind == "infotrace":
        info = np.asarray(item_information(grid, fit.items.loc[names], fit.model))
        for j, name in enumerate(names):
            ax.plot(grid, info[:, j], label=name)
        ax.set_ylabel("I(θ)")
        ax.set_title("Item information")
    elif kind == "infoSE":
        ax.plot(grid, np.asarray(test_information(grid, fit)), color="C0", label="information")
        ax.set_ylabel("test information I(θ)", color="C0")
        twin = ax.twinx()
        twin.plot(grid, np.asarray(sem(grid, fit)), color="C3", linestyle="--", label="SE")
        twin.set_ylabel("SE(θ) = 1 / sqrt(I(θ))", color="C3")
        ax.set_title("Test information and standard error")
        legend = False
    elif kind == "score":
        ax.plot(grid, np.asarray(expected_score(grid, fit)).sum(axis=1), label="expected total score")
        ax.set_ylabel("expected test score")
        ax.set_title("Expected test score")
        legend = False
    else:
        scores = np.asarray(expected_score(grid, fit.items.loc[names], fit.model))
        for j, name in enumerate(names):
            ax.plot(grid, scores[:, j], label=name)
        ax.set_ylabel("expected item score")
        ax.set_title("Expected item scores")
    ax.set_xlabel("θ")
    if legend if legend is not None else len(ax.get_lines()) <= 12:
        ax.legend(fontsize="small", frameon=False)
    return ax


def plot_item(fit: Any, item: str, kind: str = "trace", *, theta: Any = None, ax: Any = None):
    """Draw one item (mirt's ``itemplot``): ``"trace"``, ``"info"`` or ``"score"``; return the Axes.

    Parameters
    ----------
    fit : Calibration or ItemBank
        What to draw.
    item : str
        The item.
    kind : {"trace", "info", "score"}, default "trace"
        Trace lines, item information or expected item score.
    theta : array-like, optional
        Abilities; default 241 points on [-6, 6].
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    kind = check_choice(kind, "kind", ITEM_PLOT_KINDS)
    mapping = {"trace": "trace", "info": "infotrace", "score": "itemscore"}
    ax = plot_calibration(fit, mapping[kind], items=[item], theta=theta, ax=ax, legend=kind == "trace")
    ax.set_title(f"{item}: {ax.get_title().lower()}")
    return ax


GROUP_PLOT_KINDS = ("score", "info", "trace")


def plot_groups(fit: Any, kind: str = "score", *, item: str | None = None, theta: Any = None, ax: Any = None,
                legend: bool = True):
    """One curve per group of a multiple-group fit (mirt's ``plot(mod, type = "score" | "info")`` and
    ``itemplot(mod, item)``): the expected test score, the test information, or one item's trace lines;
    return the Axes. The curves come from the native kernel on each group's item table (one factor).

    Parameters
    ----------
    fit : GroupCalibration
        A multiple-group fit.
    kind : {"score", "info", "trace"}, default "score"
        The expected test score, the test information, or one item's trace lines.
    item : str, optional
        The item of ``kind="trace"`` (required there, refused otherwise).
    theta : array-like, optional
        Abilities; default 241 points on [-6, 6].
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    legend : bool, default True
        Draw a legend.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    kind = check_choice(kind, "kind", GROUP_PLOT_KINDS)
    if len(getattr(fit, "factors", ("F1",))) != 1:
        raise ValidationError(f"plot: group curves are drawn for one factor; this fit has {len(fit.factors)}")
    if kind == "trace" and item is None:
        raise ValidationError("item: name the item whose trace lines to draw (kind='trace')")
    if kind != "trace" and item is not None:
        raise ValidationError(f"item: kind={kind!r} draws the whole test; leave item=None or use kind='trace'")
    if item is not None and item not in fit.item_names:
        raise ValidationError(f"item: unknown item {item!r}; the calibration has {len(fit.item_names)} items")
    ax = _axes(ax)
    grid = _grid(theta)
    for g in fit.groups:
        items = fit.items[g]
        if kind == "score":
            ax.plot(grid, np.asarray(expected_score(grid, items, fit.model)).sum(axis=1), label=g)
        elif kind == "info":
            ax.plot(grid, np.asarray(test_information(grid, items, fit.model)), label=g)
        else:
            probs = np.asarray(category_probabilities(grid, items.loc[[item]], fit.model))[:, 0, :]
            if probs.shape[-1] == 2:
                ax.plot(grid, probs[:, 1], label=g)
            else:
                for k in range(probs.shape[-1]):
                    if np.isfinite(probs[:, k]).all() and probs[:, k].max() > 0:
                        ax.plot(grid, probs[:, k], label=f"{g}: {k}")
    ax.set_ylabel({"score": "expected test score", "info": "test information I(θ)",
                   "trace": "P(X = k | θ)"}[kind])
    ax.set_title({"score": "Expected test score by group", "info": "Test information by group",
                  "trace": f"{item}: trace lines by group"}[kind])
    ax.set_xlabel("θ")
    if legend:
        ax.legend(fontsize="small", frameon=False)
    return ax
