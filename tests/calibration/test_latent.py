"""The latent distribution of a mirt fit (issue 26, item 3): ``dentype`` (empirical histogram, Woods,
Davidian) on SAT12 and a latent regression (``covariates=``, ``formula=``) against the same ``mirt`` calls
in tests/r/reference_latent.R.

Tolerances: 1e-8 for items, log-likelihood, regression coefficients and their SEs (the same deterministic
EM in both processes; measured differences are below 1e-11).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge import calibrate
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8
WEIRD = "w`; system('touch PWNED') #"
FORMULA = "~ x1 + grp + `w\\`; system('touch PWNED') #`"


def _reference(tmp_path_factory, part: str) -> tuple[dict, Path]:
    tmp = tmp_path_factory.mktemp(part)
    extra = [tmp / "responses.csv", tmp / "covariates.csv"] if part == "regression" else []
    run_r(["Rscript", str(HERE / "r" / "reference_latent.R"), part, str(tmp / "ref.json"), *map(str, extra)],
                   check=True, cwd=tmp)
    return json.loads((tmp / "ref.json").read_text()), tmp


def _close_items(fit, expected: dict) -> None:
    for col in ("a", "b"):
        np.testing.assert_allclose(fit.items[col].to_numpy(), expected["items"][col], rtol=0, atol=TOL)
    assert fit.loglik == pytest.approx(expected["loglik"], abs=TOL)


@pytest.fixture(scope="module")
def regression(tmp_path_factory):
    ref, tmp = _reference(tmp_path_factory, "regression")
    covariates = pd.read_csv(tmp / "covariates.csv")
    assert list(covariates.columns) == ["x1", "grp", WEIRD]
    return ref, pd.read_csv(tmp / "responses.csv"), covariates, tmp


@pytest.fixture(scope="module")
def densities(tmp_path_factory):
    return _reference(tmp_path_factory, "dentype")[0]


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("dentype", ["EH", "EHW", "Davidian-4"])
def test_dentype_equals_mirt(densities, dentype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mirt's "log-likelihood may still be increasing" for EHW
        fit = calibrate(response_dataset("SAT12"), "2PL", se=False, dentype=dentype.lower())
    _close_items(fit, densities[dentype])
    assert fit.options["dentype"] == dentype and fit.latent_regression is None


@pytest.mark.r
@pytest.mark.parametrize("se", [False, True])
def test_latent_regression_equals_mirt(regression, se):
    ref, responses, covariates, tmp = regression
    expected = ref["lr_se" if se else "lr"]
    fit = calibrate(responses, "2PL", se=se, covariates=covariates, formula=FORMULA)
    _close_items(fit, expected)
    lr = fit.latent_regression
    assert list(lr.index) == expected["terms"] and list(lr.columns) == ["beta", "se"]
    np.testing.assert_allclose(lr["beta"].to_numpy(), expected["beta"], rtol=0, atol=TOL)
    if se:
        want = np.array([np.nan if v is None else v for v in expected["se"]])
        np.testing.assert_allclose(lr["se"].to_numpy(), want, rtol=0, atol=TOL)
    else:
        assert lr["se"].isna().all()
    assert fit.options["formula"] == FORMULA and fit.options["covariates"] == ["x1", "grp", WEIRD]
    assert "covdata" not in fit.options
    back = type(fit).from_json(fit.to_json())
    pd.testing.assert_frame_equal(back.latent_regression, lr)
    assert not (tmp / "PWNED").exists() and not Path("PWNED").exists()


@pytest.mark.r
@pytest.mark.parametrize("formula, match", [
    ("~ x1 + system('touch PWNED')", "formula: 'system' is not allowed"),
    ("~ (function() 1)()", "is not allowed"),
    ("~ x1 + nope", "formula: 'nope' is not a covariate"),
    ("~ x1 + 'text'", "only covariates, numbers and model-formula operators"),
    ("~ x1 +", "formula: cannot read"),
    ("~ x1; system('touch PWNED')", "formula: cannot read"),
    ("x1 ~ grp", "one-sided formula"),
    ("x1", "formula must be one-sided formula text"),
])
def test_bad_formulas_are_one_line_errors_and_run_nothing(regression, formula, match):
    _, responses, covariates, tmp = regression
    with pytest.raises(ValidationError, match=match) as info:
        calibrate(responses, "2PL", covariates=covariates, formula=formula)
    assert "\n" not in str(info.value)
    assert not Path("PWNED").exists()


def test_bad_latent_arguments_are_one_line_errors():
    responses = pd.DataFrame({"i1": [0, 1, 1, 0], "i2": [1, 1, 0, 0]})
    covariates = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4]})
    cases = [
        (dict(engine="native", dentype="EH"), "dentype: engine='native' fits a normal latent distribution"),
        (dict(engine="ltm", covariates=covariates, formula="~ x"), "covariates: engine='ltm'"),
        (dict(dentype="EH", dims=2), "one factor only, not dims=2"),
        (dict(dentype="Davidian-1"), "at least 2 parameters"),
        (dict(dentype="mixture-2"), "dentype='mixture-2' is not supported"),
        (dict(dentype=3), "dentype must be a string"),
        (dict(covariates=covariates), "formula: give the latent regression"),
        (dict(formula="~ x"), "covariates and formula go together"),
        (dict(covariates=covariates.iloc[:3], formula="~ x"), "covariates: 3 rows for 4 respondents"),
        (dict(covariates=covariates.set_axis([5, 6, 7, 8]), formula="~ x"), "index differs"),
        (dict(covariates=covariates.assign(x=[0.1, None, 0.3, 0.4]), formula="~ x"), "column 'x' has 1 missing"),
        (dict(covariates=[1, 2, 3, 4], formula="~ x"), "covariates must be a DataFrame"),
    ]
    for kwargs, match in cases:
        with pytest.raises(ValidationError, match=match) as info:
            calibrate(responses, **kwargs)
        assert "\n" not in str(info.value)


def test_a_latent_argument_given_twice_is_an_error():
    responses = pd.DataFrame({"i1": [0, 1, 1, 0], "i2": [1, 1, 0, 0]})
    with pytest.raises(ValidationError, match="covdata: pass it once"):
        calibrate(responses, dentype="EH", covdata={"x": [1, 2, 3, 4]})
