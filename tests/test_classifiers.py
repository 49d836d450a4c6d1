"""One classifier registry (issue 17): every pool and user of a classifier name resolves through
:mod:`irtbridge.classifiers`, and what it builds is what each pool built before (the references below
are the scikit-learn constructions those pools wrote out, as documented in their docstrings).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

import irtbridge
from irtbridge.decodirt import POOLS, classifier_pool
from irtbridge.classifiers import HARDNESS_NAMES, MLC_NAMES, REGISTRY, classifier_spec, display_name
from irtbridge.exceptions import ValidationError
from irtbridge.hardness import default_estimators
from irtbridge.mlc import CLASSIFIERS, make_classifier

# decodIRT's pools: scikit-learn defaults but for the named setting (Cardoso et al. (decodIRT), Table 3)
BENCHMARK = {
    "GaussianNB": GaussianNB(), "GaussianNB_vs0.01": GaussianNB(var_smoothing=0.01), "BernoulliNB": BernoulliNB(),
    "BernoulliNB_a10": BernoulliNB(alpha=10), **{f"KNN{k}": KNeighborsClassifier(k) for k in (1, 2, 3, 4, 5, 8, 13, 21)},
    "KNN5_distance": KNeighborsClassifier(5, weights="distance"), "DecisionTree": DecisionTreeClassifier(),
    **{f"DecisionTree_d{d}": DecisionTreeClassifier(max_depth=d) for d in (1, 2, 3, 5, 8)},
    "DecisionTree_leaf5": DecisionTreeClassifier(min_samples_leaf=5), "RandomForest": RandomForestClassifier(),
    **{f"RandomForest{n}": RandomForestClassifier(n) for n in (3, 5, 10, 25)},
    "RandomForest_d3": RandomForestClassifier(max_depth=3), "SVM": SVC(), "SVM_C0.1": SVC(C=0.1), "SVM_C10": SVC(C=10),
    "SVM_linear": SVC(kernel="linear"), "SVM_poly": SVC(kernel="poly"), "MLP": MLPClassifier(),
    "MLP_10": MLPClassifier((10,)), "MLP_50": MLPClassifier((50,)), "MLP_100x100": MLPClassifier((100, 100)),
    "MLP_alpha1": MLPClassifier(alpha=1),
}


def _mlc_reference(seed):
    # the MLC paper's classifiers as irtbridge.mlc documented them, behind an imputer and a scaler
    return {
        "mlp": MLPClassifier((12,), max_iter=2000, random_state=seed), "logistic": LogisticRegression(max_iter=2000),
        "random_forest": RandomForestClassifier(200, random_state=seed),
        "gradient_boosting": GradientBoostingClassifier(random_state=seed),
        "svm": SVC(probability=True, random_state=seed), "knn": KNeighborsClassifier(15),
        "tree": DecisionTreeClassifier(min_samples_leaf=5, random_state=seed), "naive_bayes": GaussianNB(),
    }


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    if "steps" in pa:
        return len(pa["steps"]) == len(pb["steps"]) and all(
            na == nb and _same(ea, eb) for (na, ea), (nb, eb) in zip(pa["steps"], pb["steps"]))
    return pa == pb


def test_every_benchmark_pool_member_is_a_registry_key_and_builds_as_before():
    members = {n for pool in POOLS.values() for n in pool}
    assert members <= set(REGISTRY)
    assert members == set(BENCHMARK)
    built = classifier_pool(sorted(members))
    assert [n for n in built if not _same(built[n], BENCHMARK[n])] == []
    assert len(classifier_pool("default")) == 36 and list(classifier_pool("paper"))[:2] == ["GaussianNB", "BernoulliNB"]


def test_mlc_names_resolve_through_the_registry_and_build_as_before():
    assert CLASSIFIERS == tuple(MLC_NAMES) and set(MLC_NAMES.values()) <= set(REGISTRY)
    seed = 11
    for name, ref in _mlc_reference(None).items():
        assert _same(make_classifier(name).steps[-1][1], ref), name
    # a seed reaches the random ones through the same draw as before
    import numpy as np
    drawn = int(np.random.default_rng(seed).integers(2**31 - 1))
    for name, ref in _mlc_reference(drawn).items():
        model = make_classifier(name.upper(), random_state=seed)  # old spellings ignore case
        assert [s[0] for s in model.steps[:2]] == ["simpleimputer", "standardscaler"]
        assert _same(model.steps[-1][1], ref), name
    # the one spelling works in the MLC too
    assert _same(make_classifier("KNN3").steps[-1][1], KNeighborsClassifier(3))
    with pytest.raises(ValidationError, match="classifier='perceptron' is not supported"):
        make_classifier("perceptron")


def test_hardness_pool_resolves_through_the_registry_and_builds_as_before():
    assert set(HARDNESS_NAMES.values()) <= set(REGISTRY)
    ref = {
        "tree": DecisionTreeClassifier(min_samples_leaf=2, random_state=3),
        "knn5": make_pipeline(MinMaxScaler(), KNeighborsClassifier(n_neighbors=5)),
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive_bayes": GaussianNB(), "random_forest": RandomForestClassifier(100, random_state=3),
    }
    pool = default_estimators(3)
    assert list(pool) == list(ref)
    assert [n for n in ref if not _same(pool[n], ref[n])] == []


def test_display_names_come_from_the_registry():
    # what the report printed for the MLC's classifier before the registry
    expected = {"mlp": "multilayer perceptron", "logistic": "logistic regression", "random_forest": "random forest",
                "gradient_boosting": "gradient boosting", "svm": "support vector machine",
                "knn": "k-nearest neighbours", "tree": "decision tree", "naive_bayes": "naive Bayes"}
    assert {n: display_name(n, MLC_NAMES) for n in expected} == expected
    assert display_name("SVM_linear") == "support vector machine" and display_name("MyEstimator") == "MyEstimator"
    assert irtbridge.classifiers.classifier_spec("KNN13").params == {"n_neighbors": 13}


def test_unknown_names_are_one_line_errors():
    with pytest.raises(ValidationError, match="classifier='Perceptron' is not supported"):
        classifier_spec("Perceptron")
    with pytest.raises(ValidationError, match="pool members \\['Nope'\\] are unknown"):
        classifier_pool(["SVM", "Nope"])


def test_no_module_but_the_registry_builds_a_named_classifier():
    # scikit-learn's estimator classes are imported only by irtbridge/classifiers.py
    families = ("sklearn.svm", "sklearn.naive_bayes", "sklearn.neighbors", "sklearn.tree", "sklearn.ensemble",
                "sklearn.neural_network", "sklearn.linear_model")
    package = Path(irtbridge.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        if path.name == "classifiers.py" and path.parent == package:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(families):
                offenders.append(f"{path.relative_to(package)}: {node.module}")
            elif isinstance(node, ast.Import) and any(a.name.startswith(families) for a in node.names):
                offenders.append(str(path.relative_to(package)))
    assert offenders == []
