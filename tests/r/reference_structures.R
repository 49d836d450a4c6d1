# Reference for tests/test_structures.py: model structures, constraints, priors, the parameter table
# (linking), estimation options and scores, each by a plain mirt call.
#   Rscript tests/r/reference_structures.R OUT.json SIM.csv FORM_A.csv FORM_B.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
cols <- function(m) { m <- as.matrix(m); setNames(lapply(seq_len(ncol(m)), function(j) unname(m[, j])), colnames(m)) }
items <- function(fit, irt = TRUE) cols(coef(fit, IRTpars = irt, simplify = TRUE)$items)
out <- list()

lsat <- expand.table(LSAT7)
efa <- mirt(lsat, 2, verbose = FALSE)
s <- summary(efa, verbose = FALSE)
sc <- fscores(efa, full.scores.SE = TRUE)
out$efa <- list(items = items(efa, FALSE), loglik = extract.mirt(efa, "logLik"), loadings = cols(s$rotF),
                h2 = as.numeric(s$h2), fcor = cols(s$fcor), scores = cols(sc))
s_var <- summary(efa, rotate = "varimax", verbose = FALSE)
out$efa_varimax <- cols(s_var$rotF)
set.seed(7)
pv <- do.call(rbind, fscores(efa, plausible.draws = 2))
colnames(pv) <- c("F1", "F2")
out$plausible <- cols(pv)

eq <- mirt(lsat, mirt.model("F1 = 1-5\nCONSTRAIN = (1, 2, 3, a1)"), verbose = FALSE)
out$equal <- list(items = items(eq), loglik = extract.mirt(eq, "logLik"))
pr <- mirt(lsat, mirt.model("F1 = 1-5\nPRIOR = (1-5, a1, lnorm, 0.2, 0.2)"), verbose = FALSE)
out$prior <- list(items = items(pr), loglik = extract.mirt(pr, "logLik"))
mixed <- mirt(lsat, 1, itemtype = c("2PL", "2PL", "2PL", "3PL", "3PL"), SE = FALSE, verbose = FALSE)
out$mixed <- list(items = items(mixed), loglik = extract.mirt(mixed, "logLik"))
oakes <- mirt(lsat, 1, SE = TRUE, SE.type = "Oakes", verbose = FALSE)
se <- coef(oakes, IRTpars = TRUE, printSE = TRUE)
out$oakes <- list(a = unname(sapply(se[1:5], function(m) m["SE", "a"])), b = unname(sapply(se[1:5], function(m) m["SE", "b"])))
mh <- mirt(lsat, 1, method = "MHRM", technical = list(NCYCLES = 60), verbose = FALSE)
out$mhrm <- list(items = items(mh))
qm <- mirt(lsat, 1, method = "QMCEM", verbose = FALSE)
out$qmcem <- list(items = items(qm), loglik = extract.mirt(qm, "logLik"))

sci <- Science
for (t in c("nominal", "grsm", "rsm", "Rasch", "graded"))
  out$science[[t]] <- extract.mirt(mirt(sci, 1, itemtype = t, verbose = FALSE), "logLik")

sim <- read.csv(args[2], check.names = FALSE)
cfa <- mirt(sim, mirt.model("F1 = 1-4\nF2 = 5-8\nCOV = F1*F2"), verbose = FALSE)
out$cfa <- list(items = items(cfa, FALSE), loglik = extract.mirt(cfa, "logLik"),
                cor = unname(coef(cfa, simplify = TRUE)$cov[1, 2]))
bif <- mirt(sim, mirt.model("G = 1-8\nS1 = 1-4\nS2 = 5-8"), quadpts = 9, verbose = FALSE)
out$bifactor <- list(items = items(bif, FALSE), loglik = extract.mirt(bif, "logLik"))

# linking: form B's common items (c4..c6) fixed at form A's estimates, B's latent mean and variance free
a <- mirt(read.csv(args[3], check.names = FALSE), 1, verbose = FALSE)
b_data <- read.csv(args[4], check.names = FALSE)
va <- mod2values(a)
vb <- mirt(b_data, 1, pars = "values", verbose = FALSE)
for (it in c("c4", "c5", "c6")) for (p in c("a1", "d")) {
  rb <- vb$item == it & vb$name == p
  vb$value[rb] <- va$value[va$item == it & va$name == p]
  vb$est[rb] <- FALSE
}
vb$est[vb$name %in% c("MEAN_1", "COV_11")] <- TRUE
linked <- mirt(b_data, 1, pars = vb, verbose = FALSE)
cf <- coef(linked, simplify = TRUE)
out$linked <- list(items = items(linked), loglik = extract.mirt(linked, "logLik"),
                   mean = unname(cf$means[1]), var = unname(cf$cov[1, 1]))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
