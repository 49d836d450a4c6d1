"""Standard errors never cost the estimates (issue: the SE rule).

On a classifier-shaped matrix (60 respondents x 60 mostly easy items, tests/_shapes.py; as singular as at
132 x 150, in a quarter of the time to fit) the 3PL's information matrix is singular: ltm's Hessian cannot
be inverted and mirt cannot invert its information matrix. ``calibrate`` must return the same estimates as
plain ltm/mirt fitted without SEs (computed by tests/r/reference_se_rule.R, 1e-8), NaN standard errors, and
exactly one RWarning saying why.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests._shapes import classifier_responses
from irtbridge import calibrate
from irtbridge.cli import main
from irtbridge.exceptions import RWarning
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/


@pytest.fixture(scope="module")
def shaped(tmp_path_factory):
    responses, _, _ = classifier_responses(60, 60, seed=0)
    tmp = tmp_path_factory.mktemp("se")
    csv = tmp / "responses.csv"
    responses.to_csv(csv, index=False)
    out = tmp / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_se_rule.R"), str(out), str(csv)], check=True)
    return responses, csv, json.loads(out.read_text())


def _unavailable(caught) -> list[str]:
    return [str(w.message) for w in caught
            if issubclass(w.category, RWarning) and "standard errors unavailable" in str(w.message)]


@pytest.mark.parametrize("se", [True, None], ids=["eager", "on-access"])
@pytest.mark.parametrize("engine", ["ltm", "mirt"])
def test_singular_information_keeps_the_estimates(shaped, engine, se):
    responses, _, ref = shaped
    if engine == "ltm":
        assert "singular" in ref["ltm_se_error"]  # the failure this rule exists for, seen in R itself
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = calibrate(responses, model="3PL", engine=engine, se=se)
    at_fit = _unavailable(caught)
    expected = ref[engine]
    for col in ("a", "b", "g"):
        np.testing.assert_allclose(fit.items[col].to_numpy(), np.asarray(expected[col]), rtol=0, atol=1e-8)
    assert fit.loglik == pytest.approx(ref[f"{engine}_loglik"], abs=1e-8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = fit.standard_errors
        again = fit.standard_errors  # kept: no second computation, no second warning
    reasons = at_fit + _unavailable(caught)
    assert table.isna().all().all() and again is table
    assert len(reasons) == 1 and engine in reasons[0]
    assert len(at_fit) == (1 if se else 0)  # eager: at the fit; on demand: at the first access
    assert reasons[0] in fit.warnings
    assert "se_unavailable" in fit.options and fit.options["se"] is se


def test_no_warning_when_the_information_is_fine():
    from irtbridge.example_data import response_dataset

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = calibrate(response_dataset("LSAT7"), model="2PL")
    assert not _unavailable(caught)
    assert np.isfinite(fit.standard_errors[["a", "b"]].to_numpy()).all()


def test_cli_keeps_the_estimates_and_no_se_skips_them(shaped, capsys):
    _, csv, ref = shaped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["calibrate", str(csv), "--model", "3PL", "--engine", "ltm", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    np.testing.assert_allclose([r["a"] for r in items], ref["ltm"]["a"], rtol=0, atol=1e-8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["calibrate", str(csv), "--model", "3PL", "--engine", "ltm", "--no-se", "--json"]) == 0
    assert not _unavailable(caught)
    items = json.loads(capsys.readouterr().out)["items"]
    np.testing.assert_allclose([r["b"] for r in items], ref["ltm"]["b"], rtol=0, atol=1e-8)
