"""``calibrate(..., engine="native")``: the R-free EM of :mod:`irtbridge.em.core`, as a :class:`Calibration`.

It takes mirt's names and defaults for the options the engines share (``quadpts=61``, ``TOL=1e-4``,
``technical={"NCYCLES": 500}``), so ``calibrate(data, "2PL", engine=e, TOL=1e-6, quadpts=61)`` means the same
fit for ``e = "mirt"`` and ``e = "native"``. ``client=`` (a ``distributed.Client``) computes the E-step on a
Dask cluster.

Standard errors are mirt's ``SE.type = "crossprod"`` (:mod:`irtbridge.em.se`), for up to
:data:`~irtbridge.em.se.MAX_SE_PARAMETERS` estimated parameters; above that, or when the information
matrix is singular, they are NaN and one warning says why (the estimates are kept). By default
(``se=None``) they are computed on first access of ``fit.standard_errors``, from the fitted state and the
prepared responses the fit keeps for that until then (not pickled); ``se=True`` computes them with the fit.

Models: every catalogue row with ``native="em"`` (:data:`irtbridge.em.core.EM_MODELS`: ``rasch``, ``1PL``,
``2PL``, ``3PL``, ``4PL``, ``graded``), each its row's item model (:mod:`irtbridge.em.items`; a dichotomous
one is mirt's ``dich`` with the row's parameters free) fitted by the one EM: maximum likelihood or, with
``priors``, mirt's MAP estimate (``norm`` or ``lnorm`` on ``a1``, ``norm`` on ``d``, ``expbeta`` on ``g``
and ``u``; the 1PL, 2PL, 3PL and 4PL take priors, :mod:`irtbridge.em.priors`), with crossprod SEs
including mirt's prior term. Estimates past the bounds of
:mod:`irtbridge.calibration.results.flags` (runaway slopes, difficulties off the ability grid) are flagged
(``fit.item_flags``) with one warning; priors keep them finite. A graded fit
recodes each item's observed values to categories ``0..K-1`` as mirt does and keeps the values in
``options["categories"]`` (item -> values), so ``fit.abilities(responses=...)`` takes data in the codes
the fit was given.
"""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._catalogue import CATALOGUE, NATIVE_DOMAINS, check_values
from irtbridge._parallel import progress_bar
from irtbridge.calibration.results._se import PendingStandardErrors, SEOutcome
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.results.result import Calibration
from irtbridge.exceptions import find_stack_level, ConvergenceWarning, DataWarning, IrtBridgeWarning, ValidationError
from irtbridge.em.accelerate import ACCELERATORS
from irtbridge.em.core import EMResult, ResponseData, fit_em, irt_table, prepare_graded, prepare_responses
from irtbridge.em.items import Dichotomous, ItemModel, item_model
from irtbridge.em.priors import item_priors
from irtbridge.em.se import MAX_SE_PARAMETERS, crossprod_covariance, irt_standard_errors

__all__ = ["fit", "calibrate_native", "calibrate_native_sparse", "NATIVE_OPTIONS"]

NATIVE_OPTIONS = ("quadpts", "TOL", "technical", "accelerate", "progress", "client", "chunks", "SE.type")


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    unknown = [k for k in options if k not in NATIVE_OPTIONS]
    if unknown:
        raise ValidationError(f"engine='native' does not take option(s) {unknown}; it takes {', '.join(NATIVE_OPTIONS)}")
    technical = dict(options.get("technical") or {})
    extra = [k for k in technical if k != "NCYCLES"]
    if extra:
        raise ValidationError(f"engine='native': technical takes only NCYCLES, got {extra}")
    # the values of the options it shares with mirt, from the same domain table as mirt's
    check_values({k: options[k] for k in ("quadpts", "TOL", "technical") if k in options}, NATIVE_DOMAINS,
                 "calibrate(engine='native')")
    if options.get("SE.type", "crossprod") != "crossprod":
        raise ValidationError(f"engine='native' computes SE_type='crossprod' only, got {options['SE.type']!r}")
    accelerate = options.get("accelerate", "squarem")
    if accelerate not in ACCELERATORS:
        raise ValidationError(f"accelerate={accelerate!r} is not supported by engine='native'; choose one of "
                              f"{', '.join(map(repr, ACCELERATORS))} (mirt's 'Ramsay' is engine='mirt' only)")
    if not isinstance(options.get("progress", False), bool):
        raise ValidationError(f"progress must be True or False, got {options['progress']!r}")
    return {"quadpts": int(options.get("quadpts", 61)), "TOL": float(options.get("TOL", 1e-4)),
            "NCYCLES": int(technical.get("NCYCLES", 500)), "accelerate": accelerate}


