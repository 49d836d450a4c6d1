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

import functools
import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from irtbridge._catalogue import Domain
from irtbridge._validation import (SEED_MAX, check_choice, check_int, check_number, check_random_state, check_seed,
                                   show_value)
from irtbridge.exceptions import ValidationError

__all__ = ["Constraint", "Seed", "RandomState", "Int", "Number", "Choice", "Flag", "InDomain", "constraints", "DECLARED"]

F = TypeVar("F", bound=Callable[..., Any])

#: every declared function by its dotted name (``module.qualname``) -> (function, its constraints)
DECLARED: dict[str, tuple[Callable[..., Any], dict[str, "Constraint"]]] = {}


class Constraint:
    """What one parameter may be: :meth:`check` refuses anything else (one line naming the parameter)."""

    #: a value the constraint takes (the generated tests fill the other parameters with it)
    example: Any = None

    def check(self, value: Any, name: str) -> None:
        """Raise :class:`ValidationError` naming ``name`` unless ``value`` meets the constraint.

        Parameters
        ----------
        value : Any
            The argument.
        name : str
            The parameter's name, for the message.
        """
        raise NotImplementedError

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

    def check(self, value: Any, name: str) -> None:  # noqa: D102 (Constraint.check)
        check_seed(value, name, allow_none=self.allow_none, high=self.high)

    def invalid(self) -> list[Any]:  # noqa: D102
        return [-1, 1.5, True, "3", self.high + 1] + ([] if self.allow_none else [None])


@dataclass(frozen=True)
class RandomState(Constraint):
    """None, a seed from 0 to 2**32 - 1, or a numpy Generator (:func:`irtbridge._validation.check_random_state`)."""

    example: Any = 0

    def check(self, value: Any, name: str) -> None:  # noqa: D102
        check_random_state(value, name)

    def invalid(self) -> list[Any]:  # noqa: D102
        return [-1, 1.5, True, "3", SEED_MAX + 1]


@dataclass(frozen=True)
class Int(Constraint):
    """A whole number inside ``[low, high]`` (:func:`irtbridge._validation.check_int`; a bool is not one)."""

    low: int | None = None
    high: int | None = None

    @property
    def example(self) -> int:
        return self.low if self.low is not None else 0 if self.high is None or self.high >= 0 else self.high

    def check(self, value: Any, name: str) -> None:  # noqa: D102
        check_int(value, name, low=self.low, high=self.high)

    def invalid(self) -> list[Any]:  # noqa: D102
        out: list[Any] = [self.example + 0.5, True, "3", None]
        out += [self.low - 1] if self.low is not None else []
        return out + ([self.high + 1] if self.high is not None else [])


@dataclass(frozen=True)
class Number(Constraint):
    """A real number inside the bounds (:func:`irtbridge._validation.check_number`); never NaN."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    @property
    def example(self) -> float:
        lo = -math.inf if self.low is None else self.low
        hi = math.inf if self.high is None else self.high
        if math.isfinite(lo) and math.isfinite(hi):
            return (lo + hi) / 2
        return lo + 1.0 if math.isfinite(lo) else hi - 1.0 if math.isfinite(hi) else 0.0

    def check(self, value: Any, name: str) -> None:  # noqa: D102
        check_number(value, name, low=self.low, high=self.high, low_open=self.low_open, high_open=self.high_open)

    def invalid(self) -> list[Any]:  # noqa: D102
        out: list[Any] = [float("nan"), "0.5", True, None]
        out += [self.low] if self.low is not None and self.low_open else []
        out += [self.low - 1.0] if self.low is not None else []
        out += [self.high] if self.high is not None and self.high_open else []
        return out + ([self.high + 1.0] if self.high is not None else [])


@dataclass(frozen=True)
class Choice(Constraint):
    """One of ``choices`` (:func:`irtbridge._validation.check_choice`; in any case when ``ignore_case``)."""

    choices: Sequence[str] = ()
    ignore_case: bool = False

    @property
    def example(self) -> str:
        return str(self.choices[0])

    def check(self, value: Any, name: str) -> None:  # noqa: D102
        check_choice(value, name, self.choices, ignore_case=self.ignore_case)

    def invalid(self) -> list[Any]:  # noqa: D102
        return ["__none_of_these__", 3, None, list(self.choices[:1])]


@dataclass(frozen=True)
class Flag(Constraint):
    """True or False (a numpy bool too); never a string such as ``"false"``."""

    example: Any = False

    def check(self, value: Any, name: str) -> None:  # noqa: D102
        if not isinstance(value, (bool, np.bool_)):
            raise ValidationError(f"{name} must be True or False, got {show_value(value)}")

    def invalid(self) -> list[Any]:  # noqa: D102
        return ["false", 1, None]


@dataclass(frozen=True)
class InDomain(Constraint):
    """A value of a catalogue :class:`~irtbridge._catalogue.Domain` (the R options' domains), with a value
    it takes and values it refuses stated by the declaration (a domain alone does not know them)."""

    domain: Domain = Domain("any value")
    example: Any = None
    refused: tuple[Any, ...] = ()
    allow_none: bool = True

    def check(self, value: Any, name: str) -> None:  # noqa: D102
        if (value is None and self.allow_none) or (value is not None and self.domain.accepts(value)):
            return
        raise ValidationError(f"{name}={show_value(value)} is outside its domain: {self.domain.text}")

    def invalid(self) -> list[Any]:  # noqa: D102
        return list(self.refused)


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
