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
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._plotting import figure_of
from irtbridge._io import atomic_write_csv, atomic_write_text, to_jsonable
from irtbridge.benchmark.modes import difficulty_agreement
from irtbridge.exceptions import ValidationError

__all__ = ["ReportFiles", "write_report", "render_html", "summary_dict", "figures"]


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


# --------------------------------------------------------------------------------------------------
# figures (matplotlib's object API: no pyplot state, safe to call from any thread)
# --------------------------------------------------------------------------------------------------

_ARTIFICIAL_COLOR = "#9aa3ad"
_CLASSIFIER_COLOR = "#2b6cb0"
_ACCENT = "#c05621"


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> str:
    """A figure as a base64 PNG ``data:`` URI (the figure is released)."""
    fig = figure_of(fig)  # the package's plot functions return the Axes they drew on
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", facecolor="white")
    try:  # figures from pyplot-based helpers must leave pyplot's registry
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # pragma: no cover - pyplot unavailable
        pass
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def plot_ranking(ratings: pd.DataFrame):
    """Glicko-2 rating of every respondent with its 95% interval (rating -/+ 2 RD), best on top."""
    n = len(ratings)
    fig = _figure(7.5, 0.28 * n + 1.2)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    colors = [_ARTIFICIAL_COLOR if k == "artificial" else _CLASSIFIER_COLOR for k in ratings.get("kind", ["classifier"] * n)]
    rating = ratings["rating"].to_numpy(float)
    ax.hlines(y, ratings["lower"].to_numpy(float), ratings["upper"].to_numpy(float), colors=colors, lw=2.2, alpha=0.8)
    ax.scatter(rating, y, c=colors, s=28, zorder=3)
    ax.set_yticks(y)
    ax.set_yticklabels([str(p) for p in ratings.index], fontsize=8.5)
    ax.axvline(1500, color="0.75", lw=0.8, ls=":")
    ax.set_xlabel("Glicko-2 rating (bars: rating \u00b1 2 RD, 95%)")
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    from matplotlib.lines import Line2D

    ax.legend(handles=[Line2D([], [], color=_CLASSIFIER_COLOR, marker="o", lw=2, label="classifier"),
                       Line2D([], [], color=_ARTIFICIAL_COLOR, marker="o", lw=2, label="artificial baseline")],
              loc="lower right", frameon=False, fontsize=8)
    return fig


