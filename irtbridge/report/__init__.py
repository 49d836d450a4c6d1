"""The self-contained HTML report of an :class:`~irtbridge.pipeline.Evaluation`, with its CSVs and JSON.

:func:`write_report` writes into one folder:

* ``index.html``: one page, readable top to bottom (what was evaluated; the ranking with intervals;
  which datasets are hard or badly discriminating; which instances are hard; per-class MLC; the
  Efficiency Index per classifier; notes). Figures are PNGs embedded as base64 ``data:`` URIs, the
  style sheet is inline, and nothing is fetched from the network, so the file can be mailed or
  archived as is;
* ``tables/<name>.csv``: every table of the page, unrounded;
* ``summary.json``: the headline numbers, for scripts (``irtbridge evaluate --json`` prints it).

Numbers are rounded only on the page; the CSVs and the JSON keep full precision.

The package: :mod:`~irtbridge.report.plots` draws the figures, :mod:`~irtbridge.report.context` builds
the page's variables (one builder per section) and ``templates/report.html.j2`` (package data) is the
page; this module writes the files. :mod:`~irtbridge.report.leaderboard` (with
:mod:`~irtbridge.report.leaderboard_plots` and ``templates/leaderboard.html.j2``) is the page of
:func:`irtbridge.leaderboard.leaderboard_report`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import pandas as pd

from irtbridge._constraints import FsPath, constraints
from irtbridge._io import atomic_write_csv, atomic_write_text
from irtbridge._outdir import staged_output
from irtbridge.report.context import page_context
from irtbridge.report.leaderboard import render_leaderboard_html, write_leaderboard_report
from irtbridge.report.plots import (
    figures,
    plot_dataset_map,
    plot_ei,
    plot_instances,
    plot_mlc,
    plot_ranking,
    plot_rating_history,
    plot_true_score_shares,
)

if TYPE_CHECKING:  # the report renders the pipeline's result; only the type is needed here
    from irtbridge.pipeline import Evaluation

__all__ = ["ReportFiles", "write_report", "render_html", "summary_dict", "figures", "page_context",
           "plot_dataset_map", "plot_ei", "plot_instances", "plot_mlc", "plot_ranking", "plot_rating_history",
           "plot_true_score_shares", "write_leaderboard_report", "render_leaderboard_html"]


@dataclass(frozen=True)
class ReportFiles:
    """Where :func:`write_report` put everything.

    Attributes
    ----------
    out : Path
        The report folder.
    index : Path
        ``index.html``.
    summary : Path
        ``summary.json``.
    tables : dict
        Table name -> CSV path.
    """

    out: Path
    index: Path
    summary: Path
    tables: Mapping[str, Path]


def render_html(evaluation: Evaluation, *, table_files: Mapping[str, str] | None = None,
                figs: Mapping[str, str] | None = None) -> str:
    """The report page as one HTML string (figures embedded).

    Parameters
    ----------
    evaluation : Evaluation
        The evaluation.
    table_files : mapping of str to str, optional
        Table name -> its CSV's relative path, for the page's links.
    figs : mapping of str to str, optional
        Figure name -> ``data:`` URI (default: drawn here).

    Returns
    -------
    str
        The page.
    """
    import jinja2  # jinja2 (~0.1 s) loads when a page is written

    env = jinja2.Environment(loader=jinja2.PackageLoader("irtbridge.report", "templates"), autoescape=True,
                             undefined=jinja2.ChainableUndefined)
    template = env.get_template("report.html.j2")
    figs = figures(evaluation) if figs is None else figs
    return template.render(**page_context(evaluation, figs, dict(table_files or {})))


def summary_dict(evaluation: Evaluation, *, out: str | os.PathLike | None = None) -> dict[str, Any]:
    """What ``summary.json`` holds: ``evaluation.summary().to_dict()`` with the page's path as ``report``.

    Parameters
    ----------
    evaluation : Evaluation
        The evaluation.
    out : str or os.PathLike, optional
        The report's folder.

    Returns
    -------
    dict of str to Any
        ``report`` is None without ``out``.
    """
    return {**evaluation.summary().to_dict(), "report": str(Path(out) / "index.html") if out is not None else None}


def _stem(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)


@constraints(out=FsPath(kind="dir"), staging=FsPath(kind="dir", allow_none=True))
def write_report(evaluation: Evaluation, out: str | os.PathLike = "irtbridge-report", *,
                 staging: str | os.PathLike | None = None) -> ReportFiles:
    """Write ``index.html``, ``tables/*.csv`` and ``summary.json`` into ``out`` (created if needed).

    The report is written into a staging folder beside ``out`` and moved into place when complete
    (:func:`irtbridge._outdir.staged_output`): ``out`` holds one run's files, the previous report stays
    until the new one is whole, and a second writer of ``out`` gets :class:`~irtbridge.exceptions.OutputBusyError`.
    ``staging``: a staging folder the caller already holds (the CLI locks ``out`` for the whole run);
    the files go there and the returned paths name their place in ``out``.

    Parameters
    ----------
    evaluation : Evaluation
        The evaluation.
    out : str or os.PathLike, default "irtbridge-report"
        The folder.
    staging : str or os.PathLike, optional
        A staging folder the caller already holds (written into directly).

    Returns
    -------
    ReportFiles
        The paths written.

    Examples
    --------
    >>> from irtbridge.pipeline import evaluate, Settings                 # doctest: +R
    >>> files = write_report(evaluate(["iris"], Settings.quick_run(), jobs=1), "report")
    >>> files.index
    PosixPath('report/index.html')
    """
    out = Path(out)  # a folder or nothing yet (declared above)
    if staging is None:
        with staged_output(out, param="out", writer="write_report") as stage:
            return write_report(evaluation, out, staging=stage)
    stage = Path(staging)
    (stage / "tables").mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    relative: dict[str, str] = {}
    for name, frame in evaluation.tables().items():
        if frame is None or not isinstance(frame, pd.DataFrame):
            continue
        path = out / "tables" / f"{_stem(name)}.csv"
        atomic_write_csv(stage / "tables" / path.name, frame, index=not isinstance(frame.index, pd.RangeIndex))
        written[name] = path
        relative[name] = f"tables/{path.name}"
    summary = summary_dict(evaluation, out=out)
    summary["files"] = {"index": "index.html", **relative}
    summary_path = out / "summary.json"
    atomic_write_text(stage / "summary.json", json.dumps(summary, indent=2, allow_nan=False) + "\n")
    index = out / "index.html"
    atomic_write_text(stage / "index.html", render_html(evaluation, table_files=relative))
    return ReportFiles(out=out, index=index, summary=summary_path, tables=written)
