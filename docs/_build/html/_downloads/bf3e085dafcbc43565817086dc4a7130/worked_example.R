# A worked migration, the R side: mirt's SAT12 from raw answers to two linked forms (mirt 1.48).
# Its Python translation is docs/migration/worked_example.py; docs/coming-from-r.md ("A worked
# migration") shows the two step by step, and tests/test_migration_guide.py runs both and compares.
#   Rscript docs/migration/worked_example.R [numbers.json]

# ---- Setup ----
suppressPackageStartupMessages(library(mirt))

# ---- 1. Score the multiple-choice answers with the key ----
key <- c(1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5)
raw <- SAT12
raw[raw == 8] <- NA                      # 8 codes "not answered"
scored <- key2binary(raw, key)           # 600 x 32: 1 right, 0 wrong, NA not answered
items <- colnames(scored)

# ---- 2. DIF between two administrations ----
# SAT12 has no background variable: its first and last 300 rows stand in for two administrations.
admin <- rep(c("first", "second"), each = 300)
# items 9-32 anchor the scale (equal in both groups); the groups' latent means and variances are free
anchored <- multipleGroup(scored, 1, admin, itemtype = "2PL",
                          invariance = c(items[9:32], "free_means", "free_var"), SE = TRUE, verbose = FALSE)
dif <- DIF(anchored, c("a1", "d"), scheme = "add", items2test = 1:8, p.adjust = "holm", verbose = FALSE)
print(dif[, c("X2", "df", "p", "adj_p")])

# ---- 3. DRF: what items 1-8 do together to the expected test score ----
drf <- DRF(anchored, best_fitting = TRUE)               # sDRF, uDRF, dDRF and their d metric
set.seed(1)
drf_ci <- DRF(anchored, draws = 100, best_fitting = TRUE)  # intervals and tests from 100 draws
print(drf_ci)

# ---- 4. Link two forms through their common items ----
# Form A (items 1-20) went to the first administration, form B (items 13-32) to the second.
form_a <- scored[admin == "first", 1:20]
form_b <- scored[admin == "second", 13:32]
common <- items[13:20]
mod_a <- mirt(form_a, 1, itemtype = "2PL", verbose = FALSE)
# fixed common items: form A's estimates, form B's latent mean and variance free
sv <- mirt(form_b, 1, itemtype = "2PL", pars = "values")
va <- mod2values(mod_a)
fix <- sv$item %in% common & sv$name %in% c("a1", "d")
sv$value[fix] <- va$value[match(paste(sv$item, sv$name)[fix], paste(va$item, va$name))]
sv$est[fix] <- FALSE
sv$est[sv$name %in% c("MEAN_1", "COV_11")] <- TRUE
linked <- mirt(form_b, 1, itemtype = "2PL", pars = sv, verbose = FALSE)
print(coef(linked, IRTpars = TRUE, simplify = TRUE)$items[c("Item.13", "Item.21"), ])  # a common item, a new one
# mirt's fixed-item calibration (Kim, 2006): form B's answers, NA for the items it did not have
form_b_all <- scored[admin == "second", ]
form_b_all[, 1:12] <- NA
fixed <- fixedCalib(form_b_all, 1, old_mod = mod_a)

# ---- Numbers compared by tests/test_migration_guide.py ----
out <- commandArgs(trailingOnly = TRUE)
if (length(out)) {
  numbers <- list(
    scored = as.vector(scored),
    anchored = c(extract.mirt(anchored, "logLik"), unlist(coef(anchored, simplify = TRUE)$second[c("means", "cov")]),
                 coef(anchored, IRTpars = TRUE, simplify = TRUE)$second$items[, c("a", "b")]),
    dif = as.vector(as.matrix(dif[, c("X2", "df", "p", "adj_p")])), dif_items = rownames(dif),
    drf = unlist(drf[, c("sDRF", "uDRF", "dDRF", "sDRF*", "uDRF*", "dDRF*")]),
    drf_ci = as.vector(as.matrix(drf_ci[, c("stat", "CI_2.5", "CI_97.5", "X2", "df", "p")])),
    linked = c(extract.mirt(linked, "logLik"), coef(linked, IRTpars = TRUE, simplify = TRUE)$items[, c("a", "b")],
               coef(linked, simplify = TRUE)$means, coef(linked, simplify = TRUE)$cov),
    fixed = c(extract.mirt(fixed, "logLik"),
              coef(fixed, IRTpars = TRUE, simplify = TRUE)$items[items[21:32], c("a", "b")])
  )
  writeLines(jsonlite::toJSON(numbers, digits = NA, na = "null"), out[1])
}
