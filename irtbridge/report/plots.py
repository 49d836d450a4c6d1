"""The report's figures: matplotlib's object API (no pyplot state, so safe from worker threads). Each
follows the package convention (:mod:`irtbridge._plotting`: ``ax=`` accepted, the Axes drawn on
returned) and :func:`figures` embeds them in the page as PNG ``data:`` URIs."""

from __future__ import annotations

import base64
import io
import warnings
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, NullFormatter

from irtbridge._constraints import Int, constraints
from irtbridge._plotting import close, figure_of
from irtbridge.exceptions import IrtBridgeWarning, find_stack_level
from irtbridge.report._style import ARTIFICIAL_COLOR, CLASSIFIER_COLOR, report_axes

if TYPE_CHECKING:  # the report renders the pipeline's result; only the type is needed here
    from irtbridge.pipeline import Evaluation

__all__ = ["figures", "embed_figures", "plot_ranking", "plot_rating_history", "plot_true_score_shares", "plot_dataset_map",
           "plot_instances", "plot_ei", "plot_mlc"]


def _png(fig: Any) -> str:
    """A figure as a base64 PNG ``data:`` URI (the figure is released)."""
    fig = figure_of(fig)  # the package's plot functions return the Axes they drew on
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", facecolor="white")
    close(fig)  # figures from pyplot-based helpers must leave pyplot's registry
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def plot_ranking(ratings: pd.DataFrame, *, ax: Any = None):
    """Glicko-2 rating of every respondent with its 95% interval (rating -/+ 2 RD), best on top.

    Parameters
    ----------
    ratings : DataFrame
        The final Glicko-2 ratings.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    n = len(ratings)
    ax = report_axes(ax, 7.5, 0.28 * n + 1.2)
    y = np.arange(n)[::-1]
    colors = [ARTIFICIAL_COLOR if k == "artificial" else CLASSIFIER_COLOR for k in ratings.get("kind", ["classifier"] * n)]
    rating = ratings["rating"].to_numpy(float)
    ax.hlines(y, ratings["lower"].to_numpy(float), ratings["upper"].to_numpy(float), colors=colors, lw=2.2, alpha=0.8)
    ax.scatter(rating, y, c=colors, s=28, zorder=3)
    ax.set_yticks(y)
    ax.set_yticklabels([str(p) for p in ratings.index], fontsize=8.5)
    ax.axvline(1500, color="0.75", lw=0.8, ls=":")
    ax.set_xlabel("Glicko-2 rating (bars: rating \u00b1 2 RD, 95%)")
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(handles=[Line2D([], [], color=CLASSIFIER_COLOR, marker="o", lw=2, label="classifier"),
                       Line2D([], [], color=ARTIFICIAL_COLOR, marker="o", lw=2, label="artificial baseline")],
              loc="lower right", frameon=False, fontsize=8)
    return ax


@constraints(top=Int(low=1))
def plot_rating_history(history: pd.DataFrame, ratings: pd.DataFrame, top: int = 8, *, ax: Any = None):
    """Rating of the leading respondents (and two baselines) after each rating period (dataset).

    Parameters
    ----------
    history : DataFrame
        Ratings after each period.
    ratings : DataFrame
        The final ratings (which respondents lead).
    top : int, default 8
        Leading respondents drawn.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    ax = report_axes(ax, 7.5, 3.6)
    players = list(ratings.index[:top])
    for extra in ("majority", "pessimal"):
        if extra in ratings.index and extra not in players:
            players.append(extra)
    label = "dataset" if "dataset" in history.columns else "period"
    periods = list(dict.fromkeys(history[label].astype(str)))
    pos = {p: i for i, p in enumerate(periods)}
    for name in players:
        h = history[history["player"] == name]
        artificial = "kind" in ratings.columns and ratings.loc[name, "kind"] == "artificial"
        ax.plot([pos[str(p)] for p in h[label]], h["rating"].to_numpy(float), marker="o", ms=3, lw=1.4,
                ls="--" if artificial else "-", label=str(name))
    ax.set_xticks(range(len(periods)))
    ax.set_xticklabels(periods, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("rating")
    ax.set_xlabel("rating period (dataset, in tournament order)")
    ax.grid(color="0.93")
    ax.legend(fontsize=7.5, ncol=2, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def plot_true_score_shares(true_scores: pd.DataFrame, n_items: Mapping[str, int], order: Sequence[str], *, ax: Any = None):
    """Heat map of True-Score / number of items (the expected share correct) per dataset and respondent.

    Parameters
    ----------
    true_scores : DataFrame
        Respondents x datasets.
    n_items : mapping of str to int
        Items of each dataset.
    order : sequence of str
        The datasets' order.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    share = true_scores.div(pd.Series(n_items).reindex(true_scores.index), axis=0)
    share = share[[c for c in order if c in share.columns]]
    ax = report_axes(ax, max(6.0, 0.36 * share.shape[1] + 2.2), 0.36 * share.shape[0] + 1.9)
    return share_heatmap(ax, share, "True-Score / items", row_fontsize=8)


def share_heatmap(ax: Any, table: pd.DataFrame, label: str, *, row_fontsize: float = 7.5):
    """A table of shares in [0, 1] drawn on ``ax`` as a heat map, rows and columns labelled, with its colour bar."""
    im = ax.imshow(table.to_numpy(float), aspect="auto", cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(table.shape[1]))
    ax.set_xticklabels([str(c) for c in table.columns], rotation=60, ha="right", fontsize=7.5)
    ax.set_yticks(range(table.shape[0]))
    ax.set_yticklabels([str(i) for i in table.index], fontsize=row_fontsize)
    ax.figure.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label=label)
    return ax


def plot_dataset_map(diagnostics: pd.DataFrame, *, ax: Any = None):
    """Each dataset by median difficulty and median discrimination (Cardoso et al., decodIRT, Fig. 7 in one panel).

    Medians, because ltm's 3PL on small respondent samples gives a few items near-zero discrimination and
    huge |b|, which would dominate a mean.

    Parameters
    ----------
    diagnostics : DataFrame
        Per dataset, its median difficulty and discrimination.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    ax = report_axes(ax, 6.8, 4.2)
    x = diagnostics["difficulty_median"].to_numpy(float)
    y = diagnostics["discrimination_median"].to_numpy(float)
    size = 30 + 400 * diagnostics["share_negative_discrimination"].to_numpy(float)
    sc = ax.scatter(x, y, s=size, c=diagnostics["mean_accuracy"].to_numpy(float), cmap="RdYlGn",
                    vmin=0.5, vmax=1.0, edgecolors="0.3", linewidths=0.6)
    for name, xi, yi in zip(diagnostics.index, x, y):
        ax.annotate(str(name), (xi, yi), xytext=(5, 4), textcoords="offset points", fontsize=8)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.axvline(0, color="0.8", lw=0.8, ls=":")
    ax.set_xlabel("median difficulty b  (right = harder)")
    ax.set_ylabel("median discrimination a  (symlog)")
    ax.figure.colorbar(sc, ax=ax, fraction=0.04, pad=0.02, label="mean accuracy of the classifiers")
    ax.text(0.01, 0.01, "marker size: share of items with negative discrimination", transform=ax.transAxes,
            fontsize=7.5, color="0.4")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def plot_instances(instances: pd.DataFrame, *, ax: Any = None):
    """Per instance: the chance a typical classifier gets it right against the cost-curve hardness.

    Parameters
    ----------
    instances : DataFrame
        The hard instances table.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    has_hard = "hardness_rd" in instances.columns and instances["hardness_rd"].notna().any()
    ax = report_axes(ax, 7.2, 3.8)
    names = list(dict.fromkeys(instances["dataset"]))
    cmap = _cmap("tab10")
    for i, name in enumerate(names):
        f = instances[instances["dataset"] == name]
        x = f["p_typical"].to_numpy(float)
        if has_hard:
            y = f["hardness_rd"].to_numpy(float)
            if np.isnan(y).all():
                continue
        else:
            y = 1.0 - f["share_correct"].to_numpy(float)
        ax.scatter(x, y, s=12, alpha=0.6, color=cmap(i % 10), label=str(name), edgecolors="none")
    ax.set_xlabel("IRT: P(correct) for the median classifier's ability")
    ax.set_ylabel("cost-curve hardness (rd)" if has_hard else "share of classifiers wrong")
    ax.grid(color="0.93")
    ax.legend(fontsize=7.5, frameon=False, loc="upper right")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def plot_ei(pooled: pd.DataFrame, *, ax: Any = None):
    """EI with its 95% interval per classifier (log scale), pooled over the binary datasets.

    Parameters
    ----------
    pooled : DataFrame
        The pooled EI per classifier, with its interval.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    n = len(pooled)
    ax = report_axes(ax, 7.0, 0.3 * n + 1.3)
    y = np.arange(n)[::-1]
    ei = pooled["ei"].to_numpy(float)
    lo = pooled["ei_lower"].to_numpy(float)
    hi = pooled["ei_upper"].to_numpy(float)
    finite_hi = np.where(np.isfinite(hi), hi,
                         np.nanmax(np.where(np.isfinite(hi), hi, np.nan)) * 2 if np.isfinite(hi).any() else 100.0)
    ax.hlines(y, np.maximum(lo, 1e-3), finite_hi, color=CLASSIFIER_COLOR, lw=2.2, alpha=0.8)
    ax.scatter(np.where(np.isfinite(ei), ei, finite_hi), y, color=CLASSIFIER_COLOR, s=26, zorder=3)
    ax.set_xscale("log")
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    lo_lim = max(min(np.nanmin(np.maximum(lo, 1e-3)), 1.0) / 1.3, 0.05)
    ax.set_xlim(lo_lim, np.nanmax(finite_hi) * 1.3)
    ax.set_yticks(y)
    ax.set_yticklabels([str(i) for i in pooled.index], fontsize=8.5)
    for x, style in ((1, "-"), (2, ":"), (5, ":"), (10, ":")):
        ax.axvline(x, color="0.7", lw=0.8, ls=style)
    ax.set_xlabel("Efficiency Index (TP + TN) / (FP + FN), 95% interval; dotted: 2, 5, 10")
    ax.grid(axis="x", color="0.94", which="both")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def plot_mlc(trajectories: pd.DataFrame, classes: pd.DataFrame | None = None, *, ax: Any = None):
    """Running MLC of each class's adaptive test against the cases presented (the MLC paper, Fig. 8).

    Parameters
    ----------
    trajectories : DataFrame
        The running MLC of each class's test.
    classes : DataFrame, optional
        The final MLC of each class.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes or None
        None when ``trajectories`` lacks the ``mlc`` or ``class`` column.
    """
    if "mlc" not in trajectories.columns or "class" not in trajectories.columns:
        return None
    ax = report_axes(ax, 7.0, 3.4)
    for k, (name, f) in enumerate(trajectories.groupby("class", sort=False)):
        label = f"class {name}"
        if classes is not None and name in classes.index and "label" in classes.columns:
            label += f" ({classes.loc[name, 'label']})"
        x = f["L"].to_numpy(float) if "L" in f.columns else np.arange(1, len(f) + 1)
        (line,) = ax.plot(x, f["mlc"].to_numpy(float), marker="o", ms=3, label=label)
        if classes is not None and name in classes.index:
            ax.axhline(float(classes.loc[name, "mlc"]), color=line.get_color(), lw=0.8, ls=":")
    ax.set_xlabel("cases presented (L)")
    ax.set_ylabel("running MLC")
    ax.grid(color="0.93")
    ax.legend(frameon=False, fontsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def _cmap(name: str):
    return matplotlib.colormaps[name]


def figures(evaluation: Evaluation) -> dict[str, str]:
    """Every figure of the page as a ``data:`` URI, by name (a figure that cannot be drawn is left out).

    Parameters
    ----------
    evaluation : Evaluation
        The evaluation.

    Returns
    -------
    dict of str to str
        Figure name -> ``data:`` URI.
    """
    ev = evaluation
    makers: list[tuple[str, Callable[[], Any]]] = [
        ("ranking", lambda: plot_ranking(ev.ratings)),
        ("history", lambda: plot_rating_history(ev.history, ev.ratings)),
        ("true_scores", lambda: plot_true_score_shares(ev.true_scores, {d.name: len(d.items) for d in ev.ok},
                                                       list(ev.ratings.index))),
        # wider with many respondents, so the rank axis stays legible
        ("cd", lambda: ev.nemenyi.plot(width=max(7.5, 0.24 * len(ev.nemenyi.average_ranks))) if ev.nemenyi is not None else None),
        ("datasets", lambda: plot_dataset_map(ev.diagnostics)),
        ("instances", lambda: plot_instances(ev.instances)),
        ("ei", lambda: plot_ei(ev.ei_pooled) if len(ev.ei_pooled) else None),
        ("mlc", lambda: plot_mlc(ev.mlc.trajectories, ev.mlc.classes)
         if ev.mlc is not None and isinstance(ev.mlc.trajectories, pd.DataFrame) else None),
    ]
    return embed_figures(makers)


def embed_figures(makers: Sequence[tuple[str, Callable[[], Any]]], what: str = "report figures") -> dict[str, str]:
    """Draw each ``(name, maker)`` and embed it as a ``data:`` URI; a maker returning None is skipped, one that
    fails is left out, with one warning naming every figure left out (a figure is a by-product).

    Parameters
    ----------
    makers : sequence of (str, callable)
        Figure name and a function of no argument that draws it.
    what : str, default "report figures"
        What the warning calls them.

    Returns
    -------
    dict of str to str
        Figure name -> ``data:`` URI.
    """
    out: dict[str, str] = {}
    failed = []
    for name, make in makers:
        try:
            fig = make()
        except Exception as exc:  # noqa: BLE001 - a figure is a by-product: the page goes on without it
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
            continue
        if fig is not None:
            out[name] = _png(fig)
    if failed:
        warnings.warn(f"{what} left out: " + "; ".join(failed), IrtBridgeWarning, stacklevel=find_stack_level())
    return out
