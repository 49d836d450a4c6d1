"""The datasets of one evaluation, checked without loading them (their options: :class:`Settings`, in
:mod:`irtbridge.decodirt.settings`)."""

from __future__ import annotations

from typing import Any, Mapping

from irtbridge._constraints import Flag, constraints
from irtbridge._validation import csv_header
from irtbridge.decodirt import classification_data as bdata
from irtbridge.decodirt.classification_data import parse_dataset_ref
from irtbridge.decodirt.settings import Settings
from irtbridge.exceptions import ValidationError
from irtbridge.pipeline._names import dataset_label

__all__ = ["Settings", "resolve_datasets"]


@constraints(quick=Flag())
def resolve_datasets(names: Any = None, *, quick: bool = False, target: str | None = None) -> list[Any]:
    """Check dataset references without loading them (the header of each CSV file is read: a target column it
    lacks, ``:TARGET``, else ``target``, else ``"target"``, is an error before any dataset runs).

    Parameters
    ----------
    names : list, mapping or one dataset, optional
        Each entry an embedded name, ``PATH.csv`` or ``PATH.csv:TARGET``, or an in-memory dataset:
        ``(X, y)`` (a DataFrame or 2-D array of features and one label per row), ``(frame, "target")``
        (a DataFrame and the name of its target column) or a
        :class:`~irtbridge.decodirt.classification_data.BenchmarkDataset`. In-memory datasets in a list are called
        ``dataset_1``, ``dataset_2``... by position; a mapping ``{name: (X, y), ...}`` names them.
        Default: the benchmark's default datasets (its quick ones with ``quick=True``).
    target : str, optional
        The target column of CSV files given without ``:TARGET`` (``Settings.target``; default ``"target"``).
    quick : bool, default False
        Without ``names``: the quick run's datasets instead of the default ones.

    Returns
    -------
    list
        The canonical names (or the paths as given), and a BenchmarkDataset for each in-memory dataset.

    Examples
    --------
    >>> resolve_datasets(["sonar", "WINE"])
    ['Sonar', 'wine']
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [0.2, 0.4, 0.6, 0.8], "label": [0, 1, 0, 1]})
    >>> [getattr(d, "name", d) for d in resolve_datasets(["iris", (frame, "label")])]
    ['iris', 'dataset_2']
    """
    if names is None:
        names = bdata.QUICK_DATASETS if quick else bdata.DEFAULT_DATASETS
    if bdata.is_one_dataset(names):
        names = [names]  # one dataset: a name, (X, y), (frame, "target") or a BenchmarkDataset
    entries = list(names.items()) if isinstance(names, Mapping) else [(None, n) for n in names]
    out: list[Any] = []
    for position, (label, raw) in enumerate(entries, start=1):
        if label is not None and isinstance(raw, str):
            raise ValidationError(f"datasets: {label!r} maps to {raw!r}; a mapping names in-memory datasets "
                                  "((X, y) or (frame, 'target')); list names and paths instead")
        entry = bdata.as_dataset(raw, str(label) if label is not None else f"dataset_{position}")
        if not isinstance(entry, str):
            out.append(entry)
            continue
        ref = parse_dataset_ref(entry)  # the loader's own parser: what passes here loads
        out.append(ref.label if ref.path is None else entry.strip())
        if ref.path is not None:
            column = ref.target or target or "target"
            if column not in csv_header(ref.path, "dataset"):
                raise ValidationError(f"datasets: {entry.strip()!r} has no column {column!r} to predict; name the "
                                      "target column with PATH.csv:COLUMN")
    names_seen = [dataset_label(r) for r in out]
    dup = sorted({n for n in names_seen if names_seen.count(n) > 1})
    if dup:
        raise ValidationError(f"datasets: {dup[0]!r} is given twice")
    if not out:
        raise ValidationError("datasets: give at least one dataset")
    return out
