"""Tests of one dataset through the benchmark: 3PL calibration of the response matrix, engine fallback,
constant items, abilities and True-Scores, and the dataset diagnostics.

References:
* ltm::tpm and mirt::mirt(itemtype = "3PL") run live by Rscript on the same response matrix written to
  CSV; the IRT parameters are rebuilt in the script from the engines' raw coefficients (ltm:
  a = beta.2, b = -beta.1 / beta.2, g = plogis(c) * max.guessing; mirt: a = a1, b = -d / a1, g = g).
  Tolerance 1e-6: the same deterministic optimizer on the same data, so only float transfer differs.
* True-Scores: Cardoso et al.'s Eqs. 1-2 computed here with numpy (1e-9, float rounding only).
* ML abilities: the 3PL log-likelihood evaluated here on a fine grid; the estimate must reach its
  maximum (to 1e-6 in log-likelihood).
* Diagnostics: pandas/numpy statistics of hand-made item tables.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from irtbridge.decodirt import (
    DatasetResult,
    calibrate_with_fallback,
    dataset_diagnostics,
    diagnostic_rankings,
    evaluate_dataset,
    score_respondents,
)
from irtbridge.decodirt.modes import CalibrationMode
from irtbridge.decodirt.settings import Settings
from irtbridge.exceptions import ConvergenceWarning, ValidationError
from tests._rrefs import run_r

EXACT = 1e-6

# args: responses.csv (respondents x items, header = item names) out.csv engine.
# The rows carry no names: on these nearly separable matrices tpm's optimum depends on such details
# (row names change the order of its pattern sums), and the bridge passes a matrix without row names.
R_3PL = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages({library(ltm); library(mirt)})
x <- read.csv(args[1], check.names = FALSE)
if (args[3] == "ltm") {
  fit <- ltm::tpm(x)
  cf <- fit$coefficients
  a <- cf[, "beta.2i"]; b <- -cf[, "beta.1i"] / cf[, "beta.2i"]; g <- plogis(cf[, "c.i"]) * fit$max.guessing
  conv <- fit$conv == 0
} else {
  fit <- mirt::mirt(as.matrix(x), 1, itemtype = "3PL", verbose = FALSE)
  cf <- mirt::coef(fit, simplify = TRUE)$items
  a <- cf[, "a1"]; b <- -cf[, "d"] / cf[, "a1"]; g <- cf[, "g"]
  conv <- mirt::extract.mirt(fit, "converged")
}
f <- function(v) sprintf("%.17g", v)
write.csv(data.frame(item = colnames(x), a = f(a), b = f(b), g = f(g), converged = conv), args[2], row.names = FALSE)
"""


def r_3pl(tmp_path, responses: pd.DataFrame, engine: str) -> pd.DataFrame:
    script = tmp_path / "fit3pl.R"
    script.write_text(R_3PL)
    data = tmp_path / f"responses_{engine}.csv"
    responses.to_csv(data, index=False)
    out = tmp_path / f"ref_{engine}.csv"
    run_r(["Rscript", str(script), str(data), str(out), engine], check=True, capture_output=True)
    ref = pd.read_csv(out, dtype={"item": str}).set_index("item")
    assert ref["converged"].all(), f"R's {engine} reference did not converge"
    return ref[["a", "b", "g"]]


def assert_items_match(items: pd.DataFrame, ref: pd.DataFrame, tol: float = EXACT) -> None:
    assert list(items.index) == list(ref.index)
    # a known way to fail: ltm's start values run glm.fit under options(warn = 2) and fall back to
    # c(0, 1) when it warns; an R envelope that muffles that warning changes tpm's start and optimum
    np.testing.assert_allclose(items[["a", "b", "g"]].to_numpy(), ref.to_numpy(), rtol=0, atol=tol,
                               err_msg="item parameters differ from the engine called directly in R")


