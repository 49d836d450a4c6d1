# Reference for tests/calibration/test_bifactor.py: mirt's bfactor called directly.
#   Rscript tests/r/reference_bifactor.R OUT.json RESPONSES.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
dat <- as.matrix(read.csv(args[2], check.names = FALSE))
cols <- function(x) lapply(as.data.frame(x, check.names = FALSE), unname)
ses <- function(fit) {  # the SE row of every item's coef(printSE = TRUE), NA where mirt reports none
  per <- coef(fit, printSE = TRUE)[colnames(dat)]
  lapply(per, function(m) as.list(m["SE", ]))
}
specific <- c(1, 1, 1, 2, 2, 2, 3, 3, 3, 3)
fit <- bfactor(dat, specific, SE = TRUE, verbose = FALSE)
out <- list(items = cols(coef(fit, simplify = TRUE)$items), loglik = extract.mirt(fit, "logLik"),
            factors = extract.mirt(fit, "factorNames"), se = ses(fit), nest = extract.mirt(fit, "nest"))
# an item with no specific factor, a second-tier model with a constraint, and bfactor's own quadpts
partial <- bfactor(dat, c(1, 1, 1, 2, 2, 2, 3, 3, 3, NA), model2 = mirt.model("G = 1-10\nCONSTRAIN = (1, 2, a1)"),
                   quadpts = 15, verbose = FALSE)
out$partial <- list(items = cols(coef(partial, simplify = TRUE)$items), loglik = extract.mirt(partial, "logLik"))
# polytomous items: Science, two specific factors
sci <- bfactor(Science, c(1, 1, 2, 2), itemtype = "graded", verbose = FALSE)
out$science <- list(items = cols(coef(sci, simplify = TRUE)$items), loglik = extract.mirt(sci, "logLik"))
# the arguments bfactor reads (its own and, through `...`, mirt's estimation routine's)
out$formals <- unique(c(names(formals(bfactor)), names(formals(mirt:::ESTIMATION)), names(formals(mirt:::makeopts))))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null"), args[1])
