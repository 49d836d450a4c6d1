"""Names that moved or were renamed: still served from their old place, with a DeprecationWarning.

The one mechanism for every deprecated name of the package (a module ``__getattr__``, PEP 562): a package
keeps a table ``old name -> new home`` and hands it to :func:`moved_names`. A new home is a module path
(the name kept, ``"irtbridge.pipeline"``) or ``"module:new_name"`` (renamed too). The new home is resolved
by its dotted path only when an old name is used, so the old place never imports the new one (a lower floor
can keep a name that moved up without importing the floor above it). The warning names the new home and
:data:`REMOVAL`, the version that removes the old name; CHANGELOG.md lists every name with both
(``tests/test_changelog.py`` checks it).

Modules that moved are served the same way by one finder (:func:`moved_modules`, the table :data:`MODULES`):
the old import path warns and yields the new module object itself. Keywords and other forms of a call have
their own readers below (:func:`moved_keywords`, :func:`deprecated_form`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping

__all__ = ["FORMS", "KEYWORDS", "MODULES", "REMOVAL", "TABLES", "current_module_path", "deprecated_form",
           "forget_moved_modules", "import_moved", "moved_keywords", "moved_module_table", "moved_modules",
           "moved_names", "new_home", "register", "resolve", "warn_form"]

#: the release that removes every name deprecated so far
REMOVAL = "0.3.0"

#: every table handed to :func:`moved_names`, by the module that serves it (filled as the modules load)
TABLES: dict[str, Mapping[str, str]] = {}


def register(package: str, table: Mapping[str, str]) -> None:
    """Record ``package``'s table of old names in :data:`TABLES` (a package that serves them itself)."""
    TABLES[package] = table


def new_home(home: str, name: str) -> tuple[str, str]:
    """``(module, name)`` of an old ``name`` whose table entry is ``home`` (``"module"`` or ``"module:new"``)."""
    module, _, new = home.partition(":")
    return module, new or name


def resolve(package: str, name: str, home: str, *, stacklevel: int = 3) -> Any:
    """The object an old ``package.name`` now stands for, after a DeprecationWarning naming its new home."""
    module, new = new_home(home, name)
    verb = "moved to" if new == name else "was renamed"
    warnings.warn(f"{package}.{name} {verb} {module}.{new}; import it from there ({package}.{name} will be "
                  f"removed in irtbridge {REMOVAL})", DeprecationWarning, stacklevel=stacklevel)
    return getattr(importlib.import_module(module), new)


