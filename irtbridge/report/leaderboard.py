"""The leaderboard report as one self-contained HTML page, with its CSVs and JSON.

:func:`write_leaderboard_report` writes into one folder (atomically: the folder appears whole or not at all):

* ``index.html``: the ranking with intervals, the items to check, saturation, the test information curve,
  the per-task breakdown and the tiny benchmark's error table; figures embedded as PNG ``data:`` URIs, the
  style sheet inline, nothing fetched from the network;
* ``tables/<name>.csv``: every table, unrounded (:meth:`LeaderboardReport.tables`);
* ``summary.json``: ``report.summary().to_dict()`` plus the files (``irtbridge leaderboard --json`` prints it).

The page's variables are built here, one builder per section of ``templates/leaderboard.html.j2``.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np  # noqa: F401 (the docstring examples use np from the module namespace)
import pandas as pd

from irtbridge._constraints import FsPath, constraints
from irtbridge import __version__
from irtbridge.report._format import Column, dec, fmt, interval, pct, table
from irtbridge.report.leaderboard_plots import leaderboard_figures

if TYPE_CHECKING:  # the page renders the leaderboard's result; only the type is needed here
    from irtbridge.leaderboard import LeaderboardReport

__all__ = ["write_leaderboard_report", "render_leaderboard_html"]

MAX_FLAGGED_SHOWN = 100  # flagged items listed on the page (all of them in tables/flagged_items.csv)

REFERENCES = [
    "Rodriguez et al. 2021, Evaluation Examples Are Not Equally Informative: How Should That Change NLP Leaderboards?",
    "tinyBenchmarks (Maia Polo et al. 2024): p-IRT, the predicted accuracy on unanswered items",
    "Wilson 1927, Probable inference, the law of succession, and statistical inference (the score interval)",
    "Bock & Aitkin 1981: marginal maximum likelihood by EM (the native 2PL)",
]


def _section_ranking(r: LeaderboardReport, tables: Mapping[str, str]) -> dict[str, Any]:
    """The ranking with both intervals."""
    rk = r.ranking
    shown = rk.assign(theta_ci=[interval(a, b, 2) for a, b in zip(rk["theta_lower"], rk["theta_upper"])],
                      acc_ci=[interval(a, b, 3) for a, b in zip(rk["accuracy_lower"], rk["accuracy_upper"])])
    cols: dict[str, tuple[str, Any]] = {"rank": ("rank", fmt)}
    if len(r.facts.get("groups", ())) > 1:
        cols["group"] = ("group", fmt)
    if r.facts["fit"]["fitted"]:
        cols |= {"theta": ("ability \u03b8", dec(2)), "theta_ci": ("95% interval", str), "theta_se": ("SE", dec(2))}
    cols |= {"accuracy": ("accuracy", dec(3)), "acc_ci": ("95% interval", str), "accuracy_kind": ("accuracy is", str),
             "n_answered": ("items answered", fmt)}
    if "marks" in rk.columns and (rk["marks"] != "").any():
        cols["marks"] = ("marked", str)
    kinds = set(rk["accuracy_kind"])
    return {"ranking": table(shown, cols, index_label="model", csv=tables.get("ranking", ""),
                             row_class=lambda k, row: "predicted" if row["accuracy_kind"] == "predicted" else ""),
            "kinds": sorted(kinds), "n_predicted": int((rk["accuracy_kind"] == "predicted").sum())}


def _section_items(r: LeaderboardReport, tables: Mapping[str, str]) -> dict[str, Any]:
    """The items that look mis-keyed or broken."""
    flagged = r.flagged_items
    cols: dict[str, Column] = {"task": ("task", str)} if "task" in flagged.columns else {}
    cols |= {"flag": ("flag", str), "n_answered": ("answers", fmt), "share_right": ("right", pct),
             "rest_correlation": ("item-rest r", dec(2)), "a": ("a", dec(2)), "b": ("b", dec(2))}
    return {"flagged": table(flagged.head(MAX_FLAGGED_SHOWN), cols, index_label="item",
                             row_class=lambda k, row: "bad" if row["flag"] == "negative discrimination" else "",
                             csv=tables.get("flagged_items", "")),
            "n_flagged": len(flagged), "flags": r.facts["flags"], "max_flagged": MAX_FLAGGED_SHOWN,
            "items_csv": tables.get("items", "")}


def _section_saturation(r: LeaderboardReport) -> dict[str, Any]:
    s = r.facts["saturation"]
    return {"sat": {"top": s["top"], "top_models": s["top_models"], "solved": pct(s["share_solved_by_top"]),
                    "n_solved": f"{s['n_solved_by_top']:,}", "best": fmt(s["best_accuracy"], 3),
                    "headroom": fmt(s["headroom"], 3), "ceiling": fmt(s["ceiling"], 3),
                    "gap": fmt(s["gap_to_ceiling"], 3), "unsolved": pct(s["share_unsolved"])}}


def _section_information(r: LeaderboardReport) -> dict[str, Any]:
    info = r.facts.get("information")
    if not info:
        return {"info": None}
    return {"info": {"low": fmt(info["low"]), "high": fmt(info["high"]), "peak": fmt(info["peak_theta"]),
                     "peak_info": fmt(info["peak_information"]), "above": info["models_above"],
                     "below": info["models_below"], "n_items": f"{info['n_items']:,}"}}


def _section_dims(r: LeaderboardReport, tables: Mapping[str, str]) -> dict[str, Any]:
    if r.dimensions is None:
        return {"dims": None}
    dm = r.facts["dimensions"]
    cols: dict[str, Column] = {c: (c, dec(4)) for c in ("loglik", "loglik_se", "gain", "gain_se", "accuracy",
                                                        "accuracy_se", "brier")}
    text = (f"{dm['n_heldout']:,} answers held out ({dm['holdout']:.0%} of each model's, at random); the D-factor "
            f"2PL fitted on the rest predicts them. Chosen: D = {dm['chosen']} ({dm['rule']}).")
    return {"dims": table(r.dimensions.reset_index(), {"D": ("D", fmt), **cols}, csv=tables.get("dimensions", "")),
            "dims_text": text}


def _section_tasks(r: LeaderboardReport, tables: Mapping[str, str]) -> dict[str, Any]:
    if r.tasks is None:
        return {"tasks": None}
    cols: dict[str, Column]
    cols = {"n_items": ("items", fmt), "n_models": ("models", fmt), "mean_accuracy": ("mean accuracy", dec(3)),
            "best_model": ("best model", str), "best_accuracy": ("its accuracy", dec(3)),
            "everyone_right": ("all right", fmt), "everyone_wrong": ("all wrong", fmt),
            "negative_discrimination": ("a < 0", fmt), "median_a": ("median a", dec(2))}
    return {"tasks": table(r.tasks, cols, index_label="task", csv=tables.get("tasks", "")),
            "task_accuracy_csv": tables.get("task_accuracy", "")}


def _section_tiny(r: LeaderboardReport, tables: Mapping[str, str]) -> dict[str, Any]:
    if r.tiny_errors is None:
        return {"tiny": None}
    frame = r.tiny_errors
    plain: Callable[[Any], str] = fmt  # one type with dec(3)'s for the choice below
    cols: dict[str, Column] = {c: (str(c), dec(3) if pd.api.types.is_float_dtype(frame[c]) else plain) for c in frame.columns}
    return {"tiny": table(frame.reset_index(drop=True), cols, csv=tables.get("tiny_errors", "")),
            "tiny_source": r.facts["tiny"]["source"]}


def page_context(r: LeaderboardReport, figs: Mapping[str, str], tables: Mapping[str, str]) -> dict[str, Any]:
    """Every variable of ``leaderboard.html.j2``."""
    f = r.facts
    data_rows = pd.DataFrame({"value": [f["source"], f"{f['n_models']:,}", f"{f['n_items']:,}",
                                        f"{f['answered_share']:.1%}", f"{f['n_tasks']:,}" if f["n_tasks"] else "none given",
                                        f"{f['fit']['n_items']:,}"]},
                             index=["read from", "models", "items", "cells answered", "tasks",
                                    "items in the 2PL fit"])
    ctx: dict[str, Any] = {
        "version": __version__, "figs": figs, "files": dict(tables), "facts": f, "notes": list(r.notes),
        "findings": [x.html for x in r.summary().lines], "references": REFERENCES,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "data": table(data_rows, {"value": ("", str)}, index_label="data"),
    }
    ctx.update(_section_ranking(r, tables))
    ctx.update(_section_items(r, tables))
    ctx.update(_section_saturation(r))
    ctx.update(_section_information(r))
    ctx.update(_section_dims(r, tables))
    ctx.update(_section_tasks(r, tables))
    ctx.update(_section_tiny(r, tables))
    return ctx


def render_leaderboard_html(report: LeaderboardReport, table_files: Mapping[str, str] | None = None, *,
                            figs: Mapping[str, str] | None = None) -> str:
    """The page as one HTML string (figures embedded).

    Parameters
    ----------
    report : LeaderboardReport
    table_files : mapping, optional
        Table name -> the CSV's path relative to the page (the page links them).
    figs : mapping, optional
        Figure name -> ``data:`` URI (default: :func:`~irtbridge.report.leaderboard_plots.leaderboard_figures`).

    Returns
    -------
    str

    Examples
    --------
    >>> from irtbridge.leaderboard import leaderboard_report
    >>> X = pd.DataFrame({"q1": [1, 1, 0], "q2": [1, 1, 1], "q3": [0, 0, 0]}, index=["a", "b", "c"])
    >>> page = render_leaderboard_html(leaderboard_report(X), figs={})
    >>> page.startswith("<!DOCTYPE html>"), "everyone wrong" in page
    (True, True)
    """
    import jinja2  # jinja2 (~0.1 s) loads when a page is written

    env = jinja2.Environment(loader=jinja2.PackageLoader("irtbridge.report", "templates"), autoescape=True,
                             undefined=jinja2.ChainableUndefined)
    figs = leaderboard_figures(report) if figs is None else figs
    return env.get_template("leaderboard.html.j2").render(**page_context(report, figs, dict(table_files or {})))


@constraints(out=FsPath(kind="dir"), staging=FsPath(kind="dir", allow_none=True))
def write_leaderboard_report(report: LeaderboardReport, out: str | os.PathLike = "irtbridge-leaderboard", *,
                             staging: str | os.PathLike | None = None) -> dict[str, Path]:
    """Write ``index.html``, ``tables/*.csv`` and ``summary.json`` into the folder ``out``.

    As :meth:`LeaderboardReport.save` (atomic; ``staging``: a staging folder the caller already holds), with
    the page. Returns name -> path in ``out`` (``index``, ``summary`` and one per table).

    Parameters
    ----------
    report : LeaderboardReport
        The report.
    out : str or os.PathLike, default "irtbridge-leaderboard"
        The folder.
    staging : str or os.PathLike, optional
        A staging folder the caller already holds.

    Returns
    -------
    dict of str to Path
        Name -> path in ``out``.

    Examples
    --------
    >>> import tempfile
    >>> from irtbridge.leaderboard import leaderboard_report
    >>> rng = np.random.default_rng(0)
    >>> theta = rng.normal(size=(60, 1))
    >>> X = pd.DataFrame((rng.random((60, 20)) < 1 / (1 + np.exp(-(theta - np.linspace(-2, 2, 20))))) * 1.0)
    >>> files = write_leaderboard_report(leaderboard_report(X), Path(tempfile.mkdtemp()) / "board")
    >>> files["index"].name, files["summary"].name
    ('index.html', 'summary.json')
    """
    return report.save(out, staging=staging, page=render_leaderboard_html)
