"""The registry of mirt test-suite cases (tests/conformance/runner.py), files test-00 to test-09.

Each case pairs an R snippet (fixed text written here, shortened from one call of mirt's own
``tests/testthat/test-*.R``; the last value is a numeric vector) with a Python function that computes the
same numbers through irtbridge's public API, and names the route it takes:

- ``first-class``: irtbridge's own functions and methods (``calibrate``, ``Calibration`` methods and
  attributes, ``calibrate_groups``, ``dif``, ``compare``, ``score_key``, ``simulate``, ``irtbridge.irt``),
  with only documented arguments (mirt's estimation options ``method``, ``TOL``, ``quadpts``,
  ``technical``, ``SE_type``, ``optimizer`` included);
- ``passthrough``: at least one step through ``irtbridge.mirt.<function>(...)``;
- ``not expressible``: neither can say it (the reason is stated; no Python function).

Read mirt's tests to learn what they exercise; nothing is copied from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

import irtbridge
from irtbridge import calibrate, calibrate_groups
from irtbridge.calibration import ModelSpec
from .data import (
    R_CONF, R_KEY, R_LSAT6, R_LSAT7, R_MG1, R_SAT12, R_SPECIFIC, SAT12_SPECIFIC, conftwo, lsat6, lsat7, mg1, sat12, science,
)

FIRST, PASS, NONE = "first-class", "passthrough", "not expressible"
ROUTES = (FIRST, PASS, NONE)
M = irtbridge.mirt  # the typed passthrough: every mirt export by its R name


@dataclass(frozen=True)
class Case:
    file: str
    name: str
    route: str
    r: str
    py: Callable[[], Any] | None = None
    tol: float = 1e-8
    note: str = ""


CASES: list[Case] = []


def case(file: str, name: str, route: str, r: str, tol: float = 1e-8, note: str = ""):
    """Register the decorated function as the Python side of a case."""
    def register(fn: Callable[[], Any]) -> Callable[[], Any]:
        CASES.append(Case(f"test-{file}.R", name, route, r, fn, tol, note))
        return fn
    return register


def not_expressible(file: str, name: str, r: str, reason: str) -> None:
    CASES.append(Case(f"test-{file}.R", name, NONE, r, None, note=reason))


def col(frame: pd.DataFrame) -> np.ndarray:
    """A table's numbers in R's column-major order (``as.numeric(matrix)``)."""
    return frame.to_numpy(dtype=float).ravel(order="F")


THETA7 = np.arange(-3.0, 4.0)
SCI = "mod <- mirt(Science, 1, verbose = FALSE)"


def sci_fit(**kw):
    return calibrate(science(), "graded", se=False, **kw)


# === test-00-basics: one Science fit, then its by-products ==========================================
@case("00-basics", "expected.test", FIRST, f"{SCI}; expected.test(mod, matrix(-3:3))")
def _():
    return irtbridge.true_score(THETA7, sci_fit())


@case("00-basics", "marginal_rxx, empirical_rxx", FIRST,
      f"{SCI}; c(marginal_rxx(mod), empirical_rxx(fscores(mod, full.scores.SE = TRUE)))")
def _():
    rel = sci_fit().reliability()
    return [rel["marginal"], rel["empirical"]]


@case("00-basics", "testinfo, items 1-2", FIRST, f"{SCI}; testinfo(mod, matrix(-3:3), which.items = 1:2)")
def _():
    return irtbridge.irt.test_information(THETA7, sci_fit().items.iloc[:2], "graded")


@case("00-basics", "probtrace of item 2", FIRST,
      f"{SCI}; as.numeric(probtrace(extract.item(mod, 2), matrix(-3:3)))")
def _():
    return irtbridge.irt.category_probabilities(THETA7, sci_fit().items.iloc[[1]], "graded")[:, 0, :].ravel(order="F")


@case("00-basics", "MDISC, MDIFF", FIRST, f"{SCI}; c(MDISC(mod), as.numeric(MDIFF(mod)))")
def _():
    fit = sci_fit()
    return np.r_[fit.mdisc(), col(fit.mdiff())]


@case("00-basics", "multipleGroup with TOL = NaN", FIRST,
      "group <- rep(c('G1', 'G2'), each = nrow(Science) / 2); "
      "m <- multipleGroup(Science, 1, group = group, TOL = NaN, verbose = FALSE); "
      "c(logLik(m), as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$G2$items))")
def _():
    half = len(science()) // 2
    fit = calibrate_groups(science(), ["G1"] * half + ["G2"] * half, "graded", se=False, TOL=float("nan"))
    return np.r_[fit.loglik, col(fit.items["G2"])]


# === test-01-mirtOne: LSAT7 / LSAT6, dichotomous ==================================================
@case("01-mirtOne", "2PL coefficients", FIRST,
      f"{R_LSAT7}; as.numeric(coef(mirt(data, 1, verbose = FALSE), IRTpars = TRUE, simplify = TRUE)$items)")
def _():
    return col(calibrate(lsat7(), "2PL", se=False).items)


@case("01-mirtOne", "SE.type = 'Richardson' SEs", FIRST,
      f"{R_LSAT7}; m <- mirt(data, 1, SE = TRUE, SE.type = 'Richardson', verbose = FALSE); "
      "cf <- coef(m, IRTpars = TRUE, printSE = TRUE); sapply(cf[1:5], function(x) x['SE', c('a', 'b')])")
def _():
    se = calibrate(lsat7(), "2PL", SE_type="Richardson").standard_errors
    return se[["a", "b"]].to_numpy().ravel()


@case("01-mirtOne", "SE.type = 'SEM' condition number", FIRST,
      f"{R_LSAT7}; extract.mirt(mirt(data, 1, SE = TRUE, SE.type = 'SEM', verbose = FALSE), 'condnum')")
def _():
    return calibrate(lsat7(), "2PL", se=True, SE_type="SEM").condition_number


@case("01-mirtOne", "lagrange on a Rasch fit", FIRST,
      f"{R_LSAT7}; lagrange(mirt(data, 1, 'Rasch', SE = TRUE, verbose = FALSE), parnum = list(1, 5))$X2")
def _():
    return calibrate(lsat7(), "rasch", se=True).lagrange([1, 5])["X2"]


@case("01-mirtOne", "CONSTRAIN syntax, M2", FIRST,
      f"{R_LSAT6}; M2(mirt(dat, 'F = 1-5\\nCONSTRAIN = (1-5, a1)', verbose = FALSE))$M2")
def _():
    return calibrate(lsat6(), "2PL", spec="F = 1-5\nCONSTRAIN = (1-5, a1)", se=False).global_fit()["M2"]


@case("01-mirtOne", "ML scores, CONSTRAIN model 'F'", FIRST,
      f"{R_LSAT7}; m <- mirt(data, mirt.model('F = 1-5\\nCONSTRAIN = (1-5, a1)', quiet = TRUE), verbose = FALSE); "
      "fscores(m, method = 'ML')[c(13, 34, 40), 'F']")
def _():
    fit = calibrate(lsat7(), "2PL", spec="F = 1-5\nCONSTRAIN = (1-5, a1)", se=False)
    return fit.abilities("ML")["theta"].to_numpy()[[12, 33, 39]]


@case("01-mirtOne", "4PL with priors on g and u", FIRST,
      f"{R_LSAT7}; m <- suppressWarnings(mirt(data, 1, '4PL', verbose = FALSE, parprior = "
      "list(c(3, 7, 11, 15, 19, 'norm', -1.7, .1), c(4, 8, 12, 16, 20, 'norm', 1.7, .1)))); "
      "as.numeric(coef(m, simplify = TRUE)$items)",
      note="irtbridge writes the priors into mirt's pars table; mirt itself ends elsewhere from that table "
           "than from parprior (neither converges in 500 cycles)")
def _():
    fit = calibrate(lsat7(), "4PL", se=False, priors={"g": ("norm", -1.7, 0.1), "u": ("norm", 1.7, 0.1)})
    return col(M.coef(fit, simplify=True)["items"])


@case("01-mirtOne", "missing responses", FIRST,
      f"{R_LSAT7}; data[1, 1] <- data[2, 2] <- NA; "
      "as.numeric(coef(mirt(data, 1, verbose = FALSE), IRTpars = TRUE, simplify = TRUE)$items)")
def _():
    data = lsat7().astype(float)
    data.iloc[0, 0] = data.iloc[1, 1] = np.nan
    return col(calibrate(data, "2PL", se=False).items)


@case("01-mirtOne", "itemtype 'ideal'", FIRST,
      f"{R_LSAT7}; as.numeric(coef(mirt(data, 1, 'ideal', verbose = FALSE), simplify = TRUE)$items)")
def _():
    return col(calibrate(lsat7(), "ideal", se=False).items)  # no IRT form in mirt: the slope-intercept table


@case("01-mirtOne", "QMCEM logLik", FIRST,
      f"{R_LSAT6}; extract.mirt(mirt(dat, 1, method = 'QMCEM', optimizer = 'NR', verbose = FALSE), 'logLik')")
def _():
    return calibrate(lsat6(), "2PL", se=False, method="QMCEM", optimizer="NR").loglik


@case("01-mirtOne", "QMCEM: itemfit and residuals with QMC", PASS,
      f"{R_LSAT6}; m <- mirt(dat, 1, method = 'QMCEM', optimizer = 'NR', verbose = FALSE); "
      "c(itemfit(m, QMC = TRUE)$p.S_X2, as.numeric(residuals(m, QMC = TRUE, verbose = FALSE)))")
def _():
    fit = calibrate(lsat6(), "2PL", se=False, method="QMCEM", optimizer="NR")
    return np.r_[M.itemfit(fit, QMC=True)["p.S_X2"], col(M.residuals(fit, QMC=True))]


@case("01-mirtOne", "itemfit S_X2, X2, Zh", FIRST,
      f"{R_LSAT7}; f <- itemfit(mirt(data, 1, verbose = FALSE), c('S_X2', 'X2', 'Zh')); c(f$Zh, f$X2, f$S_X2)")
def _():
    f = calibrate(lsat7(), "2PL", se=False).item_fit(["S_X2", "X2", "Zh"])
    return np.r_[f["Zh"], f["X2"], f["S_X2"]]


@case("01-mirtOne", "residuals LD", FIRST, f"{R_LSAT7}; as.numeric(residuals(mirt(data, 1, verbose = FALSE)))")
def _():
    return col(calibrate(lsat7(), "2PL", se=False).residuals("LD"))


@case("01-mirtOne", "EAPsum table", FIRST,
      f"{R_LSAT7}; as.numeric(as.matrix(fscores(mirt(data, 1, verbose = FALSE), method = 'EAPsum', full.scores = FALSE)))")
def _():
    return col(calibrate(lsat7(), "2PL", se=False).abilities("EAPsum", full_scores=False))


# === test-02-mirtTwo: Science, polytomous =========================================================
@case("02-mirtTwo", "graded coefficients", FIRST,
      f"{SCI}; as.numeric(coef(mod, IRTpars = TRUE, simplify = TRUE)$items)")
def _():
    return col(sci_fit().items)


@case("02-mirtTwo", "M2 type C2", FIRST, f"{SCI}; M2(mod, type = 'C2')$M2")
def _():
    return sci_fit().global_fit(type="C2")["M2"]


@case("02-mirtTwo", "itemtype 'sequential'", FIRST,
      "extract.mirt(mirt(Science, 1, 'sequential', verbose = FALSE), 'logLik')")
def _():
    return calibrate(science(), "sequential", se=False).loglik


@case("02-mirtTwo", "SE.type = 'Louis' SEs", FIRST,
      "m <- mirt(Science, 1, SE = TRUE, SE.type = 'Louis', verbose = FALSE); "
      "as.numeric(sapply(coef(m, IRTpars = TRUE, printSE = TRUE)[1:4], function(x) x['SE', ]))")
def _():
    return calibrate(science(), "graded", SE_type="Louis").standard_errors.to_numpy().ravel()


@case("02-mirtTwo", "two factors, coefficients", FIRST,
      "as.numeric(coef(mirt(Science, 2, verbose = FALSE), simplify = TRUE)$items)")
def _():
    return col(calibrate(science(), "graded", dims=2, se=False).items)


@case("02-mirtTwo", "CONSTRAIN + PRIOR syntax", FIRST,
      "m <- mirt(Science, mirt.model('F = 1-4\\nCONSTRAIN = (1-2, a1)\\nPRIOR = (1, d1, norm, 4, 1)'), verbose = FALSE); "
      "as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$items)")
def _():
    spec = "F = 1-4\nCONSTRAIN = (1-2, a1)\nPRIOR = (1, d1, norm, 4, 1)"
    return col(calibrate(science(), "graded", spec=spec, se=False).items)


@case("02-mirtTwo", "graded + nominal mix, EAP", FIRST,
      "m <- mirt(Science, 1, itemtype = c(rep('graded', 3), 'nominal'), verbose = FALSE); "
      "c(extract.mirt(m, 'logLik'), fscores(m)[1:6])")
def _():
    fit = calibrate(science(), ["graded"] * 3 + ["nominal"], se=False)
    return np.r_[fit.loglik, fit.abilities("EAP")["theta"].to_numpy()[:6]]


@case("02-mirtTwo", "dentype 'empiricalhist'", FIRST,
      "m <- mirt(Science, 1, dentype = 'empiricalhist', TOL = 1e-3, verbose = FALSE); "
      "as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$items)")
def _():
    return col(calibrate(science(), "graded", se=False, dentype="EH", TOL=1e-3).items)


@case("02-mirtTwo", "EAP of a response pattern", FIRST,
      f"{SCI}; as.numeric(fscores(mod, response.pattern = c(1, 2, 3, 4))[, c('F1', 'SE_F1')])")
def _():
    return sci_fit().abilities("EAP", responses=pd.DataFrame([[1, 2, 3, 4]], columns=science().columns)).to_numpy()


@case("02-mirtTwo", "WLE scores", FIRST, f"{SCI}; fscores(mod, method = 'WLE', full.scores.SE = TRUE)[1:3, ]")
def _():
    return col(sci_fit().abilities("WLE").iloc[:3])


@case("02-mirtTwo", "residuals Q3", FIRST, f"{SCI}; as.numeric(residuals(mod, type = 'Q3'))")
def _():
    return col(sci_fit().residuals("Q3"))


@case("02-mirtTwo", "residuals LDG2", FIRST, f"{SCI}; as.numeric(residuals(mod, type = 'LDG2'))")
def _():
    return col(sci_fit().residuals("LDG2"))


@case("02-mirtTwo", "fscores with prior mean and cov", FIRST,
      "m <- mirt(Science, 2, verbose = FALSE); "
      "as.numeric(suppressWarnings(fscores(m, returnER = TRUE, mean = c(-1, 1), cov = matrix(c(1.5, 1, 1, 2), 2))))",
      note="returnER is empirical_rxx of the scores: var(theta) / (var(theta) + mean(se^2)) per factor")
def _():
    fit = calibrate(science(), "graded", dims=2, se=False)
    s = fit.abilities(mean=[-1.0, 1.0], cov=[[1.5, 1.0], [1.0, 2.0]])
    theta, se = s[["F1", "F2"]], s[["se_F1", "se_F2"]].to_numpy()
    return theta.var().to_numpy() / (theta.var().to_numpy() + (se ** 2).mean(axis=0))


# === test-03-bfactor: SAT12 scored with its key =================================================
@case("03-bfactor", "key2binary", FIRST, f"{R_SAT12}; as.numeric(as.matrix(data))")
def _():
    return col(sat12())


@case("03-bfactor", "bfactor, three specific factors", FIRST,
      f"{R_SAT12}; m <- mts_memo('bf_sat12', bfactor(data, {R_SPECIFIC}, verbose = FALSE)); "
      "c(extract.mirt(m, 'logLik'), as.numeric(coef(m, simplify = TRUE)$items[, 1:5]))")
def _():
    fit = irtbridge.calibration.calibrate_bifactor(sat12(), SAT12_SPECIFIC, se=False)
    return np.r_[fit.loglik, col(fit.items.iloc[:, :5])]


_BF: dict[str, Any] = {}


def bfactor_sat12():
    if "fit" not in _BF:
        _BF["fit"] = M.bfactor(sat12(), SAT12_SPECIFIC)
    return _BF["fit"]


@case("03-bfactor", "2PLNRM items with a key", FIRST,
      f"{R_SAT12}; raw <- data; raw[, 1:5] <- as.matrix(SAT12[, 1:5]); raw[raw == 8] <- NA; "
      f"extract.mirt(mirt(raw, 1, c(rep('2PLNRM', 5), rep('2PL', 27)), key = {R_KEY}, verbose = FALSE), 'logLik')")
def _():
    from irtbridge.example_data import r_dataset
    from .data import SAT12_KEY

    raw = sat12().copy()
    answers = r_dataset("mirt", "SAT12").iloc[:, :5].astype(float)
    raw.iloc[:, :5] = answers.where(answers != 8).to_numpy()
    return calibrate(raw, ["2PLNRM"] * 5 + ["2PL"] * 27, key=SAT12_KEY, se=False).loglik


# === test-04-multipleGroup ===========================================================================
@case("04-multipleGroup", "configural, logLik and items", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, mirt.model('F1 = 1-15', quiet = TRUE), group = group, verbose = FALSE); "
      "c(logLik(m), as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$D2$items[, 1:2]))")
def _():
    dat, group = mg1()
    fit = calibrate_groups(dat, group, "2PL", se=False)
    return np.r_[fit.loglik, col(fit.items["D2"][["a", "b"]])]


@case("04-multipleGroup", "scalar invariance, free mean/var", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, 1, group = group, verbose = FALSE, "
      "invariance = c('slopes', 'intercepts', 'free_var', 'free_means')); "
      "c(logLik(m), coef(m)$D2$GroupPars[1:2])")
def _():
    dat, group = mg1()
    fit = calibrate_groups(dat, group, "2PL", ["slopes", "intercepts", "free_var", "free_means"], se=False)
    return [fit.loglik, fit.latent_means["D2"], fit.latent_vars["D2"]]


@case("04-multipleGroup", "Rasch groups (estimates)", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, 1, itemtype = 'Rasch', group = group, SE = TRUE, SE.type = 'crossprod', verbose = FALSE); "
      "c(logLik(m), as.numeric(coef(m, IRTpars = TRUE, simplify = TRUE)$D1$items[, 'b']))")
def _():
    dat, group = mg1()
    fit = calibrate_groups(dat, group, "rasch", se=False)  # estimates only
    return np.r_[fit.loglik, fit.items["D1"]["b"].to_numpy()]


@case("04-multipleGroup", "Rasch groups, coef with printSE", PASS,
      f"{R_MG1}; m <- multipleGroup(dat, 1, itemtype = 'Rasch', group = group, SE = TRUE, SE.type = 'crossprod', "
      "verbose = FALSE); "
      "as.numeric(na.omit(do.call(rbind, coef(m, printSE = TRUE, as.data.frame = TRUE))))")
def _():
    dat, group = mg1()
    fit = calibrate_groups(dat, group, "rasch", SE_type="crossprod")
    coefs = M.coef(fit, printSE=True, as_data_frame=True)
    return col(pd.concat([coefs[g] for g in ("D1", "D2")]).dropna())  # R's na.omit drops incomplete rows


@case("04-multipleGroup", "M2 of a group fit", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, 1, group = group, invariance = 'slopes', verbose = FALSE); M2(m)$M2")
def _():
    dat, group = mg1()
    return calibrate_groups(dat, group, "2PL", ["slopes"], se=False).global_fit()["M2"]


@case("04-multipleGroup", "itemfit of a group fit", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, 1, group = group, invariance = 'slopes', verbose = FALSE); "
      "itemfit(m, c('S_X2', 'Zh'))$D1$S_X2")
def _():
    dat, group = mg1()
    fit = calibrate_groups(dat, group, "2PL", ["slopes"], se=False)
    return fit.item_fit(["S_X2", "Zh"]).loc["D1", "S_X2"].to_numpy(dtype=float)


@case("04-multipleGroup", "three factors, metric invariance", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, 'F1 = 1-5\\nF2 = 6-10\\nF3 = 11-15', group = group, "
      "invariance = 'slopes', verbose = FALSE, TOL = 1e-3); logLik(m)")
def _():
    dat, group = mg1()
    return calibrate_groups(dat, group, "2PL", ["slopes"], spec="F1 = 1-5\nF2 = 6-10\nF3 = 11-15", se=False,
                            TOL=1e-3).loglik


@case("04-multipleGroup", "empirical_ES", FIRST,
      f"{R_MG1}; m <- multipleGroup(dat, 1, group = group, verbose = FALSE); as.numeric(as.matrix(empirical_ES(m)[1, ]))")
def _():
    dat, group = mg1()
    return calibrate_groups(dat, group, "2PL", se=False).empirical_es().iloc[0].to_numpy(dtype=float)


# === test-05-confmirtOne: LSAT7, exploratory ====================================================
@case("05-confmirtOne", "Wald test of a contrast", FIRST,
      f"{R_LSAT7}; m <- mirt(data, 1, SE = TRUE, verbose = FALSE); L <- matrix(0, 1, 10); "
      "L[1, c(1, 3, 5, 7, 9)] <- 1; wald(m, L)$W")
def _():
    L = np.zeros((1, 10))
    L[0, [0, 2, 4, 6, 8]] = 1
    return calibrate(lsat7(), "2PL", se=True).wald(L)["W"]


def slope_intercept(fit) -> pd.DataFrame:
    """The items of a fit in mirt's slope-intercept form (``coef(fit, simplify = TRUE)$items``), from its
    parameter table."""
    table = fit.parameters()
    table = table[table["item"] != "GROUP"]
    return table.pivot(index="item", columns="name", values="value").loc[fit.item_names, table["name"].unique()]


@case("05-confmirtOne", "method = 'SEM' (stochastic EM)", FIRST,
      f"{R_LSAT7}; set.seed(1); as.numeric(coef(mirt(data, 1, method = 'SEM', verbose = FALSE), simplify = TRUE)$items)",
      note="mirt seeds SEM itself (12345), whatever R's seed")
def _():
    return col(slope_intercept(calibrate(lsat7(), "2PL", method="SEM", se=False)))


@case("05-confmirtOne", "M2", FIRST, f"{R_LSAT7}; M2(mirt(data, 1, verbose = FALSE))$M2")
def _():
    return calibrate(lsat7(), "2PL", se=False).global_fit()["M2"]


@case("05-confmirtOne", "fscores under a N(1, 2) prior", FIRST,
      f"{R_LSAT7}; fscores(mirt(data, 1, verbose = FALSE), mean = 1, cov = matrix(2), full.scores = FALSE)[1:3, 'F1']")
def _():
    out = calibrate(lsat7(), "2PL", se=False).abilities(mean=1.0, cov=2.0, full_scores=False)
    return out["theta"].to_numpy()[:3]


@case("05-confmirtOne", "two factors by MHRM", FIRST,
      f"{R_LSAT7}; set.seed(1); extract.mirt(mirt(data, 2, method = 'MHRM', draws = 10, verbose = FALSE), 'logLik')",
      note="mirt seeds MHRM itself (12345), whatever R's seed")
def _():
    return calibrate(lsat7(), "2PL", dims=2, method="MHRM", draws=10, se=False).loglik


# === test-06-confmirtTwo: two correlated factors, mixed items ====================================
MODEL1 = "F1 = 1-4\nF2 = 4-8\nCOV = F1*F2"
TYPES6 = ["2PL"] * 4 + ["graded"] * 3 + ["2PL"]


@case("06-confmirtTwo", "crossed structure with COV", FIRST,
      f"{R_CONF}; m <- mirt(dataset, mirt.model('F1 = 1-4\\nF2 = 4-8\\nCOV = F1*F2', quiet = TRUE), verbose = FALSE); "
      "c(extract.mirt(m, 'logLik'), as.numeric(coef(m, simplify = TRUE)$items[, 1:3]))")
def _():
    fit = calibrate(conftwo(), TYPES6, spec=MODEL1, se=False)
    return np.r_[fit.loglik, col(fit.items.iloc[:, :3])]


@case("06-confmirtTwo", "latent interaction (F1*F2)", FIRST,
      f"{R_CONF}; m <- mirt(dataset, mirt.model('F1 = 1-4\\nF2 = 5-8\\n(F1*F2) = 1,5', quiet = TRUE), verbose = FALSE); "
      "extract.mirt(m, 'logLik')")
def _():
    return calibrate(conftwo(), TYPES6, spec="F1 = 1-4\nF2 = 5-8\n(F1*F2) = 1,5", se=False).loglik


@case("06-confmirtTwo", "WLE of two response patterns", FIRST,
      f"{R_CONF}; m <- mirt(dataset, mirt.model('F1 = 1-4\\nF2 = 4-8\\nCOV = F1*F2', quiet = TRUE), verbose = FALSE); "
      "as.numeric(fscores(m, method = 'WLE', response.pattern = dataset[1:2, ])[, c('F1', 'F2')])")
def _():
    fit = calibrate(conftwo(), TYPES6, spec=MODEL1, se=False)
    return col(fit.abilities("WLE", responses=conftwo().iloc[:2])[["F1", "F2"]])


@case("06-confmirtTwo", "testinfo in a direction", FIRST,
      f"{R_CONF}; m <- mirt(dataset, mirt.model('F1 = 1-4\\nF2 = 4-8\\nCOV = F1*F2', quiet = TRUE), verbose = FALSE); "
      "testinfo(m, as.matrix(expand.grid(-4:4, -4:4)), degrees = c(30, 40))")
def _():
    fit = calibrate(conftwo(), TYPES6, spec=MODEL1, se=False)
    grid = np.array([(x, y) for y in range(-4, 5) for x in range(-4, 5)], dtype=float)
    return fit.test_information(grid, degrees=[30.0, 40.0])


# === test-07..09 follow in cases2 ===
