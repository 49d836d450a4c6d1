# Latent class models by mirt's mdirt() (irtbridge.calibration.fit.classes): fit, starting parameter table,
# and what a ClassCalibration reads (class proportions, item probabilities per class, posteriors).

irtb_mdirt_args <- function(data, item_names, n_classes, options, table = NULL) {
  args <- c(list(data = irtb_matrix(data, item_names), model = as.integer(n_classes), verbose = FALSE), options)
  if (!is.null(table)) args <- irtb_apply_pars(mirt::mdirt, args, list(), table)
  args
}

irtb_mdirt_values <- function(data, item_names, n_classes, options) {
  irtb_plain_table(do.call(mirt::mdirt, c(irtb_mdirt_args(data, item_names, n_classes, options),
                                           list(pars = "values"))))
}

# `se`: mirt's SE = TRUE (with SE.type among the options); the SE step's failure keeps the estimates
# (irtb_fit_keeping_estimates) and returns why. `ses`: each parameter's value and SE (coef printSE).
irtb_mdirt_fit <- function(data, item_names, n_classes, options, table = NULL, seed = NULL, se = FALSE) {
  args <- irtb_mdirt_args(data, item_names, n_classes, options, table)
  args$SE <- isTRUE(se)
  if (!is.null(seed)) set.seed(seed)
  kept <- irtb_fit_keeping_estimates(mirt::mdirt, args, isTRUE(se))
  fit <- kept$fit
  se_problem <- irtb_second_order_problem(fit, isTRUE(se), kept$se_problem)
  s <- mirt::summary(fit, verbose = FALSE)
  items <- s[setdiff(names(s), "Class.Probability")]
  list(loglik = mirt::extract.mirt(fit, "logLik"), aic = mirt::extract.mirt(fit, "AIC"),
       bic = mirt::extract.mirt(fit, "BIC"), n_parameters = as.integer(mirt::extract.mirt(fit, "nest")),
       converged = isTRUE(mirt::extract.mirt(fit, "converged")),
       iterations = as.integer(mirt::extract.mirt(fit, "iterations")),
       proportions = s$Class.Probability$prob,
       probabilities = lapply(items, function(m) { dimnames(m) <- NULL; m }),
       ses = if (isTRUE(se) && is.null(se_problem)) irtb_mdirt_ses(fit), se_problem = se_problem,
       model = fit)
}

# The same table without SEs (the SE step failed): values only, se NA.
irtb_mdirt_ses_missing <- function(fit) {
  cf <- mirt::coef(fit, verbose = FALSE)
  rows <- lapply(names(cf), function(item) {
    m <- cf[[item]]
    if (!is.matrix(m)) return(NULL)
    data.frame(item = item, parameter = colnames(m), value = unname(m[1L, ]), se = NA_real_,
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

# One row per estimated-or-fixed parameter of each item and of GroupPars: item, parameter, value, se.
irtb_mdirt_ses <- function(fit) {
  cf <- mirt::coef(fit, printSE = TRUE, verbose = FALSE)
  rows <- lapply(names(cf), function(item) {
    m <- cf[[item]]
    if (!is.matrix(m) || nrow(m) < 2L) return(NULL)
    data.frame(item = item, parameter = colnames(m), value = unname(m[1L, ]), se = unname(m[2L, ]),
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

# fscores of a latent class model: the class posteriors per respondent, or per response pattern.
irtb_mdirt_posteriors <- function(fit, patterns) {
  s <- mirt::fscores(fit, full.scores = !patterns, verbose = FALSE)
  out <- as.data.frame(unclass(s), check.names = FALSE)
  rownames(out) <- NULL
  out
}

irtb_mdirt_m2 <- function(fit, type = "M2*") {
  if (!inherits(fit, "DiscreteClass")) stop("M2 here needs a latent class model (mdirt)")
  out <- as.data.frame(mirt::M2(fit, type = type))
  rownames(out) <- NULL
  out
}
