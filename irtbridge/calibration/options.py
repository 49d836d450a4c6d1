"""The estimation options an R engine takes, so that none is ignored without a word.

mirt's ``mirt()`` and ``multipleGroup()`` hand unknown arguments to ``...`` and carry on: ``mirt(data, 1,
rotat = "varimax")`` fits as if nothing had been said. irtbridge checks every option name against the
arguments the R function (and mirt's estimation routine behind it) really reads, before any fit, and
refuses the rest in one line. Arguments irtbridge sets itself (``SE``, ``itemtype``, ``pars``...) are
refused with the irtbridge parameter to use instead.

Python cannot spell R's dotted names as keywords, so ``SE_type=`` means ``SE.type`` (any option whose
underscores read as dots names an argument is renamed).

The lists are mirt 1.48's (``irtbridge/_r/R/packages.lock``): the formal arguments of ``mirt``,
``multipleGroup``, ``mirt:::ESTIMATION`` and ``mirt:::makeopts``, and of ltm's fitting functions
(``tests/calibration/test_options.py`` compares them with R's ``formals``).
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping

from irtbridge._catalogue import CATALOGUE, ESTIMATION_DOMAINS, SE_TYPES, Domain, check_values
from irtbridge.exceptions import ValidationError

__all__ = ["MIRT_OPTIONS", "GROUP_OPTIONS", "LTM_OPTIONS", "SE_TYPES", "check_options"]

# formals of mirt:::ESTIMATION and mirt:::makeopts, which both mirt() and multipleGroup() reach through `...`:
# the option names of the catalogue's domain table (irtbridge._catalogue)
_ESTIMATION = tuple(ESTIMATION_DOMAINS)
# what mirt() and multipleGroup() read beyond those (the structure arguments irtbridge sets are below)
MIRT_OPTIONS = tuple(sorted({*_ESTIMATION, "covdata", "formula", "itemdesign", "item.formula"}, key=str.lower))
GROUP_OPTIONS = tuple(sorted({*_ESTIMATION, "itemdesign", "item.formula", "nruns", "return_max"}, key=str.lower))
_LTM_COMMON = ("IRT.param", "start.val", "na.action", "control")
# the arguments of ltm's fitting functions; a model ltm fits with its slopes fixed at 1 (irtbridge's rasch,
# ltm's rasch() with its constraint set) leaves `constraint` to irtbridge
_LTM_FUNCTIONS = {"rasch": ("constraint", "Hessian"), "ltm": ("constraint",),
                  "tpm": ("type", "constraint", "max.guessing"), "grm": ("constrained", "Hessian"),
                  "gpcm": ("constraint",)}
LTM_OPTIONS: dict[str, tuple[str, ...]] = {
    row.name: (*(o for o in _LTM_FUNCTIONS[row.ltm] if not (o == "constraint" and row.slopes == "unit")), *_LTM_COMMON)
    for row in CATALOGUE.values() if row.ltm is not None}
# R arguments irtbridge sets itself: the irtbridge spelling to use instead (None: always set)
_OWNED = {"data": "responses", "formula": None, "model": "dims= or spec=", "itemtype": "model=", "SE": "se=",
          "verbose": None, "pars": "parameters=", "group": "calibrate_groups(groups=...)",
          "invariance": "calibrate_groups(invariance=...)", "hasCustomGroup": None, "constraint": None}

# options people bring from older mirt scripts, which mirt 1.48 no longer reads at estimation
_HINTS = {"rotate": "rotation is chosen when reading the loadings: fit.loadings(rotate=...)",
          "Target": "rotation is chosen when reading the loadings: fit.loadings(rotate=...)"}


def check_options(options: Mapping[str, Any], allowed: tuple[str, ...], where: str,
                  domains: Mapping[str, Domain] = ESTIMATION_DOMAINS) -> dict[str, Any]:
    """``options`` with R's argument names, or a one-line :class:`ValidationError` for one ``where`` ignores
    or a value outside its domain (:func:`irtbridge._catalogue.check_values`).

    Parameters
    ----------
    options : mapping
        The caller's ``**options``.
    allowed : tuple of str
        The R arguments the function reads (:data:`MIRT_OPTIONS`, :data:`GROUP_OPTIONS`, a row of
        :data:`LTM_OPTIONS`).
    where : str
        The function and engine, for the message (e.g. ``"calibrate(engine='mirt')"``).
    domains : mapping
        The option domains of the R function (default mirt's estimation options).

    Returns
    -------
    dict of str to Any
        The options, keyed by R's argument names.

    Examples
    --------
    >>> check_options({"SE_type": "Oakes", "TOL": 1e-5}, MIRT_OPTIONS, "calibrate")
    {'SE.type': 'Oakes', 'TOL': 1e-05}
    >>> check_options({"tol": 1e-5}, MIRT_OPTIONS, "calibrate(engine='mirt')")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: calibrate(engine='mirt') takes no option 'tol' (R would ignore it without a
    word); did you mean 'TOL'?
    """
    out: dict[str, Any] = {}
    for key, value in options.items():
        name = str(key)
        if name not in allowed and name.replace("_", ".") in allowed:
            name = name.replace("_", ".")
        if name in allowed:
            if name in out:
                raise ValidationError(f"{where}: option {name!r} is given twice (as {key!r} and its other spelling)")
            if name == "SE.type" and value not in SE_TYPES:
                raise ValidationError(f"{key}={value!r} is not a mirt SE.type; use one of {', '.join(SE_TYPES)}")
            out[name] = value
            continue
        owned = name if name in _OWNED else name.replace("_", ".") if name.replace("_", ".") in _OWNED else None
        if owned is not None:
            instead = _OWNED[owned]
            raise ValidationError(f"{where}: option {key!r} is set by irtbridge" +
                                  (f"; use {instead}" if instead else " and cannot be passed"))
        same = [a for a in allowed if a.lower() == name.lower()]
        close = same or difflib.get_close_matches(name, allowed, n=1, cutoff=0.75)
        hint = (_HINTS[name] if name in _HINTS else f"did you mean {close[0]!r}?" if close
                else f"its options: {', '.join(allowed)}")
        raise ValidationError(f"{where} takes no option {key!r} (R would ignore it without a word); {hint}")
    check_values(out, domains, where)
    return out
