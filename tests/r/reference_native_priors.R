# Reference fits for tests/em/test_native_priors.py and tests/calibration/test_flags.py: mirt's 2PL and
# 1PL (2PL with every a1 constrained equal) with priors written into its parameter table, called directly,
# 61 nodes, TOL = 1e-6; and mirt's 2PL without priors on the runaway matrix (its own defaults).
#   Rscript tests/r/reference_native_priors.R OUT.json RUNAWAY.csv CASE [CASE ...]
# CASE: lsat7_2PL, lsat7_1PL, runaway_2PL (priors), runaway_ml (mirt's defaults, no priors)
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
lsat7 <- expand.table(LSAT7)
runaway <- as.matrix(read.csv(args[2], check.names = FALSE))
with_priors <- function(data, priors, equal_slopes = FALSE, SE = FALSE) {
  sv <- mirt(data, 1, "2PL", pars = "values", verbose = FALSE)
  for (p in names(priors)) {
    rows <- sv$name == p
    sv$prior.type[rows] <- priors[[p]][[1]]
    sv$prior_1[rows] <- priors[[p]][[2]]
    sv$prior_2[rows] <- priors[[p]][[3]]
  }
  constrain <- if (equal_slopes) list(sv$parnum[sv$name == "a1"]) else NULL
  m <- mirt(data, 1, "2PL", pars = sv, constrain = constrain, TOL = 1e-6, quadpts = 61,
            technical = list(NCYCLES = 5000), SE = SE, SE.type = "crossprod", verbose = FALSE)
  it <- coef(m, IRTpars = TRUE, simplify = TRUE)$items
  se <- NULL
  if (SE) {
    rows <- coef(m, IRTpars = TRUE, printSE = TRUE)[seq_len(ncol(data))]
    se <- lapply(c(a = "a", b = "b"), function(p) unname(sapply(rows, function(r) r["SE", p])))
  }
  list(a = unname(it[, "a"]), b = unname(it[, "b"]), se = se, loglik = extract.mirt(m, "logLik"),
       logprior = extract.mirt(m, "logPrior"), converged = extract.mirt(m, "converged"))
}
cases <- list(
  lsat7_2PL = function() with_priors(lsat7, list(a1 = list("lnorm", 0, 0.5), d = list("norm", 0, 2)), SE = TRUE),
  lsat7_1PL = function() with_priors(lsat7, list(a1 = list("norm", 1, 0.5), d = list("norm", 0, 3)), TRUE,
                                     SE = TRUE),
  runaway_2PL = function() with_priors(runaway, list(a1 = list("norm", 1, 0.5))),
  runaway_ml = function() {
    ml <- suppressWarnings(mirt(runaway, 1, "2PL", verbose = FALSE))
    it <- coef(ml, IRTpars = TRUE, simplify = TRUE)$items
    list(a = unname(it[, "a"]), b = unname(it[, "b"]), converged = extract.mirt(ml, "converged"))
  }
)
out <- lapply(setNames(args[-(1:2)], args[-(1:2)]), function(name) cases[[name]]())
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
