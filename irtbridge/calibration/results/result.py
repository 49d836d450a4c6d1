"""The result of a calibration: :class:`Calibration`, and the model table it is read against."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
import pandas as pd

from irtbridge._catalogue import DICHOTOMOUS, MIRT_ONLY, MODELS, POLYTOMOUS
from irtbridge._moved import moved_names
from irtbridge._summary import Line
from irtbridge._validation import as_response_matrix, check_choice
from irtbridge.calibration.analysis import diagnostics
from irtbridge.calibration.analysis.fscores import check_scoring_options, mirt_scores
from irtbridge.calibration.analysis.plots import plot_calibration, plot_item
from irtbridge.calibration.results._base import CONDITIONAL, DRAWS, FitResult, Reliability, deprecated_theta
from irtbridge.calibration.results._se import SE_MODEL, StandardErrorsField, raw_state
from irtbridge.calibration.results._inference import InferenceMixin
from irtbridge.calibration.results._scoring import ScoringMixin
from irtbridge.calibration.results._serial import SerialMixin
from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE
from irtbridge.calibration.results.flags import flag_items
from irtbridge.calibration.shared._columns import renamed_columns
from irtbridge.calibration.shared._stored import stored
from irtbridge.exceptions import ValidationError
from irtbridge.irt import estimate_abilities
from irtbridge.em.graded import recode_graded

__all__ = ["Calibration", "MODELS", "DICHOTOMOUS", "POLYTOMOUS", "MIRT_ONLY"]

# what each engine fits and scores is its row of the engine table (read there, never copied here)
__getattr__ = moved_names(__name__, {"ENGINES": "irtbridge.calibration.inputs.engine_table",
                                     "SCORING_METHODS": "irtbridge.calibration.inputs.engine_table"})


@dataclass(frozen=True, eq=False)
class Calibration(FitResult, ScoringMixin, InferenceMixin, SerialMixin):
    """The result of :func:`calibrate`: every estimate, plain data, and where it came from.

    Attributes
    ----------
    items : DataFrame
        One row per item (index = item names, exactly as given). Dichotomous models: columns
        ``a, b, g, u`` (discrimination, difficulty, lower and upper asymptote; logistic metric without
        the 1.702 constant, as mirt's ``coef(fit, IRTpars = TRUE)``). Graded/gpcm: ``a, b1..bk``.
    standard_errors : DataFrame
        Same shape as ``items``; NaN where a parameter is fixed. Computed on first access unless the fit
        was made with ``se=True`` (then already there) or ``se=False`` (then all NaN, never computed):
        see :func:`~irtbridge.calibrate`. The first access may take as long as mirt's ``SE = TRUE`` step;
        the table is kept. A fit that never computed them and has lost its live model (pickled, read
        from JSON, ``without_r_model()``) raises a one-line ValidationError saying to refit with ``se=True``.
    loglik, aic, bic : float
        From the engine (``extract.mirt`` / ``logLik``, ``AIC``, ``BIC``).
    n_parameters, iterations : int
        Number of estimated parameters and the engine's iteration count.
    converged : bool
        The engine's convergence flag.
    model, engine : str
    n_respondents : int
    latent_mean, latent_var : float
        The latent distribution (0 and 1 unless the model frees it, e.g. mirt's Rasch variance); NaN
        when it is not described by a mean and variance (``ULL``'s log-normal: the ``GROUP`` rows of
        :meth:`parameters`).
    options : dict
        The effective options passed to the engine.
    warnings : tuple of str
        Every warning R raised during the fit (also re-raised as :class:`RWarning` at the call).
    provenance : dict
        irtbridge, engine and R versions, and the fit's wall time.
    dropped_items : tuple of str
        Items removed before fitting (constant columns with ``drop_constant=True``).
    factors : tuple of str
        The latent factors (``("F1",)`` for a unidimensional model). With several factors ``items`` is
        mirt's slope-intercept table (``a1..ak, d, g, u``; ``coef(fit, simplify = TRUE)``).
    item_types : tuple of str
        One model name per item when ``model == "mixed"`` (mirt's ``itemtype`` vector); else empty.
    latent_regression : DataFrame or None
        With ``calibrate(..., covariates=, formula=)``: one row per regression term (``(Intercept)``
        first, fixed at 0), columns ``beta`` and ``se`` (several factors: ``F1.., se_F1..``); mirt's
        ``coef(fit, printSE = TRUE)$lr.betas``; ``se`` is NaN unless the fit was made with ``se=True``.
        ``None`` when the model has no latent regression.
    item_mins : dict of str to float
        Each item's lowest observed response (mirt's ``extract.mirt(mod, "mins")``: 0 for 0/1 items, 1 for
        items coded 1..K); :func:`~irtbridge.irt.true_score` adds them, as mirt's ``expected.test``. Empty
        when unknown (every item then counts from 0).
    r_model : RObject or None
        The live R model (mirt ``SingleGroupClass`` or ltm object) in the process that fitted it; ``None``
        after pickling or :meth:`from_json`.
    """

    items: pd.DataFrame
    standard_errors: pd.DataFrame
    if not TYPE_CHECKING:  # a required field (see _se); mypy would take the descriptor for a default
        standard_errors = StandardErrorsField()
    model: str
    engine: str
    n_respondents: int
    latent_mean: float = 0.0
    latent_var: float = 1.0
    dropped_items: tuple[str, ...] = ()
    factors: tuple[str, ...] = ("F1",)
    item_types: tuple[str, ...] = ()
    latent_regression: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    item_mins: Mapping[str, float] = field(default_factory=dict)

    # -- travel: the R handle (and standard errors not computed yet) stay behind -----------------
    def __getstate__(self) -> dict[str, Any]:
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "standard_errors"}
        table = raw_state(self)
        state["standard_errors"] = table if isinstance(table, pd.DataFrame) else None
        state["r_model"] = None
        if stored(self):  # M2 and reliability computed on demand: plain numbers, they travel
            state["_computed"] = dict(stored(self))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    @property
    def standard_errors_computed(self) -> bool:
        """True when the standard errors are in hand (``se=True``, or computed by an earlier access):
        reading :attr:`standard_errors` then costs nothing. False for ``se=False`` and before the first
        access of an on-demand fit."""
        return isinstance(raw_state(self), pd.DataFrame) and self.options.get("se") is not False

    def _replace(self, **changes: Any) -> "Calibration":
        """``dataclasses.replace`` that leaves standard errors not computed yet uncomputed (it would read
        them); the copy shares the pending computation, so either computes them once."""
        changes.setdefault("standard_errors", raw_state(self))
        copy = replace(self, **changes)
        if SE_MODEL in self.__dict__ and "r_model" not in changes:  # the same live fit: the same information
            copy.__dict__[SE_MODEL] = self.__dict__[SE_MODEL]
        return copy

    @property
    def item_names(self) -> list[str]:
        """The item names, in the order of :attr:`items`."""
        return list(self.items.index)

    @property
    def dichotomous(self) -> bool:
        """Whether every item is of a dichotomous type."""
        return all(m in DICHOTOMOUS for m in (self.item_types or (self.model,)))

    @property
    def item_flags(self) -> pd.Series:
        """Why each item's estimate is not identified, "" when it is (a Series named ``flag``, one entry per
        item): the ``flag`` column of ``irtbridge evaluate``'s tables, from the stored estimates
        (:func:`~irtbridge.calibration.results.flags.flag_items`: ``|a| > 10``, ``|b| > 6``, ``g`` at its bound, not
        finite)."""
        return flag_items(self.items)

    @property
    def flagged_items(self) -> tuple[str, ...]:
        """The items :attr:`item_flags` marks (anchor selection leaves them out)."""
        flags = self.item_flags
        return tuple(str(n) for n in flags.index[flags != ""])

    def _live_mirt(self, what: str) -> Any:
        if not ENGINE_TABLE[self.engine].mirt_model or self.r_model is None:
            raise ValidationError(f"{what} needs a mirt fit made in this process (it asks the live R model)")
        return self.r_model

    def __repr__(self) -> str:
        return (
            f"Calibration(model={self.model!r}, engine={self.engine!r}, items={len(self.items)}, "
            f"respondents={self.n_respondents}, loglik={self.loglik:.4f}, converged={self.converged})"
        )

    # -- scoring through the engine --------------------------------------------------------------
    def abilities(self, method: str = "EAP", responses: Any = None, *, full_scores: bool = True, mean: Any = None,
                  cov: Any = None, MI: int = 0, QMC: bool = False, use_dentype_estimate: bool = False,
                  seed: int = 0) -> pd.DataFrame:
        """Ability estimates from the engine's own scoring (mirt ``fscores``, ltm ``factor.scores``).

        Parameters
        ----------
        method : {"EAP", "MAP", "ML", "WLE", "EAPsum"}
            mirt supports all five (``"EAPsum"``: the EAP of each sum score, Thissen's summed-score
            scoring); ltm supports ``"EAP"`` and ``"MAP"`` (its ``"EB"``).
        responses : DataFrame or array, optional
            New response patterns over the same items; default: the calibration data.
        full_scores : bool, default True
            False: one row per distinct response pattern of the calibration data (item columns first), or
            with ``method="EAPsum"`` the sum-score table: ``Sum.Scores, theta, se, observed, expected,
            std.res`` with the table's fit (``X2, df, p.X2, SEM.alpha, rxx.alpha, rxx_F1``) in
            ``attrs["fit"]``. Cannot be combined with ``responses``. mirt only, as the options below.
        mean, cov : number or sequence, number or matrix, optional
            The prior of the abilities (one mean per factor, a k x k covariance); default: the fitted
            latent distribution.
        MI : int, default 0
            Multiple imputation: score ``MI`` times with parameters drawn from their sampling distribution
            and pool the draws (Rubin's rules). Needs the information matrix: a fit with ``se=True`` or
            the default ``se=None`` (its standard errors are then computed first).
        QMC : bool, default False
            Quasi-Monte Carlo integration instead of the quadrature grid (for models with many factors).
        use_dentype_estimate : bool, default False
            Score under the estimated latent density of a ``dentype`` fit (empirical histogram, Davidian).
        seed : int, default 0
            R's ``set.seed`` before the imputations (used only with ``MI``).

        Returns
        -------
        DataFrame with columns ``theta`` and ``se``, one row per respondent (indexed like
        ``responses`` when it is a DataFrame); with several factors one column per factor (``F1``,
        ``F2``, ...) followed by ``se_F1``, ``se_F2``, ...

        Notes
        -----
        R equivalent: ``fscores(fit, method = method, full.scores = full_scores, full.scores.SE = TRUE,
        mean = mean, cov = cov, MI = MI, QMC = QMC, use_dentype_estimate = ...)`` after ``set.seed(seed)``
        (mirt) or ``factor.scores(fit, method = "EAP"|"EB", resp.patterns = X)`` (ltm).
        For native, R-free scoring of any item table use :func:`irtbridge.irt.estimate_abilities`;
        :meth:`ability_covariances` gives mirt's ``return.acov``.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=False)   # doctest: +R
        >>> fit.abilities("EAPsum", full_scores=False)[["Sum.Scores", "theta", "se"]].round(3)
           Sum.Scores  theta     se
        0         0.0 -1.870  0.693
        1         1.0 -1.432  0.684
        2         2.0 -0.949  0.694
        3         3.0 -0.413  0.721
        4         4.0  0.152  0.759
        5         5.0  0.727  0.801
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        engine = ENGINE_TABLE[self.engine]
        method = check_choice(method, "method", engine.scoring, ignore_case=True)
        options = check_scoring_options(self, full_scores=full_scores, mean=mean, cov=cov, MI=MI, QMC=QMC,
                                        use_dentype_estimate=use_dentype_estimate, seed=seed)
        if not engine.runs_r:
            # the native kernel, under the fitted latent distribution (as mirt's fscores)
            if responses is None:
                raise ValidationError("a native calibration keeps no copy of the data: pass responses= to abilities()")
            prior = (float(self.latent_mean), float(np.sqrt(self.latent_var)))
            if "categories" in self.options:  # graded: the fit's own codes -> categories 0..K-1, as mirt
                responses = recode_graded(responses, self.options["categories"].keys(),
                                          self.options["categories"].values())
            # categories already 0..K-1 when recoded (graded); else the fit's own minimums (item_mins)
            recoded = "categories" in self.options
            return estimate_abilities(responses, self, method=method, prior=prior,
                                      mins=not recoded)[["theta", "se"]]
        if self.r_model is None:
            raise ValidationError(
                "this Calibration has no live R model (it was unpickled or loaded from JSON); score it "
                "natively with irtbridge.irt.estimate_abilities(responses, calibration) instead"
            )
        values = self._score_values(responses, options)
        index = responses.index if isinstance(responses, pd.DataFrame) else None
        if engine.mirt_model:
            # imputations draw the parameters from the information matrix: the model that has one
            model = self._information_model("MI") if options["MI"] > 0 else self.r_model
            frame = mirt_scores(self, model, method, values, options)
        else:
            out = session.call(f"irtb_{self.engine}_scores", fit=self.r_model, method=method, responses=values,
                               item_names=self.item_names)
            frame = pd.DataFrame({"theta": out["theta"].to_numpy(), "se": out["se"].to_numpy()})
        if index is not None:
            frame.index = index
        return frame

    def _score_values(self, responses: Any, options: dict[str, Any]) -> np.ndarray | None:
        """New response patterns as the matrix R scores (columns in the fit's item order), or None."""
        if responses is None:
            return None
        if not options["full_scores"]:
            raise ValidationError("full_scores=False tabulates the calibration data's response patterns; "
                                  "it cannot be combined with responses=")
        if isinstance(responses, pd.DataFrame):
            missing = [c for c in self.item_names if c not in map(str, responses.columns)]
            if missing:
                raise ValidationError(f"responses lack item column(s) {', '.join(map(repr, missing[:10]))}")
            responses = responses.rename(columns=str)[self.item_names]
        values, _, _ = as_response_matrix(responses, "responses", dichotomous=self.dichotomous,
                                          min_items=len(self.items))
        if values.shape[1] != len(self.items):
            raise ValidationError(f"responses have {values.shape[1]} items; the calibration has {len(self.items)}")
        return values

    def plausible_values(self, n: int = 5, seed: int = 0) -> pd.DataFrame:
        """``n`` plausible-value draws per respondent (mirt ``fscores(fit, plausible.draws = n)`` after
        ``set.seed(seed)``): columns ``draw``, ``respondent`` (0-based row), then ``theta`` with one factor
        (the column was named after the factor before: that name still reads, deprecated) or one column
        per factor with several.

        Parameters
        ----------
        n : int, default 5
        seed : int, default 0

        Returns
        -------
        DataFrame
        """
        fit = self._live_mirt("plausible_values")
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValidationError(f"n must be a positive integer, got {n!r}")
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        out = session.call("irtb_mirt_plausible", fit=fit, n=int(n), seed=int(seed))
        one = len(self.factors) == 1  # one factor: theta, as abilities() (the naming rule of _base)
        frame = pd.DataFrame(out.to_numpy(copy=True), columns=["theta"] if one else list(self.factors))
        frame.insert(0, "respondent", np.tile(np.arange(self.n_respondents), int(n)))
        frame.insert(0, "draw", np.repeat(np.arange(int(n)), self.n_respondents))
        return renamed_columns(frame, {self.factors[0]: "theta"}, DRAWS) if one else frame

    # -- structure: parameter table, loadings ------------------------------------------------------
    def parameters(self) -> pd.DataFrame:
        """mirt's parameter table of this fit (``mod2values(fit)``, the ``pars = "values"`` layout):
        one row per parameter with ``group, item, class, name, parnum, value, lbound, ubound, est,
        prior.type, prior_1, prior_2``. Edit ``value``/``est`` and pass it back as
        ``calibrate(..., parameters=table)`` to fix, free or start parameters.

        Returns
        -------
        DataFrame
            One row per parameter, mirt's columns; a mirt fit made in this process only (else a
            ValidationError).
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        return session.call("irtb_mirt_parameters", fit=self._live_mirt("parameters"))

    def loadings(self, rotate: str | None = None) -> pd.DataFrame:
        """Standardized factor loadings (rotated when there are several factors; mirt's default
        ``"oblimin"`` or ``rotate=``) and communalities ``h2``; mirt's ``summary(fit)$rotF`` and ``$h2``.

        Parameters
        ----------
        rotate : str, optional

        Returns
        -------
        DataFrame
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        out = session.call("irtb_mirt_loadings", fit=self._live_mirt("loadings"), rotate=rotate)
        frame = out["loadings"]
        frame.index = self.item_names
        return frame

    def factor_correlations(self, rotate: str | None = None) -> pd.DataFrame:
        """The factor correlation matrix after rotation (mirt's ``summary(fit)$fcor``).

        Parameters
        ----------
        rotate : str, optional
            mirt's rotation (``"oblimin"``, ``"varimax"``, ...); default mirt's own (``"oblimin"``).

        Returns
        -------
        DataFrame
            Factors x factors, rows and columns named by :attr:`factors` (1 x 1 for one factor).
        """
        from irtbridge._r import session  # the R boundary loads with the first R call, never on import

        out = session.call("irtb_mirt_loadings", fit=self._live_mirt("factor_correlations"), rotate=rotate)
        fcor = out["fcor"]
        if not isinstance(fcor, pd.DataFrame):
            fcor = pd.DataFrame([[float(fcor)]])
        fcor.index = fcor.columns = list(self.factors)
        return fcor

    # -- presentation ---------------------------------------------------------------------------
    # -- diagnostics (irtbridge.calibration.analysis.diagnostics; mirt fits in this process) ----------------
    def item_fit(self, stats: Any = ("S_X2",), p_adjust: str = "BH", *, na_rm: bool = False, impute: int = 0,
                 seed: int = 0) -> pd.DataFrame:
        """Item fit, one row per item (mirt's ``itemfit``; missing answers: ``na_rm=True`` or ``impute=N``);
        see :func:`~irtbridge.calibration.analysis.diagnostics.item_fit`.

        Parameters
        ----------
        stats : str or sequence of str, default ("S_X2",)
        p_adjust : str, default "BH"
        na_rm : bool, default False
        impute : int, default 0
        seed : int, default 0

        Returns
        -------
        DataFrame
        """
        return diagnostics.item_fit(self, stats, p_adjust=p_adjust, na_rm=na_rm, impute=impute, seed=seed)

    def person_fit(self) -> pd.DataFrame:
        """Zh and infit/outfit per respondent (mirt's ``personfit``); see
        :func:`~irtbridge.calibration.analysis.diagnostics.person_fit`.

        Returns
        -------
        DataFrame
            One row per respondent of the fitted data (index ``respondent``), mirt's columns.
        """
        return diagnostics.person_fit(self)

    def global_fit(self, type: str = "M2*") -> pd.Series:
        """M2 (``type`` ``"M2*"``, ``"M2"`` or ``"C2"``), df, p, RMSEA with its interval, SRMSR, TLI, CFI
        (mirt's ``M2(fit, type = type)``); see :func:`~irtbridge.calibration.analysis.diagnostics.global_fit`.

        Parameters
        ----------
        type : {"M2*", "M2", "C2"}, default "M2*"

        Returns
        -------
        Series
        """
        return diagnostics.global_fit(self, type=type)

    def residuals(self, kind: str = "LD") -> pd.DataFrame:
        """Item x item local-dependence residuals, ``"LD"``, ``"LDG2"`` or ``"Q3"`` (mirt's ``residuals``);
        see :func:`~irtbridge.calibration.analysis.diagnostics.residuals`.

        Parameters
        ----------
        kind : {"LD", "LDG2", "Q3"}, default "LD"

        Returns
        -------
        DataFrame
        """
        return diagnostics.residuals(self, kind)

    def reliability(self, theta: Any = None) -> Reliability:
        """Marginal and empirical reliability (mirt's ``marginal_rxx``/``empirical_rxx``): a dict of floats
        ``{"marginal": ..., "empirical": ...}``. The conditional reliability over theta is
        :meth:`conditional_reliability` (``reliability()["conditional"]`` and ``theta=`` still answer, with
        a DeprecationWarning).

        Parameters
        ----------
        theta : array-like, optional

        Returns
        -------
        Reliability
        """
        deprecated_theta(theta)
        out = diagnostics.reliability(self)
        return Reliability(out, old={"conditional": lambda: self.conditional_reliability(theta)}, form=CONDITIONAL)

    def conditional_reliability(self, theta: Any = None) -> pd.DataFrame:
        """The conditional reliability over ``theta`` (default 81 points on [-4, 4]):
        ``I(theta) / (I(theta) + 1 / var)``, with ``I`` the test information and ``var`` the latent
        variance; see :func:`~irtbridge.calibration.analysis.diagnostics.conditional_reliability`.

        Parameters
        ----------
        theta : array-like, optional
            Abilities; default 81 points on [-4, 4].

        Returns
        -------
        DataFrame
            Indexed by ``theta``; columns ``information`` and ``reliability``.
        """
        return diagnostics.conditional_reliability(self, theta)

    def plot(self, kind: str = "score", **kwargs: Any):
        """mirt's ``plot(mod, type = kind)``: ``score`` (expected test score, mirt's default), ``info``
        (test information), ``infoSE``, ``infotrace`` (item information curves), ``trace``,
        ``itemscore``. One item: :meth:`item_plot` (mirt's ``itemplot``). Curves from the native kernel on :attr:`items`.

        Parameters
        ----------
        kind : {"score", "info", "infoSE", "infotrace", "trace", "itemscore"}, default "score"
            mirt's plot type.
        **kwargs
            ``items``, ``theta``, ``ax``, ``legend`` of
            :func:`~irtbridge.calibration.analysis.plots.plot_calibration`.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        return plot_calibration(self, kind, **kwargs)

    def item_plot(self, item: str, kind: str = "trace", **kwargs: Any):
        """mirt's ``itemplot(mod, item, type = kind)``: ``trace``, ``info`` or ``score``.

        Parameters
        ----------
        item : str
            The item's name.
        kind : {"trace", "info", "score"}, default "trace"
            Trace lines, item information or expected item score.
        **kwargs
            ``theta``, ``ax`` of :func:`~irtbridge.calibration.analysis.plots.plot_item`.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.
        """
        return plot_item(self, item, kind, **kwargs)

    def _fit_lines(self, digits: int) -> list[str]:
        """The fit section of :meth:`summary`: the M2 and reliability computed so far (never computed here)."""
        done = stored(self)
        lines = []
        for key, g in done.items():
            if key.startswith("global_fit:"):
                lines.append(m2_line(g, key.split(":", 1)[1], digits))
        if "reliability" in done:
            r = done["reliability"]
            lines.append(f"reliability: marginal {r['marginal']:.{digits}f}   empirical {r['empirical']:.{digits}f}")
        if lines:
            return lines
        if not ENGINE_TABLE[self.engine].mirt_model:
            return [f"fit statistics: mirt's (M2, reliability); this fit is from engine {self.engine!r}"]
        return ["fit statistics: not computed yet (fit.global_fit(), fit.reliability(); shown here once computed)"]

    # -- the summary's parts (the skeleton is FitResult.summary: never calls R) ----------------------
    def _summary_title(self) -> str:
        r_version = self.provenance.get("r_version")
        runtime = f", R {r_version}" if r_version else ""  # the native engine runs without R
        return (f"irtbridge calibration: {self.model} by {self.engine} "
                f"({self.provenance.get('engine_version', '?')}{runtime})")

    def _summary_size(self) -> str:
        return f"respondents {self.n_respondents}   items {len(self.items)}   parameters {self.n_parameters}"

    def _summary_lines(self, digits: int, fit: bool) -> list[Line]:
        """The fit section: M2 and reliability once computed by :meth:`global_fit` / :meth:`reliability`."""
        return [Line.of(f"fit_{i}", text) for i, text in enumerate(self._fit_lines(digits))] if fit else []

    def _summary_notes(self) -> list[str]:
        notes = []
        if self.dropped_items:
            notes.append(f"dropped constant items: {', '.join(self.dropped_items)}")
        if self.flagged_items:
            notes.append(f"{len(self.flagged_items)} item(s) with estimates the data do not identify (fit.item_flags): "
                         + ", ".join(self.flagged_items[:10]) + (" …" if len(self.flagged_items) > 10 else ""))
        return notes

    def _warning_label(self) -> str:
        return "R warning" if ENGINE_TABLE[self.engine].runs_r else "warning"  # the native engine runs without R

    _not_converged = "the engine did not report convergence; treat the estimates with caution"

    def _summary_tables(self) -> tuple[tuple[str, pd.DataFrame], ...]:
        # the standard errors when the fit has them (the summary never computes them), the latent regression
        return ((("items", self.items),)
                + ((("standard errors", self.standard_errors),) if self.standard_errors_computed else ())
                + ((("latent regression", self.latent_regression),) if self.latent_regression is not None else ()))

    def _summary_data(self) -> dict[str, Any]:
        return {"model": self.model, "engine": self.engine, "n_respondents": int(self.n_respondents),
                "flagged_items": list(self.flagged_items),
                "items": self.items.reset_index().rename(columns={"index": "item"})}


def m2_line(g: Mapping[str, float], type: str, digits: int) -> str:
    """One summary line of a stored ``global_fit`` (several SRMSR for a multiple-group fit)."""
    srmsr = "   ".join(f"{k} {v:.{digits}f}" for k, v in g.items() if str(k).startswith("SRMSR"))
    interval = (f" [{g['RMSEA_5']:.{digits}f} – {g['RMSEA_95']:.{digits}f}]"
                if "RMSEA_5" in g and "RMSEA_95" in g else "")
    label = "M2" if type == "M2*" else type
    return (f"{label} {g['M2']:.{digits}f} (df {g['df']:.0f}, p {g['p']:.{digits}f})   RMSEA {g['RMSEA']:.{digits}f}"
            f"{interval}   {srmsr}   TLI {g['TLI']:.{digits}f}   CFI {g['CFI']:.{digits}f}")
