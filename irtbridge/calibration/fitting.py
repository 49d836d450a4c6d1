"""Item calibration delegated to R's ``mirt`` and ``ltm``.

:func:`calibrate` sends the response matrix to R once (numpy2ri, one copy), fits the model there and
brings back plain numbers in one layout for both engines. The live R model stays available as an
optional handle (``Calibration.r_model``) for the engine's own scoring and for experts; it never travels
when a result is pickled or written to JSON.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._validation import as_response_matrix, check_choice, constant_items
from irtbridge.calibration.checks import check_before_fit
from irtbridge.calibration.priors import Prior, parse_priors
from irtbridge.calibration.result import DICHOTOMOUS, ENGINES, MODELS, Calibration
from irtbridge.exceptions import ConvergenceWarning, DataWarning, RWarning, ValidationError
from irtbridge.irt.em import ResponseData

__all__ = ["calibrate", "parameter_table"]


def calibrate(
    responses: Any,
    model: str = "2PL",
    engine: str = "mirt",
    *,
    se: bool = True,
    drop_constant: bool = False,
    priors: Any = None,
    dims: int = 1,
    spec: Any = None,
    parameters: Any = None,
    **options: Any,
) -> Calibration:
    """Calibrate an IRT model in R (mirt or ltm) and return a :class:`Calibration`.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns are items; NaN is a missing response (kept missing). Dichotomous
        models need 0/1; graded/gpcm need integer categories. ``engine="native"`` also takes the answered
        cells alone (:class:`irtbridge.irt.em.ResponseData`, from ``responses_from_long(..., sparse=True)``).
    model : str, or one per item (list, or mapping item → name)
        ``rasch``, ``1PL``, ``2PL``, ``3PL``, ``4PL``, ``graded``, ``gpcm``; mirt also fits ``nominal``,
        ``grsm`` (graded rating scale), ``rsm`` (Rasch rating scale) and ``pcm`` (partial credit, mirt's
        polytomous ``Rasch``). ``rasch`` fixes every discrimination at 1; ``1PL`` estimates one
        discrimination shared by all (1PL) items. A list or mapping is mirt's ``itemtype`` vector.
    engine : {"mirt", "ltm", "native"}
        ``"native"``: the R-free EM of :mod:`irtbridge.irt.em` (rasch, 1PL, 2PL, graded), checked against mirt;
        it takes mirt's ``quadpts``, ``TOL`` and ``technical={"NCYCLES": ...}``, and ``client=`` for Dask.
    se : bool
        Compute standard errors (mirt ``SE = TRUE``; ltm from its Hessian, delta method to the IRT
        parameterization; the native engine: mirt's ``SE.type = "crossprod"``, up to 1,000 parameters).
    drop_constant : bool
        Items answered identically by everyone carry no information and break estimation. By default they
        are an error naming them; with ``drop_constant=True`` they are dropped with a
        :class:`DataWarning` and listed in ``Calibration.dropped_items``.
    priors : mapping or list of Prior, optional
        mirt only: priors on item parameters, e.g. ``{"a1": ("lnorm", 0, 0.5), "g": ("expbeta", 5, 17)}``
        (see :mod:`irtbridge.calibration.priors`); with priors the fit is a MAP estimate. Each named
        parameter must be one the model estimates, checked against mirt's ``pars = "values"`` table
        before the fit (:mod:`irtbridge.calibration.checks`): a one-line :class:`ValidationError` if not.
    dims : int
        mirt only: an exploratory model with this many factors (``mirt(data, dims)``; rotate with
        ``rotate="oblimin"`` etc., read with :meth:`Calibration.loadings`).
    spec : ModelSpec or str, optional
        mirt only: a confirmatory/bifactor structure (:class:`~irtbridge.calibration.spec.ModelSpec`, or
        mirt.model syntax text), handed to ``mirt.model()`` as data. Parameters its constraints, priors
        and fixed values name are checked against mirt's parameter table first, as for ``priors``.
    parameters : DataFrame, optional
        mirt only: a parameter table (:meth:`Calibration.parameters` or :func:`parameter_table` for this
        data and model) whose ``value``, ``est``, bounds and prior columns fix, free or start parameters
        (mirt's ``pars = table``); e.g. link a form by fixing its common items at another form's values.
    **options
        Estimation options with mirt's names: ``method="EM"|"QMCEM"|"MCEM"|"MHRM"``, ``quadpts``,
        ``TOL``, ``technical={"NCYCLES": ...}``, ``SE_type="Oakes"`` (mirt's ``SE.type``), ``rotate``.
        Passed to the engine unchanged, with the engine's own argument names (e.g. ``TOL=1e-5``,
        ``technical={"NCYCLES": 2000}``, ``quadpts=41`` for mirt; ``control={"GHk": 21}`` for ltm).

    Returns
    -------
    Calibration

    Notes
    -----
    R equivalents: ``mirt(data, 1, itemtype = "2PL", SE = TRUE)`` then
    ``coef(fit, IRTpars = TRUE, simplify = TRUE)``; ``ltm(data ~ z1)``, ``rasch``, ``tpm``, ``grm``,
    ``gpcm``. Numbers are read from R objects, never from printed output (ltm's ``coef`` rounds).

    Examples
    --------
    >>> import irtbridge
    >>> from irtbridge.datasets import response_dataset
    >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), model="2PL")    # doctest: +R
    >>> fit.items[["a", "b"]].round(3)
                a      b
    Item.1  0.988 -1.879
    Item.2  1.081 -0.748
    Item.3  1.706 -1.058
    Item.4  0.765 -0.635
    Item.5  0.736 -2.520
    """
    engine = check_choice(engine, "engine", ENGINES, ignore_case=True)
    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = _resolve_model(model, engine, columns)
    structured = per_item is not None or dims != 1 or spec is not None or parameters is not None
    if structured and engine != "mirt":
        raise ValidationError("dims, spec, parameters and per-item models need engine='mirt'")
    if not isinstance(dims, (int, np.integer)) or isinstance(dims, bool) or dims < 1:
        raise ValidationError(f"dims must be a positive integer, got {dims!r}")
    if "SE_type" in options:
        options["SE.type"] = options.pop("SE_type")
    if engine == "native" and isinstance(responses, ResponseData):  # answered cells only (sparse layout)
        if priors is not None:
            raise ValidationError("priors: only engine='mirt' takes priors on item parameters")
        from irtbridge.calibration.native import calibrate_native_sparse

        return calibrate_native_sparse(responses, model, bool(se), drop_constant, options)
    prep = _prepare(responses, columns, model, per_item, drop_constant)
    if priors is not None and per_item is not None:
        raise ValidationError("priors: with per-item models put priors in a ModelSpec or the parameters table")
    prep.priors.extend(parse_priors(priors, prep.names) if per_item is None else [])
    if prep.priors and engine != "mirt":
        raise ValidationError("priors: only engine='mirt' takes priors on item parameters")
    if prep.priors:
        prep.extra["priors"] = [p.to_r() for p in prep.priors]
    if structured:
        prep.extra.update(_structure_args(prep.per_item, dims, spec, parameters, prep.names))
    if engine == "native":
        from irtbridge.calibration.native import calibrate_native

        return calibrate_native(prep.values, prep.names, model, bool(se), options, prep.dropped)
    if engine == "mirt":  # every parameter a spec or a prior names must exist in this model: ask mirt first
        check_before_fit(prep.values, prep.names, model, prep.per_item, prep.extra, parameters, prep.priors, options)
    return _fit_in_r(engine, prep, bool(se), options)


@dataclass
class _Prepared:
    """The response matrix and model calibrate() sends to R, after constant items are handled."""

    values: np.ndarray
    names: list[str]
    dropped: tuple[str, ...]
    model: str
    per_item: list[str] | None
    priors: list[Prior] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def _prepare(responses: Any, columns: list[str] | None, model: str, per_item: list[str] | None,
             drop_constant: bool) -> _Prepared:
    """Check the responses; drop constant items if asked (with a DataWarning) or name them in an error."""
    dichotomous = all(m in DICHOTOMOUS for m in (per_item or [model]))
    values, names, _ = as_response_matrix(responses, "responses", dichotomous=dichotomous)
    dropped: tuple[str, ...] = ()
    const = constant_items(values, names)
    if const:
        if not drop_constant:
            raise ValidationError(
                f"responses: item(s) {', '.join(map(repr, const[:10]))}{' …' if len(const) > 10 else ''} are "
                "answered the same way by every respondent and carry no information; drop them, or pass "
                "drop_constant=True to drop them with a warning"
            )
        constant = set(const)
        keep = [j for j, n in enumerate(names) if n not in constant]
        if len(keep) < 2:
            raise ValidationError(f"responses: only {len(keep)} item(s) remain after dropping constant items")
        warnings.warn(f"dropped {len(const)} constant item(s): {', '.join(const[:10])}", DataWarning, stacklevel=3)
        values = np.ascontiguousarray(values[:, keep])
        names = [names[j] for j in keep]
        dropped = tuple(const)
        all_missing = np.isnan(values).all(axis=1)
        if all_missing.any():
            raise ValidationError(
                f"responses: {int(all_missing.sum())} respondent(s) have no responses left after dropping constant items"
            )
    if per_item is not None and len(per_item) != len(names) + len(dropped):
        raise ValidationError(f"model: {len(per_item)} item types for {len(names) + len(dropped)} items")
    if per_item is not None and dropped:
        gone = set(dropped)
        per_item = [m for m, n in zip(per_item, columns or names) if n not in gone]
    return _Prepared(values, names, dropped, model, per_item)


def _fit_in_r(engine: str, prep: _Prepared, se: bool, options: dict[str, Any]) -> Calibration:
    """Fit in R (one call), pass R's warnings on, keep estimates whose standard errors failed."""
    from irtbridge._r import session

    session.ensure_packages(engine)
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session.call(
            f"irtb_{engine}_fit", data=prep.values, item_names=prep.names, model=prep.per_item or prep.model, se=se,
            options=dict(options), **prep.extra,
        )
    elapsed = time.perf_counter() - started
    r_warnings = tuple(str(w.message).removeprefix("R: ") for w in caught)
    for w in caught:  # at the line that called calibrate(), as session.call would have put them
        warnings.warn(w.message, w.category, stacklevel=3)
    se_problem = out.get("se_problem")
    if se and se_problem is not None:
        # the estimates exist; only the information matrix failed: keep them, say why SEs are NaN
        se_problem = str(se_problem).strip()
        message = f"{engine}: standard errors unavailable ({se_problem}); estimates kept, standard errors set to NaN"
        warnings.warn(message, RWarning, stacklevel=3)
        r_warnings = (*r_warnings, message)
    if not bool(out["converged"]):
        warnings.warn(
            f"{engine} did not converge for the {prep.model} model after {out['iterations']} iterations; "
            "raise the iteration limit or simplify the model",
            ConvergenceWarning,
            stacklevel=3,
        )
    effective = dict(options, se=se, **({"se_unavailable": se_problem} if se and se_problem else {}),
                     **({"priors": [p.to_r() for p in prep.priors]} if prep.priors else {}),
                     **({k: v for k, v in prep.extra.items() if k in ("dims", "syntax")}))
    return _assemble(out, engine, prep, effective, r_warnings, elapsed)


def _assemble(out: Mapping[str, Any], engine: str, prep: _Prepared, options: dict[str, Any],
              r_warnings: tuple[str, ...], elapsed: float) -> Calibration:
    """The Calibration from R's plain result: labelled tables, provenance, the live model handle."""
    layout = prep.model if prep.per_item is None and out.get("cov") is None else "mixed"
    items = _item_table(out["items"], prep.names, layout)
    se_table = _item_table(out["se"], prep.names, layout) if out.get("se") is not None else items * np.nan
    versions = _versions(engine)
    iterations = out["iterations"]
    return Calibration(
        items=items,
        standard_errors=se_table,
        loglik=float(out["loglik"]),
        aic=float(out["aic"]),
        bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]),
        converged=bool(out["converged"]),
        iterations=int(iterations) if iterations is not None and not pd.isna(iterations) else -1,
        model=prep.model,
        engine=engine,
        n_respondents=int(prep.values.shape[0]),
        latent_mean=float(out["latent_mean"]),
        latent_var=float(out["latent_var"]),
        options=options,
        warnings=r_warnings,
        provenance={
            "irtbridge_version": __version__,
            "engine_version": versions["packages"][engine],
            "r_version": versions["r"],
            "fit_seconds": elapsed,
        },
        dropped_items=prep.dropped,
        factors=tuple(out["cov"].columns) if out.get("cov") is not None else ("F1",),
        item_types=tuple(prep.per_item) if prep.per_item is not None else (),
        r_model=out["model"],
    )


