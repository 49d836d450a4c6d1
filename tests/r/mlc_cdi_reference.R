# mirt's own case scores for tests/test_mlc.py: the features the test writes are encoded here
# independently (quartiles with quantile(type = 7) and findInterval), calibrated with plain mirt calls
# (none of irtbridge's R helpers) and scored with fscores(method = "EAP").
#   Rscript tests/r/mlc_cdi_reference.R binary|quartiles FEATURES.csv OUT.csv
suppressPackageStartupMessages(library(mirt))
args <- commandArgs(trailingOnly = TRUE)
kind <- args[1]
x <- as.matrix(read.csv(args[2], check.names = FALSE))
if (kind == "quartiles") {
  items <- apply(x, 2, function(col) {
    q <- unique(quantile(col, c(0.25, 0.5, 0.75), type = 7, na.rm = TRUE, names = FALSE))
    findInterval(col, q, left.open = TRUE)  # x <= Q1 -> 0, Q1 < x <= Q2 -> 1, ...
  })
  itemtype <- "graded"
} else {
  items <- x
  itemtype <- "2PL"
}
fit <- mirt(items, 1, itemtype = itemtype, verbose = FALSE)
s <- fscores(fit, method = "EAP", full.scores.SE = TRUE, verbose = FALSE)
out <- data.frame(cdi = s[, "F1"], se = s[, "SE_F1"])
out <- cbind(out, setNames(as.data.frame(items), paste0("item_", colnames(x))))
write.csv(out, args[3], row.names = FALSE)
