"""The IRT kinds of batch unit: ``calibrate``, ``abilities`` and ``fit``, each one public API call on its input.

Each reads the unit's response CSV, calibrates with :func:`irtbridge.calibrate` (the keywords from
:func:`irtbridge.batch.options.calibrate_arguments`) and writes what the matching command prints:

* ``calibrate`` (``irtbridge calibrate``): the item table, its standard errors, the calibration as JSON,
  and the abilities scored from the fit (``scoring_method``, default EAP);
* ``abilities`` (``irtbridge abilities``): the abilities alone, from a fit without item standard errors;
* ``fit`` (``irtbridge fit``): global fit (M2), reliability and item fit (S-X2)
  (:func:`irtbridge.calibration.analysis.fitreport.fit_report`).

Scores come from the engine's own scoring of the data the fit was made from
(:meth:`irtbridge.calibration.Calibration.abilities`: mirt's ``fscores`` on its own data, so items coded
1..K score as they were calibrated; the native engine is handed the same columns).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from irtbridge._io import atomic_write_csv, atomic_write_text, to_jsonable
from irtbridge._validation import read_csv, read_text, require_columns
from irtbridge.batch.options import calibrate_arguments
from irtbridge.exceptions import ValidationError

if TYPE_CHECKING:
    from irtbridge.batch.unit import Unit

__all__ = ["kind_calibrate", "kind_abilities", "kind_fit"]


def _responses(unit: Unit) -> pd.DataFrame:
    """The unit's response table, its ``id_column`` as the index."""
    frame = read_csv(unit.data, "responses")
    id_column = unit.options.get("id_column")
    if id_column is not None:
        require_columns(frame, [id_column], f"responses file {unit.data!r}")
        frame = frame.set_index(id_column)
    return frame


def _scores(frame: pd.DataFrame, fit: Any, method: str) -> pd.DataFrame:
    """The engine's scores of the data the fit was made from, one row per respondent of ``frame``."""
    from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE  # the calibration floor, loaded when a unit runs

    keeps = ENGINE_TABLE[fit.engine].keeps_data
    scores = fit.abilities(method=method, responses=None if keeps else frame[fit.item_names])
    scores.index = frame.index
    scores.index.name = "respondent"
    return scores


def _fit_summary(fit: Any) -> dict[str, Any]:
    return {"model": fit.model, "engine": fit.engine, "converged": bool(fit.converged), "items": len(fit.items),
            "respondents": fit.n_respondents, "loglik": fit.loglik}


def kind_calibrate(unit: Unit, folder: Path) -> dict[str, Any]:
    """Items, their standard errors (unless ``se`` is false), the calibration JSON and the abilities.

    Parameters
    ----------
    unit : Unit
        A ``calibrate`` unit: its response file and :func:`irtbridge.calibrate` options.
    folder : Path
        The unit's (temporary) result folder, where ``items.csv``, ``standard_errors.csv``,
        ``calibration.json`` and ``abilities.csv`` are written.

    Returns
    -------
    dict of str to Any
        What ``unit.json`` records: ``model``, ``engine``, ``converged``, ``items``, ``respondents``,
        ``loglik`` and ``scoring_method``.
    """
    from irtbridge.calibration import calibrate  # loaded when a unit of this kind runs

    frame = _responses(unit)
    # the unit writes standard_errors.csv and calibration.json: compute them with the fit unless se=false
    fit = calibrate(frame, se=bool(unit.options.get("se", True)), **calibrate_arguments(unit.options))
    atomic_write_csv(folder / "items.csv", fit.items.rename_axis("item"))
    atomic_write_csv(folder / "standard_errors.csv", fit.standard_errors.rename_axis("item"))
    atomic_write_text(folder / "calibration.json", fit.to_json(indent=2))
    method = str(unit.options.get("scoring_method", "EAP")).upper()
    atomic_write_csv(folder / "abilities.csv", _scores(frame, fit, method))
    return {**_fit_summary(fit), "scoring_method": method}


def kind_abilities(unit: Unit, folder: Path) -> dict[str, Any]:
    """The abilities of every respondent (``theta``, ``se``), as ``irtbridge abilities`` prints them.

    With option ``calibration`` (a ``Calibration.to_json`` file, e.g. a calibrate unit's
    ``calibration.json``) the responses are scored with those item parameters by
    :func:`irtbridge.irt.estimate_abilities`, under the calibration's latent mean and variance (as mirt's
    ``fscores`` on that fit); without it the unit calibrates first and scores with the engine.

    Parameters
    ----------
    unit : Unit
        An ``abilities`` unit: its response file, options and (optionally) a ``calibration`` file.
    folder : Path
        The unit's (temporary) result folder, where ``abilities.csv`` is written.

    Returns
    -------
    dict of str to Any
        What ``unit.json`` records of the calibration used and ``scoring_method``.
    """
    from irtbridge.calibration import calibrate  # loaded when a unit of this kind runs

    frame = _responses(unit)
    method = str(unit.options.get("scoring_method", "EAP")).upper()
    if "calibration" in unit.paths:
        return _stored_scores(unit, frame, method, folder)
    fit = calibrate(frame, se=False, **calibrate_arguments(unit.options))  # scoring needs no item SEs
    atomic_write_csv(folder / "abilities.csv", _scores(frame, fit, method))
    return {**_fit_summary(fit), "scoring_method": method}


def _stored_scores(unit: Unit, frame: pd.DataFrame, method: str, folder: Path) -> dict[str, Any]:
    from irtbridge.calibration import Calibration  # loaded when a unit of this kind runs
    from irtbridge.irt import estimate_abilities  # loaded when a unit of this kind runs

    path = unit.paths["calibration"]
    text = read_text(path, "calibration")  # a BOM accepted, a non-UTF-8 byte named by its line
    try:
        cal = Calibration.from_json(text)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValidationError(f"calibration file {path!r} is not a calibration written by Calibration.to_json "
                              f"(a calibrate unit's calibration.json): {type(exc).__name__}: {exc}") from None
    prior = (float(cal.latent_mean), float(np.sqrt(cal.latent_var)))
    scores = estimate_abilities(frame, cal, method=method, prior=prior)
    scores.index.name = "respondent"
    atomic_write_csv(folder / "abilities.csv", scores)
    return {"model": cal.model, "calibration": path, "items": len(cal.items), "respondents": len(frame),
            "scoring_method": method}


def kind_fit(unit: Unit, folder: Path) -> dict[str, Any]:
    """``fit.json`` (the report of ``irtbridge fit --json``) and ``item_fit.csv`` (its items table).

    Parameters
    ----------
    unit : Unit
        A ``fit`` unit: its response file and calibration options.
    folder : Path
        The unit's (temporary) result folder, where ``fit.json`` and ``item_fit.csv`` are written.

    Returns
    -------
    dict of str to Any
        What ``unit.json`` records of the fit, with the ``global`` statistics and the ``misfitting`` items.
    """
    from irtbridge.calibration import calibrate  # loaded when a unit of this kind runs
    from irtbridge.calibration.analysis.fitreport import fit_report  # loaded when a unit of this kind runs

    frame = _responses(unit)
    fit = calibrate(frame, se=False, **calibrate_arguments(unit.options))
    report = fit_report(fit)
    atomic_write_text(folder / "fit.json", json.dumps(to_jsonable(report), indent=2, allow_nan=False) + "\n")
    atomic_write_csv(folder / "item_fit.csv", pd.DataFrame(report["items"]).set_index("item"))
    return {**_fit_summary(fit), "global": report["global"], "misfitting": report["misfitting"]}
