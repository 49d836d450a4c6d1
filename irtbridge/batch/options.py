"""The options each kind of batch unit takes, checked for the whole manifest before any unit runs.

:data:`KIND_OPTIONS` names every kind and, for each, its options and their types. :func:`check_unit`
checks one unit's options against it (names, JSON types, choices, and what the engines accept: the same
checks :func:`irtbridge.calibrate` makes before a fit, without the data) and returns the problems as
one-line messages naming the unit and the option; :func:`irtbridge.batch.load_manifest` gathers them for
every unit and refuses the manifest if there is any.

The columns a unit names (:func:`named_columns`) are looked up in its input file's header when the
manifest is read, so a mistyped column is refused before any unit runs; whether the file holds the values
a unit needs is the unit's own check when it runs, so a changed input fails that unit (and marks its folder
failed) instead of leaving the previous results in place.

The IRT kinds (``calibrate``, ``abilities``, ``fit``) share the keys of :data:`IRT_KEYS`; two of them
are spelled so that no name means two things: ``estimation_method`` is mirt's estimation method
(``calibrate(method=)``, ``irtbridge calibrate --method``), ``scoring_method`` the ability scoring
method (``fit.abilities(method)``, ``irtbridge abilities --method``). A bare ``method`` is refused with
both spellings. Every other key of an IRT unit is an estimation option with the engine's name
(``quadpts``, ``TOL``, ``technical``, ``SE_type``, ...), checked by
:func:`irtbridge.calibration.fit.fitting.engine_options`.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any, Callable, Mapping

from irtbridge._validation import check_choice, check_int, check_number, show_value
from irtbridge.efficiency.core import CI_METHODS
from irtbridge.exceptions import ValidationError

__all__ = ["KIND_OPTIONS", "IRT_KINDS", "IRT_KEYS", "FILE_OPTIONS", "check_unit", "calibrate_arguments", "named_columns"]

Check = Callable[[Any, str], Any]


def _boolean(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    hint = " (write it without quotes)" if isinstance(value, str) and value.lower() in ("true", "false") else ""
    raise ValidationError(f"{name} must be true or false (a JSON boolean), got {show_value(value)}{hint}")


def _text(value: Any, name: str) -> str:
    if isinstance(value, str) and value.strip():
        return value
    raise ValidationError(f"{name} must be a non-empty string, got {show_value(value)}")


def _names(what: str) -> Check:
    """A check for one name or a non-empty list of names."""
    def check(value: Any, name: str) -> Any:
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return value
        raise ValidationError(f"{name} must be {what}, got {show_value(value)}")
    return check


def _mapping(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value
    raise ValidationError(f"{name} must be a JSON object, got {show_value(value)}")


_columns = _names("a column name or a non-empty list of column names")
_model = _names("a model name or a list of names (one per item)")


def _choice(choices: tuple[str, ...]) -> Check:
    return lambda value, name: check_choice(value, name, choices, ignore_case=True)


def _whole(low: int) -> Check:
    def check(value: Any, name: str) -> int:
        if isinstance(value, str):  # check_int would say "whole number"; say it is a string
            raise ValidationError(f"{name} must be a whole number (not a string), got {show_value(value)}")
        return check_int(value, name, low=low)
    return check


def _number(**bounds: Any) -> Check:
    def check(value: Any, name: str) -> float:
        if isinstance(value, str):
            raise ValidationError(f"{name} must be a number (not a string), got {show_value(value)}")
        return check_number(value, name, **bounds)
    return check


def _real(value: Any, name: str) -> Any:
    """A JSON number, NaN included (mirt's ``TOL = NaN``); its range is the engine's domain to check."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        what = " (not a string)" if isinstance(value, str) else ""
        raise ValidationError(f"{name} must be a number{what}, got {show_value(value)}")
    return value


#: the keys every IRT unit (calibrate, abilities, fit) reads itself; the rest are engine options
IRT_KEYS: dict[str, Check] = {
    "model": _model, "engine": _choice(("mirt", "ltm", "native")), "id_column": _text,
    "drop_constant": _boolean, "estimation_method": _text, "dims": _whole(1), "seed": _whole(0),
    "priors": _mapping,
}
IRT_KINDS = ("calibrate", "abilities", "fit")
#: JSON types of the engine options most manifests use (names and values are the engine's to check)
ENGINE_OPTION_TYPES: dict[str, Check] = {
    "quadpts": _whole(1), "TOL": _real, "technical": _mapping, "draws": _whole(1),
    "SE_type": _text, "SE.type": _text, "accelerate": _text, "optimizer": _text, "progress": _boolean,
}


#: kind -> its options and their checks (None: the options are checked by the kind's own settings object)
KIND_OPTIONS: dict[str, dict[str, Check] | None] = {
    "calibrate": {**IRT_KEYS, "se": _boolean, "scoring_method": _text},
    "abilities": {**IRT_KEYS, "scoring_method": _text, "calibration": _text},
    "fit": dict(IRT_KEYS),
    "dataset": None,
    "hardness": {"label": _text, "scores": _columns, "threshold": _number(low=0.0, high=1.0), "id": _text},
    "ei": {"name": _text, "level": _number(low=0.0, high=1.0, low_open=True, high_open=True),
           "ci_method": _choice(CI_METHODS), "correction": _number(low=0.0), "n_boot": _whole(1),
           "random_state": _whole(0)},
    "rate": {"tau": _number(low=0.0, low_open=True)},
}

#: options that name a file (relative to the manifest): kind -> option names
FILE_OPTIONS: dict[str, tuple[str, ...]] = {"abilities": ("calibration",)}
#: what an abilities unit scoring with a stored calibration reads (the rest would calibrate)
_WITH_CALIBRATION = ("calibration", "scoring_method", "id_column")
#: native scoring (irtbridge.irt.estimate_abilities) of a stored calibration
_NATIVE_SCORING = ("EAP", "MAP", "ML")

#: kinds whose input is a target-bearing table
_TARGET_KINDS = ("dataset", "hardness")

_AMBIGUOUS = ("option 'method' has two meanings (mirt's estimation method, as `irtbridge calibrate --method`; "
              "the scoring method, as `irtbridge abilities --method`); write estimation_method (EM, QMCEM, MCEM, "
              "MHRM, SEM, BL){}")


def check_unit(uid: str, kind: str, options: Mapping[str, Any], target: Any = None) -> list[str]:
    """Every problem of one unit's options, as one-line messages naming the unit and the option.

    Parameters
    ----------
    uid : str
        The unit's id (for the messages).
    kind : str
        One of :data:`KIND_OPTIONS` (the caller has checked it).
    options : mapping
        The unit's options as the manifest gives them.
    target : str, optional
        The unit's ``target``.

    Returns
    -------
    list of str
        Empty when the options are fine.

    Examples
    --------
    >>> check_unit("lsat", "calibrate", {"se": "false"})
    ["manifest unit 'lsat', option 'se': se must be true or false (a JSON boolean), got 'false' (write it without quotes)"]
    >>> check_unit("lsat", "calibrate", {"model": "3PL", "se": False, "scoring_method": "wle"})
    []
    """
    where = f"manifest unit {uid!r}"
    if target is not None and kind not in _TARGET_KINDS:
        return [f"{where}: target is for {' and '.join(_TARGET_KINDS)} units, not {kind!r}"]
    if kind == "dataset":
        return _check_dataset(where, options)
    table = KIND_OPTIONS[kind]
    assert table is not None
    problems: list[str] = []
    rest: dict[str, Any] = {}
    for key, value in options.items():
        if key == "method" and kind in IRT_KINDS:
            problems.append(f"{where}: " + _AMBIGUOUS.format(" or scoring_method (EAP, MAP, ML, WLE)" if "scoring_method"
                                                             in table else "; a fit unit does not score"))
        elif key in table:
            problems.extend(_checked(table[key], value, key, where))
        elif kind in IRT_KINDS:
            rest[key] = value
            if key in ENGINE_OPTION_TYPES:
                problems.extend(_checked(ENGINE_OPTION_TYPES[key], value, key, where))
        else:
            problems.append(f"{where}: {kind} units take no option {key!r}; their options: {', '.join(table)}")
    if kind == "hardness" and not problems and (not (options.get("label") or target) or "scores" not in options):
        problems.append(f"{where}: a hardness unit needs options label (the 0/1 column; or give target) and "
                        "scores (the models' score columns)")
    if kind == "abilities" and "calibration" in options and not problems:
        problems.extend(_check_stored(where, options))
    elif kind in IRT_KINDS and not problems:
        try:
            _check_irt(kind, options, rest)
        except ValidationError as exc:
            problems.append(f"{where}: {exc}")
    return problems


def _checked(check: Check, value: Any, key: str, where: str) -> list[str]:
    """The problem of one option's value, if any, naming the unit and the option."""
    try:
        check(value, key)
    except ValidationError as exc:
        return [f"{where}, option {key!r}: {exc}"]
    return []


def _check_stored(where: str, options: Mapping[str, Any]) -> list[str]:
    """An abilities unit that scores with a stored calibration: no fitting options, a native scoring method."""
    extra = [k for k in options if k not in _WITH_CALIBRATION]
    if extra:
        return [f"{where}: option(s) {', '.join(map(repr, extra))} would calibrate, but option 'calibration' gives "
                f"the item parameters; with a calibration file an abilities unit takes {', '.join(_WITH_CALIBRATION)}"]
    method = options.get("scoring_method", "EAP")
    try:
        check_choice(method, "option 'scoring_method'", _NATIVE_SCORING, ignore_case=True)
    except ValidationError as exc:
        return [f"{where}: {exc} (a stored calibration is scored by irtbridge.irt.estimate_abilities; "
                "WLE needs the live mirt fit: leave out calibration to calibrate in the unit)"]
    return []


def _check_irt(kind: str, options: Mapping[str, Any], rest: Mapping[str, Any]) -> None:
    """What :func:`irtbridge.calibrate` checks before a fit, without the data; and the kind's own rules."""
    from irtbridge.calibration.inputs.engine_table import ENGINE_TABLE  # loaded when a unit of this kind runs
    from irtbridge.calibration.inputs.itemtypes import estimation_options, resolve_model  # loaded when a unit of this kind runs
    from irtbridge.calibration.inputs.options import check_options  # loaded when a unit of this kind runs

    engine = check_choice(options.get("engine", "mirt"), "engine", tuple(ENGINE_TABLE), ignore_case=True)
    if kind == "fit" and not ENGINE_TABLE[engine].mirt_model:
        raise ValidationError(f"option 'engine': a fit unit reports mirt's diagnostics; use engine 'mirt', not {engine!r}")
    model, per_item = resolve_model(options.get("model", "2PL"), None, engine, where="option 'model': ")
    ENGINE_TABLE[engine].check(priors=bool(options.get("priors")), sparse=False,
                               structured=per_item is not None or options.get("dims", 1) != 1)
    if "scoring_method" in options:
        check_choice(options["scoring_method"], "option 'scoring_method'", ENGINE_TABLE[engine].scoring, ignore_case=True)
    if not ENGINE_TABLE[engine].runs_r:  # the R-free engine checks its names only when it fits: check them here
        from irtbridge.calibration.engines.native import NATIVE_OPTIONS  # loaded when a unit of this kind runs

        check_options(rest, tuple(o for o in NATIVE_OPTIONS if o != "client"), f"calibrate(engine={engine!r})",
                      ENGINE_TABLE[engine].domains)
    checked = ENGINE_TABLE[engine].checked_options(rest, model)
    estimation_options(engine, checked, method=options.get("estimation_method"), seed=options.get("seed"))


def _check_dataset(where: str, options: Mapping[str, Any]) -> list[str]:
    """A dataset unit's options are :class:`irtbridge.pipeline.Settings` fields, checked by Settings itself."""
    from irtbridge.pipeline import Settings  # loaded when a unit of this kind runs

    fields = {f.name: f for f in dataclasses.fields(Settings) if f.init}
    unknown = [k for k in options if k not in fields]
    if unknown:
        return [f"{where}: dataset units take no option {k!r} (their options are irtbridge.pipeline.Settings "
                f"fields: {', '.join(fields)})" for k in unknown]
    problems = []
    for key, value in options.items():
        # Settings does not check the type of its flags: a string "false" would be true
        flag = isinstance(fields[key].default, bool) or fields[key].type in ("bool", "bool | None")
        if flag and not (isinstance(value, bool) or (value is None and fields[key].default is None)):
            problems.append(f"{where}, option {key!r}: {key} must be true or false (a JSON boolean), got {show_value(value)}")
        elif (isinstance(value, str) and isinstance(fields[key].default, numbers.Number)
              and not isinstance(fields[key].default, bool)):
            problems.append(f"{where}, option {key!r}: {key} must be a number (not a string), got {show_value(value)}")
    if problems:
        return problems
    try:
        Settings(**dict(options))
    except (ValidationError, TypeError) as exc:
        return [f"{where}: {exc}"]
    return []


def named_columns(kind: str, options: Mapping[str, Any], target: Any = None) -> list[tuple[str, str]]:
    """The columns of its input file a unit's manifest entry names, as ``(option, column)`` pairs, for the
    manifest check to look up in the file's header (a mistyped column is refused before any unit runs; the
    columns a kind always reads, such as an ei unit's ``tp, fp, fn, tn``, are the unit's own check).

    Parameters
    ----------
    kind : str
        The unit's kind.
    options : mapping of str to Any
        Its options (already checked for their types).
    target : str, optional
        Its ``target``.

    Returns
    -------
    list of tuple of (str, str)
        The option (``"target"`` for the target) and the column it names.

    Examples
    --------
    >>> named_columns("hardness", {"label": "y", "scores": ["m1", "m2"]})
    [('label', 'y'), ('scores', 'm1'), ('scores', 'm2')]
    >>> named_columns("calibrate", {"id_column": "respondent"}, None)
    [('id_column', 'respondent')]
    """
    out: list[tuple[str, str]] = [] if target is None else [("target", str(target))]
    keys = {"calibrate": ("id_column",), "abilities": ("id_column",), "fit": ("id_column",),
            "hardness": ("label", "scores", "id"), "ei": ("name",)}.get(kind, ())
    for key in keys:
        value = options.get(key)
        for column in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            out.append((key, str(column)))
    return out


def calibrate_arguments(options: Mapping[str, Any]) -> dict[str, Any]:
    """The :func:`irtbridge.calibrate` keywords of an IRT unit's options (after :func:`check_unit`).

    Parameters
    ----------
    options : mapping of str to Any
        The unit's options, already checked.

    Returns
    -------
    dict of str to Any
        Keyword -> value for :func:`irtbridge.calibrate`.

    Examples
    --------
    >>> calibrate_arguments({"model": "3PL", "estimation_method": "MHRM", "quadpts": 31, "scoring_method": "ML"})
    {'model': '3PL', 'engine': 'mirt', 'drop_constant': False, 'method': 'MHRM', 'quadpts': 31}
    """
    opts = {k: v for k, v in options.items() if k not in ("id_column", "scoring_method", "se")}
    out: dict[str, Any] = {"model": opts.pop("model", "2PL"), "engine": opts.pop("engine", "mirt"),
                           "drop_constant": opts.pop("drop_constant", False)}
    if "estimation_method" in opts:
        out["method"] = opts.pop("estimation_method")
    out.update(opts)
    return out
