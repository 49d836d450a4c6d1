"""Benchmark datasets that work offline, the paper's train/test split, and feature preparation.

Three sources: scikit-learn's bundled datasets (no R), OpenML-CC18 members shipped in the CRAN package
``mlbench`` (loaded through the bridge, so they need R), and any local CSV file with a target column.
A dataset is referred to by name (``"iris"``, ``"Vehicle"``) or by path (``"data/my.csv"``, or
``"data/my.csv:label"`` to name the target column).
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, Number, constraints
from irtbridge._moved import moved_keywords
from irtbridge._validation import check_int, check_number, read_csv, require_columns, show_value
from irtbridge.example_data import r_dataset
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level

__all__ = [
    "BenchmarkDataset",
    "SKLEARN_DATASETS",
    "MLBENCH_DATASETS",
    "DEFAULT_DATASETS",
    "QUICK_DATASETS",
    "QUICK_MAX_ITEMS",
    "available_datasets",
    "DatasetRef",
    "parse_dataset_ref",
    "as_dataset",
    "is_one_dataset",
    "load_benchmark_dataset",
    "DatasetInfo",
    "DATASETS",
    "dataset_info",
    "class_labels",
    "stratified_split",
    "prepare_features",
]

#: scikit-learn's bundled classification datasets: name -> loader function in sklearn.datasets
SKLEARN_DATASETS = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
}

#: mlbench datasets that are OpenML-CC18 members or its classic UCI neighbours:
#: name -> (target column, columns to drop)
MLBENCH_DATASETS = {
    "BreastCancer": ("Class", ("Id",)),  # OpenML-CC18 "breast-w"
    "PimaIndiansDiabetes": ("diabetes", ()),  # "diabetes"
    "Vehicle": ("Class", ()),  # "vehicle"
    "Vowel": ("Class", ()),  # "vowel"
    "DNA": ("Class", ()),  # "dna"
    "Satellite": ("classes", ()),  # "satimage"
    "LetterRecognition": ("lettr", ()),  # "letter"
    "Ionosphere": ("Class", ()),
    "Sonar": ("Class", ()),
    "Glass": ("Type", ()),
    "HouseVotes84": ("Class", ()),
    "Soybean": ("Class", ()),
}

#: the offline stand-in for OpenML-CC18 used when no datasets are named: every set has < 2000 rows,
#: so the default pool trains in seconds per dataset.
DEFAULT_DATASETS = (
    "iris", "wine", "breast_cancer", "digits",
    "BreastCancer", "PimaIndiansDiabetes", "Vehicle", "Vowel", "Ionosphere", "Sonar", "Glass",
)

#: three small sets for smoke runs (``--quick``)
QUICK_DATASETS = ("iris", "wine", "Sonar")
#: the test-set cap of a quick run (`irtbridge evaluate --quick` and `irtbridge benchmark --quick`)
QUICK_MAX_ITEMS = 60


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about an embedded dataset before loading it.

    Attributes
    ----------
    name : str
    source : {"sklearn", "mlbench"}
    n_classes : int
        Number of classes of its target (2: a binary task, where the Efficiency Index, the cost-curve
        hardness and the MLC apply).
    cost : int
        Rough relative cost of one evaluation (test items x respondents and the pool's training time,
        1 to 10): parallel runs start the most expensive units first.
    provenance : str
        Where the data comes from.
    """

    name: str
    source: str
    n_classes: int
    cost: int
    provenance: str

    @property
    def binary(self) -> bool:
        """Whether the dataset has two classes."""
        return self.n_classes == 2


