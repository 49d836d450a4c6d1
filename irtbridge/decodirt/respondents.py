"""The respondents of a benchmark: a pool of scikit-learn classifiers and decodIRT's artificial ones.

In IRT terms a classifier is a respondent, a test instance is an item, and a response is 1 when the
classifier labels the instance correctly. The paper's 12 standard models come with hyper-parameter
variants of the same families so that 3PL calibration sees enough respondents (about 40 with the
artificial ones); the artificial respondents are its baselines: optimal (every answer right),
pessimal (every answer wrong), majority and minority (always the training set's most / least frequent
class) and random guessers.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Int, RandomState, constraints
from irtbridge._validation import check_choice, check_int
from irtbridge.classifiers import REGISTRY
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level

__all__ = [
    "PAPER_MODELS",
    "POOLS",
    "ARTIFICIAL",
    "classifier_pool",
    "fit_predict_pool",
    "fit_predict_score_pool",
    "artificial_responses",
    "response_matrix",
]

# Members are keys of irtbridge.classifiers.REGISTRY, which builds them; a key is the respondent name.

#: the 12 classifiers of decodIRT's second set (scikit-learn defaults unless named)
PAPER_MODELS = (
    "GaussianNB", "BernoulliNB", "KNN2", "KNN3", "KNN5", "KNN8", "DecisionTree",
    "RandomForest3", "RandomForest5", "RandomForest", "SVM", "MLP",
)

# extra members of the same families: the default pool is PAPER_MODELS + these
_VARIANTS = (
    "GaussianNB_vs0.01", "BernoulliNB_a10",
    "KNN1", "KNN4", "KNN13", "KNN21", "KNN5_distance",
    "DecisionTree_d1", "DecisionTree_d2", "DecisionTree_d3", "DecisionTree_d5", "DecisionTree_d8",
    "DecisionTree_leaf5",
    "RandomForest10", "RandomForest25", "RandomForest_d3",
    "SVM_C0.1", "SVM_C10", "SVM_linear", "SVM_poly",
    "MLP_10", "MLP_50", "MLP_100x100", "MLP_alpha1",
)

_QUICK = (
    "GaussianNB", "BernoulliNB", "KNN1", "KNN3", "KNN8", "DecisionTree", "DecisionTree_d2",
    "RandomForest5", "RandomForest25", "SVM", "SVM_linear", "MLP_10",
)

#: named pools: "paper" (the 12), "default" (the 12 and 24 variants: 36 + 7 artificial = 43
#: respondents), "quick" (12 fast ones, for smoke runs)
POOLS = {"paper": PAPER_MODELS, "default": PAPER_MODELS + _VARIANTS, "quick": _QUICK}

#: names of the artificial respondents (random guessers are rand1, rand2, ...)
ARTIFICIAL = ("optimal", "pessimal", "majority", "minority")


def classifier_pool(pool: Any = "default") -> dict[str, Any]:
    """Unfitted scikit-learn classifiers keyed by respondent name.

    Parameters
    ----------
    pool : {"default", "paper", "quick"}, sequence of names, or mapping of name -> estimator
        A named pool (see :data:`POOLS`), a list of classifier keys of
        :data:`irtbridge.classifiers.REGISTRY` (e.g. ``["SVM", "KNN13"]``), or your own
        ``{name: estimator}`` (any object with ``fit`` and ``predict``; estimators are cloned before
        fitting).

    Returns
    -------
    dict of str -> estimator

    Notes
    -----
    The paper's 12: Gaussian and Bernoulli naive Bayes, KNN with 2, 3, 5 and 8 neighbours, a
    decision tree, random forests with 3, 5 and 100 trees, an RBF SVM and an MLP, all with
    scikit-learn's defaults otherwise. Variants in ``"default"``: KNN with 1, 4, 13, 21 and 5
    distance-weighted neighbours, trees of depth 1, 2, 3, 5, 8 and with 5 samples per leaf, forests of
    10 and 25 trees and of depth 3, SVMs with C = 0.1 and 10 and linear and polynomial kernels, MLPs
    with 10, 50 and 100x100 hidden units and with alpha = 1, Gaussian NB with var_smoothing 0.01 and
    Bernoulli NB with alpha 10.

    Examples
    --------
    >>> sorted(classifier_pool(["SVM", "KNN3"]))
    ['KNN3', 'SVM']
    >>> len(classifier_pool("default"))
    36
    """
    if isinstance(pool, str):
        members = POOLS[check_choice(pool, "pool", POOLS, ignore_case=True)]
        return {n: REGISTRY[n].build() for n in members}
    if isinstance(pool, Mapping):
        if not pool:
            raise ValidationError("pool is empty; give at least one classifier")
        bad = [str(k) for k, v in pool.items() if not (hasattr(v, "fit") and hasattr(v, "predict"))]
        if bad:
            raise ValidationError(f"pool entries {bad[:5]} are not estimators (need fit and predict)")
        clash = [str(k) for k in pool if str(k) in ARTIFICIAL or str(k).startswith("rand")]
        if clash:
            raise ValidationError(f"pool names {clash[:5]} clash with the artificial respondents' names; rename them")
        return {str(k): v for k, v in pool.items()}
    names = list(pool) if not isinstance(pool, (bytes, bytearray)) else None
    if not names or not all(isinstance(n, str) for n in names):
        raise ValidationError(
            f"pool must be 'default', 'paper', 'quick', a list of member names or a dict of estimators; got {pool!r}"
        )
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise ValidationError(
            f"pool members {unknown[:5]} are unknown; known members: {', '.join(sorted(REGISTRY))} (or pass a dict of estimators)"
        )
    if len(set(names)) != len(names):
        raise ValidationError(f"pool lists a member twice: {sorted({n for n in names if names.count(n) > 1})}")
    # built unseeded: fit_predict_score_pool seeds every member that takes a random_state
    return {n: REGISTRY[n].build() for n in names}


#: scikit-learn's random_state: handed to the members' set_params as it is
_SKLEARN_STATE = RandomState(allow="sklearn")


@constraints(random_state=_SKLEARN_STATE)
def fit_predict_pool(
    pool: Mapping[str, Any],
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    *,
    random_state: int = 0,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """Fit every classifier on the training part and predict the test part.

    Parameters
    ----------
    pool : mapping of str to estimator
        Respondent name -> unfitted scikit-learn classifier.
    X_train : ndarray
        Training features.
    y_train : ndarray
        Training labels.
    X_test : ndarray
        Test features (the items).
    random_state : None, int or numpy.random.RandomState, default 0
        Seeds each classifier that takes a ``random_state`` (scikit-learn's kinds: an integer from 0 to
        2**32 - 1; a numpy Generator is refused).

    Returns
    -------
    predictions : pandas.DataFrame
        Respondents x test instances (positions 0..n_test-1), predicted labels.
    failures : dict of str -> str
        Classifiers that raised while fitting or predicting, with the error; they are left out.
    """
    predictions, _, failures = fit_predict_score_pool(pool, X_train, y_train, X_test, random_state=random_state)
    return predictions, failures


@constraints(random_state=_SKLEARN_STATE)
def fit_predict_score_pool(
    pool: Mapping[str, Any],
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    *,
    positive: Any = None,
    random_state: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame | None, dict[str, str]]:
    """:func:`fit_predict_pool` that also keeps each classifier's score ``P(y = positive)``.

    Parameters
    ----------
    positive : label, optional
        The positive class of a binary task (a value of ``y_train``); None: no scores.
    pool : mapping of str to estimator
        Respondent name -> unfitted scikit-learn classifier.
    X_train : ndarray
        Training features.
    y_train : ndarray
        Training labels.
    X_test : ndarray
        Test features (the items).
    random_state : None, int or numpy.random.RandomState, default 0
        Seeds each classifier that takes a ``random_state`` (scikit-learn's kinds: an integer from 0 to
        2**32 - 1; a numpy Generator is refused).

    Returns
    -------
    predictions : pandas.DataFrame
        Respondents x test positions, predicted labels.
    scores : pandas.DataFrame or None
        Same shape: ``predict_proba``'s column of ``positive``, or 1/0 (predicted positive or not) for
        a classifier without probabilities (e.g. an SVM without ``probability=True``). None when
        ``positive`` is None.
    failures : dict of str -> str
        Classifiers that raised while fitting or predicting, with the error; they are left out.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X = np.array([[0.0], [0.1], [1.0], [1.1]]); y = np.array([0, 0, 1, 1])
    >>> pred, scores, failed = fit_predict_score_pool({"nb": GaussianNB()}, X, y, X, positive=1)
    >>> pred.loc["nb"].tolist(), bool((scores.loc["nb"] > 0.5).tolist() == [False, False, True, True])
    ([0, 0, 1, 1], True)
    """
    from sklearn.base import clone  # scikit-learn (~1.3 s) loads when it is used
    from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning  # scikit-learn (~1.3 s) loads when it is used

    rows: dict[str, np.ndarray] = {}
    scored: dict[str, np.ndarray] = {}
    failures: dict[str, str] = {}
    for name, estimator in pool.items():
        try:
            model = clone(estimator)
        except TypeError:
            model = estimator  # not a scikit-learn estimator: use as given
        params = model.get_params() if hasattr(model, "get_params") else {}
        if "random_state" in params and params["random_state"] is None:
            model.set_params(random_state=random_state)
        try:
            with warnings.catch_warnings():
                # MLPs at scikit-learn's default max_iter often stop early: that is the paper's "standard MLP"
                warnings.simplefilter("ignore", SkConvergenceWarning)
                model.fit(X_train, y_train)
                rows[name] = np.asarray(model.predict(X_test))
        except Exception as exc:  # noqa: BLE001 - one broken model must not sink the dataset
            failures[name] = f"{type(exc).__name__}: {exc}"
            continue
        if positive is not None:
            scored[name] = _positive_score(model, X_test, rows[name], positive)
    if not rows:
        raise ValidationError(f"every classifier of the pool failed; first error: {next(iter(failures.values()))}")
    scores = pd.DataFrame.from_dict(scored, orient="index") if positive is not None else None
    return pd.DataFrame.from_dict(rows, orient="index"), scores, failures


def _positive_score(model: Any, X_test: np.ndarray, predicted: np.ndarray, positive: Any) -> np.ndarray:
    # P(y = positive) from predict_proba when the model has it; its hard decision (1/0) otherwise
    classes = list(getattr(model, "classes_", ()))
    if hasattr(model, "predict_proba") and positive in classes:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                proba = np.asarray(model.predict_proba(X_test), dtype=float)
            return np.clip(proba[:, classes.index(positive)], 0.0, 1.0)
        except Exception:  # noqa: BLE001 - e.g. SVC(probability=False) exposes the method but raises
            pass
    return (predicted == positive).astype(float)


@constraints(n_random=Int(low=0), random_state=Int(low=0))
def artificial_responses(
    y_train: Any,
    y_test: Any,
    *,
    n_random: int = 3,
    random_state: int = 0,
) -> pd.DataFrame:
    """Responses (1 = correct) of the artificial respondents on the test instances.

    Parameters
    ----------
    y_train, y_test : array_like
        Class labels of the training and the test part.
    n_random : int, default 3
        Number of random guessers (``rand1``, ``rand2``, ...).
    random_state : int, default 0

    Returns
    -------
    pandas.DataFrame of int8
        Rows ``optimal, pessimal, majority, minority, rand1..rand{n_random}``; one column per test
        instance (positions 0..n_test-1).

    Notes
    -----
    optimal: 1 everywhere; pessimal: 0 everywhere; majority / minority: predicts the class that is
    most / least frequent in ``y_train`` (ties go to the first label in sorted order), so it is correct
    exactly where ``y_test`` is that class; rand k: predicts labels drawn uniformly from the sorted
    training classes by ``numpy.random.default_rng([random_state, k]).choice(classes, n_test)``.

    Examples
    --------
    >>> artificial_responses(["a", "a", "b"], ["a", "b"], n_random=0).to_numpy().tolist()
    [[1, 1], [0, 0], [1, 0], [0, 1]]
    """
    n_random = check_int(n_random, "n_random", low=0)
    random_state = check_int(random_state, "random_state", low=0)
    train = np.asarray(y_train)
    test = np.asarray(y_test)
    classes, counts = np.unique(train, return_counts=True)
    missing = np.setdiff1d(np.unique(test), classes)
    if missing.size:
        warnings.warn(
            f"test classes {missing[:5].tolist()} do not occur in training; majority/minority/random never predict them",
            DataWarning,
            stacklevel=find_stack_level(),
        )
    rows = {
        "optimal": np.ones(test.size, dtype=np.int8),
        "pessimal": np.zeros(test.size, dtype=np.int8),
        "majority": (test == classes[np.argmax(counts)]).astype(np.int8),
        "minority": (test == classes[np.argmin(counts)]).astype(np.int8),
    }
    for k in range(1, n_random + 1):
        guess = np.random.default_rng([random_state, k]).choice(classes, test.size)
        rows[f"rand{k}"] = (guess == test).astype(np.int8)
    return pd.DataFrame.from_dict(rows, orient="index")


def response_matrix(predictions: pd.DataFrame, y_test: Any) -> pd.DataFrame:
    """Score predictions against the truth: 1 where a respondent's label is right, else 0.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Respondents x test instances, predicted labels.
    y_test : array_like
        True labels, one per column of ``predictions``.

    Returns
    -------
    pandas.DataFrame of int8, labelled like ``predictions``.

    Examples
    --------
    >>> import pandas as pd
    >>> response_matrix(pd.DataFrame([["a", "b"]], index=["knn"]), ["a", "a"]).to_numpy().tolist()
    [[1, 0]]
    """
    truth = np.asarray(y_test)
    if predictions.shape[1] != truth.size:
        raise ValidationError(f"predictions have {predictions.shape[1]} columns but y_test has {truth.size} labels")
    values = predictions.to_numpy() == truth[None, :]
    return pd.DataFrame(values.astype(np.int8), index=predictions.index, columns=predictions.columns)
