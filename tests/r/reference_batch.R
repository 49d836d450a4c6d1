# Reference values for tests/batch/test_irt_kinds.py: mirt called directly on the files the batch units read
# (none of irtbridge's R helpers).   Rscript tests/r/reference_batch.R FOLDER
# Writes FOLDER/science.csv (mirt's Science, Likert items coded 1..4) and FOLDER/lsat7.csv, and
# FOLDER/ref.json: Science graded EAP scores; LSAT7 2PL scores by EAP, MAP, ML and WLE; LSAT7 2PL M2,
# S-X2 item fit with BH-adjusted p-values, marginal and empirical reliability.
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
folder <- commandArgs(trailingOnly = TRUE)[1]
write.csv(Science, file.path(folder, "science.csv"), row.names = FALSE)
lsat7 <- expand.table(LSAT7)
write.csv(lsat7, file.path(folder, "lsat7.csv"), row.names = FALSE)
science <- read.csv(file.path(folder, "science.csv"))
lsat <- read.csv(file.path(folder, "lsat7.csv"))
sci_fit <- mirt(science, 1, itemtype = "graded", verbose = FALSE)
fit <- mirt(lsat, 1, itemtype = "2PL", verbose = FALSE)
scores <- function(f, m) {
  s <- fscores(f, method = m, full.scores = TRUE, full.scores.SE = TRUE, verbose = FALSE)
  theta <- as.numeric(s[, 1]); se <- as.numeric(s[, 2])
  # ML has no finite estimate for an all-right or all-wrong pattern: R says +-Inf; JSON gets null and the sign
  list(theta = ifelse(is.finite(theta), theta, NA), infinite = ifelse(is.finite(theta), 0, sign(theta)),
       se = ifelse(is.finite(se), se, NA))
}
itemfit_s <- itemfit(fit, fit_stats = "S_X2")
m2 <- M2(fit)
out <- list(
  science_items = as.data.frame(coef(sci_fit, IRTpars = TRUE, simplify = TRUE)$items),
  science_eap = scores(sci_fit, "EAP"),
  lsat = lapply(c(EAP = "EAP", MAP = "MAP", ML = "ML", WLE = "WLE"), function(m) scores(fit, m)),
  m2 = as.list(m2),
  itemfit = list(S_X2 = itemfit_s$S_X2, df = itemfit_s$df.S_X2, p = itemfit_s$p.S_X2,
                 p_adjusted = p.adjust(itemfit_s$p.S_X2, "BH")),
  marginal = unname(marginal_rxx(fit)),
  empirical = unname(empirical_rxx(fscores(fit, full.scores.SE = TRUE, verbose = FALSE)))
)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null"), file.path(folder, "ref.json"))
