"""The whole MLC evaluation of one classifier on one binary data set (:func:`evaluate_mlc`)."""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Number, RandomState, constraints
from irtbridge._validation import check_random_state
from irtbridge.exceptions import DataWarning, ValidationError, find_stack_level
from irtbridge.mlc._checks import binary_labels, feature_table
from irtbridge.mlc.prepare import CLASSIFIERS, FEATURES, make_classifier
from irtbridge.mlc.difficulty import CaseDifficulty, binned_split, case_difficulty, difficulty_bins, feature_orientation
from irtbridge.mlc.result import MLCResult
from irtbridge.mlc.staircase import StaircaseSettings, run_mlc_cat

__all__ = ["evaluate_mlc"]

_METRICS = ("accuracy", "precision", "recall", "f1", "auc")


def _traditional(classifier, X_test: pd.DataFrame, y_test: np.ndarray, n_total: int) -> pd.DataFrame:
    from sklearn import metrics  # loads with its use, not with the CLI's parser (~0.4 s)

    def scores():
        if hasattr(classifier, "predict_proba"):
            return classifier.predict_proba(X_test)[:, 1]
        if hasattr(classifier, "decision_function"):
            return classifier.decision_function(X_test)
        return classifier.predict(X_test)

    fns = {
        "accuracy": lambda: metrics.accuracy_score(y_test, classifier.predict(X_test)),
        "precision": lambda: metrics.precision_score(y_test, classifier.predict(X_test), zero_division=0),
        "recall": lambda: metrics.recall_score(y_test, classifier.predict(X_test), zero_division=0),
        "f1": lambda: metrics.f1_score(y_test, classifier.predict(X_test), zero_division=0),
        "auc": lambda: metrics.roc_auc_score(y_test, scores()) if len(np.unique(y_test)) == 2 else float("nan"),
    }
    rows = {}
    for name in _METRICS:
        # each metric timed as if computed alone, predictions of the test part included (as Tables 4-5)
        t0 = time.perf_counter()
        value = float(fns[name]())
        rows[name] = {"value": value, "n_cases": len(y_test), "share": len(y_test) / n_total,
                      "seconds": time.perf_counter() - t0}
    return pd.DataFrame.from_dict(rows, orient="index")


def _classifier(classifier: Any, rng: np.random.Generator) -> tuple[Any, str]:
    """An unfitted estimator and its name, from a name of CLASSIFIERS or an estimator (cloned)."""
    if isinstance(classifier, str):
        return make_classifier(classifier, random_state=rng), classifier
    if not (hasattr(classifier, "fit") and hasattr(classifier, "predict")):
        raise ValidationError(f"classifier must be a name ({', '.join(CLASSIFIERS)}) or an estimator with fit/predict")
    from sklearn import base  # loads with its use, not with the CLI's parser (~0.4 s)

    return base.clone(classifier), type(classifier).__name__


def _direction(difficulty: CaseDifficulty, labels: pd.Series, train: pd.Series) -> tuple[int, pd.DataFrame]:
    """The sign that makes a higher CDI read "more like class 1", and each feature's orientation, from
    the training part only (see the Notes of :func:`evaluate_mlc`)."""
    raw = difficulty.cdi
    corr = np.corrcoef(raw[train].to_numpy(), labels[train].to_numpy())[0, 1]
    sign = -1 if corr < 0 else 1
    orient = feature_orientation(difficulty.items[train.to_numpy()], labels[train])
    slopes = difficulty.calibration.items["a"].reindex(orient.index) * sign
    orientation = pd.DataFrame(
        {"orientation": orient, "slope": slopes, "concordant": np.sign(slopes.to_numpy()) == orient.to_numpy()}
    )
    return sign, orientation


# the declarations of the functions each parameter reaches: encode_features, case_difficulty, binned_split, difficulty_bins
@constraints(features=Choice(FEATURES), cdi_method=Choice(("EAP", "MAP", "WLE"), ignore_case=True),
             test_size=Number(low=0.0, high=1.0, low_open=True, high_open=True), bin_width=Number(low=0.0, low_open=True),
             random_state=RandomState())
