"""The public Efficiency Index API: result objects, one table, many tables, by cut-off, and Larner's bands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Flag, Int, Number, RandomState, constraints
from irtbridge._summary import HasSummary, Line, Summary
from irtbridge._validation import check_binary_labels, check_random_state, check_same_length, check_scores, show_value
from irtbridge.exceptions import ValidationError
from irtbridge.efficiency._core import (
    CELLS,
    apply_correction,
    check_common,
    check_count,
    check_count_array,
    index_columns,
)
from irtbridge.efficiency.core import CI_METHODS, INDICES

__all__ = [
    "Interval",
    "EfficiencyIndices",
    "efficiency_indices",
    "efficiency_indices_from_predictions",
    "efficiency_frame",
    "efficiency_by_cutoff",
    "classify_ei",
]


# --------------------------------------------------------------------------------------------------
# result objects


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence bounds.

    Attributes
    ----------
    value, lower, upper : float
        ``inf`` for a perfect classifier's EI, ``nan`` where the index is undefined.
    """

    value: float
    lower: float
    upper: float

    def to_dict(self) -> dict[str, float]:
        """The interval as plain data.

        Returns
        -------
        dict of str to float
            ``value``, ``lower``, ``upper``.
        """
        return {"value": self.value, "lower": self.lower, "upper": self.upper}


@dataclass(frozen=True)
class EfficiencyIndices(HasSummary):
    """The eight indices of one 2 x 2 table with their intervals; returned by :func:`efficiency_indices`.

    Attributes
    ----------
    acc, inacc, ei, ini, bei, blei, qei, uei : Interval
        Value and ``level`` confidence bounds of each index.
    tp, fp, fn, tn : int
        The counts as given (before any correction).
    prevalence : float
        ``P = (TP + FN) / N``.
    positive_sign_rate : float
        Kraemer's level of the test, ``Q = (TP + FP) / N``.
    sensitivity, specificity, ppv, npv, kappa : float
        Ingredients of BEI, BLEI and UEI (``nan`` where undefined).
    level : float
        Confidence level of the intervals.
    ci_method : str
        ``"logit"``, ``"bootstrap"`` or ``"larner2023"``.
    correction : float
        What was added to every cell (0.0 when nothing was).
    zero_cells : tuple of str
        Names of the empty cells among ``tp, fp, fn, tn``.
    boundary : tuple of str
        Indices whose interval needed the empty-cell fallback (see the module notes).
    n_boot : int or None
        Bootstrap replicates, when ``ci_method="bootstrap"``.
    """

    INDICES: ClassVar[tuple[str, ...]] = INDICES

    acc: Interval
    inacc: Interval
    ei: Interval
    ini: Interval
    bei: Interval
    blei: Interval
    qei: Interval
    uei: Interval
    tp: int
    fp: int
    fn: int
    tn: int
    prevalence: float
    positive_sign_rate: float
    sensitivity: float
    specificity: float
    ppv: float
    npv: float
    kappa: float
    level: float
    ci_method: str
    correction: float
    zero_cells: tuple[str, ...] = field(default_factory=tuple)
    boundary: tuple[str, ...] = field(default_factory=tuple)
    n_boot: int | None = None

    @property
    def n(self) -> int:
        """Number of cases, ``TP + FP + FN + TN``."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def perfect(self) -> bool:
        """True when there is no false positive and no false negative (``ei`` is ``inf``)."""
        return self.fp + self.fn == 0

    def to_frame(self) -> pd.DataFrame:
        """One row per index (``acc`` ... ``uei``), columns ``value, lower, upper``.

        Returns
        -------
        DataFrame
            See above.
        """
        rows = [[getattr(self, k).value, getattr(self, k).lower, getattr(self, k).upper] for k in INDICES]
        return pd.DataFrame(rows, index=pd.Index(INDICES, name="index"), columns=["value", "lower", "upper"])

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{index: {"value", "lower", "upper"}}`` for the eight indices (the CLI's ``--json`` shape).

        Returns
        -------
        dict of str to dict
            See above.
        """
        return {k: getattr(self, k).to_dict() for k in INDICES}

    def classify(self) -> pd.Series:
        """Table 1 classification of this EI (see :func:`classify_ei`).

        Returns
        -------
        Series
            The classification's fields.
        """
        return classify_ei(self.ei.value).iloc[0]

    def summary(self) -> Summary:
        """Counts, P and Q, the eight intervals, the EI classification and notes (text, HTML or dict).

        Returns
        -------
        Summary
            The indices' summary.
        """
        pct = f"{100 * self.level:g}%"
        lines = [
            Line.of("prevalence", f"prevalence P = {_fmt(self.prevalence)}   level Q = {_fmt(self.positive_sign_rate)}"),
            Line.of("intervals", f"{pct} confidence intervals, ci_method={self.ci_method!r}"),
        ]
        c = self.classify()
        if isinstance(c["jaeschke"], str):
            change = c["change_in_probability"]
            mcgee = f"; about {100 * change:+.0f} percentage points (McGee)" if np.isfinite(change) else ""
            lines.append(Line.of("classification", f"EI {_fmt(self.ei.value)}: {c['jaeschke']} in the probability of "
                                 f"diagnosis (Jaeschke); {c['rosenthal']} effect size (Rosenthal){mcgee}"))
        notes = []
        if self.zero_cells:
            notes.append(f"empty cell(s): {', '.join(self.zero_cells)}")
        if self.correction:
            notes.append(f"{self.correction:g} added to every cell")
        if self.boundary:
            notes.append(f"intervals of {', '.join(self.boundary)} use the empty-cell fallback (0.5 added to every cell)")
        undefined = [k for k in INDICES if np.isnan(getattr(self, k).value)]
        if undefined:
            notes.append(f"undefined for this table: {', '.join(undefined)}")
        if self.ci_method == "bootstrap":
            notes.append(f"percentile bootstrap, {self.n_boot} replicates")
        if self.ci_method == "larner2023":
            notes.append("acc/inacc/ei/ini intervals as printed in Larner (2023); others: default closed forms")
        return Summary(f"Efficiency indices  TP={self.tp} FP={self.fp} FN={self.fn} TN={self.tn}  (N={self.n})",
                       tuple(lines), ((f"{pct} confidence intervals", self.to_frame()),), tuple(notes),
                       {"counts": {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}, **self.to_dict()})

    def __str__(self) -> str:
        return self.summary().as_text()


