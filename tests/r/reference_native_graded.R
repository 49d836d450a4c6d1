# Reference fits for tests/test_native_graded.py: mirt's graded EM called directly, with the quadrature
# (61 nodes on [-6, 6]) and TOL = 1e-6 the native engine is given.
#   Rscript tests/r/reference_native_graded.R OUT.json MIXED.csv
# MIXED.csv: simulated graded responses, items with 2, 3 and 5 categories, 30% of the cells missing (NA).
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
fit <- function(data) {
  m <- mirt(data, 1, itemtype = "graded", TOL = 1e-6, quadpts = 61, technical = list(NCYCLES = 5000),
            verbose = FALSE)
  irt <- coef(m, IRTpars = TRUE, simplify = TRUE)$items
  si <- coef(m, simplify = TRUE)$items
  list(a = unname(irt[, "a"]), b = unname(irt[, grepl("^b", colnames(irt)), drop = FALSE]),
       d = unname(si[, grepl("^d", colnames(si)), drop = FALSE]),
       loglik = extract.mirt(m, "logLik"), nest = extract.mirt(m, "nest"),
       converged = extract.mirt(m, "converged"),
       eap = unname(fscores(m, method = "EAP", quadpts = 61, theta_lim = c(-6, 6))[, 1]))
}
mixed <- as.matrix(read.csv(args[2], check.names = FALSE))
out <- list(science = fit(Science), mixed = fit(mixed))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null", matrix = "rowmajor"), args[1])
