"""The response matrix of a calibration, prepared once for every front door.

:func:`calibration_data` checks the responses against the model (0/1 for dichotomous items), names the
items everyone answers alike or drops them with a warning, and keeps mirt's itemtype vector aligned with
the items that remain; :func:`item_minimums` is what a fit keeps of the data for ``true_score``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from irtbridge._catalogue import DICHOTOMOUS
from irtbridge._validation import as_response_matrix, constant_items
from irtbridge.exceptions import find_stack_level, DataWarning, ValidationError

__all__ = ["CalibrationData", "calibration_data", "item_minimums"]


@dataclass
class CalibrationData:
    """The response matrix and model of a dense calibration, after constant items are handled.

    Attributes
    ----------
    values : ndarray
        Respondents x items, NaN missing.
    names : list of str
        The items fitted.
    dropped : tuple of str
        Constant items left out.
    model : str
        The model (``"mixed"`` with ``per_item``).
    per_item : list of str or None
        mirt's itemtype vector over ``names``.
    all_names : list of str
        The items as given, before constant ones are dropped.
    """

    values: np.ndarray
    names: list[str]
    dropped: tuple[str, ...]
    model: str
    per_item: list[str] | None
    all_names: list[str] = field(default_factory=list)


def calibration_data(responses: Any, columns: Sequence[str] | None, model: str, per_item: list[str] | None,
                     drop_constant: bool, stacklevel: int | None = None) -> CalibrationData:
    """Check the responses for the model; drop constant items if asked (one DataWarning) or name them.

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Rows are respondents, columns are items.
    columns : sequence of str or None
        The DataFrame's item names (None for an array).
    model : str
        The resolved model (:func:`~irtbridge.calibration.inputs.itemtypes.resolve_model`).
    per_item : list of str or None
        Its itemtype vector, one per column.
    drop_constant : bool
        Drop items everyone answers alike (with a warning) instead of naming them in an error.
    stacklevel : int, optional
        Where the warning points (default :func:`~irtbridge.exceptions.find_stack_level`: the user's line).

    Returns
    -------
    CalibrationData
        The checked matrix, its items and the itemtype vector over them.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([[0, 1, 1], [1, 1, 0], [1, 1, 1]])
    >>> calibration_data(data, None, "2PL", None, drop_constant=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: responses: item(s) 'Item2' are answered the same way by every ...
    """
    dichotomous = all(m in DICHOTOMOUS for m in (per_item or [model]))
    values, names, _ = as_response_matrix(responses, "responses", dichotomous=dichotomous)
    all_names = list(names)
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
        warnings.warn(f"dropped {len(const)} constant item(s): {', '.join(const[:10])}", DataWarning,
                      stacklevel=stacklevel or find_stack_level())
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
        per_item = [m for m, n in zip(per_item, columns or all_names) if n not in gone]
    return CalibrationData(values, names, dropped, model, per_item, all_names)


def item_minimums(values: np.ndarray, names: Sequence[str]) -> dict[str, float]:
    """Each item's lowest observed response (mirt's ``Data$mins``), for ``true_score`` as ``expected.test``.

    Parameters
    ----------
    values : ndarray
        Respondents x items, NaN missing.
    names : sequence of str
        The items.

    Returns
    -------
    dict of str to float
        Item -> its lowest response (0 for an item nobody answered).

    Examples
    --------
    >>> import numpy as np
    >>> item_minimums(np.array([[1.0, np.nan], [2.0, np.nan]]), ["q1", "q2"])
    {'q1': 1.0, 'q2': 0.0}
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-missing column has no minimum
        lowest = np.nanmin(values, axis=0)
    return {n: float(v) if np.isfinite(v) else 0.0 for n, v in zip(names, lowest)}