def _fmt(x: float) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.3f}"


@dataclass(frozen=True)
class _Settings:
    """The checked interval settings every public function takes, and the bootstrap's generator."""

    level: float
    ci_method: str
    correction: float
    n_boot: int
    rng: Any

    @classmethod
    def checked(cls, level: Any, ci_method: Any, correction: Any, n_boot: Any, random_state: Any) -> "_Settings":
        level, ci_method, correction, n_boot = check_common(level, ci_method, correction, n_boot)
        rng = check_random_state(random_state)  # checked whatever the method: a bad seed is never silent
        return cls(level, ci_method, correction, n_boot, rng)

    def columns(self, raw: np.ndarray) -> tuple[np.ndarray, dict, dict, dict]:
        """(cells after the correction, index columns, fallback flags, derived rates) of tables ``raw``."""
        cells = apply_correction(raw, self.correction)
        cols, used, g = index_columns(cells, level=self.level, ci_method=self.ci_method, correction=self.correction,
                                      n_boot=self.n_boot, rng=self.rng)
        return cells, cols, used, g


# --------------------------------------------------------------------------------------------------
# public API


@constraints(level=Number(low=0.0, high=1.0, low_open=True, high_open=True), ci_method=Choice(CI_METHODS),
             correction=Number(low=0.0), n_boot=Int(low=100), random_state=RandomState())