def plot_rating_history(history: pd.DataFrame, ratings: pd.DataFrame, top: int = 8):
    """Rating of the leading respondents (and two baselines) after each rating period (dataset)."""
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    players = list(ratings.index[:top])
    for extra in ("majority", "pessimal"):
        if extra in ratings.index and extra not in players:
            players.append(extra)
    label = "dataset" if "dataset" in history.columns else "period"
    periods = list(dict.fromkeys(history[label].astype(str)))
    pos = {p: i for i, p in enumerate(periods)}
    for name in players:
        h = history[history["player"] == name]
        artificial = "kind" in ratings.columns and ratings.loc[name, "kind"] == "artificial"
        ax.plot([pos[str(p)] for p in h[label]], h["rating"].to_numpy(float), marker="o", ms=3, lw=1.4,
                ls="--" if artificial else "-", label=str(name))
    ax.set_xticks(range(len(periods)))
    ax.set_xticklabels(periods, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("rating")
    ax.set_xlabel("rating period (dataset, in tournament order)")
    ax.grid(color="0.93")
    ax.legend(fontsize=7.5, ncol=2, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def plot_true_scores(true_scores: pd.DataFrame, n_items: Mapping[str, int], order: Sequence[str]):
    """Heat map of True-Score / number of items (the expected share correct) per dataset and respondent."""
    share = true_scores.div(pd.Series(n_items).reindex(true_scores.index), axis=0)
    share = share[[c for c in order if c in share.columns]]
    fig = _figure(max(6.0, 0.36 * share.shape[1] + 2.2), 0.36 * share.shape[0] + 1.9)
    ax = fig.add_subplot()
    im = ax.imshow(share.to_numpy(float), aspect="auto", cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(share.shape[1]))
    ax.set_xticklabels([str(c) for c in share.columns], rotation=60, ha="right", fontsize=7.5)
    ax.set_yticks(range(share.shape[0]))
    ax.set_yticklabels([str(i) for i in share.index], fontsize=8)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label="True-Score / items")
    return fig


def plot_dataset_map(diagnostics: pd.DataFrame):
    """Each dataset by median difficulty and median discrimination (Cardoso et al., decodIRT, Fig. 7 in one panel).

    Medians, because ltm's 3PL on small respondent samples gives a few items near-zero discrimination and
    huge |b|, which would dominate a mean."""
    fig = _figure(6.8, 4.2)
    ax = fig.add_subplot()
    x = diagnostics["difficulty_median"].to_numpy(float)
    y = diagnostics["discrimination_median"].to_numpy(float)
    size = 30 + 400 * diagnostics["share_negative_discrimination"].to_numpy(float)
    sc = ax.scatter(x, y, s=size, c=diagnostics["classifier_accuracy"].to_numpy(float), cmap="RdYlGn",
                    vmin=0.5, vmax=1.0, edgecolors="0.3", linewidths=0.6)
    for name, xi, yi in zip(diagnostics.index, x, y):
        ax.annotate(str(name), (xi, yi), xytext=(5, 4), textcoords="offset points", fontsize=8)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.axvline(0, color="0.8", lw=0.8, ls=":")
    ax.set_xlabel("median difficulty b  (right = harder)")
    ax.set_ylabel("median discrimination a  (symlog)")
    fig.colorbar(sc, ax=ax, fraction=0.04, pad=0.02, label="mean accuracy of the classifiers")
    ax.text(0.01, 0.01, "marker size: share of items with negative discrimination", transform=ax.transAxes,
            fontsize=7.5, color="0.4")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def plot_instances(instances: pd.DataFrame):
    """Per instance: the chance a typical classifier gets it right against the cost-curve hardness."""
    has_hard = "hardness_rd" in instances.columns and instances["hardness_rd"].notna().any()
    fig = _figure(7.2, 3.8)
    ax = fig.add_subplot()
    names = list(dict.fromkeys(instances["dataset"]))
    cmap = _cmap("tab10")
    for i, name in enumerate(names):
        f = instances[instances["dataset"] == name]
        x = f["p_typical"].to_numpy(float)
        if has_hard:
            y = f["hardness_rd"].to_numpy(float)
            if np.isnan(y).all():
                continue
        else:
            y = 1.0 - f["share_correct"].to_numpy(float)
        ax.scatter(x, y, s=12, alpha=0.6, color=cmap(i % 10), label=str(name), edgecolors="none")
    ax.set_xlabel("IRT: P(correct) for the median classifier's ability")
    ax.set_ylabel("cost-curve hardness (rd)" if has_hard else "share of classifiers wrong")
    ax.grid(color="0.93")
    ax.legend(fontsize=7.5, frameon=False, loc="upper right")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def plot_ei(pooled: pd.DataFrame):
    """EI with its 95% interval per classifier (log scale), pooled over the binary datasets."""
    n = len(pooled)
    fig = _figure(7.0, 0.3 * n + 1.3)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    ei = pooled["ei"].to_numpy(float)
    lo = pooled["ei_lower"].to_numpy(float)
    hi = pooled["ei_upper"].to_numpy(float)
    finite_hi = np.where(np.isfinite(hi), hi, np.nanmax(np.where(np.isfinite(hi), hi, np.nan)) * 2 if np.isfinite(hi).any() else 100.0)
    ax.hlines(y, np.maximum(lo, 1e-3), finite_hi, color=_CLASSIFIER_COLOR, lw=2.2, alpha=0.8)
    ax.scatter(np.where(np.isfinite(ei), ei, finite_hi), y, color=_CLASSIFIER_COLOR, s=26, zorder=3)
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    lo_lim = max(min(np.nanmin(np.maximum(lo, 1e-3)), 1.0) / 1.3, 0.05)
    ax.set_xlim(lo_lim, np.nanmax(finite_hi) * 1.3)
    ax.set_yticks(y)
    ax.set_yticklabels([str(i) for i in pooled.index], fontsize=8.5)
    for x, style in ((1, "-"), (2, ":"), (5, ":"), (10, ":")):
        ax.axvline(x, color="0.7", lw=0.8, ls=style)
    ax.set_xlabel("Efficiency Index (TP + TN) / (FP + FN), 95% interval; dotted: 2, 5, 10")
    ax.grid(axis="x", color="0.94", which="both")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def plot_mlc(trajectories: pd.DataFrame, classes: pd.DataFrame | None = None):
    """Running MLC of each class's adaptive test against the cases presented (the MLC paper, Fig. 8)."""
    if "mlc" not in trajectories.columns or "class" not in trajectories.columns:
        return None
    fig = _figure(7.0, 3.4)
    ax = fig.add_subplot()
    for k, (name, f) in enumerate(trajectories.groupby("class", sort=False)):
        label = f"class {name}"
        if classes is not None and name in classes.index and "label" in classes.columns:
            label += f" ({classes.loc[name, 'label']})"
        x = f["L"].to_numpy(float) if "L" in f.columns else np.arange(1, len(f) + 1)
        (line,) = ax.plot(x, f["mlc"].to_numpy(float), marker="o", ms=3, label=label)
        if classes is not None and name in classes.index:
            ax.axhline(float(classes.loc[name, "mlc"]), color=line.get_color(), lw=0.8, ls=":")
    ax.set_xlabel("cases presented (L)")
    ax.set_ylabel("running MLC")
    ax.grid(color="0.93")
    ax.legend(frameon=False, fontsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def _cmap(name: str):
    import matplotlib

    return matplotlib.colormaps[name]


def figures(evaluation: Any) -> dict[str, str]:
    """Every figure of the page as a ``data:`` URI, by name (a figure that cannot be drawn is left out)."""
    ev = evaluation
    out: dict[str, str] = {}
    makers: list[tuple[str, Callable[[], Any]]] = [
        ("ranking", lambda: plot_ranking(ev.ratings)),
        ("history", lambda: plot_rating_history(ev.history, ev.ratings)),
        ("true_scores", lambda: plot_true_scores(ev.true_scores, {d.name: len(d.items) for d in ev.ok}, list(ev.ratings.index))),
        # wider with many respondents, so the rank axis stays legible
        ("cd", lambda: ev.nemenyi.plot(width=max(7.5, 0.24 * len(ev.nemenyi.average_ranks))) if ev.nemenyi is not None else None),
        ("datasets", lambda: plot_dataset_map(ev.diagnostics)),
        ("instances", lambda: plot_instances(ev.instances)),
        ("ei", lambda: plot_ei(ev.ei_pooled) if len(ev.ei_pooled) else None),
        ("mlc", lambda: plot_mlc(ev.mlc["trajectories"], ev.mlc.get("classes")) if ev.mlc and isinstance(ev.mlc.get("trajectories"), pd.DataFrame) else None),
    ]
    for name, make in makers:
        fig = make()
        if fig is not None:
            out[name] = _png(fig)
    return out


# --------------------------------------------------------------------------------------------------
# numbers for the page
# --------------------------------------------------------------------------------------------------

def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "\u2013"
        if math.isinf(v):
            return "\u221e" if v > 0 else "\u2212\u221e"
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 10 ** (-digits)):
            return f"{v:.{max(digits - 1, 1)}e}"
        return f"{v:,.{digits}f}"
    return str(value)


def _interval(lo: Any, hi: Any, digits: int = 1) -> str:
    return f"[{_fmt(lo, digits)}, {_fmt(hi, digits)}]"


@dataclass(frozen=True)
class _Table:
    columns: list[str]
    rows: list[list[str]]
    classes: list[str]  # one CSS class per row ("" or "artificial", "bad", ...)
    numeric: list[bool]
    csv: str = ""


def _table(frame: pd.DataFrame, columns: Mapping[str, tuple[str, Callable[[Any], str]]], *,
           index_label: str | None = None, row_class: Callable[[Any, pd.Series], str] | None = None,
           csv: str = "") -> _Table:
    names = ([index_label] if index_label else []) + [label for label, _ in columns.values()]
    rows, classes = [], []
    for key, row in frame.iterrows():
        cells = [str(key)] if index_label else []
        cells += [fmt(row[col]) if col in row.index else "" for col, (_, fmt) in columns.items()]
        rows.append(cells)
        classes.append(row_class(key, row) if row_class else "")
    numeric = ([False] if index_label else []) + [
        col in frame.columns and pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col])
        for col in columns
    ]
    return _Table(names, rows, classes, numeric, csv)


