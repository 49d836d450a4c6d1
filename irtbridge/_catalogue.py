"""The model catalogue: every IRT model irtbridge knows, once, and what each engine calls it.

One row (:class:`Model`) per model name says whether it is dichotomous or polytomous, which item
parameters it estimates, mirt's ``itemtype`` for it, ltm's fitting function (if ltm fits it), the native
EM that fits it (if any) and the scoring methods of the native kernel (:mod:`irtbridge.irt`) for it.
Everything else derives from these rows: the model lists of :mod:`irtbridge.irt` and :mod:`irtbridge.em`,
the names :func:`irtbridge.calibrate` accepts and which engine fits which (the rows' ``models`` of
:data:`irtbridge.calibration.inputs.engine_table.ENGINE_TABLE`), the ``itemtype`` vector R receives (R never
translates a model name itself), the item types of :mod:`irtbridge.calibration.inputs.itemtypes` and the CLI's
help. What an *engine* accepts and can do afterwards is its row of that table.

The same module holds the option domains (:class:`Domain`): the values each option irtbridge passes to
mirt or ltm may take (:data:`ESTIMATION_DOMAINS`, mirt's ``technical`` entries, :data:`LTM_DOMAINS`,
:data:`FSCORES_DOMAINS`; :data:`GROUP_DOMAINS`, :data:`MIXED_DOMAINS` and :data:`NATIVE_DOMAINS` where a
door reads ``TOL`` more narrowly than ``mirt()``), checked by :func:`check_values` before anything reaches R, so that no value
makes R abort or stop in its own words.

This module sits on the ground floor (it imports only :mod:`irtbridge.exceptions`), so every floor may
read it.

Adding a model
--------------
A model is a row and its implementation:

1. Add a :class:`Model` row to :data:`CATALOGUE` (keep the order: it is the order of every list and
   error message): ``name`` (irtbridge's spelling; mirt's own item types keep mirt's name and
   ``named_by="mirt"``), ``kind``, ``parameters`` (the IRT names of what it estimates), ``mirt`` (the
   ``itemtype`` mirt fits it with), and where they exist ``ltm`` (ltm's function), ``native`` (``"em"``:
   the native EM fits it), ``scoring`` (the native kernel's methods), ``slopes`` (``"unit"``: fixed at 1;
   ``"equal"``: one slope shared by these items) and ``options`` (the mirt options only this item type
   reads).
2. Implement what the row promises: the response and information functions in :mod:`irtbridge.irt` when
   ``scoring`` is set, the layout of ltm's result in ``irtbridge/_r/R/irtb_calibrate.R`` (keyed by ltm's
   function) when ``ltm`` is set. With ``native="em"`` a dichotomous logistic model is its ``parameters``
   as the mask of :class:`irtbridge.em.items.Dichotomous` (mirt's ``dich``), nothing more; another kind of
   item is a class of the :class:`irtbridge.em.items.ItemModel` protocol. A model mirt fits under its own
   name needs nothing more.
3. Test it against R: the same model fitted by mirt (or ltm) called directly in R.

An option irtbridge passes to R gets a :class:`Domain` in the table of its R function (a new entry of
mirt's ``technical`` list goes in ``_TECHNICAL``): the check before R reads it from there.

Examples
--------
>>> CATALOGUE["1PL"].mirt, CATALOGUE["1PL"].slopes, CATALOGUE["1PL"].ltm
('2PL', 'equal', 'rasch')
>>> mirt_itemtype(["rasch", "pcm", "ideal"])
['Rasch', 'Rasch', 'ideal']
>>> from_mirt_itemtype("Rasch", 4)
'pcm'
"""

from __future__ import annotations

import difflib
import math
import numbers
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from irtbridge.exceptions import ValidationError

__all__ = ["Model", "CATALOGUE", "MODELS", "KERNEL_MODELS", "DICHOTOMOUS", "POLYTOMOUS", "MIRT_ONLY",
           "KERNEL_SCORING", "MIRT_METHODS", "MIRT_SCORING", "ENGINE_COLUMNS", "models_where", "engine_models",
           "mirt_itemtype", "equal_slope_items", "from_mirt_itemtype", "item_type_readers",
           "Domain", "SE_TYPES", "TOL_DOMAIN", "ESTIMATION_DOMAINS", "GROUP_DOMAINS",
           "MIXED_DOMAINS", "NATIVE_DOMAINS", "LTM_DOMAINS", "FSCORES_DOMAINS", "check_values", "evaluates_only"]

