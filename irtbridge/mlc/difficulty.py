"""Case difficulty indices (CDIs): the features calibrated as items in R, every case scored; bins and split.

Steps 1-2 of the MLC paper's procedure: a case's ability estimate is its CDI; CDIs are binned at
0.25 sigma (bins centred on zero) and each bin is split 70/30 at random.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Number, constraints
from irtbridge._ties import tie_floor
from irtbridge._validation import check_choice, check_number, check_random_state
from irtbridge.calibration import calibrate
from irtbridge.exceptions import ValidationError
from irtbridge.irt import estimate_abilities
from irtbridge.mlc._checks import feature_table
from irtbridge.mlc.prepare import encode_features

__all__ = ["CaseDifficulty", "case_difficulty", "difficulty_bins", "binned_split", "feature_orientation"]


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
        """The IRT model of the CDIs: ``"2PL"`` for binary features, ``"graded"`` for quartiles.
        """
        return "2PL" if self.features == "binary" else "graded"

    def score(self, X: Any) -> pd.Series:
        """CDIs of new cases, natively (no R): encode with the stored cut points, EAP with the calibrated items.

        Uses mirt's ``fscores`` defaults (121 points on [-6, 6], N(0, 1) prior), so scoring the
        calibration data reproduces :attr:`cdi` for EAP.

        Parameters
        ----------
        X : DataFrame
            New cases, with the calibration's feature columns.

        Returns
        -------
        Series
            Named ``cdi``.
        """
        frame = feature_table(X)
        missing = [c for c in self.items.columns if c not in frame.columns]
        if missing:
            raise ValidationError(f"X lacks feature column(s) {', '.join(map(repr, missing[:10]))}")
        items, _ = encode_features(frame[list(self.cutpoints)], self.features, cutpoints=self.cutpoints)
        items = items[list(self.calibration.items.index)]
        est = estimate_abilities(items, self.calibration, method="EAP", quadrature=121, bounds=(-6.0, 6.0))
        return est["theta"].rename("cdi")


@constraints(method=Choice(("EAP", "MAP", "WLE"), ignore_case=True))
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
    Five features of scikit-learn's breast-cancer data, cut at their quartiles (a graded model in mirt):

    >>> from sklearn.datasets import load_breast_cancer
    >>> X = load_breast_cancer(as_frame=True).data.iloc[:, :5]
    >>> cd = case_difficulty(X, "quartiles")                             # doctest: +R
    >>> cd.model, cd.cdi.shape, cd.calibration.items.shape[0]
    ('graded', (569,), 5)
    """
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


@constraints(width=Number(low=0.0, low_open=True))
def difficulty_bins(cdi: Any, width: float = 0.25) -> pd.Series:
    """Bin number of each CDI: bins ``width`` standard deviations wide, bin 0 centred on zero.

    ``bin = floor(cdi / (width * sd) + 1/2)`` with ``sd`` the sample standard deviation of the CDIs;
    bin ``k`` covers ``[(k - 1/2) w sd, (k + 1/2) w sd)``. The grid is symmetric about zero, so turning the
    CDI scale around maps bin ``k`` to bin ``-k``.

    Parameters
    ----------
    cdi : array-like or Series
        The cases' CDIs.
    width : float, default 0.25
        Bin width in standard deviations.

    Returns
    -------
    Series
        Named ``bin``, indexed like ``cdi``.

    Notes
    -----
    A CDI on a bin edge up to rounding noise belongs to the bin above it: the floor counts a value within
    ``1e-9 * max(1, |value|)`` below an integer as that integer (``irtbridge._ties``), so noise in the last
    bits of a CDI or of ``sd`` does not move a case across an edge.

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
    return pd.Series(tie_floor(x / (width * sd) + 0.5).astype(np.int64), index=values.index, name="bin")


@constraints(test_size=Number(low=0.0, high=1.0, low_open=True, high_open=True))
def binned_split(cdi: Any, test_size: float = 0.3, width: float = 0.25, random_state: Any = None) -> pd.Series:
    """Stratified train/test split within CDI bins (the MLC paper, "Machine Learning Analysis Evaluated Via CAT").

    Each bin of :func:`difficulty_bins` is split at random: ``round(test_size * n)`` cases (at least one,
    at most ``n - 1``) go to the test part. A bin of two cases puts one in each part; a bin of one case
    goes to training.

    Parameters
    ----------
    cdi : array-like or Series
        The cases' CDIs.
    test_size : float, default 0.3
        Share of each bin held out.
    width : float, default 0.25
        Bin width in standard deviations.
    random_state : None, int or numpy.random.Generator
        Seeds the split.

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

    Parameters
    ----------
    items : DataFrame
        Cases x features (scores).
    y : Series
        The cases' classes, 0/1.

    Returns
    -------
    Series
        Named ``orientation``, one per feature.

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
