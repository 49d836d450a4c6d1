"""The numbers behind a leaderboard report: accuracy intervals, item flags, saturation, test information.

Pure numpy on a response matrix ``X`` (models x items, 1 right, 0 wrong, NaN unanswered) and, where a
2PL was fitted, its item table (``a``, ``b``). :mod:`irtbridge.leaderboard.report` puts them together.

* **Accuracy intervals.** A model that answered every item gets its observed accuracy with the Wilson
  score interval (Wilson 1927), which treats the items as a sample from a larger pool of similar items. A
  model with unanswered items gets its predicted accuracy on all items: the answered items as observed,
  each unanswered one predicted by the 2PL at the model's ability, averaged over its posterior (p-IRT,
  tinyBenchmarks, Maia Polo et al. 2024), with the posterior spread of that prediction and the Bernoulli
  variance of the unseen answers (:func:`irtbridge.leaderboard.performance.estimate_performance`'s formula).
* **Predicted accuracy, made comparable.** That spread alone is about these items only, and is zero for a
  model whose only unanswered items are left out of the 2PL if each is filled in with its share right (an
  item answered by one other model: that one answer), which gave "0.867 [0.867, 0.867]". Such an item's
  unseen answer carries the Bernoulli variance of its Jeffreys-smoothed share right, and
  :func:`predicted_interval` puts the item-sampling uncertainty back: Wilson's interval for the predicted
  accuracy on all items, widened by the prediction's spread with the MOVER rule (Zou & Donner 2008,
  "Construction of confidence limits about effect measures"), so it is never narrower than Wilson's interval
  on as many items, and observed and predicted accuracies in one ranking estimate the same thing.
* **Connectivity** (:func:`connected_groups`): models and items are the nodes of a bipartite graph, an answer
  an edge. Models in two components share no item (nor a chain of items and models), so nothing puts their
  abilities on one scale; the report ranks each component on its own.
* **Items that look mis-keyed or broken** (Rodriguez et al. 2021, "Evaluation Examples Are Not Equally
  Informative"): answered right by every model, wrong by every model (both carry no information about who is
  better), or with negative discrimination (better models fail it more often: a wrong key is the usual cause).
* **Saturation**: the share of items every one of the top models solves, and how close the best model is to
  the ceiling (1, and the share of items at least one model solves).
* **Test information** ``I(theta) = sum_j a_j^2 P_j (1 - P_j)`` of the 2PL: where on the ability scale the
  benchmark still separates models.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from irtbridge._ties import stable_argsort, tie_greater
from irtbridge.exceptions import DataWarning, find_stack_level

__all__ = ["wilson_interval", "predicted_interval", "connected_groups", "item_statistics", "saturation",
           "information_curve", "informative_range", "task_breakdown", "Z95", "MIN_ITEMS", "MIN_MODELS",
           "few_below", "describe_groups", "model_marks"]

Z95 = 1.959963984540054
_CHUNK = 2048  # items per block when a pass over the matrix needs a temporary of its size
#: A model that answered fewer items than this and than half the leaderboard's items is marked: its rank rests
#: on few answers (the 95% Wilson interval at 15 right of 30 is [0.33, 0.67]).
MIN_ITEMS = 30
#: An item answered by fewer models than this and than half the leaderboard's models (and by 2 or more) is
#: flagged "few answers": its difficulty and discrimination rest on a handful of answers.
MIN_MODELS = 5


def few_below(minimum: int, total: int) -> float:
    """The count below which a model's answers (an item's answers) are few: ``min(minimum, total / 2)``.

    Parameters
    ----------
    minimum : int
        :data:`MIN_ITEMS` or :data:`MIN_MODELS` (or the caller's own).
    total : int
        The leaderboard's items (models).

    Returns
    -------
    float
        Fewer than this is few.

    Examples
    --------
    >>> few_below(30, 1000), few_below(30, 28)
    (30, 14.0)
    """
    return min(minimum, total / 2)


def wilson_interval(correct: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of ``correct`` successes in ``n`` trials (NaN where ``n`` is 0).

    Parameters
    ----------
    correct, n : int or array
        Successes and trials (broadcast together).
    z : float
        The normal quantile (default: 95%).

    Returns
    -------
    (lower, upper) : arrays
        ``(p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``p = correct / n`` (Wilson 1927).

    Examples
    --------
    >>> lo, hi = wilson_interval(8, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4902, 0.9433)
    """
    k = np.asarray(correct, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1.0 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def predicted_interval(accuracy: Any, sd: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The 95% interval of a predicted accuracy on ``n`` items: Wilson's interval at ``accuracy * n`` successes,
    each side widened by the prediction's spread ``sd`` (MOVER: Zou & Donner 2008).

    Parameters
    ----------
    accuracy : float or array
        The predicted accuracy on all ``n`` items (answered ones observed, the others predicted).
    sd : float or array
        The prediction's standard deviation (on the accuracy scale).
    n : int or array
        The number of items.
    z : float
        The normal quantile (default: 95%).

    Returns
    -------
    (lower, upper) : arrays
        ``accuracy -/+ sqrt(d^2 + (z sd)^2)`` with ``d`` the distance from ``accuracy`` to Wilson's lower (upper)
        limit; clipped to [0, 1]. Never of width zero for ``n >= 1``: Wilson's interval never is.

    Examples
    --------
    With no prediction spread it is Wilson's interval:

    >>> [round(float(v), 4) for v in predicted_interval(0.8, 0.0, 10)]
    [0.4902, 0.9433]
    >>> [round(float(v), 4) for v in predicted_interval(1.0, 0.0, 15)]
    [0.7961, 1.0]
    """
    acc = np.asarray(accuracy, dtype=float)
    n = np.asarray(n, dtype=float)
    lo, hi = wilson_interval(acc * n, n, z)
    spread = (z * np.asarray(sd, dtype=float)) ** 2
    return (np.clip(acc - np.sqrt((acc - lo) ** 2 + spread), 0.0, 1.0),
            np.clip(acc + np.sqrt((hi - acc) ** 2 + spread), 0.0, 1.0))


def connected_groups(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The connected components of the model-item graph (an edge for each answered cell).

    Parameters
    ----------
    X : ndarray
        Models x items, 1/0/NaN.

    Returns
    -------
    (model_group, item_group) : arrays of int
        Each model's and each item's component, numbered 0, 1, ... by size (most models first, then most
        items, then first row); an item nobody answered is its own component, numbered after the rest.

    Examples
    --------
    >>> X = np.array([[1, 0, np.nan], [np.nan, np.nan, 1], [0, np.nan, np.nan]])
    >>> connected_groups(X)
    (array([0, 1, 0]), array([0, 0, 1]))
    """
    n_models, n_items = X.shape
    counts = np.zeros(n_items, dtype=np.int64)
    for start in range(0, n_models, _CHUNK):
        counts += (~np.isnan(X[start:start + _CHUNK])).sum(axis=0)
    if (counts == n_models).any() and (counts > 0).all():  # an item every model answered joins them all
        return np.zeros(n_models, dtype=int), np.zeros(n_items, dtype=int)
    # the graph's model -> item edges, a block of rows at a time (int32 indices: about 5 bytes an answer)
    rows = max(1, (1 << 22) // max(n_items, 1))
    counts_per_model, parts = np.zeros(n_models, dtype=np.int64), []
    for start in range(0, n_models, rows):
        mask = ~np.isnan(X[start:start + rows])
        counts_per_model[start:start + len(mask)] = mask.sum(axis=1)
        parts.append((np.nonzero(mask)[1] + n_models).astype(np.int32))
    indices = np.concatenate(parts)
    indptr = np.concatenate([[0], np.cumsum(counts_per_model), np.full(n_items, len(indices))])
    indptr = indptr.astype(np.int32 if len(indices) < np.iinfo(np.int32).max else np.int64)
    graph = csr_matrix((np.ones(len(indices), dtype=bool), indices, indptr), shape=(n_models + n_items,) * 2)
    _, label = connected_components(graph, directed=False)
    models, items = label[:n_models], label[n_models:]
    n_of = np.bincount(models, minlength=label.max() + 1)
    j_of = np.bincount(items, minlength=label.max() + 1)
    first = np.full(label.max() + 1, n_models + n_items)
    np.minimum.at(first, label, np.arange(n_models + n_items))
    order = np.lexsort((first, -j_of, -n_of))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[models], rank[items]


def describe_groups(models: Sequence[str], model_group: np.ndarray, item_group: np.ndarray) -> str:
    """The groups of models that share no item, in a sentence naming the first few models of each.

    Parameters
    ----------
    models : sequence of str
        The models, in the matrix's order.
    model_group, item_group : ndarray of int
        As :func:`connected_groups` returns them.

    Returns
    -------
    str
        The sentence.

    Examples
    --------
    >>> describe_groups(["a", "b", "c"], np.array([0, 1, 0]), np.array([0, 0, 1]))
    'the models fall into 2 groups that share no item: group 1 [a, c] on 2 item(s); group 2 [b] on 1 item(s)'
    """
    parts = []
    for g in range(int(model_group.max()) + 1):
        members = [m for m, k in zip(models, model_group) if k == g]
        shown = ", ".join(members[:4]) + (f", ... ({len(members)} models)" if len(members) > 4 else "")
        parts.append(f"group {g + 1} [{shown}] on {int((item_group == g).sum()):,} item(s)")
    return f"the models fall into {len(parts)} groups that share no item: " + "; ".join(parts)


def _limit_text(limits: Mapping[str, float]) -> str:
    return ", ".join(f"{t or 'all tasks'} (limit {v:g}{' of the documents' if v < 1 else ''})" for t, v in limits.items())


def model_marks(ranking: pd.DataFrame, limits: Mapping[str, Mapping[str, float]] | None, min_items: int,
                n_items: int) -> tuple[list[str], dict[str, Any]]:
    """What a ranking should say beside a model: few items answered, tasks run with ``--limit``; one
    :class:`~irtbridge.exceptions.DataWarning` for each kind.

    Parameters
    ----------
    ranking : DataFrame
        Indexed by model, with ``n_answered``, ``rank`` and ``group``.
    limits : mapping of str to mapping, optional
        Model -> {task: limit} (:attr:`irtbridge.leaderboard.inputs.LeaderboardInput.limits`).
    min_items : int
        A model that answered fewer items than :func:`few_below` ``(min_items, n_items)`` is marked.
    n_items : int
        The leaderboard's items.

    Returns
    -------
    marks : list of str
        One per row of ``ranking`` ("" when none).
    facts : dict
        ``min_items`` (the threshold used), ``few_items`` and ``limited`` (how many models of each kind).

    Examples
    --------
    >>> ranking = pd.DataFrame({"n_answered": [40, 10], "rank": [1, 2], "group": [1, 1]}, index=["m1", "m2"])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the DataWarning naming m2
    ...     marks, facts = model_marks(ranking, {"m1": {"arc": 10.0}}, 30, 40)
    >>> marks, facts["few_items"], facts["limited"]
    (['--limit run: arc (limit 10)', '10 item(s) answered (fewer than 20)'], 1, 1)
    """
    limits = limits or {}
    below = few_below(min_items, n_items)
    few = ranking["n_answered"].to_numpy() < below
    marks = []
    for model, is_few, n in zip(ranking.index, few, ranking["n_answered"]):
        m = [f"{int(n)} item(s) answered (fewer than {below:g})"] if is_few else []
        if model in limits:
            m.append("--limit run: " + _limit_text(limits[model]))
        marks.append("; ".join(m))
    if few.any():
        rows = ranking[few]
        shown = ", ".join(f"{m} ({int(r['n_answered'])} items, rank {int(r['rank'])} in group {int(r['group'])})"
                          for m, r in rows.head(5).iterrows())
        warnings.warn(f"{len(rows)} model(s) answered fewer than {below:g} items, so their ranks rest on few answers "
                      f"(marked in the ranking): {shown}{', ...' if len(rows) > 5 else ''}", DataWarning,
                      stacklevel=find_stack_level())
    if limits:
        shown = "; ".join(f"{m}: {_limit_text(v)}" for m, v in list(limits.items())[:5])
        warnings.warn(f"{len(limits)} model(s) were run with lm-evaluation-harness's --limit: those tasks' scores are on "
                      f"their first documents only, not the whole task (marked in the ranking): {shown}"
                      f"{'; ...' if len(limits) > 5 else ''}", DataWarning, stacklevel=find_stack_level())
    return marks, {"min_items": below, "few_items": int(few.sum()), "limited": len(limits)}


def _rest_correlation(X: np.ndarray, answered: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Per item, over the models that answered it: the correlation of its score with the model's accuracy on
    its other answered items (the item-rest point-biserial; NaN when either side is constant)."""
    n_items = X.shape[1]
    total_right = right.sum(axis=1, dtype=float)[:, None]
    total_answered = answered.sum(axis=1, dtype=float)[:, None]
    out = np.full(n_items, np.nan)
    for start in range(0, n_items, _CHUNK):
        sl = slice(start, min(start + _CHUNK, n_items))
        m = answered[:, sl]
        x = np.where(m, right[:, sl], 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            rest = (total_right - x) / (total_answered - m)
        ok = m & np.isfinite(rest)
        w = ok.astype(float)
        n = w.sum(axis=0)
        rest = np.where(ok, rest, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            mx, mr = (w * x).sum(axis=0) / n, (w * rest).sum(axis=0) / n
            cov = (w * (x - mx) * (rest - mr)).sum(axis=0)
            vx = (w * (x - mx) ** 2).sum(axis=0)
            vr = (w * (rest - mr) ** 2).sum(axis=0)
            r = cov / np.sqrt(vx * vr)
        out[sl] = np.where((vx > 0) & (vr > 0), r, np.nan)
    return out


def item_statistics(X: np.ndarray, names: Any, params: pd.DataFrame | None,
                    tasks: Mapping[str, str] | None = None, min_models: int = MIN_MODELS) -> pd.DataFrame:
    """One row per item: answers, share right, item-rest correlation, the 2PL's ``a`` and ``b``, the flags.

    ``flag`` is one of ``"everyone right"``, ``"everyone wrong"`` (answered by at least two models, all of
    them right, or all wrong), ``"negative discrimination"`` (``a < 0`` in the sign-fixed 2PL),
    ``"few answers"`` (answered by 2 or more models but fewer than ``min_models`` and than half the models:
    :func:`few_below`; boolean column ``few_answers``), ``"answered once"`` (one answer says nothing about the item) or ``""``.

    Parameters
    ----------
    X : ndarray
        Models x items, 1/0/NaN.
    names : sequence of str
        The items.
    params : DataFrame or None
        The 2PL's ``a`` and ``b`` per item, or None without a calibration.
    tasks : mapping of str to str, optional
        Item -> task.
    min_models : int, default :data:`MIN_MODELS`
        Fewer answers than this and than half the models flag an item ``"few answers"``.

    Returns
    -------
    DataFrame
        One row per item.

    Examples
    --------
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [1, 1, np.nan]])
    >>> item_statistics(X, ["q1", "q2", "q3"], None)["flag"].tolist()
    ['everyone right', '', 'everyone wrong']
    """
    names = [str(n) for n in names]
    answered = ~np.isnan(X)
    right = X == 1.0  # NaN == 1 is False
    n_answered = answered.sum(axis=0)
    n_right = right.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = n_right / n_answered
    frame = pd.DataFrame({"n_answered": n_answered, "n_right": n_right, "share_right": share,
                          "rest_correlation": _rest_correlation(X, answered, right)}, index=pd.Index(names, name="item"))
    if tasks is not None:
        frame.insert(0, "task", [tasks.get(n, "") for n in names])
    a = params["a"].reindex(names).to_numpy(float) if params is not None else np.full(len(names), np.nan)
    b = params["b"].reindex(names).to_numpy(float) if params is not None else np.full(len(names), np.nan)
    frame["a"], frame["b"] = a, b
    frame["everyone_right"] = (n_answered >= 2) & (n_right == n_answered)
    frame["everyone_wrong"] = (n_answered >= 2) & (n_right == 0)
    frame["negative_discrimination"] = tie_greater(0.0, np.nan_to_num(a, nan=0.0))  # a < 0 beyond rounding noise
    frame["few_answers"] = (n_answered >= 2) & (n_answered < few_below(int(min_models), X.shape[0]))
    flag = np.full(len(names), "", dtype=object)
    flag[frame["negative_discrimination"].to_numpy()] = "negative discrimination"
    flag[frame["few_answers"].to_numpy()] = "few answers"  # a negative a on a handful of answers is noise first
    flag[frame["everyone_wrong"].to_numpy()] = "everyone wrong"
    flag[frame["everyone_right"].to_numpy()] = "everyone right"
    flag[n_answered == 1] = "answered once"
    frame["flag"] = flag
    return frame


def saturation(X: np.ndarray, accuracy: np.ndarray, top: int) -> dict[str, Any]:
    """How close the field is to solving the benchmark.

    ``top`` models by ``accuracy`` (ties to the earlier row): ``share_solved_by_top`` is the share of all
    items that each of them that answered it got right (at least one of them answered it);
    ``best_accuracy`` and ``headroom`` (``1 - best_accuracy``); ``ceiling``, the share of items at least one
    model got right, and ``gap_to_ceiling`` (``ceiling - best_accuracy``).

    Parameters
    ----------
    X : ndarray
        Models x items, 1/0/NaN.
    accuracy : ndarray
        Each model's accuracy.
    top : int
        How many leading models count.

    Returns
    -------
    dict of str to Any
        ``top``, ``top_models`` (row positions), ``share_solved_by_top`` and the other shares.

    Examples
    --------
    >>> X = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]])
    >>> s = saturation(X, np.array([0.5, 0.75, 0.25]), top=2)
    >>> s["share_solved_by_top"], s["ceiling"], s["gap_to_ceiling"]
    (0.5, 0.75, 0.0)
    """
    n_models, n_items = X.shape
    top = int(min(max(top, 1), n_models))
    order = stable_argsort(np.nan_to_num(accuracy, nan=-np.inf), descending=True)
    best = order[:top]
    Xt = X[best]
    answered_t = ~np.isnan(Xt)
    solved = answered_t.any(axis=0) & ~(Xt == 0.0).any(axis=0)
    right_any = (X == 1.0).any(axis=0)
    best_acc = float(accuracy[order[0]])
    ceiling = float(right_any.mean())
    return {"top": top, "top_models": [int(i) for i in best], "share_solved_by_top": float(solved.mean()),
            "n_solved_by_top": int(solved.sum()), "best_accuracy": best_acc, "headroom": 1.0 - best_acc,
            "ceiling": ceiling, "gap_to_ceiling": ceiling - best_acc,
            "share_unsolved": 1.0 - ceiling}


def information_curve(a: np.ndarray, b: np.ndarray, theta: np.ndarray | None = None) -> pd.DataFrame:
    """The 2PL test information ``I(theta) = sum_j a_j^2 P_j(theta) (1 - P_j(theta))`` and ``se = 1 / sqrt(I)``
    on a grid (default: 161 points over [-4, 4]).

    Parameters
    ----------
    a, b : ndarray
        The items' discriminations and difficulties.
    theta : ndarray, optional
        The grid.

    Returns
    -------
    DataFrame
        Columns ``theta``, ``information``, ``se``.

    Examples
    --------
    >>> information_curve(np.array([1.0, 2.0]), np.array([0.0, 0.0]), np.array([0.0])).round(3).values.tolist()
    [[0.0, 1.25, 0.894]]
    """
    grid = np.linspace(-4.0, 4.0, 161) if theta is None else np.asarray(theta, dtype=float)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    info = np.zeros(len(grid))
    for start in range(0, len(a), _CHUNK):
        sl = slice(start, start + _CHUNK)
        p = expit(a[sl][None, :] * (grid[:, None] - b[sl][None, :]))
        info += (a[sl][None, :] ** 2 * p * (1 - p)).sum(axis=1)
    with np.errstate(divide="ignore"):
        se = 1.0 / np.sqrt(info)
    return pd.DataFrame({"theta": grid, "information": info, "se": se})


def informative_range(curve: pd.DataFrame, share: float = 0.5) -> dict[str, float]:
    """Where the test information is at least ``share`` of its peak: ``low``, ``high``, the ``peak_theta`` and
    ``peak_information`` (the grid's ends when the curve stays above the level there).

    Parameters
    ----------
    curve : DataFrame
        As :func:`information_curve` returns it.
    share : float, default 0.5
        The level, a share of the peak.

    Returns
    -------
    dict of str to float
        ``low``, ``high``, ``peak_theta``, ``peak_information``.

    Examples
    --------
    One item with a = 2, b = 0: ``P(1 - P) >= 1/8`` for ``|theta| <= log((1 + sqrt(.5)) / (1 - sqrt(.5))) / 2 = 0.88``.

    >>> r = informative_range(information_curve(np.array([2.0]), np.array([0.0]), np.linspace(-3, 3, 601)))
    >>> r["low"], r["high"], r["peak_theta"]
    (-0.88, 0.88, 0.0)
    """
    info = curve["information"].to_numpy(float)
    theta = curve["theta"].to_numpy(float)
    peak = int(np.argmax(info))
    above = np.flatnonzero(~tie_greater(share * info[peak], info))  # info >= share * peak, within rounding noise
    return {"low": float(theta[above.min()]), "high": float(theta[above.max()]),
            "peak_theta": float(theta[peak]), "peak_information": float(info[peak]), "level": float(share)}


def task_breakdown(X: np.ndarray, models: Any, names: Any, tasks: Mapping[str, str],
                   items: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per task: items, models that answered any, mean and best accuracy (observed, on answered items), flagged
    items; and the models x tasks table of observed accuracy.

    Parameters
    ----------
    X : ndarray
        Models x items, 1/0/NaN.
    models, names : sequence of str
        The models and the items.
    tasks : mapping of str to str
        Item -> task.
    items : DataFrame
        :func:`item_statistics`' table (its flags).

    Returns
    -------
    per_task : DataFrame
        One row per task.
    by_model : DataFrame
        Models x tasks, observed accuracy.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    >>> items = item_statistics(X, ["q1", "q2", "q3"], None, {"q1": "A", "q2": "A", "q3": "B"})
    >>> per_task, acc = task_breakdown(X, ["m1", "m2"], ["q1", "q2", "q3"], {"q1": "A", "q2": "A", "q3": "B"}, items)
    >>> acc.loc["m1"].tolist(), per_task.loc["A", "best_model"]
    ([0.5, 1.0], 'm1')
    """
    names = [str(n) for n in names]
    labels = np.array([tasks.get(n, "") for n in names], dtype=object)
    order = list(dict.fromkeys(labels))
    answered = ~np.isnan(X)
    right = X == 1.0  # NaN == 1 is False
    acc = {}
    rows = []
    for task in order:
        cols = labels == task
        n_ans = answered[:, cols].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = right[:, cols].sum(axis=1) / n_ans
        acc[task] = share
        sub = items[cols]
        ok = np.isfinite(share)
        best = int(stable_argsort(np.where(ok, share, -np.inf), descending=True)[0])
        rows.append({"task": task, "n_items": int(cols.sum()), "n_models": int(ok.sum()),
                     "mean_accuracy": float(np.nanmean(share)) if ok.any() else np.nan,
                     "best_model": str(models[best]) if ok.any() else "", "best_accuracy": float(share[best]),
                     "everyone_right": int(sub["everyone_right"].sum()), "everyone_wrong": int(sub["everyone_wrong"].sum()),
                     "negative_discrimination": int(sub["negative_discrimination"].sum()),
                     "median_a": float(sub["a"].median()) if sub["a"].notna().any() else np.nan})
    per_task = pd.DataFrame(rows).set_index("task")
    by_model = pd.DataFrame(acc, index=pd.Index([str(m) for m in models], name="model"))
    by_model.columns.name = "task"
    return per_task, by_model
