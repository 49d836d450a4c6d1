"""Bad-input tests generated from the declared constraints (issue 40 item 2; irtbridge._constraints).

Every function declared with ``@constraints`` is found by importing the package, and for each declared
parameter and each value its constraint says it refuses, the function is called with that value (the other
declared parameters at their constraints' examples, the undeclared required ones at a sentinel the body would
choke on): it must raise one one-line ValidationError naming the parameter, before its body runs. A new
declaration is tested the moment it exists, as scikit-learn's ``test_public_functions.py`` tests every
``validate_params`` declaration.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import irtbridge
from irtbridge._constraints import DECLARED, Constraint, Int, constraints
from irtbridge.exceptions import ValidationError

# the functions declared when this item landed: the generated cases must at least cover them
FIRST_SET = {
    "irtbridge.hardness.curves.instance_hardness", "irtbridge.hardness.curves.class_hardness",
    "irtbridge.hardness.curves.hardness_by_model", "irtbridge.hardness.pools.default_estimators",
    "irtbridge.efficiency.indices.efficiency_indices", "irtbridge.efficiency.indices.efficiency_frame",
    "irtbridge.portfolio.analysis.bin_performance", "irtbridge.em.core.fit_em",
    "irtbridge.decodirt.modes.simulate_classifier_responses",
}


def _declared() -> dict:
    for info in pkgutil.walk_packages(irtbridge.__path__, "irtbridge."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    return dict(DECLARED)


DECLARATIONS = _declared()


class _Untouched:
    """What an undeclared required parameter gets: the body must never see it."""

    def __getattr__(self, name):
        raise AssertionError("the function's body ran before its declared parameters were checked")


def _cases() -> list[tuple[str, str, object]]:
    return [(function, name, bad) for function, (_, declared) in DECLARATIONS.items()
            for name, constraint in declared.items() for bad in constraint.invalid()]


def test_the_declarations_cover_the_first_set():
    assert FIRST_SET <= set(DECLARATIONS), sorted(FIRST_SET - set(DECLARATIONS))


@pytest.mark.parametrize("function", sorted(DECLARATIONS))
def test_defaults_and_examples_meet_their_constraints(function):
    fn, declared = DECLARATIONS[function]
    parameters = inspect.signature(fn).parameters
    for name, constraint in declared.items():
        assert isinstance(constraint, Constraint)
        constraint.check(constraint.example, name)
        default = parameters[name].default
        if default is not inspect.Parameter.empty:
            constraint.check(default, name)  # a declaration never refuses its own default
        assert constraint.invalid(), f"{function}: {name} declares no refused value"


@pytest.mark.parametrize("function, name, bad", _cases(), ids=lambda v: repr(v)[:40])
def test_a_refused_value_is_one_line_naming_the_parameter_before_any_work(function, name, bad):
    fn, declared = DECLARATIONS[function]
    arguments = {}
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in declared:
            arguments[parameter.name] = declared[parameter.name].example
        elif parameter.default is inspect.Parameter.empty:
            arguments[parameter.name] = _Untouched()
    arguments[name] = bad
    with pytest.raises(ValidationError) as info:
        fn(**arguments)
    message = str(info.value)
    assert "\n" not in message and name in message, message


def test_a_declaration_must_name_real_parameters():
    with pytest.raises(TypeError, match="no parameter"):
        @constraints(k=Int(low=1))
        def f(n):
            return n
