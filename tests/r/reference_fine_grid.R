# Reference fit for tests/em/test_fine_grid.py: mirt's 2PL EM called directly on a grid finer than its
# default, quadpts = 121 on [-6, 6] (spacing 0.1), TOL = 1e-6, as the native fit is given.
#   Rscript tests/r/reference_fine_grid.R X.csv OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
x <- as.matrix(read.csv(args[1], check.names = FALSE))
m <- mirt(x, 1, itemtype = "2PL", quadpts = 121, TOL = 1e-6, technical = list(NCYCLES = 5000), verbose = FALSE)
it <- coef(m, simplify = TRUE)$items
out <- list(a = unname(it[, "a1"]), d = unname(it[, "d"]), loglik = extract.mirt(m, "logLik"),
            cycles = extract.mirt(m, "iterations"))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[2])
