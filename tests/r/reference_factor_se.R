# Reference fits for tests/em/test_factor_se.py: mirt's two-factor 2PL with its crossprod standard errors.
#   Rscript tests/r/reference_factor_se.R OUT.json DATA.csv
# Cases (each mirt(data, ..., "2PL", method = "EM", SE = TRUE, SE.type = "crossprod", TOL = 1e-6), 31 points
# per factor, mirt's defaults otherwise):
#   ml: exploratory, mirt(data, 2);
#   map: the same with priors a1, a2 ~ norm(0, 2) (symmetric: the sign of a factor stays free) and d ~ norm(0, 3) set in the starting values' table;
#   cfa: confirmatory, F1 = items 1-10, F2 = items 11-20 (orthogonal factors, mirt's default).
# For each: the slopes and intercepts, their SEs from coef(fit, printSE = TRUE) (NA where fixed), logLik and
# logPrior.
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
data <- as.matrix(read.csv(args[2], check.names = FALSE))
fit <- function(model, pars = NULL) {
  m <- mirt(data, model, "2PL", method = "EM", SE = TRUE, SE.type = "crossprod", TOL = 1e-6, quadpts = 31,
            technical = list(NCYCLES = 5000), verbose = FALSE, pars = pars)
  rows <- coef(m, printSE = TRUE)[seq_len(ncol(data))]
  pick <- function(what, p) unname(sapply(rows, function(r) if (p %in% colnames(r)) r[what, p] else NA))
  list(a = cbind(pick("par", "a1"), pick("par", "a2")), d = pick("par", "d"),
       se_a = cbind(pick("SE", "a1"), pick("SE", "a2")), se_d = pick("SE", "d"),
       loglik = extract.mirt(m, "logLik"), logprior = extract.mirt(m, "logPrior"),
       converged = extract.mirt(m, "converged"))
}
values <- mirt(data, 2, "2PL", pars = "values", verbose = FALSE)
for (p in c("a1", "a2")) {
  rows <- values$name == p & values$est
  values$prior.type[rows] <- "norm"; values$prior_1[rows] <- 0; values$prior_2[rows] <- 2
}
rows <- values$name == "d"
values$prior.type[rows] <- "norm"; values$prior_1[rows] <- 0; values$prior_2[rows] <- 3
cfa <- mirt.model("F1 = 1-10\nF2 = 11-20")
out <- list(ml = fit(2), map = fit(2, values), cfa = fit(cfa))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null"), args[1])
