"""The Efficiency Index family for binary classifiers, with confidence intervals (Larner 2023, "Efficiency Index for Binary Classifiers").

Every index is a ratio ``X / (1 - X)`` of an accuracy-like quantity ``X`` to its complement, computed
from one 2 x 2 table. With ``a = TP``, ``b = FP``, ``c = FN``, ``d = TN`` and ``N = a + b + c + d``:

=========  ===============================  ==============================================
index      ``X``                            in words
=========  ===============================  ==============================================
``acc``    ``(a + d) / N``                  accuracy (fraction correct)
``inacc``  ``(b + c) / N``                  inaccuracy (error rate) ``= 1 - acc``
``ei``     ``acc``                          Efficiency Index ``(a + d) / (b + c)``
``ini``    ``acc``                          Inefficiency Index ``(b + c) / (a + d) = 1 / ei``
``bei``    ``(Sens + Spec) / 2``            balanced EI (free of the prevalence ``P``)
``blei``   ``(PPV + NPV) / 2``              balanced level EI (free of the level ``Q``)
``qei``    ``P QSens + P' QSpec``           quality EI, Kraemer's ``Q``-rescaled Sens/Spec
``uei``    ``(acc - pe) / (1 - pe)``        unbiased EI, chance agreement ``pe = PQ + P'Q'``
=========  ===============================  ==============================================

``P = (a + c) / N`` is the prevalence, ``Q = (a + b) / N`` the level of the test (Kraemer's positive
sign rate), ``P' = 1 - P`` and ``Q' = 1 - Q``. Two identities shape the intervals below: the quality
accuracy equals the markedness, ``QAcc = PPV + NPV - 1 = (ad - bc) / (N^2 Q Q')``, so
``QEI = (BLEI - 1) / 2`` exactly; and the unbiased accuracy is Cohen's kappa, so ``UEI = kappa / (1 -
kappa)``. BLEI is BEI of the transposed table (swap ``b`` and ``c``).

Confidence intervals
--------------------
``ci_method="logit"`` (the default) uses closed forms that are sound for any table without empty
cells, all built on the ``X`` scale and carried to the index by the monotone map ``X / (1 - X)``:

* ``acc``, ``inacc``, ``ei``, ``ini``: one Wald interval for the log-odds of a correct outcome,
  ``log EI +/- z sqrt(1/(a + d) + 1/(b + c))``. EI *is* the odds of a correct outcome, and
  ``a + d`` out of ``N`` is one binomial count, so this is the textbook logit interval for a
  proportion (R: ``exp(confint.default(glm(cbind(a + d, b + c) ~ 1, family = binomial)))``). The four
  intervals are transforms of each other.
* ``bei``, ``blei``: delta method on ``logit(X)``, with ``Var X = [Se(1 - Se)/(a + c) +
  Sp(1 - Sp)/(b + d)] / 4`` for BEI and the same with PPV/NPV over the test margins for BLEI, each
  ``p(1 - p)`` taken at ``(k + 0.5)/(n + 1)`` so that a proportion of 0 or 1 does not claim zero
  variance (without that, 95% intervals covered 91% with 23 cases per class).
* ``qei``: mapped from the BLEI interval through ``QEI = (BLEI - 1) / 2``.
* ``uei``: Wald interval for kappa with the large-sample variance of Fleiss, Cohen and Everitt (1969),
  clipped to ``[-1, 1]``, mapped through ``kappa / (1 - kappa)``.

``ci_method="bootstrap"`` resamples the table (multinomial, ``N`` fixed) ``n_boot`` times with the
seeded ``random_state`` and takes percentiles of every ``X``; use it for small tables where the
large-sample closed forms are doubtful.

``ci_method="larner2023"`` reproduces the intervals the paper prints: Wald ``p +/- z sqrt(p(1 - p)/N)``
for ``acc`` and ``inacc``, and for EI ``log EI +/- z SE`` with the SE printed in the paper,
``SE = sqrt(1/a - 1/(a + c) + 1/b - 1/(b + d))`` (``ini`` is its reciprocal). That SE is Katz's
formula for the log of a ratio of two independent proportions, here ``[a/(a + c)] / [b/(b + d)]`` =
``Sens / (1 - Spec)``, the positive likelihood ratio: a different statistic from ``(a + d)/(b + c)``,
so its width fits EI only by accident (for the MACE table it is 0.068 against 0.083, and a nominal
95% interval covers the true EI about 89% of the time; for a balanced table it is too wide). It is
kept to match published numbers; prefer the default. The paper prints no interval for BEI, BLEI,
QEI or UEI, so those use the default closed forms. Two printed intervals are not reproduced because
no formula yields them: Acc 0.722-0.754 is ``Acc +/- 1 SE`` (the ``z`` seems dropped; larner2023
gives the Wald 0.706-0.769, the complement of the printed Inacc 0.231-0.294), and InI 0.321-0.390
(larner2023 gives the reciprocal of the EI interval, 0.311-0.406).

Empty cells
-----------
No input raises ``ZeroDivisionError``. A perfect classifier gives ``ei = inf`` and ``ini = 0``; an
index whose ingredients are undefined (no positives, so no sensitivity) is ``nan``. Where a closed
form degenerates (a zero standard error or an estimate on the boundary), the interval is recomputed
with 0.5 added to every cell and then widened to include the estimate; the index names are listed
in ``boundary``. ``correction=c`` instead adds ``c`` to all four cells of any table that has an empty
cell (Haldane-Anscombe for ``c = 0.5``), estimates included; tables without empty cells are left alone.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from irtbridge._validation import (
    _show,
    check_binary_labels,
    check_choice,
    check_int,
    check_number,
    check_probability,
    check_random_state,
    check_same_length,
    check_scores,
)
from irtbridge.exceptions import ValidationError

__all__ = [
    "INDICES",
    "CI_METHODS",
    "Interval",
    "EfficiencyIndices",
    "efficiency_indices",
    "efficiency_indices_from_predictions",
    "efficiency_frame",
    "efficiency_by_cutoff",
    "plot_efficiency_by_cutoff",
    "classify_ei",
]

#: The eight indices, in the order every table and JSON object lists them.
INDICES = ("acc", "inacc", "ei", "ini", "bei", "blei", "qei", "uei")

#: Accepted values of ``ci_method``.
CI_METHODS = ("logit", "bootstrap", "larner2023")

_CELLS = ("tp", "fp", "fn", "tn")
_HALDANE = 0.5
# upper bound on tables x replicates held in memory at once by the bootstrap (4 float64 cells each)
_BOOT_CHUNK = 2_000_000


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
        return {"value": self.value, "lower": self.lower, "upper": self.upper}


@dataclass(frozen=True)
class EfficiencyIndices:
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
        """One row per index (``acc`` ... ``uei``), columns ``value, lower, upper``."""
        rows = [[getattr(self, k).value, getattr(self, k).lower, getattr(self, k).upper] for k in INDICES]
        return pd.DataFrame(rows, index=pd.Index(INDICES, name="index"), columns=["value", "lower", "upper"])

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{index: {"value", "lower", "upper"}}`` for the eight indices (the CLI's ``--json`` shape)."""
        return {k: getattr(self, k).to_dict() for k in INDICES}

    def classify(self) -> pd.Series:
        """Table 1 classification of this EI (see :func:`classify_ei`)."""
        return classify_ei(self.ei.value).iloc[0]

    def summary(self) -> str:
        """A plain-text report: counts, P and Q, the eight intervals, the EI classification, notes."""
        pct = f"{100 * self.level:g}%"
        lines = [
            f"Efficiency indices  TP={self.tp} FP={self.fp} FN={self.fn} TN={self.tn}  (N={self.n})",
            f"prevalence P = {_fmt(self.prevalence)}   level Q = {_fmt(self.positive_sign_rate)}",
            f"{pct} confidence intervals, ci_method={self.ci_method!r}",
            "",
            f"{'index':<7}{'value':>10}{'lower':>10}{'upper':>10}",
        ]
        for k in INDICES:
            iv = getattr(self, k)
            lines.append(f"{k:<7}{_fmt(iv.value):>10}{_fmt(iv.lower):>10}{_fmt(iv.upper):>10}")
        c = self.classify()
        if isinstance(c["jaeschke"], str):
            change = c["change_in_probability"]
            mcgee = f"; about {100 * change:+.0f} percentage points (McGee)" if np.isfinite(change) else ""
            lines += [
                "",
                f"EI {_fmt(self.ei.value)}: {c['jaeschke']} in the probability of diagnosis (Jaeschke); "
                f"{c['rosenthal']} effect size (Rosenthal){mcgee}",
            ]
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
        if notes:
            lines += ["", "Notes:"] + [f"  - {n}" for n in notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _fmt(x: float) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.3f}"


