"""Figures of a portfolio evaluation, in the spirit of airt's vignette (Kandanaarachchi & Smith-Miles 2020).

Every function takes a :class:`~irtbridge.portfolio.PortfolioEvaluation` and follows the package
convention (:mod:`irtbridge._plotting`): ``ax=`` to draw into given Axes (one per panel), the Axes drawn
on returned (an array for a figure of several panels); nothing is shown. :func:`save_figures` writes them
all. Each algorithm keeps one colour in every figure.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.lines import Line2D

from irtbridge import irt
from irtbridge._plotting import close, edge_of_grid, figure_of, grid_axes, panel_axes, single_axes
from irtbridge.exceptions import ValidationError
from irtbridge.portfolio.crm import CRMCalibration, crm_density

__all__ = [
    "algorithm_colors",
    "plot_crm_heatmaps",
    "plot_tracelines",
    "plot_performance",
    "plot_strengths",
    "plot_goodness",
    "plot_effectiveness",
    "plot_effectiveness_scatter",
    "save_figures",
]


def algorithm_colors(names: list[str]) -> dict[str, Any]:
    """One colour per algorithm (tab10 up to 10 algorithms, tab20 up to 20, then a hue circle).

    Parameters
    ----------
    names : list of str
        The algorithms.

    Returns
    -------
    dict of str to colour
        Name -> an RGBA tuple.
    """
    n = len(names)
    if n <= 10:
        cmap = colormaps["tab10"]
        return {name: cmap(i) for i, name in enumerate(names)}
    if n <= 20:
        cmap = colormaps["tab20"]
        return {name: cmap(i) for i, name in enumerate(names)}
    cmap = colormaps["hsv"]
    return {name: cmap(i / n) for i, name in enumerate(names)}


def _label_edges(axes, xlabel: str, ylabel: str) -> None:
    for ax in axes:
        last_row, first_col = edge_of_grid(ax)
        if last_row:
            ax.set_xlabel(xlabel)
        if first_col:
            ax.set_ylabel(ylabel)


def _names(evaluation) -> list[str]:
    return list(evaluation.algorithms.index)


def plot_crm_heatmaps(evaluation, *, theta_range=(-6.0, 6.0), z_range=(-6.0, 6.0), step: float = 0.1,
                      ncols: int = 5, ax: Any = None):
    """CRM density ``f_j(z | theta)`` of every algorithm over (theta, z), one panel each (airt's
    ``heatmaps_crm``; the vignette's first figure).

    Parameters
    ----------
    evaluation : PortfolioEvaluation or CRMCalibration
        A continuous-model evaluation, or the calibration itself.
    theta_range, z_range : (float, float)
    step : float
        Grid spacing of both axes (airt: 0.1).
    ncols : int
    ax : sequence of matplotlib Axes, optional
        One per algorithm; default: a new grid of ``ncols`` columns.

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        One per algorithm.
    """
    cal = evaluation if isinstance(evaluation, CRMCalibration) else evaluation.calibration
    if not isinstance(cal, CRMCalibration):
        raise ValidationError("CRM heatmaps need a continuous-model evaluation (model='continuous')")
    theta = np.arange(theta_range[0], theta_range[1] + step / 2, step)
    z = np.arange(z_range[0], z_range[1] + step / 2, step)
    dens = crm_density(theta, z, cal)
    names = cal.item_names
    axes = grid_axes(ax, len(names), ncols, sharex=True, sharey=True)
    fig = axes[0].figure
    vmax = float(np.quantile(dens, 0.999))
    image = None
    for ax, name, d in zip(axes, names, dens):
        image = ax.imshow(d, origin="lower", aspect="auto", cmap="plasma", vmin=0.0, vmax=vmax,
                          extent=(theta[0] - step / 2, theta[-1] + step / 2, z[0] - step / 2, z[-1] + step / 2))
        ax.set_title(name, fontsize=9)
    _label_edges(axes, "theta (easiness)", "z (logit performance)")
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="density")
    fig.suptitle("Continuous response model: density of z given theta")
    return axes


def plot_tracelines(evaluation, *, theta_range=(-6.0, 6.0), step: float = 0.1, ncols: int = 5, ax: Any = None):
    """Polytomous trace lines: probability of each performance level against easiness, per algorithm.

    Parameters
    ----------
    evaluation : PortfolioEvaluation
        A polytomous-model evaluation.
    theta_range : (float, float), default (-6.0, 6.0)
    step : float, default 0.1
    ncols : int, default 5
        The easiness grid and the facet columns.
    ax : sequence of matplotlib Axes, optional
        One per algorithm; default: a new grid of ``ncols`` columns.

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        One per algorithm.

    Notes
    -----
    R equivalent: ``airt::tracelines_poly(pirtmodel(df))`` (mirt's ``probtrace`` on ``seq(-6, 6, 0.1)``).
    """
    if evaluation.model != "polytomous":
        raise ValidationError("trace lines need a polytomous evaluation (model='polytomous')")
    cal = evaluation.calibration
    theta = np.arange(theta_range[0], theta_range[1] + step / 2, step)
    probs = irt.category_probabilities(theta, cal)
    values = evaluation.performance.to_numpy()
    levels = np.unique(values)
    cmap = colormaps["viridis"]
    colour = {lv: cmap(i / max(1, levels.size - 1)) for i, lv in enumerate(levels)}
    names = _names(evaluation)
    axes = grid_axes(ax, len(names), ncols, sharex=True, sharey=True)
    fig = axes[0].figure
    for j, (ax, name) in enumerate(zip(axes, names)):
        observed = np.unique(values[:, j])
        for c, lv in enumerate(observed):
            ax.plot(theta, probs[:, j, c], color=colour[lv], label=f"P{lv:g}")
        ax.set_title(name, fontsize=9)
        ax.set_ylim(0, 1.02)
    _label_edges(axes, "theta (easiness)", "probability")
    handles = [Line2D([], [], color=colour[lv], label=f"P{lv:g}") for lv in levels]
    fig.legend(handles=handles, loc="lower right", title="level", fontsize=8)
    fig.suptitle("Algorithm trace lines")
    return axes


def plot_performance(evaluation, *, points: bool = True, curves: bool = True, facet: bool = False,
                     ncols: int = 5, ax: Any = None):
    """Performance against dataset easiness, with each algorithm's smoothing spline.

    Parameters
    ----------
    evaluation : PortfolioEvaluation
    points, curves : bool
        Draw the datasets, the splines, or both (the vignette's g1 and g2).
    facet : bool
        One panel per algorithm (the vignette's g3).
    ncols : int
        Facet columns.
    ax : matplotlib Axes, or one per algorithm with ``facet=True``, optional

    Returns
    -------
    matplotlib.axes.Axes, or a numpy.ndarray of them (one per algorithm) with ``facet=True``
    """
    names = _names(evaluation)
    colours = algorithm_colors(names)
    x = evaluation.datasets["easiness"].to_numpy()
    perf = evaluation.performance
    curves_frame = evaluation.latent.curves
    if facet:
        axes = grid_axes(ax, len(names), ncols, sharex=True, sharey=True)
    else:
        axes = np.array([single_axes(ax, (8, 5))] * len(names), dtype=object)
    for ax, name in zip(axes, names):
        if points:
            ax.scatter(x, perf[name], s=8, alpha=0.5 if curves else 0.8, color=colours[name],
                       label=None if curves else name)
        if curves:
            ax.plot(curves_frame.index, curves_frame[name], color=colours[name], lw=2, label=name)
        if facet:
            ax.set_title(name, fontsize=9)
    _label_edges(axes if facet else axes[:1], "latent trait (dataset easiness)", "performance")
    if not facet:
        axes[0].legend(fontsize=8, ncol=2)
    axes[0].figure.suptitle("Performance against dataset easiness")
    return axes if facet else axes[0]


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, length) of the runs of True in a 1-D mask."""
    padded = np.concatenate([[False], mask, [False]])
    edges = np.flatnonzero(np.diff(padded.astype(int)))
    return [(int(s), int(e - s)) for s, e in zip(edges[::2], edges[1::2])]


def plot_strengths(evaluation, *, ax: Any = None):
    """Where along the easiness axis each algorithm is the best (strengths) and the worst (weaknesses).

    Parameters
    ----------
    evaluation : PortfolioEvaluation
        The evaluation.
    ax : sequence of two matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    numpy.ndarray of two matplotlib Axes
        The vignette's "Algorithm Strengths" and "Algorithm Weaknesses" strips (``ax=``: two Axes).
    """
    lt = evaluation.latent
    names = _names(evaluation)
    colours = algorithm_colors(names)
    grid = lt.grid
    step = grid[1] - grid[0]
    new = ax is None
    axes = panel_axes(ax, 2, (9, 4.5), column=True, sharex=True)
    for ax, marks, title in ((axes[0], lt.strengths, "Algorithm strengths"),
                             (axes[1], lt.weaknesses, "Algorithm weaknesses")):
        shown = [n for n in names if marks[n].any()]
        for row, name in enumerate(shown):
            spans = [(grid[s] - step / 2, n * step) for s, n in _runs(marks[name].to_numpy())]
            ax.broken_barh(spans, (row - 0.4, 0.8), color=colours[name])
        ax.set_yticks(range(len(shown)))
        ax.set_yticklabels(shown, fontsize=8)
        ax.set_ylim(-0.6, max(len(shown), 1) - 0.4)
        ax.set_title(f"{title} (epsilon = {lt.epsilon:g})", fontsize=10)
    axes[1].set_xlabel("latent trait (dataset easiness)")
    if new:
        axes[0].figure.tight_layout()
    return axes


def plot_goodness(evaluation, *, ax: Any = None):
    """Model goodness curves (share of datasets predicted within a tolerance), one line per algorithm.

    Returns the Axes.

    Parameters
    ----------
    evaluation : PortfolioEvaluation
        The evaluation.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    names = _names(evaluation)
    colours = algorithm_colors(names)
    curves = evaluation.goodness_curves
    ax = single_axes(ax, (7, 4.5))
    marker = "o" if len(curves) <= 12 else None
    for name in names:
        auc = evaluation.algorithms.loc[name, "goodness_auc"]
        ax.plot(curves.index, curves[name], color=colours[name], marker=marker, ms=3, label=f"{name} ({auc:.3f})")
    ax.set_xlabel("goodness tolerance")
    ax.set_ylabel("model goodness curve")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8, title="algorithm (AUC)")
    return ax


def plot_effectiveness(evaluation, *, ax: Any = None):
    """Actual and predicted effectiveness curves side by side; returns the two Axes (``ax=``: two Axes).

    Parameters
    ----------
    evaluation : PortfolioEvaluation
        The evaluation.
    ax : sequence of two matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    ndarray of matplotlib Axes
        The two Axes.
    """
    names = _names(evaluation)
    colours = algorithm_colors(names)
    new = ax is None
    axes = panel_axes(ax, 2, (11, 4.5), sharey=True)
    marker = "o" if len(evaluation.effectiveness_actual) <= 12 else None
    for ax, curves, title in ((axes[0], evaluation.effectiveness_actual, "Actual effectiveness"),
                              (axes[1], evaluation.effectiveness_predicted, "Predicted effectiveness")):
        for name in names:
            ax.plot(curves.index, curves[name], color=colours[name], marker=marker, ms=3, label=name)
        ax.set_title(title)
        ax.set_xlabel("performance threshold (best level at 0)")
        ax.set_ylim(0, 1.02)
    axes[0].set_ylabel("share of datasets at or above the threshold")
    axes[1].legend(fontsize=8)
    if new:
        axes[0].figure.tight_layout()
    return axes


def plot_effectiveness_scatter(evaluation, *, ax: Any = None):
    """Area under the actual against the predicted effectiveness curve (AUAEC vs AUPEC), with y = x.

    Returns the Axes.

    Parameters
    ----------
    evaluation : PortfolioEvaluation
        The evaluation.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    names = _names(evaluation)
    colours = algorithm_colors(names)
    table = evaluation.algorithms
    ax = single_axes(ax, (5.5, 5.5))
    ax.plot([0, 1], [0, 1], ls=":", color="grey")
    for name in names:
        x, y = table.loc[name, "effectiveness_auc_actual"], table.loc[name, "effectiveness_auc_predicted"]
        ax.scatter([x], [y], color=colours[name], s=40, label=name)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("area under actual effectiveness curve (AUAEC)")
    ax.set_ylabel("area under predicted effectiveness curve (AUPEC)")
    ax.set_aspect("equal")
    return ax


def save_figures(evaluation, out_dir: str | os.PathLike, *, dpi: int = 110) -> dict[str, Path]:
    """Draw every figure that applies to the evaluation and save it as PNG in ``out_dir``.

    Parameters
    ----------
    evaluation : PortfolioEvaluation
        The evaluation.
    out_dir : str or os.PathLike
        The folder (created if needed).
    dpi : int, default 110
        Resolution of the PNG files.

    Returns
    -------
    dict mapping figure name to the written path.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    makers = {
        "performance_vs_easiness": lambda e: plot_performance(e, points=True, curves=True),
        "performance_by_algorithm": lambda e: plot_performance(e, points=True, curves=True, facet=True),
        "strengths_weaknesses": plot_strengths,
        "goodness_curves": plot_goodness,
        "effectiveness_curves": plot_effectiveness,
        "effectiveness_auc": plot_effectiveness_scatter,
    }
    if evaluation.model == "continuous":
        makers = {"crm_heatmaps": plot_crm_heatmaps, **makers}
    else:
        makers = {"tracelines": plot_tracelines, **makers}
    written = {}
    for name, make in makers.items():
        fig = figure_of(make(evaluation))
        path = out / f"{name}.png"
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
        close(fig)
        written[name] = path
    return written