def simulated_3pl(seed: int = 1, n: int = 1000) -> pd.DataFrame:
    # 6 items, 1000 respondents: with seed 1 mirt's 3PL converges within its default 500 EM cycles
    rng = np.random.default_rng(seed)
    a = np.array([1.5, 1, 2, 0.8, 1.2, 1.8])
    b = np.array([-1, -0.5, 0, 0.5, 1, 0.2])
    g = np.array([0.2, 0.1, 0.25, 0.15, 0.2, 0.1])
    theta = rng.normal(size=n)
    p = g + (1 - g) / (1 + np.exp(-a * (theta[:, None] - b)))
    x = (rng.uniform(size=p.shape) < p).astype(int)
    return pd.DataFrame(x, columns=[f"q{j + 1}" for j in range(6)], index=[f"r{i}" for i in range(n)])


@pytest.fixture(scope="module")
def sim() -> pd.DataFrame:
    return simulated_3pl()


@pytest.fixture(scope="module")
def iris_result() -> DatasetResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_dataset("iris", Settings(pool="quick", max_items=20, seed=4, calibration="paper"))


# --------------------------------------------------------------------------------------------------
# calibration of a benchmark response matrix vs R


@pytest.mark.r
def test_dataset_calibration_matches_ltm_tpm(iris_result, tmp_path):
    r = iris_result
    assert r.status == "ok" and r.engine == "ltm" and r.engine_requested == "ltm"
    assert [a.status for a in r.attempts] == ["converged"]
    # 12 classifiers + 7 artificial respondents, 20 test instances
    assert r.responses.shape == (19, 20)
    ref = r_3pl(tmp_path, r.responses[list(r.items.index)], "ltm")
    assert_items_match(r.items, ref)
    assert (r.items["u"] == 1).all()


@pytest.mark.r
def test_dataset_response_matrix_is_the_truth(iris_result):
    from irtbridge.decodirt import load_benchmark_dataset, stratified_split

    ds = load_benchmark_dataset("iris")
    train, test = stratified_split(ds.y.to_numpy(), max_test=20, random_state=4)
    # items are the test instances (by row label), in test order
    assert list(iris_result.responses.columns) == [str(i) for i in ds.X.index[test]]
    truth = ds.y.to_numpy()[test]
    counts = pd.Series(ds.y.to_numpy()[train]).value_counts()
    top = sorted(counts.index[counts == counts.max()])[0]
    assert np.array_equal(iris_result.responses.loc["majority"].to_numpy(), (truth == top).astype(int))
    assert (iris_result.responses.loc["optimal"] == 1).all() and (iris_result.responses.loc["pessimal"] == 0).all()
    assert iris_result.n_test == 20 and iris_result.n_train == 130 and iris_result.n_classes == 3


# --------------------------------------------------------------------------------------------------
# engine fallback


@pytest.mark.r
def test_mirt_direct(sim, tmp_path):
    fit, attempts = calibrate_with_fallback(sim, CalibrationMode.resolve("paper", engine="mirt"))
    assert fit.engine == "mirt" and [a.status for a in attempts] == ["converged"]
    assert fit.r_model is None  # travels without its R handle
    assert_items_match(fit.items, r_3pl(tmp_path, sim, "mirt"))


@pytest.mark.r
def test_ltm_error_falls_back_to_mirt(sim, tmp_path):
    # a constraint on an item tpm does not have makes R fail; mirt must take over (an option tpm does not
    # take at all is refused before R runs: calibration/inputs/options.py)
    fit, attempts = calibrate_with_fallback(
        sim, CalibrationMode.resolve("paper", engine="ltm", engine_options={"ltm": {"constraint": np.array([[99, 1, 0.0]])}}))
    assert [(a.engine, a.status) for a in attempts] == [("ltm", "error"), ("mirt", "converged")]
    # the attempt keeps R's own message (after the step that failed: "calibrate: ltm ... failed; R said: ...")
    assert "R said" in attempts[0].message and "1st column" in attempts[0].message
    assert fit.engine == "mirt"
    assert_items_match(fit.items, r_3pl(tmp_path, sim, "mirt"))


@pytest.mark.r
def test_mirt_nonconvergence_falls_back_to_ltm(sim, tmp_path):
    fit, attempts = calibrate_with_fallback(
        sim, CalibrationMode.resolve("paper", engine="mirt", engine_options={"mirt": {"technical": {"NCYCLES": 2}}}))
    assert [(a.engine, a.status) for a in attempts] == [("mirt", "not converged"), ("ltm", "converged")]
    assert fit.engine == "ltm" and fit.converged
    assert_items_match(fit.items, r_3pl(tmp_path, sim, "ltm"))


