"""mirt's scoring options on a Calibration (issue 26, item 3): the EAPsum table, a prior mean/cov for the
abilities, multiple imputation, QMC, scoring under the estimated density and the ability covariances
(``return.acov``), against ``fscores`` called directly in tests/r/reference_inference.R.

Tolerance 1e-8: the same model reaches the same ``fscores`` call (for MI after the same ``set.seed``), so
anything but transfer noise is a bug. Data: LSAT7 (2PL, one factor), Science (graded, two factors).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8
PRIOR2 = {"mean": [-1.0, 1.0], "cov": [[1.5, 1.0], [1.0, 2.0]]}


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    out = tmp_path_factory.mktemp("scoring") / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_inference.R"), "scoring", str(out)], check=True)
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def lsat7():
    return response_dataset("LSAT7")


@pytest.fixture(scope="module")
def two(lsat7):
    return irtbridge.calibrate(lsat7, "2PL", se=False)


@pytest.fixture(scope="module")
def sci2():
    return irtbridge.calibrate(response_dataset("Science"), "graded", dims=2, se=False)


def _close(got, expected, tol=TOL):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float), rtol=0, atol=tol)


def _frame(got: pd.DataFrame, expected: dict, rename: dict[str, str]) -> None:
    """Every column of R's table, under irtbridge's name for it."""
    assert len(got.columns) == len(expected)
    for col, values in expected.items():
        _close(got[rename.get(col, col)], values)


ONE = {"F1": "theta", "SE_F1": "se"}
TWO = {"SE_F1": "se_F1", "SE_F2": "se_F2"}


def test_eapsum_table_and_its_fit(ref, two):
    table = two.abilities("EAPsum", full_scores=False)
    assert list(table.columns) == ["Sum.Scores", "theta", "se", "observed", "expected", "std.res"]
    _frame(table, ref["eapsum_table"], ONE)
    for key, value in ref["eapsum_fit"].items():
        assert table.attrs["fit"][key] == pytest.approx(value, abs=TOL)
    _frame(two.abilities("EAPsum").iloc[:20], ref["eapsum_full"], ONE)


def test_pattern_table_names_the_items(ref, two, lsat7):
    table = two.abilities(full_scores=False)
    assert list(table.columns) == [*lsat7.columns, "theta", "se"]
    _frame(table, ref["patterns"], {**ONE, **{f"Item.{i}": f"Item.{i}" for i in range(1, 6)}})


def test_prior_mean_and_cov(ref, two, sci2):
    _frame(two.abilities(mean=1, cov=2), ref["prior1"], ONE)
    _frame(two.abilities("MAP", mean=[0.5], cov=[[0.8]], full_scores=False), ref["prior1_patterns"], ONE)
    _frame(sci2.abilities(**PRIOR2), ref["prior2"], TWO)
    new = pd.DataFrame([[1, 0, 1, 1, 0], [0, 0, 0, 1, 1]], columns=two.item_names, index=["ann", "bob"])
    got = two.abilities("MAP", responses=new, mean=-0.5, cov=1.5)
    assert list(got.index) == ["ann", "bob"]
    _frame(got, ref["new_prior"], ONE)


def test_multiple_imputation_uses_the_information_matrix(ref, lsat7):
    # the default se=None: the SEs (and the model holding the information matrix) are computed first
    fit = irtbridge.calibrate(lsat7, "2PL")
    _frame(fit.abilities(MI=10, seed=7), ref["mi"], ONE)
    _frame(fit.abilities(MI=10, seed=7, full_scores=False), ref["mi_patterns"], ONE)
    with pytest.raises(ValidationError, match="se=False"):
        irtbridge.calibrate(lsat7, "2PL", se=False).abilities(MI=3)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::irtbridge.exceptions.ConvergenceWarning")  # Davidian-4 on LSAT7: in R too
def test_qmc_and_the_estimated_density(ref, sci2, lsat7):
    _frame(sci2.abilities(QMC=True), ref["qmc"], TWO)
    dav = irtbridge.calibrate(lsat7, "2PL", dentype="Davidian-4", se=False)
    _frame(dav.abilities(use_dentype_estimate=True), ref["dentype"], ONE)


def test_ability_covariances(ref, two, sci2):
    acov = two.ability_covariances()
    assert acov.shape == (two.n_respondents, 1, 1)
    _close(acov[:, 0, 0], ref["acov"])
    _close(two.ability_covariances(full_scores=False)[:, 0, 0], ref["acov_patterns"])
    two_factor = sci2.ability_covariances(**PRIOR2)[:10]
    assert two_factor.shape == (10, 2, 2)
    _close(two_factor.reshape(10, 4, order="F"), ref["acov2"])


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "EAPsum", "full_scores": "no"}, "full_scores must be True or False"),
    ({"mean": [0.0, 1.0]}, "mean must be 1 finite number"),
    ({"mean": "high"}, "mean must be"),
    ({"cov": [[1.0, 0.5], [0.5, 1.0]]}, "cov must be a finite 1 x 1"),
    ({"cov": -1.0}, "positive definite"),
    ({"MI": -2}, "MI"),
    ({"QMC": 1}, "QMC must be True or False"),
    ({"use_dentype_estimate": None}, "use_dentype_estimate must be True or False"),
    ({"method": "EAPsums"}, "method="),
])
def test_bad_scoring_options_are_one_line_errors(two, kwargs, message):
    with pytest.raises(ValidationError, match=message) as info:
        two.abilities(**kwargs)
    assert "\n" not in str(info.value)


def test_patterns_and_new_responses_do_not_mix(two, lsat7):
    with pytest.raises(ValidationError, match="full_scores=False"):
        two.abilities(responses=lsat7.head(3), full_scores=False)


def test_mirt_options_on_other_engines_name_the_option(lsat7):
    ltm = irtbridge.calibrate(lsat7, "2PL", engine="ltm", se=False)
    with pytest.raises(ValidationError, match="^QMC is a mirt scoring option.*engine='mirt'"):
        ltm.abilities(QMC=True)
    with pytest.raises(ValidationError, match="method="):
        ltm.abilities("EAPsum")
    with pytest.raises(ValidationError, match="ability_covariances needs a mirt fit"):
        ltm.ability_covariances()