def _registry() -> dict[str, DatasetInfo]:
    # name: (n_classes, cost); the sklearn loaders and mlbench's data() calls are the provenance
    facts = {
        "iris": (3, 1), "wine": (3, 2), "breast_cancer": (2, 6), "digits": (10, 10),
        "BreastCancer": (2, 7), "PimaIndiansDiabetes": (2, 8), "Vehicle": (4, 9), "Vowel": (11, 9), "DNA": (3, 10),
        "Satellite": (6, 10), "LetterRecognition": (26, 10), "Ionosphere": (2, 5), "Sonar": (2, 3), "Glass": (6, 3),
        "HouseVotes84": (2, 5), "Soybean": (19, 5),
    }
    out = {}
    for name, (k, cost) in facts.items():
        if name in SKLEARN_DATASETS:
            out[name] = DatasetInfo(name, "sklearn", k, cost, f"scikit-learn {SKLEARN_DATASETS[name]}()")
        else:
            out[name] = DatasetInfo(name, "mlbench", k, cost, f"R mlbench::{name}")
    return out


#: the dataset registry: every embedded dataset with its number of classes, cost and provenance
DATASETS: dict[str, DatasetInfo] = _registry()


def dataset_info(name: str) -> DatasetInfo | None:
    """The registry entry of an embedded dataset (any case), None for anything else (e.g. a CSV path).

    Parameters
    ----------
    name : str
        A dataset name (any case) or anything else.

    Returns
    -------
    DatasetInfo or None
        The entry of :data:`DATASETS`, or None.

    Examples
    --------
    >>> dataset_info("sonar").n_classes, dataset_info("Sonar").provenance
    (2, 'R mlbench::Sonar')
    >>> dataset_info("my.csv") is None
    True
    """
    if not isinstance(name, str):
        return None
    lowered = {k.lower(): v for k, v in DATASETS.items()}
    return lowered.get(name.lower())


def class_labels(y: Any) -> tuple[str, ...]:
    """Class labels as strings; a binary pair as ``(negative, positive)``, the positive one the minority.

    Two equally frequent classes are sorted (the second is positive); more classes are sorted.

    Parameters
    ----------
    y : array-like
        The labels of a dataset.

    Returns
    -------
    tuple of str
        ``(negative, positive)`` for two classes, the sorted labels otherwise.

    Examples
    --------
    >>> class_labels(["b", "a", "a", "b", "b"])
    ('b', 'a')
    >>> class_labels([3, 1, 2])
    ('1', '2', '3')
    """
    counts = pd.Series(np.asarray(y)).astype(str).value_counts()
    if len(counts) == 2 and counts.iloc[0] != counts.iloc[1]:
        return (str(counts.index[0]), str(counts.index[1]))
    return tuple(sorted(counts.index))


@dataclass(frozen=True, eq=False)
class BenchmarkDataset:
    """A classification dataset ready for the benchmark.

    Attributes
    ----------
    name : str
        Label used in every output table.
    X : pandas.DataFrame
        Features, one row per instance (numbers, strings for categories, NaN for missing).
    y : pandas.Series
        Class labels, same index as ``X``.
    source : str
        Where it came from (``"sklearn"``, ``"mlbench"``, a file path, or ``"memory"``).
    """

    name: str
    X: pd.DataFrame = field(repr=False)
    y: pd.Series = field(repr=False)
    source: str = "memory"

    def __post_init__(self) -> None:
        if not isinstance(self.X, pd.DataFrame):
            raise ValidationError(f"dataset {self.name!r}: X must be a pandas DataFrame, got {type(self.X).__name__}")
        if not isinstance(self.y, pd.Series):
            object.__setattr__(self, "y", pd.Series(np.asarray(self.y), index=self.X.index, name="target"))
        if len(self.X) != len(self.y):
            raise ValidationError(f"dataset {self.name!r}: X has {len(self.X)} rows but y has {len(self.y)}")
        if self.X.shape[1] == 0:
            raise ValidationError(f"dataset {self.name!r} has no feature columns")
        missing = self.y.isna().to_numpy()
        if missing.any():
            raise ValidationError(
                f"dataset {self.name!r}: the target has {int(missing.sum())} missing label(s); drop those rows"
            )
        if self.y.nunique() < 2:
            raise ValidationError(f"dataset {self.name!r}: the target has a single class {self.y.iloc[0]!r}")

    @property
    def n_classes(self) -> int:
        """The number of distinct labels of ``y``."""
        return int(self.y.nunique())


