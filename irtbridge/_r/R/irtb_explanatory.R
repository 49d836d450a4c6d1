# Bootstrapped standard errors (boot.mirt), fixed-item calibration (fixedCalib) and explanatory IRT
# (mixedmirt, LLTM) for irtbridge.calibration (issue 26, item 3). Formulas arrive as text and are parsed
# and checked by irtb_safe_formula (irtb_wrappers.R) before they exist; data arrive as data.

# boot.mirt(fit, R) after set.seed(seed) (no seed: R's current stream). One row per estimated parameter
# of mod2values(fit) (boot.mirt's statistic), its draws as a data.frame with vcov-style column names.
irtb_mirt_boot <- function(fit, R, seed = NULL) {
  values <- mirt::mod2values(fit)
  est <- values$est
  if (!is.null(seed)) set.seed(seed)
  b <- mirt::boot.mirt(fit, R = as.integer(R))
  draws <- b$t
  colnames(draws) <- paste(values$name[est], values$parnum[est], sep = ".")
  list(item = as.character(values$item[est]), parameter = as.character(values$name[est]),
       parnum = as.integer(values$parnum[est]), value = values$value[est], t0 = as.numeric(b$t0),
       draws = as.data.frame(draws, check.names = FALSE))
}

# fixedCalib(data, 1, old_mod = old, PAU, NEMC, ...): the old model's items fixed, the new ones and the
# latent density (empirical histogram) estimated on old and new respondents together. fixedCalib passes
# `...` to several mirt() calls, one of which sets verbose itself, so its printing is captured instead.
irtb_mirt_fixed_calib <- function(data, item_names, old, PAU, NEMC, options) {
  args <- c(list(data = irtb_matrix(data, item_names), model = 1L, old_mod = old, PAU = PAU, NEMC = NEMC),
            options)
  fit <- NULL
  invisible(utils::capture.output(fit <- do.call(mirt::fixedCalib, args)))
  fit
}

# --- mixedmirt and the LLTM ------------------------------------------------------------------------
# The formulas of calibrate_mixed, each checked (irtb_safe_formula): `fixed` over the person
# covariates, the item covariates and mixedmirt's `items`; each `random` also with `|`; `item_formula`
# over the item covariates only.
irtb_mixed_formulas <- function(fixed = NULL, random = NULL, item_formula = NULL, variables = character(),
                                item_variables = character()) {
  everything <- c(as.character(variables), as.character(item_variables), "items")
  out <- list()
  if (!is.null(fixed))
    out$fixed <- irtb_safe_formula(fixed, everything, what = "fixed-effects", arg = "fixed")
  if (length(random))
    out$random <- lapply(random, irtb_safe_formula, variables = everything,
                         functions = c(irtb_formula_functions, "|"), what = "random-effects", arg = "random")
  if (!is.null(item_formula))
    out$item_formula <- irtb_safe_formula(item_formula, as.character(item_variables), what = "item",
                                          arg = "item_formula")
  out
}

irtb_columns_df <- function(columns, row_names = NULL) {
  if (is.null(columns)) return(NULL)
  df <- list2DF(lapply(columns, function(col) col))
  if (!is.null(row_names)) rownames(df) <- row_names
  df
}

# What Python reads from a mixedmirt or LLTM fit: the fixed effects as summary() prints them
# (Estimate, Std.Error, z.value), the random-effect covariances, mod2values and the fit statistics.
irtb_mixed_result <- function(fit, fixed) {
  # columns travel one by one (NULL when there are no fixed effects: empty vectors do not convert)
  fixed <- if (nrow(fixed)) list(terms = rownames(fixed), Estimate = fixed$Estimate, Std.Error = fixed$Std.Error,
                                 z.value = fixed$z.value)
  list(model = fit, fixed = fixed, random = lapply(summary_random(fit), as.data.frame),
       values = mirt::mod2values(fit), loglik = mirt::extract.mirt(fit, "logLik"),
       aic = mirt::extract.mirt(fit, "AIC"), bic = mirt::extract.mirt(fit, "BIC"),
       n_parameters = mirt::extract.mirt(fit, "nest"), converged = mirt::extract.mirt(fit, "converged"),
       iterations = mirt::extract.mirt(fit, "iterations"))
}

summary_random <- function(fit) {
  if (!methods::is(fit, "MixedClass")) {
    v <- mirt::coef(fit, simplify = TRUE)$cov
    return(list(Theta = v))
  }
  mirt::summary(fit, verbose = FALSE)$random
}

irtb_mirt_mixed <- function(data, item_names, covdata, itemdesign, fixed, random, itemtype, se, options) {
  covdata <- irtb_columns_df(covdata)
  itemdesign <- irtb_columns_df(itemdesign, item_names)
  f <- irtb_mixed_formulas(fixed, random, NULL, names(covdata), names(itemdesign))
  args <- c(list(data = irtb_matrix(data, item_names), covdata = covdata, model = 1L, fixed = f$fixed,
                 itemtype = itemtype, SE = se, verbose = FALSE), options)
  if (!is.null(itemdesign)) args$itemdesign <- itemdesign
  if (length(f$random)) args$random <- if (length(f$random) == 1L) f$random[[1L]] else f$random
  fit <- do.call(mirt::mixedmirt, args)
  fixed_table <- mirt::summary(fit, verbose = FALSE)$fixed
  if (!is.data.frame(fixed_table) || !nrow(fixed_table))
    fixed_table <- data.frame(Estimate = numeric(), Std.Error = numeric(), z.value = numeric())
  irtb_mixed_result(fit, fixed_table)
}

# The LLTM by mirt(item.formula =, itemdesign =): the item parameters decomposed into the effects of
# item covariates; those effects are the fixed effects (shared by every item: read from the first).
irtb_mirt_lltm <- function(data, item_names, itemdesign, item_formula, itemtype, se, options) {
  itemdesign <- irtb_columns_df(itemdesign, item_names)
  f <- irtb_mixed_formulas(item_formula = item_formula, item_variables = names(itemdesign))
  args <- c(list(data = irtb_matrix(data, item_names), model = 1L, itemtype = itemtype,
                 item.formula = f$item_formula, itemdesign = itemdesign, SE = se, verbose = FALSE), options)
  fit <- do.call(mirt::mirt, args)
  terms <- colnames(stats::model.matrix(f$item_formula, itemdesign))
  first <- mirt::coef(fit, printSE = TRUE)[[1L]]
  estimate <- unname(first[1L, terms])
  error <- if (nrow(first) > 1L) unname(first[2L, terms]) else rep(NA_real_, length(terms))
  fixed_table <- data.frame(Estimate = estimate, Std.Error = error, z.value = estimate / error, row.names = terms)
  irtb_mixed_result(fit, fixed_table)
}

# randef(fit, ndraws, thin) after set.seed(seed): one data.frame per random effect (and Theta).
irtb_mirt_randef <- function(fit, ndraws, thin, seed = NULL) {
  if (!is.null(seed)) set.seed(seed)
  lapply(mirt::randef(fit, ndraws = as.integer(ndraws), thin = as.integer(thin)), as.data.frame)
}
