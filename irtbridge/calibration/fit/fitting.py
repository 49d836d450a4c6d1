"""``irtbridge.calibrate``: check a calibration once, then hand it to its engine.

:func:`calibrate` resolves the model (one name or mirt's itemtype vector), checks the responses
(constant items named or dropped), checks the options against what the chosen engine takes (its row of
:data:`irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`) and builds one
:class:`~irtbridge.calibration.engines.FitRequest`; the engine module (mirt, ltm or native) fits it.
"""

from __future__ import annotations

from typing import Any, cast

import pandas as pd

from irtbridge._catalogue import mirt_itemtype
from irtbridge._constraints import Choice, Flag, Int, Seed, constraints
from irtbridge._validation import R_SEED_MAX, as_response_matrix, check_choice
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.inputs.checks import check_before_fit
from irtbridge.calibration.inputs.itemtypes import METHODS, estimation_options, item_type_options, resolve_model
from irtbridge.calibration.inputs.latent import latent_arguments
from irtbridge.calibration.inputs.options import MIRT_OPTIONS, check_options
from irtbridge.calibration.inputs.priors import parse_priors
from irtbridge.calibration.inputs.responses import calibration_data, item_minimums
from irtbridge.calibration.inputs.spec import structure_arguments
from irtbridge.calibration.results.flags import warn_flagged
from irtbridge.calibration.results.result import DICHOTOMOUS, Calibration
from irtbridge.exceptions import ValidationError, r_context
from irtbridge.em.core import ResponseData

__all__ = ["calibrate", "parameter_table"]

#: the factors of an exploratory model (calibrate, calibrate_groups, parameter_table)
DIMS = Int(low=1, phrase="a positive integer")


# R's options (quadpts, TOL, technical, ...) are **options: each engine's row checks them against the catalogue's
# domains (TOL = NaN, mirt's "evaluate at the given values", included); they are not declared here
@constraints(engine=Choice(tuple(ENGINE_TABLE), ignore_case=True),
             se=Flag(allow_none=True, none_means="None (on first access)"), drop_constant=Flag(), dims=DIMS,
             method=Choice(METHODS, ignore_case=True, allow_none=True),
             seed=Seed(allow_none=True, high=R_SEED_MAX, say_none=False))