#: mirt's estimation methods (``method``): fixed-quadrature EM, quasi- and Monte Carlo EM,
#: Metropolis-Hastings Robbins-Monro, stochastic EM, Bock-Lieberman
MIRT_METHODS = ("EM", "QMCEM", "MCEM", "MHRM", "SEM", "BL")
#: mirt's scoring methods (``fscores(method = )``)
MIRT_SCORING = ("EAP", "MAP", "ML", "WLE", "EAPsum")
#: the native kernel's scoring methods (:func:`irtbridge.irt.estimate_abilities`)
KERNEL_SCORING = ("EAP", "MAP", "ML")


@dataclass(frozen=True)
class Model:
    """One row of the catalogue.

    Attributes
    ----------
    name : str
        irtbridge's name (for mirt's own item types, mirt's name).
    kind : {"dichotomous", "polytomous", "either"}
        The responses it models.
    parameters : tuple of str
        The item parameters it estimates, in the IRT names of its item table (``a, b, g, u``; ``b`` for
        the thresholds of a polytomous item) or mirt's slope-intercept names when it has no IRT form.
    mirt : str
        mirt's ``itemtype``.
    ltm : str or None
        ltm's fitting function (``rasch``, ``ltm``, ``tpm``, ``grm``, ``gpcm``); None: ltm does not fit it.
    native : str or None
        ``"em"``: the native EM fits it (:func:`irtbridge.em.core.fit_em`; its item model is
        :func:`irtbridge.em.items.item_model` of this row, a dichotomous model's ``parameters`` the mask of
        its free parameters); None: no native EM does.
    scoring : tuple of str
        The native kernel's scoring methods for it; empty: :mod:`irtbridge.irt` has no kernel for it.
    slopes : {"free", "unit", "equal"}
        ``"unit"``: slopes fixed at 1 (latent variance free in mirt); ``"equal"``: one slope shared by the
        items of this model (a constraint written into mirt's parameter table).
    options : tuple of str
        mirt options (R's names) only this item type reads.
    named_by : {"irtbridge", "mirt"}
        Whose name ``name`` is.
    description : str
    """

    name: str
    kind: str
    parameters: tuple[str, ...]
    mirt: str
    ltm: str | None = None
    native: str | None = None
    scoring: tuple[str, ...] = ()
    slopes: str = "free"
    options: tuple[str, ...] = ()
    named_by: str = "irtbridge"
    description: str = ""

    @property
    def kernel(self) -> bool:
        """True when :mod:`irtbridge.irt` evaluates the model (an :class:`~irtbridge.irt.ItemBank`)."""
        return bool(self.scoring)


def _mirt(name: str, kind: str, description: str, parameters: tuple[str, ...] = (), **more: Any) -> Model:
    """A row for one of mirt's item types, fitted under mirt's own name (mirt only)."""
    return Model(name, kind, parameters, mirt=name, named_by="mirt", description=description, **more)


