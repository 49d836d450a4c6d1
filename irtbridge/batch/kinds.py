"""The kinds of batch unit: each writes its files into a folder and returns a small summary dict.

:data:`KINDS` maps each kind to its function; the options each takes are :mod:`irtbridge.batch.options`
(checked for the whole manifest before any unit runs), the IRT kinds live in :mod:`irtbridge.batch.irtkinds`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from irtbridge._io import atomic_write_csv
from irtbridge._validation import check_binary_labels, check_scores, read_csv, require_columns
from irtbridge.batch.irtkinds import kind_abilities, kind_calibrate, kind_fit
from irtbridge.efficiency import efficiency_frame
from irtbridge.exceptions import UnitError, ValidationError

if TYPE_CHECKING:
    from irtbridge.batch.unit import Unit

__all__ = ["KINDS"]


def _kind_dataset(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.pipeline import Settings, run_dataset  # loaded when a unit of this kind runs

    settings = Settings(**dict(unit.options))
    ref = unit.data + (f":{unit.target}" if unit.target else "")
    result = run_dataset(ref, settings)
    if result.error:
        raise UnitError(result.error)
    atomic_write_csv(folder / "items.csv", result.items)
    atomic_write_csv(folder / "respondents.csv", result.respondents)
    atomic_write_csv(folder / "responses.csv", result.responses)
    if result.ei is not None:
        atomic_write_csv(folder / "ei.csv", result.ei)
    return {"dataset": result.name, "instances": result.n_instances, "items": len(result.items), "engine": result.engine,
            "converged": result.converged, "attempts": [str(a) for a in result.attempts],
            "r_warnings": [str(w) for w in result.warnings]}


def _kind_hardness(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.hardness import METHODS, class_hardness, hardness_table  # loaded when a unit of this kind runs

    opts = dict(unit.options)
    frame = read_csv(unit.data, "hardness input")
    label = opts.get("label", unit.target)
    scores = opts.get("scores")
    if not label or not scores:
        raise ValidationError(f"unit {unit.id!r}: hardness needs options label (0/1 column) and scores (list of columns)")
    scores = [scores] if isinstance(scores, str) else list(scores)
    require_columns(frame, [label, *scores] + ([opts["id"]] if opts.get("id") else []), unit.data)
    index = pd.Index(frame[opts["id"]], name=opts["id"]) if opts.get("id") else pd.RangeIndex(len(frame), name="row")
    y = pd.Series(check_binary_labels(frame[label].to_numpy(dtype=float), f"column {label!r}").astype(int), index=index)
    pool = pd.DataFrame(np.vstack([check_scores(frame[c].to_numpy(dtype=float), f"column {c!r}") for c in scores]),
                        index=scores, columns=index)
    threshold = float(opts.get("threshold", 0.5))
    table = hardness_table(y, pool, METHODS, threshold)
    atomic_write_csv(folder / "instances.csv", table)
    classes = pd.DataFrame({m: class_hardness(y, pool, m, threshold) for m in METHODS})
    classes.index.name = "class"
    atomic_write_csv(folder / "classes.csv", classes)
    return {"instances": int(len(y)), "models": scores}


def _kind_ei(unit: Unit, folder: Path) -> dict[str, Any]:
    opts = dict(unit.options)
    frame = read_csv(unit.data, "2 x 2 tables")
    require_columns(frame, ["tp", "fp", "fn", "tn"], unit.data)
    if opts.get("name"):
        require_columns(frame, [opts["name"]], unit.data)
        frame = frame.set_index(opts.pop("name"))
    table = efficiency_frame(frame["tp"], frame["fp"], frame["fn"], frame["tn"], **opts)
    atomic_write_csv(folder / "ei.csv", table)
    return {"tables": int(len(table))}


def _kind_rate(unit: Unit, folder: Path) -> dict[str, Any]:
    from irtbridge.rating import glicko2  # loaded when a unit of this kind runs

    frame = read_csv(unit.data, "matches")
    result = glicko2(frame, tau=float(unit.options.get("tau", 0.5)), source=os.path.basename(unit.data))
    atomic_write_csv(folder / "ratings.csv", result.ratings)
    atomic_write_csv(folder / "history.csv", result.history, index=False)
    return {"players": int(len(result.ratings)), "games": int(result.n_games)}


#: kind -> function(unit, folder) that writes the unit's files and returns a small summary
KINDS: dict[str, Callable[[Unit, Path], dict[str, Any]]] = {
    "calibrate": kind_calibrate,
    "abilities": kind_abilities,
    "fit": kind_fit,
    "dataset": _kind_dataset,
    "hardness": _kind_hardness,
    "ei": _kind_ei,
    "rate": _kind_rate,
}
