"""Linking and explanatory IRT through mirt: fixed-item calibration (:func:`calibrate_fixed`, mirt's
``fixedCalib``) and mixed-effects IRT (:func:`calibrate_mixed`, mirt's ``mixedmirt``: item and person
covariates, the LLTM).

Bootstrapped standard errors (``boot.mirt``) are :meth:`Calibration.bootstrap
<irtbridge.calibration.Calibration.bootstrap>`. Formulas are text parsed and checked in R before they
become formulas (as the latent regression of :func:`~irtbridge.calibrate`); nothing a user writes is
evaluated as R code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtbridge.calibration.options import check_options
from irtbridge.calibration.result import Calibration
from irtbridge.exceptions import ValidationError

__all__ = ["calibrate_fixed", "FIXED_OPTIONS"]

#: the estimation options calibrate_fixed passes to mirt (through fixedCalib's ``...``)
FIXED_OPTIONS = ("TOL", "quadpts", "technical", "optimizer", "control", "accelerate", "SE.type")
_PAU = ("MWU", "OWU", "NWU")
_NEMC = ("MEM", "OEM")


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
    from irtbridge._r import session
    from irtbridge.calibration.engines.rbacked import from_r_model

    if not isinstance(old_fit, Calibration):
        raise ValidationError(f"old_fit must be a Calibration (a mirt fit of the old form), got {type(old_fit).__name__}")
    old_model = old_fit._live_mirt("calibrate_fixed(old_fit=...)")
    if len(old_fit.factors) != 1:
        raise ValidationError(f"old_fit: fixedCalib links one-factor models; this fit has {len(old_fit.factors)} factors")
    if PAU not in _PAU:
        raise ValidationError(f"PAU must be one of {', '.join(_PAU)}, got {PAU!r}")
    if NEMC not in _NEMC:
        raise ValidationError(f"NEMC must be one of {', '.join(_NEMC)}, got {NEMC!r}")
    options = check_options(options, FIXED_OPTIONS, "calibrate_fixed")
    frame = _response_frame(data, "data")
    old_items = [str(n) for n in old_fit.item_names]
    anchors = [n for n in old_items if n in frame.columns]
    if not anchors:
        raise ValidationError(f"data: no column is an item of old_fit ({', '.join(old_items[:5])}...); the "
                              "shared items (anchors) link the forms")
    placeholders = [n for n in old_items if n not in frame.columns]
    values = np.hstack([frame.to_numpy(dtype=float), np.full((len(frame), len(placeholders)), np.nan)])
    names = [*frame.columns, *placeholders]
    model = session.call("irtb_mirt_fixed_calib", data=np.ascontiguousarray(values), item_names=names,
                         old=old_model, PAU=PAU, NEMC=NEMC, options=options)
    fit = from_r_model(model)
    return fit._replace(options={**fit.options, **options, "PAU": PAU, "NEMC": NEMC, "anchors": anchors,
                                 "dentype": "EH"})


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