@contextmanager
def _cycles_bar(enabled: bool, model: str, ncycles: int) -> Iterator[Callable[[int, float], None] | None]:
    """``progress=True``: a bar on stderr over the EM cycles, with the last cycle's largest change."""
    if not enabled:
        yield None
        return
    bar = progress_bar(True, ncycles, desc=f"native {model} EM", unit="cycle")

    def tick(cycle: int, change: float) -> None:
        bar.update(1)
        bar.set_postfix_str(f"change {change:.1e}", refresh=False)

    try:
        yield tick
    finally:
        bar.close()


def fit(request: FitRequest) -> Calibration:
    """The engine's entry in the dispatch table: a response matrix, or answered cells alone.

    Parameters
    ----------
    request : FitRequest
        The checked request (a dense matrix or :class:`ResponseData`).

    Returns
    -------
    Calibration
        The fit.
    """
    row = CATALOGUE[request.model]
    if request.priors and (row.kind != "dichotomous" or row.slopes == "unit"):
        raise ValidationError(f"priors: engine='native' takes priors for the 1PL, 2PL, 3PL and 4PL, not model "
                              f"{request.model!r}; use engine='mirt'")
    priors = tuple((p.param, p.dist, p.p1, p.p2, p.items) for p in request.priors)
    if isinstance(request.data, ResponseData):
        return calibrate_native_sparse(request.data, request.model, request.se, request.drop_constant,
                                       request.options, priors)
    return calibrate_native(request.data, list(request.names), request.model, request.se, request.options,
                            request.dropped, priors)


def calibrate_native(values: np.ndarray, names: list[str], model: str, se: bool | None, options: Mapping[str, Any],
                     dropped: tuple[str, ...] = (), priors: tuple = ()) -> Calibration:
    """Fit ``model`` (a row of :data:`irtbridge.em.core.EM_MODELS`) natively on a validated 0/1/NaN (graded: integer/NaN) matrix.

    Parameters
    ----------
    values : ndarray
        Respondents x items, validated.
    names : list of str
        The item names.
    model : str
        One of the models the native engine fits.
    se : bool or None
        Standard errors: None or True computes them, False leaves them out.
    options : mapping of str to Any
        The native engine's options (``quadpts``, ``TOL``, ...).
    dropped : tuple of str, default ()
        Constant items already dropped, recorded on the result.
    priors : tuple of Prior, default ()
        Priors (the dichotomous models but the Rasch one).

    Returns
    -------
    Calibration
        The fit.
    """
    if CATALOGUE[model].kind == "polytomous":
        data, categories = prepare_graded(values, names)
        return _fit(data, model, se, options, dropped, categories)
    return _fit(prepare_responses(values, names), model, se, options, dropped, priors=priors)


