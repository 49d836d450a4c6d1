"""The engine table: what each calibration engine takes and what its fits can do, as data, one row per engine.

Every front door of :mod:`irtbridge.calibration.fit` checks a call against its engine's row once, builds
one :class:`~irtbridge.calibration.engines.request.FitRequest` whose ``design`` names the front door
(:data:`DESIGNS`), and hands it to the row's :meth:`Engine.fit`, which imports the engine's module
(:mod:`irtbridge.calibration.engines`) by its dotted name, so choosing an engine never loads the others (nor
R, for ``native``). Nothing below the dispatch re-checks the options the table already answered.

==========  =================================================  ======  =============================  ==============
engine      module                                             priors  dims / spec / per-item models  answered cells
==========  =================================================  ======  =============================  ==============
``mirt``    :mod:`~irtbridge.calibration.engines.mirt` (R)     yes     yes                            no
``ltm``     :mod:`~irtbridge.calibration.engines.ltm` (R)      no      no                             no
``native``  :mod:`~irtbridge.calibration.engines.native` (EM)  1-3PL   no                             yes
==========  =================================================  ======  =============================  ==============

Beyond these, each row says what the engine accepts (estimation ``methods``, calibrate's keywords
``seed``/``key``/``gpcm_mats`` in ``takes``, the R option names it reads) and what a fit can do
afterwards (``scoring`` methods, whether its live model is a mirt model that mirt's latent densities,
fscores options and diagnostics read, whether it runs in R, whether the fit keeps its data): code asks
the row, never the engine's name. The models each engine fits come from the model catalogue
(:mod:`irtbridge._catalogue`); :data:`ENGINES` and :data:`SCORING_METHODS` are views of the rows, not
copies.

The table lives here, with what a fit takes, below the front doors, the engines, the results and the
analyses that read it (issue 41 item 2); :mod:`irtbridge.calibration.engines` serves the same objects.
Adding an engine is a row here and a module with ``fit(request)`` (and a column of the catalogue for
the models it fits).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Protocol

from irtbridge._catalogue import (ESTIMATION_DOMAINS, LTM_DOMAINS, MIRT_METHODS, MIRT_SCORING, NATIVE_DOMAINS, Domain,
                                  engine_models)
from irtbridge.calibration.inputs.options import LTM_OPTIONS, MIRT_OPTIONS, check_options
from irtbridge.exceptions import ValidationError

__all__ = ["Engine", "ENGINE_TABLE", "ENGINES", "SCORING_METHODS", "DESIGNS", "engine"]

#: the front doors' designs: what an engine row's ``designs`` lists and a request's ``design`` names
DESIGNS = {
    "calibrate": "one group (calibrate)",
    "bifactor": "a bifactor model by dimension reduction (calibrate_bifactor)",
    "groups": "a multiple-group model (calibrate_groups)",
    "classes": "a latent class model (calibrate_classes)",
    "fixed": "fixed-item calibration (calibrate_fixed)",
    "mixed": "a mixed-effects model (calibrate_mixed)",
}


class _Request(Protocol):
    """What the table reads of a request (:class:`~irtbridge.calibration.engines.request.FitRequest`, which
    stands above the table with the engines): the design it was built for."""

    @property
    def design(self) -> str: ...


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
        The front doors whose requests it fits (keys of :data:`DESIGNS`).
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

    def fit(self, request: _Request) -> Any:
        """Fit ``request`` with this engine: its module's ``fit``, imported by name on first use.

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
        return importlib.import_module(self.module).fit(request)

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
            A key of :data:`DESIGNS`.

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


class _RowColumn(Mapping[str, Any]):
    """Engine name -> one attribute of its row: a read-only view of :data:`ENGINE_TABLE`, never a copy."""

    def __init__(self, attribute: str) -> None:
        self._attribute = attribute

    def __getitem__(self, name: str) -> Any:
        return getattr(ENGINE_TABLE[name], self._attribute)

    def __iter__(self) -> Iterator[str]:
        return iter(ENGINE_TABLE)

    def __len__(self) -> int:
        return len(ENGINE_TABLE)

    def __repr__(self) -> str:
        return repr({name: self[name] for name in self})


#: engine name -> the models it fits and its own name for each (the rows' ``models``; a view)
ENGINES: Mapping[str, Mapping[str, str]] = _RowColumn("models")
#: engine name -> the scoring methods of its fits (the rows' ``scoring``; a view)
SCORING_METHODS: Mapping[str, tuple[str, ...]] = _RowColumn("scoring")
