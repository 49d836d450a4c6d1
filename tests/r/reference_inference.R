# Reference values for tests/calibration/test_inference.py and test_scoring.py: mirt's fscores options
# and inference functions called directly (none of irtbridge's R helpers).
#   Rscript tests/r/reference_inference.R scoring|inference OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
part <- args[1]
lsat7 <- expand.table(LSAT7)
cols <- function(m) { m <- as.data.frame(m); rownames(m) <- NULL; as.list(m) }
two <- mirt(lsat7, 1, itemtype = "2PL", verbose = FALSE)
two_se <- mirt(lsat7, 1, itemtype = "2PL", SE = TRUE, verbose = FALSE)
sci2 <- mirt(Science, 2, itemtype = "graded", verbose = FALSE)
prior2 <- list(mean = c(-1, 1), cov = matrix(c(1.5, 1, 1, 2), 2))
fs <- function(...) fscores(..., full.scores.SE = TRUE, verbose = FALSE)
if (part == "scoring") {
  dav <- mirt(lsat7, 1, itemtype = "2PL", dentype = "Davidian-4", verbose = FALSE)
  eapsum <- fs(two, method = "EAPsum", full.scores = FALSE)
  set.seed(7); mi <- fs(two_se, MI = 10)
  set.seed(7); mi_patterns <- fs(two_se, MI = 10, full.scores = FALSE)
  new <- rbind(c(1, 0, 1, 1, 0), c(0, 0, 0, 1, 1))
  out <- list(
    eapsum_table = cols(eapsum), eapsum_fit = cols(attr(eapsum, "fit")),
    eapsum_full = cols(fs(two, method = "EAPsum")[1:20, ]),
    patterns = cols(fs(two, full.scores = FALSE)),
    prior1 = cols(fs(two, mean = 1, cov = matrix(2))),
    prior1_patterns = cols(fs(two, mean = 0.5, cov = matrix(0.8), full.scores = FALSE, method = "MAP")),
    prior2 = cols(fs(sci2, mean = prior2$mean, cov = prior2$cov)),
    new_prior = cols(fs(two, mean = -0.5, cov = matrix(1.5), response.pattern = new, method = "MAP")),
    mi = cols(mi), mi_patterns = cols(mi_patterns),
    qmc = cols(fs(sci2, QMC = TRUE)),
    dentype = cols(fs(dav, use_dentype_estimate = TRUE)),
    acov = unname(sapply(fscores(two, return.acov = TRUE, verbose = FALSE), function(m) m[1])),
    acov_patterns = unname(sapply(fscores(two, return.acov = TRUE, full.scores = FALSE, verbose = FALSE),
                                  function(m) m[1])),
    acov2 = unname(t(sapply(fscores(sci2, return.acov = TRUE, mean = prior2$mean, cov = prior2$cov,
                                    verbose = FALSE)[1:10], as.vector)))
  )
} else {
  three_se <- mirt(lsat7, 1, itemtype = "3PL", SE = TRUE, verbose = FALSE)
  rasch <- mirt(lsat7, 1, itemtype = "Rasch", verbose = FALSE)
  sci <- mirt(Science, 1, itemtype = "graded", verbose = FALSE)
  grid <- as.matrix(expand.grid(c(-1, 0, 2), c(-2, 0.5)))
  coefs <- function(fit, irt, ci) {
    cf <- coef(fit, IRTpars = irt, CI = ci)
    se <- coef(fit, IRTpars = irt, printSE = TRUE)
    list(value = unname(unlist(lapply(cf, function(m) m[1, ]))),
         lower = unname(unlist(lapply(cf, function(m) m[2, ]))),
         upper = unname(unlist(lapply(cf, function(m) m[3, ]))),
         se = unname(unlist(lapply(se, function(m) m[2, ]))),
         parameter = unname(unlist(lapply(cf, colnames))))
  }
  out <- list(
    vcov = unname(unclass(vcov(two_se))), vcov_names = colnames(vcov(two_se)),
    vcov3 = unname(unclass(vcov(three_se))),
    condnum = extract.mirt(two_se, "condnum"), condnum3 = extract.mirt(three_se, "condnum"),
    wald = cols(wald(two_se, rbind(c(1, 0, -1, 0, 0, 0, 0, 0, 0, 0), c(0, 1, 0, 0, 0, 0, 0, 0, 0, -1)))),
    wald_c = cols(wald(two_se, matrix(c(1, rep(0, 9)), 1), C = 1)),
    coef_si = coefs(two_se, FALSE, 0.95), coef_irt90 = coefs(three_se, TRUE, 0.9), coef_si3 = coefs(three_se, FALSE, 0.95),
    coef_nose = unname(unlist(coef(two))),
    plci = cols(PLCI.mirt(two, parnum = c(1, 6), alpha = 0.1, verbose = FALSE)),
    lagrange = cols(lagrange(rasch, parnum = list(1, 5))),
    lagrange_joint = cols(lagrange(rasch, parnum = list(c(1, 5)))),
    mdisc = unname(MDISC(sci)), mdiff = unname(unclass(MDIFF(sci))),
    mdisc2 = unname(MDISC(sci2)), mdiff2 = unname(unclass(MDIFF(sci2))),
    testinfo = testinfo(two, matrix(c(-2, 0, 1.5))),
    testinfo_items = testinfo(two, matrix(c(-2, 0, 1.5)), which.items = c(2, 4)),
    testinfo2 = testinfo(sci2, grid, degrees = c(30, 60)),
    c2 = cols(M2(sci, type = "C2")),
    ldg2 = unname(unclass(residuals(sci, type = "LDG2", verbose = FALSE)))
  )
}
writeLines(toJSON(out, digits = NA, na = "null", auto_unbox = TRUE, matrix = "rowmajor"), args[2])
