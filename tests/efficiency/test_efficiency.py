"""Tests of irtbridge.efficiency, the Efficiency Index family (Larner 2023).

Where the expected numbers come from:
* the paper's text and Tables 1-2 (MACE study, cut-off <=20/30: TP=104, FP=188, FN=10, TN=453);
* closed forms written out in the tests with exact fractions;
* scikit-learn as a peer (accuracy, balanced accuracy, Cohen's kappa, confusion matrices);
* R (live, marked ``r``): the logit interval from ``glm`` + ``confint.default``;
* seeded simulation for the coverage of the intervals.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import accuracy_score, balanced_accuracy_score, cohen_kappa_score, confusion_matrix

import irtbridge
from irtbridge.exceptions import ValidationError
from irtbridge.efficiency import (
    INDICES,
    EfficiencyIndices,
    Interval,
    classify_ei,
    efficiency_by_cutoff,
    efficiency_frame,
    efficiency_indices,
    efficiency_indices_from_predictions,
    plot_efficiency_by_cutoff,
)
from tests._rrefs import run_r

MACE = (104, 188, 10, 453)  # TP, FP, FN, TN at MACE <= 20/30 (Larner 2023, Results)
Z95 = stats.norm.ppf(0.975)

# --------------------------------------------------------------------------------------------------
# Larner (2023): the MACE result and Table 2


def test_mace_headline_numbers_under_larner2023():
    r = efficiency_indices(*MACE, ci_method="larner2023")
    # the paper prints EI and its interval to 2 decimals: +/-0.005 is its rounding
    assert r.ei.value == pytest.approx(2.81, abs=0.005)
    assert r.ei.lower == pytest.approx(2.46, abs=0.005)
    assert r.ei.upper == pytest.approx(3.21, abs=0.005)
    # InI, Acc, Inacc and the Inacc interval are printed to 3 decimals: +/-0.0005
    assert r.ini.value == pytest.approx(0.355, abs=5e-4)
    assert r.acc.value == pytest.approx(0.738, abs=5e-4)
    assert r.inacc.value == pytest.approx(0.262, abs=5e-4)
    assert r.inacc.lower == pytest.approx(0.231, abs=5e-4)
    assert r.inacc.upper == pytest.approx(0.294, abs=5e-4)
    # the paper's prevalence (Table 2 caption) is 0.151
    assert r.prevalence == pytest.approx(0.151, abs=5e-4)


def test_larner2023_ei_interval_is_the_printed_formula():
    a, b, c, d = MACE
    se = math.sqrt(1 / a - 1 / (a + c) + 1 / b - 1 / (b + d))  # Larner 2023, Sec. 1
    ei = (a + d) / (b + c)
    r = efficiency_indices(*MACE, ci_method="larner2023", level=0.9)
    z = stats.norm.ppf(0.95)
    # same formula evaluated twice in float64: only rounding error may differ
    assert r.ei.lower == pytest.approx(ei * math.exp(-z * se), rel=1e-12)
    assert r.ei.upper == pytest.approx(ei * math.exp(z * se), rel=1e-12)
    assert r.ini.lower == pytest.approx(1 / r.ei.upper, rel=1e-12)


def test_mace_table2_row_at_20():
    r = efficiency_indices(*MACE)
    # EI and UEI match the printed 3 decimals (+/-0.0005)
    assert r.ei.value == pytest.approx(2.813, abs=5e-4)
    assert r.uei.value == pytest.approx(0.605, abs=5e-4)
    # The paper rounded Sens/Spec and PPV/NPV before combining them. Its own BLEI and QEI (2.000, 0.504)
    # violate the exact identity QEI = (BLEI - 1)/2 by 0.004, so they cannot both be exact: BLEI is
    # checked to 0.01 and QEI to 0.005, the resolution of the published pair. BEI: the 0.02.
    assert r.blei.value == pytest.approx(2.000, abs=0.01)
    assert r.qei.value == pytest.approx(0.504, abs=0.005)
    assert r.bei.value == pytest.approx(4.236, abs=0.02)


# Cumulative counts at each MACE cut-off (test positive when MACE <= c), back-solved from the EI and
# BEI columns of Table 2 with N = 755 and 114 dementia cases; at <=20 they are the paper's 104/188.
MACE_TP = [114, 113, 113, 113, 113, 112, 112, 111, 108, 104, 98, 91, 84, 82, 75, 65, 55, 49, 40]
MACE_FP = [627, 605, 556, 500, 439, 379, 330, 280, 230, 188, 157, 127, 115, 88, 67, 51, 42, 36, 30]
CUTOFFS = list(range(29, 10, -1))
# Table 2: EI, BLEI, QEI, UEI (BEI was used to back-solve the counts, so it is not an independent check)
TABLE2 = np.array([
    [0.204, 1.364, 0.181, 0.006], [0.246, 1.299, 0.150, 0.015], [0.355, 1.374, 0.186, 0.043],
    [0.507, 1.432, 0.215, 0.081], [0.716, 1.500, 0.249, 0.135], [0.982, 1.564, 0.282, 0.198],
    [1.274, 1.658, 0.327, 0.272], [1.668, 1.762, 0.381, 0.368], [2.199, 1.880, 0.440, 0.484],
    [2.813, 2.000, 0.504, 0.605], [3.364, 2.086, 0.546, 0.689], [4.033, 2.194, 0.602, 0.776],
    [4.207, 2.165, 0.586, 0.745], [5.292, 2.497, 0.746, 0.934], [6.123, 2.731, 0.866, 1.012],
    [6.550, 2.876, 0.939, 0.980], [6.475, 2.831, 0.908, 0.795], [6.475, 2.846, 0.927, 0.718],
    [6.260, 2.731, 0.868, 0.567],
])


def _mace_cases() -> tuple[np.ndarray, np.ndarray]:
    """Per-patient (dementia, MACE score) consistent with the cumulative counts; <= 11 is put at 10."""
    scores = np.r_[10, np.arange(12, 31)]
    y, s = [], []
    for label, cum, total in ((1, MACE_TP, 114), (0, MACE_FP, 641)):
        upto = np.r_[cum[::-1], total]
        per = np.diff(np.r_[0, upto])
        y.append(np.full(per.sum(), label))
        s.append(np.repeat(scores, per))
    return np.concatenate(y), np.concatenate(s)


def test_table2_across_cutoffs():
    y, s = _mace_cases()
    t = efficiency_by_cutoff(y, s, cutoffs=CUTOFFS, higher_is_positive=False)
    assert list(t.index) == CUTOFFS
    assert t["tp"].tolist() == MACE_TP and t["fp"].tolist() == MACE_FP
    got = t[["ei", "blei", "qei", "uei"]].to_numpy()
    # EI is printed to 3 decimals and depends on the counts only: +/-0.0005
    np.testing.assert_allclose(got[:, 0], TABLE2[:, 0], atol=5e-4)
    # BLEI, QEI, UEI: the paper combined PPV/NPV/Q rounded beforehand; the largest gap in all 19 rows
    # is 0.006, so 0.007 is the table's resolution. One printed cell is a slip and is left out: UEI at
    # <=14 is 0.980 in the paper, but its EI, BLEI and QEI agree and the counts give 0.950.
    slip = np.zeros_like(TABLE2, dtype=bool)
    slip[CUTOFFS.index(14), 3] = True
    err = np.abs(got - TABLE2)[:, 1:]
    assert err[~slip[:, 1:]].max() < 0.007
    assert abs(got[CUTOFFS.index(14), 3] - 0.980) > 0.02


def test_paper_prevalence_is_fixed_across_cutoffs():
    y, s = _mace_cases()
    t = efficiency_by_cutoff(y, s, cutoffs=CUTOFFS, higher_is_positive=False)
    # Table 2 caption: "fixed value of P = 0.151"
    np.testing.assert_allclose(t["prevalence"], 0.151, atol=5e-4)


# --------------------------------------------------------------------------------------------------
# closed forms and peers


def test_closed_forms_with_exact_fractions():
    a, b, c, d = 7, 3, 2, 13
    n = a + b + c + d
    F = Fraction
    acc = F(a + d, n)
    sens, spec, ppv, npv = F(a, a + c), F(d, b + d), F(a, a + b), F(d, c + d)
    p, q = F(a + c, n), F(a + b, n)
    qacc = p * (sens - q) / (1 - q) + (1 - p) * (spec - (1 - q)) / q
    pe = p * q + (1 - p) * (1 - q)
    uacc = (acc - pe) / (1 - pe)
    expected = {
        "acc": acc, "inacc": 1 - acc, "ei": F(a + d, b + c), "ini": F(b + c, a + d),
        "bei": (sens + spec) / (2 - sens - spec), "blei": (ppv + npv) / (2 - ppv - npv),
        "qei": qacc / (1 - qacc), "uei": uacc / (1 - uacc),
    }
    r = efficiency_indices(a, b, c, d)
    for k, v in expected.items():
        # float64 evaluation of a rational: relative rounding error only
        assert getattr(r, k).value == pytest.approx(float(v), rel=1e-12), k
    assert (r.prevalence, r.positive_sign_rate) == (pytest.approx(float(p)), pytest.approx(float(q)))


def test_against_sklearn_on_labels():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 400)
    pred = np.where(rng.uniform(size=400) < 0.8, y, 1 - y)
    r = efficiency_indices_from_predictions(y, pred)
    tn, fp, fn, tp = confusion_matrix(y, pred).ravel()
    assert (r.tp, r.fp, r.fn, r.tn) == (tp, fp, fn, tn)
    acc, bacc, kappa = accuracy_score(y, pred), balanced_accuracy_score(y, pred), cohen_kappa_score(y, pred)
    # same quantities computed by a peer: rounding error only
    assert r.acc.value == pytest.approx(acc, rel=1e-12)
    assert r.ei.value == pytest.approx(acc / (1 - acc), rel=1e-12)
    assert r.bei.value == pytest.approx(bacc / (1 - bacc), rel=1e-12)
    assert r.uei.value == pytest.approx(kappa / (1 - kappa), rel=1e-12)
    assert r.kappa == pytest.approx(kappa, rel=1e-12)


def test_default_ei_interval_is_the_logit_interval():
    a, b, c, d = MACE
    k, m = a + d, b + c
    half = Z95 * math.sqrt(1 / k + 1 / m)
    r = efficiency_indices(*MACE)
    # closed form from the counts of correct and incorrect outcomes; float rounding only
    assert r.ei.lower == pytest.approx(k / m * math.exp(-half), rel=1e-12)
    assert r.ei.upper == pytest.approx(k / m * math.exp(half), rel=1e-12)
    assert r.acc.lower == pytest.approx(r.ei.lower / (1 + r.ei.lower), rel=1e-12)
    assert r.inacc.upper == pytest.approx(1 - r.acc.lower, rel=1e-12)
    assert r.ini.upper == pytest.approx(1 / r.ei.lower, rel=1e-12)


_R_LOGIT = r"""
args <- commandArgs(trailingOnly = TRUE)
tab <- read.csv(args[1])
level <- as.numeric(args[3])
out <- t(sapply(seq_len(nrow(tab)), function(i) {
  fit <- glm(cbind(tab$correct[i], tab$incorrect[i]) ~ 1, family = binomial,
             control = glm.control(epsilon = 1e-14, maxit = 100))
  exp(c(coef(fit), confint.default(fit, level = level)))
}))
colnames(out) <- c("ei", "lower", "upper")
write.csv(out, args[2], row.names = FALSE)
"""


@pytest.mark.r
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_default_ei_interval_matches_r_glm(tmp_path, level):
    tables = np.array([MACE, (30, 10, 5, 55), (3, 1, 2, 9), (200, 15, 20, 400)])
    pd.DataFrame({"correct": tables[:, 0] + tables[:, 3], "incorrect": tables[:, 1] + tables[:, 2]}).to_csv(
        tmp_path / "tables.csv", index=False)
    (tmp_path / "logit.R").write_text(_R_LOGIT)
    run_r(["Rscript", str(tmp_path / "logit.R"), str(tmp_path / "tables.csv"), str(tmp_path / "out.csv"), str(level)],
                   check=True, capture_output=True)
    ref = pd.read_csv(tmp_path / "out.csv")
    got = efficiency_frame(*tables.T, level=level)
    # glm's IRLS run to epsilon = 1e-14 reaches the closed form to ~1e-12; 1e-9 leaves room and still
    # catches any formula difference (those move the bounds by >1e-3)
    np.testing.assert_allclose(got["ei"], ref["ei"], rtol=1e-9)
    np.testing.assert_allclose(got["ei_lower"], ref["lower"], rtol=1e-9)
    np.testing.assert_allclose(got["ei_upper"], ref["upper"], rtol=1e-9)


def _kappa_of_cells(p):
    a, b, c, d = p
    pr, q = a + c, a + b
    pe = pr * q + (1 - pr) * (1 - q)
    return ((a + d) - pe) / (1 - pe)


@pytest.mark.parametrize("cells", [MACE, (5, 3, 7, 20), (50, 1, 2, 60)])
def test_uei_interval_uses_the_delta_method_variance_of_kappa(cells):
    # independent route: multinomial delta method with a numerical gradient of kappa
    counts = np.asarray(cells, float)
    n = counts.sum()
    p = counts / n
    h = 1e-6
    grad = np.array([(_kappa_of_cells(p + h * e) - _kappa_of_cells(p - h * e)) / (2 * h) for e in np.eye(4)])
    se = math.sqrt(grad @ (np.diag(p) - np.outer(p, p)) @ grad / n)
    k = _kappa_of_cells(p)
    lo, hi = max(k - Z95 * se, -1), min(k + Z95 * se, 1)
    r = efficiency_indices(*cells)
    # central differences with h = 1e-6 are accurate to ~1e-9 relative here
    assert r.uei.lower == pytest.approx(lo / (1 - lo), rel=1e-6)
    assert r.uei.upper == (pytest.approx(hi / (1 - hi), rel=1e-6) if hi < 1 else math.inf)


# --------------------------------------------------------------------------------------------------
# coverage by simulation (vectorised: one call on 2,000 tables)


def _true_values(p):
    a, b, c, d = p
    sens, spec, ppv, npv = a / (a + c), d / (b + d), a / (a + b), d / (c + d)
    k = _kappa_of_cells(p)
    bl = (ppv + npv) / 2
    return {"ei": (a + d) / (b + c), "bei": (sens + spec) / (2 - sens - spec), "blei": bl / (1 - bl),
            "qei": (2 * bl - 1) / (2 - 2 * bl), "uei": k / (1 - k)}


def _coverage(frame, truth):
    return {k: float(np.mean((frame[f"{k}_lower"] <= v) & (v <= frame[f"{k}_upper"]))) for k, v in truth.items()}


def test_default_intervals_cover_95_percent():
    p = np.array(MACE, float) / sum(MACE)
    tables = np.random.default_rng(20230524).multinomial(755, p, size=2000)
    cov = _coverage(efficiency_frame(*tables.T), _true_values(p))
    # 2,000 replications: the binomial SD of a 95% coverage estimate is 0.005, so 93-97% is +/-4 SD
    for k, v in cov.items():
        assert 0.93 <= v <= 0.97, (k, v)


def test_default_bei_interval_covers_with_few_cases_per_class():
    # 150 cases drawn like MACE: ~23 with dementia and Sens ~0.91, where a plain delta interval for
    # BEI covers only ~91%; the variance adjustment documented in the module restores ~95%
    p = np.array(MACE, float) / sum(MACE)
    tables = np.random.default_rng(7).multinomial(150, p, size=2000)
    cov = _coverage(efficiency_frame(*tables.T), {"bei": _true_values(p)["bei"]})
    assert 0.93 <= cov["bei"] <= 0.975, cov


def test_larner2023_interval_undercovers_the_mace_ei():
    # why it is not the default: its SE (0.068) is that of log LR+, smaller than the 0.083 of log EI,
    # so the nominal 95% covers P(|Z| < 1.96 * 0.068/0.083) ~ 0.89
    p = np.array(MACE, float) / sum(MACE)
    tables = np.random.default_rng(3).multinomial(755, p, size=2000)
    cov = _coverage(efficiency_frame(*tables.T, ci_method="larner2023"), {"ei": _true_values(p)["ei"]})
    assert 0.86 <= cov["ei"] <= 0.92, cov


def test_bootstrap_intervals_cover_and_are_seeded():
    p = np.array(MACE, float) / sum(MACE)
    tables = np.random.default_rng(5).multinomial(755, p, size=400)
    f = efficiency_frame(*tables.T, ci_method="bootstrap", n_boot=1000, random_state=1)
    cov = _coverage(f, _true_values(p))
    # 400 replications: SD of the coverage estimate is 0.011; 0.91-0.99 is about +/-3.5 SD
    for k, v in cov.items():
        assert 0.91 <= v <= 0.99, (k, v)
    again = efficiency_frame(*tables[:5].T, ci_method="bootstrap", n_boot=1000, random_state=1)
    other = efficiency_frame(*tables[:5].T, ci_method="bootstrap", n_boot=1000, random_state=2)
    pd.testing.assert_frame_equal(again, efficiency_frame(*tables[:5].T, ci_method="bootstrap", n_boot=1000, random_state=1))
    assert not np.allclose(again["ei_lower"], other["ei_lower"])


def test_bootstrap_agrees_with_closed_form_on_a_large_table():
    big = tuple(10 * x for x in MACE)
    boot = efficiency_indices(*big, ci_method="bootstrap", n_boot=4000, random_state=0).to_frame()
    closed = efficiency_indices(*big).to_frame()
    # N = 7,550: both are large-sample intervals of the same quantities; the percentile bounds carry
    # Monte Carlo error of ~1% of the width with 4,000 replicates, so 3% of the value bounds the gap
    np.testing.assert_allclose(boot[["lower", "upper"]], closed[["lower", "upper"]], rtol=0.03)


# --------------------------------------------------------------------------------------------------
# properties (hypothesis)

counts = st.integers(min_value=1, max_value=5000)


@settings(deadline=None)  # no wall-clock limit: CI cores are shared
@given(counts, counts, counts, counts)
def test_ei_times_ini_is_one(a, b, c, d):
    r = efficiency_indices(a, b, c, d)
    assert r.ei.value * r.ini.value == pytest.approx(1.0, rel=1e-12)
    assert r.ei.lower * r.ini.upper == pytest.approx(1.0, rel=1e-9)
    assert r.acc.value + r.inacc.value == pytest.approx(1.0, rel=1e-12)


@settings(deadline=None)  # no wall-clock limit: CI cores are shared
@given(counts, counts, counts, counts, st.integers(min_value=2, max_value=50))
def test_indices_invariant_to_scaling_the_table(a, b, c, d, k):
    one = efficiency_indices(a, b, c, d).to_frame()["value"]
    many = efficiency_indices(k * a, k * b, k * c, k * d).to_frame()["value"]
    np.testing.assert_allclose(many, one, rtol=1e-9)


@settings(deadline=None)  # no wall-clock limit: CI cores are shared
@given(counts, counts, st.integers(min_value=2, max_value=5000))
def test_bei_equals_ei_when_prevalence_is_half(a, b, n_class):
    # P = 0.5: as many with the condition (a + c) as without (b + d)
    a, b = min(a, n_class - 1), min(b, n_class - 1)
    r = efficiency_indices(a, b, n_class - a, n_class - b)
    assert r.prevalence == 0.5
    assert r.bei.value == pytest.approx(r.ei.value, rel=1e-9)


@settings(deadline=None)  # no wall-clock limit: CI cores are shared
@given(counts, counts, st.integers(min_value=2, max_value=5000))
def test_blei_equals_ei_when_level_is_half(a, c, n_test_pos):
    # Q = 0.5: as many test positives (a + b) as test negatives (c + d)
    a, c = min(a, n_test_pos - 1), min(c, n_test_pos - 1)
    r = efficiency_indices(a, n_test_pos - a, c, n_test_pos - c)
    assert r.positive_sign_rate == 0.5
    assert r.blei.value == pytest.approx(r.ei.value, rel=1e-9)


@settings(deadline=None)  # no wall-clock limit: CI cores are shared
@given(counts, counts, counts, counts)
def test_qei_is_half_of_blei_minus_one_and_blei_is_bei_transposed(a, b, c, d):
    r = efficiency_indices(a, b, c, d)
    assume(abs(r.blei.value) < 1e12)
    # QAcc = PPV + NPV - 1 (markedness), shown in the module notes
    assert r.qei.value == pytest.approx((r.blei.value - 1) / 2, rel=1e-9, abs=1e-12)
    t = efficiency_indices(a, c, b, d)
    assert r.blei.value == pytest.approx(t.bei.value, rel=1e-12)
    assert (r.blei.lower, r.blei.upper) == (pytest.approx(t.bei.lower, rel=1e-12), pytest.approx(t.bei.upper, rel=1e-12))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300), st.integers(0, 300),
       st.sampled_from(["logit", "larner2023"]))
def test_intervals_contain_the_estimate_and_widen_with_level(a, b, c, d, method):
    assume(a + b + c + d > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings leak out of empty cells
        lo80 = efficiency_indices(a, b, c, d, ci_method=method, level=0.8).to_frame()
        hi99 = efficiency_indices(a, b, c, d, ci_method=method, level=0.99).to_frame()
    for f in (lo80, hi99):
        ok = f["value"].notna()
        assert (f.loc[ok, "lower"] <= f.loc[ok, "value"]).all()
        assert (f.loc[ok, "value"] <= f.loc[ok, "upper"]).all()
        assert f.loc[~ok, ["lower", "upper"]].isna().all().all()
    ok = lo80["value"].notna()
    assert (hi99.loc[ok, "lower"] <= lo80.loc[ok, "lower"] + 1e-12).all()
    assert (hi99.loc[ok, "upper"] >= lo80.loc[ok, "upper"] - 1e-12).all()


# --------------------------------------------------------------------------------------------------
# empty cells and perfect classifiers


def test_perfect_classifier_is_inf_with_a_flag():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = efficiency_indices(40, 0, 0, 60)
    assert r.perfect and r.zero_cells == ("fp", "fn")
    assert r.ei.value == math.inf and r.ini.value == 0.0 and r.acc.value == 1.0
    for k in ("ei", "bei", "blei", "qei", "uei"):
        iv = getattr(r, k)
        assert iv.value == math.inf and iv.upper == math.inf and 1 < iv.lower < math.inf, k
    assert set(r.boundary) == set(INDICES)
    # the fallback adds 0.5 to every cell: logit interval on 101 correct, 1 incorrect
    assert r.ei.lower == pytest.approx(101 * math.exp(-Z95 * math.sqrt(1 / 101 + 1)), rel=1e-12)


def test_always_wrong_classifier_is_zero():
    r = efficiency_indices(0, 30, 20, 0)
    assert r.ei.value == 0.0 and r.ei.lower == 0.0 and 0 < r.ei.upper < 1
    assert r.ini.value == math.inf and r.ini.upper == math.inf


def test_undefined_variants_are_nan_not_errors():
    # nobody has the condition: sensitivity, hence BEI, is undefined; EI is still defined
    r = efficiency_indices(0, 5, 0, 45)
    assert r.ei.value == 9.0
    assert math.isnan(r.bei.value) and math.isnan(r.bei.lower) and math.isnan(r.bei.upper)
    assert math.isnan(r.sensitivity)
    assert "undefined for this table: bei" in r.summary()


def test_continuity_correction_only_touches_tables_with_an_empty_cell():
    r = efficiency_indices(10, 0, 2, 20, correction=0.5)
    assert r.correction == 0.5
    # Haldane-Anscombe: 0.5 added to all four cells
    assert r.ei.value == pytest.approx((10.5 + 20.5) / (0.5 + 2.5), rel=1e-12)
    assert math.isfinite(r.blei.value) and r.boundary == ()
    plain = efficiency_indices(*MACE, correction=0.5)
    assert plain.correction == 0.0 and plain.ei.value == pytest.approx(557 / 198, rel=1e-12)


def test_zero_cells_in_a_frame_and_bootstrap_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = efficiency_frame([0, 10, 5], [0, 0, 5], [5, 0, 5], [5, 10, 0], ci_method="bootstrap", n_boot=200, random_state=0)
    assert f.loc[1, "ei"] == math.inf and f.loc[1, "ei_upper"] == math.inf
    assert f.loc[1, "boundary"] != ""
    assert math.isnan(f.loc[0, "bei"]) is False and f.loc[0, "ei"] == 5 / 5


# --------------------------------------------------------------------------------------------------
# bad input: one test per class


@pytest.mark.parametrize("bad", [-1, -3.0])
def test_negative_count_is_an_error(bad):
    with pytest.raises(ValidationError, match=r"tn must be a count .*cannot be negative"):
        efficiency_indices(1, 2, 3, bad)


@pytest.mark.parametrize("bad", [2.5, 1e-3])
def test_fractional_count_is_an_error(bad):
    with pytest.raises(ValidationError, match=r"fp must be a count \(a whole number >= 0\), got"):
        efficiency_indices(1, bad, 3, 4)


@pytest.mark.parametrize("bad", ["10", None, True, [3], float("nan"), float("inf")])
def test_non_numeric_count_is_an_error(bad):
    with pytest.raises(ValidationError, match=r"tp must be a count"):
        efficiency_indices(bad, 2, 3, 4)


def test_empty_table_is_an_error():
    with pytest.raises(ValidationError, match="all 0"):
        efficiency_indices(0, 0, 0, 0)
    with pytest.raises(ValidationError, match="table 1 has tp = fp = fn = tn = 0"):
        efficiency_frame([1, 0], [1, 0], [1, 0], [1, 0])


def test_bad_count_arrays_are_errors():
    with pytest.raises(ValidationError, match="element 1 is 2.5"):
        efficiency_frame([1, 2.5], [1, 1], [1, 1], [1, 1])
    with pytest.raises(ValidationError, match="fn must hold counts"):
        efficiency_frame([1, 2], [1, 1], ["a", "b"], [1, 1])
    with pytest.raises(ValidationError, match="lengths differ"):
        efficiency_frame([1, 2], [1, 1], [1], [1, 1])


def test_bad_options_are_errors():
    with pytest.raises(ValidationError, match="level must be < 1"):
        efficiency_indices(*MACE, level=1.0)
    with pytest.raises(ValidationError, match="ci_method='wald' is not supported"):
        efficiency_indices(*MACE, ci_method="wald")
    with pytest.raises(ValidationError, match="correction must be >= 0"):
        efficiency_indices(*MACE, correction=-0.5)
    with pytest.raises(ValidationError, match="n_boot must be >= 100"):
        efficiency_indices(*MACE, ci_method="bootstrap", n_boot=10)
    with pytest.raises(ValidationError, match="random_state"):
        efficiency_indices(*MACE, ci_method="bootstrap", random_state="x")


def test_bad_labels_and_scores_are_errors():
    with pytest.raises(ValidationError, match="y_pred must hold only the labels 0 and 1"):
        efficiency_indices_from_predictions([0, 1], [0, 2])
    with pytest.raises(ValidationError, match="lengths differ"):
        efficiency_indices_from_predictions([0, 1, 1], [0, 1])
    with pytest.raises(ValidationError, match="scores has 1 missing"):
        efficiency_by_cutoff([0, 1], [0.1, np.nan])
    with pytest.raises(ValidationError, match="cutoffs must be numeric"):
        efficiency_by_cutoff([0, 1], [0.1, 0.2], cutoffs=["high"])


# --------------------------------------------------------------------------------------------------
# Table 1 classification


def test_classification_matches_table1():
    c = classify_ei([0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 10.0, 40.0])
    # Table 1 rows without ambiguity: <=0.1, 0.2, 0.5, 1.0 (no label), 2.0, >=10
    assert c["jaeschke"].tolist() == [
        "very large decrease", "very large decrease", "large decrease", "moderate decrease",
        "no change", "moderate increase", "very large increase", "very large increase",
    ]
    # Rosenthal: ~1.5 small, ~2.5 medium, ~4 large, >=10 very large
    assert classify_ei([1.5, 2.5, 4.0, 10.0, 1.2])["rosenthal"].tolist() == ["small", "medium", "large", "very large", "negligible"]
    # reciprocal EI values have the same effect size
    assert classify_ei([0.25])["rosenthal"].tolist() == ["large"]


def test_mcgee_change_in_probability():
    c = classify_ei([0.1, 0.2, 0.5, 2.0, 5.0, 10.0])
    # the formula 0.19 ln(EI), exactly
    np.testing.assert_allclose(c["change_in_probability"], 0.19 * np.log([0.1, 0.2, 0.5, 2.0, 5.0, 10.0]), rtol=1e-15)
    # Table 1's column (-45, -30, -15, +15, +30, +45 %) is McGee's rounding to 15-point steps: 0.02
    np.testing.assert_allclose(c["change_in_probability"], [-0.45, -0.30, -0.15, 0.15, 0.30, 0.45], atol=0.02)


def test_classification_edge_values_and_labels():
    s = pd.Series([math.inf, 0.0, math.nan], index=["perfect", "wrong", "unknown"])
    c = classify_ei(s)
    assert list(c.index) == ["perfect", "wrong", "unknown"]
    assert c.loc["perfect", "jaeschke"] == "very large increase" and c.loc["wrong", "jaeschke"] == "very large decrease"
    assert c.loc["unknown", "jaeschke"] is None
    with pytest.raises(ValidationError, match="ei must be >= 0"):
        classify_ei(-1.0)
    with pytest.raises(ValidationError, match="ei must be a number"):
        classify_ei("high")


# --------------------------------------------------------------------------------------------------
# result objects, frames, cut-off tables, plots


def test_result_is_frozen_and_shapes_are_fixed():
    r = efficiency_indices(*MACE)
    assert isinstance(r, EfficiencyIndices) and isinstance(r.ei, Interval)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.tp = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.ei.value = 5
    f = r.to_frame()
    assert list(f.index) == list(INDICES) and list(f.columns) == ["value", "lower", "upper"]
    d = r.to_dict()
    assert list(d) == list(INDICES) and all(set(v) == {"value", "lower", "upper"} for v in d.values())
    json.dumps(d)
    assert "P = 0.151" in r.summary() and "moderate increase" in r.summary()
    assert r.classify()["rosenthal"] == "medium"


def test_frame_rows_equal_single_tables_and_keep_labels():
    tp = pd.Series([104, 30, 40], index=["mace", "b", "perfect"])
    f = efficiency_frame(tp, [188, 10, 0], [10, 5, 0], [453, 55, 60])
    assert list(f.index) == ["mace", "b", "perfect"]
    one = efficiency_indices(30, 10, 5, 55).to_frame()
    for k in INDICES:
        assert f.loc["b", k] == one.loc[k, "value"]
        assert (f.loc["b", f"{k}_lower"], f.loc["b", f"{k}_upper"]) == (one.loc[k, "lower"], one.loc[k, "upper"])
    assert f.loc["perfect", "boundary"] == ",".join(INDICES)


def test_cutoff_counts_match_sklearn_at_every_threshold():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(y, 1.0), 1)
    t = efficiency_by_cutoff(y, pd.Series(s))
    assert list(t.index) == sorted(set(s))
    for cut in t.index[::7]:
        tn, fp, fn, tp = confusion_matrix(y, (s >= cut).astype(int), labels=[0, 1]).ravel()
        assert tuple(t.loc[cut, ["tp", "fp", "fn", "tn"]]) == (tp, fp, fn, tn)
        tn, fp, fn, tp = confusion_matrix(y, (s <= cut).astype(int), labels=[0, 1]).ravel()
        low = efficiency_by_cutoff(y, s, cutoffs=[cut], higher_is_positive=False)
        assert tuple(low.iloc[0][["tp", "fp", "fn", "tn"]]) == (tp, fp, fn, tn)


def test_cutoff_table_with_intervals():
    y, s = _mace_cases()
    t = efficiency_by_cutoff(y, s, cutoffs=[20], higher_is_positive=False, intervals=True, ci_method="larner2023")
    assert t.index.dtype.kind == "i"
    assert t.loc[20, "ei_lower"] == pytest.approx(2.46, abs=0.005)  # the paper's interval, 2 decimals
    assert {f"{k}_{s}" for k in INDICES for s in ("lower", "upper")} <= set(t.columns)


def test_plot_like_figure2():
    y, s = _mace_cases()
    t = efficiency_by_cutoff(y, s, cutoffs=CUTOFFS, higher_is_positive=False, intervals=True)
    ax = plot_efficiency_by_cutoff(t)
    assert [l.get_label() for l in ax.get_lines()][:5] == ["EI", "BEI", "BLEI", "QEI", "UEI"]
    np.testing.assert_array_equal(np.sort(ax.get_lines()[0].get_xdata()), sorted(CUTOFFS))
    ax2 = plot_efficiency_by_cutoff(t, indices=["ei"], bands=True, logy=True)
    assert ax2.get_yscale() == "log"
    assert plot_efficiency_by_cutoff(t, ax=ax2) is ax2
    with pytest.raises(ValidationError, match="intervals=True"):
        plot_efficiency_by_cutoff(t[["ei"]], indices=["ei"], bands=True)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_public_names_are_lazy_and_r_free(fresh_python):
    assert irtbridge.efficiency_indices is efficiency_indices
    code = "import irtbridge, sys; irtbridge.efficiency_indices(1, 2, 3, 4); irtbridge.efficiency.classify_ei(2.0); print('rpy2' in sys.modules)"
    out = fresh_python.run(code, check=True)
    assert out.stdout.strip() == "False"
