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
import re
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


def _case_id(value: object) -> str:
    """A test id that is the same in every process (pytest-xdist's workers must collect the same ids): no
    memory address of an ``object()`` or a function."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value), flags=re.IGNORECASE)[:40]


@pytest.mark.parametrize("function, name, bad", _cases(), ids=_case_id)
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


# ---- every public function: declared, or listed here with the reason (issue 40 item 2) ----------------------------

#: the public surface: the top level's map and the subpackages it names (irtbridge._SUBMODULES), as users import them
PUBLIC_MODULES = ("irtbridge", *(f"irtbridge.{name}" for name in irtbridge._SUBMODULES))

#: public functions with no checkable scalar parameter (a seed, a whole number, a bounded number, a choice, a flag, a
#: path): tables, arrays, result objects, figures' axes, free text, or arguments forwarded to a declared function
NO_SCALAR = {
    # tables, arrays, result objects and their pieces in; tables, figures or text out
    "irtbridge.calibration.analysis.diagnostics.compare",  # *fits only
    "irtbridge.calibration.results.flags.flag_items",  # tables and a mapping of limits
    "irtbridge.cat.initializers.item_locations", "irtbridge.cat.selectors.information_matrix",
    "irtbridge.cat.estimators.step_size",  # a rule's name or a callable, checked by the estimator that takes it
    "irtbridge.decodirt.classification_data.available_datasets", "irtbridge.decodirt.classification_data.class_labels",
    "irtbridge.decodirt.classification_data.prepare_features", "irtbridge.decodirt.diagnostics.dataset_diagnostics",
    "irtbridge.decodirt.diagnostics.diagnostic_rankings", "irtbridge.decodirt.respondents.response_matrix",
    "irtbridge.decodirt.plots.plot_ratings", "irtbridge.decodirt.plots.plot_true_scores",
    "irtbridge.efficiency.indices.classify_ei", "irtbridge.hardness.curves.positive_rate",
    "irtbridge.mlc.difficulty.feature_orientation", "irtbridge.mlc.estimate.mlc_estimate",
    "irtbridge.mlc.result.mlc_decision", "irtbridge.mlc.plots.plot_cat_trajectories",
    "irtbridge.mlc.plots.plot_cdi_distributions", "irtbridge.mlc.plots.plot_difficulty_kde",
    "irtbridge.mlc.plots.plot_mlc_plane",
    "irtbridge.pipeline.across.benchmark_subsets", "irtbridge.pipeline.across.hard_instances",
    "irtbridge.pipeline.across.pooled_efficiency", "irtbridge.pipeline.across.ranked_dataset_diagnostics",
    "irtbridge.pipeline.evaluation.assemble", "irtbridge.pipeline.stages.binary_extras",
    "irtbridge.portfolio.crm.crm_abilities", "irtbridge.portfolio.crm.crm_density", "irtbridge.portfolio.crm.crm_z",
    "irtbridge.portfolio.latent.algorithm_characteristics",
    "irtbridge.report.context.page_context", "irtbridge.report.leaderboard.render_leaderboard_html",
    "irtbridge.report.plots.figures", "irtbridge.report.plots.plot_dataset_map", "irtbridge.report.plots.plot_ei",
    "irtbridge.report.plots.plot_instances", "irtbridge.report.plots.plot_mlc", "irtbridge.report.plots.plot_ranking",
    "irtbridge.report.plots.plot_true_score_shares", "irtbridge.report.render_html",
    "irtbridge.report.summary_dict",  # out is only written into the summary, never opened
    "irtbridge.batch.run.is_complete", "irtbridge.batch.run.is_transient", "irtbridge.batch.run.run_unit",
    # free text (names, labels, column names) and references of many kinds, each read by its own reader
    "irtbridge.decodirt.classification_data.dataset_info", "irtbridge.decodirt.classification_data.load_benchmark_dataset",
    "irtbridge.decodirt.respondents.classifier_pool",  # a pool's name or a collection of members
    "irtbridge.decodirt.per_dataset.evaluate_dataset",  # a dataset and a Settings (checked in Settings.__post_init__)
    "irtbridge.pipeline.stages.run_mlc",  # a dataset reference and a Settings
    "irtbridge.example_data.r_dataset",  # an R package and data set, looked up in R
    "irtbridge.leaderboard.long.responses_to_long",  # column names
    "irtbridge.leaderboard.readers.pyirt.read_pyirt", "irtbridge.leaderboard.readers.lm_eval.lm_eval_metrics",
    "irtbridge.exceptions.find_stack_level", "irtbridge.exceptions.one_line", "irtbridge.exceptions.r_context",
    # a registry key or a name of the mapping given in the same call (no fixed set to declare): the lookup itself
    # refuses any other in one line naming the caller's parameter; display_name returns anything else as given
    "irtbridge.classifiers.classifier_spec", "irtbridge.classifiers.display_name",
    # **kwargs forwarded whole to a declared function (efficiency_indices)
    "irtbridge.efficiency.indices.efficiency_indices_from_predictions",
}

#: public functions that do take checkable scalars and are not declared yet: this list may only shrink (declare one,
#: and the test below says to take it off)
NOT_YET: set[str] = set()


def _public_functions() -> dict[str, object]:
    found = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if inspect.isfunction(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_public_function_is_declared_or_listed():
    public = _public_functions()
    declared = set(public) & set(DECLARATIONS)
    unlisted = sorted(set(public) - declared - NO_SCALAR - NOT_YET)
    assert not unlisted, f"declare their constraints (@constraints) or list them with the reason: {unlisted}"
    assert not (NO_SCALAR | NOT_YET) & declared, sorted((NO_SCALAR | NOT_YET) & declared)  # declared: take it off
    assert not (NO_SCALAR | NOT_YET) - set(public), sorted((NO_SCALAR | NOT_YET) - set(public))  # gone or renamed
    assert not NO_SCALAR & NOT_YET


@pytest.mark.parametrize("name", ["calibrate", "calibrate_groups", "dif", "estimate_abilities", "estimate_performance",
                                  "evaluate", "glicko2", "responses_from_long", "simulate_cat", "true_score",
                                  "parameter_table", "write_report"])
def test_the_top_level_functions_are_declared(name):
    fn = getattr(irtbridge, name)
    assert getattr(fn, "__constraints__", None), name


def test_random_state_kinds_are_what_the_function_hands_them_to():
    import numpy as np

    from irtbridge._constraints import RandomState

    numpy_kind, sklearn_kind = RandomState(), RandomState(allow="sklearn")
    for good in (None, 0, np.int64(7), 2**32 - 1, np.random.default_rng(0), np.random.SeedSequence(1)):
        numpy_kind.check(good, "random_state")
    for good in (None, 0, np.int64(7), 2**32 - 1, np.random.RandomState(0)):  # scikit-learn's check_random_state
        sklearn_kind.check(good, "random_state")
    with pytest.raises(ValidationError, match=r"^random_state must be None, an integer from 0 to 4294967295 or a numpy "
                                              r"RandomState \(scikit-learn's random_state\), got "):
        sklearn_kind.check(np.random.default_rng(0), "random_state")  # scikit-learn refuses it when fitting
    with pytest.raises(ValueError, match="allow"):
        RandomState(allow="torch")


def test_a_generator_still_seeds_the_mlc_classifier_and_a_random_state_the_pool():
    import numpy as np

    from irtbridge.classifiers import build_classifier
    from irtbridge.mlc.prepare import make_classifier

    assert make_classifier("tree", random_state=np.random.default_rng(3)).steps[-1][1].random_state is not None
    assert build_classifier("DecisionTree", random_state=np.random.RandomState(0)).random_state is not None


def test_evaluate_mlc_shares_the_declarations_of_the_functions_its_parameters_reach():
    from irtbridge.mlc.difficulty import binned_split, case_difficulty, difficulty_bins
    from irtbridge.mlc.estimate import running_mlc, running_standard_error
    from irtbridge.mlc.prepare import encode_features
    from irtbridge.mlc.procedure import evaluate_mlc

    declared = evaluate_mlc.__constraints__
    assert declared["features"] == encode_features.__constraints__["features"]
    assert declared["cdi_method"] == case_difficulty.__constraints__["method"]
    assert declared["test_size"] == binned_split.__constraints__["test_size"]
    assert declared["bin_width"] == difficulty_bins.__constraints__["width"]
    assert running_mlc.__constraints__["se_rule"] == running_standard_error.__constraints__["rule"]
    with pytest.raises(ValidationError, match=r"^se_rule='sd' is not supported"):
        running_mlc([0.0], [1], se_rule="sd")  # named as the caller spelt it, even before any estimate exists