def available_datasets() -> dict[str, str]:
    """Named datasets and where they come from (``"sklearn"`` or ``"mlbench"``); see :data:`DATASETS`.

    Returns
    -------
    dict of str to str
        Dataset name -> its source.
    """
    return {k: info.source for k, info in DATASETS.items()}


@dataclass(frozen=True)
class DatasetRef:
    """A checked dataset reference: an embedded dataset's name, or a CSV file with an optional target column.

    Built by :func:`parse_dataset_ref`, the one parser of ``NAME`` / ``PATH.csv`` / ``PATH.csv:TARGET`` that
    the CLI, :func:`irtbridge.pipeline.resolve_datasets`, :func:`irtbridge.pipeline.run_benchmark` and
    :func:`load_benchmark_dataset` share, so a reference one accepts the others load.

    Parameters
    ----------
    label : str
        The dataset's name: an embedded dataset's (lower case) or the CSV file's name without extension.
    path : str or None, default None
        The CSV file; None for an embedded dataset.
    target : str or None, default None
        The CSV's target column; None for the default (``Settings.target``).
    """

    label: str
    path: str | None = None
    target: str | None = None


def parse_dataset_ref(ref: Any) -> DatasetRef:
    """Check one dataset reference without loading it (a one-line ValidationError naming it if it is bad).

    Parameters
    ----------
    ref : str
        ``NAME``, ``PATH.csv`` or ``PATH.csv:TARGET`` (anything else is a ValidationError).

    Returns
    -------
    DatasetRef
        The checked reference.

    Examples
    --------
    >>> parse_dataset_ref("WINE")
    DatasetRef(label='wine', path=None, target=None)
    """
    if not isinstance(ref, str) or not ref.strip():
        raise ValidationError(f"datasets: each entry must be a dataset name or a CSV path, got {show_value(ref)}")
    raw = ref.strip()
    registry = {k.lower(): k for k in available_datasets()}
    if raw.lower() in registry:
        return DatasetRef(registry[raw.lower()])
    path, target = raw, None
    head, sep, tail = raw.rpartition(":")
    # only split when what is left of the last colon is a CSV path (a Windows drive letter is not a target)
    if sep and head.lower().endswith(".csv") and not any(c in tail for c in "/\\"):
        if not tail:
            raise ValidationError(f"datasets: {raw!r} has no target column after the colon; give PATH.csv:COLUMN, "
                                  "or PATH.csv for the column 'target'")
        path, target = head, tail
    if not os.path.isfile(path):
        raise ValidationError(
            f"datasets: {raw!r} is neither an embedded dataset nor an existing .csv file; embedded: "
            f"{', '.join(sorted(available_datasets(), key=str.lower))} (or give PATH.csv[:TARGET])"
        )
    return DatasetRef(os.path.splitext(os.path.basename(path))[0], path, target)


def is_one_dataset(value: Any) -> bool:
    """Whether ``value`` is one dataset (a name, a BenchmarkDataset, a DataFrame, or ``(X, y)`` /
    ``(frame, "target")`` with a table first) rather than a collection of them.

    Parameters
    ----------
    value : object
        What a caller passed as ``datasets``.

    Returns
    -------
    bool
        True for one dataset, False for a collection.
    """
    if isinstance(value, (str, BenchmarkDataset, pd.DataFrame)):
        return True
    return (isinstance(value, tuple) and len(value) == 2
            and isinstance(value[0], (pd.DataFrame, np.ndarray)))