_ROWS = (
    Model("rasch", "dichotomous", ("b",), mirt="Rasch", ltm="rasch", native="em", scoring=KERNEL_SCORING,
          slopes="unit", options=("gpcm_mats",), description="Rasch: slopes fixed at 1, latent variance free"),
    Model("1PL", "dichotomous", ("a", "b"), mirt="2PL", ltm="rasch", native="em", scoring=KERNEL_SCORING,
          slopes="equal", description="one discrimination shared by the items"),
    Model("2PL", "dichotomous", ("a", "b"), mirt="2PL", ltm="ltm", native="em", scoring=KERNEL_SCORING,
          description="two-parameter logistic"),
    Model("3PL", "dichotomous", ("a", "b", "g"), mirt="3PL", ltm="tpm", native="em", scoring=KERNEL_SCORING,
          description="three-parameter logistic (lower asymptote g)"),
    Model("4PL", "dichotomous", ("a", "b", "g", "u"), mirt="4PL", native="em", scoring=KERNEL_SCORING,
          description="four-parameter logistic (upper asymptote u)"),
    Model("graded", "polytomous", ("a", "b"), mirt="graded", ltm="grm", native="em", scoring=KERNEL_SCORING,
          description="graded response (Samejima)"),
    Model("gpcm", "polytomous", ("a", "b"), mirt="gpcm", ltm="gpcm", scoring=KERNEL_SCORING,
          options=("gpcm_mats",), description="generalized partial credit"),
    Model("nominal", "polytomous", ("a1", "ak", "d"), mirt="nominal", description="nominal response (Bock)"),
    Model("grsm", "polytomous", ("a1", "d", "c"), mirt="grsm", description="graded rating scale"),
    Model("rsm", "polytomous", ("b", "c"), mirt="rsm", description="Rasch rating scale"),
    Model("pcm", "polytomous", ("b",), mirt="Rasch", slopes="unit", options=("gpcm_mats",),
          description="partial credit (mirt's polytomous Rasch)"),
    # mirt 1.48's other item types (mirt:::Valid_iteminputs()), by mirt's name
    _mirt("3PLu", "dichotomous", "logistic with an upper asymptote (no lower)"),
    _mirt("5PL", "dichotomous", "five-parameter logistic (asymmetry S; one factor)"),
    _mirt("CLL", "dichotomous", "complementary log-log (one factor)"),
    _mirt("ULL", "dichotomous", "unipolar log-logistic (log-normal latent trait)"),
    _mirt("gpcmIRT", "polytomous", "generalized partial credit, IRT parameterization (one factor)"),
    _mirt("grsmIRT", "polytomous", "graded rating scale, IRT parameterization (one factor)"),
    _mirt("PCgraded", "polytomous", "partially compensatory graded"),
    _mirt("PC1PL", "dichotomous", "partially compensatory, slopes 1 (confirmatory spec)"),
    _mirt("PC2PL", "dichotomous", "partially compensatory 2PL (confirmatory spec)"),
    _mirt("PC3PL", "dichotomous", "partially compensatory 3PL (confirmatory spec)"),
    _mirt("2PLNRM", "polytomous", "nested logit 2PL (needs key)", options=("key",)),
    _mirt("3PLNRM", "polytomous", "nested logit 3PL (needs key)", options=("key",)),
    _mirt("3PLuNRM", "polytomous", "nested logit, upper asymptote (needs key)", options=("key",)),
    _mirt("4PLNRM", "polytomous", "nested logit 4PL (needs key)", options=("key",)),
    _mirt("ideal", "dichotomous", "dichotomous ideal point"),
    _mirt("ggum", "polytomous", "generalized graded unfolding"),
    _mirt("hcm", "either", "hyperbolic cosine"),
    _mirt("ghcm", "either", "generalized hyperbolic cosine"),
    _mirt("alm", "either", "absolute logistic"),
    _mirt("galm", "either", "generalized absolute logistic"),
    _mirt("sslm", "either", "simple squared logistic"),
    _mirt("gsslm", "either", "generalized simple squared logistic"),
    _mirt("paralla", "either", "parallelogram analysis"),
    _mirt("gparalla", "either", "generalized parallelogram analysis"),
    _mirt("sequential", "polytomous", "sequential response (Tutz), slope-intercept"),
    _mirt("Tutz", "polytomous", "sequential response with slopes 1 and a free latent variance"),
    _mirt("spline", "dichotomous", "spline response (dichotomous)", options=("spline_args",)),
    _mirt("monospline", "dichotomous", "monotone spline (dichotomous)", options=("spline_args",)),
    _mirt("monopoly", "either", "monotone polynomial (degree 2 * monopoly_k + 1)", options=("monopoly.k",)),
)

#: every model by name, in catalogue order
CATALOGUE: dict[str, Model] = {row.name: row for row in _ROWS}


def models_where(**conditions: Any) -> tuple[str, ...]:
    """The names of the rows whose attributes equal ``conditions`` (in catalogue order).

    Examples
    --------
    >>> models_where(native="em")
    ('rasch', '1PL', '2PL', '3PL', '4PL', 'graded')
    """
    return tuple(r.name for r in _ROWS if all(getattr(r, k) == v for k, v in conditions.items()))


