"""A leaderboard report: models ranked with intervals, items to check, saturation, test information, tasks.

:func:`leaderboard_report` fits the native 2PL (:func:`irtbridge.calibrate` with ``engine="native"``) on a
leaderboard's response matrix and returns a frozen :class:`LeaderboardReport`; its numbers come from
:mod:`irtbridge.leaderboard.diagnostics`. The HTML page is drawn one floor up,
:func:`irtbridge.report.write_leaderboard_report` (what ``irtbridge leaderboard`` calls).

**Identification.** The 2PL's abilities are identified by their distribution in the calibration,
theta ~ N(0, 1) over the models of this leaderboard; the direction of the scale is fixed so that ability
correlates positively with accuracy (if the fit came out the other way round, every theta, a and b changes
sign: the same likelihood). Abilities are EAP estimates with their posterior SD as SE, on 121 nodes over
[-6, 6]; the 95% interval is theta -/+ 1.96 SE.

**What it does not know, it says.** Models that share no item (the model-item graph, an edge for each answer,
is not connected) are fitted and ranked group by group, or refused (``disconnected=``); models that answered
few items and runs made with lm-evaluation-harness's ``--limit`` are marked in the ranking; items answered by
few models are flagged; every irtbridge warning raised while reading and building is kept in the notes.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, constraints
from irtbridge._io import atomic_write_csv, atomic_write_text, to_jsonable
from irtbridge._outdir import staged_output
from irtbridge._summary import HasSummary, Line, Strong, Summary, Warn
from irtbridge._ties import stable_argsort, tie_greater, tie_rank
from irtbridge._validation import check_int
from irtbridge.calibration import calibrate
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard._pirt import pirt_estimates
from irtbridge.leaderboard.diagnostics import (MIN_ITEMS, MIN_MODELS, Z95, connected_groups, describe_groups, few_below,
                                               information_curve, informative_range, item_statistics, model_marks,
                                               predicted_interval, saturation, task_breakdown, wilson_interval)
from irtbridge.leaderboard.estimators import DEFAULT_PRIORS as LEADERBOARD_PRIORS
from irtbridge.leaderboard.inputs import LeaderboardInput, as_leaderboard_input, capture_warnings

__all__ = ["LeaderboardReport", "leaderboard_report", "IDENTIFICATION"]

IDENTIFICATION = ("theta ~ N(0, 1) over the calibration's models; sign fixed so that ability correlates "
                  "positively with accuracy")
#: The slope prior of the report's 2PL: the one of every leaderboard calibration (tiny benchmarks and their
#: banks too), :data:`irtbridge.leaderboard.estimators.DEFAULT_PRIORS`. On ATLAS's ARC matrix (320 x 735) the
#: largest ``|a|`` goes from 1,168 to 5.7, the EM from 182 cycles to 97, and Spearman(theta, accuracy) from
#: 0.764 to 0.774. ``priors=None``: plain ML.
DEFAULT_PRIORS = LEADERBOARD_PRIORS
RUNAWAY_SLOPE = 8.0  # |a| above this: an item that (nearly) separates the models perfectly, its a not identified
_SCORE_CHUNK = 512  # models scored at a time (memory: models x items x 121 nodes is avoided)
DISCONNECTED = ("per-group", "refuse")  # what to do when models fall into groups that share no item


@dataclass(frozen=True, eq=False)
class LeaderboardReport(HasSummary):
    """What :func:`leaderboard_report` found (frozen; every number stored, nothing recomputed on display).

    Attributes
    ----------
    ranking : DataFrame
        One row per model, by group and best first: ``rank`` (within its group), ``group`` (1 unless the
        models fall into groups that share no item; group 1 has the most models), ``theta``, ``theta_se``,
        ``theta_lower``, ``theta_upper`` (95%), ``accuracy``, ``accuracy_lower``, ``accuracy_upper`` (95%),
        ``accuracy_kind`` (``observed``: every item of its group answered, Wilson interval; ``predicted``:
        unanswered items predicted by the 2PL, Wilson's interval on all the items widened by the prediction's
        spread, :func:`~irtbridge.leaderboard.diagnostics.predicted_interval`, never of width zero;
        ``answered only``: no 2PL to predict with, Wilson interval on the answered items),
        ``observed_accuracy`` (on the answered items), ``n_answered``, ``overlaps`` (other models whose
        ability interval overlaps this one's), ``marks`` (fewer items answered than ``min_items``; tasks run
        with lm-evaluation-harness's ``--limit``; "" when none).
    items : DataFrame
        One row per item (:func:`~irtbridge.leaderboard.diagnostics.item_statistics`): answers, share right,
        item-rest correlation, ``a``, ``b`` (NaN for items left out of the fit), the flags and ``flag``.
    information : DataFrame
        ``theta``, ``information``, ``se``: the 2PL test information curve (empty without a fit).
    tasks, task_accuracy : DataFrame or None
        Per task, and models x tasks observed accuracy, when the responses name tasks.
    tiny_errors : DataFrame or None
        The tiny benchmark's error table, shown as given.
    facts : mapping
        The headline numbers (what ``summary().to_dict()`` and ``summary.json`` hold).
    notes : tuple of str
        What was left out, fit notes, and every irtbridge warning raised while reading and building.
    dimensions : DataFrame or None
        With ``dims``: held-out prediction per number of factors D
        (:attr:`irtbridge.leaderboard.dims.DimensionsResult.table`; the chosen D in ``facts["dimensions"]``).
    """

    ranking: pd.DataFrame
    items: pd.DataFrame
    information: pd.DataFrame
    tasks: pd.DataFrame | None
    task_accuracy: pd.DataFrame | None
    tiny_errors: pd.DataFrame | None
    facts: Mapping[str, Any]
    notes: tuple[str, ...] = field(default_factory=tuple)
    dimensions: pd.DataFrame | None = None

    @property
    def flagged_items(self) -> pd.DataFrame:
        """The items with a flag, by kind (negative discrimination, everyone wrong, everyone right, few answers,
        answered once)."""
        f = self.items[self.items["flag"] != ""]
        kind = pd.Categorical(f["flag"], ["negative discrimination", "everyone wrong", "everyone right", "few answers",
                                          "answered once"])
        return f.iloc[np.lexsort((f["a"].fillna(0).to_numpy(), kind.codes))]

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of the report by name (what ``save`` writes as ``tables/<name>.csv``).

        Returns
        -------
        dict of str to DataFrame
            Name -> table.
        """
        out = {"ranking": self.ranking, "items": self.items, "flagged_items": self.flagged_items,
               "information": self.information}
        if self.tasks is not None:
            out["tasks"] = self.tasks
            out["task_accuracy"] = self.task_accuracy
        if self.tiny_errors is not None:
            out["tiny_errors"] = self.tiny_errors
        if self.dimensions is not None:
            out["dimensions"] = self.dimensions
        return out

    def summary(self) -> Summary:
        """The headline: the data, the best model, items to check, saturation, information, the fit.

        Returns
        -------
        Summary
            The report's headline.
        """
        return Summary(title=f"Leaderboard report: {self.facts['n_models']:,} models x {self.facts['n_items']:,} items",
                       lines=_lines(self.facts), tables=(("Top of the ranking", _top(self.ranking)),) + (
                           (("Held-out answers per number of factors D", self.dimensions),)
                           if self.dimensions is not None else ()),
                       notes=self.notes, data=self.facts)

    def save(self, out: str | os.PathLike, *, staging: str | os.PathLike | None = None,
             page: Callable[["LeaderboardReport", Mapping[str, str]], str] | None = None) -> dict[str, Path]:
        """Write ``tables/<name>.csv`` and ``summary.json`` into the folder ``out``, atomically.

        The folder is written beside ``out`` and moved into place whole (:func:`irtbridge._outdir.staged_output`);
        ``staging``: a staging folder the caller already holds. ``page``: a function of the report and its CSV
        links returning the HTML page, written as ``index.html``
        (:func:`irtbridge.report.write_leaderboard_report` passes its own). Returns name -> path in ``out``.

        Parameters
        ----------
        out : str or os.PathLike
            The folder.
        staging : str or os.PathLike, optional
            See above.
        page : callable, optional
            See above.

        Returns
        -------
        dict of str to Path
            Name -> path in ``out``.

        Examples
        --------
        >>> import tempfile
        >>> rng = np.random.default_rng(0)
        >>> theta = rng.normal(size=(60, 1))
        >>> X = pd.DataFrame((rng.random((60, 20)) < 1 / (1 + np.exp(-(theta - np.linspace(-2, 2, 20))))) * 1.0)
        >>> files = leaderboard_report(X).save(Path(tempfile.mkdtemp()) / "board")
        >>> sorted(files)[:3]
        ['flagged_items', 'information', 'items']
        """
        out = Path(out)
        if staging is None:
            with staged_output(out, param="out", writer="LeaderboardReport.save") as stage:
                return self.save(out, staging=stage, page=page)
        stage = Path(staging)
        (stage / "tables").mkdir(parents=True, exist_ok=True)
        written: dict[str, Path] = {}
        relative: dict[str, str] = {}
        for name, frame in self.tables().items():
            atomic_write_csv(stage / "tables" / f"{name}.csv", frame, index=not isinstance(frame.index, pd.RangeIndex))
            written[name] = out / "tables" / f"{name}.csv"
            relative[name] = f"tables/{name}.csv"
        summary = self.summary().to_dict()
        summary["files"] = {**({"index": "index.html"} if page is not None else {}), **relative}
        summary["report"] = str(out / "index.html") if page is not None else None
        atomic_write_text(stage / "summary.json", json.dumps(to_jsonable(summary), indent=2, allow_nan=False) + "\n")
        written["summary"] = out / "summary.json"
        if page is not None:
            atomic_write_text(stage / "index.html", page(self, relative))
            written["index"] = out / "index.html"
        return written


def _top(ranking: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    cols = ["rank", "theta", "theta_lower", "theta_upper", "accuracy", "accuracy_lower", "accuracy_upper", "accuracy_kind"]
    if "group" in ranking.columns and ranking["group"].max() > 1:
        cols.insert(1, "group")
    if "marks" in ranking.columns and (ranking["marks"] != "").any():
        cols.append("marks")
    return ranking.head(n)[[c for c in cols if c in ranking.columns]]


def _num(v: Any, digits: int = 2) -> str:
    return "n/a" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def _lines(f: Mapping[str, Any]) -> tuple[Line, ...]:
    """The headline lines, from the stored facts only."""
    lines = [Line.of("data", f"{f['n_models']:,} models x {f['n_items']:,} items ({f['answered_share']:.0%} of the "
                             f"cells answered)", f", {f['n_tasks']} tasks" if f.get("n_tasks") else "",
                     f"; from {f['source']}")]
    groups = f.get("groups") or []
    if len(groups) > 1:
        lines.append(Line.of("groups", Warn(f"The models fall into {len(groups)} groups that share no item, ranked each on "
                                            "its own (compare ranks within a group only): "
                                            + "; ".join(f"group {g['group']}: {g['n_models']} model(s), {g['n_items']:,} "
                                                        "item(s)" for g in groups[:5]))))
    b = f["best"]
    kind = {"observed": "observed, Wilson 95%", "predicted": "predicted on all items, Wilson 95% widened by p-IRT",
            "answered only": "on answered items, Wilson 95%"}[b["accuracy_kind"]]
    theta = (f"ability theta = {_num(b['theta'])} [{_num(b['theta_lower'])}, {_num(b['theta_upper'])}], "
             if b["theta"] is not None and np.isfinite(b["theta"]) else "")
    lines.append(Line.of("best", "Best model" + (" of group 1" if len(groups) > 1 else "") + ": ", Strong(b["model"]),
                         f", {theta}accuracy {_num(b['accuracy'], 3)} "
                         f"[{_num(b['accuracy_lower'], 3)}, {_num(b['accuracy_upper'], 3)}] ({kind})",
                         Warn(f"; marked: {b['marks']}") if b.get("marks") else ""))
    mk = f.get("marks") or {"few_items": 0, "limited": 0}
    if mk["few_items"] or mk["limited"]:
        said = ([f"{mk['few_items']} model(s) answered fewer than {mk['min_items']} items"] if mk["few_items"] else []) + (
            [f"{mk['limited']} model(s) were run with lm-evaluation-harness's --limit"] if mk["limited"] else [])
        lines.append(Line.of("marks", Warn("; ".join(said)), " (the ranking's marks column)"))
    if b.get("overlaps") is not None:
        lines.append(Line.of("separation", f"Its 95% ability interval overlaps those of {b['overlaps']} other model(s)"))
    fl = f["flags"]
    n_flag = fl["everyone_right"] + fl["everyone_wrong"] + fl["negative_discrimination"] + fl.get("few_answers", 0)
    text = (f"{fl['everyone_right']} answered right by every model, {fl['everyone_wrong']} wrong by every model, "
            f"{fl['negative_discrimination']} with negative discrimination"
            + (f", {fl['few_answers']} answered by fewer than {mk['min_models']:g} models" if fl.get("few_answers")
               else ""))
    lines.append(Line.of("flags", "Items to check (Rodriguez et al. 2021): ", Warn(text) if n_flag else text))
    s = f["saturation"]
    lines.append(Line.of("saturation", f"Saturation{' in group 1' if s.get('group') else ''}: "
                                       f"{s['share_solved_by_top']:.0%} of the items solved by each of "
                                       f"the top {s['top']} model(s); best accuracy {s['best_accuracy']:.3f}, ceiling "
                                       f"{s['ceiling']:.3f} (share of items some model solves)"))
    info = f.get("information")
    if info:
        above = f", {info['models_above']} model(s) above it" if info["models_above"] else ""
        lines.append(Line.of("information", f"The test separates models best for theta in [{info['low']:.2f}, "
                                            f"{info['high']:.2f}] (information at least half its peak){above}"))
    fit = f["fit"]
    if fit["fitted"]:
        conv = (f"converged after {fit['iterations']} EM cycles" if fit["converged"]
                else Warn(f"did NOT converge in {fit['iterations']} EM cycles"))
        runaway = (Warn(f"; {fit['runaway_slopes']} item(s) with runaway slopes (|a| > {RUNAWAY_SLOPE:g}): ability "
                        "intervals near their difficulty are too narrow") if fit.get("runaway_slopes") else "")
        prior = f" (priors: {fit['priors']})" if fit.get("priors") else " (plain maximum likelihood, no prior)"
        lines.append(Line.of("fit", f"Native 2PL on {fit['n_items']:,} items{prior}, ", conv, runaway,
                             f"; {IDENTIFICATION}"))
    else:
        lines.append(Line.of("fit", Warn(f"No 2PL fitted: {fit['reason']}")))
    if f.get("dimensions"):
        dm = f["dimensions"]
        lines.append(Line.of("dimensions", "Dimensions by held-out answers: ", Strong(f"D = {dm['chosen']}"),
                             f" chosen (log-likelihood per answer {dm['loglik']:.4f}, accuracy {dm['accuracy']:.4f}; "
                             f"one-dimensional fit {dm['loglik_1']:.4f} and {dm['accuracy_1']:.4f})"))
    if f.get("tiny"):
        lines.append(Line.of("tiny", f"Tiny benchmark error table: {f['tiny']['rows']} row(s), {f['tiny']['source']}"))
    return tuple(lines)


def _describe_priors(priors: Any) -> str:
    """``a1 ~ norm(1, 2)``, or "" for none (a mapping of mirt-spelled priors; other forms as given)."""
    if not priors:
        return ""
    if isinstance(priors, Mapping):
        return "; ".join(f"{k} ~ {v[0]}({', '.join(f'{x:g}' for x in v[1:3])})" for k, v in priors.items())
    return str(priors)


def _fit(X: np.ndarray, items: list[str], progress: bool, options: Mapping[str, Any]):
    # options carry ``priors`` (DEFAULT_PRIORS unless the caller said otherwise)
    """The native 2PL on the informative items (not constant, answered by 2+ models), or None and why."""
    answered = ~np.isnan(X)
    n_ans, n_right = answered.sum(axis=0), (X == 1.0).sum(axis=0)  # NaN == 1 is False: no copy of X
    keep = (n_ans >= 2) & (n_right > 0) & (n_right < n_ans)
    if keep.sum() < 2:
        return None, keep, f"{int(keep.sum())} item(s) are answered both right and wrong; the 2PL needs at least 2"
    rows = answered[:, keep].any(axis=1)
    if rows.sum() < 2:
        return None, keep, "fewer than 2 models answered an informative item"
    frame = pd.DataFrame(X[np.ix_(rows, keep)], columns=[n for n, k in zip(items, keep) if k])
    fit = calibrate(frame, "2PL", engine="native", se=False, progress=progress, **dict(options))
    return fit, keep, None


def _score(X: np.ndarray, keep: np.ndarray, params: pd.DataFrame, var: float = 1.0):
    """theta, se, predicted accuracy on all items and its sd, for every model (p-IRT over the fitted items;
    an unanswered item left out of the fit is predicted by its share right among the models that answered it,
    its Bernoulli variance taken at Jeffreys' smoothed share ``(right + 1/2) / (answers + 1)``, so that one
    answer of one other model is not a certainty)."""
    bank = as_item_bank(params[["a", "b"]], "2PL")
    names = [str(n) for n in params.index]
    n_models, n_items = X.shape
    theta, se, acc, sd = (np.empty(n_models) for _ in range(4))
    for start in range(0, n_models, _SCORE_CHUNK):
        sl = slice(start, start + _SCORE_CHUNK)
        theta[sl], se[sl], acc[sl], sd[sl] = pirt_estimates(X[sl][:, keep], bank, names, var)
    Xc = X[:, ~keep]
    missing = np.isnan(Xc)
    n_ans, n_right = (~missing).sum(axis=0), (Xc == 1.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = n_right / n_ans
    smooth = (n_right + 0.5) / (n_ans + 1.0)
    fixed = np.where(missing, share[None, :], Xc).sum(axis=1)
    unseen_var = missing.astype(float) @ (smooth * (1.0 - smooth))
    n_fit = int(keep.sum())
    return theta, se, (acc * n_fit + fixed) / n_items, np.sqrt((sd * n_fit) ** 2 + unseen_var) / n_items


def _overlaps(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """For each model, how many others' intervals overlap its own (touching within rounding noise counts)."""
    both = ~tie_greater(lo[:, None], hi[None, :]) & ~tie_greater(lo[None, :], hi[:, None])
    return both.sum(axis=1) - 1


def _ranking(X, models, fit, keep, flip_sign) -> tuple[pd.DataFrame, pd.DataFrame | None, bool]:
    """The ranking table (and the sign-fixed item parameters, and whether the sign was flipped)."""
    answered = ~np.isnan(X)
    n_ans = answered.sum(axis=1)
    right = X == 1.0
    n_right = right.sum(axis=1)
    observed = n_right / n_ans
    complete = n_ans == X.shape[1]
    frame = pd.DataFrame({"observed_accuracy": observed, "n_answered": n_ans}, index=pd.Index(models, name="model"))
    lo, hi = wilson_interval(n_right, n_ans)
    params, flipped = None, False
    if fit is None:
        frame["theta"] = frame["theta_se"] = frame["theta_lower"] = frame["theta_upper"] = np.nan
        acc, a_lo, a_hi = observed, lo, hi
        kind = np.where(complete, "observed", "answered only")
    else:
        params = fit.items[["a", "b"]].copy()
        theta, se, pred, sd = _score(X, keep, params, float(fit.latent_var or 1.0))
        ok = np.isfinite(theta) & np.isfinite(observed)
        r = np.corrcoef(theta[ok], observed[ok])[0, 1] if ok.sum() > 2 and np.std(observed[ok]) > 0 else np.nan
        flipped = bool(flip_sign and (tie_greater(0.0, r) if np.isfinite(r) else tie_greater(0.0, params["a"].sum())))
        if flipped:  # the mirror image: same likelihood, same predictions (symmetric prior and grid)
            theta, params = -theta, -params
        frame["theta"], frame["theta_se"] = theta, se
        frame["theta_lower"], frame["theta_upper"] = theta - Z95 * se, theta + Z95 * se
        acc = np.where(complete, observed, pred)
        p_lo, p_hi = predicted_interval(pred, sd, X.shape[1])
        a_lo, a_hi = np.where(complete, lo, p_lo), np.where(complete, hi, p_hi)
        kind = np.where(complete, "observed", "predicted")
    frame["accuracy"], frame["accuracy_lower"], frame["accuracy_upper"] = acc, a_lo, a_hi
    frame["accuracy_kind"] = kind
    key = frame["theta"].to_numpy(float) if fit is not None else frame["accuracy"].to_numpy(float)
    frame.insert(0, "rank", tie_rank(key, method="min", descending=True).astype(int))
    frame["overlaps"] = (_overlaps(frame["theta_lower"].to_numpy(), frame["theta_upper"].to_numpy())
                         if fit is not None else _overlaps(a_lo, a_hi))
    cols = ["rank", "theta", "theta_se", "theta_lower", "theta_upper", "accuracy", "accuracy_lower", "accuracy_upper",
            "accuracy_kind", "observed_accuracy", "n_answered", "overlaps"]
    return frame[cols].iloc[stable_argsort(key, descending=True)], params, flipped


@constraints(top=Int(low=1), dims=Int(low=1, high=50, allow_none=True), min_items=Int(low=1), min_models=Int(low=1))
def leaderboard_report(responses: Any, *, tasks: Mapping[str, str] | None = None, top: int = 5,
                       tiny_errors: pd.DataFrame | None = None, tiny_source: str = "", progress: bool = False,
                       priors: Any = DEFAULT_PRIORS, disconnected: str = "per-group", min_items: int = MIN_ITEMS,
                       min_models: int = MIN_MODELS, dims: int | None = None, **options: Any) -> LeaderboardReport:
    """Rank a leaderboard's models with intervals and diagnose its items with the native 2PL.

    Parameters
    ----------
    responses : DataFrame, path or LeaderboardInput
        A response matrix (models x items: 1, 0, NaN for unanswered) or a long table with columns ``model``,
        ``item``, ``score`` (and ``task``), as :func:`irtbridge.leaderboard.read_lm_eval` returns; or a CSV
        file of either (:func:`irtbridge.leaderboard.inputs.read_leaderboard_input`).
    tasks : mapping item -> task, optional
        For a matrix: each item's task (a long table's ``task`` column gives it otherwise).
    top : int, default 5
        How many of the best models the saturation counts.
    tiny_errors : DataFrame, optional
        A tiny benchmark's error table (``irtbridge tiny ... --out DIR`` writes ``DIR/errors.csv``), shown
        as given; ``tiny_source`` says where it came from.
    progress : bool, default False
        A bar on stderr over the EM cycles.
    priors : mapping or None, default :data:`DEFAULT_PRIORS`
        Item priors of the native 2PL, as :func:`irtbridge.calibrate` takes them (``{"a1": ("norm", 1, 2)}``:
        a weak slope prior that keeps items which nearly split the models from running away); ``None`` fits
        by plain maximum likelihood.
    disconnected : {"per-group", "refuse"}, default "per-group"
        When the models fall into groups that share no item (the model-item graph is not connected, so
        nothing puts their abilities on one scale): fit and rank each group on its own (column ``group``,
        with a warning naming the groups), or refuse with a one-line error.
    min_items : int, default :data:`~irtbridge.leaderboard.diagnostics.MIN_ITEMS` (30)
        A model that answered fewer items than this and than half the leaderboard's items is marked in the
        ranking's ``marks`` column, with a warning: its rank rests on few answers.
    min_models : int, default :data:`~irtbridge.leaderboard.diagnostics.MIN_MODELS` (5)
        An item answered by 2 or more models but fewer than this and than half the models is flagged
        ``"few answers"``.
    **options
        Options of the native engine (``TOL``, ``quadpts``, ``technical={"NCYCLES": ...}``).
    tiny_source : str, default ""
        Where ``tiny_errors`` came from (a note on the page).
    dims : int, optional
        Also compare D = 1..dims factors by held-out answers (:func:`irtbridge.leaderboard.dims.choose_dimensions`,
        its defaults): the ``dimensions`` table and headline, beside the one-dimensional fit. None: not computed.

    Returns
    -------
    LeaderboardReport

    Notes
    -----
    Items every model answered right, or wrong, and items answered once are flagged and left out of the fit
    (they carry no information on who is better); abilities are on the scale of :data:`IDENTIFICATION`.
    Runs made with lm-evaluation-harness's ``--limit`` (a long table's ``limit`` column) are marked, with a
    warning. Every irtbridge warning raised while reading and building is also kept in ``notes``, so the
    text, the HTML page and ``summary.json`` say what the command line said.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=60), np.linspace(-2, 2, 20)
    >>> X = pd.DataFrame((rng.random((60, 20)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float),
    ...                  index=[f"m{i}" for i in range(60)], columns=[f"q{j}" for j in range(20)])
    >>> X["always"] = 1.0
    >>> rep = leaderboard_report(X)
    >>> rep.items.loc["always", "flag"], rep.facts["fit"]["n_items"]
    ('everyone right', 20)
    """
    top = check_int(top, "top", low=1)
    dims = None if dims is None else check_int(dims, "dims", low=1, high=50)
    marks = (check_int(min_items, "min_items", low=1), check_int(min_models, "min_models", low=1))
    if disconnected not in DISCONNECTED:
        raise ValidationError(f"disconnected must be one of {', '.join(DISCONNECTED)}, got {disconnected!r}")
    caught: list[str] = []
    with capture_warnings(caught):
        data = as_leaderboard_input(responses, tasks=tasks)
        report = _build(data, top, tiny_errors, tiny_source, progress, {**options, "priors": priors}, disconnected,
                        marks)
        if dims is not None:
            report = _with_dimensions(report, data.matrix, dims)
    return replace(report, notes=tuple(dict.fromkeys([*report.notes, *caught])))


def _with_dimensions(report: LeaderboardReport, matrix: pd.DataFrame, dims: int) -> LeaderboardReport:
    from irtbridge.leaderboard.dims import choose_dimensions

    res = choose_dimensions(matrix.astype(float), max_dims=min(dims, max(1, matrix.shape[1] - 2)))
    t = res.table
    facts = {**res.facts, "loglik": t.loc[res.chosen, "loglik"], "accuracy": t.loc[res.chosen, "accuracy"],
             "loglik_1": t.loc[1, "loglik"], "accuracy_1": t.loc[1, "accuracy"]}
    return replace(report, dimensions=t, facts=to_jsonable({**report.facts, "dimensions": facts}),
                   notes=report.notes + res.notes)


def _rank_agreement(ranking: pd.DataFrame) -> float | None:
    """Spearman's correlation of ability and observed accuracy over the models (None without abilities)."""
    theta, acc = ranking["theta"].to_numpy(float), ranking["observed_accuracy"].to_numpy(float)
    if not np.isfinite(theta).all() or np.ptp(acc) == 0:
        return None
    return float(np.corrcoef(tie_rank(theta), tie_rank(acc))[0, 1])


def _information(params: pd.DataFrame, theta: np.ndarray) -> tuple[pd.DataFrame, dict[str, Any] | None, int]:
    """The test information curve over the models' abilities (without runaway items), its informative range,
    how many models lie outside it, and the number of runaway items."""
    a, b = params["a"].to_numpy(float), params["b"].to_numpy(float)
    runaway = tie_greater(np.abs(a), RUNAWAY_SLOPE)
    lo, hi = min(-4.0, np.floor(theta.min()) - 0.5), max(4.0, np.ceil(theta.max()) + 0.5)
    curve = information_curve(a[~runaway], b[~runaway], np.linspace(lo, hi, int(round((hi - lo) / 0.05)) + 1))
    facts = informative_range(curve) if (~runaway).any() else None
    if facts is not None:
        facts["models_above"] = int(tie_greater(theta, facts["high"]).sum())
        facts["models_below"] = int(tie_greater(facts["low"], theta).sum())
        facts["n_items"] = int((~runaway).sum())
    return curve, facts, int(runaway.sum())


def _rank_groups(X: np.ndarray, models: list[str], items: list[str], model_group: np.ndarray,
                 item_group: np.ndarray, progress: bool, options: Mapping[str, Any]) -> tuple[pd.DataFrame, list]:
    """Each group fitted and ranked on its own: the ranking (group 1 first) and per group its fit's parts."""
    parts, fits = [], []
    n_groups = int(model_group.max()) + 1
    for g in range(n_groups):
        rows, cols = model_group == g, item_group == g
        Xg = X if n_groups == 1 else X[np.ix_(rows, cols)]
        names = [n for n, k in zip(items, cols) if k]
        fit, keep, reason = _fit(Xg, names, progress, options)
        ranking, params, flipped = _ranking(Xg, [m for m, k in zip(models, rows) if k], fit, keep, True)
        ranking.insert(1, "group", g + 1)
        parts.append(ranking)
        fits.append((fit, keep, reason, params, flipped))
    return pd.concat(parts), fits


def _fit_notes(fits: list, ranking: pd.DataFrame) -> tuple[list[str], pd.DataFrame, dict | None, int]:
    """Per group: runaway slopes, convergence, the sign; group 1's information curve and its facts."""
    notes: list[str] = []
    curve, info_facts, runaway_1 = pd.DataFrame({"theta": [], "information": [], "se": []}), None, 0
    for g, (fit, _, reason, params, flipped) in enumerate(fits):
        at = f"group {g + 1}: " if len(fits) > 1 else ""
        if params is None:
            notes.append(f"{at}no 2PL: {reason}; the ranking is by observed accuracy")
            continue
        theta = ranking.loc[ranking["group"] == g + 1, "theta"].to_numpy(float)
        c, facts, runaway = _information(params, theta)
        if g == 0:
            curve, info_facts, runaway_1 = c, facts, runaway
        if runaway:
            notes.append(f"{at}{runaway} item(s) with runaway slopes |a| > {RUNAWAY_SLOPE:g}: they (nearly) split the "
                         "models perfectly, so their discrimination is not identified; abilities near their difficulty "
                         "get too small an SE, and the test information curve leaves them out (each would be a spike "
                         "at its b)")
        if not fit.converged:
            notes.append(f"{at}the native 2PL did not converge in {fit.iterations} EM cycles; raise "
                         "technical={'NCYCLES': ...}")
        if flipped:
            notes.append(f"{at}the fit came out with ability falling as accuracy rises; every theta, a and b changed sign")
    if len(fits) > 1 and info_facts is not None:
        notes.append("the test information curve is group 1's (abilities of different groups are on different scales)")
    return notes, curve, info_facts, runaway_1


def _build(data: LeaderboardInput, top: int, tiny_errors, tiny_source: str, progress: bool,
           options: Mapping[str, Any], disconnected: str, marks: tuple[int, int]) -> LeaderboardReport:
    X = data.matrix.to_numpy()  # float32 from the readers (4 bytes a cell), float64 from a caller's frame
    models, items = [str(m) for m in data.matrix.index], [str(i) for i in data.matrix.columns]
    notes = list(data.notes)
    model_group, item_group = connected_groups(X)
    n_groups = int(model_group.max()) + 1
    if n_groups > 1:
        text = describe_groups(models, model_group, item_group)
        if disconnected == "refuse":
            raise ValidationError(f"{data.source}: {text}; nothing puts their abilities on one scale (rank each group "
                                  "on its own: disconnected='per-group', --disconnected per-group)")
        warnings.warn(f"{text}; nothing puts their abilities on one scale, so each group is fitted and ranked on its "
                      "own (the ranking's group column): compare ranks within a group only", DataWarning,
                      stacklevel=find_stack_level())
    ranking, fits = _rank_groups(X, models, items, model_group, item_group, progress, options)
    fit, keep, reason, _, flipped = fits[0]
    params_all = [f[3] for f in fits if f[3] is not None]
    params = pd.concat(params_all) if params_all else None
    item_table = item_statistics(X, items, params, data.tasks, min_models=marks[1])
    mark_col, mark_facts = model_marks(ranking, data.limits, marks[0], len(items))
    ranking["marks"] = mark_col
    first, cols = model_group == 0, item_group == 0  # saturation within group 1: accuracies on one set of items
    shown = [m for m, k in zip(models, first) if k]
    sat = saturation(X if n_groups == 1 else X[np.ix_(first, cols)], ranking["accuracy"].reindex(shown).to_numpy(float),
                     top)
    sat["top_models"] = [shown[i] for i in sat["top_models"]]
    sat["group"] = 1 if n_groups > 1 else None
    fit_notes, curve, info_facts, runaway = _fit_notes(fits, ranking)
    notes += fit_notes
    per_task = by_model = None
    if data.tasks is not None and any(data.tasks.values()):
        per_task, by_model = task_breakdown(X, models, items, data.tasks, item_table)
    best = ranking.iloc[0]
    facts = {
        "source": data.source, "n_models": len(models), "n_items": len(items),
        "n_tasks": len(per_task) if per_task is not None else 0, "answered_share": float((~np.isnan(X)).mean()),
        "best": {"model": str(ranking.index[0]), **{k: best[k] for k in (
            "theta", "theta_lower", "theta_upper", "accuracy", "accuracy_lower", "accuracy_upper", "accuracy_kind")},
                 "overlaps": int(best["overlaps"]) if fit is not None else None, "marks": best["marks"]},
        "groups": [{"group": g + 1, "n_models": int((model_group == g).sum()), "n_items": int((item_group == g).sum()),
                    "models": [m for m, k in zip(models, model_group) if k == g][:10]} for g in range(n_groups)],
        "marks": mark_facts | {"min_models": few_below(marks[1], len(models))},
        "flags": {k: int(item_table[k].sum()) for k in ("everyone_right", "everyone_wrong", "negative_discrimination",
                                                        "few_answers")}
        | {"answered_once": int((item_table["flag"] == "answered once").sum())},
        "saturation": sat, "information": info_facts,
        "fit": {"fitted": fit is not None, "model": "2PL", "engine": "native", "n_items": int(keep.sum()),
                "converged": bool(fit.converged) if fit is not None else None,
                "iterations": int(fit.iterations) if fit is not None else None,
                "loglik": float(fit.loglik) if fit is not None else None, "sign_flipped": flipped,
                "runaway_slopes": runaway, "rank_agreement": _rank_agreement(ranking[ranking["group"] == 1]),
                "identification": IDENTIFICATION, "reason": reason, "priors": _describe_priors(options.get("priors")),
                "group": 1 if n_groups > 1 else None},
        "tiny": {"rows": int(len(tiny_errors)), "source": tiny_source} if tiny_errors is not None else None,
    }
    if tiny_errors is None and tiny_source:
        notes.append(f"tiny benchmark: {tiny_source}")
    return LeaderboardReport(ranking=ranking, items=item_table, information=curve, tasks=per_task,
                             task_accuracy=by_model, tiny_errors=tiny_errors, facts=to_jsonable(facts), notes=tuple(notes))