def as_dataset(entry: Any, label: str) -> "str | BenchmarkDataset":
    """One entry of a ``datasets`` list: a name or CSV path (returned as given), a :class:`BenchmarkDataset`,
    ``(X, y)`` (features and labels), ``(frame, "label")`` (a DataFrame and its target column), or a
    DataFrame with a column ``target`` (as a CSV file given without ``:TARGET``); the
    in-memory forms become a BenchmarkDataset called ``label``. Anything else is a one-line error that
    shows the entry by type and shape.

    Parameters
    ----------
    entry : object
        One entry of a ``datasets`` list, in any of the forms above.
    label : str
        The name of an in-memory dataset.

    Returns
    -------
    str or BenchmarkDataset
        A name or path as given, else the dataset.

    Examples
    --------
    >>> frame = pd.DataFrame({"x": [0.1, 0.5, 0.9, 0.3], "y": ["a", "b", "b", "a"]})
    >>> ds = as_dataset((frame, "y"), "mine")
    >>> ds.name, ds.X.shape, ds.y.tolist()
    ('mine', (4, 1), ['a', 'b', 'b', 'a'])
    >>> as_dataset(frame, "mine")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: datasets: mine is a DataFrame of shape (4 x 2); give (frame,
    "target_column") or (X, y), or a dataset name or CSV path
    """
    if isinstance(entry, (str, BenchmarkDataset)):
        return entry
    if isinstance(entry, pd.DataFrame) and "target" in map(str, entry.columns):
        entry = (entry.rename(columns=str), "target")  # as a CSV file given without :TARGET
    if isinstance(entry, tuple) and len(entry) == 2:
        X, y = entry
        if isinstance(X, pd.DataFrame) and isinstance(y, str):
            require_columns(X, [y], f"datasets: {label}")
            return BenchmarkDataset(label, X.drop(columns=[y]), X[y].rename("target"))
        if isinstance(X, np.ndarray) and X.ndim == 2:
            X = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(X.shape[1])])
        if not isinstance(X, pd.DataFrame):
            raise ValidationError(f"datasets: {label}: X must be a DataFrame or a 2-D array, got {show_value(X)}")
        values = np.asarray(y)
        if values.ndim != 1:
            raise ValidationError(f"datasets: {label}: y must be one label per row of X, got {show_value(y)}")
        if len(values) != len(X):
            raise ValidationError(f"datasets: {label}: X has {len(X)} rows but y has {len(values)} labels")
        return BenchmarkDataset(label, X, pd.Series(values, index=X.index, name="target"))
    hint = ('give (frame, "target_column") or (X, y), or a dataset name or CSV path'
            if isinstance(entry, pd.DataFrame) else "give a dataset name, a CSV path, (X, y) or (frame, \"target_column\")")
    raise ValidationError(f"datasets: {label} is {show_value(entry)}; {hint}")


