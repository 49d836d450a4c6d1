"""The one evaluation pipeline behind ``irtbridge evaluate`` (and, without the report, ``irtbridge benchmark``).

:func:`evaluate` runs the benchmark's per-dataset pipeline, then optional stages that *read* its
per-dataset result, then the stages across datasets, and returns an immutable :class:`Evaluation`:

1. **per dataset** (:func:`run_dataset`, one unit of work; units run in parallel in spawned processes
   that each embed their own R, :mod:`irtbridge._parallel`):

   * the benchmark's pipeline (:func:`irtbridge.benchmark.evaluate_dataset`, Cardoso et al. (decodIRT)):
     stratified 70/30 split with the test set capped, a pool of scikit-learn classifiers plus the
     artificial respondents, the response matrix, a 3PL calibrated in R (mode ``stable`` or ``paper``),
     abilities, True-Scores, item flags, item misfit and person fit;
   * stages on that result, never refitting or re-splitting anything: the typical-classifier
     probability of every item, and for binary datasets the Efficiency Index family of every classifier
     (:func:`irtbridge.efficiency.efficiency_frame`, Larner (2023)) and the cost-curve instance hardness
     of the benchmark's classifiers' own scores (:class:`irtbridge.hardness.PoolHardness`, Prudêncio)
     (:func:`binary_extras`);

2. **MLC** (:func:`run_mlc`, the MLC paper) of one binary dataset, as one more unit;
3. **across datasets** (:func:`assemble`, native, in the calling process): dataset diagnostics, the
   Glicko-2 tournament with 95% intervals and Friedman/Nemenyi beside it
   (:func:`irtbridge.benchmark.tournament`), the validity of the paper's six benchmark subsets, the
   hardest instances and the EI pooled per classifier.

The stage interface
-------------------
A per-dataset stage is a function ``stage(result) -> result`` of a :class:`DatasetResult` that returns
it with more columns in ``items``/``respondents`` or a new table (``dataclasses.replace``); it reads
``result.benchmark`` (an :class:`irtbridge.benchmark.DatasetResult`), which carries everything the
pipeline knows about the dataset:

* ``train_index``, ``test_index``: the split (positions into the dataset's rows);
* ``y_test``: the test labels by item; ``classes``: ``(negative, positive)`` for a binary task;
* ``predictions`` and (binary) ``scores``: every real classifier's test-set labels and ``P(y = positive)``;
* ``responses``, ``items`` (``a, b, g, u``, ``flag``, ``misfit_p``), ``respondents`` (``theta``,
  ``true_score``, ``Zh``, ...), ``calibration`` (the fit and its provenance), ``calibration_mode``;
* ``warnings``: ``(category, message)`` pairs, ``attempts``: structured calibration attempts.

A stage that fails must not cost the estimates: :func:`run_dataset` catches it and records why in
``warnings``. A stage across datasets is a function of the per-dataset results and :class:`Settings`
called from :func:`assemble`. :mod:`irtbridge.report` turns an :class:`Evaluation` into the HTML page,
CSVs and JSON.
"""

from __future__ import annotations

import os
import platform
import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import expit

from irtbridge import __version__
from irtbridge._parallel import progress_bar, run_units
from irtbridge._validation import _show, check_choice, check_int, check_number
# the embedded benchmark's dataset lists (R-free): what `irtbridge evaluate` runs by default / with --quick
from irtbridge.benchmark.data import DEFAULT_DATASETS, QUICK_DATASETS, dataset_info
from irtbridge.exceptions import IrtBridgeError, ValidationError

__all__ = [
    "DEFAULT_DATASETS",
    "QUICK_DATASETS",
    "Settings",
    "DatasetResult",
    "Evaluation",
    "resolve_datasets",
    "run_dataset",
    "binary_extras",
    "run_mlc",
    "dataset_diagnostics",
    "benchmark_subsets",
    "hard_instances",
    "pooled_efficiency",
    "assemble",
    "evaluate",
]

