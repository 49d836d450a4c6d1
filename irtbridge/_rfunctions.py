"""The typed passthrough behind :mod:`irtbridge.mirt` and :mod:`irtbridge.ltm`: every exported R function by name.

An attribute of those modules is an :class:`RFunction`; calling it runs the R function with the
arguments converted by :mod:`irtbridge._r.passthrough` (this module only swaps irtbridge results for the
R models they hold, and turns returned mirt models into :class:`~irtbridge.calibration.Calibration` /
:class:`~irtbridge.calibration.GroupCalibration`).
"""

from __future__ import annotations

import difflib
import sys
from typing import Any, Mapping

from irtbridge._catalogue import ESTIMATION_DOMAINS, FSCORES_DOMAINS, Domain, check_values
from irtbridge.exceptions import UnknownRFunctionError, ValidationError

__all__ = ["RFunction", "module_dir", "module_getattr"]

_FUNCTIONS: dict[tuple[str, str], "RFunction"] = {}
# Python's own probes (dunders, private names; pytest's doctest finder asks every module for
# `pytest_mock_example_attribute_that_shouldnt_exist`) never start R
_NOT_R = ("_", "pytest_")


class RFunction:
    """One exported R function, callable with Python arguments (see :mod:`irtbridge.mirt`).

    Attributes
    ----------
    package, r_name : str
        The R package and the function's R name (``"mirt"``, ``"extract.mirt"``).
    """

    def __init__(self, package: str, r_name: str):
        self.package = package
        self.r_name = r_name
        self.__name__ = self.__qualname__ = r_name.replace(".", "_")
        self.__doc__ = (f"R's {package}::{r_name}, called with Python arguments (converted as irtbridge.{package} "
                        f"describes); R's help: ?{package}::{r_name}.")

    def __repr__(self) -> str:
        return f"<R function {self.package}::{self.r_name}>"

    def __reduce__(self):
        return (_function, (self.package, self.r_name))

    def __call__(self, *args: Any, allow_extra: bool = False, **kwargs: Any) -> Any:
        from irtbridge._r import passthrough  # the R boundary loads with the first R call, never on import

        label = f"irtbridge.{self.package}.{self.__name__}"
        if not isinstance(allow_extra, bool):
            raise ValidationError(f"{label}: allow_extra must be True or False, got {allow_extra!r}")
        domains = _DOMAINS.get((self.package, self.r_name))
        if domains:  # values of a type R cannot take are the converter's to name (below)
            check_values({_r_name(k, domains): v for k, v in kwargs.items() if _plain(v)}, domains, label)
        r_args = [_to_r_side(v, f"{label}: argument {i + 1}") for i, v in enumerate(args)]
        kwargs = {k: _to_r_side(v, f"{label}: argument {k!r}") for k, v in kwargs.items()}
        try:
            value = passthrough.call_function(self.package, self.r_name, r_args, kwargs,
                                              check=not allow_extra, extra=_dots(self.package, self.r_name),
                                              forward=_FORWARDS.get((self.package, self.r_name), ()),
                                              per_group=(self.package, self.r_name) in _PER_GROUP, label=label)
        except TypeError as exc:  # a value with no R counterpart, named by the converter
            raise ValidationError(f"{label}: {exc}; pass numbers, strings, booleans, None, numpy arrays, "
                                  "pandas objects, dicts, lists or irtbridge fits") from None
        return _from_r_side(value)


# mirt's fitting functions hand their `...` on to its estimation routine (mirt:::ESTIMATION): the option
# names and domains of the catalogue (irtbridge._catalogue); fscores' bounded arguments have domains too
_FITTERS = ("mirt", "multipleGroup", "bfactor", "mdirt", "mixedmirt")
# functions whose `...` reaches other exports (mirt 1.48's source): their keywords may also be the formals of
# those (read from R at the call); itemfit and residuals score the respondents with fscores(x, ...)
_FORWARDS: dict[tuple[str, str], tuple[str, ...]] = {("mirt", "itemfit"): ("fscores",), ("mirt", "residuals"): ("fscores",)}
# the names a `...` reaches inside a function (no export to read them from): M2's goes to its local
# M2internal, whose one argument beyond M2's own is use_dentype_estimate (it never calls fscores)
_INNER_DOTS: dict[tuple[str, str], tuple[str, ...]] = {("mirt", "M2"): ("use_dentype_estimate",)}
# generics whose MultipleGroupClass method (formals `object, ...`) calls the same generic on every group:
# their keywords may be the formals of the SingleGroupClass method
_PER_GROUP = {("mirt", "coef"), ("mirt", "summary"), ("mirt", "residuals")}
_DOMAINS: dict[tuple[str, str], Mapping[str, Domain]] = {
    **{("mirt", f): ESTIMATION_DOMAINS for f in _FITTERS},
    **{key: FSCORES_DOMAINS for key in (("mirt", "fscores"), *_FORWARDS, *_INNER_DOTS)}}


