"""Calibration engines: one module each, behind one dispatch table with one signature.

Every engine module offers ``fit(request: FitRequest)``; :data:`ENGINE_TABLE` says what each one can do,
and every front door of :mod:`irtbridge.calibration.fit` checks a call against that row once, builds the
request and dispatches. Nothing below the dispatch re-checks the options the table already answered.

A request's ``design`` names its front door (:data:`~.engines.request.DESIGNS`); a row's ``designs``
lists the ones its engine fits. ``calibrate`` returns a ``Calibration`` from every engine; the other
designs are mirt's alone (``calibrate_bifactor``, ``calibrate_groups``, ``calibrate_classes``,
``calibrate_fixed``, ``calibrate_mixed``), fitted by :mod:`~.engines.mirt` or the module it names for
the design (:mod:`~.engines.mirt_groups`, :mod:`~.engines.mirt_classes`, :mod:`~.engines.mirt_explanatory`).

==========  ======================================  ======  =============================  ==============
engine      module                                  priors  dims / spec / per-item models  answered cells
==========  ======================================  ======  =============================  ==============
``mirt``    :mod:`~.engines.mirt` (R's mirt)        yes     yes                            no
``ltm``     :mod:`~.engines.ltm` (R's ltm)          no      no                             no
``native``  :mod:`~.engines.native` (numpy EM)      1-3PL   no                             yes
==========  ======================================  ======  =============================  ==============

Beyond these, each row says what the engine accepts (estimation ``methods``, calibrate's keywords
``seed``/``key``/``gpcm_mats`` in ``takes``, the R option names it reads) and what a fit can do
afterwards (``scoring`` methods, whether its live model is a mirt model that mirt's latent densities,
fscores options and diagnostics read, whether it runs in R, whether the fit keeps its data): code
outside this package asks the row, never the engine's name. The models each engine fits come from the
model catalogue (:mod:`irtbridge._catalogue`; the result module's ``ENGINES`` reads them from here). Engine
modules are imported on first use, so choosing an engine never loads the others (nor R, for ``native``).

Adding an engine is a row here and a module with ``fit(request)`` (and a column of the catalogue for
the models it fits).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from irtbridge._catalogue import (ESTIMATION_DOMAINS, LTM_DOMAINS, MIRT_METHODS, NATIVE_DOMAINS, MIRT_SCORING, Domain,
                                  engine_models)
from irtbridge.calibration.engines.request import DESIGNS, FitRequest
from irtbridge.calibration.results.flags import warn_flagged
from irtbridge.calibration.inputs.options import LTM_OPTIONS, MIRT_OPTIONS, check_options
from irtbridge.exceptions import find_stack_level, ValidationError

if TYPE_CHECKING:  # the result module reads this table: the table names only the results' base class
    from irtbridge.calibration.results._base import FitResult

__all__ = ["Engine", "ENGINE_TABLE", "FitRequest", "DESIGNS", "engine"]


@dataclass(frozen=True)
class Engine:
    """One row of the dispatch table: what an engine takes, what its fits can do, where its ``fit`` lives.

    Attributes
    ----------
    name, module : str
        The engine's name and the module whose ``fit(request)`` fits.
    models : mapping
        Model name -> the engine's own name for it (from the catalogue).
    priors, structure, sparse : bool
        Takes priors on item parameters; dims, specs, parameter tables and per-item models; answered
        cells alone (:class:`~irtbridge.em.core.ResponseData`).
    methods : tuple of str
        The estimation methods ``method=`` may name (empty: none).
    method_option : bool
        ``method`` reaches the engine as its own option (mirt's ``method``).
    takes : tuple of str
        Which of calibrate's ``seed``, ``key``, ``gpcm_mats`` it reads.
    options : tuple, mapping of tuples, or None
        The R argument names it reads (per model for ltm); None: the engine checks its own options.
    scoring : tuple of str
        The methods of ``Calibration.abilities``.
    mirt_model : bool
        Its live model is a mirt model: mirt's latent densities and regression, fscores options, fit
        diagnostics and parameter tables read it.
    runs_r : bool
        It fits in R (warnings are R's; provenance has R's version).
    keeps_data : bool
        Its fit keeps the data (scoring the calibration data needs no ``responses=``).
    title : str
        How text names it.
    domains : mapping of str to Domain
        The domains of the options the engine takes (what :func:`irtbridge._catalogue.check_values` checks).
    designs : tuple of str
        The front doors whose requests it fits (keys of :data:`~.engines.request.DESIGNS`).
    """

    name: str
    module: str
    models: Mapping[str, str]
    priors: bool
    structure: bool
    sparse: bool
    methods: tuple[str, ...] = ()
    method_option: bool = False
    takes: tuple[str, ...] = ()
    options: tuple[str, ...] | Mapping[str, tuple[str, ...]] | None = None
    domains: Mapping[str, Domain] = field(default_factory=dict)
    scoring: tuple[str, ...] = ()
    mirt_model: bool = False
    runs_r: bool = True
    keeps_data: bool = True
    title: str = ""
    designs: tuple[str, ...] = ("calibrate",)

    def fit(self, request: FitRequest) -> "FitResult":
        """Fit ``request`` with this engine (its module's ``fit``); for :func:`~irtbridge.calibrate`, one
        warning when estimates are flagged (:mod:`irtbridge.calibration.results.flags`), whatever the engine.

        Parameters
        ----------
        request : FitRequest
            The checked request.

        Returns
        -------
        FitResult
            The fit: the result class of the request's design (a :class:`~irtbridge.Calibration` for
            ``calibrate``, from every engine).
        """
        if request.design not in self.designs:
            raise ValidationError(f"engine={self.name!r} does not fit {DESIGNS.get(request.design, request.design)}; "
                                  f"use engine={self.who_else_fits(request.design)}")
        fit = importlib.import_module(self.module).fit(request)
        if request.design == "calibrate":
            warn_flagged(fit, stacklevel=find_stack_level())
        return fit

    def checked_options(self, options: Mapping[str, Any], model: str) -> dict[str, Any]:
        """``options`` with R's names (``SE_type`` -> ``SE.type``), each one this engine reads for ``model``.

        An option the engine would not read (mirt and ltm would ignore it without a word) is a one-line
        :class:`ValidationError`; an engine with ``options=None`` checks its own when it fits.

        Parameters
        ----------
        options : mapping
            The caller's estimation options (Python names).
        model : str
            The model fitted (ltm's options depend on it).

        Returns
        -------
        dict of str to Any
            The options with R's names.
        """
        names = self.option_names(model)
        if names is None:
            return {("SE.type" if k == "SE_type" else k): v for k, v in options.items()}
        per_model = isinstance(self.options, Mapping)
        return check_options(dict(options), names, f"calibrate(engine={self.name!r}"
                             + (f", model={model!r})" if per_model else ")"), self.domains)

    def se_request(self, se: bool | None, options: Mapping[str, Any]) -> bool | None:
        """The request's ``se``: ``None`` (on first access) under mirt's ``SE.type = "SEM"`` is ``True``.

        SEM changes mirt's EM run itself (``TOL`` 1e-5, no acceleration) when it computes the SEs, so a
        fit made without them cannot have them added on demand.

        Parameters
        ----------
        se : bool or None
            The caller's ``se``.
        options : mapping
            The checked options (R's names).

        Returns
        -------
        bool or None
            The ``se`` the engine is asked for.
        """
        return True if se is None and self.mirt_model and options.get("SE.type") == "SEM" else se

    def check(self, *, priors: bool, structured: bool, sparse: bool) -> None:
        """A one-line ValidationError for what this engine cannot take (checked once, at the entry).

        Parameters
        ----------
        priors : bool
            Whether the call has priors.
        structured : bool
            Whether it has a structure (a spec or several factors).
        sparse : bool
            Whether its data are answered cells only.
        """
        takers = self.who_else
        if structured and not self.structure:
            raise ValidationError(f"dims, spec, parameters and per-item models need engine={takers('structure')}, "
                                  f"not engine={self.name!r}")
        if priors and not self.priors:
            raise ValidationError(f"priors: engine={self.name!r} takes no priors on item parameters; use "
                                  f"engine={takers('priors')}")
        if sparse and not self.sparse:
            raise ValidationError(f"responses: answered cells (ResponseData) need engine={takers('sparse')}; "
                                  f"engine={self.name!r} takes a response matrix")

    def option_names(self, model: str) -> tuple[str, ...] | None:
        """The R argument names this engine reads for ``model``; None: the engine checks its own.

        Parameters
        ----------
        model : str
            The model fitted.

        Returns
        -------
        tuple of str or None
            The argument names.
        """
        return self.options.get(model, ()) if isinstance(self.options, Mapping) else self.options

    def who_else(self, what: str) -> str:
        """The engines that have capability ``what`` (an attribute), for messages: ``'mirt' or 'native'``.

        Parameters
        ----------
        what : str
            An attribute of :class:`Engine`.

        Returns
        -------
        str
            The engines' names, quoted, joined by "or".
        """
        return " or ".join(repr(e.name) for e in ENGINE_TABLE.values() if getattr(e, what))

    def who_else_fits(self, design: str) -> str:
        """The engines whose rows list ``design``, for messages.

        Parameters
        ----------
        design : str
            A key of :data:`~.engines.request.DESIGNS`.

        Returns
        -------
        str
            The engines' names, quoted, joined by "or".
        """
        return " or ".join(repr(e.name) for e in ENGINE_TABLE.values() if design in e.designs)


ENGINE_TABLE: dict[str, Engine] = {
    "mirt": Engine("mirt", "irtbridge.calibration.engines.mirt", engine_models("mirt"), priors=True, structure=True,
                   sparse=False, methods=MIRT_METHODS, method_option=True, takes=("seed", "key", "gpcm_mats"),
                   options=MIRT_OPTIONS, domains=ESTIMATION_DOMAINS, scoring=MIRT_SCORING, mirt_model=True,
                   title="mirt", designs=tuple(DESIGNS)),
    "ltm": Engine("ltm", "irtbridge.calibration.engines.ltm", engine_models("ltm"), priors=False, structure=False,
                  sparse=False, options=LTM_OPTIONS, domains=LTM_DOMAINS, scoring=("EAP", "MAP"), title="ltm"),
    "native": Engine("native", "irtbridge.calibration.engines.native", engine_models("native"), priors=True,
                     structure=False, sparse=True, methods=("EM",), domains=NATIVE_DOMAINS,
                     scoring=("EAP", "MAP", "ML"), runs_r=False, keeps_data=False, title="the native engine"),
}


def engine(name: str) -> Engine:
    """The dispatch-table row of an engine name (already checked against :data:`ENGINE_TABLE`).

    Parameters
    ----------
    name : str
        A key of :data:`ENGINE_TABLE`.

    Returns
    -------
    Engine
        Its row.
    """
    return ENGINE_TABLE[name]