def efficiency_indices(
    tp: Any,
    fp: Any,
    fn: Any,
    tn: Any,
    *,
    level: float = 0.95,
    ci_method: str = "logit",
    correction: float = 0.0,
    n_boot: int = 2000,
    random_state: Any = None,
) -> EfficiencyIndices:
    """Acc, Inacc, EI, InI, BEI, BLEI, QEI and UEI of a 2 x 2 table, each with a confidence interval.

    Parameters
    ----------
    tp, fp, fn, tn : int
        True positives, false positives, false negatives, true negatives (whole numbers >= 0, not all 0).
    level : float, default 0.95
        Confidence level, in (0, 1).
    ci_method : {"logit", "bootstrap", "larner2023"}, default "logit"
        How intervals are built (details in the module notes). ``"logit"``: deterministic closed
        forms; for EI the Wald interval of the log-odds of a correct outcome,
        ``log EI +/- z sqrt(1/(TP + TN) + 1/(FP + FN))``, which is what EI is (the odds of being
        right), and which covers at its nominal level. ``"bootstrap"``: seeded percentile bootstrap of
        every index, for small tables. ``"larner2023"``: the paper's printed intervals, with
        ``SE(log EI) = sqrt(1/TP - 1/(TP + FN) + 1/FP - 1/(FP + TN))``; that is the SE of log LR+, not
        of log EI, so the interval matches published numbers but not its nominal coverage (about 89%
        for the MACE table).
    correction : float, default 0.0
        Added to all four cells when the table has an empty cell (0.5 is Haldane-Anscombe).
    n_boot : int, default 2000
        Bootstrap replicates (``ci_method="bootstrap"`` only).
    random_state : None, int or numpy Generator
        Seed of the bootstrap.

    Returns
    -------
    EfficiencyIndices
        Frozen result; ``.to_frame()`` gives the table, ``.summary()`` the report.

    Notes
    -----
    ``EI = (TP + TN)/(FP + FN) = Acc/Inacc``, ``InI = 1/EI``,
    ``BEI = (Sens + Spec)/[(1 - Sens) + (1 - Spec)]``, ``BLEI = (PPV + NPV)/[(1 - PPV) + (1 - NPV)]``,
    ``QEI = QAcc/(1 - QAcc)`` with ``QAcc = P (Sens - Q)/Q' + P' (Spec - Q')/Q``,
    ``UEI = UAcc/(1 - UAcc)`` with ``UAcc = (Acc - PQ - P'Q')/(1 - PQ - P'Q')`` (Larner 2023, Sec. 2).
    The default EI interval equals R's
    ``exp(confint.default(glm(cbind(TP + TN, FP + FN) ~ 1, family = binomial), level = level))``.

    Examples
    --------
    >>> r = efficiency_indices(104, 188, 10, 453, ci_method="larner2023")
    >>> round(r.ei.value, 2), round(r.ei.lower, 2), round(r.ei.upper, 2)
    (2.81, 2.46, 3.21)
    """
    counts = [check_count(v, name) for v, name in zip((tp, fp, fn, tn), CELLS)]
    if sum(counts) == 0:
        raise ValidationError("tp, fp, fn and tn are all 0; the table needs at least one case")
    settings = _Settings.checked(level, ci_method, correction, n_boot, random_state)
    cells, cols, used, g = settings.columns(np.asarray([counts], dtype=float))
    intervals = {k: Interval(float(v[0]), float(lo[0]), float(hi[0])) for k, (v, lo, hi) in cols.items()}
    applied = float(cells[0, 0] - counts[0])
    return EfficiencyIndices(
        **intervals,
        tp=counts[0], fp=counts[1], fn=counts[2], tn=counts[3],
        prevalence=float(g["p"][0]),
        positive_sign_rate=float(g["q"][0]),
        sensitivity=float(g["sens"][0]),
        specificity=float(g["spec"][0]),
        ppv=float(g["ppv"][0]),
        npv=float(g["npv"][0]),
        kappa=float(g["kappa"][0]),
        level=settings.level,
        ci_method=settings.ci_method,
        correction=applied,
        zero_cells=tuple(name for name, v in zip(CELLS, counts) if v == 0),
        boundary=tuple(k for k in INDICES if used[k][0]),
        n_boot=settings.n_boot if settings.ci_method == "bootstrap" else None,
    )


