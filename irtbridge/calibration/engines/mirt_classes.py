"""The ``classes`` design of the mirt engine: mirt's ``mdirt`` with ``"lca"`` items, read into a
:class:`~irtbridge.calibration.results.class_result.ClassCalibration`."""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._r import session
from irtbridge.calibration.engines.request import FitRequest
from irtbridge.calibration.results.class_result import ClassCalibration
from irtbridge.exceptions import find_stack_level, ConvergenceWarning, RWarning

__all__ = ["fit"]


def fit(request: FitRequest) -> ClassCalibration:
    """Fit the latent class model in R (one call) and read it.

    Parameters
    ----------
    request : FitRequest
        The ``classes`` request: ``structure`` holds ``n_classes``, the parameter ``table`` (or None) and
        the ``seed`` (or None).

    Returns
    -------
    ClassCalibration
        The fit; standard errors that failed are NaN with one RWarning, and a fit that did not converge
        says so in a ConvergenceWarning.
    """
    session.ensure_packages("mirt")
    names = list(request.names)
    n_classes = int(request.structure["n_classes"])
    se = bool(request.se)
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = session.call("irtb_mdirt_fit", data=request.data, item_names=names, options=dict(request.options),
                           se=se, **request.r_arguments)
    r_warnings = tuple(str(w.message).removeprefix("R: ") for w in caught)
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=find_stack_level())
    ses = None
    if se:
        problem = out.get("se_problem")
        if problem is not None:
            message = f"mirt: standard errors unavailable ({str(problem).strip()}); estimates kept, SEs NaN"
            warnings.warn(message, RWarning, stacklevel=find_stack_level())
            r_warnings = (*r_warnings, message)
        ses = _standard_errors(out.get("ses"), out["model"] if problem is not None else None)
    if not bool(out["converged"]):
        warnings.warn(f"mirt's mdirt did not converge after {out['iterations']} iterations", ConvergenceWarning,
                      stacklevel=find_stack_level())
    versions = session.r_versions(["mirt"])
    seed = request.structure.get("seed")
    return ClassCalibration(
        n_classes=n_classes, class_proportions=_proportions(out["proportions"], n_classes),
        item_probabilities=_probabilities(out["probabilities"], names, n_classes),
        loglik=float(out["loglik"]), aic=float(out["aic"]), bic=float(out["bic"]),
        n_parameters=int(out["n_parameters"]), converged=bool(out["converged"]), iterations=int(out["iterations"]),
        item_names=tuple(names), n_respondents=int(request.data.shape[0]),
        standard_errors=ses,
        options={**request.options, **({"se": True} if se else {}), **({"seed": seed} if seed is not None else {}),
                 **({"parameters": "given"} if request.structure.get("table") is not None else {})},
        warnings=r_warnings,
        provenance={"irtbridge_version": __version__, "engine_version": versions["packages"]["mirt"],
                    "r_version": versions["r"], "fit_seconds": time.perf_counter() - started},
        r_model=out["model"],
    )


def _standard_errors(table: Any, model: Any) -> pd.DataFrame:
    """The (item, parameter) table of values and SEs; all SEs NaN when the SE step failed (``model``: the
    fit, whose coefficients are then read without SEs)."""
    if table is None:
        table = session.call("irtb_mdirt_ses_missing", fit=model)
    frame = table.set_index(["item", "parameter"])
    return frame[["value", "se"]].astype(float)


def _proportions(values: Any, n_classes: int) -> pd.Series:
    shares = np.atleast_1d(np.asarray(values, dtype=float))
    return pd.Series(shares, index=[f"Class_{k + 1}" for k in range(n_classes)], name="proportion")


def _probabilities(per_item: Any, names: list[str], n_classes: int) -> pd.DataFrame:
    """One (class x category) matrix per item, stacked into rows (item, class), NaN-padded."""
    tables = list(per_item.values()) if isinstance(per_item, dict) else list(per_item)
    matrices = [np.atleast_2d(np.asarray(t.to_numpy() if isinstance(t, pd.DataFrame) else t, dtype=float))
                for t in tables]
    width = max(m.shape[1] for m in matrices)
    rows = [np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=np.nan) for m in matrices]
    index = pd.MultiIndex.from_product([names, [f"Class_{k + 1}" for k in range(n_classes)]], names=["item", "class"])
    return pd.DataFrame(np.vstack(rows), index=index, columns=[f"category_{j + 1}" for j in range(width)])
