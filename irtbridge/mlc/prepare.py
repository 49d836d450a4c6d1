"""Data preparation for the MLC: classifiers by name, 0/1 labels, numeric features, class balancing, items.

The first step of the MLC paper's procedure: features become IRT items (0/1 features as they are for a
2PL, continuous features cut at their quartiles for a graded model).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, RandomState, constraints
from irtbridge._validation import check_choice, check_random_state
from irtbridge.classifiers import MLC_NAMES, classifier_spec
from irtbridge.exceptions import ValidationError
from irtbridge.mlc._checks import feature_table

__all__ = ["FEATURES", "CLASSIFIERS", "make_classifier", "balance_classes", "encode_features"]

FEATURES = ("binary", "quartiles")
#: the MLC's classifier names (each maps to a key of :data:`irtbridge.classifiers.REGISTRY`)
CLASSIFIERS = tuple(MLC_NAMES)


@constraints(random_state=RandomState())
def make_classifier(name: str = "mlp", random_state: Any = None):
    """A scikit-learn classifier by name, behind a median imputer and a standard scaler.

    Parameters
    ----------
    name : {"mlp", "logistic", "random_forest", "gradient_boosting", "svm", "knn", "tree", "naive_bayes"}
        A name of :data:`CLASSIFIERS` (ignoring case; :data:`irtbridge.classifiers.MLC_NAMES` says which
        registry entry each is) or any key of :data:`irtbridge.classifiers.REGISTRY`. ``"mlp"`` (the
        default) is a one-hidden-layer neural network of 12 units, inside the grid the paper searched
        (6-30 units).
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seeds the estimators that are random (a seed drawn from it; a whole number from 0 to 2**32 - 1).

    Returns
    -------
    sklearn.pipeline.Pipeline

    Examples
    --------
    >>> make_classifier("logistic").steps[-1][0]
    'logisticregression'
    """
    from sklearn import impute, pipeline, preprocessing  # loads with its use, not with the CLI's parser (~0.4 s)

    spec = classifier_spec(name, MLC_NAMES)
    seed = None if random_state is None else int(check_random_state(random_state).integers(2**31 - 1))
    return pipeline.make_pipeline(impute.SimpleImputer(strategy="median"), preprocessing.StandardScaler(),
                                  spec.build(seed))


@constraints(random_state=RandomState())
def balance_classes(X: Any, y: Any, random_state: Any = None) -> tuple[pd.DataFrame, pd.Series]:
    """Undersample the larger class to the size of the smaller one, as the MLC paper did.

    Returns ``(X, y)`` restricted to the kept rows, labels and order preserved.

    Parameters
    ----------
    X : DataFrame or 2-D array
        The cases' features.
    y : array-like
        Their classes.
    random_state : None, int or numpy.random.Generator
        Seeds which rows of the larger class are kept.

    Returns
    -------
    X, y : DataFrame, Series
        The kept rows.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"f": range(6)}); y = pd.Series([0, 0, 0, 0, 1, 1])
    >>> Xb, yb = balance_classes(X, y, random_state=0)
    >>> yb.value_counts().tolist()
    [2, 2]
    """
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    target = y if isinstance(y, pd.Series) else pd.Series(np.asarray(y), index=frame.index)
    if len(target) != len(frame):
        raise ValidationError(f"X has {len(frame)} rows but y has {len(target)}")
    target = pd.Series(target.to_numpy(), index=frame.index, name=getattr(y, "name", None))
    rng = check_random_state(random_state)
    counts = target.value_counts()
    if len(counts) != 2:
        raise ValidationError(f"y must hold exactly two classes, found {len(counts)}")
    n = int(counts.min())
    keep = np.zeros(len(target), dtype=bool)
    for value in counts.index:
        rows = np.flatnonzero((target == value).to_numpy())
        keep[rng.choice(rows, size=n, replace=False)] = True
    return frame[keep], target[keep]


@constraints(features=Choice(FEATURES))
def encode_features(X: Any, features: str = "binary", cutpoints: Mapping[str, Any] | None = None):
    """Turn features into IRT items.

    Parameters
    ----------
    X : pandas.DataFrame or 2-D array
        Cases x numeric features; NaN is a missing response.
    features : {"binary", "quartiles"}
        ``"binary"``: every feature must already be 0/1 (the paper coded its MIMIC features as
        disease-promoting 1 / protective 0) and is used as is. ``"quartiles"``: each feature is cut at its
        quartiles into categories 0-3 (``x <= Q1`` is 0, ``Q1 < x <= Q2`` is 1, ..., as the MLC paper, Table 2).
    cutpoints : dict, optional
        Cut points from an earlier call (to encode new cases the same way); default: the quartiles of
        ``X`` (``numpy.nanquantile``, R's type 7). Tied quartiles, and cut points that would leave a category
        empty, are merged, so heavily tied features get fewer categories.

    Returns
    -------
    items : pandas.DataFrame
        Categories (float, NaN for missing), same index and column names as ``X``.
    cutpoints : dict
        Feature -> tuple of cut points (empty for binary features).

    Examples
    --------
    >>> import pandas as pd
    >>> items, cuts = encode_features(pd.DataFrame({"f": [1.0, 2, 3, 4, 5, 6, 7, 8]}), "quartiles")
    >>> items["f"].tolist(), cuts["f"]
    ([0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0], (2.75, 4.5, 6.25))
    """
    features = check_choice(features, "features", FEATURES)
    frame = feature_table(X)
    if features == "binary":
        values = frame.to_numpy()
        bad = ~np.isnan(values) & (values != 0) & (values != 1)
        if bad.any():
            cols = [frame.columns[j] for j in np.flatnonzero(bad.any(axis=0))]
            raise ValidationError(
                f"features='binary' needs 0/1 features; column(s) {', '.join(map(repr, cols[:5]))} hold other values "
                f"(e.g. {values[bad][0]:g}); code them 0/1 or use features='quartiles'"
            )
        return frame, {c: () for c in frame.columns}
    out = pd.DataFrame(index=frame.index)
    cuts_out: dict[str, tuple] = {}
    for col in frame.columns:
        x = frame[col].to_numpy()
        seen = ~np.isnan(x)
        if not seen.any():
            raise ValidationError(f"feature {col!r} has no values (all missing)")
        if cutpoints is not None:
            if col not in cutpoints:
                raise ValidationError(f"cutpoints has no entry for feature {col!r}")
            cuts = np.asarray(cutpoints[col], dtype=float)
        else:
            cuts = np.unique(np.nanquantile(x, [0.25, 0.5, 0.75]))
            cats = np.searchsorted(cuts, x[seen], side="left")
            used = np.unique(cats)
            # a category no case falls in merges into the one below it: keep, for each used category, the
            # cut just below it
            cuts = np.array([cuts[u - 1] for u in used[1:]], dtype=float)
        codes = np.full(x.shape, np.nan)
        codes[seen] = np.searchsorted(cuts, x[seen], side="left")
        out[col] = codes
        cuts_out[col] = tuple(float(c) for c in cuts)
    return out, cuts_out