def load_benchmark_dataset(ref: Any, target: str | None = None, name: str | None = None) -> BenchmarkDataset:
    """Load one dataset by name or CSV path.

    Parameters
    ----------
    ref : str or BenchmarkDataset
        A name from :func:`available_datasets` (matched ignoring case), a CSV path (``"x.csv"`` or
        ``"x.csv:target_column"``), or a :class:`BenchmarkDataset` (returned unchanged).
    target : str, optional
        Target column of a CSV file (default: ``"target"``, or the column named after the colon).
    name : str, optional
        Label for the dataset (default: the registry name, or the CSV file's stem).

    Returns
    -------
    BenchmarkDataset

    Notes
    -----
    mlbench datasets come from R: ``data(name, package = "mlbench")`` through the bridge, factors as
    strings. Strings that are all numbers (mlbench's ordered factors such as BreastCancer's
    ``Cl.thickness``) become numbers in :func:`prepare_features`.

    Examples
    --------
    >>> ds = load_benchmark_dataset("iris")
    >>> ds.X.shape, ds.n_classes
    ((150, 4), 3)
    """
    if isinstance(ref, BenchmarkDataset):
        return ref
    checked = parse_dataset_ref(ref)
    key = checked.label if checked.path is None else None
    if key in SKLEARN_DATASETS:
        import sklearn.datasets  # scikit-learn (~1.3 s) loads when it is used

        bunch = getattr(sklearn.datasets, SKLEARN_DATASETS[key])(as_frame=True)
        X = bunch.data.copy()
        names = getattr(bunch, "target_names", None)
        y = bunch.target.copy()
        if names is not None and len(names) == y.nunique():
            y = pd.Series(np.asarray(names)[y.to_numpy()], index=y.index, name="target")
        return BenchmarkDataset(name or key, X, y, "sklearn")
    if key in MLBENCH_DATASETS:
        column, drop = MLBENCH_DATASETS[key]
        frame = r_dataset("mlbench", key)
        y = frame[column]
        X = frame.drop(columns=[column, *drop])
        return BenchmarkDataset(name or key, X, y, "mlbench")
    path = checked.path
    if path is not None:
        column = target or checked.target or "target"
        frame = read_csv(path, "dataset")
        require_columns(frame, [column], f"dataset file {path!r} (choose the target column with path.csv:COLUMN)")
        y = frame[column]
        keep = y.notna().to_numpy()
        if not keep.all():
            warnings.warn(
                f"dataset file {path!r}: dropped {int((~keep).sum())} row(s) with a missing target {column!r}",
                DataWarning,
                stacklevel=find_stack_level(),
            )
        frame = frame.loc[keep]
        return BenchmarkDataset(name or checked.label, frame.drop(columns=[column]), frame[column], path)
    raise ValidationError(f"dataset {checked.label!r} is in the registry but has no loader")  # pragma: no cover


@constraints(test_fraction=Number(low=0.0, high=1.0, low_open=True, high_open=True), max_items=Int(low=2, allow_none=True),
             max_train=Int(low=2, allow_none=True))
