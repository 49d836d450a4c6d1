"""Performance against dataset easiness (the latent trait analysis) and the algorithm characteristics.

Part of the portfolio evaluation of :mod:`irtbridge.portfolio` (Kandanaarachchi & Smith-Miles 2020).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, Number, constraints
from irtbridge._summary import Line, Summary
from irtbridge._validation import check_int, check_number
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.portfolio._checks import performance_matrix
from irtbridge.portfolio.spline import PenalizedSpline, penalized_spline

__all__ = ["LatentTraitAnalysis", "latent_trait_analysis", "algorithm_characteristics"]


# --------------------------------------------------------------------------------------------------
# Latent trait analysis
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LatentTraitAnalysis:
    """Performance against dataset easiness: smoothed curves, strengths, weaknesses and occupancy.

    Attributes
    ----------
    easiness : Series
        Each dataset's latent trait (higher = easier).
    curves : DataFrame
        Each algorithm's smoothed performance (columns) on an evenly spaced easiness grid (index).
    splines : dict
        The fitted :class:`~irtbridge.portfolio.spline.PenalizedSpline` of each algorithm.
    strengths, weaknesses : DataFrame of bool
        On the grid, whether each algorithm is within ``epsilon`` of the best (lowest) curve.
    occupancy : DataFrame
        Columns ``algorithm`` and ``proportion``: the share of datasets whose nearest grid point has the
        algorithm among the best, for the algorithms with a share > 0, largest first. Shares can add up to
        more than 1 when ``epsilon`` lets several algorithms tie.
    weakness_occupancy : DataFrame
        The same for the weaknesses.
    epsilon : float
    """

    easiness: pd.Series
    curves: pd.DataFrame
    splines: Mapping[str, PenalizedSpline] = field(repr=False)
    strengths: pd.DataFrame = field(repr=False)
    weaknesses: pd.DataFrame = field(repr=False)
    occupancy: pd.DataFrame = field(repr=False)
    weakness_occupancy: pd.DataFrame = field(repr=False)
    epsilon: float = 0.0

    @property
    def grid(self) -> np.ndarray:
        """The easiness grid of the curves (their index)."""
        return self.curves.index.to_numpy()

    def __repr__(self) -> str:
        return (f"LatentTraitAnalysis(datasets={len(self.easiness)}, algorithms={self.curves.shape[1]}, "
                f"epsilon={self.epsilon:g})")

    def summary(self) -> Summary:
        """The occupancy of strengths and weaknesses, from the stored numbers.

        Returns
        -------
        Summary
            The analysis' summary.
        """
        lines = (Line.of("size", f"{len(self.easiness)} datasets, {self.curves.shape[1]} algorithms, "
                                 f"epsilon {self.epsilon:g}"),)
        return Summary("latent trait analysis (strengths and weaknesses over dataset easiness)", lines,
                       (("strengths: share of datasets", self.occupancy),
                        ("weaknesses: share of datasets", self.weakness_occupancy)),
                       data={"epsilon": self.epsilon, "occupancy": self.occupancy})

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _occupancy(marks: pd.DataFrame, nearest: np.ndarray) -> pd.DataFrame:
    share = marks.to_numpy()[nearest].mean(axis=0)
    table = pd.DataFrame({"algorithm": list(marks.columns), "proportion": share})
    table = table[table["proportion"] > 0]
    return table.sort_values("proportion", ascending=False, kind="stable").reset_index(drop=True)


@constraints(epsilon=Number(low=0.0), n_grid=Int(low=2), k=Int(low=3))
def latent_trait_analysis(
    performance: Any,
    easiness: Any,
    *,
    epsilon: float = 0.0,
    n_grid: int = 80,
    k: int = 10,
    smoothing: str = "REML",
    shrink: float | None = 0.1,
) -> LatentTraitAnalysis:
    """Smooth each algorithm's performance against dataset easiness; find strengths, weaknesses, occupancy.

    Parameters
    ----------
    performance : DataFrame or 2-D array
        Datasets x algorithms (higher is better).
    easiness : array-like or Series
        One latent trait per dataset (e.g. ``evaluation.datasets["easiness"]``).
    epsilon : float
        An algorithm is strong where its curve is within ``epsilon`` of the best curve, weak where within
        ``epsilon`` of the worst (airt's ``epsilon``; the seed uses 0).
    n_grid : int
        Grid points along easiness (ggplot2's ``geom_smooth`` evaluates at 80).
    k : int, default 10
    smoothing : str, default "REML"
    shrink : float or None, default 0.1
        The spline (see :func:`~irtbridge.portfolio.spline.penalized_spline`); the defaults are airt's
        ``geom_smooth(method = "gam", formula = y ~ s(x, bs = "cs"))`` with REML. With fewer than ``k``
        distinct easiness values, ``k`` drops to their number (with a :class:`DataWarning`).

    Returns
    -------
    LatentTraitAnalysis

    Notes
    -----
    On the grid ``g_1 < ... < g_G`` (evenly spaced over the range of easiness) the strengths are
    ``S_j(g) = [f_j(g) >= max_l f_l(g) - epsilon]`` and the weaknesses ``W_j(g) = [f_j(g) <= min_l f_l(g) +
    epsilon]``. Each dataset belongs to its nearest grid point (R's ``hist`` with breaks at the midpoints);
    the occupancy of algorithm ``j`` is the share of datasets whose grid point has ``S_j``. This is airt's
    ``latent_trait_analysis(df, paras, min_item, max_item, epsilon)$strengths$proportions``, with the axis
    being easiness (airt 0.2.2 plots ``-theta``, the mirror image; shares are unchanged).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(-2, 2, 40)
    >>> perf = np.column_stack([0.5 + 0.1 * x, 0.5 - 0.1 * x])
    >>> lta = latent_trait_analysis(perf, x)
    >>> lta.occupancy["proportion"].tolist()
    [0.5, 0.5]
    """
    values, names, index = performance_matrix(performance)
    if isinstance(easiness, pd.Series):
        theta = easiness.to_numpy(dtype=float)
        index = easiness.index if index is None else index
    else:
        try:
            theta = np.asarray(easiness, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValidationError("easiness must be numeric") from None
    if theta.size != values.shape[0]:
        raise ValidationError(f"easiness has {theta.size} value(s) for {values.shape[0]} datasets")
    if not np.isfinite(theta).all():
        raise ValidationError("easiness must be finite")
    epsilon = check_number(epsilon, "epsilon", low=0.0)
    n_grid = check_int(n_grid, "n_grid", low=2)
    k = check_int(k, "k", low=3)
    distinct = np.unique(theta).size
    if distinct < k:
        if distinct < 3:
            raise ValidationError(f"easiness takes only {distinct} distinct value(s); a smoothing spline needs 3")
        # few distinct response patterns (e.g. a polytomous model with few algorithms): a smaller basis
        warnings.warn(f"easiness takes only {distinct} distinct values; the splines use k={distinct} knots "
                      f"instead of {k}", DataWarning, stacklevel=find_stack_level())
        k = distinct
    grid = np.linspace(theta.min(), theta.max(), n_grid)
    splines = {name: penalized_spline(theta, values[:, j], k, method=smoothing, shrink=shrink)
               for j, name in enumerate(names)}
    curves = np.column_stack([splines[name](grid) for name in names])
    best = curves >= curves.max(axis=1, keepdims=True) - epsilon
    worst = curves <= curves.min(axis=1, keepdims=True) + epsilon
    # R's hist(): breaks halfway between grid points, half a step beyond both ends, intervals (a, b]
    step = grid[1] - grid[0]
    ext = np.concatenate([[grid[0] - step], grid, [grid[-1] + step]])
    breaks = ext[:-1] + np.diff(ext) / 2.0
    nearest = np.clip(np.searchsorted(breaks, theta, side="left") - 1, 0, n_grid - 1)
    grid_index = pd.Index(grid, name="easiness")
    strengths = pd.DataFrame(best, index=grid_index, columns=names)
    weaknesses = pd.DataFrame(worst, index=grid_index, columns=names)
    return LatentTraitAnalysis(
        easiness=pd.Series(theta, index=index if index is not None else pd.RangeIndex(theta.size), name="easiness"),
        curves=pd.DataFrame(curves, index=grid_index, columns=names),
        splines=splines,
        strengths=strengths,
        weaknesses=weaknesses,
        occupancy=_occupancy(strengths, nearest),
        weakness_occupancy=_occupancy(weaknesses, nearest),
        epsilon=epsilon,
    )


# --------------------------------------------------------------------------------------------------
# Algorithm characteristics
# --------------------------------------------------------------------------------------------------


def algorithm_characteristics(discrimination: Any, difficulty: Any = None) -> pd.DataFrame:
    """Anomalousness, stability and difficulty limit of each algorithm from its IRT parameters.

    Parameters
    ----------
    discrimination : Series or array-like
        ``a_j`` per algorithm.
    difficulty : Series or array-like, optional
        ``b_j`` per algorithm (CRM difficulty, or the last threshold of a polytomous item).

    Returns
    -------
    DataFrame with columns ``discrimination``, ``anomalous`` (``a_j < 0``: the algorithm does well on the
    datasets the others find hard), ``stability`` (``1 / |a_j|``: large for smooth trace lines),
    ``stability_gap`` (``K - |a_j|``, ``K = max_l |a_l|``) and ``difficulty_limit`` (``-b_j``).

    Notes
    -----
    The seed's text defines stability as ``K - |a_j|`` but prints ``1 / |a_j|`` (QDA 2.85, RBF_SVM 0.070),
    which is also what airt computes (``cirtmodel()$consistency``); ``stability`` is the printed one and
    ``stability_gap`` the text's.

    Examples
    --------
    >>> algorithm_characteristics([2.0, -0.5])[["anomalous", "stability", "stability_gap"]].values.tolist()
    [[False, 0.5, 0.0], [True, 2.0, 1.5]]
    """
    names = list(discrimination.index) if isinstance(discrimination, pd.Series) else None
    a = np.asarray(discrimination, dtype=float).ravel()
    with np.errstate(divide="ignore"):
        stability = 1.0 / np.abs(a)
    table = pd.DataFrame(
        {
            "discrimination": a,
            "anomalous": a < 0,
            "stability": stability,
            "stability_gap": np.abs(a).max() - np.abs(a),
            "difficulty_limit": -np.asarray(difficulty, dtype=float).ravel() if difficulty is not None else np.nan,
        },
        index=names,
    )
    table.index.name = "algorithm"
    return table
