"""``irtbridge evaluate``: the one evaluation pipeline (``irtbridge benchmark`` runs its per-dataset unit
without the report).

:func:`evaluate` runs the benchmark's per-dataset pipeline, then optional stages that *read* its
per-dataset result, then the stages across datasets, and returns an immutable :class:`Evaluation`:

1. **per dataset** (:func:`~irtbridge.pipeline.stages.run_dataset`, one unit of work; units run in parallel
   in spawned processes that each embed their own R, :mod:`irtbridge._parallel`):

   * the benchmark's pipeline (:func:`irtbridge.decodirt.evaluate_dataset`, Cardoso et al. (decodIRT)):
     stratified 70/30 split with the test set capped, a pool of scikit-learn classifiers plus the
     artificial respondents, the response matrix, a 3PL calibrated in R (mode ``stable`` or ``paper``),
     abilities, True-Scores, item flags, item misfit and person fit;
   * stages on that result, never refitting or re-splitting anything: the typical-classifier
     probability of every item, and for binary datasets the Efficiency Index family of every classifier
     (:func:`irtbridge.efficiency.efficiency_frame`, Larner (2023)) and the cost-curve instance hardness
     of the benchmark's classifiers' own scores (:class:`irtbridge.hardness.PoolHardness`, Prudêncio)
     (:func:`~irtbridge.pipeline.stages.binary_extras`);

2. **MLC** (:func:`~irtbridge.pipeline.stages.run_mlc`, the MLC paper) of one binary dataset, as one more unit;
3. **across datasets** (:func:`assemble`, native, in the calling process): dataset diagnostics, the
   Glicko-2 tournament with 95% intervals and Friedman/Nemenyi beside it
   (:func:`irtbridge.decodirt.tournament`), the validity of the paper's six benchmark subsets, the
   hardest instances and the EI pooled per classifier.

The stage interface
-------------------
A per-dataset stage is a function ``stage(result) -> result`` of a :class:`~irtbridge.decodirt.DatasetResult`
that returns it with more columns in ``items``/``respondents`` or a new table (``dataclasses.replace``); it reads
``result.benchmark`` (an :class:`irtbridge.decodirt.DatasetResult`), which carries everything the
pipeline knows about the dataset:

* ``train_index``, ``test_index``: the split (positions into the dataset's rows);
* ``y_test``: the test labels by item; ``classes``: ``(negative, positive)`` for a binary task;
* ``predictions`` and (binary) ``scores``: every real classifier's test-set labels and ``P(y = positive)``;
* ``responses``, ``items`` (``a, b, g, u``, ``flag``, ``misfit_p``), ``respondents`` (``theta``,
  ``true_score``, ``Zh``, ...), ``calibration`` (the fit and its provenance), ``calibration_mode``;
* ``warnings``: :class:`irtbridge.decodirt.StageWarning` (stage, category, message);
  ``attempts``: :class:`irtbridge.decodirt.CalibrationAttempt` (engine, model, status, message, seconds).

A stage that fails must not cost the estimates: :func:`~irtbridge.pipeline.stages.run_dataset` catches it and
records why in ``warnings`` (a :class:`~irtbridge.decodirt.StageWarning` naming the stage). A stage across
datasets is a function of the per-dataset results and :class:`~irtbridge.decodirt.settings.Settings` called
from :func:`assemble`. :mod:`irtbridge.report` turns an :class:`Evaluation` into the HTML page, CSVs and JSON.
"""

from __future__ import annotations

import functools
import platform
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._constraints import Flag, Int, constraints
from irtbridge._summary import Summary
from irtbridge.decodirt import order_datasets, score_table, tournament
from irtbridge.decodirt.classification_data import dataset_info
from irtbridge.decodirt.settings import Settings
from irtbridge.exceptions import IrtBridgeError
from irtbridge.pipeline._names import dataset_label, is_artificial
from irtbridge.pipeline._units import lost_dataset, run_all, worker_count
from irtbridge.pipeline.across import (
    benchmark_subsets,
    hard_instances,
    pooled_efficiency,
    ranked_dataset_diagnostics,
)
from irtbridge.pipeline.headline import evaluation_summary
from irtbridge.pipeline.settings import resolve_datasets
from irtbridge.pipeline.stages import DatasetResult, MLCRun, dataset_units, run_mlc
from irtbridge.rankstats import FriedmanResult, NemenyiResult

