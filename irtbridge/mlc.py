"""Machine Learning Capability (MLC): a classifier's reach measured by a CAT over cases (the MLC paper).

The procedure of Kline et al.:

1. **Case difficulty.** Features become IRT items (0/1 features with a 2PL, continuous features cut at
   their quartiles with a graded model), calibrated in R through :func:`irtbridge.calibrate`; each
   case's ability estimate is its case difficulty index (CDI). The direction of the scale is learned
   from the training part only, so that a higher CDI reads "more like class 1".
2. **Split.** CDIs are binned at 0.25 sigma (bins centred on zero) and each bin is split 70/30 at random
   (a bin of two cases: one each; a bin of one: training). Any scikit-learn classifier is trained on the
   70 %.
3. **CAT per class.** Over the test cases of one class, with the CDIs of class 1 negated so that a larger
   value is a harder case for both classes: start at the 25th-percentile case; after a correct
   classification move the target up by ``2 / 2**L`` plus N(0, 0.1) noise, after an error move it down
   (Eqs. 6-7); present the unused case nearest the target; the running MLC is
   ``H / L + ln(R / W)`` (Eqs. 9-11) once 5 cases have been presented; stop when the running standard
   error falls below ``sigma * sqrt(1 - r)`` (Eq. 8, 0.1414 for r = 0.98) or at a cap (flagged).
4. **Report** the MLC of each class next to the traditional metrics (Tables 4-5), the decision rule of
   "Practical Application", and the figures (Figs. 4-9).

The paper does not say which standard error it tracks; see :func:`running_standard_error` for the
choice made here and the numbers behind it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from irtbridge._validation import check_choice, check_int, check_number, check_random_state
from irtbridge.cat import PercentileInitializer, StandardErrorStopper, StepEstimator, UrrySelector
from irtbridge.exceptions import DataWarning, ValidationError
from irtbridge.irt import as_item_bank, estimate_abilities

__all__ = [
    "FEATURES",
    "SE_RULES",
    "CLASSIFIERS",
    "make_classifier",
    "balance_classes",
    "encode_features",
    "CaseDifficulty",
    "case_difficulty",
    "difficulty_bins",
    "binned_split",
    "feature_orientation",
    "mlc_estimate",
    "running_standard_error",
    "running_mlc",
    "ClassCAT",
    "run_mlc_cat",
    "MLCResult",
    "evaluate_mlc",
    "mlc_decision",
    "plot_cdi_distributions",
    "plot_difficulty_kde",
    "plot_accuracy_by_cdi",
    "plot_cat_trajectories",
    "plot_mlc_plane",
]

FEATURES = ("binary", "quartiles")
SE_RULES = ("running_sd", "running_sem", "wright_linacre")
CLASSIFIERS = ("mlp", "logistic", "random_forest", "gradient_boosting", "svm", "knn", "tree", "naive_bayes")
CAN_DECIDE, REFER = "model can decide", "refer to an expert"
_METRICS = ("accuracy", "precision", "recall", "f1", "auc")


# --------------------------------------------------------------------------------------------------
# Classifiers and data preparation
# --------------------------------------------------------------------------------------------------


def make_classifier(name: str = "mlp", random_state: Any = None):
    """A scikit-learn classifier by name, behind a median imputer and a standard scaler.

    Parameters
    ----------
    name : {"mlp", "logistic", "random_forest", "gradient_boosting", "svm", "knn", "tree", "naive_bayes"}
        ``"mlp"`` (the default) is a one-hidden-layer neural network of 12 units, inside the grid the paper
        searched (6-30 units).
    random_state : int, optional
        Seeds the estimators that are random.

    Returns
    -------
    sklearn.pipeline.Pipeline

    Examples
    --------
    >>> make_classifier("logistic").steps[-1][0]
    'logisticregression'
    """
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    name = check_choice(name, "classifier", CLASSIFIERS, ignore_case=True)
    seed = None if random_state is None else int(check_random_state(random_state).integers(2**31 - 1))
    model = {
        "mlp": lambda: MLPClassifier(hidden_layer_sizes=(12,), max_iter=2000, random_state=seed),
        "logistic": lambda: LogisticRegression(max_iter=2000),
        "random_forest": lambda: RandomForestClassifier(n_estimators=200, random_state=seed),
        "gradient_boosting": lambda: GradientBoostingClassifier(random_state=seed),
        "svm": lambda: SVC(probability=True, random_state=seed),
        "knn": lambda: KNeighborsClassifier(n_neighbors=15),
        "tree": lambda: DecisionTreeClassifier(min_samples_leaf=5, random_state=seed),
        "naive_bayes": lambda: GaussianNB(),
    }[name]()
    return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), model)


def _labels(y: Any, positive: Any = None) -> tuple[pd.Series, dict]:
    """0/1 labels from any two-valued target; class 1 is ``positive`` or the larger value."""
    series = y.copy() if isinstance(y, pd.Series) else pd.Series(np.asarray(y))
    if series.isna().any():
        raise ValidationError(f"y has {int(series.isna().sum())} missing value(s); every case needs its class")
    values = sorted(series.unique().tolist(), key=lambda v: (str(type(v)), v))
    if len(values) != 2:
        raise ValidationError(
            f"y must hold exactly two classes, found {len(values)}: {values[:6]!r}; the MLC is defined per class "
            "of a binary problem"
        )
    if positive is None:
        positive = values[1]
    elif positive not in values:
        raise ValidationError(f"positive={positive!r} is not one of the classes {values!r}")
    mapping = {v: int(v == positive) for v in values}
    return series.map(mapping).astype(int), mapping


def _features(X: Any) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        frame = X.copy()
        frame.columns = [str(c) for c in frame.columns]
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValidationError(f"X must be two-dimensional (cases x features), got shape {arr.shape}")
        frame = pd.DataFrame(arr, columns=[f"x{j + 1}" for j in range(arr.shape[1])])
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValidationError(f"X is empty (shape {frame.shape})")
    if frame.columns.duplicated().any():
        raise ValidationError(f"X has duplicate column names: {sorted(set(frame.columns[frame.columns.duplicated()]))!r}")
    bad = [c for c in frame.columns if not (pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]))]
    if bad:
        raise ValidationError(
            f"feature column(s) {', '.join(map(repr, bad[:5]))} are not numeric; encode them as numbers (0/1 for "
            "binary features) or drop them"
        )
    return frame.astype(float)


def balance_classes(X: Any, y: Any, random_state: Any = None) -> tuple[pd.DataFrame, pd.Series]:
    """Undersample the larger class to the size of the smaller one, as the MLC paper did.

    Returns ``(X, y)`` restricted to the kept rows, labels and order preserved.

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


