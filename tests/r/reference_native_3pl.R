# Reference fits for tests/irt/test_native_3pl.py: mirt's 3PL with the stable mode's priors (a1 ~ norm(1, 0.5),
# d ~ norm(0, 3), g ~ expbeta(2, 17)), called directly, 61 nodes, TOL = 1e-6. For every case:
#   default: mirt's own fit from its own starting values (nlminb M-step), as the stable mode runs it;
#   nr_native: mirt's EM with its Newton-Raphson M-step (optimizer = "NR": steps from mirt's own gradient
#     and Hessian, no function values) started at the native estimates; a fixed point of mirt's EM stays put.
#     With up to 1,000 parameters also its SE.type = "crossprod" standard errors (IRT metric, delta method).
#   nr_start (LSAT7 only): the same Newton-Raphson EM from mirt's own starting values;
#   ml (LSAT7 only): mirt's 3PL without priors (maximum likelihood), its defaults otherwise.
#   Rscript tests/r/reference_native_3pl.R OUT.json NAME DATA.csv NATIVE.csv [NAME DATA.csv NATIVE.csv ...]
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
stable_values <- function(data) {
  sv <- mirt(data, 1, "3PL", pars = "values", verbose = FALSE)
  priors <- list(a1 = list("norm", 1, 0.5), d = list("norm", 0, 3), g = list("expbeta", 2, 17))
  for (p in names(priors)) {
    rows <- sv$name == p
    sv$prior.type[rows] <- priors[[p]][[1]]
    sv$prior_1[rows] <- priors[[p]][[2]]
    sv$prior_2[rows] <- priors[[p]][[3]]
  }
  sv
}
stable_fit <- function(data, sv, ...) {
  m <- mirt(data, 1, "3PL", pars = sv, TOL = 1e-6, quadpts = 61, technical = list(NCYCLES = 5000),
            verbose = FALSE, ...)
  it <- coef(m, IRTpars = TRUE, simplify = TRUE)$items
  se <- NULL
  if (isTRUE(list(...)$SE)) {
    rows <- coef(m, IRTpars = TRUE, printSE = TRUE)[seq_len(ncol(data))]
    se <- lapply(c(a = "a", b = "b", g = "g"), function(p) unname(sapply(rows, function(r) r["SE", p])))
  }
  list(a = unname(it[, "a"]), b = unname(it[, "b"]), g = unname(it[, "g"]), se = se,
       loglik = extract.mirt(m, "logLik"), logprior = extract.mirt(m, "logPrior"),
       iterations = extract.mirt(m, "iterations"), converged = extract.mirt(m, "converged"))
}
out <- list()
for (k in seq(2, length(args), by = 3)) {
  data <- as.matrix(read.csv(args[k + 1], check.names = FALSE))
  native <- read.csv(args[k + 2], check.names = FALSE)
  sv <- stable_values(data)
  at_native <- sv
  for (p in c("a1", "d", "g")) at_native$value[at_native$name == p] <- native[[p]]
  case <- list(default = stable_fit(data, sv),
               nr_native = suppressMessages(suppressWarnings(stable_fit(data, at_native, optimizer = "NR",
                                                                        SE = 3 * ncol(data) <= 1000,
                                                                        SE.type = "crossprod"))))
  if (ncol(data) <= 10) {
    case$nr_start <- suppressMessages(suppressWarnings(stable_fit(data, sv, optimizer = "NR")))
    case$ml <- stable_fit(data, mirt(data, 1, "3PL", pars = "values", verbose = FALSE))
  }
  out[[args[k]]] <- case
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
