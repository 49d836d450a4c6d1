# Reference for tests/calibration/test_se_on_demand.py: mirt(..., SE = TRUE) called directly, for the fits
# whose standard errors irtbridge computes on first access. For each case: the standard error of every
# item parameter as coef(fit, IRTpars = ..., printSE = TRUE) reports it (NA where mirt reports none).
#   Rscript tests/r/reference_se_on_demand.R OUT.json DICHOTOMOUS.csv GRADED.csv TWOFACTOR.csv
suppressPackageStartupMessages({ library(mirt); library(ltm); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
dich <- as.matrix(read.csv(args[2], check.names = FALSE))
graded <- as.matrix(read.csv(args[3], check.names = FALSE))
two <- as.matrix(read.csv(args[4], check.names = FALSE))

# one list per parameter name: its SE for every item, in column order
item_ses <- function(fit, irt) {
  per_item <- coef(fit, IRTpars = irt, printSE = TRUE)[colnames(fit@Data$data)]
  pars <- unique(unlist(lapply(per_item, colnames)))
  out <- list()
  for (p in pars) out[[p]] <- unname(sapply(per_item, function(m)
    if (p %in% colnames(m) && "SE" %in% rownames(m)) m["SE", p] else NA_real_))
  out
}

stable <- mirt(dich, 1, itemtype = "3PL", pars = "values", verbose = FALSE)
# irtbridge's "stable" priors: norm(1, 0.5) on a1, norm(0, 3) on d, expbeta(2, 17) on g
for (p in list(list("a1", "norm", 1, 0.5), list("d", "norm", 0, 3), list("g", "expbeta", 2, 17))) {
  rows <- stable$name == p[[1]]
  stable$prior.type[rows] <- p[[2]]; stable$prior_1[rows] <- p[[3]]; stable$prior_2[rows] <- p[[4]]
}

fits <- list(
  "2PL" = mirt(dich, 1, itemtype = "2PL", SE = TRUE, verbose = FALSE),
  "3PL" = mirt(dich, 1, itemtype = "3PL", SE = TRUE, verbose = FALSE),
  "3PL_prior" = mirt(dich, 1, itemtype = "3PL", pars = stable, SE = TRUE, verbose = FALSE),
  "graded" = mirt(graded, 1, itemtype = "graded", SE = TRUE, verbose = FALSE),
  "crossprod" = mirt(dich, 1, itemtype = "2PL", SE = TRUE, SE.type = "crossprod", verbose = FALSE),
  "two_factor" = mirt(two, mirt.model("F1 = 1-4\nF2 = 5-8\nCOV = F1*F2"), itemtype = "2PL", SE = TRUE,
                      verbose = FALSE)
)
ref <- lapply(names(fits), function(k) item_ses(fits[[k]], irt = k != "two_factor"))
names(ref) <- names(fits)
ltm_2pl <- ltm:::IRT.parm(ltm(as.data.frame(dich) ~ z1), standard.errors = TRUE)$se
J <- ncol(dich)
ref$ltm_2PL <- list(b = unname(ltm_2pl[seq_len(J)]), a = unname(ltm_2pl[J + seq_len(J)]))
writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, na = "null"), args[1])