def moved_names(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that serves the old names of ``table`` (with a warning).

    Parameters
    ----------
    package : str
        The module's ``__name__``.
    table : mapping of str to str
        Old name -> new home: ``"module"`` (the same name there) or ``"module:new_name"``.

    Returns
    -------
    callable
        ``__getattr__(name)``: the new object, or AttributeError for a name the table does not hold.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = moved_names("example", {"old_sqrt": "math:sqrt"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = getattr_("old_sqrt")(9.0)
    >>> value
    3.0
    >>> print(caught[0].message)
    example.old_sqrt was renamed math.sqrt; import it from there (example.old_sqrt will be removed in
    irtbridge 0.3.0)
    """
    register(package, table)

    def __getattr__(name: str) -> Any:
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return resolve(package, name, home)

    return __getattr__


#: deprecated forms that are not names (a keyword, a column name, a return shape): form -> what replaces it;
#: CHANGELOG.md lists each under "Deprecated" (filled as the modules load)
FORMS: dict[str, str] = {}


def deprecated_form(form: str, instead: str) -> str:
    """Record a deprecated ``form`` of a call (not a name) and what replaces it; return ``form``, the key
    :func:`warn_form` takes."""
    FORMS[form] = instead
    return form


def warn_form(form: str, *, stacklevel: int = 3) -> None:
    """The DeprecationWarning of a recorded ``form``: what replaces it and the version that removes it.

    Examples
    --------
    >>> import warnings
    >>> key = deprecated_form("example(x=)", "example(y=)")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_form(key)
    >>> print(caught[0].message)
    example(x=) is deprecated: use example(y=) (example(x=) will be removed in irtbridge 0.3.0)
    """
    warnings.warn(f"{form} is deprecated: use {FORMS[form]} ({form} will be removed in irtbridge {REMOVAL})",
                  DeprecationWarning, stacklevel=stacklevel)


#: keyword arguments that moved into an options object or were renamed, by function: old keyword -> new home
#: (``"Settings.seed"``: the field of the options object that now carries it). Filled as the modules load.
KEYWORDS: dict[str, Mapping[str, str]] = {}


def moved_keywords(function: str, table: Mapping[str, str]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """A reader of ``function``'s old keyword arguments (its ``**old``), under their new names, with a warning.

    The reader gives one DeprecationWarning naming every old keyword passed, its new home and :data:`REMOVAL`;
    a keyword that ``table`` does not hold is a TypeError, as Python's own for an unknown argument.

    Parameters
    ----------
    function : str
        The function's dotted name (``"irtbridge.decodirt.evaluate_dataset"``), as the warning and
        CHANGELOG.md name it.
    table : mapping of str to str
        Old keyword -> new home: ``"Holder.field"`` (``{"random_state": "Settings.seed"}``) or
        ``"function(keyword=)"`` (a keyword of the function that now takes it).

    Returns
    -------
    callable
        ``read(given)``: ``{field: value}`` for each old keyword in ``given`` (empty when there is none).

    Examples
    --------
    >>> import warnings
    >>> read = moved_keywords("example.f", {"random_state": "Settings.seed"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     read({"random_state": 3})
    {'seed': 3}
    >>> print(caught[0].message)
    example.f(random_state=) moved to Settings.seed; pass it there (the old keywords will be removed in
    irtbridge 0.3.0)
    """
    KEYWORDS[function] = table

    def read(given: Mapping[str, Any], stacklevel: int = 3) -> dict[str, Any]:
        unknown = [k for k in given if k not in table]
        if unknown:
            raise TypeError(f"{function.rsplit('.', 1)[-1]}() got an unexpected keyword argument {unknown[0]!r}")
        if not given:
            return {}
        moves = "; ".join(f"{function}({k}=) moved to {table[k]}" for k in given)
        warnings.warn(f"{moves}; pass it there (the old keywords will be removed in irtbridge {REMOVAL})",
                      DeprecationWarning, stacklevel=stacklevel)
        return {_field(table[k]): v for k, v in given.items()}

    return read


def _field(home: str) -> str:
    # "Settings.seed" -> "seed"; "CalibrationMode.resolve(engine=)" -> "engine"
    return home[home.rindex("(") + 1:-2] if home.endswith("=)") else home.rsplit(".", 1)[-1]


#: old dotted module path -> its new dotted path, for every module (or whole package) that moved; a moved
#: package's submodules follow it (``irtbridge.old.sub`` -> ``irtbridge.new.sub``) unless listed themselves.
#: ``irtbridge/__init__.py`` hands it to :func:`moved_modules`; CHANGELOG.md lists every entry.
MODULES: dict[str, str] = {
    "irtbridge.benchmark": "irtbridge.decodirt",
    "irtbridge.benchmark.data": "irtbridge.decodirt.classification_data",
    "irtbridge.datasets": "irtbridge.example_data",
    "irtbridge.irt.scoring": "irtbridge.irt.abilities",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The ``sys.meta_path`` finder behind :func:`moved_modules`: an old module path imports as its new one."""

    def __init__(self) -> None:
        self.table: dict[str, str] = {}
        # "new.package.old_child" -> "old.package.old_child": ``from irtbridge.old import child`` looks the
        # child up under the package's own (new) name, so a renamed child of a moved package is found there too
        self.aliases: dict[str, str] = {}

    def update(self, table: Mapping[str, str]) -> None:
        self.table.update(table)
        for old in self.table:
            parent, _, child = old.rpartition(".")
            moved = self.home(parent) if parent else None
            if moved is not None:
                self.aliases[f"{moved[1]}.{child}"] = old

    def home(self, fullname: str) -> tuple[str, str, bool] | None:
        """``(old path, new path, listed)`` of an old module path (None for any other): ``listed`` when it is
        a table entry itself, not a submodule of a moved package."""
        fullname = self.aliases.get(fullname, fullname)
        old = fullname
        while old not in self.table:
            if "." not in old:
                return None
            old = old.rpartition(".")[0]
        return fullname, self.table[old] + fullname[len(old):], old == fullname

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        return None if self.home(fullname) is None else ModuleSpec(fullname, self)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # a placeholder, replaced in sys.modules by the module itself (exec_module)

    def exec_module(self, module: ModuleType) -> None:
        # importlib hands back whatever sys.modules holds under the old name once this returns: the new module
        old, new, listed = self.home(module.__name__) or ("", "", False)
        sys.modules[module.__name__] = import_moved(old, new, warn=listed, stacklevel=3)


_FINDER = _MovedModuleFinder()


def import_moved(old: str, new: str, *, warn: bool = True, stacklevel: int = 3) -> ModuleType:
    """The module at ``new`` (imported), after a DeprecationWarning that ``old`` moved there (``warn``)."""
    if warn:
        verb = "moved to" if old.rpartition(".")[2] == new.rpartition(".")[2] else "was renamed"
        warnings.warn(f"{old} {verb} {new}; import it from there ({old} will be removed in irtbridge {REMOVAL})",
                      DeprecationWarning, stacklevel=stacklevel)
    return importlib.import_module(new)


def moved_modules(table: Mapping[str, str]) -> None:
    """Make each old module path of ``table`` import as its new one, with a DeprecationWarning.

    ``import irtbridge.old.path`` (or ``from irtbridge.old import path``) then warns once, naming the new
    path and :data:`REMOVAL`, and yields the very module object of the new path: its classes are the same
    classes, and pickles that name the old path load. A moved package's submodules follow it: with
    ``{"irtbridge.benchmark": "irtbridge.decodirt"}``, ``irtbridge.benchmark.modes`` is
    ``irtbridge.decodirt.modes`` (the package's own warning covers them); a submodule that was renamed too is
    an entry of its own. No folder stays behind at the old path: a finder on ``sys.meta_path``, added once
    and ahead of the others (so a stale ``__pycache__`` folder at the old place is not read as a namespace
    package), serves the old paths.

    Parameters
    ----------
    table : mapping of str to str
        Old dotted module path -> new dotted module path.

    Examples
    --------
    >>> import warnings
    >>> moved_modules({"irtbridge._example_old_ties": "irtbridge._ties"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     import irtbridge._example_old_ties as old
    >>> import irtbridge._ties
    >>> old is irtbridge._ties
    True
    >>> print(caught[0].message)
    irtbridge._example_old_ties was renamed irtbridge._ties; import it from there (irtbridge._example_old_ties
    will be removed in irtbridge 0.3.0)
    >>> forget_moved_modules(["irtbridge._example_old_ties"])
    """
    _FINDER.update(table)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def forget_moved_modules(old: Iterable[str]) -> None:
    """Undo :func:`moved_modules` for the old paths ``old`` (and their submodules): for tests and examples."""
    old = list(old)
    aliases = [alias for alias, name in _FINDER.aliases.items() if name in old]
    for name in old:
        _FINDER.table.pop(name, None)
    for alias in aliases:
        del _FINDER.aliases[alias]
    for name in [*old, *aliases]:
        loaded = [m for m in sys.modules if m == name or m.startswith(name + ".")]
        for path in loaded:  # importlib set each on its parent package, under its old name
            parent, _, child = path.rpartition(".")
            holder = sys.modules.get(parent)
            module = vars(holder).get(child) if holder is not None else None
            if holder is not None and isinstance(module, ModuleType) and module.__name__ != f"{holder.__name__}.{child}":
                delattr(holder, child)
        for path in loaded:
            del sys.modules[path]


def current_module_path(dotted: str) -> str:
    """Where the module ``dotted`` lives now: its new path if it is an old one (:func:`moved_modules`), else
    ``dotted`` itself.

    Examples
    --------
    >>> current_module_path("irtbridge.benchmark.modes"), current_module_path("irtbridge.irt")
    ('irtbridge.decodirt.modes', 'irtbridge.irt')
    """
    home = _FINDER.home(dotted)
    return dotted if home is None else home[1]


def moved_module_table() -> dict[str, str]:
    """Every old module path the finder serves now (what :func:`moved_modules` was given)."""
    return dict(_FINDER.table)


# --- calibration/ grouped by role (issue 33 item 3): the old paths of its modules ---------------------------
MODULES.update({
    "irtbridge.calibration.bifactor": "irtbridge.calibration.fit.bifactor",
    "irtbridge.calibration.classes": "irtbridge.calibration.fit.classes",
    "irtbridge.calibration.explanatory": "irtbridge.calibration.fit.explanatory",
    "irtbridge.calibration.fitting": "irtbridge.calibration.fit.fitting",
    "irtbridge.calibration.groups": "irtbridge.calibration.fit.groups",
    "irtbridge.calibration._base": "irtbridge.calibration.results._base",
    "irtbridge.calibration._pickle": "irtbridge.calibration.results._pickle",
    "irtbridge.calibration._se": "irtbridge.calibration.results._se",
    "irtbridge.calibration._stored": "irtbridge.calibration.shared._stored",
    "irtbridge.calibration.flags": "irtbridge.calibration.results.flags",
    "irtbridge.calibration.group_result": "irtbridge.calibration.results.group_result",
    "irtbridge.calibration.result": "irtbridge.calibration.results.result",
    "irtbridge.calibration.checks": "irtbridge.calibration.inputs.checks",
    "irtbridge.calibration.itemtypes": "irtbridge.calibration.inputs.itemtypes",
    "irtbridge.calibration.keys": "irtbridge.calibration.inputs.keys",
    "irtbridge.calibration.latent": "irtbridge.calibration.inputs.latent",
    "irtbridge.calibration.options": "irtbridge.calibration.inputs.options",
    "irtbridge.calibration.priors": "irtbridge.calibration.inputs.priors",
    "irtbridge.calibration.spec": "irtbridge.calibration.inputs.spec",
    "irtbridge.calibration.diagnostics": "irtbridge.calibration.analysis.diagnostics",
    "irtbridge.calibration.fitreport": "irtbridge.calibration.analysis.fitreport",
    "irtbridge.calibration.scoring": "irtbridge.calibration.analysis.fscores",
    "irtbridge.calibration.functioning": "irtbridge.calibration.analysis.functioning",
    "irtbridge.calibration.inference": "irtbridge.calibration.results._inference",
    "irtbridge.calibration.plots": "irtbridge.calibration.analysis.plots",
    "irtbridge.calibration.simulation": "irtbridge.calibration.analysis.simulation",
})
# --- calibration/'s rooms lean one way (issue 41 item 2): the inference methods are the result's -----------
MODULES.update({
    "irtbridge.calibration.analysis.inference": "irtbridge.calibration.results._inference",
})
