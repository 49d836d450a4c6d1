"""``calibrate(..., engine="native")``: the R-free EM of :mod:`irtbridge.irt.em`, as a :class:`Calibration`.

It takes mirt's names and defaults for the options the engines share (``quadpts=61``, ``TOL=1e-4``,
``technical={"NCYCLES": 500}``), so ``calibrate(data, "2PL", engine=e, TOL=1e-6, quadpts=61)`` means the same
fit for ``e = "mirt"`` and ``e = "native"``. ``client=`` (a ``distributed.Client``) computes the E-step on a
Dask cluster.

Models: ``rasch``, ``1PL``, ``2PL`` and ``graded`` (:data:`irtbridge.irt.em.EM_MODELS`). A graded fit
recodes each item's observed values to categories ``0..K-1`` as mirt does and keeps the values in
``options["categories"]`` (item -> values), so ``fit.abilities(responses=...)`` takes data in the codes
the fit was given.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Mapping

import numpy as np

from irtbridge import __version__
from irtbridge.calibration.result import Calibration
from irtbridge.exceptions import ConvergenceWarning, DataWarning, ValidationError
from irtbridge.irt.em import ResponseData, fit_em, irt_table, prepare_graded, prepare_responses

__all__ = ["calibrate_native", "calibrate_native_sparse", "NATIVE_OPTIONS"]

NATIVE_OPTIONS = ("quadpts", "TOL", "technical", "client", "chunks")


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    unknown = [k for k in options if k not in NATIVE_OPTIONS]
    if unknown:
        raise ValidationError(f"engine='native' does not take option(s) {unknown}; it takes {', '.join(NATIVE_OPTIONS)}")
    technical = dict(options.get("technical") or {})
    extra = [k for k in technical if k != "NCYCLES"]
    if extra:
        raise ValidationError(f"engine='native': technical takes only NCYCLES, got {extra}")
    return {"quadpts": int(options.get("quadpts", 61)), "TOL": float(options.get("TOL", 1e-4)),
            "NCYCLES": int(technical.get("NCYCLES", 500))}


def calibrate_native(values: np.ndarray, names: list[str], model: str, se: bool, options: Mapping[str, Any],
                     dropped: tuple[str, ...] = ()) -> Calibration:
    """Fit ``model`` (rasch, 1PL, 2PL or graded) natively on a validated 0/1/NaN (graded: integer/NaN) matrix."""
    if model == "graded":
        data, categories = prepare_graded(values, names)
        return _fit(data, model, se, options, dropped, categories)
    return _fit(prepare_responses(values, names), model, se, options, dropped)


def calibrate_native_sparse(data: ResponseData, model: str, se: bool, drop_constant: bool,
                            options: Mapping[str, Any]) -> Calibration:
    """Fit on answered cells only (:class:`ResponseData`, e.g. ``responses_from_long(..., sparse=True)``).

    The checks of the dense path, on the sparse layout: no respondent without answers, constant items an
    error naming them (or dropped with a :class:`DataWarning` when ``drop_constant``).
    """
    if model == "graded":
        raise ValidationError("engine='native' fits 'graded' from a response matrix (DataFrame or array of "
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
        warnings.warn(f"dropped {len(const)} constant item(s): {', '.join(const[:10])}", DataWarning, stacklevel=3)
        data = ResponseData(data.A[:, keep], data.M[:, keep], tuple(data.item_names[j] for j in keep), data.index)
    empty = int((np.asarray(data.M.sum(axis=1)).ravel() == 0).sum())
    if empty:
        raise ValidationError(f"responses: {empty} respondent(s) have no responses")
    return _fit(data, model, se, options, tuple(const))


def _fit(data: ResponseData, model: str, se: bool, options: Mapping[str, Any], dropped: tuple[str, ...],
         categories: tuple[tuple[float, ...], ...] | None = None) -> Calibration:
    settings = _options(options)
    names = list(data.item_names)
    started = time.perf_counter()
    client = options.get("client")
    if client is not None:
        from irtbridge.irt.em_dask import fit_em_dask

        result = fit_em_dask(data, model, client, chunks=options.get("chunks"), **settings)
    else:
        result = fit_em(data, model, **settings)
    elapsed = time.perf_counter() - started
    notes = []
    if se:
        notes.append("native engine: standard errors are not computed (NaN); use engine='mirt' for them")
    if not result.converged:
        warnings.warn(f"native EM did not converge for the {model} model after {result.iterations} cycles; "
                      "raise technical={'NCYCLES': ...} or TOL", ConvergenceWarning, stacklevel=3)
    items = irt_table(result, names)
    n = data.shape[0]
    return Calibration(
        items=items, standard_errors=items * np.nan, loglik=result.loglik,
        aic=-2 * result.loglik + 2 * result.n_parameters, bic=-2 * result.loglik + result.n_parameters * np.log(n),
        n_parameters=result.n_parameters, converged=result.converged, iterations=result.iterations, model=model,
        engine="native", n_respondents=int(n), latent_mean=0.0, latent_var=float(result.variance),
        options={**settings, "se": bool(se), "dask": client is not None,
                 **({"categories": {n: list(c) for n, c in zip(names, categories)}} if categories else {})},
        warnings=tuple(notes),
        provenance={"irtbridge_version": __version__, "engine_version": __version__, "r_version": None,
                    "fit_seconds": elapsed},
        dropped_items=dropped, r_model=None,
    )
