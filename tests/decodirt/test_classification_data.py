"""Tests of irtbridge.decodirt's data and respondent pieces: datasets, the capped stratified split,
feature preparation, the classifier pool, the artificial respondents and the response matrix.

References: closed forms (split sizes ceil(0.3 n) capped at 500 and the proportional allocation per
class; z-scores with the training mean and population sd; the artificial respondents' definitions,
rebuilt here with numpy), published dataset facts (iris 150 x 4 with 50 per class; UCI breast-cancer
Wisconsin 699 rows, 458 benign / 241 malignant, 16 missing Bare.nuclei), and the paper's list of 12
models (Cardoso et al., decodIRT, section 4.2.1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irtbridge.decodirt import (
    ARTIFICIAL,
    PAPER_MODELS,
    BenchmarkDataset,
    artificial_responses,
    classifier_pool,
    fit_predict_pool,
    load_benchmark_dataset,
    prepare_features,
    response_matrix,
    stratified_split,
)
from irtbridge.exceptions import DataWarning, ValidationError

# --------------------------------------------------------------------------------------------------
# datasets


def test_import_is_r_free(fresh_python):
    code = ("import sys, irtbridge, irtbridge.decodirt, irtbridge.cli.benchmark; irtbridge.pipeline.run_benchmark; "
            "assert 'rpy2' not in sys.modules, 'rpy2 imported'")
    fresh_python.run(code, check=True)


def test_sklearn_dataset_iris():
    ds = load_benchmark_dataset("IRIS")  # names match ignoring case
    assert ds.name == "iris" and ds.source == "sklearn"
    assert ds.X.shape == (150, 4)
    assert ds.y.value_counts().to_dict() == {"setosa": 50, "versicolor": 50, "virginica": 50}


def test_csv_dataset_with_target(tmp_path):
    frame = pd.DataFrame({"x1": [1.0, 2, 3, 4], "colour": ["r", "g", "r", "g"], "label": ["a", "b", "a", "b"]})
    path = tmp_path / "toy.csv"
    frame.to_csv(path, index=False)
    ds = load_benchmark_dataset(f"{path}:label")
    assert ds.name == "toy" and list(ds.X.columns) == ["x1", "colour"] and ds.y.tolist() == ["a", "b", "a", "b"]
    ds2 = load_benchmark_dataset(str(path), target="label", name="mine")
    assert ds2.name == "mine"


def test_csv_dataset_rows_without_target_are_dropped(tmp_path):
    path = tmp_path / "gaps.csv"
    pd.DataFrame({"x": [1, 2, 3, 4, 5], "target": ["a", None, "b", "a", "b"]}).to_csv(path, index=False)
    with pytest.warns(DataWarning, match="missing target"):
        ds = load_benchmark_dataset(str(path))
    assert len(ds.y) == 4


def test_csv_without_target_column_is_an_error(tmp_path):
    path = tmp_path / "no_target.csv"
    pd.DataFrame({"x": [1, 2], "y": [0, 1]}).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="'target'"):
        load_benchmark_dataset(str(path))


def test_unknown_dataset_is_an_error():
    with pytest.raises(ValidationError, match="neither an embedded dataset"):
        load_benchmark_dataset("no-such-dataset")


def test_single_class_dataset_is_an_error():
    with pytest.raises(ValidationError, match="single class"):
        BenchmarkDataset("flat", pd.DataFrame({"x": [1, 2, 3]}), pd.Series(["a", "a", "a"]))


@pytest.mark.r
def test_mlbench_breast_cancer_through_r():
    ds = load_benchmark_dataset("BreastCancer")
    # UCI breast-cancer Wisconsin (original): 699 rows, 9 features after dropping the Id
    assert ds.source == "mlbench" and ds.X.shape == (699, 9) and "Id" not in ds.X.columns
    assert ds.y.value_counts().to_dict() == {"benign": 458, "malignant": 241}
    assert int(ds.X["Bare.nuclei"].isna().sum()) == 16


# --------------------------------------------------------------------------------------------------
# split


def _expected_test_size(n: int, max_test: int | None) -> int:
    m = math.ceil(0.3 * n)
    return m if max_test is None else min(m, max_test)


@pytest.mark.parametrize("n,max_test", [(150, 500), (1797, 500), (2000, 500), (768, 100), (5000, None)])
def test_split_sizes_and_stratification(n, max_test):
    rng = np.random.default_rng(n)
    y = rng.choice(["a", "b", "c"], size=n, p=[0.6, 0.3, 0.1])
    train, test = stratified_split(y, max_items=max_test, seed=3)
    n_test = _expected_test_size(n, max_test)
    assert len(test) == n_test and len(train) == n - n_test
    assert np.intersect1d(train, test).size == 0
    assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(n))
    # proportional allocation: each class within one instance of n_test * n_c / n
    for c in "abc":
        share = (y == c).sum() * n_test / n
        assert abs((y[test] == c).sum() - share) <= 1.0


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.integers(min_value=2, max_value=80), min_size=2, max_size=5),
    max_test=st.one_of(st.none(), st.integers(min_value=10, max_value=60)),
    seed=st.integers(min_value=0, max_value=10),
)
def test_split_invariants(counts, max_test, seed):
    y = np.repeat(np.arange(len(counts)), counts)
    n = y.size
    n_test = _expected_test_size(n, max_test)
    k = len(counts)
    if n_test < k or n - n_test < k:
        with pytest.raises(ValidationError):
            stratified_split(y, max_items=max_test, seed=seed)
        return
    train, test = stratified_split(y, max_items=max_test, seed=seed)
    assert len(test) == n_test
    assert np.intersect1d(train, test).size == 0 and len(train) + len(test) == n
    for c, nc in enumerate(counts):
        assert abs((y[test] == c).sum() - nc * n_test / n) <= 1.0


def test_split_is_reproducible_and_seeded():
    y = np.repeat([0, 1], [300, 200])
    a = stratified_split(y, seed=1)
    b = stratified_split(y, seed=1)
    c = stratified_split(y, seed=2)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    assert not np.array_equal(a[1], c[1])


def test_split_max_train():
    y = np.repeat([0, 1], [700, 300])
    train, test = stratified_split(y, max_train=100, seed=0)
    assert len(train) == 100 and len(test) == 300
    assert (y[train] == 1).sum() == 30  # 30% of the subsample, as in the population


def test_split_single_instance_class_is_an_error():
    with pytest.raises(ValidationError, match="single instance"):
        stratified_split(["a"] * 10 + ["b"])


def test_split_bad_test_fraction():
    with pytest.raises(ValidationError, match="test_fraction"):
        stratified_split([0, 1] * 10, test_fraction=1.5)


def test_split_old_keywords_still_work_with_a_warning():
    y = ["a"] * 70 + ["b"] * 30
    with pytest.warns(DeprecationWarning, match=r"stratified_split\(max_test=\) moved to stratified_split\(max_items=\)"):
        old = stratified_split(y, test_size=0.4, max_test=25, random_state=5)
    new = stratified_split(y, test_fraction=0.4, max_items=25, seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(old, new)) and len(new[1]) == 25


# --------------------------------------------------------------------------------------------------
# features


def test_prepare_features_uses_training_statistics_only():
    X = pd.DataFrame({
        "num": [1.0, 2.0, np.nan, 4.0, 10.0, 20.0],
        "digits": ["1", "3", "5", None, "7", "9"],  # numbers stored as strings (mlbench factors)
        "colour": ["red", "blue", None, "red", "green", "blue"],
    })
    train, test = X.iloc[:4], X.iloc[4:]
    Xtr, Xte = prepare_features(train, test)
    # numeric columns: train median imputation, then (x - mean) / sd with the population sd of train
    num_tr = np.array([1.0, 2.0, 2.0, 4.0])
    dig_tr = np.array([1.0, 3.0, 5.0, 3.0])
    for col, tr, te_raw in ((0, num_tr, [10.0, 20.0]), (1, dig_tr, [7.0, 9.0])):
        np.testing.assert_allclose(Xtr[:, col], (tr - tr.mean()) / tr.std(), atol=1e-12)
        np.testing.assert_allclose(Xte[:, col], (np.array(te_raw) - tr.mean()) / tr.std(), atol=1e-12)
    # categories learned on train (including "missing"); "green" is unseen in train: all zeros
    onehot_tr = Xtr[:, 2:]
    assert onehot_tr.shape[1] == 3  # (missing), blue, red
    assert (onehot_tr.sum(axis=1) == 1).all()
    assert (Xte[0, 2:] == 0).all() and Xte[1, 2:].sum() == 1


# --------------------------------------------------------------------------------------------------
# pool


def test_paper_pool_is_the_papers_twelve():
    pool = classifier_pool("paper")
    assert list(pool) == list(PAPER_MODELS) and len(pool) == 12
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import BernoulliNB, GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    assert [pool[f"KNN{k}"].n_neighbors for k in (2, 3, 5, 8)] == [2, 3, 5, 8]
    assert [pool[n].n_estimators for n in ("RandomForest3", "RandomForest5", "RandomForest")] == [3, 5, 100]
    # "standard" models: scikit-learn's defaults
    for name, cls in (("GaussianNB", GaussianNB), ("BernoulliNB", BernoulliNB), ("DecisionTree", DecisionTreeClassifier),
                      ("SVM", SVC), ("MLP", MLPClassifier)):
        assert type(pool[name]) is cls and pool[name].get_params() == cls().get_params()
    assert type(pool["RandomForest"]) is RandomForestClassifier
    assert isinstance(pool["KNN2"], KNeighborsClassifier)


def test_default_pool_has_enough_respondents():
    pool = classifier_pool("default")
    assert set(PAPER_MODELS) <= set(pool)
    assert len(pool) + len(ARTIFICIAL) + 3 >= 40


def test_pool_from_names_and_from_estimators():
    from sklearn.neighbors import KNeighborsClassifier

    assert list(classifier_pool(["SVM", "KNN13"])) == ["SVM", "KNN13"]
    mine = {"knn7": KNeighborsClassifier(7)}
    assert classifier_pool(mine)["knn7"] is mine["knn7"]


@pytest.mark.parametrize("bad,match", [
    ("huge", "pool='huge'"),
    (["SVM", "NoSuchModel"], "unknown"),
    (["SVM", "SVM"], "twice"),
    ({"x": object()}, "not estimators"),
    ({}, "empty"),
    ({"optimal": __import__("sklearn.dummy", fromlist=["x"]).DummyClassifier()}, "clash"),
])
def test_bad_pools(bad, match):
    with pytest.raises(ValidationError, match=match):
        classifier_pool(bad)


def test_fit_predict_pool_records_failures():
    class Broken:
        def fit(self, X, y):
            raise RuntimeError("boom")

        def predict(self, X):  # pragma: no cover
            return None

    from sklearn.neighbors import KNeighborsClassifier

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["a", "a", "b", "b"])
    pred, failures = fit_predict_pool({"knn1": KNeighborsClassifier(1), "broken": Broken()}, X, y, np.array([[0.1], [2.9]]))
    assert pred.loc["knn1"].tolist() == ["a", "b"]
    assert list(failures) == ["broken"] and "boom" in failures["broken"]


# --------------------------------------------------------------------------------------------------
# artificial respondents and the response matrix


def test_artificial_respondents_by_definition():
    rng = np.random.default_rng(5)
    y_train = rng.choice(["x", "y", "z"], size=200, p=[0.5, 0.35, 0.15])
    y_test = rng.choice(["x", "y", "z"], size=120, p=[0.5, 0.35, 0.15])
    got = artificial_responses(y_train, y_test, n_random=3, random_state=11)
    assert list(got.index) == ["optimal", "pessimal", "majority", "minority", "rand1", "rand2", "rand3"]
    assert (got.loc["optimal"] == 1).all() and (got.loc["pessimal"] == 0).all()
    values, counts = np.unique(y_train, return_counts=True)
    majority, minority = values[counts.argmax()], values[counts.argmin()]
    assert majority == "x" and minority == "z"
    np.testing.assert_array_equal(got.loc["majority"], (y_test == "x").astype(int))
    np.testing.assert_array_equal(got.loc["minority"], (y_test == "z").astype(int))
    for k in (1, 2, 3):
        guess = np.random.default_rng([11, k]).choice(np.array(["x", "y", "z"]), y_test.size)
        np.testing.assert_array_equal(got.loc[f"rand{k}"], (guess == y_test).astype(int))
    assert not got.loc["rand1"].equals(got.loc["rand2"])


def test_artificial_ties_go_to_the_first_sorted_label():
    got = artificial_responses(["b", "a", "b", "a", "c"], ["a", "b", "c"], n_random=0)
    # a and b tie for the majority (2 each): a; c is the minority
    assert got.loc["majority"].tolist() == [1, 0, 0]
    assert got.loc["minority"].tolist() == [0, 0, 1]


@pytest.mark.slow
def test_random_guessers_are_uniform():
    # 4 classes, 40000 guesses: each class about 1/4 of the guesses (chi-square goodness of fit)
    y_test = np.repeat(np.array(["a", "b", "c", "d"]), 10000)
    got = artificial_responses(["a", "b", "c", "d"] * 3, y_test, n_random=1, random_state=0).loc["rand1"]
    hits = got.groupby(y_test).mean().to_numpy()  # P(guess = true class) = 1/4 per class
    assert np.all(np.abs(hits - 0.25) < 0.02)  # 4.6 sd of a proportion of 10000 draws


def test_response_matrix_by_hand():
    pred = pd.DataFrame([["a", "b", "c"], ["a", "a", "a"]], index=["m1", "m2"], columns=[10, 11, 12])
    got = response_matrix(pred, np.array(["a", "b", "b"]))
    assert got.to_numpy().tolist() == [[1, 1, 0], [1, 0, 0]]
    assert list(got.index) == ["m1", "m2"] and list(got.columns) == [10, 11, 12]
    with pytest.raises(ValidationError, match="labels"):
        response_matrix(pred, ["a"])


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "digits"])
def test_registry_facts_match_the_data(name):
    import sklearn.datasets

    from irtbridge.decodirt import DATASETS, dataset_info

    info = dataset_info(name.upper())
    y = getattr(sklearn.datasets, f"load_{name}")().target
    assert info is DATASETS[name] and info.n_classes == len(np.unique(y)) and info.source == "sklearn"
    assert info.provenance == f"scikit-learn load_{name}()" and 1 <= info.cost <= 10


@pytest.mark.r
def test_registry_facts_match_mlbench():
    from irtbridge.decodirt import DATASETS, load_benchmark_dataset

    for name, info in DATASETS.items():
        if info.source == "mlbench":
            assert load_benchmark_dataset(name).n_classes == info.n_classes, name


def test_class_labels_put_the_minority_second():
    from irtbridge.decodirt import class_labels

    assert class_labels(["M"] * 5 + ["R"] * 3) == ("M", "R")
    assert class_labels(["R"] * 3 + ["M"] * 5) == ("M", "R")
    assert class_labels([1, 0, 1, 0]) == ("0", "1")


def test_one_reference_parser_for_every_entry(tmp_path):
    """resolve_datasets, run_benchmark's names and the loader share parse_dataset_ref: what one accepts
    the others load, and 'x.csv:' (no target after the colon) is refused by all of them at once."""
    from irtbridge.decodirt.classification_data import parse_dataset_ref
    from irtbridge.pipeline.benchmark import _dataset_name
    from irtbridge.pipeline import resolve_datasets

    path = tmp_path / "x.csv"
    path.write_text("f1,f2,y\n1,2,a\n3,4,b\n5,6,a\n")
    assert parse_dataset_ref(f"{path}:y").target == "y" and parse_dataset_ref(str(path)).label == "x"
    assert load_benchmark_dataset(f"{path}:y").y.tolist() == ["a", "b", "a"]
    for bad in (f"{path}:", str(tmp_path / "missing.csv"), "nope", ""):
        for entry in (parse_dataset_ref, lambda r: resolve_datasets([r]), _dataset_name, load_benchmark_dataset):
            with pytest.raises(ValidationError):
                entry(bad)
    assert resolve_datasets(["SONAR", f"{path}:y"]) == ["Sonar", f"{path}:y"]