# --------------------------------------------------------------------------------------------------
# Case difficulty indices
# --------------------------------------------------------------------------------------------------


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
    frame = _features(X)
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


@dataclass(frozen=True, eq=False)
class CaseDifficulty:
    """Case difficulty indices from a calibration of the features (see :func:`case_difficulty`).

    Attributes
    ----------
    cdi : pandas.Series
        Each case's ability estimate, in the direction of the calibration (not yet oriented to a class).
    items : pandas.DataFrame
        The encoded features (item responses) that were calibrated.
    calibration : irtbridge.Calibration
        The R calibration (``.items`` in mirt's IRT parameterization).
    features : str
    cutpoints : dict
    method : str
        The scoring method (mirt ``fscores``).
    """

    cdi: pd.Series
    items: pd.DataFrame = field(repr=False)
    calibration: Any = field(repr=False)
    features: str = "binary"
    cutpoints: Mapping[str, tuple] = field(default_factory=dict, repr=False)
    method: str = "EAP"

    @property
    def model(self) -> str:
        return "2PL" if self.features == "binary" else "graded"

    def score(self, X: Any) -> pd.Series:
        """CDIs of new cases, natively (no R): encode with the stored cut points, EAP with the calibrated items.

        Uses mirt's ``fscores`` defaults (121 points on [-6, 6], N(0, 1) prior), so scoring the
        calibration data reproduces :attr:`cdi` for EAP.
        """
        frame = _features(X)
        missing = [c for c in self.items.columns if c not in frame.columns]
        if missing:
            raise ValidationError(f"X lacks feature column(s) {', '.join(map(repr, missing[:10]))}")
        items, _ = encode_features(frame[list(self.cutpoints)], self.features, cutpoints=self.cutpoints)
        items = items[list(self.calibration.items.index)]
        est = estimate_abilities(items, self.calibration, method="EAP", quadrature=121, bounds=(-6.0, 6.0))
        return est["theta"].rename("cdi")


def case_difficulty(
    X: Any, features: str = "binary", *, method: str = "EAP", engine: str = "mirt", **options: Any
) -> CaseDifficulty:
    """Case difficulty indices: calibrate the features as items in R and score every case.

    Parameters
    ----------
    X : pandas.DataFrame or 2-D array
        Cases x features (see :func:`encode_features`).
    features : {"binary", "quartiles"}
        ``"binary"`` calibrates a 2PL, ``"quartiles"`` a graded response model.
    method : {"EAP", "MAP", "WLE"}
        Scoring of the cases (mirt ``fscores(method = ...)``). The paper scored by maximum likelihood;
        plain ML is infinite for all-0 / all-1 patterns, common with a few strong features, so it is not
        offered: WLE is its finite, bias-corrected form.
    engine : {"mirt", "ltm"}
    **options
        Passed to :func:`irtbridge.calibrate`.

    Returns
    -------
    CaseDifficulty

    Notes
    -----
    R equivalent: ``fit <- mirt(items, 1, itemtype = "2PL")`` (or ``"graded"``) then
    ``fscores(fit, method = "EAP")``. Features with one category are dropped with a :class:`DataWarning`.

    Examples
    --------
    >>> cd = case_difficulty(X, "quartiles")       # doctest: +SKIP
    >>> cd.cdi.describe()                          # doctest: +SKIP
    """
    from irtbridge.calibration import calibrate

    method = check_choice(method, "method", ("EAP", "MAP", "WLE"), ignore_case=True)
    items, cuts = encode_features(X, features)
    model = "2PL" if features == "binary" else "graded"
    fit = calibrate(items, model=model, engine=engine, drop_constant=True, **options)
    scores = fit.abilities(method=method)
    cdi = pd.Series(scores["theta"].to_numpy(), index=items.index, name="cdi")
    if not np.isfinite(cdi).all():
        raise ValidationError(f"{int((~np.isfinite(cdi)).sum())} case(s) got a non-finite CDI from {method}; use method='EAP'")
    kept = {c: cuts[c] for c in fit.items.index}
    return CaseDifficulty(
        cdi=cdi, items=items[list(fit.items.index)], calibration=fit, features=features, cutpoints=kept, method=method
    )


def difficulty_bins(cdi: Any, width: float = 0.25) -> pd.Series:
    """Bin number of each CDI: bins ``width`` standard deviations wide, bin 0 centred on zero.

    ``bin = floor(cdi / (width * sd) + 1/2)`` with ``sd`` the sample standard deviation of the CDIs;
    bin ``k`` covers ``[(k - 1/2) w sd, (k + 1/2) w sd)``. The grid is symmetric about zero, so turning the
    CDI scale around maps bin ``k`` to bin ``-k``.

    Examples
    --------
    >>> difficulty_bins([-1.0, 0.0, 0.1, 1.0], width=0.25).tolist()
    [-5, 0, 0, 5]
    """
    values = pd.Series(cdi) if not isinstance(cdi, pd.Series) else cdi
    x = values.to_numpy(dtype=float)
    if x.size < 2 or not np.isfinite(x).all():
        raise ValidationError("cdi needs at least two finite values")
    width = check_number(width, "width", low=0.0, low_open=True)
    sd = float(np.std(x, ddof=1))
    if sd == 0:
        raise ValidationError("all CDIs are equal; there is nothing to bin")
    return pd.Series(np.floor(x / (width * sd) + 0.5).astype(np.int64), index=values.index, name="bin")