#: the models of the native kernel (:mod:`irtbridge.irt`), dichotomous ones first
KERNEL_MODELS = models_where(kernel=True)
DICHOTOMOUS = models_where(kernel=True, kind="dichotomous")
POLYTOMOUS = models_where(kernel=True, kind="polytomous")
#: the models only mirt fits (irtbridge's names, then mirt's item types by mirt's name)
MIRT_ONLY = models_where(kernel=False)
MODELS = tuple(CATALOGUE)


# each engine's own name for a model it fits (the engine's column of a row)
_ENGINE_NAMES = {
    "mirt": lambda r: r.mirt + (" (equal slopes)" if r.slopes == "equal" else ""),
    "ltm": lambda r: r.ltm + (" (a = 1)" if r.slopes == "unit" else ""),
    "native": lambda r: f"{r.name} (EM in numpy)",
}

#: the engines with a column in the catalogue
ENGINE_COLUMNS = tuple(_ENGINE_NAMES)


def engine_models(engine: str) -> dict[str, str]:
    """The models ``engine`` (a column of the catalogue: ``"mirt"``, ``"ltm"``, ``"native"``) fits, each
    with the engine's own name for it.

    Examples
    --------
    >>> engine_models("ltm")["rasch"], engine_models("native")["3PL"]
    ('rasch (a = 1)', '3PL (EM in numpy)')
    """
    name = _ENGINE_NAMES[engine]
    return {r.name: name(r) for r in _ROWS if getattr(r, engine) is not None}


def _rows(model: str | Sequence[str]) -> list[Model]:
    names = [model] if isinstance(model, str) else list(model)
    return [CATALOGUE[m] for m in names]


def mirt_itemtype(model: str | Sequence[str]) -> str | list[str]:
    """mirt's ``itemtype`` for one model name, or the vector for one name per item (what R receives)."""
    types = [r.mirt for r in _rows(model)]
    return types[0] if isinstance(model, str) else types


def equal_slope_items(model: str | Sequence[str], names: Sequence[str]) -> list[str]:
    """The items whose model shares one slope (the ``1PL``'s): R constrains their slopes to be equal."""
    models = [model] * len(names) if isinstance(model, str) else list(model)
    return [n for n, m in zip(names, models) if CATALOGUE[m].slopes == "equal"]


def from_mirt_itemtype(itemtype: str, ncat: Any) -> str:
    """irtbridge's name for one of mirt's item types (``"Rasch"`` with more than 2 categories is ``"pcm"``)."""
    kind = "polytomous" if int(ncat) > 2 else "dichotomous"
    same = [r for r in _ROWS if r.mirt == str(itemtype) and r.named_by == "irtbridge" and r.slopes != "equal"]
    for r in same:
        if r.kind == kind or len(same) == 1:
            return r.name
    return str(itemtype)


def item_type_readers(option: str) -> tuple[str, ...]:
    """The models whose items read a mirt option (e.g. ``"key"``: the nested logit item types)."""
    return tuple(r.name for r in _ROWS if option in r.options)


# --------------------------------------------------------------------------------------------------
# Option domains: the values each option irtbridge passes to mirt or ltm may take
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Domain:
    """The values one option may take: ``text`` says it in the error message, ``accepts`` decides.

    ``entries`` (for a mapping option such as mirt's ``technical`` or ltm's ``control``) are the domains of
    its entries by name; an entry not named there is refused with close matches.
    """

    text: str
    accepts: Callable[[Any], bool] = lambda value: True
    entries: Mapping[str, "Domain"] | None = None


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def evaluates_only(tol: Any) -> bool:
    """True for a ``TOL`` that makes mirt evaluate the starting or given values without estimating: R's
    ``NaN`` or ``NA`` as Python writes them (a float NaN, or ``pandas.NA``, R's logical ``NA``)."""
    return _is_nan(tol)


