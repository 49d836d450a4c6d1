# Reference for tests/calibration/test_surface_r.py (issue 34): mirt called directly on the same data.
#   Rscript tests/r/reference_surface.R OUT.json SAT12.csv SCIENCE.csv LSAT7.csv SHAPED.csv LSAT.csv
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
read <- function(path) as.matrix(read.csv(path, check.names = FALSE))
sat12 <- read(args[2]); science <- read(args[3]); lsat7 <- read(args[4]); shaped <- read(args[5]); lsat <- read(args[6])
out <- list()

# 1. item fit with missing answers: na.rm = TRUE, and the imputation route (plausible values, imputeMissing,
#    itemfit at the fit's parameters on each completed data set, averaged)
fit <- mirt(sat12, 1, itemtype = "2PL", verbose = FALSE)
rm_table <- suppressMessages(itemfit(fit, "S_X2", na.rm = TRUE))
out$sat12_narm <- list(S_X2 = rm_table$S_X2, df = rm_table$df.S_X2, p = rm_table$p.S_X2,
                       n = nrow(na.omit(sat12)))
set.seed(7)
pv <- fscores(fit, plausible.draws = 3)
imputed <- sapply(pv, function(theta) {
  full <- imputeMissing(fit, theta, warn = FALSE)
  shell <- mirt(full, 1, TOL = NaN, verbose = FALSE, technical = list(customK = fit@Data$K, message = FALSE, warn = FALSE))
  one <- fit
  one@Data <- shell@Data
  itemfit(one, "S_X2")$S_X2
})
out$sat12_impute <- list(mean = rowMeans(imputed), sd = apply(imputed, 1, sd))

# 2. Likert items coded 1..4 (Science): fscores of the data the fit was made from, on the 61-point grid
gfit <- mirt(science, 1, itemtype = "graded", verbose = FALSE)
sc <- fscores(gfit, method = "EAP", quadpts = 61, theta_lim = c(-6, 6), response.pattern = science,
              full.scores.SE = TRUE)
out$science <- list(theta = unname(sc[, "F1"]), se = unname(sc[, "SE_F1"]), mins = unname(extract.mirt(gfit, "mins")))

# 3. SE.type = "SEM": mirt runs its EM differently with SE = TRUE; estimates, SEs and condition number
sem <- mirt(lsat7, 1, itemtype = "2PL", SE = TRUE, SE.type = "SEM", verbose = FALSE)
cf <- coef(sem, IRTpars = TRUE, printSE = TRUE)[colnames(lsat7)]
out$sem <- list(a = unname(sapply(cf, function(m) m["par", "a"])), b = unname(sapply(cf, function(m) m["par", "b"])),
                se_a = unname(sapply(cf, function(m) m["SE", "a"])), se_b = unname(sapply(cf, function(m) m["SE", "b"])),
                condnum = extract.mirt(sem, "condnum"), loglik = extract.mirt(sem, "logLik"))

# 4. a 3PL whose information matrix is not positive definite: coef() of the fit without SEs
fit3 <- mirt(shaped, 1, itemtype = "3PL", verbose = FALSE)
cf3 <- coef(fit3, verbose = FALSE)
out$shaped_values <- list(item1 = unname(cf3[[1]][1, ]), names = colnames(cf3[[1]]))

# 5. multiple groups: coef(mg, printSE = TRUE) per group; the [group] keyword syntax
groups <- rep(c("even", "odd"), 500)
mg <- multipleGroup(lsat7, 1, groups, itemtype = "2PL", SE = TRUE, verbose = FALSE)
odd <- coef(mg, printSE = TRUE)$odd[colnames(lsat7)]
out$odd <- list(a1 = unname(sapply(odd, function(m) m["par", "a1"])), d = unname(sapply(odd, function(m) m["par", "d"])),
                se_a1 = unname(sapply(odd, function(m) m["SE", "a1"])), se_d = unname(sapply(odd, function(m) m["SE", "d"])))
syntax <- "F = 1-5\nSTART [even] = (1, d, 2.0)\nFIXED [even] = (1, d)"
mgk <- multipleGroup(lsat7, mirt.model(syntax), groups, itemtype = "2PL", verbose = FALSE)
ck <- coef(mgk, simplify = TRUE)
out$keyword <- list(loglik = extract.mirt(mgk, "logLik"), even_d = unname(ck$even$items[, "d"]),
                    odd_d = unname(ck$odd$items[, "d"]))

# 6. latent classes with SEs (mdirt passes SE and SE.type on to its estimation)
lca <- mdirt(lsat, 2, SE = TRUE, SE.type = "crossprod", verbose = FALSE)
cl <- coef(lca, printSE = TRUE)
out$lca <- list(value = unname(cl[[1]][1, ]), se = unname(cl[[1]][2, ]), names = colnames(cl[[1]]),
                loglik = extract.mirt(lca, "logLik"))

# 7. M2 and reliability, which summary() shows once computed
two <- mirt(lsat7, 1, itemtype = "2PL", verbose = FALSE)
m2 <- M2(two)
out$m2 <- list(M2 = m2$M2, df = m2$df, RMSEA = m2$RMSEA, marginal = marginal_rxx(two))

writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null"), args[1])
