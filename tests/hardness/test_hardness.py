"""Tests of irtbridge.hardness (Prudêncio, "Cost Sensitive Evaluation of Instance Hardness in Machine Learning").

References, in order of strength:
* Prudêncio's cost-sensitive hardness paper Table 1 and the facts the paper states about it (Sect. 3.3 and 4);
* the definition itself: each instance cost curve is rebuilt here from first principles (a threshold
  chosen per cost proportion, ties resolved by a randomised threshold that achieves the desired rate in
  expectation) and integrated numerically with scipy's quad; the closed forms must match it;
* R's rank(ties.method = "max" / "min") for the positive rates (live R, marked ``r``);
* scikit-learn's own cross_val_predict for the out-of-fold scores (a peer);
* invariants checked with hypothesis.
No expected value below is taken from irtbridge's own output.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.hardness import (
    METHODS,
    PoolHardness,
    class_cost_curves,
    class_hardness,
    default_estimators,
    hardness_by_model,
    hardness_from_estimators,
    hardness_table,
    instance_cost_curves,
    instance_hardness,
    plot_cost_curves,
    plot_hardness_map,
    positive_rate,
)
from tests._rrefs import run_r

# ------------------------------------------------------------------------------------------------
# Prudêncio's cost-sensitive hardness paper, Table 1: 10 instances, 4 models; x1..x4 are class 1 ("negative"), x5..x10 class 0
# ------------------------------------------------------------------------------------------------
NAMES = [f"x{i}" for i in range(1, 11)]
Y1 = pd.Series([1, 1, 1, 1, 0, 0, 0, 0, 0, 0], index=NAMES)
T1 = pd.DataFrame(
    [
        [0.70, 0.80, 0.80, 0.70, 0.80, 0.75, 0.10, 0.55, 0.80, 0.15],
        [0.60, 1.00, 0.95, 0.25, 0.68, 0.64, 0.37, 0.30, 0.72, 0.25],
        [0.00, 1.00, 0.93, 0.91, 0.78, 0.83, 0.78, 0.95, 1.00, 0.87],
        [0.65, 0.90, 0.88, 0.48, 0.74, 0.70, 0.24, 0.43, 0.76, 0.20],
    ],
    index=["m1", "m2", "m3", "m4"],
    columns=NAMES,
)


def test_table1_positive_rate_of_x6_under_m1():
    # Sect. 3.3: "R(0.75) = 0.6 ... previous observed positive rate is 0.5"
    rates = positive_rate(T1.loc["m1"])
    assert rates.loc["x6", "rate"] == 0.6
    assert rates.loc["x6", "previous_rate"] == 0.5
    assert rates.loc["x6", "ties"] == 1
    # Fig. 4: x4 under m1 has R(0.7) = 0.5 and, two instances sharing 0.7, previous rate 0.3
    assert rates.loc["x4", "rate"] == 0.5
    assert rates.loc["x4", "previous_rate"] == 0.3
    assert rates.loc["x4", "ties"] == 2


def test_table1_rd_closed_forms_eq22_eq26():
    # Eq. 22 with R = 0.6, l/n = 0.1 for x6 (class 0); Eq. 26 with R = 0.5, l/n = 0.2 for x4 (class 1)
    eq22 = 0.6**2 + 0.1 * (0.1 / 3 - 0.6)
    eq26 = (1 - 0.5) ** 2 + 0.2 * (0.2 / 3 + (1 - 0.5))
    per_model = hardness_by_model(Y1, T1, "rd")
    # tolerance: the two sides are different float expressions of the same rational number
    assert per_model.loc["x6", "m1"] == pytest.approx(eq22, abs=1e-14)
    assert per_model.loc["x4", "m1"] == pytest.approx(eq26, abs=1e-14)


@pytest.mark.parametrize("method", ["sf", "sd", "rd"])
def test_table1_hardest_instances(method):
    # Sect. 4 / Figs. 5-6: x1 and x4 are the hardest class-1 instances; x5, x6, x9 the hardest class-0
    h = instance_hardness(Y1, T1, method)
    neg = h[Y1 == 1].sort_values(ascending=False, kind="stable")
    pos = h[Y1 == 0].sort_values(ascending=False, kind="stable")
    assert set(neg.index[:2]) == {"x1", "x4"}
    assert neg.iloc[1] > neg.iloc[2]
    assert set(pos.index[:3]) == {"x5", "x6", "x9"}
    assert pos.iloc[2] > pos.iloc[3]


def test_table1_x1_harder_than_x4_under_rd():
    # Sect. 4: "x1 is even harder to rank, given the RD hardness"
    h = instance_hardness(Y1, T1, "rd")
    assert h["x1"] > h["x4"]


def test_table1_class_hardness_sf_exact():
    # Counted by hand from Table 1 at t = 0.5: class 1 misclassified (s <= 0.5) 0+1+1+1 = 3 of 16
    # model-instance pairs; class 0 misclassified (s > 0.5) 4+3+6+3 = 16 of 24.
    ch = class_hardness(Y1, T1, "sf")
    assert ch[1] == pytest.approx(3 / 16, abs=1e-15)
    assert ch[0] == pytest.approx(16 / 24, abs=1e-15)


def test_table1_class_balance_by_method():
    # Sect. 4 / Fig. 7: class 0 clearly harder under SF and SD, close to balanced under RD
    ch = {m: class_hardness(Y1, T1, m) for m in ("sf", "sd", "rd")}
    assert ch["sf"][0] - ch["sf"][1] > 0.25
    assert ch["sd"][0] - ch["sd"][1] > 0.25
    # "more balanced": the RD gap is under a tenth of the SF and SD gaps
    gap_rd = abs(ch["rd"][0] - ch["rd"][1])
    assert gap_rd < 0.1 * min(ch["sf"][0] - ch["sf"][1], ch["sd"][0] - ch["sd"][1])


def test_table1_sd_and_su_are_squared_and_absolute_error():
    # Eqs. 16/18 and 28/30: (y - s)^2 and |y - s| averaged over the four models
    s = T1.to_numpy()
    y = Y1.to_numpy()
    np.testing.assert_allclose(instance_hardness(Y1, T1, "sd").to_numpy(), ((y - s) ** 2).mean(axis=0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(instance_hardness(Y1, T1, "su").to_numpy(), np.abs(y - s).mean(axis=0), rtol=0, atol=1e-15)


# ------------------------------------------------------------------------------------------------
# reference: the instance cost curves rebuilt from the definitions, integrated numerically
# ------------------------------------------------------------------------------------------------


class _RefModel:
    """One model's scores with the instance cost curves of Prudêncio's cost-sensitive hardness paper written out from the definitions.

    The rate-driven threshold for a desired positive rate ``r`` is built from the achievable rates by
    plain loops: between two achievable rates r_lo < r < r_hi the threshold is the lower score u_lo
    with probability (r_hi - r)/(r_hi - r_lo) and u_hi otherwise, so that the expected positive rate is
    exactly ``r``. No sorting tricks, no closed forms."""

    def __init__(self, scores, y, t):
        self.s, self.y, self.t = list(scores), list(y), t
        n = len(self.s)
        distinct = sorted(set(self.s))
        cum = [sum(1 for v in self.s if v <= u) / n for u in distinct]
        self.levels = [(-np.inf, 0.0)] + list(zip(distinct, cum))
        self.rate_cuts = [r for _, r in self.levels]
        self._ru = {}

    def p_neg_at_rate(self, i, rate):
        v = self.s[i]
        for (u_lo, r_lo), (u_hi, r_hi) in zip(self.levels[:-1], self.levels[1:]):
            if r_lo <= rate <= r_hi:
                w_lo = (r_hi - rate) / (r_hi - r_lo)
                return w_lo * (v > u_lo) + (1 - w_lo) * (v > u_hi)
        raise AssertionError("rate outside [0, 1]")

    def p_neg(self, method, i, c):
        """Probability that instance i is predicted class 1 (s > threshold) at cost proportion c."""
        s = self.s[i]
        if method == "sf":
            return float(s > self.t)
        if method == "sd":
            return float(s > c)  # T(c) = c; predicted class 0 when s <= T
        if method == "su":
            # T ~ U[0, 1], independent of c
            return integrate.quad(lambda u: float(s > u), 0, 1, points=[s])[0]
        if method == "rd":
            return self.p_neg_at_rate(i, c)
        if method == "ru":
            # the desired rate r ~ U[0, 1], independent of c, so integrate once per instance
            if i not in self._ru:
                self._ru[i] = integrate.quad(
                    lambda r: self.p_neg_at_rate(i, r), 0, 1, points=self.rate_cuts[1:-1], limit=200
                )[0]
            return self._ru[i]
        raise AssertionError(method)

    def curve(self, method, i, c):
        p = self.p_neg(method, i, c)
        return 2 * c * p if self.y[i] == 0 else 2 * (1 - c) * (1 - p)

    def hardness(self, method, i):
        breaks = [b for b in sorted(set(self.rate_cuts) | set(self.s) | {self.t}) if 0 < b < 1]
        return integrate.quad(lambda c: self.curve(method, i, c), 0, 1, points=breaks, limit=200)[0]


# Table 1 has ties (0.8 four times under m1, 1.0 twice under m2 and m3); the second pool is built on a
# 0.1 grid so that almost every score is tied, with several models and both classes.
_RNG = np.random.default_rng(20240515)
Y_TIES = _RNG.integers(0, 2, 14)
S_TIES = np.round(_RNG.uniform(size=(3, 14)), 1)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("data", ["table1", "ties"])
def test_closed_forms_match_numeric_integration(method, data):
    y, pool = (Y1.to_numpy(), T1.to_numpy()) if data == "table1" else (Y_TIES, S_TIES)
    t = 0.5 if data == "table1" else 0.3  # 0.3 is itself a score in the tied pool: boundary s == t
    models = [_RefModel(row, y, t) for row in pool]
    expected = np.array([np.mean([m.hardness(method, i) for m in models]) for i in range(len(y))])
    got = instance_hardness(y, pool, method, threshold=t).to_numpy()
    # tolerance: quad integrates piecewise polynomials split at every breakpoint; its error is ~1e-13
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_cost_curves_match_definition_pointwise(method):
    grid = np.linspace(0, 1, 41)  # includes c = 0.3, equal to tied scores: the boundary rule s <= T(c)
    y, pool, t = Y_TIES, S_TIES, 0.3
    models = [_RefModel(row, y, t) for row in pool]
    expected = np.array([[np.mean([m.curve(method, i, c) for m in models]) for c in grid] for i in range(len(y))])
    got = instance_cost_curves(y, pool, method, c=grid, threshold=t).to_numpy()
    # tolerance: the reference differs only by float rounding (and quad for su/ru, error ~1e-13)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    # class cost curves are the class means of the instance curves (Sect. 4, Fig. 7)
    classes = class_cost_curves(y, pool, method, c=grid, threshold=t).to_numpy()
    np.testing.assert_allclose(classes[0], expected[y == 0].mean(axis=0), rtol=0, atol=1e-9)
    np.testing.assert_allclose(classes[1], expected[y == 1].mean(axis=0), rtol=0, atol=1e-9)


def test_rd_tends_to_continuous_formula_without_ties():
    # Eqs. 20 and 24: for large n and distinct scores, R^2 and (1 - R)^2
    rng = np.random.default_rng(3)
    n = 20000
    s = rng.permutation(n) / (n - 1)
    y = rng.integers(0, 2, n)
    rate = (np.argsort(np.argsort(s)) + 1) / n
    expected = np.where(y == 0, rate**2, (1 - rate) ** 2)
    # tolerance: the correction d(d/3 -/+ ...) is at most 1/n in absolute value
    np.testing.assert_allclose(instance_hardness(y, s, "rd").to_numpy(), expected, rtol=0, atol=1 / n)


@pytest.mark.r
def test_positive_rate_matches_r_rank(tmp_path):
    rng = np.random.default_rng(11)
    s = np.round(rng.beta(2, 5, size=3000), 2)  # many ties
    pd.DataFrame({"s": s}).to_csv(tmp_path / "s.csv", index=False)
    script = tmp_path / "rank.R"
    script.write_text(
        'a <- commandArgs(TRUE); s <- read.csv(a[1])$s\n'
        'write.csv(data.frame(hi = rank(s, ties.method = "max"), lo = rank(s, ties.method = "min")), a[2], row.names = FALSE)\n'
    )
    run_r(["Rscript", str(script), str(tmp_path / "s.csv"), str(tmp_path / "r.csv")], check=True, capture_output=True)
    ref = pd.read_csv(tmp_path / "r.csv")
    got = positive_rate(s)
    n = len(s)
    # exact: both are counts divided by n
    np.testing.assert_array_equal(got["rate"].to_numpy(), ref["hi"].to_numpy() / n)
    np.testing.assert_array_equal(got["previous_rate"].to_numpy(), (ref["lo"].to_numpy() - 1) / n)
    np.testing.assert_array_equal(got["ties"].to_numpy(), ref["hi"].to_numpy() - ref["lo"].to_numpy() + 1)


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------

_grid_scores = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])
_any_scores = st.floats(0, 1, allow_nan=False)


@st.composite
def pools(draw, tied=None):
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 4))
    elem = draw(st.sampled_from([_grid_scores, _any_scores])) if tied is None else (_grid_scores if tied else _any_scores)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(draw(st.lists(st.lists(elem, min_size=n, max_size=n), min_size=m, max_size=m)))
    return y, s


@settings(max_examples=60, deadline=None)
@given(pools())
def test_property_ranges_and_pool_average(data):
    y, s = data
    for method in METHODS:
        h = instance_hardness(y, s, method).to_numpy()
        assert np.all((h >= 0) & (h <= 1 + 1e-12))
        singles = np.mean([instance_hardness(y, row, method).to_numpy() for row in s], axis=0)
        # the pool hardness is the mean of the single-model hardness values
        np.testing.assert_allclose(h, singles, rtol=0, atol=1e-12)
        curves = instance_cost_curves(y, s, method, c=np.linspace(0, 1, 11)).to_numpy()
        assert np.all((curves >= 0) & (curves <= 2 + 1e-12))


@settings(max_examples=60, deadline=None)
@given(pools())
def test_property_uncertainty_never_lowers_hardness(data):
    # squared error <= absolute error and, with a = R - l/n <= R <= 1, (a^2 + aR + R^2)/3 <= (a + R)/2:
    # not knowing c (su, ru) never makes an instance easier than knowing it (sd, rd) (Sect. 4)
    y, s = data
    assert np.all(instance_hardness(y, s, "sd") <= instance_hardness(y, s, "su") + 1e-12)
    assert np.all(instance_hardness(y, s, "rd") <= instance_hardness(y, s, "ru") + 1e-12)


@settings(max_examples=60, deadline=None)
@given(pools(tied=True))
def test_property_rate_methods_depend_on_ranks_only(data):
    # rd and ru use the positive rate only: a strictly increasing map of the scores changes nothing
    # (scores on a coarse grid, so that float rounding cannot merge two distinct transformed scores)
    y, s = data
    for method in ("rd", "ru"):
        np.testing.assert_allclose(
            instance_hardness(y, np.sqrt(s), method), instance_hardness(y, s, method), rtol=0, atol=1e-12
        )


@settings(max_examples=60, deadline=None)
@given(pools(tied=True))
def test_property_swapping_classes_and_scores(data):
    # relabelling y -> 1 - y with s -> 1 - s swaps the roles of the classes and of c and 1 - c; the
    # area under every cost curve is unchanged (sf is excluded: its tie rule s <= t is one-sided).
    # Grid scores: for arbitrary floats 1 - s can round two distinct scores into a tie.
    y, s = data
    for method in ("sd", "rd", "su", "ru"):
        np.testing.assert_allclose(
            instance_hardness(1 - y, 1 - s, method), instance_hardness(y, s, method), rtol=0, atol=1e-12
        )


@settings(max_examples=40, deadline=None)
@given(pools(), st.randoms(use_true_random=False))
def test_property_permutation_equivariance(data, rnd):
    y, s = data
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    for method in METHODS:
        np.testing.assert_allclose(
            instance_hardness(y[perm], s[:, perm], method).to_numpy(),
            instance_hardness(y, s, method).to_numpy()[perm],
            rtol=0,
            atol=1e-12,
        )


@settings(max_examples=40, deadline=None)
@given(pools())
def test_property_linear_curves_integrate_exactly(data):
    # sf, su and ru curves are linear in c, so the trapezoid rule on any grid gives the exact area
    y, s = data
    grid = np.linspace(0, 1, 5)
    for method in ("sf", "su", "ru"):
        curves = instance_cost_curves(y, s, method, c=grid).to_numpy()
        area = np.trapz(curves, grid, axis=1)
        np.testing.assert_allclose(area, instance_hardness(y, s, method).to_numpy(), rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# pandas in / out
# ------------------------------------------------------------------------------------------------


def test_outputs_are_indexed_like_y():
    h = instance_hardness(Y1, T1, "rd")
    assert isinstance(h, pd.Series) and h.name == "rd" and h.index.equals(Y1.index)
    ch = class_hardness(Y1, T1, "rd")
    assert ch.index.tolist() == [0, 1] and ch.index.name == "class"
    tab = hardness_table(Y1, T1)
    assert tab.columns.tolist() == ["label", *METHODS] and tab.index.equals(Y1.index)
    assert tab["label"].tolist() == Y1.tolist()
    per = hardness_by_model(Y1, T1, "sd")
    assert per.columns.tolist() == ["m1", "m2", "m3", "m4"] and per.index.equals(Y1.index)
    curves = instance_cost_curves(Y1, T1, "rd", c=[0, 0.5, 1])
    assert curves.index.equals(Y1.index) and curves.columns.tolist() == [0, 0.5, 1]
    # numpy input: a RangeIndex
    assert instance_hardness(Y1.to_numpy(), T1.to_numpy(), "rd").index.equals(pd.RangeIndex(10))


def test_single_model_series_and_vector_agree():
    a = instance_hardness(Y1, T1.loc["m2"], "rd")
    b = instance_hardness(Y1.to_numpy(), T1.loc["m2"].to_numpy(), "rd")
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())


def test_default_grid_is_101_points():
    curves = instance_cost_curves(Y1, T1, "sd")
    np.testing.assert_allclose(curves.columns.to_numpy(dtype=float), np.linspace(0, 1, 101), rtol=0, atol=0)


def test_absent_class_gives_nan_and_a_warning():
    with pytest.warns(DataWarning, match="class 1"):
        ch = class_hardness([0, 0, 0], [0.1, 0.5, 0.9], "sd")
    assert np.isnan(ch[1])
    assert ch[0] == pytest.approx((0.01 + 0.25 + 0.81) / 3, abs=1e-15)


# ------------------------------------------------------------------------------------------------
# bad input: one test per class
# ------------------------------------------------------------------------------------------------


def test_bad_labels_outside_0_1():
    with pytest.raises(ValidationError, match="only the labels 0 and 1"):
        instance_hardness([0, 2], [0.1, 0.2])


def test_bad_labels_strings():
    with pytest.raises(ValidationError, match="y must be numeric"):
        instance_hardness(["Good", "Bad"], [0.1, 0.2])


def test_bad_labels_missing():
    with pytest.raises(ValidationError, match="missing"):
        instance_hardness([0, np.nan], [0.1, 0.2])


def test_bad_scores_outside_unit_interval():
    with pytest.raises(ValidationError, match=r"scores must lie in \[0.0, 1.0\]"):
        instance_hardness([0, 1], [0.1, 1.2])


def test_bad_scores_nan():
    with pytest.raises(ValidationError, match="missing or infinite"):
        instance_hardness([0, 1], [[0.1, np.nan]])


def test_bad_length_mismatch():
    with pytest.raises(ValidationError, match="y has 3 instances but scores has 2"):
        instance_hardness([0, 1, 1], [0.1, 0.2])


def test_bad_pool_orientation():
    # a (n_instances, n_models) array is the common mistake; the message names the fix
    with pytest.raises(ValidationError, match=r"pass scores\.T"):
        instance_hardness(Y1.to_numpy(), T1.to_numpy().T)
    with pytest.raises(ValidationError, match=r"pass scores\.T"):
        instance_hardness(Y1, T1.T)


def test_bad_misaligned_pandas_index():
    with pytest.raises(ValidationError, match="do not match the index of y"):
        instance_hardness(Y1, T1.iloc[:, ::-1])
    with pytest.raises(ValidationError, match="does not match the index of y"):
        instance_hardness(Y1, T1.loc["m1"].reset_index(drop=True))


def test_bad_scores_dimensions():
    with pytest.raises(ValidationError, match="got shape"):
        instance_hardness([0, 1], np.zeros((1, 1, 2)))


def test_bad_method():
    with pytest.raises(ValidationError, match="method='auc' is not supported"):
        instance_hardness([0, 1], [0.1, 0.2], method="auc")
    assert instance_hardness([0, 1], [0.1, 0.2], method="RD").name == "rd"  # case-insensitive


def test_bad_threshold():
    with pytest.raises(ValidationError, match="threshold must be <= 1"):
        instance_hardness([0, 1], [0.1, 0.2], method="sf", threshold=1.5)


def test_bad_cost_grid():
    with pytest.raises(ValidationError, match=r"c must hold cost proportions in \[0, 1\]"):
        instance_cost_curves([0, 1], [0.1, 0.2], c=[0.5, 1.5])
    with pytest.raises(ValidationError, match="non-empty 1-D"):
        instance_cost_curves([0, 1], [0.1, 0.2], c=[])


def test_bad_empty_input():
    with pytest.raises(ValidationError, match="empty"):
        instance_hardness([], [])


def test_bad_methods_list():
    with pytest.raises(ValidationError, match="twice"):
        hardness_table([0, 1], [0.1, 0.2], methods=["rd", "rd"])


# ------------------------------------------------------------------------------------------------
# out-of-fold scores from scikit-learn estimators
# ------------------------------------------------------------------------------------------------


def _toy_data(n=90):
    from sklearn.datasets import make_classification

    X, y = make_classification(n, 5, n_informative=3, random_state=1)
    return pd.DataFrame(X, index=[f"r{i}" for i in range(n)]), pd.Series(y, index=[f"r{i}" for i in range(n)])


def test_from_estimators_matches_cross_val_predict():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    X, y = _toy_data()
    splitter = StratifiedKFold(4, shuffle=True, random_state=5)
    res = hardness_from_estimators(X, y, {"nb": GaussianNB(), "lr": LogisticRegression()}, cv=splitter)
    for name, est in [("nb", GaussianNB()), ("lr", LogisticRegression())]:
        ref = cross_val_predict(est, X.to_numpy(), y.to_numpy(), cv=splitter, method="predict_proba")[:, 1]
        # tolerance: the same deterministic fits in the same order, so equal to rounding
        np.testing.assert_allclose(res.scores.loc[name].to_numpy(), ref, rtol=0, atol=1e-12)
    assert res.scores.columns.equals(y.index) and res.y.index.equals(y.index)
    np.testing.assert_allclose(res.class_hardness("sd"), class_hardness(y, res.scores, "sd"), rtol=0, atol=0)


def test_from_estimators_default_pool_is_reproducible():
    X, y = _toy_data(60)
    a = hardness_from_estimators(X, y, cv=3, random_state=7)
    b = hardness_from_estimators(X, y, cv=3, random_state=7)
    assert a.scores.index.tolist() == ["tree", "knn5", "logistic", "naive_bayes", "random_forest"]
    pd.testing.assert_frame_equal(a.scores, b.scores)
    assert a.class_table().shape == (2, 5)
    assert a.model_class_table("rd").shape == (5, 2)
    assert "Class hardness" in a.summary()


def test_default_estimators_follow_the_paper():
    pool = default_estimators(0)
    assert pool["knn5"].steps[-1][1].n_neighbors == 5  # IBk with k = 5 (footnote 2)
    assert all(hasattr(est, "predict_proba") for est in pool.values())


def test_pool_hardness_is_frozen():
    res = PoolHardness(Y1, T1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.threshold = 0.3
    pd.testing.assert_series_equal(res.instance_hardness("rd"), instance_hardness(Y1, T1, "rd"))


def test_from_estimators_bad_estimator():
    from sklearn.svm import SVC

    X, y = _toy_data(40)
    with pytest.raises(ValidationError, match="no predict_proba"):
        hardness_from_estimators(X, y, [SVC()], cv=3)


def test_from_estimators_bad_features():
    X, y = _toy_data(40)
    X.iloc[0, 0] = np.nan
    with pytest.raises(ValidationError, match="X has missing"):
        hardness_from_estimators(X, y, cv=3)
    with pytest.raises(ValidationError, match="non-numeric"):
        hardness_from_estimators(X.assign(city="a"), y, cv=3)


def test_from_estimators_too_many_folds():
    X, y = _toy_data(40)
    with pytest.raises(ValidationError, match="cv=30 needs at least 30 instances of each class"):
        hardness_from_estimators(X, y, cv=30)


# ------------------------------------------------------------------------------------------------
# plots and import hygiene
# ------------------------------------------------------------------------------------------------


def test_plot_cost_curves_returns_its_axes():
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    axes = plot_cost_curves(Y1, T1, methods=("sf", "sd", "rd"), instances=["x1", "x4"])
    fig = axes[0].figure
    assert len(axes) == 3 and all(isinstance(ax, Axes) for ax in axes) and len(fig.axes) == 3
    # the two instance curves plus the two class curves in each panel
    assert all(len(ax.lines) == 4 for ax in fig.axes)
    plt.close(fig)
    # ax= draws into given Axes and returns them
    fig, given = plt.subplots(1, 2)
    assert list(plot_cost_curves(Y1, T1, methods=("sd", "rd"), ax=given)) == list(given)
    with pytest.raises(ValidationError, match="ax must be 3 matplotlib Axes"):
        plot_cost_curves(Y1, T1, methods=("sf", "sd", "rd"), ax=given)
    plt.close(fig)
    with pytest.raises(ValidationError, match="not labels of y's index"):
        plot_cost_curves(Y1, T1, instances=["x99"])


def test_plot_hardness_map_returns_its_axes():
    import matplotlib.pyplot as plt

    X = np.random.default_rng(0).normal(size=(10, 4))
    axes = plot_hardness_map(X, hardness_table(Y1, T1).drop(columns="label"), Y1)
    fig = axes[0].figure
    assert len(axes) == 5 and len(fig.axes) == 6  # five panels and the colour bar
    plt.close(fig)
    with pytest.raises(ValidationError, match="hardness has 10 instances but X has 9 rows"):
        plot_hardness_map(X[:9], instance_hardness(Y1, T1))
    # NaN hides an instance from the colour map (one class at a time on a shared PCA) ...
    one_class = instance_hardness(Y1, T1).where(Y1 == 1)
    axes = plot_hardness_map(X, one_class, Y1)
    # ... drawn as grey context points plus one coloured collection (class 0 has no value to show)
    assert len(axes[0].collections) == 2
    plt.close(axes[0].figure)
    with pytest.raises(ValidationError, match="hold no value to map"):
        plot_hardness_map(X, one_class * np.nan)


def test_import_does_not_load_r(fresh_python):
    code = "import sys, irtbridge.hardness; print('rpy2' in sys.modules)"
    out = fresh_python.run(code, check=True).stdout
    assert json.loads(out.strip().lower()) is False