_VERSIONS: dict[str, dict[str, Any]] = {}


def _versions(engine: str) -> dict[str, Any]:
    """R's and the engine's versions, asked once per process (one R round trip fewer per fit)."""
    from irtbridge._r import session

    if engine not in _VERSIONS:
        _VERSIONS[engine] = session.r_versions([engine])
    return _VERSIONS[engine]


def _resolve_model(model: Any, engine: str, columns: list[str] | None) -> tuple[str, list[str] | None]:
    """One model name, or mirt's itemtype vector (a list, or a mapping over the DataFrame's columns)."""
    if isinstance(model, str):
        model = check_choice(model, "model", MODELS, ignore_case=True)
        if model not in ENGINES[engine]:
            other = [e for e in ENGINES if model in ENGINES[e]]
            raise ValidationError(f"engine {engine!r} does not fit model {model!r}; use engine={other[0]!r}")
        return model, None
    if isinstance(model, Mapping):
        if columns is None:
            raise ValidationError("model: a per-item mapping needs responses as a DataFrame (item names)")
        unknown = [k for k in model if str(k) not in columns]
        missing = [c for c in columns if c not in {str(k) for k in model}]
        if unknown or missing:
            raise ValidationError(f"model: mapping has unknown item(s) {unknown[:5]} / lacks item(s) {missing[:5]}")
        model = [model[c] if c in model else model[next(k for k in model if str(k) == c)] for c in columns]
    if not isinstance(model, (list, tuple)) or not model:
        raise ValidationError(f"model must be a name, a list of names or a mapping item → name, got {model!r}")
    per_item = [check_choice(str(m), "model", MODELS, ignore_case=True) for m in model]
    if len(set(per_item)) == 1:
        return _resolve_model(per_item[0], engine, columns)[0], None
    return "mixed", per_item