def _is_nan(v: Any) -> bool:
    """R's ``NaN`` or ``NA`` as Python writes them: a float NaN, or ``pandas.NA`` (R's logical ``NA``)."""
    if isinstance(v, (float, np.floating)):
        return math.isnan(float(v))
    pd = sys.modules.get("pandas")  # a pandas.NA exists only once pandas is imported
    return pd is not None and v is pd.NA


def _integer(low: int) -> Domain:
    return Domain(f"an integer of at least {low}", lambda v: _is_int(v) and v >= low)


def _positive(what: str = "a positive number") -> Domain:
    return Domain(what, lambda v: _is_number(v) and v > 0)


def _numbers(text: str, test: Callable[[float], bool]) -> Domain:
    """A number or a sequence of numbers, each passing ``test``."""
    def accepts(v: Any) -> bool:
        values = list(v) if isinstance(v, (list, tuple)) or getattr(v, "ndim", 0) == 1 else [v]
        return bool(values) and all(_is_number(x) and test(float(x)) for x in values)
    return Domain(text, accepts)


def _pair(text: str, low: float = -math.inf, high: float = math.inf) -> Domain:
    """Two numbers, increasing, inside [low, high]."""
    def accepts(v: Any) -> bool:
        values = list(v) if isinstance(v, (list, tuple)) or getattr(v, "ndim", 0) == 1 else []
        return (len(values) == 2 and all(_is_number(x) for x in values)
                and low <= float(values[0]) < float(values[1]) <= high)
    return Domain(text, accepts)


def _one_of(*choices: str) -> Domain:
    return Domain("one of " + ", ".join(map(repr, choices)), lambda v: isinstance(v, str) and v in choices)


_FLAG = Domain("True or False", lambda v: isinstance(v, (bool, np.bool_)))
_ANY = Domain("any value")
_NOT_FROM_PYTHON = Domain("an R function, which cannot be passed from Python (set it in R)", lambda v: False)
#: mirt's ``TOL``: a positive number, or (``?mirt``) ``NaN`` to evaluate the model at its starting or given
#: values without estimating, ``NA`` to do so without computing the log-likelihood
TOL_DOMAIN = Domain("a positive number, NaN (mirt's TOL = NaN: evaluate the starting or given values) or pandas.NA "
                    "(TOL = NA: the same without the log-likelihood)",
                    lambda v: (_is_number(v) and v > 0) or _is_nan(v))
_THETA_LIM = _pair("two finite numbers, lower < upper (e.g. [-6, 6])")

#: mirt 1.48's SE.type values (``?mirt``): the information matrix the standard errors come from
SE_TYPES = ("Oakes", "crossprod", "Richardson", "forward", "central", "Louis", "sandwich", "sandwich.Louis",
            "SEM", "Fisher", "complete", "MHRM", "FMHRM", "numerical")

# mirt's `technical` list: every name mirt:::makeopts accepts (it stops on any other), with its domain
_TECHNICAL: dict[str, Domain] = {
    "NCYCLES": _integer(1), "MAXQUAD": _integer(1), "BURNIN": _integer(0), "SEMCYCLES": _integer(0),
    "set.seed": Domain("an integer from 0 to 2**31 - 1", lambda v: _is_int(v) and 0 <= v < 2**31),
    "SEtol": _positive(), "symmetric": _FLAG, "gain": _pair("two positive numbers, e.g. [0.1, 0.75]", 0.0),
    "warn": _FLAG, "message": _FLAG, "customK": _numbers("integers of at least 2", lambda x: x >= 2 and x == int(x)),
    "customPriorFun": _NOT_FROM_PYTHON, "customTheta": _ANY, "MHcand": _numbers("positive numbers", lambda x: x > 0),
    "parallel": _FLAG, "NULL.MODEL": _FLAG, "theta_lim": _THETA_LIM, "RANDSTART": _integer(0),
    "MHDRAWS": _integer(1), "removeEmptyRows": _FLAG, "internal_constraints": _FLAG,
    "SEM_window": _pair("two numbers 0 <= lower < upper <= 1", 0.0, 1.0), "delta": _positive(),
    "MHRM_SE_draws": _integer(1), "Etable": _FLAG, "infoAsVcov": _FLAG, "PLCI": _FLAG,
    "plausible.draws": _integer(0), "storeEtable": _FLAG, "keep_vcov_PD": _FLAG, "Norder": _integer(1),
    "MCEM_draws": _NOT_FROM_PYTHON, "zeroExtreme": _FLAG, "mins": _ANY, "info_if_converged": _FLAG,
    "logLik_if_converged": _FLAG, "omp": _FLAG, "nconstrain": _ANY, "standardize_ref": _ANY,
    "storeEMhistory": _FLAG, "fixedEtable": _ANY, "fixedTheta": _ANY, "IGNOREWARNINGS": _FLAG,
}

