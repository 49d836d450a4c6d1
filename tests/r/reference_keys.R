# Reference for tests/calibration/test_keys.py: key scoring of mirt's raw SAT12 answers by key2binary,
# and the 2PL calibration of the scored data, each by a plain mirt call.
#   Rscript tests/r/reference_keys.R OUT.json RAW.csv LETTERS.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
cols <- function(m) { m <- as.matrix(m); setNames(lapply(seq_len(ncol(m)), function(j) unname(m[, j])), colnames(m)) }
data(SAT12, package = "mirt")
# the key printed in mirt's ?SAT12
key <- c(1,4,5,2,3,1,2,1,3,1,2,4,2,1,5,3,4,4,1,4,3,3,4,1,3,5,1,3,1,5,4,5)
write.csv(SAT12, args[2], row.names = FALSE)
letters_ <- as.data.frame(lapply(SAT12, function(x) LETTERS[x]))
write.csv(letters_, args[3], row.names = FALSE, na = "")
missing8 <- SAT12
missing8[missing8 == 8] <- NA
scored <- key2binary(missing8, key)
# an item with two correct answers (mirt's key matrix: one row per item)
two <- cbind(key, c(2, rep(NA, 31)))
fit <- mirt(scored, 1, itemtype = "2PL", SE = FALSE, verbose = FALSE)
out <- list(
  key = key,
  raw = cols(key2binary(SAT12, key)),          # 8 is an answer like any other: scored 0
  missing8 = cols(scored),                      # 8 made NA first: stays NA
  score_missing = cols(key2binary(missing8, key, score_missing = TRUE)),
  letters = cols(key2binary(as.matrix(letters_), LETTERS[key])),
  two_keys = cols(key2binary(missing8, two)),
  fit = list(items = cols(coef(fit, IRTpars = TRUE, simplify = TRUE)$items), loglik = extract.mirt(fit, "logLik"))
)
writeLines(toJSON(out, digits = NA, na = "null", auto_unbox = TRUE), args[1])