def calibrate_native_sparse(data: ResponseData, model: str, se: bool | None, drop_constant: bool,
                            options: Mapping[str, Any], priors: tuple = ()) -> Calibration:
    """Fit on answered cells only (:class:`ResponseData`, e.g. ``responses_from_long(..., sparse=True)``).

    The checks of the dense path, on the sparse layout: no respondent without answers, constant items an
    error naming them (or dropped with a :class:`DataWarning` when ``drop_constant``).

    Parameters
    ----------
    data : ResponseData
        The answered cells.
    model : str
        One of the models the native engine fits.
    se : bool or None
        Standard errors: None or True computes them, False leaves them out.
    drop_constant : bool
        Drop constant items (with a DataWarning) instead of refusing them.
    options : mapping of str to Any
        The native engine's options.
    priors : tuple of Prior, default ()
        Priors.

    Returns
    -------
    Calibration
        The fit.
    """
    if CATALOGUE[model].kind == "polytomous":
        raise ValidationError(f"engine='native' fits {model!r} from a response matrix (DataFrame or array of "
                              "categories), not from answered 0/1 cells")
    if data.A.shape != data.M.shape or len(data.item_names) != data.shape[1]:
        raise ValidationError(f"responses: answers {data.A.shape}, observed {data.M.shape} and "
                              f"{len(data.item_names)} item names do not fit together")
    answered = np.asarray(data.M.sum(axis=0)).ravel()
    correct = np.asarray(data.A.sum(axis=0)).ravel()
    const = [n for n, k, c in zip(data.item_names, answered, correct) if c == 0 or c == k]
    if const and not drop_constant:
        raise ValidationError(f"responses: item(s) {', '.join(map(repr, const[:10]))}{' …' if len(const) > 10 else ''}"
                              " are answered the same way by every respondent (or by none); drop them, or pass "
                              "drop_constant=True to drop them with a warning")
    if const:
        keep = np.flatnonzero(~np.isin(np.asarray(data.item_names, dtype=object), const))
        if len(keep) < 2:
            raise ValidationError(f"responses: only {len(keep)} item(s) remain after dropping constant items")
        warnings.warn(f"dropped {len(const)} constant item(s): {', '.join(const[:10])}", DataWarning,
                      stacklevel=find_stack_level())
        data = ResponseData(data.A[:, keep], data.M[:, keep], tuple(data.item_names[j] for j in keep), data.index)
    empty = int((np.asarray(data.M.sum(axis=1)).ravel() == 0).sum())
    if empty:
        raise ValidationError(f"responses: {empty} respondent(s) have no responses")
    return _fit(data, model, se, options, tuple(const), priors=priors)


def _fit(data: ResponseData, model: str, se: bool | None, options: Mapping[str, Any], dropped: tuple[str, ...],
         categories: tuple[tuple[float, ...], ...] | None = None, priors: tuple = ()) -> Calibration:
    """Any native model: its catalogue row's item model (:func:`irtbridge.em.items.item_model`) fitted by the
    one EM (:func:`irtbridge.em.core.fit_em`), with the one SE routine (:mod:`irtbridge.em.se`)."""
    settings = _options(options)
    names = list(data.item_names)
    layout = item_priors(priors, names, model) if priors else None
    item: ItemModel = item_model(model, layout, data.ncat)
    started = time.perf_counter()
    client = options.get("client")
    if client is not None:
        if not item.plain:
            raise ValidationError(f"engine='native': the {model} runs in one process; client= (Dask) serves the "
                                  "models without an asymptote (rasch, 1PL, 2PL, graded)")
        from irtbridge.em.distributed import fit_em_dask

        with _cycles_bar(options.get("progress", False), model, settings["NCYCLES"]) as tick:
            result = fit_em_dask(data, model, client, chunks=options.get("chunks"), progress=tick, priors=layout,
                                 **settings)
    else:
        with _cycles_bar(options.get("progress", False), model, settings["NCYCLES"]) as tick:
            result = fit_em(data, item, progress=tick, **settings)
    elapsed = time.perf_counter() - started
    items = irt_table(result, names)
    compute = lambda: _outcome(*_standard_errors(data, result, item, settings["quadpts"], names))  # noqa: E731
    asymptotes = not item.plain  # its priors and log prior are always recorded (an asymptote takes expbeta)
    options = {**settings, "se": se, "dask": client is not None,
               **({"SE.type": "crossprod"} if se is not False else {}),
               **({"priors": _prior_rows(priors), "log_prior": result.log_prior} if priors or asymptotes else {}),
               **({"categories": {n: list(c) for n, c in zip(names, categories)}} if categories else {})}
    return _calibration(result, items, model, data.shape[0], float(result.variance), se, compute, options,
                        elapsed, dropped)