def _structure_args(per_item, dims, spec, parameters, names) -> dict[str, Any]:
    """The R arguments for a structured mirt fit: dims or mirt.model text, and the parameter table."""
    from irtbridge.calibration.spec import ModelSpec

    out: dict[str, Any] = {"dims": int(dims)}
    if spec is not None:
        if dims != 1:
            raise ValidationError("pass either dims (exploratory) or spec (confirmatory), not both")
        if isinstance(spec, str):
            spec = ModelSpec.from_syntax(spec)
        if not isinstance(spec, ModelSpec):
            raise ValidationError(f"spec must be a ModelSpec or mirt.model text, got {type(spec).__name__}")
        out["syntax"] = spec.to_syntax(names)
    if parameters is not None:
        if not isinstance(parameters, pd.DataFrame) or not {"item", "name", "value"} <= set(parameters.columns):
            raise ValidationError("parameters must be a DataFrame with mirt's columns (item, name, value, est, ...)")
        cols = [c for c in ("item", "name", "value", "lbound", "ubound", "est", "prior.type", "prior_1", "prior_2")
                if c in parameters.columns]
        out["table"] = {c: (parameters[c].astype(str).tolist() if c in ("item", "name", "prior.type")
                            else parameters[c].astype(bool).tolist() if c == "est"
                            else parameters[c].astype(float).to_numpy()) for c in cols}
    return out


