# Reference for tests/calibration/test_itemtypes.py: mirt's item types by name, nested logit items with a
# key, scoring matrices (gpcm_mats), monopoly.k, estimation methods and their seed, each by a plain mirt
# call on mirt's own data (LSAT7, Science, SAT12).
#   Rscript tests/r/reference_itemtypes.R OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
cols <- function(m) { m <- as.matrix(m); setNames(lapply(seq_len(ncol(m)), function(j) unname(m[, j])), colnames(m)) }
lsat <- expand.table(LSAT7)
data(Science, package = "mirt")
data(SAT12, package = "mirt")

# what calibrate() reads: the IRT table where mirt has one, else the slope-intercept table
items <- function(m) {
  irt <- tryCatch(coef(m, IRTpars = TRUE, simplify = TRUE)$items, error = function(e) NULL)
  if (is.null(irt)) coef(m, simplify = TRUE)$items else irt
}
summarise <- function(m) list(loglik = extract.mirt(m, "logLik"), items = cols(items(m)),
                              n_parameters = extract.mirt(m, "nest"), theta = unname(fscores(m)[1:5, 1]),
                              values = mod2values(m)$value)
fit <- function(data, itemtype, ...) summarise(mirt(data, 1, itemtype, verbose = FALSE, ...))

out <- list()
for (it in c("3PLu", "5PL", "CLL", "ULL", "ideal", "hcm", "spline", "monopoly")) out[[paste0("lsat_", it)]] <- fit(lsat, it)
for (it in c("gpcmIRT", "grsmIRT", "sequential", "Tutz")) out[[paste0("science_", it)]] <- fit(Science, it)
out$science_mixed <- fit(Science, c("graded", "graded", "Rasch", "ggum"))

# nested logit: the first five SAT12 items as answered (8 = not answered), the next five scored
key <- c(1, 4, 5, 2, 3, 1, 2, 1, 3, 1)
raw <- SAT12[, 1:10]
raw[raw == 8] <- NA
raw[, 6:10] <- key2binary(raw[, 6:10], key[6:10])
out$nrm2 <- fit(raw, c(rep("2PLNRM", 5), rep("2PL", 5)), key = key)
out$nrm3 <- fit(raw, c(rep("3PLNRM", 2), rep("2PLNRM", 3), rep("2PL", 5)), key = key)

# scoring matrices: Comfort scored 0, 2, 3, 5; Work as a standard gpcm item (mirt needs every item's)
comfort <- matrix(c(0, 2, 3, 5), 4, 1)
standard <- matrix(0:3, 4, 1)
out$gpcm_mats <- fit(Science, c("gpcm", "gpcm", "graded", "graded"), gpcm_mats = list(comfort, standard, standard, standard))

out$monopoly_k2 <- fit(lsat, "monopoly", monopoly.k = 2L)

# estimation methods: MCEM draws from R's generator, seeded by technical$set.seed
out$mcem_seed <- fit(lsat, "2PL", method = "MCEM", technical = list(set.seed = 3L, NCYCLES = 30L))
out$bl <- fit(lsat, "2PL", method = "BL")

# mirt's item types by name in a multiple-group fit
group <- rep(c("a", "b"), 500)
mg <- multipleGroup(lsat, 1, group, itemtype = "ideal", invariance = c(colnames(lsat), "free_means", "free_var"),
                    verbose = FALSE)
out$groups_ideal <- list(loglik = extract.mirt(mg, "logLik"), means = unname(coef(mg, simplify = TRUE)$b$means))

out$values_grsmIRT <- mirt(Science, 1, "grsmIRT", pars = "values", verbose = FALSE)$value

writeLines(toJSON(out, digits = NA, na = "null", auto_unbox = TRUE), args[1])
