# Reference values for tests/test_diagnostics.py: mirt's own diagnostics called directly (none of
# irtbridge's R helpers).   Rscript tests/r/reference_diagnostics.R OUT.json SAT12_KEYED.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
key <- c(1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5)
sat12 <- key2binary(SAT12, key)
write.csv(sat12, args[2], row.names = FALSE)
lsat7 <- expand.table(LSAT7)
fits <- list(
  lsat7_2PL = mirt(lsat7, 1, itemtype = "2PL", verbose = FALSE),
  lsat7_3PL = mirt(lsat7, 1, itemtype = "3PL", verbose = FALSE),
  lsat7_rasch = mirt(lsat7, 1, itemtype = "Rasch", verbose = FALSE),
  sat12_2PL = mirt(sat12, 1, itemtype = "2PL", verbose = FALSE),
  science_graded = mirt(Science, 1, itemtype = "graded", verbose = FALSE),
  science_gpcm = mirt(Science, 1, itemtype = "gpcm", verbose = FALSE)
)
frame <- function(x) { x <- as.data.frame(x); rownames(x) <- NULL; as.list(x) }
out <- lapply(fits, function(f) {
  stats <- if (extract.mirt(f, "itemtype")[1] == "Rasch") c("S_X2", "infit") else c("S_X2", "Zh")
  res <- list(itemfit = frame(itemfit(f, fit_stats = stats)),
              m2 = tryCatch(frame(M2(f)), error = function(e) NULL),
              rxx = list(marginal = unname(marginal_rxx(f)),
                         empirical = unname(empirical_rxx(fscores(f, full.scores.SE = TRUE, verbose = FALSE)))))
  if (all(extract.mirt(f, "itemtype") %in% c("2PL", "3PL", "Rasch"))) {
    res$personfit <- frame(head(personfit(f), 50))
    res$itemfit_X2 <- frame(itemfit(f, fit_stats = c("X2", "G2")))
    res$LD <- unname(residuals(f, type = "LD", verbose = FALSE))
    res$Q3 <- unname(residuals(f, type = "Q3", verbose = FALSE))
  }
  res$p_bh <- p.adjust(itemfit(f)$p.S_X2, "BH")
  res
})
out$anova <- frame(anova(fits$lsat7_2PL, fits$lsat7_3PL, verbose = FALSE))
out$anova3 <- frame(anova(fits$lsat7_2PL, fits$lsat7_3PL, verbose = FALSE))
writeLines(toJSON(out, digits = NA, na = "null"), args[1])
