"""The registry of mirt test-suite cases, files test-07 to test-19 (see cases.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import irtbridge
from irtbridge import calibrate, calibrate_groups
from .cases import FIRST, PASS, M, bfactor_sat12, case, col, not_expressible, sci_fit
from .data import (
    R_DCIRT, R_DIF1, R_LSAT6, R_LSAT7, R_MIXED, R_MLTM, R_SAT12, R_SPECIFIC, MLTM_SYNTAX, dcirt, dif1, lsat6,
    lsat7, mixed, mltm, science,
)

# === test-07-mixedmirt: latent regression and mixed effects ========================================
R_LR = f"{R_MIXED}; m <- mirt(data, 1, 'Rasch', covdata = covdata, formula = ~ group + X, SE = TRUE, verbose = FALSE)"


def lr_fit():
    data, cov = mixed()
    return calibrate(data, "rasch", covariates=cov, formula="~ group + X", se=True)


@case("07-mixedmirt", "latent regression (covdata, formula)", FIRST,
      f"{R_LR}; b <- coef(m, printSE = TRUE)$lr.betas; c(logLik(m), b$betas, b$SE)")
def _():
    fit = lr_fit()
    return np.r_[fit.loglik, fit.latent_regression["beta"].to_numpy(), fit.latent_regression["se"].to_numpy()]


@case("07-mixedmirt", "plausible values", FIRST,
      f"{R_LR}; set.seed(1234); pv <- fscores(m, plausible.draws = 2); c(pv[[1]][1:4], pv[[2]][1:4])")
def _():
    pv = lr_fit().plausible_values(2, seed=1234)
    return np.r_[pv.loc[pv["draw"] == 0, "theta"].to_numpy()[:4], pv.loc[pv["draw"] == 1, "theta"].to_numpy()[:4]]


@case("07-mixedmirt", "boot.mirt of the regression", FIRST,
      f"{R_LR}; set.seed(1); as.numeric(boot.mirt(m, R = 3)$t)")
def _():
    return col(lr_fit().bootstrap(3, seed=1, keep_draws=True))


@case("07-mixedmirt", "mixedmirt, group as fixed effect", FIRST,
      f"{R_MIXED}; mod <- mixedmirt(data, covdata, 1, fixed = ~ 0 + items + group, verbose = FALSE); "
      "c(logLik(mod), summary(mod, verbose = FALSE)$fixed$Estimate)")
def _():
    data, cov = mixed()
    fit = irtbridge.calibration.calibrate_mixed(data, cov, fixed="~ 0 + items + group")
    return np.r_[fit.loglik, fit.fixef["Estimate"].to_numpy()]


@case("07-mixedmirt", "mixedmirt, polytomous, random intercepts", FIRST,
      "covdat <- data.frame(group = factor(rep(paste0('G', 1:20), length.out = nrow(Science)))); "
      "m <- mixedmirt(Science, covdat, 1, draws = 10, random = ~ 1|group, itemtype = 'graded', verbose = FALSE, "
      "SE = FALSE); c(logLik(m), mod2values(m)$value)")
def _():
    data = science()
    cov = pd.DataFrame({"group": [f"G{i % 20 + 1}" for i in range(len(data))]})
    fit = irtbridge.calibration.calibrate_mixed(data, cov, fixed="~ 1", random="~ 1 | group", itemtype="graded",
                                                se=False, draws=10)
    return np.r_[fit.loglik, fit.parameters["value"].to_numpy(dtype=float)]

# === test-08-createItem: user-defined item types ===================================================
not_expressible("08-createItem", "custom item 'old2PL'",
                "createItem('old2PL', par, est, P = P.old2PL); mirt(dat, 1, ..., customItems = list(old2PL = x))",
                "createItem takes R functions (the trace line P, optional gradients); the passthrough carries "
                "no R code")
not_expressible("08-createItem", "custom nonlinear item",
                "createItem('nonlin', par, est, P = P.nonlin); fscores(mirt(dat, 1, ..., customItems = ...))",
                "as above: R functions")

# === test-09-mirt.model: the syntax ==================================================================


def syntax_values(spec: str, model: str = "2PL", data=None) -> np.ndarray:
    return calibrate(lsat7() if data is None else data, model, spec=spec, se=False).parameters()["value"].to_numpy()


def r_values(spec: str, itemtype: str = "2PL") -> str:
    return (f"{R_LSAT7}; mod2values(mirt(data, mirt.model({spec!r}, quiet = TRUE), '{itemtype}', "
            "verbose = FALSE))$value")


S2 = "F = 1-5\nCONSTRAIN = (1,2,3-5,a1)"
S3 = "F = 1-5\nCONSTRAIN = (2,3-5,a1)\nPRIOR = (2,3-5, a1, lnorm, .2, .2), (1-2, d, norm, 0, 2)"
S7 = "F1 = 1-2\nF2 = 3-5\nSTART = (2, a2, 1.5), (4,a1,-1)"
S9 = "F1 = 1-5\nLBOUND = (1-3, g, 0.2), (4,5, g, 0.2)"
S10 = "F1 = 1-5\nSTART = (1,3-4, a1, 1)\nFIXED = (1-3, a1)"
S14 = "F = 1-5\nFIXED = (1-5, a1)\nSTART = (1-5, a1, 1.0)\nFREE = (GROUP, COV_11)"


@case("09-mirt.model", "CONSTRAIN", FIRST, r_values(S2))
def _():
    return syntax_values(S2)


@case("09-mirt.model", "CONSTRAIN + PRIOR", FIRST, r_values(S3))
def _():
    return syntax_values(S3)


@case("09-mirt.model", "START on two factors", FIRST, r_values(S7))
def _():
    return syntax_values(S7)


@case("09-mirt.model", "LBOUND, 3PL", FIRST, r_values(S9, "3PL"))
def _():
    return syntax_values(S9, "3PL")


@case("09-mirt.model", "START + FIXED, pars = 'values'", FIRST,
      f"{R_LSAT7}; sv <- mirt(data, mirt.model({S10!r}, quiet = TRUE), '3PL', pars = 'values'); c(sv$value, sv$est)")
def _():
    table = irtbridge.parameter_table(lsat7(), "3PL", spec=S10)
    return np.r_[table["value"].to_numpy(dtype=float), table["est"].to_numpy(dtype=float)]


@case("09-mirt.model", "FREE (GROUP, COV_11)", FIRST, r_values(S14))
def _():
    return syntax_values(S14)


@case("09-mirt.model", "CONSTRAINB across groups", FIRST,
      f"{R_LSAT7}; group <- rep(c('male', 'female'), length.out = 1000); "
      "mod2values(multipleGroup(data, mirt.model('F = 1-5\\nCONSTRAIN = (1-2, d)\\nCONSTRAINB = (2-4,5,a1), (1, a1)', "
      "quiet = TRUE), group = group, verbose = FALSE))$value")
def _():
    group = ["male", "female"] * 500
    spec = "F = 1-5\nCONSTRAIN = (1-2, d)\nCONSTRAINB = (2-4,5,a1), (1, a1)"
    return calibrate_groups(lsat7(), group, "2PL", spec=spec, se=False).parameters()["value"].to_numpy(dtype=float)


# === test-10-extras ===================================================================================
R_DOUBLE = "data <- expand.table(LSAT7); data <- rbind(data, data); mod1 <- mirt(data, 1, SE = TRUE, verbose = FALSE)"
THETA200 = np.linspace(-6, 6, 200)


def double_fit():
    data = lsat7()
    return calibrate(pd.concat([data, data], ignore_index=True), "2PL", se=True)


not_expressible("10-extras", "fscores with a custom prior density",
                "fscores(mod1, custom_den = function(Thetas, MIN, MAX, ...) dunif(Thetas, MIN, MAX), MIN = -3, MAX = 3)",
                "custom_den is an R function; the passthrough carries no R code")


@case("10-extras", "return.acov", FIRST,
      f"{R_DOUBLE}; acov <- fscores(mod1, return.acov = TRUE, full.scores = FALSE); sapply(acov[1:5], function(x) x[1])")
def _():
    return double_fit().ability_covariances(full_scores=False)[:5, 0, 0]


@case("10-extras", "PLCI.mirt", FIRST,
      "p <- PLCI.mirt(mirt(Science, 1, verbose = FALSE), parnum = c(1, 2)); c(p$lower_2.5, p$upper_97.5)")
def _():
    p = sci_fit().profile_ci([1, 2])
    return np.r_[p["lower"], p["upper"]]


@case("10-extras", "expected.item and probtrace", FIRST,
      f"{R_DOUBLE}; it <- extract.item(mod1, 2); Theta <- matrix(seq(-6, 6, length.out = 200)); "
      "c(expected.item(it, Theta), probtrace(it, Theta)[, 1])", tol=1e-8)
def _():
    items = double_fit().items.iloc[[1]]
    p = irtbridge.irt.response_probability(THETA200, items, "2PL")[:, 0]
    return np.r_[irtbridge.irt.expected_score(THETA200, items, "2PL")[:, 0], 1 - p]


@case("10-extras", "testinfo", FIRST,
      f"{R_DOUBLE}; testinfo(mod1, Theta = matrix(seq(-6, 6, length.out = 200)))")
def _():
    return irtbridge.irt.test_information(THETA200, double_fit())


@case("10-extras", "fscores with multiple imputation", FIRST,
      f"{R_DOUBLE}; set.seed(1234); fscores(mod1, MI = 20, full.scores = FALSE)[1:3, 'F1']")
def _():
    return double_fit().abilities(MI=20, full_scores=False, seed=1234)["theta"].to_numpy()[:3]


# === test-11-discrete: latent class models (mdirt) =================================================
R_LCA = f"{R_LSAT6}; mod <- mdirt(dat, 2, verbose = FALSE)"


def lca():
    return irtbridge.calibration.calibrate_classes(lsat6(), 2)


@case("11-discrete", "two-class LCA, logLik", FIRST, f"{R_LCA}; extract.mirt(mod, 'logLik')")
def _():
    return lca().loglik


@case("11-discrete", "M2 of the LCA", FIRST, f"{R_LCA}; M2(mod)$M2")
def _():
    return lca().global_fit()["M2"]


@case("11-discrete", "class posteriors", FIRST,
      f"{R_LCA}; as.numeric(fscores(mod, full.scores = FALSE)[1:5, c('Class_1', 'Class_2')])")
def _():
    return col(lca().posteriors(patterns=True).iloc[:5][["Class_1", "Class_2"]])


LCA_VALUES = [1.65, 6.9, 3.74, 9.13, 1.89, 9.13, 1.05, 1.62, 1.51, 3.74, -1.17, 3.4, 1.64, -2.56, 2.5, 6.54, 0.29, 7.2,
              1.5, 2.2, 1.97, 3.71, 0.22, 3.75, 0.85]


@case("11-discrete", "polytomous LCA from start values", FIRST,
      f"sv <- mdirt(Science, 2, verbose = FALSE, pars = 'values'); sv$value <- c({', '.join(map(str, LCA_VALUES))}); "
      "extract.mirt(mdirt(Science, 2, verbose = FALSE, pars = sv), 'logLik')")
def _():
    sv = irtbridge.calibration.class_parameter_table(science(), 2)
    sv["value"] = LCA_VALUES
    return irtbridge.calibration.calibrate_classes(science(), 2, parameters=sv).loglik


# === test-12-gpcm_mats ================================================================================
@case("12-gpcm_mats", "gpcm, one factor", FIRST, "extract.mirt(mirt(Science, 1, itemtype = rep('gpcm', 4), verbose = FALSE), 'logLik')")
def _():
    return calibrate(science(), "gpcm", se=False).loglik


@case("12-gpcm_mats", "gpcm_mats, identity scoring", FIRST,
      "sf <- rep(list(matrix(0:3, 4, 1)), 4); extract.mirt(mirt(Science, 1, itemtype = rep('gpcm', 4), "
      "gpcm_mats = sf, verbose = FALSE), 'logLik')")
def _():
    return calibrate(science(), "gpcm", gpcm_mats=[np.arange(4.0)[:, None]] * 4, se=False).loglik


@case("12-gpcm_mats", "gpcm_mats, two scoring functions", FIRST,
      "sf <- rep(list(matrix(c(0, 1, 2, 3, 1, 0, 0, 1), 4, 2)), 4); "
      "m <- mirt(Science, mirt.model('F1 = 1-4\\nF2 = 1-4\\nCOV = F1*F2', quiet = TRUE), itemtype = rep('gpcm', 4), "
      "gpcm_mats = sf, quadpts = 21, verbose = FALSE); c(extract.mirt(m, 'logLik'), coef(m)[[1]][1:2])")
def _():
    sf = np.array([[0, 1], [1, 0], [2, 0], [3, 1]], dtype=float)
    fit = calibrate(science(), "gpcm", spec="F1 = 1-4\nF2 = 1-4\nCOV = F1*F2", gpcm_mats=[sf] * 4, quadpts=21,
                    se=False)
    table = fit.parameters()
    return np.r_[fit.loglik, table.loc[table["item"] == "Comfort", "value"].to_numpy()[:2]]


# === test-13-grsmIRT ==================================================================================
@case("13-grsmIRT", "grsmIRT coefficients", FIRST,
      "unname(coef(mirt(Science, 1, itemtype = 'grsmIRT', verbose = FALSE), as.data.frame = TRUE)[, 1])")
def _():
    return calibrate(science(), "grsmIRT", se=False).parameters()["value"].to_numpy()  # every parameter, in order


@case("13-grsmIRT", "grsmIRT, three categories", FIRST,
      "dat <- Science; dat[dat == 1] <- 2; logLik(mirt(dat, 1, itemtype = 'grsmIRT', verbose = FALSE))")
def _():
    return calibrate(science().replace(1, 2), "grsmIRT", se=False).loglik


@case("13-grsmIRT", "grsm (slope-intercept form)", FIRST,
      "m <- mirt(Science, 1, itemtype = 'grsm', verbose = FALSE); c(logLik(m), mod2values(m)$value)")
def _():
    fit = calibrate(science(), "grsm", se=False)
    return np.r_[fit.loglik, fit.parameters()["value"].to_numpy()]


# === test-14-unfolding ================================================================================
@case("14-unfolding", "ggum item among graded", FIRST,
      "m <- suppressWarnings(mirt(Science, 1, c('graded', 'graded', 'graded', 'ggum'), verbose = FALSE)); "
      "c(logLik(m), fscores(m)[1:6])")
def _():
    fit = calibrate(science(), ["graded"] * 3 + ["ggum"], se=False)
    return np.r_[fit.loglik, fit.abilities()["theta"].to_numpy()[:6]]


@case("14-unfolding", "ideal point model", FIRST, f"{R_LSAT6}; logLik(mirt(dat, 1, 'ideal', verbose = FALSE))")
def _():
    return calibrate(lsat6(), "ideal", se=False).loglik


@case("14-unfolding", "hcm item", FIRST,
      f"{R_LSAT6}; logLik(mirt(dat, 1, c(rep('2PL', 4), 'hcm'), verbose = FALSE))")
def _():
    return calibrate(lsat6(), ["2PL"] * 4 + ["hcm"], se=False).loglik


# === test-15-IRTpars ==================================================================================
R_3PL = f"{R_LSAT7}; m <- mirt(data, 1, '3PL', SE = TRUE, verbose = FALSE)"


def fit_3pl():
    return calibrate(lsat7(), "3PL")


@case("15-IRTpars", "3PL, IRT parameters", FIRST, f"{R_3PL}; as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$items)")
def _():
    return col(fit_3pl().items)


@case("15-IRTpars", "3PL, SEs of b and g", FIRST,
      f"{R_3PL}; sapply(coef(m, IRTpars = TRUE, printSE = TRUE)[1:5], function(x) x['SE', c('b', 'g')])")
def _():
    return fit_3pl().standard_errors[["b", "g"]].to_numpy().ravel()


@case("15-IRTpars", "Rasch, b", FIRST,
      f"{R_LSAT7}; coef(mirt(data, 1, 'Rasch', verbose = FALSE), IRTpars = TRUE, simplify = TRUE)$items[, 'b']")
def _():
    return calibrate(lsat7(), "rasch", se=False).items["b"]


@case("15-IRTpars", "slope-intercept d with its CI", FIRST, f"{R_3PL}; as.numeric(coef(m)[[1]][, 'd'])")
def _():
    return fit_3pl().coefficients().loc[("Item.1", "d"), ["value", "lower", "upper"]].to_numpy(dtype=float)


# === test-16-DCIRT: non-normal latent densities =====================================================
@case("16-DCIRT", "dentype 'EHW'", FIRST, f"{R_DCIRT}; extract.mirt(mirt(dat_bm, 1, dentype = 'EHW', verbose = FALSE), 'logLik')")
def _():
    return calibrate(dcirt(), "2PL", dentype="EHW", se=False).loglik


@case("16-DCIRT", "Davidian-6, logLik and items", FIRST,
      f"{R_DCIRT}; m <- mirt(dat_bm, 1, dentype = 'Davidian-6', verbose = FALSE); "
      "c(logLik(m), as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$items[, 1:2]))")
def _():
    fit = calibrate(dcirt(), "2PL", dentype="Davidian-6", se=False)
    return np.r_[fit.loglik, col(fit.items[["a", "b"]])]


@case("16-DCIRT", "EAP under the estimated density", FIRST,
      f"{R_DCIRT}; m <- mirt(dat_bm, 1, dentype = 'Davidian-6', verbose = FALSE); "
      "fscores(m, use_dentype_estimate = TRUE)[1:3]")
def _():
    fit = calibrate(dcirt(), "2PL", dentype="Davidian-6", se=False)
    return fit.abilities(use_dentype_estimate=True)["theta"].to_numpy()[:3]


# === test-17-DIF_DRF ==================================================================================
R_CONFIG = f"{R_DIF1}; m <- multipleGroup(dat, 1, group, SE = TRUE, verbose = FALSE)"
R_ANCHORED = (f"{R_DIF1}; m <- multipleGroup(dat, 1, group, SE = TRUE, verbose = FALSE, "
              "invariance = c(colnames(dat)[1:5], 'free_means', 'free_var'))")


def dif_fit(anchored: bool = False):
    dat, group = dif1()
    return calibrate_groups(dat, group, "2PL", [*dat.columns[:5], "free_means", "free_var"] if anchored else [])


@case("17-DIF_DRF", "DIF, add, intercepts", FIRST,
      f"{R_CONFIG}; out <- DIF(m, which.par = 'd', items2test = c(1, 3)); as.numeric(as.matrix(out[, c('AIC', 'X2', 'df', 'p')]))")
def _():
    out = irtbridge.dif(dif_fit(), ["d"], items=["Item_1", "Item_3"])
    return col(out[["AIC", "X2", "df", "p"]])


@case("17-DIF_DRF", "DIF, drop, anchored", FIRST,
      f"{R_ANCHORED}; out <- DIF(m, which.par = c('a1', 'd'), items2test = 6:10, scheme = 'drop'); "
      "as.numeric(as.matrix(out[, c('AIC', 'X2', 'df', 'p')]))")
def _():
    out = irtbridge.dif(dif_fit(True), ["a1", "d"], scheme="drop", items=[f"Item_{i}" for i in range(6, 11)])
    return col(out[["AIC", "X2", "df", "p"]])


@case("17-DIF_DRF", "DIF by Wald tests", FIRST,
      f"{R_CONFIG}; DIF(m, which.par = 'd', items2test = 1:3, Wald = TRUE)$W")
def _():
    return irtbridge.dif(dif_fit(), ["d"], items=["Item_1", "Item_2", "Item_3"], method="wald")["W"]


@case("17-DIF_DRF", "DRF", FIRST,
      f"{R_ANCHORED}; d <- DRF(m); as.numeric(as.matrix(d[, sapply(d, is.numeric)]))")
def _():
    return col(dif_fit(True).drf().select_dtypes("number"))


# === test-18-LLTM =====================================================================================
@case("18-LLTM", "LLTM (item.formula)", FIRST,
      f"{R_MIXED}; itemdesign <- data.frame(difficulty = factor(rep(c('easy', 'hard'), each = 5))); "
      "m <- mirt(data, 1, 'Rasch', item.formula = ~ 0 + difficulty, itemdesign = itemdesign, verbose = FALSE); "
      "c(logLik(m), coef(m)[[1]][1, c('difficultyeasy', 'difficultyhard')])")
def _():
    data, _ = mixed()
    design = pd.DataFrame({"difficulty": ["easy"] * 5 + ["hard"] * 5}, index=data.columns)
    fit = irtbridge.calibration.calibrate_mixed(data, item_covariates=design, item_formula="~ 0 + difficulty",
                                                se=False)
    return np.r_[fit.loglik, fit.fixef["Estimate"].to_numpy()]


not_expressible("18-LLTM", "MLTM (item.formula per trait)",
                "mirt(dat, syntax, itemtype, itemdesign = itemdesign, item.formula = list(theta1 ~ ..., theta2 ~ ...))",
                "as above: R formulas")


@case("18-LLTM", "partially compensatory items (PC1PL)", FIRST,
      f"{R_MLTM}; logLik(mirt(dat, {MLTM_SYNTAX!r}, itemtype = c(rep('Rasch', 18), rep('PC1PL', 12)), verbose = FALSE))")
def _():
    return calibrate(mltm(), ["Rasch"] * 18 + ["PC1PL"] * 12, spec=MLTM_SYNTAX, se=False).loglik


# === test-19-PIRT: projective IRT from a bifactor fit ===============================================
R_BF = f"{R_SAT12}; m <- mts_memo('bf_sat12', bfactor(data, {R_SPECIFIC}, verbose = FALSE))"


@case("19-PIRT", "pirt, logLik", PASS, f"{R_BF}; logLik(pirt(m))")
def _():
    return M.extract_mirt(M.pirt(bfactor_sat12()), "logLik")


@case("19-PIRT", "pirt, FA estimator", PASS, f"{R_BF}; as.numeric(pirt(m, estimator = 'FA')[1, ])")
def _():
    return M.pirt(bfactor_sat12(), estimator="FA").iloc[0].to_numpy(dtype=float)


@case("19-PIRT", "pirt, short form", PASS,
      f"{R_BF}; coef(pirt(m, shortform = c('Item.1', 'Item.5', 'Item.10')), simplify = TRUE)$items[, 1]")
def _():
    short = M.pirt(bfactor_sat12(), shortform=["Item.1", "Item.5", "Item.10"])
    return M.coef(short, simplify=True)["items"].iloc[:, 0]
