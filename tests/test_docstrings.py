"""numpydoc sections on the public API (issue 33 item 5), checked with numpydoc's own validator.

The public API is found, not listed: every module of ``irtbridge`` that :func:`pkgutil.walk_packages` finds
with no part of its dotted name starting with an underscore, and in each the names of its ``__all__`` (a
module without ``__all__``: the functions and classes it defines under a public name). Of those, the
functions and classes defined in irtbridge, and the public methods and properties of those classes (and of
their irtbridge base classes). Each object is validated once, on the test case of the module that defines it
(an object defined in a private module and exported by a public one: the first public module exporting it).
Deprecated names served through :mod:`irtbridge._moved` are not the public API and are never looked up; a
name is read with ``getattr`` only when ``__all__`` lists it, so a module ``__getattr__`` (``irtbridge.mirt``
serves any R function) is never asked for anything else.

Required of each object (:func:`numpydoc.validate.validate`'s codes):

* a docstring (GL08) that starts with a summary (SS01);
* callables with parameters (a class: its constructor's): a Parameters section naming exactly the
  signature's parameters (PR01, PR02), each with a type (PR04, PR10). A class's constructor parameter may
  be documented in its Attributes section instead (a dataclass's fields are both; a result class lists
  them there), with a type all the same; a :class:`typing.Protocol` has no constructor to document, nor
  is a private field (``_cache``) of a dataclass's constructor;
* functions and methods that return something (not ``None``; not classes, not properties): a Returns
  section (RT01), and a Yields section for generators (YD01);
* sections numpydoc knows, in its order (GL06, GL07), so that the reference site renders them.

Everything else numpydoc can report (See Also, extended summaries, punctuation, a summary wrapped over two
lines of the house's 130 columns) is left to review. A failure lists one object per line: ``dotted.name: CODE
message``. No object is excused.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import warnings
from types import ModuleType
from typing import Any, Callable, Iterator

import pytest
from numpydoc.docscrape import Parameter, get_doc_object
from numpydoc.validate import validate

import irtbridge
from irtbridge import _moved

#: the numpydoc codes the public API must pass (see the module docstring)
REQUIRED = frozenset({"GL06", "GL07", "GL08", "SS01", "PR01", "PR02", "PR04", "PR10", "RT01", "YD01"})


def _is_public(dotted: str) -> bool:
    return not any(part.startswith("_") for part in dotted.split("."))


def _raise(name: str) -> None:
    raise ImportError(f"pkgutil.walk_packages could not import {name}")


@functools.lru_cache(maxsize=None)
def public_modules() -> tuple[str, ...]:
    """The dotted names of irtbridge's public modules, the package itself first."""
    found = [info.name for info in pkgutil.walk_packages(irtbridge.__path__, "irtbridge.", onerror=_raise)]
    return ("irtbridge", *sorted(name for name in found if _is_public(name)))


