"""A tiny benchmark's bank file, read and checked whole before anything is built from it.

Internal to :mod:`irtbridge.leaderboard.tiny`. Version 1 (before issue 39) had no ``priors`` and no
``flagged`` field, and its ``exclude`` held the items the 2PL flagged (they were never drawn); it still
loads. Version 2 adds ``priors`` (the calibration's item priors, mirt's spelling, or null for plain maximum
likelihood) and ``flagged`` (the items whose 2PL estimates are not identified; they are in the sample frame),
and ``exclude`` holds only the items the user left out of the frame. A bank of a stratified draw
(``build_tiny(design="stratified")``) adds ``strata``, one whole-number label per item (checked when the
bank is loaded; absent: a simple random draw). Version 3 is a bank of a D-factor calibration
(``build_tiny(n_factors=D)``, D > 1): ``n_factors``, ``loadings`` (one list of D slopes per item, mirt's
``a1..aD``) and ``intercepts`` (``d``), with ``a`` and ``b`` each item's multidimensional discrimination and
difficulty (what the flags read); a bank of the 2PL is still written as version 2, so an older irtbridge
reads it and refuses a D-factor bank rather than misreading it. Every field is checked when the file
is read; a bad one is a one-line :class:`~irtbridge.exceptions.ValidationError` naming the file and, for an
item parameter, the item.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np

from irtbridge.em.factor_steps import parse_priors
from irtbridge.em.priors import item_priors
from irtbridge.exceptions import ValidationError

__all__ = ["BANK_FORMAT", "BANK_VERSION", "FACTOR_BANK_VERSION", "READABLE_VERSIONS", "MAX_FACTORS", "MAX_ABS_A",
           "MAX_ABS_B", "read_bank", "encode", "decode", "bank_path", "writable_path"]

BANK_FORMAT = "irtbridge-tiny-bank"
BANK_VERSION = 2
#: the version of a bank of a D-factor calibration (D > 1)
FACTOR_BANK_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
#: the most factors a bank may hold (as irtbridge.leaderboard.estimators.MAX_FACTORS)
MAX_FACTORS = 10
#: beyond these an item parameter is not one a calibration of irtbridge writes (``calibrate_2pl`` clips ``b``
#: to [-50, 50]; EM's steps are capped at 2 a cycle, so 500 cycles never take a slope past 1,000)
MAX_ABS_A = 1e4
MAX_ABS_B = 50.0
_NEEDED = ("items", "item_names", "a", "b", "responses", "models", "method")


def encode(column: np.ndarray) -> str:
    """One item's calibration answers as text: ``1``, ``0``, ``.`` for unanswered."""
    return "".join("." if np.isnan(v) else ("1" if v == 1 else "0") for v in column)


def decode(text: str) -> np.ndarray:
    """The inverse of :func:`encode`."""
    return np.array([np.nan if c == "." else float(c) for c in text])


def bank_path(path: Any, what: str = "bank") -> str:
    """``path`` as a string (a folder means its ``bank.json``); anything but a path is a one-line error."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValidationError(f"{what}: a bank file path (str or os.PathLike) is needed, got {type(path).__name__}")
    path = os.fspath(path)
    return os.path.join(path, "bank.json") if os.path.isdir(path) else path


def writable_path(path: Any) -> str:
    """The path a bank is saved to, checked: its folder must exist and the path must not be a folder."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValidationError(f"save: a file path (str or os.PathLike) is needed, got {type(path).__name__}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValidationError(f"save: folder {folder!r} does not exist; create it first")
    if os.path.isdir(path):
        raise ValidationError(f"save: {path!r} is a folder; give the bank file's name (e.g. {path}/bank.json)")
    return path


def _names(data: dict, key: str, where: str) -> list[str]:
    values = data.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValidationError(f"{where}: {key} must be a list of names")
    seen: set[str] = set()
    dup = [v for v in values if v in seen or seen.add(v)]  # type: ignore[func-returns-value]
    if dup:
        raise ValidationError(f"{where}: {key} name(s) {', '.join(map(repr, dup[:5]))} appear more than once")
    return values


