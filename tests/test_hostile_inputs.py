"""Hostile inputs (issue 34): each bad input is a one-line error before any work.

Two tables, one row per case; add a row to add a case:

* ``CLI_CASES``: argv (``{csv}`` is a small valid 0/1 response file, ``{missing}`` a path that does not
  exist) -> a fragment the single stderr line must hold. Each must exit 2 with exactly one line on stderr
  and no traceback. A case that would do work first (read data, start R, calibrate) fails: the entry
  points that do the work are patched to raise while the case runs.
* ``API_CASES``: a call -> the argument name the :class:`ValidationError` must name (one line).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError

# -- the CLI ------------------------------------------------------------------------------------------
CLI_CASES: dict[str, tuple[list[str], str]] = {
    "abilities --method nope": (["abilities", "{csv}", "--method", "nope"], "--method"),
    "abilities --method ML with ltm": (["abilities", "{csv}", "--engine", "ltm", "--method", "ML"], "--method 'ML'"),
    "abilities --method WLE with native": (["abilities", "{csv}", "--engine", "native", "--method", "wle"], "--method 'WLE'"),
    "abilities --engine nope": (["abilities", "{csv}", "--engine", "nope"], "--engine"),
    "calibrate --engine nope": (["calibrate", "{csv}", "--engine", "nope"], "--engine"),
    "calibrate --method nope": (["calibrate", "{csv}", "--method", "nope"], "--method"),
    "fit --engine ltm": (["fit", "{csv}", "--engine", "ltm"], "--engine"),
    "dif --scheme nope": (["dif", "{csv}", "--groups", "g", "--scheme", "nope"], "--scheme"),
    "dif --p-adjust nope": (["dif", "{csv}", "--groups", "g", "--p-adjust", "nope"], "--p-adjust"),
    "anchors --method nope": (["anchors", "{missing}", "--method", "nope"], "--method"),
    "ei --ci-method nope": (["ei", "--tp", "1", "--fp", "1", "--fn", "1", "--tn", "1", "--ci-method", "nope"],
                            "--ci-method"),
    "evaluate --engine nope": (["evaluate", "--engine", "nope"], "engine='nope'"),
    "benchmark --engine nope": (["benchmark", "--engine", "nope", "--out", "{missing}"], "engine='nope'"),
    "benchmark --score nope": (["benchmark", "--score", "nope", "--out", "{missing}"], "--score"),
    "benchmark --ability nope": (["benchmark", "--ability", "nope", "--out", "{missing}"], "--ability"),
    "unknown option": (["calibrate", "{csv}", "--bogus"], "--bogus"),
}


@pytest.fixture
def no_work(monkeypatch):
    """Reading responses, starting R or calibrating raises: a case that gets there did work first."""
    def refuse(*args: Any, **kwargs: Any):
        raise AssertionError("work started before the input was checked")

    import irtbridge._r.session as session
    import irtbridge.calibration as calibration
    import irtbridge.cli._common as common

    monkeypatch.setattr(session, "call", refuse)
    monkeypatch.setattr(calibration, "calibrate", refuse)
    monkeypatch.setattr(common, "read_responses", refuse)
    monkeypatch.setattr(common, "read_csv", refuse)


@pytest.mark.parametrize("name", list(CLI_CASES))
def test_cli_refuses_in_one_line_before_work(name, tmp_path, capsys, no_work):
    argv, fragment = CLI_CASES[name]
    csv = tmp_path / "responses.csv"
    pd.DataFrame(np.random.default_rng(0).integers(0, 2, (20, 4)), columns=list("abcd")).assign(g=["x", "y"] * 10) \
        .to_csv(csv, index=False)
    argv = [a.format(csv=csv, missing=tmp_path / "absent") for a in argv]
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and fragment in lines[0], err


# -- the API ------------------------------------------------------------------------------------------
def _evaluate_frame() -> None:
    from irtbridge.pipeline import evaluate

    evaluate([pd.DataFrame({"x": range(2000), "y": [0, 1] * 1000})])


def _fit():
    from irtbridge.calibration.results.result import Calibration

    items = pd.DataFrame({"a": [1.0, 1.2], "b": [0.0, 0.5], "g": 0.0, "u": 1.0}, index=["i1", "i2"])
    return Calibration(items=items, standard_errors=None, loglik=-1.0, aic=1.0, bic=1.0, n_parameters=4,
                       converged=True, iterations=1, model="2PL", engine="mirt", n_respondents=10, r_model=object())


def _item_fit(**kwargs: Any) -> Callable[[], Any]:
    return lambda: _fit().item_fit(**kwargs)


def _classes(**kwargs: Any) -> Callable[[], Any]:
    from irtbridge.calibration.fit.classes import calibrate_classes

    data = pd.DataFrame(np.random.default_rng(0).integers(0, 2, (30, 4)), columns=list("abcd"))
    return lambda: calibrate_classes(data, 2, **kwargs)


def _abilities_mins() -> None:
    from irtbridge.irt import estimate_abilities

    estimate_abilities(pd.DataFrame({"i1": [1, 0]}), _fit(), mins="yes")


API_CASES: dict[str, tuple[Callable[[], Any], str]] = {
    "evaluate: a DataFrame without a target": (_evaluate_frame, "datasets"),
    "item_fit: na_rm not a flag": (_item_fit(na_rm="yes"), "na_rm"),
    "item_fit: negative impute": (_item_fit(impute=-1), "impute"),
    "item_fit: na_rm and impute": (_item_fit(na_rm=True, impute=3), "na_rm"),
    "estimate_abilities: mins not a flag or mapping": (_abilities_mins, "mins"),
    "calibrate_classes: se not a flag": (_classes(se="yes"), "se must be"),
    "calibrate_classes: SE_type without se": (_classes(SE_type="Oakes"), "SE_type"),
}


@pytest.mark.parametrize("name", list(API_CASES))
def test_api_refuses_with_a_validation_error_naming_the_argument(name):
    call, argument = API_CASES[name]
    with pytest.raises(ValidationError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and argument in message, message
    assert len(message) < 400, message  # never a whole object pasted in