def _defined_in_irtbridge(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "irtbridge"


def exported(module: ModuleType) -> Iterator[tuple[str, Any]]:
    """``(name, object)`` for each public function or class ``module`` exports (see the module docstring)."""
    moved = _moved.TABLES.get(module.__name__, {})
    names = vars(module).get("__all__")
    if names is None:  # no __all__: what the module itself defines under a public name, read without getattr
        names = [name for name, obj in vars(module).items()
                 if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__]
    for name in names:
        if name in moved:
            continue  # a deprecated name, served by irtbridge._moved
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # a shim in __all__ fails here, loudly
            obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and _defined_in_irtbridge(obj):
            yield name, obj


def members(cls: type) -> Iterator[tuple[str, Any]]:
    """``(dotted name, object)`` for each public method and property of ``cls`` and its irtbridge bases.

    A method is the plain function (a classmethod's or staticmethod's too); a property is its getter.
    """
    for owner in cls.__mro__:
        if not _defined_in_irtbridge(owner):
            continue
        for name, attr in vars(owner).items():
            if name.startswith("_"):
                continue
            if isinstance(attr, (classmethod, staticmethod)):
                attr = attr.__func__
            elif isinstance(attr, property):
                attr = attr.fget
            elif isinstance(attr, functools.cached_property):
                attr = attr.func
            if inspect.isfunction(attr):
                yield f"{owner.__module__}.{owner.__qualname__}.{name}", attr


def _is_property(cls: type, name: str) -> bool:
    return isinstance(inspect.getattr_static(cls, name, None), (property, functools.cached_property))


@functools.lru_cache(maxsize=None)
def homes() -> dict[str, list[tuple[str, Any, str]]]:
    """Public module -> ``(dotted name, object, kind)`` of the objects validated on its test case.

    ``kind`` is ``"function"``, ``"class"``, ``"method"`` or ``"property"``. Each object appears once.
    """
    modules = public_modules()
    placed: dict[int, str] = {}
    table: dict[str, list[tuple[str, Any, str]]] = {name: [] for name in modules}

    def place(obj: Any, dotted: str, kind: str, defined_in: str, reached_from: str) -> None:
        key = id(obj)
        if key in placed:
            return
        home = defined_in if defined_in in table else reached_from
        placed[key] = home
        table[home].append((dotted, obj, kind))

    for module_name in modules:
        module = importlib.import_module(module_name)
        for _, obj in exported(module):
            dotted = f"{obj.__module__}.{obj.__qualname__}"
            place(obj, dotted, "class" if inspect.isclass(obj) else "function", obj.__module__, module_name)
            if inspect.isclass(obj):
                for member, func in members(obj):
                    kind = "property" if _is_property(obj, member.rsplit(".", 1)[1]) else "method"
                    place(func, member, kind, func.__module__, module_name)
    return table


def _attributes_as_parameters(doc: Any) -> None:
    """Add to ``doc``'s Parameters the entries of its Attributes section that name constructor parameters."""
    try:
        signature = set(inspect.signature(doc._cls).parameters)
    except (TypeError, ValueError):
        return
    documented = {name for names, _, _ in doc["Parameters"] for name in names.split(", ")}
    extra = []
    for names, type_, desc in doc["Attributes"]:
        given = [name for name in names.split(", ") if name in signature and name not in documented]
        if given:
            extra.append(Parameter(", ".join(given), type_, desc))
    doc["Parameters"] = list(doc["Parameters"]) + extra


def problems(obj: Any, dotted: str, kind: str) -> list[str]:
    """``dotted: CODE message`` for each required numpydoc check that ``obj`` fails."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # docscrape warns of what validate reports as codes (GL06)
            # no Attributes made up from the class's members: only what its docstring says counts
            doc = get_doc_object(obj, config={"show_class_members": False})
            if kind == "class":  # constructor parameters documented as attributes count as documented
                _attributes_as_parameters(doc)
            result = validate(doc)
    except Exception as exc:  # noqa: BLE001  (numpydoc cannot parse the docstring: that is the failure)
        return [f"{dotted}: parse error {type(exc).__name__}: {exc}"]
    codes = REQUIRED
    if kind == "property":  # documented like an attribute: a summary, no Parameters or Returns
        codes = REQUIRED - {"PR01", "PR02", "PR04", "PR10", "RT01", "YD01"}
    elif kind == "class" and getattr(obj, "_is_protocol", False):  # a Protocol is never constructed
        codes = REQUIRED - {"PR01", "PR02"}
    out = []
    for code, message in result["errors"]:
        if code == "PR01":  # a constructor's private field (``_cache``) is not the public API
            missing = sorted(name for name in ast.literal_eval(message.split(" ", 1)[1].rsplit(" not ", 1)[0])
                             if not name.startswith("_"))
            message = f"Parameters {set(missing)} not documented" if missing else ""
        if code in codes and message:
            out.append(f"{dotted}: {code} {message}")
    return out


def report(objects: list[tuple[str, Any, str]], check: Callable[[Any, str, str], list[str]] = problems) -> str:
    """The failures of ``objects``, one per line (empty when all pass)."""
    return "\n".join(line for dotted, obj, kind in objects for line in check(obj, dotted, kind))


@pytest.mark.parametrize("module_name", public_modules())
def test_public_docstrings_have_numpydoc_sections(module_name: str) -> None:
    failures = report(homes()[module_name])
    assert not failures, f"numpydoc sections missing or wrong in {module_name}:\n{failures}"


def test_the_walk_finds_the_public_api() -> None:
    modules = public_modules()
    assert "irtbridge.calibration" in modules and "irtbridge.mirt" in modules
    assert not any(part.startswith("_") for name in modules for part in name.split("."))
    everything = {dotted: kind for objects in homes().values() for dotted, _, kind in objects}
    # a function, a class, a method and a property, each found where it is defined
    assert everything[f"{irtbridge.calibrate.__module__}.calibrate"] == "function"
    assert everything[f"{irtbridge.Summary.__module__}.Summary"] == "class"  # defined in a private module
    assert any(kind == "method" for kind in everything.values())
    assert any(kind == "property" for kind in everything.values())
    # deprecated names are not the public API
    assert not any(name.endswith(".run_batch") and not name.startswith("irtbridge.batch") for name in everything)


def _documented(values: list[float], scale: float = 1.0) -> float:
    """Sum ``values`` times ``scale``.

    Parameters
    ----------
    values : list of float
        The numbers.
    scale : float, default 1.0
        Their common factor.

    Returns
    -------
    float
        The scaled sum.
    """
    return scale * sum(values)


def _undocumented(values, scale=1.0, *, unused=None):
    """Sum ``values`` times ``scale``.

    Parameters
    ----------
    values
        The numbers (no type).
    weights : list of float
        Not a parameter.
    """
    return scale * sum(values)


def test_the_check_can_fail() -> None:
    assert report([("tests._documented", _documented, "function")]) == ""
    failures = report([("tests._undocumented", _undocumented, "function")]).splitlines()
    codes = {line.split(": ", 1)[1].split(" ", 1)[0] for line in failures}
    assert codes == {"PR01", "PR02", "PR04", "RT01"}, failures
    assert all(line.startswith("tests._undocumented: ") for line in failures)
    assert "'scale'" in failures[0] or any("'scale'" in line for line in failures)
    missing = report([("tests.nothing", lambda x: x, "function")])
    assert missing.startswith("tests.nothing: GL08 ")