def _calibration(result: Any, items: pd.DataFrame, model: str, n: int, latent_var: float, se: bool | None,
                 compute: Any, options: dict[str, Any], seconds: float, dropped: tuple[str, ...]) -> Calibration:
    """The Calibration of a native fit: its SE state (:func:`_se_state`), a warning if EM did not converge."""
    se_table, notes = _se_state(se, items, compute)
    if not result.converged:
        warnings.warn(f"native EM did not converge for the {model} model after {result.iterations} cycles; "
                      "raise technical={'NCYCLES': ...} or TOL", ConvergenceWarning, stacklevel=find_stack_level())
    return Calibration(
        items=items, standard_errors=se_table, loglik=result.loglik,
        aic=-2 * result.loglik + 2 * result.n_parameters, bic=-2 * result.loglik + result.n_parameters * np.log(n),
        n_parameters=result.n_parameters, converged=result.converged, iterations=result.iterations, model=model,
        engine="native", n_respondents=int(n), latent_mean=0.0, latent_var=latent_var, options=options,
        warnings=tuple(notes),
        provenance={"irtbridge_version": __version__, "engine_version": __version__, "r_version": None,
                    "fit_seconds": seconds},
        dropped_items=dropped, r_model=None,
    )


def _se_state(se: bool | None, items, compute):
    """The fit's SE state: computed now (``se=True``; a problem warned about and noted), pending
    (``se=None``: on first access) or all NaN (``se=False``)."""
    if se is None:
        return PendingStandardErrors(compute, needs_r=False), []
    if not se:
        return items * np.nan, []
    outcome = compute()
    if outcome.message:
        warnings.warn(outcome.message, IrtBridgeWarning, stacklevel=find_stack_level())
    return outcome.table, [outcome.message] if outcome.message else []


def _outcome(table, problem: str | None) -> SEOutcome:
    return SEOutcome(table, problem, IrtBridgeWarning)


def _prior_rows(priors: tuple) -> list[list[Any]]:
    """The priors as ``options["priors"]`` records them: ``[param, dist, p1, p2(, items)]``."""
    return [list(p[:4]) + ([list(p[4])] if p[4] is not None else []) for p in priors]


def _standard_errors(data: ResponseData, result: EMResult, item: ItemModel, quadpts: int, names: list[str]):
    """The crossprod SE table (with mirt's prior term under priors), or NaN and the reason (the estimates
    never depend on it)."""
    nan = irt_table(result, names) * np.nan
    if result.n_parameters > MAX_SE_PARAMETERS:
        return nan, (f"native engine: standard errors not computed for {result.n_parameters} parameters (more than "
                     f"{MAX_SE_PARAMETERS}); estimates kept, standard errors set to NaN")
    try:
        extra = item.prior_information(result.params()) if isinstance(item, Dichotomous) else None
        cov = crossprod_covariance(data, result, item, quadpts, extra)
        table = irt_standard_errors(cov, result, item, names)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        return nan, f"native engine: standard errors unavailable ({exc}); estimates kept, standard errors set to NaN"
    if not np.isfinite(np.diag(cov)).all() or (np.diag(cov) <= 0).any():
        return nan, ("native engine: standard errors unavailable (the crossprod information matrix is not positive "
                     "definite); estimates kept, standard errors set to NaN")
    return table, None
