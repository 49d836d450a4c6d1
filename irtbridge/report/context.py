"""The report page's context: one builder per section of ``templates/report.html.j2``.

Each ``_section_*`` function takes the :class:`~irtbridge.pipeline.Evaluation` (and the CSV links) and
returns the template variables of its section; :func:`page_context` merges them. A new section is
one builder here plus its block in the template.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge.classifiers import MLC_NAMES, display_name
from irtbridge.pipeline.stages import MLCRun

if TYPE_CHECKING:  # the report renders the pipeline's result; only the type is needed here
    from irtbridge.pipeline import Evaluation

__all__ = ["page_context"]


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
    # an en dash between the ends: a comma would also be the thousands separator ("1,776.4 \u2013 2,053.2")
    return f"{_fmt(lo, digits)} \u2013 {_fmt(hi, digits)}"


def _setting(value: Any) -> str:
    """A setting as a person reads it: yes/no, "default" for an unset option, "key = value" pairs, lists joined."""
    if value is None:
        return "default"
    if isinstance(value, Mapping):
        return "; ".join(f"{k} = {_setting(v)}" for k, v in value.items()) if value else "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_setting(v) for v in value) if value else "none"
    return _fmt(value) if isinstance(value, (bool, np.bool_, int, np.integer)) else str(value)


def _settings_rows(settings: Any) -> list[tuple[str, str]]:
    """The settings table of the report: one row per setting, then what the calibration mode added."""
    out = settings.to_dict()
    mode = dict(out.pop("mode", {}) or {})
    rows = [(k.replace("_", " "), _setting(v)) for k, v in out.items()]
    described = mode.pop("description", None)
    # the mode repeats calibration/engine/fallback/engine_options: only what it adds gets a row
    rows += [(k.replace("_", " "), _setting(v)) for k, v in mode.items() if k not in out]
    if described:
        rows.append(("calibration as run", str(described)))
    return rows


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


def _references(ev: Evaluation) -> list[str]:
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


def page_context(ev: Evaluation, figs: Mapping[str, str], tables: Mapping[str, str]) -> dict[str, Any]:
    """Every variable of the page template: the sections' builders merged, in page order.

    Parameters
    ----------
    ev : Evaluation
        The evaluation.
    figs : mapping of str to str
        Figure name -> ``data:`` URI.
    tables : mapping of str to str
        Table name -> its CSV's relative path.

    Returns
    -------
    dict of str to Any
        The template's variables.
    """
    # the headline is the Evaluation's own Summary: the same lines the CLI prints and summary.json holds
    ctx: dict[str, Any] = {"version": __version__, "figs": figs, "findings": [x.html for x in ev.summary().lines],
                           "settings": ev.settings, "settings_rows": _settings_rows(ev.settings),
                           "provenance": ev.provenance, "files": tables, "references": _references(ev),
                           "timings": {k: f"{v:.2f}" for k, v in ev.timings.items()}}
    for section in (_section_overview, _section_ratings, _section_diagnostics, _section_instances,
                    _section_subsets, _section_mlc, _section_ei, _section_notes):
        ctx.update(section(ev, tables))
    return ctx


def _section_overview(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """What was evaluated: datasets, classifiers, artificial respondents."""
    first = ev.ok[0].respondents
    overview = _table(
        ev.overview().assign(convergence=[_convergence(d) for d in ev.datasets]),
        {"source": ("source", str), "instances": ("instances", _fmt), "features": ("features", _fmt),
         "classes": ("classes", _fmt), "items": ("test items", _fmt), "engine": ("engine", str),
         "convergence": ("convergence", str), "seconds": ("seconds", _d(1)), "error": ("error", str)},
        index_label="dataset", row_class=lambda k, r: "bad" if r["error"] else "", csv=tables.get("datasets", ""),
    )
    return {"n_datasets": len(ev.ok), "n_binary": sum(1 for d in ev.ok if d.binary), "overview": overview,
            "classifiers": [str(r) for r in first.index[first["kind"] == "classifier"]],
            "artificial": [str(r) for r in first.index[first["kind"] == "artificial"]]}


#: mirt's EM (1.48, EM.group) warns with this when, after its parameter-change tolerance stopped the EM, the
#: last log-likelihood changes still exceed 0.001
_STILL_INCREASING = "may still be increasing"


def _convergence(dres: Any) -> str:
    """What the calibration engine said of convergence, in words (the CSV keeps the plain ``converged``)."""
    if dres.error:
        return ""
    fit = getattr(dres, "calibration", None)
    cycles = getattr(fit, "iterations", None)
    text = ("yes" if dres.converged else "NO") + (f", {int(cycles)} EM cycles" if cycles is not None else "")
    if any(_STILL_INCREASING in str(getattr(w, "message", w)) for w in dres.warnings):
        text += "; mirt: log-likelihood may still be rising (last change > 0.001)"
    return text


def _section_ratings(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """The Glicko-2 ranking with intervals, its validity and Friedman/Nemenyi beside it."""
    r = ev.ratings
    ratings = r.assign(interval=[_interval(a, b) for a, b in zip(r["lower"], r["upper"])],
                       wdl=[f"{int(w)} / {int(d_)} / {int(l_)}" for w, d_, l_ in zip(r["wins"], r["draws"], r["losses"])])
    out: dict[str, Any] = {
        "ratings": _table(
            ratings,
            {"rank": ("rank", _fmt), "kind": ("kind", str), "rating": ("rating", _d(1)), "interval": ("95% interval", str),
             "rd": ("RD", _d(1)), "volatility": ("volatility", _d(4)), "wdl": ("won / drawn / lost", str)},
            index_label="respondent", row_class=lambda k, row: "artificial" if row["kind"] == "artificial" else "",
            csv=tables.get("ratings", ""),
        ),
        "order": ev.settings.order, "periods": [str(p) for p in ev.true_scores.index], "validity": ev.validity,
    }
    if ev.friedman is not None:
        f = ev.friedman
        out["friedman"] = {"statistic": _fmt(f.statistic), "df": f.df, "pvalue": _fmt(f.pvalue, 4),
                           "id": _fmt(f.iman_davenport), "id_p": _fmt(f.iman_davenport_pvalue, 4),
                           "cd": _fmt(ev.nemenyi.critical_difference), "n": f.n_datasets, "k": f.n_algorithms}
    return out


def _section_diagnostics(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """Which datasets are hard, badly discriminating or misfitting."""
    d = ev.diagnostics
    hardest = d["failure_at_median"].idxmax()
    return {"diagnostics": _table(
        d.sort_values("failure_at_median", ascending=False),
        {"n_items": ("items", _fmt), "n_classes": ("classes", _fmt),
         "failure_at_median": ("median classifier fails", _pct), "n_flagged": ("flagged", _fmt),
         "share_misfitting": ("misfitting (S-X2)", _pct), "aberrant_classifiers": ("aberrant classifiers (Zh)", str),
         "difficulty_mean": ("mean b", _d(2)),
         "difficulty_median": ("median b", _d(2)), "share_positive_difficulty": ("b > 0", _pct),
         "discrimination_median": ("median a", _d(2)), "share_negative_discrimination": ("a < 0", _pct),
         "guessing_mean": ("mean g", _d(2)), "mean_accuracy": ("accuracy", _pct),
         "valid_true_score": ("baselines in place", _fmt), "engine": ("engine", str)},
        index_label="dataset",
        row_class=lambda k, row: "bad" if row["share_negative_discrimination"] >= 0.1 else ("hard" if k == hardest else ""),
        csv=tables.get("diagnostics", ""),
    )}


def _section_instances(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """The hardest test instances with their IRT parameters and cost-curve hardness."""
    inst = ev.instances.head(15).set_index(["dataset", "instance"])
    inst.index = [f"{a} #{b}" for a, b in inst.index]
    cols = {"label": ("true class", str), "p_typical": ("P(correct), typical", _d(2)),
            "share_correct": ("classifiers right", _pct), "a": ("a", _d(2)), "b": ("b", _d(2)), "g": ("g", _d(2))}
    if "hardness_rd" in inst.columns:
        cols["hardness_rd"] = ("hardness rd", _d(3))
        cols["hardness_sd"] = ("hardness sd", _d(3))
    return {"instances": _table(inst, cols, index_label="instance", csv=tables.get("instances", "")),
            "n_instances_total": len(ev.instances)}


def _section_subsets(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """Is each of the paper's six dataset orders/subsets a valid benchmark?"""
    if not (isinstance(ev.subsets, pd.DataFrame) and len(ev.subsets)):
        return {}
    sub = ev.subsets.assign(baselines=[
        "valid" if v else f"optimal {o}, pessimal {p}" for v, o, p in
        zip(ev.subsets["valid"], ev.subsets["optimal_rank"], ev.subsets["pessimal_rank"])
    ])
    return {"subsets": _table(
        sub, {"n_datasets": ("datasets", _fmt), "datasets": ("played, in order", str),
              "baselines": ("optimal first / pessimal last", str), "best_classifier": ("best classifier", str),
              "best_rating": ("its rating", _d(0))},
        index_label="order / subset", row_class=lambda k, row: "" if row["valid"] else "bad",
        csv=tables.get("benchmark_subsets", ""),
    )}


