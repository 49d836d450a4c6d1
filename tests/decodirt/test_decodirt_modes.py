"""The calibration modes of classifier response data (irtbridge.decodirt.modes).

* stable mode = mirt's 3PL with the priors written into mirt's parameter table by plain R code (1e-8);
* paper mode = ltm's tpm called directly (1e-8);
* parameter recovery on simulated classifier-shaped data (known truth): the stable mode's RMSE of b is at
  least 50% below the paper mode's and no |a| above 10 where the true |a| is below 4 (fixed seeds, the
  same check speed/recovery.py runs over 20 replications with irtbridge's fits; here on the same two R
  computations the first test shows irtbridge's modes equal, their results stored as R references);
* flags and the dataset difficulty against closed forms.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtbridge.decodirt import (
    calibrate_classifier_responses,
    dataset_difficulty,
    flag_items,
    simulate_classifier_responses,
)
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

ROOT = Path(__file__).resolve().parents[2]

R_FITS = r"""
args <- commandArgs(TRUE)
suppressPackageStartupMessages({ library(mirt); library(ltm); library(jsonlite) })
d <- read.csv(args[1], check.names = FALSE)
sv <- mirt(d, 1, itemtype = "3PL", pars = "values", verbose = FALSE)
set <- function(sv, name, type, p1, p2) { r <- sv$name == name; sv$prior.type[r] <- type; sv$prior_1[r] <- p1; sv$prior_2[r] <- p2; sv }
sv <- set(sv, "a1", "norm", 1, 0.5); sv <- set(sv, "d", "norm", 0, 3); sv <- set(sv, "g", "expbeta", 2, 17)
fit <- mirt(d, 1, itemtype = "3PL", pars = sv, verbose = FALSE)
st <- coef(fit, IRTpars = TRUE, simplify = TRUE)$items
tp <- tpm(d)
cf <- tp$coefficients
paper <- list(a = unname(cf[, 3]), b = unname(-cf[, 2] / cf[, 3]), g = unname(plogis(cf[, 1]) * tp$max.guessing))
writeLines(toJSON(list(stable = list(a = unname(st[, "a"]), b = unname(st[, "b"]), g = unname(st[, "g"])),
                       paper = paper), digits = NA), args[2])
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    x, _, _ = simulate_classifier_responses(40, 60, seed=3)
    x = x.loc[:, x.min() != x.max()]
    tmp = tmp_path_factory.mktemp("modes")
    (tmp / "fits.R").write_text(R_FITS)
    x.to_csv(tmp / "x.csv", index=False)
    run_r(["Rscript", str(tmp / "fits.R"), str(tmp / "x.csv"), str(tmp / "ref.json")], check=True)
    return x, json.loads((tmp / "ref.json").read_text())


@pytest.mark.r
@pytest.mark.parametrize("mode", ["stable", "paper"])
def test_modes_equal_r_called_directly(small, mode):
    x, ref = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = calibrate_classifier_responses(x, mode)
    assert fit.options["calibration"] == mode and fit.engine == ("mirt" if mode == "stable" else "ltm")
    assert list(fit.items.columns[:3]) == ["a", "b", "g"]
    for col in ("a", "b", "g"):
        np.testing.assert_allclose(fit.items[col].to_numpy(), np.asarray(ref[mode][col]), rtol=0, atol=1e-8, err_msg=col)


def _r_fitter(folder: Path):
    """``(x, mode) -> items`` from R_FITS, the two modes as R computes them directly (the test above shows
    irtbridge's modes equal them to 1e-8): one R call per matrix, its result stored (tests/_rrefs.py)."""
    (folder / "fits.R").write_text(R_FITS)
    fitted: dict[str, dict[str, pd.DataFrame]] = {}

    def fit(x: pd.DataFrame, mode: str) -> pd.DataFrame:
        key = x.to_csv(index=False)
        if key not in fitted:
            csv, out = folder / f"x{len(fitted)}.csv", folder / f"fits{len(fitted)}.json"
            csv.write_text(key)
            run_r(["Rscript", str(folder / "fits.R"), str(csv), str(out)], check=True)
            ref = json.loads(out.read_text())
            fitted[key] = {m: pd.DataFrame(ref[m], index=x.columns) for m in ref}
        return fitted[key][mode]

    return fit


@pytest.mark.r
@pytest.mark.slow
def test_stable_mode_recovers_parameters_better_than_paper_mode(tmp_path):
    sys.path.insert(0, str(ROOT / "speed"))
    try:
        from recovery import recovery
    finally:
        sys.path.pop(0)
    frame = recovery(replications=3, n_respondents=40, n_items=200, seed=0, fit=_r_fitter(tmp_path))
    assert (frame["failed"] == "").all(), frame
    by_mode = frame.groupby("mode")
    rmse_b = by_mode["rmse_b"].mean()
    assert rmse_b["stable"] <= 0.5 * rmse_b["paper"], rmse_b
    assert by_mode["a_above_10"].sum()["stable"] == 0
    assert by_mode["spearman_theta"].mean()["stable"] > 0.9


def test_flags_name_each_reason():
    items = pd.DataFrame({"a": [1.0, 12.0, -11.0, np.nan, 0.5], "b": [0.0, 7.0, 0.0, 0.0, -0.2],
                          "g": [0.1, 0.0, 0.97, 0.1, 0.1]}, index=list("vwxyz"))
    ses = pd.DataFrame({"a": [0.1, 0.2, 0.2, 0.2, np.nan], "b": [0.1, 0.1, 0.1, 0.1, np.nan],
                        "g": [0.1, 0.1, 0.1, 0.1, np.nan]}, index=list("vwxyz"))
    flags = flag_items(items, ses)
    assert flags["v"] == ""
    assert flags["w"] == "|a| > 10; |b| > 6"
    assert flags["x"] == "|a| > 10; g at its bound (>= 0.95)"
    assert flags["y"] == "a not finite"
    assert flags["z"] == "no finite SE"
    assert flag_items(items, limits={"a": 20})["w"] == "|b| > 6"


def test_dataset_difficulty_is_the_expected_failure_share():
    items = pd.DataFrame({"a": [1.0, 2.0, -1.0], "b": [0.0, 1.0, -40.0], "g": [0.2, 0.0, 0.1], "u": 1.0})
    theta = 0.5
    p = items["g"] + (1 - items["g"]) / (1 + np.exp(-items["a"] * (theta - items["b"])))
    assert dataset_difficulty(items, theta) == pytest.approx(float(np.mean(1 - p)), abs=1e-12)
    assert np.isnan(dataset_difficulty(items, float("nan")))


def test_unknown_mode_is_a_clear_error():
    x, _, _ = simulate_classifier_responses(5, 10, seed=0)
    with pytest.raises(ValidationError, match="calibration"):
        calibrate_classifier_responses(x, "robust")
