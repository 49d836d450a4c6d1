"""The MLC paper's figures (Figs. 4-9) from an :class:`~irtbridge.mlc.MLCResult`.

Every function follows the package convention (:mod:`irtbridge._plotting`): ``ax=`` to draw into given
Axes (two for the two-panel figures), the Axes drawn on returned.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from irtbridge._constraints import Int, constraints
from irtbridge._plotting import panel_axes, single_axes
from irtbridge.exceptions import ValidationError
from irtbridge.mlc.result import MLCResult

__all__ = ["plot_cdi_distributions", "plot_difficulty_kde", "plot_accuracy_by_cdi", "plot_cat_trajectories",
           "plot_mlc_plane"]

_COLORS = {1: "#c0392b", 0: "#2471a3"}


def _name(result: MLCResult, k: int) -> str:
    for value, code in result.class_labels.items():
        if code == k:
            return str(value)
    return str(k)


def _finish(axes: np.ndarray, title: str | None, new: bool) -> np.ndarray:
    fig = axes[0].figure
    if title:
        fig.suptitle(title)
    if new:
        fig.tight_layout()
    return axes


def plot_cdi_distributions(result: MLCResult, title: str | None = None, *, ax: Any = None) -> np.ndarray:
    """CDI distribution of all cases in 0.25-sigma bins (a) and by class as violins (b) -- Figs. 4-5.

    Returns the two Axes (``ax=``: two Axes to draw into).

    Parameters
    ----------
    result : MLCResult
        The evaluation.
    title : str, optional
        A title over the figure.
    ax : sequence of two matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    ndarray of matplotlib Axes
        The two Axes.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.mlc import MLCResult
    >>> rng = np.random.default_rng(0)
    >>> cases = pd.DataFrame({"cdi": rng.normal(size=40), "y": np.repeat([0, 1], 20)})
    >>> res = MLCResult(classes=(), traditional=pd.DataFrame(), cases=cases, orientation=pd.DataFrame(),
    ...                 class_labels={"no": 0, "yes": 1})
    >>> [a.get_title() for a in plot_cdi_distributions(res)]
    ['(a) all cases, bins of 0.25 sd', '(b) by class']
    """
    new = ax is None
    ax1, ax2 = axes = panel_axes(ax, 2, (11, 4))
    cases = result.cases
    width = result.settings.get("bin_width", 0.25) * float(np.std(cases["cdi"], ddof=1))
    lo, hi = np.floor(cases["cdi"].min() / width - 0.5), np.ceil(cases["cdi"].max() / width + 0.5)
    edges = (np.arange(lo, hi + 1) - 0.5) * width
    ax1.hist(cases["cdi"], bins=edges, color="0.55", edgecolor="white")
    ax1.set(xlabel="CDI", ylabel="cases", title="(a) all cases, bins of 0.25 sd")
    data = [cases.loc[cases["y"] == k, "cdi"].to_numpy() for k in (0, 1)]
    parts = ax2.violinplot(data, positions=[0, 1], showmedians=True)
    for body, k in zip(parts["bodies"], (0, 1)):
        body.set_facecolor(_COLORS[k])
    ax2.set_xticks([0, 1], [f"class 0 ({_name(result, 0)})", f"class 1 ({_name(result, 1)})"])
    ax2.set(ylabel="CDI", title="(b) by class")
    return _finish(axes, title, new)


def plot_difficulty_kde(result: MLCResult, title: str | None = None, *, ax: Any = None):
    """Kernel density of case difficulty by class, class 1 negated -- Fig. 6. Returns the Axes.

    Parameters
    ----------
    result : MLCResult
        The evaluation.
    title : str, optional
        The Axes' title; default "difficulty by class".
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    from scipy import stats  # loads with its use, not with the CLI's parser (~0.4 s)

    new = ax is None
    ax = single_axes(ax, (6, 4))
    cases = result.cases
    grid = np.linspace(cases["difficulty"].min() - 0.5, cases["difficulty"].max() + 0.5, 300)
    for k in (0, 1):
        values = cases.loc[cases["y"] == k, "difficulty"].to_numpy()
        if values.size > 1 and np.std(values) > 0:
            ax.plot(grid, stats.gaussian_kde(values)(grid), color=_COLORS[k], label=f"class {k} ({_name(result, k)})")
            ax.axvline(result.mlc[k], color=_COLORS[k], ls=":", lw=1)
    ax.set(xlabel="case difficulty (CDI, class 1 negated)", ylabel="density", title=title or "difficulty by class")
    ax.legend()
    return _finish(np.array([ax]), None, new)[0]