def _section_mlc(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """Per-class Machine Learning Capability of one binary dataset (the MLC paper)."""
    mlc = ev.mlc or MLCRun()
    out: dict[str, Any] = {
        "mlc": mlc, "mlc_classifier": display_name(str(mlc.classifier), MLC_NAMES),
    }
    if isinstance(mlc.classes, pd.DataFrame) and len(mlc.classes):
        out["mlc_table"] = _table(
            mlc.classes, {"label": ("class label", str), "mlc": ("MLC", _d(3)), "cases_used": ("cases used", _fmt),
                          "share_used": ("share of the data", lambda v: f"{100 * float(v):.1f}%"),
                          "converged": ("SE rule met", _fmt), "accuracy_at_or_below": ("accuracy at/below MLC", _pct),
                          "n_at_or_below": ("cases", _fmt), "accuracy_above": ("accuracy above MLC", _pct),
                          "n_above": ("cases", _fmt)},
            index_label="class", csv=tables.get("mlc", ""),
        )
    if isinstance(mlc.metrics, pd.DataFrame) and len(mlc.metrics):
        out["mlc_metrics"] = _table(
            mlc.metrics, {"value": ("value", _d(3)), "n_cases": ("cases needed", _fmt),
                          "share": ("share of the data", lambda v: f"{100 * float(v):.1f}%"),
                          "seconds": ("seconds", _d(3))},
            index_label="metric", csv=tables.get("mlc_metrics", ""),
        )
    return out


def _section_ei(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """The Efficiency Index family per classifier, pooled over the binary datasets (Larner (2023))."""
    if not len(ev.ei_pooled):
        return {}
    e = ev.ei_pooled.assign(
        ei_ci=[_interval(a, b, 2) for a, b in zip(ev.ei_pooled["ei_lower"], ev.ei_pooled["ei_upper"])],
        bei_ci=[_interval(a, b, 2) for a, b in zip(ev.ei_pooled["bei_lower"], ev.ei_pooled["bei_upper"])],
    )
    return {
        "ei": _table(
            e,
            {"tp": ("TP", _fmt), "fp": ("FP", _fmt), "fn": ("FN", _fmt), "tn": ("TN", _fmt), "acc": ("Acc", _d(3)),
             "ei": ("EI", _d(2)), "ei_ci": ("EI 95%", str), "bei": ("BEI", _d(2)), "bei_ci": ("BEI 95%", str),
             "blei": ("BLEI", _d(2)), "qei": ("QEI", _d(2)), "uei": ("UEI", _d(2))},
            index_label="classifier", csv=tables.get("ei_pooled", ""),
        ),
        "ei_datasets": [d.name for d in ev.ok if d.binary],
        "ei_positive": {d.name: d.classes[1] for d in ev.ok if d.binary},
    }


def _section_notes(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """Failed datasets, calibration retries, dropped items, warnings and the MLC's error."""
    notes = []
    for dres in ev.datasets:
        if dres.error:
            notes.append(("bad", f"{dres.name}: not evaluated \u2014 {dres.error}"))
            continue
        if len(dres.attempts) > 1 or not dres.converged:
            notes.append(("", f"{dres.name}: calibration " + "; then ".join(map(str, dres.attempts))))
        if dres.dropped_items:
            notes.append(("", f"{dres.name}: {len(dres.dropped_items)} constant item(s) left out of calibration"))
        for w in dres.warnings:
            notes.append(("muted", f"{dres.name}: {w}"))
    if ev.mlc is not None and ev.mlc.error:
        notes.append(("", f"MLC: {ev.mlc.error}"))
    return {"notes": notes}
