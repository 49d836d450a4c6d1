# Latent class models by mirt's mdirt() (irtbridge.calibration.classes): fit, starting parameter table,
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

irtb_mdirt_fit <- function(data, item_names, n_classes, options, table = NULL, seed = NULL) {
  args <- irtb_mdirt_args(data, item_names, n_classes, options, table)
  if (!is.null(seed)) set.seed(seed)
  fit <- do.call(mirt::mdirt, args)
  s <- mirt::summary(fit, verbose = FALSE)
  items <- s[setdiff(names(s), "Class.Probability")]
  list(loglik = mirt::extract.mirt(fit, "logLik"), aic = mirt::extract.mirt(fit, "AIC"),
       bic = mirt::extract.mirt(fit, "BIC"), n_parameters = as.integer(mirt::extract.mirt(fit, "nest")),
       converged = isTRUE(mirt::extract.mirt(fit, "converged")),
       iterations = as.integer(mirt::extract.mirt(fit, "iterations")),
       proportions = s$Class.Probability$prob,
       probabilities = lapply(items, function(m) { dimnames(m) <- NULL; m }),
       model = fit)
}

# fscores of a latent class model: the class posteriors per respondent, or per response pattern.
irtb_mdirt_posteriors <- function(fit, patterns) {
  s <- mirt::fscores(fit, full.scores = !patterns, verbose = FALSE)
  out <- as.data.frame(unclass(s), check.names = FALSE)
  rownames(out) <- NULL
  out
}

irtb_mdirt_m2 <- function(fit) {
  if (!inherits(fit, "DiscreteClass")) stop("M2 here needs a latent class model (mdirt)")
  out <- as.data.frame(mirt::M2(fit))
  rownames(out) <- NULL
  out
}