#: the estimation options mirt's ``mirt()``, ``multipleGroup()``, ``bfactor()``, ``mdirt()`` and ``mixedmirt()``
#: reach through ``...`` (the formals of ``mirt:::ESTIMATION`` and ``mirt:::makeopts``), with their domains
ESTIMATION_DOMAINS: dict[str, Domain] = {
    "accelerate": _one_of("Ramsay", "squarem", "none"), "BFACTOR": _FLAG, "calcLL": _FLAG, "calcNull": _FLAG,
    "constrain": _ANY, "control": _ANY, "customGroup": _ANY, "customItems": _ANY, "customItemsData": _ANY,
    "D": _positive(), "dentype": _ANY, "draws": _integer(1), "GenRandomPars": _FLAG, "gpcm_mats": _ANY,
    "grsm.block": _ANY, "guess": _numbers("numbers in [0, 1)", lambda x: 0 <= x < 1), "item.Q": _ANY,
    "key": _ANY, "large": _ANY, "latent.regression": _ANY, "method": _one_of(*MIRT_METHODS),
    "mixed.design": _ANY, "monopoly.k": _ANY, "nloptr_args": _ANY,
    "optimizer": _one_of("BFGS", "L-BFGS-B", "nlminb", "NR", "NR1", "Nelder-Mead", "SANN", "solnp", "nloptr"),
    "parprior": _ANY, "quadpts": _integer(3), "rsm.block": _ANY, "SE.type": _one_of(*SE_TYPES),
    "SEtol": _positive(), "solnp_args": _ANY, "spline_args": _ANY,
    "survey.weights": _numbers("non-negative numbers, one per respondent", lambda x: x >= 0),
    "technical": Domain("a mapping of mirt's technical options", entries=_TECHNICAL),
    "TOL": TOL_DOMAIN, "upper": _numbers("numbers in (0, 1]", lambda x: 0 < x <= 1),
}

#: ``multipleGroup()`` and ``mdirt()`` (mirt 1.48) return no model (``NULL``) for ``TOL = NA``: their ``TOL``
#: takes ``NaN`` but not ``NA`` (:func:`irtbridge.calibrate_groups`, :func:`irtbridge.calibrate_classes`)
GROUP_DOMAINS: dict[str, Domain] = {
    **ESTIMATION_DOMAINS,
    "TOL": Domain("a positive number or NaN (evaluate the starting or given values; mirt's multipleGroup and mdirt "
                  "return no model for TOL = NA)", lambda v: (_is_number(v) and v > 0)
                  or (isinstance(v, (float, np.floating)) and math.isnan(float(v)))),
}
#: ``mixedmirt()`` estimates by MH-RM, which stops on ``TOL = NaN`` or ``NA``: a positive ``TOL`` only
MIXED_DOMAINS: dict[str, Domain] = {
    **ESTIMATION_DOMAINS, "TOL": _positive("a positive number (mixedmirt's MH-RM stops on TOL = NaN or NA)")}
#: the domains of the native EM's options (:mod:`irtbridge.calibration.engines.native`): mirt's, but ``TOL``
#: a positive number only (evaluating given values, ``TOL = NaN``, is mirt's)
NATIVE_DOMAINS: dict[str, Domain] = {
    **ESTIMATION_DOMAINS,
    "TOL": _positive("a positive number (TOL = NaN or NA, evaluating given values, needs engine='mirt')"),
}

