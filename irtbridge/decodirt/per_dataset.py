"""One dataset through the IRT lens: responses, 3PL calibration with engine fallback, abilities,
True-Scores, and the dataset diagnostics built from the item parameters (Cardoso et al., decodIRT, sections 4.2, 5.1).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge import exceptions
from irtbridge._catalogue import KERNEL_SCORING
from irtbridge._constraints import Choice, Flag, constraints
from irtbridge._moved import moved_keywords
from irtbridge.calibration import calibrate
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.results.flags import IdentificationWarning
from irtbridge.decodirt.classification_data import class_labels, load_benchmark_dataset, prepare_features, stratified_split
from irtbridge.decodirt.modes import CalibrationMode, flag_items
from irtbridge.decodirt.records import CalibrationAttempt, DatasetResult, StageWarning
from irtbridge.decodirt.respondents import (
    artificial_responses,
    classifier_pool,
    fit_predict_score_pool,
    response_matrix,
)
from irtbridge.decodirt.settings import OLD_KEYWORDS, Settings, given_settings
from irtbridge.decodirt.tournaments import SCORES
from irtbridge.exceptions import (
    ConvergenceWarning,
    DataWarning,
    IrtBridgeError,
    IrtBridgeWarning,
    RUnavailableError,
    ValidationError,
    find_stack_level,
)
from irtbridge.irt import as_item_bank, estimate_abilities, true_score

__all__ = [
    "SCORES",
    "CalibrationAttempt",
    "StageWarning",
    "DatasetResult",
    "calibrate_with_fallback",
    "score_respondents",
    "evaluate_dataset",
]


def _stage_warnings(caught: Sequence[warnings.WarningMessage], stages: Sequence[tuple[int, str]]) -> tuple[StageWarning, ...]:
    """The irtbridge warnings among ``caught``, each with its stage, once per (category, message)."""
    out: dict[tuple[str, str], StageWarning] = {}
    for i, w in enumerate(caught):
        if not issubclass(w.category, IrtBridgeWarning):
            continue
        stage = next(s for start, s in reversed(stages) if start <= i)
        out.setdefault((w.category.__name__, str(w.message)), StageWarning(stage, w.category.__name__, str(w.message)))
    return tuple(out.values())


@constraints(accept_unconverged=Flag(), keep_r_model=Flag())
def calibrate_with_fallback(
    responses: pd.DataFrame,
    mode: CalibrationMode | str | None = None,
    *,
    model: str = "3PL",
    accept_unconverged: bool = False,
    keep_r_model: bool = False,
    **old: Any,
) -> tuple[Any, tuple[CalibrationAttempt, ...]]:
    """Calibrate with the mode's engine; when it errors or does not converge, try its fallback engines.

    Parameters
    ----------
    responses : pandas.DataFrame
        Respondents x items, 0/1. Constant items are dropped (and listed in
        ``Calibration.dropped_items``).
    mode : CalibrationMode or {"stable", "paper"}, default "paper"
        The calibration mode, resolved once where the options entered
        (:meth:`CalibrationMode.resolve <irtbridge.decodirt.modes.CalibrationMode.resolve>`: the engine
        tried first, its fallback engines, the priors and ``engine_options``, the options passed to
        :func:`irtbridge.calibrate` for each engine); a name is resolved with the mode's defaults.
    model : str, default "3PL"
    keep_r_model : bool, default False
        Keep the live R model on the returned fit (for mirt's diagnostics in this process).
    accept_unconverged : bool, default False
        When no engine converges, use the first fit that finished (flagged ``converged=False``) instead of
        giving up on the dataset.
    **old
        ``engine=``, ``fallback=``, ``engine_options=`` of irtbridge 0.1, now options of
        :meth:`CalibrationMode.resolve <irtbridge.decodirt.modes.CalibrationMode.resolve>`: they still
        work, with a DeprecationWarning.

    Returns
    -------
    calibration : Calibration or None
        The fit whose parameters are used (``.engine`` says which engine made it), without its R handle;
        None when every attempt failed.
    attempts : tuple of CalibrationAttempt
        Every try in order, with R's error message or the convergence note.

    Notes
    -----
    The paper lost OpenML's "pc4" because ltm did not converge; here the dataset survives when mirt
    (``mirt(data, 1, itemtype = "3PL")``) does, and the provenance says so. Warnings raised by a fit
    (R warnings, convergence, dropped items) propagate to the caller.

    Examples
    --------
    >>> from irtbridge.decodirt import CalibrationMode, simulate_classifier_responses
    >>> responses, _, _ = simulate_classifier_responses(40, 60, seed=1)
    >>> mode = CalibrationMode.resolve("paper", engine="mirt", fallback=False)
    >>> fit, attempts = calibrate_with_fallback(responses, mode)     # doctest: +R
    >>> [a.engine for a in attempts]                                 # doctest: +R
    ['mirt']
    """
    if not isinstance(mode, CalibrationMode) or old:  # a name, or the old engine/fallback/engine_options keywords
        mode = CalibrationMode.resolve("paper" if mode is None else mode, **_old_mode_keywords(old))
    attempts: list[CalibrationAttempt] = []
    unconverged = None
    for eng in mode.engines:
        started = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # non-convergence is handled here (fallback); it is reported through the attempts
                warnings.simplefilter("ignore", ConvergenceWarning)
                warnings.simplefilter("ignore", IdentificationWarning)  # the flag column reports them
                fit = calibrate(responses, model=model, engine=eng, se=False, drop_constant=True, **mode.options_for(eng))
        except RUnavailableError:
            raise  # no R at all: the other engine cannot help either
        except (IrtBridgeError, ImportError) as exc:
            if isinstance(exc, ValidationError) and "constant" in str(exc):
                raise  # too few informative items: no engine can help
            attempts.append(CalibrationAttempt(eng, "error", str(exc), time.perf_counter() - started, model))
            continue
        seconds = time.perf_counter() - started
        if fit.converged:
            attempts.append(CalibrationAttempt(eng, "converged", "", seconds, model))
            return (fit if keep_r_model else fit.without_r_model()), tuple(attempts)
        attempts.append(CalibrationAttempt(eng, "not converged", f"{eng} stopped after {fit.iterations} iterations", seconds,
                                           model))
        if unconverged is None:
            unconverged = fit.without_r_model()
    if accept_unconverged and unconverged is not None:
        warnings.warn(
            f"no engine converged; using the unconverged {unconverged.engine} fit as asked (accept_unconverged=True)",
            ConvergenceWarning,
            stacklevel=find_stack_level(),
        )
        return unconverged, tuple(attempts)
    return None, tuple(attempts)


@constraints(method=Choice(KERNEL_SCORING, ignore_case=True))  # estimate_abilities' own
def score_respondents(responses: pd.DataFrame, calibration: Any, *, method: str = "ML") -> pd.DataFrame:
    """Ability, True-Score over all items and over positively discriminating items, and accuracy.

    Parameters
    ----------
    responses : pandas.DataFrame
        Respondents x items (0/1); columns not in the calibration (dropped constant items) are ignored
        for theta and the True-Scores but count in ``accuracy``.
    calibration : Calibration or ItemBank
        Dichotomous item parameters.
    method : {"ML", "MAP", "EAP"}, default "ML"
        Ability estimator (:func:`irtbridge.irt.estimate_abilities`, bounds -6..6); ML is what the paper
        used (catsim's maximum-likelihood estimators).

    Returns
    -------
    pandas.DataFrame
        Indexed by respondent: ``accuracy``, ``theta``, ``se``, ``at_bound`` (from all calibrated
        items), ``true_score``, ``theta_positive`` and ``true_score_positive`` (from the items with
        a > 0 only; NaN when there are none), ``n_items``, ``n_positive``.

    Notes
    -----
    TS_j = sum_i P_i(theta_j) with P_i(theta) = g_i + (1 - g_i) / (1 + exp(-a_i (theta - b_i)))
    (Cardoso et al., decodIRT, Eqs. 1-2). ``true_score`` sums over all calibrated items at theta_j estimated from all
    of them. ``true_score_positive`` leaves the negatively discriminating items out altogether, as the
    paper's Figure 9b: theta_j is re-estimated from the items with a_i > 0 and the sum runs over them.
    (With the ability from all items, a negative item rewards a wrong answer, so a classifier that
    errs only there, or the pessimal one, can still climb above optimal.)
    """
    bank = as_item_bank(calibration)
    names = list(bank.names)
    used = responses.rename(columns=str)[names]
    est = estimate_abilities(used, bank, method=method)
    out = pd.DataFrame(index=responses.index)
    out["accuracy"] = responses.to_numpy(dtype=float).mean(axis=1)
    out["theta"] = est["theta"].to_numpy()
    out["se"] = est["se"].to_numpy()
    out["at_bound"] = est["at_bound"].to_numpy()
    out["true_score"] = np.asarray(true_score(est["theta"].to_numpy(), bank), dtype=float)
    positive = bank.a > 0
    if positive.any():
        pos_bank = bank.take(positive)
        pos_theta = estimate_abilities(used[list(pos_bank.names)], pos_bank, method=method)["theta"].to_numpy()
        out["theta_positive"] = pos_theta
        out["true_score_positive"] = np.asarray(true_score(pos_theta, pos_bank), dtype=float)
    else:
        out["theta_positive"] = np.nan
        out["true_score_positive"] = np.nan
    out["n_items"] = bank.n_items
    out["n_positive"] = int(positive.sum())
    out.index.name = "respondent"
    return out


def evaluate_dataset(dataset: Any, settings: Settings | None = None, **old: Any) -> DatasetResult:
    """Run one dataset through decodIRT's three steps (Cardoso et al., decodIRT, Figs. 3-5).

    Parameters
    ----------
    dataset : str or BenchmarkDataset
        See :func:`~irtbridge.decodirt.load_benchmark_dataset`.
    settings : Settings, optional
        The evaluation's options (:class:`~irtbridge.decodirt.settings.Settings`, checked and its
        calibration mode resolved once, when it was made): the classifier ``pool``, the calibration
        ``mode`` and ``accept_unconverged``, the split (``test_fraction``, ``max_items``, ``max_train``),
        the artificial respondents (``artificial``, ``n_random``), ``ability_method``, ``seed`` (the split,
        the classifiers and the random guessers) and ``target`` (of a CSV path). Default: ``Settings()``.
        Without the artificial respondents, instances every classifier gets right (or wrong) are constant
        items: they are recorded in ``dropped_items`` and left out of the calibration.
    **old
        The keywords of irtbridge 0.1 (``pool=``, ``calibration=``, ``random_state=``, ``test_size=``,
        ``max_test=``, ...), each a field of ``settings`` now: they still work, with a DeprecationWarning,
        and cannot be mixed with ``settings``.

    Returns
    -------
    DatasetResult

    Notes
    -----
    1. stratified split (test set capped at ``max_items``), features prepared on the training part;
    2. every classifier fitted on the training part and scored on the test part, plus the artificial
       respondents: the response matrix (respondents x test instances, 1 = correct);
    3. 3PL calibration (constant items dropped), then abilities and True-Scores per respondent.

    Examples
    --------
    >>> result = evaluate_dataset("iris", Settings.quick_run(max_items=20))     # doctest: +R
    >>> result.n_test, result.calibration_mode                                # doctest: +R
    (20, 'stable')
    """
    settings = given_settings(settings, _old_settings_keywords(old))
    models = classifier_pool(settings.pool)
    stages = [(0, "data")]  # (number of warnings caught when the stage began, stage)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = load_benchmark_dataset(dataset, target=settings.target)
        try:
            result = _evaluate(ds, models, settings, mark=lambda stage: stages.append((len(caught), stage)))
            result = replace(result, calibration_mode=settings.mode.name)
        except ValidationError as exc:
            raise ValidationError(f"dataset {ds.name!r}: {exc}") from None
    kept = _stage_warnings(caught, stages)
    for w in kept:
        warnings.warn(w.message, w.warning_class, stacklevel=find_stack_level())
    return replace(result, warnings=kept)


_old_settings_keywords = moved_keywords("irtbridge.decodirt.evaluate_dataset", OLD_KEYWORDS)
_old_mode_keywords = moved_keywords("irtbridge.decodirt.calibrate_with_fallback", {
    k: f"CalibrationMode.resolve({k}=)" for k in ("engine", "fallback", "engine_options")})


# Zh below this marks an aberrant response pattern (the lower 2.5% of the standard normal)
ABERRANT_ZH = -1.96
MISFIT_ALPHA = 0.05


def fit_diagnostics(fit: Any, name: str = "") -> tuple[pd.Series | None, pd.Series | None]:
    """Item misfit (S-X2 p-values, Benjamini-Hochberg adjusted) and person fit (Zh) of a mirt fit.

    ``(None, None)`` for an ltm fit (mirt computes these) or when mirt cannot compute them on this data
    (a :class:`DataWarning` says why): the estimates never depend on this by-product.
    """
    if not ENGINE_TABLE[fit.engine].mirt_model or fit.r_model is None:
        return None, None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", exceptions.RWarning)
            p = fit.item_fit(["S_X2"])["p_adjusted_S_X2"]
            zh = fit.person_fit()["Zh"]
    except (IrtBridgeError, ValueError, KeyError) as exc:
        warnings.warn(f"dataset {name!r}: item and person fit not available ({str(exc).splitlines()[0]})",
                      DataWarning, stacklevel=find_stack_level())
        return None, None
    return p, zh


def _evaluate(ds: Any, models: Mapping[str, Any], settings: Settings,
              mark: Callable[[str], None] = lambda stage: None) -> DatasetResult:
    mode = settings.mode
    mark("classifiers")
    started = time.perf_counter()
    responses, kind, common = _respond(ds, models, settings)
    common["engine_requested"] = mode.engine
    seconds = {"models": time.perf_counter() - started}

    mark("calibration")
    started = time.perf_counter()
    try:
        fit, attempts = calibrate_with_fallback(
            responses, mode, accept_unconverged=bool(settings.accept_unconverged), keep_r_model=True,
        )
    except ValidationError as exc:
        fit, attempts = None, (CalibrationAttempt(mode.engine, "error", str(exc)),)
    seconds["calibration"] = time.perf_counter() - started
    if fit is None:
        why = "; ".join(a.outcome for a in attempts)
        error = f"no item parameters ({'; '.join(map(str, attempts)) or 'no engine tried'})"
        warnings.warn(f"dataset {ds.name!r}: no item parameters ({why}); it is left out", DataWarning,
                      stacklevel=find_stack_level())
        respondents = _unscored(kind, responses)
        for col in ("theta", "se", "at_bound", "true_score", "theta_positive", "true_score_positive", "n_items",
                    "n_positive"):
            respondents[col] = np.nan
        return DatasetResult(
            status="failed", error=error, items=pd.DataFrame(columns=["a", "b", "g", "u"], dtype=float),
            respondents=respondents, calibration=None, engine=None, attempts=attempts, dropped_items=(),
            seconds=seconds, **common,
        )
    mark("scoring")
    started = time.perf_counter()
    try:
        scores = score_respondents(responses, fit, method=settings.ability_method)
    except ValidationError as exc:
        # e.g. an engine returned a guessing parameter of exactly 1 that no response function accepts
        warnings.warn(f"dataset {ds.name!r}: the item parameters cannot be scored ({exc}); it is left out", DataWarning,
                      stacklevel=find_stack_level())
        attempts = attempts + (CalibrationAttempt(fit.engine, "error", f"scoring: {exc}"),)
        return DatasetResult(
            status="failed", error=f"no item parameters ({'; '.join(map(str, attempts))})", items=fit.items.copy(),
            respondents=_unscored(kind, responses), calibration=fit, engine=fit.engine,
            attempts=attempts, dropped_items=tuple(fit.dropped_items), seconds=seconds, **common,
        )
    scores.insert(0, "kind", kind)
    seconds["scoring"] = time.perf_counter() - started
    items = fit.items.copy()
    # SEs only if the fit already has them: flagging never pays for an information matrix
    items["flag"] = flag_items(items, fit.standard_errors if fit.standard_errors_computed else None)
    items.index.name = "item"
    mark("fit diagnostics")
    started = time.perf_counter()
    misfit_p, zh = fit_diagnostics(fit, ds.name)
    items["misfit_p"] = misfit_p.reindex(items.index).to_numpy() if misfit_p is not None else np.nan
    scores["Zh"] = zh.to_numpy() if zh is not None and len(zh) == len(scores) else np.nan
    seconds["fit_diagnostics"] = time.perf_counter() - started
    fit = fit.without_r_model()
    return DatasetResult(
        status="ok", items=items, respondents=scores, calibration=fit, engine=fit.engine, attempts=attempts,
        dropped_items=tuple(fit.dropped_items), seconds=seconds, **common,
    )


#: below this many test instances a calibration has too few items to separate classifiers
MIN_TEST_ITEMS = 20


def _warn_unrankable(name: str, n_test: int, features: np.ndarray) -> None:
    """Say so when a dataset cannot rank anything: too few test items, or no feature that varies."""
    if n_test < MIN_TEST_ITEMS:
        warnings.warn(f"dataset {name!r}: only {n_test} test instance(s) (fewer than {MIN_TEST_ITEMS}): too few "
                      "items to separate the classifiers; its ratings are mostly noise", DataWarning,
                      stacklevel=find_stack_level())
    if features.size == 0 or np.all(np.ptp(features, axis=0) == 0):
        warnings.warn(f"dataset {name!r}: every feature is constant on the training part: the classifiers cannot "
                      "learn from it and differ only in how they guess; its ranking says nothing of their skill",
                      DataWarning, stacklevel=find_stack_level())


def _respond(ds: Any, models: Mapping[str, Any], settings: Settings) -> tuple[pd.DataFrame, pd.Series, dict]:
    """The split, every classifier's answers and the artificial respondents' (decodIRT's first two steps).

    Returns the response matrix, each respondent's kind, and the fields of the :class:`DatasetResult`
    they determine (split, labels, predictions, scores, failed classifiers).
    """
    y = ds.y.to_numpy()
    seed = settings.seed
    train, test = stratified_split(y, test_fraction=settings.test_fraction, max_items=settings.max_items,
                                   max_train=settings.max_train, seed=seed)
    Xtr, Xte = prepare_features(ds.X.iloc[train], ds.X.iloc[test])
    _warn_unrankable(ds.name, len(test), Xtr)
    classes = class_labels(y)
    # the raw label of the positive (minority) class of a binary task, for the classifiers' scores
    positive = next(v for v in y if str(v) == classes[1]) if len(classes) == 2 else None
    predictions, scores, failures = fit_predict_score_pool(
        models, Xtr, y[train], Xte, positive=positive, random_state=seed)
    real = response_matrix(predictions, y[test])
    if not settings.artificial:
        fake = real.iloc[0:0]
    else:
        fake = artificial_responses(y[train], y[test], n_random=settings.n_random, random_state=seed)
    responses = pd.concat([real, fake], axis=0)
    item_index = _item_names(ds, test)
    responses.columns = item_index
    responses.index.name = "respondent"
    predictions = pd.DataFrame(predictions.to_numpy().astype(str), index=predictions.index, columns=item_index)
    if scores is not None:
        scores = pd.DataFrame(scores.to_numpy(dtype=float), index=scores.index, columns=item_index)
    kind = pd.Series(["classifier"] * len(real) + ["artificial"] * len(fake), index=responses.index)
    for name, err in failures.items():
        warnings.warn(f"dataset {ds.name!r}: classifier {name!r} failed and is left out ({err})", DataWarning,
                      stacklevel=find_stack_level())
    common = dict(
        name=ds.name, responses=responses, failed_models=dict(failures),
        n_instances=len(ds.y), n_features=ds.X.shape[1], n_classes=ds.n_classes, n_train=len(train),
        n_test=len(test), source=ds.source, classes=classes, train_index=train, test_index=test,
        y_test=pd.Series(y[test].astype(str), index=item_index, name="label"), predictions=predictions, scores=scores,
    )
    return responses, kind, common


def _unscored(kind: pd.Series, responses: pd.DataFrame) -> pd.DataFrame:
    # the respondents of a dataset without item parameters: who they are and how often they were right
    return pd.DataFrame({"kind": kind, "accuracy": responses.to_numpy(dtype=float).mean(axis=1)})


def _item_names(ds: Any, test: np.ndarray) -> pd.Index:
    # items are named by the test instances' row labels, or by position when row labels repeat
    labels = [str(v) for v in ds.X.index[test]]
    if len(set(labels)) != len(labels):
        labels = [str(int(v)) for v in test]
    return pd.Index(labels, name="item")