def _d(digits: int) -> Callable[[Any], str]:
    return lambda v: _fmt(v, digits)


def _pct(v: Any) -> str:
    return "\u2013" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * float(v):.0f}%"


_CLASSIFIER_NAMES = {
    "mlp": "multilayer perceptron", "logistic": "logistic regression", "random_forest": "random forest",
    "gradient_boosting": "gradient boosting", "svm": "support vector machine", "knn": "k-nearest neighbours",
    "tree": "decision tree", "naive_bayes": "naive Bayes",
}


def _references(ev: Any) -> list[str]:
    """The papers whose methods this report used (docs/references.md has them in full)."""
    refs = ["Cardoso et al., Enhancing Classifier Evaluation: A Fairer Benchmarking Strategy Based on Ability "
            "and Robustness (decodIRT: IRT, True-Scores, Glicko-2 tournaments)"]
    if len(getattr(ev, "ei_pooled", ())):
        refs.append("Larner (2023), Efficiency Index for Binary Classifiers: Concept, Extension, and Application")
    instances = getattr(ev, "instances", None)
    if instances is not None and "hardness_rd" in getattr(instances, "columns", ()):
        refs.append("Prudêncio, Cost Sensitive Evaluation of Instance Hardness in Machine Learning")
    if getattr(ev, "mlc", None):
        refs.append("Machine Learning Capability via case difficulty and computer-adaptive testing (the MLC paper)")
    return refs


def _fit_finding(d: pd.DataFrame) -> str:
    """Item misfit and aberrant classifiers (mirt's S-X2 and Zh), per dataset."""
    if "share_misfitting" not in d or not d["share_misfitting"].notna().any():
        return ("Item and person fit: not available (mirt's S-X2 and Zh need a mirt fit; with few classifiers "
                "S-X2 may be undefined).")
    misfit = d["share_misfitting"].dropna()
    worst = misfit.idxmax()
    aberrant = {k: v for k, v in d.get("aberrant_classifiers", pd.Series(dtype=object)).items() if isinstance(v, str) and v}
    text = (f"Model fit: on {html.escape(str(worst))}, {100 * misfit[worst]:.0f}% of the instances misfit the 3PL "
            "(S-X2 p &lt; 0.05 after Benjamini&ndash;Hochberg adjustment): candidates for label noise")
    if aberrant:
        text += "; classifiers with aberrant response patterns (person fit Zh &lt; &minus;1.96): " + "; ".join(
            f"{html.escape(str(k))}: {html.escape(v)}" for k, v in aberrant.items())
    else:
        text += "; no classifier responds aberrantly (person fit Zh &ge; &minus;1.96 everywhere)"
    return text + "."


def _calibration_finding(ev: Any) -> str:
    """Which calibration mode ran, and how many item estimates are flagged as not identified."""
    d = ev.diagnostics
    mode = getattr(ev.settings, "calibration", "stable")
    what = ("mirt's 3PL with weakly informative priors (stable mode)" if mode == "stable"
            else "ltm's 3PL exactly as Cardoso et al. (decodIRT) did (paper mode)")
    flagged = d["n_flagged"].fillna(0).astype(int) if "n_flagged" in d else pd.Series(dtype=int)
    if flagged.sum() == 0:
        return f"Calibration: {what}; no item estimate is flagged."
    worst = ", ".join(f"{html.escape(str(k))} {v}" for k, v in flagged[flagged > 0].sort_values(ascending=False).items())
    return (f"Calibration: {what}. <span class='warn'>{int(flagged.sum())} item estimate(s) are flagged as not identified"
            f"</span> (|a| &gt; 10, |b| &gt; 6, guessing at its bound or no finite SE; per dataset: {worst}): the ratings "
            "and dataset summaries on those datasets rest partly on them; see the <code>flag</code> column of instances.csv.")


