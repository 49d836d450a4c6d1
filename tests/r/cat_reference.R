# catR references for tests/test_cat.py. Data come from CSV files the test writes; nothing from the test
# is pasted into R code.
#   Rscript tests/r/cat_reference.R single BANK.csv MODEL PATTERNS.csv THETAS.csv OUT.csv
#     every row of PATTERNS (NA = not administered): catR thetaEst + semTheta for EAP, BM (MAP) and ML,
#     and nextItem (MFI; and bOpt for dichotomous banks) at the row's theta from THETAS, excluding the
#     administered items.
#   Rscript tests/r/cat_reference.R run BANK.csv MODEL RESPONSES.csv LENGTH OUT.csv
#     a full post-hoc CAT per row of RESPONSES with catR's own functions: start at theta 0, MFI selection,
#     EAP estimate, LENGTH items; OUT has the item sequence and the estimate/SE after each item.
# Settings shared with the Python side: D = 1; EAP on seq(-6, 6, length = 121) with a N(0, 1) prior
# (parInt = c(-6, 6, 121)); BM with the N(0, 1) prior and ML on range = c(-4, 4).
suppressPackageStartupMessages(library(catR))
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1]
bank <- as.matrix(read.csv(args[2]))
model <- if (args[3] == "dichotomous") NULL else args[3]
PAR_INT <- c(-6, 6, 121)
RANGE <- c(-4, 4)

est <- function(it, x, method) {
  th <- thetaEst(it, x, model = model, D = 1, method = method, priorPar = c(0, 1), range = RANGE, parInt = PAR_INT)
  se <- semTheta(th, it, x, model = model, D = 1, method = method, priorPar = c(0, 1), parInt = PAR_INT, range = RANGE)
  c(th, se)
}

if (mode == "single") {
  patterns <- as.matrix(read.csv(args[4]))
  thetas <- read.csv(args[5])$theta
  out <- NULL
  for (i in seq_len(nrow(patterns))) {
    given <- which(!is.na(patterns[i, ]))
    it <- bank[given, , drop = FALSE]
    x <- unname(patterns[i, given])
    row <- c(est(it, x, "EAP"), est(it, x, "BM"), est(it, x, "ML"))
    mfi <- nextItem(bank, model = model, theta = thetas[i], out = given, criterion = "MFI", D = 1)$item
    bopt <- if (is.null(model)) nextItem(bank, theta = thetas[i], out = given, criterion = "bOpt", D = 1)$item else NA
    out <- rbind(out, c(row, mfi, bopt))
  }
  colnames(out) <- c("eap", "eap_se", "map", "map_se", "ml", "ml_se", "mfi", "bopt")
  write.csv(out, args[6], row.names = FALSE)
} else if (mode == "run") {
  responses <- as.matrix(read.csv(args[4]))
  len <- as.integer(args[5])
  out <- NULL
  for (i in seq_len(nrow(responses))) {
    th <- 0
    given <- integer(0)
    for (t in seq_len(len)) {
      item <- nextItem(bank, model = model, theta = th, out = if (length(given)) given else NULL,
                       criterion = "MFI", D = 1)$item
      given <- c(given, item)
      r <- est(bank[given, , drop = FALSE], unname(responses[i, given]), "EAP")
      th <- r[1]
      out <- rbind(out, c(i, t, item, r))
    }
  }
  colnames(out) <- c("examinee", "step", "item", "theta", "se")
  write.csv(out, args[6], row.names = FALSE)
} else {
  stop("mode must be 'single' or 'run'")
}
