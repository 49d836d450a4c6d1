# Reference fits for tests/test_native_em.py: mirt's EM called directly, same quadrature (61 nodes) and
# TOL = 1e-6 as the native engine is given.
#   Rscript tests/r/reference_native_em.R OUT.json MISSING.csv SAT12_KEYED.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
key <- c(1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5)
sat12 <- key2binary(SAT12, key)
write.csv(sat12, args[3], row.names = FALSE)
missing <- as.matrix(read.csv(args[2], check.names = FALSE))
lsat7 <- expand.table(LSAT7)
fit <- function(data, itemtype, equal_slopes = FALSE) {
  args <- list(data = data, model = 1, itemtype = itemtype, TOL = 1e-6, quadpts = 61,
               technical = list(NCYCLES = 5000), verbose = FALSE)
  if (equal_slopes) {
    sv <- do.call(mirt, c(args, list(pars = "values")))
    args$constrain <- list(sv$parnum[sv$name == "a1"])
  }
  m <- do.call(mirt, args)
  it <- coef(m, IRTpars = TRUE, simplify = TRUE)
  list(a = unname(it$items[, "a"]), b = unname(it$items[, "b"]), var = unname(it$cov[1, 1]),
       loglik = extract.mirt(m, "logLik"),
       eap = unname(fscores(m, method = "EAP", quadpts = 61, theta_lim = c(-6, 6))[, 1]))
}
out <- list(lsat7_2PL = fit(lsat7, "2PL"), lsat7_rasch = fit(lsat7, "Rasch"), lsat7_1PL = fit(lsat7, "2PL", TRUE),
            sat12_2PL = fit(sat12, "2PL"), missing_2PL = fit(missing, "2PL"))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