def _findings(ev: Any) -> list[str]:
    """Plain-language headlines, each backed by a table below."""
    out = []
    ratings = ev.ratings
    real = ratings[ratings["kind"] == "classifier"]
    if len(real):
        best = real.iloc[0]
        out.append(
            f"Best classifier: <b>{html.escape(str(real.index[0]))}</b>, rating {best['rating']:.0f} "
            f"(95% interval {best['lower']:.0f}\u2013{best['upper']:.0f}); "
            + (f"its interval overlaps those of {int(((real['upper'] >= best['lower']) & (real.index != real.index[0])).sum())} other classifier(s)."
               if len(real) > 1 else "")
        )
    v = ev.validity
    if v.get("optimal_first") and v.get("pessimal_last"):
        out.append("Sanity check passed: the optimal baseline ranks first and the pessimal one last.")
    else:
        out.append(
            "<span class='warn'>Sanity check failed</span>: "
            + ("the optimal baseline is not first; " if not v.get("optimal_first") else "")
            + ("the pessimal baseline is not last; " if not v.get("pessimal_last") else "")
            + "the benchmark (sub)set may be unsuitable (Cardoso et al. (decodIRT) saw this on high-variation subsets)."
        )
    d = ev.diagnostics
    if len(d):
        out.append(_calibration_finding(ev))
        hardest = d["failure_at_median"].idxmax()
        lowest = d["classifier_accuracy"].idxmin()
        rho = difficulty_agreement(d["failure_at_median"], d["classifier_accuracy"])
        text = (f"Hardest dataset: <b>{html.escape(str(hardest))}</b>, where a classifier of the pool's median ability "
                f"is expected to fail {100 * d.loc[hardest, 'failure_at_median']:.0f}% of the test instances")
        if lowest != hardest:
            text += (f"; lowest accuracy of the classifiers: <b>{html.escape(str(lowest))}</b> "
                     f"({100 * d.loc[lowest, 'classifier_accuracy']:.0f}%)")
        else:
            text += f", also the one where the classifiers are least accurate ({100 * d.loc[lowest, 'classifier_accuracy']:.0f}%)"
        if np.isfinite(rho):
            text += f". Across datasets this difficulty has rank correlation {rho:.2f} with 1 &minus; mean accuracy."
        out.append(text + ("" if np.isfinite(rho) else "."))
        out.append(_fit_finding(d))
        worst = d["share_negative_discrimination"].idxmax()
        share = d.loc[worst, "share_negative_discrimination"]
        if share > 0:
            out.append(f"Worst discriminating: <b>{html.escape(str(worst))}</b>, where {100 * share:.0f}% of the instances have "
                       "negative discrimination (better classifiers get them wrong more often).")
        else:
            out.append("No dataset has instances with negative discrimination.")
    if len(ev.instances):
        top = ev.instances.iloc[0]
        out.append(f"Hardest instance: row <b>{html.escape(str(top['instance']))}</b> of {html.escape(str(top['dataset']))} "
                   f"(a typical classifier gets it right with probability {top['p_typical']:.2f}; "
                   f"{100 * top['share_correct']:.0f}% of the classifiers did).")
    if len(ev.ei_pooled):
        e = ev.ei_pooled.iloc[0]
        out.append(f"Highest Efficiency Index on the binary datasets: <b>{html.escape(str(ev.ei_pooled.index[0]))}</b>, "
                   f"EI {_fmt(e['ei'])} (95% interval {_fmt(e['ei_lower'])}\u2013{_fmt(e['ei_upper'])}).")
    if ev.failed:
        out.append(f"<span class='warn'>{len(ev.failed)} dataset(s) could not be evaluated</span>: "
                   + ", ".join(html.escape(f.name) for f in ev.failed) + " (see Notes).")
    return out


