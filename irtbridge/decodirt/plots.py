"""Figures of the benchmark, after Cardoso et al. (decodIRT): item characteristic curves (Fig. 1), dataset difficulty vs
discrimination (Figs. 7-8), True-Scores per respondent (Fig. 9), ranking across rating periods as a
bump chart (Figs. 12-13) and final ratings with their 95% intervals (Tables 5-9).

Every function follows the package convention (:mod:`irtbridge._plotting`): ``ax=`` to draw into given
Axes, the Axes drawn on returned (pyplot is imported only when a new figure is made).
"""

from __future__ import annotations

from typing import Any, Sequence

import matplotlib
import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Int, constraints
from irtbridge._plotting import panel_axes, single_axes
from irtbridge._validation import check_int
from irtbridge.exceptions import ValidationError

__all__ = [
    "plot_item_curves",
    "plot_dataset_parameters",
    "plot_parameter_bins",
    "plot_true_scores",
    "plot_bump",
    "plot_ratings",
]

_BASELINE_COLORS = {"optimal": "tab:green", "pessimal": "tab:red"}


def _items_table(items: Any) -> pd.DataFrame:
    table = getattr(items, "items", items)
    if not isinstance(table, pd.DataFrame) or not {"a", "b"} <= set(table.columns):
        raise ValidationError("items must be a DatasetResult, a calibration or a DataFrame with columns a, b (g, u)")
    if table.empty:
        raise ValidationError("items is empty: the dataset has no calibrated items")
    return table