def stratified_split(
    y: Any,
    *,
    test_fraction: float = 0.3,
    max_items: int | None = 500,
    max_train: int | None = None,
    seed: Any = 0,
    **old: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Stratified train/test split with the test set capped, as decodIRT does.

    Parameters
    ----------
    y : array_like
        Class labels.
    test_fraction : float, default 0.3
        Share of the instances in the test set (the items), before the cap.
    max_items : int or None, default 500
        Largest test set (the paper's 500: more items make 3PL calibration unreliable and slow).
    max_train : int or None, default None
        Largest training set (None: all remaining instances, as in the paper); a stratified subsample
        of the rest otherwise, to bound training time on very large datasets.
    seed : int, default 0
        Seeds the split (the names are :class:`~irtbridge.decodirt.settings.Settings`'s).
    **old
        ``test_size=``, ``max_test=``, ``random_state=`` of irtbridge 0.1: still accepted, with a
        DeprecationWarning.

    Returns
    -------
    train, test : numpy.ndarray of int
        Positions into ``y``, each sorted.

    Notes
    -----
    ``n_test = min(ceil(test_fraction * n), max_items)``; each class c with n_c instances contributes
    about ``n_test * n_c / n`` test instances (scikit-learn's ``StratifiedShuffleSplit`` allocation).
    Classes with a single instance cannot be stratified and are an error naming them.

    Examples
    --------
    >>> train, test = stratified_split(["a"] * 70 + ["b"] * 30)
    >>> len(train), len(test)
    (70, 30)
    """
    from sklearn.model_selection import train_test_split  # scikit-learn (~1.3 s) loads when it is used

    old = _old_split_keywords(old)
    test_fraction, max_items, seed = (old.get("test_fraction", test_fraction), old.get("max_items", max_items),
                                      old.get("seed", seed))
    test_fraction = check_number(test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    labels = pd.Series(np.asarray(y))
    n = len(labels)
    counts = labels.value_counts()
    lonely = counts.index[counts < 2].tolist()
    if lonely:
        raise ValidationError(
            f"classes {lonely[:5]} have a single instance and cannot be stratified; drop them or merge classes"
        )
    n_test = math.ceil(test_fraction * n)
    if max_items is not None:
        n_test = min(n_test, check_int(max_items, "max_items", low=2))
    k = len(counts)
    if n_test < k or n - n_test < k:
        raise ValidationError(
            f"a stratified split of {n} instances into {n_test} test instances cannot hold all {k} classes on both "
            "sides; raise max_items/test_fraction or use a larger dataset"
        )
    positions = np.arange(n)
    train, test = train_test_split(positions, test_size=n_test, stratify=labels.to_numpy(), random_state=seed)
    if max_train is not None:
        max_train = check_int(max_train, "max_train", low=2)
        if len(train) > max_train:
            train, _ = train_test_split(
                train, train_size=max(max_train, k), stratify=labels.to_numpy()[train], random_state=seed
            )
    return np.sort(train), np.sort(test)


#: the keywords of stratified_split before they took Settings's names
_old_split_keywords = moved_keywords("irtbridge.decodirt.stratified_split", {
    "test_size": "stratified_split(test_fraction=)", "max_test": "stratified_split(max_items=)",
    "random_state": "stratified_split(seed=)"})


def prepare_features(X_train: pd.DataFrame, X_test: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Numeric feature matrices for scikit-learn, learned on the training part only.

    Strings that all parse as numbers become numbers; other string columns are one-hot encoded (a
    missing value is its own category); numbers are imputed with the training median and standardized
    with the training mean and standard deviation (distance- and margin-based models such as KNN, SVM
    and MLP need comparable scales).

    Parameters
    ----------
    X_train : DataFrame
        The training part's features (the encodings and scales are learned here).
    X_test : DataFrame
        The test part's features, transformed with what the training part taught.

    Returns
    -------
    train, test : numpy.ndarray of float
        The training and test matrices, with the same columns.
    """
    from sklearn.compose import ColumnTransformer  # scikit-learn (~1.3 s) loads when it is used
    from sklearn.impute import SimpleImputer  # scikit-learn (~1.3 s) loads when it is used
    from sklearn.pipeline import make_pipeline  # scikit-learn (~1.3 s) loads when it is used
    from sklearn.preprocessing import OneHotEncoder, StandardScaler  # scikit-learn (~1.3 s) loads when it is used

    def numeric_view(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        for col in out.columns:
            if not pd.api.types.is_numeric_dtype(out[col]):
                parsed = pd.to_numeric(out[col], errors="coerce")
                if (parsed.notna() | out[col].isna()).all():
                    out[col] = parsed
        return out

    both = numeric_view(pd.concat([X_train, X_test], axis=0, ignore_index=True))
    train = both.iloc[: len(X_train)]
    test = both.iloc[len(X_train):]
    numeric = [c for c in both.columns if pd.api.types.is_numeric_dtype(both[c]) or pd.api.types.is_bool_dtype(both[c])]
    categorical = [c for c in both.columns if c not in numeric]
    parts = []
    if numeric:
        numbers = make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler())
        parts.append(("num", numbers, numeric))
    if categorical:
        parts.append((
            "cat",
            make_pipeline(
                SimpleImputer(strategy="constant", fill_value="(missing)"),
                OneHotEncoder(handle_unknown="ignore", sparse_output=False),
            ),
            categorical,
        ))
    transformer = ColumnTransformer(parts, sparse_threshold=0.0)
    cat_train = train.copy()
    cat_test = test.copy()
    for col in categorical:
        # the encoder needs one type per column: categories as strings, missing as NaN
        cat_train[col] = cat_train[col].map(_as_category)
        cat_test[col] = cat_test[col].map(_as_category)
    Xtr = transformer.fit_transform(cat_train)
    Xte = transformer.transform(cat_test)
    return np.asarray(Xtr, dtype=float), np.asarray(Xte, dtype=float)


def _as_category(value: Any) -> Any:
    return np.nan if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)
