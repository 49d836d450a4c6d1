# Reference for tests/calibration/test_factor_names.py: scoring under a one-factor spec whose factor is
# not called F1, and expected.test with and without the items' lowest categories, by plain mirt calls.
#   Rscript tests/r/reference_factor_names.R OUT.json LSAT7.csv SCIENCE.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
lsat <- as.matrix(read.csv(args[2], check.names = FALSE))
science <- as.matrix(read.csv(args[3], check.names = FALSE))
scores <- function(fit, method) {
  s <- fscores(fit, method = method, full.scores.SE = TRUE, verbose = FALSE)
  list(theta = unname(s[, 1]), se = unname(s[, 2]), names = colnames(s))
}
lsat_fit <- mirt(lsat, mirt.model("F = 1-5"), itemtype = "2PL", SE = FALSE, verbose = FALSE)
sci_fit <- mirt(science, mirt.model("Attitude = 1-4"), itemtype = "graded", SE = FALSE, verbose = FALSE)
grid <- matrix(seq(-3, 3, by = 0.5))
out <- list(lsat_eap = scores(lsat_fit, "EAP"), lsat_ml = scores(lsat_fit, "ML"),
            science_map = scores(sci_fit, "MAP"), science_factor = extract.mirt(sci_fit, "factorNames"),
            grid = as.numeric(grid), science_mins = unname(extract.mirt(sci_fit, "mins")),
            expected_test = expected.test(sci_fit, grid),
            expected_test_nomins = expected.test(sci_fit, grid, mins = FALSE))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