def _context(ev: Any, figs: Mapping[str, str], tables: Mapping[str, str]) -> dict[str, Any]:
    s = ev.settings
    overview = ev.overview()
    ctx: dict[str, Any] = {"version": __version__, "figs": figs, "findings": _findings(ev), "settings": s,
                           "provenance": ev.provenance, "files": tables}
    ctx["n_datasets"] = len(ev.ok)
    ctx["n_binary"] = sum(1 for d in ev.ok if d.binary)
    first = ev.ok[0].respondents
    ctx["classifiers"] = [str(r) for r in first.index[first["kind"] == "classifier"]]
    ctx["artificial"] = [str(r) for r in first.index[first["kind"] == "artificial"]]
    ctx["overview"] = _table(
        overview,
        {"source": ("source", str), "instances": ("instances", _fmt), "features": ("features", _fmt),
         "classes": ("classes", _fmt), "items": ("test items", _fmt), "engine": ("engine", str),
         "converged": ("converged", _fmt), "seconds": ("seconds", _d(1)), "error": ("error", str)},
        index_label="dataset", row_class=lambda k, r: "bad" if r["error"] else "", csv=tables.get("datasets", ""),
    )
    r = ev.ratings
    ratings = r.assign(interval=[_interval(a, b) for a, b in zip(r["lower"], r["upper"])],
                       wdl=[f"{int(w)} / {int(d_)} / {int(l_)}" for w, d_, l_ in zip(r["wins"], r["draws"], r["losses"])])
    ctx["ratings"] = _table(
        ratings,
        {"rank": ("rank", _fmt), "kind": ("kind", str), "rating": ("rating", _d(1)), "interval": ("95% interval", str),
         "rd": ("RD", _d(1)), "volatility": ("volatility", _d(4)), "wdl": ("won / drawn / lost", str)},
        index_label="respondent", row_class=lambda k, row: "artificial" if row["kind"] == "artificial" else "",
        csv=tables.get("ratings", ""),
    )
    ctx["order"] = s.order
    ctx["periods"] = [str(p) for p in ev.true_scores.index]
    ctx["validity"] = ev.validity
    ctx["references"] = _references(ev)
    if ev.friedman is not None:
        f = ev.friedman
        ctx["friedman"] = {"statistic": _fmt(f.statistic), "df": f.df, "pvalue": _fmt(f.pvalue, 4),
                           "id": _fmt(f.iman_davenport), "id_p": _fmt(f.iman_davenport_pvalue, 4),
                           "cd": _fmt(ev.nemenyi.critical_difference), "n": f.n_datasets, "k": f.n_algorithms}
    d = ev.diagnostics
    hardest = d["failure_at_median"].idxmax()
    ctx["diagnostics"] = _table(
        d.sort_values("failure_at_median", ascending=False),
        {"n_items": ("items", _fmt), "n_classes": ("classes", _fmt),
         "failure_at_median": ("median classifier fails", _pct), "n_flagged": ("flagged", _fmt),
         "share_misfitting": ("misfitting (S-X2)", _pct), "aberrant_classifiers": ("aberrant classifiers (Zh)", str),
         "difficulty_mean": ("mean b", _d(2)),
         "difficulty_median": ("median b", _d(2)), "share_positive_difficulty": ("b > 0", _pct),
         "discrimination_median": ("median a", _d(2)), "share_negative_discrimination": ("a < 0", _pct),
         "guessing_mean": ("mean g", _d(2)), "classifier_accuracy": ("accuracy", _pct),
         "valid_true_score": ("anchors in place", _fmt), "engine": ("engine", str)},
        index_label="dataset",
        row_class=lambda k, row: "bad" if row["share_negative_discrimination"] >= 0.1 else ("hard" if k == hardest else ""),
        csv=tables.get("diagnostics", ""),
    )
    inst = ev.instances.head(15).set_index(["dataset", "instance"])
    inst.index = [f"{a} #{b}" for a, b in inst.index]
    cols = {"label": ("true class", str), "p_typical": ("P(correct), typical", _d(2)),
            "share_correct": ("classifiers right", _pct), "a": ("a", _d(2)), "b": ("b", _d(2)), "g": ("g", _d(2))}
    if "hardness_rd" in inst.columns:
        cols["hardness_rd"] = ("hardness rd", _d(3))
        cols["hardness_sd"] = ("hardness sd", _d(3))
    ctx["instances"] = _table(inst, cols, index_label="instance", csv=tables.get("instances", ""))
    ctx["n_instances_total"] = len(ev.instances)
    if isinstance(ev.subsets, pd.DataFrame) and len(ev.subsets):
        sub = ev.subsets.assign(anchors=[
            "valid" if v else f"optimal {o}, pessimal {p}" for v, o, p in
            zip(ev.subsets["valid"], ev.subsets["optimal_rank"], ev.subsets["pessimal_rank"])
        ])
        ctx["subsets"] = _table(
            sub, {"n_datasets": ("datasets", _fmt), "datasets": ("played, in order", str),
                  "anchors": ("optimal first / pessimal last", str), "best_classifier": ("best classifier", str),
                  "best_rating": ("its rating", _d(0))},
            index_label="order / subset", row_class=lambda k, row: "" if row["valid"] else "bad",
            csv=tables.get("benchmark_subsets", ""),
        )
    mlc = ev.mlc or {}
    ctx["mlc"] = mlc
    ctx["mlc_classifier"] = _CLASSIFIER_NAMES.get(str(mlc.get("classifier")), str(mlc.get("classifier")))
    if isinstance(mlc.get("classes"), pd.DataFrame) and len(mlc["classes"]):
        m = mlc["classes"]
        ctx["mlc_table"] = _table(
            m, {"label": ("class label", str), "mlc": ("MLC", _d(3)), "cases_used": ("cases used", _fmt),
                "share_used": ("share of the data", lambda v: f"{100 * float(v):.1f}%"),
                "converged": ("SE rule met", _fmt), "accuracy_at_or_below": ("accuracy at/below MLC", _pct),
                "n_at_or_below": ("cases", _fmt), "accuracy_above": ("accuracy above MLC", _pct),
                "n_above": ("cases", _fmt)},
            index_label="class", csv=tables.get("mlc", ""),
        )
    if isinstance(mlc.get("metrics"), pd.DataFrame) and len(mlc["metrics"]):
        ctx["mlc_metrics"] = _table(
            mlc["metrics"], {"value": ("value", _d(3)), "n_cases": ("cases needed", _fmt),
                             "share": ("share of the data", lambda v: f"{100 * float(v):.1f}%"),
                             "seconds": ("seconds", _d(3))},
            index_label="metric", csv=tables.get("mlc_metrics", ""),
        )
    if len(ev.ei_pooled):
        e = ev.ei_pooled.assign(
            ei_ci=[_interval(a, b, 2) for a, b in zip(ev.ei_pooled["ei_lower"], ev.ei_pooled["ei_upper"])],
            bei_ci=[_interval(a, b, 2) for a, b in zip(ev.ei_pooled["bei_lower"], ev.ei_pooled["bei_upper"])],
        )
        ctx["ei"] = _table(
            e,
            {"tp": ("TP", _fmt), "fp": ("FP", _fmt), "fn": ("FN", _fmt), "tn": ("TN", _fmt), "acc": ("Acc", _d(3)),
             "ei": ("EI", _d(2)), "ei_ci": ("EI 95%", str), "bei": ("BEI", _d(2)), "bei_ci": ("BEI 95%", str),
             "blei": ("BLEI", _d(2)), "qei": ("QEI", _d(2)), "uei": ("UEI", _d(2))},
            index_label="classifier", csv=tables.get("ei_pooled", ""),
        )
        ctx["ei_datasets"] = [d.name for d in ev.ok if d.binary]
        ctx["ei_positive"] = {d.name: d.classes[1] for d in ev.ok if d.binary}
    notes = []
    for dres in ev.datasets:
        if dres.error:
            notes.append(("bad", f"{dres.name}: not evaluated \u2014 {dres.error}"))
            continue
        if len(dres.attempts) > 1 or not dres.converged:
            notes.append(("", f"{dres.name}: calibration " + "; then ".join(dres.attempts)))
        if dres.dropped_items:
            notes.append(("", f"{dres.name}: {len(dres.dropped_items)} constant item(s) left out of calibration"))
        for w in dres.warnings:
            notes.append(("muted", f"{dres.name}: {w}"))
    if mlc.get("error"):
        notes.append(("", f"MLC: {mlc['error']}"))
    ctx["notes"] = notes
    ctx["timings"] = {k: f"{v:.2f}" for k, v in ev.timings.items()}
    return ctx


# --------------------------------------------------------------------------------------------------
# the page
# --------------------------------------------------------------------------------------------------