# --------------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------------

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
    engine : {"ltm", "mirt"} or None
        3PL calibration engine tried first; None: the mode's (mirt for stable, ltm's ``tpm`` for paper).
    fallback : bool
        Retry a dataset with the other engine when the first errs or does not converge.
    pool : str
        Classifier pool of :func:`irtbridge.benchmark.classifier_pool`: ``"default"`` (the paper's 12
        and variants, 43 respondents with the artificial ones) or ``"quick"``/``"paper"``.
    test_fraction : float
        Share of each dataset held out as items (0.3).
    max_items : int
        Cap on the test set (500, the paper's; 60 in quick runs).
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
    fallback: bool = True
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

    @classmethod
    def quick_run(cls, **overrides: Any) -> "Settings":
        """Settings of ``--quick``: the fast 12-model pool and at most 60 test instances per dataset."""
        return cls(**{"quick": True, "max_items": 60, "pool": "quick", **overrides})

    def __post_init__(self) -> None:
        from irtbridge.benchmark import ORDERS

        check_int(self.seed, "seed", low=0)
        check_choice(self.calibration, "calibration", ("stable", "paper"))
        if self.engine is not None:
            check_choice(self.engine, "engine", ("ltm", "mirt"))
        check_choice(self.pool, "pool", ("default", "paper", "quick"))
        check_number(self.test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
        check_int(self.max_items, "max_items", low=10)
        check_choice(self.ability_method, "ability_method", ("ML", "MAP", "EAP"))
        check_choice(self.order, "order", ORDERS)
        check_number(self.tolerance, "tolerance", low=0.0)
        check_number(self.tau, "tau", low=0.0, low_open=True)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def benchmark_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`irtbridge.benchmark.evaluate_dataset` for these settings."""
        return dict(pool=self.pool, calibration=self.calibration, engine=self.engine, fallback=self.fallback, test_size=self.test_fraction,
                    max_test=self.max_items, ability_method=self.ability_method, random_state=self.seed)


def resolve_datasets(names: Iterable[str] | None = None, *, quick: bool = False) -> list[str]:
    """Check dataset references (embedded names, ``PATH.csv`` or ``PATH.csv:TARGET``) without loading them.

    Returns the canonical names (or the paths as given). Default: the benchmark's default datasets
    (its quick ones with ``quick=True``).

    Examples
    --------
    >>> resolve_datasets(["sonar", "WINE"])
    ['Sonar', 'wine']
    """
    from irtbridge.benchmark import available_datasets
    from irtbridge.benchmark import data as bdata

    if names is None:
        names = bdata.QUICK_DATASETS if quick else bdata.DEFAULT_DATASETS
    if isinstance(names, str):
        names = [names]
    registry = {k.lower(): k for k in available_datasets()}
    out: list[str] = []
    for raw in names:
        if not isinstance(raw, str) or not raw.strip():
            raise ValidationError(f"datasets: each entry must be a dataset name or a CSV path, got {_show(raw)}")
        raw = raw.strip()
        if raw.lower() in registry:
            out.append(registry[raw.lower()])
            continue
        head, sep, tail = raw.rpartition(":")
        path = head if sep and head.lower().endswith(".csv") else raw
        if path.lower().endswith(".csv") and os.path.isfile(path):
            out.append(raw)
            continue
        raise ValidationError(
            f"datasets: {raw!r} is neither an embedded dataset nor an existing .csv file; embedded: "
            f"{', '.join(sorted(available_datasets(), key=str.lower))} (or give PATH.csv[:TARGET])"
        )
    names_seen = [_label(r) for r in out]
    dup = sorted({n for n in names_seen if names_seen.count(n) > 1})
    if dup:
        raise ValidationError(f"datasets: {dup[0]!r} is given twice")
    if not out:
        raise ValidationError("datasets: give at least one dataset")
    return out


def _label(ref: str) -> str:
    head, sep, _ = ref.rpartition(":")
    path = head if sep and head.lower().endswith(".csv") else ref
    return os.path.splitext(os.path.basename(path))[0] if path.lower().endswith(".csv") else ref


# --------------------------------------------------------------------------------------------------
# per dataset
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DatasetResult:
    """Everything computed for one dataset: plain data, so it travels between processes and to files.

    Attributes
    ----------
    name, source : str
    n_instances, n_features : int
    classes : tuple of str
        Class labels; for a binary dataset ``(negative, positive)``, the positive one being the
        minority class ("condition present" for the Efficiency Index).
    items : DataFrame
        One row per calibrated test instance (index ``instance``): ``a, b, g, u``; ``label`` (its
        class); ``share_correct`` (of the real classifiers); ``p_typical``, the 3PL probability that a
        classifier of median ability answers it correctly; for binary datasets the cost-curve hardness
        ``hardness_sf, hardness_sd, hardness_rd, hardness_su, hardness_ru``.
    responses : DataFrame
        Respondents x items, 1 = correct.
    respondents : DataFrame
        Per respondent: ``kind`` ("classifier"/"artificial"), ``accuracy``, ``theta``, ``se``,
        ``at_bound``, ``true_score``, ``true_score_positive`` (Cardoso et al.'s (decodIRT) Fig. 9 contrast), ...
    ei : DataFrame or None
        Binary datasets: the EI family of each real classifier on the test set.
    engine : str
    attempts : tuple of str
        Each calibration try and its outcome.
    converged : bool
    dropped_items : tuple of str
    warnings : tuple of str
    seconds : float
    error : str or None
        Why the dataset could not be evaluated (every table is then empty).
    benchmark : irtbridge.benchmark.DatasetResult or None
        The benchmark's own result, which the tournaments are played on.
    """

    name: str
    source: str = ""
    n_instances: int = 0
    n_features: int = 0
    classes: tuple[str, ...] = ()
    items: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    responses: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    respondents: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    ei: pd.DataFrame | None = field(default=None, repr=False)
    engine: str = ""
    attempts: tuple[str, ...] = ()
    converged: bool = False
    dropped_items: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    seconds: float = 0.0
    error: str | None = None
    benchmark: Any = field(default=None, repr=False)

    @property
    def binary(self) -> bool:
        return len(self.classes) == 2

    @property
    def ok(self) -> bool:
        return self.error is None


def run_dataset(ref: str, settings: Settings | None = None) -> DatasetResult:
    """The per-dataset unit of :func:`evaluate` (run it in spawned workers: one R per process).

    Never raises for a bad dataset: the reason is kept in ``error`` so the other datasets go on
    (decodIRT, Cardoso et al., lost "pc4" to a calibration that did not converge).
    """
    from irtbridge.benchmark import evaluate_dataset, load_benchmark_dataset

    settings = settings or Settings()
    start = time.perf_counter()
    name = _label(ref)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kept in the benchmark result and reported on the page
            ds = load_benchmark_dataset(ref)
            bres = evaluate_dataset(ds, **settings.benchmark_options())
    except Exception as exc:  # one dataset's failure must not stop the evaluation
        return DatasetResult(name=name, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - start)
    attempts = tuple(
        f"{a.engine}: {a.status}" + (f" ({a.message})" if a.message else "") + f", {a.seconds:.1f} s" for a in bres.attempts
    )
    base = dict(
        name=bres.name, source=_source(bres.source, bres.name), n_instances=int(bres.n_instances),
        n_features=int(bres.n_features), classes=tuple(bres.classes), responses=bres.responses,
        engine=bres.engine or "", attempts=attempts, dropped_items=tuple(bres.dropped_items),
        warnings=tuple(f"{c}: {m}" for c, m in bres.warnings), benchmark=bres,
    )
    if not bres.ok:
        why = "; ".join(attempts) or "no item parameters"
        return DatasetResult(**base, error=f"no item parameters ({why})", seconds=time.perf_counter() - start)
    items = bres.items.copy()
    items.index = items.index.astype(str)
    items.index.name = "instance"
    respondents = bres.respondents.copy()
    real = list(respondents.index[respondents["kind"] == "classifier"])
    responses = bres.responses.rename(columns=str)
    items["label"] = bres.y_test.reindex(items.index).to_numpy()
    items["share_correct"] = responses.loc[real, items.index].mean(axis=0).to_numpy()
    typical = float(np.nanmedian(respondents.loc[real, "theta"].to_numpy(dtype=float)))
    a, b, g, u = (items[c].to_numpy(dtype=float) for c in ("a", "b", "g", "u"))
    # 3PL (4PL with u) response function at the median classifier's ability, Cardoso et al. (decodIRT), Eq. 1
    items["p_typical"] = g + (u - g) * expit(a * (typical - b))
    result = DatasetResult(
        **base, items=items, respondents=respondents, converged=bool(bres.calibration.converged),
    )
    if result.binary:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = binary_extras(result)
        except Exception as exc:  # the IRT part stands on its own; say why the extras are missing
            result = replace(result, warnings=result.warnings + (f"EI/hardness not computed: {type(exc).__name__}: {exc}",))
    return replace(result, seconds=time.perf_counter() - start)


def _source(source: str, name: str) -> str:
    # the registry's provenance of an embedded dataset; a CSV's file name
    info = dataset_info(name)
    return info.provenance if info is not None and info.source == source else os.path.basename(str(source))


def binary_extras(result: DatasetResult) -> DatasetResult:
    """EI family per classifier and cost-curve instance hardness of a binary dataset, from its result.

    Nothing is refitted or re-split: both stages read what the benchmark's pipeline kept in
    ``result.benchmark`` (:class:`irtbridge.benchmark.DatasetResult`): the test labels ``y_test``, each
    real classifier's ``predictions`` and its scores ``P(y = positive)`` (``scores``).

    Notes
    -----
    With the minority class as positive (1), ``TP = #(pred = 1, y = 1)`` etc., and
    :func:`irtbridge.efficiency.efficiency_frame` gives EI = (TP + TN) / (FP + FN) and its variants with
    95% intervals (Larner 2023). Hardness: the scores of the benchmark's classifier pool on the test
    instances, ``s = P(y = 1)``, are Prudêncio's pool of scoring models;
    :meth:`irtbridge.hardness.PoolHardness.table` gives every threshold choice method.
    """
    from irtbridge.efficiency import efficiency_frame
    from irtbridge.hardness import METHODS, PoolHardness

    bres = result.benchmark
    positive = result.classes[1]
    labels = [str(c) for c in result.responses.columns]
    y_test = (bres.y_test.reindex(labels).to_numpy() == positive).astype(int)
    kinds = result.respondents["kind"]
    real = [r for r in bres.predictions.index if kinds.get(r) == "classifier"]
    pred = (bres.predictions.loc[real, labels].to_numpy() == positive).astype(int)
    counts = {
        "tp": ((pred == 1) & (y_test == 1)).sum(axis=1), "fp": ((pred == 1) & (y_test == 0)).sum(axis=1),
        "fn": ((pred == 0) & (y_test == 1)).sum(axis=1), "tn": ((pred == 0) & (y_test == 0)).sum(axis=1),
    }
    names = pd.Index(real, name="classifier")
    ei = efficiency_frame(*(pd.Series(counts[k], index=names) for k in ("tp", "fp", "fn", "tn")))
    pool = PoolHardness(y=pd.Series(y_test, index=labels), scores=bres.scores.loc[real, labels])
    table = pool.table(METHODS)
    items = result.items.copy()
    for m in METHODS:
        items[f"hardness_{m}"] = table[m].reindex(items.index).to_numpy()
    return replace(result, items=items, ei=ei)


# --------------------------------------------------------------------------------------------------
# MLC (the MLC paper)
# --------------------------------------------------------------------------------------------------

def run_mlc(ref: str, settings: Settings | None = None) -> dict[str, Any]:
    """Per-class Machine Learning Capability of one binary dataset (:func:`irtbridge.mlc.evaluate_mlc`).

    The CDIs come from the features cut at their quartiles (graded model in R); class 1 is the minority
    class. Returns plain tables: ``{"dataset", "classifier", "classes" (per class: MLC, cases used,
    share of the data, convergence, accuracy of the test cases at or below / above the MLC),
    "metrics" (the Tables 4-5 layout), "trajectories", "error", "seconds"}``.
    """
    from irtbridge.benchmark import class_labels, load_benchmark_dataset, prepare_features
    from irtbridge.mlc import evaluate_mlc

    settings = settings or Settings()
    start = time.perf_counter()
    out: dict[str, Any] = {"dataset": _label(ref), "classifier": settings.mlc_classifier, "classes": None,
                           "metrics": None, "trajectories": None, "error": None, "seconds": 0.0}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load_benchmark_dataset(ref)
            classes = class_labels(ds.y)
            if len(classes) != 2:
                raise ValidationError(f"the MLC needs two classes; {out['dataset']} has {len(classes)}")
            X, _ = prepare_features(ds.X, ds.X)  # numbers and one-hot categories; scaling is harmless
            X = pd.DataFrame(X, index=ds.X.index, columns=[f"x{j + 1}" for j in range(X.shape[1])])
            y = (ds.y.astype(str) == classes[1]).astype(int)
            res = evaluate_mlc(X, y, settings.mlc_classifier, features="quartiles", random_state=settings.seed)
        by = res.accuracy_by_mlc("true")
        rows = []
        for c in res.classes:
            rows.append({
                "class": c.label, "label": classes[c.label], "mlc": c.mlc, "cases_used": c.cases_used,
                "share_used": c.share_used, "converged": bool(c.converged), "stop": c.stop,
                "accuracy_at_or_below": by.loc[c.label, "accuracy_below"], "n_at_or_below": int(by.loc[c.label, "n_below"]),
                "accuracy_above": by.loc[c.label, "accuracy_above"], "n_above": int(by.loc[c.label, "n_above"]),
            })
        out["classes"] = pd.DataFrame(rows).set_index("class")
        out["metrics"] = res.table()
        out["trajectories"] = pd.concat(
            [c.trajectory.reset_index().assign(**{"class": c.label}) for c in res.classes], ignore_index=True)
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["seconds"] = time.perf_counter() - start
    return out


# --------------------------------------------------------------------------------------------------
# across datasets (native)
# --------------------------------------------------------------------------------------------------

def dataset_diagnostics(results: Sequence[DatasetResult]) -> pd.DataFrame:
    """Item-parameter summary per dataset (:func:`irtbridge.benchmark.dataset_diagnostics`), with the
    mean accuracy of the real classifiers and two ranks: ``rank_difficulty`` (1 = the largest share of
    instances a classifier of median ability fails, ``failure_at_median``) and ``rank_bad_discrimination`` (1 = largest share of negative discrimination)."""
    from irtbridge.benchmark import dataset_diagnostics as bench_diagnostics

    ok = [r for r in results if r.ok]
    frame = bench_diagnostics([r.benchmark for r in ok])
    frame = frame[frame["status"] == "ok"].copy()
    accuracy = {r.name: float(r.respondents.loc[r.respondents["kind"] == "classifier", "accuracy"].mean()) for r in ok}
    frame["classifier_accuracy"] = [accuracy[name] for name in frame.index]
    frame["rank_difficulty"] = frame["failure_at_median"].rank(ascending=False, method="min").astype("Int64")
    frame["rank_bad_discrimination"] = frame["share_negative_discrimination"].rank(ascending=False, method="min").astype(int)
    return frame


def benchmark_subsets(table: pd.DataFrame, diagnostics: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """Glicko-2 tournaments on the paper's six dataset orders/subsets: is each a valid benchmark?

    Returns one row per order: the datasets played, whether optimal ranks first and pessimal last,
    and the best real classifier with its rating (Cardoso et al., decodIRT, Tables 5-9).
    """
    from irtbridge.benchmark import PAPER_ORDERS, order_datasets, tournament

    rows = []
    for order in PAPER_ORDERS:
        chosen = order_datasets(diagnostics, order)
        if not chosen:
            continue
        t = tournament(table, chosen, name=order, tolerance=settings.tolerance, tau=settings.tau)
        ratings = t.ratings.set_index("player")
        real = [p for p in ratings.index if not _artificial(p)]
        rows.append({
            "order": order, "n_datasets": len(chosen), "datasets": ", ".join(chosen),
            "valid": t.validity.valid, "optimal_rank": t.validity.optimal_rank, "pessimal_rank": t.validity.pessimal_rank,
            "best_classifier": real[0] if real else None, "best_rating": ratings.loc[real[0], "rating"] if real else np.nan,
        })
    return pd.DataFrame(rows).set_index("order") if rows else pd.DataFrame()


def _artificial(player: str) -> bool:
    from irtbridge.benchmark import ARTIFICIAL

    return player in ARTIFICIAL or (player.startswith("rand") and player[4:].isdigit())


def hard_instances(results: Sequence[DatasetResult]) -> pd.DataFrame:
    """Every test instance with its IRT parameters and hardness, hardest first.

    Sorted by ``p_typical`` (the chance a classifier of median ability gets it right under the fitted
    3PL), which folds difficulty, discrimination and guessing into one number where ``b`` alone misleads
    for flat (a near 0) or inverted (a < 0) items; ties by the share of classifiers that got it right.
    """
    frames = []
    for r in results:
        if r.ok and len(r.items):
            f = r.items.reset_index()
            f.insert(0, "dataset", r.name)
            frames.append(f)
    if not frames:
        return pd.DataFrame(columns=["dataset", "instance", "a", "b", "g", "u", "label", "share_correct", "p_typical"])
    return pd.concat(frames, ignore_index=True).sort_values(["p_typical", "share_correct"], kind="stable").reset_index(drop=True)


def pooled_efficiency(results: Sequence[DatasetResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """EI family per classifier: per binary dataset, and pooled over them (2 x 2 counts summed)."""
    from irtbridge.efficiency import efficiency_frame

    frames = []
    for r in results:
        if r.ok and r.ei is not None:
            f = r.ei.reset_index()
            f.insert(0, "dataset", r.name)
            frames.append(f)
    if not frames:
        return pd.DataFrame(), pd.DataFrame()
    per = pd.concat(frames, ignore_index=True)
    counts = per.groupby("classifier", sort=False)[["tp", "fp", "fn", "tn"]].sum()
    pooled = efficiency_frame(counts["tp"], counts["fp"], counts["fn"], counts["tn"])
    pooled.index.name = "classifier"
    return per, pooled.sort_values("ei", ascending=False, kind="stable")


# --------------------------------------------------------------------------------------------------
# the evaluation
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    settings : Settings
    datasets : tuple of DatasetResult
        In the order given (failed datasets included, with their ``error``).
    diagnostics : DataFrame
        :func:`dataset_diagnostics`.
    ratings : DataFrame
        Glicko-2 ratings of the main tournament, best first (index ``player``): ``rank, kind, rating,
        rd, volatility, lower, upper`` (rating -/+ 2 RD, 95%), ``wins, draws, losses``.
    history : DataFrame
        Ratings after each period (``period, dataset, player, rating, rd, volatility, rank``).
    matches : DataFrame
        The games that were rated.
    true_scores : DataFrame
        Datasets (in play order) x respondents.
    validity : dict
        ``valid, optimal_first, pessimal_last, optimal_rank, pessimal_rank`` of the ranking.
    friedman, nemenyi : rank statistics of the same scores, or None
    subsets : DataFrame
        :func:`benchmark_subsets`.
    instances : DataFrame
        :func:`hard_instances`.
    ei_per_dataset, ei_pooled : DataFrame
        :func:`pooled_efficiency`.
    mlc : dict or None
        :func:`run_mlc`.
    timings, provenance : dict
    """

    settings: Settings
    datasets: tuple[DatasetResult, ...]
    diagnostics: pd.DataFrame = field(repr=False)
    ratings: pd.DataFrame = field(repr=False)
    history: pd.DataFrame = field(repr=False)
    matches: pd.DataFrame = field(repr=False)
    true_scores: pd.DataFrame = field(repr=False)
    validity: Mapping[str, Any]
    friedman: Any = field(repr=False)
    nemenyi: Any = field(repr=False)
    subsets: pd.DataFrame = field(repr=False)
    instances: pd.DataFrame = field(repr=False)
    ei_per_dataset: pd.DataFrame = field(repr=False)
    ei_pooled: pd.DataFrame = field(repr=False)
    mlc: Mapping[str, Any] | None = field(default=None, repr=False)
    timings: Mapping[str, float] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> list[DatasetResult]:
        return [d for d in self.datasets if d.ok]

    @property
    def failed(self) -> list[DatasetResult]:
        return [d for d in self.datasets if not d.ok]

    def overview(self) -> pd.DataFrame:
        """What was evaluated: one row per dataset."""
        rows = [{
            "dataset": d.name, "source": d.source, "instances": d.n_instances, "features": d.n_features,
            "classes": len(d.classes), "items": len(d.items), "respondents": len(d.respondents),
            "engine": d.engine, "converged": d.converged, "seconds": d.seconds, "error": d.error or "",
        } for d in self.datasets]
        return pd.DataFrame(rows).set_index("dataset")

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of the report by file stem (written as ``tables/<stem>.csv``)."""
        out = {
            "datasets": self.overview(),
            "diagnostics": self.diagnostics,
            "ratings": self.ratings,
            "rating_history": self.history.set_index(["period", "player"]),
            "matches": self.matches.set_index(["period", "player", "opponent"]),
            "true_scores": self.true_scores,
            "benchmark_subsets": self.subsets,
            "instances": self.instances,
            "respondents": pd.concat(
                [d.respondents.assign(dataset=d.name).reset_index() for d in self.ok], ignore_index=True
            ).set_index(["dataset", "respondent"]),
        }
        if len(self.ei_per_dataset):
            out["ei_per_dataset"] = self.ei_per_dataset.set_index(["dataset", "classifier"])
            out["ei_pooled"] = self.ei_pooled
        if self.friedman is not None:
            ranks = self.friedman.average_ranks.sort_values().rename("average_rank").to_frame()
            ranks.index.name = "respondent"
            out["average_ranks"] = ranks
        for d in self.ok:
            # the response matrix of each dataset, to re-analyse it elsewhere (e.g. in R)
            out[f"responses_{d.name}"] = d.responses
        mlc = self.mlc or {}
        for key, stem in (("classes", "mlc"), ("metrics", "mlc_metrics"), ("trajectories", "mlc_trajectories")):
            if isinstance(mlc.get(key), pd.DataFrame):
                out[stem] = mlc[key]
        return {k: v for k, v in out.items() if isinstance(v, pd.DataFrame) and len(v.columns)}


def assemble(
    results: Sequence[DatasetResult], settings: Settings, *, mlc: Mapping[str, Any] | None = None,
    timings: Mapping[str, float] | None = None, provenance: Mapping[str, Any] | None = None,
) -> Evaluation:
    """The stages across datasets, from per-dataset results (native; no R needed)."""
    from irtbridge.benchmark import order_datasets, score_table, tournament

    ok = [r for r in results if r.ok]
    if not ok:
        raise IrtBridgeError("no dataset could be evaluated: " + "; ".join(f"{r.name}: {r.error}" for r in results))
    timings = dict(timings or {})
    t0 = time.perf_counter()
    diagnostics = dataset_diagnostics(ok)
    table = score_table([r.benchmark for r in ok], "true_score")
    chosen = order_datasets(diagnostics, settings.order)
    main = tournament(table, chosen, name=settings.order, tolerance=settings.tolerance, tau=settings.tau)
    ratings = main.ratings.set_index("player")
    ratings.insert(1, "kind", ["artificial" if _artificial(p) else "classifier" for p in ratings.index])
    v = main.validity
    validity = {"valid": v.valid, "optimal_first": v.optimal_first, "pessimal_last": v.pessimal_last,
                "optimal_rank": v.optimal_rank, "pessimal_rank": v.pessimal_rank}
    subsets = benchmark_subsets(table, diagnostics, settings) if len(ok) >= 2 else pd.DataFrame()
    instances = hard_instances(ok)
    per, pooled = pooled_efficiency(ok)
    timings["across datasets"] = time.perf_counter() - t0
    return Evaluation(
        settings=settings, datasets=tuple(results), diagnostics=diagnostics, ratings=ratings, history=main.history,
        matches=main.matches, true_scores=main.scores, validity=validity, friedman=main.friedman,
        nemenyi=main.nemenyi, subsets=subsets, instances=instances, ei_per_dataset=per, ei_pooled=pooled,
        mlc=mlc, timings=timings, provenance=dict(provenance or {}),
    )


def _mlc_ref(refs: Sequence[str], settings: Settings) -> str | None:
    if settings.mlc_dataset is not None:
        return resolve_datasets([settings.mlc_dataset])[0]
    return next((r for r in refs if (info := dataset_info(r)) is not None and info.binary), None)


def evaluate(
    datasets: Iterable[str] | None = None,
    settings: Settings | None = None,
    *,
    jobs: int | None = None,
    progress: bool = False,
) -> Evaluation:
    """Run the whole evaluation (see the module docstring) and return an :class:`Evaluation`.

    Parameters
    ----------
    datasets : names or CSV paths, optional
        Default: the benchmark's default datasets (its quick ones when ``settings.quick``).
    settings : Settings, optional
    jobs : int, optional
        Worker processes for the units (default: one per CPU, at most one per unit). Workers are
        spawned, never forked, each with its own R; ``jobs=1`` runs everything in this process.
    progress : bool
        tqdm progress on stderr.

    Notes
    -----
    Results do not depend on ``jobs``: every unit is seeded from ``settings.seed`` alone and the stages
    across datasets run once all units are back, in the order the datasets were given. When calling this
    with ``jobs > 1`` from a script, guard the call with ``if __name__ == "__main__":`` (spawned workers
    import the main module).

    Examples
    --------
    >>> ev = evaluate(["Sonar", "wine"], Settings.quick_run(), jobs=1)     # doctest: +SKIP
    >>> ev.ratings[["rating", "lower", "upper"]].head()                    # doctest: +SKIP
    """
    settings = settings or Settings()
    refs = resolve_datasets(datasets, quick=settings.quick)
    mlc_ref = _mlc_ref(refs, settings)
    units: list[tuple[str, str]] = [("dataset", r) for r in refs] + ([("mlc", mlc_ref)] if mlc_ref else [])
    n = len(units)
    jobs = max(1, min(os.cpu_count() or 1, n)) if jobs is None else min(check_int(jobs, "jobs", low=1), n)
    started = time.perf_counter()
    bar = progress_bar(progress, n, desc="irtbridge evaluate")
    try:
        done = run_units({u: (run_dataset if u[0] == "dataset" else run_mlc, (u[1], settings)) for u in units},
                         jobs=jobs, bar=bar, label=lambda u: _unit_name(*u), cost=_unit_cost)
    finally:
        bar.close()
    results = {ref: done[(kind, ref)] for kind, ref in units if kind == "dataset"}
    mlc = done.get(("mlc", mlc_ref)) if mlc_ref else None
    timings = {"datasets and MLC (wall)": time.perf_counter() - started}
    if mlc is None:
        mlc = {"dataset": None, "classes": None, "error": "no binary dataset in this run"}
    provenance = _provenance(jobs, [results[r] for r in refs])
    return assemble([results[r] for r in refs], settings, mlc=mlc, timings=timings, provenance=provenance)


def _unit_cost(unit: tuple[str, str]) -> float:
    # the registry's rough cost of a dataset (5 for a CSV); an MLC run costs a little more
    info = dataset_info(_label(unit[1]))
    return (info.cost if info is not None else 5) + (4 if unit[0] == "mlc" else 0)


def _unit_name(kind: str, ref: str) -> str:
    return f"MLC of {_label(ref)}" if kind == "mlc" else _label(ref)


def _provenance(jobs: int, results: Sequence[DatasetResult]) -> dict[str, Any]:
    import sklearn

    engines = sorted({
        f"{r.benchmark.calibration.engine} {r.benchmark.calibration.provenance.get('engine_version')}"
        for r in results if r.ok and r.benchmark is not None and r.benchmark.calibration is not None
    })
    r_versions = sorted({
        str(r.benchmark.calibration.provenance.get("r_version"))
        for r in results if r.ok and r.benchmark is not None and r.benchmark.calibration is not None
    })
    return {
        "irtbridge": __version__, "python": platform.python_version(), "numpy": np.__version__,
        "pandas": pd.__version__, "scikit-learn": sklearn.__version__, "R": ", ".join(r_versions),
        "engines": ", ".join(engines), "jobs": jobs, "created": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
