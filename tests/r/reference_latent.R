# Reference for tests/calibration/test_latent.py: non-normal latent densities (dentype) on mirt's SAT12
# and a latent regression (covdata/formula) on data simulated here, each by a plain mirt call.
#   Rscript tests/r/reference_latent.R dentype OUT.json
#   Rscript tests/r/reference_latent.R regression OUT.json RESPONSES.csv COVARIATES.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
cols <- function(m) { m <- as.matrix(m); setNames(lapply(seq_len(ncol(m)), function(j) unname(m[, j])), colnames(m)) }
items <- function(fit) cols(coef(fit, IRTpars = TRUE, simplify = TRUE)$items)
out <- list()

if (args[1] == "dentype") {
  # SAT12 as irtbridge.example_data.response_dataset("SAT12") holds it: 8 (not answered) missing, then the
  # key of ?SAT12
  sat <- SAT12
  sat[sat == 8] <- NA
  sat <- key2binary(sat, c(1,4,5,2,3,1,2,1,3,1,2,4,2,1,5,3,4,4,1,4,3,3,4,1,3,5,1,3,1,5,4,5))
  for (d in c("EH", "EHW", "Davidian-4")) {
    fit <- mirt(sat, 1, itemtype = "2PL", dentype = d, SE = FALSE, verbose = FALSE)
    out[[d]] <- list(items = items(fit), loglik = extract.mirt(fit, "logLik"))
  }
} else {
  # theta = 0.6 x1 - 0.8 [grp = b] + 0.3 [grp = c] + 0.4 w + noise; the third covariate's name holds R
  # syntax (it must reach R verbatim and run nothing)
  set.seed(2026)
  n <- 800
  weird <- "w`; system('touch PWNED') #"
  cov <- data.frame(x1 = rnorm(n), grp = sample(c("a", "b", "c"), n, replace = TRUE), w = runif(n))
  theta <- 0.6 * cov$x1 - 0.8 * (cov$grp == "b") + 0.3 * (cov$grp == "c") + 0.4 * cov$w + rnorm(n, sd = 0.7)
  dat <- simdata(matrix(runif(12, 0.8, 2)), matrix(rnorm(12)), n, itemtype = "dich", Theta = matrix(theta))
  names(cov)[3] <- weird
  write.csv(dat, args[3], row.names = FALSE)
  write.csv(cov, args[4], row.names = FALSE)
  f <- ~ x1 + grp + w
  f[[2]][[3]] <- as.symbol(weird)  # the same formula, with the column's name as it is
  for (se in c(FALSE, TRUE)) {
    fit <- mirt(dat, 1, itemtype = "2PL", covdata = cov, formula = f, SE = se, verbose = FALSE)
    lr <- coef(fit, printSE = TRUE)$lr.betas
    if (!se) lr <- list(betas = lr)  # without SEs mirt gives the betas matrix alone
    out[[if (se) "lr_se" else "lr"]] <- list(items = items(fit), loglik = extract.mirt(fit, "logLik"),
      terms = rownames(lr$betas), beta = unname(lr$betas[, 1]), se = if (se) unname(lr$SE[, 1]))
  }
}
writeLines(toJSON(out, digits = NA, na = "null", auto_unbox = TRUE), args[2])
