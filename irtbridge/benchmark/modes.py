"""Calibration modes for classifier response data, item flags and a defensible dataset difficulty.

Classifier benchmarks give IRT an unusual matrix: a few dozen respondents (classifiers) and hundreds of
items (test instances), most of them easy. An unregularized 3PL on such data has a flat likelihood:
slopes run off to hundreds and difficulties to +-50, and two fits of the same file disagree. Two modes:

* ``"paper"``: ltm's 3PL (``tpm``), exactly as the decodIRT paper (Cardoso et al.) did, for reproducing it;
* ``"stable"`` (the default): mirt's 3PL with weakly informative priors, a MAP estimate that stays near
  the maximum likelihood where the data speak and finite where they do not:
  ``a1 ~ N(1, 0.5)`` (a normal prior, so negatively discriminating instances can keep a negative slope),
  ``d ~ N(0, 3)`` on the intercept, and ``g ~ Beta(2, 17)`` on the guessing parameter (mean 0.105).

Why these, with the numbers: ``docs/calibration-modes.md`` and ``benchmarks/recovery.py``.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from irtbridge._validation import check_choice
from irtbridge.irt import response_probability

__all__ = [
    "CALIBRATION_MODES",
    "STABLE_PRIORS",
    "FLAG_LIMITS",
    "calibrate_classifier_responses",
    "flag_items",
    "dataset_difficulty",
    "simulate_classifier_responses",
]

CALIBRATION_MODES = ("stable", "paper")
STABLE_PRIORS: dict[str, tuple[str, float, float]] = {
    "a1": ("norm", 1.0, 0.5),
    "d": ("norm", 0.0, 3.0),
    "g": ("expbeta", 2.0, 17.0),
}
# beyond these an item parameter is not identified by a few dozen respondents: |a| > 10 is a step
# function, |b| > 6 lies outside the ability grid every scorer uses
FLAG_LIMITS = {"a": 10.0, "b": 6.0, "g": 0.95}


def mode_settings(calibration: str) -> dict[str, Any]:
    """Engine, fallback and engine options of a mode (the pipeline's calibration arguments)."""
    calibration = check_choice(calibration, "calibration", CALIBRATION_MODES, ignore_case=True)
    if calibration == "paper":
        return {"engine": "ltm", "fallback": True, "engine_options": {}}
    return {"engine": "mirt", "fallback": False, "engine_options": {"mirt": {"priors": dict(STABLE_PRIORS)}}}


def calibrate_classifier_responses(responses: Any, calibration: str = "stable", *, se: bool = False,
                                   drop_constant: bool = True, **options: Any):
    """Calibrate a classifier response matrix (classifiers x instances, 1 = correct) in one of two modes.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are classifiers, columns are test instances; 0/1, NaN for missing.
    calibration : {"stable", "paper"}, default "stable"
        ``"paper"``: ltm's 3PL as the decodIRT paper (Cardoso et al.); ``"stable"``: mirt's 3PL with
        the weakly informative priors :data:`STABLE_PRIORS`.
    se : bool, default False
        Standard errors (NaN, with one warning, where the information matrix is singular).
    drop_constant : bool, default True
        Instances every classifier gets right (or wrong) carry no information and are dropped.
    **options
        Passed to :func:`irtbridge.calibrate` (engine options such as ``technical``).

    Returns
    -------
    Calibration
        ``.items`` has columns ``a, b, g`` (and ``u`` = 1); ``.options["calibration"]`` names the mode.

    Notes
    -----
    R equivalents: ``ltm::tpm(data)`` (paper); ``sv <- mirt(data, 1, "3PL", pars = "values")`` with
    ``prior.type``/``prior_1``/``prior_2`` set to ``norm(1, 0.5)`` on ``a1``, ``norm(0, 3)`` on ``d`` and
    ``expbeta(2, 17)`` on ``g``, then ``mirt(data, 1, "3PL", pars = sv)`` (stable).

    Examples
    --------
    >>> from irtbridge.benchmark import calibrate_classifier_responses, simulate_classifier_responses
    >>> responses, _, _ = simulate_classifier_responses(40, 60, seed=1)
    >>> fit = calibrate_classifier_responses(responses.loc[:, responses.nunique() > 1], "stable")  # doctest: +R
    >>> bool(fit.items["a"].abs().max() < 10)
    True
    """
    from irtbridge.calibration import calibrate

    settings = mode_settings(calibration)
    engine = settings["engine"]
    merged = {**settings["engine_options"].get(engine, {}), **options}
    fit = calibrate(responses, model="3PL", engine=engine, se=se, drop_constant=drop_constant, **merged)
    from dataclasses import replace

    return replace(fit, options={**fit.options, "calibration": calibration.lower()})


def flag_items(items: pd.DataFrame, standard_errors: pd.DataFrame | None = None,
               limits: Mapping[str, float] | None = None) -> pd.Series:
    """Why each item's estimate is not identified ("" when it is): the ``flag`` column of the tables.

    An item is flagged when ``|a|`` or ``|b|`` exceeds its limit (:data:`FLAG_LIMITS`: 10 and 6), when
    the guessing parameter sits at its upper bound (``g >= 0.95``), when a parameter is not finite, or
    when standard errors were computed and the item has none that is finite.

    Examples
    --------
    >>> items = pd.DataFrame({"a": [1.2, 300.0], "b": [0.1, -40.0], "g": [0.1, 0.0]}, index=["x", "y"])
    >>> flag_items(items).tolist()
    ['', '|a| > 10; |b| > 6']
    """
    lim = {**FLAG_LIMITS, **dict(limits or {})}
    reasons: list[list[str]] = [[] for _ in range(len(items))]
    for col, label in (("a", "|a| > {:g}"), ("b", "|b| > {:g}")):
        if col in items:
            v = items[col].to_numpy(dtype=float)
            for i in np.flatnonzero(~np.isfinite(v)):
                reasons[i].append(f"{col} not finite")
            for i in np.flatnonzero(np.isfinite(v) & (np.abs(v) > lim[col])):
                reasons[i].append(label.format(lim[col]))
    if "g" in items:
        for i in np.flatnonzero(items["g"].to_numpy(dtype=float) >= lim["g"]):
            reasons[i].append(f"g at its bound (>= {lim['g']:g})")
    if standard_errors is not None and len(standard_errors):
        cols = [c for c in ("a", "b", "g") if c in standard_errors]
        ses = standard_errors.reindex(items.index)[cols].to_numpy(dtype=float)
        for i in np.flatnonzero(~np.isfinite(ses).any(axis=1)):
            reasons[i].append("no finite SE")
    return pd.Series(["; ".join(r) for r in reasons], index=items.index, name="flag", dtype=object)


def dataset_difficulty(items: pd.DataFrame, theta: float, model: str = "3PL") -> float:
    """The share of a dataset's test instances that a classifier of ability ``theta`` is expected to fail.

    With ``theta`` the median ability of the real classifiers, this is "how often does a typical
    classifier of the common pool fail here": ``mean_j (1 - P_j(theta))``. Unlike a mean or median of
    ``b``, it stays on the probability scale, so an unidentified item with ``b = -40`` counts as one easy
    item rather than swamping the summary.

    Examples
    --------
    >>> items = pd.DataFrame({"a": [1.0, 1.0], "b": [0.0, 0.0], "g": [0.0, 0.0], "u": [1.0, 1.0]})
    >>> dataset_difficulty(items, 0.0)
    0.5
    """
    if len(items) == 0 or not np.isfinite(theta):
        return float("nan")
    p = response_probability([float(theta)], items, model=model)
    return float(1.0 - np.nanmean(np.asarray(p, dtype=float)))


def difficulty_agreement(difficulty: pd.Series, accuracy: pd.Series) -> float:
    """Spearman correlation of a per-dataset difficulty with ``1 - mean accuracy`` (NaN below 3 datasets)."""
    both = pd.concat([difficulty, 1.0 - accuracy], axis=1).dropna()
    if len(both) < 3:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(both.iloc[:, 0], both.iloc[:, 1])[0])


