# Reference for tests/calibration/test_classes.py: latent class models by mirt's mdirt called directly.
#   Rscript tests/r/reference_classes.R OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
data(LSAT, package = "ltm")
dat <- as.matrix(LSAT)
cols <- function(x) lapply(as.data.frame(x, check.names = FALSE), function(v) if (is.factor(v)) as.character(v) else unname(v))
mod <- mdirt(dat, 2, verbose = FALSE)
s <- summary(mod, verbose = FALSE)
out <- list(loglik = extract.mirt(mod, "logLik"), aic = extract.mirt(mod, "AIC"), bic = extract.mirt(mod, "BIC"),
            nest = extract.mirt(mod, "nest"), iterations = extract.mirt(mod, "iterations"),
            proportions = s$Class.Probability$prob,
            probabilities = lapply(s[colnames(dat)], function(m) unname(m)),
            m2 = cols(M2(mod)), m2_c2 = cols(M2(mod, type = "C2")), posteriors = cols(fscores(mod)),
            patterns = cols(fscores(mod, full.scores = FALSE)), values = cols(mod2values(mod)))
# polytomous items, three classes, from edited start values
sv <- mdirt(Science, 3, pars = "values", verbose = FALSE)
out$start_table <- cols(sv)
sv$value[sv$name == "a1"] <- 0.5
poly <- mdirt(Science, 3, pars = sv, verbose = FALSE)
ps <- summary(poly, verbose = FALSE)
out$poly <- list(loglik = extract.mirt(poly, "logLik"), proportions = ps$Class.Probability$prob,
                 probabilities = lapply(ps[colnames(Science)], function(m) unname(m)))
# random starts: three runs after set.seed, the best kept
set.seed(4)
runs <- mdirt(dat, 2, nruns = 3, verbose = FALSE)
out$runs <- extract.mirt(runs, "logLik")
# the arguments mdirt reads (its own and, through `...`, mirt's estimation routine's)
out$formals <- unique(c(names(formals(mdirt)), names(formals(mirt:::ESTIMATION)), names(formals(mirt:::makeopts))))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null", matrix = "rowmajor"), args[1])
