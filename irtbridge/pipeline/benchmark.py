"""``irtbridge benchmark``: the evaluation's per-dataset stages without the report, then diagnostics, Glicko-2
tournaments in several dataset orders and their outputs.

The datasets run through the pipeline's own unit runner (:func:`irtbridge.pipeline.run_datasets`, one R
per spawned worker) with the same :class:`~irtbridge.pipeline.Settings` object ``irtbridge evaluate``
uses, so the two commands share one validation, one per-dataset pipeline and one set of defaults.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib
import pandas as pd

from irtbridge._constraints import Choice, Int, Number, constraints
from irtbridge import __version__
from irtbridge._io import atomic_write_csv, atomic_write_text, to_jsonable
from irtbridge._moved import moved_keywords
from irtbridge._plotting import figure_of
from irtbridge._summary import HasSummary, Line, Summary, Warn
from irtbridge._validation import check_choice, check_int, check_number
from irtbridge.decodirt import plots
from irtbridge.decodirt.classification_data import (
    DEFAULT_DATASETS,
    BenchmarkDataset,
    as_dataset,
    is_one_dataset,
    parse_dataset_ref,
)
from irtbridge.decodirt.diagnostics import dataset_diagnostics, diagnostic_rankings
from irtbridge.decodirt.per_dataset import DatasetResult
from irtbridge.decodirt.respondents import classifier_pool
from irtbridge.decodirt.settings import OLD_KEYWORDS, Settings, given_settings
from irtbridge.decodirt.tournaments import (
    ORDERS,
    PAPER_ORDERS,
    SCORES,
    TournamentResult,
    order_datasets,
    score_table,
    tournament,
)
from irtbridge.exceptions import ConvergenceError, DataWarning, ValidationError, find_stack_level
from irtbridge.pipeline.settings import resolve_datasets
from irtbridge.pipeline.stages import run_datasets

__all__ = ["BenchmarkResult", "run_benchmark"]


def _dataset_name(ref: Any) -> str:
    """The label a dataset reference will get, checked without loading the data."""
    return ref.name if isinstance(ref, BenchmarkDataset) else parse_dataset_ref(ref).label


@dataclass(frozen=True, eq=False)
class BenchmarkResult(HasSummary):
    """Everything :func:`run_benchmark` produced.

    Attributes
    ----------
    datasets : dict of str -> DatasetResult
        Per dataset, in input order.
    diagnostics : pandas.DataFrame
        :func:`~irtbridge.decodirt.dataset_diagnostics`.
    rankings : pandas.DataFrame
        :func:`~irtbridge.decodirt.diagnostic_rankings`.
    tournaments : dict of str -> TournamentResult
        One per dataset order/subset.
    settings : dict
        The effective options and versions.
    seconds : float
        Wall time.
    """

    datasets: Mapping[str, DatasetResult] = field(repr=False)
    diagnostics: pd.DataFrame = field(repr=False)
    rankings: pd.DataFrame = field(repr=False)
    tournaments: Mapping[str, TournamentResult] = field(repr=False)
    settings: Mapping[str, Any] = field(repr=False)
    seconds: float = 0.0

    def __repr__(self) -> str:
        ok = sum(r.ok for r in self.datasets.values())
        return (f"BenchmarkResult(datasets={len(self.datasets)} ({ok} calibrated), "
                f"tournaments={list(self.tournaments)})")

    # -- tidy tables ---------------------------------------------------------------------------
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every result as a tidy table (long format, one row per observation), keyed by file stem.

        Returns
        -------
        dict of str to DataFrame
            Stem -> table.
        """
        items = [r.items.reset_index().assign(dataset=name) for name, r in self.datasets.items() if r.ok]
        resp = [r.respondents.reset_index().assign(dataset=name) for name, r in self.datasets.items()]
        attempts = [
            {"dataset": name, "attempt": i + 1, "engine": a.engine, "status": a.status, "message": a.message,
             "seconds": a.seconds}
            for name, r in self.datasets.items() for i, a in enumerate(r.attempts)
        ]
        dropped = [{"dataset": name, "item": it} for name, r in self.datasets.items() for it in r.dropped_items]

        def front(frame: pd.DataFrame, first: Sequence[str]) -> pd.DataFrame:
            return frame[list(first) + [c for c in frame.columns if c not in first]]

        out = {
            "datasets": self.diagnostics.reset_index(),
            "dataset_rankings": self.rankings.reset_index(),
            "items": front(pd.concat(items, ignore_index=True), ["dataset", "item"]) if items else
            pd.DataFrame(columns=["dataset", "item", "a", "b", "g", "u"]),
            "respondents": front(pd.concat(resp, ignore_index=True), ["dataset", "respondent"]),
            "calibration_attempts": pd.DataFrame(attempts, columns=["dataset", "attempt", "engine", "status", "message",
                                                                    "seconds"]),
            "dropped_items": pd.DataFrame(dropped, columns=["dataset", "item"]),
        }
        ratings, history, matches, validity, avg = [], [], [], [], []
        for order, t in self.tournaments.items():
            ratings.append(t.ratings.assign(order=order))
            history.append(t.history.assign(order=order))
            matches.append(t.matches.assign(order=order))
            for v in (t.validity, t.rank_validity):
                if v is not None:
                    validity.append({"order": order, **v.to_dict()})
            if t.friedman is not None:
                ranks = t.friedman.average_ranks.rename("average_rank").rename_axis("player")
                avg.append(ranks.reset_index().assign(order=order))
        if self.tournaments:
            out["ratings"] = front(pd.concat(ratings, ignore_index=True), ["order"])
            out["rating_history"] = front(pd.concat(history, ignore_index=True), ["order"])
            out["matches"] = front(pd.concat(matches, ignore_index=True), ["order"])
            out["validity"] = pd.DataFrame(validity)
            out["average_ranks"] = (front(pd.concat(avg, ignore_index=True), ["order"]) if avg else
                                    pd.DataFrame(columns=["order", "player", "average_rank"]))
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: settings, per-dataset diagnostics with the calibration attempts, tournaments.

        Returns
        -------
        dict of str to Any
            See above.
        """
        datasets = []
        for name, row in self.diagnostics.iterrows():
            r = self.datasets[name]
            entry = {"dataset": name, **{k: v for k, v in row.items()}}
            entry["attempts"] = [{"engine": a.engine, "status": a.status, "message": a.message} for a in r.attempts]
            entry["dropped_items"] = list(r.dropped_items)
            entry["failed_models"] = dict(r.failed_models)
            datasets.append(entry)
        return {
            "settings": dict(self.settings),
            "datasets": datasets,
            "tournaments": {k: t.to_dict() for k, t in self.tournaments.items()},
            "seconds": self.seconds,
        }

    def summary(self) -> Summary:
        """The dataset diagnostics, then each tournament's rating table and validity.

        Returns
        -------
        Summary
            The benchmark's summary.
        """
        d = self.diagnostics
        cols = ["status", "engine", "n_items", "n_dropped", "difficulty_mean", "difficulty_sd",
                "discrimination_mean", "discrimination_sd", "guessing_mean", "share_negative_discrimination",
                "valid_true_score", "valid_true_score_positive"]
        lines = [Line.of("calibrated", f"{len(d)} dataset(s), {int((d['status'] == 'ok').sum())} calibrated "
                                       f"({self.settings.get('description', '3PL')}), {self.seconds:.1f} s")]
        fell_back = d.index[d["fallback"]].tolist()
        failed = d.index[d["status"] != "ok"].tolist()
        if fell_back:
            lines.append(Line.of("fallback", f"parameters from the fallback engine: {', '.join(fell_back)}"))
        if failed:
            lines.append(Line.of("failed", Warn(f"left out (no item parameters): {', '.join(failed)}")))
        tables = [("diagnostics", d[cols])]
        for order, t in self.tournaments.items():
            facts = [t.validity.describe()]
            if t.friedman is not None:
                assert t.rank_validity is not None  # computed with friedman
                facts += [f"Friedman chi2 = {t.friedman.statistic:.3f}, p = {t.friedman.pvalue:.3g} "
                          f"({t.friedman.n_datasets} datasets); Nemenyi CD = {t.nemenyi.critical_difference:.3f}",
                          t.rank_validity.describe()]
            lines.append(Line.of(f"tournament_{order}", f"{order}: " + "; ".join(facts)))
            tables.append((f"== {order}: {len(t.datasets)} dataset(s), score {t.score} ==", t.ratings.set_index("player")))
        return Summary("irtbridge benchmark", tuple(lines), tuple(tables), digits=3, data=self.to_dict())

    # -- files ---------------------------------------------------------------------------------
    def save(self, out: str | os.PathLike, *, figures: bool = True, responses: bool = True) -> list[Path]:
        """Write the tables (CSV), the summary (JSON) and the figures (PNG) under ``out``.

        Every file is written to a temporary name and renamed, so a reader never sees half a file.

        Parameters
        ----------
        out : str or os.PathLike
            The folder (created if needed).
        figures : bool, default True
            Also draw the figures.
        responses : bool, default True
            Also write each dataset's response matrix (``responses/<dataset>.csv``).

        Returns
        -------
        list of pathlib.Path
            The files written.
        """
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for stem, frame in self.tables().items():
            path = out / f"{stem}.csv"
            atomic_write_csv(path, frame, index=False)
            written.append(path)
        if responses:
            for name, r in self.datasets.items():
                path = out / "responses" / f"{_file_stem(name)}.csv"
                atomic_write_csv(path, r.responses)
                written.append(path)
        path = out / "summary.json"
        atomic_write_text(path, json.dumps(to_jsonable(self.to_dict()), indent=2, allow_nan=False) + "\n")
        written.append(path)
        path = out / "summary.txt"
        atomic_write_text(path, self.summary().as_text() + "\n")
        written.append(path)
        if figures:
            written += self.save_figures(out / "figures")
        return written

    def save_figures(self, out: str | os.PathLike, *, dpi: int = 110) -> list[Path]:
        """Draw every figure into ``out`` (PNG) and return the paths.

        Parameters
        ----------
        out : str or os.PathLike
            The folder.
        dpi : int, default 110
            Resolution.

        Returns
        -------
        list of Path
            The files written.
        """
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt  # matplotlib (~0.9 s) loads when a figure is drawn

        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []

        def keep(drawn: Any, stem: str) -> None:
            fig = figure_of(drawn)  # the plot functions return the Axes they drew on
            path = folder / f"{stem}.png"
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".png")
            os.close(fd)
            try:
                fig.savefig(tmp, dpi=dpi, bbox_inches="tight")  # long labels stay inside
                os.replace(tmp, path)
            finally:
                plt.close(fig)
                if os.path.exists(tmp):
                    os.unlink(tmp)
            written.append(path)

        if (self.diagnostics["status"] == "ok").any():
            keep(plots.plot_dataset_parameters(self.diagnostics), "dataset_parameters")
            keep(plots.plot_parameter_bins(self.diagnostics), "parameter_bins")
        for name, r in self.datasets.items():
            if r.ok:
                keep(plots.plot_item_curves(r, title=f"Item characteristic curves: {name}"), f"icc_{_file_stem(name)}")
                keep(plots.plot_true_scores(r), f"true_scores_{_file_stem(name)}")
        for order, t in self.tournaments.items():
            keep(plots.plot_bump(t), f"bump_{order}")
            keep(plots.plot_ratings(t), f"ratings_{order}")
            if t.nemenyi is not None:
                # one rank tick per respondent: widen the diagram with the pool
                width = max(7.0, 0.28 * len(t.nemenyi.average_ranks))
                keep(t.nemenyi.plot(title=f"Nemenyi CD diagram ({order}, {t.score})", width=width), f"cd_{order}")
        return written


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "dataset"


@constraints(score=Choice(SCORES), alpha=Number(low=0.0, high=1.0, low_open=True, high_open=True),
             fraction=Number(low=0.0, high=1.0, low_open=True), jobs=Int(low=1, allow_none=True))
def run_benchmark(
    datasets: Sequence[Any] = DEFAULT_DATASETS,
    settings: Settings | None = None,
    *,
    orders: Sequence[str] = PAPER_ORDERS,
    fraction: float = 0.5,
    score: str = "true_score",
    alpha: float = 0.05,
    jobs: int | None = None,
    progress: bool = True,
    **old: Any,
) -> BenchmarkResult:
    """Benchmark a pool of classifiers over datasets with IRT and Glicko-2 (decodIRT, Cardoso et al.).

    Parameters
    ----------
    datasets : sequence of str or BenchmarkDataset, default :data:`DEFAULT_DATASETS`
        Names (scikit-learn's bundled sets, mlbench's OpenML-CC18 members), CSV paths
        (``"x.csv"`` / ``"x.csv:target"``), loaded datasets, or in-memory ones as ``(X, y)`` or
        ``(frame, "target")`` (:func:`~irtbridge.decodirt.classification_data.as_dataset`).
    settings : Settings, optional
        The options of every dataset, as ``irtbridge evaluate`` takes them
        (:class:`~irtbridge.decodirt.settings.Settings`, checked and its calibration mode resolved once,
        when it was made, before any dataset is loaded): ``pool``, ``calibration``, ``engine``,
        ``fallback``, ``engine_options``, ``accept_unconverged``, ``test_fraction``, ``max_items``,
        ``max_train``, ``n_random``, ``artificial``, ``ability_method``, ``target``, ``seed``, and the
        tournaments' ``tolerance`` (scores this close draw) and ``tau`` (Glicko-2 system constant).
        Default: ``Settings()`` (the paper's split: 30% test capped at 500 instances).
    orders : sequence of str, default the paper's six
        Tournaments to play (:data:`~irtbridge.decodirt.ORDERS`).
    fraction : float, default 0.5
        Share of datasets in the low/high standard-deviation subsets.
    score : {"true_score", "true_score_positive", "theta", "theta_positive", "accuracy"}, default "true_score"
        What decides a match.
    alpha : float, default 0.05
        Nemenyi level.
    jobs : int, optional
        Datasets evaluated in parallel, each worker a spawned process with its own R (default: one per
        CPU, at most one per dataset, as :func:`irtbridge.evaluate`).
    progress : bool, default True
        A progress bar on stderr.
    **old
        The keywords of irtbridge 0.1 (``pool=``, ``calibration=``, ``random_state=``, ``test_size=``,
        ``max_test=``, ...), each a field of ``settings`` now: they still work, with a DeprecationWarning,
        and cannot be mixed with ``settings``.

    Returns
    -------
    BenchmarkResult

    Notes
    -----
    Per dataset (:func:`~irtbridge.decodirt.evaluate_dataset`): split, fit, response matrix, 3PL
    calibration (engine fallback recorded), abilities and True-Scores. Across datasets: diagnostics and
    rankings of the datasets, then for each order a round-robin Glicko-2 tournament with Friedman and
    Nemenyi on the same scores, and the validity check (optimal first, pessimal last).

    ltm's ``tpm`` dominates the time on the paper's 500-item test sets: 20-40 s for 250 items and
    1-2.5 minutes for 500 items x 43-50 respondents on one (shared) core; ``jobs`` runs datasets in
    parallel and ``max_items`` shortens the test sets.

    Examples
    --------
    >>> res = run_benchmark(["iris"], Settings(pool="quick", max_items=40))      # doctest: +R
    >>> "difficulty" in res.tournaments
    True
    """
    started = time.perf_counter()
    settings = given_settings(settings, _old_keywords(old))  # every option checked once, before any dataset is loaded
    if is_one_dataset(datasets):
        datasets = [datasets]
    refs = [as_dataset(d, f"dataset_{i}") for i, d in enumerate(datasets, start=1)]
    if not refs:
        raise ValidationError("datasets is empty; name at least one dataset")
    names = [_dataset_name(ref) for ref in refs]
    if len(set(names)) != len(names):
        raise ValidationError(f"datasets repeat a name: {sorted({n for n in names if names.count(n) > 1})}")
    resolve_datasets(refs, target=settings.target)  # each CSV's header: a missing target column before any work
    orders = [check_choice(o, "order", ORDERS, ignore_case=True) for o in ([orders] if isinstance(orders, str) else orders)]
    score = check_choice(score, "score", SCORES)
    check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    check_number(fraction, "fraction", low=0.0, high=1.0, low_open=True)
    jobs = max(1, min(os.cpu_count() or 1, len(refs))) if jobs is None else check_int(jobs, "jobs", low=1)
    # the pipeline's per-dataset units, without the report's stages; a dataset's error is the run's error
    units = run_datasets(refs, settings, jobs=jobs, progress=progress, extras=False, strict=True)
    results = dict(zip(names, units))
    for name in names:
        for w in results[name].warnings:
            warnings.warn(f"[{name}] {w.message}", w.warning_class, stacklevel=find_stack_level())

    diagnostics = dataset_diagnostics(results)
    if not (diagnostics["status"] == "ok").any():
        reasons = "; ".join(
            f"{n}: " + ", ".join(f"{a.engine} {a.status}" + (f" ({a.message[:120]})" if a.message else "") for a in r.attempts)
            for n, r in results.items()
        )
        raise ConvergenceError(f"no dataset could be calibrated ({reasons})")
    rankings = diagnostic_rankings(diagnostics)
    table = score_table(results, score)
    tournaments = {}
    for order in orders:
        chosen = order_datasets(diagnostics, order, fraction=fraction)
        if not chosen:
            warnings.warn(f"order {order!r} selects no dataset; no tournament", DataWarning, stacklevel=find_stack_level())
            continue
        tournaments[order] = tournament(table, chosen, name=order, score=score, tolerance=settings.tolerance,
                                        tau=settings.tau, alpha=alpha)
    pool = settings.pool
    pool_names = list(classifier_pool(pool)) if not isinstance(pool, Mapping) else [str(k) for k in pool]
    facts = {
        **{k: getattr(settings, k) for k in _SPLIT_AND_RESPONDENTS},
        **settings.mode.to_dict(),
        "pool": pool if isinstance(pool, str) else pool_names,
        "classifiers": pool_names,
        "orders": orders, "fraction": fraction, "score": score, "tolerance": settings.tolerance, "tau": settings.tau,
        "alpha": alpha,
        "model": "3PL", "datasets": names, "jobs": jobs, "irtbridge_version": __version__,
        "engine_versions": sorted({f"{r.calibration.engine} {r.calibration.provenance.get('engine_version')}"
                                   for r in results.values() if r.calibration is not None}),
    }
    return BenchmarkResult(
        datasets=results, diagnostics=diagnostics, rankings=rankings, tournaments=tournaments, settings=facts,
        seconds=time.perf_counter() - started,
    )


#: the Settings fields that the benchmark's ``settings`` (its summary.json) lists beside the mode and the pool
_SPLIT_AND_RESPONDENTS = ("accept_unconverged", "test_fraction", "max_items", "max_train", "n_random", "artificial",
                          "ability_method", "seed", "target")

#: the keywords of run_benchmark before Settings carried them, and the field that carries each now
_old_keywords = moved_keywords("irtbridge.pipeline.run_benchmark",
                               {**OLD_KEYWORDS, "tolerance": "Settings.tolerance", "tau": "Settings.tau"})
