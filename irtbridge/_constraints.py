"""Parameter constraints declared once per public function, checked at its entry by one mechanism.

A public function states what each checked parameter may be, next to its signature::

    @constraints(method=Choice(METHODS), threshold=Number(low=0.0, high=1.0), random_state=Seed(allow_none=True))
    def instance_hardness(y, scores, method="rd", threshold=0.5, random_state=None): ...

and every call is checked before the body runs: the first parameter outside its constraint is one
:class:`~irtbridge.exceptions.ValidationError` naming it (the words of :mod:`irtbridge._validation`, so a
declared check and a hand-written one read alike). The option domains of the model catalogue join in as
:class:`InDomain` (``quadpts=InDomain(FSCORES_DOMAINS["quadpts"], ...)``): R's options and Python's
arguments are refused by the same road.

Every constraint can also say what breaks it (:meth:`Constraint.invalid`) and give a value it takes
(:attr:`Constraint.example`): ``tests/test_constraints.py`` generates the bad-input cases of every declared
function from the declarations (:data:`DECLARED`), as scikit-learn's ``test_public_functions.py`` does from
its ``_param_validation``; a new declaration is tested the moment it exists.

The idea is scikit-learn's (``sklearn.utils._param_validation``); the code is written here.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import math
import numbers
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from irtbridge._catalogue import Domain
from irtbridge._validation import (SEED_MAX, check_choice, check_int, check_number, check_random_state, check_seed,
                                   show_value)
from irtbridge.exceptions import ValidationError

__all__ = ["Constraint", "Seed", "RandomState", "Int", "Number", "Choice", "Flag", "InDomain", "Pair", "FsPath", "Having",
           "constraints", "DECLARED"]

F = TypeVar("F", bound=Callable[..., Any])

#: every declared function by its dotted name (``module.qualname``) -> (function, its constraints)
DECLARED: dict[str, tuple[Callable[..., Any], dict[str, "Constraint"]]] = {}


class Constraint:
    """What one parameter may be: :meth:`check` refuses anything else (one line naming the parameter)."""

    #: a value the constraint takes (the generated tests fill the other parameters with it)
    example: Any = None

    def check(self, value: Any, name: str) -> Any:
        """Raise :class:`ValidationError` naming ``name`` unless ``value`` meets the constraint.

        Parameters
        ----------
        value : Any
            The argument.
        name : str
            The parameter's name, for the message.

        Returns
        -------
        Any
            The value as the check reads it (an int for ``7.0`` under :class:`Int`, a choice's own spelling).
        """
        raise NotImplementedError

    def from_text(self, text: str) -> Any:
        """What a command-line flag's text is read as before :meth:`check` (a number where it reads as one).

        Parameters
        ----------
        text : str
            The flag's text.

        Returns
        -------
        Any
            The first of int, float that reads ``text``; else ``text`` itself.
        """
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                continue
        return text

    def invalid_texts(self) -> list[str]:
        """Flag texts the constraint refuses (for the generated command-line tests): the refused numbers of
        :meth:`invalid` as text, and a word that is no number.

        Returns
        -------
        list of str
            At least one text :meth:`as_argparse_type` refuses.
        """
        numbers = [v for v in self.invalid() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return [repr(v) if isinstance(v, float) and not math.isnan(v) else str(v) for v in numbers] + ["many"]

    def as_argparse_type(self, flag: str) -> Callable[[str], Any]:
        """An argparse ``type`` for ``flag``: its text read (:meth:`from_text`) and checked by :meth:`check`,
        whose one-line error becomes argparse's (which names the flag), so a flag and the parameter it feeds
        refuse the same values in the same words.

        Parameters
        ----------
        flag : str
            The flag, e.g. ``"--k"``, for the message.

        Returns
        -------
        callable
            ``text -> value``; raises :class:`argparse.ArgumentTypeError` for a refused value.

        Examples
        --------
        >>> to_k = Int(low=3).as_argparse_type("--k")
        >>> to_k("5")
        5
        >>> to_k("2")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be >= 3, got 2
        """
        def convert(text: str) -> Any:
            try:
                return self.check(self.from_text(text), flag)
            except ValidationError as exc:
                # argparse says "argument --k: " first: the flag once ("--out='x' is a file" -> "'x' is a file")
                raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{flag} ").removeprefix(f"{flag}=")) from None

        convert.__name__ = type(self).__name__.lower()
        return convert

    def invalid(self) -> list[Any]:
        """Values the constraint refuses (for the generated bad-input tests).

        Returns
        -------
        list
            At least one value :meth:`check` refuses.
        """
        raise NotImplementedError


@dataclass(frozen=True)
class Seed(Constraint):
    """A seed (:func:`irtbridge._validation.check_seed`): a whole number from 0 to ``high``; None too when
    ``allow_none``."""

    allow_none: bool = False
    high: int = SEED_MAX
    example: Any = 0
    #: False: None is taken (the default: no seed) but the message asks for a whole number only
    say_none: bool = True

    def check(self, value: Any, name: str) -> Any:  # noqa: D102 (Constraint.check)
        if value is None and self.allow_none:
            return None
        return check_seed(value, name, allow_none=self.allow_none and self.say_none, high=self.high)

    def invalid(self) -> list[Any]:  # noqa: D102
        return [-1, 1.5, True, "3", self.high + 1] + ([] if self.allow_none else [None])


@dataclass(frozen=True)
class RandomState(Constraint):
    """A random state of one of two kinds, as the function hands it on.

    ``allow="numpy"`` (the default): None, a seed from 0 to 2**32 - 1, a SeedSequence or a numpy Generator
    (:func:`irtbridge._validation.check_random_state`, which turns it into a Generator).
    ``allow="sklearn"``: exactly what scikit-learn's ``check_random_state`` takes, for a value passed on to an
    estimator's ``random_state``: None, an integer from 0 to 2**32 - 1 or a legacy ``numpy.random.RandomState``
    (scikit-learn refuses a Generator and a float when the estimator is fitted; here they are refused at once).
    """

    allow: str = "numpy"
    example: Any = 0

    def __post_init__(self) -> None:
        if self.allow not in ("numpy", "sklearn"):
            raise ValueError(f"RandomState(allow={self.allow!r}): use 'numpy' or 'sklearn'")

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if self.allow == "numpy":
            check_random_state(value, name)
            return value
        if value is None or isinstance(value, np.random.RandomState):
            return value
        if (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                and 0 <= int(value) <= SEED_MAX):
            return value
        raise ValidationError(f"{name} must be None, an integer from 0 to {SEED_MAX} or a numpy RandomState "
                              f"(scikit-learn's random_state), got {show_value(value)}")

    def invalid(self) -> list[Any]:  # noqa: D102
        other = np.random.default_rng(0) if self.allow == "sklearn" else np.random.RandomState(0)
        return [-1, 1.5, True, "3", SEED_MAX + 1, other] + ([7.0] if self.allow == "sklearn" else [])


@dataclass(frozen=True)
class Int(Constraint):
    """A whole number inside ``[low, high]`` (:func:`irtbridge._validation.check_int`; a bool is not one)."""

    low: int | None = None
    high: int | None = None
    allow_none: bool = False
    #: the words of every refusal instead of check_int's, e.g. ``"a positive integer"``
    phrase: str | None = None

    @property
    def example(self) -> int:
        return self.low if self.low is not None else 0 if self.high is None or self.high >= 0 else self.high

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if value is None and self.allow_none:
            return None
        try:
            return check_int(value, name, low=self.low, high=self.high)
        except ValidationError:
            if self.phrase is None:
                raise
            raise ValidationError(f"{name} must be {self.phrase}, got {show_value(value)}") from None

    def invalid(self) -> list[Any]:  # noqa: D102
        out: list[Any] = [self.example + 0.5, True, "3"] + ([] if self.allow_none else [None])
        out += [self.low - 1] if self.low is not None else []
        return out + ([self.high + 1] if self.high is not None else [])


@dataclass(frozen=True)
class Number(Constraint):
    """A real number inside the bounds (:func:`irtbridge._validation.check_number`); never NaN."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    allow_none: bool = False

    @property
    def example(self) -> float:
        lo = -math.inf if self.low is None else self.low
        hi = math.inf if self.high is None else self.high
        if math.isfinite(lo) and math.isfinite(hi):
            return (lo + hi) / 2
        return lo + 1.0 if math.isfinite(lo) else hi - 1.0 if math.isfinite(hi) else 0.0

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if value is None and self.allow_none:
            return None
        return check_number(value, name, low=self.low, high=self.high, low_open=self.low_open,
                            high_open=self.high_open)

    def from_text(self, text: str) -> Any:  # noqa: D102
        try:
            return float(text)
        except ValueError:
            return text

    def invalid(self) -> list[Any]:  # noqa: D102
        out: list[Any] = [float("nan"), "0.5", True] + ([] if self.allow_none else [None])
        out += [self.low] if self.low is not None and self.low_open else []
        out += [self.low - 1.0] if self.low is not None else []
        out += [self.high] if self.high is not None and self.high_open else []
        return out + ([self.high + 1.0] if self.high is not None else [])


@dataclass(frozen=True)
class Choice(Constraint):
    """One of ``choices`` (:func:`irtbridge._validation.check_choice`; in any case when ``ignore_case``)."""

    choices: Sequence[str] = ()
    ignore_case: bool = False
    allow_none: bool = False

    @property
    def example(self) -> str:
        return str(next(iter(self.choices)))

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if value is None and self.allow_none:
            return None
        return check_choice(value, name, self.choices, ignore_case=self.ignore_case)

    def from_text(self, text: str) -> Any:  # noqa: D102
        return text

    def invalid(self) -> list[Any]:  # noqa: D102
        return ["__none_of_these__", 3, list(self.choices)[:1]] + ([] if self.allow_none else [None])

    def invalid_texts(self) -> list[str]:  # noqa: D102
        return ["__none_of_these__"]


@dataclass(frozen=True)
class Flag(Constraint):
    """True or False (a numpy bool too); never a string such as ``"false"``."""

    example: Any = False
    #: None is a value too (e.g. calibrate's ``se=None``: on first access)
    allow_none: bool = False
    #: what None means, for the message (``"None (on first access)"``)
    none_means: str = "None"

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if value is None and self.allow_none:
            return None
        if not isinstance(value, (bool, np.bool_)):
            none = f"{self.none_means}, " if self.allow_none else ""
            raise ValidationError(f"{name} must be {none}True or False, got {show_value(value)}")
        return bool(value)

    def invalid(self) -> list[Any]:  # noqa: D102
        return ["false", 1] + ([] if self.allow_none else [None])


@dataclass(frozen=True)
class InDomain(Constraint):
    """A value of a catalogue :class:`~irtbridge._catalogue.Domain` (the R options' domains), with a value
    it takes and values it refuses stated by the declaration (a domain alone does not know them)."""

    domain: Domain = Domain("any value")
    example: Any = None
    refused: tuple[Any, ...] = ()
    allow_none: bool = True

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if (value is None and self.allow_none) or (value is not None and self.domain.accepts(value)):
            return value
        raise ValidationError(f"{name}={show_value(value)} is outside its domain: {self.domain.text}")

    def invalid(self) -> list[Any]:  # noqa: D102
        return list(self.refused)


@dataclass(frozen=True)
class Pair(Constraint):
    """Two numbers (a tuple, list or array of length 2), each under its own :class:`Number`, the first below
    the second when ``increasing``: e.g. ``bounds=(-6, 6)``, ``prior=(mean, sd)``."""

    first: Number = Number()
    second: Number = Number()
    increasing: bool = False
    #: what each number is, for the messages (``("prior mean", "prior standard deviation")``)
    labels: tuple[str, str] = ("", "")

    @property
    def example(self) -> tuple[float, float]:
        low, high = self.first.example, self.second.example
        return (low, high) if not self.increasing or low < high else (low, low + 1.0)

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
            raise ValidationError(f"{name} must be a pair of numbers, got {show_value(value)}")
        (first, second), (low, high) = self.labels, (f"{name}[0]", f"{name}[1]")
        low = self.first.check(value[0], f"{low} (the {first})" if first else low)
        high = self.second.check(value[1], f"{high} (the {second})" if second else high)
        if self.increasing and not low < high:
            raise ValidationError(f"{name} must be (lower, upper) with lower < upper, got {show_value(value)}")
        return low, high

    def invalid(self) -> list[Any]:  # noqa: D102
        low, high = self.example
        out: list[Any] = ["ab", 3, (low,), (low, high, high), (float("nan"), high), (low, float("nan"))]
        out += [(high, low)] if self.increasing else []
        out += [(bad, high) for bad in self.first.invalid() if isinstance(bad, float) and not math.isnan(bad)]
        return out + [(low, bad) for bad in self.second.invalid() if isinstance(bad, float) and not math.isnan(bad)]

    def invalid_texts(self) -> list[str]:  # noqa: D102
        return []  # no flag takes a pair


@dataclass(frozen=True)
class Having(Constraint):
    """An object with the methods ``methods`` (duck-typed: e.g. ``validation`` must be an AnchorValidation,
    whatever module made it); ``what`` names it in the message."""

    methods: tuple[str, ...] = ()
    what: str = "an object"
    allow_none: bool = True

    @property
    def example(self) -> Any:
        return None if self.allow_none else type("Example", (), {m: lambda *a, **k: None for m in self.methods})()

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if (value is None and self.allow_none) or all(callable(getattr(value, m, None)) for m in self.methods):
            return value
        raise ValidationError(f"{name} must be {self.what}, got {show_value(value)}")

    def invalid(self) -> list[Any]:  # noqa: D102
        return ["x", 3, object()] + ([] if self.allow_none else [None])

    def invalid_texts(self) -> list[str]:  # noqa: D102
        return []  # no flag takes an object


#: a file that exists wherever irtbridge is installed (this module), for the generated path cases
_A_FILE = os.path.abspath(__file__)


@dataclass(frozen=True)
class FsPath(Constraint):
    """A path (``str`` or ``os.PathLike``, not empty): one that exists when ``must_exist``; of ``kind``
    ``"file"`` or ``"dir"`` when it exists (an output folder may not be a file, an input file not a folder).
    ``what`` says what it must lead to, for the messages (``"a bank file"``: ``path must be a path to a bank
    file (text or os.PathLike), got None``, ``path='x.json' does not exist (give a bank file)``)."""

    must_exist: bool = False
    kind: str = "any"
    allow_none: bool = False
    what: str = ""

    @property
    def example(self) -> str:
        if self.must_exist:
            return os.path.dirname(_A_FILE) if self.kind == "dir" else _A_FILE
        return os.path.join(tempfile.gettempdir(), "irtbridge-constraint-example-never-made")

    def check(self, value: Any, name: str) -> Any:  # noqa: D102
        if value is None and self.allow_none:
            return None
        if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes) or not os.fspath(value):
            to = f" to {self.what}" if self.what else ""
            raise ValidationError(f"{name} must be a path{to} (text or os.PathLike), got {show_value(value)}")
        text = os.fspath(value)
        if self.must_exist and not os.path.exists(text):
            raise ValidationError(f"{name}={str(text)!r} does not exist" + (f" (give {self.what})" if self.what else ""))
        if self.kind == "dir" and os.path.exists(text) and not os.path.isdir(text):
            raise ValidationError(f"{name}={str(text)!r} is a file; give {self.what or 'a folder'}")
        if self.kind == "file" and os.path.isdir(text):
            raise ValidationError(f"{name}={str(text)!r} is a folder; give {self.what or 'a file'}")
        return value

    def from_text(self, text: str) -> Any:  # noqa: D102
        return text

    def invalid(self) -> list[Any]:  # noqa: D102
        out: list[Any] = [3, ""] + ([] if self.allow_none else [None])
        out += [os.path.join(os.path.dirname(_A_FILE), "__irtbridge_missing__")] if self.must_exist else []
        out += [_A_FILE] if self.kind == "dir" else [os.path.dirname(_A_FILE)] if self.kind == "file" else []
        return out

    def invalid_texts(self) -> list[str]:  # noqa: D102
        return [v for v in self.invalid() if isinstance(v, str) and v]


