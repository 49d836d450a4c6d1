"""Figures of instance hardness: cost curves (Prudêncio, Figs. 5-7) and hardness maps on a PCA (Figs. 8-12).

Both follow the package convention (:mod:`irtbridge._plotting`): ``ax=`` to draw into given Axes, the
Axes drawn on returned.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Number, constraints
from irtbridge._plotting import panel_axes
from irtbridge._validation import check_binary_labels, check_number, check_probability, show_value
from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.hardness._curves_core import (
    METHOD_NAMES,
    as_pool,
    check_grid,
    check_methods,
    class_means,
    curve_matrix,
    hardness_matrix,
)

__all__ = ["plot_cost_curves", "plot_hardness_map"]

_CLASS_COLOURS = {0: "tab:red", 1: "tab:blue"}


@constraints(threshold=Number(low=0.0, high=1.0))
def plot_cost_curves(
    y: Any,
    scores: Any,
    methods: str | Sequence[str] = ("sf", "sd", "rd"),
    *,
    instances: Iterable[Any] | None = None,
    c: Any = None,
    threshold: float = 0.5,
    figsize: tuple[float, float] | None = None,
    ax: Any = None,
):
    """Plot instance cost curves and the two class cost curves, one panel per method (Figs. 5-7).

    Parameters
    ----------
    y, scores : array-like
        Labels and scores, as in :func:`instance_hardness`.
    threshold : float, default 0.5
        As in :func:`instance_hardness`.
    methods : str or sequence of str, default ("sf", "sd", "rd")
        One panel per method.
    instances : iterable of labels, optional
        Instances (labels of ``y``'s index) whose own curves are drawn as thin lines, coloured by class
        and annotated with their hardness. Default: every instance when there are at most 30, none
        otherwise. The class cost curves are always drawn (thick), with the class hardness in the legend.
    c : array-like, optional
        Cost-proportion grid (default 101 points on ``[0, 1]``).
    figsize : (float, float), optional
        Figure size in inches (a new figure only).
    ax : matplotlib Axes or sequence of them, optional
        One Axes per method to draw into; default: a new figure, the panels in a row.

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        One per method.

    Examples
    --------
    >>> from irtbridge.hardness import plot_cost_curves
    >>> axes = plot_cost_curves([0, 0, 1, 1], [0.2, 0.6, 0.4, 0.9], methods="rd")
    >>> len(axes), len(axes[0].lines)          # one panel: 4 instance curves and 2 class curves
    (1, 6)
    """
    methods = check_methods(methods)
    threshold = check_probability(threshold, "threshold")
    grid = check_grid(c)
    pool = as_pool(y, scores)
    if instances is None:
        chosen = np.arange(pool.y.size) if pool.y.size <= 30 else np.arange(0)
    else:
        wanted = list(instances)
        positions = pool.index.get_indexer(wanted)
        if (positions < 0).any():
            bad = [w for w, p in zip(wanted, positions) if p < 0]
            raise ValidationError(f"instances {show_value(bad)} are not labels of y's index")
        chosen = positions
    new = ax is None
    axes = panel_axes(ax, len(methods), figsize or (4.2 * len(methods), 3.8))
    for ax, method in zip(axes, methods):
        curves = curve_matrix(pool, method, threshold, grid)
        hardness = hardness_matrix(pool.y, pool.scores, method, threshold).mean(axis=0)
        for i in chosen:
            ax.plot(grid, curves[i], color=_CLASS_COLOURS[int(pool.y[i])], lw=0.8, alpha=0.6)
            peak = int(np.argmax(curves[i]))
            ax.annotate(
                f"{pool.index[i]} ({hardness[i]:.2f})", (grid[peak], curves[i][peak]), fontsize=6, alpha=0.8
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            means = class_means(curves, pool.y)
            ch = class_means(hardness, pool.y)
        for k in (0, 1):
            if np.isfinite(ch[k]):
                ax.plot(grid, means[k], color=_CLASS_COLOURS[k], lw=2.5, label=f"class {k}: CH = {ch[k]:.3f}")
        ax.set_title(f"{METHOD_NAMES[method]} ({method})")
        ax.set_xlabel("cost proportion c")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 2)
        ax.legend(fontsize=7, loc="upper center")
    axes[0].set_ylabel("loss")
    if new:
        axes[0].figure.tight_layout()
    return axes


@constraints(vmax=Number(low=0.0, low_open=True, allow_none=True))
def plot_hardness_map(
    X: Any,
    hardness: Any,
    y: Any = None,
    *,
    scale: bool = True,
    cmap: str = "viridis",
    vmax: float | None = None,
    label: str = "hardness",
    figsize: tuple[float, float] | None = None,
    ax: Any = None,
):
    """Map instance hardness on the first two principal components of the features (Figs. 8-12).

    Parameters
    ----------
    X : array-like of shape (n_instances, n_features)
        Numeric features.
    hardness : array-like of shape (n_instances,) or DataFrame
        Hardness per instance (a Series from :func:`instance_hardness`), or a DataFrame with one column
        per panel (e.g. :func:`hardness_table` without ``label``, or :func:`instance_cost_curves` at a few
        values of ``c``). NaN leaves an instance out of the colour map (drawn grey), e.g. to show one
        class at a time on the PCA of all instances.
    y : array-like of shape (n_instances,), optional
        Labels; when given, class 0 is drawn with triangles and class 1 with circles.
    scale : bool, default True
        Standardise each feature before the PCA (features on different scales would otherwise dominate).
    cmap : str, default "viridis"
        Matplotlib colormap of the hardness.
    vmax : float, optional
        Upper end of the colour scale; default the largest value shown (``c``-specific losses reach 2).
    label : str, default "hardness"
        Colour bar label (e.g. "loss" for cost-curve values at fixed ``c``).
    figsize : (float, float), optional
        Figure size in inches (a new figure only).
    ax : matplotlib Axes or sequence of them, optional
        One Axes per panel to draw into; default: a new figure, the panels in a row. The colour bar
        takes its room from these Axes.

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        One per panel (the colour bar is an extra Axes of the same figure).

    Notes
    -----
    The PCA is an SVD of the (standardised, centred) feature matrix, the same as
    ``prcomp(X, scale. = TRUE)$x[, 1:2]`` in R up to the sign of each component.

    Examples
    --------
    >>> import numpy as np
    >>> from irtbridge.hardness import plot_hardness_map
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> axes = plot_hardness_map(X, np.linspace(0, 1, 20))
    >>> len(axes), len(axes[0].figure.axes)  # one map; the figure also holds its colour bar
    (1, 2)
    """
    if isinstance(X, pd.DataFrame):
        bad = [str(col) for col, dt in X.dtypes.items() if not pd.api.types.is_numeric_dtype(dt)]
        if bad:
            raise ValidationError(f"X has non-numeric column(s) {', '.join(map(repr, bad[:5]))}; encode them first")
    try:
        features = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError("X must hold numbers only") from None
    if features.ndim != 2 or features.shape[1] < 2:
        raise ValidationError(f"X must be (n_instances, n_features) with at least 2 features, got shape {features.shape}")
    if not np.isfinite(features).all():
        raise ValidationError("X has missing or infinite values; impute or drop them before mapping")
    panels = (hardness if isinstance(hardness, pd.DataFrame)
              else pd.DataFrame({getattr(hardness, "name", None) or "hardness": np.asarray(hardness, dtype=float)}))
    values = panels.to_numpy(dtype=float)
    if values.shape[0] != features.shape[0]:
        raise ValidationError(f"hardness has {values.shape[0]} instances but X has {features.shape[0]} rows")
    if np.isinf(values).any():
        raise ValidationError("hardness has infinite values; use NaN for instances to leave out of a panel")
    if np.isnan(values).all(axis=0).any():
        empty = [str(c) for c, e in zip(panels.columns, np.isnan(values).all(axis=0)) if e]
        raise ValidationError(f"hardness column(s) {', '.join(map(repr, empty))} hold no value to map")
    labels = None if y is None else check_binary_labels(y, "y")
    if labels is not None and labels.size != features.shape[0]:
        raise ValidationError(f"y has {labels.size} labels but X has {features.shape[0]} rows")

    centred = features - features.mean(axis=0)
    if scale:
        sd = centred.std(axis=0, ddof=1)
        centred = centred[:, sd > 0] / sd[sd > 0]
    u, sv, _ = np.linalg.svd(centred, full_matrices=False)
    coords = u[:, :2] * sv[:2]
    explained = sv[:2] ** 2 / np.sum(sv**2)

    top = float(np.nanmax(values)) if vmax is None else check_number(vmax, "vmax", low=0.0, low_open=True)
    ncol = panels.shape[1]
    axes = panel_axes(ax, ncol, figsize or (4.4 * ncol + 0.8, 4.0), constrained_layout=True)
    everyone = np.ones(features.shape[0], dtype=bool)
    groups: list[tuple[int | None, np.ndarray, str]]  # (class, its rows, marker)
    groups = [(None, everyone, "o")] if labels is None else [(1, labels == 1, "o"), (0, labels == 0, "^")]
    art = None
    for j, ax in enumerate(axes):
        shown = ~np.isnan(values[:, j])
        # instances without a value stay visible as context, so that panels share one PCA
        ax.scatter(coords[~shown, 0], coords[~shown, 1], c="0.85", marker=".", s=8, edgecolors="none")
        for k, mask, marker in groups:
            mask = mask & shown
            if not mask.any():
                continue
            art = ax.scatter(
                coords[mask, 0], coords[mask, 1], c=values[mask, j], cmap=cmap, vmin=0.0, vmax=max(top, 1e-12),
                marker=marker, s=14, edgecolors="none", label=None if k is None else f"class {k}",
            )
        ax.set_title(str(panels.columns[j]))
        ax.set_xlabel(f"PC1 ({explained[0]:.0%})")
        ax.set_ylabel(f"PC2 ({explained[1]:.0%})")
        if labels is not None:
            ax.legend(fontsize=7, loc="best")
    axes[0].figure.colorbar(art, ax=list(axes), label=label)
    return axes
