"""Names that moved or were renamed: still served from their old place, with a DeprecationWarning.

The one mechanism for every deprecated name of the package (a module ``__getattr__``, PEP 562): a package
keeps a table ``old name -> new home`` and hands it to :func:`moved_names`. A new home is a module path
(the name kept, ``"irtbridge.pipeline"``) or ``"module:new_name"`` (renamed too). The new home is resolved
by its dotted path only when an old name is used, so the old place never imports the new one (a lower floor
can keep a name that moved up without importing the floor above it). The warning names the new home and
:data:`REMOVAL`, the version that removes the old name; CHANGELOG.md lists every name with both
(``tests/test_changelog.py`` checks it).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Callable, Mapping

__all__ = ["FORMS", "KEYWORDS", "REMOVAL", "TABLES", "deprecated_form", "moved_keywords", "moved_names", "new_home",
           "register", "resolve", "warn_form"]

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
        The function's dotted name (``"irtbridge.benchmark.evaluate_dataset"``), as the warning and
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
