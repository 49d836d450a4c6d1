# Reference for tests/calibration/test_simulate.py: mirt's simdata after set.seed, called directly.
#   Rscript tests/r/reference_simulate.R OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
cols <- function(m) { m <- as.matrix(m); setNames(lapply(seq_len(ncol(m)), function(j) unname(m[, j])), colnames(m)) }
out <- list()
a <- c(1.0, 1.5, 0.8, 2.0, 1.2)
d <- c(0.5, 0.0, -1.0, 1.5, -0.3)
set.seed(11)
out$dich <- cols(simdata(matrix(a), matrix(d), 300, itemtype = "dich"))
set.seed(12)
out$guess <- cols(simdata(matrix(a), matrix(d), 300, itemtype = "dich", guess = c(0.2, 0, 0.25, 0.1, 0),
                          upper = 0.95))
dg <- rbind(c(1, 0, -1), c(0.5, -0.5, NA), c(2, NA, NA), c(1.5, 0.2, -0.8), c(0.3, -1.2, NA))
set.seed(13)
out$graded <- cols(simdata(matrix(a), dg, 250, itemtype = "graded"))
set.seed(14)
out$mixed <- cols(simdata(matrix(a), cbind(d, c(-1, NA, NA, 0, NA)), 250,
                          itemtype = c("graded", "dich", "dich", "graded", "dich")))
a2 <- cbind(c(1, 1.2, 0.8, 0, 0, 0), c(0, 0, 0, 1.5, 0.9, 1.1))
set.seed(15)
out$two <- cols(simdata(a2, matrix(c(0.1, -0.2, 0.3, 0.4, -0.5, 0)), 200, itemtype = "dich",
                        mu = c(0.5, -0.5), sigma = matrix(c(1, 0.4, 0.4, 2), 2)))
theta <- matrix(seq(-2, 2, length.out = 40))
set.seed(16)
out$theta <- cols(simdata(matrix(a), matrix(d), itemtype = "2PL", Theta = theta))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