def evaluate_mlc(
    X: Any,
    y: Any,
    classifier: Any = "mlp",
    *,
    features: str = "binary",
    positive: Any = None,
    difficulty: CaseDifficulty | None = None,
    cdi_method: str = "EAP",
    test_size: float = 0.3,
    bin_width: float = 0.25,
    random_state: Any = None,
    **staircase: Any,
) -> MLCResult:
    """Evaluate a classifier with the Machine Learning Capability procedure of the MLC paper.

    Parameters
    ----------
    X : pandas.DataFrame or 2-D array
        Cases x numeric features. The classifier is trained on ``X`` itself; the CDIs come from ``X``
        encoded as items (see ``features``).
    y : array-like or pandas.Series
        Two classes; class 1 is ``positive`` (default: the larger value, e.g. 1, ``"pos"``). In the paper
        class 1 is "dead" / "pulsar".
    classifier : str or scikit-learn classifier
        A name of :data:`CLASSIFIERS` (see :func:`make_classifier`) or any unfitted estimator with
        ``fit``/``predict`` (cloned, never modified).
    features : {"binary", "quartiles"}
        How features become items (:func:`encode_features`): 2PL on 0/1 features or graded on quartiles.
    difficulty : CaseDifficulty, optional
        Precomputed :func:`case_difficulty` of ``X`` (calibrate once, evaluate several classifiers).
    cdi_method : {"EAP", "MAP", "WLE"}
        Scoring of the cases when ``difficulty`` is not given.
    test_size : float, default 0.3
    bin_width : float, default 0.25
        The binned split (:func:`binned_split`): 30 % test within bins of 0.25 sigma.
    random_state : None, int or numpy.random.Generator
        Seeds the split, the classifier (when named) and the CAT noise: the same seed gives the same
        result.
    **staircase
        The CAT of each class (:func:`run_mlc_cat`): the settings of :class:`StaircaseSettings`
        (``start_percentile``, ``step``, ``noise``, ``se_rule``, ``window``, ``reliability``, ``sigma``,
        ``min_cases``, ``max_cases``), with the paper's values as defaults.
    positive : label, optional
        The class called 1 (see ``y``).

    Returns
    -------
    MLCResult

    Notes
    -----
    The direction of the CDI scale. IRT fixes the latent scale only up to its sign, and turning one
    item around (``x -> top - x``) turns its parameters around (2PL: ``a -> -a``; graded:
    ``a -> -a`` with the thresholds in reverse order) without changing the likelihood, hence without
    changing any case's ability. Orienting the features (the paper inverted two Pulsar features) therefore
    matters only through the direction of the scale. That direction, and each feature's orientation, are
    learned on the training part only: ``cdi_sign`` is the sign of the correlation between the
    calibration's abilities and the class among the training cases, and the orientation of each feature
    is the sign of its class-1 minus class-0 mean among the training cases. The calibration itself never
    sees a label. The split is drawn before the sign is known, and does not depend on it, because the bin
    grid is symmetric about zero.

    Rounding noise. Every discrete choice on CDIs (the bin of a case, the nearest case of the CAT, the
    decision rule) treats numbers within ``1e-9 * max(1, scale)`` as equal and breaks ties by case order
    (``irtbridge._ties``; see :func:`difficulty_bins` and :func:`run_mlc_cat`), so CDIs that differ only
    in their last bits (a calibration with its scale turned around, another BLAS) give the same result.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> data = load_breast_cancer(as_frame=True)
    >>> X, y = data.data.iloc[:, :5], data.target
    >>> res = evaluate_mlc(X, y, "logistic", features="quartiles", random_state=1)   # doctest: +R
    >>> list(res.table().index)
    ['accuracy', 'precision', 'recall', 'f1', 'auc', 'MLC (class 1)', 'MLC (class 0)']
    >>> sorted(res.mlc)
    [0, 1]
    """
    stair = StaircaseSettings.of(staircase)  # a misspelt setting fails before anything is fitted
    frame = feature_table(X)
    if frame.index.has_duplicates:
        raise ValidationError(
            "X has duplicate row labels; the CAT identifies cases by label, so give each row its own (reset_index)"
        )
    if len(y) != len(frame):
        raise ValidationError(f"X has {len(frame)} rows but y has {len(y)}")
    labels, mapping = binary_labels(pd.Series(np.asarray(y), index=frame.index), positive)
    if labels.value_counts().min() < 2:
        raise ValidationError("each class needs at least two cases")
    rng = check_random_state(random_state)
    model, classifier_name = _classifier(classifier, rng)

    if difficulty is None:
        difficulty = case_difficulty(frame, features, method=cdi_method)
    elif not isinstance(difficulty, CaseDifficulty):
        raise ValidationError("difficulty must be a CaseDifficulty from irtbridge.mlc.case_difficulty")
    elif not difficulty.cdi.index.equals(frame.index):
        raise ValidationError("difficulty was computed on other cases (its index differs from X's)")
    raw = difficulty.cdi

    test = binned_split(raw, test_size, bin_width, rng)
    train = ~test
    if labels[test].nunique() < 2 or labels[train].nunique() < 2:
        raise ValidationError("the split left a class without test or training cases; more cases are needed")

    sign, orientation = _direction(difficulty, labels, train)
    cdi = (raw * sign).rename("cdi")
    bins = difficulty_bins(cdi, bin_width)

    model.fit(frame[train.to_numpy()], labels[train].to_numpy())
    X_test, y_test = frame[test.to_numpy()], labels[test].to_numpy()
    traditional = _traditional(model, X_test, y_test, len(frame))
    predicted = pd.Series(np.nan, index=frame.index)
    predicted[test.to_numpy()] = model.predict(X_test)

    diff = pd.Series(np.where(labels == 1, -cdi, cdi), index=frame.index, name="difficulty")
    cats = []
    for k in (1, 0):
        pool = test & (labels == k)
        ids = frame.index[pool.to_numpy()]

        def respond(case, _k=k):
            # one case at a time through the classifier, as the paper timed it
            return int(model.predict(frame.loc[[case]])[0]) == _k

        cats.append(
            run_mlc_cat(diff[ids], respond, label=k, cdi=cdi[ids], n_total=len(frame), random_state=rng, **stair.options())
        )
    cases = pd.DataFrame({"y": labels, "cdi": cdi, "difficulty": diff, "bin": bins, "test": test, "predicted": predicted})
    cases["correct"] = np.where(test, cases["predicted"] == cases["y"], np.nan)
    for c in cats:
        if not c.converged:
            warnings.warn(
                f"the MLC CAT of class {c.label} did not converge ({c.stop} after {c.cases_used} cases); its MLC is "
                "the last running estimate",
                DataWarning,
                stacklevel=find_stack_level(),
            )
    return MLCResult(
        classes=tuple(cats),
        traditional=traditional,
        cases=cases,
        orientation=orientation,
        cdi_sign=sign,
        difficulty_model=difficulty,
        classifier=model,
        class_labels=mapping,
        settings={
            "features": difficulty.features, "classifier": classifier_name, "cdi_method": difficulty.method,
            "test_size": test_size, "bin_width": bin_width, **cats[0].settings,
            "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
        },
    )