# --------------------------------------------------------------------------------------------------
# input checks


def _check_count(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValidationError(f"{name} must be a count (a whole number >= 0), got {_show(value)}")
    x = float(value)
    if not np.isfinite(x) or not x.is_integer():
        raise ValidationError(f"{name} must be a count (a whole number >= 0), got {_show(value)}")
    if x < 0:
        raise ValidationError(f"{name} must be a count (a whole number >= 0), got {_show(value)}; counts cannot be negative")
    return int(x)


def _check_count_array(values: Any, name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise ValidationError(f"{name} must hold counts (whole numbers >= 0), got {_show(values)}")
    arr = np.asarray(values)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValidationError(f"{name} must hold counts (whole numbers >= 0); it holds {arr.dtype} values such as {_show(arr.ravel()[:3].tolist())}")
    arr = np.atleast_1d(arr.astype(float))
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{name} must hold counts (whole numbers >= 0); element {i} is {arr[i]!r}")
    return arr


def _check_common(level: Any, ci_method: Any, correction: Any, n_boot: Any) -> tuple[float, str, float, int]:
    level = check_probability(level, "level", open_interval=True)
    ci_method = check_choice(ci_method, "ci_method", CI_METHODS)
    correction = check_number(correction, "correction", low=0.0)
    n_boot = check_int(n_boot, "n_boot", low=100)
    return level, ci_method, correction, n_boot


# --------------------------------------------------------------------------------------------------
# vectorised core: every function takes float arrays a, b, c, d (TP, FP, FN, TN) of one shape


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(num, den)


def _odds(x: np.ndarray) -> np.ndarray:
    """``x / (1 - x)``: 1 -> inf, and the nan of an undefined ``x`` passes through."""
    return _ratio(x, 1.0 - x)


def _ingredients(a, b, c, d) -> dict[str, np.ndarray]:
    n = a + b + c + d
    acc = _ratio(a + d, n)
    p = _ratio(a + c, n)
    q = _ratio(a + b, n)
    sens, spec = _ratio(a, a + c), _ratio(d, b + d)
    ppv, npv = _ratio(a, a + b), _ratio(d, c + d)
    # Kraemer's quality indices, as the paper defines them; QAcc equals PPV + NPV - 1 identically
    qsens, qspec = _ratio(sens - q, 1.0 - q), _ratio(spec - (1.0 - q), q)
    qacc = p * qsens + (1.0 - p) * qspec
    pe = p * q + (1.0 - p) * (1.0 - q)
    kappa = _ratio(acc - pe, 1.0 - pe)
    return {
        "n": n, "acc": acc, "p": p, "q": q, "sens": sens, "spec": spec, "ppv": ppv, "npv": npv,
        "bacc": (sens + spec) / 2.0, "blacc": (ppv + npv) / 2.0, "qacc": qacc, "pe": pe, "kappa": kappa,
    }


def _kappa_variance(g: dict[str, np.ndarray], a, b, c, d) -> np.ndarray:
    """Large-sample variance of Cohen's kappa (Fleiss, Cohen & Everitt 1969) for a 2 x 2 table."""
    n = g["n"]
    p11, p12, p21, p22 = a / n, b / n, c / n, d / n
    r1, c1 = g["q"], g["p"]  # test-positive row margin, truth-positive column margin
    r2, c2 = 1.0 - r1, 1.0 - c1
    k, pe = g["kappa"], g["pe"]
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = p11 * (1.0 - (r1 + c1) * (1.0 - k)) ** 2 + p22 * (1.0 - (r2 + c2) * (1.0 - k)) ** 2
        off = (1.0 - k) ** 2 * (p12 * (c1 + r2) ** 2 + p21 * (c2 + r1) ** 2)
        var = (diag + off - (k - pe * (1.0 - k)) ** 2) / (n * (1.0 - pe) ** 2)
    # the three terms cancel to rounding error when kappa is 1
    return np.maximum(var, 0.0)


def _mean_of_two_variance(k1, n1, k0, n0) -> np.ndarray:
    """Variance of ``(k1/n1 + k0/n0) / 2`` for two independent binomials.

    Each ``p(1 - p)`` is evaluated at ``(k + 0.5)/(n + 1)`` rather than ``k/n``: a sensitivity (or PPV)
    of exactly 1 then no longer claims zero variance, the Wald interval's best-known failure, which
    left the plain delta interval for BEI at 91% coverage with 23 cases per class.
    """
    s1 = _ratio(k1 + 0.5, n1 + 1.0)
    s0 = _ratio(k0 + 0.5, n0 + 1.0)
    return (_ratio(s1 * (1.0 - s1), n1) + _ratio(s0 * (1.0 - s0), n0)) / 4.0


def _logit_bounds(x, var, z) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(var) / (x * (1.0 - x))
        t = special.logit(x)
        lo, hi = special.expit(t - z * se), special.expit(t + z * se)
    bad = ~np.isfinite(se) | (se <= 0)
    return lo, hi, bad


def _closed_form(a, b, c, d, z: float, method: str) -> tuple[dict, dict]:
    """X-scale bounds and degeneracy masks for the families acc, odds, bacc, blacc, kappa."""
    g = _ingredients(a, b, c, d)
    n = g["n"]
    bounds, bad = {}, {}
    if method == "larner2023":
        acc = g["acc"]
        with np.errstate(invalid="ignore"):
            se = np.sqrt(acc * (1.0 - acc) / n)
        bounds["acc"] = (np.clip(acc - z * se, 0.0, 1.0), np.clip(acc + z * se, 0.0, 1.0))
        bad["acc"] = ~np.isfinite(se) | (se <= 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            se_log = np.sqrt(1.0 / a - 1.0 / (a + c) + 1.0 / b - 1.0 / (b + d))
            log_ei = np.log(a + d) - np.log(b + c)
            ei_lo, ei_hi = np.exp(log_ei - z * se_log), np.exp(log_ei + z * se_log)
        # back to the accuracy scale, where every family lives (EI = X/(1-X) <=> X = EI/(1+EI))
        bounds["odds"] = (_ratio(ei_lo, 1.0 + ei_lo), np.where(np.isinf(ei_hi), 1.0, _ratio(ei_hi, 1.0 + ei_hi)))
        bad["odds"] = ~np.isfinite(se_log) | (se_log <= 0) | ~np.isfinite(log_ei)
    else:
        lo, hi, bad["acc"] = _logit_bounds(g["acc"], g["acc"] * (1.0 - g["acc"]) / n, z)
        bounds["acc"] = (lo, hi)
        bounds["odds"], bad["odds"] = bounds["acc"], bad["acc"]
    lo, hi, bad["bacc"] = _logit_bounds(g["bacc"], _mean_of_two_variance(a, a + c, d, b + d), z)
    bounds["bacc"] = (lo, hi)
    lo, hi, bad["blacc"] = _logit_bounds(g["blacc"], _mean_of_two_variance(a, a + b, d, c + d), z)
    bounds["blacc"] = (lo, hi)
    se_k = np.sqrt(_kappa_variance(g, a, b, c, d))
    k = g["kappa"]
    bounds["kappa"] = (np.clip(k - z * se_k, -1.0, 1.0), np.clip(k + z * se_k, -1.0, 1.0))
    # at kappa = +/-1 the variance is zero up to rounding, which can leave a spurious tiny positive SE
    bad["kappa"] = ~np.isfinite(se_k) | (se_k <= 0) | (np.abs(k) >= 1)
    return bounds, bad


def _apply_correction(cells: np.ndarray, correction: float) -> np.ndarray:
    if correction <= 0:
        return cells
    has_zero = (cells == 0).any(axis=-1, keepdims=True)
    return np.where(has_zero, cells + correction, cells)


def _bootstrap(cells: np.ndarray, level: float, n_boot: int, rng: np.random.Generator, correction: float) -> tuple[dict, dict]:
    """Percentile bounds of every family from multinomial resamples of each table (rows of ``cells``)."""
    alpha = 1.0 - level
    m = cells.shape[0]
    n = np.rint(cells.sum(axis=1)).astype(np.int64)
    with np.errstate(invalid="ignore"):
        pvals = cells / cells.sum(axis=1, keepdims=True)
    fams = ("acc", "bacc", "blacc", "kappa")
    lo = {f: np.full(m, np.nan) for f in fams}
    hi = {f: np.full(m, np.nan) for f in fams}
    step = max(1, _BOOT_CHUNK // (4 * n_boot))
    for start in range(0, m, step):
        sl = slice(start, min(m, start + step))
        draws = rng.multinomial(n[sl, None], pvals[sl, None, :], size=(sl.stop - sl.start, n_boot)).astype(float)
        draws = _apply_correction(draws, correction)
        g = _ingredients(draws[..., 0], draws[..., 1], draws[..., 2], draws[..., 3])
        for f in fams:
            x = g[f]
            ok = ~np.isnan(x).all(axis=1)
            if ok.any():
                q = np.nanquantile(x[ok], [alpha / 2.0, 1.0 - alpha / 2.0], axis=1)
                lo[f][np.flatnonzero(ok) + start] = q[0]
                hi[f][np.flatnonzero(ok) + start] = q[1]
    bounds = {f: (lo[f], hi[f]) for f in fams}
    bounds["odds"] = bounds["acc"]
    points = _ingredients(*cells.T)
    points["odds"] = points["acc"]
    bad = {}
    for f, (l, h) in bounds.items():
        x = points[f]
        bad[f] = ~np.isnan(x) & ~(l < h)
    return bounds, bad


def _family_bounds(cells, *, level, ci_method, correction, n_boot, rng) -> tuple[dict, dict, np.ndarray]:
    """Bounds of the five families for the (already corrected) tables, with the empty-cell fallback."""
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    a, b, c, d = cells.T
    points = _ingredients(a, b, c, d)
    points["odds"] = points["acc"]
    if ci_method == "bootstrap":
        bounds, bad = _bootstrap(cells, level, n_boot, rng, correction)
    else:
        bounds, bad = _closed_form(a, b, c, d, z, ci_method)
    fallback = {}
    for fam, (lo, hi) in bounds.items():
        x = points[fam]
        redo = bad[fam] & ~np.isnan(x)
        lo, hi = lo.copy(), hi.copy()
        if redo.any():
            sub = cells[redo] + _HALDANE
            if ci_method == "bootstrap":
                b2, _ = _bootstrap(sub, level, n_boot, rng, 0.0)
            else:
                b2, _ = _closed_form(*sub.T, z, ci_method)
            lo2, hi2 = b2[fam]
            lo[redo] = np.fmin(lo2, x[redo])
            hi[redo] = np.fmax(hi2, x[redo])
        # an undefined estimate has no interval, whatever the method produced
        lo[np.isnan(x)] = np.nan
        hi[np.isnan(x)] = np.nan
        bounds[fam] = (lo, hi)
        fallback[fam] = redo
    return bounds, fallback, points


def _index_columns(cells, *, level, ci_method, correction, n_boot, rng) -> tuple[dict, dict, dict]:
    """Values and bounds of the eight indices, plus which indices used the fallback."""
    bounds, fallback, g = _family_bounds(cells, level=level, ci_method=ci_method, correction=correction, n_boot=n_boot, rng=rng)
    out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    acc_lo, acc_hi = bounds["acc"]
    out["acc"] = (g["acc"], acc_lo, acc_hi)
    a, b, c, d = cells.T
    # point values straight from the counts: (a + d)/(b + c) is exact where acc/(1 - acc) is not
    out["inacc"] = (_ratio(b + c, g["n"]), 1.0 - acc_hi, 1.0 - acc_lo)
    lo, hi = bounds["odds"]
    out["ei"] = (_ratio(a + d, b + c), _odds(lo), _odds(hi))
    out["ini"] = (_ratio(b + c, a + d), _ratio(1.0 - hi, hi), _ratio(1.0 - lo, lo))
    lo, hi = bounds["bacc"]
    out["bei"] = (_odds(g["bacc"]), _odds(lo), _odds(hi))
    lo, hi = bounds["blacc"]
    out["blei"] = (_odds(g["blacc"]), _odds(lo), _odds(hi))
    # QEI = (BLEI - 1)/2, so its interval is the BLEI interval carried through that map
    out["qei"] = (_odds(g["qacc"]), _odds(2.0 * lo - 1.0), _odds(2.0 * hi - 1.0))
    lo, hi = bounds["kappa"]
    out["uei"] = (_odds(g["kappa"]), _odds(lo), _odds(hi))
    # An undefined index has no interval (QEI needs Sens and Spec although its interval comes from
    # BLEI). QEI's value (from QSens/QSpec) and its bounds (from BLEI) may also differ in the last bit,
    # so the bounds are widened to hold the value.
    for k, (v, lo, hi) in out.items():
        undefined = np.isnan(v)
        out[k] = (v, np.where(undefined, np.nan, np.fmin(lo, v)), np.where(undefined, np.nan, np.fmax(hi, v)))
    fam_of = {"acc": "acc", "inacc": "acc", "ei": "odds", "ini": "odds", "bei": "bacc", "blei": "blacc", "qei": "blacc", "uei": "kappa"}
    used = {k: fallback[fam_of[k]] for k in INDICES}
    return out, used, g


# --------------------------------------------------------------------------------------------------
# public API


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
    counts = [_check_count(v, name) for v, name in zip((tp, fp, fn, tn), _CELLS)]
    if sum(counts) == 0:
        raise ValidationError("tp, fp, fn and tn are all 0; the table needs at least one case")
    level, ci_method, correction, n_boot = _check_common(level, ci_method, correction, n_boot)
    rng = check_random_state(random_state) if ci_method == "bootstrap" else None
    cells = _apply_correction(np.asarray([counts], dtype=float), correction)
    cols, used, g = _index_columns(cells, level=level, ci_method=ci_method, correction=correction, n_boot=n_boot, rng=rng)
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
        level=level,
        ci_method=ci_method,
        correction=applied,
        zero_cells=tuple(name for name, v in zip(_CELLS, counts) if v == 0),
        boundary=tuple(k for k in INDICES if used[k][0]),
        n_boot=n_boot if ci_method == "bootstrap" else None,
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

    Examples
    --------
    >>> r = efficiency_indices_from_predictions([1, 1, 0, 0, 0], [1, 0, 0, 0, 1])
    >>> (r.tp, r.fp, r.fn, r.tn), r.ei.value
    ((1, 1, 1, 2), 1.5)
    """
    return efficiency_indices(*_counts_from_labels(y_true, y_pred), **kwargs)


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
    level, ci_method, correction, n_boot, random_state
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
    arrays = [_check_count_array(v, name) for v, name in zip((tp, fp, fn, tn), _CELLS)]
    check_same_length(*zip(_CELLS, arrays))
    index = next((v.index for v in (tp, fp, fn, tn) if isinstance(v, pd.Series)), None)
    raw = np.column_stack(arrays)
    empty = raw.sum(axis=1) == 0
    if empty.any():
        raise ValidationError(f"table {int(np.flatnonzero(empty)[0])} has tp = fp = fn = tn = 0; every table needs at least one case")
    level, ci_method, correction, n_boot = _check_common(level, ci_method, correction, n_boot)
    rng = check_random_state(random_state) if ci_method == "bootstrap" else None
    return _frame(raw, index, level=level, ci_method=ci_method, correction=correction, n_boot=n_boot, rng=rng, intervals=True)


def _frame(raw, index, *, level, ci_method, correction, n_boot, rng, intervals: bool) -> pd.DataFrame:
    cells = _apply_correction(raw, correction)
    cols, used, g = _index_columns(cells, level=level, ci_method=ci_method, correction=correction, n_boot=n_boot, rng=rng)
    data: dict[str, Any] = {name: raw[:, j].astype(np.int64) for j, name in enumerate(_CELLS)}
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
    level, ci_method, correction, n_boot, random_state
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
        raise ValidationError(f"higher_is_positive must be True or False, got {_show(higher_is_positive)}")
    level, ci_method, correction, n_boot = _check_common(level, ci_method, correction, n_boot)
    rng = check_random_state(random_state) if ci_method == "bootstrap" else None
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
    return _frame(raw, index, level=level, ci_method=ci_method, correction=correction, n_boot=n_boot, rng=rng, intervals=bool(intervals))


_MARKERS = {"ei": "D", "bei": "^", "blei": "x", "qei": "*", "uei": "o", "acc": "s", "inacc": "v", "ini": "P"}
_LABELS = {"ei": "EI", "bei": "BEI", "blei": "BLEI", "qei": "QEI", "uei": "UEI", "acc": "Acc", "inacc": "Inacc", "ini": "InI"}


def plot_efficiency_by_cutoff(
    table: pd.DataFrame,
    *,
    indices: Sequence[str] = ("ei", "bei", "blei", "qei", "uei"),
    ax: Any = None,
    bands: bool = False,
    logy: bool = False,
):
    """Plot indices against the cut-off, like Figure 2 of Larner (2023).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`efficiency_by_cutoff` (index = cut-off).
    indices : sequence of str
        Which columns to draw; default the five EI variants.
    ax : matplotlib Axes, optional
        Draw into this Axes; default a new Figure.
    bands : bool, default False
        Shade the confidence bands (needs ``intervals=True`` in the table).
    logy : bool, default False
        Log scale for the y axis (EI and its variants are ratios).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> t = efficiency_by_cutoff([0, 0, 1, 1, 0, 1], [1, 2, 3, 4, 5, 6])
    >>> fig = plot_efficiency_by_cutoff(t)
    """
    if not isinstance(table, pd.DataFrame):
        raise ValidationError(f"table must be a DataFrame from efficiency_by_cutoff, got {type(table).__name__}")
    indices = [check_choice(k, "indices", INDICES) for k in ([indices] if isinstance(indices, str) else indices)]
    missing = [k for k in indices if k not in table.columns]
    if missing:
        raise ValidationError(f"table has no column(s) {', '.join(map(repr, missing))}; pass a table from efficiency_by_cutoff")
    if bands:
        missing = [f"{k}_lower" for k in indices if f"{k}_lower" not in table.columns]
        if missing:
            raise ValidationError("bands=True needs interval columns; build the table with efficiency_by_cutoff(..., intervals=True)")
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    else:
        fig = ax.figure
    x = np.asarray(table.index, dtype=float)
    order = np.argsort(x)
    for k in indices:
        y = np.asarray(table[k], dtype=float)[order]
        (line,) = ax.plot(x[order], np.where(np.isfinite(y), y, np.nan), marker=_MARKERS[k], label=_LABELS[k])
        if bands:
            lo = np.asarray(table[f"{k}_lower"], dtype=float)[order]
            hi = np.asarray(table[f"{k}_upper"], dtype=float)[order]
            ax.fill_between(x[order], lo, np.where(np.isfinite(hi), hi, np.nan), color=line.get_color(), alpha=0.15, linewidth=0)
    ax.axhline(1.0, color="0.6", linewidth=0.8, linestyle=":")
    if logy:
        ax.set_yscale("log")
    if pd.api.types.is_integer_dtype(table.index):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(str(table.index.name or "cut-off"))
    ax.set_ylabel("index value")
    ax.legend(frameon=False)
    return fig


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
        raise ValidationError(f"ei must be a number or an array of numbers, got {_show(ei)}")
    try:
        x = np.atleast_1d(np.asarray(ei, dtype=float))
    except (TypeError, ValueError):
        raise ValidationError(f"ei must be a number or an array of numbers, got {_show(ei)}") from None
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
    jaeschke = np.where(nan, None, _JAESCHKE_LABELS[np.clip(j, 0, 8)])
    rosenthal = np.where(nan, None, _ROSENTHAL_LABELS[np.clip(r, 0, 4)])
    return pd.DataFrame({"ei": x, "jaeschke": jaeschke, "rosenthal": rosenthal, "change_in_probability": change}, index=index)