@pytest.mark.r
def test_both_engines_fail(sim):
    bad = {"ltm": {"no_such_argument": 1}, "mirt": {"technical": {"NCYCLES": 2}}}
    mode = CalibrationMode.resolve("paper", engine="ltm", engine_options=bad)
    fit, attempts = calibrate_with_fallback(sim, mode)
    assert fit is None and [a.status for a in attempts] == ["error", "not converged"]
    with pytest.warns(ConvergenceWarning, match="accept_unconverged"):
        fit, _ = calibrate_with_fallback(sim, mode, accept_unconverged=True)
    assert fit.engine == "mirt" and not fit.converged


@pytest.mark.r
def test_no_fallback_when_disabled(sim):
    fit, attempts = calibrate_with_fallback(
        sim, CalibrationMode.resolve("paper", engine="ltm", fallback=False, engine_options={"ltm": {"no_such_argument": 1}}))
    assert fit is None and [a.engine for a in attempts] == ["ltm"]


def test_dataset_errors_name_the_dataset(tmp_path):
    path = tmp_path / "lonely.csv"
    pd.DataFrame({"x": range(11), "target": ["a"] * 10 + ["b"]}).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="dataset 'lonely': classes \\['b'\\] have a single instance"):
        evaluate_dataset(str(path), Settings(pool="quick"))


def test_old_keywords_still_work_with_a_warning(sim):
    # irtbridge 0.1's keywords: the same Settings (and mode) as the new form, after a DeprecationWarning
    from irtbridge.decodirt.per_dataset import _old_settings_keywords

    with pytest.warns(DeprecationWarning, match=r"evaluate_dataset\(random_state=\) moved to Settings.seed"):
        fields = _old_settings_keywords({"random_state": 4, "max_test": 20, "test_size": 0.25, "pool": "quick"})
    assert Settings(**fields) == Settings(seed=4, max_items=20, test_fraction=0.25, pool="quick")
    with pytest.raises(ValidationError, match="not both"):
        evaluate_dataset("iris", Settings(), pool="quick")
    with pytest.raises(TypeError, match="unexpected keyword argument 'seed'"):
        evaluate_dataset("iris", seed=1)
    with pytest.warns(DeprecationWarning, match=r"calibrate_with_fallback\(engine_options=\)"):
        with pytest.raises(ValidationError, match="engine_options"):
            calibrate_with_fallback(sim, engine_options={"stan": {}})


def test_bad_engine_options_key(sim):
    with pytest.raises(ValidationError, match="engine_options"):
        calibrate_with_fallback(sim, CalibrationMode.resolve("paper", engine_options={"stan": {}}))


@pytest.mark.r
def test_dataset_fallback_is_recorded(iris_result, tmp_path):
    # ask for mirt but starve it of EM cycles: ltm's parameters are used and the provenance says so
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate_dataset("iris", Settings(pool="quick", max_items=20, seed=4, calibration="paper", engine="mirt",
                                          engine_options={"mirt": {"technical": {"NCYCLES": 2}}}))
    assert r.engine == "ltm" and r.engine_requested == "mirt"
    assert [(a.engine, a.status) for a in r.attempts] == [("mirt", "not converged"), ("ltm", "converged")]
    assert r.calibration.engine == "ltm"
    assert_items_match(r.items, r_3pl(tmp_path, r.responses[list(r.items.index)], "ltm"))
    diag = dataset_diagnostics([r])
    assert diag.loc["iris", "fallback"] and diag.loc["iris", "engine"] == "ltm"