@constraints(n=Int(low=1))
def plot_item_curves(
    items: Any,
    names: Sequence[str] | None = None,
    *,
    n: int = 8,
    theta: tuple[float, float] = (-4.0, 4.0),
    ax: Any = None,
    title: str | None = None,
):
    """Item characteristic curves P(theta) of some items of a dataset.

    Parameters
    ----------
    items : DatasetResult, Calibration or pandas.DataFrame
        3PL item parameters (columns ``a, b, g``; ``u`` = 1 if absent).
    names : sequence of str, optional
        Items to draw; default: ``n`` items spread over the range of difficulty, plus the most negatively
        discriminating item when there is one (drawn dashed).
    n : int, default 8
    theta : (float, float), default (-4, 4)
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    P(theta) = g + (u - g) / (1 + exp(-a (theta - b))) (Cardoso et al., decodIRT, Eq. 1).
    """
    table = _items_table(items)
    n = check_int(n, "n", low=1)
    if names is None:
        by_b = table.sort_values("b", kind="mergesort")
        picks = np.unique(np.linspace(0, len(by_b) - 1, min(n, len(by_b))).round().astype(int))
        chosen = list(by_b.index[picks])
        if (table["a"] < 0).any():
            worst = table["a"].idxmin()
            if worst not in chosen:
                chosen.append(worst)
    else:
        chosen = list(names)
        unknown = [c for c in chosen if c not in table.index]
        if unknown:
            raise ValidationError(f"names {unknown[:5]} are not items of the table")
    grid = np.linspace(theta[0], theta[1], 201)
    ax = single_axes(ax, (7, 4.5))
    for name in chosen:
        row = table.loc[name]
        g = float(row.get("g", 0.0))
        u = float(row.get("u", 1.0))
        with np.errstate(over="ignore"):  # exp overflow is P = g, the right limit
            p = g + (u - g) / (1.0 + np.exp(-float(row["a"]) * (grid - float(row["b"]))))
        ax.plot(grid, p, ls="--" if row["a"] < 0 else "-",
                label=f"{name} (a={row['a']:.2f}, b={row['b']:.2f}, g={g:.2f})")
    ax.set_xlabel("ability θ")
    ax.set_ylabel("P(correct)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="best")
    ax.set_title(title or "Item characteristic curves")
    return ax


@constraints(statistic=Choice(("mean", "median")))
def plot_dataset_parameters(diagnostics: pd.DataFrame, *, ax: Any = None, statistic: str = "mean", title: str | None = None):
    """Mean difficulty (bars) and mean discrimination (line) per dataset, by difficulty (Fig. 7).

    Parameters
    ----------
    diagnostics : pandas.DataFrame
        From :func:`~irtbridge.decodirt.dataset_diagnostics`.
    statistic : {"mean", "median"}, default "mean"
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    if statistic not in ("mean", "median"):
        raise ValidationError(f"statistic={statistic!r} is not supported; use 'mean' or 'median'")
    d = diagnostics.dropna(subset=[f"difficulty_{statistic}"])
    if d.empty:
        raise ValidationError("diagnostics has no calibrated dataset")
    d = d.sort_values(f"difficulty_{statistic}", ascending=False, kind="mergesort")
    new = ax is None
    ax = single_axes(ax, (max(6.0, 0.45 * len(d) + 2), 4.5))
    x = np.arange(len(d))
    ax.bar(x, d[f"difficulty_{statistic}"], color="tab:blue", label=f"{statistic} difficulty")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xticks(x)
    ax.set_xticklabels(d.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(f"{statistic} difficulty b", color="tab:blue")
    ax2 = ax.twinx()
    ax2.plot(x, d[f"discrimination_{statistic}"], color="tab:orange", marker="o", label=f"{statistic} discrimination")
    ax2.set_ylabel(f"{statistic} discrimination a", color="tab:orange")
    ax.set_title(title or "Difficulty and discrimination per dataset (hardest first)")
    if new:
        ax.figure.tight_layout()
    return ax


@constraints(n_bins=Int(low=1))
def plot_parameter_bins(diagnostics: pd.DataFrame, *, n_bins: int = 6, ax: Any = None, title: str | None = None):
    """Datasets in bins of decreasing mean difficulty: mean difficulty and discrimination per bin (Fig. 8).

    Parameters
    ----------
    diagnostics : pandas.DataFrame
        Datasets x diagnostics (:func:`dataset_diagnostics`), with mean difficulty and discrimination.
    n_bins : int, default 6
        The paper's 6 bins of 10 datasets; fewer when there are fewer datasets. Bins are consecutive
        runs of the datasets sorted by decreasing mean difficulty, sizes as equal as possible
        (``numpy.array_split``).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    title : str, optional
        The title; default "Datasets binned by difficulty (Bin 1 hardest)".

    Returns
    -------
    matplotlib.axes.Axes
    """
    n_bins = check_int(n_bins, "n_bins", low=1)
    d = diagnostics.dropna(subset=["difficulty_mean"]).sort_values("difficulty_mean", ascending=False, kind="mergesort")
    if d.empty:
        raise ValidationError("diagnostics has no calibrated dataset")
    bins = [b for b in np.array_split(np.arange(len(d)), min(n_bins, len(d))) if b.size]
    diff = [d["difficulty_mean"].iloc[b].mean() for b in bins]
    disc = [d["discrimination_mean"].iloc[b].mean() for b in bins]
    new = ax is None
    ax = single_axes(ax, (6.5, 4.2))
    x = np.arange(1, len(bins) + 1)
    ax.bar(x, diff, color="tab:blue")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xticks(x)
    ax.set_xticklabels([f"Bin {i}" for i in x])
    ax.set_ylabel("mean difficulty b", color="tab:blue")
    ax2 = ax.twinx()
    ax2.plot(x, disc, color="tab:orange", marker="o")
    ax2.set_ylabel("mean discrimination a", color="tab:orange")
    # trend lines, as in the paper's figure
    if len(x) > 1:
        for y, color, axis in ((diff, "tab:blue", ax), (disc, "tab:orange", ax2)):
            slope, icept = np.polyfit(x, y, 1)
            axis.plot(x, icept + slope * x, ls=":", color=color)
    ax.set_title(title or "Datasets binned by difficulty (Bin 1 hardest)")
    if new:
        ax.figure.tight_layout()
    return ax


def plot_true_scores(result: Any, *, ax: Any = None, title: str | None = None):
    """True-Score of every respondent on one dataset: all items vs positively discriminating items (Fig. 9).

    Parameters
    ----------
    result : DatasetResult or pandas.DataFrame
        A dataset's result, or its ``respondents`` table (columns ``true_score``,
        ``true_score_positive``).
    ax : matplotlib Axes or sequence of them, optional
        One Axes per panel (all items; positively discriminating items when that score exists).
    title : str, optional

    Returns
    -------
    numpy.ndarray of matplotlib Axes
        One per panel.
    """
    table = getattr(result, "respondents", result)
    name = getattr(result, "name", "")
    if not isinstance(table, pd.DataFrame) or "true_score" not in table.columns:
        raise ValidationError("result must be a DatasetResult or a respondents table with a true_score column")
    if table["true_score"].isna().all():
        raise ValidationError(f"dataset {name!r} has no True-Scores (its calibration failed)")
    cols = [c for c in ("true_score", "true_score_positive") if c in table.columns and table[c].notna().any()]
    new = ax is None
    axes = panel_axes(ax, len(cols), (5.5 * len(cols), max(3.5, 0.22 * len(table) + 1)))
    labels = {"true_score": "all items", "true_score_positive": "items with a > 0"}
    for ax, col in zip(axes, cols):
        s = table[col].sort_values(kind="mergesort")
        colors = [_BASELINE_COLORS.get(str(i), "tab:gray" if str(i).startswith(("majority", "minority", "rand")) else "tab:blue")
                  for i in s.index]
        ax.barh(np.arange(len(s)), s.to_numpy(), color=colors)
        ax.set_yticks(np.arange(len(s)))
        ax.set_yticklabels(s.index, fontsize=7)
        ax.set_xlabel("True-Score")
        ax.set_title(labels[col])
    axes[0].figure.suptitle(title or f"True-Scores{' on ' + name if name else ''}")
    if new:
        axes[0].figure.tight_layout()
    return axes


@constraints(label_every=Int(low=0, allow_none=True))
def plot_bump(tournament: Any, *, ax: Any = None, label_every: int | None = None, title: str | None = None):
    """Rank of every respondent after each rating period (Figs. 12-13).

    Parameters
    ----------
    tournament : TournamentResult
    ax : matplotlib Axes, optional
    label_every : int, optional
        Label every k-th period on the x axis (default: all up to 30 periods).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per respondent (x = period, y = rank, 1 at the top); optimal green, pessimal red.
    """
    history = getattr(tournament, "history", None)
    if not isinstance(history, pd.DataFrame) or "rank" not in history.columns:
        raise ValidationError("tournament must be a TournamentResult")
    ranks = history.pivot(index="period", columns="player", values="rank").sort_index()
    datasets = history.drop_duplicates("period").set_index("period")["dataset"].reindex(ranks.index)
    n_players = ranks.shape[1]
    new = ax is None
    ax = single_axes(ax, (max(7.0, 0.5 * len(ranks) + 3), max(4.5, 0.28 * n_players + 1)))
    cmap = matplotlib.colormaps["tab20"]
    final = ranks.iloc[-1].sort_values(kind="mergesort")
    for k, player in enumerate(final.index):
        color = _BASELINE_COLORS.get(str(player), cmap(k % 20))
        lw = 2.5 if str(player) in _BASELINE_COLORS else 1.3
        ax.plot(ranks.index, ranks[player], marker="o", ms=3, lw=lw, color=color)
        ax.text(ranks.index[-1] + 0.15, final[player], str(player), va="center", fontsize=7, color=color)
    ax.invert_yaxis()
    step = label_every or max(1, int(np.ceil(len(ranks) / 30)))
    ticks = ranks.index[::step]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{p}: {datasets[p]}" for p in ticks], rotation=60, ha="right", fontsize=7)
    ax.set_xlim(ranks.index[0] - 0.3, ranks.index[-1] + 2.0)
    ax.set_ylabel("rank")
    ax.set_title(title or f"Ranking across rating periods ({getattr(tournament, 'name', '')})")
    if new:
        ax.figure.tight_layout()
    return ax


def plot_ratings(tournament: Any, *, ax: Any = None, title: str | None = None):
    """Final Glicko-2 ratings with their 95% intervals (rating +/- 2 RD), best on top.

    Parameters
    ----------
    tournament : TournamentResult
        The tournament whose final ratings are drawn.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    title : str, optional
        The title; default "Final ratings (<tournament's name>)".

    Returns
    -------
    matplotlib.axes.Axes
    """
    ratings = getattr(tournament, "ratings", None)
    if not isinstance(ratings, pd.DataFrame):
        raise ValidationError("tournament must be a TournamentResult")
    r = ratings.iloc[::-1]
    new = ax is None
    ax = single_axes(ax, (6.5, max(3.5, 0.25 * len(r) + 1)))
    y = np.arange(len(r))
    colors = [_BASELINE_COLORS.get(str(p), "tab:blue") for p in r["player"]]
    ax.errorbar(r["rating"], y, xerr=2 * r["rd"], fmt="none", ecolor="lightgray", elinewidth=3)
    ax.scatter(r["rating"], y, c=colors, zorder=3, s=18)
    ax.set_yticks(y)
    ax.set_yticklabels(r["player"], fontsize=7)
    ax.axvline(1500, color="black", lw=0.5, ls=":")
    ax.set_xlabel("Glicko-2 rating (± 2 RD)")
    ax.set_title(title or f"Final ratings ({getattr(tournament, 'name', '')})")
    if new:
        ax.figure.tight_layout()
    return ax