def _counts_from_labels(y_true: Any, y_pred: Any) -> tuple[int, int, int, int]:
    t = check_binary_labels(y_true, "y_true")
    p = check_binary_labels(y_pred, "y_pred")
    check_same_length(("y_true", t), ("y_pred", p))
    tp = int(np.sum((t == 1) & (p == 1)))
    fp = int(np.sum((t == 0) & (p == 1)))
    fn = int(np.sum((t == 1) & (p == 0)))
    return tp, fp, fn, int(t.size - tp - fp - fn)


def efficiency_indices_from_predictions(y_true: Any, y_pred: Any, **kwargs: Any) -> EfficiencyIndices:
    """:func:`efficiency_indices` of the 2 x 2 table of 0/1 labels ``y_true`` against 0/1 predictions ``y_pred``.

    Keyword arguments (``level``, ``ci_method``, ``correction``, ``n_boot``, ``random_state``) are
    passed on. Label 1 is the positive class, as in ``sklearn.metrics.confusion_matrix(y_true, y_pred).ravel()``
    read as ``tn, fp, fn, tp``.

    Parameters
    ----------
    y_true : array-like of 0/1
        Reference standard (1 = condition present).
    y_pred : array-like of 0/1
        The test's predictions.
    **kwargs
        Passed to :func:`efficiency_indices`.

    Returns
    -------
    EfficiencyIndices
        The indices of the table.

    Examples
    --------
    >>> r = efficiency_indices_from_predictions([1, 1, 0, 0, 0], [1, 0, 0, 0, 1])
    >>> (r.tp, r.fp, r.fn, r.tn), r.ei.value
    ((1, 1, 1, 2), 1.5)
    """
    return efficiency_indices(*_counts_from_labels(y_true, y_pred), **kwargs)


@constraints(level=Number(low=0.0, high=1.0, low_open=True, high_open=True), ci_method=Choice(CI_METHODS),
             correction=Number(low=0.0), n_boot=Int(low=100), random_state=RandomState())
def efficiency_frame(
    tp: Any,
    fp: Any,
    fn: Any,
    tn: Any,
    *,
    level: float = 0.95,
    ci_method: str = "logit",
    correction: float = 0.0,
    n_boot: int = 2000,
    random_state: Any = None,
) -> pd.DataFrame:
    """Vectorised :func:`efficiency_indices` over many 2 x 2 tables, as one DataFrame.

    Parameters
    ----------
    tp, fp, fn, tn : array-like of counts, same length
        One table per position. A pandas Series lends its index to the result.
    level : float, default 0.95
    ci_method : str, default "logit"
    correction : float, default 0.0
    n_boot : int, default 2000
    random_state : int, Generator or None, default None
        As in :func:`efficiency_indices`.

    Returns
    -------
    pandas.DataFrame
        Columns ``tp, fp, fn, tn, prevalence, positive_sign_rate``, then for each index ``<name>``,
        ``<name>_lower``, ``<name>_upper``, and ``boundary`` (comma-separated indices that used the
        empty-cell fallback, "" when none).

    Notes
    -----
    Row ``i`` equals ``efficiency_indices(tp[i], fp[i], fn[i], tn[i], ...)`` (the bootstrap draws
    differ unless each call gets the same generator state).

    Examples
    --------
    >>> f = efficiency_frame([104, 50], [188, 5], [10, 5], [453, 40])
    >>> f["ei"].round(3).tolist()
    [2.813, 9.0]
    """
    arrays = [check_count_array(v, name) for v, name in zip((tp, fp, fn, tn), CELLS)]
    check_same_length(*zip(CELLS, arrays))
    index = next((v.index for v in (tp, fp, fn, tn) if isinstance(v, pd.Series)), None)
    raw = np.column_stack(arrays)
    empty = raw.sum(axis=1) == 0
    if empty.any():
        raise ValidationError(
            f"table {int(np.flatnonzero(empty)[0])} has tp = fp = fn = tn = 0; every table needs at least one case"
        )
    settings = _Settings.checked(level, ci_method, correction, n_boot, random_state)
    return _frame(raw, index, settings, intervals=True)


