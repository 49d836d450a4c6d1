"""The vectorised core of the Efficiency Index family: input checks, estimates and every interval method
(private: :mod:`irtbridge.efficiency.indices` builds the public functions on it).

Every function takes float arrays ``a, b, c, d`` (TP, FP, FN, TN) of one shape; the formulas are in the
package docstring of :mod:`irtbridge.efficiency`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from scipy import special, stats

from irtbridge._validation import check_choice, check_int, check_number, check_probability, show_value
from irtbridge.efficiency.core import CI_METHODS, INDICES
from irtbridge.exceptions import ValidationError

CELLS = ("tp", "fp", "fn", "tn")
_HALDANE = 0.5
# upper bound on tables x replicates held in memory at once by the bootstrap (4 float64 cells each)
_BOOT_CHUNK = 2_000_000


# --------------------------------------------------------------------------------------------------
# input checks


def check_count(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValidationError(f"{name} must be a count (a whole number >= 0), got {show_value(value)}")
    x = float(value)
    if not np.isfinite(x) or not x.is_integer():
        raise ValidationError(f"{name} must be a count (a whole number >= 0), got {show_value(value)}")
    if x < 0:
        raise ValidationError(f"{name} must be a count (a whole number >= 0), got {show_value(value)}; counts cannot be negative")
    return int(x)


def check_count_array(values: Any, name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise ValidationError(f"{name} must hold counts (whole numbers >= 0), got {show_value(values)}")
    arr = np.asarray(values)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValidationError(
            f"{name} must hold counts (whole numbers >= 0); it holds {arr.dtype} values such as "
            f"{show_value(arr.ravel()[:3].tolist())}"
        )
    arr = np.atleast_1d(arr.astype(float))
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{name} must hold counts (whole numbers >= 0); element {i} is {arr[i]!r}")
    return arr


def check_common(level: Any, ci_method: Any, correction: Any, n_boot: Any) -> tuple[float, str, float, int]:
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


def apply_correction(cells: np.ndarray, correction: float) -> np.ndarray:
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
        draws = apply_correction(draws, correction)
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


def _family_bounds(cells, *, level, ci_method, correction, n_boot, rng) -> tuple[dict, dict, dict[str, np.ndarray]]:
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
                sa, sb, sc, sd = sub.T
                b2, _ = _closed_form(sa, sb, sc, sd, z, ci_method)
            lo2, hi2 = b2[fam]
            lo[redo] = np.fmin(lo2, x[redo])
            hi[redo] = np.fmax(hi2, x[redo])
        # an undefined estimate has no interval, whatever the method produced
        lo[np.isnan(x)] = np.nan
        hi[np.isnan(x)] = np.nan
        bounds[fam] = (lo, hi)
        fallback[fam] = redo
    return bounds, fallback, points


def index_columns(cells, *, level, ci_method, correction, n_boot, rng) -> tuple[dict, dict, dict]:
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
    fam_of = {"acc": "acc", "inacc": "acc", "ei": "odds", "ini": "odds", "bei": "bacc", "blei": "blacc", "qei": "blacc",
              "uei": "kappa"}
    used = {k: fallback[fam_of[k]] for k in INDICES}
    return out, used, g