def calibrate(
    responses: Any,
    model: str = "2PL",
    engine: str = "mirt",
    *,
    se: bool | None = None,
    drop_constant: bool = False,
    priors: Any = None,
    dims: int = 1,
    spec: Any = None,
    parameters: Any = None,
    dentype: str | None = None,
    covariates: Any = None,
    formula: str | None = None,
    method: str | None = None,
    key: Any = None,
    gpcm_mats: Any = None,
    seed: int | None = None,
    **options: Any,
) -> Calibration:
    """Calibrate an IRT model in R (mirt or ltm) and return a :class:`Calibration`.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns are items; NaN is a missing response (kept missing). Dichotomous
        models need 0/1; graded/gpcm need integer categories. ``engine="native"`` also takes the answered
        cells alone (:class:`irtbridge.em.core.ResponseData`, from ``responses_from_long(..., sparse=True)``).
    model : str, or one per item (list, or mapping item → name)
        ``rasch``, ``1PL``, ``2PL``, ``3PL``, ``4PL``, ``graded``, ``gpcm``; mirt also fits ``nominal``,
        ``grsm`` (graded rating scale), ``rsm`` (Rasch rating scale) and ``pcm`` (partial credit, mirt's
        polytomous ``Rasch``). ``rasch`` fixes every discrimination at 1; ``1PL`` estimates one
        discrimination shared by all (1PL) items. A list or mapping is mirt's ``itemtype`` vector.
        With ``engine="mirt"`` every other mirt 1.48 item type by mirt's name (any case), e.g. ``3PLu``,
        ``5PL``, ``CLL``, ``ULL``, ``gpcmIRT``, ``grsmIRT``, ``ideal``, ``ggum``, ``hcm``, ``sequential``,
        ``Tutz``, ``PC1PL``/``PC2PL``/``PC3PL``, ``PCgraded`` (partially compensatory: give a ``spec``),
        ``2PLNRM``/``3PLNRM``/``3PLuNRM``/``4PLNRM`` (nested logit on the raw answers: give ``key``),
        ``spline``, ``monospline``, ``monopoly`` (``monopoly_k``): the list is
        :data:`irtbridge.calibration.inputs.itemtypes.ITEMTYPES`. Items with no IRT parameterization in mirt
        (e.g. ``ideal``, ``ggum``, ``sequential``) make ``items`` mirt's slope-intercept table.
        ``lca`` (use ``irtbridge.mirt.mdirt``) and ``experimental`` (``createItem`` items, R code) are
        refused in one line.
    engine : {"mirt", "ltm", "native"}
        ``"native"``: the R-free EM of :mod:`irtbridge.em.core` (rasch, 1PL, 2PL, 3PL, 4PL, graded; priors
        on the 1PL to 4PL), checked against mirt;
        it takes mirt's ``quadpts``, ``TOL`` and ``technical={"NCYCLES": ...}``, ``accelerate=``
        (``"squarem"``, the default: SQUAREM with a monotone safeguard; ``"none"``: plain EM),
        ``progress=True`` (a bar over the EM cycles) and ``client=`` for Dask.
    se : {None, True, False}, default None
        Standard errors: mirt's ``SE = TRUE`` with mirt's default ``SE.type = "Oakes"`` (or ``SE_type=``);
        ltm's from its Hessian, delta method to the IRT parameterization; the native engine's mirt's
        ``SE.type = "crossprod"``, up to 1,000 parameters. They can cost several times the fit itself.

        * ``None`` (default): the fit is mirt's default call (``SE = FALSE``, as fast as R alone);
          :attr:`Calibration.standard_errors` computes them on first access from the live fit (the same
          numbers as ``SE = TRUE``) and keeps them.
        * ``True``: computed with the fit (``mirt(..., SE = TRUE)``): for fits that will be pickled,
          written to JSON or sent to another process, which cannot compute them later.
        * ``False``: none; ``standard_errors`` is all NaN and never computed.

        ``SE_type="SEM"`` (supplemented EM) with the default ``None`` fits with ``SE = TRUE``: under SEM
        mirt runs the EM itself differently when it computes SEs (``TOL`` 1e-5, no acceleration), so they
        cannot be added to a fit made without them; the estimates are those of ``mirt(..., SE = TRUE,
        SE.type = "SEM")``.

        Where the information matrix is singular the estimates are kept, the SEs are NaN and one warning
        says why (at the fit with ``se=True``, at the first access otherwise).
    drop_constant : bool
        Items answered identically by everyone carry no information and break estimation. By default they
        are an error naming them; with ``drop_constant=True`` they are dropped with a
        :class:`DataWarning` and listed in ``Calibration.dropped_items``.
    priors : mapping or list of Prior, optional
        mirt, and the native 1PL, 2PL, 3PL and 4PL: priors on item parameters, e.g. ``{"a1": ("lnorm", 0, 0.5), "g":
        ("expbeta", 5, 17)}`` (see :mod:`irtbridge.calibration.inputs.priors`); with priors the fit is a MAP
        estimate. Each named parameter must be one the model estimates, checked against mirt's
        ``pars = "values"`` table before the fit (:mod:`irtbridge.calibration.inputs.checks`; the native engine
        checks its own: ``norm``/``lnorm`` on a1, ``norm`` on d, ``expbeta`` on the 3PL's g): a one-line
        :class:`ValidationError` if not.
    dims : int
        mirt only: an exploratory model with this many factors (``mirt(data, dims)``; read with
        :meth:`Calibration.loadings`, rotated there with ``rotate="oblimin"`` etc.).
    spec : ModelSpec or str, optional
        mirt only: a confirmatory/bifactor structure (:class:`~irtbridge.calibration.inputs.spec.ModelSpec`, or
        mirt.model syntax text), handed to ``mirt.model()`` as data. Parameters its constraints, priors
        and fixed values name are checked against mirt's parameter table first, as for ``priors``.
    parameters : DataFrame, optional
        mirt only: a parameter table (:meth:`Calibration.parameters` or :func:`parameter_table` for this
        data and model) whose ``value``, ``est``, bounds and prior columns fix, free or start parameters
        (mirt's ``pars = table``); e.g. link a form by fixing its common items at another form's values.
    dentype : str, optional
        mirt only: the latent density (mirt's ``dentype``): ``"Gaussian"`` (default), ``"EH"`` (empirical
        histogram, Bock & Aitkin), ``"EHW"`` (empirical histogram with Woods' extrapolation) or
        ``"Davidian-k"`` (Davidian curve with k >= 2 parameters); one factor only. mirt raises its
        defaults for these (121 quadrature points, more cycles).
    covariates : DataFrame, optional
        mirt only, with ``formula``: a latent regression (mirt's ``covdata``): one row per respondent (same
        index as ``responses``), numeric or text columns (text becomes a factor). The coefficients are
        :attr:`Calibration.latent_regression`.
    formula : str, optional
        The latent regression as one-sided formula text over the covariates' columns, e.g.
        ``"~ age + group"`` (mirt's ``formula``). It reaches R as a string and is checked there before it
        becomes a formula: only covariate names, numbers, formula operators and ``I``, ``log``, ``exp``,
        ``sqrt``, ``abs``, ``poly``, ``factor``, ``scale`` may appear.
    method : {"EM", "QMCEM", "MCEM", "MHRM", "SEM", "BL"}, optional
        mirt's estimation method (default ``"EM"``, fixed quadrature): quasi-Monte Carlo EM, Monte Carlo
        EM, Metropolis-Hastings Robbins-Monro, stochastic EM, Bock-Lieberman. The stochastic ones set
        ``SE.type = "MHRM"`` unless ``SE_type=`` says otherwise; mirt seeds MHRM and SEM itself (12345),
        MCEM draws from R's generator (give ``seed``). ``engine="native"`` takes ``"EM"`` only.
    key : sequence or mapping, optional
        mirt only, for nested logit items (``2PLNRM``, ``3PLNRM``, ``3PLuNRM``, ``4PLNRM``), which are fitted
        to the raw multiple-choice answers: each item's correct answer (mirt's ``key``), in column order
        (NaN/None for items without one) or as a mapping item → answer. Every nested logit item needs one,
        and it must be an answer the item received; a key with no nested logit item is refused (mirt
        would ignore it; to score answers use :func:`irtbridge.calibration.score_key`).
    gpcm_mats : sequence or mapping of 2-D arrays, optional
        mirt only: scoring matrices of ``gpcm`` and polytomous Rasch (``pcm``) items (mirt's ``gpcm_mats``):
        one row per category (in order), one column per factor, e.g. ``np.c_[0:4, [1, 0, 0, 1]]`` scores
        the second factor on the extreme categories. In column order (None for items without one) or as
        a mapping item → matrix; gpcm items given none get the standard scoring ``0..K-1`` per factor.
    seed : int, optional
        mirt only: the seed of mirt's random draws (``technical$set.seed``, mirt's ``set.seed`` at the
        start of the fit), for ``method="MCEM"``, ``"MHRM"``, ``"SEM"``.
    **options
        Estimation options with mirt's names: ``quadpts``, ``TOL``, ``technical={"NCYCLES": ...}``,
        ``SE_type="Oakes"`` (mirt's ``SE.type``; underscores stand for R's dots), ``optimizer``, ``draws``
        (the Monte Carlo draws of MHRM's log-likelihood). Passed to the engine unchanged, with the engine's own
        argument names (e.g.
        ``TOL=1e-5``, ``technical={"NCYCLES": 2000}``, ``quadpts=41`` for mirt; ``control={"GHk": 21}`` for
        ltm). An option the engine would not read (mirt ignores unknown arguments without a word) is a
        one-line :class:`ValidationError`: the names are :data:`irtbridge.calibration.inputs.options.MIRT_OPTIONS`
        and ``LTM_OPTIONS``; rotation is chosen when reading loadings (``fit.loadings(rotate=...)``).
        Item-type options are checked against the item types: ``monopoly_k`` (mirt's ``monopoly.k``,
        the polynomial degree of ``monopoly`` items: one positive integer, or one per item) and
        ``spline_args`` (``{item: {"fun": "ns", "knots": [...]}}`` for ``spline`` items) need such items.

    Returns
    -------
    Calibration
        Items whose estimates the data do not identify (runaway slopes ``|a| > 10``, ``|b| > 6``; any
        engine) are named in ``fit.item_flags`` / ``fit.flagged_items`` with one ``IdentificationWarning``
        (:mod:`irtbridge.calibration.results.flags`).

    Notes
    -----
    R equivalents: ``mirt(data, 1, itemtype = "2PL")`` then ``coef(fit, IRTpars = TRUE, simplify = TRUE)``
    (``se=True``: ``mirt(data, 1, itemtype = "2PL", SE = TRUE)``, and ``fit.standard_errors`` is
    ``coef(fit, IRTpars = TRUE, printSE = TRUE)``); ``ltm(data ~ z1)``, ``rasch``, ``tpm``, ``grm``,
    ``gpcm``. Numbers are read from R objects, never from printed output (ltm's ``coef`` rounds).
    ``dentype="EH"`` is ``mirt(data, 1, dentype = "EH")``; ``covariates=cov, formula="~ x1"`` is
    ``mirt(data, 1, covdata = cov, formula = ~ x1)`` then ``coef(fit, printSE = TRUE)$lr.betas``.
    ``calibrate(raw, ["2PLNRM"] * 5, key=[1, 4, 5, 2, 3])`` is ``mirt(raw, 1, rep("2PLNRM", 5), key = c(1, 4,
    5, 2, 3))``; ``method="MCEM", seed=3`` is ``mirt(..., method = "MCEM", technical = list(set.seed = 3))``.

    Examples
    --------
    >>> import irtbridge
    >>> from irtbridge.example_data import response_dataset
    >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), model="2PL")    # doctest: +R
    >>> fit.items[["a", "b"]].round(3)
                a      b
    Item.1  0.988 -1.879
    Item.2  1.081 -0.748
    Item.3  1.706 -1.058
    Item.4  0.765 -0.635
    Item.5  0.736 -2.520

    mirt's other item types by mirt's name (R: ``mirt(data, 1, "ideal")``):

    >>> round(irtbridge.calibrate(response_dataset("LSAT7"), "ideal", se=False).loglik, 3)   # doctest: +R
    -2659.454
    """
    engine = check_choice(engine, "engine", tuple(ENGINE_TABLE), ignore_case=True)  # its own spelling
    backend = ENGINE_TABLE[engine]
    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = resolve_model(model, columns, engine)
    sparse = isinstance(responses, ResponseData)
    structured = per_item is not None or dims != 1 or spec is not None or parameters is not None
    backend.check(priors=priors is not None and bool(priors), structured=structured, sparse=sparse)
    options = estimation_options(engine, backend.checked_options(options, model), method=method, seed=seed, key=key,
                                 gpcm_mats=gpcm_mats)
    se = backend.se_request(None if se is None else bool(se), options)
    latent = latent_arguments(engine, dentype, covariates, formula, responses, dims, options)
    options.update(latent.options)
    if sparse:  # answered cells only: the engine checks them on its own layout
        request = FitRequest(responses, tuple(responses.item_names), model, se, options,
                             drop_constant=bool(drop_constant),
                             priors=tuple(parse_priors(priors, responses.item_names)))
    else:  # a response matrix: constant items handled, then the item-type options, priors and structure
        prep = calibration_data(responses, columns, model, per_item, drop_constant)
        # key, gpcm_mats, monopoly.k and spline_args against the item types (an engine without them has none)
        options = item_type_options(options, prep.model, prep.per_item, prep.values, prep.names, prep.all_names)
        if priors is not None and per_item is not None:
            raise ValidationError("priors: with per-item models put priors in a ModelSpec or the parameters table")
        request = FitRequest(
            prep.values, tuple(prep.names), model, se, options,
            per_item=tuple(prep.per_item) if prep.per_item is not None else None, dropped=prep.dropped,
            priors=tuple(parse_priors(priors, prep.names)) if priors is not None else (),
            structure=structure_arguments(dims, spec, parameters, prep.names) if structured else {},
            parameters=parameters,
        )
    with r_context(f"calibrate: {engine} fitting the {model} model"):
        fit = cast(Calibration, backend.fit(request))  # every engine's fit is a Calibration
    warn_flagged(fit)  # whatever the engine: one warning when estimates are flagged (at the first line outside)
    if sparse:
        return fit
    return latent.finish(fit._replace(item_mins=item_minimums(prep.values, prep.names)))


