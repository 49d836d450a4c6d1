"""Data for the mirt test-suite cases (tests/conformance/runner.py): the same responses in R and in Python.

mirt's tests read its bundled data (LSAT7, LSAT6, Science, SAT12) or simulated sets saved under
``tests/testthat/testdata``. The bundled data come from irtbridge's datasets here and from mirt itself in
the R snippets. The simulated sets are drawn again, in the spirit of each test's own generating code
(kept in its ``if(FALSE)`` blocks), by ``simdata`` after ``set.seed``: in R by the snippet, in Python by
:func:`irtbridge.calibration.simulate` with the same seed. Item parameters are fixed numbers written into
the R code with ``repr`` so both sides read the same doubles.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd

from irtbridge.calibration import score_key, simulate
from irtbridge.example_data import r_dataset, response_dataset

SAT12_KEY = [1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5]
SAT12_SPECIFIC = [2, 3, 2, 3, 3, 2, 1, 2, 1, 1, 1, 3, 1, 3, 1, 2, 1, 1, 3, 3, 1, 1, 3, 1, 3, 3, 1, 3, 2, 3, 1, 2]


def rvec(values) -> str:
    """An R vector literal holding exactly these doubles (NaN as NA)."""
    return "c(" + ", ".join(repr(float(v)) if np.isfinite(v) else "NA" for v in np.ravel(values)) + ")"


def rmat(values) -> str:
    """An R matrix literal (column-major, as R stores it)."""
    arr = np.atleast_2d(np.asarray(values, dtype=float))
    return f"matrix({rvec(arr.T)}, {arr.shape[0]}, {arr.shape[1]})"


# --- mirt's bundled data ------------------------------------------------------------------------------
R_LSAT7 = "data <- expand.table(LSAT7)"
R_LSAT6 = "dat <- expand.table(LSAT6)"
R_KEY = "c(" + ", ".join(map(str, SAT12_KEY)) + ")"
R_SPECIFIC = "c(" + ", ".join(map(str, SAT12_SPECIFIC)) + ")"
R_SAT12 = f"data <- key2binary(SAT12, {R_KEY})"


@cache
def lsat7() -> pd.DataFrame:
    return response_dataset("LSAT7")


@cache
def lsat6() -> pd.DataFrame:
    return response_dataset("LSAT")  # ltm's LSAT: mirt's expand.table(LSAT6), same rows


@cache
def science() -> pd.DataFrame:
    return response_dataset("Science")


@cache
def sat12() -> pd.DataFrame:
    return score_key(r_dataset("mirt", "SAT12"), SAT12_KEY)


# --- two groups, one factor (test-04 MG1, test-10/17 dif1) -------------------------------------------
_rs = np.random.RandomState(12345)
MG_A = np.round(np.abs(_rs.normal(1.0, 0.3, 15)), 4)
MG_D = np.round(_rs.normal(0.0, 0.7, 15), 4)
R_MG1 = (f"a <- {rvec(MG_A)}; d <- {rvec(MG_D)}; set.seed(1); d1 <- simdata(a, d, 1000, 'dich'); "
         "set.seed(2); d2 <- simdata(a, d, 1000, 'dich', mu = .1, sigma = matrix(1.5)); "
         "dat <- rbind(d1, d2); group <- rep(c('D1', 'D2'), each = 1000)")


@cache
def mg1() -> tuple[pd.DataFrame, list[str]]:
    one = simulate(MG_A, MG_D, 1000, "dich", seed=1)
    two = simulate(MG_A, MG_D, 1000, "dich", seed=2, mu=[0.1], sigma=[[1.5]])
    return pd.concat([one, two], ignore_index=True), ["D1"] * 1000 + ["D2"] * 1000


# DIF: items 1-2 lose slope and items 1, 3 shift intercept in the second group (test-17's generator)
DIF_A1 = MG_A[:10].copy()
DIF_A2 = DIF_A1.copy()
DIF_A2[:2] = DIF_A1[:2] / 3
DIF_D2 = MG_D[:10].copy()
DIF_D1 = DIF_D2.copy()
DIF_D1[[0, 2]] = DIF_D2[[0, 2]] / 4
R_DIF1 = (f"set.seed(11); d1 <- simdata({rvec(DIF_A1)}, {rvec(DIF_D1)}, 1000, 'dich'); "
          f"set.seed(12); d2 <- simdata({rvec(DIF_A2)}, {rvec(DIF_D2)}, 1000, 'dich', mu = .1, sigma = matrix(1.5)); "
          "dat <- rbind(d1, d2); group <- rep(c('D1', 'D2'), each = 1000)")


@cache
def dif1() -> tuple[pd.DataFrame, list[str]]:
    one = simulate(DIF_A1, DIF_D1, 1000, "dich", seed=11)
    two = simulate(DIF_A2, DIF_D2, 1000, "dich", seed=12, mu=[0.1], sigma=[[1.5]])
    return pd.concat([one, two], ignore_index=True), ["D1"] * 1000 + ["D2"] * 1000


# --- two correlated factors, mixed item types (test-06 conftwo1: the generator's own numbers) ------
CONF_A = np.array([[1.5, np.nan], [0.5, np.nan], [1.0, np.nan], [1.0, 0.5],
                   [np.nan, 1.5], [np.nan, 0.5], [np.nan, 1.0], [np.nan, 1.0]])
CONF_D = np.array([[-1.0, np.nan, np.nan], [-1.5, np.nan, np.nan], [1.5, np.nan, np.nan], [0.0, np.nan, np.nan],
                   [3.0, 2.0, -0.5], [2.5, 1.0, -1.0], [2.0, 0.0, np.nan], [1.0, np.nan, np.nan]])
CONF_SIGMA = np.array([[1.0, 0.4], [0.4, 1.0]])
CONF_TYPES = ["dich"] * 4 + ["graded"] * 3 + ["dich"]
R_CONF = (f"set.seed(1234); dataset <- simdata({rmat(CONF_A)}, {rmat(CONF_D)}, 2000, "
          f"c(rep('dich', 4), rep('graded', 3), 'dich'), sigma = {rmat(CONF_SIGMA)})")


@cache
def conftwo() -> pd.DataFrame:
    return simulate(CONF_A, CONF_D, 2000, CONF_TYPES, seed=1234, sigma=CONF_SIGMA)


# --- latent regression (test-07 mixed1): 10 items, 750 respondents, three groups ------------------
_rs = np.random.RandomState(1234)
MIX_A = np.round(_rs.lognormal(0.2, 0.5, 10), 4)
MIX_D = np.round(_rs.normal(size=10), 4)
R_MIXED = (f"set.seed(1234); data <- simdata({rvec(MIX_A)}, {rvec(MIX_D)}, 750, 'dich'); "
           "covdata <- data.frame(group = rep(c('G1', 'G2', 'G3'), each = 250), X = rep(c(-1, -0.5, 0, 0.5, 1), 150))")


@cache
def mixed() -> tuple[pd.DataFrame, pd.DataFrame]:
    data = simulate(MIX_A, MIX_D, 750, "dich", seed=1234)
    cov = pd.DataFrame({"group": np.repeat(["G1", "G2", "G3"], 250), "X": np.tile([-1.0, -0.5, 0.0, 0.5, 1.0], 150)})
    return data, cov


# --- a bimodal latent density (test-16 dcirt1): 25 items, 1,000 respondents ------------------------
_rs = np.random.RandomState(4321)
DC_A = np.round(_rs.lognormal(0.2, 0.3, 25), 4)
DC_D = np.round(-DC_A * _rs.normal(0.0, 1.2, 25), 4)
DC_THETA = np.round(np.r_[_rs.normal(-0.70, 0.50, 600), _rs.normal(1.05, 0.54, 400)], 6)
R_DCIRT = (f"set.seed(1); dat_bm <- simdata({rvec(DC_A)}, {rvec(DC_D)}, itemtype = 'dich', "
           f"Theta = matrix({rvec(DC_THETA)}))")


@cache
def dcirt() -> pd.DataFrame:
    return simulate(DC_A, DC_D, None, "dich", seed=1, theta=DC_THETA[:, None])


# --- a multicomponent model (test-18 MLTM): 18 dichotomous + 12 partially compensatory items ------
_rs = np.random.RandomState(42)
MLTM_A = np.ones((30, 2))
MLTM_A[10:18, 0] = 0.0
MLTM_A[0:9, 1] = 0.0
MLTM_D = np.r_[np.c_[np.full(18, np.nan), np.round(_rs.normal(size=18), 4)],
               np.c_[np.repeat([3.0, 1.0], 6), np.tile([0.0, 1.0, 2.0], 4)]]
MLTM_TYPES = ["dich"] * 18 + ["partcomp"] * 12
R_MLTM = (f"set.seed(42); dat <- simdata({rmat(MLTM_A)}, {rmat(MLTM_D)}, 2500, "
          "itemtype = c(rep('dich', 18), rep('partcomp', 12)))")
MLTM_SYNTAX = "theta1 = 1-9, 19-30\ntheta2 = 10-30\nCOV = theta1*theta2"


@cache
def mltm() -> pd.DataFrame:
    return simulate(MLTM_A, MLTM_D, 2500, MLTM_TYPES, seed=42)
