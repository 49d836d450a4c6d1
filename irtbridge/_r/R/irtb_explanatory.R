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