def binned_split(cdi: Any, test_size: float = 0.3, width: float = 0.25, random_state: Any = None) -> pd.Series:
    """Stratified train/test split within CDI bins (the MLC paper, "Machine Learning Analysis Evaluated Via CAT").

    Each bin of :func:`difficulty_bins` is split at random: ``round(test_size * n)`` cases (at least one,
    at most ``n - 1``) go to the test part. A bin of two cases puts one in each part; a bin of one case
    goes to training.

    Returns
    -------
    pandas.Series of bool
        True for the test cases, indexed like ``cdi``.

    Examples
    --------
    >>> s = binned_split([0.0, 0.01, 0.02, 0.03, 3.0, 3.01, -3.0], random_state=0)
    >>> int(s.sum()), bool(s.iloc[-1])
    (2, False)
    """
    test_size = check_number(test_size, "test_size", low=0.0, high=1.0, low_open=True, high_open=True)
    bins = difficulty_bins(cdi, width)
    rng = check_random_state(random_state)
    test = np.zeros(len(bins), dtype=bool)
    codes = bins.to_numpy()
    # bins in order of first appearance, not of their number: the draws then depend only on which cases
    # share a bin, so turning the CDI scale around (bin k <-> -k) gives the very same split
    for b in pd.unique(codes):
        rows = np.flatnonzero(codes == b)
        n = rows.size
        if n == 1:
            continue
        k = 1 if n == 2 else int(min(max(np.floor(test_size * n + 0.5), 1), n - 1))
        test[rng.choice(rows, size=k, replace=False)] = True
    return pd.Series(test, index=bins.index, name="test")


def feature_orientation(items: pd.DataFrame, y: pd.Series) -> pd.Series:
    """+1 for features whose score is higher in class 1 than in class 0, -1 otherwise (0 difference: +1).

    Computed on whatever rows are given; :func:`evaluate_mlc` gives it the training part only.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"up": [0, 1, 1], "down": [1, 0, 0]})
    >>> feature_orientation(items, pd.Series([0, 1, 1])).tolist()
    [1, -1]
    """
    y = pd.Series(np.asarray(y), index=items.index)
    diff = items[y == 1].mean() - items[y == 0].mean()
    return pd.Series(np.where(diff.fillna(0.0) < 0, -1, 1), index=items.columns, name="orientation")


# --------------------------------------------------------------------------------------------------
# MLC estimate and its standard error
# --------------------------------------------------------------------------------------------------


