# Reference for tests/calibration/test_group_results.py: multiple-group fits with several factors, with
# a CONSTRAINB spec and Oakes standard errors, and what mirt computes on them (fscores, itemfit, M2,
# personfit, marginal/empirical reliability, extract.group), by plain mirt calls.
#   Rscript tests/r/reference_group_results.R OUT.json RESPONSES.csv   (the column "group" holds the groups)
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[2], check.names = FALSE)
group <- as.character(d$group)
dat <- as.matrix(d[setdiff(names(d), "group")])
tables <- function(fit, irt, se = FALSE) {
  cf <- coef(fit, IRTpars = irt, simplify = TRUE)
  per <- if (se) coef(fit, IRTpars = irt, printSE = TRUE)
  lapply(setNames(names(cf), names(cf)), function(g) {
    out <- list(items = as.data.frame(cf[[g]]$items), means = unname(cf[[g]]$means), cov = unname(cf[[g]]$cov))
    if (se) out$se <- lapply(per[[g]][colnames(dat)], function(m) as.list(m["SE", ]))
    out
  })
}
# several factors: an exploratory two-factor configural model
two <- multipleGroup(dat, 2, group, itemtype = "2PL", SE = FALSE, verbose = FALSE)
# one factor named F, slopes and intercepts of items 1-3 equal across groups, the focal group's mean and
# variance free, Oakes standard errors
spec <- mirt.model("F = 1-6\nCONSTRAINB = (1-3, a1), (1-3, d)", itemnames = colnames(dat))
mg <- multipleGroup(dat, spec, group, itemtype = "2PL", invariance = c("free_means", "free_var"), SE = TRUE,
                    SE.type = "Oakes", verbose = FALSE)
# the same with a prior on every slope, as mirt.model syntax
spec_prior <- mirt.model("F = 1-6\nPRIOR = (1-6, a1, lnorm, 0, 0.5)", itemnames = colnames(dat))
prior <- multipleGroup(dat, spec_prior, group, itemtype = "2PL", SE = FALSE, verbose = FALSE)
# ... and as a prior written into the parameter table (what priors= does; mirt starts elsewhere then)
values <- multipleGroup(dat, 1, group, itemtype = "2PL", pars = "values")
slopes <- values$name == "a1" & values$est
values$prior.type[slopes] <- "lnorm"
values$prior_1[slopes] <- 0
values$prior_2[slopes] <- 0.5
prior_table <- multipleGroup(dat, 1, group, itemtype = "2PL", pars = values, SE = FALSE, verbose = FALSE)
fs <- fscores(mg, method = "EAP", full.scores.SE = TRUE, verbose = FALSE)
map <- fscores(mg, method = "MAP", full.scores.SE = TRUE, verbose = FALSE)
itf <- itemfit(mg, fit_stats = c("S_X2", "Zh"))
pf <- personfit(mg)
m2 <- M2(mg)
names_ <- extract.mirt(mg, "groupNames")
ref_group <- extract.group(mg, "foc")
patterns <- dat[c(1, 2, 3, 250, 399), ]
new_scores <- fscores(ref_group, method = "EAP", response.pattern = patterns, verbose = FALSE)
out <- list(
  groups = names_,
  two = tables(two, FALSE), two_loglik = extract.mirt(two, "logLik"), two_factors = extract.mirt(two, "factorNames"),
  mg = tables(mg, TRUE, se = TRUE), mg_loglik = extract.mirt(mg, "logLik"), mg_nest = extract.mirt(mg, "nest"),
  mg_se_type = mg@Options$SE.type,
  prior = tables(prior, TRUE), prior_loglik = extract.mirt(prior, "logLik"),
  prior_table = tables(prior_table, TRUE), prior_table_loglik = extract.mirt(prior_table, "logLik"),
  eap = list(theta = unname(fs[, "F"]), se = unname(fs[, "SE_F"])),
  map = list(theta = unname(map[, "F"]), se = unname(map[, "SE_F"])),
  itemfit = lapply(itf, function(x) list(item = as.character(x$item), S_X2 = x$S_X2, df = x$df.S_X2,
                                         p = x$p.S_X2, Zh = x$Zh)),
  personfit = list(Zh = pf$Zh, infit = pf$infit, outfit = pf$outfit),
  m2 = as.list(m2[1, ]),
  marginal = sapply(names_, function(g) unname(marginal_rxx(extract.group(mg, g))), simplify = FALSE),
  empirical = sapply(names_, function(g) unname(empirical_rxx(fs[group == g, , drop = FALSE])), simplify = FALSE),
  extract = list(items = as.data.frame(coef(ref_group, IRTpars = TRUE, simplify = TRUE)$items),
                 n = nrow(extract.mirt(ref_group, "data")),
                 theta = unname(new_scores[, 1]), se = unname(new_scores[, 2]))  # extract.group names it F1
)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, dataframe = "columns"), args[1])
