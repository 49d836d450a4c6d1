"""Hardness from a pool of scikit-learn models: the paper's five-model pool, out-of-fold scores, :class:`PoolHardness`."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Number, Seed, constraints
from irtbridge._summary import HasSummary, Line, Summary
from irtbridge._validation import check_binary_labels, check_int, check_probability, check_random_state, check_seed, show_value
from irtbridge.classifiers import HARDNESS_NAMES, REGISTRY
from irtbridge.exceptions import ValidationError
from irtbridge.hardness._curves_core import as_pool
from irtbridge.hardness.curves import (
    METHODS,
    class_cost_curves,
    class_hardness,
    hardness_by_model,
    hardness_table,
    instance_cost_curves,
    instance_hardness,
)
from irtbridge.hardness.plots import plot_cost_curves

__all__ = ["default_estimators", "hardness_from_estimators", "PoolHardness"]


@constraints(random_state=Seed(allow_none=True))
def default_estimators(random_state: int | None = None) -> dict[str, Any]:
    """The paper's five-model pool as scikit-learn estimators (unfitted).

    Parameters
    ----------
    random_state : int, optional
        Seed for the tree and the forest.

    Returns
    -------
    dict
        ``{"tree": ..., "knn5": ..., "logistic": ..., "naive_bayes": ..., "random_forest": ...}``.

    Notes
    -----
    Prudêncio's paper used Weka's J48, IBk (k = 5), Logistic, NaiveBayes and RandomForest with default options.
    The closest scikit-learn equivalents, chosen to keep Weka's defaults where they matter:

    * ``tree``: ``DecisionTreeClassifier(min_samples_leaf=2)`` (J48's ``-M 2``; J48 also prunes, CART
      here does not, so its leaf frequencies are more extreme).
    * ``knn5``: min-max scaling + ``KNeighborsClassifier(5)`` (IBk normalises attributes to [0, 1]).
    * ``logistic``: standardisation + ``LogisticRegression(max_iter=1000)`` (Weka adds a tiny ridge,
      scikit-learn an L2 penalty with ``C = 1``).
    * ``naive_bayes``: ``GaussianNB()`` (Weka models nominal attributes with frequency tables, here every
      column is treated as Gaussian).
    * ``random_forest``: ``RandomForestClassifier(n_estimators=100)`` (Weka 3.8's default size).

    Examples
    --------
    >>> from irtbridge.hardness import default_estimators
    >>> sorted(default_estimators(0))
    ['knn5', 'logistic', 'naive_bayes', 'random_forest', 'tree']
    """
    if random_state is not None:
        random_state = check_seed(random_state, "random_state")
    # the registry builds them (irtbridge.classifiers.HARDNESS_NAMES: these names -> its keys)
    return {name: REGISTRY[key].build(random_state) for name, key in HARDNESS_NAMES.items()}


def _named_estimators(estimators: Any, seed: int | None) -> dict[str, Any]:
    from sklearn import base as sklearn_base  # scikit-learn loads with a pool, not with the CLI (~0.4 s)

    if estimators is None:
        return default_estimators(seed)
    if isinstance(estimators, Mapping):
        items = list(estimators.items())
    else:
        try:
            items = list(estimators)
        except TypeError:
            raise ValidationError(
                f"estimators must be a dict name -> estimator or a list of estimators, got {show_value(estimators)}"
            ) from None
        items = [it if isinstance(it, tuple) and len(it) == 2 and isinstance(it[0], str) else (None, it) for it in items]
    if not items:
        raise ValidationError("estimators is empty; pass at least one classifier (or None for the paper's pool)")
    out: dict[str, Any] = {}
    for name, est in items:
        if not (hasattr(est, "fit") and hasattr(est, "predict_proba")):
            raise ValidationError(
                f"estimator {show_value(est)} has no predict_proba; hardness needs scores P(y = 1), e.g. use "
                "SVC(probability=True) or CalibratedClassifierCV"
            )
        label = name if name is not None else type(est).__name__
        base, k = label, 2
        while label in out:
            label, k = f"{base}_{k}", k + 1
        out[label] = sklearn_base.clone(est)
    return out


@constraints(threshold=Number(low=0.0, high=1.0))
def hardness_from_estimators(
    X: Any,
    y: Any,
    estimators: Any = None,
    cv: Any = 10,
    random_state: Any = None,
    threshold: float = 0.5,
    n_jobs: int | None = None,
) -> "PoolHardness":
    """Score every instance out of fold with a pool of classifiers and return its hardness.

    Parameters
    ----------
    X : array-like of shape (n_instances, n_features)
        Features, numeric (encode categories first).
    y : array-like of shape (n_instances,)
        Labels 0/1.
    estimators : dict, list or None, default None
        Unfitted scikit-learn classifiers with ``predict_proba`` (cloned before use); a dict or
        ``(name, estimator)`` pairs name them. ``None`` uses :func:`default_estimators`, the paper's
        pool.
    cv : int or scikit-learn splitter, default 10
        Folds. An int gives ``StratifiedKFold(cv, shuffle=True)`` seeded by ``random_state`` (Weka's
        cross-validation is also stratified and randomised).
    random_state : int, numpy Generator or None
        Seeds the fold assignment and the default pool's tree and forest.
    threshold : float, default 0.5
        Fixed threshold used by ``sf``.
    n_jobs : int, optional
        Passed to ``cross_val_predict``.

    Returns
    -------
    PoolHardness
        Out-of-fold scores ``(n_models, n_instances)`` with the labels; its methods give instance and
        class hardness, cost curves and plots.

    Notes
    -----
    Equivalent to ``cross_val_predict(est, X, y, cv=cv, method="predict_proba")[:, 1]`` for each
    estimator, stacked into a pool, as in Prudêncio's cost-sensitive hardness paper (scores by 10-fold cross-validation).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from irtbridge.hardness import hardness_from_estimators
    >>> X, y = make_classification(60, 4, random_state=0)
    >>> res = hardness_from_estimators(X, y, {"nb": GaussianNB()}, cv=3, random_state=0)
    >>> res.scores.shape
    (1, 60)
    """
    from sklearn import model_selection  # scikit-learn loads with a pool, not with the CLI (~0.4 s)

    labels = check_binary_labels(y.iloc[:, 0] if isinstance(y, pd.DataFrame) and y.shape[1] == 1 else y, "y")
    n = labels.size
    if isinstance(X, pd.DataFrame):
        bad = [str(col) for col, dt in X.dtypes.items()
               if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))]
        if bad:
            raise ValidationError(
                f"X has non-numeric column(s) {', '.join(map(repr, bad[:5]))}; encode them first, e.g. pandas.get_dummies(X)"
            )
    try:
        features = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError("X must hold numbers only; encode categorical columns first") from None
    if features.ndim != 2:
        raise ValidationError(f"X must be (n_instances, n_features), got shape {features.shape}")
    if features.shape[0] != n:
        raise ValidationError(f"X has {features.shape[0]} rows but y has {n} labels")
    if not np.isfinite(features).all():
        raise ValidationError("X has missing or infinite values; impute or drop them first")
    counts = np.bincount(labels, minlength=2)

    rng = check_random_state(random_state)
    seed = None if random_state is None else int(rng.integers(2**31 - 1))
    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        folds = check_int(cv, "cv", low=2)
        if counts.min() < folds:
            raise ValidationError(
                f"cv={folds} needs at least {folds} instances of each class; y has {counts[0]} of class 0 "
                f"and {counts[1]} of class 1"
            )
        splitter = model_selection.StratifiedKFold(folds, shuffle=True, random_state=seed)
    elif hasattr(cv, "split"):
        splitter = cv
    else:
        raise ValidationError(f"cv must be a number of folds (>= 2) or a scikit-learn splitter, got {show_value(cv)}")
    threshold = check_probability(threshold, "threshold")
    pool = _named_estimators(estimators, seed)

    if isinstance(X, pd.DataFrame) and isinstance(y, (pd.Series, pd.DataFrame)) and not X.index.equals(y.index):
        raise ValidationError("the index of X does not match the index of y; align them, e.g. X = X.loc[y.index]")
    index = (y.index if isinstance(y, (pd.Series, pd.DataFrame))
             else (X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(n)))
    rows = []
    for est in pool.values():
        proba = model_selection.cross_val_predict(est, features, labels, cv=splitter, method="predict_proba", n_jobs=n_jobs)
        rows.append(proba[:, 1])
    scores = pd.DataFrame(np.vstack(rows), index=pd.Index(list(pool), name="model"), columns=index)
    return PoolHardness(
        y=pd.Series(labels.astype(int), index=index, name="label"),
        scores=scores,
        threshold=threshold,
        cv=repr(splitter),
    )


@dataclass(frozen=True)
class PoolHardness(HasSummary):
    """Labels and out-of-fold scores of a pool of models, with their hardness.

    Returned by :func:`hardness_from_estimators`; also built directly from any pool of scores.

    Attributes
    ----------
    y : pandas.Series
        Labels 0/1, indexed by instance.
    scores : pandas.DataFrame
        ``(n_models, n_instances)`` scores ``P(y = 1)``: one row per model, columns like ``y.index``.
    threshold : float
        The fixed threshold of ``sf``.
    cv : str
        How the scores were obtained (the splitter's repr), for provenance.

    Examples
    --------
    >>> import pandas as pd
    >>> from irtbridge.hardness import PoolHardness
    >>> res = PoolHardness(pd.Series([0, 1]), pd.DataFrame([[0.2, 0.6]]))
    >>> res.class_hardness("sd").round(12).tolist()
    [0.04, 0.16]
    """

    y: pd.Series
    scores: pd.DataFrame
    threshold: float = 0.5
    cv: str = ""

    def __post_init__(self) -> None:
        pool = as_pool(self.y, self.scores)
        object.__setattr__(self, "y", pd.Series(pool.y.astype(int), index=pool.index, name="label"))
        object.__setattr__(self, "scores", pd.DataFrame(pool.scores.copy(), index=pool.models, columns=pool.index))
        object.__setattr__(self, "threshold", check_probability(self.threshold, "threshold"))

    def instance_hardness(self, method: str = "rd") -> pd.Series:
        """Pool-averaged hardness per instance; see :func:`instance_hardness`.

        Parameters
        ----------
        method : str, default "rd"
            The threshold choice method.

        Returns
        -------
        Series
            One value per instance.
        """
        return instance_hardness(self.y, self.scores, method, self.threshold)

    def class_hardness(self, method: str = "rd") -> pd.Series:
        """Mean hardness per class; see :func:`class_hardness`.

        Parameters
        ----------
        method : str, default "rd"
            The threshold choice method.

        Returns
        -------
        Series
            Indexed by class.
        """
        return class_hardness(self.y, self.scores, method, self.threshold)

    def by_model(self, method: str = "rd") -> pd.DataFrame:
        """Hardness per instance and model; see :func:`hardness_by_model`.

        Parameters
        ----------
        method : str, default "rd"
            The threshold choice method.

        Returns
        -------
        DataFrame
            Instances x models.
        """
        return hardness_by_model(self.y, self.scores, method, self.threshold)

    def table(self, methods: Sequence[str] | None = None) -> pd.DataFrame:
        """Instance hardness under every method; see :func:`hardness_table`.

        Parameters
        ----------
        methods : sequence of str, optional
            Default all five.

        Returns
        -------
        DataFrame
            One column per method.
        """
        return hardness_table(self.y, self.scores, methods, self.threshold)

    def class_table(self, methods: Sequence[str] | None = None) -> pd.DataFrame:
        """Class hardness, one row per class and one column per method.

        Parameters
        ----------
        methods : sequence of str, optional
            Default all five.

        Returns
        -------
        DataFrame
            Index ``class`` (0, 1).
        """
        table = self.table(methods)
        out = table.drop(columns="label").groupby(table["label"]).mean()
        out.index.name = "class"
        return out.reindex([0, 1])

    def model_class_table(self, method: str = "rd") -> pd.DataFrame:
        """Class hardness of each model alone: one row per model, columns ``0`` and ``1``.

        Parameters
        ----------
        method : str, default "rd"
            The threshold choice method.

        Returns
        -------
        DataFrame
            See above.
        """
        per = self.by_model(method)
        out = per.groupby(self.y.to_numpy()).mean().T.reindex(columns=[0, 1])
        out.columns.name = "class"
        return out

    def instance_cost_curves(self, method: str = "rd", c: Any = None) -> pd.DataFrame:
        """See :func:`instance_cost_curves`.

        Parameters
        ----------
        method : str, default "rd"
            The threshold choice method.
        c : float or array-like, optional
            Cost proportions.

        Returns
        -------
        DataFrame
            Instances x cost proportions.
        """
        return instance_cost_curves(self.y, self.scores, method, c, self.threshold)

    def class_cost_curves(self, method: str = "rd", c: Any = None) -> pd.DataFrame:
        """See :func:`class_cost_curves`.

        Parameters
        ----------
        method : str, default "rd"
            The threshold choice method.
        c : float or array-like, optional
            Cost proportions.

        Returns
        -------
        DataFrame
            Classes x cost proportions.
        """
        return class_cost_curves(self.y, self.scores, method, c, self.threshold)

    def plot_cost_curves(self, methods: str | Sequence[str] = METHODS, **kwargs: Any):
        """See :func:`plot_cost_curves`.

        Parameters
        ----------
        methods : str or sequence of str, default ("sf", "sd", "rd", "su", "ru")
            One panel per method.
        **kwargs
            Passed to :func:`plot_cost_curves`.

        Returns
        -------
        ndarray of matplotlib Axes
            One per method.
        """
        return plot_cost_curves(self.y, self.scores, methods, threshold=self.threshold, **kwargs)

    def summary(self) -> Summary:
        """Class hardness under every method and per model.

        Returns
        -------
        Summary
            The pool's summary.
        """
        head = Line.of("instances", f"{self.scores.shape[1]} instances ({int((self.y == 0).sum())} of class 0, "
                                    f"{int((self.y == 1).sum())} of class 1), {self.scores.shape[0]} model(s): "
                                    f"{', '.join(map(str, self.scores.index))}")
        notes = (f"scores out of fold from {self.cv}; sf threshold {self.threshold:g}.",) if self.cv else ()
        table = self.class_table()
        return Summary("Instance hardness", (head,),
                       (("Class hardness (mean instance hardness, pool-averaged)", table),), notes, digits=4,
                       data={"class_hardness": table.reset_index()})
