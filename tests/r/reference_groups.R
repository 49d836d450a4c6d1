# Reference for tests/test_groups.py: multipleGroup fits and DIF by plain mirt calls.
#   Rscript tests/r/reference_groups.R OUT.json RESPONSES.csv   (the column "group" holds the groups)
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[2], check.names = FALSE)
group <- as.character(d$group)
dat <- as.matrix(d[setdiff(names(d), "group")])
per_group <- function(fit) {
  cf <- coef(fit, IRTpars = TRUE, simplify = TRUE)
  lapply(cf, function(g) list(a = unname(g$items[, "a"]), b = unname(g$items[, "b"]),
                              mean = unname(g$means[1]), var = unname(g$cov[1, 1])))
}
dif_cols <- function(x) list(item = rownames(x), AIC = x$AIC, SABIC = x$SABIC, HQ = x$HQ, BIC = x$BIC,
                             X2 = x$X2, df = x$df, p = x$p, adj_p = x$adj_p)
configural <- multipleGroup(dat, 1, group = group, SE = FALSE, verbose = FALSE)
invariant <- multipleGroup(dat, 1, group = group, invariance = c(colnames(dat), "free_means", "free_var"),
                           SE = FALSE, verbose = FALSE)
add <- DIF(configural, c("a1", "d"), verbose = FALSE)
drop <- DIF(invariant, c("a1", "d"), scheme = "drop", items2test = colnames(dat)[1:3], p.adjust = "BH",
            verbose = FALSE)
out <- list(configural = per_group(configural), configural_loglik = extract.mirt(configural, "logLik"),
            invariant = per_group(invariant), invariant_loglik = extract.mirt(invariant, "logLik"),
            add = dif_cols(add), drop = dif_cols(drop), add_names = names(add), groups = extract.mirt(configural, "groupNames"))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
