"""The report page's context: one builder per section of ``templates/report.html.j2``.

Each ``_section_*`` function takes the :class:`~irtbridge.pipeline.Evaluation` (and the CSV links) and
returns the template variables of its section; :func:`page_context` merges them. A new section is
one builder here plus its block in the template.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
import pandas as pd

from irtbridge import __version__
from irtbridge.classifiers import MLC_NAMES, display_name
from irtbridge.pipeline.stages import MLCRun
from irtbridge.report._format import Column, dec, fmt, interval, pct, table

if TYPE_CHECKING:  # the report renders the pipeline's result; only the type is needed here
    from irtbridge.pipeline import Evaluation

__all__ = ["page_context"]


def _setting(value: Any) -> str:
    """A setting as a person reads it: yes/no, "default" for an unset option, "key = value" pairs, lists joined."""
    if value is None:
        return "default"
    if isinstance(value, Mapping):
        return "; ".join(f"{k} = {_setting(v)}" for k, v in value.items()) if value else "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_setting(v) for v in value) if value else "none"
    return fmt(value) if isinstance(value, (bool, np.bool_, int, np.integer)) else str(value)


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
    overview = table(
        ev.overview().assign(convergence=[_convergence(d) for d in ev.datasets]),
        {"source": ("source", str), "instances": ("instances", fmt), "features": ("features", fmt),
         "classes": ("classes", fmt), "items": ("test items", fmt), "engine": ("engine", str),
         "convergence": ("convergence", str), "seconds": ("seconds", dec(1)), "error": ("error", str)},
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
    ratings = r.assign(interval=[interval(a, b) for a, b in zip(r["lower"], r["upper"])],
                       wdl=[f"{int(w)} / {int(d_)} / {int(l_)}" for w, d_, l_ in zip(r["wins"], r["draws"], r["losses"])])
    out: dict[str, Any] = {
        "ratings": table(
            ratings,
            {"rank": ("rank", fmt), "kind": ("kind", str), "rating": ("rating", dec(1)), "interval": ("95% interval", str),
             "rd": ("RD", dec(1)), "volatility": ("volatility", dec(4)), "wdl": ("won / drawn / lost", str)},
            index_label="respondent", row_class=lambda k, row: "artificial" if row["kind"] == "artificial" else "",
            csv=tables.get("ratings", ""),
        ),
        "order": ev.settings.order, "periods": [str(p) for p in ev.true_scores.index], "validity": ev.validity,
    }
    if ev.friedman is not None:
        f, nm = ev.friedman, ev.nemenyi
        assert nm is not None  # computed with friedman
        out["friedman"] = {"statistic": fmt(f.statistic), "df": f.df, "pvalue": fmt(f.pvalue, 4),
                           "id": fmt(f.iman_davenport), "id_p": fmt(f.iman_davenport_pvalue, 4),
                           "cd": fmt(nm.critical_difference), "n": f.n_datasets, "k": f.n_algorithms}
    return out


def _section_diagnostics(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """Which datasets are hard, badly discriminating or misfitting."""
    d = ev.diagnostics
    hardest = d["failure_at_median"].idxmax()
    return {"diagnostics": table(
        d.sort_values("failure_at_median", ascending=False),
        {"n_items": ("items", fmt), "n_classes": ("classes", fmt),
         "failure_at_median": ("median classifier fails", pct), "n_flagged": ("flagged", fmt),
         "share_misfitting": ("misfitting (S-X2)", pct), "aberrant_classifiers": ("aberrant classifiers (Zh)", str),
         "difficulty_mean": ("mean b", dec(2)),
         "difficulty_median": ("median b", dec(2)), "share_positive_difficulty": ("b > 0", pct),
         "discrimination_median": ("median a", dec(2)), "share_negative_discrimination": ("a < 0", pct),
         "guessing_mean": ("mean g", dec(2)), "mean_accuracy": ("accuracy", pct),
         "valid_true_score": ("baselines in place", fmt), "engine": ("engine", str)},
        index_label="dataset",
        row_class=lambda k, row: "bad" if row["share_negative_discrimination"] >= 0.1 else ("hard" if k == hardest else ""),
        csv=tables.get("diagnostics", ""),
    )}


def _section_instances(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """The hardest test instances with their IRT parameters and cost-curve hardness."""
    inst = ev.instances.head(15).set_index(["dataset", "instance"])
    inst.index = [f"{a} #{b}" for a, b in inst.index]
    cols: dict[str, Column]
    cols = {"label": ("true class", str), "p_typical": ("P(correct), typical", dec(2)),
            "share_correct": ("classifiers right", pct), "a": ("a", dec(2)), "b": ("b", dec(2)), "g": ("g", dec(2))}
    if "hardness_rd" in inst.columns:
        cols["hardness_rd"] = ("hardness rd", dec(3))
        cols["hardness_sd"] = ("hardness sd", dec(3))
    return {"instances": table(inst, cols, index_label="instance", csv=tables.get("instances", "")),
            "n_instances_total": len(ev.instances)}


def _section_subsets(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """Is each of the paper's six dataset orders/subsets a valid benchmark?"""
    if not (isinstance(ev.subsets, pd.DataFrame) and len(ev.subsets)):
        return {}
    sub = ev.subsets.assign(baselines=[
        "valid" if v else f"optimal {o}, pessimal {p}" for v, o, p in
        zip(ev.subsets["valid"], ev.subsets["optimal_rank"], ev.subsets["pessimal_rank"])
    ])
    return {"subsets": table(
        sub, {"n_datasets": ("datasets", fmt), "datasets": ("played, in order", str),
              "baselines": ("optimal first / pessimal last", str), "best_classifier": ("best classifier", str),
              "best_rating": ("its rating", dec(0))},
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
        out["mlc_table"] = table(
            mlc.classes, {"label": ("class label", str), "mlc": ("MLC", dec(3)), "cases_used": ("cases used", fmt),
                          "share_used": ("share of the data", lambda v: f"{100 * float(v):.1f}%"),
                          "converged": ("SE rule met", fmt), "accuracy_at_or_below": ("accuracy at/below MLC", pct),
                          "n_at_or_below": ("cases", fmt), "accuracy_above": ("accuracy above MLC", pct),
                          "n_above": ("cases", fmt)},
            index_label="class", csv=tables.get("mlc", ""),
        )
    if isinstance(mlc.metrics, pd.DataFrame) and len(mlc.metrics):
        out["mlc_metrics"] = table(
            mlc.metrics, {"value": ("value", dec(3)), "n_cases": ("cases needed", fmt),
                          "share": ("share of the data", lambda v: f"{100 * float(v):.1f}%"),
                          "seconds": ("seconds", dec(3))},
            index_label="metric", csv=tables.get("mlc_metrics", ""),
        )
    return out


def _section_ei(ev: Evaluation, tables: Mapping[str, str]) -> dict[str, Any]:
    """The Efficiency Index family per classifier, pooled over the binary datasets (Larner (2023))."""
    if not len(ev.ei_pooled):
        return {}
    e = ev.ei_pooled.assign(
        ei_ci=[interval(a, b, 2) for a, b in zip(ev.ei_pooled["ei_lower"], ev.ei_pooled["ei_upper"])],
        bei_ci=[interval(a, b, 2) for a, b in zip(ev.ei_pooled["bei_lower"], ev.ei_pooled["bei_upper"])],
    )
    return {
        "ei": table(
            e,
            {"tp": ("TP", fmt), "fp": ("FP", fmt), "fn": ("FN", fmt), "tn": ("TN", fmt), "acc": ("Acc", dec(3)),
             "ei": ("EI", dec(2)), "ei_ci": ("EI 95%", str), "bei": ("BEI", dec(2)), "bei_ci": ("BEI 95%", str),
             "blei": ("BLEI", dec(2)), "qei": ("QEI", dec(2)), "uei": ("UEI", dec(2))},
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
