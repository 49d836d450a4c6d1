"""Issue 26 item 3: a real ``bfactor`` (dimension reduction). ``calibrate_bifactor`` against mirt's
``bfactor`` called directly in R (tests/r/reference_bifactor.R): items, log-likelihood, factor names and
standard errors (with the fit and on first access), an item without a specific factor, a second-tier
model, polytomous items. Tolerance 1e-6: the same deterministic fit on the same data.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.calibration import calibrate_bifactor
from irtbridge.calibration.fit.bifactor import BFACTOR_OPTIONS
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-6
SPECIFIC = [1, 1, 1, 2, 2, 2, 3, 3, 3, 3]


@pytest.fixture(scope="module")
def frame():
    """1000 respondents, 10 dichotomous items: a general factor and three specific ones over q1-q9 (q10
    loads on the general factor only)."""
    rng = np.random.default_rng(31)
    general, specific = rng.normal(size=(1000, 1)), rng.normal(size=(1000, 3))
    a_g, a_s, d = rng.uniform(0.8, 1.6, 10), rng.uniform(0.8, 1.5, 10), rng.normal(0, 0.8, 10)
    a_s[9] = 0
    z = a_g * general + a_s * specific[:, [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]] + d
    return pd.DataFrame((rng.random(z.shape) < 1 / (1 + np.exp(-z))).astype(float),
                        columns=[f"q{j}" for j in range(1, 11)])


@pytest.fixture(scope="module")
def data(frame, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bifactor")
    frame.to_csv(tmp / "responses.csv", index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_bifactor.R"), str(tmp / "ref.json"),
                    str(tmp / "responses.csv")], check=True)
    return frame, json.loads((tmp / "ref.json").read_text())


def _num(values):
    return np.array([np.nan if v is None else float(v) for v in values])


def _same_items(items, expected):
    assert list(items.columns) == list(expected)
    for col, values in expected.items():
        np.testing.assert_allclose(items[col], _num(values), rtol=0, atol=TOL, err_msg=col)


@pytest.mark.r
@pytest.mark.slow
def test_bfactor_equals_mirt(data):
    frame, ref = data
    fit = calibrate_bifactor(frame, SPECIFIC, "2PL", se=True)
    assert fit.factors == tuple(ref["factors"]) == ("G", "S1", "S2", "S3")
    _same_items(fit.items, ref["items"])
    assert fit.loglik == pytest.approx(ref["loglik"], abs=TOL)
    assert fit.n_parameters == ref["nest"]
    for item in fit.item_names:
        theirs = {k: v for k, v in ref["se"][item].items() if k in fit.items.columns}
        np.testing.assert_allclose(fit.standard_errors.loc[item, list(theirs)], _num(theirs.values()), rtol=0,
                                   atol=TOL, err_msg=item)
    assert fit.options["specific"] == SPECIFIC and fit.options["se"] is True
    assert set(BFACTOR_OPTIONS) <= set(ref["formals"])  # every option offered is one bfactor reads
    # on first access: the numbers of bfactor(..., SE = TRUE), from the live fit
    later = calibrate_bifactor(frame, SPECIFIC)
    assert not later.standard_errors_computed
    pd.testing.assert_frame_equal(later.standard_errors, fit.standard_errors, rtol=0, atol=TOL)


@pytest.mark.r
@pytest.mark.slow
def test_partial_specific_second_tier_and_polytomous_items(data):
    frame, ref = data
    partial = calibrate_bifactor(frame, [*SPECIFIC[:9], None], general="G = 1-10\nCONSTRAIN = (1, 2, a1)",
                                 quadpts=15, se=False)
    _same_items(partial.items, ref["partial"]["items"])
    assert partial.loglik == pytest.approx(ref["partial"]["loglik"], abs=TOL)
    assert partial.items.loc["q10", ["a2", "a3", "a4"]].eq(0).all() and partial.options["quadpts"] == 15
    assert partial.items.loc["q1", "a1"] == partial.items.loc["q2", "a1"]
    science = calibrate_bifactor(response_dataset("Science"), pd.Series([1, 1, 2, 2]), "graded", se=False)
    _same_items(science.items, ref["science"]["items"])
    assert science.loglik == pytest.approx(ref["science"]["loglik"], abs=TOL)


def test_bad_input_is_one_line(frame):
    """Refused in Python, before R starts."""
    cases = [
        (lambda: calibrate_bifactor(frame, SPECIFIC[:-1]), "specific: 9 entries for 10 items"),
        (lambda: calibrate_bifactor(frame, [0, *SPECIFIC[1:]]), "specific: item 'q1' has 0"),
        (lambda: calibrate_bifactor(frame, ["a", *SPECIFIC[1:]]), "specific: item 'q1' has 'a'"),
        (lambda: calibrate_bifactor(frame, [1.5, *SPECIFIC[1:]]), "specific: item 'q1' has 1.5"),
        (lambda: calibrate_bifactor(frame, [None] * 10), "specific: no item has a specific factor"),
        (lambda: calibrate_bifactor(frame, "1112223333"), "specific must hold one factor number per item"),
        (lambda: calibrate_bifactor(frame, SPECIFIC, general=3), "general must be a ModelSpec"),
        (lambda: calibrate_bifactor(frame, SPECIFIC, general="G = 1-10\nH = q99"), "q99"),
        (lambda: calibrate_bifactor(frame, SPECIFIC, method="MHRM"), "calibrate_bifactor takes no option 'method'"),
        (lambda: calibrate_bifactor(frame, SPECIFIC, dentype="EH"), "takes no option 'dentype'"),
        (lambda: calibrate_bifactor(frame, SPECIFIC, se="yes"), "se must be None"),
        (lambda: calibrate_bifactor(frame, SPECIFIC, "unfolding"), "model="),
    ]
    for call, message in cases:
        with pytest.raises(ValidationError) as err:
            call()
        assert message in str(err.value) and "\n" not in str(err.value), str(err.value)
