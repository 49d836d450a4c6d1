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

Modules: :mod:`~irtbridge.mlc.prepare` (classifiers, labels, features as items),
:mod:`~irtbridge.mlc.difficulty` (CDIs, bins, the binned split), :mod:`~irtbridge.mlc.estimate`
(Eqs. 9-11 and the running standard error), :mod:`~irtbridge.mlc.staircase` (the CAT of one class on
:func:`irtbridge.cat.simulate_cat`), :mod:`~irtbridge.mlc.result` (the decision rule, :class:`MLCResult`),
:mod:`~irtbridge.mlc.procedure` (:func:`evaluate_mlc`), :mod:`~irtbridge.mlc.plots` (the figures).
"""

from irtbridge.mlc.prepare import CLASSIFIERS, FEATURES, balance_classes, encode_features, make_classifier
from irtbridge.mlc.difficulty import CaseDifficulty, binned_split, case_difficulty, difficulty_bins, feature_orientation
from irtbridge.mlc.estimate import SE_RULES, mlc_estimate, running_mlc, running_standard_error
from irtbridge.mlc.plots import (
    plot_accuracy_by_cdi,
    plot_cat_trajectories,
    plot_cdi_distributions,
    plot_difficulty_kde,
    plot_mlc_plane,
)
from irtbridge.mlc.procedure import evaluate_mlc
from irtbridge.mlc.result import CAN_DECIDE, REFER, MLCResult, mlc_decision
from irtbridge.mlc.staircase import ClassCAT, RunningMLCEstimator, StaircaseSettings, run_mlc_cat

__all__ = [
    "FEATURES",
    "SE_RULES",
    "CLASSIFIERS",
    "CAN_DECIDE",
    "REFER",
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
    "RunningMLCEstimator",
    "StaircaseSettings",
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