_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="irtbridge {{ version }}">
<title>irtbridge evaluation: {{ n_datasets }} datasets, {{ classifiers|length }} classifiers</title>
<style>
  :root { --ink:#1f2933; --muted:#616e7c; --line:#d9e2ec; --soft:#f5f7fa; --blue:#2b6cb0; --warn:#b7791f; --bad:#c53030; }
  * { box-sizing: border-box; }
  body { margin:0; color:var(--ink); background:#fff; font:15px/1.55 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; }
  header { background:#1a365d; color:#fff; padding:28px 0 22px; }
  header h1 { margin:0 0 4px; font-size:26px; font-weight:600; }
  header p { margin:0; color:#cbd8e8; font-size:14px; }
  .wrap { max-width:1080px; margin:0 auto; padding:0 28px; }
  nav { border-bottom:1px solid var(--line); background:var(--soft); font-size:13.5px; }
  nav ol { margin:0; padding:10px 0; list-style:none; display:flex; flex-wrap:wrap; gap:4px 18px; }
  nav a { color:var(--blue); text-decoration:none; }
  section { padding:26px 0 8px; border-bottom:1px solid var(--line); }
  h2 { font-size:21px; margin:0 0 10px; font-weight:600; }
  h3 { font-size:16px; margin:22px 0 8px; font-weight:600; }
  p.lead { color:var(--muted); margin-top:0; max-width:860px; }
  .findings { background:#ebf4ff; border-left:4px solid var(--blue); padding:12px 18px 12px 34px; margin:0; }
  .findings li { margin:4px 0; }
  .warn { color:var(--warn); font-weight:600; }
  table { border-collapse:collapse; width:100%; font-size:13px; margin:8px 0 6px; }
  th, td { padding:5px 9px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
  th { background:var(--soft); font-weight:600; position:sticky; top:0; }
  td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
  tr.artificial td { color:var(--muted); font-style:italic; }
  tr.bad td { background:#fff5f5; }
  tr.hard td { background:#fffaf0; }
  .scroll { max-height:560px; overflow:auto; border:1px solid var(--line); border-radius:4px; }
  .scroll table { margin:0; }
  figure { margin:14px 0 18px; }
  figure img { max-width:100%; height:auto; display:block; border:1px solid var(--line); border-radius:4px; }
  figcaption { color:var(--muted); font-size:13px; margin-top:6px; max-width:860px; }
  .csv { font-size:12.5px; color:var(--muted); }
  .csv a { color:var(--blue); }
  .pill { display:inline-block; padding:1px 8px; border-radius:10px; background:var(--soft); border:1px solid var(--line); font-size:12.5px; margin:2px 3px 2px 0; }
  .pill.art { color:var(--muted); font-style:italic; }
  .ok { color:#2f855a; font-weight:600; }
  ul.notes { font-size:13px; padding-left:18px; }
  ul.notes li.muted { color:var(--muted); }
  ul.notes li.bad { color:var(--bad); }
  dl.meta { display:grid; grid-template-columns:max-content 1fr; gap:2px 14px; font-size:13px; }
  dl.meta dt { color:var(--muted); }
  dl.meta dd { margin:0; }
  footer { color:var(--muted); font-size:12.5px; padding:18px 0 40px; }
</style>
</head>
<body>
{%- macro render(t) -%}
<table>
<thead><tr>{% for c in t.columns %}<th{% if t.numeric[loop.index0] %} class="num"{% endif %}>{{ c }}</th>{% endfor %}</tr></thead>
<tbody>
{%- for row in t.rows %}
<tr{% if t.classes[loop.index0] %} class="{{ t.classes[loop.index0] }}"{% endif %}>{% for cell in row %}<td{% if t.numeric[loop.index0] %} class="num"{% endif %}>{{ cell }}</td>{% endfor %}</tr>
{%- endfor %}
</tbody>
</table>
{%- if t.csv %}<div class="csv">Full table: <a href="{{ t.csv }}">{{ t.csv }}</a></div>{% endif %}
{%- endmacro -%}
{%- macro figure(name, caption) -%}
{%- if figs.get(name) %}
<figure id="fig-{{ name }}"><img src="{{ figs[name] }}" alt="{{ caption|striptags|truncate(120) }}"><figcaption>{{ caption }}</figcaption></figure>
{%- endif %}
{%- endmacro %}
<header><div class="wrap">
  <h1>IRT evaluation of {{ classifiers|length }} classifiers on {{ n_datasets }} dataset{{ "s" if n_datasets != 1 }}</h1>
  <p>irtbridge {{ version }} &middot; {{ provenance.get("created", "") }} &middot; 3PL item calibration in R ({{ settings.engine }}{% if settings.fallback %}, {{ "mirt" if settings.engine == "ltm" else "ltm" }} as fallback{% endif %}), abilities, True-Scores and Glicko-2 ratings in Python{% if settings.quick %} &middot; <b>quick run</b>{% endif %}</p>
</div></header>
<nav><div class="wrap"><ol>
  <li><a href="#summary">Summary</a></li>
  <li><a href="#evaluated">1. What was evaluated</a></li>
  <li><a href="#ranking">2. Ranking</a></li>
  <li><a href="#datasets">3. Datasets</a></li>
  <li><a href="#instances">4. Hard instances</a></li>
  <li><a href="#mlc">5. Per-class MLC</a></li>
  <li><a href="#ei">6. Efficiency Index</a></li>
  <li><a href="#notes">7. Notes &amp; files</a></li>
</ol></div></nav>
<main class="wrap">

<section id="summary">
  <h2>Summary</h2>
  <ul class="findings">
  {%- for f in findings %}
    <li>{{ f|safe }}</li>
  {%- endfor %}
  </ul>
</section>

<section id="evaluated">
  <h2>1. What was evaluated</h2>
  <p class="lead">Each dataset was split 70/30 (stratified, at most {{ settings.max_items }} test instances). Every classifier was trained on the 70% and answered the held-out instances; each instance is an IRT <i>item</i>, each classifier a <i>respondent</i>, and a correct classification scores 1. A three-parameter logistic model (difficulty b, discrimination a, guessing g) was calibrated per dataset, and each respondent's ability gives its True-Score, the expected number of items it gets right.</p>
  {{ render(overview) }}
  <h3>Respondents</h3>
  <p>{% for c in classifiers %}<span class="pill">{{ c }}</span>{% endfor %}</p>
  <p>Artificial baselines (Cardoso et al., decodIRT), whose order is known in advance: {% for c in artificial %}<span class="pill art">{{ c }}</span>{% endfor %}</p>
</section>

<section id="ranking">
  <h2>2. Ranking of the classifiers</h2>
  <p class="lead">Each dataset is one Glicko-2 rating period ({{ "by increasing mean difficulty" if order == "difficulty" else ("by increasing mean discrimination" if order == "discrimination" else "in the order given") }}: {{ periods|join(", ") }}). In every period each pair of respondents plays once and the higher True-Score wins. The bars are 95% intervals (rating &plusmn; 2 RD): where two bars overlap, the data do not separate the two classifiers.</p>
  <p>{% if validity.optimal_first and validity.pessimal_last %}<span class="ok">&#10003; Valid ranking</span>: the optimal baseline is first and the pessimal one last.{% else %}<span class="warn">&#9888; Check this ranking</span>: {% if not validity.optimal_first %}the optimal baseline is not first. {% endif %}{% if not validity.pessimal_last %}The pessimal baseline is not last.{% endif %}{% endif %}</p>
  {{ figure("ranking", "Glicko-2 rating with its 95% interval; grey: artificial baselines.") }}
  <div class="scroll">{{ render(ratings) }}</div>
  {{ figure("history", "How the ratings of the leading respondents moved from one dataset (rating period) to the next.") }}
  {%- if friedman %}
  <h3>The classical comparison: Friedman and Nemenyi</h3>
  <p>Over {{ friedman.n }} datasets and {{ friedman.k }} respondents, ranking True-Scores within each dataset: Friedman &chi;&sup2; = {{ friedman.statistic }} (df {{ friedman.df }}, p = {{ friedman.pvalue }}); Iman&ndash;Davenport F = {{ friedman.id }} (p = {{ friedman.id_p }}). Nemenyi's critical difference at &alpha; = 0.05 is {{ friedman.cd }} ranks: respondents joined by a thick bar are not significantly different.</p>
  {{ figure("cd", "Critical-difference diagram of the average ranks (1 = best).") }}
  {%- endif %}
  {{ figure("true_scores", "True-Score divided by the number of items: the expected share of instances each respondent gets right, per dataset (columns in rating order).") }}
</section>

<section id="datasets">
  <h2>3. Datasets: which are hard, which discriminate badly</h2>
  <p class="lead">A dataset is <b>hard</b> when a classifier of the pool's median ability is expected to fail many of its instances (&ldquo;median classifier fails&rdquo;: the mean of 1 &minus; P(correct) over the instances at the median ability of the real classifiers). This stays on the probability scale, so an unidentified instance with b = &minus;40 counts as one easy instance instead of swamping a mean or median of b. It <b>discriminates badly</b> when many instances have negative discrimination a &lt; 0: on those, better classifiers fail more often than weaker ones, so they blur the ranking. Highlighted: the hardest dataset (amber) and datasets with at least 10% negatively discriminating instances (red).</p>
  {{ render(diagnostics) }}
  {{ figure("datasets", "Datasets by median difficulty and median discrimination; colour: mean accuracy of the real classifiers; size: share of negatively discriminating instances.") }}
  <p>&ldquo;Anchors in place&rdquo;: on this dataset alone, the optimal baseline has the highest True-Score and the pessimal one the lowest. Where they are not, the instances with negative discrimination reward wrong answers (Cardoso et al.'s (decodIRT) &ldquo;ilpd&rdquo;, Fig. 9).</p>
  {%- if subsets %}
  <h3>Which benchmark subsets give a valid ranking</h3>
  <p>The paper's six tournaments: all datasets by increasing difficulty or discrimination, and the half with the lowest or highest spread of each. A subset whose ranking does not put optimal first and pessimal last is not a good benchmark.</p>
  {{ render(subsets) }}
  {%- endif %}
</section>

<section id="instances">
  <h2>4. Hard instances</h2>
  <p class="lead">The 15 hardest of {{ n_instances_total }} test instances, by the probability that a classifier of typical ability (the median of the real classifiers) gets them right under the fitted 3PL. For binary datasets the cost-curve instance hardness (Prudêncio, cost-sensitive instance hardness; rd: rate-driven, sd: score-driven threshold choice) of the pool of classifiers is shown beside it.</p>
  {{ render(instances) }}
  {{ figure("instances", "Every test instance: IRT chance of a correct answer at typical ability against the pool's cost-curve hardness.") }}
</section>

<section id="mlc">
  <h2>5. Per-class Machine Learning Capability</h2>
  {%- if mlc_table %}
  <p class="lead">On {{ mlc.dataset }}, classifier: {{ mlc_classifier }} (the MLC paper). Each case gets a difficulty index (CDI) from an IRT model of its features; for each class, an adaptive test presents a handful of test cases, moving up in difficulty after a correct answer and down after an error, until the running estimate settles. The MLC is the case difficulty up to which the classifier can be trusted on that class: cases at or below it are classified more accurately than those above.</p>
  {{ render(mlc_table) }}
  {{ figure("mlc", "Running MLC of each class's adaptive test against the cases presented; dotted: the final MLC.") }}
  {%- if mlc_metrics %}
  <h3>Beside the traditional metrics (the layout of the MLC paper's Tables 4&ndash;5)</h3>
  {{ render(mlc_metrics) }}
  {%- endif %}
  {%- else %}
  <p class="lead">Not computed{% if mlc.get("dataset") %} for {{ mlc.dataset }}{% endif %}: {{ mlc.get("error") or "no binary dataset in this run" }}.</p>
  {%- endif %}
</section>

<section id="ei">
  <h2>6. Efficiency Index per classifier</h2>
  {%- if ei %}
  <p class="lead">On the {{ ei_datasets|length }} binary dataset(s) ({% for n in ei_datasets %}{{ n }}: positive class &ldquo;{{ ei_positive[n] }}&rdquo;{{ ", " if not loop.last }}{% endfor %}), test-set counts pooled over datasets. EI = (TP + TN) / (FP + FN) is the odds of a correct classification; BEI, BLEI, QEI and UEI correct it for prevalence, level, quality and chance (Larner 2023). Intervals are 95% (logit).</p>
  {{ figure("ei", "EI with its 95% interval per classifier (log scale); EI = 1 means as many errors as correct answers.") }}
  {{ render(ei) }}
  <div class="csv">Per dataset: <a href="{{ files.get('ei_per_dataset', '') }}">{{ files.get("ei_per_dataset", "") }}</a></div>
  {%- else %}
  <p class="lead">No binary dataset in this run: the Efficiency Index needs a 2&times;2 table.</p>
  {%- endif %}
</section>

<section id="notes">
  <h2>7. Notes &amp; files</h2>
  {%- if notes %}
  <ul class="notes">
  {%- for cls, n in notes %}<li{% if cls %} class="{{ cls }}"{% endif %}>{{ n }}</li>{% endfor %}
  </ul>
  {%- else %}<p>No warnings.</p>{% endif %}
  <h3>Settings and versions</h3>
  <dl class="meta">
  {%- for k, v in settings.to_dict().items() %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}
  {%- for k, v in provenance.items() %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}
  {%- for k, v in timings.items() %}<dt>time: {{ k }}</dt><dd>{{ v }} s</dd>{% endfor %}
  </dl>
  <h3>Tables (CSV, full precision)</h3>
  <p class="csv">{% for name, path in files.items() %}<a href="{{ path }}">{{ path }}</a>{{ " \u00b7 " if not loop.last }}{% endfor %} &middot; <a href="summary.json">summary.json</a></p>
</section>
</main>
<footer><div class="wrap">Generated by irtbridge {{ version }}. Item calibration by R's mirt/ltm ({{ settings.calibration }} mode). Methods from: {% for ref in references %}{{ ref }}{{ "; " if not loop.last else "." }}{% endfor %} Full references: docs/references.md.</div></footer>
</body>
</html>
"""


def render_html(evaluation: Any, *, table_files: Mapping[str, str] | None = None, figs: Mapping[str, str] | None = None) -> str:
    """The report page as one HTML string (figures embedded)."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.ChainableUndefined)
    template = env.from_string(_TEMPLATE)
    figs = figures(evaluation) if figs is None else figs
    return template.render(**_context(evaluation, figs, dict(table_files or {})))


def summary_dict(evaluation: Any, *, out: str | os.PathLike | None = None) -> dict[str, Any]:
    """The headline numbers as plain JSON-ready data (what ``summary.json`` holds)."""
    ev = evaluation
    ranking = [
        {"rank": int(row["rank"]), "player": str(p), "kind": row["kind"], "rating": row["rating"], "rd": row["rd"],
         "volatility": row["volatility"], "lower": row["lower"], "upper": row["upper"]}
        for p, row in ev.ratings.iterrows()
    ]
    d = ev.diagnostics
    summary: dict[str, Any] = {
        "irtbridge": __version__,
        "report": str(Path(out) / "index.html") if out is not None else None,
        "settings": ev.settings.to_dict(),
        "datasets": [
            {"dataset": x.name, "source": x.source, "instances": x.n_instances, "features": x.n_features,
             "classes": len(x.classes), "items": len(x.items), "engine": x.engine or None,
             "converged": x.converged, "error": x.error}
            for x in ev.datasets
        ],
        "ranking": ranking,
        "validity": dict(ev.validity),
        "diagnostics": [{"dataset": k, **row} for k, row in d.to_dict(orient="index").items()],
        "calibration": getattr(ev.settings, "calibration", "stable"),
        "flagged_items": {str(k): int(v) for k, v in (d["n_flagged"] if "n_flagged" in d else pd.Series(dtype=int)).items()},
        "hardest_datasets": list(d.sort_values("failure_at_median", ascending=False).index[:3]),
        "difficulty_agreement": difficulty_agreement(d["failure_at_median"], d["classifier_accuracy"]) if len(d) else None,
        "worst_discriminating": list(d.sort_values("share_negative_discrimination", ascending=False).index[:3]),
        "hard_instances": ev.instances.head(10)[[c for c in ("dataset", "instance", "label", "a", "b", "g", "p_typical", "share_correct", "hardness_rd") if c in ev.instances.columns]],
        "friedman": None if ev.friedman is None else {
            "statistic": ev.friedman.statistic, "df": ev.friedman.df, "pvalue": ev.friedman.pvalue,
            "critical_difference": ev.nemenyi.critical_difference,
        },
        "ei": [] if not len(ev.ei_pooled) else [
            {"classifier": k, **{c: row[c] for c in ("tp", "fp", "fn", "tn", "ei", "ei_lower", "ei_upper", "bei", "blei", "qei", "uei")}}
            for k, row in ev.ei_pooled.iterrows()
        ],
        "mlc": None,
        "timings": dict(ev.timings),
        "provenance": dict(ev.provenance),
    }
    mlc = ev.mlc or {}
    if isinstance(mlc.get("classes"), pd.DataFrame):
        summary["mlc"] = {"dataset": mlc.get("dataset"), "classes": mlc["classes"].reset_index()}
    elif mlc:
        summary["mlc"] = {"dataset": mlc.get("dataset"), "classes": None, "error": mlc.get("error")}
    return to_jsonable(summary)


def _stem(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)


def write_report(evaluation: Any, out: str | os.PathLike = "irtbridge-report") -> ReportFiles:
    """Write ``index.html``, ``tables/*.csv`` and ``summary.json`` into ``out`` (created if needed).

    Every file is written atomically (a temporary file renamed into place), so a reader never sees a
    half-written report; the page is written last.

    Examples
    --------
    >>> from irtbridge.pipeline import evaluate, Settings                 # doctest: +SKIP
    >>> files = write_report(evaluate(settings=Settings.quick_run()), "report")   # doctest: +SKIP
    >>> files.index                                                       # doctest: +SKIP
    PosixPath('report/index.html')
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValidationError(f"out={str(out)!r} is a file; give a folder for the report")
    (out / "tables").mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    relative: dict[str, str] = {}
    for name, frame in evaluation.tables().items():
        if frame is None or not isinstance(frame, pd.DataFrame):
            continue
        path = out / "tables" / f"{_stem(name)}.csv"
        atomic_write_csv(path, frame, index=not isinstance(frame.index, pd.RangeIndex))
        written[name] = path
        relative[name] = f"tables/{path.name}"
    summary = summary_dict(evaluation, out=out)
    summary["files"] = {"index": "index.html", **relative}
    summary_path = out / "summary.json"
    atomic_write_text(summary_path, json.dumps(summary, indent=2, allow_nan=False) + "\n")
    index = out / "index.html"
    atomic_write_text(index, render_html(evaluation, table_files=relative))
    _readable(summary_path, index, *written.values())
    return ReportFiles(out=out, index=index, summary=summary_path, tables=written)


def _readable(*paths: Path) -> None:
    """Give the files the usual permissions (the atomic writer's temporary files are private, 0600):
    a report written in a container into a mounted folder must be readable by the user outside."""
    mask = os.umask(0)
    os.umask(mask)
    for p in paths:
        os.chmod(p, 0o666 & ~mask)
