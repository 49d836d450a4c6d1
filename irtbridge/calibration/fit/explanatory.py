"""Linking and explanatory IRT through mirt: fixed-item calibration (:func:`calibrate_fixed`, mirt's
``fixedCalib``) and mixed-effects IRT (:func:`calibrate_mixed`, mirt's ``mixedmirt``: item and person
covariates, the LLTM).

Bootstrapped standard errors (``boot.mirt``) are :meth:`Calibration.bootstrap
<irtbridge.calibration.Calibration.bootstrap>`. Formulas are text parsed and checked in R before they
become formulas (as the latent regression of :func:`~irtbridge.calibrate`); nothing a user writes is
evaluated as R code.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Flag, constraints
from irtbridge._catalogue import MIXED_DOMAINS
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.inputs._covariates import covariate_columns
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.inputs.options import check_options
from irtbridge.calibration.results.mixed_result import MixedCalibration
from irtbridge.calibration.results.result import Calibration
from irtbridge.exceptions import RError, ValidationError, r_context

__all__ = ["calibrate_fixed", "calibrate_mixed", "MixedCalibration", "FIXED_OPTIONS", "MIXED_OPTIONS"]

#: the estimation options calibrate_fixed passes to mirt (through fixedCalib's ``...``)
FIXED_OPTIONS = ("TOL", "quadpts", "technical", "optimizer", "control", "accelerate", "SE.type")
#: the estimation options calibrate_mixed passes to mirt (mixedmirt's or mirt's ``...``)
MIXED_OPTIONS = ("TOL", "technical", "draws", "optimizer", "control", "SE.type", "quadpts", "method")
DEFAULT_FIXED = "~ 0 + items + group"
_PAU = ("MWU", "OWU", "NWU")
_NEMC = ("MEM", "OEM")


@constraints(PAU=Choice(_PAU), NEMC=Choice(_NEMC))
def calibrate_fixed(data: Any, old_fit: Calibration, *, PAU: str = "MWU", NEMC: str = "MEM",
                    **options: Any) -> Calibration:
    """Fixed-item calibration: new items put on an old fit's scale through the items the forms share.

    Parameters
    ----------
    data : DataFrame
        The new form: rows are new respondents, columns items, named as the old fit names them where
        the items are shared. The old fit's items present here are the anchors (their parameters stay
        fixed); the old items missing here are added as all-missing columns (mirt's NA placeholders).
        Columns not in the old fit are the new items, calibrated.
    old_fit : Calibration
        A one-factor mirt fit of the old form made in this process (its live model is needed).
    PAU : {"MWU", "OWU", "NWU"}, default "MWU"
        mirt's prior-update method: multiple, one or no weights updating of the latent density.
    NEMC : {"MEM", "OEM"}, default "MEM"
        mirt's EM: multiple EM cycles, or one (Wainer & Mislevy's OEM).
    **options
        mirt's estimation options for the calibration: ``TOL``, ``quadpts``, ``technical``,
        ``optimizer``, ``control``, ``accelerate``, ``SE_type`` (:data:`FIXED_OPTIONS`).

    Returns
    -------
    Calibration
        Every item, old ones first (in the old fit's order), then the new ones: the anchors and the
        other old items at the old fit's values, the new items estimated on the old fit's scale. The
        fit covers the old and the new respondents together, with an empirical-histogram latent density;
        ``options`` records ``PAU``, ``NEMC`` and ``anchors``. No standard errors (mirt's ``fixedCalib``
        computes none).

    Notes
    -----
    R equivalent: ``fixedCalib(data, model = 1, old_mod = old_fit, PAU = PAU, NEMC = NEMC, ...)``, with
    ``data`` holding every item of ``old_fit`` (NA where not administered).
    """
    if not isinstance(old_fit, Calibration):
        raise ValidationError(f"old_fit must be a Calibration (a mirt fit of the old form), got {type(old_fit).__name__}")
    old_model = old_fit._live_mirt("calibrate_fixed(old_fit=...)")
    if len(old_fit.factors) != 1:
        raise ValidationError(f"old_fit: fixedCalib links one-factor models; this fit has {len(old_fit.factors)} factors")
    options = check_options(options, FIXED_OPTIONS, "calibrate_fixed")
    frame = _response_frame(data, "data")
    old_items = [str(n) for n in old_fit.item_names]
    anchors = [n for n in old_items if n in frame.columns]
    if not anchors:
        raise ValidationError(f"data: no column is an item of old_fit ({', '.join(old_items[:5])}...); the "
                              "shared items (anchors) link the forms")
    placeholders = [n for n in old_items if n not in frame.columns]
    values = np.hstack([frame.to_numpy(dtype=float), np.full((len(frame), len(placeholders)), np.nan)])
    request = FitRequest(values, (*frame.columns, *placeholders), old_fit.model, False, options, design="fixed",
                         structure={"old": old_model, "PAU": PAU, "NEMC": NEMC, "anchors": tuple(anchors)})
    with r_context("calibrate_fixed: mirt's fixedCalib"):
        return cast(Calibration, ENGINE_TABLE["mirt"].fit(request))  # the fixed design's result


def _response_frame(data: Any, name: str) -> pd.DataFrame:
    """A DataFrame of numeric responses with string column names (NaN missing)."""
    if not isinstance(data, pd.DataFrame) or data.shape[1] == 0 or data.shape[0] == 0:
        raise ValidationError(f"{name} must be a non-empty DataFrame of responses with item names as columns, "
                              f"got {type(data).__name__}")
    frame = data.rename(columns=str)
    if frame.columns.duplicated().any():
        raise ValidationError(f"{name} has duplicate column names: {sorted(set(frame.columns[frame.columns.duplicated()]))}")
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c].dtype)]
    if bad:
        raise ValidationError(f"{name}: column {bad[0]!r} is not numeric; responses are numbers (NaN missing)")
    return frame


@constraints(se=Flag())
def calibrate_mixed(data: Any, covariates: Any = None, fixed: str | None = DEFAULT_FIXED, random: Any = None,
                    itemtype: Any = "Rasch", item_covariates: Any = None, item_formula: str | None = None, *,
                    se: bool = True, **options: Any) -> MixedCalibration:
    """Explanatory IRT: item and person covariates as fixed and random effects (mirt's ``mixedmirt``),
    or the linear logistic test model by an item formula (mirt's ``item.formula``).

    Parameters
    ----------
    data : DataFrame
        Responses: rows respondents, columns items (NaN missing).
    covariates : DataFrame, optional
        Person covariates, one row per respondent in the order of ``data`` (mirt's ``covdata``); text
        columns are categorical.
    fixed : str or None, default ``"~ 0 + items + group"``
        The fixed effects as R formula text (mirt's ``fixed``) over the covariates, the item covariates
        and ``items`` (one intercept per item). Parsed and checked in R, never evaluated as code.
    random : str or list of str, optional
        Random effects, e.g. ``"~ 1 | group"`` (mirt's ``random``; a list for several).
    itemtype : str or list of str, default "Rasch"
        mirt's item types (one, or one per item).
    item_covariates : DataFrame, optional
        Item covariates, one row per item (indexed by item name, or in the order of ``data``'s columns;
        mirt's ``itemdesign``).
    item_formula : str, optional
        The LLTM: item intercepts as a linear function of ``item_covariates`` (mirt's ``item.formula``,
        fitted by ``mirt()``). Excludes ``covariates``, ``random`` and a ``fixed`` other than the default.
    se : bool, default True
        Standard errors of the fixed effects (mirt's ``SE``).
    **options
        mirt's estimation options: :data:`MIXED_OPTIONS` (``draws``, ``technical``, ``TOL``...).

    Returns
    -------
    MixedCalibration
        ``fixef``, ``random_covariances``, ``parameters``, ``loglik``...; ``randef()`` draws the
        random effects.

    Notes
    -----
    R equivalent: ``mixedmirt(data, covdata = covariates, model = 1, fixed = fixed, random = random,
    itemtype = itemtype, itemdesign = item_covariates, SE = se, ...)``; with ``item_formula``:
    ``mirt(data, 1, itemtype, item.formula = item_formula, itemdesign = item_covariates, SE = se, ...)``.
    mixedmirt estimates by MH-RM, which mirt seeds itself: the same call gives the same numbers.

    Examples
    --------
    An LLTM on LSAT7: the five Rasch intercepts as the effects of two item blocks (R: ``mirt(data, 1,
    "Rasch", item.formula = ~ 0 + block, itemdesign = design)``):

    >>> import pandas as pd
    >>> from irtbridge.calibration import calibrate_mixed
    >>> from irtbridge.example_data import response_dataset
    >>> lsat7 = response_dataset("LSAT7")                                   # doctest: +R
    >>> design = pd.DataFrame({"block": ["A", "A", "B", "B", "B"]}, index=lsat7.columns)
    >>> fit = calibrate_mixed(lsat7, item_covariates=design, item_formula="~ 0 + block", se=False)
    >>> list(fit.fixef.index), round(fit.loglik, 3)
    (['blockA', 'blockB'], -2797.687)
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    frame = _response_frame(data, "data")
    names = [str(c) for c in frame.columns]
    if not isinstance(se, (bool, np.bool_)):
        raise ValidationError(f"se must be True or False, got {se!r}")
    types = _itemtype(itemtype, len(names))
    options = check_options(options, MIXED_OPTIONS, "calibrate_mixed", MIXED_DOMAINS)
    person = covariate_columns(covariates, frame) if covariates is not None else None
    design = _item_columns(item_covariates, names) if item_covariates is not None else None
    randoms = _random(random)
    if item_formula is not None:
        if not isinstance(item_formula, str):
            raise ValidationError(f"item_formula must be formula text such as '~ 0 + difficulty', got {item_formula!r}")
        if design is None:
            raise ValidationError("item_formula needs item_covariates (a DataFrame with one row per item)")
        clash = [n for n, v in (("covariates", person), ("random", randoms)) if v] + \
            (["fixed"] if fixed not in (None, DEFAULT_FIXED) else [])
        if clash:
            raise ValidationError(f"{clash[0]}: the item_formula LLTM is fitted by mirt() and takes no {clash[0]}; "
                                  "use fixed= (mixedmirt) with item_covariates instead")
    elif fixed is None or not isinstance(fixed, str):
        raise ValidationError(f"fixed must be formula text such as '~ 0 + items + group', got {fixed!r}")
    # without item_formula, fixed is formula text from here on (str() below says so to the type checker)
    try:
        session.call("irtb_mixed_formulas", fixed=None if item_formula is not None else str(fixed).strip(),
                     random=randoms or None, item_formula=item_formula, variables=list(person or {}),
                     item_variables=list(design or {}))
    except RError as exc:  # the formula checks' messages name the argument: a ValidationError
        message = " ".join(exc.r_message.split())
        if message.split(":")[0] in ("fixed", "random", "item_formula"):
            raise ValidationError(message) from None
        raise
    request = FitRequest(frame.to_numpy(dtype=float), tuple(names), "mixed", bool(se), options, design="mixed",
                         structure={"covdata": person, "itemdesign": design, "itemtype": types, "random": randoms,
                                    "fixed": None if item_formula is not None else str(fixed).strip(),
                                    "item_formula": item_formula.strip() if item_formula is not None else None})
    with r_context("calibrate_mixed: mirt's " + ("mirt(item.formula = ...)" if item_formula is not None else "mixedmirt")):
        return cast(MixedCalibration, ENGINE_TABLE["mirt"].fit(request))  # the mixed design's result


def _itemtype(itemtype: Any, n_items: int) -> Any:
    if isinstance(itemtype, str) and itemtype:
        return itemtype
    if isinstance(itemtype, (list, tuple)) and len(itemtype) == n_items and all(isinstance(t, str) and t for t in itemtype):
        return list(itemtype)
    raise ValidationError(f"itemtype must be a mirt item type (e.g. 'Rasch') or one per item ({n_items}), got {itemtype!r}")


def _random(random: Any) -> list[str]:
    if random is None:
        return []
    items = [random] if isinstance(random, str) else random
    if not isinstance(items, (list, tuple)) or not items or not all(isinstance(r, str) for r in items):
        raise ValidationError(f"random must be formula text such as '~ 1 | group', or a list of them, got {random!r}")
    return [r.strip() for r in items]


def _item_columns(design: Any, names: list[str]) -> dict[str, Any]:
    """Item covariates as named columns in the order of the items (numbers as floats, text as strings)."""
    if not isinstance(design, pd.DataFrame) or design.shape[1] == 0:
        raise ValidationError(f"item_covariates must be a DataFrame with one row per item, got {type(design).__name__}")
    index = [str(i) for i in design.index]
    if set(index) >= set(names):
        design = design.set_axis(index).loc[names]
    elif len(design) != len(names):
        raise ValidationError(f"item_covariates: {len(design)} rows for {len(names)} items; give one row per item "
                              "(indexed by item name, or in the order of data's columns)")
    columns: dict[str, Any] = {}
    for name, (_, col) in zip(map(str, design.columns), design.items()):
        if col.isna().any():
            raise ValidationError(f"item_covariates: column {name!r} has missing values")
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            columns[name] = col.to_numpy(dtype=float).tolist()
        else:
            columns[name] = [str(v) for v in col]
    return columns
