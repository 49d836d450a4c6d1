# Scoring options and inference of a single-group mirt model (issue 26, item 3): fscores with a prior,
# multiple imputation, QMC, the EAPsum table and the ability covariances; vcov, wald, coefficients with
# their SEs and CIs, the condition number, profile-likelihood CIs, Lagrange tests, MDISC/MDIFF and test
# information in a direction. Each helper calls mirt's own function and returns plain data.

# The columns of a score table with one factor, whatever the spec named it: F -> theta, SE_F -> se.
irtb_theta_columns <- function(fit, names) {
  if (mirt::extract.mirt(fit, "nfact") != 1L) return(names)
  f <- mirt::extract.mirt(fit, "factorNames")[1L]
  names[names == f] <- "theta"
  names[names == paste0("SE_", f)] <- "se"
  names
}

# fscores with the options irtbridge names; `acov` returns the covariance matrices instead (one row per
# respondent or pattern: the k x k matrix in column-major order).
irtb_mirt_fscores <- function(fit, method, responses, item_names, full_scores, mean = NULL, cov = NULL,
                              MI = 0L, QMC = FALSE, use_dentype_estimate = FALSE, seed = NULL, acov = FALSE) {
  args <- list(fit, method = method, full.scores = full_scores, full.scores.SE = TRUE, verbose = FALSE)
  if (!is.null(responses)) args$response.pattern <- irtb_matrix(responses, item_names)
  if (!is.null(mean)) args$mean <- mean
  if (!is.null(cov)) args$cov <- cov
  if (MI > 0L) args$MI <- MI
  if (QMC) args$QMC <- TRUE
  if (use_dentype_estimate) args$use_dentype_estimate <- TRUE
  if (acov) args$return.acov <- TRUE
  if (!is.null(seed)) set.seed(seed)
  s <- do.call(mirt::fscores, args)
  if (acov) return(do.call(rbind, lapply(unname(s), function(m) as.vector(m))))
  fit_stats <- attr(s, "fit")
  table <- if (is.data.frame(s)) as.data.frame(lapply(s, as.numeric), check.names = FALSE) else
    as.data.frame(unclass(s)[, , drop = FALSE], check.names = FALSE)
  names(table) <- irtb_theta_columns(fit, names(table))
  rownames(table) <- NULL
  list(scores = table, fit = if (!is.null(fit_stats)) as.list(as.data.frame(fit_stats)))
}

# The information matrix's inverse, or an error when the model has none.
irtb_mirt_vcov <- function(fit) {
  v <- mirt::extract.mirt(fit, "vcov")
  if (all(dim(v) == 1L) && (is.na(v[1L, 1L]) || v[1L, 1L] == 0))
    stop("no information matrix has been computed for this model", call. = FALSE)
  unclass(v)
}

irtb_mirt_wald <- function(fit, L, C = NULL) {
  out <- if (is.null(C)) mirt::wald(fit, L) else mirt::wald(fit, L, C = C)
  as.list(as.data.frame(out))
}

irtb_mirt_condnum <- function(fit) as.numeric(mirt::extract.mirt(fit, "condnum"))

# coef(fit, IRTpars = irt, CI = ci) and, when the model has SEs, coef(..., printSE = TRUE): one row per
# parameter (item, parameter, value, se, lower, upper); the group parameters under item "GroupPars".
# `group`: one group of a multiple-group model (its element of coef()), with the whole fit's SEs.
irtb_mirt_coefficients <- function(fit, irt, ci, group = NULL) {
  pick <- function(x) if (is.null(group)) x else x[[group]]
  cf <- pick(mirt::coef(fit, IRTpars = irt, CI = ci, verbose = FALSE))
  with_se <- nrow(cf[[1L]]) == 3L
  se <- if (with_se) pick(mirt::coef(fit, IRTpars = irt, printSE = TRUE, verbose = FALSE))
  rows <- lapply(seq_along(cf), function(i) {
    m <- cf[[i]]
    na <- rep(NA_real_, ncol(m))
    data.frame(item = names(cf)[i], parameter = colnames(m), value = unname(m[1L, ]),
               se = if (with_se) unname(se[[i]][2L, ]) else na,
               lower = if (with_se) unname(m[2L, ]) else na, upper = if (with_se) unname(m[3L, ]) else na,
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

irtb_mirt_plci <- function(fit, parnum, alpha) {
  out <- as.data.frame(mirt::PLCI.mirt(fit, parnum = parnum, alpha = alpha, verbose = FALSE))
  names(out) <- c("item", "class", "name", "parnum", "value", "lower", "upper", "lower_converged",
                  "upper_converged")[seq_along(out)]
  for (j in c("item", "class", "name")) out[[j]] <- as.character(out[[j]])
  rownames(out) <- NULL
  out
}

# parnum: a list, each element one test (its parameters freed jointly).
irtb_mirt_lagrange <- function(fit, parnum) {
  out <- mirt::lagrange(fit, parnum = lapply(parnum, as.integer))
  list(test = rownames(out), X2 = as.numeric(out$X2), df = as.numeric(out$df), p = as.numeric(out$p))
}

irtb_mirt_mdisc <- function(fit) unname(as.numeric(mirt::MDISC(fit)))

irtb_mirt_mdiff <- function(fit) {
  m <- unclass(mirt::MDIFF(fit))
  rownames(m) <- NULL
  m
}

irtb_mirt_testinfo <- function(fit, theta, degrees = NULL, which_items = NULL) {
  args <- list(fit, Theta = theta)
  if (!is.null(degrees)) args$degrees <- degrees
  if (!is.null(which_items)) args$which.items <- which_items
  as.numeric(do.call(mirt::testinfo, args))
}
