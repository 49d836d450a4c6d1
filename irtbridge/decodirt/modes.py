"""Calibration modes for classifier response data, item flags and a defensible dataset difficulty.

Classifier benchmarks give IRT an unusual matrix: a few dozen respondents (classifiers) and hundreds of
items (test instances), most of them easy. An unregularized 3PL on such data has a flat likelihood:
slopes run off to hundreds and difficulties to +-50, and two fits of the same file disagree. Two modes:

* ``"paper"``: ltm's 3PL (``tpm``), exactly as the decodIRT paper (Cardoso et al.) did, for reproducing it;
* ``"stable"`` (the default): mirt's 3PL with weakly informative priors, a MAP estimate that stays near
  the maximum likelihood where the data speak and finite where they do not:
  ``a1 ~ N(1, 0.5)`` (a normal prior, so negatively discriminating instances can keep a negative slope),
  ``d ~ N(0, 3)`` on the intercept, and ``g ~ Beta(2, 17)`` on the guessing parameter (mean 0.105).

Why these, with the numbers: ``docs/calibration-modes.md`` and ``speed/recovery.py``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from irtbridge._constraints import Flag, Int, Seed, constraints
from irtbridge._validation import check_choice, check_seed
from irtbridge.calibration import calibrate
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.results.flags import FLAG_LIMITS, flag_items
from irtbridge.exceptions import ValidationError
from irtbridge.irt import response_probability
from irtbridge.irt.bank import MODEL

__all__ = [
    "CALIBRATION_MODES",
    "CalibrationMode",
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


#: the engines a classifier benchmark's 3PL can be calibrated with, and the modes each may serve
_MODE_ENGINES = {"stable": ("mirt", "native"), "paper": ("ltm", "mirt")}
_PRIOR_TEXT = {"norm": "N({:g}, {:g})", "lnorm": "logN({:g}, {:g})", "expbeta": "Beta({:g}, {:g})"}


@dataclass(frozen=True)
class CalibrationMode:
    """How a classifier benchmark calibrates its 3PL: resolved once where the call enters, then passed down.

    Build it with :meth:`resolve` (which checks every combination of options and raises a one-line
    :class:`~irtbridge.exceptions.ValidationError` for an invalid one); nothing below the entry point
    re-checks or renames it. :meth:`describe` is the sentence the report, ``summary.json`` and the CLI
    print, so they cannot disagree with what ran.

    Attributes
    ----------
    name : {"stable", "paper"}
    engine : {"mirt", "native", "ltm"}
        The engine tried first.
    fallback : tuple of str
        Engines tried, in order, when the first errs or does not converge (empty: none).
    priors : dict
        Prior per item parameter, mirt's names (``{"a1": ("norm", 1.0, 0.5), ...}``); empty: maximum likelihood.
    engine_options : dict
        Extra options per engine (``{"mirt": {"technical": {"NCYCLES": 2000}}}``), given by the caller.

    Examples
    --------
    >>> CalibrationMode.resolve("stable").describe()
    "mirt's 3PL with weakly informative priors (a1 ~ N(1, 0.5), d ~ N(0, 3), g ~ Beta(2, 17)), no fallback"
    >>> CalibrationMode.resolve("paper").describe()
    "ltm's 3PL (maximum likelihood, as decodIRT), mirt's 3PL as fallback"
    >>> CalibrationMode.resolve("stable", engine="ltm")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: engine='ltm' cannot fit the stable mode's 3PL with priors; use
    engine='mirt' or 'native', or calibration='paper' for ltm
    """

    name: str
    engine: str
    fallback: tuple[str, ...]
    priors: Mapping[str, tuple[str, float, float]] = field(default_factory=dict)
    engine_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def resolve(cls, calibration: "str | CalibrationMode" = "stable", engine: str | None = None,
                fallback: bool | None = None,
                engine_options: Mapping[str, Mapping[str, Any]] | None = None) -> "CalibrationMode":
        """The mode of the user's options; ``None`` means the mode's own default.

        ``stable``: mirt's (or the native engine's) 3PL with :data:`STABLE_PRIORS` and no fallback (the
        other engines cannot fit the priors). ``paper``: ltm's 3PL without priors as the decodIRT paper,
        mirt's 3PL as fallback (``engine="mirt"`` swaps them; ``fallback=False`` drops the fallback).

        Parameters
        ----------
        calibration : {"stable", "paper"} or CalibrationMode, default "stable"
            The mode (a CalibrationMode is returned as it is when nothing else is given).
        engine : str, optional
            The engine tried first.
        fallback : bool, optional
            Whether the mode's other engines are tried after it.
        engine_options : mapping of str to mapping, optional
            Extra options per engine.

        Returns
        -------
        CalibrationMode
            The resolved mode.
        """
        if isinstance(calibration, CalibrationMode):
            if engine is not None or fallback is not None or engine_options is not None:
                raise ValidationError("pass either a CalibrationMode or engine/fallback/engine_options, not both")
            return calibration
        name = check_choice(calibration, "calibration", CALIBRATION_MODES, ignore_case=True)
        allowed = _MODE_ENGINES[name]
        if engine is None:
            engine = allowed[0]
        engine = check_choice(engine, "engine", tuple(ENGINE_TABLE), ignore_case=True)
        if engine not in allowed:
            raise ValidationError(
                f"engine={engine!r} cannot fit the stable mode's 3PL with priors; use engine='mirt' or 'native', "
                "or calibration='paper' for ltm" if name == "stable" else
                f"engine={engine!r} is not a paper-mode engine (ltm's or mirt's 3PL without priors); use "
                "engine='ltm' or 'mirt', or calibration='stable' for the native engine")
        if "3PL" not in ENGINE_TABLE[engine].models:
            raise ValidationError(f"engine={engine!r} does not fit the 3PL in this version of irtbridge; "
                                  f"use engine={allowed[0]!r}")
        if name == "stable":
            if fallback:
                raise ValidationError("fallback: the stable mode has no fallback (no other engine fits its priors); "
                                      "use calibration='paper' for ltm with mirt as fallback")
            chain: tuple[str, ...] = ()
        else:
            chain = tuple(e for e in allowed if e != engine) if fallback is None or fallback else ()
        options = {} if engine_options is None else engine_options
        if not isinstance(options, Mapping):
            raise ValidationError(f"engine_options must be a mapping engine -> options, got {type(options).__name__}")
        unknown = [k for k in options if k not in (engine, *chain)]
        if unknown:
            raise ValidationError(f"engine_options: {unknown[0]!r} is not an engine of this run "
                                  f"(engines: {', '.join((engine, *chain))})")
        for eng, opts in options.items():
            if not isinstance(opts, Mapping):
                raise ValidationError(f"engine_options[{eng!r}] must be a mapping of options, got {type(opts).__name__}")
            if "priors" in opts:
                raise ValidationError(f"engine_options[{eng!r}]: priors are the mode's (calibration='stable' "
                                      "has them, 'paper' has none); do not pass them as an engine option")
        priors = dict(STABLE_PRIORS) if name == "stable" else {}
        return cls(name, engine, chain, priors, {e: dict(o) for e, o in options.items()})

    def options_for(self, engine: str) -> dict[str, Any]:
        """The keyword arguments of :func:`irtbridge.calibrate` for one engine of this mode.

        Parameters
        ----------
        engine : str
            One of the mode's engines.

        Returns
        -------
        dict of str to Any
            ``priors`` (when the mode has them) and the engine's options.
        """
        return {**({"priors": dict(self.priors)} if self.priors else {}), **dict(self.engine_options.get(engine, {}))}

    @property
    def engines(self) -> tuple[str, ...]:
        """Every engine this mode may try, in order."""
        return (self.engine, *self.fallback)

    def describe(self) -> str:
        """One sentence saying what this mode fits (the report subtitle, CLI text and ``summary.json``).

        Returns
        -------
        str
            The sentence.
        """
        who = f"{ENGINE_TABLE[self.engine].title}'s"
        if self.priors:
            text = f"{who} 3PL with weakly informative priors (" + ", ".join(
                f"{p} ~ {_PRIOR_TEXT.get(kind, kind + '({:g}, {:g})').format(x, y)}"
                for p, (kind, x, y) in self.priors.items()) + ")"
        else:
            text = f"{who} 3PL (maximum likelihood, as decodIRT)"
        back = ", ".join(f"{e}'s 3PL" for e in self.fallback)
        return text + (f", {back} as fallback" if back else ", no fallback")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``calibration, engine, fallback`` (bool), ``fallback_engines, priors, engine_options, description``.

        Returns
        -------
        dict of str to Any
            See above.
        """
        return {"calibration": self.name, "engine": self.engine, "fallback": bool(self.fallback),
                "fallback_engines": list(self.fallback),
                "priors": {k: list(v) for k, v in self.priors.items()},
                "engine_options": {k: dict(v) for k, v in self.engine_options.items()}, "description": self.describe()}


