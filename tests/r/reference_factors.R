# Reference fits for tests/em/test_factors.py: mirt's multidimensional 2PL called directly.
#   Rscript tests/r/reference_factors.R OUT.json CASE DATA.csv [CASE DATA.csv ...]
# CASE: quad2 (mirt(data, 2, method = "EM"), 31 points per factor, TOL = 1e-6, and its loadings from
#       summary(fit, rotate = "oblimin") and "varimax"),
#       lsat7 (the same on mirt's LSAT7, 1,000 x 5; DATA ignored, the 0/1 matrix is returned), qmc4 (mirt(data, 4, method = "QMCEM")), mhrm4 (mirt(data, 4, method = "MHRM"), with
#       its importance-sampled logLik and SElogLik).
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
fitted <- function(m) {
  cf <- coef(m, simplify = TRUE)$items
  nf <- extract.mirt(m, "nfact")
  list(a = unname(cf[, paste0("a", seq_len(nf)), drop = FALSE]), d = unname(cf[, "d"]),
       loglik = extract.mirt(m, "logLik"), converged = extract.mirt(m, "converged"),
       iterations = extract.mirt(m, "iterations"))
}
set.seed(1)
cases <- list(
  quad2 = function(data) {
    m <- mirt(data, 2, "2PL", method = "EM", TOL = 1e-6, technical = list(NCYCLES = 5000), verbose = FALSE)
    out <- fitted(m)
    for (rot in c("oblimin", "varimax")) {
      s <- summary(m, rotate = rot, verbose = FALSE)
      out[[rot]] <- list(loadings = unname(unclass(s$rotF)), phi = unname(unclass(s$fcor)))
    }
    out
  },
  lsat7 = function(data) {
    bin <- expand.table(LSAT7)
    out <- fitted(mirt(bin, 2, "2PL", method = "EM", TOL = 1e-6, technical = list(NCYCLES = 5000), verbose = FALSE))
    out$data <- unname(bin)
    out
  },
  qmc4 = function(data) fitted(mirt(data, 4, "2PL", method = "QMCEM", verbose = FALSE)),
  mhrm4 = function(data) {
    m <- mirt(data, 4, "2PL", method = "MHRM", verbose = FALSE)
    out <- fitted(m)
    out$se_loglik <- m@Fit$SElogLik
    out
  }
)
out <- list()
pairs <- matrix(args[-1], nrow = 2)
for (k in seq_len(ncol(pairs))) {
  data <- as.matrix(read.csv(pairs[2, k], check.names = FALSE))
  out[[pairs[1, k]]] <- cases[[pairs[1, k]]](data)
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null"), args[1])