# ltm's control list (the union over rasch, ltm, tpm, grm and gpcm)
_LTM_CONTROL: dict[str, Domain] = {
    "GHk": _integer(2), "iter.em": _integer(0), "iter.qN": _integer(0), "verbose": _FLAG,
    "method": _one_of("BFGS", "Nelder-Mead", "CG", "L-BFGS-B", "SANN"), "optimizer": _one_of("optim", "nlminb"),
    "eps.hessian": _positive(), "parscale": _numbers("positive numbers", lambda x: x > 0),
    "digits.abbrv": _integer(1), "optimMethod": _one_of("BFGS", "Nelder-Mead", "CG", "L-BFGS-B", "SANN"),
    "numrDeriv": _one_of("fd", "cd"), "epsHes": _positive(),
}

#: the options of ltm's fitting functions, with their domains
LTM_DOMAINS: dict[str, Domain] = {
    "IRT.param": _FLAG, "Hessian": _FLAG, "constrained": _FLAG, "constraint": _ANY, "start.val": _ANY,
    "na.action": _ANY, "type": _one_of("latent.trait", "rasch"),
    "max.guessing": Domain("a number in (0, 1]", lambda v: _is_number(v) and 0 < v <= 1),
    "control": Domain("a mapping of ltm's control options", entries=_LTM_CONTROL),
}

#: mirt's ``fscores()`` arguments with a bounded domain
FSCORES_DOMAINS: dict[str, Domain] = {
    "method": _one_of(*MIRT_SCORING[:-1], "WML", "EAPsum", "EAPsum_2.0", "EAP_general", "plausible", "classify"),
    "quadpts": _integer(3), "theta_lim": _THETA_LIM, "MI": _integer(0), "plausible.draws": _integer(0),
    "plausible.type": _one_of("normal", "MH"), "max_theta": _positive(), "min_expected": _positive(),
    "full.scores": _FLAG, "full.scores.SE": _FLAG, "QMC": _FLAG, "return.acov": _FLAG, "returnER": _FLAG,
    "append_response.pattern": _FLAG, "na.rm": _FLAG, "use_dentype_estimate": _FLAG, "expected.info": _FLAG,
    "EAPsum.scores": _FLAG, "T_as_X": _FLAG,
}


def check_values(options: Mapping[str, Any], domains: Mapping[str, Domain], where: str) -> None:
    """A one-line :class:`~irtbridge.exceptions.ValidationError` for the first option (R's name) outside
    its domain, naming the option, its value and the domain; options without a domain pass.

    Examples
    --------
    >>> check_values({"quadpts": 41, "TOL": 1e-5}, ESTIMATION_DOMAINS, "calibrate")
    >>> check_values({"quadpts": 0}, ESTIMATION_DOMAINS, "calibrate")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: calibrate: quadpts=0 is outside its domain: an integer of at least 3
    >>> check_values({"technical": {"NCYCLES": -1}}, ESTIMATION_DOMAINS, "calibrate")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: calibrate: technical['NCYCLES']=-1 is outside its domain: an integer of at least 1
    """
    for name, value in options.items():
        domain = domains.get(name)
        if domain is None or value is None:
            continue
        if domain.entries is not None:
            _check_entries(name, value, domain, where)
        elif not domain.accepts(value):
            _refuse(where, name, value, domain.text)


def _check_entries(name: str, value: Any, domain: Domain, where: str) -> None:
    if not isinstance(value, Mapping):
        _refuse(where, name, value, domain.text)
    for key, entry in value.items():
        inner = domain.entries.get(str(key)) if domain.entries is not None else None
        if inner is None:
            known = list(domain.entries or ())
            close = ([k for k in known if k.lower() == str(key).lower()]
                     or difflib.get_close_matches(str(key), known, n=1))
            hint = f"did you mean {close[0]!r}?" if close else f"its entries: {', '.join(known)}"
            raise ValidationError(f"{where}: {name} has no entry {key!r}; {hint}")
        if entry is not None and not inner.accepts(entry):
            _refuse(where, f"{name}[{str(key)!r}]", entry, inner.text)


def _refuse(where: str, name: str, value: Any, text: str) -> None:
    shown = " ".join(repr(value).split())  # one line, whatever the value
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise ValidationError(f"{where}: {name}={shown} is outside its domain: {text}")
