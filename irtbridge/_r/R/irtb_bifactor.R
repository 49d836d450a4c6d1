# Bifactor models by mirt's bfactor() (irtbridge.calibration.fit.bifactor): one general factor (or the
# `general` mirt.model text, received as data) and one specific factor per item, fitted with the
# dimension reduction of Gibbons & Hedeker (two-dimensional quadrature whatever the number of specific
# factors). Returns calibrate()'s plain layout (irtb_mirt_result).

irtb_bfactor_args <- function(data, item_names, itemtype, specific, general, options) {
  data <- irtb_matrix(data, item_names)
  specific <- as.numeric(specific)
  specific[is.nan(specific)] <- NA
  args <- c(list(data = data, model = specific, itemtype = itemtype, verbose = FALSE),
            options)
  if (!is.null(general)) args$model2 <- mirt::mirt.model(general, itemnames = item_names)
  args
}

# `equal_slopes` is always empty here: calibrate_bifactor refuses the 1PL (irtbridge.calibration.fit.bifactor).
irtb_mirt_bfactor_fit <- function(data, item_names, itemtype, se, options, specific, general = NULL, later = FALSE,
                                  equal_slopes = character()) {
  args <- c(irtb_bfactor_args(data, item_names, itemtype, specific, general, options), list(SE = se))
  if (later) args$technical <- utils::modifyList(as.list(args$technical), list(storeEMhistory = TRUE))
  kept <- irtb_fit_keeping_estimates(mirt::bfactor, args, se)
  fit <- kept$fit
  se_problem <- irtb_second_order_problem(fit, se, kept$se_problem)
  out <- irtb_mirt_result(fit, se && is.null(se_problem))
  out$se_problem <- se_problem
  # SEs on demand repeat bfactor(), not mirt() (irtb_mirt_ses reads the fitter kept here)
  if (later) out$se_later <- list2env(list(args = args, fitter = mirt::bfactor), parent = emptyenv())
  out
}