@constraints(se=Flag(), drop_constant=Flag())
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
    >>> from irtbridge.decodirt import calibrate_classifier_responses, simulate_classifier_responses
    >>> responses, _, _ = simulate_classifier_responses(40, 60, seed=1)
    >>> fit = calibrate_classifier_responses(responses.loc[:, responses.nunique() > 1], "stable")  # doctest: +R
    >>> bool(fit.items["a"].abs().max() < 10)
    True
    """
    mode = CalibrationMode.resolve(calibration)
    merged = {**mode.options_for(mode.engine), **options}
    fit = calibrate(responses, model="3PL", engine=mode.engine, se=se, drop_constant=drop_constant, **merged)
    return fit._replace(options={**fit.options, "calibration": mode.name})


@constraints(model=MODEL)
def dataset_difficulty(items: pd.DataFrame, theta: float, model: str = "3PL") -> float:
    """The share of a dataset's test instances that a classifier of ability ``theta`` is expected to fail.

    With ``theta`` the median ability of the real classifiers, this is "how often does a typical
    classifier of the common pool fail here": ``mean_j (1 - P_j(theta))``. Unlike a mean or median of
    ``b``, it stays on the probability scale, so an unidentified item with ``b = -40`` counts as one easy
    item rather than swamping the summary.

    Parameters
    ----------
    items : DataFrame
        The dataset's item parameters (``a``, ``b``, ``g``, ``u`` for the 3PL).
    theta : float
        The ability of the typical classifier.
    model : str, default "3PL"
        The model the items were calibrated under.

    Returns
    -------
    float
        The mean of ``1 - P_j(theta)`` over the items; NaN without items or with a non-finite ``theta``.

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


@constraints(n_respondents=Int(low=1), n_items=Int(low=1), seed=Seed())
def simulate_classifier_responses(n_respondents: int = 40, n_items: int = 200, seed: int = 0):
    """Classifier-shaped 3PL data with known parameters: ``(responses, theta, items)``.

    Mostly easy items (``b ~ N(-1, 1)``), slopes ``lognormal(0.2, 0.4)`` with about 5% negative
    (``-U(0.5, 1.5)``), guessing ``U(0, 0.25)``, abilities ``N(0, 1)``. Used by the parameter-recovery
    benchmark (``speed/recovery.py``) and its test.

    Parameters
    ----------
    n_respondents : int, default 40
        Rows (classifiers).
    n_items : int, default 200
        Columns (test instances).
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    responses : DataFrame
        Respondents x items, 0/1.
    theta : ndarray
        The true abilities.
    items : DataFrame
        The true item parameters, columns ``a``, ``b``, ``g``, ``u``.

    Examples
    --------
    >>> x, theta, items = simulate_classifier_responses(40, 200, seed=0)
    >>> x.shape, len(theta), list(items.columns)
    ((40, 200), 40, ['a', 'b', 'g', 'u'])
    """
    rng = np.random.default_rng(check_seed(seed, "seed"))
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
