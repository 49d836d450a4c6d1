# Reference for tests/test_native_se.py: mirt's SE.type = "crossprod" standard errors (IRT metric, mirt's
# delta method) on fits with the native engine's quadrature (61 nodes) and TOL = 1e-8.
#   Rscript tests/r/reference_native_se.R OUT.json MISSING.csv
# MISSING.csv: a simulated 2PL with half of its cells missing (NA).
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
fit <- function(data, itemtype, equal_slopes = FALSE) {
  a <- list(data = data, model = 1, itemtype = itemtype, SE = TRUE, SE.type = "crossprod", TOL = 1e-8,
            quadpts = 61, technical = list(NCYCLES = 20000), verbose = FALSE)
  if (equal_slopes) {
    sv <- do.call(mirt, c(a, list(pars = "values")))
    a$constrain <- list(sv$parnum[sv$name == "a1"])
  }
  m <- do.call(mirt, a)
  per_item <- coef(m, IRTpars = TRUE, printSE = TRUE)[colnames(data)]
  se <- t(sapply(per_item, function(v) v["SE", ]))
  keep <- colnames(se) == "a" | grepl("^b", colnames(se))
  list(se = unname(se[, keep, drop = FALSE]), columns = colnames(se)[keep])
}
lsat7 <- expand.table(LSAT7)
missing <- as.matrix(read.csv(args[2], check.names = FALSE))
out <- list(lsat7_2PL = fit(lsat7, "2PL"), lsat7_rasch = fit(lsat7, "Rasch"), lsat7_1PL = fit(lsat7, "2PL", TRUE),
            missing_2PL = fit(missing, "2PL"), science_graded = fit(Science, "graded"))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null", matrix = "rowmajor"), args[1])