@pytest.mark.r
def test_failed_dataset_is_kept_out(iris_result):
    bad = {"ltm": {"no_such_argument": 1}, "mirt": {"technical": {"NCYCLES": 2}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = evaluate_dataset("iris", Settings(pool="quick", max_items=20, seed=4, engine_options=bad, calibration="paper"))
    assert r.status == "failed" and r.engine is None and r.items.empty
    assert r.respondents["true_score"].isna().all()
    # accuracy does not need IRT
    np.testing.assert_allclose(r.respondents["accuracy"], r.responses.mean(axis=1))
    assert any("left out" in str(w.message) for w in caught)
    # the warning is kept structured, with the stage that raised it and the attempts' own fields
    lost = [w for w in r.warnings if "no item parameters" in w.message]
    assert [(w.stage, w.category) for w in lost] == [("calibration", "DataWarning")]
    assert [(a.engine, a.model, a.status) for a in r.attempts] == [("ltm", "3PL", "error"), ("mirt", "3PL", "not converged")]
    assert str(r.attempts[0]).startswith("ltm: error (") and str(r.attempts[0]).endswith(" s")
    diag = dataset_diagnostics([iris_result, _renamed(r, "iris2")])
    assert diag.loc["iris2", "status"] == "failed" and np.isnan(diag.loc["iris2", "difficulty_mean"])


def _renamed(result: DatasetResult, name: str) -> DatasetResult:
    from dataclasses import replace

    return replace(result, name=name)


# --------------------------------------------------------------------------------------------------
# constant items


@pytest.mark.r
def test_constant_items_recorded_and_excluded(tmp_path):
    # without the artificial respondents, instances every classifier gets right are constant
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = evaluate_dataset("iris", Settings(pool="quick", max_items=30, seed=0, artificial=False, calibration="paper"))
    constant = [c for c in r.responses.columns if r.responses[c].nunique() == 1]
    assert constant, "the test needs constant items"
    assert list(r.dropped_items) == constant
    assert list(r.items.index) == [c for c in r.responses.columns if c not in constant]
    assert any("constant" in str(w.message) for w in caught)
    assert any(w.stage == "calibration" and "constant" in w.message for w in r.warnings)
    assert r.engine is not None
    ref = r_3pl(tmp_path, r.responses[list(r.items.index)], r.engine)
    assert_items_match(r.items, ref)
    diag = dataset_diagnostics([r])
    assert diag.loc["iris", "n_dropped"] == len(constant) and diag.loc["iris", "n_items"] == 30 - len(constant)
    assert diag.loc["iris", "valid_true_score"] is None  # no anchors to check


# --------------------------------------------------------------------------------------------------
# abilities and True-Scores


def _p3(theta: np.ndarray, items: pd.DataFrame) -> np.ndarray:
    a, b, g = (items[c].to_numpy()[None, :] for c in ("a", "b", "g"))
    with np.errstate(over="ignore"):  # exp overflow is P = g, the right limit
        return g + (1 - g) / (1 + np.exp(-a * (np.asarray(theta)[:, None] - b)))


@pytest.mark.r
def test_true_scores_by_the_papers_formula(iris_result):
    r = iris_result
    theta = r.respondents["theta"].to_numpy()
    p = _p3(theta, r.items)
    np.testing.assert_allclose(r.respondents["true_score"], p.sum(axis=1), rtol=0, atol=1e-9)
    # Fig. 9b: negatively discriminating items left out, ability re-estimated from the others
    pos = (r.items["a"] > 0).to_numpy()
    p_pos = _p3(r.respondents["theta_positive"].to_numpy(), r.items[pos])
    np.testing.assert_allclose(r.respondents["true_score_positive"], p_pos.sum(axis=1), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.respondents["accuracy"], r.responses.to_numpy().mean(axis=1))
    assert (r.respondents["kind"] == "artificial").sum() == 7


@pytest.mark.r
@pytest.mark.parametrize("column", ["theta", "theta_positive"])
def test_ml_abilities_maximize_the_likelihood(iris_result, column):
    r = iris_result
    items = r.items if column == "theta" else r.items[r.items["a"] > 0]
    x = r.responses[list(items.index)].to_numpy(dtype=float)
    grid = np.linspace(-6, 6, 24001)

    def loglik(theta, row):
        p = np.clip(_p3(theta, items), 1e-300, 1 - 1e-16)
        return (row * np.log(p) + (1 - row) * np.log1p(-p)).sum(axis=1)

    for i, theta_hat in enumerate(r.respondents[column].to_numpy()):
        row = x[i][None, :]
        best = loglik(grid, row).max()
        # 1e-6 in log-likelihood: the estimate is (at least) as good as the best point of a 5e-4 grid
        assert loglik(np.array([theta_hat]), row)[0] >= best - 1e-6, r.responses.index[i]
        assert -6 <= theta_hat <= 6


def test_true_score_positive_without_positive_items():
    items = pd.DataFrame({"a": [-1.0, -2.0], "b": [0.0, 1.0], "g": [0.1, 0.2], "u": [1.0, 1.0]}, index=["i1", "i2"])
    from irtbridge.irt import as_item_bank

    bank = as_item_bank(items, "3PL")
    out = score_respondents(pd.DataFrame({"i1": [1, 0], "i2": [0, 1]}, index=["m1", "m2"]), bank)
    assert out["true_score_positive"].isna().all() and out["theta_positive"].isna().all()
    assert (out["n_positive"] == 0).all()
    np.testing.assert_allclose(out["true_score"], _p3(out["theta"].to_numpy(), items).sum(axis=1), atol=1e-12)


# --------------------------------------------------------------------------------------------------
# diagnostics


def _fake_result(name: str, items: pd.DataFrame, true_scores: dict[str, float]) -> DatasetResult:
    resp = pd.DataFrame({"true_score": true_scores, "true_score_positive": true_scores})
    resp["theta"] = (resp["true_score"] - 5.0) / 3.0
    return DatasetResult(
        name=name, status="ok", responses=pd.DataFrame(index=resp.index), items=items, respondents=resp,
        calibration=None, engine="ltm", engine_requested="ltm", attempts=(), dropped_items=("x",),
        failed_models={},
    )


@pytest.fixture(scope="module")
def fake_results() -> list[DatasetResult]:
    rng = np.random.default_rng(0)
    out = []
    for k, name in enumerate(["d1", "d2", "d3"]):
        n = 10 + 5 * k
        items = pd.DataFrame({"a": rng.normal(1, 2, n), "b": rng.normal(-0.5 + k, 1 + k, n),
                              "g": rng.uniform(0, 0.3, n), "u": 1.0}, index=[f"i{j}" for j in range(n)])
        ts = {"optimal": 9.0, "svm": 7.0 + 3 * (k == 2), "pessimal": 1.0 + 7 * (k == 1)}
        out.append(_fake_result(name, items, ts))
    return out


def test_diagnostics_match_numpy(fake_results):
    diag = dataset_diagnostics(fake_results)
    for r in fake_results:
        row = diag.loc[r.name]
        for stat, col in (("difficulty", "b"), ("discrimination", "a"), ("guessing", "g")):
            v = r.items[col].to_numpy()
            assert row[f"{stat}_mean"] == pytest.approx(np.mean(v), abs=1e-12)
            assert row[f"{stat}_median"] == pytest.approx(np.median(v), abs=1e-12)
            assert row[f"{stat}_sd"] == pytest.approx(np.std(v, ddof=1), abs=1e-12)
        assert row["share_negative_discrimination"] == pytest.approx(np.mean(r.items["a"].to_numpy() < 0))
        assert row["share_positive_difficulty"] == pytest.approx(np.mean(r.items["b"].to_numpy() > 0))
        assert row["n_items"] == len(r.items) and row["n_dropped"] == 1
        # the share of instances a classifier of median ability fails, written out from the 3PL
        t = np.median(r.respondents["theta"])
        a, b, g = (r.items[c].to_numpy() for c in ("a", "b", "g"))
        assert row["failure_at_median"] == pytest.approx(np.mean(1 - (g + (1 - g) / (1 + np.exp(-a * (t - b))))), abs=1e-12)
    # d1: optimal top, pessimal bottom; d2: pessimal 8 beats svm 7; d3: svm 10 beats optimal 9
    assert diag["valid_true_score"].tolist() == [True, False, False]


def test_diagnostic_rankings_by_hand(fake_results):
    diag = dataset_diagnostics(fake_results)
    ranks = diagnostic_rankings(diag)
    for col in ranks.columns:
        # rank 1 = largest value: count of strictly larger values + 1
        values = diag[col].to_numpy()
        expected = [1 + int((values > v).sum()) for v in values]
        assert ranks[col].tolist() == expected, col


def test_diagnostics_need_results():
    with pytest.raises(ValidationError, match="empty"):
        dataset_diagnostics([])


# --------------------------------------------------------------------------------------------------
# what the per-dataset result carries for later stages (split, labels, predictions, scores)


@pytest.mark.r
def test_result_carries_its_split_and_predictions(iris_result):
    from sklearn.naive_bayes import GaussianNB

    from irtbridge.decodirt import load_benchmark_dataset, prepare_features, stratified_split

    ds = load_benchmark_dataset("iris")
    train, test = stratified_split(ds.y.to_numpy(), max_test=20, random_state=4)
    np.testing.assert_array_equal(iris_result.train_index, train)
    np.testing.assert_array_equal(iris_result.test_index, test)
    assert list(iris_result.y_test.index) == list(iris_result.responses.columns)
    assert iris_result.y_test.tolist() == [str(v) for v in ds.y.to_numpy()[test]]
    # a prediction is right exactly where the response is 1
    real = iris_result.predictions.index
    right = (iris_result.predictions.to_numpy() == iris_result.y_test.to_numpy()[None, :]).astype(int)
    np.testing.assert_array_equal(right, iris_result.responses.loc[real].to_numpy())
    # GaussianNB is deterministic: refit it directly with scikit-learn
    Xtr, Xte = prepare_features(ds.X.iloc[train], ds.X.iloc[test])
    direct = GaussianNB().fit(Xtr, ds.y.to_numpy()[train]).predict(Xte).astype(str)
    assert iris_result.predictions.loc["GaussianNB"].tolist() == direct.tolist()
    assert iris_result.classes == ("setosa", "versicolor", "virginica") and not iris_result.binary
    assert iris_result.scores is None  # three classes: no P(y = positive)


def test_scores_are_predict_proba_of_the_positive_class():
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.svm import SVC

    from irtbridge.decodirt import fit_predict_score_pool

    X, y = load_breast_cancer(return_X_y=True)
    labels = np.where(y == 1, "benign", "malignant")
    tr, te = np.arange(0, 569, 2), np.arange(1, 569, 2)
    pred, scores, failed = fit_predict_score_pool(
        {"nb": GaussianNB(), "svm": SVC()}, X[tr], labels[tr], X[te], positive="malignant")
    assert not failed and list(scores.index) == ["nb", "svm"]
    direct = GaussianNB().fit(X[tr], labels[tr])
    column = list(direct.classes_).index("malignant")
    np.testing.assert_allclose(scores.loc["nb"].to_numpy(), direct.predict_proba(X[te])[:, column], rtol=0, atol=0)
    # an SVM without probabilities scores its decision: 1 where it predicts the positive class
    svm_pred = SVC().fit(X[tr], labels[tr]).predict(X[te])
    np.testing.assert_array_equal(scores.loc["svm"].to_numpy(), (svm_pred == "malignant").astype(float))
    np.testing.assert_array_equal(pred.loc["svm"].to_numpy(), svm_pred)


def test_recorded_warnings_carry_their_stage():
    from irtbridge.decodirt import StageWarning
    from irtbridge.decodirt.per_dataset import _stage_warnings
    from irtbridge.exceptions import DataWarning, RWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("bad row", DataWarning)           # caught[0]: stage "data"
        warnings.warn("not ours", UserWarning)          # caught[1]: not an irtbridge warning
        warnings.warn("NaNs produced", RWarning)        # caught[2]: stage "calibration"
        warnings.warn("NaNs produced", RWarning)        # the same again: kept once
    kept = _stage_warnings(caught, [(0, "data"), (1, "classifiers"), (2, "calibration")])
    assert kept == (StageWarning("data", "DataWarning", "bad row"), StageWarning("calibration", "RWarning", "NaNs produced"))
    assert [str(w) for w in kept] == ["DataWarning: bad row", "RWarning: NaNs produced"]
    assert kept[1].warning_class is RWarning and StageWarning("x", "NoSuchWarning", "m").warning_class.__name__ == "IrtBridgeWarning"
