"""The headline of an :class:`~irtbridge.pipeline.Evaluation`, computed once as one :class:`~irtbridge._summary.Summary`.

The CLI's closing text, ``summary.json`` and the report's Summary section all render this object
(``Evaluation.summary()``), so they cannot disagree: each line below is built once from the tables,
with the dataset, classifier and instance names marked for the HTML rendering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge._summary import Line, Strong, Summary, Warn
from irtbridge._ties import tie_greater
from irtbridge.decodirt.modes import difficulty_agreement

if TYPE_CHECKING:  # pragma: no cover
    from irtbridge.pipeline import Evaluation

__all__ = ["evaluation_summary"]


def _num(value: float, digits: int = 2) -> str:
    v = float(value)
    if not np.isfinite(v):
        return "\u2013"
    return f"{v:.{digits}e}" if v != 0 and (abs(v) >= 1e5 or abs(v) < 10 ** (-digits)) else f"{v:,.{digits}f}"


def evaluation_summary(ev: "Evaluation") -> Summary:
    """Build the headline of ``ev`` (see the module docstring).

    Parameters
    ----------
    ev : Evaluation
        The evaluation.

    Returns
    -------
    Summary
        Its headline.
    """
    respondents = ev.ok[0].respondents if ev.ok else pd.DataFrame({"kind": []})
    n_cls = int((respondents["kind"] == "classifier").sum())
    n_art = len(respondents) - n_cls
    title = f"IRT evaluation of {n_cls} classifiers on {len(ev.ok)} dataset{'s' if len(ev.ok) != 1 else ''}"
    lines = [Line.of("evaluated", f"{len(ev.ok)} of {len(ev.datasets)} dataset(s) evaluated, {n_cls} classifiers + "
                                  f"{n_art} baselines")]
    lines += _ranking_lines(ev)
    d = ev.diagnostics
    if len(d):
        lines += [_calibration_line(ev), _hardest_dataset_line(d), _fit_line(d), _discrimination_line(d)]
    if len(ev.instances):
        top = ev.instances.iloc[0]
        label = str(top["instance"])
        # instances are named by the dataset's row labels, which count from 0 for a file or an embedded set
        where = ([f"data row {int(label) + 1} (counted from 1; instance {label} in instances.csv, counted from 0) of "]
                 if label.isdigit() else [f"instance {label!r} of "])
        lines.append(Line.of("hardest_instance", "Hardest instance: ", *where, Strong(str(top["dataset"])),
                             f" (a typical classifier gets it right with probability "
                             f"{float(top['p_typical']):.2f}; {100 * float(top['share_correct']):.0f}% of the "
                             "classifiers did)."))
    if len(ev.ei_pooled):
        e = ev.ei_pooled.iloc[0]
        lines.append(Line.of("best_ei", "Highest Efficiency Index on the binary datasets: ",
                             Strong(str(ev.ei_pooled.index[0])), f", EI {_num(e['ei'])} (95% interval "
                             f"{_num(e['ei_lower'])}\u2013{_num(e['ei_upper'])})."))
    if ev.failed:
        lines.append(Line.of("failed", Warn(f"{len(ev.failed)} dataset(s) could not be evaluated"), ": "
                             + "; ".join(f"{x.name} ({x.error})" for x in ev.failed) + "."))
    return Summary(title=title, lines=tuple(lines), data=_data(ev))


def _ranking_lines(ev: "Evaluation") -> list[Line]:
    real = ev.ratings[ev.ratings["kind"] == "classifier"]
    out = []
    # classifiers whose ratings are equal up to rounding noise (irtbridge._ties) are named together as tied,
    # never as "best" and "runner-up"
    ratings = real["rating"].to_numpy(dtype=float)
    groups: list[list[int]] = []
    for pos in range(len(real)):
        if groups and not tie_greater(ratings[groups[-1][0]], ratings[pos]):
            groups[-1].append(pos)
        else:
            groups.append([pos])
    for (key, label), group in zip((("best", "Best classifier"), ("runner_up", "Runner-up")), groups):
        row = real.iloc[group[0]]
        names: list[Any] = []
        for i, pos in enumerate(group):
            names += ([", "] if 0 < i < len(group) - 1 else [" and "] if i else []) + [Strong(str(real.index[pos]))]
        tied = f"s (tied, {len(group)} with equal ratings)" if len(group) > 1 else ""
        overlap = ""
        if key == "best" and len(real) > len(group):
            n = int(((real["upper"] >= row["lower"]) & ~real.index.isin(real.index[group])).sum())
            overlaps = "their intervals overlap" if len(group) > 1 else "its interval overlaps"
            overlap = f"; {overlaps} those of {n} other classifier(s)"
        out.append(Line.of(key, f"{label}{tied}: ", *names, f", rating {row['rating']:.0f} (95% interval "
                           f"{row['lower']:.0f}\u2013{row['upper']:.0f}){overlap}."))
    v = ev.validity
    if v.get("optimal_first") and v.get("pessimal_last"):
        out.append(Line.of("sanity", "Ranking sanity check passed: the optimal baseline ranks first and the "
                                     "pessimal one last."))
    else:
        out.append(Line.of("sanity", Warn("Ranking sanity check failed"), ": ",
                           "the optimal baseline is not first; " if not v.get("optimal_first") else "",
                           "the pessimal baseline is not last; " if not v.get("pessimal_last") else "",
                           "the benchmark (sub)set may be unsuitable (Cardoso et al. (decodIRT) saw this on "
                           "high-variation subsets)."))
    return out


def _calibration_line(ev: "Evaluation") -> Line:
    """Which calibration mode ran, and how many item estimates are flagged as not identified."""
    d = ev.diagnostics
    what = f"Calibration: {ev.settings.mode.describe()} ({ev.settings.mode.name} mode)"
    flagged = d["n_flagged"].fillna(0).astype(int) if "n_flagged" in d else pd.Series(dtype=int)
    if flagged.sum() == 0:
        return Line.of("calibration", what, "; no item estimate is flagged.")
    worst = ", ".join(f"{k} {v}" for k, v in flagged[flagged > 0].sort_values(ascending=False).items())
    return Line.of("calibration", what, ". ", Warn(f"{int(flagged.sum())} item estimate(s) are flagged as not "
                                                   "identified"),
                   f" (|a| > 10, |b| > 6, guessing at its bound or no finite SE; per dataset: {worst}): the ratings "
                   "and dataset summaries on those datasets rest partly on them; see the flag column of instances.csv.")


def _hardest_dataset_line(d: pd.DataFrame) -> Line:
    hardest = d["failure_at_median"].idxmax()
    lowest = d["mean_accuracy"].idxmin()
    rho = difficulty_agreement(d["failure_at_median"], d["mean_accuracy"])
    parts: list[str] = ["Hardest dataset: ", Strong(str(hardest)), ", where a classifier of the pool's median ability "
                        f"is expected to fail {100 * d.loc[hardest, 'failure_at_median']:.0f}% of the test instances"]
    accuracy = f"{100 * d.loc[lowest, 'mean_accuracy']:.0f}%"
    if lowest != hardest:
        parts += ["; lowest accuracy of the classifiers: ", Strong(str(lowest)), f" ({accuracy})"]
    else:
        parts.append(f", also the one where the classifiers are least accurate ({accuracy})")
    if np.isfinite(rho):  # undefined below three datasets: said nothing rather than "nan"
        parts.append(f". Across datasets this difficulty has rank correlation {rho:.2f} with 1 \u2212 mean accuracy")
    return Line.of("hardest_dataset", *parts, ".")


def _fit_line(d: pd.DataFrame) -> Line:
    """Item misfit and aberrant classifiers (mirt's S-X2 and Zh), per dataset."""
    if "share_misfitting" not in d or not d["share_misfitting"].notna().any():
        return Line.of("fit", "Item and person fit: not available (mirt's S-X2 and Zh need a mirt fit; with few "
                              "classifiers S-X2 may be undefined).")
    misfit = d["share_misfitting"].dropna()
    worst = misfit.idxmax()
    aberrant = {k: v for k, v in d.get("aberrant_classifiers", pd.Series(dtype=object)).items()
                if isinstance(v, str) and v}
    parts = ["Model fit: on ", Strong(str(worst)), f", {100 * misfit[worst]:.0f}% of the instances misfit the 3PL "
             "(S-X2 p < 0.05 after Benjamini\u2013Hochberg adjustment): candidates for label noise"]
    if aberrant:
        parts.append("; classifiers with aberrant response patterns (person fit Zh < \u22121.96): "
                     + "; ".join(f"{k}: {v}" for k, v in aberrant.items()))
    else:
        parts.append("; no classifier responds aberrantly (person fit Zh \u2265 \u22121.96 everywhere)")
    return Line.of("fit", *parts, ".")


def _discrimination_line(d: pd.DataFrame) -> Line:
    worst = d["share_negative_discrimination"].idxmax()
    share = d.loc[worst, "share_negative_discrimination"]
    if not share > 0:
        return Line.of("worst_discriminating", "No dataset has instances with negative discrimination.")
    return Line.of("worst_discriminating", "Worst discriminating: ", Strong(str(worst)), f", where {100 * share:.0f}% "
                   "of the instances have negative discrimination (better classifiers get them wrong more often).")


def _data(ev: "Evaluation") -> dict[str, Any]:
    """The headline numbers as JSON-ready data (``summary.json``, ``irtbridge evaluate --json``)."""
    d = ev.diagnostics
    ranking = [
        {"rank": int(row["rank"]), "player": str(p), "kind": row["kind"], "rating": row["rating"], "rd": row["rd"],
         "volatility": row["volatility"], "lower": row["lower"], "upper": row["upper"]}
        for p, row in ev.ratings.iterrows()
    ]
    rho = difficulty_agreement(d["failure_at_median"], d["mean_accuracy"]) if len(d) else float("nan")
    out: dict[str, Any] = {
        "irtbridge": __version__,
        "report": None,
        "settings": ev.settings.to_dict(),
        "datasets": [
            {"dataset": x.name, "source": x.provenance, "instances": x.n_instances, "features": x.n_features,
             "classes": len(x.classes), "items": len(x.items), "engine": x.engine or None,
             "converged": x.converged, "error": x.error}
            for x in ev.datasets
        ],
        "ranking": ranking,
        "validity": dict(ev.validity),
        "diagnostics": [{"dataset": k, **row} for k, row in d.to_dict(orient="index").items()],
        "calibration": ev.settings.mode.name,
        "flagged_items": {str(k): int(v) for k, v in (d["n_flagged"] if "n_flagged" in d else pd.Series(dtype=int)).items()},
        "hardest_datasets": list(d.sort_values("failure_at_median", ascending=False).index[:3]),
        "difficulty_agreement": rho if np.isfinite(rho) else None,
        "worst_discriminating": list(d.sort_values("share_negative_discrimination", ascending=False).index[:3]),
        "hard_instances": ev.instances.head(10)[[c for c in ("dataset", "instance", "label", "a", "b", "g", "p_typical",
                                                             "share_correct", "hardness_rd") if c in ev.instances.columns]],
        "friedman": None if ev.friedman is None else {
            "statistic": ev.friedman.statistic, "df": ev.friedman.df, "pvalue": ev.friedman.pvalue,
            "critical_difference": ev.nemenyi.critical_difference,
        },
        "ei": [] if not len(ev.ei_pooled) else [
            {"classifier": k, **{c: row[c] for c in ("tp", "fp", "fn", "tn", "ei", "ei_lower", "ei_upper", "bei", "blei",
                                                     "qei", "uei")}}
            for k, row in ev.ei_pooled.iterrows()
        ],
        "mlc": None,
        "timings": dict(ev.timings),
        "provenance": dict(ev.provenance),
    }
    mlc = ev.mlc
    if mlc is not None and isinstance(mlc.classes, pd.DataFrame):
        out["mlc"] = {"dataset": mlc.dataset, "classes": mlc.classes.reset_index()}
    elif mlc is not None:
        out["mlc"] = {"dataset": mlc.dataset, "classes": None, "error": mlc.error}
    return out