@constraints(dims=DIMS)
def parameter_table(responses: Any, model: Any = "2PL", *, dims: int = 1, spec: Any = None,
                    **options: Any) -> pd.DataFrame:
    """mirt's starting parameter table for ``calibrate(responses, model, ...)`` without fitting it.

    R equivalent: ``mirt(data, model, itemtype, pars = "values")``. Edit ``value`` and ``est`` (e.g. fix
    common items at another form's estimates) and pass it as ``calibrate(..., parameters=table)``.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        As in :func:`~irtbridge.calibrate`.
    model : str, default "2PL"
        As in :func:`~irtbridge.calibrate` (one per item allowed).
    dims : int, default 1
        The number of factors (without ``spec``).
    spec : ModelSpec or str, optional
        A structure, as in :func:`~irtbridge.calibrate`.
    **options
        mirt's options, as in :func:`~irtbridge.calibrate`.

    Returns
    -------
    DataFrame
        mirt's ``pars = "values"`` table.

    Examples
    --------
    Link form B (items 2-5, odd rows of LSAT7) to form A (items 1-4, even rows): the common items are
    fixed at form A's estimates and form B's latent mean and variance are estimated on A's scale (R:
    the same edits to ``mirt(form_b, 1, "2PL", pars = "values")``, then ``mirt(form_b, 1, "2PL", pars = sv)``).

    >>> from irtbridge import calibrate
    >>> from irtbridge.example_data import response_dataset
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
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    columns = [str(c) for c in responses.columns] if isinstance(responses, pd.DataFrame) else None
    model, per_item = resolve_model(model, columns)
    dichotomous = all(m in DICHOTOMOUS for m in (per_item or [model]))
    values, names, _ = as_response_matrix(responses, "responses", dichotomous=dichotomous)
    extra = structure_arguments(dims, spec, None, names)
    options = check_options(options, MIRT_OPTIONS, "parameter_table")
    options = item_type_options(options, model, per_item, values, names)
    check_before_fit(values, names, model, per_item, extra, None, [], options)  # as calibrate() would
    session.ensure_packages("mirt")
    return session.call("irtb_mirt_values", data=values, item_names=names, itemtype=mirt_itemtype(per_item or model),
                        options=dict(options), **extra)