def _dots(package: str, name: str) -> tuple[str, ...]:
    """The argument names the function's ``...`` reads (beyond its formals and those of :data:`_FORWARDS`)."""
    return tuple(ESTIMATION_DOMAINS) if package == "mirt" and name in _FITTERS else _INNER_DOTS.get((package, name), ())


def _plain(value: Any) -> bool:
    """A value a domain can judge: a string, number or boolean, a flat list or tuple of them, or a mapping."""
    scalar = (str, int, float, bool)
    return (isinstance(value, scalar) or isinstance(value, Mapping)
            or (isinstance(value, (list, tuple)) and all(isinstance(v, scalar) for v in value))
            or getattr(value, "ndim", None) in (0, 1))


def _r_name(key: str, known: Mapping[str, Any]) -> str:
    """A keyword as R will read it when it names something there (``SE_type`` -> ``SE.type``)."""
    return key if key in known or key.replace("_", ".") not in known else key.replace("_", ".")


def _function(package: str, name: str) -> RFunction:
    return module_getattr(package, name)


def module_getattr(package: str, name: str) -> RFunction:
    """``irtbridge.<package>.<name>``: the exported R function of that name (R's dots may be written as
    underscores: ``extract_mirt`` is ``extract.mirt``); an :class:`UnknownRFunctionError` otherwise."""
    if name.startswith(_NOT_R):
        raise AttributeError(f"module 'irtbridge.{package}' has no attribute {name!r}")
    from irtbridge._r import passthrough  # the R boundary loads with the first R call, never on import

    names = passthrough.exports(package)
    r_name = name if name in names else name.replace("_", ".")
    if r_name not in names:
        raise UnknownRFunctionError(_unknown(package, name, names))
    key = (package, r_name)
    if key not in _FUNCTIONS:
        _FUNCTIONS[key] = RFunction(package, r_name)
    return _FUNCTIONS[key]


def module_dir(package: str, module_names: list[str]) -> list[str]:
    """The package's exported functions in their Python spelling (dots as underscores)."""
    from irtbridge._r import passthrough  # the R boundary loads with the first R call, never on import

    return sorted(set(module_names) | {n.replace(".", "_") for n in passthrough.exports(package)})


def _unknown(package: str, name: str, names: tuple[str, ...]) -> str:
    spelled = {n.replace(".", "_"): n for n in names}
    close = difflib.get_close_matches(name, list(spelled), n=3, cutoff=0.6)
    close += [p for p in spelled if p.lower() == name.lower() and p not in close]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return (f"R package {package} exports no function {name!r}{hint} (dir(irtbridge.{package}) lists its "
            f"{len(names)} exported functions)")


# ---------------------------------------------------------------------------------------------------
def _to_r_side(value: Any, where: str) -> Any:
    """irtbridge results -> the R models they hold (also inside dicts, lists and tuples)."""
    from irtbridge.calibration import Calibration, GroupCalibration  # calibration/ (~2 s) loads when an R result is converted

    if isinstance(value, (Calibration, GroupCalibration)):
        if value.r_model is None:
            raise ValidationError(
                f"{where}: this {type(value).__name__} holds no live R model ({_why_no_model(value)})")
        return value.r_model
    if isinstance(value, Mapping) and not _is_pandas(value):
        return {k: _to_r_side(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_r_side(v, f"{where}[{i}]") for i, v in enumerate(value))
    return value


def _why_no_model(value: Any) -> str:
    from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE  # calibration/ (~2 s) loads when an R result is converted

    engine = ENGINE_TABLE.get(getattr(value, "engine", "mirt"))
    if engine is not None and not engine.runs_r:
        return f"{engine.title} fits without R; refit with engine={engine.who_else('mirt_model')}"
    return "it was unpickled or loaded from JSON; refit it in this process"


def _is_pandas(value: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, (pd.Series, pd.DataFrame))


def _from_r_side(value: Any) -> Any:
    """Fitted mirt models -> Calibration / GroupCalibration (also inside dicts and lists); the rest as is."""
    from irtbridge._r import RObject  # the R boundary loads with the first R call, never on import

    if isinstance(value, RObject):
        if "SingleGroupClass" in value.r_class:
            # calibration/ (~2 s) loads when an R result is converted
            from irtbridge.calibration.engines.rbacked import from_r_model

            return from_r_model(value)
        if "MultipleGroupClass" in value.r_class:
            from irtbridge.calibration.engines import mirt_groups  # calibration/ (~2 s) loads when an R result is converted

            return mirt_groups.from_r_model(value)
        return value
    if isinstance(value, dict):
        return {k: _from_r_side(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_r_side(v) for v in value]
    return value