def _number(value: Any, what: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValidationError(f"{where}: {what} must be a finite number, got {value!r}")
    return float(value)


def _check_parameters(data: dict, names: list[str], where: str) -> None:
    for key, limit in (("a", MAX_ABS_A), ("b", MAX_ABS_B)):
        values = data[key]
        if not isinstance(values, list) or len(values) != len(names):
            raise ValidationError(f"{where}: {key} must have one entry per item ({len(names)})")
        for name, v in zip(names, values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > limit:
                raise ValidationError(f"{where}: item {name!r} has {key} = {v!r}; a 2PL parameter must be finite "
                                      f"with |{key}| <= {limit:g} (rebuild the bank with build_tiny)")


def _check_factors(data: dict, names: list[str], where: str, version: int) -> None:
    """A version-3 bank's ``n_factors``, ``loadings`` and ``intercepts``; an older version holds none of them."""
    keys = [key for key in ("n_factors", "loadings", "intercepts") if key in data]
    if version < FACTOR_BANK_VERSION:
        if keys:
            raise ValidationError(f"{where}: {keys[0]} in a version-{version} bank; a D-factor bank is version "
                                  f"{FACTOR_BANK_VERSION}")
        return
    D = data.get("n_factors")
    if isinstance(D, bool) or not isinstance(D, int) or not 2 <= D <= MAX_FACTORS:
        raise ValidationError(f"{where}: n_factors must be a whole number from 2 to {MAX_FACTORS}, got {D!r}")
    loadings, intercepts = data.get("loadings"), data.get("intercepts")
    if not isinstance(loadings, list) or len(loadings) != len(names):
        raise ValidationError(f"{where}: loadings must have one list of {D} slopes per item ({len(names)})")
    if not isinstance(intercepts, list) or len(intercepts) != len(names):
        raise ValidationError(f"{where}: intercepts must have one entry per item ({len(names)})")
    for name, row, d in zip(names, loadings, intercepts):
        values = row if isinstance(row, list) and len(row) == D else None
        if values is None:
            raise ValidationError(f"{where}: item {name!r}'s loadings must be a list of {D} numbers")
        for what, v, limit in [*((f"a{k + 1}", x, MAX_ABS_A) for k, x in enumerate(values)), ("d", d, MAX_ABS_A)]:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > limit:
                raise ValidationError(f"{where}: item {name!r} has {what} = {v!r}; a D-factor 2PL parameter must be "
                                      f"finite with |{what}| <= {limit:g} (rebuild the bank with build_tiny)")


def _check_priors(data: dict, names: list[str], where: str) -> None:
    priors = data.get("priors")
    if priors is None:
        return

    if not isinstance(priors, dict) or not all(isinstance(v, list) and len(v) == 3 for v in priors.values()):
        raise ValidationError(f"{where}: priors must be null or {{parameter: [distribution, p1, p2]}}")
    try:
        if data.get("loadings") is not None:  # a D-factor bank: the engine's own reading of the priors
            parse_priors({k: tuple(v) for k, v in priors.items()}, len(names), int(data["n_factors"]))
        else:
            item_priors({k: tuple(v) for k, v in priors.items()}, names, "2PL")
    except ValidationError as exc:
        raise ValidationError(f"{where}: {exc}") from None


def read_bank(path: Any) -> dict[str, Any]:
    """The bank file's fields, every one checked (see the module docstring); ``priors`` as tuples.

    Parameters
    ----------
    path : str or os.PathLike
        The bank file, or a folder holding ``bank.json``.

    Returns
    -------
    dict of str to Any
        The file's fields.
    """
    path = bank_path(path)
    where = f"bank file {path!r}"
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise ValidationError(f"bank file {path!r} does not exist") from None
    except OSError as exc:
        raise ValidationError(f"{where}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"bank file {path!r} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != BANK_FORMAT:
        raise ValidationError(f"bank file {path!r} is not an irtbridge tiny bank (format {BANK_FORMAT!r})")
    version = data.get("version", 1)
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise ValidationError(f"{where}: version {version!r} is not one this irtbridge reads "
                              f"({', '.join(map(str, READABLE_VERSIONS))}); a newer irtbridge wrote it")
    missing = [key for key in _NEEDED if key not in data]
    if missing:
        raise ValidationError(f"bank file {path!r} lacks {', '.join(missing)}")
    names = _names(data, "item_names", where)
    known = set(names)
    models = _names(data, "models", where)
    for key in ("items", "exclude", "flagged"):
        unknown = [n for n in _names(data, key, where) if n not in known]
        if unknown:
            raise ValidationError(f"{where}: {key} names {len(unknown)} item(s) not in item_names, e.g. {unknown[:3]}")
    if len(data["items"]) < 3:
        raise ValidationError(f"{where}: items must hold at least 3 items, got {len(data['items'])}")
    clash = sorted(set(data["items"]) & set(data.get("exclude", [])))
    if clash:
        raise ValidationError(f"{where}: item(s) {clash[:3]} are both sampled and excluded")
    _check_parameters(data, names, where)
    _check_factors(data, names, where, version)
    responses = data["responses"]
    if not isinstance(responses, list) or len(responses) != len(names):
        raise ValidationError(f"{where}: a, b and responses must have one entry per item ({len(names)})")
    for name, text in zip(names, responses):
        if not isinstance(text, str) or len(text) != len(models) or set(text) - set("01."):
            raise ValidationError(f"{where}: item {name!r}'s responses must be one of 1, 0, . per model ({len(models)})")
    variance = _number(data.get("latent_var", 1.0), "latent_var", where)
    if variance <= 0:
        raise ValidationError(f"{where}: latent_var must be positive, got {variance!r}")
    if _number(data.get("alpha", 10.0), "alpha", where) <= 0:
        raise ValidationError(f"{where}: alpha must be positive, got {data.get('alpha')!r}")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValidationError(f"{where}: seed must be a non-negative integer, got {seed!r}")
    _check_priors(data, names, where)
    if not isinstance(data.get("validation") or {}, dict):
        raise ValidationError(f"{where}: validation must be an object")
    return data
