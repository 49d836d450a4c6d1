"""The options of one evaluation and the datasets it runs on (checked without loading them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


from irtbridge._validation import check_choice, check_int, check_number, csv_header
from irtbridge.benchmark.data import parse_dataset_ref
from irtbridge.benchmark.modes import CalibrationMode
from irtbridge.exceptions import ValidationError


@dataclass(frozen=True)
class Settings:
    """Options of one evaluation (Cardoso et al.'s (decodIRT) settings unless stated).

    Attributes
    ----------
    seed : int
        Seeds every random choice (split, classifiers, random respondents, MLC); the same seed gives
        the same report whatever ``jobs`` is.
    calibration : {"stable", "paper"}
        ``"stable"`` (default): mirt's 3PL with weakly informative priors; ``"paper"``: ltm's 3PL as
        Cardoso et al. (decodIRT) (:mod:`irtbridge.benchmark.modes`, ``docs/calibration-modes.md``).
    engine : {"mirt", "native", "ltm"} or None
        3PL calibration engine tried first; None: the mode's (mirt for stable, ltm's ``tpm`` for paper).
        After construction it holds the engine that will run.
    fallback : bool or None
        Retry a dataset with the mode's other engine when the first errs or does not converge; None: the
        mode's default (paper: yes; stable has no fallback). After construction: whether there is one.
    mode : CalibrationMode
        Resolved from ``calibration``, ``engine`` and ``fallback`` once, at construction (an invalid
        combination is a one-line ValidationError there, before any work); everything below reads it.
    engine_options : mapping, optional
        Extra options per engine (``{"mirt": {"technical": {"NCYCLES": 2000}}}``), part of ``mode``.
    pool : str, list or mapping
        Classifier pool of :func:`irtbridge.benchmark.classifier_pool`: ``"default"`` (the paper's 12
        and variants, 43 respondents with the artificial ones) or ``"quick"``/``"paper"``, or members.
    test_fraction : float
        Share of each dataset held out as items (0.3).
    max_items : int or None
        Cap on the test set (500, the paper's; 60 in quick runs; None: no cap).
    max_train : int or None
        Cap on the training set (None: all the rest).
    n_random, artificial : int, bool
        Random guessers among the artificial respondents; whether to add those respondents at all.
    accept_unconverged : bool
        Keep an unconverged fit when no engine converges (otherwise the dataset is left out).
    target : str or None
        Target column of CSV datasets given without ``:TARGET`` (default ``"target"``).
    ability_method : {"ML", "MAP", "EAP"}
        Ability estimator before the True-Scores (ML, as the paper's catsim).
    order : str
        Dataset order of the main tournament (:data:`irtbridge.benchmark.ORDERS`; default by
        increasing mean difficulty).
    tolerance : float
        True-Scores closer than this draw.
    tau : float
        Glicko-2 system constant.
    mlc_dataset : str or None
        Dataset of the per-class MLC (default: the first binary dataset).
    mlc_classifier : str
        Classifier of the MLC (a name of :data:`irtbridge.mlc.CLASSIFIERS`).
    quick : bool
        Set by :meth:`quick_run`.
    """

    seed: int = 0
    calibration: str = "stable"
    engine: str | None = None
    fallback: bool | None = None
    pool: str = "default"
    test_fraction: float = 0.3
    max_items: int = 500
    ability_method: str = "ML"
    order: str = "difficulty"
    tolerance: float = 1e-6
    tau: float = 0.5
    mlc_dataset: str | None = None
    mlc_classifier: str = "mlp"
    quick: bool = False
    engine_options: Mapping[str, Mapping[str, Any]] | None = None
    max_train: int | None = None
    n_random: int = 3
    artificial: bool = True
    accept_unconverged: bool = False
    target: str | None = None
    mode: CalibrationMode = field(init=False, repr=False, compare=False)

    @classmethod
    def quick_run(cls, **overrides: Any) -> "Settings":
        """Settings of ``--quick``: the fast 12-model pool and at most 60 test instances per dataset."""
        from irtbridge.benchmark.data import QUICK_MAX_ITEMS

        return cls(**{"quick": True, "max_items": QUICK_MAX_ITEMS, "pool": "quick", **overrides})

    def __post_init__(self) -> None:
        from irtbridge.benchmark import ORDERS

        check_int(self.seed, "seed", low=0)
        mode = CalibrationMode.resolve(self.calibration, self.engine, self.fallback, self.engine_options)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "calibration", mode.name)
        object.__setattr__(self, "engine", mode.engine)
        object.__setattr__(self, "fallback", bool(mode.fallback))
        object.__setattr__(self, "engine_options", {e: dict(o) for e, o in mode.engine_options.items()} or None)
        if isinstance(self.pool, str):
            check_choice(self.pool, "pool", ("default", "paper", "quick"))
        else:  # a list of members or a mapping name -> estimator: checked here, not in every worker
            from irtbridge.benchmark.respondents import classifier_pool

            classifier_pool(self.pool)
        check_number(self.test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
        for value, label in ((self.max_items, "max_items"), (self.max_train, "max_train")):
            if value is not None:
                check_int(value, label, low=10 if label == "max_items" else 2)
        check_int(self.n_random, "n_random", low=0)
        check_choice(self.ability_method, "ability_method", ("ML", "MAP", "EAP"))
        check_choice(self.order, "order", ORDERS)
        check_number(self.tolerance, "tolerance", low=0.0)
        check_number(self.tau, "tau", low=0.0, low_open=True)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings; the calibration mode as it ran (``mode``: engine, fallback engines, priors)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "mode"}
        out["mode"] = self.mode.to_dict()
        return out

    def benchmark_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`irtbridge.benchmark.evaluate_dataset` for these settings."""
        return dict(pool=self.pool, calibration=self.mode, test_size=self.test_fraction, max_test=self.max_items,
                    max_train=self.max_train, n_random=self.n_random, artificial=bool(self.artificial),
                    accept_unconverged=bool(self.accept_unconverged), ability_method=self.ability_method,
                    random_state=self.seed, target=self.target)


def resolve_datasets(names: Any = None, *, quick: bool = False, target: str | None = None) -> list[Any]:
    """Check dataset references without loading them (the header of each CSV file is read: a target column it
    lacks, ``:TARGET``, else ``target``, else ``"target"``, is an error before any dataset runs).

    Parameters
    ----------
    names : list, mapping or one dataset, optional
        Each entry an embedded name, ``PATH.csv`` or ``PATH.csv:TARGET``, or an in-memory dataset:
        ``(X, y)`` (a DataFrame or 2-D array of features and one label per row), ``(frame, "target")``
        (a DataFrame and the name of its target column) or a
        :class:`~irtbridge.benchmark.data.BenchmarkDataset`. In-memory datasets in a list are called
        ``dataset_1``, ``dataset_2``... by position; a mapping ``{name: (X, y), ...}`` names them.
        Default: the benchmark's default datasets (its quick ones with ``quick=True``).
    target : str, optional
        The target column of CSV files given without ``:TARGET`` (``Settings.target``; default ``"target"``).

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
    from irtbridge.benchmark import data as bdata

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
    names_seen = [_label(r) for r in out]
    dup = sorted({n for n in names_seen if names_seen.count(n) > 1})
    if dup:
        raise ValidationError(f"datasets: {dup[0]!r} is given twice")
    if not out:
        raise ValidationError("datasets: give at least one dataset")
    return out


def _label(ref: Any) -> str:
    return ref.name if not isinstance(ref, str) and hasattr(ref, "name") else parse_dataset_ref(ref).label
