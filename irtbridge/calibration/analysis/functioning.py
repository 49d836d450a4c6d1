"""Differential response, test and bundle functioning through mirt, beyond :func:`~irtbridge.dif`.

On a two-group :class:`~irtbridge.calibration.results.group_result.GroupCalibration` (also as its methods
``drf``, ``dtf``, ``empirical_es``): :func:`drf` (mirt's ``DRF``: signed, unsigned and distance
measures between the groups' expected score curves, for the test, a bundle or each item, with
bootstrap intervals and tests from parameter draws), :func:`dtf` (``DTF``) and :func:`empirical_es`
(``empirical_ES``: Meade's effect sizes from the focal group's scores). On raw responses:
:func:`sibtest` (``SIBTEST``: Shealy and Stout's SIBTEST and the crossing CSIBTEST, no model fitted).

Items are named by their column names and reach R as positions; every statistic is mirt's, computed
on the live model (or the responses) in the embedded R.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, Flag, Int, Seed, constraints
from irtbridge._validation import R_SEED_MAX, as_response_matrix, check_choice, check_int, check_number, check_seed
from irtbridge.calibration.inputs.checks import group_labels
from irtbridge.exceptions import ValidationError

__all__ = ["drf", "dtf", "empirical_es", "sibtest"]

#: R's p.adjust methods
_P_ADJUST = ("holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "fdr", "none")


def drf(group_fit: Any, items: Sequence[str] | None = None, *, by_item: bool = False, draws: int | None = None,
        seed: int | None = None, ci: float = 0.95, npts: int = 1000, theta_lim: Sequence[float] = (-6.0, 6.0),
        best_fitting: bool = False, p_adjust: str = "none") -> pd.DataFrame:
    """Differential response functioning between two groups (mirt's ``DRF``; Chalmers, 2018).

    Compares the expected score curves under the focal group's item parameters (the second of
    ``group_fit.groups``, mirt's sorted labels) and the reference group's (the first) over the latent
    density: ``sDRF`` (signed area: bias that compensates across theta),
    ``uDRF`` (unsigned area) and ``dDRF`` (root mean squared difference); the ``*`` columns are the
    same divided by the pooled standard deviation of the scores (a Cohen's d metric). Anchors add
    nothing (their curves are equal).

    Parameters
    ----------
    group_fit : GroupCalibration
        A two-group fit, usually with anchors and ``free_means``/``free_var``. With ``draws`` it needs
        standard errors (``calibrate_groups(..., se=True)``, the default).
    items : sequence of str, optional
        The focal items (default all: differential test functioning; a subset: a bundle).
    by_item : bool
        One row per item (mirt's ``DIF = TRUE``; columns ``sDIF``, ``uDIF``, ``dDIF``...).
    draws : int, optional
        Parameter sets drawn from the estimates' sampling distribution for intervals and tests (mirt
        suggests 100 or more; at least ``2 / (1 - ci)`` so the interval has two ends). Random:
        ``seed`` makes them reproducible (R's ``set.seed``).
    seed : int, optional
    ci : float
        Interval level with ``draws`` (mirt's ``CI``).
    npts : int
        Integration points over ``theta_lim`` (mirt's ``npts``).
    theta_lim : (float, float)
    best_fitting : bool
        Integrate over the fitted (Gaussian) densities rather than mirt's empirical histogram of both
        groups. (mirt's ``den.type`` is always ``"marginal"`` here: in mirt 1.48 ``"focal"`` and
        ``"reference"`` stop in DRF's standardization step.)
    p_adjust : str
        With ``by_item`` and ``draws``: R's ``p.adjust`` method for the item tests (``p_adjusted``).

    Returns
    -------
    DataFrame
        Without ``draws``: mirt's table, one row (``groups``, ``n_focal_items``, ``sDRF``, ``uDRF``,
        ``dDRF``, ``sDRF*``, ``uDRF*``, ``dDRF*``) or, ``by_item``, one row per item (index ``item``;
        ``sDIF``...). With ``draws``: one row per statistic (index ``statistic``; with ``by_item``
        ``(statistic, item)``) with ``value``, ``ci_lower``, ``ci_upper`` and the tests ``X2``, ``df``,
        ``p`` (NaN for the distance statistic, which mirt does not test).

    Notes
    -----
    R equivalent: ``DRF(mod, focal_items, DIF = by_item, CI = ci, npts = npts, theta_lim = theta_lim,
    best_fitting = best_fitting, p.adjust = p_adjust)``; with ``draws``:
    ``set.seed(seed); DRF(mod, draws = draws, ...)``.

    Examples
    --------
    >>> from irtbridge import calibrate_groups
    >>> from irtbridge.example_data import response_dataset
    >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
    >>> fit = calibrate_groups(lsat, ["even", "odd"] * 500, "2PL", invariance=[*lsat.columns[:3],
    ...                        "free_means", "free_var"])
    >>> fit.drf()[["sDRF", "uDRF", "dDRF"]].round(3)  # R: DRF(mod)
        sDRF   uDRF   dDRF
    0  0.002  0.006  0.007
    """
    fit = _two_group_fit(group_fit, "drf")
    focal = _item_positions(items, fit.item_names, "items")
    if not isinstance(by_item, (bool, np.bool_)):
        raise ValidationError(f"by_item must be True or False, got {by_item!r}")
    ci = _check_ci(ci)
    if draws is not None:
        draws = _check_draws(draws, ci, fit)
    out = _call("irtb_mirt_drf", fit=fit.r_model, focal_items=focal, draws=draws, seed=_check_seed(seed),
                by_item=bool(by_item), ci=ci, npts=check_int(npts, "npts", low=2),
                theta_lim=_check_limits(theta_lim), best_fitting=_check_bool(best_fitting, "best_fitting"),
                p_adjust=check_choice(p_adjust, "p_adjust", _P_ADJUST))
    if draws is not None:
        keys = ["statistic", "item"] if by_item else ["statistic"]
        return _numeric(out.set_index(keys))
    return _numeric(out.set_index("item") if by_item else out)


def dtf(group_fit: Any, *, draws: int | None = None, seed: int | None = None, ci: float = 0.95,
        npts: int = 1000, theta_lim: Sequence[float] = (-6.0, 6.0)) -> pd.DataFrame:
    """Differential test functioning between two groups (mirt's ``DTF``; Chalmers, Counsell & Flora, 2016).

    The signed (``sDTF``) and unsigned (``uDTF``) difference between the two groups' test score curves,
    in raw score points and as a percentage of the maximum score (``(%)``). mirt keeps ``DTF`` beside
    its successor :func:`drf` (whose ``sDRF`` and ``uDRF`` integrate over the groups' density).

    Parameters
    ----------
    group_fit : GroupCalibration
        A two-group fit; with ``draws``, with standard errors.
    draws : int, optional
    seed : int, optional
    ci : float, default 0.95
    npts : int, default 1000
    theta_lim : sequence of float, default (-6.0, 6.0)
        As :func:`drf`.

    Returns
    -------
    DataFrame, index ``statistic`` (``sDTF.score``, ``sDTF(%).score``, ``uDTF.score``, ``uDTF(%).score``):
    ``value``; with ``draws`` also ``ci_lower``, ``ci_upper`` and ``p`` (mirt's test of sDTF = 0; NaN
    for the others).

    Notes
    -----
    R equivalent: ``DTF(mod, CI = ci, npts = npts, theta_lim = theta_lim)``; with ``draws``:
    ``set.seed(seed); DTF(mod, draws = draws, ...)`` (``$observed``, ``$CIs``, ``$tests``).
    """
    fit = _two_group_fit(group_fit, "dtf")
    ci = _check_ci(ci)
    if draws is not None:
        draws = _check_draws(draws, ci, fit)
    out = _call("irtb_mirt_dtf", fit=fit.r_model, draws=draws, seed=_check_seed(seed), ci=ci,
                npts=check_int(npts, "npts", low=2), theta_lim=_check_limits(theta_lim))
    return _numeric(out.set_index("statistic"))


def empirical_es(group_fit: Any, items: Sequence[str] | None = None, *, by_item: bool = True, npts: int = 61,
                 theta_lim: Sequence[float] = (-6.0, 6.0)) -> pd.DataFrame:
    """Empirical effect sizes of differential functioning (mirt's ``empirical_ES``; Meade, 2010).

    The focal group's EAP scores (the second of ``group_fit.groups``) are put through both groups' item
    parameters, and the expected-score differences averaged over those respondents.

    Parameters
    ----------
    group_fit : GroupCalibration
        A two-group fit; the first of its ``groups`` is the reference group.
    items : sequence of str, optional
        The items (default all; a subset is a bundle for the test-level sizes).
    by_item : bool
        Item-level sizes (mirt's ``DIF = TRUE``, the default) or the test/bundle-level ones.
    npts : int, default 61
    theta_lim : sequence of float, default (-6.0, 6.0)
        Integration grid (mirt's defaults: 61 points over -6..6).

    Returns
    -------
    DataFrame
        ``by_item``: index ``item``, mirt's columns ``SIDS, UIDS, SIDN, UIDN, ESSD, theta.of.max.D,
        max.D, mean.ES.foc, mean.ES.ref``. Otherwise index ``statistic`` (``STDS, UTDS, UETSDS, ETSSD,
        Starks.DTFR, UDTFR, UETSDN, theta.of.max.test.D, Test.Dmax``), one column ``value``.

    Notes
    -----
    R equivalent: ``empirical_ES(mod, focal_items = items, DIF = by_item, npts = npts, theta_lim = theta_lim)``.
    """
    fit = _two_group_fit(group_fit, "empirical_es")
    focal = _item_positions(items, fit.item_names, "items")
    out = _call("irtb_mirt_empirical_es", fit=fit.r_model, focal_items=focal,
                by_item=_check_bool(by_item, "by_item"), npts=check_int(npts, "npts", low=2),
                theta_lim=_check_limits(theta_lim))
    return _numeric(out.set_index("item" if by_item else "statistic"))


@constraints(by_item=Flag(), Jmin=Int(low=1), randomize=Flag(), permute=Int(low=1), seed=Seed(allow_none=True, high=R_SEED_MAX),
             pk_focal=Flag(), correction=Flag(), remove_cross=Flag(), p_adjust=Choice(_P_ADJUST))
def sibtest(responses: Any, groups: Any, suspect_set: Sequence[str] | str | None = None,
            match_set: Sequence[str] | str | None = None, *, focal_name: str | None = None, by_item: bool = False,
            guess_correction: float | Sequence[float] = 0.0, Jmin: int = 5, randomize: bool = False,
            permute: int = 1000, seed: int | None = None, pk_focal: bool = False, correction: bool = True,
            remove_cross: bool = False, p_adjust: str = "none") -> pd.DataFrame:
    """SIBTEST and the crossing CSIBTEST on responses (mirt's ``SIBTEST``; Shealy & Stout, 1993).

    No model is fitted: respondents are matched on their score over the ``match_set`` items and the
    groups' regression-corrected scores on the ``suspect_set`` compared. One suspect item tests DIF;
    several, a bundle (DBF); every non-matched item, the test (DTF).

    Parameters
    ----------
    responses : DataFrame or 2-D array
        Integer-scored responses, no missing values (drop incomplete rows first).
    groups : sequence
        One label per respondent, two or more groups.
    suspect_set, match_set : sequence of str, optional
        Item names. At least one: the other defaults to every item not in it (mirt's rule).
    focal_name : str, optional
        The focal group (default: the second label in order of appearance, as mirt).
    by_item : bool
        Test each suspect item alone, the rest matched (mirt's ``DIF = TRUE``).
    guess_correction : float or one per item
        Correction for guessing, 0..1 (mirt's ``guess_correction``).
    Jmin : int
        Minimum respondents per matched score cell in each group.
    randomize : bool
        CSIBTEST by Li and Stout's permutation test (``permute`` permutations; ``seed`` for R's
        ``set.seed``) rather than Chalmers' mixed-degrees-of-freedom test.
    pk_focal, correction, remove_cross : bool
        mirt's options of the same names.
    p_adjust : str
        R's ``p.adjust`` method across groups (more than two groups).
    permute : int, default 1000
        Permutations of the randomized CSIBTEST.
    seed : int, optional
        R's ``set.seed`` before the permutations.

    Returns
    -------
    DataFrame, index ``test`` (``SIBTEST``, ``CSIBTEST``; with ``by_item`` ``(item, test)``): mirt's
    columns ``focal_group, n_matched_set, n_suspect_set, beta, SE, X2, df, p``.

    Notes
    -----
    R equivalent: ``SIBTEST(dat, group, suspect_set, match_set, focal_name, guess_correction, Jmin,
    randomize = randomize, permute = permute, pk_focal, correction, remove_cross, DIF = by_item,
    p.adjust.method = p_adjust)``, items as column positions.

    Examples
    --------
    >>> from irtbridge.calibration import sibtest
    >>> from irtbridge.example_data import response_dataset
    >>> lsat = response_dataset("LSAT7")                                   # doctest: +R
    >>> sibtest(lsat, ["even", "odd"] * 500, suspect_set=["Item.5"])[["beta", "X2", "p"]].round(3)
              beta     X2      p
    test
    SIBTEST  -0.01  0.109  0.741
    CSIBTEST  0.01  0.109  0.741
    """
    values, names, _ = as_response_matrix(responses, "responses")
    if np.isnan(values).any():
        raise ValidationError("responses: SIBTEST needs complete responses; drop the rows with missing values")
    labels = group_labels(groups, values.shape[0])
    suspect = _item_positions(suspect_set, names, "suspect_set") if suspect_set is not None else None
    match = _item_positions(match_set, names, "match_set") if match_set is not None else None
    if suspect is None and match is None:
        raise ValidationError("suspect_set: name the suspect items, the matching items (match_set), or both")
    if suspect is not None and match is not None and set(suspect) & set(match):
        both = [names[i - 1] for i in sorted(set(suspect) & set(match))]
        raise ValidationError(f"match_set: item(s) {both[:5]} are also in suspect_set")
    levels = list(pd.unique(pd.Series(labels)))
    focal = levels[1] if focal_name is None else str(focal_name)
    if focal not in levels:
        raise ValidationError(f"focal_name: {focal_name!r} is not a group; the groups are {levels}")
    guess = np.atleast_1d(np.asarray(guess_correction, dtype=float))
    if guess.size not in (1, len(names)) or not ((guess >= 0) & (guess <= 1)).all():
        raise ValidationError(f"guess_correction: one number in [0, 1], or one per item ({len(names)}), got "
                              f"{guess_correction!r}")
    out = _call("irtb_mirt_sibtest", data=values, item_names=names, group=labels, suspect_set=suspect,
                match_set=match, focal_name=focal, by_item=_check_bool(by_item, "by_item"),
                guess_correction=guess.tolist() if guess.size > 1 else float(guess[0]),
                Jmin=check_int(Jmin, "Jmin", low=1), randomize=_check_bool(randomize, "randomize"),
                permute=check_int(permute, "permute", low=1), seed=_check_seed(seed),
                pk_focal=_check_bool(pk_focal, "pk_focal"), correction=_check_bool(correction, "correction"),
                remove_cross=_check_bool(remove_cross, "remove_cross"),
                p_adjust=check_choice(p_adjust, "p_adjust", _P_ADJUST))
    return _numeric(out.set_index(["item", "test"] if by_item else "test"))


# -- shared checks ----------------------------------------------------------------------------------
def _two_group_fit(group_fit: Any, what: str) -> Any:
    # a GroupCalibration is known by what it offers (group_result imports this module, not the reverse)
    if not (hasattr(group_fit, "groups") and callable(getattr(group_fit, "_live", None))
            and callable(getattr(group_fit, "group", None))):
        raise ValidationError(f"{what} needs a GroupCalibration from calibrate_groups, got {type(group_fit).__name__}")
    if len(group_fit.groups) != 2:
        raise ValidationError(f"{what} compares two groups; this fit has {len(group_fit.groups)} "
                              f"({list(group_fit.groups)}): fit the two groups to compare")
    group_fit._live(what)
    return group_fit


def _item_positions(items: Any, names: Sequence[str], param: str) -> list[int]:
    """1-based positions of the named items (all items when ``items`` is None)."""
    if items is None:
        return list(range(1, len(names) + 1))
    items = [items] if isinstance(items, str) else list(items)
    if not items:
        raise ValidationError(f"{param}: name at least one item")
    position = {n: i + 1 for i, n in enumerate(names)}
    unknown = [i for i in items if str(i) not in position]
    if unknown:
        raise ValidationError(f"{param}: unknown item(s) {unknown[:5]}; the items are {list(names)[:5]}...")
    if len(set(map(str, items))) != len(items):
        raise ValidationError(f"{param}: an item is named twice in {items}")
    return [position[str(i)] for i in items]


def _check_ci(ci: Any) -> float:
    return check_number(ci, "ci", low=0.0, high=1.0, low_open=True, high_open=True)


def _check_draws(draws: Any, ci: float, fit: Any) -> int:
    draws = check_int(draws, "draws", low=1)
    # mirt's interval takes the floor(draws * (1 - ci) / 2)-th smallest draw: it must exist
    if math.floor(draws * (1 - ci) / 2) < 1:
        raise ValidationError(f"draws: {draws} draws give no {ci:g} interval; use at least "
                              f"{math.ceil(2 / (1 - ci) - 1e-9)} (mirt suggests 100 or more)")
    if not fit.options.get("se"):
        raise ValidationError("draws: parameter draws need the fit's standard errors; fit with "
                              "calibrate_groups(..., se=True)")
    return draws


def _check_seed(seed: Any) -> int | None:
    return check_seed(seed, "seed", allow_none=True, high=R_SEED_MAX)


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _check_limits(limits: Any) -> list[float]:
    try:
        lo, hi = (float(v) for v in limits)
    except (TypeError, ValueError):
        raise ValidationError(f"theta_lim must be two numbers (lower, upper), got {limits!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValidationError(f"theta_lim must be finite with lower < upper, got {limits!r}")
    return [lo, hi]


def _call(helper: str, **kwargs: Any) -> pd.DataFrame:
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    session.ensure_packages("mirt")
    return session.call(helper, **kwargs)


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns R returned as logical NA (no test for a statistic) made float; text columns kept."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object and out[col].map(lambda v: v is None or isinstance(v, (bool, float, int))).all():
            out[col] = pd.to_numeric(out[col].map(lambda v: np.nan if v is None else v), errors="coerce")
    return out
