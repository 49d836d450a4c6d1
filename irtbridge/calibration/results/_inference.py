"""Inference on a mirt :class:`~irtbridge.calibration.Calibration`: the parameters' covariance matrix,
Wald tests of linear contrasts, coefficients with standard errors and confidence intervals in either
parameterization, the information matrix's condition number, profile-likelihood intervals, Lagrange
(score) tests for freeing fixed parameters, multidimensional discrimination and difficulty, and test
information in a direction.

R equivalents: ``vcov(fit)``, ``wald(fit, L)``, ``coef(fit, IRTpars = , CI = , printSE = )``,
``extract.mirt(fit, "condnum")``, ``PLCI.mirt(fit, parnum, alpha)``, ``lagrange(fit, parnum)``,
``MDISC(fit)``, ``MDIFF(fit)``, ``testinfo(fit, Theta, degrees = , which.items = )``. Each needs the live
model of a mirt fit made in this process; those that read the information matrix compute the standard
errors first when the fit deferred them (the default ``se=None``).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._validation import R_SEED_MAX, check_bool, check_number, check_seed
from irtbridge.calibration.results._se import GROUP_PARENT, SE_MODEL
from irtbridge.calibration.shared._live import live_model
from irtbridge.exceptions import RWarning, ValidationError, find_stack_level

__all__ = ["InferenceMixin"]


def _parnums(value: Any, name: str, allowed: set[int], what: str) -> list[int]:
    """A list of mirt parameter numbers, each one of ``allowed``."""
    items = list(value) if isinstance(value, (list, tuple, np.ndarray, pd.Series)) else [value]
    whole = [v for v in items if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))]
    if not items or len(whole) != len(items):
        raise ValidationError(f"{name} must be mirt parameter numbers (fit.parameters()['parnum']), got {value!r}")
    out = [int(v) for v in whole]
    bad = [p for p in out if p not in allowed]
    if bad:
        raise ValidationError(f"{name}: {bad[0]} is not {what} (see fit.parameters()['parnum'])")
    return out


class InferenceMixin:
    """Inference methods of a mirt :class:`~irtbridge.calibration.Calibration` (see the module)."""

    if TYPE_CHECKING:  # what the methods use of the fit class they are mixed into (Calibration)
        options: Mapping[str, Any]
        factors: tuple[str, ...]
        standard_errors: pd.DataFrame

        @property
        def item_names(self) -> list[str]: ...

        def parameters(self) -> pd.DataFrame: ...

        def _live_mirt(self, what: str) -> Any: ...

    def _information_model(self, what: str) -> Any:
        """The live model that holds this fit's information matrix (the fit's own, or the one its
        deferred standard errors were computed on); a one-line error when there is none."""
        model = live_model(self, what)
        if self.options.get("se") is False:
            raise ValidationError(f"{what} needs the information matrix; this fit was made with se=False: refit "
                                  "with se=True (or the default se=None)")
        self.standard_errors  # computes deferred SEs (and keeps their model)
        problem = self.options.get("se_unavailable")
        if problem:
            raise ValidationError(f"{what} needs the information matrix, which is unavailable for this fit ({problem})")
        return self.__dict__.get(SE_MODEL, model)

    def _estimated_parnums(self) -> tuple[set[int], set[int]]:
        table = self.parameters()
        est = table["est"].astype(bool).to_numpy()
        nums = table["parnum"].astype(int).to_numpy()
        return set(nums[est].tolist()), set(nums[~est].tolist())

    # -- the information matrix -------------------------------------------------------------------
    def vcov(self) -> pd.DataFrame:
        """The covariance matrix of the estimated parameters (the inverse information matrix).

        Returns
        -------
        DataFrame
            Rows and columns named as mirt names them: ``<parameter>.<parnum>`` (``a1.1``, ``d.2``, ...;
            ``parnum`` as in :meth:`parameters`), in the slope-intercept parameterization.

        Notes
        -----
        R equivalent: ``vcov(fit)`` of the ``SE = TRUE`` fit. Deferred standard errors are computed first.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=True)   # doctest: +R
        >>> fit.vcov().iloc[:2, :2].round(4)
                a1.1     d.2
        a1.1  0.0314  0.0160
        d.2   0.0160  0.0173
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        out = session.call("irtb_mirt_vcov", fit=self._information_model("vcov"))
        return out if isinstance(out, pd.DataFrame) else pd.DataFrame(out)

    @property
    def condition_number(self) -> float:
        """The condition number of the information matrix (largest over smallest eigenvalue): mirt's
        ``extract.mirt(fit, "condnum")``. Computes deferred standard errors first; a fit made with
        ``se=False`` has none (a one-line error)."""
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        return float(session.call("irtb_mirt_condnum", fit=self._information_model("condition_number")))

    def wald(self, L: Any, C: Any = None) -> pd.Series:
        """Wald test of the linear hypothesis ``L @ parameters == C``.

        Parameters
        ----------
        L : array-like or DataFrame
            The contrast matrix, one row per constraint and one column per estimated parameter in the
            order of :meth:`vcov` (a 1-D array is one row). A DataFrame may name its columns as
            :meth:`vcov` does (``a1.1``, ``d.2``, ...); parameters it leaves out get weight 0.
        C : array-like, optional
            The right-hand side, one number per row of ``L``; default 0.

        Returns
        -------
        Series
            ``W`` (the Wald statistic), ``df`` (rows of ``L``) and ``p``.

        Notes
        -----
        R equivalent: ``wald(fit, L, C)`` of the ``SE = TRUE`` fit.

        Examples
        --------
        >>> import irtbridge, numpy as np
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=True)   # doctest: +R
        >>> L = np.zeros(10); L[0], L[2] = 1, -1          # a1 of item 1 equals a1 of item 2
        >>> fit.wald(L).round(3)["df"]
        1.0
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        model = self._information_model("wald")
        names = list(session.call("irtb_mirt_vcov", fit=model).columns)
        if isinstance(L, pd.DataFrame):
            unknown = [c for c in map(str, L.columns) if c not in names]
            if unknown:
                raise ValidationError(f"L: column {unknown[0]!r} is not an estimated parameter (fit.vcov() names them)")
            L = L.rename(columns=str).reindex(columns=names, fill_value=0.0)
        try:
            matrix = np.atleast_2d(np.asarray(L, dtype=float))
        except (TypeError, ValueError):
            raise ValidationError("L must be a matrix of numbers") from None
        if matrix.ndim != 2 or matrix.shape[1] != len(names) or not np.isfinite(matrix).all():
            raise ValidationError(f"L must be a finite matrix with {len(names)} columns (one per estimated "
                                  f"parameter, as fit.vcov()), got shape {np.shape(L)}")
        rhs = None
        if C is not None:
            rhs = np.atleast_1d(np.asarray(C, dtype=float))
            if rhs.shape != (matrix.shape[0],) or not np.isfinite(rhs).all():
                raise ValidationError(f"C must be {matrix.shape[0]} finite number(s), one per row of L")
            rhs = rhs.tolist()
        out = session.call("irtb_mirt_wald", fit=model, L=np.ascontiguousarray(matrix), C=rhs)
        return pd.Series({k: float(np.atleast_1d(out[k])[0]) for k in ("W", "df", "p")}, name="wald")

    def coefficients(self, irt: bool = False, ci: float = 0.95) -> pd.DataFrame:
        """Every parameter with its standard error and confidence interval, in mirt's slope-intercept
        (default) or IRT parameterization.

        Parameters
        ----------
        irt : bool, default False
            False: mirt's own parameters (``a1, d, g, u``; graded ``a1, d1..dk``); True: the IRT form of
            :attr:`items` (``a, b, g, u``), SEs by the delta method.
        ci : float, default 0.95
            Coverage of the Wald intervals ``value -/+ z * se``.

        Returns
        -------
        DataFrame
            Indexed by (``item``, ``parameter``), the group parameters (``MEAN_1``, ``COV_11``, ...) under
            item ``"GroupPars"``; columns ``value, se, lower, upper``. ``se``/``lower``/``upper`` are NaN
            for fixed parameters, and for every parameter of a fit made with ``se=False`` or whose
            information matrix is not positive definite (then with one warning at every call). In the
            slope-intercept form the ``se`` of ``g`` and ``u`` is that of ``logit(g)``/``logit(u)`` and
            their intervals are the back-transformed logit intervals, as mirt reports them.

        Notes
        -----
        R equivalent: ``coef(fit, IRTpars = irt, CI = ci)`` (value and interval: ``par``, ``CI_2.5``,
        ``CI_97.5``) and ``coef(fit, IRTpars = irt, printSE = TRUE)`` (``SE``) of the ``SE = TRUE`` fit.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=True)   # doctest: +R
        >>> fit.coefficients().loc["Item.1"].loc[["a1", "d"]].round(3)    # g, u: fixed (se NaN)
                   value     se  lower  upper
        parameter
        a1         0.988  0.177  0.641  1.335
        d          1.856  0.131  1.598  2.114
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        irt = check_bool(irt, "irt")
        ci = check_number(ci, "ci", low=0.0, high=1.0, low_open=True, high_open=True)
        model = self._coefficients_model()
        group = self.__dict__.get(GROUP_PARENT)
        if group is not None and self.options.get("se") is not False:
            # one group of a multiple-group fit: its rows of the whole fit's coef(), with the SEs
            out = session.call("irtb_mirt_coefficients", fit=group[0], irt=irt, ci=ci, group=group[1])
        else:
            out = session.call("irtb_mirt_coefficients", fit=model, irt=irt, ci=ci)
        names = list(self.item_names)
        labels = out["item"].tolist()  # R's list names: the items in order, then GroupPars (and lr.betas)
        out["item"] = [names[i] if i < len(names) else label for i, label in zip(_item_positions(labels), labels)]
        return out.set_index(["item", "parameter"])

    def _coefficients_model(self) -> Any:
        """The model :meth:`coefficients` reads: the one with the information matrix when there is one;
        else the live fit (SEs NaN), with one warning at every call when the matrix is unavailable."""
        model = self._live_mirt("coefficients")
        if self.options.get("se") is False:
            return model
        with warnings.catch_warnings():  # the one warning of this call is below
            warnings.simplefilter("ignore", RWarning)
            self.standard_errors  # computes deferred SEs once
        problem = self.options.get("se_unavailable")
        if problem:
            warnings.warn(f"coefficients: standard errors unavailable ({problem}); se, lower and upper are NaN",
                          RWarning, stacklevel=find_stack_level())
            return model
        return self._information_model("coefficients")

    def profile_ci(self, parnum: Any = None, alpha: float = 0.05) -> pd.DataFrame:
        """Profile-likelihood confidence intervals of estimated parameters (mirt's ``PLCI.mirt``).

        Parameters
        ----------
        parnum : int or sequence of int, optional
            mirt's parameter numbers (``fit.parameters()['parnum']``); default: every estimated parameter
            (one refit per bound: slow for large models).
        alpha : float, default 0.05
            The intervals cover ``1 - alpha``.

        Returns
        -------
        DataFrame
            One row per parameter: ``item, class, name, parnum, value, lower, upper, lower_converged,
            upper_converged`` (mirt's ``Item, class, parnam, parnum, value, lower_2.5, upper_97.5,
            lower_conv, upper_conv``), slope-intercept parameterization.

        Notes
        -----
        R equivalent: ``PLCI.mirt(fit, parnum = parnum, alpha = alpha)``.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        model = self._live_mirt("profile_ci")
        alpha = check_number(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
        if parnum is not None:
            estimated, _ = self._estimated_parnums()
            parnum = _parnums(parnum, "parnum", estimated, "an estimated parameter")
        return session.call("irtb_mirt_plci", fit=model, parnum=parnum, alpha=alpha)

    def lagrange(self, parnum: Any) -> pd.DataFrame:
        """Lagrange multiplier (score) tests for freeing fixed parameters, without refitting.

        Parameters
        ----------
        parnum : int or sequence
            mirt's parameter numbers of fixed parameters (``fit.parameters()``, rows with ``est`` False).
            Each element is one test: an int tests that parameter alone, a sequence of ints frees its
            parameters jointly (``[1, 5]``: two tests; ``[[1, 5]]``: one test with df 2).

        Returns
        -------
        DataFrame
            One row per test, indexed by mirt's label (the parameter numbers joined by ``.``):
            ``X2, df, p``.

        Notes
        -----
        R equivalent: ``lagrange(fit, parnum = list(...))`` (Oakes information, Richardson derivatives).

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "rasch", se=False)   # doctest: +R
        >>> fit.lagrange([1, 5])["df"].tolist()              # free item 1's and item 3's slope
        [1.0, 1.0]
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        model = self._live_mirt("lagrange")
        if isinstance(parnum, (int, np.integer)) and not isinstance(parnum, bool):
            parnum = [parnum]
        if isinstance(parnum, str) or not isinstance(parnum, Sequence) and not isinstance(parnum, np.ndarray):
            raise ValidationError(f"parnum must be an int or a sequence of parameter numbers, got {parnum!r}")
        _, fixed = self._estimated_parnums()
        tests = [_parnums(p, "parnum", fixed, "a fixed parameter") for p in parnum]
        if not tests:
            raise ValidationError("parnum is empty; name at least one fixed parameter")
        out = session.call("irtb_mirt_lagrange", fit=model, parnum=tests)
        index = pd.Index([str(t) for t in np.atleast_1d(out["test"])], name="parnum")
        return pd.DataFrame({k: np.atleast_1d(np.asarray(out[k], dtype=float)) for k in ("X2", "df", "p")}, index=index)

    def bootstrap(self, draws: int = 100, seed: int | None = None, *, keep_draws: bool = False) -> pd.DataFrame:
        """Bootstrapped standard errors: the model refitted to ``draws`` resamples of the respondents.

        Parameters
        ----------
        draws : int, default 100
            Number of bootstrap resamples (mirt's ``R``); each is one refit, so this costs ``draws`` fits.
        seed : int, optional
            Seeds R's generator first (``set.seed(seed)``), so the draws are reproducible; default: R's
            current stream.
        keep_draws : bool, default False
            Return the draws themselves instead of their summary.

        Returns
        -------
        DataFrame
            Indexed by (``item``, ``parameter``) as :meth:`coefficients` (mirt's slope-intercept names;
            group parameters under item ``"GROUP"``), one row per estimated parameter: ``parnum``,
            ``value`` (this fit's estimate), ``se`` (the standard deviation of the draws), ``bias`` (their
            mean minus the full-data refit) and ``n`` (draws that converged; the others are NaN and left
            out). With ``keep_draws=True``: one row per draw, one column per estimated parameter, named as
            :meth:`vcov` names them (``a1.1``, ``d.2``, ...).

        Notes
        -----
        R equivalent: ``set.seed(seed); b <- boot.mirt(fit, R = draws)``; ``se`` is
        ``apply(b$t, 2, sd, na.rm = TRUE)``, the draws are ``b$t``. Latent regression coefficients are
        bootstrapped with the items (mirt refits ``covdata`` resampled with the responses).

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=False)   # doctest: +R
        >>> fit.bootstrap(3, seed=1).shape
        (10, 5)
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        model = self._live_mirt("bootstrap")
        if not isinstance(draws, (int, np.integer)) or isinstance(draws, (bool, np.bool_)) or draws < 2:
            raise ValidationError(f"draws must be an integer >= 2 (bootstrap resamples), got {draws!r}")
        seed = check_seed(seed, "seed", allow_none=True, high=R_SEED_MAX)
        if not isinstance(keep_draws, (bool, np.bool_)):
            raise ValidationError(f"keep_draws must be True or False, got {keep_draws!r}")
        out = session.call("irtb_mirt_boot", fit=model, R=int(draws), seed=None if seed is None else int(seed))
        table = out["draws"]
        values = table.to_numpy(dtype=float, copy=True)
        if keep_draws:
            return pd.DataFrame(values, columns=[str(c) for c in table.columns], index=pd.RangeIndex(len(values), name="draw"))
        index = pd.MultiIndex.from_arrays([list(np.atleast_1d(out["item"])), list(np.atleast_1d(out["parameter"]))],
                                          names=["item", "parameter"])
        valid = np.isfinite(values)
        n = valid.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, np.nansum(values, axis=0) / np.maximum(n, 1), np.nan)
            centred = np.where(valid, values - mean, 0.0)
            se = np.where(n > 1, np.sqrt((centred ** 2).sum(axis=0) / np.maximum(n - 1, 1)), np.nan)
        return pd.DataFrame({"parnum": np.atleast_1d(out["parnum"]).astype(int),
                             "value": np.atleast_1d(np.asarray(out["value"], dtype=float)),
                             "se": se, "bias": mean - np.atleast_1d(np.asarray(out["t0"], dtype=float)),
                             "n": n.astype(int)}, index=index)

    # -- multidimensional item summaries, information --------------------------------------------
    def mdisc(self) -> pd.Series:
        """Multidimensional discrimination of each item, ``sqrt(a' a)`` over its slopes (mirt's ``MDISC``).

        Returns
        -------
        Series
            Named ``MDISC``, one per item.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=False)   # doctest: +R
        >>> fit.mdisc().round(3).tolist()
        [0.988, 1.081, 1.706, 0.765, 0.736]
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        out = session.call("irtb_mirt_mdisc", fit=self._live_mirt("mdisc"))
        names = self.item_names
        return pd.Series(np.atleast_1d(np.asarray(out, dtype=float)), index=names, name="MDISC")

    def mdiff(self) -> pd.DataFrame:
        """Multidimensional difficulty of each item's intercepts, ``-d / MDISC`` (mirt's ``MDIFF``):
        one row per item, columns ``MDIFF_1..MDIFF_k`` (one per intercept).

        Returns
        -------
        DataFrame
            See above.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        out = session.call("irtb_mirt_mdiff", fit=self._live_mirt("mdiff"))
        out.index = pd.Index(self.item_names)
        return out

    def test_information(self, theta: Any, degrees: Any = None, items: Sequence[str] | None = None) -> Any:
        """Test information at ``theta`` from mirt's ``testinfo`` (several factors: in a direction).

        Parameters
        ----------
        theta : array-like
            Ability values: a 1-D array for one factor, an (n, k) matrix for k factors (a DataFrame's
            rows are points).
        degrees : sequence of float, optional
            The direction, one angle in degrees per factor (mirt's ``degrees``); required with several
            factors, not allowed with one.
        items : sequence of str, optional
            Only these items (mirt's ``which.items``); default all.

        Returns
        -------
        ndarray of shape (n,), or a Series indexed like ``theta`` when it is a pandas object.

        Notes
        -----
        R equivalent: ``testinfo(fit, Theta, degrees = degrees, which.items = ...)``. For a unidimensional
        item table without R see :func:`irtbridge.irt.test_information`.
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        model = self._live_mirt("test_information")
        k = len(self.factors)
        index = theta.index if isinstance(theta, (pd.Series, pd.DataFrame)) else None
        try:
            grid = np.asarray(theta, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError("theta must be numbers") from None
        grid = grid.reshape(-1, 1) if grid.ndim <= 1 and k == 1 else grid
        if grid.ndim != 2 or grid.shape[1] != k or grid.shape[0] == 0 or not np.isfinite(grid).all():
            raise ValidationError(f"theta must be finite and have {k} column(s), one per factor, "
                                  f"got shape {np.shape(theta)}")
        angles = None
        if degrees is not None:
            if k == 1:
                raise ValidationError("degrees is for models with several factors; this fit has one")
            angles = np.atleast_1d(np.asarray(degrees, dtype=float))
            if angles.shape != (k,) or not np.isfinite(angles).all():
                raise ValidationError(f"degrees must be {k} finite angles, one per factor, got {degrees!r}")
            angles = angles.tolist()
        elif k > 1:
            raise ValidationError(f"degrees is required: information of a {k}-factor model is taken in a direction")
        which = None
        if items is not None:
            names = list(self.item_names)
            items = [items] if isinstance(items, str) else list(items)
            unknown = [i for i in items if i not in names]
            if unknown or not items:
                raise ValidationError(f"items: {unknown[0] if unknown else '(empty)'!r} is not an item of this fit")
            which = [names.index(i) + 1 for i in items]
        out = session.call("irtb_mirt_testinfo", fit=model, theta=np.ascontiguousarray(grid), degrees=angles,
                           which_items=which)
        values = np.atleast_1d(np.asarray(out, dtype=float)).copy()
        return pd.Series(values, index=index, name="information") if index is not None else values


def _item_positions(labels: list[str]) -> list[int]:
    """Each row's item position (coef's list order: the items, then GroupPars last)."""
    order: list[str] = []
    for label in labels:
        if not order or order[-1] != label:
            order.append(label)
    position = {label: i for i, label in enumerate(order)}
    return [position[label] for label in labels]
