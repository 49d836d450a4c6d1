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
