# Reference values for tests/test_calibration.py, computed with plain mirt and ltm calls (none of
# irtbridge's R helpers), so the tests compare the bridge with R used directly.
#   Rscript tests/r/reference_calibration.R OUT.json MISSING.csv
suppressPackageStartupMessages({ library(mirt); library(ltm); library(jsonlite) })
# JSON has no infinity: ML scores of all-correct / all-wrong patterns travel as +-1e300
finite <- function(x) ifelse(is.infinite(x), sign(x) * 1e300, x)
args <- commandArgs(trailingOnly = TRUE)
out_file <- args[1]
missing_csv <- args[2]

lsat7 <- expand.table(mirt::LSAT7)
science <- mirt::Science
lsat <- ltm::LSAT
abortion <- ltm::Abortion
with_na <- as.matrix(read.csv(missing_csv, check.names = FALSE))

mirt_case <- function(data, itemtype, constrain_slopes = FALSE) {
  if (constrain_slopes) {
    sv <- mirt(data, 1, itemtype = itemtype, pars = "values", verbose = FALSE)
    fit <- mirt(data, 1, itemtype = itemtype, constrain = list(sv$parnum[sv$name == "a1"]), SE = TRUE, verbose = FALSE)
  } else {
    fit <- mirt(data, 1, itemtype = itemtype, SE = TRUE, verbose = FALSE)
  }
  items <- coef(fit, IRTpars = TRUE, simplify = TRUE)$items
  scores <- function(m) { s <- fscores(fit, method = m, full.scores.SE = TRUE, verbose = FALSE); list(theta = finite(s[, "F1"]), se = finite(s[, "SE_F1"])) }
  item_names <- rownames(items)
  rownames(items) <- NULL
  list(items = as.data.frame(items), item_names = item_names, loglik = extract.mirt(fit, "logLik"),
       aic = extract.mirt(fit, "AIC"), bic = extract.mirt(fit, "BIC"), nest = extract.mirt(fit, "nest"),
       EAP = scores("EAP"), MAP = scores("MAP"), ML = scores("ML"), WLE = scores("WLE"))
}

ltm_dich <- function(fit) {
  # IRT parameters from the unrounded coefficients: ltm's logit is beta0 + beta1 * z
  cf <- fit$coefficients
  if (inherits(fit, "tpm")) {
    a <- cf[, 3]; b <- -cf[, 2] / cf[, 3]; g <- plogis(cf[, 1]) * fit$max.guessing
  } else {
    a <- cf[, 2]; b <- -cf[, 1] / cf[, 2]; g <- rep(0, nrow(cf))
  }
  fs <- function(m) { s <- factor.scores(fit, method = m, resp.patterns = fit$X)$score.dat; list(theta = s$z1, se = s$se.z1) }
  list(items = data.frame(a = unname(a), b = unname(b), g = unname(g), u = 1), loglik = as.numeric(logLik(fit)),
       aic = AIC(fit), bic = BIC(fit), EAP = fs("EAP"), MAP = fs("EB"))
}

ltm_poly <- function(fit, graded) {
  cf <- fit$coefficients
  rows <- lapply(cf, function(x) { n <- length(x); th <- x[-n]; if (graded) th <- th / x[n]; c(a = unname(x[n]), setNames(unname(th), paste0("b", seq_along(th)))) })
  fs <- function(m) { s <- factor.scores(fit, method = m, resp.patterns = fit$X)$score.dat; list(theta = s$z1, se = s$se.z1) }
  list(items = as.data.frame(unname(do.call(rbind, rows)) |> `colnames<-`(names(rows[[1]]))), loglik = as.numeric(logLik(fit)), aic = AIC(fit), bic = BIC(fit),
       EAP = fs("EAP"), MAP = fs("EB"))
}

ref <- list(
  mirt = list(
    LSAT7_2PL = mirt_case(lsat7, "2PL"),
    LSAT7_3PL = mirt_case(lsat7, "3PL"),
    LSAT7_rasch = mirt_case(lsat7, "Rasch"),
    LSAT7_1PL = mirt_case(lsat7, "2PL", constrain_slopes = TRUE),
    Science_graded = mirt_case(science, "graded"),
    Science_gpcm = mirt_case(science, "gpcm"),
    missing_2PL = mirt_case(with_na, "2PL")
  ),
  ltm = list(
    LSAT_2PL = ltm_dich(ltm(lsat ~ z1)),
    LSAT_rasch = ltm_dich(rasch(lsat, constraint = cbind(ncol(lsat) + 1, 1))),
    LSAT_1PL = ltm_dich(rasch(lsat)),
    LSAT_3PL = ltm_dich(tpm(lsat)),
    Abortion_2PL = ltm_dich(ltm(abortion ~ z1)),
    Science_graded = ltm_poly(grm(science), graded = TRUE),
    Science_gpcm = ltm_poly(gpcm(science), graded = FALSE),
    missing_2PL = ltm_dich(ltm(with_na ~ z1))
  )
)
writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, na = "null"), out_file)