@constraints(min_cases=Int(low=1))
def plot_accuracy_by_cdi(result: MLCResult, title: str | None = None, min_cases: int = 3, *, ax: Any = None):
    """Accuracy of the test cases against CDI, by class (before negation) -- Fig. 7. Returns the Axes.

    Parameters
    ----------
    result : MLCResult
        The evaluation.
    title : str, optional
        The Axes' title; default "accuracy vs CDI".
    min_cases : int, default 3
        CDI bins with fewer test cases are left out.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    new = ax is None
    ax = single_axes(ax, (6, 4))
    table = result.accuracy_by_cdi()
    for k in (0, 1):
        part = table[(table["class"] == k) & (table["n"] >= min_cases)]
        ax.plot(part["cdi"], part["accuracy"], "o-", color=_COLORS[k], label=f"class {k} ({_name(result, k)})")
    ax.set(xlabel="CDI (bin centre)", ylabel="accuracy", ylim=(-0.02, 1.02), title=title or "accuracy vs CDI")
    ax.legend()
    return _finish(np.array([ax]), None, new)[0]


def plot_cat_trajectories(result: MLCResult, title: str | None = None, *, ax: Any = None) -> np.ndarray:
    """The CAT of each class: presented difficulties (right/wrong), the running MLC and its asymptote -- Fig. 8.

    Returns one Axes per class CAT (``ax=``: as many Axes to draw into).

    Parameters
    ----------
    result : MLCResult
        The evaluation.
    title : str, optional
        A title over the figure.
    ax : sequence of matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    ndarray of matplotlib Axes
        One per class CAT.
    """
    new = ax is None
    axes = panel_axes(ax, len(result.classes), (11, 4), sharey=True)
    for ax, cat in zip(axes, result.classes):
        t = cat.trajectory
        ok = t["correct"].to_numpy(dtype=bool)
        ax.plot(t.index, t["difficulty"], color="0.6", lw=0.8)
        ax.plot(t.index[ok], t["difficulty"][ok], "o", color="#27ae60", label="classified right")
        ax.plot(t.index[~ok], t["difficulty"][~ok], "x", color="#c0392b", label="classified wrong")
        ax.plot(t.index, t["mlc"], color=_COLORS[cat.label], lw=2, label="running MLC")
        ax.axhline(cat.mlc, color=_COLORS[cat.label], ls="--", lw=1, label=f"MLC {cat.mlc:.2f}")
        flag = "" if cat.converged else f" (not converged: {cat.stop})"
        ax.set(xlabel="cases presented (L)", title=f"class {cat.label} ({_name(result, cat.label)}){flag}")
    axes[0].set_ylabel("case difficulty")
    axes[0].legend(fontsize=8)
    return _finish(axes, title, new)


def plot_mlc_plane(results: Mapping[str, MLCResult], title: str | None = None, *, ax: Any = None):
    """The MLC of class 1 (x) against class 0 (y) for several models or datasets -- Fig. 9. Returns the Axes.

    Parameters
    ----------
    results : mapping of str to MLCResult
        Label -> evaluation.
    title : str, optional
        The Axes' title; default "Machine Learning Capability".
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    if not results:
        raise ValidationError("results is empty; pass {name: MLCResult}")
    new = ax is None
    ax = single_axes(ax, (5, 5))
    for name, res in results.items():
        x, y = res.mlc[1], res.mlc[0]
        ax.plot(x, y, "o", ms=8)
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(6, 6))
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set(xlabel="MLC, class 1", ylabel="MLC, class 0", title=title or "Machine Learning Capability")
    return _finish(np.array([ax]), None, new)[0]
