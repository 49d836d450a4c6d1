"""The one registry of the scikit-learn classifiers irtbridge builds by name.

Every classifier the package builds by name (the decodIRT respondent pools of :mod:`irtbridge.decodirt`,
the MLC's classifiers, Prudêncio's five-model hardness pool) has one entry here: its **key** (the one
spelling: the family in CamelCase, then the setting that differs from scikit-learn's default, e.g.
``"KNN5"``, ``"SVM_C10"``, ``"DecisionTree_leaf5"``), a display name, and how to build it. The decodIRT
keys are the respondent names the benchmark's tables show. Where a pool has its own user-facing names
(the MLC's ``"mlp"``, the hardness pool's ``"knn5"``), :data:`MLC_NAMES` and :data:`HARDNESS_NAMES` map
them to keys, so those spellings keep working and nothing else names a classifier.

scikit-learn is imported only when a classifier is built.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from irtbridge._constraints import RandomState, constraints
from irtbridge.exceptions import ValidationError

__all__ = ["ClassifierSpec", "REGISTRY", "MLC_NAMES", "HARDNESS_NAMES", "classifier_spec", "build_classifier",
           "display_name"]

# family -> (display name, estimator class as "module.Class", whether it takes random_state)
_FAMILIES = {
    "GaussianNB": ("naive Bayes", "sklearn.naive_bayes.GaussianNB", False),
    "BernoulliNB": ("Bernoulli naive Bayes", "sklearn.naive_bayes.BernoulliNB", False),
    "KNN": ("k-nearest neighbours", "sklearn.neighbors.KNeighborsClassifier", False),
    "DecisionTree": ("decision tree", "sklearn.tree.DecisionTreeClassifier", True),
    "RandomForest": ("random forest", "sklearn.ensemble.RandomForestClassifier", True),
    "GradientBoosting": ("gradient boosting", "sklearn.ensemble.GradientBoostingClassifier", True),
    "SVM": ("support vector machine", "sklearn.svm.SVC", True),
    "MLP": ("multilayer perceptron", "sklearn.neural_network.MLPClassifier", True),
    "Logistic": ("logistic regression", "sklearn.linear_model.LogisticRegression", False),
}
_SCALERS = {"minmax": "sklearn.preprocessing.MinMaxScaler", "standard": "sklearn.preprocessing.StandardScaler"}


@dataclass(frozen=True)
class ClassifierSpec:
    """One classifier: its key, its family and the hyper-parameters that differ from scikit-learn's.

    Attributes
    ----------
    key : str
        The one spelling (also the respondent name in the benchmark's tables).
    family : str
        A key of the family table (``"KNN"``, ``"SVM"``, ...): the estimator class and display name.
    params : mapping
        Keyword arguments of the estimator.
    scaler : {None, "minmax", "standard"}
        A scaler put in front (``make_pipeline(scaler, estimator)``).

    Examples
    --------
    >>> from irtbridge.classifiers import classifier_spec
    >>> spec = classifier_spec("KNN5_distance")
    >>> spec.display, dict(spec.params)
    ('k-nearest neighbours', {'n_neighbors': 5, 'weights': 'distance'})
    >>> spec.build().get_params()["weights"]
    'distance'
    """

    key: str
    family: str
    params: Mapping[str, Any] = field(default_factory=dict)
    scaler: str | None = None

    @property
    def display(self) -> str:
        """What a report calls it, e.g. "support vector machine"."""
        return _FAMILIES[self.family][0]

    def build(self, random_state: int | None = None) -> Any:
        """An unfitted estimator; ``random_state`` is passed to the families that take one (when not None).

        Parameters
        ----------
        random_state : int, optional
            The estimator's seed.

        Returns
        -------
        estimator
            The estimator (in a pipeline behind its scaler when the spec has one).
        """
        _, path, seeded = _FAMILIES[self.family]
        params = dict(self.params)
        if seeded and random_state is not None:
            params["random_state"] = random_state
        estimator = _class(path)(**params)
        if self.scaler is None:
            return estimator
        from sklearn.pipeline import make_pipeline  # heavy: only when a classifier is built

        return make_pipeline(_class(_SCALERS[self.scaler])(), estimator)


def _class(path: str) -> type:
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def _specs() -> dict[str, ClassifierSpec]:
    entries = [
        ClassifierSpec("GaussianNB", "GaussianNB"),
        ClassifierSpec("GaussianNB_vs0.01", "GaussianNB", {"var_smoothing": 1e-2}),
        ClassifierSpec("BernoulliNB", "BernoulliNB"),
        ClassifierSpec("BernoulliNB_a10", "BernoulliNB", {"alpha": 10.0}),
        *(ClassifierSpec(f"KNN{k}", "KNN", {"n_neighbors": k}) for k in (1, 2, 3, 4, 5, 8, 13, 15, 21)),
        ClassifierSpec("KNN5_distance", "KNN", {"n_neighbors": 5, "weights": "distance"}),
        ClassifierSpec("KNN5_minmax", "KNN", {"n_neighbors": 5}, scaler="minmax"),
        ClassifierSpec("DecisionTree", "DecisionTree"),
        *(ClassifierSpec(f"DecisionTree_d{d}", "DecisionTree", {"max_depth": d}) for d in (1, 2, 3, 5, 8)),
        ClassifierSpec("DecisionTree_leaf2", "DecisionTree", {"min_samples_leaf": 2}),
        ClassifierSpec("DecisionTree_leaf5", "DecisionTree", {"min_samples_leaf": 5}),
        ClassifierSpec("RandomForest", "RandomForest"),
        *(ClassifierSpec(f"RandomForest{n}", "RandomForest", {"n_estimators": n}) for n in (3, 5, 10, 25, 200)),
        ClassifierSpec("RandomForest_d3", "RandomForest", {"max_depth": 3}),
        ClassifierSpec("GradientBoosting", "GradientBoosting"),
        ClassifierSpec("SVM", "SVM"),
        ClassifierSpec("SVM_C0.1", "SVM", {"C": 0.1}),
        ClassifierSpec("SVM_C10", "SVM", {"C": 10.0}),
        ClassifierSpec("SVM_linear", "SVM", {"kernel": "linear"}),
        ClassifierSpec("SVM_poly", "SVM", {"kernel": "poly"}),
        ClassifierSpec("SVM_proba", "SVM", {"probability": True}),
        ClassifierSpec("MLP", "MLP"),
        *(ClassifierSpec(f"MLP_{n}", "MLP", {"hidden_layer_sizes": (n,)}) for n in (10, 50)),
        ClassifierSpec("MLP_100x100", "MLP", {"hidden_layer_sizes": (100, 100)}),
        ClassifierSpec("MLP_alpha1", "MLP", {"alpha": 1.0}),
        # the MLC's network: one hidden layer of 12 units, inside the grid the MLC paper searched (6-30)
        ClassifierSpec("MLP_12", "MLP", {"hidden_layer_sizes": (12,), "max_iter": 2000}),
        ClassifierSpec("Logistic", "Logistic", {"max_iter": 2000}),
        ClassifierSpec("Logistic_scaled", "Logistic", {"max_iter": 1000}, scaler="standard"),
    ]
    return {s.key: s for s in entries}


#: every classifier by key
REGISTRY: Mapping[str, ClassifierSpec] = _specs()

#: the MLC's classifier names (:data:`irtbridge.mlc.CLASSIFIERS`) -> keys
MLC_NAMES: Mapping[str, str] = {
    "mlp": "MLP_12", "logistic": "Logistic", "random_forest": "RandomForest200",
    "gradient_boosting": "GradientBoosting", "svm": "SVM_proba", "knn": "KNN15", "tree": "DecisionTree_leaf5",
    "naive_bayes": "GaussianNB",
}

#: Prudêncio's five-model pool (:func:`irtbridge.hardness.default_estimators`): its model names -> keys.
#: Weka's J48 (-M 2), IBk (k = 5, attributes normalised), Logistic, NaiveBayes, RandomForest (100 trees).
HARDNESS_NAMES: Mapping[str, str] = {
    "tree": "DecisionTree_leaf2", "knn5": "KNN5_minmax", "logistic": "Logistic_scaled",
    "naive_bayes": "GaussianNB", "random_forest": "RandomForest",
}


def classifier_spec(name: str, names: Mapping[str, str] | None = None, *, parameter: str = "classifier") -> ClassifierSpec:
    """The registry entry of ``name``: a key, or a name of ``names`` (compared ignoring case).

    Parameters
    ----------
    name : str
    names : mapping, optional
        A pool's own names -> keys (e.g. :data:`MLC_NAMES`), looked up first.
    parameter : str
        The parameter named in the error.

    Returns
    -------
    ClassifierSpec
        The registry entry.

    Raises
    ------
    ValidationError
        ``name`` is neither.

    Examples
    --------
    >>> from irtbridge.classifiers import MLC_NAMES, classifier_spec
    >>> classifier_spec("MLP", MLC_NAMES).key, classifier_spec("RandomForest25").key
    ('MLP_12', 'RandomForest25')
    """
    if isinstance(name, str):
        for own, key in (names or {}).items():
            if own.lower() == name.lower():
                return REGISTRY[key]
        if name in REGISTRY:
            return REGISTRY[name]
    own = ", ".join(map(repr, names or {}))
    keys = "a key of irtbridge.classifiers.REGISTRY" if names else ", ".join(map(repr, REGISTRY))
    raise ValidationError(f"{parameter}={name!r} is not supported; use one of {own + ' or ' if own else ''}{keys}")


@constraints(random_state=RandomState(allow="sklearn"))
def build_classifier(name: str, random_state: Any = None, names: Mapping[str, str] | None = None) -> Any:
    """An unfitted estimator by key (or by a name of ``names``); see :class:`ClassifierSpec`.

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY` or a name of ``names``.
    random_state : None, int or numpy.random.RandomState, optional
        Passed to the estimator when it takes one (scikit-learn's kinds: an integer from 0 to 2**32 - 1; a
        numpy Generator, which scikit-learn refuses when fitting, is refused here at once).
    names : mapping of str to str, optional
        A pool's own names -> keys, looked up first.

    Returns
    -------
    estimator
        The unfitted scikit-learn estimator.

    Examples
    --------
    >>> from irtbridge.classifiers import build_classifier
    >>> type(build_classifier("SVM_linear")).__name__
    'SVC'
    """
    return classifier_spec(name, names).build(random_state)


def display_name(name: str, names: Mapping[str, str] | None = None) -> str:
    """The display name of a key or a name of ``names``; anything else (an estimator's class name) as given.

    Parameters
    ----------
    name : str
        A key, a name of ``names``, or anything else.
    names : mapping of str to str, optional
        A pool's own names -> keys, looked up first.

    Returns
    -------
    str
        The display name.

    Examples
    --------
    >>> from irtbridge.classifiers import MLC_NAMES, display_name
    >>> display_name("mlp", MLC_NAMES), display_name("KNN3"), display_name("MyModel")
    ('multilayer perceptron', 'k-nearest neighbours', 'MyModel')
    """
    try:
        return classifier_spec(name, names).display
    except ValidationError:
        return str(name)
