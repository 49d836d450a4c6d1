"""The MLC decision rule and :class:`MLCResult`, everything :func:`~irtbridge.mlc.evaluate_mlc` found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._summary import HasSummary, Line, Summary
from irtbridge._ties import tie_greater
from irtbridge._validation import check_choice
from irtbridge.exceptions import ValidationError
from irtbridge.mlc._checks import feature_table
from irtbridge.mlc.difficulty import CaseDifficulty
from irtbridge.mlc.staircase import ClassCAT

__all__ = ["CAN_DECIDE", "REFER", "mlc_decision", "MLCResult"]

CAN_DECIDE, REFER = "model can decide", "refer to an expert"


def mlc_decision(cdi: Any, predicted: Any, mlc: Mapping[int, float]):
    """The decision rule of the MLC paper ("Practical Application") for new cases.

    A case predicted as class 1 has its CDI negated; its difficulty is then compared with the MLC of the
    predicted class: at or below it, ``"model can decide"``; above it, ``"refer to an expert"``. A
    difficulty within ``1e-9 * max(1, |difficulty|, |MLC|)`` of the MLC counts as equal to it
    (``irtbridge._ties``), so rounding noise does not decide a case on the boundary.

    Parameters
    ----------
    cdi : float, array-like or pandas.Series
        The cases' CDIs (higher = more like class 1).
    predicted : int, array-like or pandas.Series
        The classifier's predicted class (0/1) of each case.
    mlc : mapping
        ``{0: MLC of class 0, 1: MLC of class 1}``.

    Returns
    -------
    str, numpy.ndarray or pandas.Series
        The decision for each case (a Series indexed like ``cdi`` when it is one).

    Examples
    --------
    The paper's MIMIC examples (MLC 0.78 for "alive" = class 0, 0.43 for "dead" = class 1):

    >>> mlc_decision(0.80, 0, {0: 0.78, 1: 0.43})
    'refer to an expert'
    >>> mlc_decision(0.80, 1, {0: 0.78, 1: 0.43})
    'model can decide'
    """
    scalar = np.ndim(cdi) == 0
    index = cdi.index if isinstance(cdi, pd.Series) else None
    c = np.atleast_1d(np.asarray(cdi, dtype=float))
    p = np.atleast_1d(np.asarray(predicted))
    if c.shape != p.shape:
        raise ValidationError(f"cdi and predicted must have the same length, got {c.size} and {p.size}")
    if not np.isin(p, [0, 1]).all():
        raise ValidationError("predicted must hold the classes 0 and 1")
    missing = [k for k in (0, 1) if k in set(p.tolist()) and k not in mlc]
    if missing:
        raise ValidationError(f"mlc has no value for class {missing[0]}")
    m = np.array([mlc.get(int(k), np.nan) for k in p], dtype=float)
    difficulty = np.where(p == 1, -c, c)
    # at or below the MLC up to rounding noise (irtbridge._ties); no MLC (NaN) refers every case
    out = np.where(~np.isnan(m) & ~tie_greater(difficulty, m), CAN_DECIDE, REFER).astype(object)
    if scalar:
        return str(out[0])
    return pd.Series(out, index=index, name="decision") if index is not None else out


@dataclass(frozen=True, eq=False)
class MLCResult(HasSummary):
    """Everything :func:`evaluate_mlc` found.

    Attributes
    ----------
    classes : tuple of ClassCAT
        The CAT of class 1 and of class 0, in that order (the paper's class 1 and class 2).
    traditional : pandas.DataFrame
        Indexed by metric (accuracy, precision, recall, f1, auc): ``value, n_cases, share, seconds`` on the
        test part.
    cases : pandas.DataFrame
        One row per case: ``y, cdi, difficulty`` (CDI, negated for class 1), ``bin``, ``test``,
        ``predicted`` and ``correct`` (test cases only).
    orientation : pandas.DataFrame
        Per feature: ``orientation`` (+1/-1, from the training part), ``slope`` (its discrimination on the
        oriented CDI scale) and ``concordant`` (whether the two agree).
    cdi_sign : int
        +1 or -1: the calibration's ability scale was multiplied by this so that higher means "more like
        class 1" in the training part.
    difficulty_model : CaseDifficulty
    classifier : estimator
        The fitted classifier.
    class_labels : dict
        Original class value -> 0/1.
    settings : dict
    """

    classes: tuple
    traditional: pd.DataFrame
    cases: pd.DataFrame = field(repr=False)
    orientation: pd.DataFrame = field(repr=False)
    cdi_sign: int = 1
    difficulty_model: CaseDifficulty | None = field(default=None, repr=False)
    classifier: Any = field(default=None, repr=False)
    class_labels: Mapping[Any, int] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def cat(self, label: int) -> ClassCAT:
        """The CAT of class ``label`` (0 or 1).

        Parameters
        ----------
        label : {0, 1}
            The class.

        Returns
        -------
        ClassCAT
            Its CAT.
        """
        for c in self.classes:
            if c.label == label:
                return c
        raise ValidationError(f"class {label!r} is not 0 or 1")

    @property
    def mlc(self) -> dict:
        """``{class: MLC}``."""
        return {c.label: c.mlc for c in self.classes}

    def table(self) -> pd.DataFrame:
        """The evaluation in the layout of the MLC paper's Tables 4-5.

        Rows: the traditional metrics, then ``MLC (class 1)`` and ``MLC (class 0)``. Columns: ``value``,
        ``n_cases`` and ``share`` (data required), ``seconds`` (computation time), ``difficulty_adjusted``.

        Returns
        -------
        DataFrame
            Indexed by ``metric``.
        """
        rows = []
        for name, r in self.traditional.iterrows():
            rows.append((name, r["value"], int(r["n_cases"]), r["share"], r["seconds"], False))
        for c in self.classes:
            rows.append((f"MLC (class {c.label})", c.mlc, c.cases_used, c.share_used, c.seconds, True))
        frame = pd.DataFrame(rows, columns=["metric", "value", "n_cases", "share", "seconds", "difficulty_adjusted"])
        return frame.set_index("metric")

    def accuracy_by_mlc(self, by: str = "predicted") -> pd.DataFrame:
        """Accuracy of the test cases at or below vs above the MLC (the MLC paper, "Practical Application").

        Parameters
        ----------
        by : {"predicted", "true"}
            Group and orient each case by its predicted class (what the decision rule sees) or its true
            class (the class whose CAT produced the MLC).

        Returns
        -------
        pandas.DataFrame
            Indexed by class: ``mlc, n_below, accuracy_below, n_above, accuracy_above``.
        """
        by = check_choice(by, "by", ("predicted", "true"))
        test = self.cases[self.cases["test"]]
        group = test["predicted"] if by == "predicted" else test["y"]
        rows = {}
        for k in (1, 0):
            part = test[group == k]
            difficulty = -part["cdi"] if k == 1 else part["cdi"]
            below = difficulty <= self.mlc[k]
            rows[k] = {
                "mlc": self.mlc[k],
                "n_below": int(below.sum()),
                "accuracy_below": float(part.loc[below, "correct"].mean()) if below.any() else float("nan"),
                "n_above": int((~below).sum()),
                "accuracy_above": float(part.loc[~below, "correct"].mean()) if (~below).any() else float("nan"),
            }
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("class")

    def accuracy_by_cdi(self) -> pd.DataFrame:
        """Accuracy of the test cases per class and CDI bin (the data of Fig. 7), CDIs before negation.

        Returns
        -------
        DataFrame
            One row per class and bin.
        """
        test = self.cases[self.cases["test"]]
        width = self.settings.get("bin_width", 0.25) * float(np.std(self.cases["cdi"], ddof=1))
        out = test.groupby(["y", "bin"]).agg(n=("correct", "size"), accuracy=("correct", "mean")).reset_index()
        out.insert(2, "cdi", out["bin"] * width)
        return out.rename(columns={"y": "class"})

    def case_difficulty(self, X: Any) -> pd.Series:
        """CDIs of new cases on this evaluation's scale (higher = more like class 1), scored natively.

        Parameters
        ----------
        X : DataFrame
            New cases, with the calibration's feature columns.

        Returns
        -------
        Series
            Named ``cdi``.
        """
        if self.difficulty_model is None:
            raise ValidationError("this result has no difficulty model to score new cases with")
        return self.difficulty_model.score(X) * self.cdi_sign

    def decide(self, X: Any, predicted: Any = None) -> pd.DataFrame:
        """Apply the decision rule to new cases.

        Parameters
        ----------
        X : pandas.DataFrame
            New cases with the training features.
        predicted : array-like, optional
            Their predicted classes (0/1); default: the fitted classifier's predictions.

        Returns
        -------
        pandas.DataFrame
            ``cdi, predicted, difficulty, mlc, decision`` per case.
        """
        frame = feature_table(X)
        cdi = self.case_difficulty(frame)
        if predicted is None:
            predicted = self.classifier.predict(frame)
        p = np.asarray(predicted).astype(int)
        decision = mlc_decision(cdi, p, self.mlc)
        return pd.DataFrame(
            {
                "cdi": cdi.to_numpy(),
                "predicted": p,
                "difficulty": np.where(p == 1, -cdi.to_numpy(), cdi.to_numpy()),
                "mlc": [self.mlc[k] for k in p],
                "decision": decision.to_numpy(),
            },
            index=frame.index,
        )

    def to_dict(self) -> dict:
        """The CLI's ``--json`` object: ``{"classes": [...], "traditional": {...}}``.

        Returns
        -------
        dict
            See above.
        """
        return {
            "classes": [
                {"class": c.label, "mlc": c.mlc, "cases_used": c.cases_used, "share_used": c.share_used,
                 "converged": bool(c.converged)}
                for c in self.classes
            ],
            "traditional": {k: float(v) for k, v in self.traditional["value"].items()},
        }

    def summary(self, digits: int = 3) -> Summary:
        """The Tables 4-5 layout, accuracy below/above the MLC, and Notes.

        Parameters
        ----------
        digits : int, default 3
            Digits shown.

        Returns
        -------
        Summary
            The evaluation's summary.
        """
        notes = [
            f"class labels: {', '.join(f'{k!r} -> {v}' for k, v in self.class_labels.items())}; CDIs of class 1 "
            "are negated in the CATs",
            f"CDI direction learned on the training part: calibration scale x {self.cdi_sign:+d}",
        ]
        discordant = self.orientation.index[~self.orientation["concordant"]].tolist()
        if discordant:
            notes.append(
                f"{len(discordant)} feature(s) load on the CDI scale against their training association with "
                f"class 1: {', '.join(map(str, discordant[:8]))}{' ...' if len(discordant) > 8 else ''}"
            )
        for c in self.classes:
            if not c.converged:
                notes.append(f"class {c.label}: the CAT did not converge ({c.stop} after {c.cases_used} cases)")
            if c.extreme and c.trajectory["correct"].all():
                notes.append(
                    f"class {c.label}: all {c.cases_used} cases were classified right; the MLC rests on the "
                    "half-case correction of Eq. 11 and only bounds the reach from below"
                )
            elif c.extreme:
                notes.append(
                    f"class {c.label}: all {c.cases_used} cases were classified wrong; the MLC rests on the "
                    "half-case correction of Eq. 10"
                )
        lines = tuple(Line.of(f"class_{c.label}", f"class {c.label}: MLC {c.mlc:.{digits}f} after {c.cases_used} "
                              f"cases ({100 * c.share_used:.2f}% of the data)") for c in self.classes)
        title = (f"MLC evaluation: {len(self.cases)} cases ({int(self.cases['test'].sum())} test), "
                 f"features {self.settings.get('features')}, classifier {self.settings.get('classifier')}")
        tables = (("MLC per class and the traditional metrics", self.table()),
                  ("accuracy at/below vs above the MLC (test cases, by predicted class)", self.accuracy_by_mlc()))
        return Summary(title, lines, tables, tuple(notes), data=self.to_dict(),
                       digits={"share": 4, "seconds": 4, "*": digits})
