# Reference fits for tests/irt/test_native_3pl.py: mirt's 3PL with the stable mode's priors (a1 ~ norm(1, 0.5),
# d ~ norm(0, 3), g ~ expbeta(2, 17)), called directly, 61 nodes, TOL = 1e-6. For every case:
#   default: mirt's own fit from its own starting values (nlminb M-step), as the stable mode runs it;
#   nr_native: mirt's EM with its Newton-Raphson M-step (optimizer = "NR": steps from mirt's own gradient
#     and Hessian, no function values) started at the native estimates; a fixed point of mirt's EM stays put.
#     With up to 1,000 parameters also its SE.type = "crossprod" standard errors (IRT metric, delta method).
#   nr_start (LSAT7 only): the same Newton-Raphson EM from mirt's own starting values;
#   ml (LSAT7 only): mirt's 3PL without priors (maximum likelihood), its defaults otherwise.
#   Rscript tests/r/reference_native_3pl.R OUT.json NAME DATA.csv NATIVE.csv [NAME DATA.csv NATIVE.csv ...]
# mirt's Newton-Raphson M-step (Mstep.NR) takes each step with MPinv, the Moore-Penrose inverse of the negative
# Hessian of all estimated parameters, by an SVD of the whole matrix; it takes 50 steps per EM cycle. With
# one group and no constraints that Hessian is block diagonal (an item's a1, d, g in a block, nothing outside),
# and the Moore-Penrose inverse of a block-diagonal matrix is the block-diagonal matrix of the blocks' own
# (the SVD of the whole is the union of the blocks' SVDs). Under newton_em() mirt's EM runs unchanged but for
# MPinv, which takes it block by block, dropping the singular values MPinv drops (up to sqrt(eps) times the
# largest of the whole matrix); a matrix with a nonzero outside its diagonal blocks goes to mirt's MPinv, and
# the first matrix of every fit goes to both, which must agree. Measured on the 132 x 500 case (1,497
# parameters, Debian's reference LAPACK, a shared machine): 588 s with mirt's MPinv, 50 SVDs of 1,497 x 1,497.
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
block_mpinv <- function(mat, whole) {
  n <- nrow(mat)
  nonzero <- mat != 0
  first <- last <- seq_len(n)
  for (i in seq_len(n)) {
    cols <- which(nonzero[i, ])
    if (length(cols)) {
      first[i] <- min(cols, i)
      last[i] <- max(cols, i)
    }
  }
  ends <- which(cummax(last) == seq_len(n))
  starts <- c(1L, head(ends, -1L) + 1L)
  if (length(ends) == 1L || any(first < rep(starts, ends - starts + 1L))) return(whole(mat))
  svds <- lapply(seq_along(ends), function(k) svd(mat[starts[k]:ends[k], starts[k]:ends[k], drop = FALSE]))
  cut <- max(sqrt(.Machine$double.eps) * max(vapply(svds, function(s) s$d[1L], 0)), 0)
  inv <- matrix(0, n, n)
  for (k in seq_along(ends)) {
    s <- svds[[k]]
    keep <- s$d > cut
    inv[starts[k]:ends[k], starts[k]:ends[k]] <- s$v[, keep, drop = FALSE] %*%
      ((1 / s$d[keep]) * t(s$u[, keep, drop = FALSE]))
  }
  inv
}
newton_em <- function(expr) {
  whole <- get("MPinv", envir = asNamespace("mirt"))
  checked <- FALSE
  by_blocks <- function(mat) {
    inv <- block_mpinv(mat, whole)
    if (!checked) {
      reference <- whole(mat)
      if (!isTRUE(max(abs(inv - reference)) <= 1e-8 * max(abs(reference))))
        stop("the block-diagonal inverse differs from mirt's MPinv")
      checked <<- TRUE
    }
    inv
  }
  assignInNamespace("MPinv", by_blocks, "mirt")
  on.exit(assignInNamespace("MPinv", whole, "mirt"))
  expr
}
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
               nr_native = newton_em(suppressMessages(suppressWarnings(
                 stable_fit(data, at_native, optimizer = "NR", SE = 3 * ncol(data) <= 1000, SE.type = "crossprod")))))
  if (ncol(data) <= 10) {
    case$nr_start <- newton_em(suppressMessages(suppressWarnings(stable_fit(data, sv, optimizer = "NR"))))
    case$ml <- stable_fit(data, mirt(data, 1, "3PL", pars = "values", verbose = FALSE))
  }
  out[[args[k]]] <- case
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
