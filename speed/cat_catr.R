# catR side of speed/cat.py: one randomCAT per examinee (start at theta 0, MFI selection, EAP on
# seq(-4, 4, length = 33), D = 1, 30 items), timed inside R so R's start-up is not counted.
#   Rscript speed/cat_catr.R BANK.csv THETAS.csv LENGTH OUT.csv
suppressPackageStartupMessages(library(catR))
args <- commandArgs(trailingOnly = TRUE)
bank <- as.matrix(read.csv(args[1]))
thetas <- read.csv(args[2])$theta
len <- as.integer(args[3])
set.seed(1)
est <- numeric(length(thetas))
elapsed <- system.time({
  for (i in seq_along(thetas)) {
    r <- randomCAT(trueTheta = thetas[i], itemBank = bank,
                   start = list(nrItems = 1, theta = 0, startSelect = "MFI", D = 1),
                   test = list(method = "EAP", itemSelect = "MFI", parInt = c(-4, 4, 33), D = 1),
                   stop = list(rule = "length", thr = len),
                   final = list(method = "EAP", parInt = c(-4, 4, 33), D = 1))
    est[i] <- r$thFinal
  }
})[["elapsed"]]
write.csv(data.frame(theta = est, elapsed = elapsed), args[4], row.names = FALSE)