def _frame(raw: np.ndarray, index: Any, settings: _Settings, *, intervals: bool) -> pd.DataFrame:
    _, cols, used, g = settings.columns(raw)
    data: dict[str, Any] = {name: raw[:, j].astype(np.int64) for j, name in enumerate(CELLS)}
    data["prevalence"] = g["p"]
    data["positive_sign_rate"] = g["q"]
    for k in INDICES:
        v, lo, hi = cols[k]
        data[k] = v
        if intervals:
            data[f"{k}_lower"] = lo
            data[f"{k}_upper"] = hi
    if intervals:
        data["boundary"] = [",".join(k for k in INDICES if used[k][i]) for i in range(raw.shape[0])]
    return pd.DataFrame(data, index=index)


@constraints(higher_is_positive=Flag(), intervals=Flag(), level=Number(low=0.0, high=1.0, low_open=True, high_open=True),
             ci_method=Choice(CI_METHODS), correction=Number(low=0.0), n_boot=Int(low=100), random_state=RandomState())
def efficiency_by_cutoff(
    y_true: Any,
    scores: Any,
    *,
    cutoffs: Any = None,
    higher_is_positive: bool = True,
    intervals: bool = False,
    level: float = 0.95,
    ci_method: str = "logit",
    correction: float = 0.0,
    n_boot: int = 2000,
    random_state: Any = None,
) -> pd.DataFrame:
    """The indices at every cut-off of a score, like Table 2 of Larner (2023).

    Parameters
    ----------
    y_true : array-like of 0/1
        Reference standard (1 = condition present).
    scores : array-like of float
        The test's score for each case.
    cutoffs : array-like, optional
        Cut-offs to tabulate, in the order given; default: every distinct score, ascending.
    higher_is_positive : bool, default True
        A case is test-positive when ``score >= cutoff``; with ``False`` when ``score <= cutoff``
        (cognitive screens such as the MACE, where a low score flags dementia).
    intervals : bool, default False
        Add ``<index>_lower``/``<index>_upper`` columns and ``boundary``.
    level : float, default 0.95
    ci_method : str, default "logit"
    correction : float, default 0.0
    n_boot : int, default 2000
    random_state : int, Generator or None, default None
        As in :func:`efficiency_indices`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``cutoff``; columns ``tp, fp, fn, tn, prevalence, positive_sign_rate`` and the eight indices.

    Notes
    -----
    The counts at all cut-offs come from two sorts and ``searchsorted``, ``O(n log n)``.

    Examples
    --------
    >>> t = efficiency_by_cutoff([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9], cutoffs=[0.5])
    >>> t.loc[0.5, ["tp", "fp", "fn", "tn", "ei"]].tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    t = check_binary_labels(y_true, "y_true")
    s = check_scores(scores, "scores", low=-np.inf, high=np.inf)
    check_same_length(("y_true", t), ("scores", s))
    if cutoffs is None:
        cuts = np.unique(s)
    else:
        cuts = check_scores(np.atleast_1d(cutoffs), "cutoffs", low=-np.inf, high=np.inf)
    if not isinstance(higher_is_positive, (bool, np.bool_)):
        raise ValidationError(f"higher_is_positive must be True or False, got {show_value(higher_is_positive)}")
    settings = _Settings.checked(level, ci_method, correction, n_boot, random_state)
    pos, neg = np.sort(s[t == 1]), np.sort(s[t == 0])
    if higher_is_positive:
        tp = pos.size - np.searchsorted(pos, cuts, side="left")
        fp = neg.size - np.searchsorted(neg, cuts, side="left")
    else:
        tp = np.searchsorted(pos, cuts, side="right")
        fp = np.searchsorted(neg, cuts, side="right")
    raw = np.column_stack([tp, fp, pos.size - tp, neg.size - fp]).astype(float)
    # integer scores (test totals such as MACE) keep integer cut-off labels
    source = np.asarray(scores if cutoffs is None else cutoffs)
    if np.issubdtype(source.dtype, np.integer):
        cuts = cuts.astype(np.int64)
    index = pd.Index(cuts, name="cutoff")
    return _frame(raw, index, settings, intervals=bool(intervals))


# Table 1 of Larner (2023). Band edges belong to the band farther from EI = 1, which agrees with every
# unambiguous row of the table (<=0.1, 0.2, 0.5, 2.0, >=10); its row for EI = 5.0 ("moderate") does not
# fit any consistent rule and is read as the start of the "large" band.
_JAESCHKE_EDGES = np.array([0.1, 0.2, 0.5, 1.0, 1.0, 2.0, 5.0, 10.0])
_JAESCHKE_LABELS = np.array([
    "very large decrease", "large decrease", "moderate decrease", "slight decrease", "no change",
    "slight increase", "moderate increase", "large increase", "very large increase",
], dtype=object)
_ROSENTHAL_EDGES = np.array([1.5, 2.5, 4.0, 10.0])
_ROSENTHAL_LABELS = np.array(["negligible", "small", "medium", "large", "very large"], dtype=object)


def classify_ei(ei: Any) -> pd.DataFrame:
    """Qualitative and semi-quantitative classification of EI values (Larner 2023, Table 1).

    Parameters
    ----------
    ei : float or array-like of float
        EI values (>= 0; ``inf`` allowed). A Series lends its index to the result.

    Returns
    -------
    pandas.DataFrame
        One row per value with columns ``ei``; ``jaeschke`` (change in the probability of diagnosis:
        "very large decrease" EI <= 0.1, "large decrease" <= 0.2, "moderate decrease" <= 0.5,
        "slight decrease" < 1, "no change" = 1, "slight increase" < 2, "moderate increase" < 5,
        "large increase" < 10, "very large increase" >= 10); ``rosenthal`` (effect size of
        ``max(EI, 1/EI)``: "negligible" < 1.5 <= "small" < 2.5 <= "medium" < 4 <= "large" < 10 <=
        "very large"); and ``change_in_probability`` (McGee, as a fraction).

    Notes
    -----
    McGee's change in probability is ``0.19 ln(EI)`` (so +0.13 at EI = 2, +0.31 at 5, +0.44 at 10);
    it rests on the near-linearity of probability in log-odds for probabilities 0.1-0.9 and means
    little outside EI 0.1-10. Values are not clipped (EI = inf gives inf). ``nan`` gives ``None`` labels.

    Examples
    --------
    >>> classify_ei([2.81, 12.0])[["jaeschke", "rosenthal"]].values.tolist()
    [['moderate increase', 'medium'], ['very large increase', 'very large']]
    """
    index = ei.index if isinstance(ei, pd.Series) else None
    if isinstance(ei, (str, bytes)):
        raise ValidationError(f"ei must be a number or an array of numbers, got {show_value(ei)}")
    try:
        x = np.atleast_1d(np.asarray(ei, dtype=float))
    except (TypeError, ValueError):
        raise ValidationError(f"ei must be a number or an array of numbers, got {show_value(ei)}") from None
    if x.ndim != 1:
        raise ValidationError(f"ei must be one-dimensional, got shape {x.shape}")
    if (x < 0).any():
        raise ValidationError(f"ei must be >= 0 (EI is a ratio of counts), got {x[x < 0][0]!r}")
    nan = np.isnan(x)
    # below 1 the edges close on the left (<= 0.1 is "very large decrease"), above 1 on the right
    low_side = np.searchsorted(_JAESCHKE_EDGES[:4], x, side="left")
    high_side = 4 + np.searchsorted(_JAESCHKE_EDGES[4:], x, side="right")
    j = np.where(x < 1, low_side, np.where(x == 1, 4, high_side))
    with np.errstate(divide="ignore"):
        strength = np.fmax(x, 1.0 / x)
        change = 0.19 * np.log(x)
    r = np.searchsorted(_ROSENTHAL_EDGES, strength, side="right")
    jaeschke = _JAESCHKE_LABELS[np.clip(j, 0, 8)]  # object arrays, copied by the indexing
    jaeschke[nan] = None
    rosenthal = _ROSENTHAL_LABELS[np.clip(r, 0, 4)]
    rosenthal[nan] = None
    return pd.DataFrame({"ei": x, "jaeschke": jaeschke, "rosenthal": rosenthal, "change_in_probability": change}, index=index)
