"""The leaderboard report's figures (matplotlib's object API, as :mod:`irtbridge.report.plots`): each takes
``ax=`` and returns the Axes it drew on; :func:`leaderboard_figures` embeds them as PNG ``data:`` URIs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from irtbridge.report._style import ACCENT, CLASSIFIER_COLOR, report_axes
from irtbridge.report.plots import embed_figures, share_heatmap

if TYPE_CHECKING:  # the figures draw the leaderboard's result; only the type is needed here
    from irtbridge.leaderboard import LeaderboardReport

__all__ = ["leaderboard_figures", "plot_interval_ranking", "plot_item_map", "plot_share_right",
           "plot_test_information", "plot_task_accuracy"]

_PREDICTED_COLOR = "#805ad5"
_FLAG_COLOR = "#c53030"
MAX_LABELLED = 60  # above this many models the ranking figures show ranks, not names


def _clean(ax: Any) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_interval_ranking(ranking: pd.DataFrame, value: str = "theta", *, ax: Any = None):
    """Each model's ``value`` with its 95% interval (``<value>_lower``/``_upper``), best on top; accuracy
    predicted for unanswered items in purple.

    Parameters
    ----------
    ranking : DataFrame
        The report's ranking table.
    value : str, default "theta"
        The column drawn.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    n = len(ranking)
    ax = report_axes(ax, 7.5, 0.26 * n + 1.3 if n <= MAX_LABELLED else 6.5)
    y = np.arange(n)[::-1]
    predicted = ranking.get("accuracy_kind", pd.Series("observed", index=ranking.index)).eq("predicted").to_numpy()
    colors = np.where(predicted & (value == "accuracy"), _PREDICTED_COLOR, CLASSIFIER_COLOR)
    lw = 2.0 if n <= MAX_LABELLED else max(0.4, 120.0 / n)
    ax.hlines(y, ranking[f"{value}_lower"].to_numpy(float), ranking[f"{value}_upper"].to_numpy(float), colors=colors,
              lw=lw, alpha=0.75)
    ax.scatter(ranking[value].to_numpy(float), y, c=colors, s=24 if n <= MAX_LABELLED else 6, zorder=3)
    if n <= MAX_LABELLED:
        ax.set_yticks(y)
        ax.set_yticklabels([str(m) for m in ranking.index], fontsize=8)
    else:
        ticks = [r for r in (1, 10, 25, 50, 100, 200, 500, 1000, 2000, 5000) if r <= n]
        ax.set_yticks([n - r for r in ticks])
        ax.set_yticklabels([f"#{r}" for r in ticks], fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    label = {"theta": "ability theta (2PL, EAP), 95% interval theta \u00b1 1.96 SE",
             "accuracy": "accuracy on all items, 95% interval"}.get(value, value)
    ax.set_xlabel(label)
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    if value == "accuracy" and predicted.any():
        ax.legend(handles=[Line2D([], [], color=CLASSIFIER_COLOR, marker="o", lw=2, label="observed (Wilson)"),
                           Line2D([], [], color=_PREDICTED_COLOR, marker="o", lw=2, label="predicted (p-IRT)")],
                  loc="lower right", frameon=False, fontsize=8)
    _clean(ax)
    return ax


def plot_item_map(items: pd.DataFrame, *, ax: Any = None):
    """The fitted items by difficulty b and discrimination a; negative discrimination in red.

    Parameters
    ----------
    items : DataFrame
        The report's item table (``a``, ``b``).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    ax = report_axes(ax, 7.0, 4.0)
    fitted = items[items["a"].notna()]
    neg = fitted["negative_discrimination"].to_numpy(bool)
    b = np.clip(fitted["b"].to_numpy(float), -6, 6)
    a = fitted["a"].to_numpy(float)
    ax.scatter(b[~neg], a[~neg], s=10, alpha=0.55, color=CLASSIFIER_COLOR, edgecolors="none", label="item")
    ax.scatter(b[neg], a[neg], s=22, alpha=0.9, color=_FLAG_COLOR, edgecolors="none", label="negative discrimination")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set_xlabel("difficulty b (clipped to [-6, 6]; right = harder)")
    ax.set_ylabel("discrimination a")
    ax.set_yscale("symlog", linthresh=2.0)
    ax.grid(color="0.93")
    ax.legend(frameon=False, fontsize=8, loc="upper right")
    _clean(ax)
    return ax


def plot_share_right(items: pd.DataFrame, *, ax: Any = None):
    """How many items each share of the models answers right; everyone right / everyone wrong highlighted.

    Parameters
    ----------
    items : DataFrame
        The report's item table (share right, flags).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    ax = report_axes(ax, 7.0, 3.2)
    share = items.loc[items["n_answered"] >= 2, "share_right"].to_numpy(float)
    bins = np.linspace(0, 1, 21)
    counts, edges = np.histogram(share[(share > 0) & (share < 1)], bins=bins)
    ax.bar(edges[:-1], counts, width=0.05, align="edge", color=CLASSIFIER_COLOR, alpha=0.75, label="items")
    ax.bar([-0.05, 1.0], [int((share == 0).sum()), int((share == 1).sum())], width=0.05, align="edge",
           color=[_FLAG_COLOR, ACCENT], label="everyone wrong / everyone right")
    ax.set_xlim(-0.07, 1.07)
    ax.set_xlabel("share of the models that answer the item right")
    ax.set_ylabel("items")
    ax.legend(frameon=False, fontsize=8, loc="upper center")
    _clean(ax)
    return ax


def plot_test_information(curve: pd.DataFrame, theta: Any, low: float, high: float, *, ax: Any = None):
    """The test information curve, the range where it is at least half its peak, the models' abilities below.

    Parameters
    ----------
    curve : DataFrame
        :func:`~irtbridge.leaderboard.diagnostics.information_curve`'s table.
    theta : array-like
        The models' abilities.
    low, high : float
        The informative range.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    ax = report_axes(ax, 7.0, 3.4)
    ax.plot(curve["theta"].to_numpy(float), curve["information"].to_numpy(float), color=CLASSIFIER_COLOR, lw=2)
    ax.axvspan(low, high, color=CLASSIFIER_COLOR, alpha=0.08, lw=0)
    theta = np.asarray(theta, dtype=float)
    top = float(curve["information"].max()) if len(curve) else 1.0
    ax.plot(theta, np.full(len(theta), -0.04 * top), "|", color=ACCENT, ms=12, alpha=0.7)
    ax.set_ylim(-0.09 * top, top * 1.08)
    ax.set_xlabel("ability theta (ticks: the models; shaded: information at least half its peak)")
    ax.set_ylabel("test information")
    ax.grid(color="0.93")
    _clean(ax)
    return ax


def plot_task_accuracy(task_accuracy: pd.DataFrame, order: Any, *, max_models: int = 30, max_tasks: int = 40,
                       ax: Any = None):
    """Observed accuracy of the leading models (rows, in ranking order) on each task (columns).

    Parameters
    ----------
    task_accuracy : DataFrame
        Models x tasks, observed accuracy.
    order : sequence of str
        The models in ranking order.
    max_models : int, default 30
        Leading models shown.
    max_tasks : int, default 40
        Tasks shown.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    rows = [m for m in order if m in task_accuracy.index][:max_models]
    table = task_accuracy.loc[rows].iloc[:, :max_tasks]
    ax = report_axes(ax, max(6.0, 0.32 * table.shape[1] + 3.0), 0.3 * table.shape[0] + 1.8)
    return share_heatmap(ax, table, "accuracy on the answered items")


def leaderboard_figures(report: LeaderboardReport) -> dict[str, str]:
    """Every figure of the page as a ``data:`` URI, by name (a figure that cannot be drawn is left out, with
    one warning).

    Parameters
    ----------
    report : LeaderboardReport
        The report.

    Returns
    -------
    dict of str to str
        Figure name -> ``data:`` URI.
    """
    r = report
    info = r.facts.get("information")
    fitted = bool(r.facts["fit"]["fitted"])
    makers: list[tuple[str, Callable[[], Any]]] = [
        ("ranking_theta", lambda: plot_interval_ranking(r.ranking, "theta") if fitted else None),
        ("ranking_accuracy", lambda: plot_interval_ranking(r.ranking, "accuracy")),
        ("item_map", lambda: plot_item_map(r.items) if fitted else None),
        ("share_right", lambda: plot_share_right(r.items)),
        ("information", lambda: plot_test_information(r.information, r.ranking["theta"], info["low"], info["high"])
         if info else None),
        ("tasks", lambda: plot_task_accuracy(r.task_accuracy, list(r.ranking.index))
         if r.task_accuracy is not None else None),
    ]
    return embed_figures(makers, "leaderboard report figures")