def _corrected(R: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eqs. 10-11: with no right (wrong) answer, move half a case from the other count."""
    R, W = np.asarray(R, dtype=float), np.asarray(W, dtype=float)
    no_right, no_wrong = R == 0, W == 0
    return np.where(no_right, R + 0.5, np.where(no_wrong, R - 0.5, R)), np.where(
        no_right, W - 0.5, np.where(no_wrong, W + 0.5, W)
    )


def mlc_estimate(H: Any, L: Any, R: Any, W: Any):
    """The MLC after ``L`` cases: ``H / L + ln(R / W)`` (the MLC paper, Eq. 9).

    Parameters
    ----------
    H : float or array
        Sum of the difficulties of the cases presented.
    L : int or array
        Number of cases presented (``R + W``).
    R, W : int or array
        Numbers classified right and wrong.

    Notes
    -----
    With ``R = 0``: ``H / L + ln((R + 0.5) / (W - 0.5))`` (Eq. 10); with ``W = 0``:
    ``H / L + ln((R - 0.5) / (W + 0.5))`` (Eq. 11) -- the usual half-score correction of extreme scores in
    Wright & Stone's estimate. A single case (``L = 1``) gives ``ln(0.5 / 0.5) = 0``.

    Examples
    --------
    >>> round(mlc_estimate(2.0, 5, 3, 2), 6)    # 0.4 + ln(1.5)
    0.805465
    >>> round(mlc_estimate(-1.0, 5, 5, 0), 6)   # -0.2 + ln(4.5 / 0.5)
    1.997225
    """
    H, L = np.asarray(H, dtype=float), np.asarray(L, dtype=float)
    if np.any(L <= 0) or np.any(np.asarray(R) + np.asarray(W) != L):
        raise ValidationError("mlc_estimate needs L >= 1 cases with R + W = L")
    r, w = _corrected(R, W)
    out = H / L + np.log(r / w)
    return float(out) if out.ndim == 0 else out


def running_standard_error(rule: str, L: int, R: int, W: int, history: Any = (), window: int = 6) -> float:
    """The standard error the MLC stopping rule compares with ``sigma * sqrt(1 - r)``.

    Parameters
    ----------
    rule : {"running_sd", "running_sem", "wright_linacre"}
        * ``"running_sd"`` (default of :func:`run_mlc_cat`): the sample standard deviation (ddof 1) of
          the last ``window`` running MLC estimates -- the empirical standard error of the estimate, i.e.
          how much it still moves from case to case. NaN until ``window`` estimates exist.
        * ``"running_sem"``: the standard error of the mean of all running MLC estimates so far,
          ``sd / sqrt(n)``. NaN until two exist.
        * ``"wright_linacre"``: the Rasch standard error of the estimate, ``sqrt(L / (R W))`` (with the
          Eq. 10-11 corrections when ``R`` or ``W`` is 0).
    L, R, W : int
        Cases presented, right, wrong.
    history : sequence of float
        The running MLC estimates so far (the eligible ones, oldest first), including the current one.
    window : int
        Estimates used by ``"running_sd"``.

    Notes
    -----
    Why ``"running_sd"`` over 6 estimates is the default. The MLC paper stops at SE < 0.1414 after 17-19
    cases for every class of both datasets. The Wright-Linacre error is at least ``2 / sqrt(L)`` (at
    ``R = W``), so it cannot reach 0.1414 before ``L = 200``. In simulations of the procedure (pools of 490
    and 1200 cases with difficulties N(mu, 1), mu in {-1.2, -0.9, -0.3}; classifiers right with
    probability ``expit(k (m - d))``, k in {1, 1.7, 2, 3}, m in {0.2, 0.3, 0.6}; the paper's steps and
    noise; 200 runs per setting) the median case counts at the stop were:

    =========================  ===========================  ============
    rule                       median cases (IQR)           converged
    =========================  ===========================  ============
    wright_linacre             221-235 (210-363)            77-89 %
    running_sem (all)          8-9 (7-13)                   100 %
    running_sd, window 4       14-15 (12-16)                100 %
    running_sd, window 5       15-16 (13-18)                100 %
    running_sd, window 6       17-18 (15-20)                100 %
    running_sd, window 8       20-22 (17-25)                100 %
    =========================  ===========================  ============

    Only ``running_sd`` with a window of 6 matches the paper's 17-19 cases, in every setting; the noise
    N(0, 0.1) keeps moving the target after the steps ``2 / 2**L`` have vanished, and the rule stops once
    six consecutive estimates agree within the target precision. ``running_sem`` stops after about 8
    cases, before the estimate has settled; ``wright_linacre`` needs more cases than the paper's test
    classes held.

    Examples
    --------
    >>> round(running_standard_error("wright_linacre", 8, 4, 4), 6)   # sqrt(8 / 16)
    0.707107
    >>> round(running_standard_error("running_sd", 7, 5, 2, [0.1, 0.3, 0.2], window=3), 6)
    0.1
    """
    rule = check_choice(rule, "se_rule", SE_RULES)
    if rule == "wright_linacre":
        r, w = _corrected(R, W)
        return float(np.sqrt(L / (r * w)))
    h = np.asarray(history, dtype=float)
    if rule == "running_sd":
        if h.size < window:
            return float("nan")
        return float(np.std(h[-window:], ddof=1))
    if h.size < 2:
        return float("nan")
    return float(np.std(h, ddof=1) / np.sqrt(h.size))


def running_mlc(
    difficulty: Any, correct: Any, *, min_cases: int = 5, se_rule: str = "running_sd", window: int = 6
) -> pd.DataFrame:
    """The running MLC and its standard error along a sequence of presented cases.

    Parameters
    ----------
    difficulty : sequence of float
        Difficulty of each case, in presentation order.
    correct : sequence of bool
        Whether the classifier got it right.
    min_cases : int
        The MLC is eligible (not NaN) from this many cases on (5 in the paper).
    se_rule, window
        See :func:`running_standard_error`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``L`` (1, 2, ...): ``difficulty, correct, H, R, W, mlc, se``.

    Examples
    --------
    >>> t = running_mlc([0.0, 0.5, 1.0, 0.75, 0.5], [1, 1, 0, 0, 1])
    >>> round(t["mlc"].iloc[-1], 6)   # 2.75 / 5 + ln(3 / 2)
    0.955465
    """
    d = np.asarray(difficulty, dtype=float)
    c = np.asarray(correct).astype(bool)
    if d.shape != c.shape or d.ndim != 1:
        raise ValidationError(f"difficulty and correct must be 1-D of the same length, got {d.shape} and {c.shape}")
    min_cases = check_int(min_cases, "min_cases", low=1)
    L = np.arange(1, d.size + 1)
    H, R = np.cumsum(d), np.cumsum(c)
    W = L - R
    mlc = np.full(d.size, np.nan)
    se = np.full(d.size, np.nan)
    history: list[float] = []
    for t in range(d.size):
        if L[t] >= min_cases:
            mlc[t] = mlc_estimate(H[t], L[t], R[t], W[t])
            history.append(mlc[t])
            se[t] = running_standard_error(se_rule, L[t], R[t], W[t], history, window)
    return pd.DataFrame(
        {"difficulty": d, "correct": c, "H": H, "R": R, "W": W, "mlc": mlc, "se": se}, index=pd.Index(L, name="L")
    )


# --------------------------------------------------------------------------------------------------
# The CAT over the cases of one class
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ClassCAT:
    """The MLC CAT of one class (see :func:`run_mlc_cat`).

    Attributes
    ----------
    label : int
        The class (0 or 1).
    mlc : float
        The last running MLC (NaN if fewer than ``min_cases`` cases could be presented).
    cases_used : int
        Cases presented.
    n_pool : int
        Test cases of this class available to the CAT.
    n_total : int
        Cases in the whole data set (the denominator of :attr:`share_used`).
    converged : bool
        True when the standard-error rule stopped the CAT; False when the cap or an exhausted pool did.
    stop : str
        ``"se"``, ``"max_cases"`` or ``"pool exhausted"``.
    start : float
        The starting target CDI_0 (the pool's 25th percentile).
    seconds : float
        Wall time of the CAT, classifier calls included.
    trajectory : pandas.DataFrame
        Indexed by ``L``: ``case, cdi, difficulty, target, correct, mlc, se``.
    settings : dict
    """

    label: int
    mlc: float
    cases_used: int
    n_pool: int
    n_total: int
    converged: bool
    stop: str
    start: float
    seconds: float
    trajectory: pd.DataFrame = field(repr=False)
    settings: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def share_used(self) -> float:
        """Share of the whole data set the CAT needed (``cases_used / n_total``)."""
        return self.cases_used / self.n_total if self.n_total else float("nan")

    @property
    def extreme(self) -> bool:
        """True when every presented case was classified right (or every one wrong).

        The MLC then rests on the half-case correction of Eq. 11 (Eq. 10): ``ln(2L - 1)`` grows without
        bound, and the estimate says only that the classifier's reach lies beyond the cases presented.
        """
        right = self.trajectory["correct"].to_numpy(dtype=bool)
        return bool(right.size) and (right.all() or not right.any())


def run_mlc_cat(
    difficulty: pd.Series,
    respond: Callable[[Any], bool],
    *,
    label: int = 0,
    cdi: pd.Series | None = None,
    n_total: int | None = None,
    start_percentile: float = 25.0,
    step: Any = "halving",
    noise: float = 0.1,
    se_rule: str = "running_sd",
    window: int = 6,
    reliability: float = 0.98,
    sigma: float = 1.0,
    min_cases: int = 5,
    max_cases: int = 100,
    random_state: Any = None,
) -> ClassCAT:
    """Run the MLC CAT over a pool of cases of one class.

    Parameters
    ----------
    difficulty : pandas.Series
        Difficulty of each case in the pool, indexed by case id (the CDI, negated for class 1).
    respond : callable
        ``respond(case_id) -> bool``: present one case to the classifier, True when it is classified right.
    label : int
        The class, for the record.
    cdi : pandas.Series, optional
        The cases' CDIs before any negation, recorded in the trajectory (default: ``difficulty``).
    n_total : int, optional
        Size of the whole data set, for ``share_used`` (default: the pool size).
    start_percentile : float
        The first target is this percentile of the pool (25, Table 3).
    step : {"halving", "harmonic"} or callable
        Step rule of :class:`irtbridge.cat.StepEstimator` (``2 / 2**L``, Eqs. 6-7).
    noise : float
        Standard deviation of the Gaussian noise added to each move (0.1).
    se_rule : {"running_sd", "running_sem", "wright_linacre"}
        See :func:`running_standard_error` for what each is and why ``"running_sd"`` is the default.
    window : int
        Estimates in the ``"running_sd"`` window (6).
    reliability, sigma : float
        The CAT stops when the standard error is below ``sigma * sqrt(1 - reliability)`` (Eq. 8: 0.1414).
    min_cases : int
        The MLC is computed (and the rule checked) from this many cases on (5).
    max_cases : int
        Cap: a CAT still running after this many cases stops, flagged ``converged = False``.
    random_state : None, int or numpy.random.Generator
        Seeds the noise.

    Returns
    -------
    ClassCAT

    Notes
    -----
    The components of Table 3 from :mod:`irtbridge.cat`: :class:`~irtbridge.cat.PercentileInitializer`,
    :class:`~irtbridge.cat.UrrySelector` (the unused case nearest the target),
    :class:`~irtbridge.cat.StepEstimator` (the target update) and
    :class:`~irtbridge.cat.StandardErrorStopper` fed with the running standard error of the MLC. A case is
    never presented twice; when the pool runs out the CAT stops (``"pool exhausted"``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> pool = pd.Series(np.linspace(-2, 2, 200), index=[f"c{i}" for i in range(200)])
    >>> easy = lambda case: pool[case] < 0.5     # a classifier that gets every case below 0.5 right
    >>> res = run_mlc_cat(pool, easy, random_state=1)
    >>> res.converged, 10 <= res.cases_used <= 30
    (True, True)
    """
    if not isinstance(difficulty, pd.Series):
        difficulty = pd.Series(np.asarray(difficulty, dtype=float))
    d = difficulty.to_numpy(dtype=float)
    if d.size == 0 or not np.isfinite(d).all():
        raise ValidationError("difficulty must be a non-empty series of finite case difficulties")
    if not callable(respond):
        raise ValidationError(f"respond must be a function of the case id, got {type(respond).__name__}")
    cdi = difficulty if cdi is None else cdi
    se_rule = check_choice(se_rule, "se_rule", SE_RULES)
    window = check_int(window, "window", low=2)
    min_cases = check_int(min_cases, "min_cases", low=1)
    max_cases = check_int(max_cases, "max_cases", low=min_cases)
    n_total = d.size if n_total is None else check_int(n_total, "n_total", low=d.size)
    rng = check_random_state(random_state)

    bank = as_item_bank(pd.DataFrame({"b": d}, index=[f"{i}" for i in range(d.size)]), "rasch")
    initializer = PercentileInitializer(start_percentile)
    selector = UrrySelector()
    estimator = StepEstimator(step, noise)
    stopper = StandardErrorStopper.from_reliability(reliability, sigma, min_items=min_cases, max_items=max_cases)

    started = time.perf_counter()
    target = initializer.initialize(bank, 1, rng)
    start = float(target[0])
    state = estimator.begin(bank, target, rng)
    unavailable = np.zeros((1, d.size), dtype=bool)
    row = np.array([0])
    records: list[tuple] = []
    history: list[float] = []
    H, R, W = 0.0, 0, 0
    stop = "pool exhausted"
    while True:
        pos = int(selector.select(bank, target, unavailable, rng)[0])
        if pos < 0:
            break
        unavailable[0, pos] = True
        case = difficulty.index[pos]
        right = bool(respond(case))
        H, R, W = H + d[pos], R + right, W + (not right)
        L = R + W
        presented_at = float(target[0])
        target, _ = estimator.update(state, row, np.array([pos]), np.array([int(right)]))
        mlc = se = float("nan")
        if L >= min_cases:
            mlc = mlc_estimate(H, L, R, W)
            history.append(mlc)
            se = running_standard_error(se_rule, L, R, W, history, window)
        records.append((L, case, float(cdi.loc[case]), d[pos], presented_at, right, mlc, se))
        if stopper.stop(np.array([L]), np.array([se]))[0]:
            stop = "se" if stopper.reason(np.array([L]), np.array([se]))[0] == "se" else "max_cases"
            break
    seconds = time.perf_counter() - started
    traj = pd.DataFrame.from_records(
        records, columns=["L", "case", "cdi", "difficulty", "target", "correct", "mlc", "se"]
    ).set_index("L")
    return ClassCAT(
        label=int(label),
        mlc=float(traj["mlc"].iloc[-1]) if len(traj) else float("nan"),
        cases_used=len(traj),
        n_pool=int(d.size),
        n_total=int(n_total),
        converged=stop == "se",
        stop=stop,
        start=start,
        seconds=seconds,
        trajectory=traj,
        settings={
            "start_percentile": float(start_percentile), "step": step if isinstance(step, str) else repr(step),
            "noise": float(noise), "se_rule": se_rule, "window": window, "reliability": float(reliability),
            "sigma": float(sigma), "max_se": float(stopper.max_se), "min_cases": min_cases, "max_cases": max_cases,
        },
    )


# --------------------------------------------------------------------------------------------------
# The whole evaluation
# --------------------------------------------------------------------------------------------------


def mlc_decision(cdi: Any, predicted: Any, mlc: Mapping[int, float]):
    """The decision rule of the MLC paper ("Practical Application") for new cases.

    A case predicted as class 1 has its CDI negated; its difficulty is then compared with the MLC of the
    predicted class: at or below it, ``"model can decide"``; above it, ``"refer to an expert"``.

    Parameters
    ----------
    cdi : float, array-like or pandas.Series
        The cases' CDIs (higher = more like class 1).
    predicted : int, array-like or pandas.Series
        The classifier's predicted class (0/1) of each case.
    mlc : mapping
        ``{0: MLC of class 0, 1: MLC of class 1}``.

    Returns
    -------
    str, numpy.ndarray or pandas.Series
        The decision for each case (a Series indexed like ``cdi`` when it is one).

    Examples
    --------
    The paper's MIMIC examples (MLC 0.78 for "alive" = class 0, 0.43 for "dead" = class 1):

    >>> mlc_decision(0.80, 0, {0: 0.78, 1: 0.43})
    'refer to an expert'
    >>> mlc_decision(0.80, 1, {0: 0.78, 1: 0.43})
    'model can decide'
    """
    scalar = np.ndim(cdi) == 0
    index = cdi.index if isinstance(cdi, pd.Series) else None
    c = np.atleast_1d(np.asarray(cdi, dtype=float))
    p = np.atleast_1d(np.asarray(predicted))
    if c.shape != p.shape:
        raise ValidationError(f"cdi and predicted must have the same length, got {c.size} and {p.size}")
    if not np.isin(p, [0, 1]).all():
        raise ValidationError("predicted must hold the classes 0 and 1")
    missing = [k for k in (0, 1) if k in set(p.tolist()) and k not in mlc]
    if missing:
        raise ValidationError(f"mlc has no value for class {missing[0]}")
    m = np.array([mlc.get(int(k), np.nan) for k in p], dtype=float)
    difficulty = np.where(p == 1, -c, c)
    out = np.where(difficulty <= m, CAN_DECIDE, REFER).astype(object)
    if scalar:
        return str(out[0])
    return pd.Series(out, index=index, name="decision") if index is not None else out


@dataclass(frozen=True, eq=False)
class MLCResult:
    """Everything :func:`evaluate_mlc` found.

    Attributes
    ----------
    classes : tuple of ClassCAT
        The CAT of class 1 and of class 0, in that order (the paper's class 1 and class 2).
    traditional : pandas.DataFrame
        Indexed by metric (accuracy, precision, recall, f1, auc): ``value, n_cases, share, seconds`` on the
        test part.
    cases : pandas.DataFrame
        One row per case: ``y, cdi, difficulty`` (CDI, negated for class 1), ``bin``, ``test``,
        ``predicted`` and ``correct`` (test cases only).
    orientation : pandas.DataFrame
        Per feature: ``orientation`` (+1/-1, from the training part), ``slope`` (its discrimination on the
        oriented CDI scale) and ``concordant`` (whether the two agree).
    cdi_sign : int
        +1 or -1: the calibration's ability scale was multiplied by this so that higher means "more like
        class 1" in the training part.
    difficulty_model : CaseDifficulty
    classifier : estimator
        The fitted classifier.
    class_labels : dict
        Original class value -> 0/1.
    settings : dict
    """

    classes: tuple
    traditional: pd.DataFrame
    cases: pd.DataFrame = field(repr=False)
    orientation: pd.DataFrame = field(repr=False)
    cdi_sign: int = 1
    difficulty_model: CaseDifficulty | None = field(default=None, repr=False)
    classifier: Any = field(default=None, repr=False)
    class_labels: Mapping[Any, int] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def cat(self, label: int) -> ClassCAT:
        """The CAT of class ``label`` (0 or 1)."""
        for c in self.classes:
            if c.label == label:
                return c
        raise ValidationError(f"class {label!r} is not 0 or 1")

    @property
    def mlc(self) -> dict:
        """``{class: MLC}``."""
        return {c.label: c.mlc for c in self.classes}

    def table(self) -> pd.DataFrame:
        """The evaluation in the layout of the MLC paper's Tables 4-5.

        Rows: the traditional metrics, then ``MLC (class 1)`` and ``MLC (class 0)``. Columns: ``value``,
        ``n_cases`` and ``share`` (data required), ``seconds`` (computation time), ``difficulty_adjusted``.
        """
        rows = []
        for name, r in self.traditional.iterrows():
            rows.append((name, r["value"], int(r["n_cases"]), r["share"], r["seconds"], False))
        for c in self.classes:
            rows.append((f"MLC (class {c.label})", c.mlc, c.cases_used, c.share_used, c.seconds, True))
        frame = pd.DataFrame(rows, columns=["metric", "value", "n_cases", "share", "seconds", "difficulty_adjusted"])
        return frame.set_index("metric")

    def accuracy_by_mlc(self, by: str = "predicted") -> pd.DataFrame:
        """Accuracy of the test cases at or below vs above the MLC (the MLC paper, "Practical Application").

        Parameters
        ----------
        by : {"predicted", "true"}
            Group and orient each case by its predicted class (what the decision rule sees) or its true
            class (the class whose CAT produced the MLC).

        Returns
        -------
        pandas.DataFrame
            Indexed by class: ``mlc, n_below, accuracy_below, n_above, accuracy_above``.
        """
        by = check_choice(by, "by", ("predicted", "true"))
        test = self.cases[self.cases["test"]]
        group = test["predicted"] if by == "predicted" else test["y"]
        rows = {}
        for k in (1, 0):
            part = test[group == k]
            difficulty = -part["cdi"] if k == 1 else part["cdi"]
            below = difficulty <= self.mlc[k]
            rows[k] = {
                "mlc": self.mlc[k],
                "n_below": int(below.sum()),
                "accuracy_below": float(part.loc[below, "correct"].mean()) if below.any() else float("nan"),
                "n_above": int((~below).sum()),
                "accuracy_above": float(part.loc[~below, "correct"].mean()) if (~below).any() else float("nan"),
            }
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("class")

    def accuracy_by_cdi(self) -> pd.DataFrame:
        """Accuracy of the test cases per class and CDI bin (the data of Fig. 7), CDIs before negation."""
        test = self.cases[self.cases["test"]]
        width = self.settings.get("bin_width", 0.25) * float(np.std(self.cases["cdi"], ddof=1))
        out = test.groupby(["y", "bin"]).agg(n=("correct", "size"), accuracy=("correct", "mean")).reset_index()
        out.insert(2, "cdi", out["bin"] * width)
        return out.rename(columns={"y": "class"})

    def case_difficulty(self, X: Any) -> pd.Series:
        """CDIs of new cases on this evaluation's scale (higher = more like class 1), scored natively."""
        if self.difficulty_model is None:
            raise ValidationError("this result has no difficulty model to score new cases with")
        return self.difficulty_model.score(X) * self.cdi_sign

    def decide(self, X: Any, predicted: Any = None) -> pd.DataFrame:
        """Apply the decision rule to new cases.

        Parameters
        ----------
        X : pandas.DataFrame
            New cases with the training features.
        predicted : array-like, optional
            Their predicted classes (0/1); default: the fitted classifier's predictions.

        Returns
        -------
        pandas.DataFrame
            ``cdi, predicted, difficulty, mlc, decision`` per case.
        """
        frame = _features(X)
        cdi = self.case_difficulty(frame)
        if predicted is None:
            predicted = self.classifier.predict(frame)
        p = np.asarray(predicted).astype(int)
        decision = mlc_decision(cdi, p, self.mlc)
        return pd.DataFrame(
            {
                "cdi": cdi.to_numpy(),
                "predicted": p,
                "difficulty": np.where(p == 1, -cdi.to_numpy(), cdi.to_numpy()),
                "mlc": [self.mlc[k] for k in p],
                "decision": decision.to_numpy(),
            },
            index=frame.index,
        )

    def to_dict(self) -> dict:
        """The CLI's ``--json`` object: ``{"classes": [...], "traditional": {...}}``."""
        return {
            "classes": [
                {"class": c.label, "mlc": c.mlc, "cases_used": c.cases_used, "share_used": c.share_used,
                 "converged": bool(c.converged)}
                for c in self.classes
            ],
            "traditional": {k: float(v) for k, v in self.traditional["value"].items()},
        }

    def summary(self, digits: int = 3) -> str:
        """Text summary: the Tables 4-5 layout, accuracy below/above the MLC, and Notes."""
        table = self.table().copy()
        table["share"] = table["share"].map(lambda v: f"{100 * v:.2f}%")
        table["seconds"] = table["seconds"].map(lambda v: f"{v:.4f}")
        lines = [
            f"MLC evaluation: {len(self.cases)} cases ({int(self.cases['test'].sum())} test), "
            f"features {self.settings.get('features')}, classifier {self.settings.get('classifier')}",
            "",
            table.to_string(float_format=lambda v: f"{v:.{digits}f}"),
            "",
            "accuracy at/below vs above the MLC (test cases, by predicted class):",
            self.accuracy_by_mlc().to_string(float_format=lambda v: f"{v:.{digits}f}"),
        ]
        notes = [
            f"class labels: {', '.join(f'{k!r} -> {v}' for k, v in self.class_labels.items())}; CDIs of class 1 "
            "are negated in the CATs",
            f"CDI direction learned on the training part: calibration scale x {self.cdi_sign:+d}",
        ]
        discordant = self.orientation.index[~self.orientation["concordant"]].tolist()
        if discordant:
            notes.append(
                f"{len(discordant)} feature(s) load on the CDI scale against their training association with "
                f"class 1: {', '.join(map(str, discordant[:8]))}{' ...' if len(discordant) > 8 else ''}"
            )
        for c in self.classes:
            if not c.converged:
                notes.append(f"class {c.label}: the CAT did not converge ({c.stop} after {c.cases_used} cases)")
            if c.extreme and c.trajectory["correct"].all():
                notes.append(
                    f"class {c.label}: all {c.cases_used} cases were classified right; the MLC rests on the "
                    "half-case correction of Eq. 11 and only bounds the reach from below"
                )
            elif c.extreme:
                notes.append(
                    f"class {c.label}: all {c.cases_used} cases were classified wrong; the MLC rests on the "
                    "half-case correction of Eq. 10"
                )
        lines += ["", "Notes:"] + [f"  [{i + 1}] {n}" for i, n in enumerate(notes)]
        return "\n".join(lines)


def _traditional(classifier, X_test: pd.DataFrame, y_test: np.ndarray, n_total: int) -> pd.DataFrame:
    from sklearn import metrics

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
    start_percentile: float = 25.0,
    step: Any = "halving",
    noise: float = 0.1,
    se_rule: str = "running_sd",
    window: int = 6,
    reliability: float = 0.98,
    sigma: float = 1.0,
    min_cases: int = 5,
    max_cases: int = 100,
    random_state: Any = None,
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
    test_size, bin_width
        The binned split (:func:`binned_split`): 30 % test within bins of 0.25 sigma.
    start_percentile, step, noise, se_rule, window, reliability, sigma, min_cases, max_cases
        The CAT of each class (:func:`run_mlc_cat`).
    random_state : None, int or numpy.random.Generator
        Seeds the split, the classifier (when named) and the CAT noise: the same seed gives the same
        result.

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

    Examples
    --------
    >>> res = evaluate_mlc(X, y, "logistic", features="quartiles", random_state=1)   # doctest: +SKIP
    >>> print(res.summary())                                                          # doctest: +SKIP
    """
    from sklearn.base import clone

    frame = _features(X)
    if frame.index.has_duplicates:
        raise ValidationError(
            "X has duplicate row labels; the CAT identifies cases by label, so give each row its own (reset_index)"
        )
    if len(y) != len(frame):
        raise ValidationError(f"X has {len(frame)} rows but y has {len(y)}")
    labels, mapping = _labels(pd.Series(np.asarray(y), index=frame.index), positive)
    if labels.value_counts().min() < 2:
        raise ValidationError("each class needs at least two cases")
    rng = check_random_state(random_state)
    if isinstance(classifier, str):
        model = make_classifier(classifier, random_state=rng)
        classifier_name = classifier
    else:
        if not (hasattr(classifier, "fit") and hasattr(classifier, "predict")):
            raise ValidationError(f"classifier must be a name ({', '.join(CLASSIFIERS)}) or an estimator with fit/predict")
        model = clone(classifier)
        classifier_name = type(classifier).__name__

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

    # direction of the scale and orientation of the features: training part only
    corr = np.corrcoef(raw[train].to_numpy(), labels[train].to_numpy())[0, 1]
    sign = -1 if corr < 0 else 1
    cdi = (raw * sign).rename("cdi")
    bins = difficulty_bins(cdi, bin_width)
    orient = feature_orientation(difficulty.items[train.to_numpy()], labels[train])
    slopes = difficulty.calibration.items["a"].reindex(orient.index) * sign
    orientation = pd.DataFrame(
        {"orientation": orient, "slope": slopes, "concordant": np.sign(slopes.to_numpy()) == orient.to_numpy()}
    )

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
            run_mlc_cat(
                diff[ids], respond, label=k, cdi=cdi[ids], n_total=len(frame), start_percentile=start_percentile,
                step=step, noise=noise, se_rule=se_rule, window=window, reliability=reliability, sigma=sigma,
                min_cases=min_cases, max_cases=max_cases, random_state=rng,
            )
        )
    cases = pd.DataFrame({"y": labels, "cdi": cdi, "difficulty": diff, "bin": bins, "test": test, "predicted": predicted})
    cases["correct"] = np.where(test, cases["predicted"] == cases["y"], np.nan)
    for c in cats:
        if not c.converged:
            warnings.warn(
                f"the MLC CAT of class {c.label} did not converge ({c.stop} after {c.cases_used} cases); its MLC is "
                "the last running estimate",
                DataWarning,
                stacklevel=2,
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


# --------------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------------

_COLORS = {1: "#c0392b", 0: "#2471a3"}


def plot_cdi_distributions(result: MLCResult, title: str | None = None):
    """CDI distribution of all cases in 0.25-sigma bins (a) and by class as violins (b) -- Figs. 4-5."""
    import matplotlib.pyplot as plt

    cases = result.cases
    width = result.settings.get("bin_width", 0.25) * float(np.std(cases["cdi"], ddof=1))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    lo, hi = np.floor(cases["cdi"].min() / width - 0.5), np.ceil(cases["cdi"].max() / width + 0.5)
    edges = (np.arange(lo, hi + 1) - 0.5) * width
    ax1.hist(cases["cdi"], bins=edges, color="0.55", edgecolor="white")
    ax1.set(xlabel="CDI", ylabel="cases", title="(a) all cases, bins of 0.25 sd")
    data = [cases.loc[cases["y"] == k, "cdi"].to_numpy() for k in (0, 1)]
    parts = ax2.violinplot(data, positions=[0, 1], showmedians=True)
    for body, k in zip(parts["bodies"], (0, 1)):
        body.set_facecolor(_COLORS[k])
    ax2.set_xticks([0, 1], [f"class 0 ({_name(result, 0)})", f"class 1 ({_name(result, 1)})"])
    ax2.set(ylabel="CDI", title="(b) by class")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _name(result: MLCResult, k: int) -> str:
    for value, code in result.class_labels.items():
        if code == k:
            return str(value)
    return str(k)


def plot_difficulty_kde(result: MLCResult, title: str | None = None):
    """Kernel density of case difficulty by class, class 1 negated -- Fig. 6."""
    import matplotlib.pyplot as plt
    from scipy.stats import gaussian_kde

    cases = result.cases
    fig, ax = plt.subplots(figsize=(6, 4))
    grid = np.linspace(cases["difficulty"].min() - 0.5, cases["difficulty"].max() + 0.5, 300)
    for k in (0, 1):
        values = cases.loc[cases["y"] == k, "difficulty"].to_numpy()
        if values.size > 1 and np.std(values) > 0:
            ax.plot(grid, gaussian_kde(values)(grid), color=_COLORS[k], label=f"class {k} ({_name(result, k)})")
            ax.axvline(result.mlc[k], color=_COLORS[k], ls=":", lw=1)
    ax.set(xlabel="case difficulty (CDI, class 1 negated)", ylabel="density", title=title or "difficulty by class")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_accuracy_by_cdi(result: MLCResult, title: str | None = None, min_cases: int = 3):
    """Accuracy of the test cases against CDI, by class (before negation) -- Fig. 7."""
    import matplotlib.pyplot as plt

    table = result.accuracy_by_cdi()
    fig, ax = plt.subplots(figsize=(6, 4))
    for k in (0, 1):
        part = table[(table["class"] == k) & (table["n"] >= min_cases)]
        ax.plot(part["cdi"], part["accuracy"], "o-", color=_COLORS[k], label=f"class {k} ({_name(result, k)})")
    ax.set(xlabel="CDI (bin centre)", ylabel="accuracy", ylim=(-0.02, 1.02), title=title or "accuracy vs CDI")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_cat_trajectories(result: MLCResult, title: str | None = None):
    """The CAT of each class: presented difficulties (right/wrong), the running MLC and its asymptote -- Fig. 8."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, cat in zip(axes, result.classes):
        t = cat.trajectory
        ok = t["correct"].to_numpy(dtype=bool)
        ax.plot(t.index, t["difficulty"], color="0.6", lw=0.8)
        ax.plot(t.index[ok], t["difficulty"][ok], "o", color="#27ae60", label="classified right")
        ax.plot(t.index[~ok], t["difficulty"][~ok], "x", color="#c0392b", label="classified wrong")
        ax.plot(t.index, t["mlc"], color=_COLORS[cat.label], lw=2, label="running MLC")
        ax.axhline(cat.mlc, color=_COLORS[cat.label], ls="--", lw=1, label=f"MLC {cat.mlc:.2f}")
        flag = "" if cat.converged else f" (not converged: {cat.stop})"
        ax.set(xlabel="cases presented (L)", title=f"class {cat.label} ({_name(result, cat.label)}){flag}")
    axes[0].set_ylabel("case difficulty")
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_mlc_plane(results: Mapping[str, MLCResult], title: str | None = None):
    """The MLC of class 1 (x) against class 0 (y) for several models or datasets -- Fig. 9."""
    import matplotlib.pyplot as plt

    if not results:
        raise ValidationError("results is empty; pass {name: MLCResult}")
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, res in results.items():
        x, y = res.mlc[1], res.mlc[0]
        ax.plot(x, y, "o", ms=8)
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(6, 6))
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set(xlabel="MLC, class 1", ylabel="MLC, class 0", title=title or "Machine Learning Capability")
    fig.tight_layout()
    return fig
