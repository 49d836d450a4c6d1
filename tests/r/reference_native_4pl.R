# Reference fits for tests/em/test_native_4pl.py: mirt's 4PL called directly, with priors on every parameter
# (a1 ~ norm(1, 0.5), d ~ norm(0, 3), g ~ expbeta(2, 17), u ~ expbeta(17, 2): mirt's 4PL has no finite ML
# estimate on most data without them), 61 nodes, TOL = 1e-6. For every case:
#   default: mirt's own fit from its own starting values (g = 0.15, u = 0.85);
#   nr_native: mirt's EM with its Newton-Raphson M-step (optimizer = "NR": steps from mirt's own gradient and
#     Hessian) started at the native estimates (a fixed point of mirt's EM stays put), with its
#     SE.type = "crossprod" standard errors (IRT metric, delta method).
#   Rscript tests/r/reference_native_4pl.R OUT.json NAME DATA.csv NATIVE.csv [NAME DATA.csv NATIVE.csv ...]
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
with_priors <- function(data) {
  sv <- mirt(data, 1, "4PL", pars = "values", verbose = FALSE)
  priors <- list(a1 = list("norm", 1, 0.5), d = list("norm", 0, 3), g = list("expbeta", 2, 17),
                 u = list("expbeta", 17, 2))
  for (p in names(priors)) {
    rows <- sv$name == p
    sv$prior.type[rows] <- priors[[p]][[1]]
    sv$prior_1[rows] <- priors[[p]][[2]]
    sv$prior_2[rows] <- priors[[p]][[3]]
  }
  sv
}
fit4 <- function(data, sv, ...) {
  m <- mirt(data, 1, "4PL", pars = sv, TOL = 1e-6, quadpts = 61, technical = list(NCYCLES = 5000),
            verbose = FALSE, ...)
  it <- coef(m, IRTpars = TRUE, simplify = TRUE)$items
  se <- NULL
  if (isTRUE(list(...)$SE)) {
    rows <- coef(m, IRTpars = TRUE, printSE = TRUE)[seq_len(ncol(data))]
    se <- lapply(c(a = "a", b = "b", g = "g", u = "u"), function(p) unname(sapply(rows, function(r) r["SE", p])))
  }
  list(a = unname(it[, "a"]), b = unname(it[, "b"]), g = unname(it[, "g"]), u = unname(it[, "u"]), se = se,
       loglik = extract.mirt(m, "logLik"), logprior = extract.mirt(m, "logPrior"),
       iterations = extract.mirt(m, "iterations"), converged = extract.mirt(m, "converged"))
}
out <- list()
for (k in seq(2, length(args), by = 3)) {
  data <- as.matrix(read.csv(args[k + 1], check.names = FALSE))
  native <- read.csv(args[k + 2], check.names = FALSE)
  sv <- with_priors(data)
  at_native <- sv
  for (p in c("a1", "d", "g", "u")) at_native$value[at_native$name == p] <- native[[p]]
  out[[args[k]]] <- list(
    default = suppressWarnings(fit4(data, sv)),
    nr_native = suppressMessages(suppressWarnings(fit4(data, at_native, optimizer = "NR", SE = TRUE,
                                                       SE.type = "crossprod"))))
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
