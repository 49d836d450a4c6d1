"""One base for the results of a calibration: :class:`FitResult`.

:class:`~irtbridge.calibration.results.result.Calibration`, :class:`~irtbridge.calibration.results.group_result.GroupCalibration`,
:class:`~irtbridge.calibration.results.class_result.ClassCalibration` and
:class:`~irtbridge.calibration.results.mixed_result.MixedCalibration` (and the bifactor fit, which is a
``Calibration``) share

* the fit statistics ``loglik``, ``aic``, ``bic``, ``n_parameters``, ``converged``, ``iterations`` and
  ``options``, ``warnings``, ``provenance``, ``r_model`` (keyword-only fields declared here once);
* pickling without the live R model (:class:`~irtbridge.calibration.results._pickle.WithoutRModel`: what was
  computed on demand, M2 and reliability, travels; the R model does not);
* ``summary()``, one :class:`~irtbridge._summary.Summary` built from the stored numbers (a size line, the
  log-likelihood and convergence lines, then each result's own lines, tables and notes), and
  ``_repr_html_`` rendering it: a display never calls R;
* the same methods with the same signature and return type: ``global_fit(type="M2*")`` (a Series),
  ``reliability()`` (a dict of floats) and ``plot(kind="score")`` (mirt's ``plot(mod, type = kind)``
  names: ``"info"`` is TEST information, as in mirt; item information curves are ``"infotrace"``).
  A result for which mirt does not define one of them says so in a one-line
  :class:`~irtbridge.exceptions.ValidationError`.

Names of the columns, one rule for every result
-----------------------------------------------
* Abilities: ``theta`` and ``se`` for a model with one factor; ``F1, F2, ...`` then ``se_F1, se_F2, ...``
  (mirt's factor names) with several; the same for ability draws (``plausible_values``: ``theta`` with
  one factor, whatever the factor is called). A one-factor ``theta`` column is mirt's ``F1``; the names stay as
  they are because every one-factor user reads ``theta`` (see CHANGELOG.md).
* Item tables: ``a, b, g, u`` (``a, b1..bk`` for graded/gpcm) with one factor, mirt's slope-intercept
  ``a1..ak, d, g, u`` with several.
* Fit-statistic columns: mirt's names as ``itemfit``/``M2``/``DIF`` print them (``S_X2``, ``df.S_X2``,
  ``p.S_X2``, ``RMSEA_5``: compare them with R's output name for name); the columns irtbridge adds use
  underscores: the adjusted p-values are ``p_adjusted`` (one column: ``dif``, ``drf``...) or
  ``p_adjusted_<stat>`` (one per statistic of ``item_fit``; ``p.<stat>.adjusted`` before, deprecated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd

from irtbridge._moved import deprecated_form, warn_form
from irtbridge._summary import Line, Summary, fit_lines
from irtbridge.calibration.results._pickle import WithoutRModel
from irtbridge.exceptions import find_stack_level, ValidationError

__all__ = ["FitResult", "Reliability", "STATISTICS"]

#: the fit statistics every result holds (and ``summary().data`` reports)
STATISTICS = ("loglik", "aic", "bic", "converged", "iterations", "n_parameters")

# the deprecated forms of the result family (irtbridge._moved; CHANGELOG.md lists them)
CONDITIONAL = deprecated_form('Calibration.reliability()["conditional"]', "Calibration.conditional_reliability(theta)")
THETA = deprecated_form("reliability(theta=)", "Calibration.conditional_reliability(theta)")
GROUP_TABLE = deprecated_form("GroupCalibration.reliability() read as a table", "GroupCalibration.reliability_table()")
DRAWS = deprecated_form("plausible_values()[<factor>] of a one-factor fit", 'plausible_values()["theta"]')


class Reliability(dict):
    """What ``reliability()`` returns: a dict of floats (``marginal``, ``empirical``; per group
    ``marginal.<group>``, ``empirical.<group>``).

    The forms of earlier versions still answer, with a DeprecationWarning naming the removal version
    (:mod:`irtbridge._moved`): a Calibration's ``["conditional"]`` (now :meth:`Calibration.conditional_reliability`) and a
    GroupCalibration's table (``["marginal"]`` as a Series by group, ``.loc``, ``.to_dict()``...: now
    :meth:`GroupCalibration.reliability_table`).
    """

    def __init__(self, values: Mapping[str, float], *, old: pd.DataFrame | Mapping[str, Any] | None = None,
                 form: str = "") -> None:
        super().__init__({k: float(v) for k, v in values.items()})
        self._old, self._form = old, form

    def __missing__(self, key: str) -> Any:
        old = self._old
        if isinstance(old, pd.DataFrame) and key in old.columns:
            warn_form(self._form)
            return old[key]
        if isinstance(old, Mapping) and key in old:
            warn_form(self._form)
            return old[key]()
        raise KeyError(key)

    def __getattr__(self, name: str) -> Any:
        old = self.__dict__.get("_old")
        if name.startswith("_") or not isinstance(old, pd.DataFrame):
            raise AttributeError(name)
        warn_form(self._form)
        return getattr(old, name)

    def __reduce__(self) -> Any:  # pickles as the plain dict of floats
        return (dict, (dict(self),))


@dataclass(frozen=True, eq=False, kw_only=True)
class FitResult(WithoutRModel):
    """The base of every calibration result (see the module docstring).

    Attributes
    ----------
    loglik, aic, bic : float
        From the engine (mirt's ``extract.mirt``, ltm's ``logLik``; NaN where the result is one part of
        a larger model).
    n_parameters, converged, iterations
        Number of estimated parameters, the engine's convergence flag, and its iteration count.
    options : dict
        The effective options passed to the engine.
    warnings : tuple of str
        Every warning the engine raised during the fit (also re-raised at the call).
    provenance : dict
        irtbridge, engine and R versions, and the fit's wall time.
    r_model : RObject or None
        The live R model in the process that fitted it; ``None`` after pickling.
    """

    loglik: float
    aic: float
    bic: float
    n_parameters: int
    converged: bool
    iterations: int
    options: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    provenance: Mapping[str, Any] = field(default_factory=dict)
    r_model: Any = field(default=None, repr=False, compare=False)

    #: what the result is called in one-line errors ("a latent class model")
    _kind = "this result"
    #: the note of a fit the engine did not report converged
    _not_converged = "mirt did not report convergence; treat the estimates with caution"

    # -- the summary skeleton: each result fills in its parts --------------------------------------
    def _summary_title(self) -> str:
        raise NotImplementedError

    def _summary_size(self) -> str:
        raise NotImplementedError

    def _summary_lines(self, digits: int, fit: bool) -> list[Line]:
        """The result's own lines, after the log-likelihood and convergence lines."""
        return []

    def _summary_tables(self) -> tuple[tuple[str, pd.DataFrame], ...]:
        return ()

    def _summary_notes(self) -> list[str]:
        """The result's own notes, between the convergence note and the engine's warnings."""
        return []

    def _summary_data(self) -> dict[str, Any]:
        """The result's own entries of ``summary().data`` (the fit statistics are added here)."""
        return {}

    def _warning_label(self) -> str:
        return "R warning"

    def summary(self, digits: int = 3, fit: bool = True) -> Summary:
        """The fit statistics, the result's own lines and tables, and Notes (convergence, the engine's
        warnings): one :class:`~irtbridge._summary.Summary` (text, HTML, dict), from the stored numbers
        only: it never calls R. ``fit=False`` leaves out the fit section (M2, reliability once computed).

        Parameters
        ----------
        digits : int, default 3
            Digits the renderings show (the stored numbers are not rounded).
        fit : bool, default True
            Include the fit section.

        Returns
        -------
        Summary
            Rendered by ``print``, Jupyter and ``--json``.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", engine="native")
        >>> fit.summary().data["converged"]
        True
        """
        lines = (Line.of("size", self._summary_size()), *fit_lines(self, digits), *self._summary_lines(digits, fit))
        notes = [] if self.converged else [self._not_converged]
        notes += self._summary_notes()
        notes += [f"{self._warning_label()}: {w}" for w in self.warnings]
        data = {**self._summary_data(), **{k: getattr(self, k) for k in STATISTICS}}
        data.update(converged=bool(self.converged), iterations=int(self.iterations),
                    n_parameters=int(self.n_parameters))
        return Summary(self._summary_title(), tuple(lines), tuple(self._summary_tables()), tuple(notes),
                       digits=digits, data=data)

    def _repr_html_(self) -> str:
        """Jupyter: :meth:`summary` as HTML, from the stored numbers only (never calls R)."""
        return self.summary().as_html()

    # -- the same methods on every result ------------------------------------------------------------
    def global_fit(self, type: str = "M2*") -> pd.Series:
        """Limited-information fit (mirt's ``M2(mod, type = type)``): M2, df, p, RMSEA with its interval,
        SRMSR, TLI, CFI, as a Series; see :func:`~irtbridge.calibration.analysis.diagnostics.global_fit`.

        Parameters
        ----------
        type : {"M2*", "M2", "C2"}, default "M2*"
            mirt's statistic.
        """
        raise ValidationError(f"global_fit: mirt's M2 is not defined for {self._kind}")

    def reliability(self, theta: Any = None) -> Reliability:
        """Marginal and empirical reliability (mirt's ``marginal_rxx``, ``empirical_rxx``) as a dict of
        floats. ``theta`` is deprecated (``conditional_reliability(theta)`` of a Calibration).

        Parameters
        ----------
        theta : array-like, optional
            Deprecated (see above).
        """
        raise ValidationError(f"reliability: mirt's marginal_rxx is not defined for {self._kind}")

    def plot(self, kind: str = "score", **kwargs: Any):
        """mirt's ``plot(mod, type = kind)`` (``"score"``: expected test score, ``"info"``: test
        information, ...); returns the matplotlib Axes.

        Parameters
        ----------
        kind : str, default "score"
            mirt's plot type.
        **kwargs
            Passed to the plotting function of the result.
        """
        raise ValidationError(f"plot: {self._kind} has no curves over theta to draw")


def deprecated_theta(theta: Any) -> None:
    """The DeprecationWarning of ``reliability(theta=...)``, when it is given."""
    if theta is not None:
        warn_form(THETA, stacklevel=find_stack_level() + 1)  # warn_form warns one frame further down