def simulate_classifier_responses(n_respondents: int = 40, n_items: int = 200, seed: int = 0):
    """Classifier-shaped 3PL data with known parameters: ``(responses, theta, items)``.

    Mostly easy items (``b ~ N(-1, 1)``), slopes ``lognormal(0.2, 0.4)`` with about 5% negative
    (``-U(0.5, 1.5)``), guessing ``U(0, 0.25)``, abilities ``N(0, 1)``. Used by the parameter-recovery
    benchmark (``benchmarks/recovery.py``) and its test.

    Examples
    --------
    >>> x, theta, items = simulate_classifier_responses(40, 200, seed=0)
    >>> x.shape, len(theta), list(items.columns)
    ((40, 200), 40, ['a', 'b', 'g', 'u'])
    """
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.2, 0.4, n_items)
    negative = rng.random(n_items) < 0.05
    a[negative] = -rng.uniform(0.5, 1.5, int(negative.sum()))
    b = rng.normal(-1.0, 1.0, n_items)
    g = rng.uniform(0.0, 0.25, n_items)
    theta = rng.normal(0.0, 1.0, n_respondents)
    p = g + (1.0 - g) / (1.0 + np.exp(-a * (theta[:, None] - b)))
    x = (rng.random(p.shape) < p).astype(float)
    names = [f"i{j}" for j in range(n_items)]
    items = pd.DataFrame({"a": a, "b": b, "g": g, "u": 1.0}, index=names)
    respondents = [f"c{r}" for r in range(n_respondents)]
    return pd.DataFrame(x, columns=names, index=respondents), theta, items