__all__ = ["Evaluation", "assemble", "evaluate"]


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    settings : Settings
    datasets : tuple of DatasetResult
        In the order given (failed datasets included, with their ``error``).
    diagnostics : DataFrame
        :func:`ranked_dataset_diagnostics`.
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
    mlc : MLCRun or None
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
    friedman: FriedmanResult | None = field(repr=False)
    nemenyi: NemenyiResult | None = field(repr=False)
    subsets: pd.DataFrame = field(repr=False)
    instances: pd.DataFrame = field(repr=False)
    ei_per_dataset: pd.DataFrame = field(repr=False)
    ei_pooled: pd.DataFrame = field(repr=False)
    mlc: MLCRun | None = field(default=None, repr=False)
    timings: Mapping[str, float] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def summary(self) -> Summary:
        """The headline (:mod:`irtbridge.pipeline.headline`), computed once: the CLI text, ``summary.json``
        and the report's Summary section are its renderings (``as_text``, ``to_dict``, ``as_html``).

        Returns
        -------
        Summary
            The headline.
        """
        return self._headline

    @functools.cached_property
    def _headline(self) -> Summary:
        return evaluation_summary(self)

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    @property
    def ok(self) -> list[DatasetResult]:
        """The datasets evaluated."""
        return [d for d in self.datasets if d.ok]

    @property
    def failed(self) -> list[DatasetResult]:
        """The datasets that could not be evaluated."""
        return [d for d in self.datasets if not d.ok]

    def overview(self) -> pd.DataFrame:
        """What was evaluated: one row per dataset.

        Returns
        -------
        DataFrame
            Indexed by ``dataset``.
        """
        rows = [{
            "dataset": d.name, "source": d.provenance, "instances": d.n_instances, "features": d.n_features,
            "classes": len(d.classes), "items": len(d.items), "respondents": len(d.respondents),
            "engine": d.engine or "", "converged": d.converged, "seconds": d.total_seconds,
            "calibration_seconds": d.seconds.get("calibration", np.nan),
            "error": d.error or "",
        } for d in self.datasets]
        return pd.DataFrame(rows).set_index("dataset")

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of the report by file stem (written as ``tables/<stem>.csv``).

        Returns
        -------
        dict of str to DataFrame
            Stem -> table (tables without columns left out).
        """
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
        if self.mlc is not None:
            out.update(self.mlc.tables())
        return {k: v for k, v in out.items() if isinstance(v, pd.DataFrame) and len(v.columns)}


def assemble(
    results: Sequence[DatasetResult], settings: Settings, *, mlc: MLCRun | None = None,
    timings: Mapping[str, float] | None = None, provenance: Mapping[str, Any] | None = None,
) -> Evaluation:
    """The stages across datasets, from per-dataset results (native; no R needed).

    Parameters
    ----------
    results : sequence of DatasetResult
        The per-dataset results.
    settings : Settings
        The run's settings.
    mlc : MLCRun, optional
        The MLC unit's result.
    timings : mapping of str to float, optional
        Seconds per stage.
    provenance : mapping of str to Any, optional
        Versions and the run's facts.

    Returns
    -------
    Evaluation
        The evaluation.
    """
    ok = [r for r in results if r.ok]
    if not ok:
        raise IrtBridgeError("no dataset could be evaluated: " + "; ".join(f"{r.name}: {r.error}" for r in results))
    timings = dict(timings or {})
    t0 = time.perf_counter()
    diagnostics = ranked_dataset_diagnostics(ok)
    table = score_table(ok, "true_score")
    chosen = order_datasets(diagnostics, settings.order)
    main = tournament(table, chosen, name=settings.order, tolerance=settings.tolerance, tau=settings.tau)
    ratings = main.ratings.set_index("player")
    ratings.insert(1, "kind", ["artificial" if is_artificial(p) else "classifier" for p in ratings.index])
    v = main.validity
    validity = {"valid": v.valid, "optimal_first": v.optimal_first, "pessimal_last": v.pessimal_last,
                "optimal_rank": v.optimal_rank, "pessimal_rank": v.pessimal_rank}
    subsets = benchmark_subsets(table, diagnostics, settings, {settings.order: main}) if len(ok) >= 2 else pd.DataFrame()
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


def _lost(unit: tuple[str, Any], reason: str) -> Any:
    # a unit whose worker died is a failed dataset (or MLC), named like any other failure
    if unit[0] == "mlc":
        return MLCRun(dataset=dataset_label(unit[1]), error=f"MLC failed: {reason}")
    return lost_dataset(unit, reason)


@constraints(jobs=Int(low=1, allow_none=True), progress=Flag())
def evaluate(
    datasets: Any = None,
    settings: Settings | None = None,
    *,
    jobs: int | None = None,
    progress: bool = False,
) -> Evaluation:
    """Run the whole evaluation (see the module docstring) and return an :class:`Evaluation`.

    Parameters
    ----------
    datasets : names, CSV paths or in-memory datasets, optional
        A list of embedded names, ``PATH.csv[:TARGET]``, ``(X, y)`` (features and labels) or
        ``(frame, "target")`` (a DataFrame and its target column), or a mapping ``{name: (X, y)}``
        (see :func:`resolve_datasets`). Default: the benchmark's default datasets (its quick ones when
        ``settings.quick``).
    settings : Settings, optional
    jobs : int, optional
        Worker processes for the units (default: one per CPU, at most one per unit). Workers are
        spawned, never forked, each with its own R; ``jobs=1`` runs everything in this process.
    progress : bool
        tqdm progress on stderr.

    Returns
    -------
    Evaluation
        Everything the report shows.

    Notes
    -----
    Results do not depend on ``jobs``: every unit is seeded from ``settings.seed`` alone and the stages
    across datasets run once all units are back, in the order the datasets were given. When calling this
    with ``jobs > 1`` from a script, guard the call with ``if __name__ == "__main__":`` (spawned workers
    import the main module).

    Examples
    --------
    >>> ev = evaluate(["iris", "wine"], Settings.quick_run(), jobs=1)     # doctest: +R
    >>> [d.name for d in ev.datasets]
    ['iris', 'wine']
    >>> bool((ev.ratings["lower"] < ev.ratings["rating"]).all())
    True
    """
    settings = settings or Settings()
    refs = resolve_datasets(datasets, quick=settings.quick, target=settings.target)
    mlc_ref = _mlc_ref(refs, settings)
    units = dataset_units(refs, settings)
    if mlc_ref:
        units[("mlc", mlc_ref)] = (run_mlc, (mlc_ref, settings))
    jobs = worker_count(jobs, len(units))
    started = time.perf_counter()
    done = run_all(units, jobs, progress, "irtbridge evaluate", lost=_lost)
    results = {ref: done[("dataset", ref)] for ref in refs}
    mlc = done.get(("mlc", mlc_ref)) if mlc_ref else None
    timings = {"datasets and MLC (wall)": time.perf_counter() - started}
    if mlc is None:
        mlc = MLCRun(error="no binary dataset in this run")
    provenance = _provenance(jobs, [results[r] for r in refs])
    return assemble([results[r] for r in refs], settings, mlc=mlc, timings=timings, provenance=provenance)


def _provenance(jobs: int, results: Sequence[DatasetResult]) -> dict[str, Any]:
    import sklearn  # scikit-learn (~1.3 s) loads when it is used

    engines = sorted({
        f"{r.calibration.engine} {r.calibration.provenance.get('engine_version')}"
        for r in results if r.ok and r.calibration is not None
    })
    r_versions = sorted({
        str(r.calibration.provenance.get("r_version"))
        for r in results if r.ok and r.calibration is not None
    })
    return {
        "irtbridge": __version__, "python": platform.python_version(), "numpy": np.__version__,
        "pandas": pd.__version__, "scikit-learn": sklearn.__version__, "R": ", ".join(r_versions),
        "engines": ", ".join(engines), "jobs": jobs, "created": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
