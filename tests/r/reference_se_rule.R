# Reference for tests/test_se_rule.py: the 3PL on a classifier-shaped matrix, fitted by plain ltm and
# mirt calls WITHOUT standard errors (the estimates the bridge must keep when the SE step fails), and
# the proof that asking ltm for SEs fails on this matrix.
#   Rscript tests/r/reference_se_rule.R OUT.json RESPONSES.csv
suppressPackageStartupMessages({ library(mirt); library(ltm); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[2], check.names = FALSE)
fit_ltm <- tpm(d)
cf <- fit_ltm$coefficients
ltm_items <- list(a = unname(cf[, 3]), b = unname(-cf[, 2] / cf[, 3]),
                  g = unname(plogis(cf[, 1]) * fit_ltm$max.guessing))
ltm_se_error <- tryCatch({ ltm:::IRT.parm(fit_ltm, standard.errors = TRUE); "" },
                         error = function(e) conditionMessage(e))
fit_mirt <- mirt(as.matrix(d), 1, itemtype = "3PL", SE = FALSE, verbose = FALSE)
it <- coef(fit_mirt, IRTpars = TRUE, simplify = TRUE)$items
mirt_items <- list(a = unname(it[, "a"]), b = unname(it[, "b"]), g = unname(it[, "g"]))
writeLines(toJSON(list(ltm = ltm_items, ltm_loglik = as.numeric(logLik(fit_ltm)), ltm_se_error = ltm_se_error,
                       mirt = mirt_items, mirt_loglik = extract.mirt(fit_mirt, "logLik")),
                  digits = NA, auto_unbox = TRUE), args[1])