def _item_table(table: pd.DataFrame, names: list[str], model: str) -> pd.DataFrame:
    """Label the item table with the caller's names (numpy2ri drops them; R may mangle them)."""
    if table.shape[0] != len(names):
        raise RuntimeError(f"R returned {table.shape[0]} item rows for {len(names)} items")
    frame = pd.DataFrame(table.to_numpy(dtype=float, copy=True), index=pd.Index(names), columns=list(table.columns))
    if model in DICHOTOMOUS and {"a", "b", "g", "u"} <= set(frame.columns):
        frame = frame[["a", "b", "g", "u"]]
    return frame


def parameter_table(responses: Any, model: Any = "2PL", *, dims: int = 1, spec: Any = None,
                    **options: Any) -> pd.DataFrame:
    """mirt's starting parameter table for ``calibrate(responses, model, ...)`` without fitting it.

    R equivalent: ``mirt(data, model, itemtype, pars = "values")``. Edit ``value`` and ``est`` (e.g. fix
    common items at another form's estimates) and pass it as ``calibrate(..., parameters=table)``.

    Examples
    --------
    Link form B (items 2-5, odd rows of LSAT7) to form A (items 1-4, even rows): the common items are
    fixed at form A's estimates and form B's latent mean and variance are estimated on A's scale (R:
    the same edits to ``mirt(form_b, 1, "2PL", pars = "values")``, then ``mirt(form_b, 1, "2PL", pars = sv)``).

    >>> from irtbridge import calibrate
    >>> from irtbridge.datasets import response_dataset
    >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
    >>> form_a, form_b = lsat.iloc[0::2, 0:4], lsat.iloc[1::2, 1:5]
    >>> fixed = calibrate(form_a, "2PL", se=False).parameters().set_index(["item", "name"])["value"]
    >>> table = parameter_table(form_b, "2PL")
    >>> common = table["item"].isin(["Item.2", "Item.3", "Item.4"]) & table["name"].isin(["a1", "d"])
    >>> table.loc[common, "value"] = [fixed[(i, n)] for i, n in zip(table["item"][common], table["name"][common])]
    >>> table.loc[common, "est"] = False
    >>> table.loc[table["name"].isin(["MEAN_1", "COV_11"]), "est"] = True
    >>> linked = calibrate(form_b, "2PL", parameters=table, se=False)
    >>> round(linked.latent_mean, 3), round(linked.latent_var, 3)
    (-0.004, 0.965)
    >>> linked.items[["a", "b"]].round(3)
                a      b
    Item.2  1.202 -0.688
    Item.3  1.746 -1.046
    Item.4  0.732 -0.671
    Item.5  0.629 -2.913
    """
    from irtbridge._r import session

    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = _resolve_model(model, "mirt", columns)
    dichotomous = all(m in DICHOTOMOUS for m in (per_item or [model]))
    values, names, _ = as_response_matrix(responses, "responses", dichotomous=dichotomous)
    extra = _structure_args(per_item, dims, spec, None, names)
    if "SE_type" in options:
        options["SE.type"] = options.pop("SE_type")
    check_before_fit(values, names, model, per_item, extra, None, [], options)  # as calibrate() would
    session.ensure_packages("mirt")
    return session.call("irtb_mirt_values", data=values, item_names=names, model=per_item or model,
                        options=dict(options), **extra)