def constraints(**declared: Constraint) -> Callable[[F], F]:
    """Declare the constraints of a function's parameters; every call is checked before the body runs.

    Parameters
    ----------
    **declared : Constraint
        Parameter name -> its constraint. A name the function does not have is a ``TypeError`` when the
        module is imported (a declaration cannot drift from its signature).

    Returns
    -------
    callable
        The decorator; the decorated function is registered in :data:`DECLARED`.

    Examples
    --------
    >>> @constraints(k=Int(low=3), method=Choice(("EAP", "MAP")))
    ... def f(k, method="EAP"):
    ...     return k
    >>> f(5)
    5
    >>> f(2)
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: k must be >= 3, got 2
    >>> f(5, method="eap")
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: method='eap' is not supported; use one of 'EAP', 'MAP'
    """
    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        unknown = sorted(set(declared) - set(signature.parameters))
        if unknown:
            raise TypeError(f"constraints for {function.__qualname__}: no parameter(s) {', '.join(unknown)}")

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:  # a wrong call is Python's to say, in its own words
                return function(*args, **kwargs)
            for name, constraint in declared.items():
                if name in bound.arguments:
                    constraint.check(bound.arguments[name], name)
            return function(*args, **kwargs)

        checked.__constraints__ = dict(declared)  # type: ignore[attr-defined]
        DECLARED[f"{function.__module__}.{function.__qualname__}"] = (checked, dict(declared))
        return checked  # type: ignore[return-value]
    return decorate
